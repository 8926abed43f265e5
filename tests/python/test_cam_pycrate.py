"""Cross-check of our CAM codec (crates/etsi-its: c-its-parser's `cam_1_4_1`, rasn) with an
independent implementation: pycrate's ETSI module `pycrate_asn1dir.ITS_CAM_2`, compiled from
CAM-PDU-Descriptions (EN 302 637-2 V1.4.1, OID {... en(302637) cam(2) version(2)}) and
ITS-Container (OID version 2), PDU `CAM_PDU_Descriptions.CAM`.

* our encoder -> pycrate: every CAM printed by `etsi-its-vectors cam` decodes in pycrate to
  exactly the CAM we meant to send (field values, unavailable codes, turn signals as
  exteriorLights bits 2 and 3), and pycrate re-encodes it to the same bytes;
* pycrate encoder -> our decoder: CAMs built and encoded by pycrate, with every container of
  V1.4.1 and the optional fields, read back with the same values through
  `etsi-its-vectors cam --decode HEX`.

The binary: see etsi_vectors.py. Needs pycrate==0.8.1 and pytest.
"""

import etsi_vectors
import pytest
from etsi_vectors import (
    PycrateUper,
    heading_view,
    position,
    position_as_sent,
    printed_vectors,
    run_vectors,
    station_view,
)
from pycrate_asn1dir import ITS_CAM_2

CAM = ITS_CAM_2.CAM_PDU_Descriptions.CAM
PER = PycrateUper(CAM)
pycrate_decode, pycrate_encode = PER.decode, PER.encode
EXTERIOR_LIGHTS = ITS_CAM_2.ITS_Container.ExteriorLights

VECTOR_NAMES = ["moving", "parked", "hazard", "extremes", "rsu"]
# ItsPduHeader of an EN 302 637-2 V1.4.1 CAM: protocolVersion 2, messageID cam(2).
PROTOCOL_VERSION, MESSAGE_ID = 2, 2
# What SimpleCam::to_cam sends for quantities it does not model.
HEADING_UNAVAILABLE, SPEED_UNAVAILABLE, YAW_RATE_UNAVAILABLE, ACCELERATION_UNAVAILABLE = 3601, 16383, 32767, 161
# ExteriorLights is a BIT STRING (SIZE(8)); pycrate's value is (integer, length), bit 0 first.
LEFT_TURN_SIGNAL, RIGHT_TURN_SIGNAL = 2, 3


def our_decode(uper: bytes) -> dict:
    return etsi_vectors.our_decode(uper, "cam")


@pytest.fixture(scope="module")
def vectors() -> dict:
    return printed_vectors("cam")


def lights(*bits: int) -> tuple:
    """The ExteriorLights value with `bits` on."""
    return (sum(1 << (7 - bit) for bit in bits), 8)


def header(station_id: int) -> dict:
    return {"protocolVersion": PROTOCOL_VERSION, "messageID": MESSAGE_ID, "stationID": station_id}


def expected_fields(value: dict) -> dict:
    """The SimpleCam view of a pycrate CAM value, written out per field."""
    parameters = value["cam"]["camParameters"]
    basic = parameters["basicContainer"]
    kind, hf = parameters["highFrequencyContainer"]
    vehicle = hf if kind == "basicVehicleContainerHighFrequency" else None

    def available(read, unavailable):
        v = read(vehicle) if vehicle else None
        return None if v == unavailable else v

    low = parameters.get("lowFrequencyContainer")
    turn_signals = None
    if low is not None:
        assert low[0] == "basicVehicleContainerLowFrequency"
        bits, length = low[1]["exteriorLights"]
        turn_signals = {
            side: bool(bits >> (length - 1 - bit) & 1)
            for side, bit in [("left", LEFT_TURN_SIGNAL), ("right", RIGHT_TURN_SIGNAL)]
        }
    return {
        **station_view(value["header"], value["cam"]["generationDeltaTime"], basic),
        # 3600 (360°) is in HeadingValue's range, but no heading
        "heading_decideg": heading_view(vehicle["heading"]["headingValue"] if vehicle else None),
        "speed_cm_s": available(lambda hf: hf["speed"]["speedValue"], SPEED_UNAVAILABLE),
        "yaw_rate_centideg_s": available(lambda hf: hf["yawRate"]["yawRateValue"], YAW_RATE_UNAVAILABLE),
        "longitudinal_acceleration_dm_s2": available(
            lambda hf: hf["longitudinalAcceleration"]["longitudinalAccelerationValue"], ACCELERATION_UNAVAILABLE
        ),
        "turn_signals": turn_signals,
    }


def intended_cam(fields: dict) -> dict:
    """The whole CAM SimpleCam::to_cam means to send for the view `fields`, as a pycrate value."""

    def code(key, unavailable):
        return unavailable if fields[key] is None else fields[key]

    high_frequency = {
        "heading": {"headingValue": code("heading_decideg", HEADING_UNAVAILABLE), "headingConfidence": 127},
        "speed": {"speedValue": code("speed_cm_s", SPEED_UNAVAILABLE), "speedConfidence": 127},
        "driveDirection": "unavailable",
        "vehicleLength": {"vehicleLengthValue": 1023, "vehicleLengthConfidenceIndication": "unavailable"},
        "vehicleWidth": 62,
        "longitudinalAcceleration": {
            "longitudinalAccelerationValue": code("longitudinal_acceleration_dm_s2", ACCELERATION_UNAVAILABLE),
            "longitudinalAccelerationConfidence": 102,
        },
        "curvature": {"curvatureValue": 1023, "curvatureConfidence": "unavailable"},
        "curvatureCalculationMode": "unavailable",
        "yawRate": {
            "yawRateValue": code("yaw_rate_centideg_s", YAW_RATE_UNAVAILABLE),
            "yawRateConfidence": "unavailable",
        },
    }
    parameters = {
        "basicContainer": {
            "stationType": fields["station_type"],
            "referencePosition": position_as_sent(fields["lat_e7"], fields["lon_e7"]),
        },
        "highFrequencyContainer": ("basicVehicleContainerHighFrequency", high_frequency),
    }
    signals = fields["turn_signals"]
    if signals is not None:
        on = [bit for bit, side in [(LEFT_TURN_SIGNAL, "left"), (RIGHT_TURN_SIGNAL, "right")] if signals[side]]
        parameters["lowFrequencyContainer"] = (
            "basicVehicleContainerLowFrequency",
            {"vehicleRole": "default", "exteriorLights": lights(*on), "pathHistory": []},
        )
    return {
        "header": header(fields["station_id"]),
        "cam": {"generationDeltaTime": fields["generation_delta_time_ms"], "camParameters": parameters},
    }


def test_all_vectors_are_printed(vectors):
    assert sorted(vectors) == sorted(VECTOR_NAMES)


@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_pycrate_decodes_our_encoding_to_the_intended_values(vectors, name):
    uper, fields = vectors[name]
    value = pycrate_decode(uper)

    assert value["header"] == header(fields["station_id"])
    assert value["cam"]["generationDeltaTime"] == fields["generation_delta_time_ms"]
    parameters = value["cam"]["camParameters"]
    assert parameters["basicContainer"]["stationType"] == fields["station_type"]
    position = parameters["basicContainer"]["referencePosition"]
    assert (position["latitude"], position["longitude"]) == (fields["lat_e7"], fields["lon_e7"])
    # a vehicle's high-frequency container, also from an RSU: the motion travels
    kind, hf = parameters["highFrequencyContainer"]
    assert kind == "basicVehicleContainerHighFrequency"
    assert "specialVehicleContainer" not in parameters
    # the low-frequency container only with turn signals
    assert ("lowFrequencyContainer" in parameters) == (fields["turn_signals"] is not None)
    # every field, unavailable codes and what to_cam fills in included
    assert value == intended_cam(fields)
    assert expected_fields(value) == fields

    # both encoders are canonical, so pycrate must reproduce our bytes
    assert CAM.to_uper() == uper


def decoded_light_names(vectors, name: str) -> list:
    low = pycrate_decode(vectors[name][0])["cam"]["camParameters"]["lowFrequencyContainer"]
    EXTERIOR_LIGHTS.set_val(low[1]["exteriorLights"])
    return EXTERIOR_LIGHTS.get_names()


def test_turn_signals_are_the_named_exterior_lights_bits(vectors):
    """pycrate names the bits from ITS-Container: leftTurnSignalOn(2), rightTurnSignalOn(3)."""
    assert EXTERIOR_LIGHTS._cont["leftTurnSignalOn"] == LEFT_TURN_SIGNAL
    assert EXTERIOR_LIGHTS._cont["rightTurnSignalOn"] == RIGHT_TURN_SIGNAL
    assert decoded_light_names(vectors, "moving") == ["rightTurnSignalOn"]
    assert decoded_light_names(vectors, "hazard") == ["leftTurnSignalOn", "rightTurnSignalOn"]
    assert decoded_light_names(vectors, "extremes") == []
    assert vectors["moving"][1]["turn_signals"] == {"left": False, "right": True}
    assert vectors["hazard"][1]["turn_signals"] == {"left": True, "right": True}


def test_extremes_are_clamped_into_range(vectors):
    """The reference CAM is built from values out of range; it carries them clamped (a heading
    of 719.9° as 359.9°), which pycrate reads as the limits of the ASN.1 ranges."""
    hf = pycrate_decode(vectors["extremes"][0])["cam"]["camParameters"]["highFrequencyContainer"][1]
    assert hf["heading"]["headingValue"] == 3599
    assert hf["speed"]["speedValue"] == 16382
    assert hf["yawRate"]["yawRateValue"] == -32766
    assert hf["longitudinalAcceleration"]["longitudinalAccelerationValue"] == 160


def test_rsu_and_parked_carry_only_unavailable_motion(vectors):
    for name in ["rsu", "parked"]:
        fields = vectors[name][1]
        hf = pycrate_decode(vectors[name][0])["cam"]["camParameters"]["highFrequencyContainer"][1]
        assert hf["heading"]["headingValue"] == HEADING_UNAVAILABLE
        assert hf["speed"]["speedValue"] == SPEED_UNAVAILABLE
        assert hf["yawRate"]["yawRateValue"] == YAW_RATE_UNAVAILABLE
        assert hf["longitudinalAcceleration"]["longitudinalAccelerationValue"] == ACCELERATION_UNAVAILABLE
        assert fields["turn_signals"] is None
    assert vectors["rsu"][1]["station_type"] == ITS_CAM_2.ITS_Container.StationType._cont["roadSideUnit"] == 15


def vehicle_high_frequency(heading: int, speed: int, yaw_rate: int, acceleration: int, **optional) -> tuple:
    return (
        "basicVehicleContainerHighFrequency",
        {
            "heading": {"headingValue": heading, "headingConfidence": 10},
            "speed": {"speedValue": speed, "speedConfidence": 5},
            "driveDirection": "forward",
            "vehicleLength": {"vehicleLengthValue": 45, "vehicleLengthConfidenceIndication": "noTrailerPresent"},
            "vehicleWidth": 18,
            "longitudinalAcceleration": {
                "longitudinalAccelerationValue": acceleration,
                "longitudinalAccelerationConfidence": 3,
            },
            "curvature": {"curvatureValue": -120, "curvatureConfidence": "onePerMeter-0-002"},
            "curvatureCalculationMode": "yawRateUsed",
            "yawRate": {"yawRateValue": yaw_rate, "yawRateConfidence": "degSec-001-00"},
            **optional,
        },
    )


def low_frequency(role: str, exterior_lights: tuple, path_history: list) -> tuple:
    return (
        "basicVehicleContainerLowFrequency",
        {"vehicleRole": role, "exteriorLights": exterior_lights, "pathHistory": path_history},
    )


def cam(station_id: int, delta: int, station_type: int, pos: dict, hf: tuple, **containers) -> dict:
    return {
        "header": header(station_id),
        "cam": {
            "generationDeltaTime": delta,
            "camParameters": {
                "basicContainer": {"stationType": station_type, "referencePosition": pos},
                "highFrequencyContainer": hf,
                **containers,
            },
        },
    }


PATH_HISTORY = [
    {"pathPosition": {"deltaLatitude": -120, "deltaLongitude": 40, "deltaAltitude": 0}, "pathDeltaTime": 100},
    {"pathPosition": {"deltaLatitude": 131071, "deltaLongitude": -131071, "deltaAltitude": 12800}},
]

PYCRATE_CAMS = {
    # an ambulance turning left with its low beam and daytime lights on: every optional field
    # of the vehicle's high-frequency container, a path history and an emergency container
    "emergency_vehicle": cam(
        305419896,
        12345,
        10,
        position(478_095_123, 130_550_456),
        vehicle_high_frequency(
            1234,
            1389,
            420,
            -12,
            accelerationControl=(0b1010001, 7),
            lanePosition=2,
            steeringWheelAngle={"steeringWheelAngleValue": -30, "steeringWheelAngleConfidence": 2},
            lateralAcceleration={"lateralAccelerationValue": 3, "lateralAccelerationConfidence": 4},
            verticalAcceleration={"verticalAccelerationValue": -2, "verticalAccelerationConfidence": 6},
            performanceClass=1,
            cenDsrcTollingZone={
                "protectedZoneLatitude": 478_100_000,
                "protectedZoneLongitude": 130_560_000,
                "cenDsrcTollingZoneID": 42,
            },
        ),
        lowFrequencyContainer=low_frequency("emergency", lights(0, LEFT_TURN_SIGNAL, 4), PATH_HISTORY),
        specialVehicleContainer=(
            "emergencyContainer",
            {
                "lightBarSirenInUse": (0b11, 2),
                "incidentIndication": {"causeCode": 97, "subCauseCode": 2},
                "emergencyPriority": (0b10, 2),
            },
        ),
    ),
    # an RSU's own high-frequency container: no motion, no lights
    "rsu": cam(
        77,
        0,
        15,
        position(-338_567_000, 1_512_153_000),
        (
            "rsuContainerHighFrequency",
            {
                "protectedCommunicationZonesRSU": [
                    {
                        "protectedZoneType": "permanentCenDsrcTolling",
                        "expiryTime": 600000000000,
                        "protectedZoneLatitude": -338_560_000,
                        "protectedZoneLongitude": 1_512_150_000,
                        "protectedZoneRadius": 50,
                        "protectedZoneID": 134217727,
                    },
                    {
                        "protectedZoneType": "temporaryCenDsrcTolling",
                        "protectedZoneLatitude": -338_570_000,
                        "protectedZoneLongitude": 1_512_160_000,
                    },
                ]
            },
        ),
    ),
    "rsu_bare": cam(78, 1, 15, position(0, 0), ("rsuContainerHighFrequency", {})),
    # unavailable codes everywhere the view reads one; heading 3600 is no heading either;
    # a low-frequency container with no light on: turn signals known to be off
    "unavailable": cam(
        4294967295,
        65535,
        5,
        position(900000000, -1800000000),
        vehicle_high_frequency(3600, SPEED_UNAVAILABLE, YAW_RATE_UNAVAILABLE, ACCELERATION_UNAVAILABLE),
        lowFrequencyContainer=low_frequency("default", lights(), []),
    ),
    # every light on (hazard lights and more), the other ends of the ranges, a full path history
    "all_lights": cam(
        0,
        1,
        6,
        position(-900000000, 1800000000),
        vehicle_high_frequency(0, 16382, 32766, -160, lanePosition=-1),
        lowFrequencyContainer=low_frequency("publicTransport", lights(*range(8)), PATH_HISTORY * 20),
        specialVehicleContainer=(
            "publicTransportContainer",
            {"embarkationStatus": True, "ptActivation": {"ptActivationType": 1, "ptActivationData": b"\x01\x02"}},
        ),
    ),
    # one signal on among other lights
    "right_with_reverse": cam(
        9,
        2,
        7,
        position(1, -1),
        vehicle_high_frequency(3599, 0, -32766, 160),
        lowFrequencyContainer=low_frequency("commercial", lights(RIGHT_TURN_SIGNAL, 5, 7), []),
    ),
}

# every kind of special vehicle container, on a moving car
SPECIAL_VEHICLE_CONTAINERS = {
    "publicTransportContainer": {"embarkationStatus": False},
    "specialTransportContainer": {"specialTransportType": (0b1001, 4), "lightBarSirenInUse": (0b10, 2)},
    "dangerousGoodsContainer": {"dangerousGoodsBasic": "flammableLiquids"},
    "roadWorksContainerBasic": {
        "roadworksSubCauseCode": 3,
        "lightBarSirenInUse": (0b10, 2),
        "closedLanes": {
            "innerhardShoulderStatus": "closed",
            "outerhardShoulderStatus": "availableForDriving",
            "drivingLaneStatus": (0b011, 3),
        },
    },
    "rescueContainer": {"lightBarSirenInUse": (0b01, 2)},
    "emergencyContainer": {"lightBarSirenInUse": (0b00, 2)},
    "safetyCarContainer": {
        "lightBarSirenInUse": (0b11, 2),
        "incidentIndication": {"causeCode": 3, "subCauseCode": 0},
        "trafficRule": "noPassing",
        "speedLimit": 80,
    },
}


@pytest.mark.parametrize("name", sorted(PYCRATE_CAMS))
def test_our_decoder_reads_pycrate_encoding(name):
    value = PYCRATE_CAMS[name]
    uper = pycrate_encode(value)
    assert pycrate_decode(uper) == value
    assert our_decode(uper) == expected_fields(value)


@pytest.mark.parametrize("kind", sorted(SPECIAL_VEHICLE_CONTAINERS))
def test_our_decoder_reads_every_special_vehicle_container(kind):
    value = cam(
        4711,
        40000,
        10,
        position(478_095_000, 130_550_000),
        vehicle_high_frequency(900, 500, -100, 5),
        lowFrequencyContainer=low_frequency("specialTransport", lights(LEFT_TURN_SIGNAL), []),
        specialVehicleContainer=(kind, SPECIAL_VEHICLE_CONTAINERS[kind]),
    )
    uper = pycrate_encode(value)
    assert pycrate_decode(uper) == value
    assert our_decode(uper) == expected_fields(value)


def test_pycrate_cams_read_as_intended():
    """The expected views, written out: what expected_fields derives is right."""
    emergency = our_decode(pycrate_encode(PYCRATE_CAMS["emergency_vehicle"]))
    assert emergency == {
        "station_id": 305419896,
        "station_type": 10,
        "generation_delta_time_ms": 12345,
        "lat_e7": 478_095_123,
        "lon_e7": 130_550_456,
        "heading_decideg": 1234,
        "speed_cm_s": 1389,
        "yaw_rate_centideg_s": 420,
        "longitudinal_acceleration_dm_s2": -12,
        "turn_signals": {"left": True, "right": False},
    }
    rsu = our_decode(pycrate_encode(PYCRATE_CAMS["rsu"]))
    assert [rsu[k] for k in ["heading_decideg", "speed_cm_s", "yaw_rate_centideg_s", "turn_signals"]] == [None] * 4
    assert rsu["longitudinal_acceleration_dm_s2"] is None
    unavailable = our_decode(pycrate_encode(PYCRATE_CAMS["unavailable"]))
    assert unavailable["heading_decideg"] is None
    assert unavailable["turn_signals"] == {"left": False, "right": False}
    assert our_decode(pycrate_encode(PYCRATE_CAMS["all_lights"]))["turn_signals"] == {"left": True, "right": True}
    right = our_decode(pycrate_encode(PYCRATE_CAMS["right_with_reverse"]))
    assert right["turn_signals"] == {"left": False, "right": True}
    assert (right["heading_decideg"], right["speed_cm_s"], right["yaw_rate_centideg_s"]) == (3599, 0, -32766)


def test_our_decoder_rejects_garbage():
    uper = pycrate_encode(PYCRATE_CAMS["emergency_vehicle"])
    denm_id = bytearray(uper)
    denm_id[1] = 1  # messageID denm(1): not read as a CAM
    version_1 = bytearray(uper)
    version_1[0] = 1  # protocolVersion 1: not V1.4.1
    nowhere = pycrate_encode(cam(1, 1, 5, position(900000001, 0), vehicle_high_frequency(0, 0, 0, 0)))
    for bad in ["", "00", uper[:-1].hex(), "zz", bytes(denm_id).hex(), bytes(version_1).hex(), nowhere.hex()]:
        assert run_vectors("cam", "--decode", bad).returncode != 0, bad

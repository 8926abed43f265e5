"""Cross-check of our DENM codec (crates/etsi-its, rasn) with an independent
implementation: pycrate's ETSI module `pycrate_asn1dir.ITS_DENM_3`, compiled
from DENM-PDU-Descriptions (EN 302 637-3 V1.3.1) and ITS-Container (OID
version 2), PDU `DENM_PDU_Descriptions.DENM`.

* our encoder -> pycrate: every DENM printed by the `etsi-its-vectors` binary
  decodes in pycrate to exactly the field values we meant to encode, and
  pycrate re-encodes it to the same bytes;
* pycrate encoder -> our decoder: DENMs built and encoded by pycrate read back
  with the same values through `etsi-its-vectors --decode HEX`.

The binary: see etsi_vectors.py. Needs pycrate==0.8.1 and pytest.
"""

import pytest
from etsi_vectors import (
    UNAVAILABLE_ALTITUDE,
    UNAVAILABLE_ELLIPSE,
    PycrateUper,
    our_decode,
    position,
    printed_vectors,
    run_vectors,
)
from pycrate_asn1dir import ITS_DENM_3
from pycrate_asn1rt.codecs import ASN1CodecPER

DENM = ITS_DENM_3.DENM_PDU_Descriptions.DENM
PER = PycrateUper(DENM)
pycrate_decode, pycrate_encode = PER.decode, PER.encode


DEFAULT_VALIDITY_S = 600
VECTOR_NAMES = ["sample", "vru", "cancellation", "negation", "extremes_max", "extremes_min", "full"]


def denm_header(station_id: int) -> dict:
    return {"protocolVersion": 2, "messageID": 1, "stationID": station_id}


def denm_situation(information_quality: int, cause: int, sub_cause: int) -> dict:
    return {"informationQuality": information_quality, "eventType": {"causeCode": cause, "subCauseCode": sub_cause}}


@pytest.fixture(scope="module", autouse=True)
def absent_defaults_stay_absent():
    """pycrate fills absent DEFAULT components into decoded values; keep them
    absent so the tests see what is on the wire (validityDuration omitted when
    600). Its encoder is canonical: it drops a component equal to its default.
    Restored afterwards: the switch is global to pycrate."""
    saved = ASN1CodecPER.GET_DEFVAL
    ASN1CodecPER.GET_DEFVAL = False
    assert ASN1CodecPER.CANONICAL
    yield
    ASN1CodecPER.GET_DEFVAL = saved


@pytest.fixture(scope="module")
def vectors() -> dict:
    return printed_vectors()


def expected_fields(value: dict) -> dict:
    """The SimpleDenm view of a pycrate DENM value, written out per field."""
    header, denm = value["header"], value["denm"]
    management = denm["management"]
    situation = denm.get("situation")
    return {
        "station_id": header["stationID"],
        "originating_station_id": management["actionID"]["originatingStationID"],
        "sequence_number": management["actionID"]["sequenceNumber"],
        "detection_time_its_ms": management["detectionTime"],
        "reference_time_its_ms": management["referenceTime"],
        "event_lat_e7": management["eventPosition"]["latitude"],
        "event_lon_e7": management["eventPosition"]["longitude"],
        "relevance_distance": management.get("relevanceDistance"),
        "validity_duration_s": management.get("validityDuration", DEFAULT_VALIDITY_S),
        "termination": management.get("termination"),
        "station_type": management["stationType"],
        "cause": situation["eventType"]["causeCode"] if situation else 0,
        "sub_cause": situation["eventType"]["subCauseCode"] if situation else 0,
        "information_quality": situation["informationQuality"] if situation else 0,
    }


def test_all_vectors_are_printed(vectors):
    assert sorted(vectors) == sorted(VECTOR_NAMES)


@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_pycrate_decodes_our_encoding_to_the_intended_values(vectors, name):
    uper, fields = vectors[name]
    value = pycrate_decode(uper)
    management = value["denm"]["management"]

    assert value["header"] == denm_header(fields["station_id"])
    assert management["actionID"] == {
        "originatingStationID": fields["originating_station_id"],
        "sequenceNumber": fields["sequence_number"],
    }
    assert management["detectionTime"] == fields["detection_time_its_ms"]
    assert management["referenceTime"] == fields["reference_time_its_ms"]
    assert management["eventPosition"]["latitude"] == fields["event_lat_e7"]
    assert management["eventPosition"]["longitude"] == fields["event_lon_e7"]
    assert management.get("relevanceDistance") == fields["relevance_distance"]
    assert management.get("termination") == fields["termination"]
    assert management["stationType"] == fields["station_type"]
    # DEFAULT 600: absent on the wire exactly when the value is the default
    if fields["validity_duration_s"] == DEFAULT_VALIDITY_S:
        assert "validityDuration" not in management
    else:
        assert management["validityDuration"] == fields["validity_duration_s"]
    situation = value["denm"]["situation"]
    assert situation["eventType"] == {"causeCode": fields["cause"], "subCauseCode": fields["sub_cause"]}
    assert situation["informationQuality"] == fields["information_quality"]
    assert expected_fields(value) == fields

    if name != "full":
        # everything SimpleDenm::to_denm leaves out or marks unavailable
        assert management["eventPosition"]["positionConfidenceEllipse"] == UNAVAILABLE_ELLIPSE
        assert management["eventPosition"]["altitude"] == UNAVAILABLE_ALTITUDE
        assert "relevanceTrafficDirection" not in management
        assert "transmissionInterval" not in management
        assert set(situation) == {"informationQuality", "eventType"}
        assert set(value["denm"]) == {"management", "situation"}

    # both encoders are canonical, so pycrate must reproduce our bytes
    assert DENM.to_uper() == uper


def test_collision_risk_codes(vectors):
    sample = pycrate_decode(vectors["sample"][0])["denm"]["situation"]["eventType"]
    vru = pycrate_decode(vectors["vru"][0])["denm"]["situation"]["eventType"]
    causes = ITS_DENM_3.ITS_Container.CauseCodeType._cont
    sub_causes = ITS_DENM_3.ITS_Container.CollisionRiskSubCauseCode._cont
    assert sample == {"causeCode": causes["collisionRisk"], "subCauseCode": sub_causes["crossingCollisionRisk"]}
    assert vru == {"causeCode": causes["collisionRisk"], "subCauseCode": sub_causes["vulnerableRoadUser"]}
    assert causes["collisionRisk"] == 97
    assert (sub_causes["crossingCollisionRisk"], sub_causes["vulnerableRoadUser"]) == (2, 4)


def test_full_denm_carries_every_container_as_built(vectors):
    """fixtures::full() exercises each type of the module; spot-check values in
    every container (the byte-identical re-encode above covers the rest)."""
    denm = pycrate_decode(vectors["full"][0])["denm"]
    management = denm["management"]
    assert management["termination"] == "isNegation"
    assert management["relevanceTrafficDirection"] == "upstreamTraffic"
    assert management["validityDuration"] == 86400
    assert management["transmissionInterval"] == 1000
    assert management["eventPosition"]["positionConfidenceEllipse"] == {
        "semiMajorConfidence": 250,
        "semiMinorConfidence": 120,
        "semiMajorOrientation": 900,
    }
    assert management["eventPosition"]["altitude"] == {"altitudeValue": -100000, "altitudeConfidence": "alt-000-50"}

    situation = denm["situation"]
    assert situation["linkedCause"] == {"causeCode": 12, "subCauseCode": 2}
    assert situation["eventHistory"] == [
        {
            "eventPosition": {"deltaLatitude": -131071, "deltaLongitude": 131072, "deltaAltitude": -12700},
            "eventDeltaTime": 65535,
            "informationQuality": 0,
        },
        {
            "eventPosition": {"deltaLatitude": 10, "deltaLongitude": -10, "deltaAltitude": 12800},
            "informationQuality": 7,
        },
    ]

    location = denm["location"]
    assert location["eventSpeed"] == {"speedValue": 1389, "speedConfidence": 127}
    assert location["eventPositionHeading"] == {"headingValue": 3601, "headingConfidence": 1}
    assert location["traces"][0] == []
    assert location["traces"][1][0] == {
        "pathPosition": {"deltaLatitude": 100, "deltaLongitude": 200, "deltaAltitude": 0},
        "pathDeltaTime": 1,
    }
    assert location["roadType"] == "nonUrban-WithStructuralSeparationToOppositeLanes"

    alacarte = denm["alacarte"]
    assert alacarte["lanePosition"] == -1
    assert alacarte["externalTemperature"] == -60
    assert alacarte["positioningSolution"] == "dGNSSplusDR"
    impact = alacarte["impactReduction"]
    assert impact["positionOfPillars"] == [1, 15, 30]
    assert impact["positionOfOccupants"] == (0b1100_0100_0000_0010_0001, 20)
    assert impact["vehicleMass"] == 1024
    assert impact["requestResponseIndication"] == "response"
    road_works = alacarte["roadWorks"]
    assert road_works["lightBarSirenInUse"] == (0b10, 2)
    assert road_works["closedLanes"] == {
        "innerhardShoulderStatus": "availableForStopping",
        "outerhardShoulderStatus": "availableForDriving",
        "drivingLaneStatus": (0b011, 3),
    }
    assert road_works["restriction"] == [8, 9]
    assert road_works["trafficFlowRule"] == "passToLeft"
    assert road_works["referenceDenms"] == [
        {"originatingStationID": 4294967295, "sequenceNumber": 0},
        {"originatingStationID": 0, "sequenceNumber": 65535},
    ]
    stationary = alacarte["stationaryVehicle"]
    goods = stationary["carryingDangerousGoods"]
    assert goods["dangerousGoodsType"] == "flammableLiquids"
    assert goods["unNumber"] == 1203
    assert goods["emergencyActionCode"] == "3YE"
    assert goods["phoneNumber"] == "0049 89 123"
    assert goods["companyName"] == "Gefahrgut Müller"
    assert stationary["vehicleIdentification"] == {"wMInumber": "WVW", "vDS": "ZZZ1KZ"}
    assert stationary["energyStorageType"] == (0b0100100, 7)


PYCRATE_DENMS = {
    # cancellation of a VRU collision risk with a non-default validity, all
    # management options present
    "cancellation": {
        "header": denm_header(123456789),
        "denm": {
            "management": {
                "actionID": {"originatingStationID": 987654321, "sequenceNumber": 4711},
                "detectionTime": 600000000000,
                "referenceTime": 600000001500,
                "termination": "isCancellation",
                "eventPosition": position(-338_567_000, 1_512_153_000),
                "relevanceDistance": "lessThan500m",
                "relevanceTrafficDirection": "allTrafficDirections",
                "validityDuration": 3600,
                "transmissionInterval": 100,
                "stationType": 2,
            },
            "situation": denm_situation(5, 97, 4),
        },
    },
    # the default validity given explicitly: pycrate omits it, we read 600
    "default_validity": {
        "header": denm_header(77),
        "denm": {
            "management": {
                "actionID": {"originatingStationID": 77, "sequenceNumber": 0},
                "detectionTime": 1,
                "referenceTime": 2,
                "eventPosition": position(0, 0),
                "validityDuration": 600,
                "stationType": 15,
            },
            "situation": denm_situation(1, 97, 2),
        },
    },
    # no situation container: SimpleDenm reads cause 0, quality 0
    "management_only": {
        "header": denm_header(4294967295),
        "denm": {
            "management": {
                "actionID": {"originatingStationID": 1, "sequenceNumber": 65535},
                "detectionTime": 4398046511103,
                "referenceTime": 4398046511103,
                "termination": "isNegation",
                "eventPosition": position(900000000, -1800000000),
                "validityDuration": 0,
                "stationType": 255,
            }
        },
    },
}


@pytest.mark.parametrize("name", sorted(PYCRATE_DENMS))
def test_our_decoder_reads_pycrate_encoding(name):
    value = PYCRATE_DENMS[name]
    uper = pycrate_encode(value)
    if name == "default_validity":
        assert "validityDuration" not in pycrate_decode(uper)["denm"]["management"]
    assert our_decode(uper) == expected_fields(value)


def test_our_decoder_reads_pycrate_full_denm(vectors):
    """pycrate re-encodes the full DENM with changed values in every
    container; our decoder must still parse all of it."""
    value = pycrate_decode(vectors["full"][0])
    value["header"]["stationID"] = 99
    value["denm"]["management"]["validityDuration"] = 1
    value["denm"]["situation"]["eventType"] = {"causeCode": 2, "subCauseCode": 1}
    value["denm"]["location"]["traces"].append([])
    value["denm"]["alacarte"]["stationaryVehicle"]["carryingDangerousGoods"]["companyName"] = "Ünïcødé GmbH"
    value["denm"]["alacarte"]["roadWorks"]["referenceDenms"].append({"originatingStationID": 5, "sequenceNumber": 6})
    uper = pycrate_encode(value)
    assert uper != vectors["full"][0]
    assert our_decode(uper) == expected_fields(value)


def test_our_decoder_rejects_garbage():
    truncated = pycrate_encode(PYCRATE_DENMS["cancellation"])[:-1]
    for bad in ["", "00", truncated.hex(), "zz"]:
        assert run_vectors("--decode", bad).returncode != 0, bad

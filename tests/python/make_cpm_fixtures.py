"""Writes the CPM fixtures of crates/etsi-its/tests/fixtures/cpm/ with asn1tools, a codec
independent of ours (rasn), from ETSI's ASN.1 as c-its-parser 2.4.2 ships it. Run once; the
output is committed and read by crates/etsi-its/tests/independent_fixtures.rs:

    python3 -m venv /work/.venv-asn1 && /work/.venv-asn1/bin/pip install asn1tools==0.169.0
    /work/.venv-asn1/bin/python tests/python/make_cpm_fixtures.py [build/patched/c-its-parser-2.4.2]

What it writes (one scene: reference position 47.8101° N, 13.0518° E; a car 20 m west and
1.8 m south heading east at 8.3 m/s, a cyclist, a pedestrian):

  v2_extension_bit.hex   TS 103 324 V2.1.1, UPER, as asn1tools encodes ETSI's unmodified ASN.1:
                         the container list with the extension bit of SIZE(1..8,...)
  v2_root.hex            the same CPM, the container list without that bit (SIZE(1..8))
  v2.xml                 the same CPM in XER (X.693 BASIC-XER), with a SensorInformationContainer
                         whose sensors have a perception region shape (circular, rectangular)
  v2_shapes.xml          the same in XER with one sensor per Shape alternative, every optional
                         component present
  v1_rsu.hex             TR 103 562 V2.1.1, UPER, from an RSU: objects east/north
  v1_vehicle.hex         TR 103 562 V2.1.1, UPER, from a car heading 60°: objects in its body frame
  fixtures.json          per file: the ASN.1 values encoded (`asn1`) and what a reader must get
                         out of them (`expected`: cm and cm/s east/north of the reference
                         position, yaw in 0.1° counter-clockwise from east)

The ASN.1 text is read from c-its-parser's autogen/asn.1 and changed only where asn1tools needs
it, each change an exact replacement that must match once:

* CDD: the four VRU sub-profiles become the ENUMERATED types of CDD V2.1.1, the version the CPM
  V2.1.1 module imports (the file c-its-parser ships is V2.2.1, where they are INTEGER; see
  tools/patches/c-its-parser.sh, change 2).
* CDD: `vehicleSubClass`'s constraint (unknown|passengerCar..tram|agricultural) is written as
  the range PER encodes it in, (0..14) (X.691: a union of values is encoded in the range spanning
  it). asn1tools resolves neither the named numbers nor a union (0|5..11|14) to that: it encodes
  passengerCar as an extension (first bit 1) instead of 4 bits of 0..14.
* XER only: asn1tools' XER codec has no open types ("Type 'OpenType' not found"), so the PDU is
  encoded with `containerData NULL` and each container's own XER (the XMLTypedValue X.693 gives
  an open type: the element named after the container's type) is put in its place.
* v2_root.hex only: `ConstraintWrappedCpmContainers` is given the list without extension marker,
  SEQUENCE SIZE(1..8) OF, which is how X.680's serial application of a non-extensible constraint
  reads it (and what Vanetza, ika's codec and we write).
* Release 1 compiles unchanged (cpm_1.asn with cdd_1_3_1_1.asn, cam_1_4_1.asn for
  GenerationDeltaTime, dsrc_2_2_1.asn and the CDD V2.2.1 it imports).
"""

import json
import math
import sys
from pathlib import Path

import asn1tools

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "crates/etsi-its/tests/fixtures/cpm"

LAT_E7, LON_E7 = 478_101_000, 130_518_000
REFERENCE_TIME = 591_619_380_000  # TimestampIts, ms since 2004-01-01
STATION_ID = 4711

CDD_V211_PROFILES = {
    "VruSubProfilePedestrian": "unavailable ordinary-pedestrian road-worker first-responder",
    "VruSubProfileBicyclist": "unavailable bicyclist wheelchair-user horse-and-rider rollerskater "
    "e-scooter personal-transporter pedelec speed-pedelec",
    "VruSubProfileMotorcyclist": "unavailable moped motorcycle motorcycle-and-sidecar-right "
    "motorcycle-and-sidecar-left",
    "VruSubProfileAnimal": "unavailable wild-animal farm-animal service-animal",
}


def replace_once(text: str, old: str, new: str) -> str:
    if text.count(old) != 1:
        sys.exit(f"expected one {old!r}, found {text.count(old)}")
    return text.replace(old, new)


def cdd_v211(cdd: str) -> str:
    """CDD V2.2.1 as CPM V2.1.1 reads it (see the module doc)."""
    for name, identifiers in CDD_V211_PROFILES.items():
        start = cdd.index(f"{name} ::= INTEGER")
        end = cdd.index(")", cdd.index("}", start)) + 1  # "}(0..15)"
        items = [f"{ident}({value})" for value, ident in enumerate(identifiers.split())] + ["max(15)"]
        cdd = cdd[:start] + f"{name} ::= ENUMERATED {{{', '.join(items)}}}" + cdd[end:]
    return replace_once(
        cdd,
        "TrafficParticipantType (unknown|passengerCar..tram|agricultural)",
        "TrafficParticipantType (0..14)",
    )


def compile_v2(asn1: Path, codec: str, root_list: bool = False):
    cpm = (asn1 / "cpm_2_1_1.asn").read_text(encoding="latin-1")
    cdd = cdd_v211((asn1 / "cdd_2_2_1.asn").read_text(encoding="latin-1"))
    if codec == "xer":
        cpm = replace_once(
            cpm,
            "containerData   CPM-CONTAINER-ID-AND-TYPE.&Type( {CpmContainers}{@containerId} )",
            "containerData   NULL",
        )
    if root_list:
        start = cpm.index("ConstraintWrappedCpmContainers ::= WrappedCpmContainers")
        end = cpm.index("/**", start)
        cpm = cpm[:start] + "ConstraintWrappedCpmContainers ::= SEQUENCE SIZE(1..8) OF WrappedCpmContainer\n\n" + cpm[end:]
    return asn1tools.compile_string(cpm + "\n" + cdd, codec)


def compile_v1(asn1: Path):
    files = ["cpm_1.asn", "cdd_1_3_1_1.asn", "cam_1_4_1.asn", "dsrc_2_2_1.asn", "cdd_2_2_1.asn"]
    return asn1tools.compile_files([str(asn1 / f) for f in files], "uper")


# ---- the scene, east/north of the reference position ----------------------------------------

# (id, class name in ObjectKind, east cm, north cm, velocity east/north cm/s, yaw 0.1° ccw from east)
SCENE = [
    (1, "Car", -2000, -180, (830, 0), 0),
    (2, "Bicycle", 650, 1240, (0, -420), 2700),
    (3, "Pedestrian", -350, 900, (-110, 0), 1800),
]


def expected(objects) -> list:
    return [
        {"object_id": i, "class": kind, "x_cm": x, "y_cm": y, "vx_cm_s": v[0], "vy_cm_s": v[1], "yaw_decideg": yaw}
        for i, kind, x, y, v, yaw in objects
    ]


# ---- TS 103 324 V2.1.1 ----------------------------------------------------------------------

V2_CLASSES = {
    "Car": ("vehicleSubClass", 5),  # TrafficParticipantType passengerCar
    "Bicycle": ("vruSubClass", ("bicyclistAndLightVruVehicle", "bicyclist")),
    "Pedestrian": ("vruSubClass", ("pedestrian", "ordinary-pedestrian")),
}


def v2_object(i, kind, x, y, v, yaw):
    coordinate = lambda value, conf: {"value": value, "confidence": conf}  # noqa: E731
    return {
        "objectId": i,
        "measurementDeltaTime": -20,
        "position": {"xCoordinate": coordinate(x, 25), "yCoordinate": coordinate(y, 25)},
        "velocity": (
            "cartesianVelocity",
            {"xVelocity": {"value": v[0], "confidence": 10}, "yVelocity": {"value": v[1], "confidence": 10}},
        ),
        "angles": {"zAngle": {"value": yaw, "confidence": 20}},
        "sensorIdList": [1 if i == 1 else 2],
        "classification": [{"objectClass": V2_CLASSES[kind], "confidence": 85}],
    }


V2_SENSORS = [
    {
        "sensorId": 1,
        "sensorType": 3,  # monovideo
        "perceptionRegionShape": ("circular", {"radius": 800}),
        "perceptionRegionConfidence": 90,
        "shadowingApplies": True,
    },
    {
        "sensorId": 2,
        "sensorType": 1,  # radar
        "perceptionRegionShape": (
            "rectangular",
            {
                "shapeReferencePoint": {"xCoordinate": 1000, "yCoordinate": -500},
                "semiLength": 600,
                "semiBreadth": 150,
                "orientation": 900,
            },
        ),
        "shadowingApplies": False,
    },
]

# one sensor per Shape alternative, every optional component present
POINT = {"xCoordinate": 1000, "yCoordinate": -500, "zCoordinate": 120}
RADIAL = {
    "range": 1500,
    "horizontalOpeningAngleStart": 3300,
    "horizontalOpeningAngleEnd": 300,
    "verticalOpeningAngleStart": 3500,
    "verticalOpeningAngleEnd": 100,
}
SHAPES = [
    ("rectangular", {"shapeReferencePoint": POINT, "semiLength": 600, "semiBreadth": 150, "orientation": 900, "height": 30}),
    ("circular", {"shapeReferencePoint": POINT, "radius": 800, "height": 30}),
    (
        "polygonal",
        {
            "shapeReferencePoint": POINT,
            "polygon": [
                {"xCoordinate": 0, "yCoordinate": 0},
                {"xCoordinate": 2000, "yCoordinate": 0, "zCoordinate": 10},
                {"xCoordinate": 0, "yCoordinate": 2000},
            ],
            "height": 30,
        },
    ),
    (
        "elliptical",
        {"shapeReferencePoint": POINT, "semiMajorAxisLength": 700, "semiMinorAxisLength": 200, "orientation": 450, "height": 30},
    ),
    ("radial", {"shapeReferencePoint": POINT, **RADIAL}),
    ("radialShapes", {"refPointId": 1, "xCoordinate": 100, "yCoordinate": -100, "zCoordinate": 50, "radialShapesList": [RADIAL, RADIAL]}),
]
SHAPE_SENSORS = [
    {"sensorId": 10 + i, "sensorType": 2, "perceptionRegionShape": shape, "perceptionRegionConfidence": 80, "shadowingApplies": i % 2 == 0}
    for i, shape in enumerate(SHAPES)
]

V2_CONTAINERS = [
    (3, "SensorInformationContainer", V2_SENSORS),
    (
        5,
        "PerceivedObjectContainer",
        {"numberOfPerceivedObjects": len(SCENE), "perceivedObjects": [v2_object(*o) for o in SCENE]},
    ),
]


def v2_pdu(container_data: list) -> dict:
    return {
        "header": {"protocolVersion": 2, "messageId": 14, "stationId": STATION_ID},
        "payload": {
            "managementContainer": {
                "referenceTime": REFERENCE_TIME,
                "referencePosition": {
                    "latitude": LAT_E7,
                    "longitude": LON_E7,
                    "positionConfidenceEllipse": {
                        "semiMajorConfidence": 4095,
                        "semiMinorConfidence": 4095,
                        "semiMajorOrientation": 3601,
                    },
                    "altitude": {"altitudeValue": 800001, "altitudeConfidence": "unavailable"},
                },
            },
            "cpmContainers": [
                {"containerId": cid, "containerData": data} for (cid, _, _), data in zip(V2_CONTAINERS, container_data)
            ],
        },
    }


def v2_uper(codec) -> bytes:
    open_types = [codec.encode(name, value) for _, name, value in V2_CONTAINERS]
    return codec.encode("CollectivePerceptionMessage", v2_pdu(open_types))


def v2_xer(codec, containers=None) -> str:
    containers = containers or V2_CONTAINERS
    shell = codec.encode("CollectivePerceptionMessage", v2_pdu([None] * len(containers)), indent=2).decode()
    for _, name, value in containers:
        element = codec.encode(name, value).decode()
        shell = replace_once_first(shell, "<containerData />", f"<containerData>{element}</containerData>")
    return shell


def replace_once_first(text: str, old: str, new: str) -> str:
    if old not in text:
        sys.exit(f"no {old!r} left")
    return text.replace(old, new, 1)


# ---- TR 103 562 V2.1.1 ----------------------------------------------------------------------

V1_CLASSES = {
    "Car": ("vehicle", {"type": 3}),  # passengerCar
    "Bicycle": ("person", {"type": 3}),  # cyclist
    "Pedestrian": ("person", {"type": 1}),  # pedestrian
}

HEADING_DECIDEG = 600  # the sending car's heading: 60° clockwise from north


def v1_object(i, kind, x, y, v, yaw):
    distance = lambda value: {"value": value, "confidence": 25}  # noqa: E731
    speed = lambda value: {"value": value, "confidence": 10}  # noqa: E731
    return {
        "objectID": i,
        "sensorIDList": [1],
        "timeOfMeasurement": 20,
        "xDistance": distance(x),
        "yDistance": distance(y),
        "xSpeed": speed(v[0]),
        "ySpeed": speed(v[1]),
        "yawAngle": {"value": yaw, "confidence": 20},
        "classification": [{"confidence": 85, "class": V1_CLASSES[kind]}],
    }


def body_frame(objects, heading_decideg):
    """The scene as the car at the reference point sees it: ISO 8855, x forward, y left."""
    theta = math.radians(90 - heading_decideg / 10)  # its x axis, counter-clockwise from east
    c, s = math.cos(theta), math.sin(theta)
    to_body = lambda e, n: (round(e * c + n * s), round(-e * s + n * c))  # noqa: E731
    out = []
    for i, kind, x, y, v, yaw in objects:
        out.append((i, kind, *to_body(x, y), to_body(*v), (yaw - round(math.degrees(theta) * 10)) % 3600))
    return out


def v1_cpm(objects, station_data=None, station_type=15) -> dict:
    parameters = {
        "managementContainer": {
            "stationType": station_type,
            "referencePosition": {
                "latitude": LAT_E7,
                "longitude": LON_E7,
                "positionConfidenceEllipse": {
                    "semiMajorConfidence": 4095,
                    "semiMinorConfidence": 4095,
                    "semiMajorOrientation": 3601,
                },
                "altitude": {"altitudeValue": 800001, "altitudeConfidence": "unavailable"},
            },
        },
        "sensorInformationContainer": [
            {"sensorID": 1, "type": 3, "detectionArea": ("stationarySensorCircular", {"radius": 800})}
        ],
        "perceivedObjectContainer": [v1_object(*o) for o in objects],
        "numberOfPerceivedObjects": len(objects),
    }
    if station_data is not None:
        parameters["stationDataContainer"] = station_data
    return {
        "header": {"protocolVersion": 1, "messageID": 14, "stationID": STATION_ID},
        "cpm": {"generationDeltaTime": REFERENCE_TIME % 65536, "cpmParameters": parameters},
    }


def main() -> None:
    asn1 = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "build/patched/c-its-parser-2.4.2"
    asn1 = asn1 / "autogen/asn.1"
    OUT.mkdir(parents=True, exist_ok=True)
    fixtures = {}

    def common(protocol_version):
        return {
            "protocol_version": protocol_version,
            "station_id": STATION_ID,
            "reference_lat_e7": LAT_E7,
            "reference_lon_e7": LON_E7,
            "reference_time_its_ms": REFERENCE_TIME,
        }

    v2_sensors = [[s["sensorId"], s["sensorType"]] for s in V2_SENSORS]
    for name, codec, list_form in [
        ("v2_extension_bit.hex", compile_v2(asn1, "uper"), "WithExtensionBit"),
        ("v2_root.hex", compile_v2(asn1, "uper", root_list=True), "Root"),
    ]:
        uper = v2_uper(codec)
        (OUT / name).write_text(uper.hex() + "\n")
        fixtures[name] = {
            "container_list": list_form,
            "expected": {**common(2), "sensors": v2_sensors, "objects": expected(SCENE)},
        }
    (OUT / "v2.xml").write_text(v2_xer(compile_v2(asn1, "xer")) + "\n")
    fixtures["v2.xml"] = {"expected": {**common(2), "sensors": v2_sensors, "objects": expected(SCENE)}}
    shapes = [(3, "SensorInformationContainer", SHAPE_SENSORS), V2_CONTAINERS[1]]
    (OUT / "v2_shapes.xml").write_text(v2_xer(compile_v2(asn1, "xer"), shapes) + "\n")
    shape_sensors = [[s["sensorId"], s["sensorType"]] for s in SHAPE_SENSORS]
    fixtures["v2_shapes.xml"] = {"expected": {**common(2), "sensors": shape_sensors, "objects": expected(SCENE)}}

    v1 = compile_v1(asn1)
    rsu = v1_cpm(SCENE)
    (OUT / "v1_rsu.hex").write_text(v1.encode("CPM", rsu).hex() + "\n")
    fixtures["v1_rsu.hex"] = {"expected": {**common(1), "sensors": [[1, 3]], "objects": expected(SCENE)}}

    vehicle_data = (
        "originatingVehicleContainer",
        {
            "heading": {"headingValue": HEADING_DECIDEG, "headingConfidence": 10},
            "speed": {"speedValue": 1000, "speedConfidence": 10},
        },
    )
    vehicle = v1_cpm(body_frame(SCENE, HEADING_DECIDEG), vehicle_data, station_type=5)
    (OUT / "v1_vehicle.hex").write_text(v1.encode("CPM", vehicle).hex() + "\n")
    fixtures["v1_vehicle.hex"] = {
        "heading_decideg": HEADING_DECIDEG,
        "expected": {**common(1), "sensors": [[1, 3]], "objects": expected(SCENE)},
    }

    # the values encoded, for the record (bytes as hex)
    def plain(value):
        if isinstance(value, bytes):
            return value.hex()
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        return value

    v2_values = {"pdu": v2_pdu(["<open type: the container below>"] * 2), "containers": V2_CONTAINERS}
    asn1_values = {"v1_rsu.hex": rsu, "v1_vehicle.hex": vehicle, "v2_shapes.xml": {**v2_values, "containers": shapes}}
    listed = [
        {"file": name, **fixture, "asn1": plain(asn1_values.get(name, v2_values))} for name, fixture in fixtures.items()
    ]
    document = {"generator": f"asn1tools {asn1tools.__version__}", "fixtures": listed}
    (OUT / "fixtures.json").write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {len(listed)} fixtures to {OUT}")


if __name__ == "__main__":
    main()

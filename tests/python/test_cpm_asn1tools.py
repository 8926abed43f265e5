"""Our CPM encodings read by asn1tools, a codec independent of ours (the other direction,
asn1tools' encodings read by us, is crates/etsi-its/tests/independent_fixtures.rs).

The bytes are crates/etsi-its/tests/fixtures/cpm/ours_*: what our encoders write for the scene
of make_cpm_fixtures.py (that Rust test keeps them current). asn1tools compiles ETSI's ASN.1 as
make_cpm_fixtures.py does (it says what it changes and why); needs asn1tools==0.169.0 and the
patched c-its-parser in build/patched (`make patches`).
"""

import xml.etree.ElementTree as ET

import asn1tools  # noqa: F401  (a clear failure when the venv lacks it)
import pytest

import make_cpm_fixtures as fixtures

ASN1 = fixtures.REPO / "build/patched/c-its-parser-2.4.2/autogen/asn.1"
SCENE = {i: (kind, x, y, v, yaw) for i, kind, x, y, v, yaw in fixtures.SCENE}


def ours(name: str) -> str:
    return (fixtures.OUT / name).read_text().strip()


@pytest.mark.parametrize(
    "name, containers",
    [
        ("ours_v2.xml", fixtures.V2_CONTAINERS),
        ("ours_v2_shapes.xml", [(3, "SensorInformationContainer", fixtures.SHAPE_SENSORS), fixtures.V2_CONTAINERS[1]]),
    ],
)
def test_asn1tools_reads_our_xer_with_perception_region_shapes(name, containers):
    codec = fixtures.compile_v2(ASN1, "xer")
    document = ET.fromstring(ours(name))
    wrapped = document.findall("./payload/cpmContainers/WrappedCpmContainer")
    assert [int(w.findtext("containerId")) for w in wrapped] == [cid for cid, _, _ in containers]
    for element, (_, type_name, value) in zip(wrapped, containers):
        data = element.find("containerData")
        (container,) = list(data)
        # X.693: an open type's value is the element of its type
        assert container.tag == type_name
        assert codec.decode(type_name, ET.tostring(container)) == value
        data.remove(container)
    shell = codec.decode("CollectivePerceptionMessage", ET.tostring(document))
    assert shell == fixtures.v2_pdu([None] * len(containers))


def test_asn1tools_reads_our_uper():
    codec = fixtures.compile_v2(ASN1, "uper", root_list=True)
    cpm = codec.decode("CollectivePerceptionMessage", bytes.fromhex(ours("ours_v2.hex")))
    assert cpm["header"] == {"protocolVersion": 2, "messageId": 14, "stationId": fixtures.STATION_ID}
    position = cpm["payload"]["managementContainer"]["referencePosition"]
    assert (position["latitude"], position["longitude"]) == (fixtures.LAT_E7, fixtures.LON_E7)
    containers = {c["containerId"]: c["containerData"] for c in cpm["payload"]["cpmContainers"]}
    sensors = codec.decode("SensorInformationContainer", containers[3])
    assert [(s["sensorId"], s["sensorType"]) for s in sensors] == [(1, 3), (2, 1)]
    objects = codec.decode("PerceivedObjectContainer", containers[5])["perceivedObjects"]
    assert len(objects) == len(SCENE)
    for o in objects:
        kind, x, y, v, yaw = SCENE[o["objectId"]]
        assert (o["position"]["xCoordinate"]["value"], o["position"]["yCoordinate"]["value"]) == (x, y)
        kind_of_velocity, velocity = o["velocity"]
        assert kind_of_velocity == "cartesianVelocity"
        assert (velocity["xVelocity"]["value"], velocity["yVelocity"]["value"]) == v
        assert o["angles"]["zAngle"]["value"] == yaw
        assert o["classification"][0]["objectClass"] == fixtures.V2_CLASSES[kind]


def test_asn1tools_reads_our_release_1():
    codec = fixtures.compile_v1(ASN1)
    cpm = codec.decode("CPM", bytes.fromhex(ours("ours_v1.hex")))
    parameters = cpm["cpm"]["cpmParameters"]
    assert parameters["managementContainer"]["stationType"] == 15  # roadSideUnit: x east, y north
    assert "stationDataContainer" not in parameters
    objects = parameters["perceivedObjectContainer"]
    assert len(objects) == len(SCENE)
    for o in objects:
        kind, x, y, v, yaw = SCENE[o["objectID"]]
        assert (o["xDistance"]["value"], o["yDistance"]["value"]) == (x, y)
        assert (o["xSpeed"]["value"], o["ySpeed"]["value"]) == v
        assert o["yawAngle"]["value"] == yaw
        (classification,) = o["classification"]
        expected_class, expected_sub = fixtures.V1_CLASSES[kind]
        assert classification["class"][0] == expected_class
        assert classification["class"][1]["type"] == expected_sub["type"]

#!/usr/bin/env python3
"""Writes crates/etsi-its/tests/fixtures/vam/v3.json: VAMs of protocolVersion 3 (ETSI TS 103
300-3 V2.2.1) encoded by an independent codec, asn1tools, with the values each was encoded
with; crates/etsi-its/tests/vam_v3_fixtures.rs decodes them with our codec. Run once, the
output committed (it needs the network for the wheel):

    python tests/python/make_vam_fixtures.py    (asn1tools==0.169.0, pip)

The ASN.1 is the one our codec is generated from (tools/codecs/generate.sh: ETSI's text as the
PyPI package v2xflexstack ships it, the same pinned wheel), but compiled whole by asn1tools, not
reduced: only the text is shared, the compilers and the codecs are not.
"""

import hashlib
import importlib.util
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import asn1tools

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "crates/etsi-its/tests/fixtures/vam/v3.json"
# as in tools/codecs/generate.sh
FLEXSTACK_VERSION = "0.11.2"
FLEXSTACK_SHA256 = "14255b55666525f99c816cf47b8186b5479cd3a3ff9b2201e5b26312f7953984"
FLEXSTACK_VAM = "flexstack/facilities/vru_awareness_service/vam_asn1.py"


def vam_asn1() -> str:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps"]
            + ["--only-binary", ":all:", "--dest", tmp, f"v2xflexstack=={FLEXSTACK_VERSION}"],
            check=True,
        )
        wheel = Path(tmp) / f"v2xflexstack-{FLEXSTACK_VERSION}-py3-none-any.whl"
        if hashlib.sha256(wheel.read_bytes()).hexdigest() != FLEXSTACK_SHA256:
            raise SystemExit(f"{wheel.name} is not the one pinned")
        zipfile.ZipFile(wheel).extract(FLEXSTACK_VAM, tmp)
        spec = importlib.util.spec_from_file_location("to_asn1", REPO / "tools/codecs/asn1tools_to_asn1.py")
        to_asn1 = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(to_asn1)
        return to_asn1.asn1_text(Path(tmp) / FLEXSTACK_VAM)


def vam(case: dict) -> dict:
    """The VAM value (asn1tools' notation) of a case."""
    hf = {
        "heading": {"value": case["heading_decideg"], "confidence": 10},
        "speed": {"speedValue": case["speed_cm_s"], "speedConfidence": 5},
        "longitudinalAcceleration": {"longitudinalAccelerationValue": 3, "longitudinalAccelerationConfidence": 4},
    }
    if case.get("yaw_rate_centideg_s") is not None:
        hf["yawRate"] = {"yawRateValue": case["yaw_rate_centideg_s"], "yawRateConfidence": "degSec-001-00"}
    parameters = {
        "basicContainer": {
            "stationType": case["station_type"],
            "referencePosition": {
                "latitude": case["lat_e7"],
                "longitude": case["lon_e7"],
                "positionConfidenceEllipse": {
                    "semiMajorAxisLength": 150,
                    "semiMinorAxisLength": 80,
                    "semiMajorAxisOrientation": 450,
                },
                "altitude": {"altitudeValue": 52_000, "altitudeConfidence": "alt-001-00"},
            },
        },
        "vruHighFrequencyContainer": hf,
    }
    if case.get("profile"):
        parameters["vruLowFrequencyContainer"] = {"profileAndSubprofile": tuple(case["profile"])}
    motion = {}
    if case.get("path_offsets"):
        motion["pathPrediction"] = [
            {"deltaLatitude": d_lat, "deltaLongitude": d_lon, "pathDeltaTime": tenths}
            for d_lat, d_lon, tenths in case["path_offsets"]
        ]
    if case.get("heading_change"):
        direction, tenths = case["heading_change"]
        motion["headingChangeIndication"] = {"direction": direction, "actionDeltaTime": tenths}
    if motion:
        parameters["vruMotionPredictionContainer"] = motion
    return {
        "header": {"protocolVersion": 3, "messageId": 16, "stationId": case["station_id"]},
        "vam": {"generationDeltaTime": case["generation_delta_time_ms"], "vamParameters": parameters},
    }


CASES = [
    {
        "name": "pedestrian_turning_left",
        "station_id": 3_000_000_123,
        "station_type": 1,
        "generation_delta_time_ms": 41_234,
        "lat_e7": 478_095_123,
        "lon_e7": 130_551_987,
        "heading_decideg": 2_715,
        "speed_cm_s": 142,
        "yaw_rate_centideg_s": -250,
        "profile": ["pedestrian", "ordinary-pedestrian"],
        # offsets chained from the reference position, 0.1 s steps
        "path_offsets": [[120, -40, 5], [118, -42, 5], [-3, 90, 10]],
        "heading_change": ["left", 15],
    },
    {
        "name": "cyclist_plain",
        "station_id": 77,
        "station_type": 2,
        "generation_delta_time_ms": 0,
        "lat_e7": -337_000_001,
        "lon_e7": -1_512_345_678,
        "heading_decideg": 0,
        "speed_cm_s": 550,
        "profile": ["bicyclistAndLightVruVehicle", "bicyclist"],
    },
]


def main() -> int:
    codec = asn1tools.compile_string(vam_asn1(), "uper")
    out = []
    for case in CASES:
        encoded = codec.encode("VAM", vam(case), check_constraints=True)
        expected = vam(case)
        # asn1tools reads the path points' DEFAULTs back as their (named) values
        for point in expected["vam"]["vamParameters"].get("vruMotionPredictionContainer", {}).get("pathPrediction", []):
            point.update(deltaAltitude="unavailable", altitudeConfidence="unavailable")
        if codec.decode("VAM", encoded) != expected:
            raise SystemExit(f"{case['name']}: asn1tools does not read back what it wrote")
        out.append({**case, "uper_hex": encoded.hex()})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(
        json.dumps(
            {
                "generated_by": "tests/python/make_vam_fixtures.py",
                "codec": f"asn1tools {asn1tools.__version__}",
                "asn1": f"VAM-PDU-Descriptions (TS 103 300-3 V2.2.1) from v2xflexstack {FLEXSTACK_VERSION}",
                "vams": out,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {len(out)} VAMs to {OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

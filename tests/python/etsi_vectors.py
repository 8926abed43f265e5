"""What the ETSI cross-checks with pycrate (test_denm_pycrate.py, test_vam_pycrate.py,
test_cam_pycrate.py) share: our side, the `etsi-its-vectors` binary
(crates/etsi-its/src/bin/vectors.rs), pycrate's UPER codec of one PDU, and pieces of the
messages and of our simple views.

The binary is taken from $ETSI_ITS_VECTORS, or run with
`cargo run -q -p etsi-its --bin etsi-its-vectors` from the repository root.
"""

import copy
import json
import os
import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

# What our encoders send for the confidence and altitude of a position, which they do not model.
UNAVAILABLE_ELLIPSE = {"semiMajorConfidence": 4095, "semiMinorConfidence": 4095, "semiMajorOrientation": 3601}
UNAVAILABLE_ALTITUDE = {"altitudeValue": 800001, "altitudeConfidence": "unavailable"}


def run_vectors(*args: str) -> subprocess.CompletedProcess:
    binary = os.environ.get("ETSI_ITS_VECTORS")
    if binary:
        cmd = [binary, *args]
    else:
        cmd = ["cargo", "run", "-q", "-p", "etsi-its", "--bin", "etsi-its-vectors", "--", *args]
    return subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, timeout=900)


def printed_vectors(*args: str) -> dict:
    """The reference messages the binary prints (`HEX<TAB>JSON` lines): name -> (UPER, fields)."""
    done = run_vectors(*args)
    assert done.returncode == 0, done.stderr
    out = {}
    for line in done.stdout.splitlines():
        hex_, fields = line.split("\t")
        fields = json.loads(fields)
        out[fields.pop("name")] = (bytes.fromhex(hex_), fields)
    return out


def our_decode(uper: bytes, *message: str) -> dict:
    """The simple view our decoder reads out of `uper` (`message`: the binary's subcommand)."""
    done = run_vectors(*message, "--decode", uper.hex())
    assert done.returncode == 0, f"our decoder rejected {uper.hex()}: {done.stderr}"
    return json.loads(done.stdout)


class PycrateUper:
    """pycrate's UPER codec of one PDU object (it keeps the last value in the object)."""

    def __init__(self, pdu):
        self.pdu = pdu

    def decode(self, uper: bytes) -> dict:
        self.pdu.from_uper(uper)
        return self.pdu.get_val()

    def encode(self, value: dict) -> bytes:
        # pycrate keeps (and, dropping DEFAULT values, edits) the dict it is given
        self.pdu.set_val(copy.deepcopy(value))
        return self.pdu.to_uper()


def position_as_sent(lat: int, lon: int) -> dict:
    """A ReferencePosition as our encoders send it: no confidence, no altitude."""
    return {
        "latitude": lat,
        "longitude": lon,
        "positionConfidenceEllipse": UNAVAILABLE_ELLIPSE,
        "altitude": UNAVAILABLE_ALTITUDE,
    }


def position(lat: int, lon: int) -> dict:
    """A ReferencePosition with a confidence and an altitude, for messages pycrate builds."""
    return {
        "latitude": lat,
        "longitude": lon,
        "positionConfidenceEllipse": {
            "semiMajorConfidence": 350,
            "semiMinorConfidence": 200,
            "semiMajorOrientation": 450,
        },
        "altitude": {"altitudeValue": 52000, "altitudeConfidence": "alt-001-00"},
    }


def station_view(header: dict, generation_delta_time: int, basic: dict) -> dict:
    """The fields SimpleVam and SimpleCam read out of the header and the basic container."""
    return {
        "station_id": header["stationID"],
        "station_type": basic["stationType"],
        "generation_delta_time_ms": generation_delta_time,
        "lat_e7": basic["referencePosition"]["latitude"],
        "lon_e7": basic["referencePosition"]["longitude"],
    }


def heading_view(heading_value):
    """The heading a HeadingValue gives, 0.1°: none for unavailable (3601), 3600 or no value."""
    return heading_value if heading_value is not None and heading_value < 3600 else None

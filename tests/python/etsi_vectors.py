"""What the ETSI cross-checks with pycrate (test_denm_pycrate.py, test_vam_pycrate.py) share: our
side, the `etsi-its-vectors` binary (crates/etsi-its/src/bin/vectors.rs), and pycrate's UPER
codec of one PDU.

The binary is taken from $ETSI_ITS_VECTORS, or run with
`cargo run -q -p etsi-its --bin etsi-its-vectors` from the repository root.
"""

import copy
import json
import os
import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


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

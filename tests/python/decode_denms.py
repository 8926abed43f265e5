"""Decodes DENMs with pycrate (ITS_DENM_3, EN 302 637-3 V1.3.1), independently of our codec.

Reads one UPER DENM per line (hex) on stdin; prints a JSON list with, per DENM, the fields an
RSU acts on. Used by the end-to-end test tests/pipeline.rs on the DENMs it received over MQTT.
"""

import json
import sys

from pycrate_asn1dir import ITS_DENM_3

DENM = ITS_DENM_3.DENM_PDU_Descriptions.DENM


def fields(uper: bytes) -> dict:
    DENM.from_uper(uper)
    v = DENM.get_val()
    mgmt = v["denm"]["management"]
    situation = v["denm"].get("situation")
    out = {
        "station_id": v["header"]["stationID"],
        "originating_station_id": mgmt["actionID"]["originatingStationID"],
        "sequence_number": mgmt["actionID"]["sequenceNumber"],
        "latitude_e7": mgmt["eventPosition"]["latitude"],
        "longitude_e7": mgmt["eventPosition"]["longitude"],
        "termination": mgmt.get("termination"),
    }
    if situation is not None:
        out["cause"] = situation["eventType"]["causeCode"]
        out["sub_cause"] = situation["eventType"]["subCauseCode"]
    # Re-encoding must give the same bytes: the DENM uses no encoding freedom pycrate rejects.
    out["reencodes"] = DENM.to_uper() == uper
    return out


def main() -> None:
    print(json.dumps([fields(bytes.fromhex(line.strip())) for line in sys.stdin if line.strip()]))


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# `make floor`: the compute floor. The fused chain (crates/cits-floor) over the default
# recording in memory — no broker, no Redis, no host around it — built natively and for
# wasm32-wasip2 from the same source and profile, and the Wasm build run on the host's own
# engine (`cits-wasm-floor`), then on wasmtime's defaults without and with epoch interruption
# (the host's execution limit). Each system FLOOR_REPEATS times in turn (the machine's speed
# drifts), FLOOR_ROUNDS passes each. Writes into $FLOOR_OUT (default results/floor-<UTC time>):
#   fixture.pb   the input (`cits bench floor-fixture`)
#   floor.jsonl  one line per run
#   floor.md     µs per message and the ratio to native, the median run of each system
# Fails if the builds do not produce the same outputs (then they did not do the same work).
# Environment (the Makefile sets them): CITS_TOOL, FLOOR_NATIVE, FLOOR_WASM, WASM_FLOOR_BIN, PYTHON.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${FLOOR_OUT:-$REPO/results/floor-$(date -u +%Y%m%dT%H%M%SZ)}"
REPEATS="${FLOOR_REPEATS:-3}"
ROUNDS="${FLOOR_ROUNDS:-3}"
RECORDING="${RECORDING:-$REPO/data/default.rec.b64}"
: "${CITS_TOOL:?}" "${FLOOR_NATIVE:?}" "${FLOOR_WASM:?}" "${WASM_FLOOR_BIN:?}" "${PYTHON:?}"
log() { printf '[floor] %s\n' "$*" >&2; }

mkdir -p "$OUT"
"$CITS_TOOL" bench floor-fixture --file "$RECORDING" --out "$OUT/fixture.pb"
: >"$OUT/floor.jsonl"
for ((r = 1; r <= REPEATS; r++)); do
    for system in native host wasmtime wasmtime-epochs; do
        if [[ "$system" == native ]]; then
            line=$("$FLOOR_NATIVE" "$OUT/fixture.pb" "$ROUNDS")
        else
            line=$("$WASM_FLOOR_BIN" --engine "$system" "$FLOOR_WASM" "$OUT/fixture.pb" "$ROUNDS")
        fi
        log "$system: $line"
        printf '{"system":"%s",%s\n' "$system" "${line#\{}" >>"$OUT/floor.jsonl"
    done
done

"$PYTHON" - "$OUT" <<'PY'
import json, statistics, sys
out = sys.argv[1]
runs = [json.loads(l) for l in open(f"{out}/floor.jsonl")]
work = {(r["outputs"], r["denms"], r["dead_letters"]) for r in runs}
if len(work) != 1:
    sys.exit(f"the builds did different work (outputs, DENMs, dead letters): {sorted(work)}")
label = {
    "native": "native (x86_64, the actors' release profile)",
    "host": "Wasm on the host's engine (pooling, epoch interruption)",
    "wasmtime": "Wasm on wasmtime's defaults (no execution limit)",
    "wasmtime-epochs": "Wasm on wasmtime's defaults + epoch interruption",
}
median = {s: statistics.median(r["median_us_per_message"] for r in runs if r["system"] == s) for s in label}
(outputs, denms, _), = work
lines = [
    f"The fused chain in memory over {runs[0]['messages']} messages ({denms} DENMs, {outputs} outputs in every build); "
    f"median of {len(runs) // len(label)} runs of {runs[0]['rounds']} passes each.",
    "",
    "| build and engine | µs per message | ÷ native |",
    "|---|---|---|",
]
lines += [f"| {label[s]} | {median[s]:.0f} | {median[s] / median['native']:.2f}× |" for s in label]
open(f"{out}/floor.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
log "floor: $OUT/floor.md"

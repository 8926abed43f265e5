#!/usr/bin/env bash
# `make profile`: where the CPU goes with PROFILE_RSUS intersections at once. A lattice of its own
# (one server, as `make run`), the fused deployment, the default recording's first
# PROFILE_SECONDS at 1x as N RSUs (`cits bench run --rsus N`, as `make bench` replays them);
# during its middle half, `perf record -a -g` of the whole machine, the host writing a perf map of
# its JIT code (WASMCLOUD_PERF_MAP=1). The fused component deployed is built here with its name
# section kept (CARGO_PROFILE_RELEASE_STRIP=false, signed by cits-sign; the same code, a custom
# section more), so the perf map names its functions. Writes into $PROFILE_OUT (default
# results/profile-<UTC time>):
#   flame.svg       the flame graph (inferno), one tower per process
#   by-process.txt  CPU samples per process and per process + shared object
#   run-*.json      the run's own figures (latency, CPU per object update)
# Environment (the Makefile sets the binaries): PROFILE_RSUS (32), PROFILE_SECONDS (60),
# INFERNO_BIN (inferno's bin dir), RECORDING.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
N="${PROFILE_RSUS:-32}"
SECONDS_RUN="${PROFILE_SECONDS:-60}"
OUT="${PROFILE_OUT:-$REPO/results/profile-$(date -u +%Y%m%dT%H%M%SZ)}"
: "${CITS_TOOL:?set CITS_TOOL (use make profile)}" "${INFERNO_BIN:?set INFERNO_BIN}" "${SIGN_BIN:?set SIGN_BIN}" "${WASH_KEYS:?set WASH_KEYS}"
# shellcheck source=tools/bench/lib.sh
source "$REPO/tools/bench/lib.sh"
export WASMCLOUD_PERF_MAP=1
log() { printf '[profile] %s\n' "$*" >&2; }

mkdir -p "$OUT"
fresh_lattice
cameras_for "$N"
"${LATTICE[@]}" up
add_rsus "profile-n$N" "$N"
log "the fused component with its function names"
CARGO_PROFILE_RELEASE_STRIP=false CARGO_TARGET_DIR="${CITS_CACHE:-$HOME/.cache/cits}/target-named" \
    cargo build --locked -q --release --target wasm32-wasip2 -p pipeline
cp "${CITS_CACHE:-$HOME/.cache/cits}/target-named/wasm32-wasip2/release/pipeline.wasm" "$OUT/pipeline_named.wasm"
"$SIGN_BIN" component "$OUT/pipeline_named.wasm" --name pipeline --version 0.1.0 >/dev/null 2>&1
"$CITS_TOOL" manifest render "$REPO/wadm/cits-pipeline-fused.yaml" --image pipeline="$OUT/pipeline_named_s.wasm" \
    --out "$OUT/cits-pipeline-fused.yaml"
CITS_MANIFEST="$OUT/cits-pipeline-fused.yaml" "${LATTICE[@]}" deploy
"${LATTICE[@]}" probe
REDIS="$("${LATTICE[@]}" redis-url)"

log "$N intersections, the first $SECONDS_RUN s at 1x; perf over its middle half"
(
    sleep $((SECONDS_RUN / 4))
    perf record -a -g -F 499 -o "$OUT/perf.data" -- sleep $((SECONDS_RUN / 2)) 2>"$OUT/perf-record.log"
) &
recorder=$!
"$CITS_TOOL" bench run --system wasmcloud-fused --factor 1 --rsus "$N" --station-base "$STATION" \
    --seconds "$SECONDS_RUN" --rsu "profile-n$N" --cpu "host=$(cat "$STATE"/pids/host-1.pid)" \
    --cpu "nats=$(cat "$STATE/pids/nats.pid")" --cpu "redis=$(cat "$STATE/pids/redis.pid")" \
    --file "$RECORDING" --nats "$NATS" --mqtt "$MQTT" --redis "$REDIS" --out "$OUT"
wait "$recorder"

perf script -i "$OUT/perf.data" 2>/dev/null | "$INFERNO_BIN/inferno-collapse-perf" --all |
    python3 "$REPO/tools/bench/demangle.py" >"$OUT/stacks.folded"
"$INFERNO_BIN/inferno-flamegraph" --title "fused deployment, $N intersections at 1x: the whole machine" \
    --width 1600 <"$OUT/stacks.folded" >"$OUT/flame.svg"
{
    # sed, not head: head would close the pipe early and fail the script (pipefail).
    echo "# samples per process"
    perf report -i "$OUT/perf.data" --no-children -g none --sort comm --stdio 2>/dev/null | grep -v '^#' | sed '/^$/d' | sed -n 1,25p
    echo
    echo "# samples per process and shared object"
    perf report -i "$OUT/perf.data" --no-children -g none --sort comm,dso --stdio 2>/dev/null | grep -v '^#' | sed '/^$/d' | sed -n 1,40p
} >"$OUT/by-process.txt"
rm -f "$OUT/perf.data" "$OUT"/pipeline_named*.wasm
log "profile: $OUT (flame.svg, by-process.txt)"

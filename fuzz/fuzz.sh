#!/usr/bin/env bash
# Builds and runs the libFuzzer targets of fuzz/ (see fuzz/README.md).
#
#   fuzz/fuzz.sh run [SECONDS]   every target for its share of SECONDS (default 540), then a report:
#                                inputs executed, time, exec/s, corpus, crashes per target
#   fuzz/fuzz.sh smoke [RUNS]    every target over its seeds plus RUNS (default 3000) mutated inputs
#   fuzz/fuzz.sh build           seeds and targets only
#   FUZZ_TARGETS="state fused"   only these targets
#
# Seeds and data come from crates/cits-research/examples/fuzz_seeds.rs (the recordings in data/, run through
# the stages). The targets are built with the workspace's pinned stable toolchain and libFuzzer's
# coverage instrumentation, without a sanitizer: the code is safe Rust, so what fuzzing can find is
# a panic (overflow checks and debug assertions are on), a hang (-timeout) or runaway memory
# (-rss_limit_mb). Everything it makes lives in $CITS_CACHE/fuzz: data/, seeds/,
# corpus/<target> (grows from run to run), artifacts/<target> (crashing inputs), logs/.
set -euo pipefail

cd "$(dirname "$0")/.."
CITS_CACHE=${CITS_CACHE:-$HOME/.cache/cits}
WORK=$CITS_CACHE/fuzz
FUZZ_TARGET_DIR=${FUZZ_TARGET_DIR:-$CITS_CACHE/target-fuzz}
MAIN_TARGET_DIR=${CARGO_TARGET_DIR:-$CITS_CACHE/target}
NICE=(nice -n 19)
ALL_TARGETS="cpm_uper formats stage_decoder stage_collector stage_assembler stage_map_matcher stage_predictor
  stage_collision_detector stage_denm_sender state fused"
# FUZZ_TARGETS="state fused" runs only those (the budget is shared among them).
read -r -a TARGETS <<<"$(echo ${FUZZ_TARGETS:-$ALL_TARGETS})"
# libFuzzer options of every run: a unit slower than 10 s is a hang; inputs up to 64 KiB (CPMs are
# refused above 16 KiB, a batch or a frame with stored state may be larger).
LIBFUZZER_OPTS=(-timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1)

HOST=$(rustc -vV | sed -n 's/^host: //p')
BIN_DIR=$FUZZ_TARGET_DIR/$HOST/release
export CITS_FUZZ_DATA=$WORK/data

build() {
  # libfuzzer-sys compiles libFuzzer (C++).
  if ! command -v c++ >/dev/null; then
    echo "fuzz: installing g++ (Debian), libFuzzer is C++"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ >/dev/null
  fi
  echo "fuzz: seeds from data/*.rec.b64"
  CARGO_TARGET_DIR=$MAIN_TARGET_DIR "${NICE[@]}" cargo build --locked -q --profile platform -p cits-research \
    --example fuzz_seeds
  "${NICE[@]}" "$MAIN_TARGET_DIR/platform/examples/fuzz_seeds" "$WORK"
  echo "fuzz: building the targets ($FUZZ_TARGET_DIR)"
  # As `cargo fuzz build --sanitizer none` instruments; --target keeps the flags off build scripts.
  local flags=(-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4
    -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table
    -Cllvm-args=-sanitizer-coverage-trace-compares -Cllvm-args=-sanitizer-coverage-stack-depth
    -Cllvm-args=-simplifycfg-branch-fold-threshold=0 --cfg fuzzing -Ccodegen-units=1)
  (cd fuzz && CARGO_TARGET_DIR=$FUZZ_TARGET_DIR RUSTFLAGS="${flags[*]}" "${NICE[@]}" cargo build --locked -q \
    --release --target "$HOST" --bins)
}

# run_target TARGET LOG ARGS...: runs one target, its log in LOG, its exit status in RC; never fails
# (the caller reads the log).
run_target() {
  local target=$1 log=$2
  shift 2
  mkdir -p "$WORK/artifacts/$target"
  RC=0
  "${NICE[@]}" "$BIN_DIR/$target" "${LIBFUZZER_OPTS[@]}" -artifact_prefix="$WORK/artifacts/$target/" "$@" \
    >"$log" 2>&1 || RC=$?
}

# final_stat LOG NAME: a final statistic of a libFuzzer log (0 when missing).
final_stat() {
  sed -n "s/^stat::$2: *//p" "$1" | tail -1 | grep . || echo 0
}

# now_ms: the clock in milliseconds.
now_ms() {
  echo $(($(date +%s%N) / 1000000))
}

# seconds MS: milliseconds as seconds with one decimal.
seconds() {
  printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100))
}

# report_line TARGET LOG MS: one row of the report (MS: how long the target ran).
report_line() {
  local target=$1 log=$2 ms=$3
  local inputs corpus crashed=0
  inputs=$(final_stat "$log" number_of_executed_units)
  [ "$inputs" = 0 ] && inputs=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$log" | tail -1 | grep . || echo 0)
  corpus=$(sed -n 's/.*corp: \([0-9]*\)\/.*/\1/p' "$log" | tail -1 | grep . || echo 0)
  if [ "$RC" != 0 ] || grep -q '^==[0-9]*== ERROR: libFuzzer\|panicked at\|Test unit written to' "$log"; then
    crashed=1
  fi
  printf '%-26s %12s %8s %10s %8s %8s\n' "$target" "$inputs" "$(seconds "$ms")" \
    "$((inputs * 1000 / (ms > 0 ? ms : 1)))" "$corpus" "$crashed"
  TOTAL_INPUTS=$((TOTAL_INPUTS + inputs))
  if [ "$crashed" = 1 ]; then
    CRASHES+=("$target (exit $RC): $(grep -m1 -A1 'panicked at\|ERROR: libFuzzer' "$log" | tr '\n' ' ' | cut -c1-200)")
    CRASHES+=("  input: $(sed -n 's/.*Test unit written to //p' "$log" | tail -1), log: $log")
  fi
}

header() {
  printf '%-26s %12s %8s %10s %8s %8s\n' target inputs seconds exec/s corpus crashes
}

footer() {
  local ms=$1
  printf '%-26s %12s %8s %10s\n' total "$TOTAL_INPUTS" "$(seconds "$ms")" "$((TOTAL_INPUTS * 1000 / (ms > 0 ? ms : 1)))"
  if [ ${#CRASHES[@]} -gt 0 ]; then
    echo "crashes:"
    printf '  %s\n' "${CRASHES[@]}"
    echo "reproduce: CITS_FUZZ_DATA=$CITS_FUZZ_DATA $BIN_DIR/<target> <input>"
    return 1
  fi
}

TOTAL_INPUTS=0
CRASHES=()
mode=${1:-run}
case $mode in
  build) build ;;
  run)
    budget=${2:-540}
    build
    per=$((budget / ${#TARGETS[@]}))
    logs=$WORK/logs/$(date +%Y%m%d-%H%M%S)
    mkdir -p "$logs"
    echo "fuzz: ${#TARGETS[@]} targets, ${per} s each (logs in $logs)"
    header
    start=$(now_ms)
    for t in "${TARGETS[@]}"; do
      mkdir -p "$WORK/corpus/$t"
      t0=$(now_ms)
      run_target "$t" "$logs/$t.log" -max_total_time="$per" "$WORK/corpus/$t" "$WORK/seeds/$t"
      report_line "$t" "$logs/$t.log" $(($(now_ms) - t0))
    done
    footer $(($(now_ms) - start))
    ;;
  smoke)
    runs=${2:-3000}
    build
    logs=$(mktemp -d)
    trap 'rm -rf "$logs"' EXIT
    echo "fuzz smoke: every target over its seeds plus $runs inputs"
    header
    start=$(now_ms)
    for t in "${TARGETS[@]}"; do
      seeds=$(find "$WORK/seeds/$t" -type f | wc -l)
      mkdir -p "$logs/corpus-$t"
      t0=$(now_ms)
      run_target "$t" "$logs/$t.log" -seed=1 -runs=$((seeds + runs)) "$logs/corpus-$t" "$WORK/seeds/$t"
      report_line "$t" "$logs/$t.log" $(($(now_ms) - t0))
    done
    if ! footer $(($(now_ms) - start)); then
      for t in "${TARGETS[@]}"; do grep -q 'panicked at\|ERROR: libFuzzer' "$logs/$t.log" && tail -40 "$logs/$t.log"; done
      exit 1
    fi
    ;;
  *)
    echo "usage: $0 run [SECONDS] | smoke [RUNS] | build" >&2
    exit 2
    ;;
esac

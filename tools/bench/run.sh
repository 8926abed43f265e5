#!/usr/bin/env bash
# `make bench`: the default recording replayed over MQTT at each speed factor, against each
# system in turn on one lattice, back to back in one run:
#   wasmcloud        the seven signed actors (wadm/cits-pipeline.yaml)
#   wasmcloud-fused  the same stages in one signed actor (wadm/cits-pipeline-fused.yaml)
#   native           the same stage crates as seven native processes on the same subjects,
#                    Redis and map (`cits stage`), no Wasm, no wasmCloud — the baseline; input
#                    from core NATS subscriptions (at most once)
#   native-durable   the same seven processes, input pulled durably from JetStream by the
#                    messaging provider's own delivery code (`cits stage --durable`): the
#                    seven-actor deployment's delivery without Wasm or wasmCloud
#   native-fused     the fused chain as one native process, input durable likewise: the fused
#                    deployment's shape and delivery without Wasm or wasmCloud
# Many intersections (BENCH_RSUS, the Makefile: "1 4 8 16 24 32 48"): then also, per system and N, the first
# BENCH_RSUS_SECONDS of the recording at 1x as N RSUs at once, each with a station of its own (given
# the same cameras) and so an intersection of its own over the same map.
# Each run is made against every system in turn (the machine's speed drifts), each from a clean
# state (idle pipeline, Redis flushed, stage inputs purged). The report (tables, PNG plots,
# per-frame CSVs, JSON per run) goes to $BENCH_OUT (default results/<UTC time>), linked as
# results/latest, and is printed.
#
# Then the soak (BENCH_SOAK_MINUTES, default 60; 0: none): the recording back to back at 1x as four
# RSUs against BENCH_SOAK_SYSTEM (default wasmcloud) on the same lattice, never cleaned in between,
# with latency and memory (nats-server, Redis, the host, JetStream) per minute: flat or not.
# Then the topologies (BENCH_TOPOLOGIES, default "single cluster edge-hub edge-site cluster-sync
# cluster-seven"; empty: none): the fused deployment on each (cluster-seven: the seven actors),
# every one a lattice of its own started fresh, at each
# of BENCH_TOPOLOGY_FACTORS (default "1 16"), as one RSU that also receives its DENMs over MQTT:
#   single        one nats-server, one host (R1), as the runs above but measured the same way
#   cluster       three nats-servers, every stream R3, a host on each
#   edge-hub      that cluster as the hub of a site (leaf node, MQTT over TLS, an edge host), the
#                 pipeline on the hub: CPMs and DENMs cross the leaf link as stream sources
#   edge-site     the same, the pipeline on the site's edge host (state in the site's Redis)
#   cluster-sync  the cluster with NATS_SYNC=always (JetStream fsyncs every write)
#   cluster-seven the cluster with the seven-actor deployment (every stage's stream R3)
# BENCH_SYSTEMS= and BENCH_SOAK_MINUTES=0 leave only the topologies.
# Environment (the Makefile sets the binaries): BENCH_FACTORS (default "1 2 4 8 16"),
# BENCH_SYSTEMS (default "wasmcloud wasmcloud-fused native native-fused"), BENCH_RSUS (default empty: no
# many-intersections runs), BENCH_RSUS_SECONDS (default 60), BENCH_OUT, RECORDING, PYTHON.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FACTORS="${BENCH_FACTORS-1 2 4 8 16}"
SYSTEMS="${BENCH_SYSTEMS-wasmcloud wasmcloud-fused native native-fused}"
RSUS_N="${BENCH_RSUS:-}"
RSUS_SECONDS="${BENCH_RSUS_SECONDS:-60}"
# The soak: the recording back to back at 1x as SOAK_RSUS RSUs for SOAK_MINUTES against SOAK_SYSTEM,
# never cleaned in between (0 minutes: none).
SOAK_MINUTES="${BENCH_SOAK_MINUTES:-60}"
SOAK_RSUS=4
SOAK_SYSTEM="${BENCH_SOAK_SYSTEM:-wasmcloud}"
TOPOLOGIES="${BENCH_TOPOLOGIES-single cluster edge-hub edge-site cluster-sync cluster-seven}"
TOPOLOGY_FACTORS="${BENCH_TOPOLOGY_FACTORS:-1 16}"
OUT="${BENCH_OUT:-$REPO/results/$(date -u +%Y%m%dT%H%M%SZ)}"
: "${CITS_TOOL:?set CITS_TOOL (use make bench)}" "${PYTHON:?set PYTHON}" "${WASH:?set WASH}"
# shellcheck source=tools/bench/lib.sh
source "$REPO/tools/bench/lib.sh"
# The hosts' compilation cache (`cits lattice`); start-up is measured with it empty and filled.
export COMPILATION_CACHE="$STATE/compiled"

log() { printf '[bench] %s\n' "$*" >&2; }
now_us() { echo $(($(date +%s%N) / 1000)); }
pid_of() { cat "$STATE/pids/$1.pid"; }

mkdir -p "$OUT" "$REPO/results"
ln -sfn "$OUT" "$REPO/results/latest"
started=$(date +%s)

{
    echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) RAM, $(uname -sr)."
    echo "Run: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown), \`make bench\` (factors: $FACTORS;${RSUS_N:+ intersections: $RSUS_N over the first $RSUS_SECONDS s;} systems: $SYSTEMS;${TOPOLOGIES:+ topologies: $TOPOLOGIES at $TOPOLOGY_FACTORS;} recording: $(basename "$RECORDING"))."
} >"$OUT/machine.txt"
for w in "$REPO"/actors/*/build/*_s.wasm; do
    echo "$(basename "$w") $(stat -c %s "$w")"
done >"$OUT/sizes.txt"

fresh_lattice
# The default recording (207 s) at up to 16x: its first CPMs are sent up to ~195 s older than live.
export MAX_AGE_MS="${MAX_AGE_MS:-300000}"
# The systems, the many intersections and the soak: one lattice of one server (as `make run`).
if [[ -n "${SYSTEMS// /}" ]] || ((SOAK_MINUTES > 0)); then
    # The stations of the many-intersections RSUs get the recording's cameras (in every deployment, so
    # that all runs see the same configuration).
    max_n=1
    ((SOAK_MINUTES > 0)) && max_n=$SOAK_RSUS
    for n in $RSUS_N; do
        if ((n > max_n)); then max_n=$n; fi
    done
    cameras_for "$max_n"
    "${LATTICE[@]}" up
    REDIS="$("${LATTICE[@]}" redis-url)"
    # Every RSU the runs replay as, registered while a host is up (the registry is lattice config).
    for system in $SYSTEMS; do
        for compiled in cold cached; do
            "${LATTICE[@]}" rsu-add "startup-$system-$compiled"
        done
        for f in $FACTORS; do
            "${LATTICE[@]}" rsu-add "bench-$system-${f//./_}x"
        done
        for n in $RSUS_N; do
            add_rsus "bench-$system-n$n" "$n"
        done
    done
    add_rsus soak "$SOAK_RSUS"

    # The wadm manifest of a wasmCloud system.
    manifest_of() { # system
        if [[ "$1" == wasmcloud-fused ]]; then
            echo "$REPO/wadm/cits-pipeline-fused.yaml"
        else
            echo "$REPO/wadm/cits-pipeline.yaml"
        fi
    }

    # The lattice serving `system`: its deployment on the host, or the native stages instead of it.
    # Sets `cpu` to the CPU groups of a run against it.
    switch_to() { # system
        local system=$1
        case "$system" in
        wasmcloud | wasmcloud-fused)
            if [[ "$current" != "$system" ]]; then
                "${LATTICE[@]}" native-down
                "${LATTICE[@]}" up >/dev/null # again, if the native baseline ran before
                "${LATTICE[@]}" undeploy
                CITS_MANIFEST="$(manifest_of "$system")" "${LATTICE[@]}" deploy
            fi
            "${LATTICE[@]}" probe
            cpu=(--cpu "host=$(pid_of host-1)")
            current=$system
            ;;
        native | native-durable | native-fused)
            if [[ "$current" != "$system" ]]; then
                "${LATTICE[@]}" host-down
                "${LATTICE[@]}" native-down
                case "$system" in
                native) "${LATTICE[@]}" native-up seven core ;;
                native-durable) "${LATTICE[@]}" native-up seven durable ;;
                native-fused) "${LATTICE[@]}" native-up fused durable ;;
                esac
            fi
            "${LATTICE[@]}" probe
            cpu=(--cpu "stages=$(cat "$STATE"/pids/native-*.pid | paste -sd,)")
            current=$system
            ;;
        *)
            log "unknown system $system (wasmcloud, wasmcloud-fused, native, native-durable, native-fused)"
            exit 2
            ;;
        esac
    }
    current=""
    cpu=()

    # Deploy → first DENM, each wasmCloud deployment twice: with the host's compilation cache emptied
    # first (a component version it never ran: Cranelift compiles every component), then deployed
    # again (a restarted host or a redeploy: machine code from the cache).
    for system in $SYSTEMS; do
        [[ "$system" == native* ]] && continue
        for compiled in cold cached; do
            "${LATTICE[@]}" undeploy
            [[ "$compiled" == cold ]] && find "$COMPILATION_CACHE" -mindepth 1 -delete
            # The demo recording's CPMs wait in JetStream for the deployment, as live RSUs' would.
            "$CITS_TOOL" bench first-denm-backlog --system "$system" --compiled "$compiled" \
                --nats "$NATS" --mqtt "$MQTT" --redis "$REDIS"
            CITS_MANIFEST="$(manifest_of "$system")" "${LATTICE[@]}" deploy
            # From the deploy request (`cits lattice deploy` stores every version of the application first).
            since=$(cat "$STATE/deploy-requested-us")
            # Links that raced a provider's start are caught up by the provider itself (cits-provider);
            # the time until the first DENM includes that.
            "$CITS_TOOL" bench first-denm --system "$system" --compiled "$compiled" --since-us "$since" \
                --nats "$NATS" --timeout-s 120 --out "$OUT"
        done
        current=$system
    done

    # Every run (a speed factor, or N intersections) against each system in turn, so that the systems
    # compared share the machine's state: a shared VM's speed drifts by 15–20 % within half an hour, more
    # than the CPU differences measured. One RSU id per run and system: frames identical to an earlier
    # run's would fall into JetStream's duplicate window (2 min) and never come out.
    common=(--cpu "nats=$(pid_of nats)" --cpu "redis=$(pid_of redis)" --file "$RECORDING" --nats "$NATS"
        --mqtt "$MQTT" --redis "$REDIS" --out "$OUT")
    for f in $FACTORS; do
        for system in $SYSTEMS; do
            switch_to "$system"
            log "$system at ${f}x"
            "$CITS_TOOL" bench run --system "$system" --factor "$f" --rsu "bench-$system-${f//./_}x" "${cpu[@]}" "${common[@]}"
        done
    done
    for n in $RSUS_N; do
        for system in $SYSTEMS; do
            switch_to "$system"
            log "$system: $n intersections, the first $RSUS_SECONDS s at 1x"
            "$CITS_TOOL" bench run --system "$system" --factor 1 --rsus "$n" --station-base "$STATION" \
                --seconds "$RSUS_SECONDS" --rsu "bench-$system-n$n" "${cpu[@]}" "${common[@]}"
        done
    done

    if ((SOAK_MINUTES > 0)); then
        switch_to "$SOAK_SYSTEM"
        log "soak: $SOAK_SYSTEM, $SOAK_RSUS RSUs at 1x for $SOAK_MINUTES min"
        memory=(--memory "nats=$(pid_of nats)" --memory "redis=$(pid_of redis)")
        [[ "$SOAK_SYSTEM" == wasmcloud* ]] && memory+=(--memory "host=$(pid_of host-1)")
        "$CITS_TOOL" bench soak --minutes "$SOAK_MINUTES" --rsus "$SOAK_RSUS" --rsu soak --station-base "$STATION" \
            "${memory[@]}" --file "$RECORDING" --nats "$NATS" --mqtt "$MQTT" --redis "$REDIS" --out "$OUT"
    fi

    "${LATTICE[@]}" down
fi

# The topologies: each a lattice of its own, started fresh, the fused deployment on it. RSU
# bench-<topology>-<factor>x (a site's RSU on the edge); its frames are seen at the server that runs
# its pipeline (a site's leaf node for edge-site), its DENMs received where it connects.
topology_of() { # name
    local site='{nats: [{}, {}, {}], hosts: [{}, {}, {}, {site: site-1}], sites: [{name: site-1, rsus: [%s], pipeline: %s}]}'
    case "$1" in
    single) echo single ;;
    cluster | cluster-sync | cluster-seven) echo cluster ;;
    edge-hub) printf "$site" "$2" hub ;;
    edge-site) printf "$site" "$2" edge ;;
    *)
        log "unknown topology $1 (single, cluster, edge-hub, edge-site, cluster-sync, cluster-seven)"
        exit 2
        ;;
    esac
}
pids_of() { # process-name glob: pid,pid,...
    cat "$STATE"/pids/$1.pid | paste -sd,
}
for t in $TOPOLOGIES; do
    rsus=()
    for f in $TOPOLOGY_FACTORS; do
        rsus+=("bench-$t-${f//./_}x")
    done
    (
        unset CITS_MQTT_CA
        IFS=,
        export RSUS="${rsus[*]}"
        unset IFS
        export CITS_TOPOLOGY
        CITS_TOPOLOGY="$(topology_of "$t" "$RSUS")"
        [[ "$CITS_TOPOLOGY" == single ]] || export MQTT_PORT=8883
        [[ "$t" == cluster-sync ]] && export NATS_SYNC=always
        "${LATTICE[@]}" down >/dev/null 2>&1 || true
        # All but the hosts' compilation cache: every topology starts from machine code alike.
        mkdir -p "$STATE" && find "$STATE" -mindepth 1 -maxdepth 1 ! -name compiled -exec rm -rf {} +
        log "topology $t: starting"
        "${LATTICE[@]}" up
        [[ -f "$STATE/tls/ca.pem" ]] && export CITS_MQTT_CA="$STATE/tls/ca.pem"
        manifest=cits-pipeline-fused.yaml system=wasmcloud-fused
        [[ "$t" == cluster-seven ]] && manifest=cits-pipeline.yaml system=wasmcloud
        CITS_MANIFEST="$REPO/wadm/$manifest" "${LATTICE[@]}" deploy
        "${LATTICE[@]}" probe
        for rsu in "${rsus[@]}"; do
            f="${rsu##*-}"
            f="${f%x}"
            log "topology $t: $system at ${f//_/.}x"
            "$CITS_TOOL" bench run --system "$system" --factor "${f//_/.}" --rsu "$rsu" --topology "$t" \
                --denms-at-rsu --file "$RECORDING" --out "$OUT" \
                --nats "127.0.0.1:$("${LATTICE[@]}" nats-port "$rsu")" \
                --mqtt "127.0.0.1:$("${LATTICE[@]}" mqtt-port "$rsu")" \
                --redis "$("${LATTICE[@]}" redis-url "$rsu")" \
                --cpu "host=$(pids_of 'host-*')" --cpu "nats=$(pids_of 'nats*')" --cpu "redis=$(pids_of 'redis*')"
        done
        "${LATTICE[@]}" down
    )
done

trap - EXIT
baseline=native
[[ " $SYSTEMS " == *" native "* ]] || baseline=$(awk '{print $1}' <<<"$SYSTEMS")
"$PYTHON" "$REPO/tools/bench/plot.py" "$OUT"
"$CITS_TOOL" bench report --out "$OUT" --baseline "$baseline"
log "report: $OUT/report.md (results/latest); took $(($(date +%s) - started)) s"

#!/usr/bin/env bash
# Starts, deploys to and stops the local lattice: NATS (JetStream + MQTT), the secrets backend,
# Redis, wadm and the wasmCloud host — each started here, tracked by PID file, stopped by PID.
#
#   tools/lattice.sh up | deploy | undeploy | probe | down | host-down | host-up N | native-up [seven|fused] [core|durable] | native-down | status
#                    | rsu-add RSU [STATION] | rsu-remove RSU | redis-url | dashboard-up | dashboard-down
#
# Used by `make run` / `make stop` and by the integration tests (with their own ports and state
# dir). Binaries come from `make setup`; the Makefile exports their paths.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="${CITS_STATE:-$REPO/.state}"
NATS_PORT="${NATS_PORT:-4222}"
MQTT_PORT="${MQTT_PORT:-1883}"
REDIS_PORT="${REDIS_PORT:-6379}"
NATS_HTTP_PORT="${NATS_HTTP_PORT:-8222}"
LATTICE="${WASMCLOUD_LATTICE:-default}"
MANIFEST="${CITS_MANIFEST:-$REPO/wadm/cits-pipeline.yaml}"
APP="${CITS_APP:-cits-pipeline}"
# wasmCloud hosts in the lattice (labels host=host-1 … host-N); wadm spreads the stages over them.
HOSTS="${HOSTS:-1}"
# The host cancels an invocation after this; the manifests' handler links say the same
# (host_execution_limit_ms), so the messaging provider never retries one that may still run.
HOST_EXECUTION_LIMIT_MS="${HOST_EXECUTION_LIMIT_MS:-2000}"
# JetStream fsync: NATS's default (every 2 min) loses nothing a killed process had acknowledged
# (the page cache survives), but an OS crash or power loss can lose up to that interval;
# NATS_SYNC=always fsyncs every write (see docs/reliability.md).
NATS_SYNC="${NATS_SYNC:-2m}"

: "${NATS_SERVER:?set NATS_SERVER (make setup prints the paths; use make targets)}"
: "${REDIS_SERVER:=redis-server}"
: "${WASMCLOUD_HOST_BIN:?set WASMCLOUD_HOST_BIN}"
: "${WADM_BIN:?set WADM_BIN}"
: "${WASH:?set WASH}"
: "${CITS_TOOL:?set CITS_TOOL}"
: "${CITS_POLICY:?set CITS_POLICY}"
: "${SECRETS_NATS_KV:?set SECRETS_NATS_KV (the secrets backend make setup builds)}"
# The project's signing keys (wash): its account key is the policy's allowed issuer.
: "${WASH_KEYS:?set WASH_KEYS (the keys wash signed the actors and providers with)}"
# RSUs registered at `up` (credentials + station registry); tests add their own with `rsu-add`.
RSUS="${RSUS:-rsu1}"
# Replays faster than real time send CPMs older than live (cits_tools::replay::live): bench and
# chaos widen the pipeline's age limit (limits.max_age_ms, production 60 s) with MAX_AGE_MS.
MAX_AGE_MS="${MAX_AGE_MS:-}"
RSU_STATION="${RSU_STATION:-1001}"
# Stations given the same calibrated cameras as RSU_STATION (the manifests' sensor.<station>.<n>):
# one recording replayed as several intersections, each RSU its own station (`make bench`).
CAMERA_STATIONS="${CAMERA_STATIONS:-}"
# The web dashboard (dashboard/, `dashboard-up`); its binary comes from `make build`.
DASHBOARD_PORT="${DASHBOARD_PORT:-8480}"

PIDS="$STATE/pids"
LOGS="$STATE/logs"
# Where the hosts keep compiled components (see host_up); empty: compile on every start.
COMPILATION_CACHE="${COMPILATION_CACHE-$STATE/compiled}"
# A component not in that cache starts on baseline code (Winch) while Cranelift's is compiled in
# the background (tools/patches/wasmcloud-runtime.sh); false: Cranelift before it starts.
TIERED_COMPILATION="${TIERED_COMPILATION:-true}"
# NATS users, RSU tokens and the Redis password of this lattice (crates/cits-nats-auth); never
# in the repository.
AUTH="$STATE/auth"
REDIS_USER=cits
# The dashboard's Redis user: reads the pipeline's tracks, paths and warnings, nothing else.
REDIS_DASHBOARD_USER=dashboard

# wash talks to the lattice through NATS; keep its keys/contexts out of $HOME.
export WASMCLOUD_CTL_HOST=127.0.0.1 WASMCLOUD_CTL_PORT="$NATS_PORT" WASMCLOUD_LATTICE="$LATTICE"
export WASH_CONTEXT_DIR="$STATE/wash/contexts"
# wash and our tools act as the lattice's operator user.
export WASH_CTL_CREDS="$AUTH/users/operator.creds" CITS_AUTH="$AUTH" CITS_NATS_PID_FILE="$PIDS/nats.pid"
POLICY_TOPIC="wasmcloud.policy.$LATTICE"
# Where hosts ask the secrets backend (crates: cits_tools::rsu::SECRETS_TOPIC / SECRETS_BACKEND).
SECRETS_TOPIC=wasmcloud.secrets
# The lattice's own values the manifests name but do not hold (cits_tools::manifest).
LATTICE_REDIS_CONFIG=cits-lattice-redis
LATTICE_BLOBSTORE_CONFIG=cits-lattice-blobstore
REDIS_PASSWORD_SECRET=redis-password

log() { printf '[lattice] %s\n' "$*" >&2; }
die() {
    log "$*"
    exit 2
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Waits until `check` succeeds, failing early if the process `name` exits.
wait_ready() { # name seconds check...
    local name=$1 seconds=$2 i
    shift 2
    for ((i = 0; i < seconds * 20; i++)); do
        "$@" >/dev/null 2>&1 && return 0
        running "$name" || { log "$name exited; log: $LOGS/$name.log"; tail -n 30 "$LOGS/$name.log" >&2; return 1; }
        sleep 0.05
    done
    log "$name not ready within $seconds s ($*); log: $LOGS/$name.log"
    tail -n 30 "$LOGS/$name.log" >&2 || true
    return 1
}

nats_ready() { curl -sf "http://127.0.0.1:$NATS_HTTP_PORT/healthz?js-enabled-only=true" && port_open "$MQTT_PORT"; }
redis_ready() { REDISCLI_AUTH="$(redis_password)" "${REDIS_CLI:-redis-cli}" --user "$REDIS_USER" -p "$REDIS_PORT" ping | grep -q PONG; }
redis_password() { cat "$AUTH/redis.password"; }
# Redis as the pipeline's state store sees it: ACL user and password in the URL.
redis_url() { echo "redis://$REDIS_USER:$(redis_password)@127.0.0.1:$REDIS_PORT/"; }

# A killed service stays a zombie until reaped (its parent, this script, is gone; PID 1 of a
# container may never reap it): `kill -0` would call it alive, and a crashed host would never be
# started again.
alive() { local st; st=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $st != Z* ]]; }
running() { [[ -f "$PIDS/$1.pid" ]] && alive "$(cat "$PIDS/$1.pid")"; }

start() { # name cmd...
    local name=$1
    shift
    if running "$name"; then
        log "$name already running (pid $(cat "$PIDS/$name.pid"))"
        return 0
    fi
    # setsid: its own process group, so Ctrl-C in `make run` is handled by us, not by the service.
    setsid "$@" >"$LOGS/$name.log" 2>&1 </dev/null &
    echo $! >"$PIDS/$name.pid"
    log "$name started (pid $!)"
}

# Stops a service by PID, then its process group.
stop() { # name [grace seconds]
    local name=$1 grace=${2:-10} pid i
    [[ -f "$PIDS/$name.pid" ]] || return 0
    pid=$(cat "$PIDS/$name.pid")
    if alive "$pid"; then
        kill -TERM "$pid" 2>/dev/null || true
        for ((i = 0; i < grace * 10; i++)); do
            alive "$pid" || break
            sleep 0.1
        done
        if alive "$pid"; then
            log "$name (pid $pid) ignored SIGTERM for ${grace}s, killing"
            kill -KILL "$pid" 2>/dev/null || true
        fi
        log "$name stopped (pid $pid)"
    fi
    # setsid made the service a process-group leader: what it left behind (a host's providers)
    # goes too.
    kill -KILL -- "-$pid" 2>/dev/null || true
    rm -f "$PIDS/$name.pid"
}

# Credentials of this lattice, created once per state dir: the NATS authority with a user per
# lattice part (host, wadm, operator, policy) and the Redis ACL user's password.
auth_init() {
    mkdir -p "$AUTH"
    chmod 700 "$AUTH"
    "$CITS_TOOL" auth init --dir "$AUTH" --lattice "$LATTICE" 2>>"$LOGS/auth.log"
    secret "$AUTH/redis.password"
    secret "$AUTH/redis-dashboard.password"
    # The operator's login on the dashboard page (changes to the application).
    secret "$AUTH/dashboard.password"
    # The default user is off: every Redis client must log in as the pipeline's user (or, only
    # reading the state the dashboard shows, as the dashboard's). It keeps all permissions all the
    # same: Redis 7.0 replays the AOF as the default user and re-checks each EXEC against it, so
    # without them every MULTI … EXEC (the stages' state commits) is dropped when a restarted
    # Redis loads its AOF (redis/redis#14541, fixed only in later Redis).
    (umask 077 && {
        printf 'user default off ~* &* +@all\nuser %s on >%s ~* &* +@all\n' "$REDIS_USER" "$(redis_password)"
        printf 'user %s on >%s ~trajectories:* ~paths:* ~warnings:* ~turn-priors:* resetchannels -@all +get +mget +scan +ping\n' \
            "$REDIS_DASHBOARD_USER" "$(cat "$AUTH/redis-dashboard.password")"
    } >"$AUTH/redis.acl")
}

# A random password in `file`, made once.
secret() {
    if [[ ! -s "$1" ]]; then
        (umask 077 && head -c 32 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' >"$1")
    fi
}

up() {
    mkdir -p "$PIDS" "$LOGS" "$STATE/jetstream" "$STATE/redis" "$STATE/wash/contexts"
    auth_init
    cat >"$STATE/nats.conf" <<EOF
server_name: cits-$NATS_PORT
listen: 127.0.0.1:$NATS_PORT
http: 127.0.0.1:$NATS_HTTP_PORT
max_payload: 8MB
jetstream {
  store_dir: "$STATE/jetstream"
  # Quoted: unquoted, "2m" is read as the number 2,000,000 (seconds), with only a warning.
  sync_interval: "$NATS_SYNC"
}
# RSUs speak MQTT: topic cits/cpm/<rsu> arrives on subject cits.cpm.<rsu>.
mqtt {
  listen: 127.0.0.1:$MQTT_PORT
}
# Operator mode: only users signed by this lattice's account connect (no anonymous access);
# what each may touch is in its JWT (crates/cits-nats-auth). Reloaded after an RSU's revocation.
include "auth/resolver.conf"
EOF
    nats_up
    secrets_up

    # The pipeline's streams (stage inputs partitioned by RSU, outboxes, dead letters).
    # 256 MiB each by default: the server reserves that much disk per stream up front, and a
    # development lattice should not need 10 GiB free (STREAM_MAX_BYTES for a long soak).
    "$CITS_TOOL" streams --nats "127.0.0.1:$NATS_PORT" --max-bytes "${STREAM_MAX_BYTES:-268435456}" >"$LOGS/streams.log"

    # Street geometry for map matcher and predictor: blobstore-fs container cits-map.
    "$CITS_TOOL" map --osm "$REPO/data/map/weiser-gabelsberger.osm" --blobstore-root "$STATE/blobstore"

    redis_up

    start wadm env WADM_NATS_SERVER="127.0.0.1:$NATS_PORT" WADM_NATS_CREDS_FILE="$AUTH/users/wadm.creds" \
        RUST_LOG="${WADM_LOG:-info}" "$WADM_BIN"

    policy_up

    local i
    for ((i = 1; i <= HOSTS; i++)); do
        host_up "$i"
    done
    wait_ready host-1 60 hosts_joined "$HOSTS"

    # Where this lattice's Redis and blobstore folder are: named configs the manifests refer to
    # (no port or path in them), like the RSU registry below.
    "$WASH" config put "$LATTICE_REDIS_CONFIG" "url=redis://$REDIS_USER@127.0.0.1:$REDIS_PORT/" >>"$LOGS/config.log"
    "$WASH" config put "$LATTICE_BLOBSTORE_CONFIG" "ROOT=$STATE/blobstore" >>"$LOGS/config.log"

    # RSUs of the recordings (and the probe's), before deploy: the decoder's registry must exist.
    # `cits probe` sends as RSU probe from a station of its own (PROBE_STATION_ID in demo.rs).
    rsu_add probe 4000000000
    local rsu
    for rsu in $RSUS; do
        rsu_add "$rsu" "$RSU_STATION"
    done
    log "lattice up: NATS :$NATS_PORT (MQTT :$MQTT_PORT), Redis :$REDIS_PORT, wadm, $HOSTS host(s) (state $STATE)"
}

# The signature policy: hosts ask it before starting anything; only components and providers
# signed with the project's account key (wash's user_account.nk in $WASH_KEYS) are permitted.
policy_up() {
    local issuer
    issuer=$("$CITS_POLICY" public-key "$WASH_KEYS/user_account.nk")
    start policy "$CITS_POLICY" serve --nats "127.0.0.1:$NATS_PORT" --creds "$AUTH/users/policy.creds" \
        --topic "$POLICY_TOPIC" --allow-issuer "$issuer"
    wait_ready policy 20 grep -q "policy service ready" "$LOGS/policy.log"
}

# The secrets backend (secrets-nats-kv, its own NATS user): hosts resolve a manifest's secret
# references there (WASMCLOUD_SECRETS_TOPIC) and hand the values over sealed for the component or
# provider. It keeps secrets sealed with its encryption key in a JetStream KV bucket. The Redis
# password goes there, readable by the key-value provider's signing key alone.
secrets_up() {
    (
        # Seeds and the password in the environment, never on a command line (ps shows those).
        export TRANSIT_XKEY_SEED ENCRYPTION_XKEY_SEED RUST_LOG="${SECRETS_LOG:-warn}"
        TRANSIT_XKEY_SEED="$(cat "$AUTH/secrets/transit.xk")"
        ENCRYPTION_XKEY_SEED="$(cat "$AUTH/secrets/encryption.xk")"
        start secrets "$SECRETS_NATS_KV" run --subject-base "$SECRETS_TOPIC" \
            --nats-address "127.0.0.1:$NATS_PORT" --nats-creds-file "$AUTH/users/secrets.creds"
        unset ENCRYPTION_XKEY_SEED
        "$CITS_TOOL" manifest secrets-ready --nats "127.0.0.1:$NATS_PORT" --auth "$AUTH"
        export SECRET_STRING_VALUE NATS_CREDSFILE="$AUTH/users/operator.creds"
        SECRET_STRING_VALUE="$(redis_password)"
        "$SECRETS_NATS_KV" put "$REDIS_PASSWORD_SECRET" --subject-base "$SECRETS_TOPIC" \
            --nats-address "127.0.0.1:$NATS_PORT" >>"$LOGS/secrets-admin.log"
        "$SECRETS_NATS_KV" add-mapping "$("$CITS_POLICY" public-key "$WASH_KEYS/keyvalue-redis-provider_service.nk")" \
            --secret "$REDIS_PASSWORD_SECRET" --subject-base "$SECRETS_TOPIC" \
            --nats-address "127.0.0.1:$NATS_PORT" >>"$LOGS/secrets-admin.log"
    )
}

rsu_add() { # rsu station
    "$CITS_TOOL" rsu add "$1" --station "$2" --nats "127.0.0.1:$NATS_PORT" --lattice "$LATTICE" >>"$LOGS/rsus.log"
}

rsu_remove() { # rsu
    "$CITS_TOOL" rsu remove "$1" --nats "127.0.0.1:$NATS_PORT" --lattice "$LATTICE" >>"$LOGS/rsus.log"
}

nats_up() {
    start nats "$NATS_SERVER" -c "$STATE/nats.conf"
    wait_ready nats 20 nats_ready
}

# AOF, fsync before every reply: a killed Redis, or an OS crash, loses nothing it acknowledged.
# Not `everysec`: while its background fsync runs Redis postpones even the write to the file (up
# to 2 s) but still replies, so a `kill -9` lost acknowledged state commits (seen in `make chaos`:
# DENM sequence numbers given twice). Costs ~0.1 ms per commit here.
redis_up() {
    start redis "$REDIS_SERVER" --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$STATE/redis" \
        --save '' --appendonly yes --appendfsync always --protected-mode yes --aclfile "$AUTH/redis.acl"
    wait_ready redis 20 redis_ready
}

# Fault injection: kill -9 a server and start it again on the same state.
crash_restart() { # nats|redis
    kill -KILL "$(cat "$PIDS/$1.pid")" 2>/dev/null || true
    while running "$1"; do sleep 0.05; done
    rm -f "$PIDS/$1.pid"
    "$1_up"
}

# Starts wasmCloud host number $1 (labels site=cits-local, host=host-$1).
host_up() {
    local n=$1
    mkdir -p "$STATE/host-tmp/$n"
    # The host caches fetched artefacts and unpacked providers under TMPDIR: keep them in STATE.
    # Compiled components (shared by the hosts of this machine) too: a restarted host, or a
    # redeployed component, skips Cranelift. COMPILATION_CACHE= (empty) compiles every time.
    start "host-$n" env TMPDIR="$STATE/host-tmp/$n" \
        ${COMPILATION_CACHE:+WASMCLOUD_COMPILATION_CACHE_DIR="$COMPILATION_CACHE"} \
        WASMCLOUD_TIERED_COMPILATION="$TIERED_COMPILATION" \
        WASMCLOUD_NATS_HOST=127.0.0.1 WASMCLOUD_NATS_PORT="$NATS_PORT" \
        WASMCLOUD_LATTICE="$LATTICE" WASMCLOUD_ALLOW_FILE_LOAD=true \
        WASMCLOUD_NATS_CREDS="$AUTH/users/host.creds" WASMCLOUD_POLICY_TOPIC="$POLICY_TOPIC" \
        WASMCLOUD_SECRETS_TOPIC="$SECRETS_TOPIC" \
        WASMCLOUD_LOG_LEVEL="${WASMCLOUD_LOG_LEVEL:-info}" \
        WASMCLOUD_MAX_EXECUTION_TIME_MS="$HOST_EXECUTION_LIMIT_MS" \
        WASMCLOUD_LABEL_site=cits-local WASMCLOUD_LABEL_host="host-$n" \
        "$WASMCLOUD_HOST_BIN"
}

hosts_joined() { # count
    [[ $("$WASH" get hosts -o json 2>/dev/null | grep -o '"id": *"N[A-Z0-9]*"' | sort -u | wc -l) -ge $1 ]]
}

# The manifest as this lattice deploys it: the committed file (it names no port, path or
# password), unless a replay faster than real time (MAX_AGE_MS) or one recording as many
# intersections (CAMERA_STATIONS: RSU_STATION's cameras copied for each) changes it.
deployable() { # manifest [out] → prints the file to put
    local args=() out=${2:-$STATE/$(basename "$1")}
    [[ -n "$MAX_AGE_MS" ]] && args+=(--max-age-ms "$MAX_AGE_MS")
    [[ -n "$CAMERA_STATIONS" ]] && args+=(--camera-source "$RSU_STATION" --camera-stations "${CAMERA_STATIONS// /,}")
    if ((${#args[@]} == 0)) && [[ -z "${2:-}" ]]; then
        echo "$1"
        return
    fi
    "$CITS_TOOL" manifest render "$1" --out "$out" "${args[@]}"
    echo "$out"
}

deploy() {
    local version m i deployed= manifests=()
    version="$(sed -n 's/^ *version: *//p' "$MANIFEST" | head -1)"
    # Every deployment of the application (seven actors / fused) is stored as a version of it, so
    # an operator can switch with `wash app deploy APP VERSION` or from the dashboard; the chosen
    # one is then deployed by its version (a version stored before is deployed as it was stored).
    manifests+=("$(deployable "$MANIFEST")")
    for m in "$REPO"/wadm/cits-pipeline*.yaml; do
        [[ "$m" -ef "$MANIFEST" ]] || manifests+=("$(deployable "$m")")
    done
    for ((i = 0; i < 50; i++)); do # wadm may still be creating its streams
        : >"$LOGS/deploy.log"
        for m in "${manifests[@]}"; do
            # wadm takes a stored version again if it is identical (tools/patches/wadm.sh).
            "$WASH" app put "$m" >>"$LOGS/deploy.log" 2>&1 || true
        done
        # When the deploy itself was asked for (µs), for `make bench`'s deploy → first DENM: the
        # versions stored above are an operator's earlier step, not part of deploying one.
        echo $(($(date +%s%N) / 1000)) >"$STATE/deploy-requested-us"
        if "$WASH" app deploy "$APP" "$version" >>"$LOGS/deploy.log" 2>&1; then
            deployed=1
            break
        fi
        grep -q "Invalid request" "$LOGS/deploy.log" && break # the manifest itself is wrong
        sleep 0.2
    done
    if [[ -z "$deployed" ]]; then
        log "wash app deploy failed:"
        grep -v '^ \+[0-9]*:\|^ \+at \|^Stack backtrace' "$LOGS/deploy.log" >&2
        return 1
    fi
    local list
    for ((i = 0; i < 300; i++)); do
        # The application's own status (scalers have nested status objects), of this version.
        list="$("$WASH" app list -o json 2>/dev/null || true)"
        if grep -q '"status": "deployed"' <<<"$list" && grep -q "\"deployed_version\": \"$version\"" <<<"$list"; then
            log "$APP deployed"
            return 0
        fi
        sleep 0.2
    done
    log "$APP not deployed within 60 s"
    "$WASH" app status "$APP" >&2 || true
    return 1
}

# Undeploys the application and waits until its components and providers are gone.
undeploy() {
    local i
    "$WASH" app undeploy "$APP" >"$LOGS/undeploy.log" 2>&1 || true
    for ((i = 0; i < 300; i++)); do
        if ! "$WASH" get inventory -o json 2>/dev/null | grep -q '"id": "cits-'; then
            log "$APP undeployed"
            return 0
        fi
        sleep 0.2
    done
    log "$APP still has components or providers running after 60 s"
    return 1
}

# Sends a probe CPM through all stages and waits for its FrameDone. The first probe may meet
# providers still catching up on links (cits-provider: a link the host announced before the
# provider listened is applied within seconds), so it is tried a few times; nothing is restarted.
probe() {
    local attempt
    for attempt in 1 2 3 4 5 6; do
        if "$CITS_TOOL" probe --nats "127.0.0.1:$NATS_PORT" --timeout-ms 5000; then
            return 0
        fi
        log "pipeline not flowing yet (attempt $attempt)"
    done
    log "pipeline is not flowing after 30 s; see $LOGS/host-*.log"
    return 1
}

# Stops the hosts (with their providers) and wadm, leaving NATS and Redis up (the native baseline
# of `make bench` runs on them alone).
host_down() {
    local f
    for f in "$PIDS"/host-*.pid; do
        [[ -e "$f" ]] && stop "$(basename "$f" .pid)" 15
    done
    stop wadm
}

# The native baseline of `make bench`: the same crates as plain processes on the same subjects,
# Redis and map (`cits stage`). `native-up [seven|fused] [core|durable]`: seven stage processes
# with settings from the seven-actor manifest, or the fused chain as one process with the fused
# manifest's; input from core NATS subscriptions, or durable through each stage's own JetStream
# consumers as the messaging provider delivers to a component (`cits stage --durable`).
NATIVE_STAGES=(decoder collector assembler map_matcher predictor collision_detector denm_sender)
native_up() { # [seven|fused] [core|durable]
    local shape=${1:-seven} input=${2:-core} s stages manifest="$STATE/native-cits-pipeline.yaml" source
    case "$shape" in
    seven) stages=("${NATIVE_STAGES[@]}") source="$REPO/wadm/cits-pipeline.yaml" ;;
    fused) stages=(pipeline) source="$REPO/wadm/cits-pipeline-fused.yaml" ;;
    *) die "native-up: shape $shape is not seven or fused" ;;
    esac
    [[ "$input" == core || "$input" == durable ]] || die "native-up: input $input is not core or durable"
    deployable "$source" "$manifest" >/dev/null
    for s in "${stages[@]}"; do
        start "native-$s" "$CITS_TOOL" stage "$s" --nats "127.0.0.1:$NATS_PORT" \
            --redis "$(redis_url)" --blobstore-root "$STATE/blobstore" \
            --manifest "$manifest" ${MAX_AGE_MS:+--set "limits.max_age_ms=$MAX_AGE_MS"} \
            $([[ "$input" == durable ]] && echo --durable)
    done
}

native_down() {
    local s
    for s in "${NATIVE_STAGES[@]}" pipeline; do
        stop "native-$s"
    done
}

# The web dashboard (dashboard/README.md) as its own NATS and Redis users; changes need the
# operator's password ($AUTH/dashboard.password).
dashboard_up() {
    local bin="${CITS_DASHBOARD:?set CITS_DASHBOARD (make build builds it)}"
    start dashboard env CITS_DASHBOARD_REDIS="redis://$REDIS_DASHBOARD_USER:$(cat "$AUTH/redis-dashboard.password")@127.0.0.1:$REDIS_PORT/" \
        "$bin" --listen "127.0.0.1:$DASHBOARD_PORT" --nats "127.0.0.1:$NATS_PORT" --lattice "$LATTICE" --app "$APP" \
        --creds "$AUTH/users/dashboard.creds" --admin-creds "$AUTH/users/dashboard-operator.creds" \
        --password-file "$AUTH/dashboard.password" --lane-graph "$STATE/blobstore/cits-map/lane-graph.pb" \
        --web "$REPO/dashboard/web" --vendor "$REPO/dashboard/node_modules"
    wait_ready dashboard 30 grep -q "dashboard ready" "$LOGS/dashboard.log"
    log "dashboard: http://127.0.0.1:$DASHBOARD_PORT/ (operator password: $AUTH/dashboard.password)"
}

down() {
    stop dashboard
    host_down
    native_down
    stop policy
    stop redis
    stop secrets
    stop nats # last: JetStream (wadm state) must outlive its users
}

status() {
    local s
    for s in nats secrets redis wadm policy dashboard $(cd "$PIDS" 2>/dev/null && ls host-*.pid 2>/dev/null | sed 's/.pid$//'); do
        if running "$s"; then echo "$s: running (pid $(cat "$PIDS/$s.pid"))"; else echo "$s: stopped"; fi
    done
}

case "${1:-}" in
up) up ;;
deploy) deploy ;;
undeploy) undeploy ;;
probe) probe ;;
down) down ;;
host-down) host_down ;;
host-up) host_up "${2:?host number}" ;;
crash-restart) crash_restart "${2:?nats or redis}" ;;
rsu-add) rsu_add "${2:?rsu}" "${3:-$RSU_STATION}" ;;
rsu-remove) rsu_remove "${2:?rsu}" ;;
redis-url) redis_url ;;
dashboard-up) dashboard_up ;;
dashboard-down) stop dashboard ;;
native-up) native_up "${@:2}" ;;
native-down) native_down ;;
status) status ;;
*)
    echo "usage: $0 up|deploy|undeploy|probe|down|host-down|host-up N|native-up [seven|fused] [core|durable]|native-down|status|rsu-add RSU [STATION]|rsu-remove RSU|redis-url|dashboard-up|dashboard-down" >&2
    exit 2
    ;;
esac

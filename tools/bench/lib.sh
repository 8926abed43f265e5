# Shared by run.sh (`make bench`) and profile.sh (`make profile`): where the recording, the
# lattice's state and its ports are, and how RSUs are registered. Sourced after REPO and
# CITS_TOOL are set.

RECORDING="${RECORDING:-$REPO/data/default.rec.b64}"
STATE="${CITS_STATE:-$REPO/.state}"
# The recording's station (`cits lattice` registers RSUs with it); RSU k of N sends as STATION+k-1.
STATION="${RSU_STATION:-1001}"
NATS="127.0.0.1:${NATS_PORT:-4222}"
MQTT="127.0.0.1:${MQTT_PORT:-1883}"
# The lattice's supervisor (crates/cits-ops/src/lattice), on this clone's manifests and map; the
# tools act as the lattice's operator, replays as registered RSUs (`cits lattice`, auth).
export CITS_REPO="$REPO" CITS_AUTH="$STATE/auth"
LATTICE=("$CITS_TOOL" lattice)

# No lattice left from before, its state removed, and this one taken down on exit.
fresh_lattice() {
    "${LATTICE[@]}" down >/dev/null 2>&1 || true
    rm -rf "$STATE"
    trap '"${LATTICE[@]}" down >/dev/null 2>&1 || true' EXIT
}

# Stations STATION+1 .. STATION+n-1 get the recording's cameras (set before `lattice up`), so N
# RSUs each sending as a station of its own see what the recording's station sees.
cameras_for() {
    if (($1 > 1)); then
        CAMERA_STATIONS="$(seq -s , $((STATION + 1)) $((STATION + $1 - 1)))"
        export CAMERA_STATIONS
    fi
}

# Registers RSUs <prefix>-1 .. <prefix>-n (while a host is up: the registry is lattice config),
# RSU k sending as station STATION+k-1.
add_rsus() {
    local prefix=$1 n=$2 k
    for ((k = 1; k <= n; k++)); do
        "${LATTICE[@]}" rsu-add "$prefix-$k" $((STATION + k - 1))
    done
}

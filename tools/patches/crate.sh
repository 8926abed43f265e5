# Sourced by the patch scripts.

# begin_patch NAME VERSION SHA256 DEST: ends the script at once when DEST holds the patched copy
# already; otherwise unpacks the release into $work/NAME-VERSION ($work: a temporary directory,
# removed when the script exits) for the script to patch and `install_crate`.
begin_patch() {
    [[ -f "$4/.cits-patched" ]] && exit 0
    work=$(mktemp -d)
    trap "rm -rf '$work'" EXIT
    unpack_crate "$1" "$2" "$3" "$work"
}

# unpack_crate NAME VERSION SHA256 DIR unpacks the crates.io release
# NAME-VERSION (Cargo's download cache if it has the file, else crates.io), checksum-verified,
# into DIR/NAME-VERSION.
unpack_crate() {
    local name=$1 version=$2 sha256=$3 dir=$4
    local crate="$name-$version.crate" cached
    cached=$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/"$crate" 2>/dev/null | head -1 || true)
    if [[ -n "$cached" ]]; then
        cp "$cached" "$dir/$crate"
    else
        curl -fsSL --retry 3 -o "$dir/$crate" "https://static.crates.io/crates/$name/$crate"
    fi
    echo "$sha256  $dir/$crate" | sha256sum -c --quiet -
    tar -xzf "$dir/$crate" -C "$dir"
}

# install_crate DIR/NAME-VERSION DEST: the patched copy in place, marked done.
install_crate() {
    rm -rf "$2"
    mkdir -p "$(dirname "$2")"
    mv "$1" "$2"
    # Every file dated as in the crates.io archive (2006-07-24, Cargo's fixed date): Cargo rebuilds a
    # path dependency whose sources are newer than its cached build, so patched files dated at setup
    # would rebuild these crates (c-its-parser: minutes per profile) in every fresh clone.
    find "$2" -exec touch -h -d @1153704088 {} +
    touch "$2/.cits-patched"
    echo "patched $(basename "$1") → $2"
    forget_stale_build "$(basename "$1")"
}

# forget_stale_build NAME-VERSION: with the fixed date, Cargo never sees that a patch changed, and
# would keep the build of the previous patch. So each patch's checksum (this script and the
# patch script) is kept beside the build output ($CARGO_TARGET_DIR/.cits-patches/<crate>), and
# when it differs, the crate's build output is removed from every profile it is built in.
forget_stale_build() {
    local target=${CARGO_TARGET_DIR:-} crate=${1%-*} sum stamp
    [[ -n "$target" ]] || return 0
    sum=$(cat "$0" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)
    stamp="$target/.cits-patches/$1"
    if [[ -d "$target" && -f "$stamp" && "$(cat "$stamp")" != "$sum" ]]; then
        echo "the patch of $1 changed: its earlier builds are removed"
        for profile in dev platform release; do
            cargo clean --quiet -p "$crate" --profile "$profile" 2>/dev/null || true
            cargo clean --quiet -p "$crate" --profile "$profile" --target wasm32-wasip2 2>/dev/null || true
        done
    fi
    mkdir -p "$(dirname "$stamp")"
    echo "$sum" >"$stamp"
}

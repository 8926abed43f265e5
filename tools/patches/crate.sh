# Sourced by the patch scripts: unpack_crate NAME VERSION SHA256 DIR unpacks the crates.io release
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
    touch "$2/.cits-patched"
    echo "patched $(basename "$1") → $2"
}

#!/usr/bin/env bash
# Builds the copy of geonetworking 0.4.2 (the GeoNetworking/BTP framing c-its-parser and
# crates/etsi-its read) that Cargo.toml's [patch.crates-io] points at: the crates.io release
# (checksum-verified) with one change.
#
# Its decoder reads a long position vector's speed, a 15-bit two's-complement field (EN 302 636-4-1
# 9.5.2: units of 0.01 m/s, negative when reversing), as `i15::from_i16(raw & 0x7FFF)`: a speed
# with its sign bit set (any negative speed) is out of i15's range and the constructor panics, so
# one such packet from the air would trap the decoder component. Found by our `formats` fuzz
# target. The field is sign-extended from 15 bits instead, which is also what its encoder writes.
#
#   tools/patches/geonetworking.sh <destination dir>
set -euo pipefail

VERSION=0.4.2
SHA256=22055a56d58a201e0cd4748b18171705978f8681ccf9b223d82eaed67254ce39
dest=$1

source "$(dirname "$0")/crate.sh"
begin_patch geonetworking "$VERSION" "$SHA256" "$dest"

python3 - "$work/geonetworking-$VERSION" <<'PY'
import pathlib, sys
decode = pathlib.Path(sys.argv[1]) / "src/decode.rs"
src = decode.read_text()
old = "let speed = i15::from_i16(speed_i16 & 0x7FFF);"
new = "let speed = i15::from_i16((speed_i16 << 1) >> 1); // cits patch: sign-extend 15 bits"
if src.count(old) != 1:
    sys.exit(f"geonetworking patch: expected one speed decode, found {src.count(old)}")
decode.write_text(src.replace(old, new))
PY

install_crate "$work/geonetworking-$VERSION" "$dest"

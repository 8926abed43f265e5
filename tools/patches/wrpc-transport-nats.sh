#!/usr/bin/env bash
# Builds the copy of wrpc-transport-nats 0.29.0 that Cargo.toml's [patch.crates-io] points at:
# the crates.io release (checksum-verified) with one fix, so a wRPC message is never dropped.
#
# Why: the transport routes every reply through one demultiplexing task that waits on two
# things, "subscribe to this reply subject" commands and incoming messages, with an unbiased
# select. A caller registers the reply subject before it sends the request, but under CPU load
# the task can see both at once and route the reply first: "drop message with no subscriber",
# and the call hangs until the host cancels it at its execution limit (the 2 s stalls of
# `make bench`; each such drop in a host log is followed by "component invocation timed out"
# exactly 2 s later). Upstream fixed it in 0.31.0 (bytecodealliance/wrpc#1272), which needs
# async-nats 0.49; wasmcloud-host 0.27.1 (the newest) requires 0.29. The fix here is the same:
# commands first, biased.
#
#   tools/patches/wrpc-transport-nats.sh <destination dir>
set -euo pipefail

VERSION=0.29.0
SHA256=19310c1e0d7f2b8cc25bc700d3c4ab6b58c97cfe70fa490013a6a2d18de8a0a8
dest=$1

[[ -f "$dest/.cits-patched" ]] && exit 0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/crate.sh"
unpack_crate wrpc-transport-nats "$VERSION" "$SHA256" "$work"

python3 - "$work/wrpc-transport-nats-$VERSION/src/lib.rs" <<'PY'
import re, sys
path = sys.argv[1]
src = open(path).read()
# The demultiplexing loop: message branch first, command branch second, unbiased.
pattern = re.compile(
    r"select! \{\n(\s*)(Some\(msg\) = sub\.next\(\) => [^\n]*\n)\s*(Some\(cmd\) = cmd_rx\.recv\(\) => [^\n]*\n)")
found = pattern.findall(src)
if len(found) != 1:
    sys.exit(f"wrpc-transport-nats patch: expected one demultiplexing select, found {len(found)}")
src = pattern.sub(lambda m: "select! {\n" + m.group(1) + "biased;\n" + m.group(1) + m.group(3) + m.group(1) + m.group(2), src)
open(path, "w").write(src)
PY

install_crate "$work/wrpc-transport-nats-$VERSION" "$dest"

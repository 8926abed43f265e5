#!/usr/bin/env bash
# Builds the copy of wasmcloud-runtime 0.12.0 that Cargo.toml's [patch.crates-io] points at: the
# crates.io release (checksum-verified) with one addition, a compilation cache on disk.
#
# Why: a host compiles every component it starts with Cranelift, ~0.2 s per 200 KB of Wasm on two
# cores, one component after the other; the seven-actor deployment spends ~1.8 s of its ~3 s from
# deploy to first DENM compiling. The runtime links wasmtime with its `cache` feature but never
# turns the cache on, and offers no way to. The addition: `set_compilation_cache(dir)`, called by
# our host launcher before it builds the host (WASMCLOUD_COMPILATION_CACHE_DIR), makes every
# engine the runtime builds keep compiled code in that directory, keyed by a SHA-256 of the Wasm
# and the engine's settings: a host that restarts, or deploys a component it compiled before,
# loads the machine code instead of compiling again. Cached code is native code the host runs
# unchecked, so the launcher only accepts a directory no one else can write to.
#
#   tools/patches/wasmcloud-runtime.sh <destination dir>
set -euo pipefail

VERSION=0.12.0
SHA256=f09f94956e3725b8fbf7539cec5523f694943ea4b9e88eba6945c6ce047e83b9
dest=$1

source "$(dirname "$0")/crate.sh"
begin_patch wasmcloud-runtime "$VERSION" "$SHA256" "$dest"

python3 - "$work/wasmcloud-runtime-$VERSION/src/runtime.rs" <<'PY'
import sys
path = sys.argv[1]
src = open(path).read()
anchor = "        engine_config.wasm_component_model(true);\n"
if src.count(anchor) != 1:
    sys.exit(f"wasmcloud-runtime patch: expected one engine configuration, found {src.count(anchor)}")
src = src.replace(anchor, anchor + """\
        // cits patch (tools/patches/wasmcloud-runtime.sh): compiled code cached on disk.
        if let Some(dir) = COMPILATION_CACHE.get() {
            let mut cache = wasmtime::CacheConfig::new();
            cache.with_directory(dir);
            match wasmtime::Cache::new(cache) {
                Ok(cache) => {
                    engine_config.cache(Some(cache));
                }
                Err(err) => tracing::warn!(?err, ?dir, "compilation cache off"),
            }
        }
""")
src += """
// cits patch (tools/patches/wasmcloud-runtime.sh).
static COMPILATION_CACHE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

/// Keep compiled components in `dir` (wasmtime's cache) in every runtime built after this call.
/// Returns false if a directory was set before.
pub fn set_compilation_cache(dir: std::path::PathBuf) -> bool {
    COMPILATION_CACHE.set(dir).is_ok()
}
"""
open(path, "w").write(src)
PY

install_crate "$work/wasmcloud-runtime-$VERSION" "$dest"

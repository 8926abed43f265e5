#!/usr/bin/env bash
# Builds the copy of wasmcloud-runtime 0.12.0 that Cargo.toml's [patch.crates-io] points at: the
# crates.io release (checksum-verified) with two additions, both in wasmcloud-runtime/tiered.rs.
#
# Why: a host compiles every component it starts with Cranelift, ~0.2 s per 200 KB of Wasm on two
# cores, one component after the other; the seven-actor deployment spent ~2 s of its ~3.3 s from
# deploy to first DENM compiling. The runtime offers neither a compilation cache nor another
# compiler.
# - A compilation cache on disk: `set_compilation_cache(dir)`, called by our host launcher before
#   it builds the host (WASMCLOUD_COMPILATION_CACHE_DIR), makes every engine the runtime builds keep
#   compiled code in that directory, keyed by a SHA-256 of the Wasm and the engine's settings: a
#   host that restarts, or deploys a component it compiled before, loads the machine code instead
#   of compiling again. Cached code is native code the host runs unchecked, so the launcher only
#   accepts a directory no one else can write to.
# - WASMCLOUD_PERF_MAP=1 in the host's environment: wasmtime writes /tmp/perf-<pid>.map, so
#   `perf` can name the JIT-compiled functions of the components it profiles.
# - Tiered compilation: `set_tiered_compilation(true)` (WASMCLOUD_TIERED_COMPILATION) starts a
#   component the cache does not hold on Winch's baseline code (~6x faster to compile) and swaps
#   in Cranelift's code, compiled in the background at low priority, for the invocations after.
#
#   tools/patches/wasmcloud-runtime.sh <destination dir>
set -euo pipefail

VERSION=0.12.0
SHA256=f09f94956e3725b8fbf7539cec5523f694943ea4b9e88eba6945c6ce047e83b9
dest=$1

source "$(dirname "$0")/crate.sh"
begin_patch wasmcloud-runtime "$VERSION" "$SHA256" "$dest"

here=$(cd "$(dirname "$0")" && pwd)
crate="$work/wasmcloud-runtime-$VERSION"
cp "$here/wasmcloud-runtime/tiered.rs" "$crate/src/tiered.rs"
python3 - "$crate" <<'PY'
import sys
crate = sys.argv[1]

def patch(rel, edits):
    path = f"{crate}/{rel}"
    src = open(path).read()
    for old, new, count in edits:
        if src.count(old) != count:
            sys.exit(f"wasmcloud-runtime patch: {rel}: expected {count} of {old!r}, found {src.count(old)}")
        src = src.replace(old, new)
    open(path, "w").write(src)

# Winch for the baseline engine; libc (thread priority), rayon (the background pool), sha2 (cache keys).
patch("Cargo.toml", [
    ('    "threads",\n]\n', '    "threads",\n    "winch",\n]\n', 1),
    ("[dependencies.wasmtime]\n", """[dependencies.libc]
version = "0.2"

[dependencies.rayon]
version = "1"

[dependencies.sha2]
version = "0.10"

[dependencies.wasmtime]
""", 1),
])
patch("src/lib.rs", [
    ("pub mod io;\n", "pub mod io;\n\nmod tiered;\npub use tiered::{set_compilation_cache, set_tiered_compilation};\n", 1),
])
# The runtime carries its baseline twin; WASMCLOUD_PERF_MAP=1 names the JIT code for `perf`.
patch("src/runtime.rs", [
    ("        engine_config.wasm_component_model(true);\n",
     """        engine_config.wasm_component_model(true);
        // cits patch: /tmp/perf-<pid>.map lists the compiled components' functions, so `perf
        // record -p <host>` shows where a component spends its time (off unless asked for).
        if std::env::var_os("WASMCLOUD_PERF_MAP").is_some() {
            engine_config.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
""", 1),
    ("    pub(crate) max_linear_memory: usize,\n}\n",
     "    pub(crate) max_linear_memory: usize,\n    pub(crate) baseline: Option<std::sync::Arc<Runtime>>,\n}\n", 1),
    ("                max_linear_memory: max_memory_limits,\n            },\n",
     "                max_linear_memory: max_memory_limits,\n                baseline: None,\n            }\n            .with_baseline()?,\n", 1),
])
# Components compile through the cache; their invocations run the current code.
patch("src/component/mod.rs", [
    ("        let component = wasmtime::component::Component::new(&engine, wasm)\n",
     "        let component = crate::tiered::compile(&engine, wasm)\n", 3),
    ("    instance_pre: wasmtime::component::InstancePre<Ctx<H>>,\n    host_resources:",
     "    instance_pre: wasmtime::component::InstancePre<Ctx<H>>,\n    current: crate::tiered::Current<Ctx<H>>,\n    host_resources:", 1),
    ("            engine,\n            claims,\n            instance_pre,\n",
     "            current: crate::tiered::Current::new(&engine, &instance_pre),\n            engine,\n            claims,\n            instance_pre,\n", 2),
    ("    pre: wasmtime::component::InstancePre<Ctx<H>>,\n    handler: H,\n",
     "    pre: wasmtime::component::InstancePre<Ctx<H>>,\n    current: crate::tiered::Current<Ctx<H>>,\n    handler: H,\n", 1),
    ("            pre: self.instance_pre.clone(),\n            handler,\n",
     "            pre: self.instance_pre.clone(),\n            current: self.current.clone(),\n            handler,\n", 1),
    ("            pre: self.pre.clone(),\n            handler: self.handler.clone(),\n",
     "            pre: self.pre.clone(),\n            current: self.current.clone(),\n            handler: self.handler.clone(),\n", 1),
    ("    pub fn new(rt: &Runtime, wasm: &[u8], limits: Option<Limits>) -> anyhow::Result<Self> {\n",
     """    pub fn new(rt: &Runtime, wasm: &[u8], limits: Option<Limits>) -> anyhow::Result<Self> {
        // cits patch: tiered compilation (tiered.rs).
        let Some(baseline) = rt.baseline_for(wasm) else {
            return Self::new_direct(rt, wasm, limits);
        };
        let component = Self::new_direct(baseline, wasm, limits)?;
        if !crate::tiered::swappable(&component.engine, component.instance_pre.component()) {
            return Self::new_direct(rt, wasm, limits);
        }
        let what = component.claims.as_ref().map_or_else(String::new, |claims| {
            claims.metadata.as_ref().and_then(|m| m.name.clone()).unwrap_or_else(|| claims.subject.clone())
        });
        tracing::info!(component = what, "started on baseline code, optimising in the background");
        let (rt, wasm, current) = (rt.clone(), wasm.to_vec(), component.current.clone());
        crate::tiered::in_background(what, move || {
            let optimised = Self::new_direct(&rt, &wasm, limits)?;
            current.replace(&optimised.engine, &optimised.instance_pre);
            Ok(())
        });
        Ok(component)
    }

    /// [`Component::new`] without tiers: compiled by `rt`'s engine (or loaded from the cache).
    fn new_direct(rt: &Runtime, wasm: &[u8], limits: Option<Limits>) -> anyhow::Result<Self> {
""", 1),
])
# The messaging handler takes engine and code together, as they are now.
patch("src/component/messaging/mod.rs", [
    ("        let mut store = new_store(&self.engine, self.handler.clone(), self.max_execution_time);\n",
     "        let (engine, pre) = self.current.get();\n        let mut store = new_store(&engine, self.handler.clone(), self.max_execution_time);\n", 1),
    ("::new(self.pre.clone())", "::new(pre.clone())", 3),
])
PY

install_crate "$work/wasmcloud-runtime-$VERSION" "$dest"

//! cits patch (tools/patches/wasmcloud-runtime.sh): compiled code kept on disk, and tiered
//! compilation.
//!
//! A component's first start costs its compilation: Cranelift needs ~1.2 s of two cores for the
//! seven stage components (2.1 MB of Wasm), and nothing runs before the last one is done. Winch,
//! wasmtime's baseline compiler, compiles the same in ~0.2 s into slower code. So a component
//! the disk cache does not hold starts on Winch's code, while Cranelift compiles it in the
//! background on low-priority threads (they yield to the work the component is doing); its code
//! replaces Winch's for every invocation that starts after, and goes to the cache, from which
//! the next start loads it directly.

use core::hash::{Hash as _, Hasher as _};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};

use anyhow::Context as _;
use sha2::Digest as _;
use tracing::{info, warn};
use wasmtime::component::{Component, InstancePre};
use wasmtime::{Engine, InstanceAllocationStrategy, Strategy};

use crate::Runtime;

static COMPILATION_CACHE: OnceLock<PathBuf> = OnceLock::new();
static TIERED: OnceLock<bool> = OnceLock::new();
/// The baseline engine's compatibility hash: its code is not worth keeping on disk.
static BASELINE: OnceLock<u64> = OnceLock::new();

/// Keep compiled components in `dir` (`<SHA-256 of the Wasm>-<engine settings>.cwasm`) in every
/// runtime built after this call.
/// Returns false if a directory was set before.
pub fn set_compilation_cache(dir: PathBuf) -> bool {
    COMPILATION_CACHE.set(dir).is_ok()
}

/// Start components the cache does not hold on baseline code (Winch) while Cranelift compiles
/// them in the background, in every runtime built after this call (default: off). Returns false
/// if it was set before.
pub fn set_tiered_compilation(on: bool) -> bool {
    TIERED.set(on).is_ok()
}

/// The engine's code for `wasm`: from the cache directory when it holds it, else compiled (and
/// put there). The baseline engine's code is compiled directly: it is never cached.
pub(crate) fn compile(engine: &Engine, wasm: &[u8]) -> anyhow::Result<Component> {
    let cached = (BASELINE.get() != Some(&compatibility(engine))).then(|| cache_path(engine, wasm)).flatten();
    let Some(path) = cached else {
        return Component::new(engine, wasm);
    };
    if path.exists() {
        // SAFETY: the file was written by `precompile_component` below for this engine's
        // settings (its name says which), into a directory the host launcher only accepts if
        // no one else can write to it.
        match unsafe { Component::deserialize_file(engine, &path) } {
            Ok(component) => return Ok(component),
            Err(err) => warn!(?err, path = %path.display(), "cached code unusable, compiling"),
        }
    }
    let code = engine.precompile_component(wasm)?;
    if let Err(err) = store(&path, &code) {
        warn!(?err, path = %path.display(), "compiled code not cached");
    }
    // SAFETY: `code` was compiled just now by this engine.
    unsafe { Component::deserialize(engine, &code) }
}

/// Whether the cache holds the engine's code for `wasm`.
pub(crate) fn cached(engine: &Engine, wasm: &[u8]) -> bool {
    cache_path(engine, wasm).is_some_and(|path| path.exists())
}

fn compatibility(engine: &Engine) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    hasher.finish()
}

/// `<dir>/<SHA-256 of the Wasm>-<engine settings>.cwasm`: code is only ever loaded by an engine
/// that would have compiled it the same.
fn cache_path(engine: &Engine, wasm: &[u8]) -> Option<PathBuf> {
    let dir = COMPILATION_CACHE.get()?;
    let digest = sha2::Sha256::digest(wasm);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    Some(dir.join(format!("{hex}-{:016x}.cwasm", compatibility(engine))))
}

/// Written whole or not at all: a temporary file renamed into place.
fn store(path: &Path, code: &[u8]) -> anyhow::Result<()> {
    let dir = path.parent().context("cache path without directory")?;
    let tmp = dir.join(format!(".{}.{}", std::process::id(), next_suffix()));
    let result = std::fs::File::create(&tmp)
        .and_then(|mut file| file.write_all(code).and_then(|()| file.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    Ok(result?)
}

fn next_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl Runtime {
    /// The runtime with its baseline twin (same settings, Winch), when tiered compilation is on.
    pub(crate) fn with_baseline(mut self) -> anyhow::Result<Self> {
        if !TIERED.get().copied().unwrap_or(false) {
            return Ok(self);
        }
        let mut config = self.engine_config.clone();
        config.strategy(Strategy::Winch);
        let engine = Engine::new(&config).or_else(|err| {
            warn!(%err, "baseline engine without pooling allocator");
            config.allocation_strategy(InstanceAllocationStrategy::OnDemand);
            Engine::new(&config)
        })?;
        let _ = BASELINE.set(compatibility(&engine));
        // Deadlines are counted in epochs, as for the main engine (runtime.rs).
        let weak = engine.weak();
        std::thread::spawn(move || loop {
            std::thread::sleep(core::time::Duration::from_secs(1));
            let Some(engine) = weak.upgrade() else { return };
            engine.increment_epoch();
        });
        let mut baseline = self.clone();
        baseline.engine = engine;
        baseline.engine_config = config;
        self.baseline = Some(Arc::new(baseline));
        Ok(self)
    }

    /// The baseline twin to start `wasm` on, if it should: tiered compilation on, a component
    /// (not a core module), and no optimised code in the cache.
    pub(crate) fn baseline_for(&self, wasm: &[u8]) -> Option<&Runtime> {
        let baseline = self.baseline.as_deref()?;
        (!wasmparser::Parser::is_core_wasm(wasm) && !cached(&self.engine, wasm)).then_some(baseline)
    }
}

/// The code a component's invocations run: baseline first, optimised once compiled. Each
/// invocation takes engine and pre-instantiation together, so a store never mixes the two.
pub(crate) struct Current<T: 'static>(Arc<RwLock<(Engine, InstancePre<T>)>>);

impl<T> Clone for Current<T> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<T> Current<T> {
    pub(crate) fn new(engine: &Engine, pre: &InstancePre<T>) -> Self {
        Self(Arc::new(RwLock::new((engine.clone(), pre.clone()))))
    }

    pub(crate) fn get(&self) -> (Engine, InstancePre<T>) {
        let current = self.0.read().unwrap_or_else(|poisoned| poisoned.into_inner());
        (current.0.clone(), current.1.clone())
    }

    pub(crate) fn replace(&self, engine: &Engine, pre: &InstancePre<T>) {
        let mut current = self.0.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        *current = (engine.clone(), pre.clone());
    }
}

/// Exports whose invocations go through [`Current`]; a component with any other export (served
/// from the pre-instantiation taken at start) keeps the code it started with, so it is compiled
/// by Cranelift directly.
pub(crate) fn swappable(engine: &Engine, component: &Component) -> bool {
    use wasmtime::component::types::ComponentItem;
    component.component_type().exports(engine).all(|(name, item)| match item {
        ComponentItem::ComponentInstance(_) => {
            matches!(name, "wasmcloud:messaging/handler@0.2.0" | "wasmcloud:messaging/incoming-handler@0.3.0")
        }
        ComponentItem::Type(_) | ComponentItem::Resource(_) => true,
        _ => false,
    })
}

/// Runs `compile` on a thread of the low-priority pool, logging how long it took.
pub(crate) fn in_background(what: String, compile: impl FnOnce() -> anyhow::Result<()> + Send + 'static) {
    let spawned = std::thread::Builder::new().name("cits-optimise".into()).spawn(move || {
        lower_priority();
        let started = std::time::Instant::now();
        let result = match pool() {
            Some(pool) => pool.install(compile),
            None => compile(),
        };
        match result {
            Ok(()) => info!(component = what, ms = started.elapsed().as_millis() as u64, "optimised code in use"),
            Err(err) => warn!(component = what, ?err, "optimised compilation failed, baseline code stays"),
        }
    });
    if let Err(err) = spawned {
        warn!(?err, "no thread for optimised compilation, baseline code stays");
    }
}

/// Cranelift's parallel compilation runs on rayon's current pool: this one's threads run at the
/// lowest priority, so the background compilation takes only CPU nothing else wants.
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("cits-optimise-{i}"))
            .start_handler(|_| lower_priority())
            .build()
            .map_err(|err| warn!(?err, "no low-priority pool, compiling on the background thread"))
            .ok()
    })
    .as_ref()
}

/// Nice 19 for the calling thread (on Linux, nice is per thread).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain system calls on the calling thread's id.
    unsafe {
        let tid = libc::gettid();
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 19);
    }
}

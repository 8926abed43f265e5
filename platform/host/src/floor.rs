//! `cits-wasm-floor [--engine E] COMPONENT FIXTURE [ROUNDS]`: runs the compute floor's Wasm build
//! (crates/cits-floor, a `wasi:cli` command) with FIXTURE's folder preopened read-only, and prints
//! what the component prints. The engine is this host's own by default — the wasmcloud-runtime
//! builder with the launcher's defaults (pooling allocator, epoch interruption, Cranelift) — or
//! wasmtime's defaults with or without epoch interruption, to tell apart what Wasm costs and what
//! the host's execution limit costs. The same fixture through the native build of cits-floor
//! gives the ratio to native (`make floor`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context as _};
use clap::{Parser, ValueEnum};
use wasmtime::component::{Component, Linker, ResourceTable};
use wasmtime::{Engine, Store};
use wasmtime_wasi::p2::bindings::Command;
use wasmtime_wasi::{DirPerms, FilePerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

/// The launcher's defaults (src/main.rs): 64 MiB of linear memory, 10 minutes per invocation.
const MAX_LINEAR_MEMORY: u32 = 64 * 1024 * 1024;
const MAX_EXECUTION_TIME: Duration = Duration::from_secs(600);

#[derive(Clone, Copy, ValueEnum)]
enum EngineKind {
    /// The engine the host runs components on.
    Host,
    /// wasmtime's defaults (no execution limit).
    Wasmtime,
    /// wasmtime's defaults with epoch interruption, the host's execution limit.
    WasmtimeEpochs,
}

#[derive(Parser)]
struct Args {
    #[arg(long, value_enum, default_value = "host")]
    engine: EngineKind,
    component: PathBuf,
    fixture: PathBuf,
    /// Passes over the fixture (cits-floor's default when absent).
    rounds: Option<usize>,
}

struct Guest {
    ctx: WasiCtx,
    table: ResourceTable,
}

impl WasiView for Guest {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.ctx, table: &mut self.table }
    }
}

fn engine(kind: EngineKind) -> anyhow::Result<(Engine, Option<wasmcloud_runtime::Runtime>)> {
    let plain = |epochs: bool| {
        let mut config = wasmtime::Config::new();
        config.async_support(true).epoch_interruption(epochs);
        Engine::new(&config)
    };
    Ok(match kind {
        EngineKind::Host => {
            let (runtime, _epoch) = wasmcloud_runtime::Runtime::builder()
                .max_linear_memory(MAX_LINEAR_MEMORY)
                .max_execution_time(MAX_EXECUTION_TIME)
                .build()?;
            (runtime.engine().clone(), Some(runtime))
        }
        EngineKind::Wasmtime => (plain(false)?, None),
        EngineKind::WasmtimeEpochs => (plain(true)?, None),
    })
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let dir = args.fixture.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = args.fixture.file_name().context("FIXTURE names no file")?.to_string_lossy();

    // The runtime (when the host's) lives as long as the run: its thread ticks the epoch.
    let (engine, _runtime) = engine(args.engine)?;
    let component = Component::from_file(&engine, &args.component)
        .with_context(|| format!("cannot compile {}", args.component.display()))?;
    let mut linker = Linker::<Guest>::new(&engine);
    wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;

    let mut guest_args = vec!["cits-floor".to_string(), format!("/fixture/{name}")];
    guest_args.extend(args.rounds.map(|r| r.to_string()));
    let ctx = WasiCtxBuilder::new()
        .args(&guest_args)
        .inherit_stdout()
        .inherit_stderr()
        .preopened_dir(dir, "/fixture", DirPerms::READ, FilePerms::READ)?
        .build();
    let mut store = Store::new(&engine, Guest { ctx, table: ResourceTable::new() });
    // As the host does (one tick a second); without epoch interruption the deadline is unused.
    store.set_epoch_deadline(MAX_EXECUTION_TIME.as_secs());
    let command = Command::instantiate_async(&mut store, &component, &linker).await?;
    match command.wasi_cli_run().call_run(&mut store).await? {
        Ok(()) => Ok(()),
        Err(()) => bail!("the component failed"),
    }
}

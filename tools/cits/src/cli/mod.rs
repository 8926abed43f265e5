//! The `cits` command tree: [`Cli`] and [`Command`] name the subcommands (their order here is
//! the order `cits --help` lists them in); each subcommand's options and its `run` live in the
//! module named after it.

use clap::{Parser, Subcommand};

mod bench;
mod demo;
mod evaluate;
mod import;
mod lattice;
mod manifest;
mod map;
mod nats;
mod replay;
mod rsu;
mod simulate;
mod stage;
mod watch;
mod worst_frame;

#[derive(Parser)]
#[command(name = "cits", about = "C-ITS pipeline tools")]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start, deploy to, inspect and stop the local lattice (`make run`, `make stop`).
    Lattice(Box<lattice::LatticeArgs>),
    /// Publish a recording over MQTT.
    Replay(replay::ReplayArgs),
    /// Print location frames and dead letters from NATS until idle.
    Watch(watch::WatchArgs),
    /// Replay a recording and print what the pipeline makes of it, then a summary.
    Demo(demo::DemoArgs),
    /// The lattice's NATS authority (operator, accounts, users): `init` creates it where missing.
    Auth(rsu::AuthArgs),
    /// The wadm manifests: `render` one for a replay (limits, cameras) as canonical YAML after
    /// wadm's checks; `secrets-ready` waits for the lattice's secrets backend.
    Manifest(manifest::ManifestArgs),
    /// Add, remove or list RSUs on a running lattice: MQTT credentials and station registry.
    Rsu(rsu::RsuArgs),
    /// Prepare a new intersection: its map tiles, cameras and RSU config.
    Intersection(map::IntersectionArgs),
    /// Send one CPM through the pipeline (NATS subject cits.cpm.probe); exit 0 if it comes out
    /// at the end (cits.done.probe).
    Probe(nats::ProbeArgs),
    /// Create the pipeline's JetStream streams where missing (see crates/cits-jetstream) and
    /// print what each holds.
    Streams(nats::StreamsArgs),
    /// Keep dead letters in JetStream (stream CITS_DLQ on cits.dlq.>) and print how many each
    /// stage has produced.
    Dlq(nats::DlqArgs),
    /// Turn the Lanelet2 map into the blobs the actors read (WKB centerlines per mode, lane graph).
    Map(map::MapArgs),
    /// Simulate traffic at the intersection and record the RSU's CPMs, with a ground-truth sidecar.
    Simulate(simulate::SimulateArgs),
    /// Film a trajectory dataset (INTERACTION, levelX, SinD) with an intersection's RSU: a CPM
    /// recording and its ground truth, as for simulated traffic.
    Import(import::ImportArgs),
    /// Run a recording through the whole pipeline natively and score its DENMs against the
    /// simulator's planted conflicts.
    Evaluate(evaluate::EvaluateArgs),
    /// Run one stage of the pipeline (or `pipeline`: all seven) as a native process on the
    /// pipeline's NATS subjects: the baseline `make bench` compares wasmCloud with.
    Stage(stage::StageArgs),
    /// Benchmark runs and their report (`make bench`).
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Time the fused pipeline (in process) on hostile CPMs: the most objects a CPM may carry,
    /// vehicles and vulnerable road users crowded round the junction, at 8 Hz.
    WorstFrame(worst_frame::WorstFrameArgs),
    /// Regenerate the demo recording.
    DemoData(demo::DemoDataArgs),
}

/// Runs the subcommand `cli` names.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Lattice(args) => lattice::run(*args).await,
        Command::Replay(args) => replay::run(args).await,
        Command::Watch(args) => watch::run(args).await,
        Command::Demo(args) => demo::run(args).await,
        Command::Auth(args) => rsu::run_auth(args),
        Command::Manifest(args) => manifest::run(args).await,
        Command::Rsu(args) => rsu::run(args).await,
        Command::Intersection(args) => map::run_intersection(args),
        Command::Probe(args) => nats::run_probe(args).await,
        Command::Streams(args) => nats::run_streams(args).await,
        Command::Dlq(args) => nats::run_dlq(args).await,
        Command::Map(args) => map::run(args),
        Command::Simulate(args) => simulate::run(args),
        Command::Import(args) => import::run(args),
        Command::Evaluate(args) => evaluate::run(args),
        Command::Stage(args) => stage::run(args).await,
        Command::Bench(command) => bench::run(command).await,
        Command::WorstFrame(args) => worst_frame::run(args),
        Command::DemoData(args) => demo::run_data(args),
    }
}

// Over 600 lines: one clap command tree; to become one module per subcommand (issue 38 item 5).
//! `cits`: replay CPM recordings over MQTT, watch the pipeline's output, probe it, regenerate
//! the demo dataset.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context as _};
use cits::pipeline::{Fused, Handler as _};
use cits::proto::LocationsFrame;
use cits_tools::replay::{replay, replay_as_recorded, ReplayOptions, ReplaySummary};
use cits_tools::{demo, dlq, evaluate, map, recording, watch};
use clap::{Parser, Subcommand};
use futures::StreamExt as _;
use prost::Message as _;

#[derive(Parser)]
#[command(name = "cits", about = "C-ITS pipeline tools")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Clone)]
struct ReplayArgs {
    /// Recording (base64 records: 4-byte length, 8-byte timestamp, UPER CPM).
    #[arg(long, default_value = "data/demo.rec.b64")]
    file: PathBuf,
    /// MQTT listener (NATS's MQTT gateway), host:port.
    #[arg(long, env = "CITS_MQTT", default_value = "127.0.0.1:1883")]
    mqtt: String,
    /// RSU id(s) to publish as (topic cits/cpm/<rsu>); repeat to replay as several RSUs at once.
    #[arg(long = "rsu", default_value = demo::RSU_ID)]
    rsus: Vec<String>,
    /// Speed factor: 1 = recorded pace, 4 = four times as fast, 0 = as fast as possible.
    #[arg(long, default_value_t = 1.0)]
    speed: f64,
    /// MQTT QoS (0 or 1).
    #[arg(long, default_value_t = 0)]
    qos: u8,
    /// Send the CPMs with the times they were recorded at (the pipeline refuses CPMs far from
    /// its clock); by default every time is moved so that the recording plays as if live.
    #[arg(long)]
    as_recorded: bool,
}

impl ReplayArgs {
    /// Replays `records` as these arguments say.
    async fn send(&self, records: &[recording::Record], options: &ReplayOptions) -> anyhow::Result<ReplaySummary> {
        if self.as_recorded {
            replay_as_recorded(records, options).await
        } else {
            replay(records, options).await
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Publish a recording over MQTT.
    Replay(ReplayArgs),
    /// Print location frames and dead letters from NATS until idle.
    Watch {
        #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
        nats: String,
        /// MQTT listener the DENMs are read from (cits/denm/+), as an RSU would.
        #[arg(long, env = "CITS_MQTT", default_value = "127.0.0.1:1883")]
        mqtt: String,
        /// RSU(s) whose DENMs to read (each over its own MQTT connection, as that RSU).
        #[arg(long = "rsu", default_value = demo::RSU_ID)]
        rsus: Vec<String>,
        /// Stop after this long without output.
        #[arg(long, default_value_t = 5000)]
        idle_ms: u64,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Replay a recording and print what the pipeline makes of it, then a summary.
    Demo {
        #[command(flatten)]
        replay: ReplayArgs,
        #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
        nats: String,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// The lattice's NATS authority (operator, accounts, users): `init` creates it where missing.
    Auth {
        #[command(subcommand)]
        command: AuthCommand,
    },
    /// The wadm manifests: `render` one for a replay (limits, cameras) as canonical YAML after
    /// wadm's checks; `secrets-ready` waits for the lattice's secrets backend.
    Manifest {
        #[command(subcommand)]
        command: ManifestCommand,
    },
    /// Add, remove or list RSUs on a running lattice: MQTT credentials and station registry.
    Rsu {
        #[command(subcommand)]
        command: RsuCommand,
    },
    /// Prepare a new intersection: its map tiles, cameras and RSU config.
    Intersection {
        #[command(subcommand)]
        command: IntersectionCommand,
    },
    /// Send one CPM through the pipeline (NATS subject cits.cpm.probe); exit 0 if it comes out
    /// at the end (cits.done.probe).
    Probe {
        #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
        nats: String,
        #[arg(long, default_value_t = 5000)]
        timeout_ms: u64,
    },
    /// Create the pipeline's JetStream streams where missing (see crates/cits-jetstream) and
    /// print what each holds.
    Streams {
        #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
        nats: String,
        /// Bytes each stream keeps at most (oldest dropped first); the server reserves this much
        /// of its file store per stream when creating it. Existing streams keep their size.
        #[arg(long, env = "CITS_STREAM_MAX_BYTES", default_value_t = cits_jetstream::Limits::default().max_bytes)]
        max_bytes: i64,
    },
    /// Keep dead letters in JetStream (stream CITS_DLQ on cits.dlq.>) and print how many each
    /// stage has produced.
    Dlq {
        #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
        nats: String,
    },
    /// Turn the Lanelet2 map into the blobs the actors read (WKB centerlines per mode, lane graph).
    Map {
        #[arg(long, alias = "map", default_value = "data/map/weiser-gabelsberger.osm")]
        osm: PathBuf,
        /// Only this junction of the map and the lanes round it: `K` (0 = the junction with most
        /// connectors, as `--junctions` lists them) or `LAT,LON` (the junction nearest).
        #[arg(long)]
        junction: Option<map::junction::Choice>,
        /// List the map's junctions: centre, box radius, connectors, approaches, exits, crosswalks, arms.
        #[arg(long)]
        junctions: bool,
        /// Blobstore-fs root: the blobs go to <root>/cits-map/.
        #[arg(long)]
        blobstore_root: Option<PathBuf>,
        /// Print a per-lanelet JSON summary (used by the lanelet2 cross-check).
        #[arg(long)]
        json: bool,
    },
    /// Simulate traffic at the intersection and record the RSU's CPMs, with a ground-truth sidecar.
    Simulate {
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// One junction of the map (`K` or `LAT,LON`, see `cits map --junctions`).
        #[arg(long)]
        junction: Option<map::junction::Choice>,
        /// How long the cameras run (2 × 8 CPMs a second).
        #[arg(long, default_value_t = 207)]
        duration_s: u32,
        /// Recording to write (base64 records in arrival order).
        #[arg(long, default_value = "data/default.rec.b64")]
        out: PathBuf,
        /// Ground-truth sidecar to write (road users, trajectories, tracker ids, planted conflicts).
        #[arg(long, default_value = "data/default.truth.json")]
        truth: PathBuf,
        #[arg(long, default_value = "data/map/weiser-gabelsberger.osm")]
        osm: PathBuf,
        /// Planted scenarios: `library` (all kinds) or `classic` (the committed recordings' three).
        #[arg(long, default_value = "library")]
        scenarios: String,
        /// Background traffic relative to the default (≈ 8 objects per CPM at 1).
        #[arg(long, default_value_t = 1.0)]
        density: f64,
    },
    /// Run a recording through the whole pipeline natively and score its DENMs against the
    /// simulator's planted conflicts.
    Evaluate {
        #[arg(long, default_value = "data/short.rec.b64")]
        file: PathBuf,
        #[arg(long, default_value = "data/short.truth.json")]
        truth: PathBuf,
        #[arg(long, alias = "map", default_value = "data/map/weiser-gabelsberger.osm")]
        osm: PathBuf,
        /// One junction of the map (`K` or `LAT,LON`, see `cits map --junctions`): simulated
        /// with cameras placed from its geometry unless a calibrated RSU stands there.
        #[arg(long)]
        junction: Option<map::junction::Choice>,
        /// Also list each false warning (first DENM of its ActionID and the risk it announced).
        #[arg(long)]
        list_false: bool,
        /// Instead of --file: simulate these seeds (e.g. `1-10`, `11-20`, `3,5`) and print one
        /// table with totals.
        #[arg(long)]
        seeds: Option<String>,
        /// With --seeds: length of each recording.
        #[arg(long, default_value_t = 207)]
        duration_s: u32,
        /// With --seeds: background traffic relative to the default.
        #[arg(long, default_value_t = 1.0)]
        density: f64,
        /// With --seeds: sweep the warning policy (minimum probability × maximum TTC × frames a
        /// pair's risk is held before it is warned) and write sweep.csv and calibration.csv to this
        /// directory (plots: tools/plot_warnings.py).
        #[arg(long)]
        sweep: Option<PathBuf>,
        /// With --seeds: stage config entries instead of the defaults (`KEY=VALUE`, the keys the
        /// manifests give the predictor, detector and DENM sender), e.g. a candidate policy.
        #[arg(long = "set")]
        set: Vec<String>,
        /// With --seeds: one line per missed conflict and per borderline or clearly false
        /// warning (road users, true PET, the risk's TTC and probability).
        #[arg(long)]
        explain: bool,
        /// With one seed: frame by frame, what the pipeline predicted for these two road users
        /// (truth ids `A,B`) and the risk between them, warned or not. With --ncap: of the car
        /// and the VRU in each case whose name contains this text (e.g. `right hook 10 km/h contact`).
        #[arg(long)]
        trace: Option<String>,
        /// With --seeds: film Euro NCAP's turning and crossing test shapes (and their negatives)
        /// on the map, each alone, instead of simulated traffic; print the NCAP table.
        #[arg(long)]
        ncap: bool,
        /// With --seeds: instead of --osm, these maps (`FILE` or `FILE@K` / `FILE@LAT,LON` for
        /// one junction of it, see `cits map --junctions`): one row per map — traffic over the
        /// seeds, and Euro NCAP's contact cases where their shapes fit (first seed).
        #[arg(long, num_args = 1..)]
        maps: Vec<evaluate::maps::MapJunction>,
        /// With --seeds: what the sensors and the network make of the traffic — nominal,
        /// noise-x2, dropouts-10, latency-300ms or one-camera (robustness rows).
        #[arg(long, default_value = "nominal")]
        condition: String,
    },
    /// Run one stage of the pipeline (or `pipeline`: all seven) as a native process on the
    /// pipeline's NATS subjects: the baseline `make bench` compares wasmCloud with.
    Stage {
        /// decoder, collector, assembler, map_matcher, predictor, collision_detector, denm_sender
        /// or pipeline.
        name: String,
        #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
        nats: String,
        #[arg(long, default_value = "redis://127.0.0.1:6379/")]
        redis: String,
        /// Blobstore-fs root holding the map (container cits-map), as `cits map` writes it.
        #[arg(long, default_value = ".state/blobstore")]
        blobstore_root: PathBuf,
        /// The manifest the stage's config and subscriptions are read from.
        #[arg(long, default_value = "wadm/cits-pipeline.yaml")]
        manifest: PathBuf,
        /// The lattice whose config store holds the named configs the manifest lists without
        /// entries (the RSU registry `cits-rsus`).
        #[arg(long, env = "WASMCLOUD_LATTICE", default_value = "default")]
        lattice: String,
        /// Config entries to set on top of the manifest's, e.g. `limits.max_age_ms=300000`.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Input from the stage's own durable JetStream consumers, delivered as the messaging
        /// provider delivers to a component, instead of core NATS subscriptions.
        #[arg(long)]
        durable: bool,
    },
    /// Benchmark runs and their report (`make bench`).
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Time the fused pipeline (in process) on hostile CPMs: the most objects a CPM may carry,
    /// vehicles and vulnerable road users crowded round the junction, at 8 Hz.
    WorstFrame {
        /// Perceived objects per CPM.
        #[arg(long, default_value_t = 128)]
        objects: usize,
        /// Hostile RSUs at the intersection (the detector tests the paths of all of them).
        #[arg(long, default_value_t = 1)]
        rsus: usize,
        /// Seconds each road user runs towards the junction before it jumps back (longer: longer
        /// tracks, the map matcher's worst case).
        #[arg(long, default_value_t = cits_tools::worst_frame::CYCLE_S)]
        cycle_s: f64,
        /// Untimed frames first (trajectories and paths build up).
        #[arg(long, default_value_t = 30)]
        warmup: usize,
        /// Timed frames.
        #[arg(long, default_value_t = 50)]
        frames: usize,
        #[arg(long, default_value = "data/map/weiser-gabelsberger.osm")]
        osm: PathBuf,
        /// The manifest the fused actor's config is read from.
        #[arg(long, default_value = "wadm/cits-pipeline-fused.yaml")]
        manifest: PathBuf,
        /// Config entries to set on top of the manifest's, e.g. `limits.max_pairs_per_frame=1024`.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// Regenerate the demo recording.
    DemoData {
        #[arg(long, default_value = "data/demo.rec.b64")]
        out: PathBuf,
    },
}

#[derive(Subcommand)]
enum AuthCommand {
    /// Create the authority's keys, the server's resolver config and the lattice parts' users
    /// (host, wadm, operator, policy) in DIR; existing keys are kept.
    Init {
        #[arg(long, env = "CITS_AUTH")]
        dir: PathBuf,
        #[arg(long, env = "WASMCLOUD_LATTICE", default_value = "default")]
        lattice: String,
    },
}

#[derive(Subcommand)]
enum ManifestCommand {
    /// Render MANIFEST for a replay: relative artefacts made absolute, then the options given.
    Render {
        manifest: PathBuf,
        /// Where to write it (canonical YAML: keys sorted).
        #[arg(long)]
        out: PathBuf,
        /// Every `limits.max_age_ms` (a replay faster than real time sends older CPMs).
        #[arg(long)]
        max_age_ms: Option<u64>,
        /// Copy the camera calibrations (`sensor.<station>.<n>`) of this station …
        #[arg(long, requires = "camera_stations")]
        camera_source: Option<u32>,
        /// … to each of these stations (comma separated).
        #[arg(long, value_delimiter = ',')]
        camera_stations: Vec<u32>,
    },
    /// Wait until the lattice's secrets backend answers (its xkey request), at most TIMEOUT_MS.
    SecretsReady {
        #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
        nats: String,
        #[arg(long, env = "CITS_AUTH")]
        auth: PathBuf,
        #[arg(long, default_value_t = 20_000)]
        timeout_ms: u64,
    },
}

/// A running lattice's RSU administration: its authority, NATS (as operator) and server PID.
#[derive(clap::Args)]
struct RsuLattice {
    /// The lattice's auth directory (`<state>/auth`).
    #[arg(long, env = "CITS_AUTH")]
    auth: PathBuf,
    #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
    nats: String,
    #[arg(long, env = "WASMCLOUD_LATTICE", default_value = "default")]
    lattice: String,
    /// nats-server's PID file (`<state>/pids/nats.pid`), to reload it after a revocation.
    #[arg(long, env = "CITS_NATS_PID_FILE")]
    nats_pid_file: Option<PathBuf>,
}

impl RsuLattice {
    fn lattice(&self) -> cits_tools::rsu::Lattice<'_> {
        cits_tools::rsu::Lattice {
            nats: &self.nats,
            auth: &self.auth,
            lattice: &self.lattice,
            nats_pid_file: self.nats_pid_file.as_deref(),
        }
    }
}

#[derive(Subcommand)]
enum IntersectionCommand {
    /// Write the junction's map tiles into the blobstore (merged with the tiles there), and the
    /// config its RSU needs (camera calibration, detector grouping, registry) as YAML properties.
    Add {
        #[arg(long, alias = "osm")]
        map: PathBuf,
        /// Which junction of the map (`K` or `LAT,LON`, see `cits map --junctions`).
        #[arg(long)]
        junction: Option<map::junction::Choice>,
        /// The RSU's name (MQTT topic cits/cpm/<rsu>) and its CPMs' station id.
        #[arg(long)]
        rsu: String,
        #[arg(long)]
        station: u32,
        /// Blobstore-fs root: the tiles go to <root>/cits-map/.
        #[arg(long, default_value = ".state/blobstore")]
        blobstore_root: PathBuf,
        /// Also write the config YAML to this file (it is always printed).
        #[arg(long)]
        config_out: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum RsuCommand {
    /// Issue RSU credentials (printed: MQTT user and password) and register its station id(s).
    Add {
        rsu: String,
        /// Station id(s) of the RSU's CPMs (repeatable).
        #[arg(long = "station", required = true)]
        stations: Vec<u32>,
        #[command(flatten)]
        on: RsuLattice,
    },
    /// Revoke an RSU's credentials (its connections are dropped) and unregister it.
    Remove {
        rsu: String,
        #[command(flatten)]
        on: RsuLattice,
    },
    /// List registered RSUs: stations and key.
    List {
        #[command(flatten)]
        on: RsuLattice,
    },
}

/// Where a benchmark reaches the pipeline: NATS, the MQTT listener, Redis (flushed per run).
#[derive(clap::Args)]
struct BenchEndpoints {
    #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
    nats: String,
    #[arg(long, env = "CITS_MQTT", default_value = "127.0.0.1:1883")]
    mqtt: String,
    #[arg(long, default_value = "redis://127.0.0.1:6379/")]
    redis: String,
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Replay a recording at one speed factor from a clean state and measure what comes out of
    /// the DENM sender; writes frames-<system>-<factor>x.csv and run-<system>-<factor>x.json
    /// (with --rsus N: frames-<system>-<factor>x-<N>rsus.csv, run-<...>.json).
    Run {
        /// Label of the system under test (wasmcloud, wasmcloud-fused, native, ...).
        #[arg(long)]
        system: String,
        #[arg(long)]
        factor: f64,
        #[arg(long, default_value = "data/default.rec.b64")]
        file: PathBuf,
        #[arg(long, default_value = demo::RSU_ID)]
        rsu: String,
        /// Many intersections: replay as N RSUs at once, <rsu>-1 … <rsu>-N, RSU k sending every
        /// CPM as station <station-base> + k − 1 (each registered with its station). Default: as
        /// the one RSU <rsu>, as recorded.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        rsus: Option<u32>,
        /// Station of <rsu>-1 with --rsus (default: the recording's).
        #[arg(long, requires = "rsus")]
        station_base: Option<u32>,
        /// Only the first S seconds of the recording (default: all of it).
        #[arg(long)]
        seconds: Option<f64>,
        #[command(flatten)]
        endpoints: BenchEndpoints,
        /// Processes whose CPU time counts, as label=pid[,pid...] (descendants included);
        /// repeatable. Labels `nats` and `redis` count as shared infrastructure.
        #[arg(long)]
        cpu: Vec<cits_tools::bench::CpuGroup>,
        /// After the replay, stop waiting once nothing came out for this long.
        #[arg(long, default_value_t = 20)]
        idle_s: u64,
        #[arg(long)]
        out: PathBuf,
    },
    /// Before a deployment: clean state, and a short recording replayed once as RSU
    /// startup-<system>[-<compiled>], its CPMs left waiting in JetStream for the deployment.
    FirstDenmBacklog {
        #[arg(long)]
        system: String,
        /// `cold` (the host will compile the components) or `cached` (it will load them from its
        /// compilation cache); also names the RSU replayed as, startup-<system>-<compiled>.
        #[arg(long, value_enum)]
        compiled: Option<cits_tools::bench::Compiled>,
        #[arg(long, default_value = "data/demo.rec.b64")]
        file: PathBuf,
        #[command(flatten)]
        endpoints: BenchEndpoints,
    },
    /// Time from `since_us` (deployment start) to the first DENM for the backlog's RSU
    /// (`first-denm-backlog` before the deployment); writes startup-<system>[-<compiled>].json.
    FirstDenm {
        #[arg(long)]
        system: String,
        #[arg(long, value_enum)]
        compiled: Option<cits_tools::bench::Compiled>,
        #[arg(long)]
        since_us: u64,
        #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
        nats: String,
        #[arg(long, default_value_t = 180)]
        timeout_s: u64,
        #[arg(long)]
        out: PathBuf,
    },
    /// Write report.md over all runs of a results folder and print it.
    Report {
        #[arg(long)]
        out: PathBuf,
        /// The system the others are compared with.
        #[arg(long, default_value = "native")]
        baseline: String,
    },
}

fn split_host_port(addr: &str) -> anyhow::Result<(String, u16)> {
    let (host, port) = addr.rsplit_once(':').with_context(|| format!("`{addr}` is not host:port"))?;
    Ok((host.to_string(), port.parse().with_context(|| format!("bad port in `{addr}`"))?))
}

#[derive(clap::Args)]
struct OutputArgs {
    /// Only print the summary.
    #[arg(long)]
    quiet: bool,
    /// Print every object location too (not only DENMs).
    #[arg(long)]
    locations: bool,
}

fn replay_options(a: &ReplayArgs, progress: bool) -> anyhow::Result<ReplayOptions> {
    let (mqtt_host, mqtt_port) = split_host_port(&a.mqtt)?;
    Ok(ReplayOptions {
        mqtt_host,
        mqtt_port,
        rsus: a.rsus.clone(),
        speed: a.speed,
        qos: a.qos,
        progress,
        auth: cits_tools::auth::auth_dir(),
    })
}

/// Stages after the collector whose frames a replay counts: (stage, output subjects).
const DOWNSTREAM: [(&str, &str); 5] = [
    ("assembler", "cits.trajectories.>"),
    ("map matcher", "cits.matched.>"),
    ("predictor", "cits.predicted.>"),
    ("collision detector", "cits.risks.>"),
    ("DENM sender", "cits.done.>"),
];

/// What `observe` prints per message.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Print {
    Nothing,
    Denms,
    Locations,
}

impl Print {
    fn from_flags(quiet: bool, locations: bool) -> Self {
        match (quiet, locations) {
            (true, _) => Print::Nothing,
            (false, true) => Print::Locations,
            (false, false) => Print::Denms,
        }
    }
}

/// Frames one stage put out and their latency from the decoder's receipt (µs).
#[derive(Default)]
struct StageOutput {
    frames: u64,
    latency: Vec<u64>,
    /// Complete traces (kept for the last stage: time in each stage and each hop).
    traces: Vec<Vec<cits::proto::StageTrace>>,
}

/// What the pipeline put out during a replay.
struct Observed {
    frames: u64,
    locations: u64,
    dead_letters: u64,
    denms: u64,
    collector: StageOutput,
    /// One per entry of [`DOWNSTREAM`].
    downstream: Vec<StageOutput>,
}

/// Collects location frames (printed), downstream stages' frames and dead letters until `idle`
/// passes without any, or `stop` says enough.
async fn observe(
    nats: &async_nats::Client,
    mut denms: tokio::sync::mpsc::Receiver<cits_tools::denms::Received>,
    idle: Duration,
    print: Print,
    mut stop: impl FnMut(&Observed) -> bool,
) -> anyhow::Result<Observed> {
    let mut frames_sub = nats.subscribe("cits.locations.>").await?;
    let mut downstream_subs = Vec::new();
    for (i, (_, subject)) in DOWNSTREAM.iter().enumerate() {
        downstream_subs.push(nats.subscribe(*subject).await?.map(move |m| (i, m)));
    }
    let mut downstream_sub = futures::stream::select_all(downstream_subs);
    let mut risks_sub = nats.subscribe("cits.risks.>").await?;
    let mut dlq_sub = nats.subscribe("cits.dlq.>").await?;
    let mut seen = Observed {
        frames: 0,
        locations: 0,
        dead_letters: 0,
        denms: 0,
        collector: StageOutput::default(),
        downstream: DOWNSTREAM.iter().map(|_| StageOutput::default()).collect(),
    };
    // Each RSU's latest risks, for the time to collision of the DENMs announcing them.
    let mut risks: std::collections::HashMap<String, Vec<cits::proto::CollisionRisk>> = Default::default();
    let mut announced = std::collections::HashSet::new();
    loop {
        tokio::select! {
            msg = frames_sub.next() => {
                let Some(msg) = msg else { break };
                match LocationsFrame::decode(msg.payload.as_ref()) {
                    Ok(frame) => {
                        seen.frames += 1;
                        seen.locations += frame.locations.len() as u64;
                        seen.collector.frames += 1;
                        seen.collector.latency.extend(watch::pipeline_latency_us(&frame.trace));
                        if print == Print::Locations { print!("{}", watch::format_frame(&frame)); }
                    }
                    Err(e) => eprintln!("undecodable frame on {}: {e}", msg.subject),
                }
            }
            msg = downstream_sub.next() => {
                let Some((i, msg)) = msg else { break };
                match watch::trace_of(&msg.payload) {
                    Ok(trace) => {
                        seen.downstream[i].frames += 1;
                        seen.downstream[i].latency.extend(watch::pipeline_latency_us(&trace));
                        if i + 1 == DOWNSTREAM.len() {
                            seen.downstream[i].traces.push(trace);
                        }
                    }
                    Err(e) => eprintln!("undecodable frame on {}: {e}", msg.subject),
                }
            }
            msg = risks_sub.next() => {
                let Some(msg) = msg else { break };
                if let Ok(frame) = cits::proto::CollisionRiskFrame::decode(msg.payload.as_ref()) {
                    risks.insert(frame.rsu_id, frame.risks);
                }
            }
            denm = denms.recv() => {
                let Some(denm) = denm else { break };
                seen.denms += 1;
                if print != Print::Nothing {
                    let current = risks.get(&denm.rsu).map(Vec::as_slice).unwrap_or_default();
                    println!("{}", watch::format_denm(&denm.rsu, &denm.uper, current, &mut announced));
                }
            }
            msg = dlq_sub.next() => {
                let Some(msg) = msg else { break };
                seen.dead_letters += 1;
                println!("{}", watch::format_dead_letter(&msg.payload));
            }
            _ = tokio::time::sleep(idle) => break,
            _ = tokio::signal::ctrl_c() => break,
        }
        if stop(&seen) {
            break;
        }
    }
    Ok(seen)
}

fn print_latency(what: &str, latencies: &[u64]) {
    if let Some(s) = watch::stats(latencies) {
        let ms = |us: u64| us as f64 / 1000.0;
        println!(
            "--- latency {what}, ms: min {:.2} max {:.2} mean {:.2} std {:.2} p50 {:.2} p95 {:.2} p99 {:.2}",
            ms(s.min),
            ms(s.max),
            s.mean / 1000.0,
            s.std / 1000.0,
            ms(s.p50),
            ms(s.p95),
            ms(s.p99)
        );
    }
}

fn print_summary(seen: &Observed) {
    let downstream: String = DOWNSTREAM
        .iter()
        .zip(&seen.downstream)
        .map(|((stage, _), out)| format!(", {} {stage} frames", out.frames))
        .collect();
    println!(
        "--- {} location frames, {} object locations{downstream}, {} DENMs, {} dead letters",
        seen.frames, seen.locations, seen.denms, seen.dead_letters
    );
    print_latency("decoder in → collector out", &seen.collector.latency);
    for ((stage, _), out) in DOWNSTREAM.iter().zip(&seen.downstream) {
        print_latency(&format!("decoder in → {stage} out"), &out.latency);
    }
    if let Some(t) = seen.downstream.last().and_then(|d| watch::trend(&d.latency)) {
        println!(
            "--- backlog: {} (whole pipeline p50 {:.2} ms in the first tenth of the run, {:.2} ms in the last; {:+.1} ms per 1,000 frames)",
            if t.growing() { "GROWING — the pipeline does not keep up at this rate" } else { "none" },
            t.first_p50_ms,
            t.last_p50_ms,
            t.ms_per_1000
        );
    }
    // Where the time goes, from the complete traces: inside each stage and on each hop.
    let traces = seen.downstream.last().map(|d| d.traces.as_slice()).unwrap_or_default();
    if let Some(first) = traces.first() {
        for (k, t) in first.iter().enumerate() {
            let inside: Vec<u64> = traces
                .iter()
                .filter_map(|tr| tr.get(k))
                .map(|t| t.sent_at_us.saturating_sub(t.received_at_us))
                .collect();
            print_latency(&format!("in {}", t.stage), &inside);
            if k + 1 < first.len() {
                let hop: Vec<u64> = traces
                    .iter()
                    .filter_map(|tr| Some(tr.get(k + 1)?.received_at_us.saturating_sub(tr.get(k)?.sent_at_us)))
                    .collect();
                print_latency(&format!("hop {} → {}", t.stage, first[k + 1].stage), &hop);
            }
        }
    }
}

async fn subscribe_denms(
    mqtt: &str,
    rsus: &[String],
) -> anyhow::Result<tokio::sync::mpsc::Receiver<cits_tools::denms::Received>> {
    let (host, port) = split_host_port(mqtt)?;
    let auth = cits_tools::auth::auth_dir();
    cits_tools::denms::subscribe(&host, port, &format!("cits-watch-{}", std::process::id()), rsus, auth.as_deref())
        .await
}

async fn bench(cmd: BenchCommand) -> anyhow::Result<()> {
    use cits_tools::bench;
    match cmd {
        BenchCommand::Run {
            system,
            factor,
            file,
            rsu,
            rsus,
            station_base,
            seconds,
            endpoints: BenchEndpoints { nats, mqtt, redis },
            cpu,
            idle_s,
            out,
        } => {
            let (mqtt_host, mqtt_port) = split_host_port(&mqtt)?;
            std::fs::create_dir_all(&out)?;
            let opts = bench::RunOptions {
                system,
                factor,
                records: recording::read_file(&file)?,
                rsu,
                rsus: rsus.map(|n| n as usize),
                station_base,
                seconds,
                nats,
                mqtt_host,
                mqtt_port,
                redis_url: redis,
                cpu,
                idle: Duration::from_secs(idle_s),
                out_dir: out,
            };
            let r = bench::run(&opts).await?;
            let e = r.end_to_end.as_ref();
            let ms = |v: Option<f64>| v.unwrap_or(f64::NAN);
            eprintln!(
                "{}: {}/{} frames out, end to end p50 {:.2} p95 {:.2} p99 {:.2} ms, backlog {}, {:.3} ms CPU per object update",
                bench::run_label(&opts.system, factor, opts.rsus),
                r.frames_out,
                r.cpms_in,
                ms(e.map(|e| e.p50_ms)),
                ms(e.map(|e| e.p95_ms)),
                ms(e.map(|e| e.p99_ms)),
                if r.backlog.as_ref().is_some_and(|b| b.growing) { "growing" } else { "none" },
                r.cpu_ms_per_object_update,
            );
        }
        BenchCommand::FirstDenmBacklog { system, compiled, file, endpoints: BenchEndpoints { nats, mqtt, redis } } => {
            let (host, port) = split_host_port(&mqtt)?;
            let records = recording::read_file(&file)?;
            bench::first_denm_backlog(&system, compiled, &nats, (&host, port), &redis, &records).await?;
        }
        BenchCommand::FirstDenm { system, compiled, since_us, nats, timeout_s, out } => {
            let first = bench::first_denm(&system, compiled, &nats, since_us, Duration::from_secs(timeout_s)).await?;
            let label = bench::startup_label(&system, compiled);
            eprintln!("{label}: wash app deploy → first DENM {:.0} ms", first.deploy_to_first_denm_ms);
            std::fs::create_dir_all(&out)?;
            std::fs::write(out.join(format!("{label}.json")), serde_json::to_string_pretty(&first)?)?;
        }
        BenchCommand::Report { out, baseline } => {
            let md = bench::report(&out, &baseline)?;
            std::fs::write(out.join("report.md"), &md)?;
            println!("{md}");
        }
    }
    Ok(())
}

async fn connect(nats: &str) -> anyhow::Result<async_nats::Client> {
    cits_tools::auth::connect_nats(nats).await
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Replay(a) => {
            let records = recording::read_file(&a.file)?;
            let s = a.send(&records, &replay_options(&a, true)?).await?;
            println!(
                "replayed {} messages ({} bytes) in {:.2} s: {:.1} msg/s; times moved by {:.1} s",
                s.messages,
                s.bytes,
                s.elapsed.as_secs_f64(),
                s.rate(),
                s.shift_ms as f64 / 1000.0
            );
        }
        Command::Watch { nats, mqtt, rsus, idle_ms, output } => {
            let client = connect(&nats).await?;
            let denms = subscribe_denms(&mqtt, &rsus).await?;
            let print = Print::from_flags(output.quiet, output.locations);
            let seen = observe(&client, denms, Duration::from_millis(idle_ms), print, |_| false).await?;
            print_summary(&seen);
        }
        Command::Demo { replay: a, nats, output } => {
            let quiet = output.quiet;
            let print = Print::from_flags(output.quiet, output.locations);
            let denms = subscribe_denms(&a.mqtt, &a.rsus).await?;
            let records = recording::read_file(&a.file)?;
            let client = connect(&nats).await?;
            let expected = (records.len() * a.rsus.len()) as u64;
            let observer = {
                let client = client.clone();
                tokio::spawn(async move {
                    observe(&client, denms, Duration::from_secs(5), print, |s| {
                        s.frames >= expected && s.downstream.iter().all(|d| d.frames >= expected)
                    })
                    .await
                })
            };
            tokio::time::sleep(Duration::from_millis(200)).await; // subscriptions in place first
            let options = replay_options(&a, quiet)?;
            let s = tokio::select! {
                s = a.send(&records, &options) => s?,
                _ = tokio::signal::ctrl_c() => bail!("interrupted"),
            };
            eprintln!("replayed {} CPMs in {:.2} s ({:.1} msg/s)", s.messages, s.elapsed.as_secs_f64(), s.rate());
            let seen = observer.await??;
            print_summary(&seen);
            let through = seen.downstream.last().map_or(0, |d| d.frames);
            if through < expected {
                bail!("{} of {expected} CPMs did not make it through the pipeline", expected - through);
            }
        }
        Command::Manifest {
            command: ManifestCommand::Render { manifest, out, max_age_ms, camera_source, camera_stations },
        } => {
            let render =
                cits_tools::manifest::Render { max_age_ms, cameras: camera_source.map(|from| (from, camera_stations)) };
            let mut model = cits_tools::manifest::load(&manifest)?;
            let base = manifest.canonicalize()?.parent().map(PathBuf::from).unwrap_or_default();
            cits_tools::manifest::render(&mut model, &base, &render)?;
            cits_tools::manifest::validate(&model).with_context(|| format!("{} rendered", manifest.display()))?;
            std::fs::write(&out, cits_tools::manifest::canonical_yaml(&model)?)
                .with_context(|| format!("cannot write {}", out.display()))?;
        }
        Command::Manifest { command: ManifestCommand::SecretsReady { nats, auth, timeout_ms } } => {
            cits_tools::rsu::secrets_ready(&nats, &auth, Duration::from_millis(timeout_ms)).await?;
        }
        Command::Auth { command: AuthCommand::Init { dir, lattice } } => {
            let authority = cits_tools::rsu::init(&dir, &lattice)?;
            eprintln!(
                "NATS authority in {} (server config: {})",
                dir.display(),
                authority.resolver_config_path().display()
            );
        }
        Command::Intersection {
            command: IntersectionCommand::Add { map: osm, junction, rsu, station, blobstore_root, config_out },
        } => {
            let graph = map::load(&osm, junction)?;
            let site = map::site::Site::of(&graph)?;
            let dir = blobstore_root.join(map::CONTAINER);
            let tiles = map::intersection::write_tiles(&graph, &dir)?;
            let name = match junction {
                Some(choice) => format!("{}-{choice}", graph.name),
                None => graph.name.clone(),
            };
            let yaml = map::intersection::config_yaml(&site, &rsu, station, &name);
            if let Some(path) = config_out {
                std::fs::write(&path, &yaml).with_context(|| format!("cannot write {}", path.display()))?;
            }
            let arms: Vec<&str> = site.junction.arms.iter().map(|a| a.name.as_str()).collect();
            eprintln!(
                "intersection {name}: centre {:.7},{:.7}, arms {}; {} lanelets in {tiles} tiles → {}",
                site.centre.lat,
                site.centre.lon,
                arms.join(", "),
                graph.lanelets.len(),
                dir.display()
            );
            print!("{yaml}");
        }
        Command::Rsu { command } => match command {
            RsuCommand::Add { rsu, stations, on } => {
                let token = cits_tools::rsu::add(&on.auth, &rsu, &stations, &on.lattice()).await?;
                println!(
                    "RSU {rsu} added (stations {stations:?}). MQTT: user {rsu}, password: the token in {}",
                    token.display()
                );
            }
            RsuCommand::Remove { rsu, on } => {
                cits_tools::rsu::remove(&on.auth, &rsu, &on.lattice()).await?;
                println!("RSU {rsu} removed: credentials revoked, server reloaded, unregistered");
            }
            RsuCommand::List { on } => {
                for (rsu, stations, key) in cits_tools::rsu::list(&on.auth, &on.lattice()).await? {
                    println!("{rsu}\tstations {stations}\t{key}");
                }
            }
        },
        Command::Probe { nats, timeout_ms } => {
            let client = connect(&nats).await?;
            let mut sub = client.subscribe(cits::subjects::done("probe")).await?;
            let mut dlq = client.subscribe("cits.dlq.>").await?;
            client.flush().await?;
            // Road users on the map, so every stage, its key-value state and the map tiles in the
            // blobstore are exercised, not just the message path.
            client.publish("cits.cpm.probe", demo::probe_cpm().into()).await?;
            client.flush().await?;
            let deadline = tokio::time::sleep(Duration::from_millis(timeout_ms));
            tokio::pin!(deadline);
            loop {
                tokio::select! {
                    Some(_) = sub.next() => {
                        eprintln!("pipeline is flowing");
                        break;
                    }
                    Some(letter) = dlq.next() => eprintln!("probe: {}", watch::format_dead_letter(&letter.payload)),
                    _ = &mut deadline => bail!("the probe CPM did not come out of the DENM sender within {timeout_ms} ms"),
                }
            }
        }
        Command::Stage { name, nats, redis, blobstore_root, manifest, lattice, set, durable } => {
            let opts = cits_tools::native::ServeOptions {
                set: cits_tools::native::entries_set(&set)?,
                stage: name,
                nats,
                redis_url: redis,
                blobstore_root,
                manifest,
                lattice,
                durable,
            };
            cits_tools::native::serve(opts).await?;
        }
        Command::Bench(cmd) => bench(cmd).await?,
        Command::Streams { nats, max_bytes } => {
            let js = async_nats::jetstream::new(connect(&nats).await?);
            let limits = cits_jetstream::Limits { max_bytes, ..Default::default() };
            cits_jetstream::ensure_streams(&js, &limits).await?;
            for spec in cits_jetstream::STREAMS {
                let mut stream = js.get_stream(spec.name).await?;
                let messages = stream.info().await?.state.messages;
                println!("{:<18} {:<20} {messages:>8} messages", spec.name, spec.subjects);
            }
        }
        Command::Dlq { nats } => {
            let client = connect(&nats).await?;
            let counts = dlq::ensure_and_count(&client).await?;
            if counts.is_empty() {
                println!("dead letters: none");
            }
            for (stage, count) in counts {
                println!("dead letters from {stage}: {count}");
            }
        }
        Command::Map { osm, junction, junctions, blobstore_root, json } => {
            let graph = map::load(&osm, junction)?;
            let name = &graph.name;
            if junctions {
                print!("{}", map::junction::describe_all(&graph));
            }
            if json {
                println!("{}", map::summary_json(&graph));
            }
            if let Some(root) = blobstore_root {
                let dir = root.join(map::CONTAINER);
                map::write_blobs(&graph, &dir)?;
                eprintln!("map {name}: {} lanelets → {}", graph.lanelets.len(), dir.display());
            }
        }
        Command::Simulate { seed, junction, duration_s, out, truth, osm, scenarios, density } => {
            let scenarios = serde_json::from_value(serde_json::Value::String(scenarios.clone()))
                .map_err(|_| anyhow::anyhow!("--scenarios must be `library` or `classic`, got `{scenarios}`"))?;
            let params = cits_tools::sim::Params {
                seed,
                duration_s,
                scenarios,
                density,
                ..cits_tools::sim::Params::new(seed, duration_s)
            };
            let summary = cits_tools::sim::simulate_to_files(&map::load(&osm, junction)?, &params, &out, &truth)?;
            println!("{summary}\nwrote {} and {}", out.display(), truth.display());
        }
        Command::Evaluate { seeds: Some(seeds), maps, duration_s, density, set, .. } if !maps.is_empty() => {
            let params = cits_tools::sim::Params { density, ..cits_tools::sim::Params::new(0, duration_s) };
            let config = cits_tools::native::entries_set(&set)?;
            let started = std::time::Instant::now();
            let rows = evaluate::maps::evaluate_maps(&maps, &evaluate::parse_seeds(&seeds)?, &params, &config)?;
            print!("{}", evaluate::maps::table(&rows));
            println!("({} maps evaluated in {:.1} s)", rows.len(), started.elapsed().as_secs_f64());
        }
        Command::Evaluate {
            seeds: Some(seeds),
            osm,
            junction,
            set,
            ncap: true,
            condition,
            trace: Some(filter),
            ..
        } => {
            let conditions = cits_tools::sim::Conditions::named(&condition)?;
            let graph = map::load(&osm, junction)?;
            let config = cits_tools::native::entries_set(&set)?;
            let seed: u64 = seeds.trim().parse().context("--trace takes one seed")?;
            for line in evaluate::ncap::trace(&graph, &filter, seed, &config, conditions)? {
                println!("{line}");
            }
        }
        Command::Evaluate { seeds: Some(seeds), osm, junction, set, ncap: true, condition, .. } => {
            use cits_tools::sim::ncap::{Outcome, Shape};
            let conditions = cits_tools::sim::Conditions::named(&condition)?;
            let graph = map::load(&osm, junction)?;
            let config = cits_tools::native::entries_set(&set)?;
            let started = std::time::Instant::now();
            let runs = evaluate::ncap::evaluate(
                &graph,
                &Shape::ALL,
                &Outcome::ALL,
                &evaluate::parse_seeds(&seeds)?,
                &config,
                conditions,
            )?;
            print!("{}", evaluate::ncap::table(&runs));
            println!("({} runs filmed and evaluated in {:.1} s)", runs.len(), started.elapsed().as_secs_f64());
        }
        Command::Evaluate { seeds: Some(seeds), osm, junction, duration_s, density, sweep: Some(dir), set, .. } => {
            let graph = map::load(&osm, junction)?;
            let params = cits_tools::sim::Params { density, ..cits_tools::sim::Params::new(0, duration_s) };
            let config = cits_tools::native::entries_set(&set)?;
            let configured = evaluate::NativePipeline::configured(&graph, &config)?.detector().clone();
            // One tier (the early one off: the same thresholds), then the configured policy's
            // first tier with each early tier.
            let mut grid = Vec::new();
            for p in [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95] {
                for ttc in [1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0] {
                    for frames in [1, 2, 3] {
                        let one_tier = cits::collision::DetectorConfig {
                            min_probability: p,
                            max_ttc_s: ttc,
                            early_min_probability: p,
                            early_max_ttc_s: ttc,
                            ..configured.clone()
                        };
                        grid.push((one_tier, frames));
                    }
                }
            }
            for early_p in [0.85, 0.89, 0.9, 0.93, 0.95, 0.98, 1.0] {
                for early_ttc in [2.5, 3.0, 3.5] {
                    let two_tiers = cits::collision::DetectorConfig {
                        early_min_probability: early_p,
                        early_max_ttc_s: early_ttc,
                        ..configured.clone()
                    };
                    grid.push((two_tiers, 1));
                }
            }
            let (rows, bins) = evaluate::sweep(&graph, &evaluate::parse_seeds(&seeds)?, &params, &config, &grid)?;
            std::fs::create_dir_all(&dir)?;
            let mut csv = String::from("min_probability,max_ttc_s,early_min_probability,early_max_ttc_s,frames,conflicts,warned,lead_median_s,lead_min_s,clearly_false_per_10min,borderline_per_10min,precision\n");
            for (policy, frames, s) in &rows {
                let (median, min) = s.lead();
                csv.push_str(&format!(
                    "{},{},{},{},{frames},{},{},{median:.3},{min:.3},{:.2},{:.2},{:.3}\n",
                    policy.min_probability,
                    policy.max_ttc_s,
                    policy.early_min_probability,
                    policy.early_max_ttc_s,
                    s.planted,
                    s.warned,
                    s.per_10_min(s.clearly_false),
                    s.per_10_min(s.borderline),
                    s.precision()
                ));
            }
            std::fs::write(dir.join("sweep.csv"), &csv)?;
            let mut cal = String::from("bin_low,bin_high,routes,taken\n");
            for (i, (n, hit)) in bins.iter().enumerate() {
                cal.push_str(&format!("{:.1},{:.1},{n},{hit}\n", i as f64 / 10.0, (i + 1) as f64 / 10.0));
            }
            std::fs::write(dir.join("calibration.csv"), cal)?;
            print!("{csv}");
        }
        Command::Evaluate {
            seeds: Some(seeds), osm, junction, duration_s, density, set, trace: Some(pair), ..
        } => {
            let graph = map::load(&osm, junction)?;
            let params = cits_tools::sim::Params { density, ..cits_tools::sim::Params::new(0, duration_s) };
            let seed: u64 = seeds.trim().parse().context("--trace takes one seed")?;
            let users: Vec<u32> =
                pair.split(',').map(|u| u.trim().trim_start_matches('#').parse()).collect::<Result<_, _>>()?;
            let [a, b] = users[..] else { anyhow::bail!("--trace takes two road users, e.g. 15,20") };
            let config = cits_tools::native::entries_set(&set)?;
            for line in evaluate::trace(&graph, seed, &params, &config, [a, b])? {
                println!("{line}");
            }
        }
        Command::Evaluate {
            seeds: Some(seeds), osm, junction, duration_s, density, explain, set, condition, ..
        } => {
            let graph = map::load(&osm, junction)?;
            let conditions = cits_tools::sim::Conditions::named(&condition)?;
            let params = cits_tools::sim::Params { density, conditions, ..cits_tools::sim::Params::new(0, duration_s) };
            let started = std::time::Instant::now();
            let config = cits_tools::native::entries_set(&set)?;
            let rows = evaluate::evaluate_seeds(&graph, &evaluate::parse_seeds(&seeds)?, &params, &config)?;
            let rows: Vec<(String, evaluate::Score)> =
                rows.into_iter().map(|(seed, s)| (format!("seed {seed}"), s)).collect();
            print!("{}", evaluate::table(&rows));
            for (name, s) in &rows {
                for (users, at) in &s.missed {
                    println!(
                        "{name}: conflict of road users {} and {} at {} not warned",
                        users[0],
                        users[1],
                        watch::format_time_us(*at as u64)
                    );
                }
            }
            if explain {
                for (name, s) in &rows {
                    for line in &s.explained {
                        println!("{name}: {line}");
                    }
                }
            }
            println!("({} recordings simulated and evaluated in {:.1} s)", rows.len(), started.elapsed().as_secs_f64());
        }
        Command::Evaluate { file, truth, osm, list_false, .. } => {
            let xml = std::fs::read_to_string(&osm).with_context(|| format!("cannot read {}", osm.display()))?;
            let graph = map::lane_graph_from_osm(&xml, "map")?;
            let records = recording::read_file(&file)?;
            let truth = cits_tools::sim::read_truth(&truth)?;
            let started = std::time::Instant::now();
            let denms = evaluate::run_scored(&graph, &records, &[])?;
            let elapsed = started.elapsed();
            let s = evaluate::score_truth(&denms, &truth);
            let mut lead = s.lead_times_s.clone();
            lead.sort_by(f64::total_cmp);
            let median = lead.get(lead.len() / 2).copied().unwrap_or(f64::NAN);
            println!(
                "{} CPMs in {:.1} ms ({:.1} µs/CPM): {} DENMs, {} warnings; conflicts (PET < 1.5 s) warned {}/{}, median lead time {:.2} s; clearly false {}, borderline {}",
                records.len(),
                elapsed.as_secs_f64() * 1e3,
                elapsed.as_secs_f64() * 1e6 / records.len().max(1) as f64,
                s.denms,
                s.warnings,
                s.warned,
                s.planted,
                median,
                s.clearly_false,
                s.borderline,
            );
            if list_false {
                for seq in &s.false_action_ids {
                    let Some(d) = denms.iter().find(|d| d.denm.sequence_number == *seq) else { continue };
                    let describe = |o: &Option<cits::proto::ObjectRef>| {
                        o.as_ref().map_or("-".to_string(), |o| {
                            let mode = cits::proto::TravelMode::try_from(o.mode).unwrap_or_default();
                            format!("{}/{} {}", o.station_id, o.object_id, mode.as_str_name())
                        })
                    };
                    let r = d.risk.unwrap_or_default();
                    // Who the objects really were.
                    let users = [&r.first, &r.second].map(|o| {
                        o.as_ref()
                            .and_then(|o| evaluate::road_user(&truth, o, (d.at_us / 1000) as i64))
                            .and_then(|id| truth.road_users.iter().find(|u| u.id == id))
                            .map_or("?".to_string(), |u| format!("{} ({})", u.id, u.description))
                    });
                    println!(
                        "false ActionID {seq}: {}  {} × {}  ttc {:.2} s  p {:.2}  at {:.7},{:.7}  [{} × {}]",
                        watch::format_time_us(d.at_us),
                        describe(&r.first),
                        describe(&r.second),
                        r.time_to_collision_s,
                        r.probability,
                        r.conflict_latitude,
                        r.conflict_longitude,
                        users[0],
                        users[1]
                    );
                }
            }
        }
        Command::WorstFrame { objects, rsus, cycle_s, warmup, frames, osm, manifest, set } => {
            use cits_tools::worst_frame;
            let xml = std::fs::read_to_string(&osm).with_context(|| format!("cannot read {}", osm.display()))?;
            let graph = map::lane_graph_from_osm(&xml, "map")?;
            let config = cits_tools::native::settings_from_manifest(&manifest, Fused::NAME)?.config;
            let config = cits_tools::native::with_entries(config, cits_tools::native::entries_set(&set)?);
            let config = worst_frame::config(config, rsus);
            let opts = worst_frame::Options { objects, rsus, cycle_s, warmup, frames };
            let svc = map::in_memory(config, &graph);
            let report = tokio::task::block_in_place(|| worst_frame::run(&graph, svc, &opts))?;
            print!("{}", report.text(&opts));
        }
        Command::DemoData { out } => {
            let records = demo::recording();
            let file = std::fs::File::create(&out).with_context(|| format!("cannot write {}", out.display()))?;
            recording::write(std::io::BufWriter::new(file), &records)?;
            println!("wrote {} records to {}", records.len(), out.display());
        }
    }
    Ok(())
}

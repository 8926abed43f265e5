//! `cits bench`: benchmark runs against a running pipeline, startup times and their report.

use std::path::PathBuf;
use std::time::Duration;

use cits_bench as bench;
use cits_client::demo;
use cits_client::recording;
use clap::Subcommand;

use cits_client::split_host_port;

/// Where a benchmark reaches the pipeline: NATS, the MQTT listener, Redis (flushed per run).
#[derive(clap::Args)]
pub struct BenchEndpoints {
    #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
    nats: String,
    #[arg(long, env = "CITS_MQTT", default_value = "127.0.0.1:1883")]
    mqtt: String,
    #[arg(long, default_value = "redis://127.0.0.1:6379/")]
    redis: String,
}

#[derive(Subcommand)]
pub enum BenchCommand {
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
        cpu: Vec<bench::CpuGroup>,
        /// After the replay, stop waiting once nothing came out for this long.
        #[arg(long, default_value_t = 20)]
        idle_s: u64,
        #[arg(long)]
        out: PathBuf,
        /// The lattice's topology (`cluster`, `edge-site`, …) when the run compares topologies:
        /// files named <topology>-<system>-<factor>x, reported in their own table.
        #[arg(long)]
        topology: Option<String>,
        /// Also receive the DENMs as each RSU does (MQTT, its credentials; over TLS with
        /// CITS_MQTT_CA) and measure CPM publish → DENM at the RSU.
        #[arg(long)]
        denms_at_rsu: bool,
    },
    /// Before a deployment: clean state, and a short recording replayed once as RSU
    /// startup-<system>[-<compiled>], its CPMs left waiting in JetStream for the deployment.
    FirstDenmBacklog {
        #[arg(long)]
        system: String,
        /// `cold` (the host will compile the components) or `cached` (it will load them from its
        /// compilation cache); also names the RSU replayed as, startup-<system>-<compiled>.
        #[arg(long, value_enum)]
        compiled: Option<bench::Compiled>,
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
        compiled: Option<bench::Compiled>,
        #[arg(long)]
        since_us: u64,
        #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
        nats: String,
        #[arg(long, default_value_t = 180)]
        timeout_s: u64,
        #[arg(long)]
        out: PathBuf,
    },
    /// Replay the recording back to back at 1x as N RSUs for a while, without cleaning between
    /// rounds, and write per minute the latency and the memory of the given processes and of
    /// JetStream (soak.json, soak-minutes.csv): whether the pipeline stays flat.
    Soak {
        #[arg(long, default_value_t = 60)]
        minutes: u64,
        #[arg(long, default_value_t = 4)]
        rsus: usize,
        /// RSUs <rsu>-1 … <rsu>-N, each registered with station <station-base> + k − 1.
        #[arg(long, default_value = "soak")]
        rsu: String,
        #[arg(long, default_value_t = 1001)]
        station_base: u32,
        #[arg(long, default_value = "data/default.rec.b64")]
        file: PathBuf,
        #[command(flatten)]
        endpoints: BenchEndpoints,
        /// Processes whose resident memory is sampled, as label=pid[,pid...]; repeatable.
        #[arg(long)]
        memory: Vec<bench::CpuGroup>,
        #[arg(long)]
        out: PathBuf,
    },
    /// Write the compute floor's fixture (crates/cits-floor): the fused component's shipped config,
    /// the map's blobs and the recording's messages with their arrival times, as `cits evaluate
    /// --file` runs them.
    FloorFixture {
        #[arg(long, default_value = "data/default.rec.b64")]
        file: PathBuf,
        #[arg(long, alias = "map", default_value = "data/map/weiser-gabelsberger.osm")]
        osm: PathBuf,
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

pub async fn run(cmd: BenchCommand) -> anyhow::Result<()> {
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
            topology,
            denms_at_rsu,
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
                topology,
                denms_at_rsu,
            };
            let r = bench::run(&opts).await?;
            let e = r.end_to_end.as_ref();
            let ms = |v: Option<f64>| v.unwrap_or(f64::NAN);
            let at_rsu = match (&r.rsu_denm, r.denms_at_rsu) {
                (Some(l), Some(n)) => format!(
                    ", {} DENMs at the RSU ({} unmatched): p50 {:.2} p95 {:.2} ms",
                    n.received, n.unmatched, l.p50_ms, l.p95_ms
                ),
                (None, Some(n)) => format!(", {} DENMs at the RSU ({} unmatched)", n.received, n.unmatched),
                _ => String::new(),
            };
            eprintln!(
                "{}{}: {}/{} frames out, end to end p50 {:.2} p95 {:.2} p99 {:.2} ms, backlog {}, {:.3} ms CPU per object update{at_rsu}",
                opts.topology.as_deref().map(|t| format!("{t}: ")).unwrap_or_default(),
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
        BenchCommand::Soak {
            minutes,
            rsus,
            rsu,
            station_base,
            file,
            endpoints: BenchEndpoints { nats, mqtt, redis },
            memory,
            out,
        } => {
            let (mqtt_host, mqtt_port) = split_host_port(&mqtt)?;
            std::fs::create_dir_all(&out)?;
            let opts = bench::SoakOptions {
                records: recording::read_file(&file)?,
                rsu,
                rsus,
                station_base,
                duration: Duration::from_secs(minutes * 60),
                nats,
                mqtt_host,
                mqtt_port,
                redis_url: redis,
                processes: memory,
                out_dir: out,
            };
            let result = bench::soak(&opts).await?;
            match &result.flatness {
                Some(f) => eprintln!(
                    "soak: {} of {} frames out; {}: p95 {:.1} → {:.1} ms{}",
                    result.frames_out,
                    result.cpms_in,
                    if f.flat { "flat" } else { "NOT flat" },
                    f.p95_first_ms,
                    f.p95_last_ms,
                    if f.grew.is_empty() { String::new() } else { format!("; grew: {}", f.grew.join("; ")) }
                ),
                None => eprintln!("soak: {} of {} frames out; too short to judge", result.frames_out, result.cpms_in),
            }
        }
        BenchCommand::FloorFixture { file, osm, out } => {
            let graph = cits_map::load(&osm, None)?;
            let fixture = cits_research::evaluate::floor_fixture(&graph, &recording::read_file(&file)?)?;
            std::fs::write(&out, prost::Message::encode_to_vec(&fixture))?;
            eprintln!("{}: {} messages, {} blobs", out.display(), fixture.messages.len(), fixture.blobs.len());
        }
        BenchCommand::Report { out, baseline } => {
            let md = bench::report(&out, &baseline)?;
            std::fs::write(out.join("report.md"), &md)?;
            println!("{md}");
        }
    }
    Ok(())
}

//! `make bench`: one replay of a recording at one speed factor against whatever pipeline is
//! subscribed (wasmCloud or native), measured from the replayer's publish to the DENM sender's
//! send; and the report over all runs of a results folder.
//!
//! A run replays as one RSU, or (many intersections) as N RSUs at once, each sending the recording
//! as a station of its own and so an intersection of its own over the same map. Frames are
//! matched to the CPMs that caused them by RSU and CPM reference time (one RSU's frames keep their
//! order through the pipeline, so equal reference times pair up in order).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use cits::proto::{cits_message_wrapper, FrameDone, StageTrace};
use futures::StreamExt as _;
use hdrhistogram::Histogram;
use prost::Message as _;
use serde::{Deserialize, Serialize};

use cits_client::recording::Record;
use cits_client::replay::{replay_as_stations, ReplayOptions};
use cits_client::watch::trend;

pub mod cpu;
mod report;
mod soak;
mod startup;
pub use report::{report, shortfalls, sustained};
pub use soak::{soak, SoakOptions, SoakResult};
pub use startup::{first_denm, first_denm_backlog, startup_label, Compiled, FirstDenm};

/// The ETSI-free facts of one recorded CPM the report needs.
struct CpmFacts {
    station_id: u32,
    reference_time_us: u64,
    objects: u64,
}

fn facts(records: &[Record]) -> anyhow::Result<Vec<CpmFacts>> {
    records
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let wrapper = cits::stages::decoder::decode("cits.cpm.bench", &r.cpm, 0)
                .with_context(|| format!("record {i} of the recording is not a CPM"))?;
            let Some(cits_message_wrapper::Message::Cpm(cpm)) = wrapper.message else { bail!("record {i}: no CPM") };
            Ok(CpmFacts {
                station_id: cpm.station_id,
                reference_time_us: cpm.reference_time_us,
                objects: cpm.objects.len() as u64,
            })
        })
        .collect()
}

/// The records of the first `seconds` of a recording (by arrival time).
pub fn first_seconds(records: &[Record], seconds: f64) -> Vec<Record> {
    let Some(first) = records.first() else { return Vec::new() };
    let end_ms = first.timestamp_ms as f64 + seconds * 1000.0;
    records.iter().take_while(|r| (r.timestamp_ms as f64) < end_ms).cloned().collect()
}

/// One group of processes whose CPU time counts: a label and its root pids.
#[derive(Debug, Clone)]
pub struct CpuGroup {
    pub label: String,
    pub pids: Vec<u32>,
}

impl std::str::FromStr for CpuGroup {
    type Err = anyhow::Error;

    /// `label=pid[,pid...]`
    fn from_str(s: &str) -> anyhow::Result<Self> {
        let (label, pids) = s.split_once('=').context("expected label=pid[,pid...]")?;
        let pids = pids
            .split(',')
            .map(|p| p.trim().parse().with_context(|| format!("bad pid `{p}`")))
            .collect::<anyhow::Result<_>>()?;
        Ok(Self { label: label.to_string(), pids })
    }
}

pub struct RunOptions {
    /// Label of the system under test (e.g. `wasmcloud`, `native`).
    pub system: String,
    pub factor: f64,
    pub records: Vec<Record>,
    pub rsu: String,
    /// Many intersections: the recording replayed as N RSUs at once, `<rsu>-1 … <rsu>-N`, RSU k
    /// sending as station `station_base + k − 1`. None: as the one RSU `rsu`, as recorded.
    pub rsus: Option<usize>,
    /// Station of RSU `<rsu>-1` (default: the recording's).
    pub station_base: Option<u32>,
    /// Only the first this many seconds of the recording.
    pub seconds: Option<f64>,
    pub nats: String,
    pub mqtt_host: String,
    pub mqtt_port: u16,
    /// Flushed before the run: every run starts from a clean state.
    pub redis_url: String,
    /// Whose CPU time counts; groups labelled `nats` and `redis` are the shared infrastructure.
    pub cpu: Vec<CpuGroup>,
    /// Stop waiting for the rest once no frame came out for this long after the replay.
    pub idle: Duration,
    pub out_dir: PathBuf,
    /// The lattice's topology when not the one server of the main runs (`cluster`, …): the run
    /// is reported among the topologies, not the systems.
    pub topology: Option<String>,
    /// Also receive the DENMs as each RSU does (MQTT, its credentials) and measure the way
    /// from the CPM's publish to the DENM at the RSU.
    pub denms_at_rsu: bool,
}

impl RunOptions {
    /// The RSUs the run replays as.
    pub fn rsu_ids(&self) -> Vec<String> {
        match self.rsus {
            None => vec![self.rsu.clone()],
            Some(n) => numbered_rsus(&self.rsu, n),
        }
    }
}

/// `<rsu>-1 … <rsu>-N`: the RSUs of a run as many intersections.
fn numbered_rsus(rsu: &str, n: usize) -> Vec<String> {
    (1..=n).map(|k| format!("{rsu}-{k}")).collect()
}

/// Their stations: `base`, `base + 1`, …, one per RSU.
fn numbered_stations(base: u32, n: usize) -> anyhow::Result<Vec<u32>> {
    (0..n as u32).map(|k| base.checked_add(k).context("station id beyond u32")).collect()
}

/// `<system>-<factor>x`, and `-<N>rsus` for a many-intersections run: the name of a run's files.
pub fn run_label(system: &str, factor: f64, rsus: Option<usize>) -> String {
    match rsus {
        None => format!("{system}-{}x", factor_label(factor)),
        Some(n) => format!("{system}-{}x-{n}rsus", factor_label(factor)),
    }
}

/// Latency statistics of one part of the way, ms: an HDR histogram of the samples in µs with 3
/// significant digits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub count: u64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub mean_ms: f64,
    pub std_ms: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
}

impl Latency {
    /// None without samples.
    pub fn of(samples_us: &[u64]) -> Option<Self> {
        if samples_us.is_empty() {
            return None;
        }
        // 1 µs to an hour (longer is counted as an hour).
        let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).expect("valid bounds");
        for &us in samples_us {
            h.saturating_record(us);
        }
        let ms = |us: u64| us as f64 / 1000.0;
        Some(Self {
            count: h.len(),
            min_ms: ms(h.min()),
            max_ms: ms(h.max()),
            mean_ms: h.mean() / 1000.0,
            std_ms: h.stdev() / 1000.0,
            p50_ms: ms(h.value_at_quantile(0.50)),
            p95_ms: ms(h.value_at_quantile(0.95)),
            p99_ms: ms(h.value_at_quantile(0.99)),
        })
    }
}

/// A stage or a hop between two stages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    pub name: String,
    pub stats: Option<Latency>,
}

/// Whether latency grew over the run (see [`cits_client::watch::Trend`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Backlog {
    pub growing: bool,
    pub first_tenth_p50_ms: f64,
    pub last_tenth_p50_ms: f64,
    pub ms_per_1000_frames: f64,
}

/// The DENMs the RSUs of a run received over MQTT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DenmsAtRsu {
    pub received: u64,
    /// Not decodable, or for no CPM of the run (by RSU and reference time).
    pub unmatched: u64,
}

/// One run's result, `run-<label>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub system: String,
    pub factor: f64,
    /// N of a many-intersections run; absent for one RSU as recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rsus: Option<usize>,
    /// Seconds of the recording replayed, when not all of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// CPMs sent, over all RSUs.
    pub cpms_in: u64,
    pub frames_out: u64,
    /// Objects in the CPMs sent.
    pub object_updates: u64,
    pub dead_letters: u64,
    pub denms: u64,
    pub replay_s: f64,
    pub throughput_in_per_s: f64,
    pub throughput_out_per_s: f64,
    pub objects_in_per_s: f64,
    pub end_to_end: Option<Latency>,
    /// The replayer's MQTT publish → the decoder's receipt.
    pub ingress: Option<Latency>,
    /// The topology of a topology run (see [`RunOptions::topology`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<String>,
    /// The CPM's MQTT publish → its DENM received by the RSU over MQTT, over the DENMs received
    /// (runs with [`RunOptions::denms_at_rsu`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rsu_denm: Option<Latency>,
    /// DENMs the RSUs received over MQTT, and how many of them matched no CPM sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub denms_at_rsu: Option<DenmsAtRsu>,
    /// Per stage and per hop, in pipeline order.
    pub parts: Vec<Part>,
    pub backlog: Option<Backlog>,
    /// CPU seconds per process group.
    pub cpu_s: BTreeMap<String, f64>,
    pub cpu_ms_per_object_update: f64,
    /// Without the shared infrastructure (groups `nats`, `redis`).
    pub pipeline_cpu_ms_per_object_update: f64,
}

/// Runs one replay and writes `frames-<label>.csv` and `run-<label>.json` (see [`run_label`])
/// into the results folder; returns the run's result.
pub async fn run(opts: &RunOptions) -> anyhow::Result<RunResult> {
    let records = match opts.seconds {
        Some(s) => first_seconds(&opts.records, s),
        None => opts.records.clone(),
    };
    // A recording that is no CPM fails before the run, not after.
    let recorded = facts(&records)?;
    let Some(first) = recorded.first() else { bail!("no CPM to replay") };
    let rsus = opts.rsu_ids();
    let stations: Vec<u32> = match opts.rsus {
        None => Vec::new(),
        Some(n) => numbered_stations(opts.station_base.unwrap_or(first.station_id), n)?,
    };
    let client = cits_client::auth::connect_nats(&opts.nats).await?;
    wait_until_quiet(&client, Duration::from_secs(2), Duration::from_secs(900)).await?;
    let mut redis = redis::Client::open(opts.redis_url.as_str())?.get_connection().context("Redis")?;
    clean_state(&client, &mut redis).await?;

    let (mut done_subs, mut denm_subs) = (Vec::new(), Vec::new());
    for rsu in &rsus {
        done_subs.push(client.subscribe(cits::subjects::done(rsu)).await?);
        denm_subs.push(client.subscribe(cits::subjects::denm(rsu)).await?);
    }
    let mut done_sub = futures::stream::select_all(done_subs);
    let mut denm_sub = futures::stream::select_all(denm_subs);
    let mut dlq_sub = client.subscribe("cits.dlq.>").await?;
    client.flush().await?;
    let at_rsu = match opts.denms_at_rsu {
        true => Some(receive_at_rsus(opts, &rsus).await?),
        false => None,
    };

    let expected = records.len() * rsus.len();
    let (stop_tx, mut stop_rx) = tokio::sync::watch::channel(false);
    let idle = opts.idle;
    // Collects the end-of-pipeline frames until all came out, or the replay is over and nothing
    // came for `idle`.
    let collector = tokio::spawn(async move {
        let mut done: Vec<(u64, FrameDone)> = Vec::with_capacity(expected);
        let (mut dead_letters, mut denms) = (0u64, 0u64);
        let mut replay_over = false;
        loop {
            let wait = if replay_over { idle } else { Duration::from_secs(3600) };
            tokio::select! {
                Some(msg) = done_sub.next() => {
                    if let Ok(frame) = FrameDone::decode(msg.payload.as_ref()) {
                        done.push((cits::shared::time::now_us(), frame));
                        if done.len() >= expected { break; }
                    }
                }
                Some(_) = dlq_sub.next() => dead_letters += 1,
                Some(_) = denm_sub.next() => denms += 1,
                _ = stop_rx.changed(), if !replay_over => replay_over = true,
                _ = tokio::time::sleep(wait) => break,
            }
        }
        (done, dead_letters, denms)
    });

    let groups: Vec<(String, HashMap<u32, f64>)> =
        opts.cpu.iter().map(|g| (g.label.clone(), cpu::sample(&g.pids))).collect();
    let started = Instant::now();
    let replay_opts = ReplayOptions {
        mqtt_host: opts.mqtt_host.clone(),
        mqtt_port: opts.mqtt_port,
        rsus: rsus.clone(),
        speed: opts.factor,
        qos: 0,
        progress: false,
        auth: cits_client::auth::auth_dir(),
        wire: Default::default(),
        mqtt_ca: cits_client::tls::mqtt_ca_from_env(),
    };
    let summary = replay_as_stations(&records, &replay_opts, &stations).await?;
    let replay_s = started.elapsed().as_secs_f64();
    stop_tx.send(true).ok();
    let (done, dead_letters, denms) = collector.await?;
    let at_rsu = match at_rsu {
        Some((stop, task)) => {
            stop.send(true).ok();
            Some(task.await?)
        }
        None => None,
    };
    let cpu_s: Vec<(String, f64)> = opts
        .cpu
        .iter()
        .zip(&groups)
        .map(|(g, (label, before))| (label.clone(), cpu::between(before, &cpu::sample(&g.pids))))
        .collect();

    // Pair frames with CPMs as sent (the replay moved their times to now).
    let sent = facts(&summary.records)?;
    let rows = pair(&sent, &rsus, &summary.published_at_us, &done);
    let label = match &opts.topology {
        Some(t) => format!("{t}-{}", run_label(&opts.system, opts.factor, opts.rsus)),
        None => run_label(&opts.system, opts.factor, opts.rsus),
    };
    let rsu_denm = at_rsu.map(|received| rsu_denm_latencies(&sent, &rsus, &summary.published_at_us, &received));
    write_frames_csv(&opts.out_dir.join(format!("frames-{label}.csv")), &rows, &rsus)?;
    let tally = Tally {
        system: opts.system.clone(),
        factor: opts.factor,
        rsus: opts.rsus,
        seconds: opts.seconds,
        cpms_in: (sent.len() * rsus.len()) as u64,
        object_updates: sent.iter().map(|f| f.objects).sum::<u64>() * rsus.len() as u64,
        replay_s,
        first_publish_us: summary.published_at_us.first().copied().unwrap_or(0),
        cpu_s,
        dead_letters,
        denms,
    };
    let mut result = summarize(tally, &rows);
    result.topology = opts.topology.clone();
    if let Some((latencies, counted)) = rsu_denm {
        result.rsu_denm = Latency::of(&latencies);
        result.denms_at_rsu = Some(counted);
    }
    std::fs::write(opts.out_dir.join(format!("run-{label}.json")), serde_json::to_string_pretty(&result)?)?;
    Ok(result)
}

/// Receives the run's DENMs as its RSUs do until told to stop, then until none came for 2 s.
async fn receive_at_rsus(
    opts: &RunOptions,
    rsus: &[String],
) -> anyhow::Result<(tokio::sync::watch::Sender<bool>, tokio::task::JoinHandle<Vec<cits_client::denms::Received>>)> {
    let auth = cits_client::auth::auth_dir();
    let ca = cits_client::tls::mqtt_ca_from_env();
    let client_id = format!("bench-denms-{}", std::process::id());
    let mut rx = cits_client::denms::subscribe(
        &opts.mqtt_host,
        opts.mqtt_port,
        &client_id,
        rsus,
        auth.as_deref(),
        ca.as_deref(),
    )
    .await?;
    let (stop_tx, mut stop_rx) = tokio::sync::watch::channel(false);
    let task = tokio::spawn(async move {
        let mut received = Vec::new();
        let mut stopping = false;
        loop {
            let wait = if stopping { Duration::from_secs(2) } else { Duration::from_secs(3600) };
            tokio::select! {
                Some(denm) = rx.recv() => received.push(denm),
                _ = stop_rx.changed(), if !stopping => stopping = true,
                _ = tokio::time::sleep(wait) => break,
            }
        }
        received
    });
    Ok((stop_tx, task))
}

/// CPM publish → DENM at the RSU, µs, for each DENM received: a DENM's reference time is its
/// frame's, which is the CPM's (the replay made it the time it sent it), so the two pair up by RSU
/// and reference time (ms, as ITS timestamps have it).
fn rsu_denm_latencies(
    sent: &[CpmFacts],
    rsus: &[String],
    published_at_us: &[u64],
    received: &[cits_client::denms::Received],
) -> (Vec<u64>, DenmsAtRsu) {
    let number: HashMap<&str, usize> = rsus.iter().enumerate().map(|(k, r)| (r.as_str(), k)).collect();
    let mut published: HashMap<(usize, u64), u64> = HashMap::new();
    for k in 0..rsus.len() {
        for (i, f) in sent.iter().enumerate() {
            if let Some(&at) = published_at_us.get(i * rsus.len() + k) {
                published.entry((k, cits::shared::time::unix_us_to_its_ms(f.reference_time_us))).or_insert(at);
            }
        }
    }
    let mut latencies = Vec::with_capacity(received.len());
    for denm in received {
        let reference = etsi_its::denm::DenmVersion::ALL
            .iter()
            .find_map(|v| v.decode(&denm.uper).ok())
            .map(|d| d.reference_time_its_ms);
        let at = number.get(denm.rsu.as_str()).zip(reference).and_then(|(k, t)| published.get(&(*k, t)));
        if let Some(at) = at {
            latencies.push(denm.received_us.saturating_sub(*at));
        }
    }
    let counted = DenmsAtRsu { received: received.len() as u64, unmatched: (received.len() - latencies.len()) as u64 };
    (latencies, counted)
}

/// Each frame that came out with the CPM that caused it: by RSU and reference time, in order.
/// `published_at_us` as the replay stamped it: record by record, each once per RSU.
fn pair(sent: &[CpmFacts], rsus: &[String], published_at_us: &[u64], done: &[(u64, FrameDone)]) -> Vec<Row> {
    let number: HashMap<&str, usize> = rsus.iter().enumerate().map(|(k, r)| (r.as_str(), k)).collect();
    let mut waiting: HashMap<(usize, u64), VecDeque<usize>> = HashMap::new();
    for k in 0..rsus.len() {
        for (i, f) in sent.iter().enumerate() {
            waiting.entry((k, f.reference_time_us)).or_default().push_back(i);
        }
    }
    let mut rows = Vec::with_capacity(done.len());
    for (arrived_us, frame) in done {
        let Some(&k) = number.get(frame.rsu_id.as_str()) else { continue };
        let Some(i) = waiting.get_mut(&(k, frame.reference_time_us)).and_then(VecDeque::pop_front) else { continue };
        let Some(&published_us) = published_at_us.get(i * rsus.len() + k) else { continue };
        rows.push(Row::new(i, k, published_us, *arrived_us, &frame.trace));
    }
    rows
}

/// Every run starts from a clean state: no stage state in Redis, and nothing waiting in the stage
/// inputs. The streams keep what was published while a deployment was down — the CPMs of the
/// native baseline's runs (captured by `cits.cpm.*` although the baseline reads core NATS), a
/// start-up measurement's rest — which the next deployment would otherwise work through during
/// its own run, on its CPU and in its latency.
async fn clean_state(client: &async_nats::Client, redis: &mut redis::Connection) -> anyhow::Result<()> {
    redis::cmd("FLUSHDB").query::<()>(redis).context("Redis FLUSHDB")?;
    let purged = cits_jetstream::purge_stage_inputs(&async_nats::jetstream::new(client.clone())).await?;
    if purged > 0 {
        eprintln!("bench: purged the stage inputs ({purged} messages)");
    }
    Ok(())
}

/// Waits until the pipeline has had nothing on any `cits.` subject for `quiet` (a previous run's
/// backlog is worked off), at most `limit`.
async fn wait_until_quiet(client: &async_nats::Client, quiet: Duration, limit: Duration) -> anyhow::Result<()> {
    let mut all = client.subscribe("cits.>").await?;
    client.flush().await?;
    let give_up = tokio::time::Instant::now() + limit;
    loop {
        tokio::select! {
            Some(_) = all.next() => {}
            _ = tokio::time::sleep(quiet) => return Ok(()),
            _ = tokio::time::sleep_until(give_up) => bail!("the pipeline is still busy after {} s", limit.as_secs()),
        }
    }
}

/// `16`, `1.5`.
pub fn factor_label(f: f64) -> String {
    if f.fract() == 0.0 {
        format!("{f:.0}")
    } else {
        format!("{f}")
    }
}

/// One CPM's way through the pipeline (µs).
struct Row {
    /// The CPM's index in the recording.
    index: usize,
    /// The RSU's number in the run (0-based).
    rsu: usize,
    published_us: u64,
    arrived_us: u64,
    trace: Vec<StageTrace>,
}

impl Row {
    fn new(index: usize, rsu: usize, published_us: u64, arrived_us: u64, trace: &[StageTrace]) -> Self {
        Self { index, rsu, published_us, arrived_us, trace: trace.to_vec() }
    }

    /// Replayer's publish → last stage's send.
    fn end_to_end_us(&self) -> Option<u64> {
        self.trace.last()?.sent_at_us.checked_sub(self.published_us)
    }

    /// Replayer's publish over MQTT → first stage's receipt (the broker's MQTT → NATS hop).
    fn ingress_us(&self) -> Option<u64> {
        self.trace.first()?.received_at_us.checked_sub(self.published_us)
    }
}

fn write_frames_csv(path: &Path, rows: &[Row], rsus: &[String]) -> anyhow::Result<()> {
    let mut out = String::from("index,rsu,published_us,end_to_end_us,ingress_us,arrived_us,stages\n");
    for r in rows {
        let stages: Vec<String> =
            r.trace.iter().map(|t| format!("{}:{}:{}", t.stage, t.received_at_us, t.sent_at_us)).collect();
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{}",
            r.index,
            rsus[r.rsu],
            r.published_us,
            r.end_to_end_us().map_or(String::new(), |v| v.to_string()),
            r.ingress_us().map_or(String::new(), |v| v.to_string()),
            r.arrived_us,
            stages.join(" ")
        );
    }
    std::fs::write(path, out).with_context(|| format!("cannot write {}", path.display()))
}

/// What a run counted besides its frames.
struct Tally {
    system: String,
    factor: f64,
    rsus: Option<usize>,
    seconds: Option<f64>,
    cpms_in: u64,
    object_updates: u64,
    replay_s: f64,
    first_publish_us: u64,
    cpu_s: Vec<(String, f64)>,
    dead_letters: u64,
    denms: u64,
}

/// The result of a run over all its frames (of every RSU).
fn summarize(t: Tally, rows: &[Row]) -> RunResult {
    let e2e: Vec<u64> = rows.iter().filter_map(Row::end_to_end_us).collect();
    let ingress: Vec<u64> = rows.iter().filter_map(Row::ingress_us).collect();
    // Per stage and per hop, in pipeline order (from the first complete trace).
    let mut parts: Vec<(String, Vec<u64>)> = Vec::new();
    if let Some(first) = rows.iter().max_by_key(|r| r.trace.len()) {
        for (i, t) in first.trace.iter().enumerate() {
            if i > 0 {
                parts.push((format!("hop {} → {}", first.trace[i - 1].stage, t.stage), Vec::new()));
            }
            parts.push((t.stage.clone(), Vec::new()));
        }
    }
    let complete = parts.len() + 1;
    for r in rows.iter().filter(|r| r.trace.len() * 2 == complete) {
        for (i, t) in r.trace.iter().enumerate() {
            if i > 0 {
                parts[2 * i - 1].1.push(t.received_at_us.saturating_sub(r.trace[i - 1].sent_at_us));
            }
            parts[2 * i].1.push(t.sent_at_us.saturating_sub(t.received_at_us));
        }
    }
    let last_out = rows.iter().map(|r| r.arrived_us).max().unwrap_or(0);
    let out_s = (last_out.saturating_sub(t.first_publish_us)) as f64 / 1e6;
    let total_cpu: f64 = t.cpu_s.iter().map(|(_, s)| s).sum();
    let pipeline_cpu: f64 = t.cpu_s.iter().filter(|(l, _)| l != "nats" && l != "redis").map(|(_, s)| s).sum();
    let per_update = |cpu_s: f64| cpu_s * 1000.0 / t.object_updates.max(1) as f64;
    let replay_s = t.replay_s.max(1e-9);
    RunResult {
        system: t.system,
        factor: t.factor,
        rsus: t.rsus,
        seconds: t.seconds,
        cpms_in: t.cpms_in,
        frames_out: rows.len() as u64,
        object_updates: t.object_updates,
        dead_letters: t.dead_letters,
        denms: t.denms,
        replay_s: t.replay_s,
        throughput_in_per_s: t.cpms_in as f64 / replay_s,
        throughput_out_per_s: rows.len() as f64 / out_s.max(1e-9),
        objects_in_per_s: t.object_updates as f64 / replay_s,
        end_to_end: Latency::of(&e2e),
        ingress: Latency::of(&ingress),
        topology: None,
        rsu_denm: None,
        denms_at_rsu: None,
        parts: parts.into_iter().map(|(name, v)| Part { name, stats: Latency::of(&v) }).collect(),
        backlog: trend(&e2e).map(|t| Backlog {
            growing: t.growing(),
            first_tenth_p50_ms: t.first_p50_ms,
            last_tenth_p50_ms: t.last_p50_ms,
            ms_per_1000_frames: t.ms_per_1000,
        }),
        cpu_ms_per_object_update: per_update(total_cpu),
        pipeline_cpu_ms_per_object_update: per_update(pipeline_cpu),
        cpu_s: t.cpu_s.into_iter().collect(),
    }
}

#[cfg(test)]
mod tests;

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

use crate::recording::Record;
use crate::replay::{replay, replay_as_stations, ReplayOptions};
use crate::watch::trend;

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
            let wrapper = cits::decoder::decode("cits.cpm.bench", &r.cpm, 0)
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

/// CPU time (user + system) of processes and all their descendants.
pub mod cpu {
    use std::collections::HashMap;

    use sysinfo::{Pid, ProcessRefreshKind, ProcessesToUpdate, System};

    /// CPU seconds of `roots` and their descendants, per process id (so a process that exits
    /// between two samples is noticed rather than subtracted).
    pub fn sample(roots: &[u32]) -> HashMap<u32, f64> {
        let mut system = System::new();
        // Processes only: a thread's time is already in its process's.
        system.refresh_processes_specifics(ProcessesToUpdate::All, true, ProcessRefreshKind::nothing().with_cpu());
        let mut children: HashMap<Pid, Vec<Pid>> = HashMap::new();
        for (pid, p) in system.processes() {
            if let (Some(parent), None) = (p.parent(), p.thread_kind()) {
                children.entry(parent).or_default().push(*pid);
            }
        }
        let mut out = HashMap::new();
        let mut queue: Vec<Pid> = roots.iter().map(|p| Pid::from_u32(*p)).collect();
        while let Some(pid) = queue.pop() {
            let Some(p) = system.process(pid) else { continue };
            if out.insert(pid.as_u32(), p.accumulated_cpu_time() as f64 / 1000.0).is_none() {
                queue.extend(children.get(&pid).into_iter().flatten());
            }
        }
        out
    }

    /// CPU seconds spent between two samples.
    pub fn between(before: &HashMap<u32, f64>, after: &HashMap<u32, f64>) -> f64 {
        after.iter().map(|(pid, s)| s - before.get(pid).copied().unwrap_or(0.0)).sum()
    }
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
}

impl RunOptions {
    /// The RSUs the run replays as.
    pub fn rsu_ids(&self) -> Vec<String> {
        match self.rsus {
            None => vec![self.rsu.clone()],
            Some(n) => (1..=n).map(|k| format!("{}-{k}", self.rsu)).collect(),
        }
    }
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

/// Whether latency grew over the run (see [`crate::watch::Trend`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Backlog {
    pub growing: bool,
    pub first_tenth_p50_ms: f64,
    pub last_tenth_p50_ms: f64,
    pub ms_per_1000_frames: f64,
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
    /// Per stage and per hop, in pipeline order.
    pub parts: Vec<Part>,
    pub backlog: Option<Backlog>,
    /// CPU seconds per process group.
    pub cpu_s: BTreeMap<String, f64>,
    pub cpu_ms_per_object_update: f64,
    /// Without the shared infrastructure (groups `nats`, `redis`).
    pub pipeline_cpu_ms_per_object_update: f64,
}

/// Deploy → first DENM, `startup-<system>[-<compiled>].json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FirstDenm {
    pub system: String,
    /// Absent in reports from before the compilation cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compiled: Option<Compiled>,
    pub deploy_to_first_denm_ms: f64,
}

/// How the host came by the components' machine code in a start-up measurement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Compiled {
    /// Compiled them (its compilation cache emptied first).
    Cold,
    /// Loaded them from its compilation cache.
    Cached,
}

impl Compiled {
    pub fn as_str(self) -> &'static str {
        match self {
            Compiled::Cold => "cold",
            Compiled::Cached => "cached",
        }
    }
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
        Some(n) => {
            let base = opts.station_base.unwrap_or(first.station_id);
            (0..n as u32).map(|k| base.checked_add(k).context("station id beyond u32")).collect::<Result<_, _>>()?
        }
    };
    let client = crate::auth::connect_nats(&opts.nats).await?;
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
                        done.push((cits::time::now_us(), frame));
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
        auth: crate::auth::auth_dir(),
    };
    let summary = replay_as_stations(&records, &replay_opts, &stations).await?;
    let replay_s = started.elapsed().as_secs_f64();
    stop_tx.send(true).ok();
    let (done, dead_letters, denms) = collector.await?;
    let cpu_s: Vec<(String, f64)> = opts
        .cpu
        .iter()
        .zip(&groups)
        .map(|(g, (label, before))| (label.clone(), cpu::between(before, &cpu::sample(&g.pids))))
        .collect();

    // Pair frames with CPMs as sent (the replay moved their times to now).
    let sent = facts(&summary.records)?;
    let rows = pair(&sent, &rsus, &summary.published_at_us, &done);
    let label = run_label(&opts.system, opts.factor, opts.rsus);
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
    let result = summarize(tally, &rows);
    std::fs::write(opts.out_dir.join(format!("run-{label}.json")), serde_json::to_string_pretty(&result)?)?;
    Ok(result)
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

/// `startup-<system>[-<compiled>]`: the RSU a start-up measurement replays as, and its file name.
pub fn startup_label(system: &str, compiled: Option<Compiled>) -> String {
    match compiled {
        Some(c) => format!("startup-{system}-{}", c.as_str()),
        None => format!("startup-{system}"),
    }
}

/// Deploy → first DENM, before the deployment: cleans the state and replays a short recording
/// once, as fast as possible, as RSU `startup-<system>[-<compiled>]`. Its CPMs wait in JetStream
/// (nothing consumes them while no deployment runs) for the deployment to come, as an RSU's do
/// while a pipeline is being deployed; the first DENM needs the pipeline through the backlog up
/// to the recording's first conflict. Replaying after the deployment instead made the time
/// include the replay itself, and however long the tool took to see the deployment done.
pub async fn first_denm_backlog(
    system: &str,
    compiled: Option<Compiled>,
    nats: &str,
    mqtt: (&str, u16),
    redis_url: &str,
    records: &[Record],
) -> anyhow::Result<()> {
    let mut store = redis::Client::open(redis_url)?.get_connection().context("Redis")?;
    let client = crate::auth::connect_nats(nats).await?;
    // An RSU of its own per system: a DENM identical to an earlier run's (same frame id) would
    // be dropped by JetStream's duplicate window.
    let rsu = startup_label(system, compiled);
    let opts = ReplayOptions {
        mqtt_host: mqtt.0.to_string(),
        mqtt_port: mqtt.1,
        rsus: vec![rsu],
        speed: 0.0,
        qos: 1,
        progress: false,
        auth: crate::auth::auth_dir(),
    };
    clean_state(&client, &mut store).await?;
    replay(records, &opts).await?;
    // MQTT's acknowledgements say the server has them; wait until the (purged) ingress stream
    // holds them all, so the deployment finds the whole backlog.
    let mut ingress = async_nats::jetstream::new(client).get_stream("CITS_CPM").await?;
    let give_up = Instant::now() + Duration::from_secs(10);
    loop {
        let held = ingress.info().await?.state.messages;
        if held >= records.len() as u64 {
            return Ok(());
        }
        if Instant::now() > give_up {
            bail!("the ingress stream holds {held} of {} CPMs replayed", records.len());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Deploy → first DENM, after the deployment was asked for at `since_us`: the time JetStream
/// stored the first DENM for the backlog's RSU (`first_denm_backlog`) after `since_us`, as ms
/// since `since_us` — read from the DENM stream, so it does not matter when this starts looking.
pub async fn first_denm(
    system: &str,
    compiled: Option<Compiled>,
    nats: &str,
    since_us: u64,
    timeout: Duration,
) -> anyhow::Result<FirstDenm> {
    use async_nats::jetstream::consumer::pull::OrderedConfig;
    let client = crate::auth::connect_nats(nats).await?;
    let rsu = startup_label(system, compiled);
    let stream = async_nats::jetstream::new(client).get_stream("CITS_DENM").await?;
    let consumer = stream
        .create_consumer(OrderedConfig { filter_subject: cits::subjects::denm_outbox(&rsu), ..Default::default() })
        .await?;
    let mut messages = consumer.messages().await?;
    let since = std::time::UNIX_EPOCH + Duration::from_micros(since_us);
    let first = async {
        while let Some(message) = messages.next().await {
            let message = message.map_err(|e| anyhow::anyhow!("DENM stream: {e}"))?;
            let stored = std::time::SystemTime::from(message.info().map_err(|e| anyhow::anyhow!("{e}"))?.published);
            // Earlier runs' DENMs of the same RSU come first.
            if let Ok(after) = stored.duration_since(since) {
                return Ok(after);
            }
        }
        bail!("DENM stream closed")
    };
    match tokio::time::timeout(timeout, first).await {
        Ok(after) => Ok(FirstDenm {
            system: system.to_string(),
            compiled,
            deploy_to_first_denm_ms: after?.as_secs_f64() * 1000.0,
        }),
        Err(_) => bail!("no DENM within {} s of deployment", timeout.as_secs()),
    }
}

fn ms(v: Option<f64>) -> String {
    v.map_or("—".into(), |x| if x >= 100.0 { format!("{x:.0}") } else { format!("{x:.2}") })
}

fn stats_row(name: &str, s: Option<&Latency>) -> String {
    let Some(s) = s else { return format!("| {name} | — | — | — | — | — | — | — |\n") };
    format!(
        "| {name} | {} | {} | {} | {} | {} | {} | {} |\n",
        ms(Some(s.min_ms)),
        ms(Some(s.max_ms)),
        ms(Some(s.mean_ms)),
        ms(Some(s.std_ms)),
        ms(Some(s.p50_ms)),
        ms(Some(s.p95_ms)),
        ms(Some(s.p99_ms))
    )
}

/// The research's latency requirement (ms, p95).
const REQUIRED_P95_MS: f64 = 500.0;

/// Why a run did not keep up; nothing when it did: p95 below the research's 500 ms requirement,
/// every frame out, no growing backlog.
pub fn shortfalls(run: &RunResult) -> Vec<String> {
    let mut why = Vec::new();
    match run.end_to_end.as_ref().map(|e| e.p95_ms) {
        Some(p95) if p95 < REQUIRED_P95_MS => {}
        Some(p95) => why.push(format!("p95 {} ms", ms(Some(p95)))),
        None => why.push("no frame out".into()),
    }
    if run.frames_out != run.cpms_in {
        why.push(format!("{} of {} frames out", run.frames_out, run.cpms_in));
    }
    if run.backlog.as_ref().is_some_and(|b| b.growing) {
        why.push("growing backlog".into());
    }
    why
}

/// Whether a run kept up (see [`shortfalls`]).
pub fn sustained(run: &RunResult) -> bool {
    shortfalls(run).is_empty()
}

/// The largest key (speed factor, N) among a system's runs that kept up.
fn largest_sustained<'a, K: Ord + Copy + 'a>(runs: impl IntoIterator<Item = (K, &'a RunResult)>) -> Option<K> {
    runs.into_iter().filter(|(_, r)| sustained(r)).map(|(k, _)| k).max()
}

/// Speed factor as a sortable key (thousandths).
fn factor_key(f: f64) -> u64 {
    (f * 1000.0).round() as u64
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> anyhow::Result<T> {
    let text = std::fs::read_to_string(path)?;
    serde_json::from_str(&text).with_context(|| format!("{} is no benchmark result", path.display()))
}

/// The report over every `run-*.json` (and `startup-*.json`, `sizes.txt`, `machine.txt`) in
/// `dir`, as Markdown.
pub fn report(dir: &Path, baseline: &str) -> anyhow::Result<String> {
    let mut runs: Vec<RunResult> = Vec::new();
    let mut startups: Vec<FirstDenm> = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)?.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in &paths {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if !name.ends_with(".json") {
            continue;
        }
        if name.starts_with("run-") {
            runs.push(read_json(p)?);
        } else if name.starts_with("startup-") {
            startups.push(read_json(p)?);
        }
    }
    if runs.is_empty() {
        bail!("no run-*.json in {}", dir.display());
    }
    // Systems in the order they ran, factors and N ascending.
    let mut systems: Vec<String> = Vec::new();
    for r in &runs {
        if !systems.contains(&r.system) {
            systems.push(r.system.clone());
        }
    }
    let by_key: BTreeMap<(String, u64), &RunResult> =
        runs.iter().filter(|r| r.rsus.is_none()).map(|r| ((r.system.clone(), factor_key(r.factor)), r)).collect();
    let by_n: BTreeMap<(String, usize), &RunResult> =
        runs.iter().filter_map(|r| Some(((r.system.clone(), r.rsus?), r))).collect();
    let mut factors: Vec<u64> = by_key.keys().map(|(_, f)| *f).collect();
    factors.sort_unstable();
    factors.dedup();

    let mut md = String::new();
    let _ = writeln!(md, "# Benchmark report\n");
    if let Ok(machine) = std::fs::read_to_string(dir.join("machine.txt")) {
        let _ = writeln!(md, "{}\n", machine.trim());
    }
    let _ = writeln!(
        md,
        "End to end = the replayer's MQTT publish → the DENM sender's send (all seven stages). Each factor and N runs \
         against every system in turn (the machine's speed drifts between runs), each run from a clean state (Redis \
         flushed, nothing left in the stage inputs). CPU = user + system time of the pipeline's processes \
         (wasmCloud: host with its providers; native: the stage processes) plus nats-server and Redis, per object update (objects in the CPMs). \
         Ratios are against `{baseline}` at the same factor.\n"
    );
    if !by_key.is_empty() {
        summary_section(&mut md, &systems, &factors, &by_key, baseline);
    }
    if !by_n.is_empty() {
        intersections_section(&mut md, &systems, &by_n);
    }
    if !startups.is_empty() {
        let _ =
            writeln!(md, "\n## Start-up\n\n| system | components | `wash app deploy` → first DENM |\n|---|---|---|");
        for s in &startups {
            let compiled = match s.compiled {
                Some(Compiled::Cached) => "from the compilation cache",
                Some(Compiled::Cold) => "compiled",
                None => "—",
            };
            let _ = writeln!(md, "| {} | {compiled} | {} ms |", s.system, ms(Some(s.deploy_to_first_denm_ms)));
        }
    }
    if let Ok(sizes) = std::fs::read_to_string(dir.join("sizes.txt")) {
        let _ = writeln!(md, "\n## Actor sizes (signed .wasm)\n\n| actor | bytes |\n|---|---|");
        for line in sizes.lines() {
            if let Some((name, bytes)) = line.split_once(' ') {
                let _ = writeln!(md, "| {name} | {bytes} |");
            }
        }
    }
    if !by_key.is_empty() {
        let _ = writeln!(md, "\n## Latency per stage and per hop\n");
    }
    for f in &factors {
        for s in &systems {
            let Some(r) = by_key.get(&(s.clone(), *f)) else { continue };
            let _ = writeln!(
                md,
                "### {s}, {}x ({} of {} frames out, {} dead letters, {} DENMs)\n",
                factor_label(*f as f64 / 1000.0),
                r.frames_out,
                r.cpms_in,
                r.dead_letters,
                r.denms
            );
            let _ =
                writeln!(md, "| ms | min | max | mean | std | p50 | p95 | p99 |\n|---|---|---|---|---|---|---|---|");
            md.push_str(&stats_row("**end to end**", r.end_to_end.as_ref()));
            md.push_str(&stats_row("hop MQTT publish → decoder", r.ingress.as_ref()));
            for p in &r.parts {
                md.push_str(&stats_row(&p.name, p.stats.as_ref()));
            }
            let _ = writeln!(md);
        }
        let f = factor_label(*f as f64 / 1000.0);
        let _ = writeln!(md, "![end-to-end latency over message index, {f}x](latency-{f}x.png)\n");
    }
    Ok(md)
}

/// The native system with a wasmCloud deployment's shape (seven stages or the fused chain) and
/// delivery (durable JetStream pulls by the messaging provider's code): the CPU of the two
/// compared is what Wasm and wasmCloud cost, with durability on both sides.
fn native_counterpart(system: &str) -> Option<&'static str> {
    match system {
        "wasmcloud-fused" => Some("native-fused"),
        "wasmcloud" => Some("native-durable"),
        _ => None,
    }
}

/// The speed-factor runs (one RSU, the whole recording): a table and the largest factor each
/// system sustains.
fn summary_section(
    md: &mut String,
    systems: &[String],
    factors: &[u64],
    by_key: &BTreeMap<(String, u64), &RunResult>,
    baseline: &str,
) {
    let _ = writeln!(md, "## Summary\n");
    let _ = writeln!(
        md,
        "| system | factor | CPMs in → out | in / out msg/s | p50 ms | p95 ms | p99 ms | max ms | backlog | CPU ms / update | p95 ÷ {baseline} | CPU ÷ {baseline} | CPU ÷ native, same shape and delivery |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    fn p95(r: &RunResult) -> Option<f64> {
        r.end_to_end.as_ref().map(|e| e.p95_ms)
    }
    for s in systems {
        for f in factors {
            let Some(r) = by_key.get(&(s.clone(), *f)) else { continue };
            let base = by_key.get(&(baseline.to_string(), *f));
            let counterpart = native_counterpart(s).and_then(|n| by_key.get(&(n.to_string(), *f)));
            let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
                (Some(a), Some(b)) if b > 0.0 => format!("{:.1}×", a / b),
                _ => "—".into(),
            };
            let e = r.end_to_end.as_ref();
            let backlog = match &r.backlog {
                Some(b) if b.growing => {
                    format!("**growing** ({} → {} ms)", ms(Some(b.first_tenth_p50_ms)), ms(Some(b.last_tenth_p50_ms)))
                }
                Some(_) => "none".into(),
                None => "—".into(),
            };
            let _ = writeln!(
                md,
                "| {s} | {}x | {} → {} | {:.1} / {:.1} | {} | {} | {} | {} | {backlog} | {:.3} | {} | {} | {} |",
                factor_label(*f as f64 / 1000.0),
                r.cpms_in,
                r.frames_out,
                r.throughput_in_per_s,
                r.throughput_out_per_s,
                ms(e.map(|e| e.p50_ms)),
                ms(e.map(|e| e.p95_ms)),
                ms(e.map(|e| e.p99_ms)),
                ms(e.map(|e| e.max_ms)),
                r.cpu_ms_per_object_update,
                ratio(p95(r), base.and_then(|b| p95(b))),
                ratio(Some(r.cpu_ms_per_object_update), base.map(|b| b.cpu_ms_per_object_update)),
                ratio(Some(r.cpu_ms_per_object_update), counterpart.map(|b| b.cpu_ms_per_object_update)),
            );
        }
    }
    let _ = writeln!(md);
    for s in systems.iter().filter(|s| by_key.keys().any(|(sys, _)| sys == *s)) {
        let best = largest_sustained(by_key.iter().filter(|((sys, _), _)| sys == s).map(|((_, f), r)| (*f, *r)))
            .map(|f| format!("{}x", factor_label(f as f64 / 1000.0)));
        let _ = writeln!(
            md,
            "- **{s}**: max sustainable factor (p95 < 500 ms, every frame out, no growing backlog): {}",
            best.unwrap_or_else(|| "none of those run".into())
        );
    }
}

/// The many-intersections runs (N RSUs at once): a table and the largest N each system sustains.
fn intersections_section(md: &mut String, systems: &[String], by_n: &BTreeMap<(String, usize), &RunResult>) {
    let any = by_n.values().next().expect("called with runs");
    let part = any.seconds.map_or("The recording".to_string(), |s| format!("The first {s} s of the recording"));
    let _ = writeln!(
        md,
        "\n## Many intersections\n\n{part} replayed at {}x as N RSUs at once, each sending as a station of its own and \
         so an intersection of its own (same map, same positions). Latency and CPU over the frames of all N RSUs.\n",
        factor_label(any.factor)
    );
    let _ = writeln!(md, "| system | N | CPMs in → out | p50 ms | p95 ms | p99 ms | CPU ms / update | sustained |");
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|");
    for s in systems {
        for ((_, n), r) in by_n.iter().filter(|((sys, _), _)| sys == s) {
            let e = r.end_to_end.as_ref();
            let why = shortfalls(r);
            let kept_up = if why.is_empty() { "yes".to_string() } else { format!("**no** ({})", why.join(", ")) };
            let _ = writeln!(
                md,
                "| {s} | {n} | {} → {} | {} | {} | {} | {:.3} | {kept_up} |",
                r.cpms_in,
                r.frames_out,
                ms(e.map(|e| e.p50_ms)),
                ms(e.map(|e| e.p95_ms)),
                ms(e.map(|e| e.p99_ms)),
                r.cpu_ms_per_object_update,
            );
        }
    }
    let _ = writeln!(md);
    for s in systems.iter().filter(|s| by_n.keys().any(|(sys, _)| sys == *s)) {
        let best = largest_sustained(by_n.iter().filter(|((sys, _), _)| sys == s).map(|((_, n), r)| (*n, *r)));
        let _ = writeln!(
            md,
            "- **{s}**: most intersections sustained (p95 < 500 ms, every frame out, no growing backlog): {}",
            best.map_or("none of those run".to_string(), |n| n.to_string())
        );
    }
    let _ = writeln!(md, "\n![p95 latency and CPU per object update over N](intersections.png)");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(stages: &[(&str, u64, u64)]) -> Vec<StageTrace> {
        stages.iter().map(|(s, r, t)| StageTrace { stage: s.to_string(), received_at_us: *r, sent_at_us: *t }).collect()
    }

    #[test]
    fn end_to_end_starts_at_the_publish_and_ends_at_the_last_send() {
        let r = Row::new(0, 0, 1_000, 9_000, &trace(&[("decoder", 1_500, 1_700), ("collector", 2_000, 2_600)]));
        assert_eq!(r.end_to_end_us(), Some(1_600));
        assert_eq!(r.ingress_us(), Some(500));
    }

    #[test]
    fn percentiles_come_from_the_histogram() {
        let s = Latency::of(&(1..=100).collect::<Vec<_>>()).unwrap();
        assert_eq!(s.count, 100);
        assert_eq!((s.min_ms, s.p50_ms, s.p95_ms, s.p99_ms, s.max_ms), (0.001, 0.050, 0.095, 0.099, 0.100));
        assert!((s.mean_ms - 0.0505).abs() < 1e-9);
        // Three significant digits: 123,456 µs is within 0.1 %.
        let big = Latency::of(&[123_456]).unwrap();
        assert!((big.p50_ms - 123.456).abs() < 0.124, "{big:?}");
        assert!(Latency::of(&[]).is_none());
    }

    fn result(p95_ms: f64, cpms_in: u64, frames_out: u64, growing: bool) -> RunResult {
        let e2e = Latency {
            count: frames_out,
            min_ms: 1.0,
            max_ms: p95_ms,
            mean_ms: 2.0,
            std_ms: 0.5,
            p50_ms: 2.0,
            p95_ms,
            p99_ms: p95_ms,
        };
        RunResult {
            system: "native".into(),
            factor: 1.0,
            rsus: None,
            seconds: None,
            cpms_in,
            frames_out,
            object_updates: 10 * cpms_in,
            dead_letters: 0,
            denms: 0,
            replay_s: 10.0,
            throughput_in_per_s: 1.0,
            throughput_out_per_s: 1.0,
            objects_in_per_s: 1.0,
            end_to_end: Some(e2e),
            ingress: None,
            parts: Vec::new(),
            backlog: Some(Backlog {
                growing,
                first_tenth_p50_ms: 2.0,
                last_tenth_p50_ms: 2.0,
                ms_per_1000_frames: 0.0,
            }),
            cpu_s: BTreeMap::new(),
            cpu_ms_per_object_update: 1.0,
            pipeline_cpu_ms_per_object_update: 0.5,
        }
    }

    #[test]
    fn a_run_is_sustained_only_with_every_frame_out_fast_and_no_backlog() {
        assert!(sustained(&result(12.0, 10, 10, false)));
        assert!(!sustained(&result(600.0, 10, 10, false)));
        assert!(!sustained(&result(12.0, 10, 9, false)));
        assert!(!sustained(&result(12.0, 10, 10, true)));
        assert_eq!(shortfalls(&result(600.0, 10, 9, true)), ["p95 600 ms", "9 of 10 frames out", "growing backlog"]);
        let mut nothing = result(12.0, 10, 0, false);
        nothing.end_to_end = None;
        assert!(!sustained(&nothing));
    }

    #[test]
    fn the_most_intersections_sustained_is_the_largest_n_that_kept_up() {
        let runs: Vec<(usize, RunResult)> = vec![
            (1, result(10.0, 100, 100, false)),
            (2, result(20.0, 200, 200, false)),
            (4, result(90.0, 400, 400, false)),
            (8, result(2_000.0, 800, 800, true)),
            (16, result(30.0, 1600, 1500, false)),
        ];
        assert_eq!(largest_sustained(runs.iter().map(|(n, r)| (*n, r))), Some(4));
        assert_eq!(largest_sustained(runs[3..].iter().map(|(n, r)| (*n, r))), None);
    }

    fn done(rsu: &str, reference_time_us: u64, sent_at_us: u64) -> (u64, FrameDone) {
        let frame = FrameDone {
            rsu_id: rsu.into(),
            reference_time_us,
            trace: trace(&[
                ("decoder", sent_at_us - 50, sent_at_us - 40),
                ("denm_sender", sent_at_us - 10, sent_at_us),
            ]),
            ..Default::default()
        };
        (sent_at_us + 5, frame)
    }

    #[test]
    fn frames_of_several_rsus_pair_with_their_own_rsus_cpms_and_count_together() {
        let sent: Vec<CpmFacts> = (0..3u64)
            .map(|i| CpmFacts { station_id: 1001, reference_time_us: 1_000_000 + i * 100_000, objects: 4 })
            .collect();
        let rsus = vec!["b-1".to_string(), "b-2".to_string()];
        // Record by record, each once per RSU: b-1 at 10_000 + 1000 i, b-2 100 µs later.
        let published: Vec<u64> = (0..3).flat_map(|i| [10_000 + 1_000 * i, 10_100 + 1_000 * i]).collect();
        let frames = vec![
            done("b-2", 1_000_000, 10_100 + 200),
            done("b-1", 1_000_000, 10_000 + 100),
            done("b-1", 1_100_000, 11_000 + 300),
            done("other", 1_100_000, 20_000), // not of this run
            done("b-2", 1_100_000, 11_100 + 400),
            done("b-1", 1_200_000, 12_000 + 500),
            done("b-2", 1_200_000, 12_100 + 600),
            done("b-2", 1_200_000, 30_000), // a second frame for the same CPM: none left to pair
        ];
        let rows = pair(&sent, &rsus, &published, &frames);
        let got: Vec<(usize, usize, Option<u64>)> = rows.iter().map(|r| (r.index, r.rsu, r.end_to_end_us())).collect();
        assert_eq!(
            got,
            [
                (0, 1, Some(200)),
                (0, 0, Some(100)),
                (1, 0, Some(300)),
                (1, 1, Some(400)),
                (2, 0, Some(500)),
                (2, 1, Some(600))
            ]
        );
        let tally = Tally {
            system: "native".into(),
            factor: 1.0,
            rsus: Some(2),
            seconds: Some(60.0),
            cpms_in: 6,
            object_updates: 24,
            replay_s: 2.0,
            first_publish_us: 10_000,
            cpu_s: vec![("stages".into(), 0.048), ("nats".into(), 0.024)],
            dead_letters: 0,
            denms: 0,
        };
        let r = summarize(tally, &rows);
        assert_eq!((r.rsus, r.cpms_in, r.frames_out), (Some(2), 6, 6));
        let e2e = r.end_to_end.as_ref().unwrap();
        assert_eq!((e2e.count, e2e.min_ms, e2e.p50_ms, e2e.max_ms), (6, 0.1, 0.3, 0.6));
        assert!((r.cpu_ms_per_object_update - 3.0).abs() < 1e-9);
        assert!((r.pipeline_cpu_ms_per_object_update - 2.0).abs() < 1e-9);
        assert_eq!(
            r.parts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
            ["decoder", "hop decoder → denm_sender", "denm_sender"]
        );
        assert!(sustained(&r));
        // What `report` reads back is what `run` wrote.
        let back: RunResult = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn a_deployment_is_compared_with_the_native_system_of_its_shape_and_delivery() {
        let dir = std::env::temp_dir().join(format!("cits-bench-pairs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (system, cpu) in [("wasmcloud-fused", 1.8), ("native", 1.2), ("native-fused", 1.5), ("wasmcloud", 4.0)] {
            let mut r = result(8.0, 3296, 3296, false);
            r.system = system.into();
            r.cpu_ms_per_object_update = cpu;
            std::fs::write(dir.join(format!("run-{system}-1x.json")), serde_json::to_string(&r).unwrap()).unwrap();
        }
        let md = report(&dir, "native").unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let row = |system: &str| md.lines().find(|l| l.starts_with(&format!("| {system} | 1x |"))).unwrap().to_string();
        assert!(row("wasmcloud-fused").ends_with("| 1.800 | 1.0× | 1.5× | 1.2× |"), "{md}");
        assert!(row("wasmcloud").ends_with("| 3.3× | — |"), "no native-durable run: {md}");
        assert!(row("native").ends_with("| 1.0× | — |"), "{md}");
    }

    #[test]
    fn the_report_has_a_table_of_many_intersections() {
        let dir = std::env::temp_dir().join(format!("cits-bench-report-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |r: &RunResult| {
            let path = dir.join(format!("run-{}.json", run_label(&r.system, r.factor, r.rsus)));
            std::fs::write(path, serde_json::to_string(r).unwrap()).unwrap();
        };
        write(&result(8.0, 3296, 3296, false));
        for (n, p95) in [(1, 8.0), (2, 9.0), (4, 700.0)] {
            let mut r = result(p95, 955 * n as u64, 955 * n as u64, false);
            r.rsus = Some(n);
            r.seconds = Some(60.0);
            write(&r);
        }
        let md = report(&dir, "native").unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(md.contains("| native | 1x | 3296 → 3296 |"), "{md}");
        assert!(md.contains("max sustainable factor (p95 < 500 ms, every frame out, no growing backlog): 1x"), "{md}");
        assert!(
            md.contains("## Many intersections\n\nThe first 60 s of the recording replayed at 1x as N RSUs"),
            "{md}"
        );
        assert!(md.contains("| native | 2 | 1910 → 1910 | 2.00 | 9.00 | 9.00 | 1.000 | yes |"), "{md}");
        assert!(md.contains("| native | 4 | 3820 → 3820 | 2.00 | 700 | 700 | 1.000 | **no** (p95 700 ms) |"), "{md}");
        assert!(
            md.contains("most intersections sustained (p95 < 500 ms, every frame out, no growing backlog): 2"),
            "{md}"
        );
        // The many-intersections runs are not speed-factor runs.
        assert_eq!(md.matches("### native, 1x").count(), 1, "{md}");
    }

    #[test]
    fn start_up_rows_say_whether_the_components_were_compiled() {
        let dir = std::env::temp_dir().join(format!("cits-bench-startup-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("run-native-1x.json"), serde_json::to_string(&result(8.0, 3296, 3296, false)).unwrap())
            .unwrap();
        for (compiled, ms) in [(Some(Compiled::Cold), 3100.0), (Some(Compiled::Cached), 1500.0)] {
            let first = FirstDenm { system: "wasmcloud".into(), compiled, deploy_to_first_denm_ms: ms };
            let path = dir.join(format!("{}.json", startup_label("wasmcloud", compiled)));
            std::fs::write(path, serde_json::to_string(&first).unwrap()).unwrap();
        }
        // A report from before the compilation cache: no `compiled`.
        std::fs::write(
            dir.join("startup-wasmcloud-fused.json"),
            r#"{"system": "wasmcloud-fused", "deploy_to_first_denm_ms": 1350.0}"#,
        )
        .unwrap();
        let md = report(&dir, "native").unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(md.contains("| wasmcloud | compiled | 3100 ms |"), "{md}");
        assert!(md.contains("| wasmcloud | from the compilation cache | 1500 ms |"), "{md}");
        assert!(md.contains("| wasmcloud-fused | — | 1350 ms |"), "{md}");
    }

    #[test]
    fn the_first_seconds_of_a_recording() {
        let records = crate::demo::recording();
        let first = first_seconds(&records, 10.0);
        assert!(!first.is_empty() && first.len() < records.len());
        assert!(first.iter().all(|r| r.timestamp_ms < records[0].timestamp_ms + 10_000));
        assert!(records[first.len()].timestamp_ms >= records[0].timestamp_ms + 10_000);
        assert_eq!(first_seconds(&records, 1e6).len(), records.len());
    }

    #[test]
    fn a_many_intersections_run_replays_as_numbered_rsus() {
        assert_eq!(run_label("native", 1.0, None), "native-1x");
        assert_eq!(run_label("native", 1.0, Some(4)), "native-1x-4rsus");
    }

    #[test]
    fn cpu_time_of_this_process_grows_with_work() {
        let me = std::process::id();
        let before = cpu::sample(&[me]);
        let start = Instant::now();
        let mut x = 0u64;
        while start.elapsed() < Duration::from_millis(300) {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        assert!(x != 1);
        let spent = cpu::between(&before, &cpu::sample(&[me]));
        assert!(spent > 0.1, "{spent} s");
    }

    #[test]
    fn cpu_time_of_descendants_counts_per_process() {
        // A child that works and exits: counted while it runs, under this process.
        let me = std::process::id();
        let mut child = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; sleep 5"])
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(1500));
        let sample = cpu::sample(&[me]);
        child.kill().ok();
        child.wait().ok();
        assert!(sample.contains_key(&me) && sample.contains_key(&child.id()), "{sample:?}");
        assert!(sample[&child.id()] > 0.0, "{sample:?}");
    }

    #[test]
    fn cpu_groups_parse() {
        let g: CpuGroup = "host=12,34".parse().unwrap();
        assert_eq!((g.label.as_str(), g.pids), ("host", vec![12, 34]));
        assert!("host".parse::<CpuGroup>().is_err());
        assert!("host=x".parse::<CpuGroup>().is_err());
    }
}

//! `make bench`: one replay of a recording at one speed factor against whatever pipeline is
//! subscribed (wasmCloud or native), measured from the replayer's publish to the DENM sender's
//! send; and the report over all runs of a results folder.
//!
//! Frames are matched to the CPMs that caused them by RSU and CPM reference time (one RSU's frames
//! keep their order through the pipeline, so equal reference times pair up in order).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use cits::proto::{cits_message_wrapper, FrameDone, StageTrace};
use futures::StreamExt as _;
use prost::Message as _;
use serde_json::{json, Value};

use crate::recording::Record;
use crate::replay::{replay, ReplayOptions};
use crate::watch::{stats, trend, Stats};

/// The ETSI-free facts of one recorded CPM the report needs.
struct CpmFacts {
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
            Ok(CpmFacts { reference_time_us: cpm.reference_time_us, objects: cpm.objects.len() as u64 })
        })
        .collect()
}

/// CPU time (user + system) of processes and all their descendants, from /proc.
pub mod cpu {
    use std::collections::HashMap;

    /// Clock ticks per second of /proc/<pid>/stat (USER_HZ; 100 on Linux).
    const TICKS_PER_S: f64 = 100.0;

    fn stat_of(pid: u32) -> Option<(u32, u64)> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // Fields after the command name (which may contain spaces) in parentheses.
        let rest = &stat[stat.rfind(')')? + 2..];
        let f: Vec<&str> = rest.split(' ').collect();
        let ppid = f.get(1)?.parse().ok()?;
        let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
        Some((ppid, ticks))
    }

    /// CPU seconds of `roots` and their descendants, per process id (so a process that exits
    /// between two samples is noticed rather than subtracted).
    pub fn sample(roots: &[u32]) -> HashMap<u32, f64> {
        let mut all: HashMap<u32, (u32, u64)> = HashMap::new();
        if let Ok(dir) = std::fs::read_dir("/proc") {
            for entry in dir.flatten() {
                if let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) {
                    if let Some(s) = stat_of(pid) {
                        all.insert(pid, s);
                    }
                }
            }
        }
        let mut out = HashMap::new();
        let mut queue: Vec<u32> = roots.to_vec();
        while let Some(pid) = queue.pop() {
            if let Some((_, ticks)) = all.get(&pid) {
                if out.insert(pid, *ticks as f64 / TICKS_PER_S).is_none() {
                    queue.extend(all.iter().filter(|(_, (ppid, _))| *ppid == pid).map(|(child, _)| *child));
                }
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

/// Runs one replay and writes `frames-<system>-<factor>x.csv` and `run-<system>-<factor>x.json`
/// into the results folder; returns the run's summary.
pub async fn run(opts: &RunOptions) -> anyhow::Result<Value> {
    facts(&opts.records)?; // a recording that is no CPM fails before the run, not after
    let client = crate::auth::connect_nats(&opts.nats).await?;
    wait_until_quiet(&client, Duration::from_secs(2), Duration::from_secs(900)).await?;
    let mut redis = redis::Client::open(opts.redis_url.as_str())?.get_connection().context("Redis")?;
    redis::cmd("FLUSHDB").query::<()>(&mut redis).context("Redis FLUSHDB")?;

    let mut done_sub = client.subscribe(cits::subjects::done(&opts.rsu)).await?;
    let mut dlq_sub = client.subscribe("cits.dlq.>").await?;
    let mut denm_sub = client.subscribe(cits::subjects::denm(&opts.rsu)).await?;
    client.flush().await?;

    let expected = opts.records.len();
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
        rsus: vec![opts.rsu.clone()],
        speed: opts.factor,
        qos: 0,
        progress: false,
        auth: crate::auth::auth_dir(),
    };
    let summary = replay(&opts.records, &replay_opts).await?;
    let replay_s = started.elapsed().as_secs_f64();
    stop_tx.send(true).ok();
    let (done, dead_letters, denms) = collector.await?;
    let cpu_s: Vec<(String, f64)> = opts
        .cpu
        .iter()
        .zip(&groups)
        .map(|(g, (label, before))| (label.clone(), cpu::between(before, &cpu::sample(&g.pids))))
        .collect();

    // Pair frames with CPMs: as sent (the replay moved their times to now).
    let facts = facts(&summary.records)?;
    let mut by_time: HashMap<u64, VecDeque<usize>> = HashMap::new();
    for (i, f) in facts.iter().enumerate() {
        by_time.entry(f.reference_time_us).or_default().push_back(i);
    }
    let mut rows = Vec::with_capacity(done.len());
    for (arrived_us, frame) in &done {
        let Some(i) = by_time.get_mut(&frame.reference_time_us).and_then(|q| q.pop_front()) else { continue };
        rows.push(Row::new(i, summary.published_at_us[i], *arrived_us, &frame.trace));
    }
    let objects: u64 = facts.iter().map(|f| f.objects).sum();
    let label = format!("{}-{}x", opts.system, factor_label(opts.factor));
    write_frames_csv(&opts.out_dir.join(format!("frames-{label}.csv")), &rows)?;
    let result =
        summarize(opts, &rows, &facts, objects, replay_s, &summary.published_at_us, &cpu_s, dead_letters, denms);
    std::fs::write(opts.out_dir.join(format!("run-{label}.json")), serde_json::to_string_pretty(&result)?)?;
    Ok(result)
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
    index: usize,
    published_us: u64,
    arrived_us: u64,
    trace: Vec<StageTrace>,
}

impl Row {
    fn new(index: usize, published_us: u64, arrived_us: u64, trace: &[StageTrace]) -> Self {
        Self { index, published_us, arrived_us, trace: trace.to_vec() }
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

fn write_frames_csv(path: &Path, rows: &[Row]) -> anyhow::Result<()> {
    let mut out = String::from("index,published_us,end_to_end_us,ingress_us,arrived_us,stages\n");
    for r in rows {
        let stages: Vec<String> =
            r.trace.iter().map(|t| format!("{}:{}:{}", t.stage, t.received_at_us, t.sent_at_us)).collect();
        let _ = writeln!(
            out,
            "{},{},{},{},{},{}",
            r.index,
            r.published_us,
            r.end_to_end_us().map_or(String::new(), |v| v.to_string()),
            r.ingress_us().map_or(String::new(), |v| v.to_string()),
            r.arrived_us,
            stages.join(" ")
        );
    }
    std::fs::write(path, out).with_context(|| format!("cannot write {}", path.display()))
}

fn stats_json(s: Option<Stats>) -> Value {
    match s {
        None => Value::Null,
        Some(s) => json!({
            "count": s.count,
            "min_ms": s.min as f64 / 1000.0,
            "max_ms": s.max as f64 / 1000.0,
            "mean_ms": s.mean / 1000.0,
            "std_ms": s.std / 1000.0,
            "p50_ms": s.p50 as f64 / 1000.0,
            "p95_ms": s.p95 as f64 / 1000.0,
            "p99_ms": s.p99 as f64 / 1000.0,
        }),
    }
}

#[allow(clippy::too_many_arguments)]
fn summarize(
    opts: &RunOptions,
    rows: &[Row],
    facts: &[CpmFacts],
    objects: u64,
    replay_s: f64,
    published: &[u64],
    cpu_s: &[(String, f64)],
    dead_letters: u64,
    denms: u64,
) -> Value {
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
    let first_in = published.first().copied().unwrap_or(0);
    let out_s = (last_out.saturating_sub(first_in)) as f64 / 1e6;
    let total_cpu: f64 = cpu_s.iter().map(|(_, s)| s).sum();
    let pipeline_cpu: f64 = cpu_s.iter().filter(|(l, _)| l != "nats" && l != "redis").map(|(_, s)| s).sum();
    let backlog = trend(&e2e);
    json!({
        "system": opts.system,
        "factor": opts.factor,
        "cpms_in": facts.len(),
        "frames_out": rows.len(),
        "object_updates": objects,
        "dead_letters": dead_letters,
        "denms": denms,
        "replay_s": replay_s,
        "throughput_in_per_s": facts.len() as f64 / replay_s.max(1e-9),
        "throughput_out_per_s": rows.len() as f64 / out_s.max(1e-9),
        "objects_in_per_s": objects as f64 / replay_s.max(1e-9),
        "end_to_end": stats_json(stats(&e2e)),
        "ingress": stats_json(stats(&ingress)),
        "parts": parts.iter().map(|(name, v)| json!({"name": name, "stats": stats_json(stats(v))})).collect::<Vec<_>>(),
        "backlog": backlog.as_ref().map(|t| json!({
            "growing": t.growing(),
            "first_tenth_p50_ms": t.first_p50_ms,
            "last_tenth_p50_ms": t.last_p50_ms,
            "ms_per_1000_frames": t.ms_per_1000,
        })),
        "cpu_s": cpu_s.iter().map(|(l, s)| (l.clone(), json!(s))).collect::<serde_json::Map<_, _>>(),
        "cpu_ms_per_object_update": total_cpu * 1000.0 / objects.max(1) as f64,
        "pipeline_cpu_ms_per_object_update": pipeline_cpu * 1000.0 / objects.max(1) as f64,
    })
}

/// Deploy → first DENM: replays a short recording once, as fast as possible, right after the
/// deployment started, and waits for the first DENM; returns ms since `since_us` (when deployment
/// started). The CPMs wait in JetStream until the pipeline is up — replaying again would only
/// queue a backlog that the runs measured next would share the machine with.
pub async fn first_denm(
    system: &str,
    nats: &str,
    mqtt: (&str, u16),
    redis_url: &str,
    records: &[Record],
    since_us: u64,
    timeout: Duration,
) -> anyhow::Result<f64> {
    let mut store = redis::Client::open(redis_url)?.get_connection().context("Redis")?;
    let client = crate::auth::connect_nats(nats).await?;
    // An RSU of its own per system: a DENM identical to an earlier run's (same frame id) would
    // be dropped by JetStream's duplicate window.
    let rsu = format!("startup-{system}");
    let rsu = rsu.as_str();
    let mut denms = client.subscribe(cits::subjects::denm(rsu)).await?;
    client.flush().await?;
    let opts = ReplayOptions {
        mqtt_host: mqtt.0.to_string(),
        mqtt_port: mqtt.1,
        rsus: vec![rsu.to_string()],
        speed: 0.0,
        qos: 1,
        progress: false,
        auth: crate::auth::auth_dir(),
    };
    redis::cmd("FLUSHDB").query::<()>(&mut store).context("Redis FLUSHDB")?;
    replay(records, &opts).await?;
    match tokio::time::timeout(timeout, denms.next()).await {
        Ok(Some(_)) => Ok((cits::time::now_us().saturating_sub(since_us)) as f64 / 1000.0),
        Ok(None) => bail!("DENM subscription closed"),
        Err(_) => bail!("no DENM within {} s of deployment", timeout.as_secs()),
    }
}

fn ms(v: &Value) -> String {
    v.as_f64().map_or("—".into(), |x| if x >= 100.0 { format!("{x:.0}") } else { format!("{x:.2}") })
}

fn stats_row(name: &str, s: &Value) -> String {
    if s.is_null() {
        return format!("| {name} | — | — | — | — | — | — | — |\n");
    }
    format!(
        "| {name} | {} | {} | {} | {} | {} | {} | {} |\n",
        ms(&s["min_ms"]),
        ms(&s["max_ms"]),
        ms(&s["mean_ms"]),
        ms(&s["std_ms"]),
        ms(&s["p50_ms"]),
        ms(&s["p95_ms"]),
        ms(&s["p99_ms"])
    )
}

/// Whether a run kept up: p95 below the research's 500 ms requirement, every frame out, no
/// growing backlog.
pub fn sustained(run: &Value) -> bool {
    run["end_to_end"]["p95_ms"].as_f64().is_some_and(|p| p < 500.0)
        && run["frames_out"] == run["cpms_in"]
        && !run["backlog"]["growing"].as_bool().unwrap_or(false)
}

/// The report over every `run-*.json` (and `startup-*.json`, `sizes.json`, `machine.txt`) in
/// `dir`, as Markdown.
pub fn report(dir: &Path, baseline: &str) -> anyhow::Result<String> {
    let mut runs: Vec<Value> = Vec::new();
    let mut startups: Vec<Value> = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)?.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in &paths {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name.ends_with(".json") && (name.starts_with("run-") || name.starts_with("startup-")) {
            let v: Value = serde_json::from_str(&std::fs::read_to_string(p)?)?;
            if name.starts_with("run-") {
                runs.push(v)
            } else {
                startups.push(v)
            }
        }
    }
    if runs.is_empty() {
        bail!("no run-*.json in {}", dir.display());
    }
    // Systems in the order they ran, factors ascending.
    let mut systems: Vec<String> = Vec::new();
    for r in &runs {
        let s = r["system"].as_str().unwrap_or_default().to_string();
        if !systems.contains(&s) {
            systems.push(s);
        }
    }
    let by_key: BTreeMap<(String, u64), &Value> = runs
        .iter()
        .map(|r| {
            (
                (
                    r["system"].as_str().unwrap_or_default().to_string(),
                    (r["factor"].as_f64().unwrap_or(0.0) * 1000.0) as u64,
                ),
                r,
            )
        })
        .collect();
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
        "End to end = the replayer's MQTT publish → the DENM sender's send (all seven stages). Every run starts from a \
         clean state (Redis flushed). CPU = user + system time of the pipeline's processes (wasmCloud: host with its \
         providers; native: the stage processes) plus nats-server and Redis, per object update (objects in the CPMs). \
         Ratios are against `{baseline}` at the same factor.\n"
    );
    let _ = writeln!(md, "## Summary\n");
    let _ = writeln!(
        md,
        "| system | factor | CPMs in → out | in / out msg/s | p50 ms | p95 ms | p99 ms | max ms | backlog | CPU ms / update | p95 ÷ {baseline} | CPU ÷ {baseline} |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    for s in &systems {
        for f in &factors {
            let Some(r) = by_key.get(&(s.clone(), *f)) else { continue };
            let base = by_key.get(&(baseline.to_string(), *f));
            let ratio = |a: &Value, b: Option<&Value>| match (a.as_f64(), b.and_then(Value::as_f64)) {
                (Some(a), Some(b)) if b > 0.0 => format!("{:.1}×", a / b),
                _ => "—".into(),
            };
            let e = &r["end_to_end"];
            let backlog = match r["backlog"]["growing"].as_bool() {
                Some(true) => format!(
                    "**growing** ({} → {} ms)",
                    ms(&r["backlog"]["first_tenth_p50_ms"]),
                    ms(&r["backlog"]["last_tenth_p50_ms"])
                ),
                Some(false) => "none".into(),
                None => "—".into(),
            };
            let _ = writeln!(
                md,
                "| {s} | {}x | {} → {} | {:.1} / {:.1} | {} | {} | {} | {} | {backlog} | {:.3} | {} | {} |",
                factor_label(*f as f64 / 1000.0),
                r["cpms_in"],
                r["frames_out"],
                r["throughput_in_per_s"].as_f64().unwrap_or(0.0),
                r["throughput_out_per_s"].as_f64().unwrap_or(0.0),
                ms(&e["p50_ms"]),
                ms(&e["p95_ms"]),
                ms(&e["p99_ms"]),
                ms(&e["max_ms"]),
                r["cpu_ms_per_object_update"].as_f64().unwrap_or(0.0),
                ratio(&e["p95_ms"], base.map(|b| &b["end_to_end"]["p95_ms"])),
                ratio(&r["cpu_ms_per_object_update"], base.map(|b| &b["cpu_ms_per_object_update"])),
            );
        }
    }
    let _ = writeln!(md);
    for s in &systems {
        let best = factors
            .iter()
            .filter(|f| by_key.get(&(s.clone(), **f)).is_some_and(|r| sustained(r)))
            .max()
            .map(|f| format!("{}x", factor_label(*f as f64 / 1000.0)));
        let _ = writeln!(
            md,
            "- **{s}**: max sustainable factor (p95 < 500 ms, every frame out, no growing backlog): {}",
            best.unwrap_or_else(|| "none of those run".into())
        );
    }
    if !startups.is_empty() {
        let _ = writeln!(md, "\n## Start-up\n\n| system | `wash app deploy` → first DENM |\n|---|---|");
        for s in &startups {
            let _ = writeln!(
                md,
                "| {} | {} ms |",
                s["system"].as_str().unwrap_or_default(),
                ms(&s["deploy_to_first_denm_ms"])
            );
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
    let _ = writeln!(md, "\n## Latency per stage and per hop\n");
    for f in &factors {
        for s in &systems {
            let Some(r) = by_key.get(&(s.clone(), *f)) else { continue };
            let _ = writeln!(
                md,
                "### {s}, {}x ({} of {} frames out, {} dead letters, {} DENMs)\n",
                factor_label(*f as f64 / 1000.0),
                r["frames_out"],
                r["cpms_in"],
                r["dead_letters"],
                r["denms"]
            );
            let _ =
                writeln!(md, "| ms | min | max | mean | std | p50 | p95 | p99 |\n|---|---|---|---|---|---|---|---|");
            md.push_str(&stats_row("**end to end**", &r["end_to_end"]));
            md.push_str(&stats_row("hop MQTT publish → decoder", &r["ingress"]));
            for p in r["parts"].as_array().into_iter().flatten() {
                md.push_str(&stats_row(p["name"].as_str().unwrap_or_default(), &p["stats"]));
            }
            let _ = writeln!(md);
        }
        let f = factor_label(*f as f64 / 1000.0);
        let _ = writeln!(md, "![end-to-end latency over message index, {f}x](latency-{f}x.png)\n");
    }
    Ok(md)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(stages: &[(&str, u64, u64)]) -> Vec<StageTrace> {
        stages.iter().map(|(s, r, t)| StageTrace { stage: s.to_string(), received_at_us: *r, sent_at_us: *t }).collect()
    }

    #[test]
    fn end_to_end_starts_at_the_publish_and_ends_at_the_last_send() {
        let r = Row::new(0, 1_000, 9_000, &trace(&[("decoder", 1_500, 1_700), ("collector", 2_000, 2_600)]));
        assert_eq!(r.end_to_end_us(), Some(1_600));
        assert_eq!(r.ingress_us(), Some(500));
    }

    #[test]
    fn a_run_is_sustained_only_with_every_frame_out_fast_and_no_backlog() {
        let ok =
            json!({"end_to_end": {"p95_ms": 12.0}, "frames_out": 10, "cpms_in": 10, "backlog": {"growing": false}});
        assert!(sustained(&ok));
        let mut slow = ok.clone();
        slow["end_to_end"]["p95_ms"] = json!(600.0);
        assert!(!sustained(&slow));
        let mut lost = ok.clone();
        lost["frames_out"] = json!(9);
        assert!(!sustained(&lost));
        let mut behind = ok;
        behind["backlog"]["growing"] = json!(true);
        assert!(!sustained(&behind));
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
    fn cpu_groups_parse() {
        let g: CpuGroup = "host=12,34".parse().unwrap();
        assert_eq!((g.label.as_str(), g.pids), ("host", vec![12, 34]));
        assert!("host".parse::<CpuGroup>().is_err());
        assert!("host=x".parse::<CpuGroup>().is_err());
    }
}

//! The report over all runs of a results folder: per factor and system, against the native
//! baseline of the same shape and delivery, many intersections, start-up.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};

use super::{factor_label, Compiled, FirstDenm, Latency, RunResult};

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
    let mut soak = None;
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)?.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in &paths {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if !name.ends_with(".json") {
            continue;
        }
        if name.starts_with("run-") {
            runs.push(read_json(p)?);
        } else if name == "soak.json" {
            soak = Some(read_json::<super::SoakResult>(p)?);
        } else if name.starts_with("startup-") {
            startups.push(read_json(p)?);
        }
    }
    if runs.is_empty() {
        bail!("no run-*.json in {}", dir.display());
    }
    let (topologies, runs): (Vec<RunResult>, Vec<RunResult>) = runs.into_iter().partition(|r| r.topology.is_some());
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
    if !topologies.is_empty() {
        topologies_section(&mut md, topologies);
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
    if let Some(soak) = &soak {
        let _ = write!(md, "\n{}", super::soak::section(soak));
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

/// `in → out | p50 | p95 | p99` of a run's table row (frames, end-to-end ms).
fn flow_cells(r: &RunResult) -> String {
    let e = r.end_to_end.as_ref();
    format!(
        "{} → {} | {} | {} | {}",
        r.cpms_in,
        r.frames_out,
        ms(e.map(|e| e.p50_ms)),
        ms(e.map(|e| e.p95_ms)),
        ms(e.map(|e| e.p99_ms))
    )
}

/// `yes`, or `**no** (why)`: whether a run kept up.
fn kept_up(r: &RunResult) -> String {
    let why = shortfalls(r);
    if why.is_empty() {
        "yes".to_string()
    } else {
        format!("**no** ({})", why.join(", "))
    }
}

/// The topologies of `make bench` in the order they compare (others after them, by name).
const TOPOLOGIES: [&str; 6] = ["single", "cluster", "cluster-sync", "cluster-seven", "edge-hub", "edge-site"];

/// The runs on each topology, by topology and factor: what a cluster and the edge cost against
/// one server, also as the RSU sees it.
fn topologies_section(md: &mut String, mut runs: Vec<RunResult>) {
    runs.sort_by(|a, b| {
        let key = |r: &RunResult| {
            let name = r.topology.clone().unwrap_or_default();
            (TOPOLOGIES.iter().position(|t| *t == name).unwrap_or(TOPOLOGIES.len()), name, factor_key(r.factor))
        };
        key(a).cmp(&key(b))
    });
    let _ = writeln!(
        md,
        "\n## Topologies\n\nEach topology a lattice of its own, started fresh (`cits lattice up` with `CITS_TOPOLOGY`), \
         the recording replayed as one RSU. End to end as above; **at the RSU** = the CPM's MQTT publish → its DENM \
         received by the RSU's own MQTT connection (DENMs paired with CPMs by reference time). nats-server CPU = \
         every NATS server of the topology (a site's leaf node too), per object update.\n"
    );
    let _ = writeln!(
        md,
        "| topology | system | factor | CPMs in → out | p50 ms | p95 ms | p99 ms | DENMs at the RSU | at the RSU p50 / p95 / max ms | CPU ms / update | nats-server CPU ms / update | sustained |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in &runs {
        let at_rsu = r.rsu_denm.as_ref().map_or("—".to_string(), |l| {
            format!("{} / {} / {}", ms(Some(l.p50_ms)), ms(Some(l.p95_ms)), ms(Some(l.max_ms)))
        });
        let denms = r.denms_at_rsu.map_or("—".to_string(), |n| match n.unmatched {
            0 => n.received.to_string(),
            u => format!("{} ({u} unmatched)", n.received),
        });
        let nats = r
            .cpu_s
            .get("nats")
            .map_or("—".to_string(), |s| format!("{:.3}", s * 1000.0 / r.object_updates.max(1) as f64));
        let _ = writeln!(
            md,
            "| {} | {} | {}x | {} | {denms} | {at_rsu} | {:.3} | {nats} | {} |",
            r.topology.as_deref().unwrap_or_default(),
            r.system,
            factor_label(r.factor),
            flow_cells(r),
            r.cpu_ms_per_object_update,
            kept_up(r),
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
            let _ =
                writeln!(md, "| {s} | {n} | {} | {:.3} | {} |", flow_cells(r), r.cpu_ms_per_object_update, kept_up(r));
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
    use crate::{run_label, startup_label, Backlog};

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
            topology: None,
            rsu_denm: None,
            denms_at_rsu: None,
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
    fn a_topology_run_has_its_own_table_with_the_way_to_the_rsu_and_nats_cpu() {
        let dir = std::env::temp_dir().join(format!("cits-bench-topologies-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut single = result(8.0, 3296, 3296, false);
        single.system = "wasmcloud-fused".into();
        std::fs::write(dir.join("run-wasmcloud-fused-1x.json"), serde_json::to_string(&single).unwrap()).unwrap();
        let mut cluster = result(12.0, 3296, 3296, false);
        cluster.system = "wasmcloud-fused".into();
        cluster.topology = Some("cluster".into());
        cluster.object_updates = 1000;
        cluster.cpu_s.insert("nats".into(), 2.5);
        cluster.rsu_denm = Latency::of(&[10_000, 20_000, 30_000]);
        cluster.denms_at_rsu = Some(super::super::DenmsAtRsu { received: 3, unmatched: 1 });
        std::fs::write(dir.join("run-cluster-wasmcloud-fused-1x.json"), serde_json::to_string(&cluster).unwrap())
            .unwrap();
        let md = report(&dir, "wasmcloud-fused").unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        // The main table keeps the one-server run only.
        assert_eq!(md.lines().filter(|l| l.starts_with("| wasmcloud-fused | 1x |")).count(), 1, "{md}");
        assert!(
            md.contains(
                "| cluster | wasmcloud-fused | 1x | 3296 → 3296 | 2.00 | 12.00 | 12.00 | 3 (1 unmatched) | 20.02 / 30.02 / 30.02 | 1.000 | 2.500 | yes |"
            ),
            "{md}"
        );
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
}

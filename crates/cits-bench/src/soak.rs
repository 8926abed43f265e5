//! `make bench`'s soak: the recording replayed back to back at 1x as several RSUs for an hour on
//! one running lattice, without cleaning in between, and per minute what a frame took end to end
//! and how much memory the lattice's processes and JetStream hold. A pipeline that slows down or
//! grows the longer it runs fails here, where a run of a few minutes from a clean state does not.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use cits::proto::FrameDone;
use futures::StreamExt as _;
use prost::Message as _;
use serde::{Deserialize, Serialize};

use super::{clean_state, facts, pair, Latency, Row};
use cits_client::recording::Record;
use cits_client::replay::{replay_as_stations, ReplayOptions};

pub struct SoakOptions {
    pub records: Vec<Record>,
    /// RSUs `<rsu>-1 … <rsu>-N`, RSU k sending as station `station_base + k − 1`.
    pub rsu: String,
    pub rsus: usize,
    pub station_base: u32,
    pub duration: Duration,
    pub nats: String,
    pub mqtt_host: String,
    pub mqtt_port: u16,
    /// Flushed once before the soak, never during it.
    pub redis_url: String,
    /// Processes whose resident memory is sampled, as label=pid.
    pub processes: Vec<super::CpuGroup>,
    pub out_dir: PathBuf,
}

/// One minute of the soak: the frames that came out in it and the memory at its end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SoakMinute {
    pub minute: u32,
    pub latency: Option<Latency>,
    /// Resident memory per process label, MiB.
    pub rss_mib: BTreeMap<String, f64>,
    /// What JetStream stores for the account (every stream), MiB, and its messages.
    pub jetstream_mib: f64,
    pub jetstream_messages: u64,
}

/// First and last window of the soak compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Flatness {
    /// Minutes per window; the first minute (warm-up) is not in the first window.
    pub window_minutes: u32,
    pub p95_first_ms: f64,
    pub p95_last_ms: f64,
    /// Per process: mean RSS of the first and last window, MiB.
    pub rss_first_mib: BTreeMap<String, f64>,
    pub rss_last_mib: BTreeMap<String, f64>,
    pub flat: bool,
    /// What was not flat.
    pub grew: Vec<String>,
}

/// Latency may rise this much from the first window to the last (and 2 ms besides: noise).
pub const P95_GROWTH: f64 = 0.25;
/// Memory may rise this much (and 16 MiB besides: allocator and caches settling).
pub const RSS_GROWTH: f64 = 0.20;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SoakResult {
    pub rsus: usize,
    pub minutes_planned: u32,
    pub rounds: u32,
    pub cpms_in: u64,
    pub frames_out: u64,
    pub minutes: Vec<SoakMinute>,
    pub flatness: Option<Flatness>,
}

/// Runs the soak, writes `soak.json` and `soak-minutes.csv` into the results folder.
pub async fn soak(opts: &SoakOptions) -> anyhow::Result<SoakResult> {
    let rsus = super::numbered_rsus(&opts.rsu, opts.rsus);
    let stations = super::numbered_stations(opts.station_base, opts.rsus)?;
    let client = cits_client::auth::connect_nats(&opts.nats).await?;
    let js = async_nats::jetstream::new(client.clone());
    let mut redis = redis::Client::open(opts.redis_url.as_str())?.get_connection().context("Redis")?;
    clean_state(&client, &mut redis).await?;

    let mut done_sub = client.subscribe("cits.done.*").await?;
    client.flush().await?;
    let prefix = format!("{}-", opts.rsu);
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let collector = tokio::spawn(async move {
        let mut done: Vec<(u64, FrameDone)> = Vec::new();
        loop {
            tokio::select! {
                Some(msg) = done_sub.next() => {
                    if let Ok(frame) = FrameDone::decode(msg.payload.as_ref()) {
                        if frame.rsu_id.starts_with(&prefix) {
                            done.push((cits::shared::time::now_us(), frame));
                        }
                    }
                }
                _ = &mut stopped => break,
            }
        }
        done
    });

    let started = Instant::now();
    let started_us = cits::shared::time::now_us();
    // Memory at the end of every minute, until the soak ends.
    let (sample_tx, mut sample_rx) = tokio::sync::mpsc::unbounded_channel();
    let sampler = {
        let (js, processes) = (js.clone(), opts.processes.clone());
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            tick.tick().await;
            loop {
                tick.tick().await;
                if sample_tx.send(memory_now(&processes, &js).await).is_err() {
                    break;
                }
            }
        })
    };

    let replay_opts = ReplayOptions {
        mqtt_host: opts.mqtt_host.clone(),
        mqtt_port: opts.mqtt_port,
        rsus: rsus.clone(),
        speed: 1.0,
        qos: 0,
        progress: false,
        auth: cits_client::auth::auth_dir(),
        wire: Default::default(),
        mqtt_ca: cits_client::tls::mqtt_ca_from_env(),
    };
    let (mut sent, mut published_at_us, mut rounds) = (Vec::new(), Vec::new(), 0u32);
    // The last round is what fits in the time left; less than a few seconds is no round.
    loop {
        let left = opts.duration.saturating_sub(started.elapsed());
        if left < Duration::from_secs(5) {
            break;
        }
        let records = super::first_seconds(&opts.records, left.as_secs_f64());
        let summary = replay_as_stations(&records, &replay_opts, &stations).await?;
        sent.extend(facts(&summary.records)?);
        published_at_us.extend(summary.published_at_us);
        rounds += 1;
        eprintln!("soak: round {rounds} sent, {:.0} of {} s", started.elapsed().as_secs_f64(), opts.duration.as_secs());
    }
    // The last frames out, and the last minute's sample.
    tokio::time::sleep(Duration::from_secs(5)).await;
    sampler.abort();
    let mut memory = Vec::new();
    while let Ok(m) = sample_rx.try_recv() {
        memory.push(m);
    }
    let _ = stop.send(());
    let done = collector.await?;
    // Every round's CPMs in one list, record by record once per RSU, as sent: [`pair`] pairs by
    // RSU and reference time, which differ from round to round (each round is made live anew).
    let rows = pair(&sent, &rsus, &published_at_us, &done);
    // Whole minutes of the soak only: the last frames come out after its end.
    let minutes_planned = (opts.duration.as_secs() / 60) as u32;
    let mut minutes = per_minute(&rows, started_us, memory);
    minutes.truncate(minutes_planned as usize);
    let result = SoakResult {
        rsus: opts.rsus,
        minutes_planned,
        rounds,
        cpms_in: published_at_us.len() as u64,
        frames_out: rows.len() as u64,
        flatness: flatness(&minutes),
        minutes,
    };
    std::fs::write(opts.out_dir.join("soak.json"), serde_json::to_string_pretty(&result)?)?;
    std::fs::write(opts.out_dir.join("soak-minutes.csv"), minutes_csv(&result))?;
    Ok(result)
}

#[derive(Debug, Clone)]
struct MemorySample {
    rss_mib: BTreeMap<String, f64>,
    jetstream_mib: f64,
    jetstream_messages: u64,
}

async fn memory_now(processes: &[super::CpuGroup], js: &async_nats::jetstream::Context) -> MemorySample {
    let rss_mib = processes.iter().map(|g| (g.label.clone(), super::cpu::resident_mib(&g.pids))).collect();
    let mut jetstream_messages = 0;
    for spec in cits_jetstream::STREAMS {
        if let Ok(mut stream) = js.get_stream(spec.name).await {
            if let Ok(info) = stream.info().await {
                jetstream_messages += info.state.messages;
            }
        }
    }
    let jetstream_mib = js.query_account().await.map_or(f64::NAN, |a| a.storage as f64 / 1_048_576.0);
    MemorySample { rss_mib, jetstream_mib, jetstream_messages }
}

/// Frames by the minute they came out of the last stage, with the memory sampled at its end.
fn per_minute(rows: &[Row], started_us: u64, memory: Vec<MemorySample>) -> Vec<SoakMinute> {
    let mut by_minute: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    for r in rows {
        let (Some(e2e), Some(out)) = (r.end_to_end_us(), r.trace.last()) else { continue };
        let minute = (out.sent_at_us.saturating_sub(started_us) / 60_000_000) as u32;
        by_minute.entry(minute).or_default().push(e2e);
    }
    let n = (by_minute.keys().next_back().map_or(0, |m| m + 1) as usize).max(memory.len());
    (0..n)
        .map(|m| {
            let sample = memory.get(m);
            SoakMinute {
                minute: m as u32,
                latency: by_minute.get(&(m as u32)).and_then(|s| Latency::of(s)),
                rss_mib: sample.map(|s| s.rss_mib.clone()).unwrap_or_default(),
                jetstream_mib: sample.map_or(f64::NAN, |s| s.jetstream_mib),
                jetstream_messages: sample.map_or(0, |s| s.jetstream_messages),
            }
        })
        .collect()
}

/// The first window (after a minute of warm-up) against the last; None for a soak too short to
/// have both (three minutes).
fn flatness(minutes: &[SoakMinute]) -> Option<Flatness> {
    let measured: Vec<&SoakMinute> = minutes.iter().filter(|m| m.latency.is_some() && !m.rss_mib.is_empty()).collect();
    if measured.len() < 3 {
        return None;
    }
    let w = ((measured.len() - 1) / 6).clamp(1, 10);
    let (first, last) = (&measured[1..1 + w], &measured[measured.len() - w..]);
    // p95 of a window: the worst minute's p95 would overstate one hiccup; the mean does not.
    let p95 = |ms: &[&SoakMinute]| {
        ms.iter().filter_map(|m| m.latency.as_ref()).map(|l| l.p95_ms).sum::<f64>() / ms.len() as f64
    };
    let rss = |ms: &[&SoakMinute]| -> BTreeMap<String, f64> {
        let mut sum: BTreeMap<String, f64> = BTreeMap::new();
        for m in ms {
            for (label, mib) in &m.rss_mib {
                *sum.entry(label.clone()).or_default() += mib / ms.len() as f64;
            }
        }
        sum
    };
    let (p95_first_ms, p95_last_ms) = (p95(first), p95(last));
    let (rss_first_mib, rss_last_mib) = (rss(first), rss(last));
    let mut grew = Vec::new();
    if p95_last_ms > p95_first_ms * (1.0 + P95_GROWTH) + 2.0 {
        grew.push(format!("p95 {p95_first_ms:.1} → {p95_last_ms:.1} ms"));
    }
    for (label, before) in &rss_first_mib {
        let after = rss_last_mib.get(label).copied().unwrap_or(0.0);
        if after > before * (1.0 + RSS_GROWTH) + 16.0 {
            grew.push(format!("{label} {before:.0} → {after:.0} MiB"));
        }
    }
    Some(Flatness {
        window_minutes: w as u32,
        p95_first_ms,
        p95_last_ms,
        rss_first_mib,
        rss_last_mib,
        flat: grew.is_empty(),
        grew,
    })
}

/// The processes sampled in any minute, in name order.
fn labels(result: &SoakResult) -> Vec<String> {
    let labels: std::collections::BTreeSet<&String> = result.minutes.iter().flat_map(|m| m.rss_mib.keys()).collect();
    labels.into_iter().cloned().collect()
}

/// One minute as table cells: minute, frames, p50, p95, p99, JetStream MiB and messages, then
/// each process's RSS (`missing` where there is no value).
fn cells(m: &SoakMinute, labels: &[String], missing: &str) -> Vec<String> {
    let l = m.latency.as_ref();
    let f = |v: Option<f64>| v.map_or(missing.to_string(), |v| format!("{v:.1}"));
    let mut row = vec![
        m.minute.to_string(),
        l.map_or(0, |l| l.count).to_string(),
        f(l.map(|l| l.p50_ms)),
        f(l.map(|l| l.p95_ms)),
        f(l.map(|l| l.p99_ms)),
        f(Some(m.jetstream_mib).filter(|v| v.is_finite())),
        m.jetstream_messages.to_string(),
    ];
    row.extend(labels.iter().map(|label| f(m.rss_mib.get(label).copied())));
    row
}

fn minutes_csv(result: &SoakResult) -> String {
    let labels = labels(result);
    let mut out = String::from("minute,frames,p50_ms,p95_ms,p99_ms,jetstream_mib,jetstream_messages");
    for l in &labels {
        let _ = write!(out, ",rss_{l}_mib");
    }
    out.push('\n');
    for m in &result.minutes {
        out.push_str(&cells(m, &labels, "").join(","));
        out.push('\n');
    }
    out
}

/// The soak's section of the report: a row every few minutes and the verdict.
pub(super) fn section(result: &SoakResult) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## Soak: {} RSUs at 1x for {} min ({} rounds of the recording, {} of {} frames out)\n",
        result.rsus, result.minutes_planned, result.rounds, result.frames_out, result.cpms_in
    );
    let labels = labels(result);
    let _ = write!(s, "| minute | frames | p50 ms | p95 ms | p99 ms | JetStream MiB | messages |");
    for l in &labels {
        let _ = write!(s, " {l} RSS MiB |");
    }
    let _ = writeln!(s, "\n|{}", "---|".repeat(7 + labels.len()));
    let every = (result.minutes.len() / 12).max(1);
    for (i, m) in result.minutes.iter().enumerate() {
        if i % every == 0 || i + 1 == result.minutes.len() {
            let _ = writeln!(s, "| {} |", cells(m, &labels, "–").join(" | "));
        }
    }
    match &result.flatness {
        Some(f) => {
            let _ = writeln!(
                s,
                "\n**{}**: first {w} min after the first against the last {w} min: p95 {:.1} → {:.1} ms; {}.{}",
                if f.flat { "Flat" } else { "Not flat" },
                f.p95_first_ms,
                f.p95_last_ms,
                f.rss_first_mib
                    .iter()
                    .map(|(l, a)| format!("{l} {a:.0} → {:.0} MiB", f.rss_last_mib.get(l).copied().unwrap_or(0.0)))
                    .collect::<Vec<_>>()
                    .join(", "),
                if f.grew.is_empty() { String::new() } else { format!(" Grew: {}.", f.grew.join("; ")) },
                w = f.window_minutes,
            );
        }
        None => s.push_str("\nToo short to compare a first and a last window (three minutes at least).\n"),
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn minute(m: u32, p95: f64, nats: f64) -> SoakMinute {
        SoakMinute {
            minute: m,
            latency: Some(Latency {
                count: 2400,
                min_ms: 1.0,
                max_ms: p95 * 2.0,
                mean_ms: p95 / 2.0,
                std_ms: 1.0,
                p50_ms: p95 / 2.0,
                p95_ms: p95,
                p99_ms: p95 * 1.5,
            }),
            rss_mib: BTreeMap::from([("nats".to_string(), nats)]),
            jetstream_mib: 10.0,
            jetstream_messages: 1000,
        }
    }

    #[test]
    fn a_soak_that_keeps_its_pace_and_memory_is_flat() {
        let minutes: Vec<SoakMinute> =
            (0..60).map(|m| minute(m, 20.0 + (m % 3) as f64, 110.0 + (m % 2) as f64)).collect();
        let f = flatness(&minutes).unwrap();
        assert_eq!(f.window_minutes, 9);
        assert!(f.flat, "{f:?}");
    }

    #[test]
    fn latency_or_memory_that_climbs_is_not_flat() {
        let slower: Vec<SoakMinute> = (0..60).map(|m| minute(m, 20.0 + m as f64 * 0.5, 110.0)).collect();
        let f = flatness(&slower).unwrap();
        assert!(!f.flat && f.grew[0].starts_with("p95"), "{f:?}");
        let growing: Vec<SoakMinute> = (0..60).map(|m| minute(m, 20.0, 100.0 + m as f64)).collect();
        let f = flatness(&growing).unwrap();
        assert!(!f.flat && f.grew[0].starts_with("nats"), "{f:?}");
        // The first minute (compiling, caches filling) is not held against the rest.
        let mut warm_up: Vec<SoakMinute> = (0..60).map(|m| minute(m, 20.0, 110.0)).collect();
        warm_up[0] = minute(0, 400.0, 40.0);
        assert!(flatness(&warm_up).unwrap().flat);
        assert!(flatness(&warm_up[..2]).is_none(), "too short");
    }

    #[test]
    fn the_section_shows_the_verdict_and_what_grew() {
        let growing: Vec<SoakMinute> = (0..30).map(|m| minute(m, 20.0, 100.0 + 2.0 * m as f64)).collect();
        let result = SoakResult {
            rsus: 4,
            minutes_planned: 30,
            rounds: 9,
            cpms_in: 4 * 18_000,
            frames_out: 4 * 18_000,
            flatness: flatness(&growing),
            minutes: growing,
        };
        let text = section(&result);
        assert!(text.contains("**Not flat**") && text.contains("Grew: nats"), "{text}");
        assert!(minutes_csv(&result).starts_with("minute,frames,p50_ms,p95_ms,p99_ms,jetstream_mib,jetstream_messages,rss_nats_mib\n0,2400,10.0,20.0,30.0,10.0,1000,100.0\n"), "{}", minutes_csv(&result));
        assert!(text.contains("| 0 | 2400 | 10.0 | 20.0 | 30.0 | 10.0 | 1000 | 100.0 |"), "{text}");
    }
}

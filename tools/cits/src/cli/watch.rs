//! `cits watch`: print what the pipeline puts out (location frames, DENMs as an RSU receives
//! them, dead letters) until it goes idle, then a summary with latencies per stage and hop.
//! `cits demo` observes its replay with the same [`observe`].

use std::time::Duration;

use cits::proto::LocationsFrame;
use cits_tools::{demo, watch};
use futures::StreamExt as _;
use prost::Message as _;

#[derive(clap::Args)]
pub struct WatchArgs {
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
}

pub async fn run(args: WatchArgs) -> anyhow::Result<()> {
    let WatchArgs { nats, mqtt, rsus, idle_ms, output } = args;
    let client = cits_tools::auth::connect_nats(&nats).await?;
    let denms = subscribe_denms(&mqtt, &rsus).await?;
    let seen = observe(&client, denms, Duration::from_millis(idle_ms), output.print(), |_| false).await?;
    print_summary(&seen);
    Ok(())
}

#[derive(clap::Args)]
pub struct OutputArgs {
    /// Only print the summary.
    #[arg(long)]
    pub quiet: bool,
    /// Print every object location too (not only DENMs).
    #[arg(long)]
    locations: bool,
}

impl OutputArgs {
    /// What these flags ask `observe` to print.
    pub fn print(&self) -> Print {
        match (self.quiet, self.locations) {
            (true, _) => Print::Nothing,
            (false, true) => Print::Locations,
            (false, false) => Print::Denms,
        }
    }
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
pub enum Print {
    Nothing,
    Denms,
    Locations,
}

/// Frames one stage put out and their latency from the decoder's receipt (µs).
#[derive(Default)]
pub struct StageOutput {
    pub frames: u64,
    latency: Vec<u64>,
    /// Complete traces (kept for the last stage: time in each stage and each hop).
    traces: Vec<Vec<cits::proto::StageTrace>>,
}

/// What the pipeline put out during a replay.
pub struct Observed {
    pub frames: u64,
    locations: u64,
    dead_letters: u64,
    denms: u64,
    collector: StageOutput,
    /// One per entry of [`DOWNSTREAM`].
    pub downstream: Vec<StageOutput>,
}

/// Collects location frames (printed), downstream stages' frames and dead letters until `idle`
/// passes without any, or `stop` says enough.
pub async fn observe(
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

pub fn print_summary(seen: &Observed) {
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

pub async fn subscribe_denms(
    mqtt: &str,
    rsus: &[String],
) -> anyhow::Result<tokio::sync::mpsc::Receiver<cits_tools::denms::Received>> {
    let (host, port) = super::split_host_port(mqtt)?;
    let auth = cits_tools::auth::auth_dir();
    cits_tools::denms::subscribe(
        &host,
        port,
        &format!("cits-watch-{}", std::process::id()),
        rsus,
        auth.as_deref(),
        cits_tools::tls::mqtt_ca_from_env().as_deref(),
    )
    .await
}

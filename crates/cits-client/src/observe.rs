//! The pipeline observed from outside until it is done: location frames, each stage's output
//! and DENMs as an RSU receives them, printed as they come; then a summary with latencies per
//! stage and hop (`cits watch`, `cits demo`).
//!
//! What the summary counts — frames through the pipeline, DENMs, dead letters, the latencies of
//! every frame done — comes from the JetStream streams that keep them (`CITS_DONE`, `CITS_DENM`,
//! `CITS_DLQ`), read from just after what they held when the watcher started
//! ([`crate::outbox`]): a subscription on core NATS or MQTT misses what is published while its
//! connection is cut (a server of a cluster killed), a stream does not. What the watcher itself
//! saw on core NATS (per-stage frames, object locations) and over MQTT (the DENMs it printed) is
//! said apart from it.

use std::time::Duration;

use cits::proto::LocationsFrame;
use futures::StreamExt as _;
use prost::Message as _;

use crate::outbox::{self, Outbox};
use crate::watch;

/// How long the pipeline may store nothing new while frames wait in its stage inputs (or while
/// that cannot be told) before a watcher stops: a killed provider's or host's frames are
/// redelivered after 10 s, a server of a cluster is back well within it.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// Stages after the collector whose frames the watcher sees on core NATS: (stage, output subjects).
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

/// Frames one stage put out and their latency from the decoder's receipt (µs), as the watcher
/// saw them on core NATS.
#[derive(Default)]
pub struct StageOutput {
    pub frames: u64,
    latency: Vec<u64>,
}

/// When `observe` stops.
#[derive(Clone, Copy, Debug)]
pub enum Until {
    /// Once `expected` frames of the RSUs followed are done — stored in `CITS_DONE`, or dead
    /// letters — or when nothing new was stored for `patience`.
    Frames { expected: u64, patience: Duration },
    /// Once nothing new came for `idle` and the stage inputs hold no frames for their stages, or
    /// nothing new came for `patience`.
    Quiet { idle: Duration, patience: Duration },
}

/// Why `observe` stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// Every frame expected is done.
    Complete,
    /// Nothing new and nothing left to do (or, the streams unreadable, nothing new on core NATS).
    Quiet,
    /// Nothing new for the patience, with this many frames still in the stage inputs (None:
    /// could not be told).
    GaveUp {
        backlog: Option<u64>,
    },
    Interrupted,
}

/// What the pipeline put out while observed.
pub struct Observed {
    /// Counted from the streams (None: they could not be read, see `watcher`).
    pub stored: Option<crate::outbox::Tally>,
    /// Seen by this watcher on core NATS and over MQTT.
    pub watcher: Watcher,
    pub ended: Ended,
    /// When it stopped, and how long nothing new had come by then.
    pub ended_at: std::time::Instant,
    pub quiet_for: Duration,
}

/// What the watcher's own subscriptions saw.
pub struct Watcher {
    pub frames: u64,
    locations: u64,
    dead_letters: u64,
    /// DENMs received over MQTT.
    pub denms: u64,
    collector: StageOutput,
    /// One per entry of [`DOWNSTREAM`].
    pub downstream: Vec<StageOutput>,
}

impl Observed {
    /// Frames through the whole pipeline: what `CITS_DONE` stored, or what the watcher saw.
    pub fn frames_done(&self) -> u64 {
        match &self.stored {
            Some(t) => t.frames(),
            None => self.watcher.downstream.last().map_or(0, |d| d.frames),
        }
    }
}

/// The streams `observe` counts from: each followed from just after what it held at [`Streams::start`].
pub struct Streams {
    js: async_nats::jetstream::Context,
    /// The last sequence each held at the start.
    before: std::collections::BTreeMap<Outbox, u64>,
    messages: tokio::sync::mpsc::Receiver<(Outbox, async_nats::jetstream::Message)>,
    tally: crate::outbox::Tally,
}

impl Streams {
    /// Follows `CITS_DONE`, `CITS_DENM` and `CITS_DLQ` from now on, counting `rsus`' messages
    /// (every RSU's when None). None, said on stderr, when a stream cannot be read.
    pub async fn start(js: &async_nats::jetstream::Context, rsus: Option<&[String]>) -> Option<Self> {
        let mut before = std::collections::BTreeMap::new();
        for outbox in Outbox::ALL {
            match outbox::last_sequence(js, outbox.stream()).await {
                Ok(last) => before.insert(outbox, last),
                Err(e) => {
                    eprintln!("cannot read stream {} ({e:#}): counting what this watcher sees", outbox.stream());
                    return None;
                }
            };
        }
        let (tx, messages) = tokio::sync::mpsc::channel(1024);
        for (&outbox, &last) in &before {
            let mut follower = outbox::follow(js.clone(), outbox.stream(), last + 1);
            let tx = tx.clone();
            tokio::spawn(async move {
                while let Some(m) = follower.recv().await {
                    if tx.send((outbox, m)).await.is_err() {
                        return;
                    }
                }
            });
        }
        Some(Self { js: js.clone(), before, messages, tally: crate::outbox::Tally::new(rsus) })
    }

    /// Counts a message read; prints it if a dead letter.
    fn take(&mut self, outbox: Outbox, m: &async_nats::jetstream::Message) {
        let Ok(info) = m.info() else { return };
        let sequence = info.stream_sequence;
        if let outbox::Added::DeadLetter(letter) = self.tally.add(outbox, sequence, m.subject.as_str(), &m.payload) {
            println!("{}", watch::format_dead_letter(&letter.encode_to_vec()));
        }
    }

    /// Reads on until every stream is read up to what it holds now (the DENMs stored with the
    /// last FrameDone, say), for at most `limit`.
    async fn catch_up(&mut self, limit: Duration) {
        let give_up = tokio::time::Instant::now() + limit;
        let mut ends = std::collections::BTreeMap::new();
        for outbox in Outbox::ALL {
            let end = loop {
                match outbox::last_sequence(&self.js, outbox.stream()).await {
                    Ok(end) => break Some(end),
                    Err(_) if tokio::time::Instant::now() < give_up => {
                        tokio::time::sleep(Duration::from_millis(500)).await
                    }
                    Err(e) => {
                        eprintln!("cannot tell how far stream {} goes ({e:#})", outbox.stream());
                        break None;
                    }
                }
            };
            ends.extend(end.map(|e| (outbox, e)));
        }
        loop {
            let behind: Vec<Outbox> = ends
                .iter()
                .filter(|(o, end)| self.tally.read_to.get(o).copied().unwrap_or(self.before[o]) < **end)
                .map(|(o, _)| *o)
                .collect();
            if behind.is_empty() {
                return;
            }
            match tokio::time::timeout_at(give_up, self.messages.recv()).await {
                Ok(Some((outbox, m))) => self.take(outbox, &m),
                _ => {
                    let names: Vec<&str> = behind.iter().map(|o| o.stream()).collect();
                    eprintln!("not all of {} read within {limit:?}", names.join(", "));
                    return;
                }
            }
        }
    }
}

/// Collects location frames (printed), downstream stages' frames, DENMs received over MQTT
/// (printed) and, from `streams`, frames done, DENMs stored and dead letters (printed) until
/// `until` says enough.
pub async fn observe(
    nats: &async_nats::Client,
    mut streams: Option<Streams>,
    mut denms: tokio::sync::mpsc::Receiver<crate::denms::Received>,
    print: Print,
    until: Until,
) -> anyhow::Result<Observed> {
    let mut frames_sub = nats.subscribe("cits.locations.>").await?;
    let mut downstream_subs = Vec::new();
    for (i, (_, subject)) in DOWNSTREAM.iter().enumerate() {
        downstream_subs.push(nats.subscribe(*subject).await?.map(move |m| (i, m)));
    }
    let mut downstream_sub = futures::stream::select_all(downstream_subs);
    let mut risks_sub = nats.subscribe("cits.risks.>").await?;
    let mut dlq_sub = nats.subscribe("cits.dlq.>").await?;
    let mut seen = Watcher {
        frames: 0,
        locations: 0,
        dead_letters: 0,
        denms: 0,
        collector: StageOutput::default(),
        downstream: DOWNSTREAM.iter().map(|_| StageOutput::default()).collect(),
    };
    let mut printer = DenmPrinter { print, risks: Default::default(), announced: Default::default() };
    let mut last_new = std::time::Instant::now();
    let mut backlog_asked: Option<(std::time::Instant, Option<u64>)> = None;
    let mut denms_open = true;
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    let ended = loop {
        tokio::select! {
            msg = frames_sub.next() => {
                let Some(msg) = msg else { break Ended::Interrupted };
                last_new = std::time::Instant::now();
                seen.located(&msg, print);
            }
            msg = downstream_sub.next() => {
                let Some((i, msg)) = msg else { break Ended::Interrupted };
                last_new = std::time::Instant::now();
                seen.downstream_frame(i, &msg);
            }
            msg = risks_sub.next() => {
                let Some(msg) = msg else { break Ended::Interrupted };
                if let Ok(frame) = cits::proto::CollisionRiskFrame::decode(msg.payload.as_ref()) {
                    printer.risks.insert(frame.rsu_id, frame.risks);
                }
            }
            denm = denms.recv(), if denms_open => {
                let Some(denm) = denm else { denms_open = false; continue };
                last_new = std::time::Instant::now();
                seen.denms += 1;
                printer.show(&denm);
            }
            msg = dlq_sub.next() => {
                let Some(msg) = msg else { break Ended::Interrupted };
                last_new = std::time::Instant::now();
                seen.dead_letters += 1;
                // Printed from the stream when it is read (it keeps what a cut connection misses).
                if streams.is_none() {
                    println!("{}", watch::format_dead_letter(&msg.payload));
                }
            }
            Some((outbox, m)) = async {
                match streams.as_mut() {
                    Some(s) => s.messages.recv().await,
                    None => std::future::pending().await,
                }
            } => {
                last_new = std::time::Instant::now();
                if let Some(s) = streams.as_mut() {
                    s.take(outbox, &m);
                }
            }
            _ = tick.tick() => {}
            _ = tokio::signal::ctrl_c() => break Ended::Interrupted,
        }
        if let Some(ended) = end_of(until, streams.as_ref(), &seen, last_new.elapsed(), &mut backlog_asked).await {
            break ended;
        }
    };
    let (ended_at, quiet_for) = (std::time::Instant::now(), last_new.elapsed());
    let stored = match streams {
        Some(mut s) => {
            s.catch_up(Duration::from_secs(10)).await;
            Some(s.tally)
        }
        None => None,
    };
    // The DENMs of the last frames, on their way over MQTT.
    let settle = if ended != Ended::Interrupted && denms_open { Duration::from_millis(500) } else { Duration::ZERO };
    while let Ok(Some(denm)) = tokio::time::timeout(settle, denms.recv()).await {
        seen.denms += 1;
        printer.show(&denm);
    }
    Ok(Observed { stored, watcher: seen, ended, ended_at, quiet_for })
}

/// Whether [`observe`] is done, `quiet` after the last thing new; `backlog_asked`: when the
/// stage inputs' backlog was last asked for (at most once a second) and what it was.
async fn end_of(
    until: Until,
    streams: Option<&Streams>,
    seen: &Watcher,
    quiet: Duration,
    backlog_asked: &mut Option<(std::time::Instant, Option<u64>)>,
) -> Option<Ended> {
    match (until, streams) {
        (Until::Frames { expected, .. }, Some(s)) if s.tally.frames() + s.tally.dead_letters() >= expected => {
            Some(Ended::Complete)
        }
        // Without the streams, as far as the watcher can tell.
        (Until::Frames { expected, .. }, None) if seen.downstream.last().is_some_and(|d| d.frames >= expected) => {
            Some(Ended::Complete)
        }
        (Until::Frames { .. }, None) if quiet >= Duration::from_secs(5) => Some(Ended::Quiet),
        (Until::Frames { patience, .. }, Some(s)) if quiet >= patience => {
            Some(Ended::GaveUp { backlog: backlog(&s.js).await })
        }
        (Until::Quiet { idle, .. }, None) if quiet >= idle => Some(Ended::Quiet),
        (Until::Quiet { idle, patience }, Some(s)) if quiet >= idle => {
            // Quiet: done if the stage inputs hold nothing for their stages (asked once a
            // second); a frame waiting for its redelivery after a fault is not done.
            if backlog_asked.is_none_or(|(at, _)| at.elapsed() >= Duration::from_secs(1)) {
                *backlog_asked = Some((std::time::Instant::now(), backlog(&s.js).await));
            }
            let backlog = backlog_asked.and_then(|(_, b)| b);
            if backlog == Some(0) {
                return Some(Ended::Quiet);
            }
            (quiet >= patience).then_some(Ended::GaveUp { backlog })
        }
        _ => None,
    }
}

/// DENMs as they arrive (unless printing nothing), each with the time to collision of the risk
/// it announces: each RSU's latest risks are kept for that.
struct DenmPrinter {
    print: Print,
    risks: std::collections::HashMap<String, Vec<cits::proto::CollisionRisk>>,
    announced: std::collections::HashSet<(u32, u16)>,
}

impl DenmPrinter {
    fn show(&mut self, denm: &crate::denms::Received) {
        if self.print != Print::Nothing {
            let current = self.risks.get(&denm.rsu).map(Vec::as_slice).unwrap_or_default();
            println!("{}", watch::format_denm(&denm.rsu, &denm.uper, current, &mut self.announced));
        }
    }
}

impl Watcher {
    /// A location frame: counted, its latency kept, printed when asked.
    fn located(&mut self, msg: &async_nats::Message, print: Print) {
        match LocationsFrame::decode(msg.payload.as_ref()) {
            Ok(frame) => {
                self.frames += 1;
                self.locations += frame.locations.len() as u64;
                self.collector.frames += 1;
                self.collector.latency.extend(watch::pipeline_latency_us(&frame.trace));
                if print == Print::Locations {
                    print!("{}", watch::format_frame(&frame));
                }
            }
            Err(e) => eprintln!("undecodable frame on {}: {e}", msg.subject),
        }
    }

    /// A frame of the `i`th stage after the collector ([`DOWNSTREAM`]).
    fn downstream_frame(&mut self, i: usize, msg: &async_nats::Message) {
        match watch::trace_of(&msg.payload) {
            Ok(trace) => {
                self.downstream[i].frames += 1;
                self.downstream[i].latency.extend(watch::pipeline_latency_us(&trace));
            }
            Err(e) => eprintln!("undecodable frame on {}: {e}", msg.subject),
        }
    }
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

/// The summary: the headline from the streams (frames through the pipeline, of `expected` if
/// known; DENMs stored and how many this watcher received over MQTT as `mqtt_rsus`; dead
/// letters), how long it waited (after `replay_ended`, if a replay), the latencies of every
/// frame done, then what the watcher saw itself.
pub fn print_summary(
    seen: &Observed,
    expected: Option<u64>,
    mqtt_rsus: &[String],
    replay_ended: Option<std::time::Instant>,
) {
    let w = &seen.watcher;
    let of = |n: u64| expected.map_or_else(|| n.to_string(), |e| format!("{n} of {e}"));
    let watcher_stages: String = DOWNSTREAM
        .iter()
        .zip(&w.downstream)
        .map(|((stage, _), out)| format!(", {} {stage} frames", out.frames))
        .collect();
    let watcher_line = format!(
        "{} location frames, {} object locations{watcher_stages}, {} DENMs received over MQTT, {} dead letters",
        w.frames, w.locations, w.denms, w.dead_letters
    );
    let latencies = match &seen.stored {
        Some(t) => {
            let stored_for_mqtt = t.denms_of(mqtt_rsus);
            let received = if w.denms == t.denms() && stored_for_mqtt == t.denms() {
                "all received over MQTT by this watcher".to_string()
            } else {
                format!("{} received over MQTT by this watcher as {}", w.denms, mqtt_rsus.join(", "))
            };
            println!(
                "--- {} frames through the pipeline (stream CITS_DONE), {} DENMs stored (stream CITS_DENM; {received}), {} dead letters (stream CITS_DLQ)",
                of(t.frames()),
                t.denms(),
                t.dead_letters()
            );
            if t.duplicates > 0 {
                println!("--- {} FrameDones stored again for a frame already done (counted once)", t.duplicates);
            }
            t.latencies_us()
        }
        None => {
            let done = w.downstream.last().map_or(0, |d| d.frames);
            println!(
                "--- {} frames through the pipeline, {} DENMs, {} dead letters — as seen by this watcher: the streams could not be read",
                of(done),
                w.denms,
                w.dead_letters
            );
            w.downstream.last().map(|d| d.latency.clone()).unwrap_or_default()
        }
    };
    println!("--- {}", waited(seen, replay_ended));
    print_latency("decoder in → DENM sender out", &latencies);
    if let Some(t) = watch::trend(&latencies) {
        println!(
            "--- backlog: {} (whole pipeline p50 {:.2} ms in the first tenth of the run, {:.2} ms in the last; {:+.1} ms per 1,000 frames)",
            if t.growing() { "GROWING — the pipeline does not keep up at this rate" } else { "none" },
            t.first_p50_ms,
            t.last_p50_ms,
            t.ms_per_1000
        );
    }
    // Where the time goes, from the complete traces: inside each stage and on each hop.
    let traces = seen.stored.as_ref().map(|t| t.traces.as_slice()).unwrap_or_default();
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
    // What the watcher's own subscriptions saw: the intermediate stages' outputs are on core
    // NATS only (and not at all with the seven stages fused).
    println!(
        "--- seen by this watcher on core NATS (misses what is published while its connection is cut): {watcher_line}"
    );
    print_latency("decoder in → collector out (seen by this watcher)", &w.collector.latency);
    for ((stage, _), out) in DOWNSTREAM.iter().zip(&w.downstream).take(DOWNSTREAM.len() - 1) {
        print_latency(&format!("decoder in → {stage} out (seen by this watcher)"), &out.latency);
    }
}

/// How long `observe` waited, and why it stopped.
fn waited(seen: &Observed, replay_ended: Option<std::time::Instant>) -> String {
    let after = replay_ended.map_or_else(String::new, |at| {
        format!(" {:.1} s after the replay ended", seen.ended_at.saturating_duration_since(at).as_secs_f64())
    });
    let quiet = seen.quiet_for.as_secs_f64();
    match seen.ended {
        Ended::Complete => format!("every frame done{after}"),
        Ended::Quiet if seen.stored.is_some() => {
            format!("stopped{after}: nothing new for {quiet:.1} s and no frame left in the stage inputs")
        }
        Ended::Quiet => format!("stopped{after}: nothing new on core NATS for {quiet:.1} s"),
        Ended::GaveUp { backlog } => {
            let left = match backlog {
                Some(0) => "no frame left in the stage inputs".to_string(),
                Some(n) => format!("{n} frames still in the stage inputs"),
                None => "what the stage inputs hold unknown".to_string(),
            };
            format!("gave up{after}: nothing new stored for {quiet:.1} s, {left}")
        }
        Ended::Interrupted => format!("interrupted{after}"),
    }
}

/// [`outbox::backlog`], None if it cannot be told within 5 s.
async fn backlog(js: &async_nats::jetstream::Context) -> Option<u64> {
    tokio::time::timeout(Duration::from_secs(5), outbox::backlog(js)).await.ok()?.ok()
}

pub async fn subscribe_denms(
    mqtt: &str,
    rsus: &[String],
) -> anyhow::Result<tokio::sync::mpsc::Receiver<crate::denms::Received>> {
    let (host, port) = crate::split_host_port(mqtt)?;
    let auth = crate::auth::auth_dir();
    crate::denms::subscribe(
        &host,
        port,
        &format!("cits-watch-{}", std::process::id()),
        rsus,
        auth.as_deref(),
        crate::tls::mqtt_ca_from_env().as_deref(),
    )
    .await
}

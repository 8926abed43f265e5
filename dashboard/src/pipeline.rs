//! The Pipeline page: per stage, throughput and p50/p95 latency in the stage and on the hop
//! before it (from the traces FrameDone carries), backlog of its input stream's consumers per
//! partition, and dead letters with their reasons; end-to-end latency over time; what each RSU
//! sends, counted per message format as the decoder recognises it.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use async_nats::jetstream;
use futures::{StreamExt as _, TryStreamExt as _};
use prost::Message as _;
use serde::Serialize;

use cits::proto::{DeadLetter, FrameDone, StageTrace};
use cits_client::watch::{pipeline_latency_us, stats};

use crate::hub::Hub;

/// Latency figures cover the frames finished in the last `WINDOW_S` seconds.
const WINDOW_S: u64 = 10;
/// Latency-over-time chart: one point per second for this long.
const SERIES_S: u64 = 300;
/// Dead letters listed (newest), each inspectable.
const DEAD_LETTERS_KEPT: usize = 200;

/// The stage that consumes each input stream (the fused actor consumes CITS_CPM as "pipeline").
pub const STAGE_INPUTS: &[(&str, &str)] = &[
    ("decoder", "CITS_CPM"),
    ("collector", "CITS_DECODED"),
    ("assembler", "CITS_LOCATIONS"),
    ("map_matcher", "CITS_TRAJECTORIES"),
    ("predictor", "CITS_MATCHED"),
    ("collision_detector", "CITS_PREDICTED"),
    ("denm_sender", "CITS_RISKS"),
];

struct Sample {
    arrived_ms: u64,
    end_to_end_us: Option<u64>,
    /// (stage, in stage µs, hop before it µs — none for the first stage)
    stages: Vec<(String, u64, Option<u64>)>,
}

/// Latency and throughput from FrameDone traces.
#[derive(Default)]
pub struct Traces {
    samples: VecDeque<Sample>,
    /// Stage names in pipeline order, from the newest trace.
    order: Vec<String>,
    pub frames_total: u64,
}

#[derive(Serialize, Debug, Default, Clone, PartialEq)]
pub struct Latency {
    pub frames: usize,
    pub per_s: f64,
    pub p50_ms: Option<f64>,
    pub p95_ms: Option<f64>,
    pub hop_p50_ms: Option<f64>,
    pub hop_p95_ms: Option<f64>,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct SeriesPoint {
    pub t_s: u64,
    pub frames: usize,
    pub p50_ms: Option<f64>,
    pub p95_ms: Option<f64>,
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

impl Traces {
    pub fn record(&mut self, trace: &[StageTrace], arrived_ms: u64) {
        self.frames_total += 1;
        let mut stages = Vec::with_capacity(trace.len());
        for (i, t) in trace.iter().enumerate() {
            let hop = i.checked_sub(1).and_then(|p| t.received_at_us.checked_sub(trace[p].sent_at_us));
            stages.push((t.stage.clone(), t.sent_at_us.saturating_sub(t.received_at_us), hop));
        }
        if !trace.is_empty() {
            self.order = trace.iter().map(|t| t.stage.clone()).collect();
        }
        self.samples.push_back(Sample { arrived_ms, end_to_end_us: pipeline_latency_us(trace), stages });
        while self.samples.front().is_some_and(|s| s.arrived_ms + SERIES_S * 1000 < arrived_ms) {
            self.samples.pop_front();
        }
    }

    pub fn order(&self) -> &[String] {
        &self.order
    }

    fn window(&self, now_ms: u64) -> impl Iterator<Item = &Sample> {
        self.samples.iter().filter(move |s| s.arrived_ms + WINDOW_S * 1000 > now_ms)
    }

    /// End to end (first stage's receipt → last stage's send) over the window.
    pub fn end_to_end(&self, now_ms: u64) -> Latency {
        let v: Vec<u64> = self.window(now_ms).filter_map(|s| s.end_to_end_us).collect();
        latency(&v, &[])
    }

    /// One stage over the window.
    pub fn stage(&self, stage: &str, now_ms: u64) -> Latency {
        let mut in_stage = Vec::new();
        let mut hops = Vec::new();
        for s in self.window(now_ms) {
            for (name, us, hop) in &s.stages {
                if name == stage {
                    in_stage.push(*us);
                    hops.extend(*hop);
                }
            }
        }
        latency(&in_stage, &hops)
    }

    /// End-to-end latency per second, oldest first, seconds without frames left out.
    pub fn series(&self) -> Vec<SeriesPoint> {
        let mut by_s: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for s in &self.samples {
            by_s.entry(s.arrived_ms / 1000).or_default().extend(s.end_to_end_us);
        }
        by_s.into_iter()
            .map(|(t_s, v)| {
                let st = stats(&v);
                SeriesPoint {
                    t_s,
                    frames: v.len(),
                    p50_ms: st.as_ref().map(|s| ms(s.p50)),
                    p95_ms: st.as_ref().map(|s| ms(s.p95)),
                }
            })
            .collect()
    }
}

fn latency(in_stage: &[u64], hops: &[u64]) -> Latency {
    let s = stats(in_stage);
    let h = stats(hops);
    Latency {
        frames: in_stage.len(),
        per_s: in_stage.len() as f64 / WINDOW_S as f64,
        p50_ms: s.as_ref().map(|s| ms(s.p50)),
        p95_ms: s.as_ref().map(|s| ms(s.p95)),
        hop_p50_ms: h.as_ref().map(|s| ms(s.p50)),
        hop_p95_ms: h.as_ref().map(|s| ms(s.p95)),
    }
}

#[derive(Serialize, Debug, Default, Clone)]
pub struct Backlog {
    pub pending: u64,
    pub ack_pending: u64,
    pub redelivered: u64,
    pub partitions: Vec<PartitionBacklog>,
}

#[derive(Serialize, Debug, Clone)]
pub struct PartitionBacklog {
    pub consumer: String,
    pub filter: String,
    pub pending: u64,
    pub ack_pending: u64,
    pub redelivered: u64,
}

#[derive(Serialize, Debug, Clone)]
pub struct DeadLetterView {
    pub seq: u64,
    pub stage: String,
    pub reason: String,
    pub source_subject: String,
    pub failed_at_ms: u64,
    pub payload_bytes: usize,
}

#[derive(Serialize, Debug, Default)]
pub struct StageView {
    pub name: String,
    pub input: String,
    pub latency: Latency,
    pub backlog: Backlog,
    pub dead_letters: u64,
    pub reasons: BTreeMap<String, u64>,
}

/// Messages an RSU sent on its input subjects in one format, since the dashboard started.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct InputCount {
    pub rsu: String,
    /// As the decoder names it (`etsi_its::format::describe`), e.g. "CPM (TS 103 324), UPER" or
    /// "CPM (TS 103 324), UPER, container list with extension bit".
    pub format: String,
    pub messages: u64,
}

/// What the RSUs send, per RSU and format: their CPMs, CAMs and VAMs as they arrive (the
/// decoder recognises each message the same way, see `etsi_its::format::detect`).
#[derive(Default)]
pub struct Inputs {
    counts: BTreeMap<(String, String), u64>,
}

impl Inputs {
    pub fn record(&mut self, subject: &str, payload: &[u8]) {
        let Ok((_, rsu)) = cits::subjects::ingest_of_subject(subject) else { return };
        // Down to a CPM's container-list encoding: both are sent in the field.
        let format = etsi_its::format::describe(payload);
        *self.counts.entry((rsu.to_string(), format)).or_insert(0) += 1;
    }

    pub fn view(&self) -> Vec<InputCount> {
        self.counts
            .iter()
            .map(|((rsu, format), n)| InputCount { rsu: rsu.clone(), format: format.clone(), messages: *n })
            .collect()
    }
}

/// A registered RSU as the pipeline reads it: its stations and the frame its CPMs give objects
/// in (the registry `cits-rsus`, `rsu.<rsu>` and `object_frame.<rsu>`).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct RsuView {
    pub rsu: String,
    pub stations: String,
    /// `enu` or `sensor` (`cits::stages::collector::object_frame::ObjectFrame`).
    pub object_frame: String,
    /// What that means, in a line.
    pub object_frame_means: String,
}

/// The RSUs of the registry, by name; a registry the collector would refuse says why.
pub fn rsu_views(registry: &BTreeMap<String, String>) -> Result<Vec<RsuView>, String> {
    use cits::stages::collector::object_frame::ObjectFrames;
    let frames = ObjectFrames::from_config("cits-rsus", registry.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .map_err(|e| e.reason)?;
    Ok(registry
        .iter()
        .filter_map(|(key, stations)| Some((key.strip_prefix("rsu.")?, stations)))
        .map(|(rsu, stations)| {
            let frame = frames.of(rsu);
            RsuView {
                rsu: rsu.to_string(),
                stations: stations.clone(),
                object_frame: frame.name().into(),
                object_frame_means: frame.describe().into(),
            }
        })
        .collect())
}

#[derive(Serialize, Debug, Default)]
pub struct PipelineView {
    /// The registered RSUs (refreshed every few seconds).
    pub rsus: Vec<RsuView>,
    pub stages: Vec<StageView>,
    pub end_to_end: Latency,
    pub series: Vec<SeriesPoint>,
    pub frames_total: u64,
    pub dead_letters_total: u64,
    pub dead_letters: Vec<DeadLetterView>,
    pub inputs: Vec<InputCount>,
    pub refreshed_at_ms: u64,
    pub error: Option<String>,
}

/// The part of a dead-letter reason that names its kind ("invalid UPER: …" → "invalid UPER").
pub fn reason_kind(reason: &str) -> String {
    let kind = reason.split([':', '(']).next().unwrap_or(reason).trim();
    let kind: String = kind.chars().take(60).collect();
    if kind.is_empty() {
        "unknown".into()
    } else {
        kind
    }
}

pub fn dead_letter_view(seq: u64, payload: &[u8]) -> DeadLetterView {
    match DeadLetter::decode(payload) {
        Ok(d) => DeadLetterView {
            seq,
            stage: d.stage,
            reason: d.reason,
            source_subject: d.source_subject,
            failed_at_ms: d.failed_at_us / 1000,
            payload_bytes: d.payload.len(),
        },
        Err(e) => DeadLetterView {
            seq,
            stage: "?".into(),
            reason: format!("undecodable dead letter: {e}"),
            source_subject: String::new(),
            failed_at_ms: 0,
            payload_bytes: payload.len(),
        },
    }
}

pub struct PipelineWatch {
    pub nats: async_nats::Client,
    /// Reads the RSU registry.
    pub ctl: wasmcloud_control_interface::Client,
}

/// How often the RSU registry is read again (it changes when an RSU is added or removed).
const REGISTRY_REFRESH: Duration = Duration::from_secs(5);

impl PipelineWatch {
    pub async fn run(self, hub: Hub) {
        let js = jetstream::new(self.nats.clone());
        let mut done = match self.nats.subscribe("cits.done.*").await {
            Ok(s) => s,
            Err(e) => {
                tracing::error!("cannot subscribe to cits.done.*: {e}");
                return;
            }
        };
        let mut inputs_sub = Vec::new();
        for subject in cits::subjects::INPUT_WILDCARDS {
            match self.nats.subscribe(subject).await {
                Ok(s) => inputs_sub.push(s),
                Err(e) => tracing::error!("cannot subscribe to {subject}: {e}"),
            }
        }
        let mut arriving = futures::stream::select_all(inputs_sub);
        let mut inputs = Inputs::default();
        let mut traces = Traces::default();
        let mut dead: VecDeque<DeadLetterView> = VecDeque::new();
        let mut dlq_next_seq = 0u64;
        let mut rsus: Result<Vec<RsuView>, String> = Ok(Vec::new());
        let mut registry_read_at: Option<std::time::Instant> = None;
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        loop {
            tokio::select! {
                msg = done.next() => {
                    let Some(msg) = msg else { return };
                    if let Ok(frame) = FrameDone::decode(msg.payload.as_ref()) {
                        traces.record(&frame.trace, cits::shared::time::now_ms());
                    }
                }
                Some(msg) = arriving.next() => inputs.record(msg.subject.as_str(), &msg.payload),
                _ = tick.tick() => {
                    if registry_read_at.is_none_or(|at| at.elapsed() >= REGISTRY_REFRESH) {
                        registry_read_at = Some(std::time::Instant::now());
                        rsus = match self.ctl.get_config(cits_manifest::RSU_REGISTRY).await {
                            Ok(r) => rsu_views(&r.into_data().unwrap_or_default().into_iter().collect()),
                            Err(e) => Err(format!("config.get: {e}")),
                        };
                    }
                    let mut view = PipelineView {
                        refreshed_at_ms: cits::shared::time::now_ms(),
                        inputs: inputs.view(),
                        rsus: rsus.clone().unwrap_or_default(),
                        ..Default::default()
                    };
                    let mut errors = Vec::new();
                    if let Err(e) = &rsus {
                        errors.push(format!("RSU registry {}: {e}", cits_manifest::RSU_REGISTRY));
                    }
                    if let Err(e) = read_dead_letters(&js, &mut dlq_next_seq, &mut dead, &hub).await {
                        errors.push(format!("dead letters: {e:#}"));
                    }
                    let counts = match cits_client::dlq::count(&js).await {
                        Ok(c) => c,
                        Err(e) => {
                            errors.push(format!("dead-letter counts: {e:#}"));
                            BTreeMap::new()
                        }
                    };
                    fill(&mut view, &traces, &counts, &dead);
                    for stage in &mut view.stages {
                        match backlog(&js, &stage.input).await {
                            Ok(b) => stage.backlog = b,
                            Err(e) => errors.push(format!("backlog of {}: {e:#}", stage.input)),
                        }
                    }
                    if !errors.is_empty() {
                        view.error = Some(errors.join("; "));
                    }
                    hub.publish("pipeline", &view);
                }
            }
        }
    }
}

/// The view from what was gathered (without backlogs, which need the server).
fn fill(view: &mut PipelineView, traces: &Traces, counts: &BTreeMap<String, u64>, dead: &VecDeque<DeadLetterView>) {
    let now = view.refreshed_at_ms;
    let order: Vec<String> = if traces.order().is_empty() {
        STAGE_INPUTS.iter().map(|(s, _)| s.to_string()).collect()
    } else {
        traces.order().to_vec()
    };
    for name in order {
        let input = STAGE_INPUTS.iter().find(|(s, _)| *s == name).map(|(_, i)| i.to_string()).unwrap_or_default();
        let mut reasons = BTreeMap::new();
        for d in dead.iter().filter(|d| d.stage == name) {
            *reasons.entry(reason_kind(&d.reason)).or_insert(0) += 1;
        }
        view.stages.push(StageView {
            latency: traces.stage(&name, now),
            dead_letters: counts.get(&name).copied().unwrap_or(0),
            reasons,
            name,
            input,
            backlog: Backlog::default(),
        });
    }
    view.end_to_end = traces.end_to_end(now);
    view.series = traces.series();
    view.frames_total = traces.frames_total;
    view.dead_letters_total = counts.values().sum();
    view.dead_letters = dead.iter().cloned().collect();
}

/// Consumers of `stream` (one per partition and deployment): what waits, what is in flight and
/// what was delivered again.
async fn backlog(js: &jetstream::Context, stream: &str) -> anyhow::Result<Backlog> {
    let mut s = js.get_stream(stream).await?;
    let mut out = Backlog::default();
    let mut consumers = s.consumers();
    while let Some(info) = consumers.try_next().await? {
        out.pending += info.num_pending;
        out.ack_pending += info.num_ack_pending as u64;
        out.redelivered += info.num_redelivered as u64;
        out.partitions.push(PartitionBacklog {
            consumer: info.name.clone(),
            filter: info.config.filter_subject.clone(),
            pending: info.num_pending,
            ack_pending: info.num_ack_pending as u64,
            redelivered: info.num_redelivered as u64,
        });
    }
    // Keep the stream info fresh for the next call's numbers.
    let _ = s.info().await;
    out.partitions.sort_by(|a, b| a.consumer.cmp(&b.consumer));
    Ok(out)
}

/// Reads the dead letters stored since the last call (at most the newest `DEAD_LETTERS_KEPT`).
async fn read_dead_letters(
    js: &jetstream::Context,
    next_seq: &mut u64,
    kept: &mut VecDeque<DeadLetterView>,
    hub: &Hub,
) -> anyhow::Result<()> {
    let mut stream = js.get_stream(cits_jetstream::DEAD_LETTERS.name).await?;
    let state = stream.info().await?.state.clone();
    if state.messages == 0 || state.last_sequence < *next_seq {
        return Ok(());
    }
    let from =
        (*next_seq).max(state.first_sequence).max(state.last_sequence.saturating_sub(DEAD_LETTERS_KEPT as u64 - 1));
    for seq in from..=state.last_sequence {
        match stream.get_raw_message(seq).await {
            Ok(m) => {
                let view = dead_letter_view(seq, &m.payload);
                hub.event("dead_letter", &view);
                if kept.len() == DEAD_LETTERS_KEPT {
                    kept.pop_back();
                }
                kept.push_front(view);
            }
            // Deleted or aged out meanwhile: nothing to show.
            Err(e) => tracing::debug!("dead letter {seq}: {e}"),
        }
    }
    *next_seq = state.last_sequence + 1;
    Ok(())
}

/// One dead letter, whole, for inspection: its fields and payload (hex, and what it decodes as).
#[derive(Serialize, Debug)]
pub struct DeadLetterDetail {
    #[serde(flatten)]
    pub view: DeadLetterView,
    pub payload_hex: String,
    pub decoded: String,
}

pub async fn dead_letter_detail(nats: &async_nats::Client, seq: u64) -> anyhow::Result<DeadLetterDetail> {
    let js = jetstream::new(nats.clone());
    let stream = js.get_stream(cits_jetstream::DEAD_LETTERS.name).await?;
    let m = stream.get_raw_message(seq).await.map_err(|e| anyhow::anyhow!("dead letter {seq}: {e}"))?;
    let view = dead_letter_view(seq, &m.payload);
    let d = DeadLetter::decode(m.payload.as_ref()).unwrap_or_default();
    Ok(DeadLetterDetail { view, payload_hex: hex_dump(&d.payload, 4096), decoded: describe_payload(&d) })
}

/// Classic hex dump (offset, 16 bytes, ASCII), cut after `limit` bytes.
pub fn hex_dump(bytes: &[u8], limit: usize) -> String {
    let mut out = String::new();
    for (i, chunk) in bytes[..bytes.len().min(limit)].chunks(16).enumerate() {
        let hex: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
        let ascii: String = chunk.iter().map(|&b| if (0x20..0x7f).contains(&b) { b as char } else { '.' }).collect();
        out.push_str(&format!("{:08x}  {:<47}  {ascii}\n", i * 16, hex.join(" ")));
    }
    if bytes.len() > limit {
        out.push_str(&format!("… {} more bytes\n", bytes.len() - limit));
    }
    out
}

/// What the payload of a dead letter is, as far as it decodes.
fn describe_payload(d: &DeadLetter) -> String {
    if d.source_subject.starts_with("cits.cpm.") {
        return match etsi_its::cpm::decode(&d.payload) {
            Ok(cpm) => format!("UPER CPM that decodes: {cpm:?}").chars().take(4000).collect(),
            Err(e) => format!("not a UPER CPM: {e}"),
        };
    }
    format!("{} bytes of protobuf from {}", d.payload.len(), d.source_subject)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(stages: &[(&str, u64, u64)]) -> Vec<StageTrace> {
        stages.iter().map(|(s, r, t)| StageTrace { stage: s.to_string(), received_at_us: *r, sent_at_us: *t }).collect()
    }

    #[test]
    fn stage_and_hop_latencies_come_from_the_trace() {
        let mut t = Traces::default();
        // decoder 1 ms, hop 2 ms, collector 3 ms; then a slower frame.
        t.record(&trace(&[("decoder", 0, 1000), ("collector", 3000, 6000)]), 10_000);
        t.record(&trace(&[("decoder", 0, 2000), ("collector", 6000, 10_000)]), 10_500);
        assert_eq!(t.order(), ["decoder", "collector"]);
        let c = t.stage("collector", 11_000);
        assert_eq!(c.frames, 2);
        assert_eq!((c.p50_ms, c.p95_ms), (Some(3.0), Some(4.0)));
        assert_eq!((c.hop_p50_ms, c.hop_p95_ms), (Some(2.0), Some(4.0)));
        let d = t.stage("decoder", 11_000);
        assert_eq!(d.hop_p50_ms, None, "the first stage has no hop before it");
        let e = t.end_to_end(11_000);
        assert_eq!((e.p50_ms, e.p95_ms), (Some(6.0), Some(10.0)));
        // Out of the window after 10 s; still in the chart.
        assert_eq!(t.stage("collector", 20_600).frames, 0);
        assert_eq!(t.series(), vec![SeriesPoint { t_s: 10, frames: 2, p50_ms: Some(6.0), p95_ms: Some(10.0) }]);
    }

    #[test]
    fn inputs_are_counted_per_rsu_and_format() {
        let cpm = etsi_its::cpm::encode(&etsi_its::cpm::fixtures::sample().to_cpm()).unwrap();
        let xer = etsi_its::cpm::encode_xer(&etsi_its::cpm::fixtures::sample().to_cpm()).unwrap();
        let with_bit = etsi_its::cpm::encode_with_extension_bit(&etsi_its::cpm::fixtures::sample().to_cpm()).unwrap();
        let mut inputs = Inputs::default();
        for (subject, payload) in [
            ("cits.cpm.rsu1", &with_bit[..]),
            ("cits.cpm.rsu1", &cpm[..]),
            ("cits.cpm.rsu1", &cpm[..]),
            ("cits.cpm.rsu1", &xer[..]),
            ("cits.vam.rsu2", b"garbage"),
            ("cits.denm.rsu1", &cpm[..]),
        ] {
            inputs.record(subject, payload);
        }
        let counts: Vec<String> =
            inputs.view().iter().map(|c| format!("{} {}: {}", c.rsu, c.format, c.messages)).collect();
        assert_eq!(
            counts,
            [
                "rsu1 CPM (TS 103 324), UPER: 2",
                "rsu1 CPM (TS 103 324), UPER, container list with extension bit: 1",
                "rsu1 CPM (TS 103 324), XER: 1",
                "rsu2 unknown format: 1"
            ]
        );
    }

    #[test]
    fn rsus_show_their_stations_and_object_frame() {
        let registry: BTreeMap<String, String> = [
            ("rsu.rsu1", "1001"),
            ("object_frame.rsu1", "sensor"),
            ("rsu.vendor", "7,8"),
            ("rsu.probe", "4000000000"),
            ("object_frame.probe", "enu"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let rows: Vec<String> = rsu_views(&registry)
            .unwrap()
            .iter()
            .map(|r| format!("{} {} {}", r.rsu, r.stations, r.object_frame))
            .collect();
        // An RSU without an entry sends the standard's frame.
        assert_eq!(rows, ["probe 4000000000 enu", "rsu1 1001 sensor", "vendor 7,8 enu"]);
        let mut bad = registry.clone();
        bad.insert("object_frame.vendor".into(), "camera".into());
        assert!(rsu_views(&bad).unwrap_err().contains("object_frame.vendor"));
    }

    #[test]
    fn reasons_group_by_kind() {
        assert_eq!(reason_kind("invalid UPER: unexpected end at bit 12"), "invalid UPER");
        assert_eq!(reason_kind("station mismatch (station 7 sent as rsu1)"), "station mismatch");
        assert_eq!(reason_kind(""), "unknown");
    }

    #[test]
    fn a_dead_letter_reads_back() {
        let d = DeadLetter {
            stage: "decoder".into(),
            reason: "invalid UPER: x".into(),
            source_subject: "cits.cpm.rsu1".into(),
            payload: b"garbage".to_vec(),
            failed_at_us: 5_000_000,
        };
        let v = dead_letter_view(7, &d.encode_to_vec());
        assert_eq!((v.seq, v.stage.as_str(), v.failed_at_ms, v.payload_bytes), (7, "decoder", 5000, 7));
        assert!(dead_letter_view(8, b"\xff\xff").reason.starts_with("undecodable"));
        assert!(describe_payload(&d).starts_with("not a UPER CPM"));
        assert_eq!(hex_dump(b"garbage", 4096), "00000000  67 61 72 62 61 67 65                             garbage\n");
    }
}

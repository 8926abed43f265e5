//! The native pipeline: the fused actor's chain of the seven stages (`cits::pipeline`, the code
//! the actors run) in process, on one RSU's CPMs, with the fused manifest's config and state in
//! memory; the DENMs it sends and the risks an active warning stood for without naming them.

use std::collections::HashMap;

use anyhow::Context as _;
use cits::message::Outbound;
use cits::pipeline::{buckets, chain, flat_key, Fused, Handler as _, InProcess, Outcome, Services as _};
use cits::proto::{ActiveWarnings, CollisionRiskFrame, LaneGraph, PredictedPath, PredictedPathFrame};
use cits::stages::collision_detector::DetectorConfig;
use cits::stages::denm_sender::{step_covering, SenderConfig};
use etsi_its::denm::SimpleDenm;
use prost::Message as _;

use cits_client::recording::Record;

/// The fused actor's chain run in process ([`NativePipeline::process`]).
pub struct NativePipeline {
    /// The stages' services: config, key-value state and the map's tiles, in memory.
    svc: InProcess,
    detector: DetectorConfig,
    sender: SenderConfig,
    /// The active warnings' last DENMs, and the risks they stood for without naming them
    /// ([`EmittedDenm::sent`] false; for scoring, [`run_scored`]).
    on_air: HashMap<u16, SimpleDenm>,
    pub silent: Vec<EmittedDenm>,
    /// Frames a stage dead-lettered (as the actors would: the frame is dropped, the run goes on).
    pub dead_letters: Vec<String>,
    /// When kept: every frame's risks (for sweeping the warning policy) and predicted paths
    /// (for the calibration of route probabilities), with the frame's time.
    pub log: Option<Log>,
}

#[derive(Default)]
pub struct Log {
    pub risks: Vec<(u64, CollisionRiskFrame)>,
    pub paths: Vec<PredictedPath>,
}

/// A DENM with the measurement time at which the pipeline emitted it.
pub struct EmittedDenm {
    pub at_us: u64,
    pub denm: SimpleDenm,
    /// The risk a new or updated warning announces (known natively; None over the wire).
    pub risk: Option<cits::proto::CollisionRisk>,
    /// False for a risk the warning on air (`denm`, as last sent) stood for without naming it —
    /// another vehicle at risk with the same road user a few metres away; nothing was sent.
    pub sent: bool,
}

/// The warnings one frame's DENMs and risks make, per [`step_covering`]: each DENM sent with the
/// risk it announces, and each risk an active warning stood for without naming it (credited to
/// that warning). `on_air` keeps each active warning's last DENM.
pub(super) fn emitted(
    now: u64,
    warnings: &ActiveWarnings,
    on_air: &mut HashMap<u16, SimpleDenm>,
    frame: &CollisionRiskFrame,
    (denms, covering): (Vec<SimpleDenm>, Vec<u16>),
) -> Vec<EmittedDenm> {
    let announced =
        |seq: u16| warnings.warnings.iter().find(|w| w.sequence_number == u32::from(seq)).and_then(|w| w.risk);
    let mut out = Vec::new();
    for denm in denms {
        if denm.termination.is_some() {
            on_air.remove(&denm.sequence_number);
        } else {
            on_air.insert(denm.sequence_number, denm.clone());
        }
        out.push(EmittedDenm { at_us: now, risk: announced(denm.sequence_number), denm, sent: true });
    }
    for (risk, seq) in frame.risks.iter().zip(covering) {
        let named = announced(seq)
            .is_some_and(|a| cits::stages::denm_sender::risk_key(&a) == cits::stages::denm_sender::risk_key(risk));
        if let Some(denm) = on_air.get(&seq).filter(|_| !named) {
            out.push(EmittedDenm { at_us: now, denm: denm.clone(), risk: Some(*risk), sent: false });
        }
    }
    out
}

/// The fused actor's config as the fused manifest ships it (embedded at build time, so the score
/// is of the settings deployed).
fn shipped_config() -> anyhow::Result<Vec<(String, String)>> {
    const MANIFEST: &str = include_str!("../../../../wadm/cits-pipeline-fused.yaml");
    cits_native::component_config(MANIFEST, <cits::pipeline::Fused as cits::pipeline::Handler>::NAME)
}

impl NativePipeline {
    /// With the shipped config, and the junction's RSU registered with its cameras (a map without
    /// a junction: our RSU's).
    pub fn new(graph: &LaneGraph) -> anyhow::Result<Self> {
        Self::configured(graph, &[])
    }

    /// The same with stage config entries (`keep_ms`, `harm_ratio`, `horizon_ms`, ...: the keys
    /// the manifests give the stages) over the shipped ones.
    pub fn configured(graph: &LaneGraph, entries: &[(String, String)]) -> anyhow::Result<Self> {
        let (station_id, sensors) = cits_map::site::Site::of(graph)
            .map(|s| (s.station_id, s.sensors))
            .unwrap_or_else(|_| (cits_client::demo::STATION_ID, cits_client::demo::SENSORS.to_vec()));
        let rsu = cits_client::demo::RSU_ID;
        // What `cits lattice rsu-add` registers: the RSU, its station, its sensors' frame and poses.
        let mut site = vec![
            (format!("rsu.{rsu}"), station_id.to_string()),
            (
                cits::stages::collector::object_frame::ObjectFrames::key(rsu),
                cits::stages::collector::object_frame::ObjectFrame::Sensor.to_string(),
            ),
        ];
        // Full precision: the poses the simulator filmed with, exactly.
        site.extend(sensors.iter().map(|(id, pose)| {
            let value = format!("{},{},{}", pose.origin.lat, pose.origin.lon, pose.x_axis_heading_deg);
            (format!("sensor.{station_id}.{id}"), value)
        }));
        let config = cits_native::with_entries(shipped_config()?, site);
        let config = cits_native::with_entries(config, entries.to_vec());
        let e = || config.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        // As the fused actor would refuse it: a `--set` key no stage reads changes nothing.
        cits::config::check_known(Fused::NAME, Fused::CONFIG, e())?;
        Ok(Self {
            detector: DetectorConfig::from_config(e())?,
            sender: SenderConfig::from_config(rsu, e())?,
            svc: cits_map::in_process(config, graph),
            on_air: HashMap::new(),
            silent: Vec::new(),
            dead_letters: Vec::new(),
            log: None,
        })
    }

    /// Forgets what a lattice's Redis expires when a pipeline heard nothing from the RSU for
    /// longer than its TTLs (the manifests' `ttl.trajectories` and `ttl.paths`, 60 s): the
    /// assembler's trajectories and the detector's paths. What it warns must not depend on it.
    pub fn expire_stored_state(&mut self) {
        let expired = [flat_key(buckets::TRAJECTORIES, ""), flat_key(buckets::PATHS, "")];
        self.svc.kv.retain(|k, _| !expired.iter().any(|e| k.starts_with(e.as_str())));
    }

    /// The detector's config: the warning policy this pipeline runs.
    pub fn detector(&self) -> &DetectorConfig {
        &self.detector
    }

    /// A pipeline whose detector reports every risk (no probability or TTC bar: each at least as
    /// information) and logs its frames.
    pub fn logging_all_risks(graph: &LaneGraph, config: &[(String, String)]) -> anyhow::Result<Self> {
        let everything = [("info_min_probability", "0"), ("info_max_ttc_s", "1e9")];
        let config = cits_native::with_entries(
            config.to_vec(),
            everything.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        );
        let mut p = Self::configured(graph, &config)?;
        p.log = Some(Log::default());
        Ok(p)
    }

    /// One CPM or CAM (received at `received_at_us`) through the chain, stage by stage as the
    /// fused actor runs it; returns the DENMs it causes. A frame a stage dead-letters is dropped
    /// (and listed in [`NativePipeline::dead_letters`]).
    pub fn process(&mut self, rsu: &str, message: &[u8], received_at_us: u64) -> anyhow::Result<Vec<EmittedDenm>> {
        let mut input = Outbound { subject: cits_client::recording::subject_of(rsu, message), body: message.to_vec() };
        let stages = chain::<InProcess>();
        for (i, (name, stage)) in stages.iter().enumerate() {
            let warnings_before =
                (*name == cits::stages::denm_sender::STAGE).then(|| self.warnings(rsu)).transpose()?;
            let mut out = match stage(&mut self.svc, &input.subject, &input.body, received_at_us) {
                Outcome::Processed(out) => out,
                Outcome::DeadLettered { reason, .. } => {
                    self.dead_letters.push(format!("{name}: {reason}"));
                    return Ok(Vec::new());
                }
                Outcome::Retry(reason) => anyhow::bail!("{name} cannot run in memory: {reason}"),
            };
            if let Some(before) = warnings_before {
                return self.denms(rsu, &input.body, before, out);
            }
            if i + 1 == stages.len() {
                break;
            }
            input = out.pop().with_context(|| format!("{name} gave no output"))?;
            if let Some(log) = &mut self.log {
                if *name == cits::stages::predictor::STAGE {
                    log.paths.extend(PredictedPathFrame::decode(input.body.as_slice())?.paths);
                }
            }
        }
        Ok(Vec::new())
    }

    fn warnings(&mut self, rsu: &str) -> anyhow::Result<ActiveWarnings> {
        let stored = self.svc.get_many(buckets::WARNINGS, &[cits::stages::denm_sender::state_key(rsu)])?;
        Ok(cits::message::decode_state_or_empty(stored.first().and_then(|s| s.as_deref())))
    }

    /// The DENM sender's outputs as DENMs sent, with the risks each warning stands for
    /// ([`emitted`]): which warning covers which risk is the sender's own step, applied to the
    /// state it had (the DENMs must be the ones the stage sent).
    fn denms(
        &mut self,
        rsu: &str,
        risks: &[u8],
        mut before: ActiveWarnings,
        out: Vec<Outbound>,
    ) -> anyhow::Result<Vec<EmittedDenm>> {
        let frame = CollisionRiskFrame::decode(risks)?;
        let now = frame.reference_time_us;
        let outbox = cits::subjects::denm_outbox(rsu);
        let sent: Vec<SimpleDenm> = out
            .iter()
            .filter(|o| o.subject == outbox)
            .map(|o| self.sender.denm_version.decode(&o.body))
            .collect::<Result<_, _>>()?;
        let (denms, covering) = step_covering(&mut before, &frame, now, &self.sender);
        anyhow::ensure!(denms == sent, "the DENM sender stage sent other DENMs than its step gives");
        if let Some(log) = &mut self.log {
            log.risks.push((now, frame.clone()));
        }
        let after = self.warnings(rsu)?;
        let (sent, silent) =
            emitted(now, &after, &mut self.on_air, &frame, (denms, covering)).into_iter().partition(|d| d.sent);
        self.silent.extend::<Vec<EmittedDenm>>(silent);
        Ok(sent)
    }
}

/// Runs a recording through the native pipeline as one RSU: the DENMs it sends.
pub fn run(graph: &LaneGraph, records: &[Record]) -> anyhow::Result<Vec<EmittedDenm>> {
    Ok(run_scored(graph, records, &[])?.into_iter().filter(|d| d.sent).collect())
}

/// The compute floor's fixture (crates/cits-floor): the shipped config and `graph`'s blobs, and
/// `records` as our RSU sent them, each arriving at its recorded time — what [`run`] processes.
pub fn floor_fixture(graph: &LaneGraph, records: &[Record]) -> anyhow::Result<cits_floor::Fixture> {
    let pipeline = NativePipeline::new(graph)?;
    let rsu = cits_client::demo::RSU_ID;
    let messages = records
        .iter()
        .map(|r| cits_floor::Arrival {
            subject: cits_client::recording::subject_of(rsu, &r.cpm),
            body: r.cpm.clone(),
            arrived_us: r.timestamp_ms * 1000,
        })
        .collect();
    Ok(cits_floor::Fixture::of(&pipeline.svc, messages))
}

/// For scoring, with stage config entries ([`NativePipeline::configured`]): the DENMs sent and,
/// unsent, the risks their warnings stood for without naming them ([`EmittedDenm::sent`]), in
/// time order.
pub fn run_scored(
    graph: &LaneGraph,
    records: &[Record],
    config: &[(String, String)],
) -> anyhow::Result<Vec<EmittedDenm>> {
    let mut pipeline = NativePipeline::configured(graph, config)?;
    let mut out = Vec::new();
    for r in records {
        // A warning goes out once its CPM has arrived, not at the CPM's reference time: late
        // delivery shortens every lead.
        let arrived_us = r.timestamp_ms * 1000;
        let from = out.len();
        out.extend(pipeline.process(cits_client::demo::RSU_ID, &r.cpm, arrived_us)?);
        out.append(&mut pipeline.silent);
        for d in &mut out[from..] {
            d.at_us = d.at_us.max(arrived_us);
        }
    }
    Ok(out)
}

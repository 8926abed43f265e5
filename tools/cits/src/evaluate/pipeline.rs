//! The native pipeline: every stage in process, on one RSU's CPMs, as the actors run them; the
//! DENMs it sends and the risks an active warning stood for without naming them.

use std::collections::HashMap;

use cits::assembler::{assemble_frame, state_keys, AssemblerConfig};
use cits::calibration::{Calibrations, SensorCalibration};
use cits::collision::{current_paths, detect, update_paths, DetectorConfig};
use cits::denm_sender::{step_covering, SenderConfig};
use cits::geo::Wgs84;
use cits::map_matcher::{tile_graph, LaneIndex, TileCache, MATCH_REACH_M, ROUTE_REACH_M, TILE_MARGIN_M};
use cits::object_frame::{ObjectFrame, ObjectFrames};
use cits::predictor::{learn_and_predict, LaneMap, PredictorConfig};
use cits::proto::{ActiveWarnings, CollisionRiskFrame, LaneGraph, PredictedPath, RsuPaths};
use etsi_its::denm::SimpleDenm;

use crate::recording::Record;

pub struct NativePipeline {
    calibrations: Calibrations,
    assembler: AssemblerConfig,
    trajectories: HashMap<String, Vec<u8>>,
    graph: LaneGraph,
    /// The map as the actors read it: tiles cut from the whole map.
    index: TileCache<LaneIndex>,
    lanes: TileCache<LaneMap>,
    /// The turn priors learned from this recording's tracks so far (the predictor's state).
    priors: cits::proto::TurnPriors,
    predictor: PredictorConfig,
    /// Current predicted paths of the intersection (one RSU here).
    paths: RsuPaths,
    detector: DetectorConfig,
    sender: SenderConfig,
    warnings: ActiveWarnings,
    /// The active warnings' last DENMs, and the risks they stood for without naming them
    /// ([`EmittedDenm::sent`] false; for scoring, [`run_scored`]).
    on_air: HashMap<u16, SimpleDenm>,
    pub silent: Vec<EmittedDenm>,
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
        let named =
            announced(seq).is_some_and(|a| cits::denm_sender::risk_key(&a) == cits::denm_sender::risk_key(risk));
        if let Some(denm) = on_air.get(&seq).filter(|_| !named) {
            out.push(EmittedDenm { at_us: now, denm: denm.clone(), risk: Some(*risk), sent: false });
        }
    }
    out
}

impl NativePipeline {
    pub fn new(graph: &LaneGraph) -> Self {
        // The cameras of the junction's site (a map without a junction: our RSU's).
        let (station_id, sensors) = crate::map::site::Site::of(graph)
            .map(|s| (s.station_id, s.sensors))
            .unwrap_or_else(|_| (crate::demo::STATION_ID, crate::demo::SENSORS.to_vec()));
        let calibrations = Calibrations::new(
            sensors
                .iter()
                .map(|(id, pose)| SensorCalibration { station_id, sensor_id: u32::from(*id), pose: *pose })
                .collect(),
        );
        Self {
            calibrations,
            assembler: AssemblerConfig::default(),
            trajectories: HashMap::new(),
            graph: graph.clone(),
            index: TileCache::new(LaneIndex::new, MATCH_REACH_M),
            lanes: TileCache::new(LaneMap::new, ROUTE_REACH_M),
            priors: Default::default(),
            predictor: PredictorConfig::default(),
            paths: RsuPaths::default(),
            detector: DetectorConfig::default(),
            sender: SenderConfig::default(),
            warnings: ActiveWarnings::default(),
            on_air: HashMap::new(),
            silent: Vec::new(),
            log: None,
        }
    }

    /// Forgets what a lattice's Redis expires when a pipeline heard nothing from the RSU for
    /// longer than its TTLs (the manifests' `ttl.trajectories` and `ttl.paths`, 60 s): the
    /// assembler's trajectories and the detector's paths. What it warns must not depend on it.
    pub fn expire_stored_state(&mut self) {
        self.trajectories.clear();
        self.paths = RsuPaths::default();
    }

    /// The detector's config: the warning policy this pipeline runs.
    pub fn detector(&self) -> &DetectorConfig {
        &self.detector
    }

    /// A pipeline that reports every risk (no probability or TTC threshold) and logs its frames.
    pub fn logging_all_risks(graph: &LaneGraph, config: &[(String, String)]) -> anyhow::Result<Self> {
        let mut p = Self::configured(graph, config)?;
        p.detector.min_probability = 0.0;
        p.detector.max_ttc_s = f64::INFINITY;
        p.log = Some(Log::default());
        Ok(p)
    }

    /// The same with stage config entries (`keep_ms`, `min_probability`, `horizon_ms`, ...: the
    /// keys the manifests give the assembler, predictor, detector and sender) instead of the
    /// defaults.
    pub fn configured(graph: &LaneGraph, entries: &[(String, String)]) -> anyhow::Result<Self> {
        let mut p = Self::new(graph);
        let e = || entries.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        p.assembler = AssemblerConfig::from_config(e())?;
        p.predictor = PredictorConfig::from_config(e())?;
        p.detector = DetectorConfig::from_config(e())?;
        p.sender = SenderConfig::from_config(crate::demo::RSU_ID, e())?;
        Ok(p)
    }

    /// One CPM or CAM (received at `received_at_us`) through all stages; returns the DENMs it
    /// causes.
    pub fn process(&mut self, rsu: &str, message: &[u8], received_at_us: u64) -> anyhow::Result<Vec<EmittedDenm>> {
        let subject = crate::recording::subject_of(rsu, message);
        let wrapper = cits::decoder::decode(&subject, message, received_at_us)?;
        // What it replays was filmed by the simulated RSU's cameras, in their frames.
        let frame =
            cits::collector::collect(&wrapper, &self.calibrations, &ObjectFrames::everywhere(ObjectFrame::Sensor))?;
        let now = frame.reference_time_us;
        let keys = state_keys(&frame);
        let stored: Vec<Option<Vec<u8>>> = keys.iter().map(|k| self.trajectories.get(k).cloned()).collect();
        let (writes, trajectories) = assemble_frame(frame, &keys, stored, &self.assembler)?;
        self.trajectories.extend(writes);
        let mut predicted = Vec::new();
        for t in &trajectories.trajectories {
            let Some(last) = t.points.last() else { continue };
            let at = Wgs84 { lat: last.latitude, lon: last.longitude };
            let graph = &self.graph;
            let index = self.index.at(at, |tile| anyhow::Ok(tile_graph(graph, tile, TILE_MARGIN_M)))?;
            let matched = index.match_trajectory(t);
            let lanes = self.lanes.at(at, |tile| anyhow::Ok(tile_graph(graph, tile, TILE_MARGIN_M)))?;
            predicted.extend(learn_and_predict(lanes, &matched, &self.predictor, &mut self.priors).0);
        }
        if let Some(log) = &mut self.log {
            log.paths.extend(predicted.iter().cloned());
        }
        update_paths(&mut self.paths, predicted, now, &self.detector);
        let all = current_paths([&self.paths], now, &self.detector);
        let risks = CollisionRiskFrame {
            rsu_id: rsu.to_string(),
            risks: detect(&all, now, &self.detector),
            ..Default::default()
        };
        if let Some(log) = &mut self.log {
            log.risks.push((now, risks.clone()));
        }
        let stepped = step_covering(&mut self.warnings, &risks, now, &self.sender);
        let (sent, silent) =
            emitted(now, &self.warnings, &mut self.on_air, &risks, stepped).into_iter().partition(|d| d.sent);
        self.silent.extend::<Vec<EmittedDenm>>(silent);
        Ok(sent)
    }
}

/// Runs a recording through the native pipeline as one RSU: the DENMs it sends.
pub fn run(graph: &LaneGraph, records: &[Record]) -> anyhow::Result<Vec<EmittedDenm>> {
    Ok(run_scored(graph, records, &[])?.into_iter().filter(|d| d.sent).collect())
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
        out.extend(pipeline.process(crate::demo::RSU_ID, &r.cpm, arrived_us)?);
        out.append(&mut pipeline.silent);
        for d in &mut out[from..] {
            d.at_us = d.at_us.max(arrived_us);
        }
    }
    Ok(out)
}

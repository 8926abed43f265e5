// Over 600 lines with its tests: the native pipeline, scoring, sweep and trace share one Score; to be split with the rest of evaluate (issue 37).
//! The whole warning pipeline run natively, in process, on a recording — the same stage functions
//! the actors wrap — and its DENMs scored against the simulator's planted conflicts.
//!
//! It tells whether the stage logic warns in time before any Wasm or broker is involved, and is
//! the native reference for the platform's measurements.

use std::collections::HashMap;

use anyhow::Context as _;
use cits::assembler::{assemble, key_of, AssemblerConfig};
use cits::calibration::{Calibrations, SensorCalibration};
use cits::collision::{current_paths, detect, update_paths, DetectorConfig};
use cits::denm_sender::{step_covering, SenderConfig};
use cits::geo::{wgs84_to_offset, Wgs84};
use cits::map_matcher::{tile_graph, LaneIndex, TileCache, MATCH_REACH_M, ROUTE_REACH_M, TILE_MARGIN_M};
use cits::predictor::{learn_and_predict, LaneMap, PredictorConfig};
use cits::proto::{ActiveWarnings, CollisionRiskFrame, LaneGraph, PredictedPath, RsuPaths};
use etsi_its::denm::SimpleDenm;

use crate::recording::Record;

pub mod maps;
pub mod ncap;
use crate::sim::{Kind, Params, Truth, TruthEncounter};

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
fn emitted(
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

    /// One CPM through all stages; returns the DENMs it causes.
    pub fn process(&mut self, rsu: &str, cpm: &[u8]) -> anyhow::Result<Vec<EmittedDenm>> {
        let subject = format!("cits.cpm.{rsu}");
        let wrapper = cits::decoder::decode(&subject, cpm, 0)?;
        let frame = cits::collector::collect(&wrapper, &self.calibrations)?;
        let keys: Vec<String> = frame.locations.iter().map(|l| key_of(&frame.rsu_id, l)).collect();
        let stored: Vec<Option<Vec<u8>>> = keys.iter().map(|k| self.trajectories.get(k).cloned()).collect();
        let (writes, trajectories) = assemble(&frame, &keys, &stored, &self.assembler)?;
        self.trajectories.extend(writes);
        let now = frame.reference_time_us;
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

/// Ground-truth classes by post-encroachment time (PET): below this a pair is a conflict that
/// must be warned; from `CLEARLY_SAFE_PET_S` on (or paths that never come within reach) a
/// warning is clearly false; in between borderline.
pub const CONFLICT_PET_S: f64 = 1.5;
pub const CLEARLY_SAFE_PET_S: f64 = 3.0;
/// Conflicts this soon after the cameras start cannot have been tracked long enough to warn.
const SETTLE_S: f64 = 5.0;
/// A DENM without its risk (as received over the air) is attributed by place and time: to the
/// most critical encounter within this distance of its event position, at most
/// `WARN_WINDOW_S` after it.
const MATCH_RADIUS_M: f64 = 10.0;
const WARN_WINDOW_S: f64 = 6.0;
/// A DENM's objects were measured this long before its frame's reference time, at most.
const TRACK_SLACK_MS: i64 = 1_500;

/// How the DENMs compare with the ground truth's encounters.
#[derive(Debug, Default, Clone)]
pub struct Score {
    /// Conflicts to warn: encounters with true PET < 1.5 s (planted or made by the traffic).
    pub planted: usize,
    pub warned: usize,
    /// Per warned conflict, the first DENM about its pair before the conflict, s.
    pub lead_times_s: Vec<f64>,
    pub denms: usize,
    /// ActionIDs (warnings) in all, and by the most critical pair they announced.
    pub warnings: usize,
    pub true_warnings: usize,
    pub borderline: usize,
    pub clearly_false: usize,
    /// Same as `clearly_false` (the name the end-to-end tests use).
    pub false_warnings: usize,
    /// Sequence numbers of the clearly false ActionIDs.
    pub false_action_ids: Vec<u16>,
    /// Road user pairs (vehicle, VRU) and times of conflicts no warning came before.
    pub missed: Vec<([u32; 2], i64)>,
    /// Traffic observed, minutes.
    pub minutes: f64,
    /// One line per missed conflict and per warning that was not true (`--explain`).
    pub explained: Vec<String>,
}

impl Score {
    pub fn per_10_min(&self, n: usize) -> f64 {
        n as f64 * 10.0 / self.minutes.max(f64::MIN_POSITIVE)
    }

    pub fn precision(&self) -> f64 {
        self.true_warnings as f64 / self.warnings.max(1) as f64
    }

    /// Adds another recording's score.
    pub fn add(&mut self, o: &Score) {
        self.planted += o.planted;
        self.warned += o.warned;
        self.lead_times_s.extend(&o.lead_times_s);
        self.denms += o.denms;
        self.warnings += o.warnings;
        self.true_warnings += o.true_warnings;
        self.borderline += o.borderline;
        self.clearly_false += o.clearly_false;
        self.false_warnings += o.false_warnings;
        self.missed.extend(&o.missed);
        self.minutes += o.minutes;
        self.explained.extend(o.explained.iter().cloned());
    }

    /// Median and minimum lead time, s.
    pub fn lead(&self) -> (f64, f64) {
        let mut lead = self.lead_times_s.clone();
        lead.sort_by(f64::total_cmp);
        (lead.get(lead.len() / 2).copied().unwrap_or(f64::NAN), lead.first().copied().unwrap_or(f64::NAN))
    }
}

/// The road user a tracked object of a risk is, per the truth's tracker ids, at `at_ms`.
pub fn road_user(truth: &Truth, o: &cits::proto::ObjectRef, at_ms: i64) -> Option<u32> {
    use cits::proto::TravelMode;
    let kind = match TravelMode::try_from(o.mode).unwrap_or_default() {
        TravelMode::Car => Some(Kind::Car),
        TravelMode::Bicycle => Some(Kind::Bicycle),
        TravelMode::Pedestrian => Some(Kind::Pedestrian),
        TravelMode::Unknown => None,
    };
    let kind_of = |user: u32| truth.road_users.iter().find(|u| u.id == user).map(|u| u.kind);
    truth
        .tracks
        .iter()
        .filter(|t| (o.sensor_id == 0 || u32::from(t.0) == o.sensor_id) && u32::from(t.1) == o.object_id)
        .filter(|t| t.3 <= at_ms && t.4 + TRACK_SLACK_MS >= at_ms)
        .filter(|t| kind.is_none() || kind_of(t.2) == kind)
        .max_by_key(|t| t.3)
        .map(|t| t.2)
}

/// The encounter a DENM announces: by its risk's road users when known, else by place and time.
fn attribute<'a>(truth: &'a Truth, d: &EmittedDenm) -> Option<&'a TruthEncounter> {
    let at_ms = (d.at_us / 1000) as i64;
    if let Some(r) = &d.risk {
        let (a, b) = (road_user(truth, r.first.as_ref()?, at_ms)?, road_user(truth, r.second.as_ref()?, at_ms)?);
        return truth.encounters.iter().find(|e| e.users == [a, b] || e.users == [b, a]);
    }
    let event = Wgs84 { lat: d.denm.event_lat_e7 as f64 / 1e7, lon: d.denm.event_lon_e7 as f64 / 1e7 };
    truth
        .encounters
        .iter()
        .filter(|e| {
            let (dx, dy) = wgs84_to_offset(event, Wgs84 { lat: e.lat, lon: e.lon });
            let ahead_s = (e.time_unix_us - d.at_us as i64) as f64 / 1e6;
            dx.hypot(dy) <= MATCH_RADIUS_M && (0.0..=WARN_WINDOW_S).contains(&ahead_s)
        })
        .min_by(|a, b| a.pet_s.total_cmp(&b.pet_s))
}

/// Euro NCAP's pass line for a warning: this long before the conflict at least.
pub const MIN_LEAD_S: f64 = 1.7;

/// How long before an encounter a camera first tracked each of its road users — no warning can
/// come earlier than the shorter of the two: "seen 3.1 / 1.2 s before".
fn seen_text(truth: &Truth, e: &TruthEncounter) -> String {
    let seen_s = |user: u32| {
        let first_ms = truth.tracks.iter().filter(|t| t.2 == user && t.3 * 1000 <= e.time_unix_us).map(|t| t.3).min();
        first_ms.map_or("never".to_string(), |ms| format!("{:.1}", (e.time_unix_us - ms * 1000) as f64 / 1e6))
    };
    format!("seen {} / {} s before", seen_s(e.users[0]), seen_s(e.users[1]))
}

/// An encounter as the explanations name it: its road users, true PET and planted kind.
fn encounter_text(truth: &Truth, e: &TruthEncounter) -> String {
    format!(
        "{} (PET {:.2} s{})",
        pair_text(truth, e.users, e.time_unix_us),
        e.pet_s,
        e.planted.as_ref().map_or(String::new(), |k| format!(", planted {k}"))
    )
}

/// Two road users as the truth describes them, at a time.
fn pair_text(truth: &Truth, users: [u32; 2], at_us: i64) -> String {
    let describe = |id: u32| {
        truth.road_users.iter().find(|u| u.id == id).map_or(format!("#{id}"), |u| format!("#{id} {}", u.description))
    };
    format!("{} × {} at {}", describe(users[0]), describe(users[1]), crate::watch::format_time_us(at_us as u64))
}

/// Scores DENMs against a ground truth (a [`Truth`] as JSON).
pub fn score(denms: &[EmittedDenm], truth: &serde_json::Value) -> anyhow::Result<Score> {
    let truth: Truth = serde_json::from_value(truth.clone()).context("not a ground-truth file of this simulator")?;
    Ok(score_truth(denms, &truth))
}

pub fn score_truth(denms: &[EmittedDenm], truth: &Truth) -> Score {
    let start_us = truth.parameters.start_unix_ms as i64 * 1000;
    let duration_s = f64::from(truth.parameters.duration_s);
    let warnings: Vec<(&EmittedDenm, Option<&TruthEncounter>)> =
        denms.iter().filter(|d| d.denm.termination.is_none()).map(|d| (d, attribute(truth, d))).collect();
    let sent = denms.iter().filter(|d| d.sent).count();
    let mut s = Score { denms: sent, minutes: duration_s / 60.0, ..Default::default() };
    // Recall and lead time over the conflicts the cameras could have warned of (the truth also
    // lists encounters just after the end, to judge the last warnings by).
    for e in &truth.encounters {
        let since_start_s = (e.time_unix_us - start_us) as f64 / 1e6;
        if e.pet_s >= CONFLICT_PET_S || since_start_s < SETTLE_S || since_start_s > duration_s {
            continue;
        }
        s.planted += 1;
        let first = warnings
            .iter()
            .filter(|(d, a)| a.is_some_and(|a| std::ptr::eq(a, e)) && d.at_us as i64 <= e.time_unix_us)
            .map(|(d, _)| d.at_us)
            .min();
        match first {
            Some(at) => {
                s.warned += 1;
                let lead_s = (e.time_unix_us - at as i64) as f64 / 1e6;
                s.lead_times_s.push(lead_s);
                if lead_s < MIN_LEAD_S {
                    s.explained.push(format!(
                        "short   {}: lead {lead_s:.2} s, {}",
                        encounter_text(truth, e),
                        seen_text(truth, e)
                    ));
                }
            }
            None => {
                s.missed.push((e.users, e.time_unix_us));
                let late = warnings
                    .iter()
                    .filter(|(_, a)| a.is_some_and(|a| std::ptr::eq(a, e)))
                    .map(|(d, _)| (d.at_us as i64 - e.time_unix_us) as f64 / 1e6)
                    .next();
                s.explained.push(format!(
                    "missed  {}{}, {}",
                    encounter_text(truth, e),
                    late.map_or(String::new(), |s| format!(", first warned {s:.2} s after")),
                    seen_text(truth, e),
                ));
            }
        }
    }
    // Each ActionID by the most critical encounter any of its DENMs announced.
    let mut by_action: std::collections::BTreeMap<u16, f64> = std::collections::BTreeMap::new();
    for (d, a) in &warnings {
        let pet = a.map_or(f64::INFINITY, |a| a.pet_s);
        let best = by_action.entry(d.denm.sequence_number).or_insert(f64::INFINITY);
        *best = best.min(pet);
    }
    for (seq, pet) in by_action {
        s.warnings += 1;
        let class = if pet < CONFLICT_PET_S {
            s.true_warnings += 1;
            continue;
        } else if pet < CLEARLY_SAFE_PET_S {
            s.borderline += 1;
            "border "
        } else {
            s.false_action_ids.push(seq);
            "false  "
        };
        let Some((d, a)) = warnings.iter().find(|(d, _)| d.denm.sequence_number == seq) else { continue };
        let risk = d.risk.unwrap_or_default();
        let at_ms = (d.at_us / 1000) as i64;
        let users = match (a, &risk.first, &risk.second) {
            (Some(a), _, _) => pair_text(truth, a.users, d.at_us as i64),
            (None, Some(x), Some(y)) => match (road_user(truth, x, at_ms), road_user(truth, y, at_ms)) {
                (Some(x), Some(y)) => {
                    format!("{} (paths never within reach)", pair_text(truth, [x, y], d.at_us as i64))
                }
                _ => format!("unresolved objects {}/{} × {}/{}", x.sensor_id, x.object_id, y.sensor_id, y.object_id),
            },
            _ => "a DENM without its risk".to_string(),
        };
        s.explained.push(format!(
            "{class} {users} (PET {pet:.2} s): at {} ttc {:.2} s p {:.2}",
            crate::watch::format_time_us(d.at_us),
            risk.time_to_collision_s,
            risk.probability
        ));
    }
    s.clearly_false = s.false_action_ids.len();
    s.false_warnings = s.clearly_false;
    s
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
        out.extend(pipeline.process(crate::demo::RSU_ID, &r.cpm)?);
        out.append(&mut pipeline.silent);
        for d in &mut out[from..] {
            d.at_us = d.at_us.max(arrived_us);
        }
    }
    Ok(out)
}

/// Parses a seed list: `1-10`, `3`, `1,4,7-9`.
pub fn parse_seeds(text: &str) -> anyhow::Result<Vec<u64>> {
    let mut seeds = Vec::new();
    for part in text.split(',').map(str::trim) {
        let (from, to) = part.split_once('-').unwrap_or((part, part));
        let (from, to): (u64, u64) = (from.trim().parse()?, to.trim().parse()?);
        anyhow::ensure!(from <= to, "seed range {part} runs backwards");
        seeds.extend(from..=to);
    }
    Ok(seeds)
}

/// `work` for every seed, the seeds spread over all cores (each seed is independent: simulate,
/// run, score); results in no particular order.
fn on_all_cores<I: Copy + Send + Sync, T: Send>(
    seeds: &[I],
    work: impl Fn(I) -> anyhow::Result<T> + Sync,
) -> anyhow::Result<Vec<T>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(seeds.len().max(1));
    let work = &work;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let chunk: Vec<I> = seeds.iter().copied().skip(t).step_by(threads).collect();
                scope.spawn(move || chunk.into_iter().map(work).collect::<anyhow::Result<Vec<T>>>())
            })
            .collect();
        let per_thread = handles
            .into_iter()
            .map(|h| h.join().expect("evaluation thread panicked"))
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(per_thread.into_iter().flatten().collect())
    })
}

/// Simulates each seed with `params` (its seed replaced) and scores the native pipeline's
/// DENMs; seeds run on all cores.
pub fn evaluate_seeds(
    graph: &LaneGraph,
    seeds: &[u64],
    params: &Params,
    config: &[(String, String)],
) -> anyhow::Result<Vec<(u64, Score)>> {
    let mut rows = on_all_cores(seeds, |seed| {
        let sim = crate::sim::simulate(graph, &Params { seed, ..*params })?;
        let denms = run_scored(graph, &sim.records, config)?;
        Ok((seed, score_truth(&denms, &crate::sim::truth(&sim))))
    })?;
    rows.sort_by_key(|r| r.0);
    Ok(rows)
}

/// The DENMs the sender makes of logged risk frames when the detector reports only the risks
/// `policy` reports ([`DetectorConfig::reports`]), held for `frames` consecutive frames by the
/// same two tracked objects — what a run with that policy would send.
pub fn replay_policy(risks: &[(u64, CollisionRiskFrame)], policy: &DetectorConfig, frames: u32) -> Vec<EmittedDenm> {
    type Pair = (u32, u32, u32, u32);
    let pair = |r: &cits::proto::CollisionRisk| -> Pair {
        let (a, b) = (r.first.unwrap_or_default(), r.second.unwrap_or_default());
        (a.sensor_id, a.object_id, b.sensor_id, b.object_id)
    };
    let sender = SenderConfig::default();
    let mut warnings = ActiveWarnings::default();
    let mut on_air = HashMap::new();
    let mut held: HashMap<Pair, u32> = HashMap::new();
    let mut out = Vec::new();
    for (now, frame) in risks {
        let qualifying: Vec<&cits::proto::CollisionRisk> =
            frame.risks.iter().filter(|r| policy.reports(r.probability, r.time_to_collision_s)).collect();
        // Consecutive frames each pair has qualified in, this one included.
        let mut now_held: HashMap<Pair, u32> = HashMap::new();
        for r in &qualifying {
            let k = pair(r);
            let n = held.get(&k).copied().unwrap_or(0) + 1;
            now_held.insert(k, n);
        }
        held = now_held;
        let kept = CollisionRiskFrame {
            risks: qualifying.into_iter().filter(|r| held[&pair(r)] >= frames).copied().collect(),
            ..frame.clone()
        };
        let stepped = step_covering(&mut warnings, &kept, *now, &sender);
        out.extend(emitted(*now, &warnings, &mut on_air, &kept, stepped));
    }
    out
}

/// Per bin of predicted route probability (tenths): routes predicted, and how many of them the
/// road user then took. Only vehicles with more than one route count (one route is certain; a
/// pedestrian's "stops at the kerb" lies along the route she takes either way).
pub type Calibration = [(usize, usize); 10];

/// Whether the road user took `route`: every lanelet of it is on the user's true route.
fn calibration(paths: &[PredictedPath], truth: &Truth) -> Calibration {
    let mut bins = [(0usize, 0usize); 10];
    for p in paths.iter().filter(|p| p.mode != cits::proto::TravelMode::Pedestrian as i32) {
        let alternatives = paths
            .iter()
            .filter(|q| {
                q.observed_at_us == p.observed_at_us && q.object_id == p.object_id && q.sensor_id == p.sensor_id
            })
            .count();
        if alternatives < 2 {
            continue;
        }
        let Some(user) = road_user(truth, &cits::collision::object(p), (p.observed_at_us / 1000) as i64) else {
            continue;
        };
        let Some(u) = truth.road_users.iter().find(|u| u.id == user) else { continue };
        let bin = ((p.probability * 10.0) as usize).min(9);
        bins[bin].0 += 1;
        bins[bin].1 += usize::from(p.lanelet_sequence.iter().all(|l| u.route.contains(l)));
    }
    bins
}

/// What sweeping the warning policy gives: per policy (thresholds, frames held) the summed
/// score over the seeds, and the calibration of route probabilities.
/// A warning policy of the sweep (and the frames a risk is held) with its score.
pub type PolicyScore = (DetectorConfig, u32, Score);

pub fn sweep(
    graph: &LaneGraph,
    seeds: &[u64],
    params: &Params,
    config: &[(String, String)],
    grid: &[(DetectorConfig, u32)],
) -> anyhow::Result<(Vec<PolicyScore>, Calibration)> {
    // Each seed on its own thread (all cores): simulate, log every risk, replay the grid.
    let per_seed = |seed: u64| -> anyhow::Result<(Vec<Score>, Calibration)> {
        let sim = crate::sim::simulate(graph, &Params { seed, ..*params })?;
        let truth = crate::sim::truth(&sim);
        let mut pipeline = NativePipeline::logging_all_risks(graph, config)?;
        for r in &sim.records {
            pipeline.process(crate::demo::RSU_ID, &r.cpm)?;
        }
        let log = pipeline.log.take().unwrap_or_default();
        let scores = grid
            .iter()
            .map(|(policy, frames)| score_truth(&replay_policy(&log.risks, policy, *frames), &truth))
            .collect();
        Ok((scores, calibration(&log.paths, &truth)))
    };
    let results = on_all_cores(seeds, per_seed)?;
    let mut scores: Vec<Score> = vec![Score::default(); grid.len()];
    let mut bins = [(0usize, 0usize); 10];
    for (seed_scores, seed_bins) in results {
        for (total, s) in scores.iter_mut().zip(&seed_scores) {
            total.add(s);
        }
        for (b, (n, hit)) in bins.iter_mut().zip(seed_bins) {
            b.0 += n;
            b.1 += hit;
        }
    }
    Ok((grid.iter().zip(scores).map(|((policy, frames), s)| (policy.clone(), *frames, s)).collect(), bins))
}

/// What the pipeline made of two road users, frame by frame, in one simulated recording: each
/// one's predicted routes (turns and probabilities, speed ahead) and the risk between them with
/// its probability and TTC — whether or not the policy would warn. For finding out why a
/// warning was false or late.
pub fn trace(
    graph: &LaneGraph,
    seed: u64,
    params: &Params,
    config: &[(String, String)],
    users: [u32; 2],
) -> anyhow::Result<Vec<String>> {
    trace_recording(graph, &crate::sim::simulate(graph, &Params { seed, ..*params })?, config, users)
}

/// [`trace`] of a recording already simulated (e.g. one NCAP case).
pub fn trace_recording(
    graph: &LaneGraph,
    sim: &crate::sim::Simulation,
    config: &[(String, String)],
    users: [u32; 2],
) -> anyhow::Result<Vec<String>> {
    let truth = crate::sim::truth(sim);
    let policy = NativePipeline::configured(graph, config)?.detector;
    let mut pipeline = NativePipeline::logging_all_risks(graph, config)?;
    let turn: HashMap<i64, &str> = graph.lanelets.iter().map(|l| (l.id, l.turn.as_str())).collect();
    let mut out = Vec::new();
    for r in &sim.records {
        let seen = pipeline.log.as_ref().map_or(0, |l| l.paths.len());
        pipeline.process(crate::demo::RSU_ID, &r.cpm)?;
        let Some(log) = &pipeline.log else { continue };
        let Some((now, frame)) = log.risks.last() else { continue };
        let at_ms = (*now / 1000) as i64;
        let user_of = |p: &PredictedPath| road_user(&truth, &cits::collision::object(p), at_ms);
        let mut lines = Vec::new();
        for p in log.paths[seen..].iter().filter(|p| user_of(p).is_some_and(|u| users.contains(&u))) {
            let turns: Vec<String> = p
                .lanelet_sequence
                .iter()
                .map(|l| match turn.get(l).copied().unwrap_or("") {
                    "" => l.to_string(),
                    t => format!("{l}:{t}"),
                })
                .collect();
            let origin = Wgs84 { lat: p.positions[0].latitude, lon: p.positions[0].longitude };
            let ahead = p.positions.last().map_or(0.0, |q| {
                let (x, y) = wgs84_to_offset(origin, Wgs84 { lat: q.latitude, lon: q.longitude });
                x.hypot(y)
            });
            lines.push(format!(
                "  #{} sensor {} obj {}/{} rank {} p {:.2} route [{}] {:.1} m in the horizon",
                user_of(p).unwrap_or(0),
                p.sensor_id,
                p.object_id,
                p.generation,
                p.rank,
                p.probability,
                turns.join(" "),
                ahead
            ));
        }
        for risk in &frame.risks {
            let (Some(a), Some(b)) = (&risk.first, &risk.second) else { continue };
            let pair = [road_user(&truth, a, at_ms), road_user(&truth, b, at_ms)];
            if pair.iter().all(|u| u.is_some_and(|u| users.contains(&u))) && pair[0] != pair[1] {
                let warned = policy.reports(risk.probability, risk.time_to_collision_s);
                lines.push(format!(
                    "  risk p {:.2} ttc {:.2} s{}",
                    risk.probability,
                    risk.time_to_collision_s,
                    if warned { " (warned by the policy)" } else { "" }
                ));
            }
        }
        if !lines.is_empty() {
            out.push(crate::watch::format_time_us(*now));
            out.extend(lines);
        }
    }
    Ok(out)
}

/// One table of per-recording scores and their totals (Markdown).
pub fn table(rows: &[(String, Score)]) -> String {
    let mut out = String::from(
        "| recording | min | conflicts (PET < 1.5 s) | warned | lead median s | lead min s | warnings | clearly false /10 min | borderline /10 min | precision |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut total = Score::default();
    let line = |name: &str, s: &Score| {
        let (median, min) = s.lead();
        format!(
            "| {name} | {:.1} | {} | {} | {median:.2} | {min:.2} | {} | {:.1} ({}) | {:.1} ({}) | {:.0} % |\n",
            s.minutes,
            s.planted,
            s.warned,
            s.warnings,
            s.per_10_min(s.clearly_false),
            s.clearly_false,
            s.per_10_min(s.borderline),
            s.borderline,
            100.0 * s.precision()
        )
    };
    for (name, s) in rows {
        out.push_str(&line(name, s));
        total.add(s);
    }
    if rows.len() > 1 {
        out.push_str(&line("**total**", &total));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A truth with a vehicle (1) and two VRUs (2: a conflict, PET 0.4 s; 3: passes 4 s apart),
    /// and trackers: sensor 1 saw them as ids 10, 20 and 30.
    fn truth() -> Truth {
        let mut t: Truth = serde_json::from_str(include_str!("../../../../data/short.truth.json")).unwrap();
        let start = t.parameters.start_unix_ms as i64;
        t.parameters.duration_s = 60;
        let user = |id: u32, kind: crate::sim::Kind| crate::sim::TruthUser { id, kind, ..t.road_users[0].clone() };
        t.road_users = vec![
            user(1, crate::sim::Kind::Car),
            user(2, crate::sim::Kind::Bicycle),
            user(3, crate::sim::Kind::Pedestrian),
        ];
        t.tracks = vec![
            (1, 10, 1, start, start + 60_000),
            (1, 20, 2, start, start + 60_000),
            (1, 30, 3, start, start + 60_000),
        ];
        t.encounters = vec![encounter(&t, [1, 2], 0.4, 30, 0.0), encounter(&t, [1, 3], 4.0, 40, 30.0)];
        t
    }

    #[test]
    fn a_risk_is_warned_once_it_has_qualified_in_as_many_frames_as_the_policy_holds_it() {
        use cits::proto::{CollisionRisk, ObjectRef, TravelMode};
        let object = |object_id, mode: TravelMode| ObjectRef {
            station_id: 1001,
            object_id,
            sensor_id: 1,
            mode: mode as i32,
            ..Default::default()
        };
        // Frames 125 ms apart; the risk drops below p 0.8 in the second one.
        let t0 = 1_700_000_000_000_000u64;
        let frames: Vec<(u64, CollisionRiskFrame)> = [0.9, 0.5, 0.9, 0.9]
            .iter()
            .enumerate()
            .map(|(k, &probability)| {
                let now = t0 + k as u64 * 125_000;
                let risk = CollisionRisk {
                    first: Some(object(10, TravelMode::Car)),
                    second: Some(object(20, TravelMode::Bicycle)),
                    conflict_latitude: 47.8101,
                    conflict_longitude: 13.0518,
                    time_to_collision_s: 1.5,
                    probability,
                    expected_at_us: now + 1_500_000,
                };
                (now, CollisionRiskFrame { rsu_id: "rsu".into(), risks: vec![risk], ..Default::default() })
            })
            .collect();
        let policy =
            DetectorConfig { min_probability: 0.8, max_ttc_s: 2.0, early_max_ttc_s: 2.0, ..Default::default() };
        let first_warned = |held| replay_policy(&frames, &policy, held).first().map(|d| (d.at_us - t0) / 125_000);
        assert_eq!(first_warned(1), Some(0));
        assert_eq!(first_warned(2), Some(3), "frames 2 and 3 in a row");
        assert_eq!(first_warned(3), None);
    }

    /// An encounter of `users` `at_s` after the start, `east_m` east of the reference point.
    fn encounter(t: &Truth, users: [u32; 2], pet_s: f64, at_s: i64, east_m: f64) -> TruthEncounter {
        let p = cits::geo::offset_to_wgs84(Wgs84 { lat: 47.8101, lon: 13.0518 }, east_m, 0.0);
        TruthEncounter {
            users,
            pet_s,
            min_ttc_s: None,
            time_unix_us: (t.parameters.start_unix_ms as i64 + at_s * 1000) * 1000,
            lat: p.lat,
            lon: p.lon,
            planted: None,
        }
    }

    fn warning(truth: &Truth, seq: u16, objects: Option<(u32, u32)>, east_m: f64, at_s: f64) -> EmittedDenm {
        let p = cits::geo::offset_to_wgs84(Wgs84 { lat: 47.8101, lon: 13.0518 }, east_m, 0.0);
        let object = |id, mode: cits::proto::TravelMode| cits::proto::ObjectRef {
            station_id: 1001,
            object_id: id,
            sensor_id: 1,
            mode: mode as i32,
            ..Default::default()
        };
        EmittedDenm {
            at_us: ((truth.parameters.start_unix_ms as f64 + at_s * 1000.0) * 1000.0) as u64,
            denm: SimpleDenm {
                sequence_number: seq,
                event_lat_e7: (p.lat * 1e7).round() as i32,
                event_lon_e7: (p.lon * 1e7).round() as i32,
                termination: None,
                ..etsi_its::denm::fixtures::sample()
            },
            risk: objects.map(|(a, b)| cits::proto::CollisionRisk {
                first: Some(object(a, cits::proto::TravelMode::Car)),
                second: Some(object(
                    b,
                    if b == 20 { cits::proto::TravelMode::Bicycle } else { cits::proto::TravelMode::Pedestrian },
                )),
                ..Default::default()
            }),
            sent: true,
        }
    }

    #[test]
    fn warnings_are_judged_by_the_true_pet_of_the_pair_they_name() {
        let t = truth();
        let denms = [
            warning(&t, 0, Some((10, 20)), 8.0, 27.0), // the conflict, 3 s ahead, its point 8 m off
            warning(&t, 0, Some((10, 20)), 1.0, 31.0), // the same ActionID after the conflict
            warning(&t, 1, Some((10, 30)), 0.0, 28.0), // the pair that passes 4 s apart: clearly false
            warning(&t, 2, Some((30, 20)), 0.0, 28.0), // objects of no listed pair: clearly false
        ];
        let s = score_truth(&denms, &t);
        assert_eq!((s.planted, s.warned, s.lead_times_s.clone()), (1, 1, vec![3.0]));
        assert_eq!((s.warnings, s.true_warnings, s.borderline, s.false_action_ids.clone()), (3, 1, 0, vec![1, 2]));
        assert!((s.per_10_min(s.clearly_false) - 2.0 * 10.0).abs() < 1e-9);
        // Late only: missed.
        let s = score_truth(&denms[1..2], &t);
        assert_eq!((s.warned, s.missed.len()), (0, 1));
    }

    #[test]
    fn a_warning_on_air_counts_for_the_conflict_it_stood_for_without_naming_it() {
        let t = truth();
        // The sender announces the pair that passes 4 s apart; the conflict's risk, a few metres
        // away, it takes to be the same warning (ActionID 0), and sends nothing for it.
        let named = warning(&t, 0, Some((10, 30)), 0.0, 27.0);
        let unnamed = EmittedDenm { sent: false, ..warning(&t, 0, Some((10, 20)), 0.0, 27.5) };
        let s = score_truth(&[named, unnamed], &t);
        assert_eq!((s.denms, s.warned, s.lead_times_s.clone()), (1, 1, vec![2.5]));
        assert_eq!((s.warnings, s.true_warnings, s.false_action_ids.clone()), (1, 1, vec![]));
    }

    #[test]
    fn an_encounter_just_after_the_recording_judges_warnings_but_is_not_one_to_warn() {
        let mut t = truth();
        // Bicycle and pedestrian meet the car 2 s after the 60 s recording ends.
        t.encounters = vec![encounter(&t, [1, 2], 0.3, 62, 0.0)];
        let s = score_truth(&[warning(&t, 0, Some((10, 20)), 0.0, 59.5)], &t);
        assert_eq!((s.planted, s.warned, s.missed.len()), (0, 0, 0), "not a conflict the recording could warn");
        assert_eq!((s.true_warnings, s.false_action_ids.clone()), (1, vec![]), "the warning is about it");
    }

    #[test]
    fn warnings_without_their_risk_are_judged_by_place_and_time() {
        let t = truth();
        let denms = [
            warning(&t, 0, None, 5.0, 26.0),  // near the conflict, 4 s ahead
            warning(&t, 1, None, 29.0, 37.0), // near the safe pair's place, 3 s ahead
            warning(&t, 2, None, 0.0, 20.0),  // too early to be about anything
        ];
        let s = score_truth(&denms, &t);
        assert_eq!((s.warned, s.lead_times_s.clone()), (1, vec![4.0]));
        assert_eq!(s.false_action_ids, vec![1, 2]);
    }

    #[test]
    fn a_trace_follows_two_road_users_to_the_risk_between_them() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let graph = crate::sim::load_map(&root.join("data/map/weiser-gabelsberger.osm")).unwrap();
        let params = Params::new(1, 40);
        let sim = crate::sim::simulate(&graph, &params).unwrap();
        let truth = crate::sim::truth(&sim);
        // A conflict the pipeline warns of: its trace shows both road users' routes and the risk
        // the policy warned by.
        let conflict = truth.encounters.iter().find(|e| e.pet_s < CONFLICT_PET_S).expect("a conflict in 40 s");
        let lines = trace(&graph, 1, &params, &[], conflict.users).unwrap();
        for user in conflict.users {
            assert!(lines.iter().any(|l| l.starts_with(&format!("  #{user} "))), "#{user} missing: {lines:?}");
        }
        assert!(lines.iter().any(|l| l.contains("(warned by the policy)")), "{lines:?}");
        // Two road users who never meet: their paths, no risk.
        let apart = [conflict.users[0], truth.road_users.iter().map(|u| u.id).max().unwrap() + 1];
        assert!(trace(&graph, 1, &params, &[], apart).unwrap().iter().all(|l| !l.contains("risk")));
    }

    #[test]
    fn seeds_parse_as_lists_and_ranges() {
        assert_eq!(parse_seeds("1-3,7, 9-9").unwrap(), vec![1, 2, 3, 7, 9]);
        assert!(parse_seeds("3-1").is_err() && parse_seeds("x").is_err());
    }

    #[test]
    fn the_native_pipeline_warns_the_short_recordings_conflicts_with_few_false_alarms() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let xml = std::fs::read_to_string(root.join("data/map/weiser-gabelsberger.osm")).unwrap();
        let graph = crate::map::lane_graph_from_osm(&xml, "map").unwrap();
        let records = crate::recording::read_file(&root.join("data/short.rec.b64")).unwrap();
        let truth: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root.join("data/short.truth.json")).unwrap()).unwrap();
        let denms = run(&graph, &records).unwrap();
        let s = score(&denms, &truth).unwrap();
        assert_eq!((s.planted, s.warned), (3, 3), "{s:?}");
        // A warning is only useful with time to react.
        assert!(s.lead_times_s.iter().all(|l| *l > 0.5), "{s:?}");
        // Known and bounded at the operating point: two ActionIDs name pairs that pass apart
        // (a braking car that may turn either way, the committed recordings having no lane
        // position cue); judged by place and time, as the end-to-end test judges the DENMs it
        // receives, at most one. More is a regression.
        assert!(s.clearly_false <= 2, "{s:?}");
        let over_the_air: Vec<EmittedDenm> = denms
            .iter()
            .map(|d| EmittedDenm { at_us: d.at_us, denm: d.denm.clone(), risk: None, sent: true })
            .collect();
        let by_place = score(&over_the_air, &truth).unwrap();
        assert_eq!(by_place.warned, 3, "{by_place:?}");
        assert!(by_place.clearly_false <= 1, "{by_place:?}");
        // Every warning that starts also ends or is still active at the end: terminations pair up.
        let started = denms
            .iter()
            .filter(|d| d.denm.termination.is_none())
            .map(|d| d.denm.sequence_number)
            .collect::<std::collections::BTreeSet<_>>();
        let ended = denms.iter().filter(|d| d.denm.termination.is_some()).count();
        assert!(ended <= started.len());
    }
}

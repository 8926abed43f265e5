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
use cits::denm_sender::{step, SenderConfig};
use cits::geo::{wgs84_to_offset, Wgs84};
use cits::map_matcher::{tile_graph, LaneIndex, TileCache, MATCH_REACH_M, ROUTE_REACH_M, TILE_MARGIN_M};
use cits::predictor::{predict, LaneMap, PredictorConfig};
use cits::proto::{ActiveWarnings, CollisionRiskFrame, LaneGraph, RsuPaths};
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
    predictor: PredictorConfig,
    /// Current predicted paths of the intersection (one RSU here).
    paths: RsuPaths,
    detector: DetectorConfig,
    sender: SenderConfig,
    warnings: ActiveWarnings,
}

/// A DENM with the measurement time at which the pipeline emitted it.
pub struct EmittedDenm {
    pub at_us: u64,
    pub denm: SimpleDenm,
    /// The risk a new or updated warning announces (known natively; None over the wire).
    pub risk: Option<cits::proto::CollisionRisk>,
}

impl NativePipeline {
    pub fn new(graph: &LaneGraph) -> Self {
        let calibrations = Calibrations::new(
            crate::demo::SENSORS
                .iter()
                .map(|(id, pose)| SensorCalibration {
                    station_id: crate::demo::STATION_ID,
                    sensor_id: u32::from(*id),
                    pose: *pose,
                })
                .collect(),
        );
        Self {
            calibrations,
            assembler: AssemblerConfig::default(),
            trajectories: HashMap::new(),
            graph: graph.clone(),
            index: TileCache::new(LaneIndex::new, MATCH_REACH_M),
            lanes: TileCache::new(LaneMap::new, ROUTE_REACH_M),
            predictor: PredictorConfig::default(),
            paths: RsuPaths::default(),
            detector: DetectorConfig::default(),
            sender: SenderConfig::default(),
            warnings: ActiveWarnings::default(),
        }
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
            predicted.extend(predict(lanes, &matched, &self.predictor));
        }
        update_paths(&mut self.paths, predicted, now, &self.detector);
        let all = current_paths([&self.paths], now, &self.detector);
        let risks = CollisionRiskFrame {
            rsu_id: rsu.to_string(),
            risks: detect(&all, now, &self.detector),
            ..Default::default()
        };
        let denms = step(&mut self.warnings, &risks, now, &self.sender);
        Ok(denms
            .into_iter()
            .map(|denm| {
                let risk = self
                    .warnings
                    .warnings
                    .iter()
                    .find(|w| w.sequence_number == u32::from(denm.sequence_number))
                    .and_then(|w| w.risk);
                EmittedDenm { at_us: now, denm, risk }
            })
            .collect())
    }
}

/// How the DENMs compare with the planted conflicts of a ground-truth file.
#[derive(Debug, Default)]
pub struct Score {
    pub planted: usize,
    pub warned: usize,
    pub false_warnings: usize,
    pub lead_times_s: Vec<f64>,
    pub denms: usize,
    /// Sequence numbers of the ActionIDs that warned of no planted conflict.
    pub false_action_ids: Vec<u16>,
}

/// A warning (new or update) counts for a planted conflict when its event position is within this
/// distance of the conflict point and it comes at most `WARN_WINDOW_S` before the conflict time;
/// a false warning is an ActionID none of whose warnings counted for a planted conflict.
const MATCH_RADIUS_M: f64 = 10.0;
const WARN_WINDOW_S: f64 = 6.0;

pub fn score(denms: &[EmittedDenm], truth: &serde_json::Value) -> anyhow::Result<Score> {
    let conflicts = truth["conflicts"].as_array().context("truth has no conflicts")?;
    let warnings: Vec<&EmittedDenm> = denms.iter().filter(|d| d.denm.termination.is_none()).collect();
    let mut true_action_ids = std::collections::BTreeSet::new();
    let mut s = Score { planted: conflicts.len(), denms: denms.len(), ..Default::default() };
    for c in conflicts {
        let place = Wgs84 { lat: c["lat"].as_f64().context("lat")?, lon: c["lon"].as_f64().context("lon")? };
        let at = c["time_unix_us"].as_u64().context("time_unix_us")?;
        // Warnings (new or update) about this place in the window before the conflict. Every
        // ActionID among them announces this conflict (each camera's pair of tracks may get its
        // own before the sender fuses them); the earliest gives the lead time.
        let in_window: Vec<&&EmittedDenm> = warnings
            .iter()
            .filter(|d| {
                let p = Wgs84 { lat: d.denm.event_lat_e7 as f64 / 1e7, lon: d.denm.event_lon_e7 as f64 / 1e7 };
                let (dx, dy) = wgs84_to_offset(place, p);
                dx.hypot(dy) <= MATCH_RADIUS_M && d.at_us <= at && (at - d.at_us) as f64 / 1e6 <= WARN_WINDOW_S
            })
            .collect();
        if let Some(first) = in_window.iter().map(|d| d.at_us).min() {
            true_action_ids.extend(in_window.iter().map(|d| d.denm.sequence_number));
            s.warned += 1;
            s.lead_times_s.push((at - first) as f64 / 1e6);
        }
    }
    let all_action_ids: std::collections::BTreeSet<u16> = warnings.iter().map(|d| d.denm.sequence_number).collect();
    s.false_action_ids = all_action_ids.difference(&true_action_ids).copied().collect();
    s.false_warnings = s.false_action_ids.len();
    Ok(s)
}

/// Runs a recording through the native pipeline as one RSU.
pub fn run(graph: &LaneGraph, records: &[Record]) -> anyhow::Result<Vec<EmittedDenm>> {
    let mut pipeline = NativePipeline::new(graph);
    let mut out = Vec::new();
    for r in records {
        out.extend(pipeline.process(crate::demo::RSU_ID, &r.cpm)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_count_for_a_planted_conflict_by_place_and_time() {
        let conflict_us = 1_664_534_590_000_000;
        let truth = serde_json::json!({"conflicts": [{"lat": 47.8101, "lon": 13.0518, "time_unix_us": conflict_us}]});
        let warning = |seq: u16, east_m: f64, before_s: f64| {
            let p = cits::geo::offset_to_wgs84(Wgs84 { lat: 47.8101, lon: 13.0518 }, east_m, 0.0);
            EmittedDenm {
                at_us: conflict_us - (before_s * 1e6) as u64,
                denm: SimpleDenm {
                    sequence_number: seq,
                    event_lat_e7: (p.lat * 1e7).round() as i32,
                    event_lon_e7: (p.lon * 1e7).round() as i32,
                    termination: None,
                    ..etsi_its::denm::fixtures::sample()
                },
                risk: None,
            }
        };
        let denms = [
            warning(0, 8.0, 3.0),  // one camera's pair, early, the conflict point predicted 8 m off
            warning(1, 1.0, 1.0),  // the other camera's pair, later, on the spot
            warning(2, 30.0, 2.0), // elsewhere
            warning(3, 0.0, 7.0),  // too early to be about it
        ];
        let s = score(&denms, &truth).unwrap();
        assert_eq!((s.planted, s.warned, s.false_action_ids.clone()), (1, 1, vec![2, 3]));
        assert_eq!(s.lead_times_s, vec![3.0]);
    }

    #[test]
    fn the_native_pipeline_warns_every_planted_conflict_of_the_short_recording_in_time() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let xml = std::fs::read_to_string(root.join("data/map/weiser-gabelsberger.osm")).unwrap();
        let graph = crate::map::lane_graph_from_osm(&xml, "map").unwrap();
        let records = crate::recording::read_file(&root.join("data/short.rec.b64")).unwrap();
        let truth: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root.join("data/short.truth.json")).unwrap()).unwrap();
        let denms = run(&graph, &records).unwrap();
        let s = score(&denms, &truth).unwrap();
        assert_eq!((s.planted, s.warned), (3, 3), "{s:?}");
        // A warning is only useful with time to react: typically more than a second ahead
        // (pedestrian conflicts, slow and short, get less).
        let mut lead = s.lead_times_s.clone();
        lead.sort_by(f64::total_cmp);
        assert!(lead[lead.len() / 2] > 1.0 && lead[0] > 0.3, "{s:?}");
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

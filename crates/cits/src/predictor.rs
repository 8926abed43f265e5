//! Predictor stage logic: from a matched trajectory and the lane graph, the likely routes ahead
//! (ranked, with probabilities) and time-stamped positions over a horizon.
//!
//! Routes branch at lanelet successors; each branch is weighted by a turn prior of the travel
//! mode (cars mostly go straight, cyclists rarely turn left), so an object already on a turn
//! connector has one route left. Speed comes from the object's recent track. Pedestrians (their
//! crosswalks and sidewalks are walked either way) and objects without a lane are extrapolated at
//! constant velocity.

use std::collections::HashMap;

use crate::geo::{offset_to_wgs84, wgs84_to_offset, Wgs84};
use crate::map_matcher::{local_centerline, stations};
use crate::proto::{LaneGraph, MatchedTrajectory, PredictedPath, PredictedPosition, TravelMode};
use crate::stage::StageError;

pub const STAGE: &str = "predictor";

#[derive(Debug, Clone, PartialEq)]
pub struct PredictorConfig {
    pub horizon_us: u64,
    pub step_us: u64,
    /// Routes reported per object (most likely first).
    pub max_alternatives: usize,
}

impl Default for PredictorConfig {
    fn default() -> Self {
        Self { horizon_us: 3_000_000, step_us: 250_000, max_alternatives: 3 }
    }
}

impl PredictorConfig {
    /// Reads `horizon_ms`, `step_ms`, `max_alternatives`; others keep defaults.
    pub fn from_config<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, StageError> {
        let mut cfg = Self::default();
        for e in crate::config::entries(STAGE, entries) {
            match e.key {
                "horizon_ms" => cfg.horizon_us = e.millis_as_us()?,
                "step_ms" => cfg.step_us = e.millis_as_us()?,
                "max_alternatives" => cfg.max_alternatives = e.positive_u64()? as usize,
                _ => {}
            }
        }
        if cfg.step_us > cfg.horizon_us {
            return Err(StageError::new("predictor config `step_ms` must not exceed `horizon_ms`"));
        }
        Ok(cfg)
    }
}

/// Prior weight of taking a successor with this turn, per mode.
fn turn_prior(mode: TravelMode, turn: &str, braking: bool) -> f64 {
    // A car braking on its approach is most likely slowing down for a turn.
    let braking_factor = match (mode, turn, braking) {
        (TravelMode::Car, "left" | "right", true) => 3.0,
        (TravelMode::Car, "straight", true) => 0.5,
        _ => 1.0,
    };
    braking_factor
        * match (mode, turn) {
            (TravelMode::Car, "left") => 0.25,
            (TravelMode::Car, "straight") => 0.55,
            (TravelMode::Car, "right") => 0.20,
            (TravelMode::Bicycle, "left") => 0.05,
            (TravelMode::Bicycle, "straight") => 0.75,
            (TravelMode::Bicycle, "right") => 0.25,
            _ => 1.0,
        }
}

struct Lane {
    points: Vec<(f64, f64)>,
    /// Distance along the centerline at each point.
    stations: Vec<f64>,
    successors: Vec<i64>,
    turn: String,
}

/// The lane graph in local metres, for walking along routes.
pub struct LaneMap {
    origin: Wgs84,
    lanes: HashMap<i64, Lane>,
}

impl LaneMap {
    pub fn new(graph: &LaneGraph) -> Self {
        let origin = Wgs84 { lat: graph.origin_latitude, lon: graph.origin_longitude };
        let lanes = graph
            .lanelets
            .iter()
            .map(|l| {
                let points = local_centerline(origin, l);
                // Clipped tile lanelets count distances from the full lanelet's start, as matching does.
                let stations = stations(&points, l.station_offset_m);
                (l.id, Lane { points, stations, successors: l.successors.clone(), turn: l.turn.clone() })
            })
            .collect();
        Self { origin, lanes }
    }

    /// Routes from `lanelet` that cover `distance` metres (or end), with their probabilities.
    /// A route enters no lanelet twice (`behind`: the route so far): successors can form cycles
    /// (crosswalks and sidewalks lead both ways), and a long enough distance would go round them.
    fn routes(
        &self,
        mode: TravelMode,
        braking: bool,
        lanelet: i64,
        remaining: f64,
        behind: &[i64],
    ) -> Vec<(Vec<i64>, f64)> {
        let Some(lane) = self.lanes.get(&lanelet) else { return Vec::new() };
        let left = remaining - lane.stations.last().copied().unwrap_or(0.0);
        let behind = [behind, &[lanelet]].concat();
        let next: Vec<&i64> =
            lane.successors.iter().filter(|s| self.lanes.contains_key(s) && !behind.contains(s)).collect();
        if left <= 0.0 || next.is_empty() {
            return vec![(vec![lanelet], 1.0)];
        }
        let total: f64 = next.iter().map(|s| turn_prior(mode, &self.lanes[s].turn, braking)).sum();
        let mut out = Vec::new();
        for s in next {
            let p = turn_prior(mode, &self.lanes[s].turn, braking) / total;
            for (mut route, q) in self.routes(mode, braking, *s, left, &behind) {
                route.insert(0, lanelet);
                out.push((route, p * q));
            }
        }
        out
    }

    /// The point `distance` metres along `route` from its start (held at the route's end).
    fn walk(&self, route: &[i64], mut distance: f64) -> ((f64, f64), i64) {
        for (i, id) in route.iter().enumerate() {
            let lane = &self.lanes[id];
            let length = *lane.stations.last().unwrap();
            if distance <= length || i + 1 == route.len() {
                let d = distance.min(length);
                let k = lane.stations.partition_point(|s| *s < d).clamp(1, lane.points.len() - 1);
                let (s0, s1) = (lane.stations[k - 1], lane.stations[k]);
                let f = if s1 > s0 { (d - s0) / (s1 - s0) } else { 0.0 };
                let (a, b) = (lane.points[k - 1], lane.points[k]);
                return ((a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1)), *id);
            }
            distance -= length;
        }
        unreachable!("routes are never empty")
    }
}

/// Local metres east/north of the map origin.
type Local = (f64, f64);

/// The track's displacement over its last second: (from, to, seconds).
fn last_second(origin: Wgs84, t: &MatchedTrajectory) -> Option<(Local, Local, f64)> {
    let last = t.points.last()?;
    let first = t.points.iter().find(|p| p.measured_at_us + 1_000_000 >= last.measured_at_us)?;
    let dt = (last.measured_at_us - first.measured_at_us) as f64 / 1e6;
    let local = |p: &crate::proto::MatchedPoint| wgs84_to_offset(origin, Wgs84 { lat: p.latitude, lon: p.longitude });
    (dt >= 0.2).then(|| (local(first), local(last), dt))
}

/// Deceleration (m/s²) above which a track counts as braking.
const BRAKING_MPS2: f64 = 1.5;

/// Whether the track slowed down over its last second: mean speed of its last half second
/// against the half second before.
fn braking(origin: Wgs84, t: &MatchedTrajectory) -> bool {
    let Some(last) = t.points.last() else { return false };
    let at = |us: u64| t.points.iter().find(|p| p.measured_at_us + us >= last.measured_at_us);
    let (Some(a), Some(b)) = (at(1_000_000), at(500_000)) else { return false };
    let local = |p: &crate::proto::MatchedPoint| wgs84_to_offset(origin, Wgs84 { lat: p.latitude, lon: p.longitude });
    let speed = |p: &crate::proto::MatchedPoint, q: &crate::proto::MatchedPoint| {
        let dt = q.measured_at_us.saturating_sub(p.measured_at_us) as f64 / 1e6;
        let ((x0, y0), (x1, y1)) = (local(p), local(q));
        (dt >= 0.2).then(|| (x1 - x0).hypot(y1 - y0) / dt)
    };
    match (speed(a, b), speed(b, last)) {
        (Some(before), Some(recent)) => {
            let dt = (last.measured_at_us - a.measured_at_us) as f64 / 2e6;
            (before - recent) / dt.max(0.2) > BRAKING_MPS2
        }
        _ => false,
    }
}

/// Ranked predicted paths of one object (empty when its track is too short to tell a speed).
pub fn predict(map: &LaneMap, t: &MatchedTrajectory, cfg: &PredictorConfig) -> Vec<PredictedPath> {
    let Some(last) = t.points.last() else { return Vec::new() };
    let mode = TravelMode::try_from(t.mode).unwrap_or(TravelMode::Unknown);
    // Pedestrians walk their crosswalks and sidewalks either way (those lanelets have a drawing
    // direction, not a travel direction), so they keep their own heading: constant velocity.
    let on_lane = mode != TravelMode::Pedestrian && last.lanelet_id != 0 && map.lanes.contains_key(&last.lanelet_id);
    // Local metres around the map origin on the lanes; around the object itself off them, where
    // the map (e.g. an empty off-map tile) may have no meaningful origin.
    let origin = if on_lane { map.origin } else { Wgs84 { lat: last.latitude, lon: last.longitude } };
    let Some((from, to, dt)) = last_second(origin, t) else { return Vec::new() };
    let speed = (to.0 - from.0).hypot(to.1 - from.1) / dt;
    let steps = (cfg.horizon_us / cfg.step_us.max(1)) as usize;
    let path =
        |lanelet_sequence: Vec<i64>, probability: f64, rank: usize, positions: Vec<PredictedPosition>| PredictedPath {
            station_id: t.station_id,
            object_id: t.object_id,
            generation: t.generation,
            mode: t.mode,
            lanelet_sequence,
            probability,
            positions,
            rank: rank as u32,
            sensor_id: t.sensor_id,
            observed_at_us: last.measured_at_us,
        };
    let position = |k: usize, p: (f64, f64), lanelet_id: i64| {
        let w = offset_to_wgs84(origin, p.0, p.1);
        PredictedPosition {
            at_us: last.measured_at_us + k as u64 * cfg.step_us,
            latitude: w.lat,
            longitude: w.lon,
            lanelet_id,
        }
    };
    if !on_lane {
        // Off the lanes: constant velocity along the last second's displacement.
        let (b, v) = (to, ((to.0 - from.0) / dt, (to.1 - from.1) / dt));
        let positions = (1..=steps)
            .map(|k| {
                let s = (k as u64 * cfg.step_us) as f64 / 1e6;
                position(k, (b.0 + v.0 * s, b.1 + v.1 * s), 0)
            })
            .collect();
        return vec![path(Vec::new(), 1.0, 0, positions)];
    }
    let horizon_m = speed * cfg.horizon_us as f64 / 1e6;
    let mut routes = map.routes(mode, braking(origin, t), last.lanelet_id, last.station_m + horizon_m, &[]);
    routes.sort_by(|a, b| b.1.total_cmp(&a.1));
    routes.truncate(cfg.max_alternatives);
    routes
        .into_iter()
        .enumerate()
        .map(|(rank, (route, probability))| {
            let positions = (1..=steps)
                .map(|k| {
                    let (p, lanelet) = map.walk(&route, last.station_m + speed * (k as u64 * cfg.step_us) as f64 / 1e6);
                    position(k, p, lanelet)
                })
                .collect();
            path(route, probability, rank, positions)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::{Lanelet, MatchedPoint};

    const ORIGIN: Wgs84 = Wgs84 { lat: 47.8101, lon: 13.0518 };

    fn lanelet(id: i64, from: (f64, f64), to: (f64, f64), successors: Vec<i64>, turn: &str) -> Lanelet {
        let (a, b) = (offset_to_wgs84(ORIGIN, from.0, from.1), offset_to_wgs84(ORIGIN, to.0, to.1));
        Lanelet {
            id,
            mode: TravelMode::Car as i32,
            centerline: vec![a.lon, a.lat, b.lon, b.lat],
            successors,
            turn: turn.into(),
            ..Default::default()
        }
    }

    /// A northbound approach (60 m) with left, straight and right connectors into 40 m exits.
    fn map() -> LaneMap {
        LaneMap::new(&LaneGraph {
            origin_latitude: ORIGIN.lat,
            origin_longitude: ORIGIN.lon,
            lanelets: vec![
                lanelet(1, (0.0, -60.0), (0.0, 0.0), vec![2, 3, 4], ""),
                lanelet(2, (0.0, 0.0), (-10.0, 10.0), vec![], "left"),
                lanelet(3, (0.0, 0.0), (0.0, 20.0), vec![5], "straight"),
                lanelet(4, (0.0, 0.0), (10.0, 10.0), vec![], "right"),
                lanelet(5, (0.0, 20.0), (0.0, 60.0), vec![], ""),
            ],
            ..Default::default()
        })
    }

    /// A car on the approach doing 10 m/s, last seen `to_go` metres before the stop line.
    fn car(to_go: f64) -> MatchedTrajectory {
        let point = |ms: u64, y: f64| {
            let w = offset_to_wgs84(ORIGIN, 0.0, y);
            MatchedPoint {
                measured_at_us: ms * 1000,
                latitude: w.lat,
                longitude: w.lon,
                lanelet_id: 1,
                station_m: 60.0 + y,
                offset_m: 0.0,
            }
        };
        MatchedTrajectory {
            mode: TravelMode::Car as i32,
            object_id: 9,
            points: vec![point(0, -to_go - 10.0), point(500, -to_go - 5.0), point(1000, -to_go)],
            ..Default::default()
        }
    }

    #[test]
    fn routes_are_ranked_by_turn_priors() {
        let paths = predict(&map(), &car(10.0), &PredictorConfig::default());
        assert_eq!(paths.len(), 3);
        let routes: Vec<&[i64]> = paths.iter().map(|p| p.lanelet_sequence.as_slice()).collect();
        assert_eq!(routes, vec![&[1, 3, 5][..], &[1, 2], &[1, 4]]);
        let probs: Vec<f64> = paths.iter().map(|p| p.probability).collect();
        assert!((probs[0] - 0.55).abs() < 1e-9 && (probs[1] - 0.25).abs() < 1e-9 && (probs[2] - 0.20).abs() < 1e-9);
        assert_eq!(paths.iter().map(|p| p.rank).collect::<Vec<_>>(), vec![0, 1, 2]);
    }

    #[test]
    fn a_braking_car_is_more_likely_to_turn() {
        // 10 m/s, then 6 m/s over the last half second: braking at 8 m/s².
        let mut t = car(10.0);
        let w = |y: f64| offset_to_wgs84(ORIGIN, 0.0, y);
        for (p, y) in t.points.iter_mut().zip([-25.0, -16.0, -13.0]) {
            (p.latitude, p.longitude, p.station_m) = (w(y).lat, w(y).lon, 60.0 + y);
        }
        let paths = predict(&map(), &t, &PredictorConfig::default());
        let p = |route: &[i64]| paths.iter().find(|p| p.lanelet_sequence == route).unwrap().probability;
        // Priors 0.55 / 0.25 / 0.20, turns ×3, straight ×0.5.
        let total = 0.55 * 0.5 + 0.25 * 3.0 + 0.20 * 3.0;
        assert!((p(&[1, 2]) - 0.75 / total).abs() < 1e-9);
        assert!((p(&[1, 3, 5]) - 0.275 / total).abs() < 1e-9);
        assert!(p(&[1, 2]) > p(&[1, 3, 5]));
    }

    #[test]
    fn positions_advance_at_the_tracked_speed_over_the_horizon() {
        let paths = predict(&map(), &car(40.0), &PredictorConfig::default());
        // 40 m before the line at 10 m/s: all 3 s stay on the approach, one route.
        assert_eq!(paths.len(), 1);
        let p = &paths[0];
        assert_eq!(p.positions.len(), 12);
        assert_eq!(p.positions[0].at_us, 1_000_000 + 250_000);
        let end = wgs84_to_offset(ORIGIN, Wgs84 { lat: p.positions[11].latitude, lon: p.positions[11].longitude });
        assert!(end.0.abs() < 1e-6 && (end.1 - (-40.0 + 30.0)).abs() < 1e-3, "{end:?}");
        assert!(p.positions.iter().all(|q| q.lanelet_id == 1));
    }

    #[test]
    fn a_car_past_the_line_on_a_connector_has_one_route() {
        let mut t = car(10.0);
        for p in &mut t.points {
            p.lanelet_id = 4;
            p.station_m = 1.0;
        }
        let paths = predict(&map(), &t, &PredictorConfig::default());
        assert_eq!(paths.len(), 1);
        assert_eq!((paths[0].lanelet_sequence.as_slice(), paths[0].probability), (&[4][..], 1.0));
    }

    #[test]
    fn pedestrians_keep_their_heading_on_lanelets_walked_against_their_direction() {
        // On lanelet 1 (drawn northwards) but walking south at 1.5 m/s.
        let mut t = car(10.0);
        t.mode = TravelMode::Pedestrian as i32;
        let w = |y: f64| offset_to_wgs84(ORIGIN, 0.0, y);
        for (p, y) in t.points.iter_mut().zip([-10.0, -10.75, -11.5]) {
            (p.latitude, p.longitude, p.station_m) = (w(y).lat, w(y).lon, 60.0 + y);
        }
        let paths = predict(&map(), &t, &PredictorConfig::default());
        assert_eq!(paths.len(), 1);
        assert!(paths[0].lanelet_sequence.is_empty());
        let end = paths[0].positions.last().unwrap();
        let end = wgs84_to_offset(ORIGIN, Wgs84 { lat: end.latitude, lon: end.longitude });
        assert!((end.1 - (-11.5 - 4.5)).abs() < 0.01, "{end:?}");
    }

    #[test]
    fn objects_off_the_lanes_move_at_constant_velocity() {
        let mut t = car(10.0);
        for p in &mut t.points {
            p.lanelet_id = 0;
        }
        let paths = predict(&map(), &t, &PredictorConfig { horizon_us: 1_000_000, ..Default::default() });
        let end = &paths[0].positions.last().unwrap();
        let end = wgs84_to_offset(ORIGIN, Wgs84 { lat: end.latitude, lon: end.longitude });
        assert!((end.1 - 0.0).abs() < 1e-3, "{end:?}"); // 10 m/s for 1 s from 10 m before the line
        assert!(predict(&map(), &MatchedTrajectory::default(), &PredictorConfig::default()).is_empty());
    }

    /// Found by fuzzing (fuzz/, target `stage_predictor`): a matched frame (these bytes) with a
    /// cyclist on a crosswalk lanelet (the map matcher sends none, but anything on the lattice
    /// may) and a 600 m jump in its last second. Its routes went round the crosswalks, which lead
    /// both ways, until they covered a horizon of 7 km: a stack overflow (or 2^550 routes).
    #[test]
    fn routes_never_go_round_a_cycle() {
        use prost::Message as _;
        const FRAME: &[u8] = &[
            0x0a, 0x04, 0x72, 0x73, 0x75, 0x31, 0x1a, 0xa0, 0x01, 0x08, 0xe9, 0x07, 0x10, 0x9e, 0x01, 0x20, 0x02, 0x2a,
            0x30, 0x08, 0xc0, 0xb1, 0xeb, 0xc2, 0xaa, 0xbc, 0xfa, 0x02, 0x11, 0x25, 0x01, 0x00, 0x00, 0x00, 0xe7, 0x47,
            0x40, 0x19, 0xaf, 0x38, 0x93, 0x5f, 0x88, 0x1a, 0x2a, 0x40, 0x20, 0x99, 0x15, 0x29, 0xa0, 0x28, 0x0e, 0x46,
            0xe0, 0x3d, 0xa4, 0x3f, 0x31, 0x12, 0x6b, 0xb3, 0x89, 0xd4, 0xd0, 0x37, 0x40, 0x2a, 0x30, 0x08, 0x88, 0x82,
            0xf3, 0xc2, 0xaa, 0xbc, 0xfa, 0x02, 0x11, 0x29, 0x34, 0xa3, 0xf4, 0xb1, 0xe7, 0x47, 0x40, 0x19, 0x80, 0x56,
            0x89, 0x47, 0x9c, 0x1a, 0x2a, 0x40, 0x20, 0xc4, 0x13, 0x29, 0x00, 0xe8, 0x2c, 0xdb, 0xbc, 0x23, 0x82, 0x3f,
            0x31, 0x83, 0x5b, 0x57, 0x7f, 0x6a, 0xdf, 0x18, 0x40, 0x2a, 0x30, 0x08, 0xd0, 0xd2, 0xfa, 0xc2, 0xaa, 0xbc,
            0xfa, 0x02, 0x11, 0x07, 0x30, 0x6f, 0xe9, 0xb1, 0xe7, 0x47, 0x40, 0x19, 0x26, 0x56, 0x89, 0x47, 0x9c, 0x1a,
            0x2a, 0x40, 0x20, 0xc4, 0x13, 0x29, 0x00, 0x00, 0xf0, 0x64, 0x97, 0x43, 0x5d, 0x3f, 0x31, 0xf0, 0xb5, 0xeb,
            0xe4, 0x78, 0x8f, 0x19, 0x40, 0x30, 0x01,
        ];
        let frame = crate::proto::MatchedTrajectoryFrame::decode(FRAME).unwrap();
        let t = &frame.trajectories[0];
        assert_eq!((t.mode, t.points[2].lanelet_id), (TravelMode::Bicycle as i32, 2500));
        // Crosswalks round a corner, each leading on to both its neighbours, as in the map.
        let map = LaneMap::new(&LaneGraph {
            origin_latitude: ORIGIN.lat,
            origin_longitude: ORIGIN.lon,
            lanelets: vec![
                lanelet(1500, (0.0, 0.0), (0.0, 13.0), vec![1600, 2600], ""),
                lanelet(1600, (0.0, 13.0), (13.0, 13.0), vec![1500, 2500], ""),
                lanelet(2500, (13.0, 13.0), (13.0, 0.0), vec![1600, 2600], ""),
                lanelet(2600, (13.0, 0.0), (0.0, 0.0), vec![2500, 1500], ""),
            ],
            ..Default::default()
        });
        let paths = predict(&map, t, &PredictorConfig::default());
        assert!(!paths.is_empty());
        for p in paths {
            let mut lanelets = p.lanelet_sequence.clone();
            lanelets.sort();
            lanelets.dedup();
            assert_eq!(lanelets.len(), p.lanelet_sequence.len(), "{:?}", p.lanelet_sequence);
        }
    }
}

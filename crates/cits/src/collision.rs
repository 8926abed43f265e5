// Over 600 lines: to be split by concern (config and policy, geometry, fusion of two cameras' tracks) with its model (issue 37).
//! Collision detector logic: predicted paths of all objects at an intersection tested against
//! each other in space and time.
//!
//! Each predicted position is an area — a disc around the position at that time step, sized by
//! the road user's kind — so a path is a chain of space-time areas, as in the research. Two paths
//! conflict when their areas overlap at the same time step; the first such step gives the conflict
//! point and the time to collision, the paths' probabilities give the risk's probability.
//! Vulnerable road users (bicycles, pedestrians) against vehicles are what we warn about.

use std::borrow::Borrow;
use std::collections::HashMap;

use crate::geo::{distance, offset_to_wgs84, wgs84_to_offset, Wgs84};
use crate::predictor::{lateral_likelihood, LANE_SECONDS};
use crate::proto::{
    CollisionRisk, LanePosition, LaneSecond, ObjectPaths, ObjectRef, PredictedPath, RsuPaths, TravelMode,
};
use crate::stage::StageError;

pub const STAGE: &str = "collision_detector";

/// The warning policy's operating point, picked from the recall against clearly-false-warnings
/// curve over simulated recordings (`cits evaluate --sweep`, docs/warnings/); the manifests name
/// the same values.
pub struct OperatingPoint {
    pub min_probability: f64,
    pub max_ttc_s: f64,
    pub early_min_probability: f64,
    pub early_max_ttc_s: f64,
    pub max_pet_s: f64,
}

pub const OPERATING_POINT: OperatingPoint = OperatingPoint {
    min_probability: 0.8,
    max_ttc_s: 1.6,
    early_min_probability: 0.89,
    early_max_ttc_s: 2.5,
    max_pet_s: 1.75,
};

/// How far below a bar a probability may fall and still count as reaching it. Probabilities are
/// sums of products of likelihoods made with `exp`, whose last bits differ between the Wasm
/// build's libm and the native one; a route that is certain comes out 1.0 in one and
/// 0.999…9 in the other. Without this slack the actors and the native pipeline would warn (and
/// grade) such a risk differently.
pub const PROBABILITY_SLACK: f64 = 1e-9;

#[derive(Debug, Clone, PartialEq)]
pub struct DetectorConfig {
    /// Risks below this probability are not reported.
    pub min_probability: f64,
    /// Only vehicle ↔ vulnerable road user pairs (the warning's purpose); false adds vehicle pairs.
    pub vru_only: bool,
    /// An object's paths are dropped when its newest point is this much older than the frame.
    pub path_ttl_us: u64,
    /// Path pairs tested per frame at most (`limits.max_pairs_per_frame`, see [`pairs_to_test`]).
    pub max_pairs: usize,
    /// Paths an RSU's state keeps at most (`limits.max_paths_per_frame`, see [`update_paths`]).
    pub max_paths: usize,
    /// Risks further ahead than this (time to collision, s) are not reported yet: the further
    /// ahead, the less a prediction is worth.
    pub max_ttc_s: f64,
    /// A risk further ahead than `max_ttc_s` is still reported up to this TTC (s) when it is at
    /// least `early_min_probability` likely: the surer a prediction, the further ahead it is
    /// worth a warning (a second tier of the policy; equal to `max_ttc_s`, it is off).
    pub early_max_ttc_s: f64,
    pub early_min_probability: f64,
    /// How fast a predicted position's uncertainty grows with the time ahead of its
    /// observation: the areas' radii grow by this many metres per second.
    pub spread_mps: f64,
    /// Paths that cross conflict when the predicted post-encroachment time there (the second
    /// road user reaching the crossing after the first has left it) is at most this, s.
    pub max_pet_s: f64,
}

impl Default for DetectorConfig {
    fn default() -> Self {
        Self {
            min_probability: OPERATING_POINT.min_probability,
            vru_only: true,
            path_ttl_us: 500_000,
            max_pairs: crate::limits::Limits::default().max_pairs_per_frame,
            max_paths: crate::limits::Limits::default().max_paths_per_frame,
            max_ttc_s: OPERATING_POINT.max_ttc_s,
            early_max_ttc_s: OPERATING_POINT.early_max_ttc_s,
            early_min_probability: OPERATING_POINT.early_min_probability,
            spread_mps: 0.3,
            max_pet_s: OPERATING_POINT.max_pet_s,
        }
    }
}

impl DetectorConfig {
    /// Reads `min_probability`, `vru_only`, `path_ttl_ms`, `max_ttc_s`, `early_max_ttc_s`,
    /// `early_min_probability`, `spread_mps`, `max_pet_s`; others (e.g. `intersection.*`) are
    /// left to [`intersection_of`].
    pub fn from_config<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, StageError> {
        let mut cfg = Self::default();
        for e in crate::config::entries(STAGE, entries) {
            match e.key {
                "min_probability" => cfg.min_probability = e.probability()?,
                "vru_only" => cfg.vru_only = e.boolean()?,
                "path_ttl_ms" => cfg.path_ttl_us = e.millis_as_us()?,
                "max_ttc_s" => cfg.max_ttc_s = e.positive_f64()?,
                "spread_mps" => cfg.spread_mps = e.non_negative_f64()?,
                "max_pet_s" => cfg.max_pet_s = e.non_negative_f64()?,
                "early_max_ttc_s" => cfg.early_max_ttc_s = e.positive_f64()?,
                "early_min_probability" => cfg.early_min_probability = e.probability()?,
                _ => {}
            }
        }
        Ok(cfg)
    }

    /// Whether a risk this likely, this far ahead (TTC, s), is reported: either tier of the
    /// policy (`min_probability` up to `max_ttc_s`, `early_min_probability` up to
    /// `early_max_ttc_s`).
    pub fn reports(&self, probability: f64, ttc_s: f64) -> bool {
        let reaches = |bar: f64| probability + PROBABILITY_SLACK >= bar;
        (reaches(self.min_probability) && ttc_s <= self.max_ttc_s)
            || (reaches(self.early_min_probability) && ttc_s <= self.early_max_ttc_s)
    }
}

/// The intersection an RSU belongs to and all RSUs there, from config entries
/// `intersection.<rsu> = <intersection>`; an RSU without an entry is an intersection of its own.
pub fn intersection_of<'a>(rsu: &str, entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> (String, Vec<String>) {
    let members: Vec<(&str, &str)> =
        entries.into_iter().filter_map(|(k, v)| Some((k.strip_prefix("intersection.")?, v.trim()))).collect();
    let Some((_, name)) = members.iter().find(|(r, _)| *r == rsu) else {
        return (rsu.to_string(), vec![rsu.to_string()]);
    };
    let mut rsus: Vec<String> = members.iter().filter(|(_, n)| n == name).map(|(r, _)| r.to_string()).collect();
    rsus.sort();
    (name.to_string(), rsus)
}

/// Key-value key of what `rsu` contributes to `intersection`.
pub fn state_key(intersection: &str, rsu: &str) -> String {
    format!("{intersection}/{rsu}")
}

/// Replaces the stored paths of the objects in `paths` (one object's alternatives together) and
/// drops objects whose newest point is older than the TTL at `now_us`. An RSU keeps no more paths
/// than one frame may carry (`cfg.max_paths`): else one sending new object ids in every frame
/// (a flood within the TTL) would grow the detector's work without bound; the objects seen
/// longest ago go first.
pub fn update_paths(state: &mut RsuPaths, paths: Vec<PredictedPath>, now_us: u64, cfg: &DetectorConfig) {
    for p in paths {
        let key = crate::assembler::state_key(p.station_id, p.sensor_id, p.object_id);
        let observed = p.observed_at_us;
        match state.objects.iter_mut().find(|o| o.object_key == key) {
            // A newer prediction replaces all alternatives of the older one.
            Some(o) if o.observed_at_us < observed => {
                o.observed_at_us = observed;
                o.paths = vec![p];
            }
            // Another alternative of the same prediction; a repeated frame (redelivery) replaces.
            Some(o) if o.observed_at_us == observed => match o.paths.iter_mut().find(|q| q.rank == p.rank) {
                Some(same) => *same = p,
                None => o.paths.push(p),
            },
            Some(_) => {} // late frame: an older prediction than the one stored
            None => state.objects.push(ObjectPaths { object_key: key, observed_at_us: observed, paths: vec![p] }),
        }
    }
    state.objects.retain(|o| o.observed_at_us + cfg.path_ttl_us >= now_us);
    let mut stored: usize = state.objects.iter().map(|o| o.paths.len()).sum();
    while stored > cfg.max_paths {
        // Only ever reached by a flood: a linear search per object dropped keeps the order (and
        // the component free of sorting code).
        let Some(oldest) = (0..state.objects.len()).min_by_key(|&i| state.objects[i].observed_at_us) else { break };
        stored -= state.objects.remove(oldest).paths.len();
    }
}

/// Radius (m) of the area a road user of this mode occupies around its predicted position at
/// the time of its observation (the uncertainty then grows, [`DetectorConfig::spread_mps`]).
fn radius_m(mode: TravelMode) -> f64 {
    match mode {
        TravelMode::Car => 2.0,
        TravelMode::Bicycle => 1.0,
        TravelMode::Pedestrian => 0.75,
        TravelMode::Unknown => 1.0,
    }
}

fn is_vru(mode: TravelMode) -> bool {
    matches!(mode, TravelMode::Bicycle | TravelMode::Pedestrian)
}

/// The road user a path is of, as risks name it.
pub fn object(p: &PredictedPath) -> ObjectRef {
    ObjectRef {
        station_id: p.station_id,
        object_id: p.object_id,
        generation: p.generation,
        mode: p.mode,
        sensor_id: p.sensor_id,
    }
}

type ObjectKey = (u32, u32, u32, u32); // station, sensor, object, generation

fn key(p: &PredictedPath) -> ObjectKey {
    (p.station_id, p.sensor_id, p.object_id, p.generation)
}

/// The paths stored for an intersection (the states of its RSUs) still current at `now_us`,
/// ready for [`detect`]. Other RSUs' states are read-only here, so their expiry is applied too.
pub fn current_paths<'a>(
    states: impl IntoIterator<Item = &'a RsuPaths>,
    now_us: u64,
    cfg: &DetectorConfig,
) -> Vec<&'a PredictedPath> {
    states
        .into_iter()
        .flat_map(|s| s.objects.iter())
        .filter(|o| o.observed_at_us + cfg.path_ttl_us >= now_us)
        .flat_map(|o| o.paths.iter())
        .collect()
}

/// Half the width of a road user of this mode (m): side by side, areas closer than the sum touch.
fn half_width_m(mode: TravelMode) -> f64 {
    match mode {
        TravelMode::Car => 1.0,
        TravelMode::Bicycle => 0.4,
        TravelMode::Pedestrian => 0.3,
        TravelMode::Unknown => 0.5,
    }
}

/// Where two polylines (local metres) cross: the point, and for each polyline the segment and
/// the fraction along it.
struct Crossing {
    at: (f64, f64),
    a: (usize, f64),
    b: (usize, f64),
}

/// A polyline (local metres) with the bounding box of each of its segments.
#[derive(Clone, Copy)]
struct Polyline<'a> {
    points: &'a [(f64, f64)],
    boxes: &'a [[f64; 4]],
}

/// Bounding boxes (min x, min y, max x, max y) of a polyline's segments. Plain comparisons, not
/// `f64::min`/`max` (libm calls in Wasm); the points are finite (validated on input).
fn segment_boxes(points: &[(f64, f64)]) -> Vec<[f64; 4]> {
    let lo = |a: f64, b: f64| if a < b { a } else { b };
    let hi = |a: f64, b: f64| if a > b { a } else { b };
    points
        .windows(2)
        .map(|w| [lo(w[0].0, w[1].0), lo(w[0].1, w[1].1), hi(w[0].0, w[1].0), hi(w[0].1, w[1].1)])
        .collect()
}

fn crossing_points(a: Polyline, b: Polyline) -> Vec<Crossing> {
    let cross = |o: (f64, f64), p: (f64, f64), q: (f64, f64)| (p.0 - o.0) * (q.1 - o.1) - (p.1 - o.1) * (q.0 - o.0);
    let mut out = Vec::new();
    for (i, (sa, ba)) in a.points.windows(2).zip(a.boxes).enumerate() {
        for (j, (sb, bb)) in b.points.windows(2).zip(b.boxes).enumerate() {
            // Segments whose boxes do not meet cannot cross: most pairs end here.
            if ba[0] > bb[2] || bb[0] > ba[2] || ba[1] > bb[3] || bb[1] > ba[3] {
                continue;
            }
            let (d1, d2) = (cross(sb[0], sb[1], sa[0]), cross(sb[0], sb[1], sa[1]));
            let (d3, d4) = (cross(sa[0], sa[1], sb[0]), cross(sa[0], sa[1], sb[1]));
            if d1 * d2 <= 0.0 && d3 * d4 <= 0.0 && (d1 != d2 || d3 != d4) {
                // The crossing point (the segments' starts when they are collinear).
                let fa = if d1 != d2 { d1 / (d1 - d2) } else { 0.0 };
                let fb = if d3 != d4 { d3 / (d3 - d4) } else { 0.0 };
                let at = (sa[0].0 + fa * (sa[1].0 - sa[0].0), sa[0].1 + fa * (sa[1].1 - sa[0].1));
                out.push(Crossing { at, a: (i, fa), b: (j, fb) });
            }
        }
    }
    out
}

/// Longest a road user takes to pass a crossing (its length at a crawl), s: how much later than
/// the other it can arrive there with a given post-encroachment time.
const OCCUPANCY_S: f64 = 2.0;

/// Length along the path and width of a road user of this mode (m).
fn footprint_m(mode: TravelMode) -> (f64, f64) {
    match mode {
        TravelMode::Car => (4.5, 1.8),
        TravelMode::Bicycle => (1.8, 0.6),
        TravelMode::Pedestrian => (0.5, 0.5),
        TravelMode::Unknown => (1.0, 1.0),
    }
}

/// A path as timed points (µs, local metres): where its road user was ([`PredictedPath::past`])
/// and where it is predicted to be, in time order. A road user that has just crossed the other's
/// path still conflicts with one arriving there shortly after, though its predicted positions
/// (all ahead of it) no longer reach the crossing.
struct Timed {
    times: Vec<f64>,
    points: Vec<(f64, f64)>,
    /// Of `points`' segments (see [`crossing_points`]), computed once per path.
    boxes: Vec<[f64; 4]>,
    /// Where the predicted positions begin in `points` (the past comes first).
    ahead_from: usize,
}

impl Timed {
    /// `local`: the path's positions in local metres (see [`detect`]). Past points not before the
    /// first position (out of order) are left out.
    fn of(p: &PredictedPath, local: &[(f64, f64)], origin: Wgs84) -> Self {
        let first = p.positions.first().map_or(u64::MAX, |q| q.at_us);
        let past = p.past.iter().filter(|q| q.at_us < first);
        let mut times: Vec<f64> = past.clone().map(|q| q.at_us as f64).collect();
        let mut points: Vec<(f64, f64)> =
            past.map(|q| wgs84_to_offset(origin, Wgs84 { lat: q.latitude, lon: q.longitude })).collect();
        let ahead_from = points.len();
        times.extend(p.positions.iter().map(|q| q.at_us as f64));
        points.extend_from_slice(local);
        let boxes = segment_boxes(&points);
        Self { times, points, boxes, ahead_from }
    }

    /// The whole polyline, past and predicted.
    fn whole(&self) -> Polyline<'_> {
        Polyline { points: &self.points, boxes: &self.boxes }
    }

    /// The predicted positions only.
    fn ahead(&self) -> Polyline<'_> {
        let boxes = self.boxes.get(self.ahead_from..).unwrap_or_default();
        Polyline { points: &self.points[self.ahead_from..], boxes }
    }

    /// Where the polyline is at `t` (µs), between its first and last point.
    fn at(&self, t: f64) -> Option<(f64, f64)> {
        let k = self.times.windows(2).position(|w| w[0] <= t && t <= w[1])?;
        let (t0, t1) = (self.times[k], self.times[k + 1]);
        let f = if t1 > t0 { (t - t0) / (t1 - t0) } else { 0.0 };
        let (p, q) = (self.points[k], self.points[k + 1]);
        Some((p.0 + (q.0 - p.0) * f, p.1 + (q.1 - p.1) * f))
    }
}

/// How far apart (m) two sensors' tracks may be at one instant and still be one road user.
fn same_road_user_m(mode: TravelMode) -> f64 {
    match mode {
        TravelMode::Car => 2.0,
        TravelMode::Bicycle => 1.2,
        TravelMode::Pedestrian => 0.8,
        TravelMode::Unknown => 1.0,
    }
}

/// The probability each path counts with in the risks: for a road user that two sensors track,
/// the mean of both tracks' probabilities for routes along the same lanelets, each weighted by how
/// long its sensor has tracked the road user — each track's routes first judged by the lane
/// position both measured ([`with_shared_lane_position`]). A track that begins on a turn connector has no
/// approach to judge the turn by (no braking profile, no lane position kept), and took a cyclist
/// turning right for one going straight across a car's path while the other camera's longer track
/// said "right" at 0.8–0.9; two long tracks that disagree both count.
fn route_probabilities(paths: &[&PredictedPath], timed: &[Timed]) -> Vec<f64> {
    let mut own: Vec<f64> = paths.iter().map(|p| p.probability).collect();
    // One entry per tracked object: a path index standing for it and how long its track is.
    let mut objects: Vec<(ObjectKey, usize, f64)> = Vec::new();
    for (i, p) in paths.iter().enumerate() {
        if !objects.iter().any(|o| o.0 == key(p)) {
            // Paths from a sender that does not say how long it has tracked (0): the past they carry.
            let since = match (p.tracked_since_us, p.past.first()) {
                (0, Some(q)) => q.at_us,
                (0, None) => p.observed_at_us,
                (since, _) => since,
            };
            let seen = p.observed_at_us.saturating_sub(since) as f64 / 1e6;
            objects.push((key(p), i, seen));
        }
    }
    for &(tracked, i, seen) in &objects {
        let p = paths[i];
        let Some(here) = timed[i].at(p.observed_at_us as f64) else { continue };
        let reach = same_road_user_m(TravelMode::try_from(p.mode).unwrap_or_default());
        // The longest-seen other sensor's track of the same road user, if any.
        let witness = objects
            .iter()
            .filter(|o| (o.0 .0, o.0 .1) != (tracked.0, tracked.1) && paths[o.1].mode == p.mode)
            .filter(|o| {
                timed[o.1].at(p.observed_at_us as f64).is_some_and(|q| distance(q.0 - here.0, q.1 - here.1) <= reach)
            })
            .max_by(|a, b| a.2.total_cmp(&b.2));
        let Some(&(witness, _, witness_seen)) = witness else { continue };
        // Each track's estimate counts by how long it has seen the road user.
        let weight = if witness_seen + seen > 0.0 { witness_seen / (witness_seen + seen) } else { 0.5 };
        let theirs: Vec<&PredictedPath> = paths.iter().copied().filter(|q| key(q) == witness).collect();
        let ours: Vec<usize> = (0..paths.len()).filter(|&k| key(paths[k]) == tracked).collect();
        let mine: Vec<&PredictedPath> = ours.iter().map(|&k| paths[k]).collect();
        // Both tracks' routes as the lane position both cameras measured tells them.
        let (mine_p, theirs_p) = (with_shared_lane_position(&mine, &theirs), with_shared_lane_position(&theirs, &mine));
        // Per path of this track, which of the other track's routes are the same way: those
        // along most of its lanelets and, of those, with fewest others.
        let same_way: Vec<Vec<usize>> = ours
            .iter()
            .map(|&k| {
                let q = paths[k];
                let score = |r: &PredictedPath| {
                    let common =
                        q.lanelet_sequence.iter().filter(|l| **l != 0 && r.lanelet_sequence.contains(l)).count();
                    let extra = r.lanelet_sequence.iter().filter(|l| !q.lanelet_sequence.contains(l)).count();
                    (common, std::cmp::Reverse(extra))
                };
                let best = theirs.iter().map(|r| score(r)).max();
                match best {
                    Some(best) if best.0 > 0 => (0..theirs.len()).filter(|&r| score(theirs[r]) == best).collect(),
                    _ => Vec::new(),
                }
            })
            .collect();
        for (n, &k) in ours.iter().enumerate() {
            if same_way[n].is_empty() {
                continue;
            }
            // A route of the other track that is the same way as several of this track's (one
            // that stops at a kerb, against walking on or stopping) tells nothing between them:
            // its probability is shared out by this track's own.
            let lent: f64 = same_way[n]
                .iter()
                .map(|&r| {
                    let alike: f64 = same_way.iter().zip(&mine_p).filter(|(w, _)| w.contains(&r)).map(|(_, p)| p).sum();
                    let share = if alike > 0.0 { mine_p[n] / alike } else { 0.0 };
                    theirs_p[r] * share
                })
                .sum::<f64>()
                .min(1.0);
            own[k] = weight * lent + (1.0 - weight) * mine_p[n];
        }
    }
    own
}

/// One track's route probabilities with its lane position judged from both its own and the
/// `other` track's seconds on the same approach: one camera's means carry its noise — a rider
/// going straight kept 0.08 m right of the centerline, one camera measured 0.20 m over its last
/// second on the approach, as far over as one about to turn right, and said "right" at 0.75
/// while the other camera said "straight". Unchanged without a lane position on the same
/// approach in both.
fn with_shared_lane_position(track: &[&PredictedPath], other: &[&PredictedPath]) -> Vec<f64> {
    let own: Vec<f64> = track.iter().map(|p| p.probability).collect();
    let (Some(mine), Some(theirs)) =
        (track.first().and_then(|p| p.lane_position.as_ref()), other.first().and_then(|p| p.lane_position.as_ref()))
    else {
        return own;
    };
    if mine.approach_lanelet_id != theirs.approach_lanelet_id || theirs.seconds.is_empty() {
        return own;
    }
    // The newest seconds of each: a sender's long list costs no more than the predictor's.
    let newest = |l: &LanePosition| l.seconds.len().saturating_sub(LANE_SECONDS);
    let mine = &mine.seconds[newest(mine)..];
    let both: Vec<LaneSecond> = mine.iter().chain(&theirs.seconds[newest(theirs)..]).cloned().collect();
    let mode = TravelMode::try_from(track[0].mode).unwrap_or_default();
    let fresh: Vec<f64> = track
        .iter()
        .map(|p| {
            let before = lateral_likelihood(mode, &p.turn, mine);
            let now = lateral_likelihood(mode, &p.turn, &both);
            if p.turn.is_empty() || before <= f64::MIN_POSITIVE {
                p.probability
            } else {
                p.probability * now / before
            }
        })
        .collect();
    let (was, is) = (own.iter().sum::<f64>(), fresh.iter().sum::<f64>());
    if is > 0.0 {
        fresh.iter().map(|p| p * was / is).collect()
    } else {
        own
    }
}

/// When a timed polyline passes segment `k` at fraction `f` (µs), and its speed there (m/s):
/// over the chord of the segments around it (up to [`SPEED_CHORD_SEGMENTS`] either side). One
/// segment of the past is one pair of measured points 0.25 s apart, whose noise gave a walking
/// pedestrian 0.4 m/s or none at all — and so seconds in the conflict area, where the true PET
/// was 3.5 s.
fn passing(times: &[f64], local: &[(f64, f64)], (k, f): (usize, f64)) -> (f64, f64) {
    let (t0, t1) = (times[k], times[k + 1]);
    let (from, to) = (k.saturating_sub(SPEED_CHORD_SEGMENTS), (k + 1 + SPEED_CHORD_SEGMENTS).min(local.len() - 1));
    let (a, b) = (local[from], local[to]);
    let speed = distance(b.0 - a.0, b.1 - a.1) / ((times[to] - times[from]) / 1e6).max(1e-6);
    (t0 + f * (t1 - t0), speed)
}

/// See [`passing`]: 2 segments either side, about a second in all.
const SPEED_CHORD_SEGMENTS: usize = 2;

/// The predicted post-encroachment time where two paths cross (s) and when the second road user
/// enters the crossing (µs): as the ground truth measures it, from the predicted passing times,
/// speeds and the road users' sizes.
fn predicted_pet(
    (ta, la, ma): (&[f64], &[(f64, f64)], TravelMode),
    (tb, lb, mb): (&[f64], &[(f64, f64)], TravelMode),
    c: &Crossing,
) -> (f64, f64) {
    let ((ta, va), (tb, vb)) = (passing(ta, la, c.a), passing(tb, lb, c.b));
    let ((len_a, wid_a), (len_b, wid_b)) = (footprint_m(ma), footprint_m(mb));
    // Time to cover its own half length and the other's half width, µs.
    let half = |len: f64, other_width: f64, v: f64| (len + other_width) / 2.0 / v.max(0.1) * 1e6;
    let (a_in, a_out) = (ta - half(len_a, wid_b, va), ta + half(len_a, wid_b, va));
    let (b_in, b_out) = (tb - half(len_b, wid_a, vb), tb + half(len_b, wid_a, vb));
    let pet_us = (b_in - a_out).max(a_in - b_out).max(0.0);
    (pet_us / 1e6, a_in.max(b_in))
}

/// Position (local metres) of a path at `t_us`, interpolated between its positions; None
/// outside its span. `k` is the index of the first position not before `t_us`.
fn position_at(p: &PredictedPath, local: &[(f64, f64)], k: usize, t_us: u64) -> Option<(f64, f64)> {
    let next = p.positions.get(k)?;
    if next.at_us == t_us {
        return Some(local[k]);
    }
    let prev = p.positions.get(k.checked_sub(1)?)?;
    // Positions out of time order (anything on the lattice may send them) have no position
    // between them.
    let (into, span) = (t_us.checked_sub(prev.at_us)?, next.at_us.checked_sub(prev.at_us)?);
    if span == 0 || into > span {
        return None;
    }
    let f = into as f64 / span as f64;
    let (a, b) = (local[k - 1], local[k]);
    Some((a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1)))
}

/// First time at which two paths conflict: (time, conflict point). Their areas must overlap and
/// their paths must cross there — road users on neighbouring lanes that never cut across each other (a
/// car passing a cyclist on the bike lane beside it, a car and a bike leaving the junction on
/// parallel lanes) only conflict where they would actually touch sideways.
/// The paths' positions need not share timestamps (two cameras measure at different times):
/// one merge walk over both time grids compares them at every position of either, the other
/// interpolated — linear in the positions, on this O(paths²) path.
/// `ta`, `tb`: the paths in local metres around `origin` (built once per path by the caller, not
/// once per pair). The areas grow with the time ahead of each path's observation (`spread_mps`).
fn first_overlap(
    (a, ta): (&PredictedPath, &Timed),
    (b, tb): (&PredictedPath, &Timed),
    origin: Wgs84,
    spread_mps: f64,
    max_pet_s: f64,
) -> Option<(u64, Wgs84)> {
    let (ma, mb) = (TravelMode::try_from(a.mode).unwrap_or_default(), TravelMode::try_from(b.mode).unwrap_or_default());
    let reach = radius_m(ma) + radius_m(mb);
    let touch = half_width_m(ma) + half_width_m(mb);
    let mut crossings: Option<Vec<Crossing>> = None; // computed once, when first needed
    let (la, lb) = (ta.ahead().points, tb.ahead().points);
    let (mut i, mut j) = (0, 0);
    while let (Some(pa), Some(pb)) = (a.positions.get(i), b.positions.get(j)) {
        let t = pa.at_us.min(pb.at_us);
        if let (Some((xa, ya)), Some((xb, yb))) = (position_at(a, la, i, t), position_at(b, lb, j, t)) {
            let ahead_s = (t.saturating_sub(a.observed_at_us) + t.saturating_sub(b.observed_at_us)) as f64 / 1e6;
            let d = distance(xa - xb, ya - yb);
            let within = reach + spread_mps * ahead_s;
            // Close, and about to cut across each other: where their paths cross is within
            // reach of both (paths that cross somewhere else, later or earlier, do not count).
            let cutting = |c: &Vec<Crossing>| {
                c.iter().any(|c| {
                    distance(c.at.0 - xa, c.at.1 - ya) <= within && distance(c.at.0 - xb, c.at.1 - yb) <= within
                })
            };
            if d <= touch
                || (d <= within && cutting(crossings.get_or_insert_with(|| crossing_points(ta.ahead(), tb.ahead()))))
            {
                return Some((t, offset_to_wgs84(origin, (xa + xb) / 2.0, (ya + yb) / 2.0)));
            }
        }
        i += usize::from(pa.at_us == t);
        j += usize::from(pb.at_us == t);
    }
    // Never close at one time, but crossing where one follows the other closely: a near miss
    // by post-encroachment time, the measure the warnings are judged by.
    // Both paths reach back to where their road users came from: where one has just crossed
    // counts too, as long as the second is still to enter.
    let now = a.observed_at_us.max(b.observed_at_us) as f64;
    crossing_points(ta.whole(), tb.whole())
        .iter()
        .map(|c| (predicted_pet((&ta.times, &ta.points, ma), (&tb.times, &tb.points, mb), c), c.at))
        .filter(|((pet_s, at_us), _)| *pet_s <= max_pet_s && *at_us >= now)
        .min_by(|x, y| x.0 .1.total_cmp(&y.0 .1))
        .map(|((_, at_us), p)| (at_us.max(0.0) as u64, offset_to_wgs84(origin, p.0, p.1)))
}

/// A path as straight motion, for ranking pairs cheaply: the chord from its first to its last
/// position, `at(t) = base + velocity · t` (local metres; seconds since the first path's first
/// position) over `t0_s..=t1_s`, and how far any of its positions strays from the chord's point
/// at the same time.
struct Chord {
    base: (f64, f64),
    velocity: (f64, f64),
    t0_s: f64,
    t1_s: f64,
    slack_m: f64,
}

impl Chord {
    fn of(p: &PredictedPath, local: &[(f64, f64)], t_base_us: u64) -> Option<Self> {
        let secs = |us: u64| (us as f64 - t_base_us as f64) / 1e6;
        let (first, last) = (p.positions.first()?, p.positions.last()?);
        let (t0_s, t1_s) = (secs(first.at_us), secs(last.at_us));
        let (a, b) = (local[0], local[local.len() - 1]);
        let span = t1_s - t0_s;
        let velocity = if span > 0.0 { ((b.0 - a.0) / span, (b.1 - a.1) / span) } else { (0.0, 0.0) };
        let base = (a.0 - velocity.0 * t0_s, a.1 - velocity.1 * t0_s);
        let slack_m = p
            .positions
            .iter()
            .zip(local)
            .map(|(q, (x, y))| {
                let t = secs(q.at_us);
                distance(x - (base.0 + velocity.0 * t), y - (base.1 + velocity.1 * t))
            })
            .fold(0.0, f64::max);
        Some(Self { base, velocity, t0_s, t1_s, slack_m })
    }

    /// When the two chords come closest in the time both paths span, and how close: a lower
    /// bound (`within` added to both slacks) of the paths' distance at any time step they share.
    /// None when they share no time or cannot come within `within` metres of each other.
    fn closest_approach(&self, other: &Chord, within: f64) -> Option<(f64, f64)> {
        let (t0, t1) = (self.t0_s.max(other.t0_s), self.t1_s.min(other.t1_s));
        if t0 > t1 {
            return None;
        }
        let (rx, ry) = (self.base.0 - other.base.0, self.base.1 - other.base.1);
        let (vx, vy) = (self.velocity.0 - other.velocity.0, self.velocity.1 - other.velocity.1);
        let vv = vx * vx + vy * vy;
        let t = if vv > 0.0 { (-(rx * vx + ry * vy) / vv).clamp(t0, t1) } else { t0 };
        let (dx, dy) = (rx + vx * t, ry + vy * t);
        let slack = self.slack_m + other.slack_m;
        // Compared squared: no square root for the many pairs that pass far apart.
        let limit = within + slack + 1e-6;
        let d2 = dx * dx + dy * dy;
        (d2 <= limit * limit).then(|| ((d2.sqrt() - slack).max(0.0), t))
    }
}

/// Whether two modes make a pair the detector reports on.
fn relevant(cfg: &DetectorConfig, a: TravelMode, b: TravelMode) -> bool {
    if cfg.vru_only {
        is_vru(a) != is_vru(b)
    } else {
        !(is_vru(a) && is_vru(b))
    }
}

/// The pairs of paths (indices into `paths`, `i < j`, in that order) [`detect`] tests: every
/// relevant pair of different objects that may come within reach of each other at a time step
/// they share. Each pair is ranked first from the paths' chords in constant time, which also
/// proves most pairs apart; the full test (every time step, whether the paths cross) is what
/// costs. When more than `cfg.max_pairs` remain (a crowd of 128-object CPMs), only the most
/// urgent are tested: those that may come closest (in 0.1 m steps), and of those the soonest
/// (in 0.25 s steps). So a vehicle and a VRU about to meet are never crowded out by pairs that
/// pass apart or later.
pub fn pairs_to_test(
    paths: &[&PredictedPath],
    locals: &[Vec<(f64, f64)>],
    cfg: &DetectorConfig,
) -> Vec<(usize, usize)> {
    let t_base = paths.iter().find_map(|p| p.positions.first()).map_or(0, |q| q.at_us);
    let chords: Vec<Option<Chord>> = paths.iter().zip(locals).map(|(p, l)| Chord::of(p, l, t_base)).collect();
    let modes: Vec<TravelMode> = paths.iter().map(|p| TravelMode::try_from(p.mode).unwrap_or_default()).collect();
    let keys: Vec<ObjectKey> = paths.iter().map(|p| key(p)).collect();
    // How far ahead of its observation each path reaches, s: how much its areas grow.
    let spans: Vec<f64> = paths
        .iter()
        .map(|p| p.positions.last().map_or(0.0, |q| q.at_us.saturating_sub(p.observed_at_us) as f64 / 1e6))
        .collect();
    // (distance bound, time of closest approach, i, j)
    let mut candidates: Vec<(f64, f64, usize, usize)> = Vec::new();
    for i in 0..paths.len() {
        let Some(a) = &chords[i] else { continue };
        for j in i + 1..paths.len() {
            let Some(b) = &chords[j] else { continue };
            if keys[i] == keys[j] || !relevant(cfg, modes[i], modes[j]) {
                continue;
            }
            // Pairs never within reach of each other cannot conflict.
            // ... nor pairs one of which passes too long before the other (predicted PET).
            let speeds = distance(a.velocity.0, a.velocity.1) + distance(b.velocity.0, b.velocity.1);
            let within = radius_m(modes[i])
                + radius_m(modes[j])
                + cfg.spread_mps * (spans[i] + spans[j])
                + if cfg.max_pet_s > 0.0 { (cfg.max_pet_s + OCCUPANCY_S) * speeds } else { 0.0 };
            if let Some((bound, at_s)) = a.closest_approach(b, within) {
                candidates.push((bound, at_s, i, j));
            }
        }
    }
    if candidates.len() > cfg.max_pairs {
        keep_most_urgent(&mut candidates, cfg.max_pairs);
    }
    candidates.into_iter().map(|(_, _, i, j)| (i, j)).collect()
}

/// Urgency classes of candidate pairs: how close they may come, in steps of `CLOSENESS_STEP_M`,
/// then how soon, in steps of the predictor's grid.
const CLOSENESS_STEP_M: f64 = 0.1;
const CLOSENESS_CLASSES: usize = 41; // up to 4 m: the largest reach of two road users
const SOONNESS_STEP_S: f64 = 0.25;
const SOONNESS_CLASSES: usize = 41; // up to 10 s

/// Keeps the `max` most urgent of `candidates` (distance bound, time of closest approach, i, j),
/// in their order. A counting sort over urgency classes: linear, and no sorting code in the
/// component (it must stay small); within the class the cap falls in, path order decides.
fn keep_most_urgent(candidates: &mut Vec<(f64, f64, usize, usize)>, max: usize) {
    let first_s = candidates.iter().map(|c| c.1).fold(f64::INFINITY, f64::min);
    let class = |c: &(f64, f64, usize, usize)| {
        let closeness = ((c.0 / CLOSENESS_STEP_M) as usize).min(CLOSENESS_CLASSES - 1);
        let soonness = (((c.1 - first_s) / SOONNESS_STEP_S) as usize).min(SOONNESS_CLASSES - 1);
        closeness * SOONNESS_CLASSES + soonness
    };
    let mut counts = vec![0usize; CLOSENESS_CLASSES * SOONNESS_CLASSES];
    for c in candidates.iter() {
        counts[class(c)] += 1;
    }
    // The class the cap falls in, and how many of it still fit.
    let (mut cut, mut room) = (counts.len(), 0);
    let mut kept = 0;
    for (k, n) in counts.iter().enumerate() {
        if kept + n > max {
            (cut, room) = (k, max - kept);
            break;
        }
        kept += n;
    }
    candidates.retain(|c| match class(c).cmp(&cut) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Equal if room > 0 => {
            room -= 1;
            true
        }
        _ => false,
    });
}

/// All risks between the current paths of an intersection at `now_us`, one per object pair (the
/// earliest conflict; the probability sums over the pairs of alternative routes that conflict).
/// Paths of one object must share their time steps with the others' (the predictor's grid).
/// At most `cfg.max_pairs` pairs of paths are tested ([`pairs_to_test`]).
/// Takes paths by value or by reference, so a caller holding them elsewhere need not copy them.
pub fn detect<P: Borrow<PredictedPath>>(paths: &[P], now_us: u64, cfg: &DetectorConfig) -> Vec<CollisionRisk> {
    let paths: Vec<&PredictedPath> = paths.iter().map(Borrow::borrow).collect();
    let Some(first) = paths.iter().find_map(|p| p.positions.first()) else { return Vec::new() };
    let origin = Wgs84 { lat: first.latitude, lon: first.longitude };
    let locals: Vec<Vec<(f64, f64)>> = paths
        .iter()
        .map(|p| {
            p.positions.iter().map(|q| wgs84_to_offset(origin, Wgs84 { lat: q.latitude, lon: q.longitude })).collect()
        })
        .collect();
    let timed: Vec<Timed> = paths.iter().zip(&locals).map(|(p, l)| Timed::of(p, l, origin)).collect();
    let probability = route_probabilities(&paths, &timed);
    let mut risks: HashMap<(ObjectKey, ObjectKey), CollisionRisk> = HashMap::new();
    for (i, j) in pairs_to_test(&paths, &locals, cfg) {
        let (a, b) = (paths[i], paths[j]);
        let Some((at_us, point)) = first_overlap((a, &timed[i]), (b, &timed[j]), origin, cfg.spread_mps, cfg.max_pet_s)
        else {
            continue;
        };
        let (first, second) = if key(a) < key(b) { (a, b) } else { (b, a) };
        let entry = risks.entry((key(first), key(second))).or_insert_with(|| CollisionRisk {
            first: Some(object(first)),
            second: Some(object(second)),
            expected_at_us: u64::MAX,
            ..Default::default()
        });
        entry.probability = (entry.probability + probability[i] * probability[j]).min(1.0);
        if at_us < entry.expected_at_us {
            entry.expected_at_us = at_us;
            entry.conflict_latitude = point.lat;
            entry.conflict_longitude = point.lon;
            entry.time_to_collision_s = at_us.saturating_sub(now_us) as f64 / 1e6;
        }
    }
    let mut out: Vec<CollisionRisk> =
        risks.into_values().filter(|r| cfg.reports(r.probability, r.time_to_collision_s)).collect();
    // Deterministic order: earliest first, then by the pair.
    let pair = |r: &CollisionRisk| {
        let id = |o: &Option<ObjectRef>| o.as_ref().map(|o| (o.station_id, o.object_id, o.generation));
        (id(&r.first), id(&r.second))
    };
    out.sort_by(|a, b| a.expected_at_us.cmp(&b.expected_at_us).then_with(|| pair(a).cmp(&pair(b))));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::PredictedPosition;

    const ORIGIN: Wgs84 = Wgs84 { lat: 47.8101, lon: 13.0518 };

    /// A straight path from `from` with velocity `v` (m/s) over 3 s in 0.25 s steps.
    fn path(object_id: u32, mode: TravelMode, from: (f64, f64), v: (f64, f64), probability: f64) -> PredictedPath {
        PredictedPath {
            station_id: 1001,
            object_id,
            mode: mode as i32,
            probability,
            positions: (1..=12)
                .map(|k| {
                    let t = k as f64 * 0.25;
                    let w = offset_to_wgs84(ORIGIN, from.0 + v.0 * t, from.1 + v.1 * t);
                    PredictedPosition {
                        at_us: 1_000_000 + k * 250_000,
                        latitude: w.lat,
                        longitude: w.lon,
                        lanelet_id: 0,
                    }
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn rsus_of_an_intersection_share_it_and_others_stand_alone() {
        let config = [
            ("intersection.rsu-b", "wg"),
            ("intersection.rsu-a", " wg"),
            ("intersection.x", "other"),
            ("min_probability", "0.3"),
        ];
        assert_eq!(
            intersection_of("rsu-a", config),
            ("wg".to_string(), vec!["rsu-a".to_string(), "rsu-b".to_string()])
        );
        assert_eq!(intersection_of("rsu-c", config), ("rsu-c".to_string(), vec!["rsu-c".to_string()]));
        assert!(DetectorConfig::from_config(config).is_ok());
        assert!(DetectorConfig::from_config([("min_probability", "2")]).is_err());
    }

    #[test]
    fn a_surer_risk_is_reported_further_ahead() {
        let policy = DetectorConfig::from_config([
            ("min_probability", "0.8"),
            ("max_ttc_s", "2.0"),
            ("early_min_probability", "0.93"),
            ("early_max_ttc_s", "2.5"),
        ])
        .unwrap();
        assert!(policy.reports(0.8, 2.0));
        assert!(!policy.reports(0.79, 1.0), "too unlikely at any TTC");
        assert!(!policy.reports(0.9, 2.2), "likely, but too far ahead for its probability");
        assert!(policy.reports(0.95, 2.2));
        assert!(policy.reports(0.93, 2.5));
        assert!(!policy.reports(1.0, 2.6), "beyond either tier");
        assert!(policy.reports(0.93 - 1e-15, 2.5), "a rounding error short of the bar reaches it");
        assert!(!policy.reports(0.9299, 2.5));
        assert!(DetectorConfig::from_config([("early_min_probability", "1.5")]).is_err());
        assert!(DetectorConfig::from_config([("early_max_ttc_s", "0")]).is_err());
    }

    #[test]
    fn stored_paths_are_replaced_per_object_and_expire() {
        let cfg = DetectorConfig::default();
        let at = |mut p: PredictedPath, t: u64| {
            p.observed_at_us = t;
            p
        };
        let mut state = RsuPaths::default();
        let car = path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 0.55);
        let mut car_left = car.clone();
        car_left.rank = 1;
        let bike = path(2, TravelMode::Bicycle, (0.0, -10.0), (0.0, 5.0), 1.0);
        update_paths(
            &mut state,
            vec![at(car.clone(), 1_000_000), at(car_left.clone(), 1_000_000), at(bike, 1_000_000)],
            1_000_000,
            &cfg,
        );
        assert_eq!(state.objects.iter().map(|o| o.paths.len()).collect::<Vec<_>>(), vec![2, 1]);
        // A redelivered frame changes nothing.
        let before = state.clone();
        update_paths(&mut state, vec![at(car.clone(), 1_000_000), at(car_left.clone(), 1_000_000)], 1_000_000, &cfg);
        assert_eq!(state, before);
        // A newer car prediction replaces both alternatives; a late older one is ignored.
        update_paths(&mut state, vec![at(car.clone(), 1_200_000)], 1_200_000, &cfg);
        update_paths(&mut state, vec![at(car.clone(), 1_100_000)], 1_200_000, &cfg);
        assert_eq!(state.objects[0].paths.len(), 1);
        assert_eq!(state.objects[0].observed_at_us, 1_200_000);
        // The bike, not seen for 0.5 s, is gone; the car stays.
        update_paths(&mut state, vec![], 1_600_001, &cfg);
        assert_eq!(state.objects.len(), 1);
        assert_eq!(state.objects[0].object_key, "1001/0/1");
    }

    #[test]
    fn a_flood_of_new_objects_keeps_an_rsus_state_to_one_frame_and_its_newest_objects() {
        let cfg = DetectorConfig { max_paths: 10, ..Default::default() };
        let mut state = RsuPaths::default();
        // Every frame 4 objects never seen before, 2 alternatives each, 10 ms apart (within the TTL).
        for frame in 0..5u64 {
            let at = 1_000_000 + frame * 10_000;
            let paths = (0..4)
                .flat_map(|k| {
                    let id = (frame * 4 + k) as u32;
                    [0, 1].map(|rank| PredictedPath {
                        observed_at_us: at,
                        rank,
                        ..path(id, TravelMode::Car, (0.0, 0.0), (1.0, 0.0), 0.5)
                    })
                })
                .collect();
            update_paths(&mut state, paths, at, &cfg);
            assert!(state.objects.iter().map(|o| o.paths.len()).sum::<usize>() <= 10);
        }
        // The newest: the last frame's 4 objects, and one of the frame before.
        let kept: Vec<u64> = state.objects.iter().map(|o| o.observed_at_us).collect();
        assert_eq!(kept, vec![1_030_000, 1_040_000, 1_040_000, 1_040_000, 1_040_000]);
    }

    /// The policy these tests were written against (any alternative with some chance, up to 3 s
    /// ahead), independent of the operating point picked from the sweep.
    fn lenient() -> DetectorConfig {
        DetectorConfig { min_probability: 0.3, max_ttc_s: 3.0, ..Default::default() }
    }

    #[test]
    fn crossing_car_and_cyclist_meet_at_the_crossing_point() {
        // Car eastbound reaches (0, 0) after 2 s; the cyclist northbound too.
        let paths = [
            path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 0.55),
            path(2, TravelMode::Bicycle, (0.0, -10.0), (0.0, 5.0), 0.75),
        ];
        let risks = detect(&paths, 1_000_000, &lenient());
        assert_eq!(risks.len(), 1);
        let r = &risks[0];
        // Areas (2 m + 1 m) first overlap at t = 1.75 s: car at (-2.5, 0), bike at (0, -1.25).
        assert!((r.time_to_collision_s - 1.75).abs() < 1e-9, "{}", r.time_to_collision_s);
        let p = wgs84_to_offset(ORIGIN, Wgs84 { lat: r.conflict_latitude, lon: r.conflict_longitude });
        assert!((p.0 + 1.25).abs() < 1e-6 && (p.1 + 0.625).abs() < 1e-6, "{p:?}");
        assert!((r.probability - 0.55 * 0.75).abs() < 1e-9);
        assert_eq!((r.first.as_ref().unwrap().object_id, r.second.as_ref().unwrap().object_id), (1, 2));
    }

    #[test]
    fn two_sensors_tracks_of_a_road_user_count_by_how_long_each_has_seen_it() {
        // A cyclist at (0, -10), tracked by sensor 2 for 1 s ("right", lanelet 18, at 0.9) and
        // by sensor 1 for 0.25 s, whose track starts on the connectors ("straight", 17, at 0.7,
        // into the car's path). Both paths carry the same 0.25 s of past. Moved 10 m away,
        // sensor 2's track is another road user.
        let seen = |mut p: PredictedPath, sensor_id: u32, since_us: u64, lanelet: i64| {
            let v = (0.0, 5.0);
            let from = (0.0, -10.0);
            p.sensor_id = sensor_id;
            p.observed_at_us = 1_000_000;
            p.lanelet_sequence = vec![lanelet];
            p.tracked_since_us = since_us;
            p.past = (0..=1)
                .rev()
                .map(|k| {
                    let t = k as f64 * 0.25;
                    let w = offset_to_wgs84(ORIGIN, from.0 - v.0 * t, from.1 - v.1 * t);
                    PredictedPosition {
                        at_us: 1_000_000 - k * 250_000,
                        latitude: w.lat,
                        longitude: w.lon,
                        lanelet_id: 0,
                    }
                })
                .collect();
            p
        };
        let bike = |id, v: (f64, f64), p| path(id, TravelMode::Bicycle, (0.0, -10.0), v, p);
        let car = path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0);
        let mut fresh_right = seen(bike(2, (5.0, 0.0), 0.3), 1, 750_000, 18);
        fresh_right.rank = 1;
        let fresh = [seen(bike(2, (0.0, 5.0), 0.7), 1, 750_000, 17), fresh_right];
        let mut witness_straight = seen(bike(7, (0.0, 5.0), 0.1), 2, 1, 17);
        witness_straight.rank = 1;
        let witness = [seen(bike(7, (5.0, 0.0), 0.9), 2, 1, 18), witness_straight];
        let risk_of_sensor_1 = |paths: &[PredictedPath]| {
            let risks = detect(paths, 1_000_000, &DetectorConfig { min_probability: 0.05, ..lenient() });
            risks.iter().find(|r| r.second.as_ref().unwrap().sensor_id == 1).map(|r| r.probability)
        };
        // Straight: 0.7 by sensor 1 (tracked 0.25 s), 0.1 by sensor 2 (tracked 1 s).
        let fused = |seen_1: f64, seen_2: f64| (0.7 * seen_1 + 0.1 * seen_2) / (seen_1 + seen_2);
        let all: Vec<PredictedPath> = [&[car.clone()][..], &fresh, &witness].concat();
        assert!((risk_of_sensor_1(&all).unwrap() - fused(0.25, 0.999_999)).abs() < 1e-9);
        let apart: Vec<PredictedPath> = witness
            .iter()
            .map(|p| {
                let mut p = p.clone();
                for q in p.past.iter_mut().chain(p.positions.iter_mut()) {
                    q.latitude += 10.0 / 111_000.0;
                }
                p
            })
            .collect();
        let all: Vec<PredictedPath> = [&[car.clone()][..], &fresh, &apart].concat();
        assert!((risk_of_sensor_1(&all).unwrap() - 0.7).abs() < 1e-9);
        // Sensor 2 has seen the cyclist for less time (0.15 s): sensor 1's estimate weighs more.
        let shorter: Vec<PredictedPath> =
            witness.iter().cloned().map(|mut p| (p.tracked_since_us = 850_000, p).1).collect();
        let all: Vec<PredictedPath> = [&[car][..], &fresh, &shorter].concat();
        assert!((risk_of_sensor_1(&all).unwrap() - fused(0.25, 0.15)).abs() < 1e-9);
    }

    #[test]
    fn two_cameras_judge_a_turn_by_the_lane_position_both_measured() {
        // A rider 2.5 m before the line of approach 13: camera 1 measured her 0.20 m right of the
        // centerline over its last second (8 points) and has her turning right at 0.75, camera 2
        // measured 0.0 m (8 points) and has her going straight at 0.95. Judged by both cameras'
        // seconds, each camera's own odds are scaled by the same likelihood ratio.
        let second = |offset_m: f64| LaneSecond { offset_m, points: 8, to_go_m: 2.5 };
        let kept = |offset_m: f64| LanePosition { approach_lanelet_id: 13, seconds: vec![second(offset_m)] };
        let rider = |sensor_id: u32, offset_m: f64, straight: f64| {
            [("straight", straight), ("right", 1.0 - straight)].map(|(turn, probability)| PredictedPath {
                sensor_id,
                turn: turn.into(),
                lane_position: Some(kept(offset_m)),
                ..path(2, TravelMode::Bicycle, (0.0, -10.0), (0.0, 5.0), probability)
            })
        };
        let (one, two) = (rider(1, -0.20, 0.25), rider(2, 0.0, 0.95));
        let (one, two): (Vec<&PredictedPath>, Vec<&PredictedPath>) = (one.iter().collect(), two.iter().collect());
        let odds = |p: &[f64]| p[0] / p[1];
        let ratio = |seconds: &[LaneSecond]| {
            let l = |turn: &str| lateral_likelihood(TravelMode::Bicycle, turn, seconds);
            l("straight") / l("right")
        };
        let both = ratio(&[second(-0.20), second(0.0)]);
        let (shared_one, shared_two) = (with_shared_lane_position(&one, &two), with_shared_lane_position(&two, &one));
        let expected_one = odds(&[0.25, 0.75]) * both / ratio(&[second(-0.20)]);
        assert!((odds(&shared_one) / expected_one - 1.0).abs() < 1e-9, "{shared_one:?}");
        let expected_two = odds(&[0.95, 0.05]) * both / ratio(&[second(0.0)]);
        assert!((odds(&shared_two) / expected_two - 1.0).abs() < 1e-9, "{shared_two:?}");
        // Camera 1 now leans to straight, camera 2 less sure of it; each still sums to one.
        assert!(shared_one[0] > 0.5 && shared_two[0] < 0.95, "{shared_one:?} {shared_two:?}");
        assert!((shared_one.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        // Lane positions on different approaches (two road users after all), or none: unchanged.
        let elsewhere = rider(2, 0.0, 0.95).map(|mut p| {
            p.lane_position.as_mut().unwrap().approach_lanelet_id = 14;
            p
        });
        assert_eq!(with_shared_lane_position(&one, &elsewhere.iter().collect::<Vec<_>>()), vec![0.25, 0.75]);
        let unmeasured = rider(2, 0.0, 0.95).map(|p| PredictedPath { lane_position: None, ..p });
        assert_eq!(with_shared_lane_position(&one, &unmeasured.iter().collect::<Vec<_>>()), vec![0.25, 0.75]);
    }

    #[test]
    fn a_route_of_the_other_track_alike_to_several_tells_nothing_between_them() {
        // A pedestrian 2 m before the kerb: sensor 1 (tracked 0.25 s) has her walking on across
        // the car's lane (lanelets 10, 20; 0.9) or stopping at the kerb (10; 0.1); sensor 2
        // (tracked 1 s) only stopping (10; 1.0: too slow for it to tell). That route is alike to
        // both of sensor 1's: it lends each its own share, and walking on stays at 0.9 (lent
        // whole to both, it made her walk on at 0.98).
        let at_kerb = |mut p: PredictedPath, sensor_id: u32, since_us: u64, lanelets: Vec<i64>, rank: u32| {
            (p.sensor_id, p.observed_at_us, p.tracked_since_us, p.rank) = (sensor_id, 1_000_000, since_us, rank);
            p.lanelet_sequence = lanelets;
            p.past = [(750_000, -2.35), (1_000_000, -2.0)]
                .map(|(at_us, y)| {
                    let w = offset_to_wgs84(ORIGIN, 0.0, y);
                    PredictedPosition { at_us, latitude: w.lat, longitude: w.lon, lanelet_id: 10 }
                })
                .to_vec();
            p
        };
        let walker = |id, v: (f64, f64), p| path(id, TravelMode::Pedestrian, (0.0, -2.0), v, p);
        let car = path(1, TravelMode::Car, (-20.0, 1.0), (10.0, 0.0), 1.0);
        let paths = [
            car,
            at_kerb(walker(2, (0.0, 1.4), 0.9), 1, 750_000, vec![10, 20], 0),
            at_kerb(walker(2, (0.0, 0.0), 0.1), 1, 750_000, vec![10], 1),
            at_kerb(walker(7, (0.0, 0.0), 1.0), 2, 1, vec![10], 0),
        ];
        let risks = detect(&paths, 1_000_000, &DetectorConfig { min_probability: 0.05, ..lenient() });
        let of = |sensor_id: u32| risks.iter().find(|r| r.second.as_ref().unwrap().sensor_id == sensor_id);
        assert!((of(1).unwrap().probability - 0.9).abs() < 1e-9, "{risks:?}");
        assert!(of(2).is_none(), "stopping at the kerb is no risk: {risks:?}");
    }

    #[test]
    fn a_stall_in_the_measured_past_is_no_stop_in_the_conflict_area() {
        // A pedestrian walking north at 1.3 m/s crossed y = -0.65 between 0.5 and 0.75 s, where
        // two of her measured points lie only 6 cm apart (noise); a car along y = -0.65 gets
        // there at 3.75 s. She left 3 s before: PET about 2 s, no risk. Timed by that one
        // segment, she would have stood there for seconds.
        let mut walker = path(2, TravelMode::Pedestrian, (0.0, 0.0), (0.0, 1.3), 1.0);
        walker.observed_at_us = 1_000_000;
        walker.past = [(0, -1.3), (250_000, -0.95), (500_000, -0.68), (750_000, -0.62), (1_000_000, 0.0)]
            .map(|(at_us, y)| {
                let w = offset_to_wgs84(ORIGIN, 0.0, y);
                PredictedPosition { at_us, latitude: w.lat, longitude: w.lon, lanelet_id: 0 }
            })
            .to_vec();
        let mut car = path(1, TravelMode::Car, (-27.5, -0.65), (10.0, 0.0), 1.0);
        car.observed_at_us = 1_000_000;
        assert_eq!(detect(&[car.clone(), walker.clone()], 1_000_000, &lenient()), vec![]);
        // Two seconds later she would have been in its way.
        let late =
            PredictedPath { observed_at_us: 1_000_000, ..path(1, TravelMode::Car, (-7.5, -0.65), (10.0, 0.0), 1.0) };
        assert_eq!(detect(&[late, walker], 1_000_000, &lenient()).len(), 1);
    }

    #[test]
    fn paths_that_pass_apart_in_time_are_no_risk() {
        // Same crossing point, but the cyclist gets there 2 s after the car.
        let paths = [
            path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0),
            path(2, TravelMode::Bicycle, (0.0, -20.0), (0.0, 5.0), 1.0),
        ];
        assert!(detect(&paths, 1_000_000, &lenient()).is_empty());
    }

    #[test]
    fn alternatives_add_up_and_unlikely_risks_are_dropped() {
        let crossing = |id, p| path(id, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), p);
        let bike = path(2, TravelMode::Bicycle, (0.0, -10.0), (0.0, 5.0), 1.0);
        let mut left = crossing(1, 0.25);
        left.rank = 1;
        let risks = detect(&[crossing(1, 0.55), left.clone(), bike.clone()], 1_000_000, &lenient());
        assert!((risks[0].probability - 0.80).abs() < 1e-9);
        let unlikely = detect(&[crossing(1, 0.1), bike], 1_000_000, &lenient());
        assert!(unlikely.is_empty());
    }

    #[test]
    fn neighbours_on_parallel_lanes_are_no_risk_unless_they_touch() {
        // A car overtaking a cyclist on the bike lane 2.0 m beside it: areas overlap (3 m reach)
        // but the paths never cross.
        let car = path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0);
        let beside = path(2, TravelMode::Bicycle, (-5.0, 2.0), (5.0, 0.0), 1.0);
        assert!(detect(&[car.clone(), beside], 1_000_000, &lenient()).is_empty());
        // 1.2 m beside it they would touch (half widths 1.0 + 0.4).
        let touching = path(2, TravelMode::Bicycle, (-5.0, 1.2), (5.0, 0.0), 1.0);
        assert_eq!(detect(&[car, touching], 1_000_000, &lenient()).len(), 1);
    }

    #[test]
    fn vehicle_pairs_and_vru_pairs_are_not_warned_by_default() {
        let cars = [
            path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0),
            path(2, TravelMode::Car, (0.0, -20.0), (0.0, 10.0), 1.0),
        ];
        assert!(detect(&cars, 1_000_000, &lenient()).is_empty());
        assert_eq!(detect(&cars, 1_000_000, &DetectorConfig { vru_only: false, ..lenient() }).len(), 1);
        let vrus = [
            path(1, TravelMode::Bicycle, (-10.0, 0.0), (5.0, 0.0), 1.0),
            path(2, TravelMode::Pedestrian, (0.0, -2.0), (0.0, 1.0), 1.0),
        ];
        assert!(detect(&vrus, 1_000_000, &lenient()).is_empty());
    }

    #[test]
    fn a_car_passing_just_after_a_pedestrian_is_a_near_miss_by_predicted_pet() {
        // A pedestrian (0.5 m) running across the car's lane northwards at 2 m/s passes its
        // middle 1.2 s after the paths' start and has left the car's width 0.575 s later; the
        // car (4.5 m, 10 m/s) passes at 2.95 s and enters 0.25 s before: predicted PET 0.925 s,
        // and the two are never within reach at one time.
        let seen = |mut p: PredictedPath| {
            p.observed_at_us = 1_000_000;
            p
        };
        let ped = seen(path(2, TravelMode::Pedestrian, (0.0, -2.4), (0.0, 2.0), 1.0));
        let car = seen(path(1, TravelMode::Car, (-29.5, 0.0), (10.0, 0.0), 1.0));
        let strict = DetectorConfig { max_pet_s: 0.5, spread_mps: 0.0, ..lenient() };
        assert!(detect(&[car.clone(), ped.clone()], 1_000_000, &strict).is_empty());
        let risks = detect(&[car.clone(), ped.clone()], 1_000_000, &DetectorConfig { max_pet_s: 1.0, ..strict });
        assert_eq!(risks.len(), 1, "{risks:?}");
        // The car enters the crossing 2.7 s ahead.
        assert!((risks[0].time_to_collision_s - 2.7).abs() < 0.05, "{risks:?}");
        // Only risks soon enough are reported.
        let soon = DetectorConfig { max_pet_s: 1.0, max_ttc_s: 2.0, ..strict };
        assert!(detect(&[car, ped], 1_000_000, &soon).is_empty());
    }

    #[test]
    fn a_car_leaving_a_turn_is_judged_by_where_it_came_from() {
        // A car that came from the west (7.5 m/s) and now turns south at (0, 0); a pedestrian
        // crosses x = 0 at y = 4 one second from now. Had the car come from the north along its
        // present heading, it would have left that spot 0.4 s before the pedestrian steps in: a
        // near miss by PET. It came from the west: the paths never cross.
        let past = |from: (f64, f64)| -> Vec<PredictedPosition> {
            (0..=4)
                .map(|k| {
                    let f = 1.0 - k as f64 / 4.0;
                    let w = offset_to_wgs84(ORIGIN, from.0 * f, from.1 * f);
                    PredictedPosition { at_us: k * 250_000, latitude: w.lat, longitude: w.lon, lanelet_id: 0 }
                })
                .collect()
        };
        let car = |from| PredictedPath {
            observed_at_us: 1_000_000,
            past: past(from),
            ..path(1, TravelMode::Car, (0.0, 0.0), (0.0, -7.5), 1.0)
        };
        let ped = PredictedPath {
            observed_at_us: 1_000_000,
            ..path(2, TravelMode::Pedestrian, (-1.5, 4.0), (1.5, 0.0), 1.0)
        };
        let cfg = DetectorConfig { max_pet_s: 1.0, spread_mps: 0.0, ..lenient() };
        assert_eq!(detect(&[car((0.0, 7.5)), ped.clone()], 1_000_000, &cfg).len(), 1);
        assert!(detect(&[car((-7.5, 0.0)), ped], 1_000_000, &cfg).is_empty());
    }

    /// Found by fuzzing (target `state`): positions out of time order made the interpolation
    /// subtract past zero.
    #[test]
    fn positions_out_of_time_order_are_no_panic() {
        let car = path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0);
        let mut bike = path(2, TravelMode::Bicycle, (0.0, -10.0), (0.0, 5.0), 1.0);
        bike.positions.reverse();
        for q in &mut bike.positions {
            q.at_us += 62_000;
        }
        detect(&[car, bike], 1_000_000, &lenient());
    }

    #[test]
    fn paths_with_different_timestamps_are_compared_interpolated() {
        // Two cameras: the cyclist's positions are 62 ms off the car's grid; head-on at the
        // crossing point all the same.
        let car = path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0);
        let mut bike = path(2, TravelMode::Bicycle, (0.0, -10.0), (0.0, 5.0), 1.0);
        for q in &mut bike.positions {
            q.at_us += 62_000;
        }
        let cfg = DetectorConfig { max_pet_s: 0.0, spread_mps: 0.0, ..Default::default() };
        let risks = detect(&[car, bike], 1_000_000, &cfg);
        assert_eq!(risks.len(), 1);
        assert!(risks[0].expected_at_us < 3_000_000 && risks[0].expected_at_us > 2_000_000, "{risks:?}");
    }

    fn locals_of(paths: &[&PredictedPath]) -> Vec<Vec<(f64, f64)>> {
        paths
            .iter()
            .map(|p| {
                p.positions
                    .iter()
                    .map(|q| wgs84_to_offset(ORIGIN, Wgs84 { lat: q.latitude, lon: q.longitude }))
                    .collect()
            })
            .collect()
    }

    /// Which objects' pairs [`pairs_to_test`] picks.
    /// The same-time reach only: no growth with the horizon, no predicted-PET widening.
    fn same_time() -> DetectorConfig {
        DetectorConfig { spread_mps: 0.0, max_pet_s: 0.0, ..Default::default() }
    }

    fn picked(paths: &[PredictedPath], cfg: &DetectorConfig) -> Vec<(u32, u32)> {
        let refs: Vec<&PredictedPath> = paths.iter().collect();
        pairs_to_test(&refs, &locals_of(&refs), cfg)
            .into_iter()
            .map(|(i, j)| (paths[i].object_id, paths[j].object_id))
            .collect()
    }

    #[test]
    fn a_close_vehicle_vru_pair_survives_the_cap_among_hundreds_of_far_pairs() {
        // 20 cars and 20 cyclists side by side, 2.5 m apart, all going east: 400 pairs within
        // reach (3 m) that never cross or touch, so no risk — and a car and a cyclist about to
        // meet at a crossing 50 m south, last in the list.
        let mut paths: Vec<PredictedPath> = (0..20)
            .flat_map(|k| {
                [
                    path(k, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0),
                    path(100 + k, TravelMode::Bicycle, (-20.0, 2.5), (10.0, 0.0), 1.0),
                ]
            })
            .collect();
        paths.push(path(900, TravelMode::Car, (-20.0, -50.0), (10.0, 0.0), 1.0));
        paths.push(path(901, TravelMode::Bicycle, (0.0, -60.0), (0.0, 5.0), 1.0));
        let uncapped = DetectorConfig { max_pairs: usize::MAX, ..same_time() };
        assert_eq!(picked(&paths, &uncapped).len(), 401);
        let capped = DetectorConfig { max_pairs: 10, ..same_time() };
        let pairs = picked(&paths, &capped);
        assert_eq!(pairs.len(), 10, "the cap bounds the pairs tested");
        assert!(pairs.contains(&(900, 901)), "{pairs:?}");
        let risks = detect(&paths, 1_000_000, &capped);
        assert_eq!(risks.len(), 1);
        let ids = (risks[0].first.unwrap().object_id, risks[0].second.unwrap().object_id);
        assert_eq!(ids, (900, 901));
        assert_eq!(detect(&paths, 1_000_000, &uncapped), risks, "the far pairs were no risk anyway");
    }

    #[test]
    fn of_pairs_about_to_meet_the_soonest_are_tested_first() {
        let paths = [
            // Meet at (0, 0) after 2 s.
            path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0),
            path(2, TravelMode::Bicycle, (0.0, -10.0), (0.0, 5.0), 1.0),
            // Meet at (0, 30) after 1 s.
            path(3, TravelMode::Car, (-10.0, 30.0), (10.0, 0.0), 1.0),
            path(4, TravelMode::Bicycle, (0.0, 25.0), (0.0, 5.0), 1.0),
        ];
        assert_eq!(picked(&paths, &same_time()), vec![(1, 2), (3, 4)]);
        assert_eq!(picked(&paths, &DetectorConfig { max_pairs: 1, ..Default::default() }), vec![(3, 4)]);
    }

    #[test]
    fn pairs_that_never_come_within_reach_are_not_tested() {
        let paths = [
            path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0),
            // Same crossing, 2 s later: apart in time.
            path(2, TravelMode::Bicycle, (0.0, -20.0), (0.0, 5.0), 1.0),
            // Far away.
            path(3, TravelMode::Pedestrian, (200.0, 200.0), (1.0, 0.0), 1.0),
        ];
        assert!(picked(&paths, &same_time()).is_empty());
    }

    proptest::proptest! {
        /// The segment boxes only save work: every crossing found without them (boxes that
        /// cover the plane) is found with them, at the same place.
        #[test]
        fn segment_boxes_hide_no_crossing(
            a in proptest::collection::vec((-20.0..20.0f64, -20.0..20.0f64), 2..10),
            b in proptest::collection::vec((-20.0..20.0f64, -20.0..20.0f64), 2..10),
        ) {
            let everywhere = |p: &[(f64, f64)]| vec![[f64::NEG_INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::INFINITY]; p.len() - 1];
            let (all_a, all_b) = (everywhere(&a), everywhere(&b));
            let (boxes_a, boxes_b) = (segment_boxes(&a), segment_boxes(&b));
            let found = |x: Polyline, y: Polyline| {
                crossing_points(x, y).iter().map(|c| (c.a.0, c.b.0, c.at.0.to_bits(), c.at.1.to_bits())).collect::<Vec<_>>()
            };
            let with = found(Polyline { points: &a, boxes: &boxes_a }, Polyline { points: &b, boxes: &boxes_b });
            let without = found(Polyline { points: &a, boxes: &all_a }, Polyline { points: &b, boxes: &all_b });
            proptest::prop_assert_eq!(with, without);
        }

        /// Ranking prunes only pairs that cannot conflict: every pair the full test finds a
        /// conflict for is among those picked (straight and turning paths, any modes).
        #[test]
        fn ranking_never_drops_a_conflict(
            users in proptest::collection::vec(
                (0..4i32, -30.0..30.0f64, -30.0..30.0f64, -12.0..12.0f64, -12.0..12.0f64, -12.0..12.0f64, -12.0..12.0f64, 0..6u64),
                2..24,
            )
        ) {
            let paths: Vec<PredictedPath> = users
                .iter()
                .enumerate()
                .map(|(k, &(mode, x, y, vx1, vy1, vx2, vy2, late))| {
                    // Turning half way; some paths start later (their first steps unknown).
                    let mut p = path(k as u32, TravelMode::try_from(mode).unwrap(), (x, y), (vx1, vy1), 1.0);
                    for (i, q) in p.positions.iter_mut().enumerate().skip(6) {
                        let t = (i - 5) as f64 * 0.25;
                        let (e, n) = wgs84_to_offset(ORIGIN, Wgs84 { lat: q.latitude, lon: q.longitude });
                        let w = offset_to_wgs84(ORIGIN, e + (vx2 - vx1) * t, n + (vy2 - vy1) * t);
                        (q.latitude, q.longitude) = (w.lat, w.lon);
                    }
                    p.positions.drain(..late as usize);
                    p
                })
                .collect();
            let cfg = DetectorConfig { vru_only: false, max_pairs: usize::MAX, ..Default::default() };
            let refs: Vec<&PredictedPath> = paths.iter().collect();
            let locals = locals_of(&refs);
            let picked = pairs_to_test(&refs, &locals, &cfg);
            let origin = Wgs84 { lat: refs[0].positions[0].latitude, lon: refs[0].positions[0].longitude };
            let locals_detect: Vec<Vec<(f64, f64)>> = refs
                .iter()
                .map(|p| p.positions.iter().map(|q| wgs84_to_offset(origin, Wgs84 { lat: q.latitude, lon: q.longitude })).collect())
                .collect();
            for i in 0..refs.len() {
                for j in i + 1..refs.len() {
                    let modes = (TravelMode::try_from(refs[i].mode).unwrap(), TravelMode::try_from(refs[j].mode).unwrap());
                    if !relevant(&cfg, modes.0, modes.1) {
                        continue;
                    }
                    let (ti, tj) = (Timed::of(refs[i], &locals_detect[i], origin), Timed::of(refs[j], &locals_detect[j], origin));
                    if first_overlap((refs[i], &ti), (refs[j], &tj), origin, cfg.spread_mps, cfg.max_pet_s).is_some() {
                        proptest::prop_assert!(picked.contains(&(i, j)), "conflict {i}-{j} not picked");
                    }
                }
            }
        }
    }
}

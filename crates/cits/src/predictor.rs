//! Predictor stage logic: from a matched trajectory and the lane graph, the likely routes ahead
//! (ranked, with probabilities) and time-stamped positions over a horizon.
//!
//! Routes branch at lanelet successors; each branch is weighted by a turn prior of the travel
//! mode (cars mostly go straight, cyclists rarely turn left) times what the track shows: its
//! speeds against the distance to the stop line (slowed to a turn's speed, or not), where in its
//! lane it keeps, and on a connector which one its points follow. Speed comes from the object's
//! recent track. Pedestrians walk their lanelet (crosswalks and sidewalks are walked either way)
//! to its end, and one seen walking at pace towards a kerb on across the crosswalk there; objects
//! without a lane are extrapolated at constant velocity.

use std::collections::HashMap;

use crate::fit::{line_fit, parabola_fit};
use crate::geo::{distance, offset_to_wgs84, wgs84_to_offset, Wgs84};
use crate::map_matcher::{local_centerline, stations};
use crate::proto::{
    LaneGraph, LanePosition, LaneSecond, MatchedPoint, MatchedTrajectory, PredictedPath, PredictedPosition, TravelMode,
};
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
        Self { horizon_us: 4_000_000, step_us: 250_000, max_alternatives: 3 }
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

/// What a track shows about the turn ahead: from its speed profile the likelihood ratio
/// turning : going straight ([`turn_likelihood`]), from where in its lane it keeps the lateral
/// offset ([`lateral_likelihood`]).
#[derive(Debug, Clone)]
pub struct Evidence {
    pub turning: f64,
    /// Where in its lane the track kept, second by second, on the approach; None off an
    /// approach or with too few points in its newest second there.
    pub lateral: Option<LanePosition>,
}

/// Prior weight of taking a successor with this turn, per mode, times what the track shows.
fn turn_prior(mode: TravelMode, turn: &str, evidence: &Evidence) -> f64 {
    let speed = if matches!(turn, "left" | "right") { evidence.turning } else { 1.0 };
    let lateral = evidence.lateral.as_ref().map_or(1.0, |l| lateral_likelihood(mode, turn, &l.seconds));
    speed
        * lateral
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

/// How far (m) drivers and riders move over in their lane before a turn (towards the centre
/// line for a left turn, the kerb for a right one), and over how many metres before the stop
/// line; how much their own lane position varies (1σ, m).
fn lane_shift_m(mode: TravelMode) -> Option<(f64, f64, f64)> {
    match mode {
        TravelMode::Car => Some((0.45, 30.0, 0.1)),
        TravelMode::Bicycle => Some((0.2, 15.0, 0.08)),
        _ => None,
    }
}

/// How far (1σ, m) one measured point strays across the lane from where its road user is: the
/// camera's position noise (0.15 m per axis for the RSU's cameras).
const OFFSET_NOISE_M: f64 = 0.15;

/// How far (1σ, m) a road user's lane position wanders from one second to the next around the
/// offset it keeps: no one rides or drives a constant offset, and a model that assumed so would
/// read a few centimetres' drift as a turn's move over.
const LANE_WANDER_M: f64 = 0.03;

/// Share of road users who do not move over before a turn: the lateral cue never rules a turn
/// out, it only weighs it.
const NO_SHIFT_SHARE: f64 = 0.15;

/// How far (1σ, m) the offset a turning road user moves over to varies between road users, as a
/// share of the mode's move ([`lane_shift_m`]).
const SHIFT_SPREAD: f64 = 0.2;

/// Likelihood of the seconds a road user was seen keeping in its lane on an approach (each the
/// mean offset of its measured points, m, left positive, at its distance to the stop line) if it
/// takes `turn`. One going straight keeps an offset of its own throughout; a turning one moves
/// from its own offset over to the side it turns to, in proportion to how far into the move it
/// is — so where a track kept seconds ago tells as much as where it keeps now: a rider keeping
/// 0.12 m right of the centerline, as close to the kerb as one about to turn right, who has kept
/// there since before any move, is going straight. The seconds may come from two cameras (their
/// noise apart, they saw one road user). An unnormalised density: only its ratio between turns
/// counts.
pub(crate) fn lateral_likelihood(mode: TravelMode, turn: &str, seconds: &[LaneSecond]) -> f64 {
    let Some((shift, over, sigma)) = lane_shift_m(mode) else { return 1.0 };
    let seconds: Vec<&LaneSecond> =
        seconds.iter().filter(|s| s.points > 0 && s.offset_m.is_finite() && s.to_go_m.is_finite()).collect();
    if seconds.is_empty() {
        return 1.0;
    }
    let side = match turn {
        "left" => 1.0,
        "right" => -1.0,
        _ => 0.0,
    };
    // The offset is (1 − share)·own + share·target, own ~ N(0, sigma²), target ~ N(side·shift,
    // (SHIFT_SPREAD·shift)²), plus the camera's noise on each second's mean.
    let density = |moving: bool| {
        let share: Vec<f64> =
            seconds.iter().map(|s| if moving { (1.0 - s.to_go_m / over).clamp(0.0, 1.0) } else { 0.0 }).collect();
        let residual: Vec<f64> = seconds.iter().zip(&share).map(|(s, c)| s.offset_m - c * side * shift).collect();
        let n = seconds.len();
        let mut cov = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                cov[i * n + j] = sigma * sigma * (1.0 - share[i]) * (1.0 - share[j])
                    + (SHIFT_SPREAD * shift).powi(2) * share[i] * share[j];
            }
            cov[i * n + i] += OFFSET_NOISE_M.powi(2) / f64::from(seconds[i].points) + LANE_WANDER_M.powi(2);
        }
        normal_density(&residual, &mut cov)
    };
    if side == 0.0 {
        density(false)
    } else {
        (1.0 - NO_SHIFT_SHARE) * density(true) + NO_SHIFT_SHARE * density(false)
    }
}

/// Density of a zero-mean normal with covariance `cov` (n × n, row-major; overwritten by its
/// Cholesky factor) at `y`, without the (2π)^(n/2); 0 when `cov` is not positive definite.
fn normal_density(y: &[f64], cov: &mut [f64]) -> f64 {
    let n = y.len();
    let mut z = vec![0.0; n];
    let mut root_det = 1.0;
    for j in 0..n {
        let d = cov[j * n + j] - (0..j).map(|k| cov[j * n + k].powi(2)).sum::<f64>();
        if !(d > 0.0) {
            return 0.0;
        }
        let l = d.sqrt();
        cov[j * n + j] = l;
        for i in j + 1..n {
            cov[i * n + j] = (cov[i * n + j] - (0..j).map(|k| cov[i * n + k] * cov[j * n + k]).sum::<f64>()) / l;
        }
        // Forward substitution of L·z = y, row j.
        z[j] = (y[j] - (0..j).map(|k| cov[j * n + k] * z[k]).sum::<f64>()) / l;
        root_det *= l;
    }
    (-0.5 * z.iter().map(|v| v * v).sum::<f64>()).exp() / root_det
}

/// Speed (m/s) at which vehicles of a mode take a turn at this junction (15–25 km/h for cars,
/// 12–16 km/h for cyclists): no turn signal reaches the RSU, so a road user's speed profile is
/// what tells a turn — it has to slow down to this before the junction.
fn turn_speed_mps(mode: TravelMode) -> Option<f64> {
    match mode {
        TravelMode::Car => Some(6.0),
        TravelMode::Bicycle => Some(4.0),
        _ => None,
    }
}

/// The speeds turns here are taken at (15–25 km/h by car, 12–16 km/h by bicycle): each road
/// user has its own, so what a track shows is weighed against all of them.
fn turn_speeds_mps(mode: TravelMode) -> Option<(f64, f64)> {
    match mode {
        TravelMode::Car => Some((4.2, 6.9)),
        TravelMode::Bicycle => Some((3.3, 4.4)),
        _ => None,
    }
}

/// Deceleration (m/s²) from which on a driver who means to turn must be braking (comfortable
/// braking is about 2 m/s²), and beyond which turning would take braking hard.
const BRAKING_ONSET_MPS2: f64 = 2.0;
const HARD_BRAKING_MPS2: f64 = 3.5;
/// Spread of the deceleration a track shows (estimation noise and drivers' variety), m/s².
const DECELERATION_SIGMA_MPS2: f64 = 0.8;

/// Likelihood ratio turning : going straight of a road user at `speed`, decelerating at `decel`
/// (m/s², braking positive), `to_go` metres before its junction, averaged over the turn speeds
/// it may have in mind ([`turn_speeds_mps`]).
fn turn_likelihood(mode: TravelMode, speed: f64, decel: Option<f64>, to_go: f64) -> f64 {
    let Some((low, high)) = turn_speeds_mps(mode) else { return 1.0 };
    const SAMPLES: usize = 5;
    let mean = (0..SAMPLES)
        .map(|i| low + (high - low) * i as f64 / (SAMPLES - 1) as f64)
        .map(|v_turn| turn_likelihood_at(v_turn, speed, decel, to_go))
        .sum::<f64>()
        / SAMPLES as f64;
    mean.clamp(1e-6, 1e6)
}

/// [`turn_likelihood`] for one turn speed `v_turn`. A turn needs that speed at the junction:
/// the deceleration that takes is what a turning driver shows once it exceeds the onset, a
/// straight one shows none; needing more than hard braking rules a turn out.
fn turn_likelihood_at(v_turn: f64, speed: f64, decel: Option<f64>, to_go: f64) -> f64 {
    if speed <= v_turn || to_go <= 0.0 {
        return 1.0; // slow enough to turn already: the speed tells nothing
    }
    let needed = (speed * speed - v_turn * v_turn) / (2.0 * to_go);
    let gauss = |x: f64, sigma: f64| (-x * x / (2.0 * sigma * sigma)).exp();
    let too_hard = if needed > HARD_BRAKING_MPS2 { gauss(needed - HARD_BRAKING_MPS2, 0.5) } else { 1.0 };
    // A track too short to fit a deceleration still shows a speed no turn can be slowed from.
    let Some(decel) = decel else { return too_hard };
    // One going straight keeps its speed. One turning brakes as hard as its turn needs once that
    // is past a comfortable onset; before, it may still be cruising or already braking
    // comfortably (its turn speed is its own, so the onset is not sharp).
    let straight = gauss(decel, DECELERATION_SIGMA_MPS2);
    let turning = if needed >= BRAKING_ONSET_MPS2 {
        gauss(decel - needed.min(HARD_BRAKING_MPS2), DECELERATION_SIGMA_MPS2)
    } else {
        0.5 * straight + 0.5 * gauss(decel - BRAKING_ONSET_MPS2, DECELERATION_SIGMA_MPS2)
    };
    (too_hard * turning / straight.max(1e-12)).clamp(1e-6, 1e6)
}

/// How much faster than its turn speed (m/s) a road user may still take a turn connector.
const TURN_SPEED_SLACK_MPS: f64 = 1.5;

/// Likelihood that a road user at `speed` is on a connector with this turn: one far faster than
/// a turn is taken at is going straight, however its first points fit the connectors (they
/// overlap where they start).
fn connector_speed_likelihood(mode: TravelMode, turn: &str, speed: f64) -> f64 {
    match turn_speed_mps(mode) {
        Some(v_turn) if matches!(turn, "left" | "right") => {
            let excess = (speed - v_turn - TURN_SPEED_SLACK_MPS).max(0.0);
            (-excess * excess / 2.0).exp().max(1e-6)
        }
        _ => 1.0,
    }
}

struct Lane {
    points: Vec<(f64, f64)>,
    /// Distance along the centerline at each point.
    stations: Vec<f64>,
    successors: Vec<i64>,
    turn: String,
    /// A crosswalk (pedestrians cross the road on it).
    crosswalk: bool,
}

/// How far (1σ, m) a vehicle's measured points stray from its lane's centerline: measurement
/// noise and lane keeping.
const LANE_KEEPING_SIGMA_M: f64 = 0.5;

impl Lane {
    /// Station of the centerline point nearest `p`, and the distance to it.
    fn project(&self, p: Local) -> (f64, f64) {
        let mut best = (self.stations[0], f64::INFINITY);
        for (k, w) in self.points.windows(2).enumerate() {
            let (dx, dy) = (w[1].0 - w[0].0, w[1].1 - w[0].1);
            let len2 = dx * dx + dy * dy;
            let f = if len2 > 0.0 { (((p.0 - w[0].0) * dx + (p.1 - w[0].1) * dy) / len2).clamp(0.0, 1.0) } else { 0.0 };
            let d = distance(p.0 - w[0].0 - f * dx, p.1 - w[0].1 - f * dy);
            if d < best.1 {
                best = (self.stations[k] + f * (self.stations[k + 1] - self.stations[k]), d);
            }
        }
        best
    }

    /// The point at `station` metres along the centerline (held at its ends), and its lanelet
    /// station clamped to the lane.
    fn at(&self, station: f64) -> ((f64, f64), f64) {
        let (first, last) = (self.stations[0], *self.stations.last().unwrap());
        let d = station.clamp(first, last);
        let k = self.stations.partition_point(|s| *s < d).clamp(1, self.points.len() - 1);
        let (s0, s1) = (self.stations[k - 1], self.stations[k]);
        let f = if s1 > s0 { (d - s0) / (s1 - s0) } else { 0.0 };
        let (a, b) = (self.points[k - 1], self.points[k]);
        ((a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1)), d)
    }
}

/// The lane graph in local metres, for walking along routes.
pub struct LaneMap {
    origin: Wgs84,
    lanes: HashMap<i64, Lane>,
    /// Each lanelet's predecessors.
    predecessors: HashMap<i64, Vec<i64>>,
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
                let (successors, turn, crosswalk) = (l.successors.clone(), l.turn.clone(), l.role == "crosswalk");
                (l.id, Lane { points, stations, successors, turn, crosswalk })
            })
            .collect();
        let mut predecessors: HashMap<i64, Vec<i64>> = HashMap::new();
        for l in &graph.lanelets {
            for s in &l.successors {
                predecessors.entry(*s).or_default().push(l.id);
            }
        }
        Self { origin, lanes, predecessors }
    }

    /// The turn connectors a vehicle matched to connector `lanelet` may really be on, with the
    /// station of its position `at` on each and how well its recent points `track` (local
    /// metres) follow each, as a likelihood. Connectors leaving one approach overlap where they
    /// start, so the matcher's nearest one is a guess until they part: a car going straight
    /// through is matched to the left turn's connector as often as not.
    fn connector_candidates(&self, lanelet: i64, at: Local, track: &[Local]) -> Vec<(i64, f64, f64)> {
        let from = self.predecessors.get(&lanelet).and_then(|p| p.first());
        let siblings: Vec<i64> = match from.and_then(|f| self.lanes.get(f)) {
            Some(approach) => approach.successors.iter().copied().filter(|s| self.lanes.contains_key(s)).collect(),
            None => vec![lanelet],
        };
        let before = from.and_then(|f| self.lanes.get(f));
        let fits: Vec<(i64, f64, f64)> = siblings
            .iter()
            .map(|id| {
                let lane = &self.lanes[id];
                let squared = track
                    .iter()
                    .map(|p| {
                        let d = lane.project(*p).1;
                        let d = before.map_or(d, |b| d.min(b.project(*p).1));
                        d * d
                    })
                    .sum::<f64>();
                (*id, lane.project(at).0, squared)
            })
            .collect();
        let best = fits.iter().map(|f| f.2).fold(f64::INFINITY, f64::min);
        fits.into_iter()
            .map(|(id, station, squared)| {
                (id, station, (-(squared - best) / (2.0 * LANE_KEEPING_SIGMA_M.powi(2))).exp())
            })
            .collect()
    }

    /// The walkable lanelet that begins or ends where `lane` ends (`at_end`) or begins: a
    /// walkway's crosswalk at a kerb, a crosswalk's walkway. With its id and whether it is walked
    /// in its drawing direction. None where nothing joins (or the tile cut the lane there).
    fn walked_onto(&self, lane: &Lane, at_end: bool) -> Option<(i64, &Lane, bool)> {
        const JOINED_M: f64 = 1.0;
        let kerb = if at_end { *lane.points.last()? } else { lane.points[0] };
        let near = |p: Local| distance(p.0 - kerb.0, p.1 - kerb.1) <= JOINED_M;
        lane.successors.iter().find_map(|id| {
            let next = self.lanes.get(id)?;
            if near(next.points[0]) {
                Some((*id, next, true))
            } else {
                near(*next.points.last()?).then_some((*id, next, false))
            }
        })
    }

    /// Routes from `lanelet` that cover `distance` metres (or end), with their probabilities.
    /// A route enters no lanelet twice (`behind`: the route so far): successors can form cycles
    /// (crosswalks and sidewalks lead both ways), and a long enough distance would go round them.
    fn routes(
        &self,
        mode: TravelMode,
        evidence: &Evidence,
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
        let total: f64 = next.iter().map(|s| turn_prior(mode, &self.lanes[s].turn, evidence)).sum();
        let mut out = Vec::new();
        for s in next {
            let p = turn_prior(mode, &self.lanes[s].turn, evidence) / total;
            for (mut route, q) in self.routes(mode, evidence, *s, left, &behind) {
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
                return (lane.at(distance.min(length)).0, *id);
            }
            distance -= length;
        }
        unreachable!("routes are never empty")
    }
}

/// Local metres east/north of the map origin.
type Local = (f64, f64);

/// How long a track's recent motion is fitted over.
const FIT_WINDOW_US: u64 = 1_500_000;

/// A track's recent motion: where it is (fitted), its heading, speed (m/s) and acceleration
/// (m/s², along its heading) at its last point.
#[derive(Debug, Clone, Copy)]
struct Kinematics {
    at: Local,
    heading: Local,
    speed: f64,
    accel: f64,
    /// Whether `accel` was fitted (a window long enough for a parabola) or only assumed 0.
    accel_fitted: bool,
}

/// Least-squares fit of the track's last `FIT_WINDOW_US`: the displacement along its chord
/// against time, a parabola (constant acceleration) when the window is long enough, a line
/// otherwise. Several noisy points per second make speed and deceleration much steadier than
/// any two points would.
fn kinematics(origin: Wgs84, t: &MatchedTrajectory) -> Option<Kinematics> {
    let last = t.points.last()?;
    let local = |p: &MatchedPoint| wgs84_to_offset(origin, Wgs84 { lat: p.latitude, lon: p.longitude });
    let window: Vec<(f64, Local)> = t
        .points
        .iter()
        .filter(|p| p.measured_at_us + FIT_WINDOW_US >= last.measured_at_us)
        .map(|p| (-(last.measured_at_us.saturating_sub(p.measured_at_us) as f64) / 1e6, local(p)))
        .collect();
    let (t0, first) = *window.first()?;
    if -t0 < 0.2 || window.len() < 3 {
        return None;
    }
    let end = local(last);
    let chord = (end.0 - first.0, end.1 - first.1);
    let length = distance(chord.0, chord.1);
    let heading = if length > 1e-6 { (chord.0 / length, chord.1 / length) } else { (1.0, 0.0) };
    // Displacement along the chord against time (t ≤ 0, the last point at 0).
    let along: Vec<(f64, f64)> =
        window.iter().map(|&(ti, p)| (ti, (p.0 - first.0) * heading.0 + (p.1 - first.1) * heading.1)).collect();
    let quadratic = -t0 >= 0.9 && window.len() >= 6;
    let (c0, c1, c2) = if quadratic {
        let [c0, c1, c2] = parabola_fit(&along)?;
        (c0, c1, c2)
    } else {
        let (c0, c1) = line_fit(&along)?;
        (c0, c1, 0.0)
    };
    let at = (first.0 + heading.0 * c0, first.1 + heading.1 * c0);
    Some(Kinematics { at, heading, speed: c1.max(0.0), accel: (2.0 * c2).clamp(-8.0, 4.0), accel_fitted: quadratic })
}

/// How long the sensor's own speed measurements are fitted over: shorter than positions need,
/// so braking shows within half a second of its onset.
const SPEED_FIT_WINDOW_US: u64 = 1_000_000;

/// The speeds the sensor measured over the track's last [`SPEED_FIT_WINDOW_US`]: (seconds before
/// its newest point, negative; m/s). None with fewer than four, or spanning under half a second.
fn recent_speeds(t: &MatchedTrajectory) -> Option<Vec<(f64, f64)>> {
    let last = t.points.last()?;
    let samples: Vec<(f64, f64)> = t
        .points
        .iter()
        .filter(|p| p.measured_at_us + SPEED_FIT_WINDOW_US >= last.measured_at_us)
        .filter_map(|p| Some((-((last.measured_at_us - p.measured_at_us) as f64) / 1e6, p.speed_mps?)))
        .collect();
    let span = samples.first().map_or(0.0, |s| -s.0);
    (samples.len() >= 4 && span >= 0.5).then_some(samples)
}

/// Speed at the last point and acceleration from the speeds the sensor measured (a line fitted
/// over [`recent_speeds`]), when the track carries enough of them. A measured velocity
/// (radar Doppler, a camera tracker's filter) is far steadier than one differentiated from
/// positions twice: with σ 0.2 m/s per measurement a second's worth gives the deceleration to
/// about ±0.25 m/s², where positions (σ 0.15 m) need 1.5 s for ±0.5 and lag a braking onset.
fn measured_speed(t: &MatchedTrajectory) -> Option<(f64, f64)> {
    line_fit(&recent_speeds(t)?)
}

/// Below this a track is fresh: its speed differentiated from positions is mostly noise.
const FRESH_TRACK_US: u64 = 1_000_000;

/// For a fresh track ([`FRESH_TRACK_US`]), the mean of the speeds the sensor measured (at least
/// two) and of the headings it measured (unit vector east/north, when it did): positions 0.25 s
/// apart (σ 0.15 m) give a speed only to about ±0.85 m/s and a walker's direction not at all — one
/// sensor's new track of a pedestrian walking at 1.2 m/s was fitted at 3.5, another's had her
/// walking back the way she came.
fn fresh_track_motion(t: &MatchedTrajectory) -> Option<(f64, Option<Local>)> {
    let (first, last) = (t.points.first()?, t.points.last()?);
    if last.measured_at_us.saturating_sub(first.measured_at_us) >= FRESH_TRACK_US {
        return None;
    }
    let speeds: Vec<f64> = t.points.iter().filter_map(|p| p.speed_mps).collect();
    if speeds.len() < 2 {
        return None;
    }
    let (east, north) = t
        .points
        .iter()
        .filter_map(|p| p.heading_deg)
        .map(|h| h.to_radians().sin_cos())
        .fold((0.0, 0.0), |(e, n), (s, c)| (e + s, n + c));
    let length = distance(east, north);
    let heading = (length > 1e-6).then(|| (east / length, north / length));
    Some((speeds.iter().sum::<f64>() / speeds.len() as f64, heading))
}

/// How far back a track's speed profile is judged: a turning road user's braking ends as it
/// reaches its turn speed at the stop line, seconds before its path shows the turn (a cyclist's
/// connector runs straight for metres first). 3 s forgot it too soon: 60 clearly false warnings
/// on seeds 1–10 against 38 with 4 s (6 s: the same as 4).
const PROFILE_WINDOW_US: u64 = 4_000_000;

/// Spread of a measured speed about what a road user's speed profile explains (the sensor's
/// noise and riders' own unsteadiness), m/s.
const PROFILE_SIGMA_MPS: f64 = 0.3;
/// Braking (m/s²) drivers and riders slow down for a turn with.
const TURN_BRAKING_MPS2: [f64; 4] = [1.5, 2.0, 2.5, 3.0];
/// Where one yielding stops, metres before (positive) or past the stop line.
const YIELD_STOP_M: (f64, f64) = (-2.0, 4.0);
/// Where one turning stops in its turn to yield, metres past the stop line (negative): short of
/// the crosswalk it turns across, which a turn here reaches 8–20 m in (a driver waiting 10.4 m
/// into a right turn was taken for one going straight, p 0.88, the moment it pulled away).
const YIELD_IN_TURN_M: (f64, f64) = (-20.0, -3.0);
/// How fast one who stopped to yield pulls away, m/s².
const PULL_AWAY_MPS2: [f64; 2] = [1.0, 2.0];
/// Of turning road users' profiles, the share that stop in the turn to yield.
const YIELDING_TURN_SHARE: f64 = 0.2;
/// How much below the top of its profile a road user's cruise may be (noise lifts the top), m/s.
const CRUISE_SHADE_MPS: [f64; 3] = [0.0, 0.15, 0.3];
/// Fewest measured speeds a profile is judged on.
const PROFILE_MIN_SAMPLES: usize = 6;

/// The sensor's measured speeds of a track's last [`PROFILE_WINDOW_US`] against where each was
/// measured: (metres before the stop line of `approach`, negative past it on a connector, m/s).
fn speed_profile(map: &LaneMap, t: &MatchedTrajectory, approach: i64) -> Vec<(f64, f64)> {
    let Some(lane) = map.lanes.get(&approach) else { return Vec::new() };
    let end = lane.stations.last().copied().unwrap_or(0.0);
    let newest = t.points.last().map_or(0, |p| p.measured_at_us);
    t.points
        .iter()
        .filter(|p| p.measured_at_us.saturating_add(PROFILE_WINDOW_US) >= newest)
        .filter_map(|p| {
            let speed = p.speed_mps?;
            if p.lanelet_id == approach {
                Some((end - p.station_m, speed))
            } else if lane.successors.contains(&p.lanelet_id) {
                Some((-p.station_m, speed))
            } else {
                None
            }
        })
        .collect()
}

/// Likelihood ratio turning : going straight from a speed profile ([`speed_profile`]): one
/// turning has slowed from its cruise to its turn speed by the stop line (braking at one of
/// [`TURN_BRAKING_MPS2`], the turn speed one of the mode's) and keeps that on the connector, or
/// stops in the turn to yield; one going straight keeps a speed of its own, or stops at the line
/// to yield. Both pull away after a stop. Judging the speeds
/// against the distance to the line, not against time, a braking onset shows from its first
/// samples: a deceleration fitted over a second lags it by half that, and then speaks against
/// the turn it announces. None without enough measured speeds.
fn profile_turn_likelihood(mode: TravelMode, profile: &[(f64, f64)]) -> Option<f64> {
    let (low, high) = turn_speeds_mps(mode)?;
    if profile.len() < PROFILE_MIN_SAMPLES {
        return None;
    }
    let mean = profile.iter().map(|s| s.1).sum::<f64>() / profile.len() as f64;
    // Its cruise: the fastest it went (averaged over three samples against noise).
    let cruise = profile.windows(3).map(|w| (w[0].1 + w[1].1 + w[2].1) / 3.0).fold(mean, f64::max);
    let log_likelihood = |model: &dyn Fn(f64) -> f64| {
        -profile.iter().map(|&(d, v)| (v - model(d)).powi(2)).sum::<f64>() / (2.0 * PROFILE_SIGMA_MPS.powi(2))
    };
    // Log of the mean of exp over hypotheses, without underflow.
    let log_mean = |logs: &[f64]| {
        let top = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        top + (logs.iter().map(|l| (l - top).exp()).sum::<f64>() / logs.len() as f64).ln()
    };
    let mut braking = Vec::new();
    for i in 0..5 {
        let v_turn = low + (high - low) * i as f64 / 4.0;
        for b in TURN_BRAKING_MPS2 {
            // The cruise estimate is the noisy top of the profile: the best of it and a little less.
            let best = CRUISE_SHADE_MPS
                .iter()
                .map(|shade| {
                    let cruise = cruise - shade;
                    log_likelihood(&|d: f64| cruise.min((v_turn * v_turn + 2.0 * b * d.max(0.0)).sqrt()))
                })
                .fold(f64::NEG_INFINITY, f64::max);
            braking.push(best);
        }
    }
    // Log of a weighted mixture (weights summing to 1).
    let log_mix = |parts: &[(f64, f64)]| {
        let top = parts.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
        top + parts.iter().map(|(w, l)| w * (l - top).exp()).sum::<f64>().ln()
    };
    // Braking to a stop at one of `stops` (every metre of the span) and pulling away from it;
    // `by_line`: slowed to that speed by the stop line on the way (a turn's).
    let stopping = |(first, last): (f64, f64), by_line: f64| {
        let mut logs = Vec::new();
        let mut stop = first;
        while stop <= last {
            for b in TURN_BRAKING_MPS2 {
                for a in PULL_AWAY_MPS2 {
                    logs.push(log_likelihood(&|d: f64| {
                        let v = if d > stop { 2.0 * b * (d - stop) } else { 2.0 * a * (stop - d) };
                        cruise.min(v.sqrt()).min((by_line * by_line + 2.0 * b * d.max(0.0)).sqrt())
                    }));
                }
            }
            stop += 1.0;
        }
        log_mean(&logs)
    };
    // One whose cruise is a turn speed already keeps it through the turn: those turn speeds at or
    // above its cruise are in the mixture as a steady speed. (A further 30 % share on a steady
    // speed counted them twice, and a rider going straight at 15 km/h through the line and on
    // stayed 0.3 likely to turn right.)
    let turning = log_mean(&braking);
    // ... or stops in the turn, short of the crosswalk or bike lane it turns across, to yield:
    // one going straight does not stop inside the junction. (A driver stopped there to let a
    // pedestrian cross was taken for one going straight, and warned against a cyclist coming
    // the other way.)
    let turning = log_mix(&[
        (1.0 - YIELDING_TURN_SHARE, turning),
        (YIELDING_TURN_SHARE, stopping(YIELD_IN_TURN_M, (low + high) / 2.0)),
    ]);
    // Half the straight weight on keeping its speed, half on yielding at the line.
    let straight = log_mix(&[(0.5, log_likelihood(&|_| mean)), (0.5, stopping(YIELD_STOP_M, f64::INFINITY))]);
    Some((turning - straight).exp().clamp(1e-3, 1e3))
}

/// Top speed a mode is predicted to accelerate to, m/s.
fn top_speed_mps(mode: TravelMode) -> f64 {
    match mode {
        TravelMode::Car => 14.0,
        TravelMode::Bicycle => 7.0,
        _ => 2.5,
    }
}

/// Distance covered after `secs` from `speed` at `accel` until the speed reaches `floor`
/// (braking: a turn's speed, or a stop for one yielding) or `top` (accelerating).
fn distance_after(speed: f64, accel: f64, floor: f64, top: f64, secs: f64) -> f64 {
    if accel.abs() < 1e-9 {
        return speed * secs;
    }
    let target = if accel < 0.0 { floor.min(speed) } else { top.max(speed) };
    let ramp = ((target - speed) / accel).clamp(0.0, secs);
    speed * ramp + 0.5 * accel * ramp * ramp + target * (secs - ramp)
}

/// Deceleration (m/s²) a track must show to be predicted to keep braking: below it, noise.
const BRAKING_MPS2: f64 = 1.0;

/// Below this a pedestrian may be setting off (speeding up is extrapolated); above, walking.
const PEDESTRIAN_SETTING_OFF_MPS: f64 = 1.0;

/// How long a pedestrian must have been tracked for her pace to tell that she walks on: her pace
/// is what the sensor measured over the last second ([`recent_speeds`]), settled by then. (At
/// 2 s, one who came into view 2.8 s before stepping out was taken to stop at the kerb until she
/// was on the crosswalk, 1.4 s before the car.)
const PEDESTRIAN_INTENT_US: u64 = 1_000_000;
/// How likely a pedestrian walking at pace towards the kerb walks on across the crosswalk there
/// rather than stopping at it (waiting for a gap, or turning back) ...
const PEDESTRIAN_WALKS_ON: f64 = 0.9;
/// ... and when she has just crossed another arm to this corner (a diagonal crossing in two steps).
const PEDESTRIAN_CROSSES_AGAIN: f64 = 0.2;

/// Seconds of a track on one lanelet its lane position is kept over at most: the predictor's
/// history ([`HISTORY_US`]) holds four.
pub const LANE_SECONDS: usize = 4;

/// Where the track kept in its lane on `approach`, second by second counted back from its newest
/// point there, oldest first (seconds with fewer than four points left out; none without four in
/// the newest), each with its metres to the approach's stop line.
fn lane_seconds(map: &LaneMap, t: &MatchedTrajectory, approach: i64) -> Option<LanePosition> {
    let end = map.lanes.get(&approach)?.stations.last().copied().unwrap_or(0.0);
    let on: Vec<&MatchedPoint> =
        t.points.iter().filter(|p| p.lanelet_id == approach && p.offset_m.is_finite()).collect();
    let newest = on.last()?.measured_at_us;
    // Second 0 is the newest one (its points at most 1 s older than the newest), second k the
    // k-th before it.
    let second = |k: u64| {
        let of_k: Vec<&MatchedPoint> = on
            .iter()
            .copied()
            .filter(|p| newest.saturating_sub(p.measured_at_us).saturating_sub(1) / 1_000_000 == k)
            .collect();
        if of_k.len() < 4 {
            return None;
        }
        let mean = |f: fn(&MatchedPoint) -> f64| of_k.iter().map(|p| f(p)).sum::<f64>() / of_k.len() as f64;
        Some(LaneSecond {
            offset_m: mean(|p| p.offset_m),
            points: of_k.len() as u32,
            to_go_m: (end - mean(|p| p.station_m)).max(0.0),
        })
    };
    let newest_second = second(0)?;
    let mut seconds: Vec<LaneSecond> = (1..LANE_SECONDS as u64).rev().filter_map(second).collect();
    seconds.push(newest_second);
    Some(LanePosition { approach_lanelet_id: approach, seconds })
}

/// How far back a path shows where its road user came from ([`PredictedPath::past`]).
pub const PAST_US: u64 = 2_000_000;

/// The longest look-back of the predictor (past, speed fit and profile, lane position of the
/// last second): older points of a track change nothing it predicts.
pub const HISTORY_US: u64 = max_us(max_us(PAST_US, FIT_WINDOW_US), PROFILE_WINDOW_US);

const fn max_us(a: u64, b: u64) -> u64 {
    if a > b {
        a
    } else {
        b
    }
}

/// The track's last [`PAST_US`] up to its newest point (included), points at least `step_us`
/// apart counted back from the newest, oldest first: where it was, as matched (snapped onto its
/// lanelet where it has one). Not a line drawn back along the current heading: a road user
/// leaving a turn did not come from straight behind it.
fn past(t: &MatchedTrajectory, step_us: u64) -> Vec<PredictedPosition> {
    let Some(last) = t.points.last() else { return Vec::new() };
    let mut out: Vec<PredictedPosition> = Vec::new();
    for p in t.points.iter().rev() {
        if p.measured_at_us.saturating_add(PAST_US) < last.measured_at_us {
            break;
        }
        // Points out of time order (an object's track as any sender may have built it) are skipped.
        let due = out.last().is_none_or(|q| p.measured_at_us.saturating_add(step_us.max(1)) <= q.at_us);
        if due {
            out.push(PredictedPosition {
                at_us: p.measured_at_us,
                latitude: p.latitude,
                longitude: p.longitude,
                lanelet_id: p.lanelet_id,
            });
        }
    }
    out.reverse();
    out
}

/// Ranked predicted paths of one object (empty when its track is too short to tell a speed).
pub fn predict(map: &LaneMap, t: &MatchedTrajectory, cfg: &PredictorConfig) -> Vec<PredictedPath> {
    let Some(last) = t.points.last() else { return Vec::new() };
    let mode = TravelMode::try_from(t.mode).unwrap_or(TravelMode::Unknown);
    let on_lane = last.lanelet_id != 0 && map.lanes.contains_key(&last.lanelet_id);
    // Local metres around the map origin on the lanes; around the object itself off them, where
    // the map (e.g. an empty off-map tile) may have no meaningful origin.
    let origin = if on_lane { map.origin } else { Wgs84 { lat: last.latitude, lon: last.longitude } };
    let Some(mut k) = kinematics(origin, t) else { return Vec::new() };
    if let Some((speed, heading)) = fresh_track_motion(t) {
        k.speed = speed;
        k.heading = heading.unwrap_or(k.heading);
    } else if mode == TravelMode::Pedestrian {
        // A walker's pace from positions is mostly noise: over 1.5 s (σ 0.15 m) one walking a
        // steady 1 m/s was fitted anywhere from 0.4 to 1.7 and braking or speeding up at up to
        // 1 m/s², which moved when she reaches a crosswalk by seconds.
        // Her pace is the mean of the last second's measured speeds, her speed-up their slope.
        if let Some(speeds) = recent_speeds(t) {
            if let Some((_, accel)) = line_fit(&speeds) {
                k.speed = speeds.iter().map(|s| s.1).sum::<f64>() / speeds.len() as f64;
                k.accel = accel;
            }
        }
    }
    let steps = (cfg.horizon_us / cfg.step_us.max(1)) as usize;
    let secs = |i: usize| (i as u64 * cfg.step_us) as f64 / 1e6;
    let past = past(t, cfg.step_us);
    let tracked_since = t.points.iter().map(|p| p.measured_at_us).min().unwrap_or(last.measured_at_us);
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
            past: past.clone(),
            tracked_since_us: tracked_since,
            lane_position: None,
            turn: String::new(),
        };
    let position = |i: usize, p: (f64, f64), lanelet_id: i64| {
        let w = offset_to_wgs84(origin, p.0, p.1);
        PredictedPosition {
            at_us: last.measured_at_us + i as u64 * cfg.step_us,
            latitude: w.lat,
            longitude: w.lon,
            lanelet_id,
        }
    };
    // Braking is kept up (to a stop at most: one yielding); speeding up to the mode's top speed.
    // A pedestrian speeds up only from a standstill or a stroll (one setting off to cross): one
    // already walking is taken to keep its pace — a fitted speed-up there is mostly the tracker
    // settling, and a walker "running at 2.5 m/s" into a car's lane was a quarter of the clearly
    // false warnings left.
    let speeding_up = k.accel > 0.0 && (mode != TravelMode::Pedestrian || k.speed < PEDESTRIAN_SETTING_OFF_MPS);
    let accel = if k.accel < -BRAKING_MPS2 || speeding_up { k.accel } else { 0.0 };
    let ahead = |i: usize, floor: f64| distance_after(k.speed, accel, floor, top_speed_mps(mode), secs(i));
    if mode == TravelMode::Pedestrian && on_lane {
        // Crosswalks and sidewalks are walked either way (their lanelets have a drawing direction,
        // not a travel direction): along the lanelet the way the pedestrian goes, to its end,
        // where the kerb or the corner is — not on into the road at constant velocity.
        // Only the part of the motion along the lanelet counts: at a corner, where a sidewalk
        // meets the next crosswalk, one walking on along the kerb is not about to cross.
        let lane = &map.lanes[&last.lanelet_id];
        let (here, _) = lane.at(last.station_m - 0.5);
        let (onward, _) = lane.at(last.station_m + 0.5);
        let length = distance(onward.0 - here.0, onward.1 - here.1).max(1e-6);
        let along = ((onward.0 - here.0) * k.heading.0 + (onward.1 - here.1) * k.heading.1) / length;
        let stays = |i: usize| position(i, lane.at(last.station_m + along * ahead(i, 0.0)).0, last.lanelet_id);
        // Walking at pace towards the kerb where a crosswalk begins (or off a crosswalk onto the
        // walkway), a pedestrian is about to walk on across it: without this her path ended at
        // the kerb, and a car's conflict with her showed only once she had stepped out.
        // Seen walking for a while: a fresh track's speed is mostly the tracker settling.
        let seen_us = last.measured_at_us.saturating_sub(tracked_since);
        let walking_on = seen_us >= PEDESTRIAN_INTENT_US && k.speed >= PEDESTRIAN_SETTING_OFF_MPS && along.abs() >= 0.5;
        let Some((next_id, next, forward)) = walking_on.then(|| map.walked_onto(lane, along > 0.0)).flatten() else {
            return vec![path(vec![last.lanelet_id], 1.0, 0, (1..=steps).map(stays).collect())];
        };
        // Off a crosswalk she walks on to the pavement. At a kerb: one who has just crossed
        // another arm to this corner is on her way along the street, rarely across the next arm.
        let crossed_here = t.points.iter().any(|p| {
            p.lanelet_id != last.lanelet_id
                && p.lanelet_id != next_id
                && map.lanes.get(&p.lanelet_id).is_some_and(|l| l.crosswalk)
        });
        let walks_on = match (next.crosswalk, crossed_here) {
            (false, _) => 1.0,
            (true, false) => PEDESTRIAN_WALKS_ON,
            (true, true) => PEDESTRIAN_CROSSES_AGAIN,
        };
        let end = if along > 0.0 { *lane.stations.last().unwrap() } else { lane.stations[0] };
        let to_kerb = (end - last.station_m).abs();
        let (first, length) = (next.stations[0], *next.stations.last().unwrap() - next.stations[0]);
        let goes_on = (1..=steps)
            .map(|i| {
                let walked = along.abs() * ahead(i, 0.0);
                if walked <= to_kerb {
                    return stays(i);
                }
                let beyond = ((walked - to_kerb) / along.abs()).min(length);
                let station = if forward { first + beyond } else { first + length - beyond };
                position(i, next.at(station).0, next_id)
            })
            .collect();
        let mut paths = vec![path(vec![last.lanelet_id, next_id], walks_on, 0, goes_on)];
        if walks_on < 1.0 {
            paths.push(path(vec![last.lanelet_id], 1.0 - walks_on, 1, (1..=steps).map(stays).collect()));
            paths.sort_by(|a, b| b.probability.total_cmp(&a.probability));
            for (rank, p) in paths.iter_mut().enumerate() {
                p.rank = rank as u32;
            }
        }
        return paths;
    }
    if !on_lane {
        // Off the lanes: straight on along the fitted heading.
        let positions = (1..=steps)
            .map(|i| {
                let d = ahead(i, 0.0);
                position(i, (k.at.0 + k.heading.0 * d, k.at.1 + k.heading.1 * d), 0)
            })
            .collect();
        return vec![path(Vec::new(), 1.0, 0, positions)];
    }
    let lane = &map.lanes[&last.lanelet_id];
    let to_go = lane.stations.last().copied().unwrap_or(0.0) - last.station_m;
    // Lane position tells a turn on the approach (on a connector: as it was on the approach).
    let approach = if lane.turn.is_empty() {
        Some(last.lanelet_id)
    } else {
        map.predecessors.get(&last.lanelet_id).and_then(|p| p.first().copied())
    };
    let profile = approach.map(|a| speed_profile(map, t, a)).unwrap_or_default();
    let evidence = Evidence {
        // The sensor's own speeds against the distance to the line tell most; without them, the
        // fitted speed and deceleration.
        turning: match profile_turn_likelihood(mode, &profile) {
            Some(ratio) => ratio,
            None => match measured_speed(t) {
                Some((speed, accel)) => turn_likelihood(mode, speed.max(0.0), Some(-accel), to_go),
                None => turn_likelihood(mode, k.speed, k.accel_fitted.then_some(-k.accel), to_go),
            },
        },
        // On a connector, as it kept on the approach it leaves: the move over is done by the
        // stop line, on the connector the lane position says nothing.
        lateral: approach.and_then(|a| lane_seconds(map, t, a)),
    };
    let horizon_m = ahead(steps, 0.0).max(k.speed * secs(steps));
    // Where the vehicle may be: its matched lanelet, or on a connector any of its siblings, each
    // weighted by its turn's prior and how well the track follows it.
    let candidates = if lane.turn.is_empty() {
        vec![(last.lanelet_id, last.station_m, 1.0)]
    } else {
        let track: Vec<Local> = t
            .points
            .iter()
            .filter(|p| p.measured_at_us + 1_000_000 >= last.measured_at_us)
            .map(|p| wgs84_to_offset(origin, Wgs84 { lat: p.latitude, lon: p.longitude }))
            .collect();
        let fits = map.connector_candidates(last.lanelet_id, k.at, &track);
        let weight = |id: i64, fit: f64| {
            turn_prior(mode, &map.lanes[&id].turn, &evidence)
                * fit
                * connector_speed_likelihood(mode, &map.lanes[&id].turn, k.speed)
        };
        let total: f64 = fits.iter().map(|&(id, _, fit)| weight(id, fit)).sum();
        fits.into_iter().map(|(id, station, fit)| (id, station, weight(id, fit) / total)).collect()
    };
    let mut routes: Vec<(Vec<i64>, f64, f64)> = candidates
        .into_iter()
        .flat_map(|(id, station, p)| {
            map.routes(mode, &evidence, id, station + horizon_m, &[]).into_iter().map(move |(r, q)| (r, station, p * q))
        })
        .collect();
    routes.sort_by(|a, b| b.2.total_cmp(&a.2));
    routes.truncate(cfg.max_alternatives);
    routes
        .into_iter()
        .enumerate()
        .map(|(rank, (route, station, probability))| {
            // A vehicle braking towards a turn slows to the turn's speed; on a straight route
            // (or already in the turn) braking means stopping: yielding.
            let turns = route.iter().skip(1).any(|id| matches!(map.lanes[id].turn.as_str(), "left" | "right"));
            // In the turn by the connector this route takes from here, not the one the matcher
            // picked: connectors overlap where they start, and a car matched to the straight one
            // while turning right was predicted to brake to a stop on the turn's route (4 m in 4 s
            // instead of 17), and its risk with a straight cyclist went unseen for 0.8 s.
            let in_turn = matches!(map.lanes[&route[0]].turn.as_str(), "left" | "right");
            let floor = match (turn_speed_mps(mode), turn_speeds_mps(mode)) {
                (Some(v), _) if turns && !in_turn => v,
                (_, Some((slowest, _))) if in_turn => slowest,
                _ => 0.0,
            };
            let positions = (1..=steps)
                .map(|i| {
                    let (p, lanelet) = map.walk(&route, station + ahead(i, floor));
                    position(i, p, lanelet)
                })
                .collect();
            // The turn this route takes at its junction (on a connector: that connector's).
            let turn = route.iter().map(|id| map.lanes[id].turn.as_str()).find(|t| !t.is_empty()).unwrap_or("");
            PredictedPath {
                lane_position: evidence.lateral.clone(),
                turn: turn.to_owned(),
                ..path(route, probability, rank, positions)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::Lanelet;

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
                speed_mps: None,
                heading_deg: None,
            }
        };
        MatchedTrajectory {
            mode: TravelMode::Car as i32,
            object_id: 9,
            points: vec![point(0, -to_go - 10.0), point(500, -to_go - 5.0), point(1000, -to_go)],
            ..Default::default()
        }
    }

    /// The `k`-th point of a track observed every 125 ms from 1 s, at `at` (local metres).
    fn sampled(k: u64, at: (f64, f64), lanelet_id: i64, station_m: f64) -> MatchedPoint {
        let w = offset_to_wgs84(ORIGIN, at.0, at.1);
        MatchedPoint {
            measured_at_us: 1_000_000 + k * 125_000,
            latitude: w.lat,
            longitude: w.lon,
            lanelet_id,
            station_m,
            offset_m: 0.0,
            speed_mps: None,
            heading_deg: None,
        }
    }

    /// A car on the approach (lanelet 1) observed every 125 ms for 1.5 s, its last point
    /// `to_go` metres before the line at `speed`, having slowed at `decel` m/s².
    fn approaching(to_go: f64, speed: f64, decel: f64) -> MatchedTrajectory {
        let points = (0..=12)
            .map(|k| {
                let ago = (12 - k) as f64 * 0.125;
                let y = -to_go - (speed * ago + 0.5 * decel * ago * ago);
                sampled(k, (0.0, y), 1, 60.0 + y)
            })
            .collect();
        MatchedTrajectory { mode: TravelMode::Car as i32, object_id: 9, points, ..Default::default() }
    }

    #[test]
    fn far_from_the_junction_routes_are_ranked_by_turn_priors() {
        // 10 m/s, 30 m before the line: turning needs only 1.1 m/s² yet, so no evidence.
        let paths = predict(&map(), &car(30.0), &PredictorConfig::default());
        let routes: Vec<&[i64]> = paths.iter().map(|p| p.lanelet_sequence.as_slice()).collect();
        // 40 m in 4 s: 10 m into the straight connector (20 m long).
        assert_eq!(routes, vec![&[1, 3][..], &[1, 2], &[1, 4]]);
        let probs: Vec<f64> = paths.iter().map(|p| p.probability).collect();
        assert!((probs[0] - 0.55).abs() < 1e-9 && (probs[1] - 0.25).abs() < 1e-9 && (probs[2] - 0.20).abs() < 1e-9);
        assert_eq!(paths.iter().map(|p| p.rank).collect::<Vec<_>>(), vec![0, 1, 2]);
    }

    #[test]
    fn the_speed_profile_tells_a_turn_from_going_straight() {
        let p = |t: &MatchedTrajectory, route: &[i64]| {
            let paths = predict(&map(), t, &PredictorConfig::default());
            paths.iter().find(|p| p.lanelet_sequence == route).map_or(0.0, |p| p.probability)
        };
        // 9 m/s, 6 m before the line: a turn (at most 7 m/s) needs 2.7 m/s² of braking now.
        // Braking, it keeps 0.35 m left of the centerline (its lane position tells which way).
        let keeping = |mut t: MatchedTrajectory, offset: f64| {
            t.points.iter_mut().for_each(|q| q.offset_m = offset);
            t
        };
        let braking = keeping(approaching(6.0, 9.0, 2.5), 0.35);
        let cruising = approaching(6.0, 9.0, 0.0);
        assert!(p(&braking, &[1, 2]) + p(&braking, &[1, 4]) > 0.8, "a braking car turns");
        assert!(p(&braking, &[1, 2]) > 0.75, "to the side it keeps to: left");
        let right = keeping(approaching(6.0, 9.0, 2.5), -0.35);
        assert!(p(&right, &[1, 4]) > 0.75, "or right");
        // On the centerline it is no turn the lane position tells, and it brakes: one it may
        // take either way, or a stop.
        let centred = approaching(6.0, 9.0, 2.5);
        assert!(p(&centred, &[1, 2]) < p(&braking, &[1, 2]));
        assert!(p(&cruising, &[1, 3, 5]) > 0.95, "one keeping its speed goes straight");
        // 14 m/s, 10 m before the line: turning would take braking at 7 m/s²: straight.
        assert!(p(&approaching(10.0, 14.0, 0.0), &[1, 3, 5]) > 0.99);
    }

    #[test]
    fn braking_the_sensor_measured_tells_a_turn_before_the_positions_do() {
        let p_turn = |t: &MatchedTrajectory| {
            let paths = predict(&map(), t, &PredictorConfig::default());
            paths.iter().filter(|p| p.lanelet_sequence != [1, 3, 5]).map(|p| p.probability).sum::<f64>()
        };
        // Positions of one cruising at 7 m/s, 4 m before the line (a turn needs 3.1 m/s² from
        // here: too late by its positions alone) ...
        let cruising = approaching(4.0, 7.0, 0.0);
        // ... but the sensor's speeds show it braking at 2.5 m/s² over the last half second,
        // down to 5.5 m/s: nearly the turn's speed. Position noise hides that onset (and it
        // only shows in positions half a second later); the measured speeds do not.
        let mut braking = cruising.clone();
        let n = braking.points.len();
        for (k, q) in braking.points.iter_mut().enumerate() {
            let ago = (n - 1 - k) as f64 * 0.125;
            q.speed_mps = Some(if ago > 0.5 { 6.75 } else { 5.5 + 2.5 * ago });
        }
        let steady = {
            let mut t = cruising.clone();
            t.points.iter_mut().for_each(|q| q.speed_mps = Some(7.0));
            t
        };
        // (Not certain: a turn at 25 km/h needs next to no braking from 7 m/s.)
        assert!(p_turn(&steady) < 0.2, "steady measured speed: straight ({})", p_turn(&steady));
        assert!(p_turn(&braking) > 2.0 * p_turn(&cruising), "{} vs {}", p_turn(&braking), p_turn(&cruising));
    }

    /// A rider's measured speeds (8 a second, ±0.15 m/s of noise) over 3 s up to `until` metres
    /// before the line, speed given by `speed_at` metres before it.
    fn profile(until: f64, speed_at: impl Fn(f64) -> f64) -> Vec<(f64, f64)> {
        let mut out = Vec::new();
        let mut d = until;
        for k in 0..24 {
            let v = speed_at(d);
            out.push((d, v + if k % 2 == 0 { 0.15 } else { -0.15 }));
            d += v / 8.0; // going back in time: further before the line
        }
        out.reverse();
        out
    }

    #[test]
    fn the_speed_profile_against_the_distance_to_the_line_tells_a_turn() {
        let ratio = |p: &[(f64, f64)]| profile_turn_likelihood(TravelMode::Bicycle, p).unwrap();
        // Cruising at 5.7 m/s, slowed at 2 m/s² to 3.9 by the line and keeping that on the
        // connector (2 m past the line): braking ended a second ago, the profile still shows it.
        let turned = profile(-2.0, |d| 5.7f64.min((3.9f64 * 3.9 + 4.0 * d.max(0.0)).sqrt()));
        assert!(ratio(&turned) > 10.0, "{}", ratio(&turned));
        // Keeping 5.7 m/s up to the line: straight on.
        let cruising = profile(0.5, |_| 5.7);
        assert!(ratio(&cruising) < 0.1, "{}", ratio(&cruising));
        // At 4 m/s all along — a speed turns are taken at: the speed tells nothing either way.
        let steady = profile(-1.0, |_| 4.0);
        assert!((0.2..5.0).contains(&ratio(&steady)), "{}", ratio(&steady));
        // At 4.3 m/s through the line and 4 m on: of the turn speeds, only those at 4.3 m/s or
        // above keep it — a rider this fast who means to turn has mostly slowed by now. (A share
        // of turning riders keeping any speed within the turn speeds counted those twice: 0.8.)
        let through = profile(-4.0, |_| 4.3);
        assert!(ratio(&through) < 0.5, "{}", ratio(&through));
        // Braking to a stop at the line is yielding, not slowing for a turn.
        let yielding = profile(1.0, |d| 5.0f64.min((4.0 * (d - 0.5).max(0.0)).sqrt()));
        assert!(ratio(&yielding) < 1.0, "{}", ratio(&yielding));
        // Half a second into braking, 2 m before the line: the first slower samples show it.
        let onset = profile(2.0, |d| 5.7f64.min((3.9f64 * 3.9 + 4.0 * d.max(0.0)).sqrt()));
        assert!(ratio(&onset) > 3.0, "{}", ratio(&onset));
        // Too few speeds: no judgement.
        assert!(profile_turn_likelihood(TravelMode::Bicycle, &turned[..5]).is_none());
        assert!(profile_turn_likelihood(TravelMode::Pedestrian, &turned).is_none());
    }

    #[test]
    fn a_stop_inside_the_junction_is_one_turning_yielding_a_stop_at_the_line_goes_straight() {
        // A car braking from 8 m/s at 2 m/s² to a stop `stop` metres past the line (negative),
        // standing a second, pulling away at 1.5 m/s²: sampled at 8 Hz, measured ±0.15 m/s.
        let stopped_at = |stop: f64| {
            let mut samples = Vec::new();
            let (mut d, mut v) = (stop + 16.0, 8.0);
            while v > 0.0 {
                samples.push((d, v));
                d -= v / 8.0;
                v -= 2.0 / 8.0;
            }
            samples.extend([(d, 0.0); 8]);
            for _ in 0..8 {
                v = v.max(0.0) + 1.5 / 8.0;
                d -= v / 8.0;
                samples.push((d, v));
            }
            samples
                .iter()
                .enumerate()
                .map(|(k, &(d, v))| (d, v + if k % 2 == 0 { 0.15 } else { -0.15 }))
                .collect::<Vec<_>>()
        };
        let ratio = |p: &[(f64, f64)]| profile_turn_likelihood(TravelMode::Car, p).unwrap();
        // 6 m into the junction, short of the crosswalk it turns across: turning, letting a
        // pedestrian cross (it was taken for one going straight).
        assert!(ratio(&stopped_at(-6.0)) > 3.0, "{}", ratio(&stopped_at(-6.0)));
        // Waiting 10.4 m in for the whole window, short of the crosswalk, then pulling away: the
        // turn (it was taken for one going straight at a crawl).
        let waited: Vec<(f64, f64)> = stopped_at(-10.4).into_iter().filter(|&(d, v)| d < -10.0 || v < 0.2).collect();
        assert!(ratio(&waited) > 3.0, "{}", ratio(&waited));
        // At the line: yielding there, as likely going straight.
        assert!(ratio(&stopped_at(1.0)) < 1.0, "{}", ratio(&stopped_at(1.0)));
    }

    #[test]
    fn a_braking_car_is_predicted_to_slow_down() {
        // 8 m/s braking at 2 m/s² on a straight route: in 4 s it stops after 16 m (not 32 m).
        let t = approaching(40.0, 8.0, 2.0);
        let paths = predict(&map(), &t, &PredictorConfig::default());
        let end = paths[0].positions.last().unwrap();
        let end = wgs84_to_offset(ORIGIN, Wgs84 { lat: end.latitude, lon: end.longitude });
        assert!((end.1 - (-40.0 + 16.0)).abs() < 1.0, "{end:?}");
    }

    #[test]
    fn positions_advance_at_the_tracked_speed_over_the_horizon() {
        let paths = predict(&map(), &car(50.0), &PredictorConfig::default());
        // 50 m before the line at 10 m/s: all 4 s stay on the approach, one route.
        assert_eq!(paths.len(), 1);
        let p = &paths[0];
        assert_eq!(p.positions.len(), 16);
        assert_eq!(p.positions[0].at_us, 1_000_000 + 250_000);
        let end = wgs84_to_offset(ORIGIN, Wgs84 { lat: p.positions[15].latitude, lon: p.positions[15].longitude });
        assert!(end.0.abs() < 1e-6 && (end.1 - (-50.0 + 40.0)).abs() < 1e-3, "{end:?}");
        assert!(p.positions.iter().all(|q| q.lanelet_id == 1));
    }

    #[test]
    fn braking_on_a_turns_connector_slows_to_the_turn_not_to_a_stop() {
        // Braking at 2 m/s² from 7.5 to 4.5 m/s up the approach and 1 m along the right turn's
        // diagonal, but matched to the straight connector (they start at the same place): the
        // right turn's path slows to a turn speed and reaches the connector's end (14 m) in 4 s,
        // not a stop 5 m on.
        let at = |s: f64| if s < 0.0 { (0.0, s) } else { (s / 2f64.sqrt(), s / 2f64.sqrt()) };
        let t = MatchedTrajectory {
            mode: TravelMode::Car as i32,
            points: (0..=12)
                .map(|k| {
                    let secs = k as f64 * 0.125;
                    let s = 7.5 * secs - secs * secs - 8.0;
                    MatchedPoint { station_m: s.max(0.0), ..sampled(k, at(s), 3, s.max(0.0)) }
                })
                .collect(),
            ..Default::default()
        };
        let paths = predict(&map(), &t, &PredictorConfig::default());
        let right = paths.iter().find(|p| p.lanelet_sequence == vec![4]).expect("the right turn");
        let end = right.positions.last().unwrap();
        let end = wgs84_to_offset(ORIGIN, Wgs84 { lat: end.latitude, lon: end.longitude });
        assert!(end.0 > 9.9 && end.1 > 9.9, "{end:?}");
    }

    #[test]
    fn on_a_connector_the_track_tells_which_one() {
        // Matched to the right turn's connector, but the points run straight north: the car is
        // on the straight connector, which starts at the same place.
        let mut t = car(-3.0);
        for p in &mut t.points {
            p.lanelet_id = 4;
            p.station_m = 1.0;
        }
        let paths = predict(&map(), &t, &PredictorConfig::default());
        assert_eq!(paths[0].lanelet_sequence, vec![3, 5]);
        assert!(paths[0].probability > 0.9, "{paths:?}");
        // Points along the right turn's diagonal: the right turn.
        let w = |d: f64| offset_to_wgs84(ORIGIN, d, d);
        for (p, d) in t.points.iter_mut().zip([1.0, 3.0, 5.0]) {
            (p.latitude, p.longitude) = (w(d).lat, w(d).lon);
        }
        let paths = predict(&map(), &t, &PredictorConfig::default());
        assert_eq!(paths[0].lanelet_sequence, vec![4]);
        assert!(paths[0].probability > 0.9, "{paths:?}");
    }

    #[test]
    fn a_rider_who_kept_by_the_kerb_since_before_any_move_goes_straight() {
        // Two riders 15 cm right of the centerline over their last second, 2 m before the line:
        // as far over as one about to turn right. One has kept there for four seconds, from
        // before the move over a turn begins (15 m out); the other kept 5 cm left of the
        // centerline then.
        let second = |offset_m: f64, to_go_m: f64| LaneSecond { offset_m, points: 8, to_go_m };
        let kept = [second(-0.15, 17.0), second(-0.15, 12.0), second(-0.15, 7.0), second(-0.15, 2.0)];
        let moved = [second(0.05, 17.0), second(0.0, 12.0), second(-0.08, 7.0), second(-0.15, 2.0)];
        let straight_to_right = |seconds: &[LaneSecond]| {
            lateral_likelihood(TravelMode::Bicycle, "straight", seconds)
                / lateral_likelihood(TravelMode::Bicycle, "right", seconds)
        };
        let newest_only = straight_to_right(&kept[3..]);
        // The newest second alone leans to the turn (0.28); the seconds before tell the two
        // apart (0.78 against 0.05).
        assert!(newest_only < 0.5, "{newest_only}");
        assert!(straight_to_right(&kept) > 2.5 * newest_only, "{}", straight_to_right(&kept));
        assert!(straight_to_right(&moved) < newest_only / 4.0, "{}", straight_to_right(&moved));
    }

    #[test]
    fn the_normal_density_matches_its_closed_form() {
        // Independent: the product of the one-dimensional densities.
        let mut cov = vec![0.04, 0.0, 0.0, 0.09];
        let expected = (-0.5 * (0.1f64.powi(2) / 0.04 + 0.3f64.powi(2) / 0.09)).exp() / (0.2 * 0.3);
        assert!((normal_density(&[0.1, -0.3], &mut cov) / expected - 1.0).abs() < 1e-12);
        // Correlated: det = 1·1 − 0.8² = 0.36, quadratic form yᵀΣ⁻¹y = (1 + 1 − 2·0.8·1)/0.36 for y = (1, 1).
        let mut cov = vec![1.0, 0.8, 0.8, 1.0];
        let expected = (-0.5 * 0.4 / 0.36f64).exp() / 0.6;
        assert!((normal_density(&[1.0, 1.0], &mut cov) / expected - 1.0).abs() < 1e-12);
        // Not positive definite: no density.
        assert_eq!(normal_density(&[0.0, 0.0], &mut vec![1.0, 1.0, 1.0, 1.0]), 0.0);
    }

    #[test]
    fn the_lane_position_is_kept_second_by_second_on_the_approach() {
        // 5 m/s on the 60 m approach for 4.5 s, 8 points a second, offset = −0.1 m · seconds.
        let points = (0..=36)
            .map(|k| {
                let secs = k as f64 * 0.125;
                let y = -40.0 + 5.0 * secs;
                MatchedPoint { offset_m: -0.1 * secs, ..sampled(k, (0.0, y), 1, 60.0 + y) }
            })
            .collect();
        let t = MatchedTrajectory { mode: TravelMode::Bicycle as i32, object_id: 9, points, ..Default::default() };
        let l = lane_seconds(&map(), &t, 1).expect("a newest second on the approach");
        assert_eq!(l.approach_lanelet_id, 1);
        // Four seconds at most, oldest first: the newest holds the points up to a second before
        // the newest one (9: 3.5 … 4.5 s, mean 4.0 s), the one before it 2.5 … 3.375 s (8).
        assert_eq!(l.seconds.len(), LANE_SECONDS);
        let (newest, before) = (&l.seconds[3], &l.seconds[2]);
        assert_eq!((newest.points, before.points), (9, 8));
        assert!((newest.offset_m + 0.4).abs() < 1e-9 && (newest.to_go_m - 20.0).abs() < 1e-6, "{newest:?}");
        assert!((before.offset_m + 0.29375).abs() < 1e-9, "{before:?}");
        assert!(l.seconds.windows(2).all(|w| w[0].to_go_m > w[1].to_go_m && w[0].offset_m > w[1].offset_m));
        // Fewer than four points in the newest second: no lane position.
        let short = MatchedTrajectory { points: t.points[..3].to_vec(), ..t.clone() };
        assert!(lane_seconds(&map(), &short, 1).is_none());
    }

    #[test]
    fn on_a_connector_the_lane_position_kept_on_the_approach_still_tells() {
        // 6 m/s (a turn's speed), just past the line where the connectors still overlap; over
        // its last second on the approach it kept 0.45 m right of the centerline, or centred.
        let track = |offset: f64| {
            let mut t = approaching(2.0, 6.0, 0.0);
            t.points.iter_mut().for_each(|q| q.offset_m = offset);
            for (k, y) in [(13u64, 0.25), (14, 1.0)] {
                t.points.push(sampled(k, (0.0, y), 3, y));
            }
            t
        };
        let right = |t: &MatchedTrajectory| {
            let paths = predict(&map(), t, &PredictorConfig::default());
            paths.iter().find(|p| p.lanelet_sequence == [4]).map_or(0.0, |p| p.probability)
        };
        let (moved_over, centred) = (right(&track(-0.45)), right(&track(0.0)));
        assert!(moved_over > 0.5 && moved_over > 3.0 * centred, "{moved_over} vs {centred}");
    }

    #[test]
    fn a_path_shows_where_its_road_user_came_from() {
        // Seen every 125 ms for 1.5 s: the last 2 s of the track, 250 ms apart counted back
        // from the newest point, oldest first, on every route.
        let t = approaching(20.0, 10.0, 0.0);
        let paths = predict(&map(), &t, &PredictorConfig::default());
        assert!(!paths.is_empty());
        for p in &paths {
            let times: Vec<u64> = p.past.iter().map(|q| q.at_us / 1000).collect();
            assert_eq!(times, vec![1000, 1250, 1500, 1750, 2000, 2250, 2500]);
            assert_eq!(p.past.last().map(|q| q.at_us), Some(p.observed_at_us));
            let newest = t.points.last().unwrap();
            assert_eq!((p.past[6].latitude, p.past[6].longitude), (newest.latitude, newest.longitude));
            // ... and how long it has been tracked (the detector prefers the longer-seen sensor).
            assert_eq!(p.tracked_since_us, 1_000_000);
        }
    }

    #[test]
    fn pedestrians_walk_their_lanelet_the_way_they_go_up_to_its_end() {
        // On lanelet 1 (drawn northwards) but walking south at 1.5 m/s, 1.5 m from its start.
        let mut t = car(10.0);
        t.mode = TravelMode::Pedestrian as i32;
        let w = |y: f64| offset_to_wgs84(ORIGIN, 0.0, y);
        for (p, y) in t.points.iter_mut().zip([-57.0, -57.75, -58.5]) {
            (p.latitude, p.longitude, p.station_m) = (w(y).lat, w(y).lon, 60.0 + y);
        }
        let paths = predict(&map(), &t, &PredictorConfig::default());
        assert_eq!((paths.len(), paths[0].lanelet_sequence.clone()), (1, vec![1]));
        let at = |i: usize| {
            let q = &paths[0].positions[i];
            wgs84_to_offset(ORIGIN, Wgs84 { lat: q.latitude, lon: q.longitude })
        };
        assert!((at(0).1 - (-58.5 - 0.375)).abs() < 0.01, "{:?}", at(0));
        // Held at the lanelet's start (the kerb), not walked on past it.
        assert!((at(15).1 - -60.0).abs() < 0.01, "{:?}", at(15));
    }

    /// A corner: walkway 10 northwards from (0, -10) to the kerb at (0, 0), where crosswalk 20
    /// begins (to (0, 10)); crosswalk 30 ends at the walkway's other end.
    fn corner() -> LaneMap {
        let walkable = |id, from, to, successors, role: &str| Lanelet {
            mode: TravelMode::Pedestrian as i32,
            role: role.into(),
            ..lanelet(id, from, to, successors, "")
        };
        LaneMap::new(&LaneGraph {
            origin_latitude: ORIGIN.lat,
            origin_longitude: ORIGIN.lon,
            lanelets: vec![
                walkable(10, (0.0, -10.0), (0.0, 0.0), vec![20, 30], "walkway"),
                walkable(20, (0.0, 0.0), (0.0, 10.0), vec![10], "crosswalk"),
                walkable(30, (-10.0, -10.0), (0.0, -10.0), vec![10], "crosswalk"),
            ],
            ..Default::default()
        })
    }

    /// A pedestrian walking north on walkway 10 at 1.4 m/s for `secs`, last 3 m before the kerb.
    fn walking_to_the_kerb(secs: f64) -> MatchedTrajectory {
        let n = (secs / 0.125).round() as u64;
        let points = (0..=n)
            .map(|k| {
                let y = -3.0 - 1.4 * (n - k) as f64 * 0.125;
                sampled(k, (0.0, y), 10, 10.0 + y)
            })
            .collect();
        MatchedTrajectory { mode: TravelMode::Pedestrian as i32, object_id: 4, points, ..Default::default() }
    }

    #[test]
    fn a_pedestrian_walking_at_pace_to_the_kerb_walks_on_across() {
        let routes = |t: &MatchedTrajectory| -> Vec<(Vec<i64>, f64)> {
            let paths = predict(&corner(), t, &PredictorConfig::default());
            paths.iter().map(|p| (p.lanelet_sequence.clone(), (p.probability * 100.0).round() / 100.0)).collect()
        };
        let walking = walking_to_the_kerb(3.0);
        assert_eq!(routes(&walking), vec![(vec![10, 20], 0.9), (vec![10], 0.1)]);
        // On across: at the kerb after 3 m (2.1 s), 2.6 m into the crosswalk after 4 s.
        let paths = predict(&corner(), &walking, &PredictorConfig::default());
        let end = paths[0].positions.last().unwrap();
        let (x, y) = wgs84_to_offset(ORIGIN, Wgs84 { lat: end.latitude, lon: end.longitude });
        assert!(x.abs() < 0.01 && (y - 2.6).abs() < 0.05 && end.lanelet_id == 20, "({x}, {y}) on {}", end.lanelet_id);
        // Seen walking for a second is enough; for less, she stops at the kerb.
        assert_eq!(routes(&walking_to_the_kerb(1.25)), vec![(vec![10, 20], 0.9), (vec![10], 0.1)]);
        assert_eq!(routes(&walking_to_the_kerb(0.75)), vec![(vec![10], 1.0)]);
        // Just off crosswalk 30 onto this corner: on her way along the street, rarely across.
        let mut crossed = walking;
        crossed.points.iter_mut().take(3).for_each(|p| p.lanelet_id = 30);
        assert_eq!(routes(&crossed), vec![(vec![10], 0.8), (vec![10, 20], 0.2)]);
    }

    /// How far north (local metres) a pedestrian on [`corner`]'s walkway is predicted in 2 s.
    fn end_y(t: &MatchedTrajectory) -> f64 {
        let cfg = PredictorConfig { horizon_us: 2_000_000, ..Default::default() };
        let end = predict(&corner(), t, &cfg)[0].positions.last().cloned().unwrap();
        wgs84_to_offset(ORIGIN, Wgs84 { lat: end.latitude, lon: end.longitude }).1
    }

    #[test]
    fn a_fresh_track_moves_as_the_sensor_measured_not_as_its_noisy_points() {
        // A pedestrian on walkway 10 tracked for 0.25 s: her three points (noise) run south at
        // 3.4 m/s, the sensor measured 1.2 m/s heading north. She walks north at 1.2 m/s: 2.4 m
        // in 2 s, towards the kerb 3 m ahead.
        let mut t = walking_to_the_kerb(0.25);
        for (p, y) in t.points.iter_mut().zip([-2.15, -2.6, -3.0]) {
            let w = offset_to_wgs84(ORIGIN, 0.0, y);
            (p.latitude, p.longitude, p.station_m) = (w.lat, w.lon, 10.0 + y);
            (p.speed_mps, p.heading_deg) = (Some(1.2), Some(0.0));
        }
        assert!((end_y(&t) - (-3.0 + 2.4)).abs() < 0.05, "{}", end_y(&t));
        // Without measured motion the points' fit stands in: south, fast.
        t.points.iter_mut().for_each(|p| (p.speed_mps, p.heading_deg) = (None, None));
        assert!(end_y(&t) < -8.0, "{}", end_y(&t));
    }

    #[test]
    fn a_walkers_pace_is_the_speed_the_sensor_measured_not_her_noisy_points() {
        // 1.5 s on walkway 10 at a measured 1.0 m/s; her points (noise) bunch up at the end as
        // if she were slowing to 0.4 m/s. Seen only 1.5 s: she stops at the kerb 3 m ahead, which
        // at 1 m/s she reaches in 3 s.
        let mut t = walking_to_the_kerb(1.5);
        let n = t.points.len() - 1;
        for (k, p) in t.points.iter_mut().enumerate() {
            let ago = (n - k) as f64 * 0.125;
            let y = if ago < 0.75 { -3.0 - 0.4 * ago } else { -3.3 - 1.6 * (ago - 0.75) };
            let w = offset_to_wgs84(ORIGIN, 0.0, y);
            (p.latitude, p.longitude, p.station_m, p.speed_mps) = (w.lat, w.lon, 10.0 + y, Some(1.0));
        }
        assert!((end_y(&t) - (-3.0 + 2.0)).abs() < 0.05, "{}", end_y(&t));
        // Without measured speeds the points' fit stands in: slowing down.
        t.points.iter_mut().for_each(|p| p.speed_mps = None);
        assert!(end_y(&t) < -1.5, "{}", end_y(&t));
    }

    #[test]
    fn a_vehicle_braking_in_its_turn_slows_to_the_turns_speed_not_to_a_stop() {
        // On the right connector (lanelet 4, 14 m north-east), 2 m in, at 5 m/s and braking at
        // 2.5 m/s²: the end of the slow-down to the turn's speed. Over 2 s it covers 8.5 m
        // (braking to 4.2 m/s, the slowest turn), not 5 m (to a stop).
        let diagonal = std::f64::consts::FRAC_1_SQRT_2;
        let points = (0..=12)
            .map(|k| {
                let ago = (12 - k) as f64 * 0.125;
                let s = 2.0 - (5.0 * ago + 0.5 * 2.5 * ago * ago);
                let (lanelet, station) = if s < 0.0 { (1, 60.0 + s) } else { (4, s) };
                sampled(k, (s * diagonal, s * diagonal), lanelet, station)
            })
            .collect();
        let t = MatchedTrajectory { mode: TravelMode::Car as i32, object_id: 9, points, ..Default::default() };
        let cfg = PredictorConfig { horizon_us: 2_000_000, ..Default::default() };
        let paths = predict(&map(), &t, &cfg);
        assert_eq!(paths[0].lanelet_sequence, vec![4]);
        let end = paths[0].positions.last().unwrap();
        let (x, y) = wgs84_to_offset(ORIGIN, Wgs84 { lat: end.latitude, lon: end.longitude });
        let covered = x.hypot(y) - 2.0;
        assert!((covered - 8.5).abs() < 0.3, "{covered} m");
    }

    #[test]
    fn a_walking_pedestrian_keeps_its_pace_one_setting_off_speeds_up() {
        // Northwards along lanelet 1, a speed-up of 0.5 m/s² fitted: walking at 1.4 m/s it is
        // taken as the tracker settling (2.8 m in 2 s, not 3.8 m); setting off at 0.8 m/s it is
        // extrapolated (2.6 m: 0.8 · 2 + ½ · 0.5 · 2², not 1.6 m).
        let walked = |speed: f64| {
            let mut t = approaching(40.0, speed, -0.5);
            t.mode = TravelMode::Pedestrian as i32;
            let cfg = PredictorConfig { horizon_us: 2_000_000, ..Default::default() };
            let end = predict(&map(), &t, &cfg)[0].positions.last().cloned().unwrap();
            wgs84_to_offset(ORIGIN, Wgs84 { lat: end.latitude, lon: end.longitude }).1 + 40.0
        };
        assert!((walked(1.4) - 2.8).abs() < 0.05, "{}", walked(1.4));
        assert!((walked(0.8) - 2.6).abs() < 0.05, "{}", walked(0.8));
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

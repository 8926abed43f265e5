//! Predictor stage logic: from a matched trajectory and the lane graph, the likely routes ahead
//! (ranked, with probabilities) and time-stamped positions over a horizon.
//!
//! Routes branch at lanelet successors; each branch is weighted by a turn prior times what the
//! track shows ([`intent`]): its speeds against the distance to the stop line, where in its lane
//! it keeps, and on a connector which one its points follow. Speed comes from the object's
//! recent track ([`kinematics`]). Pedestrians walk their lanelet ([`pedestrians`]); objects
//! without a lane are extrapolated at constant velocity.
//!
//! Modules: `config` (stage settings), `lane_map` (the lane graph in metres, routes),
//! `kinematics` (fitted motion, measured speeds, the matched past), `intent` (turn evidence),
//! `pedestrians` (walking on along walkways and across crosswalks).

mod config;
mod intent;
mod kinematics;
mod lane_map;
mod pedestrians;
pub mod priors;
#[cfg(test)]
mod tests;

pub use config::{PredictorConfig, KEYS};
pub(crate) use intent::lateral_likelihood;
pub use intent::{Evidence, LANE_SECONDS};
pub use kinematics::{HISTORY_US, PAST_US};
pub use lane_map::LaneMap;

use crate::proto::{
    LanePosition, MatchedPoint, MatchedTrajectory, PredictedPath, PredictedPosition, TravelMode, Turn, TurnPriors,
};
use crate::shared::fit::line_fit;
use crate::shared::geo::{offset_to_wgs84, Wgs84};
use crate::stages::collector::SELF_REPORTED;
use intent::{
    connector_speed_likelihood, lane_seconds, moved_over, profile_turn_likelihoods, signal_likelihoods, signalled_turn,
    speed_level_likelihood, speed_profile, steering_likelihoods, turn_likelihood, turn_prior,
};
use kinematics::{
    distance_after, fresh_track_motion, kinematics, measured_speed, past, recent_speeds, top_speed_mps, Kinematics,
    BRAKING_MPS2, SPEEDING_UP_MPS2,
};
use lane_map::Local;
use priors::{observe, turn_taken, weights};

mod handler;
mod limits;

pub use handler::Predictor;

pub const STAGE: &str = "predictor";

/// How far below the slowest turn speed (m/s) one braking is taken to be stopping.
const STOPPING_MARGIN_MPS: f64 = 0.3;
/// How far into its turn connector a braking vehicle may still be finishing its slow-down for
/// the turn, m: the lag of a deceleration fitted over half a second at a turn's speed.
const SLOWING_INTO_TURN_M: f64 = 3.0;
/// The gentlest braking of a driver slowing to yield, m/s².
const YIELD_BRAKING_MPS2: f64 = 0.8;
/// Spread (1σ) of a deceleration fitted from a second of measured speeds, with the driver's own
/// unsteadiness, m/s².
const MEASURED_ACCEL_SIGMA_MPS2: f64 = 0.3;
/// A longitudinal outcome this likely is taken alone ([`Prediction::longitudinal`]).
const LONGITUDINAL_SURE: f64 = 0.95;

/// One track being predicted: its newest point, its motion, and the frame its paths are
/// written in.
struct Prediction<'a> {
    map: &'a LaneMap,
    t: &'a MatchedTrajectory,
    cfg: &'a PredictorConfig,
    priors: &'a TurnPriors,
    mode: TravelMode,
    last: &'a MatchedPoint,
    /// Local metres around the map origin on the lanes; around the object itself off them,
    /// where the map (e.g. an empty off-map tile) may have no meaningful origin.
    origin: Wgs84,
    k: Kinematics,
    /// The acceleration the horizon keeps up ([`Prediction::ahead`]).
    accel: f64,
    /// Speed and acceleration from the speeds the sensor measured, when it measured enough.
    measured: Option<(f64, f64)>,
    /// Whether `k` comes from `measured` (steady enough to tell gentle braking).
    speeds_measured: bool,
    steps: usize,
    past: Vec<PredictedPosition>,
    tracked_since_us: u64,
}

impl Prediction<'_> {
    fn secs(&self, i: usize) -> f64 {
        (i as u64 * self.cfg.step_us) as f64 / 1e6
    }

    /// Metres covered by step `i`, braking no further than to `floor` (m/s).
    fn ahead(&self, i: usize, floor: f64) -> f64 {
        self.ahead_at(i, floor, self.accel)
    }

    /// [`Prediction::ahead`] keeping up `accel` instead.
    fn ahead_at(&self, i: usize, floor: f64, accel: f64) -> f64 {
        distance_after(self.k.speed, accel, floor, top_speed_mps(self.mode), self.secs(i))
    }

    /// What a vehicle's measured deceleration says it will do, as (acceleration kept up,
    /// probability): one braking gently (a yielding driver slows at 0.8-1.5 m/s²) shows it by
    /// little more than the noise of a second's measured speeds, so between the two the path
    /// splits into keeping its speed and braking on, each as likely as the deceleration says.
    /// A single outcome where the speeds were not measured, the track brakes clearly, or speeds up.
    fn longitudinal(&self) -> Vec<(f64, f64)> {
        if !self.speeds_measured || self.mode == TravelMode::Pedestrian || self.accel != 0.0 {
            return vec![(self.accel, 1.0)];
        }
        let braking = -self.k.accel.min(-YIELD_BRAKING_MPS2);
        let likelihood = |mean: f64| (-(self.k.accel - mean).powi(2) / (2.0 * MEASURED_ACCEL_SIGMA_MPS2.powi(2))).exp();
        let (keeps, brakes) = (likelihood(0.0), likelihood(-braking));
        let p = brakes / (keeps + brakes);
        if p < 1.0 - LONGITUDINAL_SURE {
            vec![(0.0, 1.0)]
        } else if p > LONGITUDINAL_SURE {
            vec![(-braking, 1.0)]
        } else {
            vec![(0.0, 1.0 - p), (-braking, p)]
        }
    }

    /// Step `i`'s position at local point `p` on `lanelet_id`.
    fn position(&self, i: usize, p: Local, lanelet_id: i64) -> PredictedPosition {
        let w = offset_to_wgs84(self.origin, p.0, p.1);
        PredictedPosition {
            at_us: self.last.measured_at_us + i as u64 * self.cfg.step_us,
            latitude: w.lat,
            longitude: w.lon,
            lanelet_id,
        }
    }

    fn path(
        &self,
        lanelet_sequence: Vec<i64>,
        probability: f64,
        rank: usize,
        positions: Vec<PredictedPosition>,
    ) -> PredictedPath {
        PredictedPath {
            station_id: self.t.station_id,
            object_id: self.t.object_id,
            generation: self.t.generation,
            mode: self.t.mode,
            lanelet_sequence,
            probability,
            positions,
            rank: rank as u32,
            sensor_id: self.t.sensor_id,
            observed_at_us: self.last.measured_at_us,
            past: self.past.clone(),
            tracked_since_us: self.tracked_since_us,
            lane_position: None,
            turn: Turn::None as i32,
            signalled: false,
        }
    }
}

/// Counts the turn `t` has just taken, if it has (see [`priors::turn_taken`]), into `priors`;
/// then its paths. Whether it counted one: the priors are then to be stored.
pub fn learn_and_predict(
    map: &LaneMap,
    t: &MatchedTrajectory,
    cfg: &PredictorConfig,
    priors: &mut TurnPriors,
) -> (Vec<PredictedPath>, bool) {
    let mode = TravelMode::try_from(t.mode).unwrap_or(TravelMode::Unknown);
    let taken = turn_taken(map, t).filter(|_| mode != TravelMode::Pedestrian);
    let mut counted = false;
    if let (Some((approach, turn)), Some(last)) = (taken, t.points.last()) {
        counted = priors::count_once(priors, priors::track_key(t, approach));
        if counted {
            let moved = lane_seconds(map, t, approach).and_then(|l| moved_over(mode, turn, &l.seconds));
            observe(priors, (approach, mode), turn, moved, last.measured_at_us, cfg);
        }
    }
    (predict(map, t, cfg, priors), counted)
}

/// Ranked predicted paths of one object (empty when its track is too short to tell a speed),
/// with the turn priors learned at its RSU.
pub fn predict(map: &LaneMap, t: &MatchedTrajectory, cfg: &PredictorConfig, priors: &TurnPriors) -> Vec<PredictedPath> {
    let Some(last) = t.points.last() else { return Vec::new() };
    let mode = TravelMode::try_from(t.mode).unwrap_or(TravelMode::Unknown);
    let on_lane = last.lanelet_id != 0 && map.lanes.contains_key(&last.lanelet_id);
    let origin = if on_lane { map.origin } else { Wgs84 { lat: last.latitude, lon: last.longitude } };
    let Some(mut k) = kinematics(origin, t) else { return Vec::new() };
    let measured = measured_speed(t);
    let mut speeds_measured = false;
    if let Some((speed, heading)) = fresh_track_motion(t) {
        k.speed = speed;
        k.heading = heading.unwrap_or(k.heading);
    } else if mode != TravelMode::Pedestrian {
        // A vehicle's speed and acceleration from the speeds the sensor measured where it did:
        // differentiated twice from positions, a car keeping 10 km/h was fitted speeding up or
        // braking by ±1 m/s² frame by frame, and a yielding one predicted into the crosswalk.
        if let Some((speed, accel)) = measured {
            k.speed = speed.max(0.0);
            k.accel = accel;
            k.accel_fitted = true;
            speeds_measured = true;
        }
    } else {
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
    // Braking is kept up (to a stop at most: one yielding); speeding up to the mode's top speed.
    // A pedestrian speeds up only from a standstill or a stroll (one setting off to cross): one
    // already walking is taken to keep its pace — a fitted speed-up there is mostly the tracker
    // settling, and a walker "running at 2.5 m/s" into a car's lane was a quarter of the clearly
    // false warnings left.
    let speeding_up = if mode == TravelMode::Pedestrian {
        k.accel > 0.0 && k.speed < pedestrians::SETTING_OFF_MPS
    } else {
        k.accel > SPEEDING_UP_MPS2
    };
    let accel = if k.accel < -BRAKING_MPS2 || speeding_up { k.accel } else { 0.0 };
    let p = Prediction {
        map,
        t,
        cfg,
        priors,
        mode,
        last,
        origin,
        k,
        accel,
        measured,
        speeds_measured,
        steps: (cfg.horizon_us / cfg.step_us.max(1)) as usize,
        past: past(t, cfg.step_us),
        tracked_since_us: t.points.iter().map(|p| p.measured_at_us).min().unwrap_or(last.measured_at_us),
    };
    if mode == TravelMode::Pedestrian && on_lane {
        pedestrians::predict(&p)
    } else if !on_lane {
        off_lane(&p)
    } else {
        on_routes(&p)
    }
}

/// Off the lanes: straight on along the fitted heading.
fn off_lane(p: &Prediction) -> Vec<PredictedPath> {
    let positions = (1..=p.steps)
        .map(|i| {
            let d = p.ahead(i, 0.0);
            p.position(i, (p.k.at.0 + p.k.heading.0 * d, p.k.at.1 + p.k.heading.1 * d), 0)
        })
        .collect();
    vec![p.path(Vec::new(), 1.0, 0, positions)]
}

/// `weights` scaled to sum to 1, or even shares when they tell nothing (all zero, or not
/// finite). A track far outside what the intent models know (seen: bit-flipped CPMs within the
/// plausibility limits) underflows every likelihood to 0, and 0 / 0 made each of its paths'
/// probabilities NaN: a dead letter at the collision detector instead of a prediction.
pub(super) fn normalised(weights: &[f64]) -> Vec<f64> {
    let usable = |w: f64| if w.is_finite() && w > 0.0 { w } else { 0.0 };
    let total: f64 = weights.iter().map(|&w| usable(w)).sum();
    if total > 0.0 && total.is_finite() {
        weights.iter().map(|&w| usable(w) / total).collect()
    } else {
        vec![1.0 / weights.len().max(1) as f64; weights.len()]
    }
}

/// A vehicle or rider on its lanes: the routes ahead, each weighted by what the track shows of
/// its turn.
fn on_routes(p: &Prediction) -> Vec<PredictedPath> {
    let (map, t, mode, last, k) = (p.map, p.t, p.mode, p.last, &p.k);
    let lane = &map.lanes[&last.lanelet_id];
    let to_go = lane.end() - last.station_m;
    // Lane position tells a turn on the approach (on a connector: as it was on the approach).
    let approach = if lane.turn == Turn::None {
        Some(last.lanelet_id)
    } else {
        map.predecessors.get(&last.lanelet_id).and_then(|p| p.first().copied())
    };
    let profile = approach.map(|a| speed_profile(map, t, a)).unwrap_or_default();
    // Each turn is judged against its own connector's speeds: a tight right is slower than a
    // sweeping left.
    let speeds =
        [Turn::Left, Turn::Right, Turn::Uturn].map(|turn| approach.and_then(|a| map.turn_speeds(mode, a, turn)));
    // The sensor's own speeds against the distance to the line tell most; without them, the
    // fitted speed and deceleration.
    let profiled = profile_turn_likelihoods(speeds, &profile);
    let turning = |i: usize| match profiled[i] {
        Some(ratio) => ratio,
        None => match p.measured {
            Some((speed, accel)) => turn_likelihood(speeds[i], speed.max(0.0), Some(-accel), to_go),
            None => turn_likelihood(speeds[i], k.speed, k.accel_fitted.then_some(-k.accel), to_go),
        },
    };
    let evidence = Evidence {
        turning: std::array::from_fn(turning),
        // The speed itself: on the approach against the distance to the line; on a connector as
        // at the line (a car crossing the junction at a turn's speed is turning: NCAP's 10 km/h
        // right hook, believed straight at 0.8 for 8 m into the junction while this said nothing).
        level: speeds
            .map(|s| speed_level_likelihood(mode, s, k.speed, if lane.turn == Turn::None { to_go } else { 0.0 })),
        steering: approach.map_or([1.0, 1.0], |a| steering_likelihoods(map, t, a)),
        // What it says of itself (its CAM), on the approach and on a connector alike.
        signal: signal_likelihoods(t.cue.as_ref(), last.measured_at_us),
        // On a connector, as it kept on the approach it leaves: the move over is done by the
        // stop line, on the connector the lane position says nothing. Nor does a position the
        // road user reports itself (its CAM's GNSS fix strays by half a lane and more).
        lateral: approach.filter(|_| t.sensor_id != SELF_REPORTED).and_then(|a| {
            let share = priors::centred_share(p.priors, (a, mode), last.measured_at_us, p.cfg);
            lane_seconds(map, t, a).map(|l| LanePosition { centred_share: share, ..l })
        }),
        prior: approach.map_or([1.0; 3], |a| weights(p.priors, map, (a, mode), last.measured_at_us, p.cfg)),
    };
    let horizon_m = p.ahead(p.steps, 0.0).max(k.speed * p.secs(p.steps));
    // Where the vehicle may be: its matched lanelet, or on a connector any of its siblings, each
    // weighted by its turn's prior and how well the track follows it.
    let candidates = if lane.turn == Turn::None {
        vec![(last.lanelet_id, last.station_m, 1.0)]
    } else {
        let track: Vec<Local> = t
            .points
            .iter()
            .filter(|q| q.measured_at_us + 1_000_000 >= last.measured_at_us)
            .map(|q| map.measured_point(q))
            .collect();
        let fits = map.connector_candidates(last.lanelet_id, k.at, &track);
        let weight = |id: i64, fit: f64| {
            turn_prior(mode, map.lanes[&id].turn, &evidence)
                * fit
                * connector_speed_likelihood(map.connector_speeds(mode, id), k.speed)
        };
        let shares = normalised(&fits.iter().map(|&(id, _, fit)| weight(id, fit)).collect::<Vec<_>>());
        fits.into_iter().zip(shares).map(|((id, station, _), share)| (id, station, share)).collect()
    };
    let longitudinal = p.longitudinal();
    let signalled = signalled_turn(t.cue.as_ref(), last.measured_at_us);
    let mut routes: Vec<(Vec<i64>, f64, f64, f64)> = candidates
        .into_iter()
        .flat_map(|(id, station, q)| {
            map.routes(mode, &evidence, id, station + horizon_m, &[]).into_iter().map(move |(r, w)| (r, station, q * w))
        })
        .flat_map(|(r, station, q)| longitudinal.iter().map(move |&(accel, w)| (r.clone(), station, q * w, accel)))
        .collect();
    routes.sort_by(|a, b| b.2.total_cmp(&a.2));
    routes.truncate(p.cfg.max_alternatives);
    routes
        .into_iter()
        .enumerate()
        .map(|(rank, (route, station, probability, accel))| {
            // A vehicle braking towards a turn slows to the turn's speed; on a straight route
            // (or already in the turn) braking means stopping: yielding.
            let turns = route.iter().skip(1).any(|id| matches!(map.lanes[id].turn, Turn::Left | Turn::Right));
            // In the turn by the connector this route takes from here, not the one the matcher
            // picked: connectors overlap where they start, and a car matched to the straight one
            // while turning right was predicted to brake to a stop on the turn's route (4 m in 4 s
            // instead of 17), and its risk with a straight cyclist went unseen for 0.8 s.
            let in_turn = matches!(map.lanes[&route[0]].turn, Turn::Left | Turn::Right);
            // One braking below its turn's slowest speed already is stopping (yielding), not
            // slowing for the turn: a car approaching at NCAP's 10 km/h and braking short of a
            // pedestrian was predicted to keep 10 km/h into her.
            // Nor is one still braking well into its turn: the slow-down for a turn ends by the
            // line, and a braking measured past the connector's first metres (what the speeds'
            // fit lags) is a stop short of a crosswalk. With the turn's speed from its bend the
            // slowest is slow (2.8 m/s round our lefts), and a car yielding in its turn was
            // predicted to roll on at that for 0.8 s after its braking showed.
            let speeds = route.iter().find_map(|&id| map.connector_speeds(mode, id));
            let into_turn = station - map.lanes[&route[0]].start();
            let floor = match speeds {
                _ if accel >= 0.0 => 0.0,
                Some((slowest, _)) if k.speed < slowest - STOPPING_MARGIN_MPS => 0.0,
                Some((slowest, fastest)) if turns && !in_turn => (slowest + fastest) / 2.0,
                Some((slowest, _)) if in_turn && into_turn <= SLOWING_INTO_TURN_M => slowest,
                _ => 0.0,
            };
            let positions = (1..=p.steps)
                .map(|i| {
                    let (q, lanelet) = map.walk(&route, station + p.ahead_at(i, floor, accel));
                    p.position(i, q, lanelet)
                })
                .collect();
            // The turn this route takes at its junction (on a connector: that connector's).
            let turn = route.iter().map(|id| map.lanes[id].turn).find(|&t| t != Turn::None).unwrap_or(Turn::None);
            PredictedPath {
                lane_position: evidence.lateral.clone(),
                turn: turn as i32,
                signalled: turn != Turn::None && signalled == Some(turn),
                ..p.path(route, probability, rank, positions)
            }
        })
        .collect()
}

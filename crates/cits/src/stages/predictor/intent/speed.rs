//! The speed profile: a track's measured speeds against its distance to the stop line, and how
//! likely they are for a turning road user and for one going straight.

use crate::proto::{MatchedTrajectory, TravelMode};
use crate::shared::finite;

use super::super::lane_map::LaneMap;

/// How far back a track's speed profile is judged: a turning road user's braking ends as it
/// reaches its turn speed at the stop line, seconds before its path shows the turn (a cyclist's
/// connector runs straight for metres first). 3 s forgot it too soon: 60 clearly false warnings
/// on seeds 1–10 against 38 with 4 s (6 s: the same as 4).
pub(crate) const PROFILE_WINDOW_US: u64 = 4_000_000;

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
pub(crate) fn speed_profile(map: &LaneMap, t: &MatchedTrajectory, approach: i64) -> Vec<(f64, f64)> {
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

/// Likelihood ratios turning : going straight from a speed profile ([`speed_profile`]), one per
/// turn in `speeds` (its slowest and fastest speed; None: no such turn, or one that asks for no
/// slowing): one turning has slowed from its cruise to its turn speed by the stop line (braking
/// at one of [`TURN_BRAKING_MPS2`], the turn speed one of the turn's) and keeps that on the connector, or
/// stops in the turn to yield; one going straight keeps a speed of its own, or stops at the line
/// to yield. Both pull away after a stop. Judging the speeds
/// against the distance to the line, not against time, a braking onset shows from its first
/// samples: a deceleration fitted over a second lags it by half that, and then speaks against
/// the turn it announces. None each without enough measured speeds. The straight hypotheses
/// are the same for every turn, so they are weighed once.
pub(crate) fn profile_turn_likelihoods<const N: usize>(
    speeds: [Option<(f64, f64)>; N],
    profile: &[(f64, f64)],
) -> [Option<f64>; N] {
    if profile.len() < PROFILE_MIN_SAMPLES || speeds.iter().all(Option::is_none) {
        return [None; N];
    }
    let mean = profile.iter().map(|s| s.1).sum::<f64>() / profile.len() as f64;
    // Its cruise: the fastest it went (averaged over three samples against noise).
    let cruise = profile.windows(3).map(|w| (w[0].1 + w[1].1 + w[2].1) / 3.0).fold(mean, finite::max);
    // Generic, not `&dyn Fn`: each speed model is inlined into the sum over the samples (a few
    // hundred models per track and frame). A model is given each sample's index and distance, so
    // it can take what several models share (a square root) from a table made once.
    fn log_likelihood(profile: &[(f64, f64)], model: impl Fn(usize, f64) -> f64) -> f64 {
        -profile.iter().enumerate().map(|(i, &(d, v))| (v - model(i, d)).powi(2)).sum::<f64>()
            / (2.0 * PROFILE_SIGMA_MPS.powi(2))
    }
    // Speed (m/s) at each sample of one slowing to `v_turn` by the line at `braking`.
    let slowed = |v_turn: f64, braking: f64, into: &mut Vec<f64>| {
        into.clear();
        into.extend(profile.iter().map(|&(d, _)| (v_turn * v_turn + 2.0 * braking * finite::max(d, 0.0)).sqrt()));
    };
    // Log of the mean of exp over hypotheses, without underflow.
    let log_mean = |logs: &[f64]| {
        let top = logs.iter().copied().fold(f64::NEG_INFINITY, finite::max);
        top + (logs.iter().map(|l| (l - top).exp()).sum::<f64>() / logs.len() as f64).ln()
    };
    // Log of a weighted mixture (weights summing to 1).
    let log_mix = |parts: &[(f64, f64)]| {
        let top = parts.iter().map(|p| p.1).fold(f64::NEG_INFINITY, finite::max);
        top + parts.iter().map(|(w, l)| w * (l - top).exp()).sum::<f64>().ln()
    };
    // Braking to a stop at one of `stops` (every metre of the span) and pulling away from it;
    // `by_line`: slowed to that speed by the stop line on the way (a turn's).
    // The slowing by the line is the same at every stop, and the braking before a stop the same
    // whichever way one pulls away: each worked out once.
    let stopping = |(first, last): (f64, f64), by_line: f64| {
        let slowed_by_line = TURN_BRAKING_MPS2.map(|b| {
            let mut speeds = Vec::with_capacity(profile.len());
            slowed(by_line, b, &mut speeds);
            speeds
        });
        let mut braked = vec![0.0; profile.len()];
        let mut logs = Vec::new();
        let mut stop = first;
        while stop <= last {
            for (b, by_line) in TURN_BRAKING_MPS2.into_iter().zip(&slowed_by_line) {
                for (braked, &(d, _)) in braked.iter_mut().zip(profile) {
                    if d > stop {
                        *braked = (2.0 * b * (d - stop)).sqrt();
                    }
                }
                for a in PULL_AWAY_MPS2 {
                    logs.push(log_likelihood(profile, |i, d| {
                        let v = if d > stop { braked[i] } else { (2.0 * a * (stop - d)).sqrt() };
                        finite::min(finite::min(cruise, v), by_line[i])
                    }));
                }
            }
            stop += 1.0;
        }
        log_mean(&logs)
    };
    // Half the straight weight on keeping its speed, half on yielding at the line.
    let straight =
        log_mix(&[(0.5, log_likelihood(profile, |_, _| mean)), (0.5, stopping(YIELD_STOP_M, f64::INFINITY))]);
    let mut slowing = Vec::with_capacity(profile.len());
    speeds.map(|speeds| {
        let (low, high) = speeds?;
        let mut braking = Vec::new();
        for i in 0..5 {
            let v_turn = low + (high - low) * i as f64 / 4.0;
            for b in TURN_BRAKING_MPS2 {
                slowed(v_turn, b, &mut slowing);
                // The cruise estimate is the noisy top of the profile: the best of it and a little less.
                let best = CRUISE_SHADE_MPS
                    .iter()
                    .map(|shade| {
                        let cruise = cruise - shade;
                        log_likelihood(profile, |i, _| finite::min(cruise, slowing[i]))
                    })
                    .fold(f64::NEG_INFINITY, finite::max);
                braking.push(best);
            }
        }
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
        Some((turning - straight).exp().clamp(1e-3, 1e3))
    })
}

/// Urban speeds (km/h) of a mode: those it cruises at going straight through a junction, and
/// how hard (m/s²) it brakes from there to a turn's speed — a spread of road users, not one
/// driver (50 km/h limits).
struct UrbanSpeeds {
    cruise_kmh: [f64; 5],
    braking_mps2: [f64; 2],
}

fn urban_speeds(mode: TravelMode) -> Option<UrbanSpeeds> {
    match mode {
        TravelMode::Car => Some(UrbanSpeeds { cruise_kmh: [30.0, 36.0, 42.0, 48.0, 54.0], braking_mps2: [1.5, 2.5] }),
        TravelMode::Bicycle => {
            Some(UrbanSpeeds { cruise_kmh: [12.0, 15.0, 18.0, 21.0, 25.0], braking_mps2: [1.0, 2.0] })
        }
        _ => None,
    }
}

/// Spread (m/s) of a speed about what a road user's plan explains: its own unsteadiness and the
/// sensor's noise.
const LEVEL_SIGMA_MPS: f64 = 1.5;
/// Share of road users going slower than they would by choice (traffic ahead, a queue moving
/// off), whatever their route: a slow road user is never ruled out of going straight.
const HELD_UP_SHARE: f64 = 0.2;

/// Likelihood ratio turning : going straight of a road user at `speed` (m/s) `to_go` metres
/// before its stop line: the speed itself tells — a car approaching at a turn's speed is likely
/// to turn, braking or not, and one at a straight cruise 5 m before the line is not. Turning
/// road users slow from a cruise to their turn speed by the line (each their own, within the
/// turn's `speeds`); straight ones keep their cruise; some of either are held up.
pub(crate) fn speed_level_likelihood(mode: TravelMode, speeds: Option<(f64, f64)>, speed: f64, to_go: f64) -> f64 {
    let (Some(u), Some((low, high))) = (urban_speeds(mode), speeds) else { return 1.0 };
    let kmh = |v: f64| v / 3.6;
    let top = kmh(u.cruise_kmh[4]) * 1.2;
    let held_up = HELD_UP_SHARE * if speed <= top { 1.0 / top } else { 0.0 };
    let density = |mean: f64| (-0.5 * ((speed - mean) / LEVEL_SIGMA_MPS).powi(2)).exp() / LEVEL_SIGMA_MPS / 2.5066;
    let straight = u.cruise_kmh.iter().map(|&c| density(kmh(c))).sum::<f64>() / 5.0;
    let d = to_go.max(0.0);
    let mut turning = 0.0;
    for c in u.cruise_kmh {
        for i in 0..5 {
            let vt = low + (high - low) * i as f64 / 4.0;
            for b in u.braking_mps2 {
                turning += density(kmh(c).min((vt * vt + 2.0 * b * d).sqrt()));
            }
        }
    }
    let turning = turning / (5.0 * 5.0 * 2.0);
    let ratio = ((1.0 - HELD_UP_SHARE) * turning + held_up) / ((1.0 - HELD_UP_SHARE) * straight + held_up);
    ratio.clamp(1e-3, 1e3)
}

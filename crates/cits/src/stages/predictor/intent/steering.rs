//! Steering: a road user's heading against its approach lane's direction. One going straight
//! keeps to its lane's heading (a few degrees of wander); one turning steers off it towards its
//! turn from a point near the stop line on, more and more — the cue every turning vehicle and
//! rider gives, braking, moving over or not. Turns ease in (a clothoid, as NCAP's test paths and
//! drivers' steering do): the heading grows with the square of the distance since the onset.
//!
//! A vehicle that sends CAMs reports its yaw rate too (its own gyro, no tracker's smoothing): on
//! that clothoid the heading turns at speed × build-up × distance since the onset, so the newest
//! yaw rate is one more measurement of each hypothesis.

use crate::proto::{MatchedTrajectory, TravelMode};
use crate::shared::finite;

use super::super::lane_map::LaneMap;

/// How far back the headings are judged: a second and a half shows an onset's growth.
const WINDOW_US: u64 = 1_500_000;
/// How far (1σ, rad) a road user's heading wanders about its lane's going straight.
const WANDER_RAD: f64 = 0.035;
/// The sensor's velocity noise (1σ per axis, m/s): a heading measured from a velocity strays by
/// this over the speed.
const VELOCITY_NOISE_MPS: f64 = 0.2;
/// Share of headings that are outliers (a tracker's jump), and their spread (rad).
const OUTLIER_SHARE: f64 = 0.05;
const OUTLIER_RAD: f64 = 0.6;
/// How fast the heading builds up after the onset, rad per m² (1 / (arc radius × clothoid
/// length)): tight urban corners to wide sweeping turns.
const BUILD_UP_PER_M2: [f64; 4] = [0.008, 0.015, 0.03, 0.06];
/// The largest heading off the lane a turn reaches (rad): a right angle and a little more.
const TURN_MAX_RAD: f64 = 1.8;
/// How far (1σ, rad/s) a vehicle's yaw rate wanders while it keeps its lane (a gyro's noise
/// and a driver's corrections), and how fresh a reported yaw rate must be to count (CAMs come
/// every 100 ms; an older one tells of another moment of the turn).
const YAW_WANDER_RAD_S: f64 = 0.03;
const YAW_FRESH_US: u64 = 500_000;

/// Where a turn's steering may begin, metres along the way from the stop line (negative before
/// it), and the step the onset is weighed at.
fn onsets_m(mode: TravelMode) -> (f64, f64, f64) {
    match mode {
        TravelMode::Bicycle => (-8.0, 8.0, 1.0),
        _ => (-15.0, 12.0, 1.5),
    }
}

/// Heading measurements of the track's last [`WINDOW_US`] on `approach` or a connector leaving
/// it: (metres along from the stop line, heading off the approach's direction in rad — left
/// positive —, its noise in rad).
fn headings(map: &LaneMap, t: &MatchedTrajectory, approach: i64) -> Vec<(f64, f64, f64)> {
    let Some(lane) = map.lanes.get(&approach) else { return Vec::new() };
    let end = lane.stations.last().copied().unwrap_or(0.0);
    // Clockwise from north, as the sensor's headings are.
    let direction = |station: f64| lane.direction(station, 1.0).map_or(0.0, |(x, y)| x.atan2(y));
    let newest = t.points.last().map_or(0, |p| p.measured_at_us);
    t.points
        .iter()
        .filter(|p| p.measured_at_us.saturating_add(WINDOW_US) >= newest)
        .filter_map(|p| {
            let heading = p.heading_deg?.to_radians();
            let speed = p.speed_mps?;
            let (along, lane_heading) = if p.lanelet_id == approach {
                (p.station_m - end, direction(p.station_m))
            } else if lane.successors.contains(&p.lanelet_id) {
                (p.station_m, direction(end))
            } else {
                return None;
            };
            // Clockwise off the lane is to the right: left positive.
            let off = -(heading - lane_heading + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU)
                + std::f64::consts::PI;
            let noise = (WANDER_RAD.powi(2) + (VELOCITY_NOISE_MPS / speed.max(1.0)).powi(2)).sqrt();
            Some((along, off, noise))
        })
        .collect()
}

/// Likelihood ratios turning left : going straight and turning right : going straight, from
/// the headings the sensor measured against the approach's direction; 1 with fewer than four.
/// Both sides share the samples and their straight densities.
pub(crate) fn steering_likelihoods(map: &LaneMap, t: &MatchedTrajectory, approach: i64) -> [f64; 2] {
    let mode = TravelMode::try_from(t.mode).unwrap_or(TravelMode::Unknown);
    let samples = headings(map, t, approach);
    if samples.len() < 4 {
        return [1.0, 1.0];
    }
    let log_density = |x: f64, sigma: f64| {
        let core = (1.0 - OUTLIER_SHARE) * (-0.5 * (x / sigma).powi(2)).exp() / sigma;
        let wide = OUTLIER_SHARE * (-0.5 * (x / OUTLIER_RAD).powi(2)).exp() / OUTLIER_RAD;
        (core + wide).ln()
    };
    // Each hypothesis differs from going straight only at the samples past its onset: sum the
    // log-ratio over those (the straight density of each sample is worked out once).
    let newest_along = samples.iter().map(|s| s.0).fold(f64::NEG_INFINITY, finite::max);
    let (first, last, step) = onsets_m(mode);
    if newest_along <= first {
        return [1.0, 1.0]; // before any onset: nothing to tell yet
    }
    let straight: Vec<f64> = samples.iter().map(|&(_, off, noise)| log_density(off, noise)).collect();
    // The road user's own yaw rate (left positive, rad/s) at its newest point, and its speed.
    let newest = t.points.last();
    let yaw = t
        .cue
        .as_ref()
        .filter(|c| newest.is_some_and(|p| c.reported_at_us.saturating_add(YAW_FRESH_US) >= p.measured_at_us))
        .and_then(|c| c.yaw_rate_deg_s)
        .map(f64::to_radians)
        .zip(newest.and_then(|p| p.speed_mps));
    let yaw_straight = yaw.map_or(0.0, |(w, _)| log_density(w, YAW_WANDER_RAD_S));
    [1.0, -1.0].map(|side| {
        // A sample past a hypothesis' full turn is weighed the same under every such
        // hypothesis (most of the later onsets and faster build-ups): once per sample.
        let turned: Vec<f64> = samples
            .iter()
            .zip(&straight)
            .map(|(&(_, off, noise), straight)| log_density(off - side * TURN_MAX_RAD, noise) - straight)
            .collect();
        let mut ratios = Vec::new();
        let mut onset = first;
        while onset <= last + 1e-9 {
            if onset >= newest_along {
                // Not reached yet: its steering would not show.
                ratios.extend(BUILD_UP_PER_M2.iter().map(|_| 1.0));
            } else {
                for rate in BUILD_UP_PER_M2 {
                    // The yaw rate this hypothesis gives now: none once the turn's heading is reached.
                    let past = newest_along - onset;
                    let yaw_log_ratio = yaw.map_or(0.0, |(w, speed)| {
                        let turning = if 0.5 * rate * past * past < TURN_MAX_RAD { speed * rate * past } else { 0.0 };
                        log_density(w - side * turning, YAW_WANDER_RAD_S) - yaw_straight
                    });
                    let log_ratio: f64 = yaw_log_ratio
                        + samples
                            .iter()
                            .zip(straight.iter().zip(&turned))
                            .filter(|((along, _, _), _)| *along > onset)
                            .map(|(&(along, off, noise), (straight, turned))| {
                                let past = along - onset;
                                let heading = 0.5 * rate * past * past;
                                // As `finite::min(heading, TURN_MAX_RAD)` would give it.
                                if TURN_MAX_RAD < heading {
                                    *turned
                                } else {
                                    log_density(off - side * heading, noise) - straight
                                }
                            })
                            .sum::<f64>();
                    ratios.push(log_ratio.clamp(-50.0, 50.0).exp());
                }
            }
            onset += step;
        }
        (ratios.iter().sum::<f64>() / ratios.len() as f64).clamp(1e-3, 1e3)
    })
}

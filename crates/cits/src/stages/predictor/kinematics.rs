//! A track's motion: fitted position, heading, speed and acceleration, the speeds the sensor
//! measured, how far a road user gets over the horizon, and where it came from.

use crate::proto::{MatchedPoint, MatchedTrajectory, PredictedPosition, TravelMode};
use crate::shared::fit::{line_fit, parabola_fit};
use crate::shared::geo::{distance, wgs84_to_offset, Wgs84};

use super::intent::PROFILE_WINDOW_US;
use super::lane_map::Local;

/// How long a track's recent motion is fitted over.
const FIT_WINDOW_US: u64 = 1_500_000;

/// A track's recent motion: where it is (fitted), its heading, speed (m/s) and acceleration
/// (m/s², along its heading) at its last point.
#[derive(Debug, Clone, Copy)]
pub(super) struct Kinematics {
    pub(super) at: Local,
    pub(super) heading: Local,
    pub(super) speed: f64,
    pub(super) accel: f64,
    /// Whether `accel` was fitted (a window long enough for a parabola) or only assumed 0.
    pub(super) accel_fitted: bool,
}

/// Least-squares fit of the track's last `FIT_WINDOW_US`: the displacement along its chord
/// against time, a parabola (constant acceleration) when the window is long enough, a line
/// otherwise. Several noisy points per second make speed and deceleration much steadier than
/// any two points would.
pub(super) fn kinematics(origin: Wgs84, t: &MatchedTrajectory) -> Option<Kinematics> {
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
pub(super) fn recent_speeds(t: &MatchedTrajectory) -> Option<Vec<(f64, f64)>> {
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
pub(super) fn measured_speed(t: &MatchedTrajectory) -> Option<(f64, f64)> {
    line_fit(&recent_speeds(t)?)
}

/// Below this a track is fresh: its speed differentiated from positions is mostly noise.
const FRESH_TRACK_US: u64 = 1_000_000;

/// For a fresh track ([`FRESH_TRACK_US`]), the mean of the speeds the sensor measured (at least
/// two) and of the headings it measured (unit vector east/north, when it did): positions 0.25 s
/// apart (σ 0.15 m) give a speed only to about ±0.85 m/s and a walker's direction not at all — one
/// sensor's new track of a pedestrian walking at 1.2 m/s was fitted at 3.5, another's had her
/// walking back the way she came.
pub(super) fn fresh_track_motion(t: &MatchedTrajectory) -> Option<(f64, Option<Local>)> {
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

/// Top speed a mode is predicted to accelerate to, m/s.
pub(super) fn top_speed_mps(mode: TravelMode) -> f64 {
    match mode {
        TravelMode::Car => 14.0,
        TravelMode::Bicycle => 7.0,
        _ => 2.5,
    }
}

/// Distance covered after `secs` from `speed` at `accel` until the speed reaches `floor`
/// (braking: a turn's speed, or a stop for one yielding) or `top` (accelerating).
pub(super) fn distance_after(speed: f64, accel: f64, floor: f64, top: f64, secs: f64) -> f64 {
    if accel.abs() < 1e-9 {
        return speed * secs;
    }
    let target = if accel < 0.0 { floor.min(speed) } else { top.max(speed) };
    let ramp = ((target - speed) / accel).clamp(0.0, secs);
    speed * ramp + 0.5 * accel * ramp * ramp + target * (secs - ramp)
}

/// Deceleration (m/s²) a track must show to be predicted to keep braking: below it, noise.
pub(super) const BRAKING_MPS2: f64 = 1.0;
/// Acceleration a vehicle must show to be predicted to keep speeding up: about twice the
/// spread of one fitted from a second of measured speeds.
pub(super) const SPEEDING_UP_MPS2: f64 = 0.5;

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
pub(super) fn past(t: &MatchedTrajectory, step_us: u64) -> Vec<PredictedPosition> {
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

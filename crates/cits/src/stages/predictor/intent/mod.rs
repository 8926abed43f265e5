//! Which way a vehicle or rider is going at the junction ahead: a prior per turn times the
//! evidence its track shows — its speed profile against the distance to the line, where in its
//! lane it keeps, and on a connector how fast it goes — and what it says itself: the turn
//! signals of its CAM.

use crate::proto::{LanePosition, TravelMode, Turn};

mod lateral;
mod signal;
mod speed;
mod steering;

#[cfg(test)]
pub(super) use lateral::normal_density;
pub(crate) use lateral::{lane_seconds, lateral_likelihood, moved_over};
pub use lateral::{CENTRED_SHARE_PRIOR, LANE_SECONDS};
pub(crate) use signal::{signal_likelihoods, signalled_turn};
pub(crate) use speed::{profile_turn_likelihoods, speed_level_likelihood, speed_profile, PROFILE_WINDOW_US};
pub(crate) use steering::steering_likelihoods;

/// What a track shows about the turn ahead: from its speed profile the likelihood ratio
/// turning : going straight ([`turn_likelihood`]), from where in its lane it keeps the lateral
/// offset ([`lateral_likelihood`]).
#[derive(Debug, Clone)]
pub struct Evidence {
    /// From the speed profile (braking to the turn's speed or not), turning left : straight,
    /// turning right : straight and turning back : straight (each turn's speed is its
    /// connector's; a U-turn's is the slowest of all).
    pub turning: [f64; 3],
    /// From the speed itself near the line, the same three ratios.
    pub level: [f64; 3],
    /// From the heading against the lane, turning left : straight and turning right : straight.
    pub steering: [f64; 2],
    /// From the turn signals its CAM reports, the same two ratios (1 each without a CAM).
    pub signal: [f64; 2],
    /// Where in its lane the track kept, second by second, on the approach; None off an
    /// approach or with too few points in its newest second there.
    pub lateral: Option<LanePosition>,
    /// The approach's learned prior weight of turning left, going straight, turning right
    /// (1 each: neutral; see `predictor::priors`).
    pub prior: [f64; 3],
}

/// Prior weight of taking a successor with this turn times what the track shows. The prior is
/// the one learned on this approach, neutral until it has seen tracks: how traffic splits
/// differs from junction to junction and from arm to arm, and a split copied from one place is
/// wrong at the next.
pub(super) fn turn_prior(mode: TravelMode, turn: Turn, evidence: &Evidence) -> f64 {
    let (speed, steering, signal, prior) = match turn {
        Turn::Left => {
            (evidence.turning[0] * evidence.level[0], evidence.steering[0], evidence.signal[0], evidence.prior[0])
        }
        Turn::Right => {
            (evidence.turning[1] * evidence.level[1], evidence.steering[1], evidence.signal[1], evidence.prior[2])
        }
        Turn::Straight => (1.0, 1.0, 1.0, evidence.prior[1]),
        // A U-turn is judged by its speed only (its bend is the tightest): left neutral, it took
        // the share the speed cue took from a junction's left and right turns.
        Turn::Uturn => (evidence.turning[2] * evidence.level[2], 1.0, 1.0, 1.0),
        _ => (1.0, 1.0, 1.0, 1.0),
    };
    let lateral =
        evidence.lateral.as_ref().map_or(1.0, |l| lateral_likelihood(mode, turn, &l.seconds, l.centred_share));
    prior * speed * steering * signal * lateral
}

/// Lateral acceleration (m/s²) turns are taken with, from the gentlest road users to the
/// briskest: one takes a connector at √(a·R), R its tightest bend (`geo::tightest_radius_m`), so
/// a tight right turn is slow and a sweeping left one fast, junction by junction. Cars: recorded
/// turns (INTERACTION EP0, 43 of them: 0.85–2.5 m/s² from the 10th to the 90th percentile) up
/// to NCAP's 20 km/h right turn round a 7.4 m bend (4.2; with 4.0 as the top, three in twelve of
/// those were informed late on the development seeds); cyclists: up to the lean of an everyday
/// rider (about 17°).
fn lateral_mps2(mode: TravelMode) -> Option<(f64, f64)> {
    match mode {
        TravelMode::Car => Some((0.8, 4.5)),
        TravelMode::Bicycle => Some((0.8, 3.0)),
        _ => None,
    }
}

/// The speeds (m/s, slowest and fastest) road users of `mode` take a connector at whose
/// tightest bend has `radius_m`: each has its own, so what a track shows is weighed against the
/// span. None for a mode that does not slow for turns, or a connector without a bend (it asks
/// for no slowing, so speed tells nothing of it).
pub(crate) fn turn_speeds_mps(mode: TravelMode, radius_m: Option<f64>) -> Option<(f64, f64)> {
    let (gentle, brisk) = lateral_mps2(mode)?;
    let r = radius_m?;
    Some(((gentle * r).sqrt(), (brisk * r).sqrt()))
}

/// Deceleration (m/s²) from which on a driver who means to turn must be braking (comfortable
/// braking is about 2 m/s²), and beyond which turning would take braking hard.
const BRAKING_ONSET_MPS2: f64 = 2.0;
const HARD_BRAKING_MPS2: f64 = 3.5;
/// Spread of the deceleration a track shows (estimation noise and drivers' variety), m/s².
const DECELERATION_SIGMA_MPS2: f64 = 0.8;

/// Likelihood ratio turning : going straight of a road user at `speed`, decelerating at `decel`
/// (m/s², braking positive), `to_go` metres before its junction, averaged over the turn's speeds
/// ([`turn_speeds_mps`]; None: the turn asks for no slowing).
pub(super) fn turn_likelihood(speeds: Option<(f64, f64)>, speed: f64, decel: Option<f64>, to_go: f64) -> f64 {
    let Some((low, high)) = speeds else { return 1.0 };
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

/// How much faster than the fastest of its turn's speeds (m/s) a road user may still take a
/// turn connector.
const TURN_SPEED_SLACK_MPS: f64 = 0.5;

/// Likelihood that a road user at `speed` is on a turn connector taken at `speeds`
/// ([`turn_speeds_mps`]): one far faster than that is going straight, however its first points
/// fit the connectors (they overlap where they start).
pub(super) fn connector_speed_likelihood(speeds: Option<(f64, f64)>, speed: f64) -> f64 {
    match speeds {
        Some((_, fastest)) => {
            let excess = (speed - fastest - TURN_SPEED_SLACK_MPS).max(0.0);
            (-excess * excess / 2.0).exp().max(1e-6)
        }
        None => 1.0,
    }
}

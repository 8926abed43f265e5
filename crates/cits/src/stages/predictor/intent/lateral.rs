//! Lane position: where in its lane a road user keeps on the approach, second by second, and
//! how likely that is for each turn (drivers and riders move over before turns).

use crate::proto::{LanePosition, LaneSecond, MatchedPoint, MatchedTrajectory, TravelMode, Turn};

use super::super::lane_map::LaneMap;

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

/// Share of turners who keep their lane's centre (do not move over) before a turn, until an
/// approach has shown its own ([`crate::stages::predictor::priors::centred_share`]): half. Every NCAP car
/// keeps the centre, 40 % of our simulated turners do, and an assumed 15 % multiplied each
/// lane-centred turner's turn by ≈ 0.15 — a signalled right hook was then warned a second late.
pub const CENTRED_SHARE_PRIOR: f64 = 0.5;

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
///
/// `centred_share`: of this approach's turners, the share that keeps the lane's centre (0: not
/// known, [`CENTRED_SHARE_PRIOR`]).
pub(crate) fn lateral_likelihood(mode: TravelMode, turn: Turn, seconds: &[LaneSecond], centred_share: f64) -> f64 {
    let centred = if centred_share > 0.0 && centred_share < 1.0 { centred_share } else { CENTRED_SHARE_PRIOR };
    let Some((shift, over, sigma)) = lane_shift_m(mode) else { return 1.0 };
    let seconds: Vec<&LaneSecond> =
        seconds.iter().filter(|s| s.points > 0 && s.offset_m.is_finite() && s.to_go_m.is_finite()).collect();
    if seconds.is_empty() {
        return 1.0;
    }
    let side = side_of(turn).unwrap_or(0.0);
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
        (1.0 - centred) * density(true) + centred * density(false)
    }
}

/// The side a turn moves a road user over to in its lane (left positive); None going straight.
fn side_of(turn: Turn) -> Option<f64> {
    match turn {
        Turn::Left => Some(1.0),
        Turn::Right => Some(-1.0),
        _ => None,
    }
}

/// Whether a turner moved over towards `turn`'s side by its newest second on the approach (at
/// least half the mode's move): what [`crate::stages::predictor::priors`] learns the centred share from.
/// None for a mode without a move, or going straight.
pub(crate) fn moved_over(mode: TravelMode, turn: Turn, seconds: &[LaneSecond]) -> Option<bool> {
    let (shift, _, _) = lane_shift_m(mode)?;
    let side = side_of(turn)?;
    let newest = seconds.iter().rev().find(|s| s.points > 0 && s.offset_m.is_finite())?;
    Some(newest.offset_m * side >= shift / 2.0)
}

/// Density of a zero-mean normal with covariance `cov` (n × n, row-major; overwritten by its
/// Cholesky factor) at `y`, without the (2π)^(n/2); 0 when `cov` is not positive definite.
pub(in crate::stages::predictor) fn normal_density(y: &[f64], cov: &mut [f64]) -> f64 {
    let n = y.len();
    let mut z = vec![0.0; n];
    let mut root_det = 1.0;
    for j in 0..n {
        let d = cov[j * n + j] - (0..j).map(|k| cov[j * n + k].powi(2)).sum::<f64>();
        if d.is_nan() || d <= 0.0 {
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

/// Seconds of a track on one lanelet its lane position is kept over at most: the predictor's
/// history ([`HISTORY_US`]) holds four.
pub const LANE_SECONDS: usize = 4;

/// Where the track kept in its lane on `approach`, second by second counted back from its newest
/// point there, oldest first (seconds with fewer than four points left out; none without four in
/// the newest), each with its metres to the approach's stop line.
pub(crate) fn lane_seconds(map: &LaneMap, t: &MatchedTrajectory, approach: i64) -> Option<LanePosition> {
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
    Some(LanePosition { approach_lanelet_id: approach, seconds, centred_share: 0.0 })
}

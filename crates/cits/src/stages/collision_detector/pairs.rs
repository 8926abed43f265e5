//! Which pairs of paths the detector tests: the relevant ones that may come within reach, and
//! when there are too many, the most urgent.

use super::geometry::{radius_m, Chord, OCCUPANCY_S};
use super::{key, DetectorConfig, ObjectKey};
use crate::proto::{PredictedPath, TravelMode};
use crate::shared::geo::distance;

fn is_vru(mode: TravelMode) -> bool {
    matches!(mode, TravelMode::Bicycle | TravelMode::Pedestrian)
}

/// Whether two modes make a pair the detector reports on.
pub(super) fn relevant(cfg: &DetectorConfig, a: TravelMode, b: TravelMode) -> bool {
    if cfg.vru_only {
        is_vru(a) != is_vru(b)
    } else {
        !(is_vru(a) && is_vru(b))
    }
}

/// The pairs of paths (indices into `paths`, `i < j`, in that order) [`detect`](super::detect)
/// tests: every relevant pair of different objects that may come within reach of each other at a
/// time step they share. Each pair is ranked first from the paths' chords in constant time, which
/// also proves most pairs apart; the full test (every time step, whether the paths cross) is what
/// costs. When more than `cfg.max_pairs` remain (a crowd of 128-object CPMs), only the most urgent
/// are tested: those that may come closest (in 0.1 m steps), and of those the soonest (in 0.25 s
/// steps). So a vehicle and a VRU about to meet are never crowded out by pairs that pass apart or
/// later.
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
                + if cfg.max_pet_s > 0.0 { (cfg.max_pet_s + OCCUPANCY_S + ARRIVAL_SLACK_S) * speeds } else { 0.0 };
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

/// How much later than its predicted time a road user may still arrive and make the pair a
/// conflict with some probability (three spreads of an arrival a few seconds ahead), s.
const ARRIVAL_SLACK_S: f64 = 1.5;

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

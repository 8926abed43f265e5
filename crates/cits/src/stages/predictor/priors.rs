//! Turn priors learned per approach from the tracks an RSU sees: how the road users of each type
//! on each approach went on, counted when a track leaves its connector and decayed, so that a
//! lane where most turn right says so before anyone steers. Seeded neutral: until an approach has
//! been seen, every turn weighs alike (a split copied from elsewhere is wrong here).

use crate::proto::{ApproachTurns, MatchedTrajectory, TravelMode, Turn, TurnPriors};

use super::intent::CENTRED_SHARE_PRIOR;
use super::lane_map::LaneMap;
use super::PredictorConfig;

/// The turn a track has just taken at its junction: (approach, turn), when its newest point is
/// the first past a connector. Judged by where it came out (the sibling connector of the
/// approach that leads there), not by the connector the matcher picked: connectors overlap where
/// they start, and a car turning right was matched to the left turn's for its first metres.
pub fn turn_taken(map: &LaneMap, t: &MatchedTrajectory) -> Option<(i64, Turn)> {
    let [.., before, newest] = t.points.as_slice() else { return None };
    if before.lanelet_id == newest.lanelet_id || map.lanes.get(&before.lanelet_id)?.turn == Turn::None {
        return None;
    }
    let approach = *map.predecessors.get(&before.lanelet_id)?.first()?;
    let taken = map
        .lanes
        .get(&approach)?
        .successors
        .iter()
        .filter_map(|c| map.lanes.get(c))
        .find(|c| c.turn != Turn::None && c.successors.contains(&newest.lanelet_id))?;
    Some((approach, taken.turn))
}

/// The turns an approach's counts are kept for, in [`weights`]' order.
const TURNS: [Turn; 3] = [Turn::Left, Turn::Straight, Turn::Right];

/// An approach's decayed counts, in [`TURNS`]' order.
fn counts(a: &ApproachTurns) -> [f64; 3] {
    [a.left, a.straight, a.right]
}

fn counts_mut(a: &mut ApproachTurns) -> [&mut f64; 3] {
    [&mut a.left, &mut a.straight, &mut a.right]
}

/// How much of a count is left after `elapsed_us` with the config's half-life.
fn decay(elapsed_us: u64, cfg: &PredictorConfig) -> f64 {
    0.5f64.powf(elapsed_us as f64 / cfg.prior_half_life_us.max(1) as f64)
}

/// How many counted tracks [`TurnPriors::counted_tracks`] remembers: more than a busy
/// junction's turns in the time a frame can come twice (a redelivery after the ack wait, a
/// backlog after a restart).
const COUNTED_KEPT: usize = 256;

/// A track (RSU station, object) leaving `approach` at its newest point's time: the same
/// whenever its frame is handled. Not the track's generation: that counts from the assembler's
/// state, which may have expired in one place (a lattice's Redis between two replays) and not in
/// another (the in-process pipeline), and two such runs must count alike.
pub fn track_key(t: &MatchedTrajectory, approach: i64) -> u64 {
    let at = t.points.last().map_or(0, |p| p.measured_at_us);
    crate::message::fnv1a(&[
        &t.station_id.to_le_bytes(),
        &t.object_id.to_le_bytes(),
        &approach.to_le_bytes(),
        &at.to_le_bytes(),
    ])
}

/// Whether `track` is counted now: false when it was already (its frame handled twice).
pub fn count_once(priors: &mut TurnPriors, track: u64) -> bool {
    if priors.counted_tracks.contains(&track) {
        return false;
    }
    if priors.counted_tracks.len() >= COUNTED_KEPT {
        priors.counted_tracks.remove(0);
    }
    priors.counted_tracks.push(track);
    true
}

/// Whether `a` holds the counts of `approach` for `mode`.
fn is_of(a: &ApproachTurns, (approach, mode): (i64, TravelMode)) -> bool {
    a.approach_lanelet_id == approach && a.mode == mode as i32
}

/// What `priors` learned on `approach` for `mode`, if anything.
fn learned(priors: &TurnPriors, of: (i64, TravelMode)) -> Option<&ApproachTurns> {
    priors.approaches.iter().find(|a| is_of(a, of))
}

/// Counts one track's turn at `now_us` (all counts decayed to then first), and for a turner
/// whether it had moved over in its lane (`moved`, when its approach was still in its track).
pub fn observe(
    priors: &mut TurnPriors,
    (approach, mode): (i64, TravelMode),
    turn: Turn,
    moved: Option<bool>,
    now_us: u64,
    cfg: &PredictorConfig,
) {
    let f = decay(now_us.saturating_sub(priors.updated_at_us), cfg);
    for a in priors.approaches.iter_mut() {
        for c in counts_mut(a) {
            *c *= f;
        }
        a.turned_centred *= f;
        a.turned_moved *= f;
    }
    priors.updated_at_us = priors.updated_at_us.max(now_us);
    let at = match priors.approaches.iter().position(|a| is_of(a, (approach, mode))) {
        Some(i) => i,
        None => {
            priors.approaches.push(ApproachTurns {
                approach_lanelet_id: approach,
                mode: mode as i32,
                ..Default::default()
            });
            priors.approaches.len() - 1
        }
    };
    let a = &mut priors.approaches[at];
    if let Some(i) = TURNS.iter().position(|&t| t == turn) {
        *counts_mut(a)[i] += 1.0;
    }
    match moved {
        Some(true) => a.turned_moved += 1.0,
        Some(false) => a.turned_centred += 1.0,
        None => {}
    }
}

/// Pseudo-turners the centred share starts from, split as [`CENTRED_SHARE_PRIOR`]: a handful of
/// an approach's own turners outweigh it.
const CENTRED_PSEUDO_COUNT: f64 = 4.0;

/// Share of `approach`'s turners of `mode` who keep their lane's centre before turning (the
/// lateral cue's mixture, see [`super::intent::lateral_likelihood`]): the decayed counts with
/// [`CENTRED_PSEUDO_COUNT`] turners split as the prior. Lanes differ: in a narrow one nobody
/// moves over, on a wide kerb lane most do.
pub fn centred_share(
    priors: &TurnPriors,
    (approach, mode): (i64, TravelMode),
    now_us: u64,
    cfg: &PredictorConfig,
) -> f64 {
    let seen = learned(priors, (approach, mode));
    let f = decay(now_us.saturating_sub(priors.updated_at_us), cfg);
    let (centred, moved) = seen.map_or((0.0, 0.0), |a| (f * a.turned_centred, f * a.turned_moved));
    (centred + CENTRED_PSEUDO_COUNT * CENTRED_SHARE_PRIOR) / (centred + moved + CENTRED_PSEUDO_COUNT)
}

/// Prior weight of each turn from `approach` for `mode` at `now_us` (left, straight, right; 1
/// each when nothing was learned): the decayed counts with `prior_pseudo_count` tracks spread
/// evenly over the turns the approach offers, scaled so that an even split weighs 1.
pub fn weights(
    priors: &TurnPriors,
    map: &LaneMap,
    (approach, mode): (i64, TravelMode),
    now_us: u64,
    cfg: &PredictorConfig,
) -> [f64; 3] {
    let Some(a) = learned(priors, (approach, mode)) else {
        return [1.0; 3];
    };
    let Some(lane) = map.lanes.get(&approach) else { return [1.0; 3] };
    let offered = TURNS.map(|t| lane.successors.iter().any(|s| map.lanes.get(s).is_some_and(|c| c.turn == t)));
    let m = offered.iter().filter(|&&o| o).count() as f64;
    if m == 0.0 {
        return [1.0; 3];
    }
    let (f, c) = (decay(now_us.saturating_sub(priors.updated_at_us), cfg), counts(a));
    let seen: f64 = (0..3).filter(|&i| offered[i]).map(|i| f * c[i]).sum();
    std::array::from_fn(|i| {
        if offered[i] {
            (f * c[i] + cfg.prior_pseudo_count / m) * m / (seen + cfg.prior_pseudo_count)
        } else {
            1.0
        }
    })
}

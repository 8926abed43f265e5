//! The probability each path counts with in the risks: one road user tracked by two sensors,
//! its routes judged from both tracks and the lane position both measured.

use super::geometry::Timed;
use super::{key, ObjectKey};
use crate::proto::{LanePosition, LaneSecond, PredictedPath, TravelMode, Turn};
use crate::shared::geo::distance;
use crate::stages::predictor::{lateral_likelihood, LANE_SECONDS};

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
pub(super) fn route_probabilities(paths: &[&PredictedPath], timed: &[Timed]) -> Vec<f64> {
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
pub(super) fn with_shared_lane_position(track: &[&PredictedPath], other: &[&PredictedPath]) -> Vec<f64> {
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
    let centred = track[0].lane_position.as_ref().map_or(0.0, |l| l.centred_share);
    let fresh: Vec<f64> = track
        .iter()
        .map(|p| {
            let before = lateral_likelihood(mode, p.turn(), mine, centred);
            let now = lateral_likelihood(mode, p.turn(), &both, centred);
            if p.turn() == Turn::None || before <= f64::MIN_POSITIVE {
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

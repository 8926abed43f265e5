//! Pedestrians walk their lanelet (crosswalks and sidewalks are walked either way) to its end,
//! and one seen walking at pace towards a kerb walks on across the crosswalk there.

use crate::proto::PredictedPath;
use crate::shared::geo::distance;

use super::Prediction;

/// Below this a pedestrian may be setting off (speeding up is extrapolated); above, walking.
pub(super) const SETTING_OFF_MPS: f64 = 1.0;

/// How long a pedestrian must have been tracked for her pace to tell that she walks on: her pace
/// is what the sensor measured over the last second ([`recent_speeds`]), settled by then. (At
/// 2 s, one who came into view 2.8 s before stepping out was taken to stop at the kerb until she
/// was on the crosswalk, 1.4 s before the car.)
const INTENT_US: u64 = 1_000_000;
/// How likely a pedestrian walking at pace towards the kerb walks on across the crosswalk there
/// rather than stopping at it (waiting for a gap, or turning back) ...
const WALKS_ON: f64 = 0.9;
/// ... and when she has just crossed another arm to this corner (a diagonal crossing in two steps).
const CROSSES_AGAIN: f64 = 0.2;

/// The paths of a pedestrian on a walkable lanelet.
pub(super) fn predict(p: &Prediction) -> Vec<PredictedPath> {
    let (map, last, k) = (p.map, p.last, &p.k);
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
    let stays = |i: usize| p.position(i, lane.at(last.station_m + along * p.ahead(i, 0.0)).0, last.lanelet_id);
    // Walking at pace towards the kerb where a crosswalk begins (or off a crosswalk onto the
    // walkway), a pedestrian is about to walk on across it: without this her path ended at
    // the kerb, and a car's conflict with her showed only once she had stepped out.
    // Seen walking for a while: a fresh track's speed is mostly the tracker settling.
    let seen_us = last.measured_at_us.saturating_sub(p.tracked_since_us);
    let walking_on = seen_us >= INTENT_US && k.speed >= SETTING_OFF_MPS && along.abs() >= 0.5;
    let Some((next_id, next, forward)) = walking_on.then(|| map.walked_onto(lane, along > 0.0)).flatten() else {
        return vec![p.path(vec![last.lanelet_id], 1.0, 0, (1..=p.steps).map(stays).collect())];
    };
    // Off a crosswalk she walks on to the pavement. At a kerb: one who has just crossed
    // another arm to this corner is on her way along the street, rarely across the next arm.
    let crossed_here = p.t.points.iter().any(|q| {
        q.lanelet_id != last.lanelet_id
            && q.lanelet_id != next_id
            && map.lanes.get(&q.lanelet_id).is_some_and(|l| l.crosswalk)
    });
    let walks_on = match (next.crosswalk, crossed_here) {
        (false, _) => 1.0,
        (true, false) => WALKS_ON,
        (true, true) => CROSSES_AGAIN,
    };
    let end = if along > 0.0 { lane.end() } else { lane.start() };
    let to_kerb = (end - last.station_m).abs();
    let (first, length) = (next.start(), next.end() - next.start());
    let goes_on = (1..=p.steps)
        .map(|i| {
            let walked = along.abs() * p.ahead(i, 0.0);
            if walked <= to_kerb {
                return stays(i);
            }
            let beyond = ((walked - to_kerb) / along.abs()).min(length);
            let station = if forward { first + beyond } else { first + length - beyond };
            p.position(i, next.at(station).0, next_id)
        })
        .collect();
    let mut paths = vec![p.path(vec![last.lanelet_id, next_id], walks_on, 0, goes_on)];
    if walks_on < 1.0 {
        paths.push(p.path(vec![last.lanelet_id], 1.0 - walks_on, 1, (1..=p.steps).map(stays).collect()));
        paths.sort_by(|a, b| b.probability.total_cmp(&a.probability));
        for (rank, path) in paths.iter_mut().enumerate() {
            path.rank = rank as u32;
        }
    }
    paths
}

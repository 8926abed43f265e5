//! Collision detector logic: predicted paths of all objects at an intersection tested against
//! each other in space and time.
//!
//! Each predicted position is an area — a disc around the position at that time step, sized by
//! the road user's kind — so a path is a chain of space-time areas, as in the research. Two paths
//! conflict when their areas overlap at the same time step; the first such step gives the conflict
//! point and the time to collision, the paths' probabilities give the risk's probability.
//! Vulnerable road users (bicycles, pedestrians) against vehicles are what we warn about.
//!
//! By concern: `policy` (operating point, config), `state` (each RSU's stored paths), `routes`
//! (route probabilities across two sensors' tracks), `geometry` (crossings, timing, overlap in
//! space and time), `pairs` (which pairs are tested); [`detect`] puts them together.

mod geometry;
mod pairs;
mod policy;
mod routes;
mod state;
#[cfg(test)]
mod tests;

use std::borrow::Borrow;
use std::collections::HashMap;

use crate::geo::{wgs84_to_offset, Wgs84};
use crate::proto::{CollisionRisk, ObjectRef, PredictedPath};

use geometry::{first_overlap, Timed};
pub use pairs::pairs_to_test;
pub use policy::{DetectorConfig, OperatingPoint, OPERATING_POINT, PROBABILITY_SLACK, STAGE};
use routes::route_probabilities;
pub use state::{current_paths, intersection_of, state_key, update_paths};

/// The road user a path is of, as risks name it.
pub fn object(p: &PredictedPath) -> ObjectRef {
    ObjectRef {
        station_id: p.station_id,
        object_id: p.object_id,
        generation: p.generation,
        mode: p.mode,
        sensor_id: p.sensor_id,
    }
}

type ObjectKey = (u32, u32, u32, u32); // station, sensor, object, generation

fn key(p: &PredictedPath) -> ObjectKey {
    (p.station_id, p.sensor_id, p.object_id, p.generation)
}

/// All risks between the current paths of an intersection at `now_us`, one per object pair (the
/// earliest conflict; the probability sums over the pairs of alternative routes that conflict).
/// Paths of one object must share their time steps with the others' (the predictor's grid).
/// At most `cfg.max_pairs` pairs of paths are tested ([`pairs_to_test`]).
/// Takes paths by value or by reference, so a caller holding them elsewhere need not copy them.
pub fn detect<P: Borrow<PredictedPath>>(paths: &[P], now_us: u64, cfg: &DetectorConfig) -> Vec<CollisionRisk> {
    let paths: Vec<&PredictedPath> = paths.iter().map(Borrow::borrow).collect();
    let Some(first) = paths.iter().find_map(|p| p.positions.first()) else { return Vec::new() };
    let origin = Wgs84 { lat: first.latitude, lon: first.longitude };
    let locals: Vec<Vec<(f64, f64)>> = paths
        .iter()
        .map(|p| {
            p.positions.iter().map(|q| wgs84_to_offset(origin, Wgs84 { lat: q.latitude, lon: q.longitude })).collect()
        })
        .collect();
    let timed: Vec<Timed> = paths.iter().zip(&locals).map(|(p, l)| Timed::of(p, l, origin)).collect();
    let probability = route_probabilities(&paths, &timed);
    let mut risks: HashMap<(ObjectKey, ObjectKey), CollisionRisk> = HashMap::new();
    for (i, j) in pairs_to_test(&paths, &locals, cfg) {
        let (a, b) = (paths[i], paths[j]);
        let Some((at_us, point)) = first_overlap((a, &timed[i]), (b, &timed[j]), origin, cfg.spread_mps, cfg.max_pet_s)
        else {
            continue;
        };
        let (first, second) = if key(a) < key(b) { (a, b) } else { (b, a) };
        let entry = risks.entry((key(first), key(second))).or_insert_with(|| CollisionRisk {
            first: Some(object(first)),
            second: Some(object(second)),
            expected_at_us: u64::MAX,
            ..Default::default()
        });
        entry.probability = (entry.probability + probability[i] * probability[j]).min(1.0);
        if at_us < entry.expected_at_us {
            entry.expected_at_us = at_us;
            entry.conflict_latitude = point.lat;
            entry.conflict_longitude = point.lon;
            entry.time_to_collision_s = at_us.saturating_sub(now_us) as f64 / 1e6;
        }
    }
    let mut out: Vec<CollisionRisk> =
        risks.into_values().filter(|r| cfg.reports(r.probability, r.time_to_collision_s)).collect();
    // Deterministic order: earliest first, then by the pair.
    let pair = |r: &CollisionRisk| {
        let id = |o: &Option<ObjectRef>| o.as_ref().map(|o| (o.station_id, o.object_id, o.generation));
        (id(&r.first), id(&r.second))
    };
    out.sort_by(|a, b| a.expected_at_us.cmp(&b.expected_at_us).then_with(|| pair(a).cmp(&pair(b))));
    out
}

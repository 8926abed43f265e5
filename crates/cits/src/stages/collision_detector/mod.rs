//! Collision detector logic: predicted paths of all objects at an intersection tested against
//! each other in space and time.
//!
//! A risk is the probability of a real conflict: that two road users' post-encroachment time
//! where their paths cross falls below the threshold the warnings are judged by, from how
//! uncertain each one's arrival there is (speed and acceleration noise carried forward), summed
//! over the pairs of their likely routes; road users going the same way conflict where their
//! footprints would overlap. The policy then stages it: information, warning, or nothing.
//! Vulnerable road users (bicycles, pedestrians) against vehicles are what we warn about.
//!
//! By concern: `policy` (decision rule, config), `state` (each RSU's stored paths), `routes`
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

use crate::proto::{CollisionRisk, ObjectRef, PredictedPath};
use crate::shared::geo::{wgs84_to_offset, Wgs84};

use geometry::{conflict, Conflict, Timed};
pub use pairs::pairs_to_test;
pub use policy::{DetectorConfig, KEYS, PROBABILITY_SLACK, STAGE};
use routes::route_probabilities;
pub use state::{current_paths, decode_stored, encode_stored, intersection_of, state_key, update_paths, with_pasts};

mod handler;
mod limits;

pub use handler::CollisionDetector;

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

/// All risks between the current paths of an intersection at `now_us`, one per object pair, as
/// the policy stages them ([`DetectorConfig::stage`]; risks it does not report are left out).
/// A risk's probability is that of a real conflict (true PET below `cfg.max_pet_s`): over the
/// pairs of the two road users' alternative routes, each route pair's probability (the routes'
/// probabilities, renormalised over the routes the predictor kept) times the probability that
/// the road users meet there ([`geometry::conflict`]). Its time is when the second road user
/// is expected to enter the conflict zone, on the earliest route pair that counts (a quarter of
/// the likeliest pair's share at least).
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
    let probability = renormalised(&paths, &route_probabilities(&paths, &timed));
    // Per object pair: each route pair's (share, conflict, whether the vehicle's route is the
    // turn its own CAM announces).
    let mut found: HashMap<(ObjectKey, ObjectKey), Vec<(f64, Conflict, bool)>> = HashMap::new();
    for (i, j) in pairs_to_test(&paths, &locals, cfg) {
        let (a, b) = (paths[i], paths[j]);
        let Some(c) = conflict((a, &timed[i]), (b, &timed[j]), origin, cfg.max_pet_s) else { continue };
        let share = probability[i] * probability[j] * c.probability;
        let pair = if key(a) < key(b) { (key(a), key(b)) } else { (key(b), key(a)) };
        found.entry(pair).or_default().push((share, c, a.signalled || b.signalled));
    }
    let mut out: Vec<CollisionRisk> = Vec::new();
    for ((first, second), routes) in found {
        let total = routes.iter().map(|r| r.0).sum::<f64>().min(1.0);
        let likeliest = routes.iter().map(|r| r.0).fold(0.0, f64::max);
        let Some(soonest) = routes.iter().filter(|r| r.0 >= 0.25 * likeliest).min_by_key(|r| r.1.at_us) else {
            continue;
        };
        let signalled = routes.iter().filter(|r| r.2).map(|r| r.0).sum::<f64>() >= 0.5 * total;
        let ttc_s = soonest.1.at_us.saturating_sub(now_us) as f64 / 1e6;
        let Some(stage) = cfg.stage(total, ttc_s, signalled) else { continue };
        let object_of = |k: ObjectKey| paths.iter().find(|p| key(p) == k).map(|p| object(p));
        out.push(CollisionRisk {
            first: object_of(first),
            second: object_of(second),
            conflict_latitude: soonest.1.at.lat,
            conflict_longitude: soonest.1.at.lon,
            time_to_collision_s: ttc_s,
            probability: total,
            expected_at_us: soonest.1.at_us,
            stage: stage as i32,
            signalled,
        });
    }
    // Deterministic order: earliest first, then by the pair.
    let pair = |r: &CollisionRisk| {
        let id = |o: &Option<ObjectRef>| o.as_ref().map(|o| (o.station_id, o.object_id, o.generation));
        (id(&r.first), id(&r.second))
    };
    out.sort_by(|a, b| a.expected_at_us.cmp(&b.expected_at_us).then_with(|| pair(a).cmp(&pair(b))));
    out
}

/// Each path's probability over the sum of its object's paths': the predictor keeps only its
/// likeliest routes, and a road user's kept routes are all the routes the risk can count.
fn renormalised(paths: &[&PredictedPath], probability: &[f64]) -> Vec<f64> {
    let mut totals: HashMap<ObjectKey, f64> = HashMap::new();
    for (p, q) in paths.iter().zip(probability) {
        *totals.entry(key(p)).or_default() += q;
    }
    paths
        .iter()
        .zip(probability)
        .map(|(p, q)| match totals[&key(p)] {
            t if t > 0.0 && t.is_finite() => q / t,
            _ => 0.0,
        })
        .collect()
}

//! What the detector keeps per RSU: which RSUs share an intersection, the key-value key of each
//! one's state, its stored paths (replaced per object, expired, capped) and those still current.

use super::DetectorConfig;
use crate::message::decode_state_or_empty;
use crate::proto::{ObjectPaths, PredictedPath, RsuPaths};

/// The intersection an RSU belongs to and all RSUs there, from config entries
/// `intersection.<rsu> = <intersection>`; an RSU without an entry is an intersection of its own.
pub fn intersection_of<'a>(rsu: &str, entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> (String, Vec<String>) {
    let members: Vec<(&str, &str)> =
        entries.into_iter().filter_map(|(k, v)| Some((k.strip_prefix("intersection.")?, v.trim()))).collect();
    let Some((_, name)) = members.iter().find(|(r, _)| *r == rsu) else {
        return (rsu.to_string(), vec![rsu.to_string()]);
    };
    let mut rsus: Vec<String> = members.iter().filter(|(_, n)| n == name).map(|(r, _)| r.to_string()).collect();
    rsus.sort();
    (name.to_string(), rsus)
}

/// Key-value key of what `rsu` contributes to `intersection`.
pub fn state_key(intersection: &str, rsu: &str) -> String {
    format!("{intersection}/{rsu}")
}

/// An RSU's paths as stored: each object's past once, beside its paths, where they all share it
/// (the paths and the intersection's other RSUs' read it on every frame: a third of the bytes).
/// Leaves `state` in that form: [`with_pasts`] gives each path its past again.
pub fn encode_stored(state: &mut RsuPaths) -> Vec<u8> {
    for o in &mut state.objects {
        let shared = o.paths.first().is_some_and(|first| !first.past.is_empty())
            && o.paths.windows(2).all(|w| w[0].past == w[1].past);
        if shared {
            o.past = std::mem::take(&mut o.paths[0].past);
            o.paths.iter_mut().for_each(|p| p.past.clear());
        }
    }
    crate::shared::encode::encode(state)
}

/// Stored paths as [`encode_stored`] wrote them, each with its past again (no state, or state
/// that does not decode, is none: the next frames rebuild it).
pub fn decode_stored(bytes: Option<&[u8]>) -> RsuPaths {
    with_pasts(decode_state_or_empty(bytes))
}

/// Paths in their stored form ([`encode_stored`]) with each path's past again; state written
/// before the past was shared is returned as it is.
pub fn with_pasts(mut state: RsuPaths) -> RsuPaths {
    for o in &mut state.objects {
        let past = std::mem::take(&mut o.past);
        if !past.is_empty() {
            o.paths.iter_mut().for_each(|p| p.past.clone_from(&past));
        }
    }
    state
}

/// Whether an object's paths are current at `now_us`: observed within the path TTL of it, before
/// or after. Paths observed later than that are of another time (an RSU whose clock went back, a
/// recording replayed again soon after it ended): a lattice's Redis may or may not still hold
/// them by then, and what is warned must not depend on that.
fn current(o: &ObjectPaths, now_us: u64, cfg: &DetectorConfig) -> bool {
    o.observed_at_us.abs_diff(now_us) <= cfg.path_ttl_us
}

/// Replaces the stored paths of the objects in `paths` (one object's alternatives together) and
/// drops objects not [`current`] at `now_us`. An RSU keeps no more paths
/// than one frame may carry (`cfg.max_paths`): else one sending new object ids in every frame
/// (a flood within the TTL) would grow the detector's work without bound; the objects seen
/// longest ago go first.
pub fn update_paths(state: &mut RsuPaths, paths: Vec<PredictedPath>, now_us: u64, cfg: &DetectorConfig) {
    // Expired objects go first, so a returning object id is placed as a new one: the stored
    // order (which the detector's pairs follow) must not depend on whether expired state was
    // still there (the in-process pipeline keeps it, a lattice's Redis drops it after a pause).
    state.objects.retain(|o| current(o, now_us, cfg));
    for p in paths {
        let key = crate::stages::assembler::state_key(p.station_id, p.sensor_id, p.object_id);
        let observed = p.observed_at_us;
        match state.objects.iter_mut().find(|o| o.object_key == key) {
            // A newer prediction replaces all alternatives of the older one.
            Some(o) if o.observed_at_us < observed => {
                o.observed_at_us = observed;
                o.paths = vec![p];
            }
            // Another alternative of the same prediction; a repeated frame (redelivery) replaces.
            Some(o) if o.observed_at_us == observed => match o.paths.iter_mut().find(|q| q.rank == p.rank) {
                Some(same) => *same = p,
                None => o.paths.push(p),
            },
            Some(_) => {} // late frame: an older prediction than the one stored
            None => state.objects.push(ObjectPaths {
                object_key: key,
                observed_at_us: observed,
                paths: vec![p],
                past: Vec::new(),
            }),
        }
    }
    state.objects.retain(|o| current(o, now_us, cfg));
    let mut stored: usize = state.objects.iter().map(|o| o.paths.len()).sum();
    while stored > cfg.max_paths {
        // Only ever reached by a flood: a linear search per object dropped keeps the order (and
        // the component free of sorting code).
        let Some(oldest) = (0..state.objects.len()).min_by_key(|&i| state.objects[i].observed_at_us) else { break };
        stored -= state.objects.remove(oldest).paths.len();
    }
}

/// The paths stored for an intersection (the states of its RSUs) still current at `now_us`,
/// ready for [`detect`](super::detect). Other RSUs' states are read-only here, so their expiry is
/// applied too.
pub fn current_paths<'a>(
    states: impl IntoIterator<Item = &'a RsuPaths>,
    now_us: u64,
    cfg: &DetectorConfig,
) -> Vec<&'a PredictedPath> {
    states
        .into_iter()
        .flat_map(|s| s.objects.iter())
        .filter(|o| current(o, now_us, cfg))
        .flat_map(|o| o.paths.iter())
        .collect()
}

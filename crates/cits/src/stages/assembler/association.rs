//! One road user from two sources: a vehicle the RSU's cameras track and whose own CAMs the RSU
//! hears. The CAM brings what no camera sees — the turn signals, the yaw rate — and the track
//! brings the position in the same frame as every other road user's. Linked, the sensor track
//! carries the CAM's intent cue and the CAM is not a second road user; unlinked (out of the
//! cameras' view), the CAM's station is a road user of its own.
//!
//! The assembler keeps two values per RSU, each written by one kind of frame only, so a CAM and
//! a CPM of one RSU handled at once (the fused pipeline reads them from two streams) never lose
//! each other's update: the roster of stations heard (CAM frames) and the links (CPM frames).

use crate::proto::{AwarenessRoster, CamLink, CamLinks, IntentCue, LocationsContainer, ObjectClass, TurnSignal};
use crate::shared::geo::{distance, offset_to_wgs84, wgs84_to_offset, Wgs84};
use crate::stages::collector::SELF_REPORTED;

/// How long a road user's report of itself stands for it: until its next one is due at the
/// latest — a vehicle's CAM within 1 s (T_GenCamMax, EN 302 637-2), a VRU's VAM within 5 s
/// (T_GenVamMax, TS 103 300-2: a walking pedestrian's VAM is due every 4 m or 4° of turn).
/// A station is matched against a frame's objects measured at most this long after its report,
/// and a link holds this long after the last frame that confirmed it: a report within it is
/// the linked track's, not a road user of its own (a track lost for a few frames keeps it).
pub const CAM_WINDOW_US: u64 = 1_000_000;
pub const VAM_WINDOW_US: u64 = 5_000_000;
/// Stations not heard for this long leave the roster.
pub const ROSTER_KEEP_US: u64 = 2 * VAM_WINDOW_US;
/// A CAM's position, moved on to the object's measurement time, lies within this of the
/// object's (plus both position confidences): GNSS and camera errors, and a CAM's reference
/// point (the vehicle's front centre or its GNSS antenna) against the camera's box centre.
const GATE_M: f64 = 2.5;
/// Speeds differ by at most this (m/s), and headings by this (degrees, when both move faster
/// than [`HEADING_MIN_SPEED_MPS`]).
const SPEED_GATE_MPS: f64 = 2.5;
const HEADING_GATE_DEG: f64 = 35.0;
const HEADING_MIN_SPEED_MPS: f64 = 2.0;
/// An existing link is kept at up to this many times the gate: a new candidate must be clearly
/// better to take the CAM from its track.
const STICKY_GATE: f64 = 2.0;

/// The roster's key-value key for `rsu`, beside the trajectories (`~` sorts after every key of
/// a station id and is not a digit, so it never meets one).
pub fn roster_key(rsu: &str) -> String {
    format!("{rsu}/~cams")
}

/// The links' key-value key for `rsu`.
pub fn links_key(rsu: &str) -> String {
    format!("{rsu}/~links")
}

/// The newer cue, keeping the last turn-signal state reported when the newer message does not
/// carry one (a CAM's low-frequency container comes every 500 ms).
pub fn refreshed(old: Option<&IntentCue>, new: &IntentCue) -> IntentCue {
    match old {
        Some(old) if new.turn_signal == TurnSignal::Unknown as i32 && old.turn_signal != TurnSignal::Unknown as i32 => {
            IntentCue { turn_signal: old.turn_signal, reported_at_us: old.reported_at_us, ..*new }
        }
        _ => *new,
    }
}

/// Puts a self-reported location (a CAM's station) into the roster: newest report per station,
/// the last signal state kept; stations silent for [`ROSTER_KEEP_US`] leave.
pub fn update_roster(roster: &mut AwarenessRoster, l: &LocationsContainer) {
    let old = roster.stations.iter().position(|s| s.station_id == l.station_id).map(|i| roster.stations.swap_remove(i));
    if old.as_ref().is_some_and(|o| o.measured_at_us > l.measured_at_us) {
        roster.stations.extend(old); // a late CAM: the newer report stays
        return;
    }
    let mut entry = *l;
    if let Some(cue) = &l.cue {
        entry.cue = Some(refreshed(old.as_ref().and_then(|o| o.cue.as_ref()), cue));
    }
    roster.stations.push(entry);
    let newest = roster.stations.iter().map(|s| s.measured_at_us).max().unwrap_or(0);
    roster.stations.retain(|s| s.measured_at_us.saturating_add(ROSTER_KEEP_US) >= newest);
    roster.stations.sort_by_key(|s| s.station_id);
}

/// How long a report of a road user of `class` stands for it ([`CAM_WINDOW_US`]): VRUs send
/// VAMs, vehicles CAMs.
pub fn report_window_us(class: i32) -> u64 {
    use ObjectClass as C;
    match C::try_from(class).unwrap_or(C::Unknown) {
        C::Pedestrian | C::Bicycle | C::Animal => VAM_WINDOW_US,
        _ => CAM_WINDOW_US,
    }
}

fn holds(k: &CamLink, at_us: u64) -> bool {
    // Links stored before the window was kept per link hold a CAM's.
    let window = if k.window_us == 0 { CAM_WINDOW_US } else { k.window_us };
    k.linked_at_us.saturating_add(window) >= at_us
}

/// Whether `station`'s CAM or VAM at `at_us` belongs to a linked sensor track.
pub fn is_linked(links: &CamLinks, station: u32, at_us: u64) -> bool {
    links.links.iter().any(|k| k.cam_station_id == station && holds(k, at_us))
}

/// Links the roster's stations to the objects of a sensor frame (`keys[i]`: the assembler key of
/// `locations[i]`) and returns each object's intent cue (None: no CAM of it). Each station
/// takes at most one object and each object one station, nearest first; a link already held
/// is kept while its object stays within [`STICKY_GATE`] gates. Links not confirmed for
/// their report window are dropped. Returns whether the links changed.
pub fn link(
    locations: &[LocationsContainer],
    keys: &[String],
    roster: &AwarenessRoster,
    links: &mut CamLinks,
) -> (Vec<Option<IntentCue>>, bool) {
    let mut cues = vec![None; locations.len()];
    let frame_time = locations.iter().map(|l| l.measured_at_us).max().unwrap_or(0);
    let before = links.clone();
    // (cost, station index, object index); cost in gates (1 = at the gate).
    let mut candidates = Vec::new();
    for (s, station) in roster.stations.iter().enumerate() {
        let held = links.links.iter().find(|k| k.cam_station_id == station.station_id).map(|k| k.track_key.as_str());
        for (o, object) in locations.iter().enumerate() {
            if object.sensor_id == SELF_REPORTED {
                continue;
            }
            let Some(cost) = cost(station, object) else { continue };
            let sticky = held == Some(keys[o].as_str());
            if cost <= 1.0 || (sticky && cost <= STICKY_GATE) {
                // A held link wins over any new candidate that is not clearly better.
                candidates.push((if sticky { cost / STICKY_GATE } else { cost }, s, o));
            }
        }
    }
    candidates.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut station_taken, mut object_taken) = (vec![false; roster.stations.len()], vec![false; locations.len()]);
    for (_, s, o) in candidates {
        if station_taken[s] || object_taken[o] {
            continue;
        }
        (station_taken[s], object_taken[o]) = (true, true);
        let station = &roster.stations[s];
        cues[o] = station.cue;
        let at = locations[o].measured_at_us;
        links.links.retain(|k| k.cam_station_id != station.station_id && k.track_key != keys[o]);
        links.links.push(CamLink {
            cam_station_id: station.station_id,
            track_key: keys[o].clone(),
            linked_at_us: at,
            window_us: report_window_us(station.classification),
        });
    }
    links.links.retain(|k| holds(k, frame_time));
    links.links.sort_by_key(|k| k.cam_station_id);
    let changed = *links != before;
    (cues, changed)
}

/// How far a station's CAM is from an object, in gates (≤ 1 passes), or None when it cannot be
/// the same road user (another kind, too old, moving otherwise).
fn cost(station: &LocationsContainer, object: &LocationsContainer) -> Option<f64> {
    let dt_us = object.measured_at_us.saturating_sub(station.measured_at_us);
    let window = report_window_us(station.classification);
    if dt_us > window || station.measured_at_us > object.measured_at_us + window {
        return None;
    }
    if !same_kind(station.classification, object.classification) {
        return None;
    }
    let moved = moved_on(station, dt_us as f64 / 1e6);
    let (dx, dy) = wgs84_to_offset(moved, Wgs84 { lat: object.latitude, lon: object.longitude });
    let gate = GATE_M + station.position_confidence_m + object.position_confidence_m;
    let mut cost = distance(dx, dy) / gate;
    if let (Some(a), Some(b)) = (station.speed_mps, object.speed_mps) {
        cost = cost.max((a - b).abs() / SPEED_GATE_MPS);
        if let (Some(ha), Some(hb)) = (station.heading_deg, object.heading_deg) {
            if a >= HEADING_MIN_SPEED_MPS && b >= HEADING_MIN_SPEED_MPS {
                let off = crate::shared::geo::heading_difference_deg(ha, hb);
                cost = cost.max(off.abs() / HEADING_GATE_DEG);
            }
        }
    }
    Some(cost)
}

/// A station's reported position moved on `dt_s` at its reported speed and heading.
fn moved_on(station: &LocationsContainer, dt_s: f64) -> Wgs84 {
    let here = Wgs84 { lat: station.latitude, lon: station.longitude };
    match (station.speed_mps, station.heading_deg) {
        (Some(v), Some(h)) if dt_s > 0.0 => {
            let (s, c) = h.to_radians().sin_cos();
            offset_to_wgs84(here, v * dt_s * s, v * dt_s * c)
        }
        _ => here,
    }
}

/// Whether a station of one class can be an object of the other: vehicles with vehicles,
/// each kind of vulnerable road user with its own; an unknown class with anything.
fn same_kind(a: i32, b: i32) -> bool {
    use ObjectClass as C;
    let group = |c: i32| match C::try_from(c).unwrap_or(C::Unknown) {
        C::Unknown => None,
        C::Pedestrian => Some(1),
        C::Bicycle => Some(2),
        C::Animal => Some(3),
        C::Car | C::Motorcycle | C::Truck | C::Bus | C::Tram | C::OtherVehicle => Some(0),
    };
    match (group(a), group(b)) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIGIN: Wgs84 = Wgs84 { lat: 47.8095, lon: 13.055 };

    /// A car `east_m` east of the origin at `t_ms`, driving east at `speed` m/s.
    fn car(sensor_id: u32, station: u32, object: u32, t_ms: u64, east_m: f64, speed: f64) -> LocationsContainer {
        let p = offset_to_wgs84(ORIGIN, east_m, 0.0);
        LocationsContainer {
            station_id: station,
            object_id: object,
            sensor_id,
            measured_at_us: t_ms * 1000,
            latitude: p.lat,
            longitude: p.lon,
            classification: ObjectClass::Car as i32,
            speed_mps: Some(speed),
            heading_deg: Some(90.0),
            position_confidence_m: if sensor_id == SELF_REPORTED { 2.0 } else { 0.3 },
            ..Default::default()
        }
    }

    fn cam(station: u32, t_ms: u64, east_m: f64, speed: f64, signal: TurnSignal) -> LocationsContainer {
        LocationsContainer {
            cue: Some(IntentCue {
                station_id: station,
                reported_at_us: t_ms * 1000,
                turn_signal: signal as i32,
                yaw_rate_deg_s: Some(0.0),
                ..Default::default()
            }),
            ..car(SELF_REPORTED, station, 0, t_ms, east_m, speed)
        }
    }

    fn roster(cams: &[LocationsContainer]) -> AwarenessRoster {
        let mut r = AwarenessRoster::default();
        for c in cams {
            update_roster(&mut r, c);
        }
        r
    }

    fn keys(objects: &[LocationsContainer]) -> Vec<String> {
        objects.iter().map(|l| crate::stages::assembler::key_of("r1", l)).collect()
    }

    #[test]
    fn a_cam_links_to_the_track_it_moved_on_to() {
        // The CAM 200 ms before the frame, 3 m behind where the car is then at 12 m/s (2.4 m).
        let r = roster(&[cam(4711, 1000, 10.0, 12.0, TurnSignal::Right)]);
        let objects = vec![car(1, 1001, 7, 1200, 12.6, 12.0), car(1, 1001, 8, 1200, 25.0, 12.0)];
        let mut links = CamLinks::default();
        let (cues, changed) = link(&objects, &keys(&objects), &r, &mut links);
        assert!(changed);
        assert_eq!(cues[0].unwrap().turn_signal, TurnSignal::Right as i32);
        assert_eq!(cues[1], None);
        assert_eq!(links.links.len(), 1);
        assert_eq!(links.links[0].track_key, "r1/1001/1/7");
        assert!(is_linked(&links, 4711, 2_100_000));
        assert!(!is_linked(&links, 4711, 2_300_000), "lapsed after {CAM_WINDOW_US} µs");
        assert!(!is_linked(&links, 4712, 1_300_000));
    }

    #[test]
    fn a_pedestrians_vam_stands_for_it_until_the_next_is_due() {
        // A pedestrian walking east at 1.4 m/s sends a VAM every 4 m (2.9 s); the cameras see it
        // every 100 ms. Its VAM links to its track 2.5 s after it was sent and the link holds
        // until the next is due.
        let walker = |sensor_id, station, object, t_ms, east_m| LocationsContainer {
            classification: ObjectClass::Pedestrian as i32,
            position_confidence_m: if sensor_id == SELF_REPORTED { 3.5 } else { 0.3 },
            ..car(sensor_id, station, object, t_ms, east_m, 1.4)
        };
        let mut r = AwarenessRoster::default();
        update_roster(&mut r, &walker(SELF_REPORTED, 815, 0, 1000, 10.0));
        let objects = vec![walker(1, 1001, 7, 3500, 13.3)];
        let mut links = CamLinks::default();
        link(&objects, &keys(&objects), &r, &mut links);
        assert_eq!(links.links.len(), 1, "a VAM 2.5 s old still links");
        assert_eq!(links.links[0].window_us, VAM_WINDOW_US);
        assert!(is_linked(&links, 815, 8_400_000) && !is_linked(&links, 815, 8_600_000));
        // A car's CAM of that age is stale.
        let mut r = AwarenessRoster::default();
        update_roster(&mut r, &car(SELF_REPORTED, 4711, 0, 1000, 10.0, 1.4));
        let objects = vec![car(1, 1001, 7, 3500, 13.5, 1.4)];
        let mut links = CamLinks::default();
        link(&objects, &keys(&objects), &r, &mut links);
        assert!(links.links.is_empty());
    }

    #[test]
    fn what_cannot_be_the_same_road_user_is_not_linked() {
        let r = roster(&[cam(4711, 1000, 10.0, 12.0, TurnSignal::Off)]);
        let cases = [
            ("too far", car(1, 1001, 7, 1000, 17.0, 12.0)),
            ("too slow", car(1, 1001, 7, 1000, 10.0, 8.0)),
            ("too late", car(1, 1001, 7, 2500, 28.0, 12.0)),
            ("other way", LocationsContainer { heading_deg: Some(270.0), ..car(1, 1001, 7, 1000, 10.0, 12.0) }),
            (
                "a cyclist",
                LocationsContainer { classification: ObjectClass::Bicycle as i32, ..car(1, 1001, 7, 1000, 10.0, 12.0) },
            ),
        ];
        for (what, object) in cases {
            let mut links = CamLinks::default();
            let (cues, _) = link(std::slice::from_ref(&object), &keys(std::slice::from_ref(&object)), &r, &mut links);
            assert_eq!(cues, vec![None], "{what}");
            assert!(links.links.is_empty(), "{what}");
        }
    }

    #[test]
    fn each_cam_takes_one_track_nearest_first_and_keeps_it() {
        // Two cars 4 m apart, two CAMs: each to its own, not both to the nearer.
        let r = roster(&[cam(1, 1000, 10.0, 10.0, TurnSignal::Left), cam(2, 1000, 14.0, 10.0, TurnSignal::Right)]);
        let objects = vec![car(1, 1001, 7, 1000, 13.5, 10.0), car(1, 1001, 8, 1000, 10.5, 10.0)];
        let mut links = CamLinks::default();
        let (cues, _) = link(&objects, &keys(&objects), &r, &mut links);
        assert_eq!(cues[0].unwrap().station_id, 2);
        assert_eq!(cues[1].unwrap().station_id, 1);
        // A held link survives a frame where another track has come a little nearer.
        let r = roster(&[cam(1, 2100, 20.0, 10.0, TurnSignal::Left)]);
        let objects = vec![car(1, 1001, 8, 2100, 23.0, 10.0), car(1, 1001, 9, 2100, 22.0, 10.0)];
        let (cues, changed) = link(&objects, &keys(&objects), &r, &mut links);
        assert_eq!(cues[0].unwrap().station_id, 1, "held by object 8");
        assert_eq!(cues[1], None);
        assert!(changed, "confirmed at the new time; station 2's link lapsed");
        assert_eq!(links.links.iter().map(|k| k.cam_station_id).collect::<Vec<_>>(), vec![1]);
    }

    #[test]
    fn the_last_turn_signal_reported_is_kept() {
        let r =
            roster(&[cam(4711, 1000, 0.0, 10.0, TurnSignal::Right), cam(4711, 1100, 1.0, 10.0, TurnSignal::Unknown)]);
        let cue = r.stations[0].cue.unwrap();
        assert_eq!((cue.turn_signal, cue.reported_at_us), (TurnSignal::Right as i32, 1_000_000));
        assert_eq!(r.stations[0].measured_at_us, 1_100_000);
        // A late CAM does not overwrite a newer one; stations long silent leave.
        let r = roster(&[cam(1, 1100, 1.0, 10.0, TurnSignal::Off), cam(1, 1000, 0.0, 10.0, TurnSignal::Left)]);
        assert_eq!(r.stations[0].cue.unwrap().turn_signal, TurnSignal::Off as i32);
        let r = roster(&[cam(1, 1000, 0.0, 10.0, TurnSignal::Off), cam(2, 12_000, 0.0, 10.0, TurnSignal::Off)]);
        assert_eq!(r.stations.iter().map(|s| s.station_id).collect::<Vec<_>>(), vec![2]);
    }
}

//! The collision detector's tests: policy, stored state, route probabilities across two sensors,
//! conflicts in space and time, and the pairs tested.

use super::geometry::{conflict, crossing_points, segment_boxes, Polyline, Timed};
use super::pairs::relevant;
use super::routes::with_shared_lane_position;
use super::*;
use crate::proto::{LanePosition, LaneSecond, PredictedPosition, RiskStage, RsuPaths, TravelMode, Turn};
use crate::shared::geo::offset_to_wgs84;
use crate::stages::predictor::lateral_likelihood;

const ORIGIN: Wgs84 = Wgs84 { lat: 47.8101, lon: 13.0518 };

/// A straight path from `from` with velocity `v` (m/s) over 3 s in 0.25 s steps.
fn path(object_id: u32, mode: TravelMode, from: (f64, f64), v: (f64, f64), probability: f64) -> PredictedPath {
    path_over(12, object_id, mode, from, v, probability)
}

/// [`path`] over `steps` steps.
fn path_over(
    steps: u64,
    object_id: u32,
    mode: TravelMode,
    from: (f64, f64),
    v: (f64, f64),
    probability: f64,
) -> PredictedPath {
    PredictedPath {
        station_id: 1001,
        object_id,
        mode: mode as i32,
        probability,
        positions: (1..=steps)
            .map(|k| {
                let t = k as f64 * 0.25;
                let w = offset_to_wgs84(ORIGIN, from.0 + v.0 * t, from.1 + v.1 * t);
                PredictedPosition { at_us: 1_000_000 + k * 250_000, latitude: w.lat, longitude: w.lon, lanelet_id: 0 }
            })
            .collect(),
        ..Default::default()
    }
}

#[test]
fn rsus_of_an_intersection_share_it_and_others_stand_alone() {
    let config = [
        ("intersection.rsu-b", "wg"),
        ("intersection.rsu-a", " wg"),
        ("intersection.x", "other"),
        ("info_min_probability", "0.3"),
    ];
    assert_eq!(intersection_of("rsu-a", config), ("wg".to_string(), vec!["rsu-a".to_string(), "rsu-b".to_string()]));
    assert_eq!(intersection_of("rsu-c", config), ("rsu-c".to_string(), vec!["rsu-c".to_string()]));
    assert!(DetectorConfig::from_config(config).is_ok());
    assert!(DetectorConfig::from_config([("info_min_probability", "2")]).is_err());
}

#[test]
fn the_decision_rule_stages_a_risk_by_its_probability_time_and_signal() {
    let rule = DetectorConfig::default();
    let stage = |p: f64, ttc: f64, signalled: bool| rule.stage(p, ttc, signalled);
    assert_eq!(stage(0.95, 1.5, false), Some(RiskStage::Warning));
    assert_eq!(stage(0.6, 3.5, false), Some(RiskStage::Information), "possible, far ahead");
    assert_eq!(stage(0.99, 3.5, false), Some(RiskStage::Information), "waiting costs nothing yet");
    assert_eq!(stage(0.4, 1.5, false), None, "below the information bar");
    assert_eq!(stage(0.9, 4.5, false), None, "before the first line");
    assert_eq!(stage(0.6, 2.2, false), Some(RiskStage::Information));
    assert_eq!(stage(0.6, 2.2, true), Some(RiskStage::Warning), "the turn signal escalates");
    assert_eq!(stage(0.6, 3.5, true), Some(RiskStage::Information), "not before the warning window");
    // The bar falls as waiting costs more harm.
    let bars: Vec<f64> = [2.4, 2.2, 2.0, 1.8, 1.5, 1.2, 1.0].iter().map(|&t| rule.warning_bar(t)).collect();
    assert!(bars.windows(2).all(|w| w[0] > w[1]), "{bars:?}");
    assert!(rule.warning_bar(2.6).is_infinite());
    let bar = rule.warning_bar(1.5);
    assert_eq!(stage(bar - 1e-15, 1.5, false), Some(RiskStage::Warning), "a rounding error short reaches it");
    assert_eq!(stage(bar - 1e-3, 1.5, false), Some(RiskStage::Information));
    // A higher harm ratio warns on less.
    let keen = DetectorConfig { harm_ratio: 10.0, ..rule.clone() };
    assert!(keen.warning_bar(1.5) < bar);
    assert!(DetectorConfig::from_config([("info_min_probability", "1.5")]).is_err());
    let late = [("no_avoid_s", "0.5"), ("full_avoid_s", "0.4")];
    assert!(DetectorConfig::from_config(late).is_err(), "full_avoid_s before no_avoid_s");
    assert!(DetectorConfig::from_config([("min_probability", "0.8")]).is_ok(), "an old key is ignored");
}

/// `p` as predicted from an observation at `t` (µs).
fn at(mut p: PredictedPath, t: u64) -> PredictedPath {
    p.observed_at_us = t;
    p
}

/// The stored-state tests' car (object 1, heading east) and bike (object 2, heading north).
fn car_and_bike() -> (PredictedPath, PredictedPath) {
    (
        path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 0.55),
        path(2, TravelMode::Bicycle, (0.0, -10.0), (0.0, 5.0), 1.0),
    )
}

#[test]
fn stored_paths_are_replaced_per_object_and_expire() {
    let cfg = DetectorConfig::default();
    let mut state = RsuPaths::default();
    let (car, bike) = car_and_bike();
    let mut car_left = car.clone();
    car_left.rank = 1;
    update_paths(
        &mut state,
        vec![at(car.clone(), 1_000_000), at(car_left.clone(), 1_000_000), at(bike, 1_000_000)],
        1_000_000,
        &cfg,
    );
    assert_eq!(state.objects.iter().map(|o| o.paths.len()).collect::<Vec<_>>(), vec![2, 1]);
    // A redelivered frame changes nothing.
    let before = state.clone();
    update_paths(&mut state, vec![at(car.clone(), 1_000_000), at(car_left.clone(), 1_000_000)], 1_000_000, &cfg);
    assert_eq!(state, before);
    // A newer car prediction replaces both alternatives; a late older one is ignored.
    update_paths(&mut state, vec![at(car.clone(), 1_200_000)], 1_200_000, &cfg);
    update_paths(&mut state, vec![at(car.clone(), 1_100_000)], 1_200_000, &cfg);
    assert_eq!(state.objects[0].paths.len(), 1);
    assert_eq!(state.objects[0].observed_at_us, 1_200_000);
    // The bike, not seen for 0.5 s, is gone; the car stays.
    update_paths(&mut state, vec![], 1_600_001, &cfg);
    assert_eq!(state.objects.len(), 1);
    assert_eq!(state.objects[0].object_key, "1001/0/1");
}

#[test]
fn stored_paths_keep_a_shared_past_once_and_read_back_as_they_were() {
    let cfg = DetectorConfig::default();
    let (car, bike) = car_and_bike();
    let past: Vec<PredictedPosition> = (0..20)
        .map(|i| PredictedPosition {
            at_us: 900_000 + i * 5_000,
            latitude: 47.81,
            longitude: 13.05,
            ..Default::default()
        })
        .collect();
    let (mut car, mut car_left, mut bike) = (at(car.clone(), 1_000_000), at(car, 1_000_000), at(bike, 1_000_000));
    car_left.rank = 1;
    car.past.clone_from(&past);
    car_left.past.clone_from(&past);
    // The bike's two routes do not share their past: each keeps its own.
    let mut bike_right = bike.clone();
    bike_right.rank = 1;
    bike.past = past[..10].to_vec();
    bike_right.past = past[..5].to_vec();
    let mut state = RsuPaths::default();
    update_paths(&mut state, vec![car, car_left, bike, bike_right], 1_000_000, &cfg);

    let plain = crate::shared::encode::encode(&state);
    let stored = encode_stored(&mut state.clone());
    assert_eq!(decode_stored(Some(&stored)), state);
    assert!(stored.len() + 19 * 20 < plain.len(), "{} vs {} bytes", stored.len(), plain.len());
    // State written before the past was shared reads as it was.
    assert_eq!(decode_stored(Some(&plain)), state);
}

#[test]
fn returning_objects_are_stored_as_if_expired_state_had_never_been_kept() {
    let cfg = DetectorConfig::default();
    let (car, bike) = car_and_bike();
    // Seen car first, then a minute later (the same ids reused) bike first.
    let mut kept = RsuPaths::default();
    update_paths(&mut kept, vec![at(car.clone(), 1_000_000), at(bike.clone(), 1_000_000)], 1_000_000, &cfg);
    let later = vec![at(bike, 61_000_000), at(car, 61_000_000)];
    update_paths(&mut kept, later.clone(), 61_000_000, &cfg);
    // As a store that dropped the expired state in the pause (Redis's TTL) has them.
    let mut dropped = RsuPaths::default();
    update_paths(&mut dropped, later, 61_000_000, &cfg);
    assert_eq!(kept, dropped);
    assert_eq!(kept.objects[0].object_key, "1001/0/2", "in the order seen now");
}

#[test]
fn paths_of_a_later_time_are_not_current_and_give_way_to_the_frames_own() {
    let cfg = DetectorConfig::default();
    let (car, bike) = car_and_bike();
    // Stored at 200 s; then frames of 60 s (the clock went back, or the recording again).
    let mut kept = RsuPaths::default();
    update_paths(&mut kept, vec![at(car.clone(), 200_000_000), at(bike.clone(), 200_000_000)], 200_000_000, &cfg);
    assert!(current_paths([&kept], 60_000_000, &cfg).is_empty(), "another time's paths are no risk now");
    // A stored car from the later time does not shut out the car seen now (a late frame would).
    update_paths(&mut kept, vec![at(car.clone(), 60_000_000)], 60_000_000, &cfg);
    let mut dropped = RsuPaths::default();
    update_paths(&mut dropped, vec![at(car, 60_000_000)], 60_000_000, &cfg);
    assert_eq!(kept, dropped, "as a store that no longer held them");
    // Within the TTL either way (another RSU's clock a frame ahead): current.
    assert_eq!(current_paths([&kept], 60_000_000 - cfg.path_ttl_us, &cfg).len(), 1);
}

#[test]
fn a_flood_of_new_objects_keeps_an_rsus_state_to_one_frame_and_its_newest_objects() {
    let cfg = DetectorConfig { max_paths: 10, ..Default::default() };
    let mut state = RsuPaths::default();
    // Every frame 4 objects never seen before, 2 alternatives each, 10 ms apart (within the TTL).
    for frame in 0..5u64 {
        let at = 1_000_000 + frame * 10_000;
        let paths = (0..4)
            .flat_map(|k| {
                let id = (frame * 4 + k) as u32;
                [0, 1].map(|rank| PredictedPath {
                    observed_at_us: at,
                    rank,
                    ..path(id, TravelMode::Car, (0.0, 0.0), (1.0, 0.0), 0.5)
                })
            })
            .collect();
        update_paths(&mut state, paths, at, &cfg);
        assert!(state.objects.iter().map(|o| o.paths.len()).sum::<usize>() <= 10);
    }
    // The newest: the last frame's 4 objects, and one of the frame before.
    let kept: Vec<u64> = state.objects.iter().map(|o| o.observed_at_us).collect();
    assert_eq!(kept, vec![1_030_000, 1_040_000, 1_040_000, 1_040_000, 1_040_000]);
}

/// The policy these tests were written against (any conflict with some chance, up to 3 s
/// ahead, at least as information), independent of the constants calibrated from the sweep.
fn lenient() -> DetectorConfig {
    DetectorConfig { info_min_probability: 0.3, info_max_ttc_s: 3.0, ..Default::default() }
}

#[test]
fn crossing_car_and_cyclist_meet_at_the_crossing_point() {
    // Car eastbound reaches (0, 0) 2 s after its observation; the cyclist northbound too.
    let paths = [
        path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0),
        path(2, TravelMode::Bicycle, (0.0, -10.0), (0.0, 5.0), 1.0),
    ];
    let risks = detect(&paths, 1_000_000, &lenient());
    assert_eq!(risks.len(), 1);
    let r = &risks[0];
    // The conflict area spans each one's length plus both widths across the other's path: the
    // car (4.5 m + 2.4 m at 10 m/s) enters it 0.345 s before the middle, the cyclist (1.8 m +
    // 2.4 m at 5 m/s) 0.42 s before: the second (the car) enters at 1.655 s.
    assert!((r.time_to_collision_s - 1.655).abs() < 0.01, "{}", r.time_to_collision_s);
    let p = wgs84_to_offset(ORIGIN, Wgs84 { lat: r.conflict_latitude, lon: r.conflict_longitude });
    assert!(p.0.abs() < 1e-6 && p.1.abs() < 1e-6, "{p:?}");
    assert!(r.probability > 0.99, "head on in time: {r:?}");
    assert_eq!((r.first.as_ref().unwrap().object_id, r.second.as_ref().unwrap().object_id), (1, 2));
}

#[test]
fn the_probability_of_a_conflict_falls_with_the_time_between_the_two() {
    // The cyclist later and later at the car's crossing (the car passes 2 s ahead): a PET of
    // 0, ~1.2 s and ~2.2 s.
    let p = |late_m: f64| {
        let paths = [
            path_over(24, 1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0),
            path_over(24, 2, TravelMode::Bicycle, (0.0, -10.0 - late_m), (0.0, 5.0), 1.0),
        ];
        let cfg = DetectorConfig { info_min_probability: 0.0, info_max_ttc_s: 10.0, ..Default::default() };
        detect(&paths, 1_000_000, &cfg).first().map_or(0.0, |r| r.probability)
    };
    let (now, soon, later) = (p(0.0), p(10.0), p(15.0));
    assert!(now > 0.99 && soon > 0.5 && later < 0.2 && soon < now && later < soon, "{now} {soon} {later}");
}

#[test]
fn two_sensors_tracks_of_a_road_user_count_by_how_long_each_has_seen_it() {
    // A cyclist at (0, -10), tracked by sensor 2 for 1 s ("right", lanelet 18, at 0.9) and
    // by sensor 1 for 0.25 s, whose track starts on the connectors ("straight", 17, at 0.7,
    // into the car's path). Both paths carry the same 0.25 s of past. Moved 10 m away,
    // sensor 2's track is another road user.
    let seen = |mut p: PredictedPath, sensor_id: u32, since_us: u64, lanelet: i64| {
        let v = (0.0, 5.0);
        let from = (0.0, -10.0);
        p.sensor_id = sensor_id;
        p.observed_at_us = 1_000_000;
        p.lanelet_sequence = vec![lanelet];
        p.tracked_since_us = since_us;
        p.past = (0..=1)
            .rev()
            .map(|k| {
                let t = k as f64 * 0.25;
                let w = offset_to_wgs84(ORIGIN, from.0 - v.0 * t, from.1 - v.1 * t);
                PredictedPosition { at_us: 1_000_000 - k * 250_000, latitude: w.lat, longitude: w.lon, lanelet_id: 0 }
            })
            .collect();
        p
    };
    let bike = |id, v: (f64, f64), p| path(id, TravelMode::Bicycle, (0.0, -10.0), v, p);
    let car = path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0);
    let mut fresh_right = seen(bike(2, (5.0, 0.0), 0.3), 1, 750_000, 18);
    fresh_right.rank = 1;
    let fresh = [seen(bike(2, (0.0, 5.0), 0.7), 1, 750_000, 17), fresh_right];
    let mut witness_straight = seen(bike(7, (0.0, 5.0), 0.1), 2, 1, 17);
    witness_straight.rank = 1;
    let witness = [seen(bike(7, (5.0, 0.0), 0.9), 2, 1, 18), witness_straight];
    let risk_of_sensor_1 = |paths: &[PredictedPath]| {
        let risks = detect(paths, 1_000_000, &DetectorConfig { info_min_probability: 0.05, ..lenient() });
        risks.iter().find(|r| r.second.as_ref().unwrap().sensor_id == 1).map(|r| r.probability)
    };
    // Straight: 0.7 by sensor 1 (tracked 0.25 s), 0.1 by sensor 2 (tracked 1 s).
    let fused = |seen_1: f64, seen_2: f64| (0.7 * seen_1 + 0.1 * seen_2) / (seen_1 + seen_2);
    let all: Vec<PredictedPath> = [&[car.clone()][..], &fresh, &witness].concat();
    assert!((risk_of_sensor_1(&all).unwrap() - fused(0.25, 0.999_999)).abs() < 1e-9);
    let apart: Vec<PredictedPath> = witness
        .iter()
        .map(|p| {
            let mut p = p.clone();
            for q in p.past.iter_mut().chain(p.positions.iter_mut()) {
                q.latitude += 10.0 / 111_000.0;
            }
            p
        })
        .collect();
    let all: Vec<PredictedPath> = [&[car.clone()][..], &fresh, &apart].concat();
    assert!((risk_of_sensor_1(&all).unwrap() - 0.7).abs() < 1e-9);
    // Sensor 2 has seen the cyclist for less time (0.15 s): sensor 1's estimate weighs more.
    let shorter: Vec<PredictedPath> =
        witness.iter().cloned().map(|mut p| (p.tracked_since_us = 850_000, p).1).collect();
    let all: Vec<PredictedPath> = [&[car][..], &fresh, &shorter].concat();
    assert!((risk_of_sensor_1(&all).unwrap() - fused(0.25, 0.15)).abs() < 1e-9);
}

#[test]
fn two_cameras_judge_a_turn_by_the_lane_position_both_measured() {
    // A rider 2.5 m before the line of approach 13: camera 1 measured her 0.20 m right of the
    // centerline over its last second (8 points) and has her turning right at 0.75, camera 2
    // measured 0.0 m (8 points) and has her going straight at 0.95. Judged by both cameras'
    // seconds, each camera's own odds are scaled by the same likelihood ratio.
    let second = |offset_m: f64| LaneSecond { offset_m, points: 8, to_go_m: 2.5 };
    let kept =
        |offset_m: f64| LanePosition { approach_lanelet_id: 13, seconds: vec![second(offset_m)], centred_share: 0.0 };
    let rider = |sensor_id: u32, offset_m: f64, straight: f64| {
        [(Turn::Straight, straight), (Turn::Right, 1.0 - straight)].map(|(turn, probability)| PredictedPath {
            sensor_id,
            turn: turn as i32,
            lane_position: Some(kept(offset_m)),
            ..path(2, TravelMode::Bicycle, (0.0, -10.0), (0.0, 5.0), probability)
        })
    };
    let (one, two) = (rider(1, -0.20, 0.25), rider(2, 0.0, 0.95));
    let (one, two): (Vec<&PredictedPath>, Vec<&PredictedPath>) = (one.iter().collect(), two.iter().collect());
    let odds = |p: &[f64]| p[0] / p[1];
    let ratio = |seconds: &[LaneSecond]| {
        let l = |turn: Turn| lateral_likelihood(TravelMode::Bicycle, turn, seconds, 0.0);
        l(Turn::Straight) / l(Turn::Right)
    };
    let both = ratio(&[second(-0.20), second(0.0)]);
    let (shared_one, shared_two) = (with_shared_lane_position(&one, &two), with_shared_lane_position(&two, &one));
    let expected_one = odds(&[0.25, 0.75]) * both / ratio(&[second(-0.20)]);
    assert!((odds(&shared_one) / expected_one - 1.0).abs() < 1e-9, "{shared_one:?}");
    let expected_two = odds(&[0.95, 0.05]) * both / ratio(&[second(0.0)]);
    assert!((odds(&shared_two) / expected_two - 1.0).abs() < 1e-9, "{shared_two:?}");
    // Camera 1 now leans to straight, camera 2 less sure of it; each still sums to one.
    assert!(shared_one[0] > 0.5 && shared_two[0] < 0.95, "{shared_one:?} {shared_two:?}");
    assert!((shared_one.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    // Lane positions on different approaches (two road users after all), or none: unchanged.
    let elsewhere = rider(2, 0.0, 0.95).map(|mut p| {
        p.lane_position.as_mut().unwrap().approach_lanelet_id = 14;
        p
    });
    assert_eq!(with_shared_lane_position(&one, &elsewhere.iter().collect::<Vec<_>>()), vec![0.25, 0.75]);
    let unmeasured = rider(2, 0.0, 0.95).map(|p| PredictedPath { lane_position: None, ..p });
    assert_eq!(with_shared_lane_position(&one, &unmeasured.iter().collect::<Vec<_>>()), vec![0.25, 0.75]);
}

#[test]
fn a_route_of_the_other_track_alike_to_several_tells_nothing_between_them() {
    // A pedestrian 2 m before the kerb: sensor 1 (tracked 0.25 s) has her walking on across
    // the car's lane (lanelets 10, 20; 0.9) or stopping at the kerb (10; 0.1); sensor 2
    // (tracked 1 s) only stopping (10; 1.0: too slow for it to tell). That route is alike to
    // both of sensor 1's: it lends each its own share, and walking on stays at 0.9 (lent
    // whole to both, it made her walk on at 0.98).
    let at_kerb = |mut p: PredictedPath, sensor_id: u32, since_us: u64, lanelets: Vec<i64>, rank: u32| {
        (p.sensor_id, p.observed_at_us, p.tracked_since_us, p.rank) = (sensor_id, 1_000_000, since_us, rank);
        p.lanelet_sequence = lanelets;
        p.past = [(750_000, -2.35), (1_000_000, -2.0)]
            .map(|(at_us, y)| {
                let w = offset_to_wgs84(ORIGIN, 0.0, y);
                PredictedPosition { at_us, latitude: w.lat, longitude: w.lon, lanelet_id: 10 }
            })
            .to_vec();
        p
    };
    let walker = |id, v: (f64, f64), p| path(id, TravelMode::Pedestrian, (0.0, -2.0), v, p);
    let car = path(1, TravelMode::Car, (-20.0, 1.0), (10.0, 0.0), 1.0);
    let paths = [
        car,
        at_kerb(walker(2, (0.0, 1.4), 0.9), 1, 750_000, vec![10, 20], 0),
        at_kerb(walker(2, (0.0, 0.0), 0.1), 1, 750_000, vec![10], 1),
        at_kerb(walker(7, (0.0, 0.0), 1.0), 2, 1, vec![10], 0),
    ];
    let risks = detect(&paths, 1_000_000, &DetectorConfig { info_min_probability: 0.05, ..lenient() });
    let of = |sensor_id: u32| risks.iter().find(|r| r.second.as_ref().unwrap().sensor_id == sensor_id);
    assert!((of(1).unwrap().probability - 0.9).abs() < 1e-9, "{risks:?}");
    assert!(of(2).is_none(), "stopping at the kerb is no risk: {risks:?}");
}

#[test]
fn a_stall_in_the_measured_past_is_no_stop_in_the_conflict_area() {
    // A pedestrian walking north at 1.3 m/s crossed y = -0.65 between 0.5 and 0.75 s, where
    // two of her measured points lie only 6 cm apart (noise); a car along y = -0.65 gets
    // there at 3.75 s. She left 3 s before: PET about 2 s, no risk. Timed by that one
    // segment, she would have stood there for seconds.
    let mut walker = path(2, TravelMode::Pedestrian, (0.0, 0.0), (0.0, 1.3), 1.0);
    walker.observed_at_us = 1_000_000;
    walker.past = [(0, -1.3), (250_000, -0.95), (500_000, -0.68), (750_000, -0.62), (1_000_000, 0.0)]
        .map(|(at_us, y)| {
            let w = offset_to_wgs84(ORIGIN, 0.0, y);
            PredictedPosition { at_us, latitude: w.lat, longitude: w.lon, lanelet_id: 0 }
        })
        .to_vec();
    let mut car = path(1, TravelMode::Car, (-27.5, -0.65), (10.0, 0.0), 1.0);
    car.observed_at_us = 1_000_000;
    assert_eq!(detect(&[car.clone(), walker.clone()], 1_000_000, &lenient()), vec![]);
    // Two seconds later she would have been in its way.
    let late = PredictedPath { observed_at_us: 1_000_000, ..path(1, TravelMode::Car, (-7.5, -0.65), (10.0, 0.0), 1.0) };
    assert_eq!(detect(&[late, walker], 1_000_000, &lenient()).len(), 1);
}

#[test]
fn paths_that_pass_apart_in_time_are_no_risk() {
    // Same crossing point, but the cyclist gets there 2 s after the car.
    let paths = [
        path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0),
        path(2, TravelMode::Bicycle, (0.0, -20.0), (0.0, 5.0), 1.0),
    ];
    assert!(detect(&paths, 1_000_000, &lenient()).is_empty());
}

#[test]
fn alternatives_add_up_over_the_routes_kept_and_unlikely_risks_are_dropped() {
    let crossing = |id, p| path(id, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), p);
    let away = |p| PredictedPath { rank: 1, ..path(1, TravelMode::Car, (-20.0, 0.0), (0.0, -10.0), p) };
    let bike = path(2, TravelMode::Bicycle, (0.0, -10.0), (0.0, 5.0), 1.0);
    let mut left = crossing(1, 0.25);
    left.rank = 1;
    // Two routes through the crossing, one away (the predictor kept 0.9 of the probability):
    // 0.8 of the 0.9 conflict.
    let risks = detect(&[crossing(1, 0.55), left, away(0.1), bike.clone()], 1_000_000, &lenient());
    assert!((risks[0].probability - 0.8 / 0.9).abs() < 1e-3, "{risks:?}");
    let unlikely = detect(&[crossing(1, 0.1), away(0.9), bike], 1_000_000, &lenient());
    assert!(unlikely.is_empty(), "{unlikely:?}");
}

#[test]
fn a_car_behind_a_cyclist_in_its_lane_follows_unless_it_closes_too_fast() {
    // Both east in one line, the car 12 m behind: at 6 m/s on her 5 it can follow by braking
    // gently; at 12 m/s it would need more than 3 m/s² within the 8.85 m between them.
    let bike = path(2, TravelMode::Bicycle, (0.0, 0.2), (5.0, 0.0), 1.0);
    let car = |speed: f64| path(1, TravelMode::Car, (-12.0, 0.0), (speed, 0.0), 1.0);
    assert!(detect(&[car(6.0), bike.clone()], 1_000_000, &lenient()).is_empty());
    assert_eq!(detect(&[car(12.0), bike], 1_000_000, &lenient()).len(), 1);
}

#[test]
fn neighbours_on_parallel_lanes_are_no_risk_unless_they_touch() {
    // A car overtaking a cyclist on the bike lane 2.0 m beside it: areas overlap (3 m reach)
    // but the paths never cross.
    let car = path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0);
    let beside = path(2, TravelMode::Bicycle, (-5.0, 2.0), (5.0, 0.0), 1.0);
    assert!(detect(&[car.clone(), beside], 1_000_000, &lenient()).is_empty());
    // 1.2 m beside it they would touch (half widths 1.0 + 0.4).
    let touching = path(2, TravelMode::Bicycle, (-5.0, 1.2), (5.0, 0.0), 1.0);
    assert_eq!(detect(&[car, touching], 1_000_000, &lenient()).len(), 1);
}

#[test]
fn vehicle_pairs_and_vru_pairs_are_not_warned_by_default() {
    let cars = [
        path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0),
        path(2, TravelMode::Car, (0.0, -20.0), (0.0, 10.0), 1.0),
    ];
    assert!(detect(&cars, 1_000_000, &lenient()).is_empty());
    assert_eq!(detect(&cars, 1_000_000, &DetectorConfig { vru_only: false, ..lenient() }).len(), 1);
    let vrus = [
        path(1, TravelMode::Bicycle, (-10.0, 0.0), (5.0, 0.0), 1.0),
        path(2, TravelMode::Pedestrian, (0.0, -2.0), (0.0, 1.0), 1.0),
    ];
    assert!(detect(&vrus, 1_000_000, &lenient()).is_empty());
}

#[test]
fn a_car_passing_just_after_a_pedestrian_is_a_near_miss_by_predicted_pet() {
    // A pedestrian (0.5 m) running across the car's lane northwards at 2 m/s passes its
    // middle 1.2 s after the paths' start and has left the car's width 0.575 s later; the
    // car (4.5 m, 10 m/s) passes at 2.95 s and enters 0.25 s before: predicted PET 0.925 s,
    // and the two are never within reach at one time.
    let seen = |mut p: PredictedPath| {
        p.observed_at_us = 1_000_000;
        p
    };
    let ped = seen(path(2, TravelMode::Pedestrian, (0.0, -2.4), (0.0, 2.0), 1.0));
    let car = seen(path(1, TravelMode::Car, (-29.5, 0.0), (10.0, 0.0), 1.0));
    // With the conflict area as the truth has it (both widths across the other's path), the
    // predicted PET is 0.71 s.
    let strict = DetectorConfig { max_pet_s: 0.5, spread_mps: 0.0, ..lenient() };
    assert!(detect(&[car.clone(), ped.clone()], 1_000_000, &strict).is_empty());
    let risks = detect(&[car.clone(), ped.clone()], 1_000_000, &DetectorConfig { max_pet_s: 1.0, ..strict });
    assert_eq!(risks.len(), 1, "{risks:?}");
    // The car enters the conflict area 2.61 s ahead.
    assert!((risks[0].time_to_collision_s - 2.61).abs() < 0.05, "{risks:?}");
    // Only risks soon enough are reported.
    let soon = DetectorConfig { max_pet_s: 1.0, info_max_ttc_s: 2.0, ..strict };
    assert!(detect(&[car, ped], 1_000_000, &soon).is_empty());
}

#[test]
fn a_car_leaving_a_turn_is_judged_by_where_it_came_from() {
    // A car that came from the west (7.5 m/s) and now turns south at (0, 0); a pedestrian
    // crosses x = 0 at y = 4 one second from now. Had the car come from the north along its
    // present heading, it would have left that spot 0.4 s before the pedestrian steps in: a
    // near miss by PET. It came from the west: the paths never cross.
    let past = |from: (f64, f64)| -> Vec<PredictedPosition> {
        (0..=4)
            .map(|k| {
                let f = 1.0 - k as f64 / 4.0;
                let w = offset_to_wgs84(ORIGIN, from.0 * f, from.1 * f);
                PredictedPosition { at_us: k * 250_000, latitude: w.lat, longitude: w.lon, lanelet_id: 0 }
            })
            .collect()
    };
    let car = |from| PredictedPath {
        observed_at_us: 1_000_000,
        past: past(from),
        ..path(1, TravelMode::Car, (0.0, 0.0), (0.0, -7.5), 1.0)
    };
    let ped =
        PredictedPath { observed_at_us: 1_000_000, ..path(2, TravelMode::Pedestrian, (-1.5, 4.0), (1.5, 0.0), 1.0) };
    let cfg = DetectorConfig { max_pet_s: 1.0, spread_mps: 0.0, ..lenient() };
    assert_eq!(detect(&[car((0.0, 7.5)), ped.clone()], 1_000_000, &cfg).len(), 1);
    assert!(detect(&[car((-7.5, 0.0)), ped], 1_000_000, &cfg).is_empty());
}

/// Found by fuzzing (target `state`): positions out of time order made the interpolation
/// subtract past zero.
#[test]
fn positions_out_of_time_order_are_no_panic() {
    let car = path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0);
    let mut bike = path(2, TravelMode::Bicycle, (0.0, -10.0), (0.0, 5.0), 1.0);
    bike.positions.reverse();
    for q in &mut bike.positions {
        q.at_us += 62_000;
    }
    detect(&[car, bike], 1_000_000, &lenient());
}

#[test]
fn paths_with_different_timestamps_are_compared_interpolated() {
    // Two cameras: the cyclist's positions are 62 ms off the car's grid; head-on at the
    // crossing point all the same.
    let car = path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0);
    let mut bike = path(2, TravelMode::Bicycle, (0.0, -10.0), (0.0, 5.0), 1.0);
    for q in &mut bike.positions {
        q.at_us += 62_000;
    }
    let cfg = DetectorConfig { max_pet_s: 0.0, spread_mps: 0.0, ..Default::default() };
    let risks = detect(&[car, bike], 1_000_000, &cfg);
    assert_eq!(risks.len(), 1);
    assert!(risks[0].expected_at_us < 3_000_000 && risks[0].expected_at_us > 2_000_000, "{risks:?}");
}

fn locals_of(paths: &[&PredictedPath]) -> Vec<Vec<(f64, f64)>> {
    paths
        .iter()
        .map(|p| {
            p.positions.iter().map(|q| wgs84_to_offset(ORIGIN, Wgs84 { lat: q.latitude, lon: q.longitude })).collect()
        })
        .collect()
}

/// Which objects' pairs [`pairs_to_test`] picks.
/// The same-time reach only: no growth with the horizon, no predicted-PET widening.
fn same_time() -> DetectorConfig {
    DetectorConfig { spread_mps: 0.0, max_pet_s: 0.0, ..Default::default() }
}

fn picked(paths: &[PredictedPath], cfg: &DetectorConfig) -> Vec<(u32, u32)> {
    let refs: Vec<&PredictedPath> = paths.iter().collect();
    pairs_to_test(&refs, &locals_of(&refs), cfg)
        .into_iter()
        .map(|(i, j)| (paths[i].object_id, paths[j].object_id))
        .collect()
}

#[test]
fn a_close_vehicle_vru_pair_survives_the_cap_among_hundreds_of_far_pairs() {
    // 20 cars and 20 cyclists side by side, 2.5 m apart, all going east: 400 pairs within
    // reach (3 m) that never cross or touch, so no risk — and a car and a cyclist about to
    // meet at a crossing 50 m south, last in the list.
    let mut paths: Vec<PredictedPath> = (0..20)
        .flat_map(|k| {
            [
                path(k, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0),
                path(100 + k, TravelMode::Bicycle, (-20.0, 2.5), (10.0, 0.0), 1.0),
            ]
        })
        .collect();
    paths.push(path(900, TravelMode::Car, (-20.0, -50.0), (10.0, 0.0), 1.0));
    paths.push(path(901, TravelMode::Bicycle, (0.0, -60.0), (0.0, 5.0), 1.0));
    let uncapped = DetectorConfig { max_pairs: usize::MAX, ..same_time() };
    assert_eq!(picked(&paths, &uncapped).len(), 401);
    let capped = DetectorConfig { max_pairs: 10, ..same_time() };
    let pairs = picked(&paths, &capped);
    assert_eq!(pairs.len(), 10, "the cap bounds the pairs tested");
    assert!(pairs.contains(&(900, 901)), "{pairs:?}");
    let risks = detect(&paths, 1_000_000, &capped);
    assert_eq!(risks.len(), 1);
    let ids = (risks[0].first.unwrap().object_id, risks[0].second.unwrap().object_id);
    assert_eq!(ids, (900, 901));
    assert_eq!(detect(&paths, 1_000_000, &uncapped), risks, "the far pairs were no risk anyway");
}

#[test]
fn of_pairs_about_to_meet_the_soonest_are_tested_first() {
    let paths = [
        // Meet at (0, 0) after 2 s.
        path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0),
        path(2, TravelMode::Bicycle, (0.0, -10.0), (0.0, 5.0), 1.0),
        // Meet at (0, 30) after 1 s.
        path(3, TravelMode::Car, (-10.0, 30.0), (10.0, 0.0), 1.0),
        path(4, TravelMode::Bicycle, (0.0, 25.0), (0.0, 5.0), 1.0),
    ];
    assert_eq!(picked(&paths, &same_time()), vec![(1, 2), (3, 4)]);
    assert_eq!(picked(&paths, &DetectorConfig { max_pairs: 1, ..Default::default() }), vec![(3, 4)]);
}

#[test]
fn pairs_that_never_come_within_reach_are_not_tested() {
    let paths = [
        path(1, TravelMode::Car, (-20.0, 0.0), (10.0, 0.0), 1.0),
        // Same crossing, 2 s later: apart in time.
        path(2, TravelMode::Bicycle, (0.0, -20.0), (0.0, 5.0), 1.0),
        // Far away.
        path(3, TravelMode::Pedestrian, (200.0, 200.0), (1.0, 0.0), 1.0),
    ];
    assert!(picked(&paths, &same_time()).is_empty());
}

proptest::proptest! {
    /// The segment boxes only save work: every crossing found without them (boxes that
    /// cover the plane) is found with them, at the same place.
    #[test]
    fn segment_boxes_hide_no_crossing(
        a in proptest::collection::vec((-20.0..20.0f64, -20.0..20.0f64), 2..10),
        b in proptest::collection::vec((-20.0..20.0f64, -20.0..20.0f64), 2..10),
    ) {
        let everywhere = |p: &[(f64, f64)]| vec![[f64::NEG_INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::INFINITY]; p.len() - 1];
        let (all_a, all_b) = (everywhere(&a), everywhere(&b));
        let (boxes_a, boxes_b) = (segment_boxes(&a), segment_boxes(&b));
        let found = |x: Polyline, y: Polyline| {
            crossing_points(x, y).iter().map(|c| (c.a.0, c.b.0, c.at.0.to_bits(), c.at.1.to_bits())).collect::<Vec<_>>()
        };
        let with = found(Polyline { points: &a, boxes: &boxes_a }, Polyline { points: &b, boxes: &boxes_b });
        let without = found(Polyline { points: &a, boxes: &all_a }, Polyline { points: &b, boxes: &all_b });
        proptest::prop_assert_eq!(with, without);
    }

    /// Ranking prunes only pairs that cannot conflict: every pair the full test finds a
    /// conflict for (with a chance that could count) is among those picked (straight and turning paths, any modes).
    #[test]
    fn ranking_never_drops_a_conflict(
        users in proptest::collection::vec(
            (0..4i32, -30.0..30.0f64, -30.0..30.0f64, -12.0..12.0f64, -12.0..12.0f64, -12.0..12.0f64, -12.0..12.0f64, 0..6u64),
            2..24,
        )
    ) {
        let paths: Vec<PredictedPath> = users
            .iter()
            .enumerate()
            .map(|(k, &(mode, x, y, vx1, vy1, vx2, vy2, late))| {
                // Turning half way; some paths start later (their first steps unknown).
                let mut p = path(k as u32, TravelMode::try_from(mode).unwrap(), (x, y), (vx1, vy1), 1.0);
                for (i, q) in p.positions.iter_mut().enumerate().skip(6) {
                    let t = (i - 5) as f64 * 0.25;
                    let (e, n) = wgs84_to_offset(ORIGIN, Wgs84 { lat: q.latitude, lon: q.longitude });
                    let w = offset_to_wgs84(ORIGIN, e + (vx2 - vx1) * t, n + (vy2 - vy1) * t);
                    (q.latitude, q.longitude) = (w.lat, w.lon);
                }
                p.positions.drain(..late as usize);
                p
            })
            .collect();
        let cfg = DetectorConfig { vru_only: false, max_pairs: usize::MAX, ..Default::default() };
        let refs: Vec<&PredictedPath> = paths.iter().collect();
        let locals = locals_of(&refs);
        let picked = pairs_to_test(&refs, &locals, &cfg);
        let origin = Wgs84 { lat: refs[0].positions[0].latitude, lon: refs[0].positions[0].longitude };
        let locals_detect: Vec<Vec<(f64, f64)>> = refs
            .iter()
            .map(|p| p.positions.iter().map(|q| wgs84_to_offset(origin, Wgs84 { lat: q.latitude, lon: q.longitude })).collect())
            .collect();
        for i in 0..refs.len() {
            for j in i + 1..refs.len() {
                let modes = (TravelMode::try_from(refs[i].mode).unwrap(), TravelMode::try_from(refs[j].mode).unwrap());
                if !relevant(&cfg, modes.0, modes.1) {
                    continue;
                }
                let (ti, tj) = (Timed::of(refs[i], &locals_detect[i], origin), Timed::of(refs[j], &locals_detect[j], origin));
                // Any conflict a risk could count (a thousandth likely or more).
                if conflict((refs[i], &ti), (refs[j], &tj), origin, cfg.max_pet_s).is_some_and(|c| c.probability >= 1e-3) {
                    proptest::prop_assert!(picked.contains(&(i, j)), "conflict {i}-{j} not picked");
                }
            }
        }
    }
}

#[test]
fn the_declared_keys_are_the_ones_read_with_their_defaults() {
    let read = |entries: &[(&str, &str)]| DetectorConfig::from_config(entries.iter().copied());
    assert_eq!(read(&crate::config::declared_defaults(KEYS)).unwrap(), DetectorConfig::default());
    assert_eq!(crate::config::keys_read_without_refusal(KEYS, read), Vec::<&str>::new());
}

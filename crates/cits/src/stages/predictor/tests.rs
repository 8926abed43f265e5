// Over 600 lines: the predictor's unit tests, one per behaviour, sharing the test map and track builders.
//! The predictor's unit tests.

use super::intent::{normal_density, turn_speeds_mps};
use super::*;
use crate::proto::{LaneGraph, LaneSecond, Lanelet, Turn};
use crate::shared::geo::wgs84_to_offset;

const ORIGIN: Wgs84 = Wgs84 { lat: 47.8101, lon: 13.0518 };

/// [`super::predict`] with nothing learned yet (neutral priors).
fn predict(map: &LaneMap, t: &MatchedTrajectory, cfg: &PredictorConfig) -> Vec<PredictedPath> {
    super::predict(map, t, cfg, &TurnPriors::default())
}

fn lanelet(id: i64, from: (f64, f64), to: (f64, f64), successors: Vec<i64>, turn: Turn) -> Lanelet {
    let (a, b) = (offset_to_wgs84(ORIGIN, from.0, from.1), offset_to_wgs84(ORIGIN, to.0, to.1));
    Lanelet {
        id,
        mode: TravelMode::Car as i32,
        centerline: vec![a.lon, a.lat, b.lon, b.lat],
        successors,
        turn: turn as i32,
        ..Default::default()
    }
}

/// A turn connector from the stop line at the origin: a quarter circle of 10 m radius (drawn
/// with 9 points) to the left or right.
fn connector(id: i64, turn: Turn) -> Lanelet {
    let side = if turn == Turn::Left { -1.0 } else { 1.0 };
    let centerline = (0..=8)
        .flat_map(|i| {
            let a = std::f64::consts::FRAC_PI_2 * f64::from(i) / 8.0;
            let w = offset_to_wgs84(ORIGIN, side * 10.0 * (1.0 - a.cos()), 10.0 * a.sin());
            [w.lon, w.lat]
        })
        .collect();
    Lanelet { centerline, ..lanelet(id, (0.0, 0.0), (0.0, 0.0), vec![], turn) }
}

/// A northbound approach (60 m) with left, straight and right connectors (the turns round
/// 10 m radii: taken at 2.8–6.3 m/s by car) into 40 m exits.
fn map() -> LaneMap {
    LaneMap::new(&LaneGraph {
        origin_latitude: ORIGIN.lat,
        origin_longitude: ORIGIN.lon,
        lanelets: vec![
            lanelet(1, (0.0, -60.0), (0.0, 0.0), vec![2, 3, 4], Turn::None),
            connector(2, Turn::Left),
            lanelet(3, (0.0, 0.0), (0.0, 20.0), vec![5], Turn::Straight),
            connector(4, Turn::Right),
            lanelet(5, (0.0, 20.0), (0.0, 60.0), vec![], Turn::None),
        ],
        ..Default::default()
    })
}

/// A car on the approach doing 10 m/s, last seen `to_go` metres before the stop line.
fn car(to_go: f64) -> MatchedTrajectory {
    let point = |ms: u64, y: f64| {
        let w = offset_to_wgs84(ORIGIN, 0.0, y);
        MatchedPoint {
            measured_at_us: ms * 1000,
            latitude: w.lat,
            longitude: w.lon,
            lanelet_id: 1,
            station_m: 60.0 + y,
            offset_m: 0.0,
            speed_mps: None,
            heading_deg: None,
        }
    };
    MatchedTrajectory {
        mode: TravelMode::Car as i32,
        object_id: 9,
        points: vec![point(0, -to_go - 10.0), point(500, -to_go - 5.0), point(1000, -to_go)],
        ..Default::default()
    }
}

/// The `k`-th point of a track observed every 125 ms from 1 s, at `at` (local metres).
fn sampled(k: u64, at: (f64, f64), lanelet_id: i64, station_m: f64) -> MatchedPoint {
    let w = offset_to_wgs84(ORIGIN, at.0, at.1);
    MatchedPoint {
        measured_at_us: 1_000_000 + k * 125_000,
        latitude: w.lat,
        longitude: w.lon,
        lanelet_id,
        station_m,
        offset_m: 0.0,
        speed_mps: None,
        heading_deg: None,
    }
}

/// A car on the approach (lanelet 1) observed every 125 ms for 1.5 s, its last point
/// `to_go` metres before the line at `speed`, having slowed at `decel` m/s².
fn approaching(to_go: f64, speed: f64, decel: f64) -> MatchedTrajectory {
    let points = (0..=12)
        .map(|k| {
            let ago = (12 - k) as f64 * 0.125;
            let y = -to_go - (speed * ago + 0.5 * decel * ago * ago);
            sampled(k, (0.0, y), 1, 60.0 + y)
        })
        .collect();
    MatchedTrajectory { mode: TravelMode::Car as i32, object_id: 9, points, ..Default::default() }
}

#[test]
fn far_from_the_junction_no_turn_is_ruled_in_or_out() {
    // 10 m/s, 30 m before the line: turning needs only 1.1 m/s² yet, and every way has its
    // share: the prior is neutral (how traffic splits is the junction's, not the model's).
    let paths = predict(&map(), &car(30.0), &PredictorConfig::default());
    let mut routes: Vec<&[i64]> = paths.iter().map(|p| p.lanelet_sequence.as_slice()).collect();
    routes.sort();
    // 40 m in 4 s: 10 m into the straight connector (20 m long).
    assert_eq!(routes, vec![&[1, 2][..], &[1, 3], &[1, 4]]);
    for p in &paths {
        assert!((0.2..0.5).contains(&p.probability), "{:?} {}", p.lanelet_sequence, p.probability);
    }
    assert_eq!(paths.iter().map(|p| p.rank).collect::<Vec<_>>(), vec![0, 1, 2]);
}

#[test]
fn the_speed_profile_tells_a_turn_from_going_straight() {
    let p = |t: &MatchedTrajectory, route: &[i64]| {
        let paths = predict(&map(), t, &PredictorConfig::default());
        paths.iter().find(|p| p.lanelet_sequence == route).map_or(0.0, |p| p.probability)
    };
    // 9 m/s, 6 m before the line: a turn (at most 7 m/s) needs 2.7 m/s² of braking now.
    // Braking, it keeps 0.35 m left of the centerline (its lane position tells which way).
    let keeping = |mut t: MatchedTrajectory, offset: f64| {
        t.points.iter_mut().for_each(|q| q.offset_m = offset);
        t
    };
    let braking = keeping(approaching(6.0, 9.0, 2.5), 0.35);
    let cruising = approaching(6.0, 9.0, 0.0);
    assert!(p(&braking, &[1, 2]) + p(&braking, &[1, 4]) > 0.8, "a braking car turns");
    assert!(p(&braking, &[1, 2]) > 0.75, "to the side it keeps to: left");
    let right = keeping(approaching(6.0, 9.0, 2.5), -0.35);
    assert!(p(&right, &[1, 4]) > 0.75, "or right");
    // On the centerline it is no turn the lane position tells, and it brakes: one it may
    // take either way, or a stop.
    let centred = approaching(6.0, 9.0, 2.5);
    assert!(p(&centred, &[1, 2]) < p(&braking, &[1, 2]));
    assert!(p(&cruising, &[1, 3, 5]) > 0.95, "one keeping its speed goes straight");
    // 14 m/s, 10 m before the line: turning would take braking at 7 m/s²: straight.
    assert!(p(&approaching(10.0, 14.0, 0.0), &[1, 3, 5]) > 0.99);
}

#[test]
fn braking_the_sensor_measured_tells_a_turn_before_the_positions_do() {
    let p_turn = |t: &MatchedTrajectory| {
        let paths = predict(&map(), t, &PredictorConfig::default());
        paths.iter().filter(|p| p.lanelet_sequence != [1, 3, 5]).map(|p| p.probability).sum::<f64>()
    };
    // Positions of one cruising at 7 m/s, 4 m before the line (a turn needs 3.1 m/s² from
    // here: too late by its positions alone) ...
    let cruising = approaching(4.0, 7.0, 0.0);
    // ... but the sensor's speeds show it braking at 2.5 m/s² over the last half second,
    // down to 5.5 m/s: nearly the turn's speed. Position noise hides that onset (and it
    // only shows in positions half a second later); the measured speeds do not.
    let mut braking = cruising.clone();
    let n = braking.points.len();
    for (k, q) in braking.points.iter_mut().enumerate() {
        let ago = (n - 1 - k) as f64 * 0.125;
        q.speed_mps = Some(if ago > 0.5 { 6.75 } else { 5.5 + 2.5 * ago });
    }
    let odds = |p: f64| p / (1.0 - p);
    let (braking, cruising) = (p_turn(&braking), p_turn(&cruising));
    assert!(odds(braking) > 2.0 * odds(cruising), "braking {braking} vs cruising {cruising}");
}

/// A rider's measured speeds (8 a second, ±0.15 m/s of noise) over 3 s up to `until` metres
/// before the line, speed given by `speed_at` metres before it.
fn profile(until: f64, speed_at: impl Fn(f64) -> f64) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    let mut d = until;
    for k in 0..24 {
        let v = speed_at(d);
        out.push((d, v + if k % 2 == 0 { 0.15 } else { -0.15 }));
        d += v / 8.0; // going back in time: further before the line
    }
    out.reverse();
    out
}

#[test]
fn the_speed_profile_against_the_distance_to_the_line_tells_a_turn() {
    // A right turn round a 6 m bend (ours: 5.6–5.9 m): taken at 2.2–4.2 m/s.
    let speeds = turn_speeds_mps(TravelMode::Bicycle, Some(6.0)).unwrap();
    let ratio = |p: &[(f64, f64)]| profile_turn_likelihoods([Some(speeds)], p)[0].unwrap();
    // Cruising at 5.7 m/s, slowed at 2 m/s² to 3.9 by the line and keeping that on the
    // connector (2 m past the line): braking ended a second ago, the profile still shows it.
    let turned = profile(-2.0, |d| 5.7f64.min((3.9f64 * 3.9 + 4.0 * d.max(0.0)).sqrt()));
    assert!(ratio(&turned) > 10.0, "{}", ratio(&turned));
    // Keeping 5.7 m/s up to the line: straight on.
    let cruising = profile(0.5, |_| 5.7);
    assert!(ratio(&cruising) < 0.1, "{}", ratio(&cruising));
    // At 4 m/s all along — a speed turns are taken at: the speed tells nothing either way.
    let steady = profile(-1.0, |_| 4.0);
    assert!((0.2..5.0).contains(&ratio(&steady)), "{}", ratio(&steady));
    // At 4.3 m/s through the line and 4 m on: of the turn speeds, only those at 4.3 m/s or
    // above keep it — a rider this fast who means to turn has mostly slowed by now. (A share
    // of turning riders keeping any speed within the turn speeds counted those twice: 0.8.)
    let through = profile(-4.0, |_| 4.3);
    assert!(ratio(&through) < 0.5, "{}", ratio(&through));
    // Braking to a stop at the line is yielding, not slowing for a turn.
    let yielding = profile(1.0, |d| 5.0f64.min((4.0 * (d - 0.5).max(0.0)).sqrt()));
    assert!(ratio(&yielding) < 1.0, "{}", ratio(&yielding));
    // Half a second into braking, 2 m before the line: the first slower samples show it.
    let onset = profile(2.0, |d| 5.7f64.min((3.9f64 * 3.9 + 4.0 * d.max(0.0)).sqrt()));
    assert!(ratio(&onset) > 3.0, "{}", ratio(&onset));
    // Too few speeds: no judgement.
    assert!(profile_turn_likelihoods([Some(speeds)], &turned[..5])[0].is_none());
    // Pedestrians do not slow for turns, nor does anyone for a connector without a bend.
    assert_eq!(turn_speeds_mps(TravelMode::Pedestrian, Some(6.0)), None);
    assert_eq!(turn_speeds_mps(TravelMode::Bicycle, None), None);
}

#[test]
fn a_stop_inside_the_junction_is_one_turning_yielding_a_stop_at_the_line_goes_straight() {
    // A car braking from 8 m/s at 2 m/s² to a stop `stop` metres past the line (negative),
    // standing a second, pulling away at 1.5 m/s²: sampled at 8 Hz, measured ±0.15 m/s.
    let stopped_at = |stop: f64| {
        let mut samples = Vec::new();
        let (mut d, mut v) = (stop + 16.0, 8.0);
        while v > 0.0 {
            samples.push((d, v));
            d -= v / 8.0;
            v -= 2.0 / 8.0;
        }
        samples.extend([(d, 0.0); 8]);
        for _ in 0..8 {
            v = v.max(0.0) + 1.5 / 8.0;
            d -= v / 8.0;
            samples.push((d, v));
        }
        samples
            .iter()
            .enumerate()
            .map(|(k, &(d, v))| (d, v + if k % 2 == 0 { 0.15 } else { -0.15 }))
            .collect::<Vec<_>>()
    };
    let ratio =
        |p: &[(f64, f64)]| profile_turn_likelihoods([turn_speeds_mps(TravelMode::Car, Some(8.0))], p)[0].unwrap();
    // 6 m into the junction, short of the crosswalk it turns across: turning, letting a
    // pedestrian cross (it was taken for one going straight).
    assert!(ratio(&stopped_at(-6.0)) > 3.0, "{}", ratio(&stopped_at(-6.0)));
    // Waiting 10.4 m in for the whole window, short of the crosswalk, then pulling away: the
    // turn (it was taken for one going straight at a crawl).
    let waited: Vec<(f64, f64)> = stopped_at(-10.4).into_iter().filter(|&(d, v)| d < -10.0 || v < 0.2).collect();
    assert!(ratio(&waited) > 3.0, "{}", ratio(&waited));
    // At the line: yielding there, as likely going straight.
    assert!(ratio(&stopped_at(1.0)) < 1.0, "{}", ratio(&stopped_at(1.0)));
}

#[test]
fn a_braking_car_is_predicted_to_slow_down() {
    // 8 m/s braking at 2 m/s² on a straight route: in 4 s it stops after 16 m (not 32 m).
    let t = approaching(40.0, 8.0, 2.0);
    let paths = predict(&map(), &t, &PredictorConfig::default());
    let end = paths[0].positions.last().unwrap();
    let end = wgs84_to_offset(ORIGIN, Wgs84 { lat: end.latitude, lon: end.longitude });
    assert!((end.1 - (-40.0 + 16.0)).abs() < 1.0, "{end:?}");
}

#[test]
fn positions_advance_at_the_tracked_speed_over_the_horizon() {
    let paths = predict(&map(), &car(50.0), &PredictorConfig::default());
    // 50 m before the line at 10 m/s: all 4 s stay on the approach, one route.
    assert_eq!(paths.len(), 1);
    let p = &paths[0];
    assert_eq!(p.positions.len(), 16);
    assert_eq!(p.positions[0].at_us, 1_000_000 + 250_000);
    let end = wgs84_to_offset(ORIGIN, Wgs84 { lat: p.positions[15].latitude, lon: p.positions[15].longitude });
    assert!(end.0.abs() < 1e-6 && (end.1 - (-50.0 + 40.0)).abs() < 1e-3, "{end:?}");
    assert!(p.positions.iter().all(|q| q.lanelet_id == 1));
}

#[test]
fn braking_on_a_turns_connector_slows_to_the_turn_not_to_a_stop() {
    // Braking at 2 m/s² from 7.5 to 4.5 m/s up the approach and 1 m along the right turn's
    // diagonal, but matched to the straight connector (they start at the same place): the
    // right turn's path slows to a turn speed and is 11 m or more along the connector in 4 s
    // (past x = 5 m on its quarter circle), not stopped 5 m on.
    let at = |s: f64| if s < 0.0 { (0.0, s) } else { (s / 2f64.sqrt(), s / 2f64.sqrt()) };
    let t = MatchedTrajectory {
        mode: TravelMode::Car as i32,
        points: (0..=12)
            .map(|k| {
                let secs = k as f64 * 0.125;
                let s = 7.5 * secs - secs * secs - 8.0;
                MatchedPoint { station_m: s.max(0.0), ..sampled(k, at(s), 3, s.max(0.0)) }
            })
            .collect(),
        ..Default::default()
    };
    let paths = predict(&map(), &t, &PredictorConfig::default());
    let right = paths.iter().find(|p| p.lanelet_sequence == vec![4]).expect("the right turn");
    let end = right.positions.last().unwrap();
    let end = wgs84_to_offset(ORIGIN, Wgs84 { lat: end.latitude, lon: end.longitude });
    assert!(end.0 > 5.0 && end.1 > 8.0, "{end:?}");
}

#[test]
fn on_a_connector_the_track_tells_which_one() {
    // Matched to the right turn's connector, but the points run straight north: the car is
    // on the straight connector, which starts at the same place.
    let mut t = car(-3.0);
    for p in &mut t.points {
        p.lanelet_id = 4;
        p.station_m = 1.0;
    }
    let paths = predict(&map(), &t, &PredictorConfig::default());
    assert_eq!(paths[0].lanelet_sequence, vec![3, 5]);
    assert!(paths[0].probability > 0.9, "{paths:?}");
    // Points along the right turn's diagonal: the right turn.
    let w = |d: f64| offset_to_wgs84(ORIGIN, d, d);
    for (p, d) in t.points.iter_mut().zip([1.0, 3.0, 5.0]) {
        (p.latitude, p.longitude) = (w(d).lat, w(d).lon);
    }
    let paths = predict(&map(), &t, &PredictorConfig::default());
    assert_eq!(paths[0].lanelet_sequence, vec![4]);
    assert!(paths[0].probability > 0.9, "{paths:?}");
}

#[test]
fn a_rider_who_kept_by_the_kerb_since_before_any_move_goes_straight() {
    // Two riders 15 cm right of the centerline over their last second, 2 m before the line:
    // as far over as one about to turn right. One has kept there for four seconds, from
    // before the move over a turn begins (15 m out); the other kept 5 cm left of the
    // centerline then.
    let second = |offset_m: f64, to_go_m: f64| LaneSecond { offset_m, points: 8, to_go_m };
    let kept = [second(-0.15, 17.0), second(-0.15, 12.0), second(-0.15, 7.0), second(-0.15, 2.0)];
    let moved = [second(0.05, 17.0), second(0.0, 12.0), second(-0.08, 7.0), second(-0.15, 2.0)];
    // On an approach where most turners move over (15 % keep the centre).
    let straight_to_right = |seconds: &[LaneSecond]| {
        lateral_likelihood(TravelMode::Bicycle, Turn::Straight, seconds, 0.15)
            / lateral_likelihood(TravelMode::Bicycle, Turn::Right, seconds, 0.15)
    };
    let newest_only = straight_to_right(&kept[3..]);
    // The newest second alone leans to the turn (0.28); the seconds before tell the two
    // apart (0.78 against 0.05).
    assert!(newest_only < 0.5, "{newest_only}");
    assert!(straight_to_right(&kept) > 2.5 * newest_only, "{}", straight_to_right(&kept));
    assert!(straight_to_right(&moved) < newest_only / 4.0, "{}", straight_to_right(&moved));
}

#[test]
fn the_normal_density_matches_its_closed_form() {
    // Independent: the product of the one-dimensional densities.
    let mut cov = vec![0.04, 0.0, 0.0, 0.09];
    let expected = (-0.5 * (0.1f64.powi(2) / 0.04 + 0.3f64.powi(2) / 0.09)).exp() / (0.2 * 0.3);
    assert!((normal_density(&[0.1, -0.3], &mut cov) / expected - 1.0).abs() < 1e-12);
    // Correlated: det = 1·1 − 0.8² = 0.36, quadratic form yᵀΣ⁻¹y = (1 + 1 − 2·0.8·1)/0.36 for y = (1, 1).
    let mut cov = vec![1.0, 0.8, 0.8, 1.0];
    let expected = (-0.5 * 0.4 / 0.36f64).exp() / 0.6;
    assert!((normal_density(&[1.0, 1.0], &mut cov) / expected - 1.0).abs() < 1e-12);
    // Not positive definite: no density.
    assert_eq!(normal_density(&[0.0, 0.0], &mut [1.0, 1.0, 1.0, 1.0]), 0.0);
}

#[test]
fn the_lane_position_is_kept_second_by_second_on_the_approach() {
    // 5 m/s on the 60 m approach for 4.5 s, 8 points a second, offset = −0.1 m · seconds.
    let points = (0..=36)
        .map(|k| {
            let secs = k as f64 * 0.125;
            let y = -40.0 + 5.0 * secs;
            MatchedPoint { offset_m: -0.1 * secs, ..sampled(k, (0.0, y), 1, 60.0 + y) }
        })
        .collect();
    let t = MatchedTrajectory { mode: TravelMode::Bicycle as i32, object_id: 9, points, ..Default::default() };
    let l = lane_seconds(&map(), &t, 1).expect("a newest second on the approach");
    assert_eq!(l.approach_lanelet_id, 1);
    // Four seconds at most, oldest first: the newest holds the points up to a second before
    // the newest one (9: 3.5 … 4.5 s, mean 4.0 s), the one before it 2.5 … 3.375 s (8).
    assert_eq!(l.seconds.len(), LANE_SECONDS);
    let (newest, before) = (&l.seconds[3], &l.seconds[2]);
    assert_eq!((newest.points, before.points), (9, 8));
    assert!((newest.offset_m + 0.4).abs() < 1e-9 && (newest.to_go_m - 20.0).abs() < 1e-6, "{newest:?}");
    assert!((before.offset_m + 0.29375).abs() < 1e-9, "{before:?}");
    assert!(l.seconds.windows(2).all(|w| w[0].to_go_m > w[1].to_go_m && w[0].offset_m > w[1].offset_m));
    // Fewer than four points in the newest second: no lane position.
    let short = MatchedTrajectory { points: t.points[..3].to_vec(), ..t.clone() };
    assert!(lane_seconds(&map(), &short, 1).is_none());
}

/// P(right) of a bicycle at 6 m/s (a turn's speed) just past the line, where the connectors
/// still overlap, that kept 0.45 m right of the centerline over its last second on the approach,
/// and of one that kept centred; seen by `sensor_id`.
fn right_turn_moved_over_and_centred(sensor_id: u32) -> (f64, f64) {
    let track = |offset: f64| {
        let mut t = approaching(2.0, 6.0, 0.0);
        t.sensor_id = sensor_id;
        t.points.iter_mut().for_each(|q| q.offset_m = offset);
        for (k, y) in [(13u64, 0.25), (14, 1.0)] {
            t.points.push(sampled(k, (0.0, y), 3, y));
        }
        t
    };
    let right = |t: &MatchedTrajectory| {
        let paths = predict(&map(), t, &PredictorConfig::default());
        paths.iter().find(|p| p.lanelet_sequence == [4]).map_or(0.0, |p| p.probability)
    };
    (right(&track(-0.45)), right(&track(0.0)))
}

#[test]
fn on_a_connector_the_lane_position_kept_on_the_approach_still_tells() {
    let (moved_over, centred) = right_turn_moved_over_and_centred(0);
    assert!(moved_over > 0.5 && moved_over > 3.0 * centred, "{moved_over} vs {centred}");
}

#[test]
fn a_position_its_road_user_reports_itself_says_nothing_of_its_lane_position() {
    // Known from its CAM: a GNSS position strays by about half a lane, so keeping right in it
    // is no sign of a turn.
    let (moved_over, centred) = right_turn_moved_over_and_centred(crate::stages::collector::SELF_REPORTED);
    assert!((moved_over - centred).abs() < 1e-9, "{moved_over} vs {centred}");
}

#[test]
fn a_path_shows_where_its_road_user_came_from() {
    // Seen every 125 ms for 1.5 s: the last 2 s of the track, 250 ms apart counted back
    // from the newest point, oldest first, on every route.
    let t = approaching(20.0, 10.0, 0.0);
    let paths = predict(&map(), &t, &PredictorConfig::default());
    assert!(!paths.is_empty());
    for p in &paths {
        let times: Vec<u64> = p.past.iter().map(|q| q.at_us / 1000).collect();
        assert_eq!(times, vec![1000, 1250, 1500, 1750, 2000, 2250, 2500]);
        assert_eq!(p.past.last().map(|q| q.at_us), Some(p.observed_at_us));
        let newest = t.points.last().unwrap();
        assert_eq!((p.past[6].latitude, p.past[6].longitude), (newest.latitude, newest.longitude));
        // ... and how long it has been tracked (the detector prefers the longer-seen sensor).
        assert_eq!(p.tracked_since_us, 1_000_000);
    }
}

#[test]
fn pedestrians_walk_their_lanelet_the_way_they_go_up_to_its_end() {
    // On lanelet 1 (drawn northwards) but walking south at 1.5 m/s, 1.5 m from its start.
    let mut t = car(10.0);
    t.mode = TravelMode::Pedestrian as i32;
    let w = |y: f64| offset_to_wgs84(ORIGIN, 0.0, y);
    for (p, y) in t.points.iter_mut().zip([-57.0, -57.75, -58.5]) {
        (p.latitude, p.longitude, p.station_m) = (w(y).lat, w(y).lon, 60.0 + y);
    }
    let paths = predict(&map(), &t, &PredictorConfig::default());
    assert_eq!((paths.len(), paths[0].lanelet_sequence.clone()), (1, vec![1]));
    let at = |i: usize| {
        let q = &paths[0].positions[i];
        wgs84_to_offset(ORIGIN, Wgs84 { lat: q.latitude, lon: q.longitude })
    };
    assert!((at(0).1 - (-58.5 - 0.375)).abs() < 0.01, "{:?}", at(0));
    // Held at the lanelet's start (the kerb), not walked on past it.
    assert!((at(15).1 - -60.0).abs() < 0.01, "{:?}", at(15));
}

/// A corner: walkway 10 northwards from (0, -10) to the kerb at (0, 0), where crosswalk 20
/// begins (to (0, 10)); crosswalk 30 ends at the walkway's other end.
fn corner() -> LaneMap {
    let walkable = |id, from, to, successors, role: &str| Lanelet {
        mode: TravelMode::Pedestrian as i32,
        role: role.into(),
        ..lanelet(id, from, to, successors, Turn::None)
    };
    LaneMap::new(&LaneGraph {
        origin_latitude: ORIGIN.lat,
        origin_longitude: ORIGIN.lon,
        lanelets: vec![
            walkable(10, (0.0, -10.0), (0.0, 0.0), vec![20, 30], "walkway"),
            walkable(20, (0.0, 0.0), (0.0, 10.0), vec![10], "crosswalk"),
            walkable(30, (-10.0, -10.0), (0.0, -10.0), vec![10], "crosswalk"),
        ],
        ..Default::default()
    })
}

/// A pedestrian walking north on walkway 10 at 1.4 m/s for `secs`, last 3 m before the kerb.
fn walking_to_the_kerb(secs: f64) -> MatchedTrajectory {
    let n = (secs / 0.125).round() as u64;
    let points = (0..=n)
        .map(|k| {
            let y = -3.0 - 1.4 * (n - k) as f64 * 0.125;
            sampled(k, (0.0, y), 10, 10.0 + y)
        })
        .collect();
    MatchedTrajectory { mode: TravelMode::Pedestrian as i32, object_id: 4, points, ..Default::default() }
}

#[test]
fn a_pedestrian_walking_at_pace_to_the_kerb_walks_on_across() {
    let routes = |t: &MatchedTrajectory| -> Vec<(Vec<i64>, f64)> {
        let paths = predict(&corner(), t, &PredictorConfig::default());
        paths.iter().map(|p| (p.lanelet_sequence.clone(), (p.probability * 100.0).round() / 100.0)).collect()
    };
    let walking = walking_to_the_kerb(3.0);
    assert_eq!(routes(&walking), vec![(vec![10, 20], 0.9), (vec![10], 0.1)]);
    // On across: at the kerb after 3 m (2.1 s), 2.6 m into the crosswalk after 4 s.
    let paths = predict(&corner(), &walking, &PredictorConfig::default());
    let end = paths[0].positions.last().unwrap();
    let (x, y) = wgs84_to_offset(ORIGIN, Wgs84 { lat: end.latitude, lon: end.longitude });
    assert!(x.abs() < 0.01 && (y - 2.6).abs() < 0.05 && end.lanelet_id == 20, "({x}, {y}) on {}", end.lanelet_id);
    // Seen walking for a second is enough; for less, she stops at the kerb.
    assert_eq!(routes(&walking_to_the_kerb(1.25)), vec![(vec![10, 20], 0.9), (vec![10], 0.1)]);
    assert_eq!(routes(&walking_to_the_kerb(0.75)), vec![(vec![10], 1.0)]);
    // Just off crosswalk 30 onto this corner: on her way along the street, rarely across.
    let mut crossed = walking;
    crossed.points.iter_mut().take(3).for_each(|p| p.lanelet_id = 30);
    assert_eq!(routes(&crossed), vec![(vec![10], 0.8), (vec![10, 20], 0.2)]);
}

/// How far north (local metres) a pedestrian on [`corner`]'s walkway is predicted in 2 s.
fn end_y(t: &MatchedTrajectory) -> f64 {
    let cfg = PredictorConfig { horizon_us: 2_000_000, ..Default::default() };
    let end = predict(&corner(), t, &cfg)[0].positions.last().cloned().unwrap();
    wgs84_to_offset(ORIGIN, Wgs84 { lat: end.latitude, lon: end.longitude }).1
}

#[test]
fn a_fresh_track_moves_as_the_sensor_measured_not_as_its_noisy_points() {
    // A pedestrian on walkway 10 tracked for 0.25 s: her three points (noise) run south at
    // 3.4 m/s, the sensor measured 1.2 m/s heading north. She walks north at 1.2 m/s: 2.4 m
    // in 2 s, towards the kerb 3 m ahead.
    let mut t = walking_to_the_kerb(0.25);
    for (p, y) in t.points.iter_mut().zip([-2.15, -2.6, -3.0]) {
        let w = offset_to_wgs84(ORIGIN, 0.0, y);
        (p.latitude, p.longitude, p.station_m) = (w.lat, w.lon, 10.0 + y);
        (p.speed_mps, p.heading_deg) = (Some(1.2), Some(0.0));
    }
    assert!((end_y(&t) - (-3.0 + 2.4)).abs() < 0.05, "{}", end_y(&t));
    // Without measured motion the points' fit stands in: south, fast.
    t.points.iter_mut().for_each(|p| (p.speed_mps, p.heading_deg) = (None, None));
    assert!(end_y(&t) < -8.0, "{}", end_y(&t));
}

#[test]
fn a_walkers_pace_is_the_speed_the_sensor_measured_not_her_noisy_points() {
    // 1.5 s on walkway 10 at a measured 1.0 m/s; her points (noise) bunch up at the end as
    // if she were slowing to 0.4 m/s. Seen only 1.5 s: she stops at the kerb 3 m ahead, which
    // at 1 m/s she reaches in 3 s.
    let mut t = walking_to_the_kerb(1.5);
    let n = t.points.len() - 1;
    for (k, p) in t.points.iter_mut().enumerate() {
        let ago = (n - k) as f64 * 0.125;
        let y = if ago < 0.75 { -3.0 - 0.4 * ago } else { -3.3 - 1.6 * (ago - 0.75) };
        let w = offset_to_wgs84(ORIGIN, 0.0, y);
        (p.latitude, p.longitude, p.station_m, p.speed_mps) = (w.lat, w.lon, 10.0 + y, Some(1.0));
    }
    assert!((end_y(&t) - (-3.0 + 2.0)).abs() < 0.05, "{}", end_y(&t));
    // Without measured speeds the points' fit stands in: slowing down.
    t.points.iter_mut().for_each(|p| p.speed_mps = None);
    assert!(end_y(&t) < -1.5, "{}", end_y(&t));
}

#[test]
fn a_vehicle_braking_in_its_turn_slows_to_the_turns_speed_not_to_a_stop() {
    // On the right connector (lanelet 4, a quarter circle of 10 m radius), 2 m in, at 5 m/s and
    // braking at 2.5 m/s²: the end of the slow-down to the turn's speed. Over 2 s it covers
    // 6.6 m (braking to 2.8 m/s, the slowest this bend is taken at: √(0.8 · 10)), not 5 m (to a
    // stop).
    let covered = covered_in_right_turn(&braking_in_right_turn(2.0, 5.0, 2.5, false), 2.0, 2_000_000);
    assert!((covered - 6.6).abs() < 0.3, "{covered} m");
}

/// A car observed every 125 ms for 1.5 s up to `along` metres into the right connector (its
/// quarter circle), there at `speed` after braking at `decel`; with the sensor's speeds if
/// `measured`.
fn braking_in_right_turn(along: f64, speed: f64, decel: f64, measured: bool) -> MatchedTrajectory {
    let points = (0..=12)
        .map(|k| {
            let ago = (12 - k) as f64 * 0.125;
            let s = along - (speed * ago + 0.5 * decel * ago * ago);
            let (lanelet, station, at) = if s < 0.0 {
                (1, 60.0 + s, (0.0, s))
            } else {
                (4, s, (10.0 - 10.0 * (s / 10.0).cos(), 10.0 * (s / 10.0).sin()))
            };
            MatchedPoint { speed_mps: measured.then_some(speed + decel * ago), ..sampled(k, at, lanelet, station) }
        })
        .collect();
    MatchedTrajectory { mode: TravelMode::Car as i32, object_id: 9, points, ..Default::default() }
}

/// How far along the right connector from `along` metres the likeliest path of `t` ends after
/// `horizon_us`.
fn covered_in_right_turn(t: &MatchedTrajectory, along: f64, horizon_us: u64) -> f64 {
    let paths = predict(&map(), t, &PredictorConfig { horizon_us, ..Default::default() });
    assert_eq!(paths[0].lanelet_sequence, vec![4]);
    let end = paths[0].positions.last().unwrap();
    let (x, y) = wgs84_to_offset(ORIGIN, Wgs84 { lat: end.latitude, lon: end.longitude });
    // Along the arc round its centre (10, 0).
    10.0 * y.atan2(10.0 - x) - along
}

#[test]
fn a_walking_pedestrian_keeps_its_pace_one_setting_off_speeds_up() {
    // Northwards along lanelet 1, a speed-up of 0.5 m/s² fitted: walking at 1.4 m/s it is
    // taken as the tracker settling (2.8 m in 2 s, not 3.8 m); setting off at 0.8 m/s it is
    // extrapolated (2.6 m: 0.8 · 2 + ½ · 0.5 · 2², not 1.6 m).
    let walked = |speed: f64| {
        let mut t = approaching(40.0, speed, -0.5);
        t.mode = TravelMode::Pedestrian as i32;
        let cfg = PredictorConfig { horizon_us: 2_000_000, ..Default::default() };
        let end = predict(&map(), &t, &cfg)[0].positions.last().cloned().unwrap();
        wgs84_to_offset(ORIGIN, Wgs84 { lat: end.latitude, lon: end.longitude }).1 + 40.0
    };
    assert!((walked(1.4) - 2.8).abs() < 0.05, "{}", walked(1.4));
    assert!((walked(0.8) - 2.6).abs() < 0.05, "{}", walked(0.8));
}

#[test]
fn objects_off_the_lanes_move_at_constant_velocity() {
    let mut t = car(10.0);
    for p in &mut t.points {
        p.lanelet_id = 0;
    }
    let paths = predict(&map(), &t, &PredictorConfig { horizon_us: 1_000_000, ..Default::default() });
    let end = &paths[0].positions.last().unwrap();
    let end = wgs84_to_offset(ORIGIN, Wgs84 { lat: end.latitude, lon: end.longitude });
    assert!((end.1 - 0.0).abs() < 1e-3, "{end:?}"); // 10 m/s for 1 s from 10 m before the line
    assert!(predict(&map(), &MatchedTrajectory::default(), &PredictorConfig::default()).is_empty());
}

/// Found by fuzzing (fuzz/, target `stage_predictor`): a matched frame (these bytes) with a
/// cyclist on a crosswalk lanelet (the map matcher sends none, but anything on the lattice
/// may) and a 600 m jump in its last second. Its routes went round the crosswalks, which lead
/// both ways, until they covered a horizon of 7 km: a stack overflow (or 2^550 routes).
#[test]
fn routes_never_go_round_a_cycle() {
    use prost::Message as _;
    const FRAME: &[u8] = &[
        0x0a, 0x04, 0x72, 0x73, 0x75, 0x31, 0x1a, 0xa0, 0x01, 0x08, 0xe9, 0x07, 0x10, 0x9e, 0x01, 0x20, 0x02, 0x2a,
        0x30, 0x08, 0xc0, 0xb1, 0xeb, 0xc2, 0xaa, 0xbc, 0xfa, 0x02, 0x11, 0x25, 0x01, 0x00, 0x00, 0x00, 0xe7, 0x47,
        0x40, 0x19, 0xaf, 0x38, 0x93, 0x5f, 0x88, 0x1a, 0x2a, 0x40, 0x20, 0x99, 0x15, 0x29, 0xa0, 0x28, 0x0e, 0x46,
        0xe0, 0x3d, 0xa4, 0x3f, 0x31, 0x12, 0x6b, 0xb3, 0x89, 0xd4, 0xd0, 0x37, 0x40, 0x2a, 0x30, 0x08, 0x88, 0x82,
        0xf3, 0xc2, 0xaa, 0xbc, 0xfa, 0x02, 0x11, 0x29, 0x34, 0xa3, 0xf4, 0xb1, 0xe7, 0x47, 0x40, 0x19, 0x80, 0x56,
        0x89, 0x47, 0x9c, 0x1a, 0x2a, 0x40, 0x20, 0xc4, 0x13, 0x29, 0x00, 0xe8, 0x2c, 0xdb, 0xbc, 0x23, 0x82, 0x3f,
        0x31, 0x83, 0x5b, 0x57, 0x7f, 0x6a, 0xdf, 0x18, 0x40, 0x2a, 0x30, 0x08, 0xd0, 0xd2, 0xfa, 0xc2, 0xaa, 0xbc,
        0xfa, 0x02, 0x11, 0x07, 0x30, 0x6f, 0xe9, 0xb1, 0xe7, 0x47, 0x40, 0x19, 0x26, 0x56, 0x89, 0x47, 0x9c, 0x1a,
        0x2a, 0x40, 0x20, 0xc4, 0x13, 0x29, 0x00, 0x00, 0xf0, 0x64, 0x97, 0x43, 0x5d, 0x3f, 0x31, 0xf0, 0xb5, 0xeb,
        0xe4, 0x78, 0x8f, 0x19, 0x40, 0x30, 0x01,
    ];
    let frame = crate::proto::MatchedTrajectoryFrame::decode(FRAME).unwrap();
    let t = &frame.trajectories[0];
    assert_eq!((t.mode, t.points[2].lanelet_id), (TravelMode::Bicycle as i32, 2500));
    // Crosswalks round a corner, each leading on to both its neighbours, as in the map.
    let map = LaneMap::new(&LaneGraph {
        origin_latitude: ORIGIN.lat,
        origin_longitude: ORIGIN.lon,
        lanelets: vec![
            lanelet(1500, (0.0, 0.0), (0.0, 13.0), vec![1600, 2600], Turn::None),
            lanelet(1600, (0.0, 13.0), (13.0, 13.0), vec![1500, 2500], Turn::None),
            lanelet(2500, (13.0, 13.0), (13.0, 0.0), vec![1600, 2600], Turn::None),
            lanelet(2600, (13.0, 0.0), (0.0, 0.0), vec![2500, 1500], Turn::None),
        ],
        ..Default::default()
    });
    let paths = predict(&map, t, &PredictorConfig::default());
    assert!(!paths.is_empty());
    for p in paths {
        let mut lanelets = p.lanelet_sequence.clone();
        lanelets.sort();
        lanelets.dedup();
        assert_eq!(lanelets.len(), p.lanelet_sequence.len(), "{:?}", p.lanelet_sequence);
    }
}

#[test]
fn the_speed_itself_near_the_line_tells_a_turn_braking_or_not() {
    use super::intent::speed_level_likelihood;
    // A right turn round an 8 m bend (ours: 7.3–7.6 m).
    let car = |speed_kmh: f64, to_go: f64| {
        speed_level_likelihood(TravelMode::Car, turn_speeds_mps(TravelMode::Car, Some(8.0)), speed_kmh / 3.6, to_go)
    };
    // NCAP's turning car: a steady 10 km/h, 5 m before the line.
    let ncap = car(10.0, 5.0);
    assert!(ncap > 2.0, "{ncap}");
    // A straight cruise of 45 km/h 5 m before the line is no turn.
    let cruise = car(45.0, 5.0);
    assert!(cruise < 0.2, "{cruise}");
    // Far out both fit a turning driver who has yet to brake: the level tells little there.
    let far = car(45.0, 60.0);
    assert!((0.3..3.0).contains(&far), "{far}");
    // Riders turn at speeds they also ride straight at: a weak cue, either way.
    let rider =
        speed_level_likelihood(TravelMode::Bicycle, turn_speeds_mps(TravelMode::Bicycle, Some(6.0)), 15.0 / 3.6, 3.0);
    assert!((0.3..3.0).contains(&rider), "{rider}");
    // A connector without a bend asks for no slowing: the speed tells nothing.
    assert_eq!(speed_level_likelihood(TravelMode::Car, None, 45.0 / 3.6, 5.0), 1.0);
}

/// A car heading north on the approach (lanelet 1, line at y = 0) at `speed`, observed every
/// 125 ms for 1.5 s until it is `along` metres past the line, steering right from `onset` metres
/// past the line on (a clothoid: heading off the lane 0.5 · 0.02 · s² rad), its measured heading
/// off by `noise_deg` degrees alternately.
fn steering_car(speed: f64, along: f64, onset: Option<f64>, noise_deg: f64) -> MatchedTrajectory {
    let points = (0..=12)
        .map(|k| {
            let y = along - speed * (12 - k) as f64 * 0.125;
            let turned = onset.map_or(0.0, |o| 0.5 * 0.02 * (y - o).max(0.0).powi(2));
            let noise = if k % 2 == 0 { noise_deg } else { -noise_deg };
            let (lanelet, station) = if y <= 0.0 { (1, 60.0 + y) } else { (3, y) };
            MatchedPoint {
                speed_mps: Some(speed),
                heading_deg: Some((turned.to_degrees() + noise).rem_euclid(360.0)),
                ..sampled(k, (0.0, y), lanelet, station)
            }
        })
        .collect();
    MatchedTrajectory { mode: TravelMode::Car as i32, object_id: 9, points, ..Default::default() }
}

#[test]
fn steering_off_the_lane_tells_the_turn_and_its_side() {
    use super::intent::steering_likelihoods;
    let map = map();
    // Steering right from 2 m before the line, now 2.5 m past it at 10 km/h (≈ 8° off).
    let turning = steering_car(10.0 / 3.6, 2.5, Some(-2.0), 2.0);
    let [l, r] = steering_likelihoods(&map, &turning, 1);
    assert!(r > 5.0 && l < 0.5 && r / l > 100.0, "right {r}, left {l}");
    // Going straight with the same noise: the turns lose weight once their onsets are passed.
    let straight = steering_car(10.0 / 3.6, 2.5, None, 2.0);
    let [l, r] = steering_likelihoods(&map, &straight, 1);
    assert!(r < 0.8 && l < 0.8, "right {r}, left {l}");
    // Far before the line nothing has been decided: no evidence either way.
    let early = steering_car(10.0 / 3.6, -25.0, None, 2.0);
    let [_, r] = steering_likelihoods(&map, &early, 1);
    assert!((0.9..=1.1).contains(&r), "{r}");
}

#[test]
fn a_cams_yaw_rate_tells_the_steering_before_the_camera_sees_it() {
    use super::intent::steering_likelihoods;
    use crate::proto::IntentCue;
    let map = map();
    let speed = 10.0 / 3.6;
    // 2 m into a right turn's onset: 2° off the lane, under the cameras' 2° heading noise; the
    // car's gyro reports 6.4°/s to the right (speed × 0.02 rad/m² × 2 m).
    let turning = steering_car(speed, 2.0, Some(0.0), 2.0);
    let with_yaw = |t: &MatchedTrajectory, yaw_deg_s: f64| {
        let newest = t.points.last().unwrap().measured_at_us;
        let cue = IntentCue { reported_at_us: newest, yaw_rate_deg_s: Some(yaw_deg_s), ..Default::default() };
        MatchedTrajectory { cue: Some(cue), ..t.clone() }
    };
    let yaw = -(speed * 0.02 * 2.0f64).to_degrees();
    let [_, seen] = steering_likelihoods(&map, &turning, 1);
    let [left, told] = steering_likelihoods(&map, &with_yaw(&turning, yaw), 1);
    assert!(told > 3.0 * seen && left < 0.5, "right {seen} → {told}, left {left}");
    // A car going straight whose gyro says so: the turns lose weight.
    let straight = steering_car(speed, 2.0, None, 2.0);
    let [_, seen] = steering_likelihoods(&map, &straight, 1);
    let [_, told] = steering_likelihoods(&map, &with_yaw(&straight, 0.0), 1);
    assert!(told < seen, "right {seen} → {told}");
    // An old yaw rate says nothing.
    let mut stale = with_yaw(&turning, yaw);
    stale.cue.as_mut().unwrap().reported_at_us -= 600_000;
    assert_eq!(steering_likelihoods(&map, &stale, 1), steering_likelihoods(&map, &turning, 1));
}

/// [`approaching`] with the speeds the sensor measured at each point.
fn approaching_measured(to_go: f64, speed: f64, decel: f64) -> MatchedTrajectory {
    let mut t = approaching(to_go, speed, decel);
    for (k, p) in t.points.iter_mut().enumerate() {
        p.speed_mps = Some(speed + decel * (12 - k) as f64 * 0.125);
    }
    t
}

#[test]
fn a_car_braking_gently_may_keep_its_speed_or_brake_on() {
    let ends = |t: &MatchedTrajectory| -> Vec<(f64, f64)> {
        predict(&map(), t, &PredictorConfig::default())
            .iter()
            .map(|p| {
                let end = p.positions.last().unwrap();
                (wgs84_to_offset(ORIGIN, Wgs84 { lat: end.latitude, lon: end.longitude }).1, p.probability)
            })
            .collect()
    };
    // Keeping 8 m/s, measured: one path, 32 m on in 4 s.
    let steady = ends(&approaching_measured(45.0, 8.0, 0.0));
    assert_eq!(steady.len(), 1, "{steady:?}");
    assert!((steady[0].0 - (-45.0 + 32.0)).abs() < 0.5, "{steady:?}");
    // Slowing at 0.5 m/s², as little more than a second's speeds can tell from noise: keeping
    // 8 m/s and braking on (at a yielding driver's 0.8 m/s² at least) both, braking likelier.
    let gentle = ends(&approaching_measured(45.0, 8.0, 0.5));
    assert_eq!(gentle.len(), 2, "{gentle:?}");
    let (brakes, keeps) = (gentle[0], gentle[1]);
    assert!(brakes.1 > keeps.1 && (brakes.1 + keeps.1 - 1.0).abs() < 1e-9, "{gentle:?}");
    assert!(keeps.0 > brakes.0 + 4.0, "{gentle:?}");
    // Braking clearly: one path, braking.
    let clear = ends(&approaching_measured(45.0, 8.0, 2.0));
    assert_eq!(clear.len(), 1, "{clear:?}");
    assert!(clear[0].0 < -45.0 + 17.0, "{clear:?}");
}

#[test]
fn a_track_counts_the_turn_it_came_out_of_not_the_connector_first_matched() {
    let map = map();
    // Matched to the left turn's connector near the line, then out on the straight exit (5).
    let mut t = car(-3.0);
    t.points[1].lanelet_id = 2;
    t.points[2].lanelet_id = 5;
    assert_eq!(priors::turn_taken(&map, &t), Some((1, Turn::Straight)));
    // Still on a connector, or still on the approach: nothing taken yet.
    t.points[2].lanelet_id = 3;
    assert_eq!(priors::turn_taken(&map, &t), None);
    assert_eq!(priors::turn_taken(&map, &car(10.0)), None);
}

#[test]
fn a_track_counts_once_however_often_its_frame_is_handled() {
    let (map, cfg) = (map(), PredictorConfig::default());
    let mut t = car(-3.0);
    t.points[1].lanelet_id = 2;
    t.points[2].lanelet_id = 5;
    let mut learned = TurnPriors::default();
    assert!(super::learn_and_predict(&map, &t, &cfg, &mut learned).1, "counted the first time");
    let once = learned.clone();
    assert!(!super::learn_and_predict(&map, &t, &cfg, &mut learned).1, "the same frame again");
    assert_eq!(learned, once);
    // The assembler's generation is no part of what was counted (see track_key); the same object
    // taking the turn again later (a replay, a reused id) counts, and so does another track.
    t.generation += 1;
    assert!(!super::learn_and_predict(&map, &t, &cfg, &mut learned).1, "generation is not part of it");
    for p in &mut t.points {
        p.measured_at_us += 60_000_000;
    }
    assert!(super::learn_and_predict(&map, &t, &cfg, &mut learned).1);
    t.object_id += 1;
    assert!(super::learn_and_predict(&map, &t, &cfg, &mut learned).1);
    assert!(learned.approaches[0].straight > once.approaches[0].straight);
}

#[test]
fn learned_turns_weigh_an_approach_and_fade_with_time() {
    let (map, cfg) = (map(), PredictorConfig::default());
    let mut learned = TurnPriors::default();
    assert_eq!(priors::weights(&learned, &map, (1, TravelMode::Car), 0, &cfg), [1.0; 3]);
    for k in 0..100 {
        let turn = if k % 5 == 0 { Turn::Straight } else { Turn::Right };
        priors::observe(&mut learned, (1, TravelMode::Car), turn, None, 1_000_000 + k, &cfg);
    }
    // 80 right, 20 straight and 20 tracks' worth of neutral: right 2.17, straight 0.67, left 0.17.
    let w = priors::weights(&learned, &map, (1, TravelMode::Car), 1_000_100, &cfg);
    assert!((w[2] - 2.17).abs() < 0.01 && (w[1] - 0.67).abs() < 0.01 && (w[0] - 0.17).abs() < 0.01, "{w:?}");
    // Cyclists on the same approach learned nothing.
    assert_eq!(priors::weights(&learned, &map, (1, TravelMode::Bicycle), 1_000_100, &cfg), [1.0; 3]);
    // Ten half-lives on, the counts are down to a tenth of a track: neutral again, nearly.
    let later = 1_000_100 + 10 * cfg.prior_half_life_us;
    let faded = priors::weights(&learned, &map, (1, TravelMode::Car), later, &cfg);
    assert!(faded.iter().all(|w| (w - 1.0).abs() < 0.02), "{faded:?}");
}

#[test]
fn an_approach_where_most_turn_right_says_so_before_anyone_steers() {
    let (map, cfg) = (map(), PredictorConfig::default());
    let t = approaching(8.0, 4.0, 0.0);
    let right = |learned: &TurnPriors| {
        super::predict(&map, &t, &cfg, learned)
            .iter()
            .filter(|p| p.turn() == Turn::Right)
            .map(|p| p.probability)
            .sum::<f64>()
    };
    let mut learned = TurnPriors::default();
    let neutral = right(&learned);
    for k in 0..60 {
        priors::observe(&mut learned, (1, TravelMode::Car), Turn::Right, None, k, &cfg);
    }
    let most_right = right(&learned);
    assert!(most_right > neutral + 0.2, "neutral {neutral}, learned {most_right}");
}

#[test]
fn weights_that_tell_nothing_give_even_shares_never_nan() {
    assert_eq!(normalised(&[1.0, 3.0]), [0.25, 0.75]);
    assert_eq!(normalised(&[0.0, 0.0]), [0.5, 0.5]);
    assert_eq!(normalised(&[f64::NAN, 2.0]), [0.0, 1.0]);
    assert_eq!(normalised(&[f64::INFINITY, f64::INFINITY]), [0.5, 0.5]);
    assert_eq!(normalised(&[f64::MAX, f64::MAX]), [0.5, 0.5], "a sum that overflows");
    assert!(normalised(&[]).is_empty());
    // Every likelihood underflowed to 0 (a track no intent model knows): the junction's three
    // routes evenly, not 0 / 0.
    let nothing = Evidence {
        turning: [0.0; 3],
        level: [0.0; 3],
        steering: [0.0; 2],
        signal: [0.0; 2],
        lateral: None,
        prior: [0.0; 3],
    };
    let routes = map().routes(TravelMode::Car, &nothing, 1, 100.0, &[]);
    assert_eq!(routes.len(), 3, "{routes:?}");
    for (route, p) in &routes {
        assert!((p - 1.0 / 3.0).abs() < 1e-12, "{route:?}: {p}");
    }
}

#[test]
fn crossing_the_junction_at_a_turns_speed_tells_a_turn_before_the_path_bends() {
    // Matched to the straight connector 3 m past the line, its points still straight: at NCAP's
    // 10 km/h (a turn's speed round these 10 m bends) a turn is likely (0.57 while the speed
    // counted only on the approach), at 40 km/h it is not.
    let p_turn = |speed: f64| {
        let points = (0..=12)
            .map(|k| {
                let y = 3.0 - speed * (12 - k) as f64 * 0.125;
                let (lanelet, station) = if y < 0.0 { (1, 60.0 + y) } else { (3, y) };
                MatchedPoint { speed_mps: Some(speed), ..sampled(k, (0.0, y), lanelet, station) }
            })
            .collect();
        let t = MatchedTrajectory { mode: TravelMode::Car as i32, object_id: 9, points, ..Default::default() };
        let paths = predict(&map(), &t, &PredictorConfig::default());
        paths.iter().filter(|p| !p.lanelet_sequence.contains(&3)).map(|p| p.probability).sum::<f64>()
    };
    let (slow, fast) = (p_turn(10.0 / 3.6), p_turn(40.0 / 3.6));
    assert!(slow > 0.8, "10 km/h: {slow}");
    assert!(fast < 0.05, "40 km/h: {fast}");
}

#[test]
fn a_vehicle_still_braking_well_into_its_turn_stops_to_yield() {
    // On the right connector 8 m in at 4 m/s, braking at 1.5 m/s² for the last 1.5 s: its
    // slow-down for the turn ended at the line, so this is a stop short of the crosswalk (5.3 m
    // on), not a slow-down to the bend's slowest speed and on (7.7 m in 3 s).
    let covered = covered_in_right_turn(&braking_in_right_turn(8.0, 4.0, 1.5, true), 8.0, 3_000_000);
    assert!((covered - 16.0 / 3.0).abs() < 0.5, "{covered} m");
}

#[test]
fn a_lanelet_without_two_points_is_left_out_of_the_lanes() {
    // A damaged map blob: the approach's successor has a single centerline point. Taken as a
    // lane, a route onto it would have nowhere to place the road user (and panicked there).
    let mut stub = lanelet(2, (0.0, 60.0), (0.0, 60.0), vec![], Turn::Straight);
    stub.centerline.truncate(2);
    let graph = LaneGraph {
        origin_latitude: ORIGIN.lat,
        origin_longitude: ORIGIN.lon,
        lanelets: vec![lanelet(1, (0.0, 0.0), (0.0, 60.0), vec![2], Turn::None), stub],
        ..Default::default()
    };
    let map = LaneMap::new(&graph);
    assert!(map.lanes.contains_key(&1) && !map.lanes.contains_key(&2));
    let neutral = Evidence {
        turning: [1.0; 3],
        level: [1.0; 3],
        steering: [1.0; 2],
        signal: [1.0; 2],
        lateral: None,
        prior: [1.0; 3],
    };
    let routes = map.routes(TravelMode::Car, &neutral, 1, 100.0, &[]);
    assert_eq!(routes, vec![(vec![1], 1.0)]);
    let (at, lane) = map.walk(&routes[0].0, 80.0);
    assert_eq!(lane, 1);
    assert!((at.1 - 60.0).abs() < 0.1, "held at the lane's end: {at:?}");
}

#[test]
fn the_declared_keys_are_the_ones_read_with_their_defaults() {
    let read = |entries: &[(&str, &str)]| PredictorConfig::from_config(entries.iter().copied());
    assert_eq!(read(&crate::config::declared_defaults(KEYS)).unwrap(), PredictorConfig::default());
    assert_eq!(crate::config::keys_read_without_refusal(KEYS, read), Vec::<&str>::new());
}

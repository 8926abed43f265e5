use super::*;
use crate::proto::{Lanelet, TrajectoryPoint};

const ORIGIN: Wgs84 = Wgs84 { lat: 47.8101, lon: 13.0518 };

/// A straight lanelet from (x0, y0) to (x1, y1) metres around ORIGIN.
fn lanelet(id: i64, mode: TravelMode, from: (f64, f64), to: (f64, f64), successors: Vec<i64>) -> Lanelet {
    let (a, b) = (offset_to_wgs84(ORIGIN, from.0, from.1), offset_to_wgs84(ORIGIN, to.0, to.1));
    Lanelet { id, mode: mode as i32, centerline: vec![a.lon, a.lat, b.lon, b.lat], successors, ..Default::default() }
}

/// Northbound car lane at x = 0 with a bike lane 1.8 m to its east and a southbound car lane
/// 3.2 m to its west; the car lane continues into a right turn.
fn graph() -> LaneGraph {
    LaneGraph {
        origin_latitude: ORIGIN.lat,
        origin_longitude: ORIGIN.lon,
        lanelets: vec![
            lanelet(1, TravelMode::Car, (0.0, -60.0), (0.0, 0.0), vec![2]),
            lanelet(2, TravelMode::Car, (0.0, 0.0), (15.0, 10.0), vec![]),
            lanelet(3, TravelMode::Bicycle, (1.8, -60.0), (1.8, 0.0), vec![]),
            lanelet(4, TravelMode::Car, (-3.2, 0.0), (-3.2, -60.0), vec![]),
        ],
        ..Default::default()
    }
}

fn at(x: f64, y: f64) -> Wgs84 {
    offset_to_wgs84(ORIGIN, x, y)
}

#[test]
fn points_near_a_lane_end_on_that_lane() {
    let index = LaneIndex::new(&graph());
    let m = index.match_point(at(0.4, -30.0), Some(0.0), TravelMode::Car, None).unwrap();
    assert_eq!(m.lanelet_id, 1);
    assert!((m.offset_m + 0.4).abs() < 1e-6, "{}", m.offset_m); // right of its lane: negative
    assert!((m.station_m - 30.0).abs() < 1e-3, "{}", m.station_m);
    let snapped = wgs84_to_offset(ORIGIN, Wgs84 { lat: m.latitude, lon: m.longitude });
    assert!(snapped.0.abs() < 1e-6 && (snapped.1 + 30.0).abs() < 1e-6);
}

#[test]
fn a_lane_at_the_edge_of_the_radius_is_found_across_cell_edges() {
    // Points from just west of a cell edge to just east of the next one, each 2.9 m (car
    // radius 3 m) from a lone car lane: it lies in a neighbouring cell, never further.
    let lane = lanelet(9, TravelMode::Car, (0.0, -60.0), (0.0, 60.0), vec![]);
    let index = LaneIndex::new(&LaneGraph { lanelets: vec![lane], ..graph() });
    for x in [CELL_M - 0.01, CELL_M + 0.01, 2.0 * CELL_M - 0.01] {
        let lane_x = x - 2.9;
        let lane = lanelet(9, TravelMode::Car, (lane_x, -60.0), (lane_x, 60.0), vec![]);
        let index = LaneIndex::new(&LaneGraph { lanelets: vec![lane], ..graph() });
        let m = index.match_point(at(x, 7.0), None, TravelMode::Car, None);
        assert_eq!(m.map(|m| m.lanelet_id), Some(9), "point at x = {x}");
    }
    assert!(index.match_point(at(3.1, 7.0), None, TravelMode::Car, None).is_none(), "beyond the radius");
}

#[test]
fn a_bike_on_the_bike_lane_is_not_matched_to_the_car_lane_beside_it() {
    let index = LaneIndex::new(&graph());
    // 1.0 m east of the car lane, 0.8 m west of the bike lane's centre.
    assert_eq!(index.match_point(at(1.0, -20.0), Some(0.0), TravelMode::Bicycle, None).unwrap().lanelet_id, 3);
    assert_eq!(index.match_point(at(1.0, -20.0), Some(0.0), TravelMode::Car, None).unwrap().lanelet_id, 1);
}

#[test]
fn heading_separates_opposite_lanes() {
    let index = LaneIndex::new(&graph());
    // Midway between the northbound and southbound lanes, heading south.
    let m = index.match_point(at(-1.7, -20.0), Some(180.0), TravelMode::Car, None).unwrap();
    assert_eq!(m.lanelet_id, 4);
    let m = index.match_point(at(-1.5, -20.0), Some(0.0), TravelMode::Car, None).unwrap();
    assert_eq!(m.lanelet_id, 1);
}

#[test]
fn far_points_and_unknown_objects_stay_unmatched() {
    let index = LaneIndex::new(&graph());
    assert!(index.match_point(at(30.0, -30.0), None, TravelMode::Car, None).is_none());
    let t = Trajectory {
        classification: ObjectClass::Unknown as i32,
        points: vec![TrajectoryPoint { latitude: ORIGIN.lat, longitude: ORIGIN.lon, ..Default::default() }],
        ..Default::default()
    };
    let m = index.match_trajectory(&t);
    assert_eq!((m.mode, m.points[0].lanelet_id), (TravelMode::Unknown as i32, 0));
}

#[test]
fn a_turning_car_follows_its_successor() {
    let index = LaneIndex::new(&graph());
    let point = |x: f64, y: f64, h: f64, ms: u64| TrajectoryPoint {
        measured_at_us: ms * 1000,
        latitude: at(x, y).lat,
        longitude: at(x, y).lon,
        speed_mps: Some(8.0),
        heading_deg: Some(h),
    };
    let t = Trajectory {
        classification: ObjectClass::Car as i32,
        points: vec![point(0.1, -10.0, 0.0, 0), point(0.2, -1.0, 10.0, 125), point(5.0, 3.5, 56.0, 250)],
        ..Default::default()
    };
    let m = index.match_trajectory(&t);
    let lanes: Vec<i64> = m.points.iter().map(|p| p.lanelet_id).collect();
    assert_eq!(lanes, vec![1, 1, 2]);
    assert_eq!(m.points[2].measured_at_us, 250_000);
    assert_eq!(m.mode, TravelMode::Car as i32);
}

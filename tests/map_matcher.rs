//! Map matcher on the real stack: trajectories from CPMs are snapped to the lanelets of their mode
//! using map tiles read from the filesystem blobstore; a cyclist on the bike lane is not matched
//! to the car lane beside it.

use std::time::Duration;

use cits::proto::{MatchedTrajectoryFrame, TravelMode};
use cits::shared::geo::{wgs84_to_offset, Wgs84};
use cits_tests::{next_within, Lattice};
use etsi_its::cpm::{ObjectKind, SimpleCpm, SimpleObject};
use prost::Message as _;

const RSU: &str = "rsu-mm";
/// The CPM reference position: also the map's origin.
const REFERENCE: Wgs84 = Wgs84 { lat: 47.81010, lon: 13.05180 };

/// Points along a lanelet's centerline, as east/north metres from the reference position.
fn along(lanelet: i64) -> Vec<(f64, f64)> {
    let repo = std::path::PathBuf::from(std::env::var("CITS_REPO").expect("run with make test-e2e"));
    let xml = std::fs::read_to_string(repo.join("data/map/weiser-gabelsberger.osm")).unwrap();
    let graph = cits_map::lane_graph_from_osm(&xml, "map").unwrap();
    let l = graph.lanelets.iter().find(|l| l.id == lanelet).unwrap();
    l.centerline.chunks_exact(2).map(|c| wgs84_to_offset(REFERENCE, Wgs84 { lat: c[1], lon: c[0] })).collect()
}

fn object(id: u16, at: (f64, f64), towards: (f64, f64), speed: f64, class: ObjectKind) -> SimpleObject {
    let (dx, dy) = (towards.0 - at.0, towards.1 - at.1);
    let norm = dx.hypot(dy);
    SimpleObject {
        object_id: id,
        measurement_delta_ms: 0,
        x_cm: (at.0 * 100.0).round() as i32,
        y_cm: (at.1 * 100.0).round() as i32,
        x_conf_cm: 10,
        y_conf_cm: 10,
        velocity: Some(((dx / norm * speed * 100.0) as i16, (dy / norm * speed * 100.0) as i16)),
        yaw_decideg: None,
        class,
        class_confidence_pct: 90,
        sensor_id: None, // x east, y north from the reference position
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cyclist_on_the_bike_lane_and_car_on_the_car_lane_are_matched_to_their_own_lanes() {
    let lattice = Lattice::start("map-matcher");
    let nats = lattice.nats().await;
    let mut out = nats.subscribe(format!("cits.matched.{RSU}")).await.unwrap();
    nats.flush().await.unwrap();
    // Its CPMs give positions east/north of the reference position (no camera): a standard RSU.
    lattice.step(&["rsu-add", RSU, "1001", "enu"]).unwrap();
    let mut rsu = lattice.mqtt_registered(RSU).await;

    // East arm, heading west into the intersection: car approach lane 2101 and the bike lane 2300
    // beside it. Both objects 0.5 m off their centre lines, towards the other lane.
    let (car, bike) = (along(2101), along(2300));
    // Three CPMs half a second apart, the last one made now (the decoder refuses other times).
    let t0_its_ms = cits::shared::time::unix_us_to_its_ms(cits::shared::time::now_us()) - 1_000;
    let mut last = None;
    for step in 0..3 {
        let (c, b) = (car[20 + step * 4], bike[20 + step * 2]);
        let (cn, bn) = (car[21 + step * 4], bike[21 + step * 2]);
        let toward = |p: (f64, f64), q: (f64, f64)| {
            let d = (q.0 - p.0).hypot(q.1 - p.1);
            (p.0 + 0.5 * (q.0 - p.0) / d, p.1 + 0.5 * (q.1 - p.1) / d)
        };
        let cpm = SimpleCpm {
            protocol_version: 2,
            station_id: 1001,
            reference_time_its_ms: t0_its_ms + step as u64 * 500,
            reference_lat_e7: 478_101_000,
            reference_lon_e7: 130_518_000,
            sensors: vec![],
            objects: vec![
                object(1, toward(c, b), cn, 8.0, ObjectKind::Car),
                object(2, toward(b, c), bn, 4.0, ObjectKind::Bicycle),
            ],
        };
        rsu.publish(&format!("cits/cpm/{RSU}"), etsi_its::cpm::encode(&cpm.to_cpm()).unwrap()).await;
        let msg = next_within(&mut out, Duration::from_secs(10), "matched trajectory frame").await.unwrap();
        last = Some(MatchedTrajectoryFrame::decode(msg.payload.as_ref()).unwrap());
    }
    let frame = last.unwrap();
    let stages: Vec<&str> = frame.trace.iter().map(|t| t.stage.as_str()).collect();
    assert_eq!(stages, ["decoder", "collector", "assembler", "map_matcher"]);
    let by_object = |id| frame.trajectories.iter().find(|t| t.object_id == id).unwrap();
    let car = by_object(1);
    assert_eq!(car.mode, TravelMode::Car as i32);
    assert_eq!(car.points.len(), 3);
    assert!(car.points.iter().all(|p| p.lanelet_id == 2101), "{car:?}");
    let bike = by_object(2);
    assert_eq!(bike.mode, TravelMode::Bicycle as i32);
    assert!(bike.points.iter().all(|p| p.lanelet_id == 2300), "{bike:?}");
    assert!(bike.points.iter().all(|p| p.offset_m > 0.1 && p.offset_m < 0.6), "{bike:?}");
}

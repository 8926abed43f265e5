use super::*;
use crate::proto::{IngestMetadata, ObjectClass};
use crate::stages::collector::calibration::SensorCalibration;

fn wrapper(objects: Vec<PerceivedObject>) -> CitsMessageWrapper {
    CitsMessageWrapper {
        ingest: Some(IngestMetadata { rsu_id: "rsu1".into(), ..Default::default() }),
        message: Some(cits_message_wrapper::Message::Cpm(Cpm {
            station_id: 1001,
            reference_time_us: 1_700_000_000_000_000,
            reference_latitude: 478_095_000,
            reference_longitude: 130_550_000,
            objects,
            ..Default::default()
        })),
        frame_id: "f1".into(),
        trace: vec![crate::proto::StageTrace { stage: "decoder".into(), received_at_us: 1, sent_at_us: 2 }],
    }
}

fn object(id: u32, x_cm: i32, y_cm: i32, sensor_id: u32) -> PerceivedObject {
    PerceivedObject {
        object_id: id,
        x_cm,
        y_cm,
        sensor_id,
        measurement_delta_time_ms: -40,
        classification: ObjectClass::Bicycle as i32,
        x_confidence_cm: 30,
        y_confidence_cm: 50,
        ..Default::default()
    }
}

fn camera() -> Calibrations {
    // Camera 1 at another corner, looking south-west (x axis heading 225°).
    Calibrations::new(vec![SensorCalibration {
        station_id: 1001,
        sensor_id: 1,
        pose: SensorPose { origin: Wgs84 { lat: 47.8091, lon: 13.0556 }, x_axis_heading_deg: 225.0 },
    }])
}

/// rsu1 sends in its cameras' frames (the research RSU), every other RSU the standard's.
fn frames() -> ObjectFrames {
    ObjectFrames::from_config("collector", [("object_frame.rsu1", "sensor")]).unwrap()
}

fn on_rsu(mut w: CitsMessageWrapper, rsu: &str) -> CitsMessageWrapper {
    w.ingest.as_mut().unwrap().rsu_id = rsu.into();
    w
}

fn standard() -> ObjectFrames {
    ObjectFrames::default()
}

#[test]
fn a_standard_cpm_places_objects_east_north_of_the_reference_position() {
    // The case: a car 20 m west and 1.8 m south of the reference position, heading
    // east at 8.3 m/s, from station 1001 whose camera 1 is calibrated. The standard's frame
    // ignores the calibration (it came out 35 m north, 30 m east, heading 225° before).
    let mut car = object(4, -2000, -180, 1);
    (car.velocity_x_cm_s, car.velocity_y_cm_s) = (Some(830), Some(0));
    car.yaw_decideg = Some(0);
    for frames in [standard(), frames()] {
        let frame = collect(&on_rsu(wrapper(vec![car]), "rsu2"), &camera(), &frames).unwrap();
        let l = &frame.locations[0];
        let (e, n) =
            geo::wgs84_to_offset(Wgs84 { lat: 47.8095, lon: 13.0550 }, Wgs84 { lat: l.latitude, lon: l.longitude });
        assert!((e + 20.0).abs() < 0.01 && (n + 1.8).abs() < 0.01, "{e} {n}");
        assert!((l.speed_mps.unwrap() - 8.3).abs() < 1e-9);
        assert!((l.heading_deg.unwrap() - 90.0).abs() < 1e-9, "{:?}", l.heading_deg);
        assert_eq!(l.measured_at_us, 1_700_000_000_000_000 - 40_000);
        assert_eq!(l.position_confidence_m, 0.5);
    }
}

#[test]
fn a_standing_object_of_a_standard_cpm_takes_its_heading_from_the_yaw_angle() {
    // zAngle counter-clockwise from x (east): 90° is north.
    let mut o = object(1, 0, 0, 0);
    o.yaw_decideg = Some(900);
    let frame = collect(&on_rsu(wrapper(vec![o]), "rsu2"), &camera(), &frames()).unwrap();
    assert!((frame.locations[0].heading_deg.unwrap() - 0.0).abs() < 1e-9);
}

#[test]
fn calibrated_sensor_places_objects_in_its_own_frame() {
    // 10 m along the camera's x axis (225°: south-west) from the camera's origin.
    let frame = collect(&wrapper(vec![object(9, 1000, 0, 1)]), &camera(), &frames()).unwrap();
    let l = &frame.locations[0];
    let (e, n) =
        geo::wgs84_to_offset(Wgs84 { lat: 47.8091, lon: 13.0556 }, Wgs84 { lat: l.latitude, lon: l.longitude });
    let h = std::f64::consts::FRAC_1_SQRT_2 * 10.0;
    assert!((e + h).abs() < 1e-6 && (n + h).abs() < 1e-6, "{e} {n}");
    assert_eq!((l.object_id, l.station_id, l.sensor_id), (9, 1001, 1));
    assert_eq!(l.classification, ObjectClass::Bicycle as i32);
}

#[test]
fn an_uncalibrated_sensor_of_a_sensor_frame_rsu_is_an_error() {
    for sensor in [0, 2] {
        let err = collect(&wrapper(vec![object(9, 1000, 0, 1), object(3, 0, 0, sensor)]), &camera(), &frames())
            .unwrap_err()
            .reason;
        assert!(err.contains(&format!("sensor.1001.{sensor}")) && err.contains("object_frame.rsu1"), "{err}");
    }
}

#[test]
fn velocity_gives_speed_and_heading_in_wgs84() {
    let mut o = object(1, 0, 0, 1);
    o.velocity_x_cm_s = Some(500);
    o.velocity_y_cm_s = Some(0);
    let frame = collect(&wrapper(vec![o]), &camera(), &frames()).unwrap();
    let l = &frame.locations[0];
    assert!((l.speed_mps.unwrap() - 5.0).abs() < 1e-9);
    assert!((l.heading_deg.unwrap() - 225.0).abs() < 1e-9);
}

#[test]
fn standing_objects_take_heading_from_yaw() {
    let mut o = object(1, 0, 0, 1);
    o.velocity_x_cm_s = Some(0);
    o.velocity_y_cm_s = Some(0);
    o.yaw_decideg = Some(900); // 90° counter-clockwise from x (225°) → 135°
    let frame = collect(&wrapper(vec![o]), &camera(), &frames()).unwrap();
    assert!((frame.locations[0].heading_deg.unwrap() - 135.0).abs() < 1e-9);
}

#[test]
fn frame_keeps_rsu_order_and_trace() {
    let objects = (0..128).map(|i| object(i, i as i32 * 10, 0, 0)).collect();
    let frame = collect(&wrapper(objects), &Calibrations::default(), &standard()).unwrap();
    assert_eq!(frame.rsu_id, "rsu1");
    assert_eq!(frame.locations.len(), 128);
    assert!(frame.locations.iter().enumerate().all(|(i, l)| l.object_id == i as u32));
    assert_eq!(frame.trace.len(), 1);
}

fn vam(heading_change: Turn, path_to: Option<(f64, f64)>) -> CitsMessageWrapper {
    let at = Wgs84 { lat: 47.8095, lon: 13.0550 };
    let point = |(east, north): (f64, f64)| {
        let p = geo::offset_to_wgs84(at, east, north);
        crate::proto::PredictedPoint {
            latitude: (p.lat * 1e7).round() as i32,
            longitude: (p.lon * 1e7).round() as i32,
            delta_time_ms: Some(2000),
        }
    };
    let mut w = wrapper(vec![]);
    w.message = Some(cits_message_wrapper::Message::Awareness(Awareness {
        station_id: 815,
        station_type: 2,
        generated_at_us: 1_700_000_000_000_000,
        latitude: 478_095_000,
        longitude: 130_550_000,
        heading_decideg: Some(0), // north
        speed_cm_s: Some(500),
        message: AwarenessMessage::Vam as i32,
        heading_change: heading_change as i32,
        path_prediction: path_to.map(point).into_iter().collect(),
        ..Default::default()
    }));
    w
}

fn announced(w: &CitsMessageWrapper) -> Turn {
    let frame = collect(w, &Calibrations::default(), &standard()).unwrap();
    let cue = frame.locations[0].cue.unwrap();
    Turn::try_from(cue.announced_turn).unwrap()
}

#[test]
fn a_vam_makes_its_vru_a_road_user_that_announces_its_turn() {
    let frame = collect(&vam(Turn::None, None), &Calibrations::default(), &standard()).unwrap();
    let l = &frame.locations[0];
    assert_eq!((l.sensor_id, l.station_id, l.object_id), (SELF_REPORTED, 815, 0));
    assert_eq!(l.classification, ObjectClass::Bicycle as i32);
    assert_eq!(l.position_confidence_m, VAM_POSITION_CONFIDENCE_M);
    // Its heading change indication first, else the side its predicted path bends to.
    assert_eq!(announced(&vam(Turn::None, None)), Turn::None);
    assert_eq!(announced(&vam(Turn::Left, Some((8.0, 8.0)))), Turn::Left);
    assert_eq!(announced(&vam(Turn::None, Some((8.0, 8.0)))), Turn::Right);
    assert_eq!(announced(&vam(Turn::None, Some((-8.0, 8.0)))), Turn::Left);
    assert_eq!(announced(&vam(Turn::None, Some((1.0, 10.0)))), Turn::Straight);
    // Too short a path tells nothing.
    assert_eq!(announced(&vam(Turn::None, Some((1.0, 1.0)))), Turn::None);
    let mut lost = vam(Turn::None, None);
    if let Some(cits_message_wrapper::Message::Awareness(a)) = &mut lost.message {
        a.latitude = 900_000_001;
    }
    let err = collect(&lost, &Calibrations::default(), &standard()).unwrap_err().reason;
    assert!(err.contains("VAM reference position unavailable"), "{err}");
}

#[test]
fn unusable_wrappers_are_errors() {
    let mut no_cpm = wrapper(vec![]);
    no_cpm.message = None;
    assert!(collect(&no_cpm, &Calibrations::default(), &standard()).unwrap_err().reason.contains("no CPM"));
    let mut bad_ref = wrapper(vec![]);
    if let Some(cits_message_wrapper::Message::Cpm(c)) = &mut bad_ref.message {
        c.reference_latitude = 900_000_001;
    }
    assert!(collect(&bad_ref, &Calibrations::default(), &standard())
        .unwrap_err()
        .reason
        .contains("reference position"));
    let mut no_rsu = wrapper(vec![]);
    no_rsu.ingest = None;
    assert!(collect(&no_rsu, &Calibrations::default(), &standard()).is_err());
}

//! Collector stage: [`CitsMessageWrapper`] → one [`LocationsFrame`] with the WGS84 location of
//! every perceived object of the CPM, or of the station that sent a CAM or a VAM (its own
//! report, with what it says of its intent).

use crate::calibration::Calibrations;
use crate::geo::{self, distance, SensorPose, Wgs84};
use crate::object_frame::{ObjectFrame, ObjectFrames};
use crate::proto::{
    cits_message_wrapper, Awareness, AwarenessMessage, CitsMessageWrapper, Cpm, IntentCue, LocationsContainer,
    LocationsFrame, ObjectClass, PerceivedObject, Turn,
};
use crate::stage::StageError;

pub const STAGE: &str = "collector";

/// Below this speed a velocity vector's direction is noise; the yaw angle is used instead.
const MIN_SPEED_FOR_HEADING_MPS: f64 = 0.3;

/// The sensor id of a road user's own report (a CAM or a VAM): no sensor of the RSU measured it.
pub const SELF_REPORTED: u32 = u32::MAX;

/// Position confidence (m) of a CAM's reference position when it gives none: what a vehicle's
/// GNSS holds in a city (2 m at 95 %).
const CAM_POSITION_CONFIDENCE_M: f64 = 2.0;
/// The same for a VAM's: a handheld or bicycle-mounted unit's GNSS among buildings (3.5 m at
/// 95 %), less than a car's roof antenna holds.
const VAM_POSITION_CONFIDENCE_M: f64 = 3.5;
/// A predicted path whose end bears this far off the heading announces a turn to that side
/// (its chord: a right angle's turn bears about 45° off by its end).
const PATH_TURN_DEG: f64 = 30.0;
/// A predicted path shorter than this (m) says nothing of a turn.
const PATH_MIN_M: f64 = 3.0;

/// ETSI StationType of a roadside unit: its CAM is no road user.
const STATION_TYPE_RSU: u32 = 15;

/// Converts all objects of the CPM in `wrapper` to WGS84.
///
/// Where an object's x and y count from depends on the RSU ([`ObjectFrames`]): from the CPM's
/// reference position, x east and y north, as the standards say; or, for an RSU that sends in
/// its sensors' frames, from the pose of the sensor that measured it — an object whose sensor
/// has no calibration is then an error, never placed as if the frame were the standard's.
pub fn collect(
    wrapper: &CitsMessageWrapper,
    calibrations: &Calibrations,
    frames: &ObjectFrames,
) -> Result<LocationsFrame, StageError> {
    let cpm = match &wrapper.message {
        Some(cits_message_wrapper::Message::Cpm(cpm)) => cpm,
        Some(cits_message_wrapper::Message::Awareness(a)) => return self_reported(wrapper, a),
        None => return Err(StageError::new("wrapper carries no CPM, CAM or VAM")),
    };
    let rsu_id = rsu_of(wrapper)?;
    let reference = reference_pose(cpm)?;
    let frame = frames.of(&rsu_id);
    let locations = cpm
        .objects
        .iter()
        .map(|o| {
            let pose = match frame {
                ObjectFrame::Enu => &reference,
                ObjectFrame::Sensor => calibrations.pose(cpm.station_id, o.sensor_id).ok_or_else(|| {
                    StageError::new(format!(
                        "RSU {rsu_id} sends objects in its sensors' frames (object_frame.{rsu_id} = sensor), but \
                         sensor {} of station {} has no calibration (sensor.{}.{})",
                        o.sensor_id, cpm.station_id, cpm.station_id, o.sensor_id
                    ))
                })?,
            };
            Ok(locate(cpm, o, pose))
        })
        .collect::<Result<_, StageError>>()?;
    Ok(LocationsFrame {
        rsu_id,
        station_id: cpm.station_id,
        reference_time_us: cpm.reference_time_us,
        locations,
        frame_id: wrapper.frame_id.clone(),
        trace: wrapper.trace.clone(),
    })
}

fn rsu_of(wrapper: &CitsMessageWrapper) -> Result<String, StageError> {
    wrapper
        .ingest
        .as_ref()
        .map(|i| i.rsu_id.clone())
        .filter(|r| !r.is_empty())
        .ok_or_else(|| StageError::new("wrapper has no RSU id"))
}

/// A CAM's or VAM's station as a located road user (none for an RSU's own CAM): its reference
/// position, speed and heading, and as its intent cue its turn signals and yaw rate (CAM) or the
/// turn it announces (VAM).
fn self_reported(wrapper: &CitsMessageWrapper, a: &Awareness) -> Result<LocationsFrame, StageError> {
    let (lat, lon) = (f64::from(a.latitude) / 1e7, f64::from(a.longitude) / 1e7);
    let vam = a.message == AwarenessMessage::Vam as i32;
    if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
        let what = if vam { "VAM" } else { "CAM" };
        return Err(StageError::new(format!("{what} reference position unavailable or invalid ({lat}, {lon})")));
    }
    let road_user = (a.station_type != STATION_TYPE_RSU).then(|| LocationsContainer {
        station_id: a.station_id,
        object_id: 0,
        measured_at_us: a.generated_at_us,
        latitude: lat,
        longitude: lon,
        classification: class_of_station(a.station_type) as i32,
        classification_confidence: 100,
        speed_mps: a.speed_cm_s.map(|v| f64::from(v) / 100.0),
        heading_deg: a.heading_decideg.map(|h| f64::from(h) / 10.0),
        sensor_id: SELF_REPORTED,
        position_confidence_m: if vam { VAM_POSITION_CONFIDENCE_M } else { CAM_POSITION_CONFIDENCE_M },
        cue: Some(IntentCue {
            station_id: a.station_id,
            reported_at_us: a.generated_at_us,
            turn_signal: a.turn_signal,
            yaw_rate_deg_s: a.yaw_rate_centideg_s.map(|y| f64::from(y) / 100.0),
            announced_turn: announced_turn(a, Wgs84 { lat, lon }) as i32,
        }),
    });
    Ok(LocationsFrame {
        rsu_id: rsu_of(wrapper)?,
        station_id: a.station_id,
        reference_time_us: a.generated_at_us,
        locations: road_user.into_iter().collect(),
        frame_id: wrapper.frame_id.clone(),
        trace: wrapper.trace.clone(),
    })
}

/// The turn a VAM announces: its heading change indication, else the side its predicted path
/// bends to (straight when it does not bend; none without a path or a heading to judge it by).
fn announced_turn(a: &Awareness, at: Wgs84) -> Turn {
    if let Ok(turn @ (Turn::Left | Turn::Right)) = Turn::try_from(a.heading_change) {
        return turn;
    }
    let (Some(end), Some(heading)) = (a.path_prediction.last(), a.heading_decideg) else { return Turn::None };
    let end = Wgs84 { lat: f64::from(end.latitude) / 1e7, lon: f64::from(end.longitude) / 1e7 };
    let (east, north) = geo::wgs84_to_offset(at, end);
    if east.hypot(north) < PATH_MIN_M {
        return Turn::None;
    }
    // Clockwise from north, as the heading: positive is to the right.
    let off = geo::heading_difference_deg(geo::heading_deg(east, north), f64::from(heading) / 10.0);
    if off > PATH_TURN_DEG {
        Turn::Right
    } else if off < -PATH_TURN_DEG {
        Turn::Left
    } else {
        Turn::Straight
    }
}

/// The pipeline's class of an ETSI StationType (TS 102 894-2).
fn class_of_station(station_type: u32) -> ObjectClass {
    match station_type {
        1 => ObjectClass::Pedestrian,
        2 | 12 => ObjectClass::Bicycle,
        3 | 4 => ObjectClass::Motorcycle,
        5 => ObjectClass::Car,
        6 => ObjectClass::Bus,
        7 | 8 => ObjectClass::Truck,
        9 | 10 => ObjectClass::OtherVehicle,
        11 => ObjectClass::Tram,
        13 => ObjectClass::Animal,
        _ => ObjectClass::Unknown,
    }
}

fn reference_pose(cpm: &Cpm) -> Result<SensorPose, StageError> {
    let lat = f64::from(cpm.reference_latitude) / 1e7;
    let lon = f64::from(cpm.reference_longitude) / 1e7;
    // ETSI reserves 900000001 / 1800000001 for "unavailable".
    if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
        return Err(StageError::new(format!("CPM reference position unavailable or invalid ({lat}, {lon})")));
    }
    Ok(SensorPose::east_north(Wgs84 { lat, lon }))
}

fn locate(cpm: &Cpm, o: &PerceivedObject, pose: &SensorPose) -> LocationsContainer {
    let p = pose.to_wgs84(f64::from(o.x_cm) / 100.0, f64::from(o.y_cm) / 100.0);
    let velocity = o.velocity_x_cm_s.zip(o.velocity_y_cm_s).map(|(vx, vy)| {
        let (ve, vn) = pose.to_east_north(f64::from(vx) / 100.0, f64::from(vy) / 100.0);
        (distance(ve, vn), geo::heading_deg(ve, vn))
    });
    let speed_mps = velocity.map(|(speed, _)| speed);
    let heading_deg = match (velocity, o.yaw_decideg) {
        (Some((speed, heading)), _) if speed >= MIN_SPEED_FOR_HEADING_MPS => Some(heading),
        (_, Some(yaw)) => Some(pose.heading_of_angle(f64::from(yaw) / 10.0)),
        (Some((_, heading)), None) => Some(heading),
        (None, None) => None,
    };
    let measured_at_us = (cpm.reference_time_us as i64 + i64::from(o.measurement_delta_time_ms) * 1000).max(0) as u64;
    LocationsContainer {
        station_id: cpm.station_id,
        object_id: o.object_id,
        measured_at_us,
        latitude: p.lat,
        longitude: p.lon,
        classification: o.classification,
        classification_confidence: o.classification_confidence,
        speed_mps,
        heading_deg,
        sensor_id: o.sensor_id,
        position_confidence_m: f64::from(o.x_confidence_cm.max(o.y_confidence_cm)) / 100.0,
        cue: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibration::SensorCalibration;
    use crate::proto::{IngestMetadata, ObjectClass};

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
}

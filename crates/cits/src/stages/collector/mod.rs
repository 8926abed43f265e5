//! Collector stage: [`CitsMessageWrapper`] → one [`LocationsFrame`] with the WGS84 location of
//! every perceived object of the CPM, or of the station that sent a CAM or a VAM (its own
//! report, with what it says of its intent).

use crate::message::StageError;
use crate::proto::{
    cits_message_wrapper, Awareness, AwarenessMessage, CitsMessageWrapper, Cpm, IntentCue, LocationsContainer,
    LocationsFrame, ObjectClass, PerceivedObject, Turn,
};
use crate::shared::geo::{self, distance, SensorPose, Wgs84};
use crate::stages::collector::calibration::Calibrations;
use crate::stages::collector::object_frame::{ObjectFrame, ObjectFrames};

pub mod calibration;
mod handler;
pub mod object_frame;

pub use handler::Collector;

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
mod tests;

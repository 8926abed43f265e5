//! Decoder stage: a CPM from `cits.cpm.<rsu>`, a CAM from `cits.cam.<rsu>` or a VAM from
//! `cits.vam.<rsu>` → [`CitsMessageWrapper`]. Reads what RSUs send (see [`etsi_its::format`]):
//! TS 103 324 or TR 103 562 CPMs, EN 302 637-2 CAMs and TS 103 300-3 VAMs, in UPER or XER, bare
//! or in an unsecured GeoNetworking + BTP packet, recognised per message.

use etsi_its::cam::SimpleCam;
use etsi_its::cpm::{ObjectKind, SimpleCpm};
use etsi_its::format;
use etsi_its::vam::SimpleVam;

use crate::message::StageError;
use crate::proto::{
    cits_message_wrapper, Awareness, AwarenessMessage, CitsMessageWrapper, Cpm, IngestMetadata, ObjectClass,
    PerceivedObject, PredictedPoint, SensorInformation, Turn, TurnSignal,
};
use crate::shared::time;
use crate::subjects;
use crate::subjects::Ingest;

mod handler;
mod limits;
pub mod registry;

pub use handler::Decoder;

pub const STAGE: &str = "decoder";

/// Largest CPM accepted. A full CPM (128 objects with all optional fields) stays well below this
/// in XER, an order of magnitude bigger than its UPER (busy CPMs of the default recording pass
/// 16 KiB in XER); anything bigger is not a CPM and must not reach a decoder.
pub const MAX_CPM_BYTES: usize = 256 * 1024;

/// Decodes one CPM, CAM or VAM (by its subject) received on `subject` at `received_at_us`.
pub fn decode(subject: &str, payload: &[u8], received_at_us: u64) -> Result<CitsMessageWrapper, StageError> {
    let (ingest, rsu) = subjects::ingest_of_subject(subject)?;
    let what = ingest.name();
    if payload.is_empty() {
        return Err(StageError::new(format!("empty {what} payload")));
    }
    if payload.len() > MAX_CPM_BYTES {
        return Err(StageError::new(format!("oversized {what}: {} bytes (limit {MAX_CPM_BYTES})", payload.len())));
    }
    // A Release 1 CPM and every CAM and VAM carry their time modulo 65.536 s: the reception time
    // places it.
    let recognised = format::recognise(payload);
    let read_as = recognised.format;
    let received_its_ms = time::unix_us_to_its_ms(received_at_us);
    // What it was read as, down to the encoding of a CPM's container list (both are in the field).
    let mut read_as_named = None;
    let message = match ingest {
        Ingest::Cpm => format::read_cpm_as(recognised, received_its_ms).map(|read| {
            read_as_named = Some(format::label(read_as, read.container_list));
            cits_message_wrapper::Message::Cpm(to_proto(&read.cpm))
        }),
        Ingest::Cam => format::simple_cam_as(recognised)
            .map(|simple| cits_message_wrapper::Message::Awareness(awareness(&simple, received_its_ms))),
        Ingest::Vam => format::simple_vam_as(recognised)
            .map(|simple| cits_message_wrapper::Message::Awareness(vru_awareness(&simple, received_its_ms))),
    }
    .map_err(|e| StageError::new(format!("invalid {what}: {e}")))?;
    Ok(CitsMessageWrapper {
        ingest: Some(IngestMetadata {
            rsu_id: rsu.to_string(),
            source_subject: subject.to_string(),
            received_at_us,
            payload_bytes: payload.len() as u32,
            format: read_as_named.unwrap_or_else(|| read_as.to_string()),
        }),
        message: Some(message),
        frame_id: crate::message::frame_id(subject, payload),
        trace: Vec::new(),
    })
}

fn to_proto(c: &SimpleCpm) -> Cpm {
    Cpm {
        protocol_version: u32::from(c.protocol_version),
        station_id: c.station_id,
        reference_time_its_ms: c.reference_time_its_ms,
        reference_time_us: time::its_ms_to_unix_us(c.reference_time_its_ms),
        reference_latitude: c.reference_lat_e7,
        reference_longitude: c.reference_lon_e7,
        sensors: c
            .sensors
            .iter()
            .map(|&(sensor_id, sensor_type)| SensorInformation {
                sensor_id: u32::from(sensor_id),
                sensor_type: u32::from(sensor_type),
            })
            .collect(),
        objects: c
            .objects
            .iter()
            .map(|o| PerceivedObject {
                object_id: u32::from(o.object_id),
                measurement_delta_time_ms: i32::from(o.measurement_delta_ms),
                x_cm: o.x_cm,
                y_cm: o.y_cm,
                x_confidence_cm: u32::from(o.x_conf_cm),
                y_confidence_cm: u32::from(o.y_conf_cm),
                velocity_x_cm_s: o.velocity.map(|(vx, _)| i32::from(vx)),
                velocity_y_cm_s: o.velocity.map(|(_, vy)| i32::from(vy)),
                yaw_decideg: o.yaw_decideg.map(u32::from),
                classification: object_class(o.class) as i32,
                classification_confidence: u32::from(o.class_confidence_pct),
                sensor_id: o.sensor_id.map(u32::from).unwrap_or(0),
            })
            .collect(),
    }
}

/// The unix time of a CAM's or VAM's `generationDeltaTime`, placed by its reception.
fn generated_at_us(generation_delta_time_ms: u16, received_its_ms: u64) -> u64 {
    time::its_ms_to_unix_us(etsi_its::cpm::v1::reference_time_near(generation_delta_time_ms, received_its_ms))
}

fn awareness(c: &SimpleCam, received_its_ms: u64) -> Awareness {
    Awareness {
        station_id: c.station_id,
        station_type: u32::from(c.station_type),
        generated_at_us: generated_at_us(c.generation_delta_time_ms, received_its_ms),
        latitude: c.lat_e7,
        longitude: c.lon_e7,
        heading_decideg: c.heading_decideg.map(u32::from),
        speed_cm_s: c.speed_cm_s.map(u32::from),
        yaw_rate_centideg_s: c.yaw_rate_centideg_s.map(i32::from),
        turn_signal: match c.turn_signals {
            None => TurnSignal::Unknown,
            Some(s) => match (s.left, s.right) {
                (false, false) => TurnSignal::Off,
                (true, false) => TurnSignal::Left,
                (false, true) => TurnSignal::Right,
                (true, true) => TurnSignal::Both,
            },
        } as i32,
        ..Default::default()
    }
}

fn vru_awareness(v: &SimpleVam, received_its_ms: u64) -> Awareness {
    use etsi_its::vam;
    Awareness {
        station_id: v.station_id,
        station_type: u32::from(v.station_type),
        generated_at_us: generated_at_us(v.generation_delta_time_ms, received_its_ms),
        latitude: v.lat_e7,
        longitude: v.lon_e7,
        heading_decideg: v.heading_decideg.map(u32::from),
        speed_cm_s: v.speed_cm_s.map(u32::from),
        yaw_rate_centideg_s: v.yaw_rate_centideg_s.map(i32::from),
        turn_signal: TurnSignal::Unknown as i32,
        message: AwarenessMessage::Vam as i32,
        heading_change: match v.heading_change.map(|h| h.direction) {
            None => Turn::None,
            Some(vam::Turn::Left) => Turn::Left,
            Some(vam::Turn::Right) => Turn::Right,
        } as i32,
        heading_change_in_ms: v.heading_change.and_then(|h| h.action_delta_ms),
        path_prediction: v
            .path_prediction
            .iter()
            .map(|p| PredictedPoint {
                latitude: p.lat_e7,
                longitude: p.lon_e7,
                delta_time_ms: p.delta_time_10ms.map(|t| u32::from(t) * 10),
            })
            .collect(),
    }
}

fn object_class(kind: ObjectKind) -> ObjectClass {
    match kind {
        ObjectKind::Unknown => ObjectClass::Unknown,
        ObjectKind::Car => ObjectClass::Car,
        ObjectKind::Bus => ObjectClass::Bus,
        ObjectKind::LightTruck | ObjectKind::Truck => ObjectClass::Truck,
        ObjectKind::Trailer | ObjectKind::SpecialVehicle | ObjectKind::Agricultural => ObjectClass::OtherVehicle,
        ObjectKind::Tram => ObjectClass::Tram,
        ObjectKind::Motorcycle | ObjectKind::Moped => ObjectClass::Motorcycle,
        // Cyclists and e-scooters share bike lanes and conflict with turning cars alike.
        ObjectKind::Bicycle | ObjectKind::LightVruVehicle => ObjectClass::Bicycle,
        ObjectKind::Pedestrian => ObjectClass::Pedestrian,
        ObjectKind::Animal => ObjectClass::Animal,
    }
}

#[cfg(test)]
mod tests;

//! The Release 1 CPM of ETSI TR 103 562 V2.1.1 (module `CPM-PDU-Descriptions`, c-its-parser's
//! `cpm_1`), which deployed RSUs still send, read into the same [`SimpleCpm`] as a Release 2 CPM.
//!
//! | `SimpleCpm` | TR 103 562 |
//! |---|---|
//! | `protocol_version` | header `protocolVersion` (always [`PROTOCOL_VERSION`], 1, when built here) |
//! | `station_id` | header `stationID` |
//! | `reference_time_its_ms` | `generationDeltaTime` = TimestampIts mod 65536: the full time is the one nearest the reception time (see [`SimpleCpm::from_cpm_v1`]) |
//! | `reference_lat_e7`, `_lon_e7` | management container `referencePosition` (`stationType` roadSideUnit when built here) |
//! | `sensors` (id, type) | `sensorInformationContainer`: `sensorID`, `type`; the `detectionArea` it requires is sent as a circle of radius 0 around the reference point ("not given") |
//! | `object_id` | `objectID`: 8 bits in Release 1, so only ids 0..=255 can be sent |
//! | `measurement_delta_ms` | `timeOfMeasurement` (-1500..=1500), with the opposite sign: it counts from the measurement to the generation time |
//! | `x_cm`, `y_cm` | `xDistance`, `yDistance` (cm, -132768..=132767; read clamped to Release 2's range) |
//! | `x_conf_cm`, `y_conf_cm` | their `DistanceConfidence` (cm 0..=100, 101 out of range, 102 unavailable) |
//! | `velocity` | `xSpeed`, `ySpeed` (mandatory in Release 1: 16383 unavailable both ways) |
//! | `yaw_decideg` | `yawAngle` (0.1°, 3601 unavailable) |
//! | `class`, `class_confidence_pct` | the most confident `classification` entry, see below |
//! | `sensor_id` | first entry of `sensorIDList` |
//!
//! Classes: `vehicle` passengerCar, bus, lightTruck, heavyTruck, trailer, specialVehicles, tram,
//! emergencyVehicle (read as SpecialVehicle), agricultural; `person` pedestrian, personInWheelchair
//! and personOnSkates (LightVruVehicle), cyclist (Bicycle), personWithStroller and personGroup
//! (Pedestrian); `animal`; `other` and the `unknown` codes are Unknown. Release 1 has no class for
//! motorcycles and mopeds: they are sent as `vehicle: unknown` and so read back as Unknown. Class
//! confidence 0 ("unknown") and 101 ("unavailable") read as 0.
//!
//! The sensor types differ from 8 on: Release 1 fusion(8), inductionloop(9), sphericalCamera(10)
//! and itssaggregation(11) are CDD localAggregation(12), inductionLoop(8), sphericalCamera(9) and
//! itsAggregation(13); CDD uwb(10) and acoustic(11), which Release 1 lacks, are sent as
//! undefined(0).

use c_its_parser::standards::cam_1_4_1::cam_pdu_descriptions::GenerationDeltaTime;
use c_its_parser::standards::cdd_1_3_1_1::its_container::{self as container, SpeedConfidence, StationID, StationType};
use c_its_parser::standards::cpm_1::cpm_pdu_descriptions::*;

use super::simple::most_confident;
use super::{ObjectKind, SimpleCpm, SimpleObject, MESSAGE_ID};
use crate::checks::{require_available, ExpectedHeader};
use crate::CodecError;

/// The Release 1 CPM PDU.
pub type CpmV1 = CPM;

/// `protocolVersion` a TR 103 562 CPM carries.
pub const PROTOCOL_VERSION: u8 = 1;

const HEADER: ExpectedHeader = ExpectedHeader::new("CPM", "messageID", MESSAGE_ID, PROTOCOL_VERSION, "TR 103 562");

const SPEED_UNAVAILABLE: i16 = 16_383;
const CLASS_CONFIDENCE_UNAVAILABLE: u8 = 101;
/// Release 2 sensor type codes and Release 1 ones, where they differ.
const SENSOR_TYPES_V2_V1: [(u8, u8); 4] = [(12, 8), (8, 9), (9, 10), (13, 11)];

crate::checks::pdu_codec!(CpmV1, "CPM (TR 103 562)");

/// The TimestampIts nearest `received_its_ms` whose low 16 bits are `generation_delta_time`.
pub fn reference_time_near(generation_delta_time: u16, received_its_ms: u64) -> u64 {
    const WRAP: i64 = 1 << 16;
    let received = received_its_ms.min(crate::checks::TIMESTAMP_ITS_MAX) as i64;
    let offset = (i64::from(generation_delta_time) - received).rem_euclid(WRAP);
    let later = received + offset;
    let earlier = later - WRAP;
    let nearest = if offset <= WRAP / 2 || earlier < 0 { later } else { earlier };
    nearest.min(crate::checks::TIMESTAMP_ITS_MAX as i64) as u64
}

impl SimpleCpm {
    /// Builds a TR 103 562 CPM carrying what Release 1 can (see the module's table): values are
    /// clamped like [`SimpleCpm::to_cpm`] does. Errors when an object id does not fit Release 1's
    /// 8 bits: sending it truncated would merge tracks.
    pub fn to_cpm_v1(&self) -> Result<CpmV1, CodecError> {
        let objects = self.objects.iter().map(SimpleObject::to_v1).collect::<Result<Vec<_>, _>>()?;
        let count = objects.len().min(255) as u8;
        let sensors = self.sensors.iter().map(|&(id, kind)| {
            SensorInformation::new(
                Identifier(id),
                SensorType(sensor_type_v1(kind)),
                DetectionArea::stationarySensorCircular(AreaCircular { node_center_point: None, radius: Radius(0) }),
                None,
            )
        });
        let management = CpmManagementContainer::new(
            StationType(15), // roadSideUnit
            None,
            crate::checks::position_without_confidence!(container, self.reference_lat_e7, self.reference_lon_e7),
        );
        Ok(CPM {
            header: container::ItsPduHeader {
                protocol_version: PROTOCOL_VERSION,
                message_id: MESSAGE_ID,
                station_id: StationID(self.station_id),
            },
            cpm: CollectivePerceptionMessage {
                generation_delta_time: GenerationDeltaTime((self.reference_time_its_ms % (1 << 16)) as u16),
                cpm_parameters: CpmParameters::new(
                    management,
                    None,
                    (!self.sensors.is_empty()).then(|| SensorInformationContainer(sensors.collect())),
                    (!objects.is_empty()).then_some(PerceivedObjectContainer(objects)),
                    None,
                    NumberOfPerceivedObjects(count),
                ),
            },
        })
    }

    /// Reads the pipeline's view out of a decoded TR 103 562 CPM received at `received_its_ms`
    /// (TimestampIts), which places its 16-bit `generationDeltaTime` on the full time scale
    /// ([`reference_time_near`]; right when the CPM is less than 32 s old).
    ///
    /// Errors when the message is not a CPM (`messageID` ≠ 14), its `protocolVersion` is not 1
    /// (2 is a TS 103 324 CPM: [`SimpleCpm::from_cpm`]) or its reference position is unavailable.
    pub fn from_cpm_v1(cpm: &CpmV1, received_its_ms: u64) -> Result<SimpleCpm, CodecError> {
        let header = &cpm.header;
        HEADER.check(header.protocol_version, header.message_id)?;
        let parameters = &cpm.cpm.cpm_parameters;
        let position = &parameters.management_container.reference_position;
        require_available(position.latitude.0, position.longitude.0, "CPM reference position")?;
        let sensors = parameters
            .sensor_information_container
            .iter()
            .flat_map(|c| &c.0)
            .map(|s| (s.sensor_id.0, sensor_type_v2(s.r_type.0)))
            .collect();
        let objects =
            parameters.perceived_object_container.iter().flat_map(|c| &c.0).map(SimpleObject::from_v1).collect();
        Ok(SimpleCpm {
            protocol_version: header.protocol_version,
            station_id: header.station_id.0,
            reference_time_its_ms: reference_time_near(cpm.cpm.generation_delta_time.0, received_its_ms),
            reference_lat_e7: position.latitude.0,
            reference_lon_e7: position.longitude.0,
            sensors,
            objects,
        })
    }
}

fn sensor_type_v1(v2: u8) -> u8 {
    match SENSOR_TYPES_V2_V1.iter().find(|(two, _)| *two == v2) {
        Some(&(_, one)) => one,
        None if v2 <= 7 => v2,
        None => 0,
    }
}

fn sensor_type_v2(v1: u8) -> u8 {
    SENSOR_TYPES_V2_V1.iter().find(|(_, one)| *one == v1).map_or(if v1 <= 7 { v1 } else { 0 }, |&(two, _)| two)
}

/// Release 2 `CoordinateConfidence` (cm, 4095 out of range, 4096 unavailable) as Release 1
/// `DistanceConfidence` (cm up to 100, 101 out of range, 102 unavailable), and back.
fn distance_confidence_v1(cm: u16) -> u8 {
    match cm {
        0..=100 => cm.max(1) as u8,
        4096 => 102,
        _ => 101,
    }
}

fn coordinate_confidence_v2(v1: u8) -> u16 {
    match v1 {
        101 => 4095,
        102.. => 4096,
        cm => u16::from(cm.max(1)),
    }
}

/// Release 1 class and its confidence for a kind; `None` for Unknown without confidence (no
/// classification sent, as in Release 2).
fn class_v1(kind: ObjectKind, pct: u8) -> Option<ObjectClass> {
    let vehicle = |code| {
        ObjectClassClass::vehicle(VehicleSubclass { r_type: VehicleSubclassType(code), confidence: ClassConfidence(0) })
    };
    let person = |code| {
        ObjectClassClass::person(PersonSubclass { r_type: PersonSubclassType(code), confidence: ClassConfidence(0) })
    };
    let class = match kind {
        ObjectKind::Unknown if pct == 0 => return None,
        ObjectKind::Unknown => {
            ObjectClassClass::other(OtherSubclass { r_type: OtherSublassType(0), confidence: ClassConfidence(0) })
        }
        ObjectKind::Car => vehicle(1),
        ObjectKind::Bus => vehicle(2),
        ObjectKind::LightTruck => vehicle(3),
        ObjectKind::Truck => vehicle(4),
        ObjectKind::Trailer => vehicle(5),
        ObjectKind::SpecialVehicle => vehicle(6),
        ObjectKind::Tram => vehicle(7),
        ObjectKind::Agricultural => vehicle(9),
        ObjectKind::Motorcycle | ObjectKind::Moped => vehicle(0),
        ObjectKind::Pedestrian => person(1),
        ObjectKind::Bicycle => person(3),
        ObjectKind::LightVruVehicle => person(5),
        ObjectKind::Animal => {
            ObjectClassClass::animal(AnimalSubclass { r_type: AnimalSubclassType(0), confidence: ClassConfidence(0) })
        }
    };
    let confidence = if pct == 0 { CLASS_CONFIDENCE_UNAVAILABLE } else { pct.min(100) };
    Some(ObjectClass { confidence: ClassConfidence(confidence), class })
}

fn kind_of(class: &ObjectClassClass) -> ObjectKind {
    match class {
        ObjectClassClass::vehicle(v) => match v.r_type.0 {
            1 => ObjectKind::Car,
            2 => ObjectKind::Bus,
            3 => ObjectKind::LightTruck,
            4 => ObjectKind::Truck,
            5 => ObjectKind::Trailer,
            6 | 8 => ObjectKind::SpecialVehicle,
            7 => ObjectKind::Tram,
            9 => ObjectKind::Agricultural,
            _ => ObjectKind::Unknown,
        },
        ObjectClassClass::person(p) => match p.r_type.0 {
            2 | 5 => ObjectKind::LightVruVehicle,
            3 => ObjectKind::Bicycle,
            _ => ObjectKind::Pedestrian,
        },
        ObjectClassClass::animal(_) => ObjectKind::Animal,
        _ => ObjectKind::Unknown,
    }
}

impl SimpleObject {
    fn to_v1(&self) -> Result<PerceivedObject, CodecError> {
        let object_id = u8::try_from(self.object_id).map_err(|_| {
            CodecError::new(format!("object id {} does not fit a TR 103 562 CPM (0..=255)", self.object_id))
        })?;
        let distance = |cm: i32, conf: u16| ObjectDistanceWithConfidence {
            value: DistanceValue(cm.clamp(-132_768, 132_767)),
            confidence: DistanceConfidence(distance_confidence_v1(conf)),
        };
        let (vx, vy) = self.velocity.unwrap_or((SPEED_UNAVAILABLE, SPEED_UNAVAILABLE));
        let speed = |v: i16| SpeedExtended {
            value: SpeedValueExtended(v.clamp(-16_383, 16_383)),
            confidence: SpeedConfidence(127),
        };
        Ok(PerceivedObject::new(
            Identifier(object_id),
            self.sensor_id.map(|id| SensorIdList(vec![Identifier(id)])),
            TimeOfMeasurement(-self.measurement_delta_ms.clamp(-1500, 1500)),
            None,
            ObjectConfidence(0),
            distance(self.x_cm, self.x_conf_cm),
            distance(self.y_cm, self.y_conf_cm),
            None,
            speed(vx),
            speed(vy),
            None,
            None,
            None,
            None,
            self.yaw_decideg
                .map(|yaw| CartesianAngle { value: CartesianAngleValue(yaw % 3600), confidence: AngleConfidence(127) }),
            None,
            None,
            None,
            ObjectRefPoint(0),
            None,
            class_v1(self.class, self.class_confidence_pct).map(|c| ObjectClassDescription(vec![c])),
            None,
        ))
    }

    fn from_v1(object: &PerceivedObject) -> SimpleObject {
        let (class, class_confidence_pct) = most_confident(object.classification.iter().flat_map(|d| &d.0).map(|c| {
            let pct = if c.confidence.0 >= CLASS_CONFIDENCE_UNAVAILABLE { 0 } else { c.confidence.0 };
            (kind_of(&c.class), pct)
        }));
        let (vx, vy) = (object.x_speed.value.0, object.y_speed.value.0);
        SimpleObject {
            object_id: u16::from(object.object_id.0),
            measurement_delta_ms: -object.time_of_measurement.0,
            x_cm: object.x_distance.value.0.clamp(-131_072, 131_071),
            y_cm: object.y_distance.value.0.clamp(-131_072, 131_071),
            x_conf_cm: coordinate_confidence_v2(object.x_distance.confidence.0),
            y_conf_cm: coordinate_confidence_v2(object.y_distance.confidence.0),
            velocity: (vx != SPEED_UNAVAILABLE && vy != SPEED_UNAVAILABLE).then_some((vx, vy)),
            yaw_decideg: object.yaw_angle.as_ref().map(|a| a.value.0).filter(|&v| v < 3600),
            class,
            class_confidence_pct,
            sensor_id: object.sensor_idlist.as_ref().and_then(|l| l.0.first()).map(|id| id.0),
        }
    }
}

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
//! | `x_cm`, `y_cm` | `xDistance`, `yDistance` (cm, -132768..=132767; read clamped to Release 2's range); a vehicle's turned east/north, see below |
//! | `x_conf_cm`, `y_conf_cm` | their `DistanceConfidence` (cm 0..=100, 101 out of range, 102 unavailable) |
//! | `velocity` | `xSpeed`, `ySpeed` (mandatory in Release 1: 16383 unavailable both ways) |
//! | `yaw_decideg` | `yawAngle` (0.1°, 3601 unavailable) |
//! | `class`, `class_confidence_pct` | the most confident `classification` entry, see below |
//! | `sensor_id` | first entry of `sensorIDList` |
//!
//! Positions, velocities and yaw are read into the east/north frame [`SimpleCpm`] always uses.
//! TR 103 562 gives them relative to the sender's reference point in the sender's frame: an
//! RSU's (management container `stationType` roadSideUnit(15), or an `originatingRSUContainer`)
//! has x east and y north, and is read as it is; a vehicle's (an `originatingVehicleContainer`)
//! is its ISO 8855 body frame, x forward along the vehicle, y to its left, z up. Those objects are
//! turned by the vehicle's `vehicleOrientationAngle` when given, else by its `heading` (0.1°
//! clockwise from north; the direction of motion, so turned round when `driveDirection` is
//! backward): positions, velocities, yaw, and the position confidences (the axis-aligned extent
//! of the turned box). A vehicle's CPM without either angle, or a CPM of another station type
//! without station data, is refused: its objects cannot be placed. TS 103 324 settled on east/north
//! for every station (its objects are read as sent); its drafts on ETSI's forge still carried the
//! body-frame wording for vehicles (cpm_ts103324 commit c26bb23c replaced it). We write Release 1
//! CPMs as an RSU (stationType 15, no station data): east/north.
//!
//! Classes follow TR 103 562 V2.1.1's tables (the ASN.1 c-its-parser copies from it), both ways:
//!
//! | TR 103 562 V2.1.1 | code | [`ObjectKind`] |
//! |---|---|---|
//! | `vehicle` unknown | 0 | Unknown |
//! | `vehicle` moped, motorcycle | 1, 2 | Moped, Motorcycle |
//! | `vehicle` passengerCar, bus, lightTruck, heavyTruck, trailer | 3–7 | Car, Bus, LightTruck, Truck, Trailer |
//! | `vehicle` specialVehicles, emergencyVehicle (read only) | 8, 10 | SpecialVehicle |
//! | `vehicle` tram, agricultural | 9, 11 | Tram, Agricultural |
//! | `person` pedestrian, personWithStroller, personGroup, unknown | 1, 4, 6, 0 | Pedestrian (written as 1) |
//! | `person` cyclist | 3 | Bicycle |
//! | `person` personInWheelchair, personOnSkates | 2, 5 | LightVruVehicle (written as 5) |
//! | `animal` (only unknown(0) defined) | 0 | Animal |
//! | `other` unknown, roadSideUnit | 0, 1 | Unknown |
//!
//! Codes the tables leave unassigned read as Unknown (`vehicle`) or Pedestrian (`person`). An
//! older table (3 lightTruck, 4 heavyTruck, no two-wheelers) made a V2.1.1 passenger car a truck.
//! Class confidence 0 ("unknown") and 101 ("unavailable") read as 0.
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

/// TR 103 562 V2.1.1 `VehicleSubclassType` codes.
pub mod vehicle_class {
    pub const UNKNOWN: u8 = 0;
    pub const MOPED: u8 = 1;
    pub const MOTORCYCLE: u8 = 2;
    pub const PASSENGER_CAR: u8 = 3;
    pub const BUS: u8 = 4;
    pub const LIGHT_TRUCK: u8 = 5;
    pub const HEAVY_TRUCK: u8 = 6;
    pub const TRAILER: u8 = 7;
    pub const SPECIAL_VEHICLES: u8 = 8;
    pub const TRAM: u8 = 9;
    pub const EMERGENCY_VEHICLE: u8 = 10;
    pub const AGRICULTURAL: u8 = 11;
}

/// TR 103 562 V2.1.1 `PersonSubclassType` codes.
pub mod person_class {
    pub const UNKNOWN: u8 = 0;
    pub const PEDESTRIAN: u8 = 1;
    pub const PERSON_IN_WHEELCHAIR: u8 = 2;
    pub const CYCLIST: u8 = 3;
    pub const PERSON_WITH_STROLLER: u8 = 4;
    pub const PERSON_ON_SKATES: u8 = 5;
    pub const PERSON_GROUP: u8 = 6;
}
const CLASS_CONFIDENCE_UNAVAILABLE: u8 = 101;
/// Release 2 sensor type codes and Release 1 ones, where they differ.
const SENSOR_TYPES_V2_V1: [(u8, u8); 4] = [(12, 8), (8, 9), (9, 10), (13, 11)];

crate::checks::pdu_codec!(CpmV1, "CPM (TR 103 562)", feature = "cpm-v1");

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
    /// Objects come out east/north of the reference position like a TS 103 324 CPM's: a
    /// vehicle's, given in its body frame, are turned by its orientation (see the module).
    ///
    /// Errors when the message is not a CPM (`messageID` ≠ 14), its `protocolVersion` is not 1
    /// (2 is a TS 103 324 CPM: [`SimpleCpm::from_cpm`]), its reference position is unavailable, or
    /// its objects are in a vehicle's body frame whose orientation it does not give.
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
        let frame = Frame::of(parameters)?;
        let objects = parameters
            .perceived_object_container
            .iter()
            .flat_map(|c| &c.0)
            .map(|o| frame.east_north(SimpleObject::from_v1(o)))
            .collect();
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

/// `StationType` roadSideUnit(15).
const ROAD_SIDE_UNIT: u8 = 15;
/// `HeadingValue` / `WGS84AngleValue` above the last direction (3600 is not used, 3601 unavailable).
const BEARING_LIMIT: u16 = 3600;

/// The frame a Release 1 CPM's objects are given in (see the module).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Frame {
    /// x east, y north: an RSU's.
    EastNorth,
    /// A vehicle's ISO 8855 body frame (x forward, y left); `bearing_rad` is its x axis,
    /// clockwise from north.
    Body { bearing_rad: f64 },
}

impl Frame {
    fn of(parameters: &CpmParameters) -> Result<Self, CodecError> {
        let station_type = parameters.management_container.station_type.0;
        let vehicle = match &parameters.station_data_container {
            Some(StationDataContainer::originatingVehicleContainer(vehicle)) => vehicle,
            Some(StationDataContainer::originatingRSUContainer(_)) => return Ok(Self::EastNorth),
            _ if station_type == ROAD_SIDE_UNIT => return Ok(Self::EastNorth),
            _ => {
                return Err(CodecError::new(format!(
                    "CPM (TR 103 562) of station type {station_type} without originatingVehicleContainer: \
                     its objects are in the sender's body frame, whose orientation it does not give"
                )))
            }
        };
        // The body's x axis: its orientation angle when sent; else the heading, which is the
        // direction of motion (EN 302 637-2), so turned round when driving backwards.
        let orientation = vehicle.vehicle_orientation_angle.as_ref().map(|a| a.value.0).filter(|&v| v < BEARING_LIMIT);
        let heading = vehicle.heading.heading_value.0;
        let bearing_decideg = match orientation {
            Some(angle) => angle,
            None if heading < BEARING_LIMIT => match vehicle.drive_direction {
                container::DriveDirection::backward => (heading + 1800) % 3600,
                _ => heading,
            },
            None => {
                return Err(CodecError::new(
                    "CPM (TR 103 562) from a vehicle with its heading unavailable: its objects are in its \
                     body frame, which cannot be placed",
                ))
            }
        };
        Ok(Self::Body { bearing_rad: (f64::from(bearing_decideg) / 10.0).to_radians() })
    }

    /// `object` with position, velocity, yaw and position confidences east/north.
    fn east_north(self, mut object: SimpleObject) -> SimpleObject {
        let Self::Body { bearing_rad } = self else { return object };
        // The body's x axis counter-clockwise from east.
        let theta = std::f64::consts::FRAC_PI_2 - bearing_rad;
        let (sin, cos) = theta.sin_cos();
        let rotate = |x: f64, y: f64| (x * cos - y * sin, x * sin + y * cos);
        let (east, north) = rotate(f64::from(object.x_cm), f64::from(object.y_cm));
        object.x_cm = east.round().clamp(-131_072.0, 131_071.0) as i32;
        object.y_cm = north.round().clamp(-131_072.0, 131_071.0) as i32;
        object.velocity = object.velocity.map(|(vx, vy)| {
            let (ve, vn) = rotate(f64::from(vx), f64::from(vy));
            let component = |v: f64| v.round().clamp(-16_383.0, 16_382.0) as i16;
            (component(ve), component(vn))
        });
        let theta_decideg = (theta.to_degrees() * 10.0).round() as i32;
        object.yaw_decideg = object.yaw_decideg.map(|yaw| (i32::from(yaw) + theta_decideg).rem_euclid(3600) as u16);
        // The axis-aligned extent of the turned confidence box; "out of range" (4095) and
        // "unavailable" (4096) say the same of both axes.
        let (cx, cy) = (object.x_conf_cm, object.y_conf_cm);
        if cx >= 4095 || cy >= 4095 {
            let code = cx.max(cy).min(4096);
            (object.x_conf_cm, object.y_conf_cm) = (code, code);
        } else {
            let (cx, cy) = (f64::from(cx), f64::from(cy));
            let extent = |a: f64, b: f64| a.hypot(b).round().clamp(1.0, 4094.0) as u16;
            object.x_conf_cm = extent(cx * cos, cy * sin);
            object.y_conf_cm = extent(cx * sin, cy * cos);
        }
        object
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
        ObjectKind::Moped => vehicle(vehicle_class::MOPED),
        ObjectKind::Motorcycle => vehicle(vehicle_class::MOTORCYCLE),
        ObjectKind::Car => vehicle(vehicle_class::PASSENGER_CAR),
        ObjectKind::Bus => vehicle(vehicle_class::BUS),
        ObjectKind::LightTruck => vehicle(vehicle_class::LIGHT_TRUCK),
        ObjectKind::Truck => vehicle(vehicle_class::HEAVY_TRUCK),
        ObjectKind::Trailer => vehicle(vehicle_class::TRAILER),
        ObjectKind::SpecialVehicle => vehicle(vehicle_class::SPECIAL_VEHICLES),
        ObjectKind::Tram => vehicle(vehicle_class::TRAM),
        ObjectKind::Agricultural => vehicle(vehicle_class::AGRICULTURAL),
        ObjectKind::Pedestrian => person(person_class::PEDESTRIAN),
        ObjectKind::Bicycle => person(person_class::CYCLIST),
        ObjectKind::LightVruVehicle => person(person_class::PERSON_ON_SKATES),
        ObjectKind::Animal => {
            ObjectClassClass::animal(AnimalSubclass { r_type: AnimalSubclassType(0), confidence: ClassConfidence(0) })
        }
    };
    let confidence = if pct == 0 { CLASS_CONFIDENCE_UNAVAILABLE } else { pct.min(100) };
    Some(ObjectClass { confidence: ClassConfidence(confidence), class })
}

fn kind_of(class: &ObjectClassClass) -> ObjectKind {
    match class {
        ObjectClassClass::vehicle(v) => {
            use vehicle_class::*;
            match v.r_type.0 {
                MOPED => ObjectKind::Moped,
                MOTORCYCLE => ObjectKind::Motorcycle,
                PASSENGER_CAR => ObjectKind::Car,
                BUS => ObjectKind::Bus,
                LIGHT_TRUCK => ObjectKind::LightTruck,
                HEAVY_TRUCK => ObjectKind::Truck,
                TRAILER => ObjectKind::Trailer,
                SPECIAL_VEHICLES | EMERGENCY_VEHICLE => ObjectKind::SpecialVehicle,
                TRAM => ObjectKind::Tram,
                AGRICULTURAL => ObjectKind::Agricultural,
                // unknown(0), and codes V2.1.1 leaves unassigned
                _ => ObjectKind::Unknown,
            }
        }
        ObjectClassClass::person(p) => {
            use person_class::*;
            match p.r_type.0 {
                PERSON_IN_WHEELCHAIR | PERSON_ON_SKATES => ObjectKind::LightVruVehicle,
                CYCLIST => ObjectKind::Bicycle,
                // pedestrian, personWithStroller, personGroup; unknown(0) and unassigned codes
                // are still a person on foot as far as we can tell
                _ => ObjectKind::Pedestrian,
            }
        }
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

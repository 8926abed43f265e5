//! Flat, plain-Rust view of a CPM for the pipeline: one reference point, the
//! sensors, and per object position / velocity / yaw / class in the CPM's own
//! units. [`SimpleCpm::to_cpm`] builds the ASN.1 tree, [`SimpleCpm::from_cpm`]
//! reads one back and rejects CPMs the pipeline cannot use.

use super::*;
use crate::checks::{require_available, ExpectedHeader};

const HEADER: ExpectedHeader =
    ExpectedHeader::new("CPM", "messageId", MESSAGE_ID, PROTOCOL_VERSION, "TS 103 324 V2.1.1");

/// `ConfidenceLevel` unavailable (101).
const CONFIDENCE_UNAVAILABLE: u8 = 101;
/// `SpeedConfidence` and `AngleConfidence` unavailable (127).
const SPEED_CONFIDENCE_UNAVAILABLE: u8 = 127;
const ANGLE_CONFIDENCE_UNAVAILABLE: u8 = 127;
/// `CartesianAngleValue` valueNotUsed (3600); 3601 is unavailable.
const ANGLE_VALUE_NOT_USED: u16 = 3600;
/// `VelocityComponentValue` / `SpeedValue` unavailable (16383).
const SPEED_UNAVAILABLE: i16 = 16_383;

/// Class of a perceived object, mapped onto the CPM's `ObjectClass`.
///
/// | kind | encoded as |
/// |---|---|
/// | `Unknown` | `otherSubClass: unknown(0)` |
/// | `Car`, `Bus`, `LightTruck`, `Truck`, `Trailer`, `SpecialVehicle`, `Tram`, `Agricultural` | `vehicleSubClass`: passengerCar, bus, lightTruck, heavyTruck, trailer, specialVehicle, tram, agricultural |
/// | `Motorcycle`, `Moped` | `vruSubClass: motorcyclist`: motorcycle, moped |
/// | `Bicycle` | `vruSubClass: bicyclistAndLightVruVehicle: bicyclist` |
/// | `LightVruVehicle` | `vruSubClass: bicyclistAndLightVruVehicle: e-scooter` |
/// | `Pedestrian` | `vruSubClass: pedestrian: ordinary-pedestrian` |
/// | `Animal` | `vruSubClass: animal: unavailable` |
///
/// Reading is broader: every pedestrian sub-profile is `Pedestrian`;
/// bicyclist, pedelec, speed-pedelec and unavailable are `Bicycle`, the other
/// light-VRU sub-profiles (e-scooter, personal transporter, rollerskater,
/// wheelchair, horse and rider) are `LightVruVehicle`; motorcyclist
/// sub-profiles other than moped are `Motorcycle`; a VRU group
/// (`groupSubClass`) takes its most vulnerable profile (pedestrian, then
/// bicyclist, motorcyclist, animal; pedestrian when none is given); the
/// `vehicleSubClass` codes for VRUs (1–4, 12, 13) map to their VRU kinds;
/// `otherSubClass` is `Unknown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ObjectKind {
    #[default]
    Unknown,
    Car,
    Bus,
    LightTruck,
    Truck,
    Trailer,
    SpecialVehicle,
    Tram,
    Agricultural,
    Motorcycle,
    Moped,
    Bicycle,
    LightVruVehicle,
    Pedestrian,
    Animal,
}

impl ObjectKind {
    pub const ALL: [ObjectKind; 15] = [
        Self::Unknown,
        Self::Car,
        Self::Bus,
        Self::LightTruck,
        Self::Truck,
        Self::Trailer,
        Self::SpecialVehicle,
        Self::Tram,
        Self::Agricultural,
        Self::Motorcycle,
        Self::Moped,
        Self::Bicycle,
        Self::LightVruVehicle,
        Self::Pedestrian,
        Self::Animal,
    ];

    /// `TrafficParticipantType` of the vehicle kinds (the codes are `StationType`'s).
    fn traffic_participant_type(self) -> Option<u8> {
        Some(match self {
            Self::Car => 5,
            Self::Bus => 6,
            Self::LightTruck => 7,
            Self::Truck => 8,
            Self::Trailer => 9,
            Self::SpecialVehicle => 10,
            Self::Tram => 11,
            Self::Agricultural => 14,
            _ => return None,
        })
    }

    fn to_object_class(self) -> ObjectClass {
        use VruProfileAndSubprofile as Vru;
        if let Some(code) = self.traffic_participant_type() {
            return ObjectClass::vehicleSubClass(TrafficParticipantType(code));
        }
        ObjectClass::vruSubClass(match self {
            Self::Motorcycle => Vru::motorcyclist(VruSubProfileMotorcyclist::motorcycle),
            Self::Moped => Vru::motorcyclist(VruSubProfileMotorcyclist::moped),
            Self::Bicycle => Vru::bicyclistAndLightVruVehicle(VruSubProfileBicyclist::bicyclist),
            Self::LightVruVehicle => Vru::bicyclistAndLightVruVehicle(VruSubProfileBicyclist::e_scooter),
            Self::Pedestrian => Vru::pedestrian(VruSubProfilePedestrian::ordinary_pedestrian),
            Self::Animal => Vru::animal(VruSubProfileAnimal::unavailable),
            // otherSubClass unknown(0)
            _ => return ObjectClass::otherSubClass(OtherSubClass(0)),
        })
    }

    /// The kind a `TrafficParticipantType` / `StationType` code stands for.
    pub(crate) fn from_traffic_participant_type(code: u8) -> Self {
        match code {
            1 => Self::Pedestrian,
            2 => Self::Bicycle,
            3 => Self::Moped,
            4 => Self::Motorcycle,
            5 => Self::Car,
            6 => Self::Bus,
            7 => Self::LightTruck,
            8 => Self::Truck,
            9 => Self::Trailer,
            10 => Self::SpecialVehicle,
            11 => Self::Tram,
            12 => Self::LightVruVehicle,
            13 => Self::Animal,
            14 => Self::Agricultural,
            _ => Self::Unknown,
        }
    }

    fn from_object_class(class: &ObjectClass) -> Self {
        match class {
            ObjectClass::vehicleSubClass(t) => Self::from_traffic_participant_type(t.0),
            ObjectClass::vruSubClass(vru) => Self::from_vru(vru),
            ObjectClass::groupSubClass(group) => {
                let profile = |bit: usize| group.cluster_profiles.as_ref().is_some_and(|p| p.0[bit]);
                if profile(0) {
                    Self::Pedestrian
                } else if profile(1) {
                    Self::Bicycle
                } else if profile(2) {
                    Self::Motorcycle
                } else if profile(3) {
                    Self::Animal
                } else {
                    Self::Pedestrian
                }
            }
            _ => Self::Unknown,
        }
    }

    fn from_vru(vru: &VruProfileAndSubprofile) -> Self {
        use VruSubProfileBicyclist as B;
        match vru {
            VruProfileAndSubprofile::pedestrian(_) => Self::Pedestrian,
            VruProfileAndSubprofile::bicyclistAndLightVruVehicle(
                B::bicyclist | B::unavailable | B::pedelec | B::speed_pedelec,
            ) => Self::Bicycle,
            VruProfileAndSubprofile::bicyclistAndLightVruVehicle(_) => Self::LightVruVehicle,
            VruProfileAndSubprofile::motorcyclist(VruSubProfileMotorcyclist::moped) => Self::Moped,
            VruProfileAndSubprofile::motorcyclist(_) => Self::Motorcycle,
            VruProfileAndSubprofile::animal(_) => Self::Animal,
            // an extension of a later CDD
            _ => Self::Unknown,
        }
    }
}

/// One perceived object, in the CPM's units: x/y offsets in the CPM's frame — by the standard
/// relative to the reference position with x east, y north (a TR 103 562 vehicle's body-frame
/// objects are turned so when read, [`SimpleCpm::from_cpm_v1`]); our RSUs report them in the
/// frame of the camera named by `sensor_id` (the collector applies that camera's calibration).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SimpleObject {
    /// `objectId` (Identifier2B), stable across CPMs while tracked.
    pub object_id: u16,
    /// Measurement time minus the CPM reference time, ms (-2048..=2047).
    pub measurement_delta_ms: i16,
    /// x offset (east of the reference position, or along the camera's x axis), cm (0.01 m), -131072..=131071;
    /// the bounds mean "out of range".
    pub x_cm: i32,
    /// North offset from the reference position, cm, like `x_cm`.
    pub y_cm: i32,
    /// Confidence of `x_cm`, cm, 1..=4096; 4095 = out of range, 4096 = unavailable.
    pub x_conf_cm: u16,
    /// Confidence of `y_cm`, cm, like `x_conf_cm`.
    pub y_conf_cm: u16,
    /// Velocity (east, north), cm/s (0.01 m/s), -16383..=16382 each (the
    /// bounds mean "out of range"); `None` when unknown. Sent as
    /// `cartesianVelocity` with confidence "unavailable"; a received
    /// `polarVelocity` is converted.
    pub velocity: Option<(i16, i16)>,
    /// Orientation (zAngle), 0.1°, 0..=3599, counted counter-clockwise from
    /// the x (east) axis like every CDD `CartesianAngleValue` (0 = east,
    /// 900 = north); not a compass heading. Larger values wrap around.
    pub yaw_decideg: Option<u16>,
    /// Most confident class; see [`ObjectKind`].
    pub class: ObjectKind,
    /// Confidence of `class`, percent 0..=100; 0 = unavailable (and with
    /// `Unknown`, no classification is sent at all).
    pub class_confidence_pct: u8,
    /// Sensor that perceived the object (first entry of `sensorIdList`).
    pub sensor_id: Option<u8>,
}

/// A CPM reduced to what the pipeline consumes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SimpleCpm {
    /// `protocolVersion`; TS 103 324 V2.1.1 CPMs use [`PROTOCOL_VERSION`] (2).
    pub protocol_version: u8,
    /// `stationId` of the sender.
    pub station_id: u32,
    /// `referenceTime`: ms elapsed since 2004-01-01T00:00:00Z, leap seconds
    /// included (TimestampIts).
    pub reference_time_its_ms: u64,
    /// Reference latitude, 1e-7° (0.1 µdegree), positive north.
    pub reference_lat_e7: i32,
    /// Reference longitude, 1e-7°, positive east.
    pub reference_lon_e7: i32,
    /// Sensors as (`sensorId`, `sensorType`); see [`SensorType`] for the codes.
    pub sensors: Vec<(u8, u8)>,
    pub objects: Vec<SimpleObject>,
}

impl SimpleCpm {
    /// Builds the ASN.1 CPM. Values outside a field's range are clamped to the
    /// nearest encodable value (for positions and velocities that is the
    /// standard's "out of range" code), so the result always encodes.
    /// Unknown quantities are sent as the standard's "unavailable" codes:
    /// altitude, position confidence ellipse, velocity confidence, yaw
    /// confidence. A Perceived Object Container is always present (possibly
    /// empty) so the CPM carries at least one container; a Sensor Information
    /// Container only when there are sensors.
    pub fn to_cpm(&self) -> CollectivePerceptionMessage {
        let header = ItsPduHeader {
            protocol_version: OrdinalNumber1B(self.protocol_version),
            message_id: MessageId(MESSAGE_ID),
            station_id: StationId(self.station_id),
        };
        let reference_position = crate::checks::position_without_confidence!(
            c_its_parser::standards::cdd_2_2_1::etsi_its_cdd,
            self.reference_lat_e7,
            self.reference_lon_e7
        );
        let management = ManagementContainer::new(
            TimestampIts(self.reference_time_its_ms.min(TIMESTAMP_ITS_MAX)),
            reference_position,
            None,
            None,
        );

        let mut containers = Vec::with_capacity(2);
        if !self.sensors.is_empty() {
            let sensors = self
                .sensors
                .iter()
                .map(|&(id, kind)| {
                    SensorInformation::new(Identifier1B(id), SensorType(kind.min(31)), None, None, false)
                })
                .collect();
            containers.push(CpmContainer::SensorInformation(SensorInformationContainer(sensors)));
        }
        let objects: Vec<PerceivedObject> = self.objects.iter().map(SimpleObject::to_perceived_object).collect();
        containers.push(CpmContainer::PerceivedObject(PerceivedObjectContainer::new(
            CardinalNumber1B(objects.len().min(255) as u8),
            PerceivedObjects(objects),
        )));

        // Invariant: every field above is clamped to its ASN.1 range, so each container encodes
        // (the round-trip and full-CPM property tests hold it).
        let wrapped = containers.iter().map(|c| c.wrap().expect("clamped CPM containers always encode")).collect();
        CollectivePerceptionMessage {
            header,
            payload: CpmPayload::new(management, ConstraintWrappedCpmContainers(wrapped)),
        }
    }

    /// Reads the pipeline's view out of a decoded CPM.
    ///
    /// Errors when the message is not a Release 2 CPM (`messageId` ≠ 14,
    /// `protocolVersion` ≠ 2), has no usable reference position, a Sensor
    /// Information or Perceived Object Container does not decode, or a
    /// perceived object lacks its mandatory `objectId`. Other containers are
    /// not needed and not decoded. A CPM without Perceived Object Container
    /// has no objects.
    pub fn from_cpm(cpm: &CollectivePerceptionMessage) -> Result<SimpleCpm, CodecError> {
        let header = &cpm.header;
        HEADER.check(header.protocol_version.0, header.message_id.0)?;
        let management = &cpm.payload.management_container;
        let position = &management.reference_position;
        require_available(position.latitude.0, position.longitude.0, "CPM reference position")?;

        let mut sensors = Vec::new();
        let mut objects = Vec::new();
        // Decode only the two containers needed: keeps the other container
        // decoders out of binaries that never call `WrappedCpmContainer::content`.
        for wrapped in &cpm.payload.cpm_containers.0 {
            let data = wrapped.container_data.as_bytes();
            match wrapped.container_id.0 {
                3 => {
                    let c: SensorInformationContainer = crate::uper_decode_exact(data, "SensorInformationContainer")?;
                    sensors.extend(c.0.iter().map(|s| (s.sensor_id.0, s.sensor_type.0)));
                }
                5 => {
                    let c: PerceivedObjectContainer = crate::uper_decode_exact(data, "PerceivedObjectContainer")?;
                    for (index, object) in c.perceived_objects.0.iter().enumerate() {
                        objects
                            .push(SimpleObject::from_perceived_object(object).ok_or_else(|| {
                                CodecError::new(format!("perceived object #{index} has no objectId"))
                            })?);
                    }
                }
                _ => {}
            }
        }

        Ok(SimpleCpm {
            protocol_version: header.protocol_version.0,
            station_id: header.station_id.0,
            reference_time_its_ms: management.reference_time.0,
            reference_lat_e7: position.latitude.0,
            reference_lon_e7: position.longitude.0,
            sensors,
            objects,
        })
    }
}

impl SimpleObject {
    fn to_perceived_object(&self) -> PerceivedObject {
        let coordinate = |value_cm: i32, conf_cm: u16| CartesianCoordinateWithConfidence {
            value: CartesianCoordinateLarge(value_cm.clamp(-131_072, 131_071)),
            confidence: CoordinateConfidence(conf_cm.clamp(1, 4096)),
        };
        let velocity_component = |v: i16| VelocityComponent {
            value: VelocityComponentValue(v.clamp(-16_383, 16_383)),
            confidence: SpeedConfidence(SPEED_CONFIDENCE_UNAVAILABLE),
        };
        let mut object = new_perceived_object(
            DeltaTimeMilliSecondSigned(self.measurement_delta_ms.clamp(-2048, 2047)),
            CartesianPosition3dWithConfidence {
                x_coordinate: coordinate(self.x_cm, self.x_conf_cm),
                y_coordinate: coordinate(self.y_cm, self.y_conf_cm),
                z_coordinate: None,
            },
        );
        object.object_id = Some(Identifier2B(self.object_id));
        object.velocity = self.velocity.map(|(vx, vy)| {
            Velocity3dWithConfidence::cartesianVelocity(VelocityCartesian {
                x_velocity: velocity_component(vx),
                y_velocity: velocity_component(vy),
                z_velocity: None,
            })
        });
        object.angles = self.yaw_decideg.map(|yaw| EulerAnglesWithConfidence {
            z_angle: CartesianAngle {
                value: CartesianAngleValue(yaw % 3600),
                confidence: AngleConfidence(ANGLE_CONFIDENCE_UNAVAILABLE),
            },
            y_angle: None,
            x_angle: None,
        });
        object.sensor_id_list = self.sensor_id.map(|id| SequenceOfIdentifier1B(vec![Identifier1B(id)]));
        object.classification = (self.class != ObjectKind::Unknown || self.class_confidence_pct != 0).then(|| {
            let confidence = match self.class_confidence_pct {
                0 => ConfidenceLevel(CONFIDENCE_UNAVAILABLE),
                pct => ConfidenceLevel(pct.min(100)),
            };
            ObjectClassDescription(vec![ObjectClassWithConfidence {
                object_class: self.class.to_object_class(),
                confidence,
            }])
        });
        object
    }

    /// `None` when the mandatory (in a CPM) `objectId` is missing.
    fn from_perceived_object(object: &PerceivedObject) -> Option<SimpleObject> {
        let object_id = object.object_id.as_ref()?.0;
        let (class, class_confidence_pct) = most_confident(object.classification.iter().flat_map(|d| &d.0).map(|c| {
            let pct = if c.confidence.0 == CONFIDENCE_UNAVAILABLE { 0 } else { c.confidence.0 };
            (ObjectKind::from_object_class(&c.object_class), pct)
        }));
        Some(SimpleObject {
            object_id,
            measurement_delta_ms: object.measurement_delta_time.0,
            x_cm: object.position.x_coordinate.value.0,
            y_cm: object.position.y_coordinate.value.0,
            x_conf_cm: object.position.x_coordinate.confidence.0,
            y_conf_cm: object.position.y_coordinate.confidence.0,
            velocity: object.velocity.as_ref().and_then(velocity_east_north),
            yaw_decideg: object.angles.as_ref().map(|a| a.z_angle.value.0).filter(|&v| v < ANGLE_VALUE_NOT_USED),
            class,
            class_confidence_pct,
            sensor_id: object.sensor_id_list.as_ref().and_then(|l| l.0.first()).map(|id| id.0),
        })
    }
}

/// (east, north) velocity in cm/s, `None` when the CPM marks it unavailable.
fn velocity_east_north(velocity: &Velocity3dWithConfidence) -> Option<(i16, i16)> {
    match velocity {
        Velocity3dWithConfidence::cartesianVelocity(v) => {
            let (x, y) = (v.x_velocity.value.0, v.y_velocity.value.0);
            (x != SPEED_UNAVAILABLE && y != SPEED_UNAVAILABLE).then_some((x, y))
        }
        Velocity3dWithConfidence::polarVelocity(v) => {
            let speed = v.velocity_magnitude.speed_value.0;
            let direction = v.velocity_direction.value.0;
            // direction 3600 = valueNotUsed, 3601 = unavailable
            if speed == SPEED_UNAVAILABLE as u16 || direction >= ANGLE_VALUE_NOT_USED {
                return None;
            }
            // direction counts counter-clockwise from the x (east) axis
            let radians = f64::from(direction).to_radians() / 10.0;
            let component = |c: f64| (f64::from(speed) * c).round().clamp(-16_383.0, 16_382.0) as i16;
            Some((component(radians.cos()), component(radians.sin())))
        }
    }
}

/// A perceived object with only its mandatory components; set the optional ones as needed.
pub fn new_perceived_object(
    measurement_delta_time: DeltaTimeMilliSecondSigned,
    position: CartesianPosition3dWithConfidence,
) -> PerceivedObject {
    PerceivedObject::new(
        None,
        measurement_delta_time,
        position,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
    )
}

/// The first of the most confident (kind, confidence %) classes; (Unknown, 0) without any.
pub(crate) fn most_confident(classes: impl Iterator<Item = (ObjectKind, u8)>) -> (ObjectKind, u8) {
    classes.reduce(|best, c| if c.1 > best.1 { c } else { best }).unwrap_or((ObjectKind::Unknown, 0))
}

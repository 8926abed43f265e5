//! Deterministic generator of fully populated CPM trees: every optional
//! component, every CHOICE alternative and the size bounds get exercised, so
//! the rasn types are checked far beyond what `SimpleCpm` produces.

#![allow(dead_code)]

use etsi_its::cpm::*;
use rasn::types::{BitString, FixedBitString};

/// xorshift64*: tiny, seedable, good enough to spread test values.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in lo..=hi, with the bounds themselves drawn often.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        match self.next() % 8 {
            0 => lo,
            1 => hi,
            _ => lo + (self.next() % ((hi - lo) as u64 + 1)) as i64,
        }
    }
    pub fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
    pub fn opt<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> Option<T> {
        if self.coin() {
            Some(f(self))
        } else {
            None
        }
    }
    pub fn vec<T>(&mut self, lo: usize, hi: usize, mut f: impl FnMut(&mut Self) -> T) -> Vec<T> {
        let n = self.range(lo as i64, hi as i64) as usize;
        (0..n).map(|_| f(self)).collect()
    }
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[(self.next() % items.len() as u64) as usize]
    }
}

macro_rules! int {
    ($rng:expr, $t:ident, $lo:expr, $hi:expr) => {
        $t($rng.range($lo as i64, $hi as i64) as _)
    };
}

pub fn cartesian_position_3d(r: &mut Rng) -> CartesianPosition3d {
    CartesianPosition3d {
        x_coordinate: int!(r, CartesianCoordinate, -32768, 32767),
        y_coordinate: int!(r, CartesianCoordinate, -32768, 32767),
        z_coordinate: r.opt(|r| int!(r, CartesianCoordinate, -32768, 32767)),
    }
}

fn len12(r: &mut Rng) -> StandardLength12b {
    int!(r, StandardLength12b, 0, 4095)
}

fn wgs84_value(r: &mut Rng) -> Wgs84AngleValue {
    int!(r, Wgs84AngleValue, 0, 3601)
}

fn cartesian_angle_value(r: &mut Rng) -> CartesianAngleValue {
    int!(r, CartesianAngleValue, 0, 3601)
}

pub fn shape(r: &mut Rng) -> Shape {
    match r.next() % 6 {
        0 => Shape::rectangular(RectangularShape {
            shape_reference_point: r.opt(cartesian_position_3d),
            semi_length: len12(r),
            semi_breadth: len12(r),
            orientation: r.opt(cartesian_angle_value),
            height: r.opt(len12),
        }),
        1 => Shape::circular(CircularShape {
            shape_reference_point: r.opt(cartesian_position_3d),
            radius: len12(r),
            height: r.opt(len12),
        }),
        2 => Shape::polygonal(PolygonalShape {
            shape_reference_point: r.opt(cartesian_position_3d),
            polygon: SequenceOfCartesianPosition3d(r.vec(3, 16, cartesian_position_3d)),
            height: r.opt(len12),
        }),
        3 => Shape::elliptical(EllipticalShape {
            shape_reference_point: r.opt(cartesian_position_3d),
            semi_major_axis_length: len12(r),
            semi_minor_axis_length: len12(r),
            orientation: r.opt(cartesian_angle_value),
            height: r.opt(len12),
        }),
        4 => Shape::radial(RadialShape {
            shape_reference_point: r.opt(cartesian_position_3d),
            range: len12(r),
            horizontal_opening_angle_start: cartesian_angle_value(r),
            horizontal_opening_angle_end: cartesian_angle_value(r),
            vertical_opening_angle_start: r.opt(cartesian_angle_value),
            vertical_opening_angle_end: r.opt(cartesian_angle_value),
        }),
        _ => Shape::radialShapes(RadialShapes {
            ref_point_id: int!(r, Identifier1B, 0, 255),
            x_coordinate: int!(r, CartesianCoordinateSmall, -3094, 1001),
            y_coordinate: int!(r, CartesianCoordinateSmall, -3094, 1001),
            z_coordinate: r.opt(|r| int!(r, CartesianCoordinateSmall, -3094, 1001)),
            radial_shapes_list: RadialShapesList(r.vec(1, 16, |r| RadialShapeDetails {
                range: len12(r),
                horizontal_opening_angle_start: cartesian_angle_value(r),
                horizontal_opening_angle_end: cartesian_angle_value(r),
                vertical_opening_angle_start: r.opt(cartesian_angle_value),
                vertical_opening_angle_end: r.opt(cartesian_angle_value),
            })),
        }),
    }
}

pub fn cartesian_angle(r: &mut Rng) -> CartesianAngle {
    CartesianAngle { value: cartesian_angle_value(r), confidence: int!(r, AngleConfidence, 1, 127) }
}

fn speed_confidence(r: &mut Rng) -> SpeedConfidence {
    int!(r, SpeedConfidence, 1, 127)
}

fn velocity_component(r: &mut Rng) -> VelocityComponent {
    VelocityComponent { value: int!(r, VelocityComponentValue, -16383, 16383), confidence: speed_confidence(r) }
}

fn acceleration_component(r: &mut Rng) -> AccelerationComponent {
    AccelerationComponent {
        value: int!(r, AccelerationValue, -160, 161),
        confidence: int!(r, AccelerationConfidence, 0, 102),
    }
}

fn coordinate_with_confidence(r: &mut Rng) -> CartesianCoordinateWithConfidence {
    CartesianCoordinateWithConfidence {
        value: int!(r, CartesianCoordinateLarge, -131072, 131071),
        confidence: int!(r, CoordinateConfidence, 1, 4096),
    }
}

fn object_dimension(r: &mut Rng) -> ObjectDimension {
    ObjectDimension {
        value: int!(r, ObjectDimensionValue, 1, 256),
        confidence: int!(r, ObjectDimensionConfidence, 1, 32),
    }
}

fn bits(r: &mut Rng, n: usize) -> BitString {
    (0..n).map(|_| r.coin()).collect()
}

fn fixed_bits<const N: usize>(r: &mut Rng) -> FixedBitString<N> {
    let mut bits = FixedBitString::<N>::default();
    for i in 0..N {
        bits.set(i, r.coin());
    }
    bits
}

pub fn object_class(r: &mut Rng) -> ObjectClass {
    match r.next() % 4 {
        0 => ObjectClass::vehicleSubClass(TrafficParticipantType(r.pick(&[0u8, 5, 6, 7, 8, 9, 10, 11, 14]))),
        1 => ObjectClass::vruSubClass(match r.next() % 4 {
            0 => VruProfileAndSubprofile::pedestrian(r.pick(&[
                VruSubProfilePedestrian::unavailable,
                VruSubProfilePedestrian::ordinary_pedestrian,
                VruSubProfilePedestrian::road_worker,
                VruSubProfilePedestrian::first_responder,
                VruSubProfilePedestrian::max,
            ])),
            1 => VruProfileAndSubprofile::bicyclistAndLightVruVehicle(r.pick(&[
                VruSubProfileBicyclist::unavailable,
                VruSubProfileBicyclist::bicyclist,
                VruSubProfileBicyclist::wheelchair_user,
                VruSubProfileBicyclist::horse_and_rider,
                VruSubProfileBicyclist::rollerskater,
                VruSubProfileBicyclist::e_scooter,
                VruSubProfileBicyclist::personal_transporter,
                VruSubProfileBicyclist::pedelec,
                VruSubProfileBicyclist::speed_pedelec,
                VruSubProfileBicyclist::max,
            ])),
            2 => VruProfileAndSubprofile::motorcyclist(r.pick(&[
                VruSubProfileMotorcyclist::unavailable,
                VruSubProfileMotorcyclist::moped,
                VruSubProfileMotorcyclist::motorcycle,
                VruSubProfileMotorcyclist::motorcycle_and_sidecar_right,
                VruSubProfileMotorcyclist::motorcycle_and_sidecar_left,
                VruSubProfileMotorcyclist::max,
            ])),
            _ => VruProfileAndSubprofile::animal(r.pick(&[
                VruSubProfileAnimal::unavailable,
                VruSubProfileAnimal::wild_animal,
                VruSubProfileAnimal::farm_animal,
                VruSubProfileAnimal::service_animal,
                VruSubProfileAnimal::max,
            ])),
        }),
        2 => ObjectClass::groupSubClass(VruClusterInformation::new(
            r.opt(|r| int!(r, Identifier1B, 0, 255)),
            // TS 103 324 requires clusterBoundingBoxShape ABSENT here
            None,
            int!(r, CardinalNumber1B, 0, 255),
            r.opt(|r| VruClusterProfiles(fixed_bits(r))),
        )),
        _ => ObjectClass::otherSubClass(int!(r, OtherSubClass, 0, 255)),
    }
}

pub fn perceived_object(r: &mut Rng) -> PerceivedObject {
    let mut o = new_perceived_object(
        int!(r, DeltaTimeMilliSecondSigned, -2048, 2047),
        CartesianPosition3dWithConfidence {
            x_coordinate: coordinate_with_confidence(r),
            y_coordinate: coordinate_with_confidence(r),
            z_coordinate: r.opt(coordinate_with_confidence),
        },
    );
    o.object_id = Some(int!(r, Identifier2B, 0, 65535));
    o.velocity = r.opt(|r| {
        if r.coin() {
            Velocity3dWithConfidence::polarVelocity(VelocityPolarWithZ {
                velocity_magnitude: Speed {
                    speed_value: int!(r, SpeedValue, 0, 16383),
                    speed_confidence: speed_confidence(r),
                },
                velocity_direction: cartesian_angle(r),
                z_velocity: r.opt(velocity_component),
            })
        } else {
            Velocity3dWithConfidence::cartesianVelocity(VelocityCartesian {
                x_velocity: velocity_component(r),
                y_velocity: velocity_component(r),
                z_velocity: r.opt(velocity_component),
            })
        }
    });
    o.acceleration = r.opt(|r| {
        if r.coin() {
            Acceleration3dWithConfidence::polarAcceleration(AccelerationPolarWithZ {
                acceleration_magnitude: AccelerationMagnitude {
                    acceleration_magnitude_value: int!(r, AccelerationMagnitudeValue, 0, 161),
                    acceleration_confidence: int!(r, AccelerationConfidence, 0, 102),
                },
                acceleration_direction: cartesian_angle(r),
                z_acceleration: r.opt(acceleration_component),
            })
        } else {
            Acceleration3dWithConfidence::cartesianAcceleration(AccelerationCartesian {
                x_acceleration: acceleration_component(r),
                y_acceleration: acceleration_component(r),
                z_acceleration: r.opt(acceleration_component),
            })
        }
    });
    o.angles = r.opt(|r| EulerAnglesWithConfidence {
        z_angle: cartesian_angle(r),
        y_angle: r.opt(cartesian_angle),
        x_angle: r.opt(cartesian_angle),
    });
    o.z_angular_velocity = r.opt(|r| CartesianAngularVelocityComponent {
        value: int!(r, CartesianAngularVelocityComponentValue, -255, 256),
        confidence: r.pick(&[
            AngularSpeedConfidence::degSec_01,
            AngularSpeedConfidence::degSec_02,
            AngularSpeedConfidence::degSec_05,
            AngularSpeedConfidence::degSec_10,
            AngularSpeedConfidence::degSec_20,
            AngularSpeedConfidence::degSec_50,
            AngularSpeedConfidence::outOfRange,
            AngularSpeedConfidence::unavailable,
        ]),
    });
    o.lower_triangular_correlation_matrices = r.opt(|r| {
        LowerTriangularPositiveSemidefiniteMatrices(r.vec(1, 4, |r| LowerTriangularPositiveSemidefiniteMatrix {
            components_included_inthe_matrix: MatrixIncludedComponents(bits(r, 13)),
            matrix: LowerTriangularPositiveSemidefiniteMatrixColumns(
                r.vec(1, 13, |r| CorrelationColumn(r.vec(1, 13, |r| int!(r, CorrelationCellValue, -100, 101)))),
            ),
        }))
    });
    o.object_dimension_z = r.opt(object_dimension);
    o.object_dimension_y = r.opt(object_dimension);
    o.object_dimension_x = r.opt(object_dimension);
    o.object_age = r.opt(|r| int!(r, DeltaTimeMilliSecondSigned, 0, 2047));
    o.object_perception_quality = r.opt(|r| int!(r, ObjectPerceptionQuality, 0, 15));
    o.sensor_id_list = r.opt(|r| SequenceOfIdentifier1B(r.vec(1, 128, |r| int!(r, Identifier1B, 0, 255))));
    o.classification = r.opt(|r| {
        ObjectClassDescription(r.vec(1, 8, |r| ObjectClassWithConfidence {
            object_class: object_class(r),
            confidence: int!(r, ConfidenceLevel, 1, 101),
        }))
    });
    o.map_position = r.opt(|r| {
        MapPosition::new(
            r.opt(|r| {
                let (region, id) = (r.opt(|r| int!(r, Identifier2B, 0, 65535)), int!(r, Identifier2B, 0, 65535));
                if r.coin() {
                    MapReference::roadsegment(RoadSegmentReferenceId { region, id })
                } else {
                    MapReference::intersection(IntersectionReferenceId { region, id })
                }
            }),
            r.opt(|r| int!(r, Identifier1B, 0, 255)),
            r.opt(|r| int!(r, Identifier1B, 0, 255)),
            r.opt(|r| LongitudinalLanePosition {
                longitudinal_lane_position_value: int!(r, LongitudinalLanePositionValue, 0, 32767),
                longitudinal_lane_position_confidence: int!(r, LongitudinalLanePositionConfidence, 0, 1023),
            }),
        )
    });
    o
}

fn sensor_id_list(r: &mut Rng) -> SequenceOfIdentifier1B {
    SequenceOfIdentifier1B(r.vec(1, 12, |r| int!(r, Identifier1B, 0, 255)))
}

/// One container of each kind (ids 1..=5), fully random.
pub fn containers(r: &mut Rng) -> Vec<CpmContainer> {
    let vehicle = OriginatingVehicleContainer::new(
        Wgs84Angle { value: wgs84_value(r), confidence: int!(r, Wgs84AngleConfidence, 1, 127) },
        r.opt(cartesian_angle),
        r.opt(cartesian_angle),
        r.opt(|r| {
            TrailerDataSet(r.vec(1, 8, |r| {
                TrailerData::new(
                    int!(r, Identifier1B, 0, 255),
                    int!(r, StandardLength1B, 0, 255),
                    None,
                    None,
                    None,
                    cartesian_angle(r),
                )
            }))
        }),
    );
    let rsu = OriginatingRsuContainer::new(r.opt(|r| {
        MapReference::intersection(IntersectionReferenceId {
            region: r.opt(|r| int!(r, Identifier2B, 0, 65535)),
            id: int!(r, Identifier2B, 0, 65535),
        })
    }));
    let sensors = SensorInformationContainer(r.vec(1, 6, |r| {
        SensorInformation::new(
            int!(r, Identifier1B, 0, 255),
            int!(r, SensorType, 0, 31),
            r.opt(shape),
            r.opt(|r| int!(r, ConfidenceLevel, 1, 101)),
            r.coin(),
        )
    }));
    let regions = PerceptionRegionContainer(r.vec(1, 4, |r| {
        let mut region = PerceptionRegion::new(
            int!(r, DeltaTimeMilliSecondSigned, -2048, 2047),
            int!(r, ConfidenceLevel, 1, 101),
            shape(r),
            r.coin(),
            None,
            None,
            None,
        );
        region.sensor_id_list = r.opt(sensor_id_list);
        region.number_of_perceived_objects = r.opt(|r| int!(r, CardinalNumber1B, 0, 255));
        region.perceived_object_ids = r.opt(|r| PerceivedObjectIds(r.vec(0, 20, |r| int!(r, Identifier2B, 0, 65535))));
        region
    }));
    let objects: Vec<PerceivedObject> = r.vec(0, 12, perceived_object);
    let objects = PerceivedObjectContainer::new(CardinalNumber1B(objects.len() as u8), PerceivedObjects(objects));
    vec![
        CpmContainer::OriginatingVehicle(vehicle),
        CpmContainer::OriginatingRsu(rsu),
        CpmContainer::SensorInformation(sensors),
        CpmContainer::PerceptionRegion(regions),
        CpmContainer::PerceivedObject(objects),
    ]
}

/// A CPM with a random header, management container and 1..=5 random
/// containers (at most one originating container, as TS 103 324 demands).
pub fn cpm(r: &mut Rng) -> CollectivePerceptionMessage {
    let mut containers = containers(r);
    containers.remove(if r.coin() { 0 } else { 1 });
    let keep = r.range(1, containers.len() as i64) as usize;
    containers.truncate(keep);
    let management = ManagementContainer::new(
        int!(r, TimestampIts, 0, 4_398_046_511_103u64),
        ReferencePosition {
            latitude: int!(r, Latitude, -900_000_000, 900_000_001),
            longitude: int!(r, Longitude, -1_800_000_000, 1_800_000_001),
            position_confidence_ellipse: PosConfidenceEllipse {
                semi_major_confidence: int!(r, SemiAxisLength, 0, 4095),
                semi_minor_confidence: int!(r, SemiAxisLength, 0, 4095),
                semi_major_orientation: int!(r, HeadingValue, 0, 3601),
            },
            altitude: Altitude {
                altitude_value: int!(r, AltitudeValue, -100_000, 800_001),
                altitude_confidence: r.pick(&[
                    AltitudeConfidence::alt_000_01,
                    AltitudeConfidence::alt_005_00,
                    AltitudeConfidence::alt_200_00,
                    AltitudeConfidence::outOfRange,
                    AltitudeConfidence::unavailable,
                ]),
            },
        },
        r.opt(|r| {
            let total = r.range(1, 8) as u8;
            MessageSegmentationInfo {
                total_msg_no: CardinalNumber3b(total),
                this_msg_no: OrdinalNumber3b(r.range(1, total as i64) as u8),
            }
        }),
        r.opt(|r| MessageRateRange {
            message_rate_min: MessageRateHz { mantissa: r.range(1, 100) as u8, exponent: r.range(-5, 2) as i8 },
            message_rate_max: MessageRateHz { mantissa: r.range(1, 100) as u8, exponent: r.range(-5, 2) as i8 },
        }),
    );
    CollectivePerceptionMessage {
        header: ItsPduHeader {
            protocol_version: OrdinalNumber1B(2),
            message_id: MessageId(MESSAGE_ID),
            station_id: int!(r, StationId, 0, u32::MAX),
        },
        payload: CpmPayload::new(
            management,
            ConstraintWrappedCpmContainers(containers.iter().map(|c| c.wrap().unwrap()).collect()),
        ),
    }
}

// Over 600 lines: one ASN.1 module (ETSI-ITS-CDD) transcribed type by type, kept whole to compare with the standard.
//! Common Data Dictionary (ETSI TS 102 894-2 V2.1.1, module `ETSI-ITS-CDD`,
//! major-version-3 minor-version-1): the data elements and frames the CPM uses.
//!
//! Only the types reachable from TS 103 324 V2.1.1 are defined, with the exact
//! constraints and extension markers of the module, so that their UPER encoding
//! is the standard's. Newtypes carry the ASN.1 name; their doc comment gives the
//! unit and the special values. Naming follows the ASN.1 (UpperCamel types,
//! snake_case fields in ASN.1 order).

use rasn::prelude::*;

// ---------------------------------------------------------------- header

constrained_int!(
    /// `OrdinalNumber1B ::= INTEGER (0..255)`.
    OrdinalNumber1B(u8), "0..=255"
);
constrained_int!(
    /// `MessageId ::= INTEGER (0..255)`; CPM is [`MessageId::CPM`] (14).
    MessageId(u8), "0..=255"
);
impl MessageId {
    pub const DENM: Self = Self(1);
    pub const CAM: Self = Self(2);
    pub const CPM: Self = Self(14);
    pub const VAM: Self = Self(16);
}
constrained_int!(
    /// `StationId ::= INTEGER (0..4294967295)`.
    StationId(u32), "0..=4294967295"
);

/// `ItsPduHeader`: common header of facilities-layer messages.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct ItsPduHeader {
    pub protocol_version: OrdinalNumber1B,
    pub message_id: MessageId,
    pub station_id: StationId,
}

// ---------------------------------------------------------------- time and numbers

constrained_int!(
    /// `TimestampIts ::= INTEGER (0..4398046511103)`: milliseconds elapsed
    /// since 2004-01-01T00:00:00.000Z, counted in TAI (leap seconds included).
    TimestampIts(u64), "0..=4398046511103"
);
impl TimestampIts {
    /// The largest timestamp, 2^42 - 1 ms.
    pub const MAX: Self = Self(4_398_046_511_103);
}
constrained_int!(
    /// `DeltaTimeMilliSecondSigned ::= INTEGER (-2048..2047)`: milliseconds.
    DeltaTimeMilliSecondSigned(i16), "-2048..=2047"
);
constrained_int!(
    /// `CardinalNumber1B ::= INTEGER (0..255)`.
    CardinalNumber1B(u8), "0..=255"
);
constrained_int!(
    /// `CardinalNumber3b ::= INTEGER (1..8)`.
    CardinalNumber3b(u8), "1..=8"
);
constrained_int!(
    /// `OrdinalNumber3b ::= INTEGER (1..8)`.
    OrdinalNumber3b(u8), "1..=8"
);
constrained_int!(
    /// `Identifier1B ::= INTEGER (0..255)`.
    Identifier1B(u8), "0..=255"
);
constrained_int!(
    /// `Identifier2B ::= INTEGER (0..65535)`.
    Identifier2B(u16), "0..=65535"
);
constrained_int!(
    /// `ConfidenceLevel ::= INTEGER (1..101)`: percent; 101 = unavailable.
    ConfidenceLevel(u8), "1..=101"
);
impl ConfidenceLevel {
    pub const UNAVAILABLE: Self = Self(101);
}
constrained_int!(
    /// `SensorType ::= INTEGER (0..31)`: undefined(0), radar(1), lidar(2),
    /// monovideo(3), stereovision(4), nightvision(5), ultrasonic(6), pmd(7),
    /// inductionLoop(8), sphericalCamera(9), uwb(10), acoustic(11),
    /// localAggregation(12), itsAggregation(13).
    SensorType(u8), "0..=31"
);
constrained_int!(
    /// `StandardLength12b ::= INTEGER (0..4095)`: 0.1 m.
    StandardLength12b(u16), "0..=4095"
);
constrained_int!(
    /// `StandardLength1B ::= INTEGER (0..255)`: 0.1 m.
    StandardLength1B(u8), "0..=255"
);

/// `MessageSegmentationInfo`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct MessageSegmentationInfo {
    pub total_msg_no: CardinalNumber3b,
    pub this_msg_no: OrdinalNumber3b,
}

/// `MessageRateHz`: rate = mantissa × 10^exponent Hz.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct MessageRateHz {
    #[rasn(value("1..=100"))]
    pub mantissa: u8,
    #[rasn(value("-5..=2"))]
    pub exponent: i8,
}

// ---------------------------------------------------------------- geographic position

constrained_int!(
    /// `Latitude ::= INTEGER (-900000000..900000001)`: 0.1 µdegree (1e-7°),
    /// positive north; 900000001 = unavailable.
    Latitude(i32), "-900000000..=900000001"
);
impl Latitude {
    pub const MIN: Self = Self(-900_000_000);
    pub const UNAVAILABLE: Self = Self(900_000_001);
}
constrained_int!(
    /// `Longitude ::= INTEGER (-1800000000..1800000001)`: 0.1 µdegree (1e-7°),
    /// positive east; 1800000001 = unavailable.
    Longitude(i32), "-1800000000..=1800000001"
);
impl Longitude {
    pub const MIN: Self = Self(-1_800_000_000);
    pub const UNAVAILABLE: Self = Self(1_800_000_001);
}
constrained_int!(
    /// `SemiAxisLength ::= INTEGER (0..4095)`: 0.01 m; 4094 = outOfRange,
    /// 4095 = unavailable.
    SemiAxisLength(u16), "0..=4095"
);
constrained_int!(
    /// `HeadingValue ::= INTEGER (0..3601)`: 0.1° clockwise from WGS84 north;
    /// 3601 = unavailable.
    HeadingValue(u16), "0..=3601"
);
constrained_int!(
    /// `AltitudeValue ::= INTEGER (-100000..800001)`: 0.01 m; 800001 = unavailable.
    AltitudeValue(i32), "-100000..=800001"
);

/// `AltitudeConfidence ::= ENUMERATED` (95 % confidence bound).
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
pub enum AltitudeConfidence {
    Alt00001 = 0,
    Alt00002 = 1,
    Alt00005 = 2,
    Alt00010 = 3,
    Alt00020 = 4,
    Alt00050 = 5,
    Alt00100 = 6,
    Alt00200 = 7,
    Alt00500 = 8,
    Alt01000 = 9,
    Alt02000 = 10,
    Alt05000 = 11,
    Alt10000 = 12,
    Alt20000 = 13,
    OutOfRange = 14,
    Unavailable = 15,
}

/// `Altitude`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct Altitude {
    pub altitude_value: AltitudeValue,
    pub altitude_confidence: AltitudeConfidence,
}

/// `PosConfidenceEllipse` (95 % horizontal position confidence ellipse).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct PosConfidenceEllipse {
    pub semi_major_confidence: SemiAxisLength,
    pub semi_minor_confidence: SemiAxisLength,
    pub semi_major_orientation: HeadingValue,
}

/// `ReferencePosition`, the type TS 103 324 V2.1.1 uses for the CPM reference
/// position. It has the same components and the same UPER encoding as the
/// CDD's `ReferencePositionWithConfidence` (whose ellipse uses the
/// equally-constrained `Wgs84AngleValue` for its orientation).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct ReferencePosition {
    pub latitude: Latitude,
    pub longitude: Longitude,
    pub position_confidence_ellipse: PosConfidenceEllipse,
    pub altitude: Altitude,
}

impl ReferencePosition {
    /// The position `lat_e7` / `lon_e7` (0.1 µdegree) with confidence ellipse
    /// and altitude "unavailable", as the plain-Rust views send it. Values
    /// outside the range are clamped; above it that is the "unavailable" code.
    pub fn without_confidence(lat_e7: i32, lon_e7: i32) -> Self {
        Self {
            latitude: Latitude(lat_e7.clamp(Latitude::MIN.0, Latitude::UNAVAILABLE.0)),
            longitude: Longitude(lon_e7.clamp(Longitude::MIN.0, Longitude::UNAVAILABLE.0)),
            position_confidence_ellipse: PosConfidenceEllipse {
                semi_major_confidence: SemiAxisLength(4095),
                semi_minor_confidence: SemiAxisLength(4095),
                semi_major_orientation: HeadingValue(3601),
            },
            altitude: Altitude {
                altitude_value: AltitudeValue(800_001),
                altitude_confidence: AltitudeConfidence::Unavailable,
            },
        }
    }

    /// False when latitude or longitude carries its "unavailable" code.
    pub fn is_available(&self) -> bool {
        self.latitude != Latitude::UNAVAILABLE && self.longitude != Longitude::UNAVAILABLE
    }
}

/// Bit-identical alias, see [`ReferencePosition`].
pub type ReferencePositionWithConfidence = ReferencePosition;

// ---------------------------------------------------------------- Cartesian frame

constrained_int!(
    /// `CartesianCoordinate ::= INTEGER (-32768..32767)`: 0.01 m; the bounds
    /// mean negativeOutOfRange / positiveOutOfRange.
    CartesianCoordinate(i16), "-32768..=32767"
);
constrained_int!(
    /// `CartesianCoordinateSmall ::= INTEGER (-3094..1001)`: 0.01 m.
    CartesianCoordinateSmall(i16), "-3094..=1001"
);
constrained_int!(
    /// `CartesianCoordinateLarge ::= INTEGER (-131072..131071)`: 0.01 m; the
    /// bounds mean negativeOutOfRange / positiveOutOfRange.
    CartesianCoordinateLarge(i32), "-131072..=131071"
);
impl CartesianCoordinateLarge {
    pub const NEGATIVE_OUT_OF_RANGE: Self = Self(-131072);
    pub const POSITIVE_OUT_OF_RANGE: Self = Self(131071);
}
constrained_int!(
    /// `CoordinateConfidence ::= INTEGER (1..4096)`: 0.01 m; 4095 = outOfRange,
    /// 4096 = unavailable.
    CoordinateConfidence(u16), "1..=4096"
);
impl CoordinateConfidence {
    pub const OUT_OF_RANGE: Self = Self(4095);
    pub const UNAVAILABLE: Self = Self(4096);
}

/// `CartesianCoordinateWithConfidence`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct CartesianCoordinateWithConfidence {
    pub value: CartesianCoordinateLarge,
    pub confidence: CoordinateConfidence,
}

/// `CartesianPosition3d`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct CartesianPosition3d {
    pub x_coordinate: CartesianCoordinate,
    pub y_coordinate: CartesianCoordinate,
    pub z_coordinate: Option<CartesianCoordinate>,
}

/// `CartesianPosition3dWithConfidence`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct CartesianPosition3dWithConfidence {
    pub x_coordinate: CartesianCoordinateWithConfidence,
    pub y_coordinate: CartesianCoordinateWithConfidence,
    pub z_coordinate: Option<CartesianCoordinateWithConfidence>,
}

// ---------------------------------------------------------------- angles

constrained_int!(
    /// `Wgs84AngleValue ::= INTEGER (0..3601)`: 0.1° clockwise from WGS84
    /// north; 3600 = doNotUse, 3601 = unavailable.
    Wgs84AngleValue(u16), "0..=3601"
);
constrained_int!(
    /// `Wgs84AngleConfidence ::= INTEGER (1..127)`: 0.1°; 126 = outOfRange,
    /// 127 = unavailable.
    Wgs84AngleConfidence(u8), "1..=127"
);

/// `Wgs84Angle`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct Wgs84Angle {
    pub value: Wgs84AngleValue,
    pub confidence: Wgs84AngleConfidence,
}

constrained_int!(
    /// `CartesianAngleValue ::= INTEGER (0..3601)`: 0.1°; 3600 = valueNotUsed,
    /// 3601 = unavailable.
    CartesianAngleValue(u16), "0..=3601"
);
impl CartesianAngleValue {
    pub const VALUE_NOT_USED: Self = Self(3600);
    pub const UNAVAILABLE: Self = Self(3601);
}
constrained_int!(
    /// `AngleConfidence ::= INTEGER (1..127)`: 0.1°; 126 = outOfRange,
    /// 127 = unavailable.
    AngleConfidence(u8), "1..=127"
);
impl AngleConfidence {
    pub const UNAVAILABLE: Self = Self(127);
}

/// `CartesianAngle`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct CartesianAngle {
    pub value: CartesianAngleValue,
    pub confidence: AngleConfidence,
}

/// `EulerAnglesWithConfidence`: zAngle is the yaw of the object.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct EulerAnglesWithConfidence {
    pub z_angle: CartesianAngle,
    pub y_angle: Option<CartesianAngle>,
    pub x_angle: Option<CartesianAngle>,
}

constrained_int!(
    /// `CartesianAngularVelocityComponentValue ::= INTEGER (-255..256)`: °/s;
    /// 256 = unavailable.
    CartesianAngularVelocityComponentValue(i16), "-255..=256"
);

/// `AngularSpeedConfidence ::= ENUMERATED`.
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
pub enum AngularSpeedConfidence {
    DegSec01 = 0,
    DegSec02 = 1,
    DegSec05 = 2,
    DegSec10 = 3,
    DegSec20 = 4,
    DegSec50 = 5,
    OutOfRange = 6,
    Unavailable = 7,
}

/// `CartesianAngularVelocityComponent`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct CartesianAngularVelocityComponent {
    pub value: CartesianAngularVelocityComponentValue,
    pub confidence: AngularSpeedConfidence,
}

// ---------------------------------------------------------------- velocity and acceleration

constrained_int!(
    /// `SpeedValue ::= INTEGER (0..16383)`: 0.01 m/s; 16382 = outOfRange,
    /// 16383 = unavailable.
    SpeedValue(u16), "0..=16383"
);
constrained_int!(
    /// `SpeedConfidence ::= INTEGER (1..127)`: 0.01 m/s; 126 = outOfRange,
    /// 127 = unavailable.
    SpeedConfidence(u8), "1..=127"
);
impl SpeedConfidence {
    pub const UNAVAILABLE: Self = Self(127);
}

/// `Speed`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct Speed {
    pub speed_value: SpeedValue,
    pub speed_confidence: SpeedConfidence,
}

constrained_int!(
    /// `VelocityComponentValue ::= INTEGER (-16383..16383)`: 0.01 m/s;
    /// -16383 = negativeOutOfRange, 16382 = positiveOutOfRange, 16383 = unavailable.
    VelocityComponentValue(i16), "-16383..=16383"
);

/// `VelocityComponent`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct VelocityComponent {
    pub value: VelocityComponentValue,
    pub confidence: SpeedConfidence,
}

/// `VelocityPolarWithZ`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct VelocityPolarWithZ {
    pub velocity_magnitude: Speed,
    pub velocity_direction: CartesianAngle,
    pub z_velocity: Option<VelocityComponent>,
}

/// `VelocityCartesian`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct VelocityCartesian {
    pub x_velocity: VelocityComponent,
    pub y_velocity: VelocityComponent,
    pub z_velocity: Option<VelocityComponent>,
}

/// `Velocity3dWithConfidence ::= CHOICE` (not extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(choice, automatic_tags)]
pub enum Velocity3dWithConfidence {
    PolarVelocity(VelocityPolarWithZ),
    CartesianVelocity(VelocityCartesian),
}

constrained_int!(
    /// `AccelerationValue ::= INTEGER (-160..161)`: 0.1 m/s²; 161 = unavailable.
    AccelerationValue(i16), "-160..=161"
);
constrained_int!(
    /// `AccelerationConfidence ::= INTEGER (0..102)`: 0.1 m/s²; 101 = outOfRange,
    /// 102 = unavailable.
    AccelerationConfidence(u8), "0..=102"
);
constrained_int!(
    /// `AccelerationMagnitudeValue ::= INTEGER (0..161)`: 0.1 m/s²; 161 = unavailable.
    AccelerationMagnitudeValue(u8), "0..=161"
);

/// `AccelerationComponent`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct AccelerationComponent {
    pub value: AccelerationValue,
    pub confidence: AccelerationConfidence,
}

/// `AccelerationMagnitude`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct AccelerationMagnitude {
    pub acceleration_magnitude_value: AccelerationMagnitudeValue,
    pub acceleration_confidence: AccelerationConfidence,
}

/// `AccelerationPolarWithZ`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct AccelerationPolarWithZ {
    pub acceleration_magnitude: AccelerationMagnitude,
    pub acceleration_direction: CartesianAngle,
    pub z_acceleration: Option<AccelerationComponent>,
}

/// `AccelerationCartesian`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct AccelerationCartesian {
    pub x_acceleration: AccelerationComponent,
    pub y_acceleration: AccelerationComponent,
    pub z_acceleration: Option<AccelerationComponent>,
}

/// `Acceleration3dWithConfidence ::= CHOICE` (not extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(choice, automatic_tags)]
pub enum Acceleration3dWithConfidence {
    PolarAcceleration(AccelerationPolarWithZ),
    CartesianAcceleration(AccelerationCartesian),
}

// ---------------------------------------------------------------- correlation matrices

/// `MatrixIncludedComponents ::= BIT STRING (SIZE(13,...))`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("13", extensible))]
pub struct MatrixIncludedComponents(pub BitString);

constrained_int!(
    /// `CorrelationCellValue ::= INTEGER (-100..101)`: percent; 101 = unavailable.
    CorrelationCellValue(i8), "-100..=101"
);

/// `CorrelationColumn ::= SEQUENCE SIZE (1..13,...) OF CorrelationCellValue`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=13", extensible))]
pub struct CorrelationColumn(pub SequenceOf<CorrelationCellValue>);

/// `LowerTriangularPositiveSemidefiniteMatrixColumns ::= SEQUENCE SIZE (1..13) OF CorrelationColumn`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=13"))]
pub struct LowerTriangularPositiveSemidefiniteMatrixColumns(pub SequenceOf<CorrelationColumn>);

/// `LowerTriangularPositiveSemidefiniteMatrix`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct LowerTriangularPositiveSemidefiniteMatrix {
    pub components_included_inthe_matrix: MatrixIncludedComponents,
    pub matrix: LowerTriangularPositiveSemidefiniteMatrixColumns,
}

/// `LowerTriangularPositiveSemidefiniteMatrices ::= SEQUENCE SIZE (1..4) OF ...`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=4"))]
pub struct LowerTriangularPositiveSemidefiniteMatrices(pub SequenceOf<LowerTriangularPositiveSemidefiniteMatrix>);

// ---------------------------------------------------------------- object description

constrained_int!(
    /// `ObjectDimensionValue ::= INTEGER (1..256)`: 0.1 m; 255 = outOfRange,
    /// 256 = unavailable.
    ObjectDimensionValue(u16), "1..=256"
);
constrained_int!(
    /// `ObjectDimensionConfidence ::= INTEGER (1..32)`: 0.1 m; 31 = outOfRange,
    /// 32 = unavailable.
    ObjectDimensionConfidence(u8), "1..=32"
);

/// `ObjectDimension`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct ObjectDimension {
    pub value: ObjectDimensionValue,
    pub confidence: ObjectDimensionConfidence,
}

constrained_int!(
    /// `ObjectPerceptionQuality ::= INTEGER (0..15)`: 0 = noConfidence,
    /// 15 = fullConfidence.
    ObjectPerceptionQuality(u8), "0..=15"
);

/// `SequenceOfIdentifier1B ::= SEQUENCE SIZE(1..128, ...) OF Identifier1B`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=128", extensible))]
pub struct SequenceOfIdentifier1B(pub SequenceOf<Identifier1B>);

constrained_int!(
    /// `TrafficParticipantType ::= INTEGER (0..255)`: unknown(0), pedestrian(1),
    /// cyclist(2), moped(3), motorcycle(4), passengerCar(5), bus(6),
    /// lightTruck(7), heavyTruck(8), trailer(9), specialVehicle(10), tram(11),
    /// lightVruVehicle(12), animal(13), agricultural(14), roadSideUnit(15).
    TrafficParticipantType(u8), "0..=255"
);
impl TrafficParticipantType {
    pub const UNKNOWN: Self = Self(0);
    pub const PASSENGER_CAR: Self = Self(5);
    pub const BUS: Self = Self(6);
    pub const LIGHT_TRUCK: Self = Self(7);
    pub const HEAVY_TRUCK: Self = Self(8);
    pub const TRAILER: Self = Self(9);
    pub const SPECIAL_VEHICLE: Self = Self(10);
    pub const TRAM: Self = Self(11);
    pub const AGRICULTURAL: Self = Self(14);
}

// The VRU sub-profiles are ENUMERATED in CDD V2.1.1 (later CDD versions turned
// them into INTEGER (0..15), which encodes differently): PER sends the index in
// the root, so `max(15)` is index 4 of VruSubProfilePedestrian.

/// `VruSubProfilePedestrian ::= ENUMERATED` (CDD V2.1.1).
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
pub enum VruSubProfilePedestrian {
    Unavailable = 0,
    OrdinaryPedestrian = 1,
    RoadWorker = 2,
    FirstResponder = 3,
    Max = 15,
}

/// `VruSubProfileBicyclist ::= ENUMERATED` (CDD V2.1.1).
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
pub enum VruSubProfileBicyclist {
    Unavailable = 0,
    Bicyclist = 1,
    WheelchairUser = 2,
    HorseAndRider = 3,
    Rollerskater = 4,
    EScooter = 5,
    PersonalTransporter = 6,
    Pedelec = 7,
    SpeedPedelec = 8,
    Max = 15,
}

/// `VruSubProfileMotorcyclist ::= ENUMERATED` (CDD V2.1.1).
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
pub enum VruSubProfileMotorcyclist {
    Unavailable = 0,
    Moped = 1,
    Motorcycle = 2,
    MotorcycleAndSidecarRight = 3,
    MotorcycleAndSidecarLeft = 4,
    Max = 15,
}

/// `VruSubProfileAnimal ::= ENUMERATED` (CDD V2.1.1).
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
pub enum VruSubProfileAnimal {
    Unavailable = 0,
    WildAnimal = 1,
    FarmAnimal = 2,
    ServiceAnimal = 3,
    Max = 15,
}

/// `VruProfileAndSubprofile ::= CHOICE { ..., ... }` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(choice, automatic_tags)]
#[non_exhaustive]
pub enum VruProfileAndSubprofile {
    Pedestrian(VruSubProfilePedestrian),
    BicyclistAndLightVruVehicle(VruSubProfileBicyclist),
    Motorcyclist(VruSubProfileMotorcyclist),
    Animal(VruSubProfileAnimal),
}

fixed_bit_string!(
    /// `VruClusterProfiles ::= BIT STRING { pedestrian(0), bicyclist(1),
    /// motorcyclist(2), animal(3) } (SIZE(4))`.
    VruClusterProfiles, "4"
);

/// `VruClusterInformation` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct VruClusterInformation {
    pub cluster_id: Option<Identifier1B>,
    pub cluster_bounding_box_shape: Option<Shape>,
    pub cluster_cardinality_size: CardinalNumber1B,
    pub cluster_profiles: Option<VruClusterProfiles>,
}

impl VruClusterInformation {
    pub fn new(
        cluster_id: Option<Identifier1B>,
        cluster_bounding_box_shape: Option<Shape>,
        cluster_cardinality_size: CardinalNumber1B,
        cluster_profiles: Option<VruClusterProfiles>,
    ) -> Self {
        Self { cluster_id, cluster_bounding_box_shape, cluster_cardinality_size, cluster_profiles }
    }
}

constrained_int!(
    /// `OtherSubClass ::= INTEGER (0..255)`: unknown(0), singleObject(1),
    /// multipleObjects(2), bulkMaterial(3).
    OtherSubClass(u8), "0..=255"
);
impl OtherSubClass {
    pub const UNKNOWN: Self = Self(0);
}

/// `ObjectClass ::= CHOICE { ..., ... }` (extensible).
///
/// `vehicleSubClass` is `TrafficParticipantType (unknown | passengerCar..tram |
/// agricultural)`: the union is PER-visible, so its effective range 0..14 is
/// what UPER encodes (4 bits), not the 0..255 of the parent type.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(choice, automatic_tags)]
#[non_exhaustive]
pub enum ObjectClass {
    #[rasn(value("0..=14"))]
    VehicleSubClass(TrafficParticipantType),
    VruSubClass(VruProfileAndSubprofile),
    GroupSubClass(VruClusterInformation),
    OtherSubClass(OtherSubClass),
}

/// `ObjectClassWithConfidence`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct ObjectClassWithConfidence {
    pub object_class: ObjectClass,
    pub confidence: ConfidenceLevel,
}

/// `ObjectClassDescription ::= SEQUENCE (SIZE(1..8)) OF ObjectClassWithConfidence`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=8"))]
pub struct ObjectClassDescription(pub SequenceOf<ObjectClassWithConfidence>);

// ---------------------------------------------------------------- map matching

/// `RoadSegmentReferenceId`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct RoadSegmentReferenceId {
    pub region: Option<Identifier2B>,
    pub id: Identifier2B,
}

/// `IntersectionReferenceId`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct IntersectionReferenceId {
    pub region: Option<Identifier2B>,
    pub id: Identifier2B,
}

/// `MapReference ::= CHOICE` (not extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(choice, automatic_tags)]
pub enum MapReference {
    Roadsegment(RoadSegmentReferenceId),
    Intersection(IntersectionReferenceId),
}

constrained_int!(
    /// `LongitudinalLanePositionValue ::= INTEGER (0..32767)`: 0.1 m.
    LongitudinalLanePositionValue(u16), "0..=32767"
);
constrained_int!(
    /// `LongitudinalLanePositionConfidence ::= INTEGER (0..1023)`: 0.1 m.
    LongitudinalLanePositionConfidence(u16), "0..=1023"
);

/// `LongitudinalLanePosition`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct LongitudinalLanePosition {
    pub longitudinal_lane_position_value: LongitudinalLanePositionValue,
    pub longitudinal_lane_position_confidence: LongitudinalLanePositionConfidence,
}

/// `MapPosition` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct MapPosition {
    pub map_reference: Option<MapReference>,
    pub lane_id: Option<Identifier1B>,
    pub connection_id: Option<Identifier1B>,
    pub longitudinal_lane_position: Option<LongitudinalLanePosition>,
}

impl MapPosition {
    pub fn new(
        map_reference: Option<MapReference>,
        lane_id: Option<Identifier1B>,
        connection_id: Option<Identifier1B>,
        longitudinal_lane_position: Option<LongitudinalLanePosition>,
    ) -> Self {
        Self { map_reference, lane_id, connection_id, longitudinal_lane_position }
    }
}

// ---------------------------------------------------------------- perceived object

/// `PerceivedObject` (extensible). Positions are relative to the CPM's
/// reference position, x east, y north, z up.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct PerceivedObject {
    pub object_id: Option<Identifier2B>,
    /// Time of the measurement relative to the CPM reference time, ms.
    pub measurement_delta_time: DeltaTimeMilliSecondSigned,
    pub position: CartesianPosition3dWithConfidence,
    pub velocity: Option<Velocity3dWithConfidence>,
    pub acceleration: Option<Acceleration3dWithConfidence>,
    pub angles: Option<EulerAnglesWithConfidence>,
    pub z_angular_velocity: Option<CartesianAngularVelocityComponent>,
    pub lower_triangular_correlation_matrices: Option<LowerTriangularPositiveSemidefiniteMatrices>,
    pub object_dimension_z: Option<ObjectDimension>,
    pub object_dimension_y: Option<ObjectDimension>,
    pub object_dimension_x: Option<ObjectDimension>,
    /// `DeltaTimeMilliSecondSigned (0..2047)`: the serial constraint is
    /// PER-visible, so UPER uses 11 bits here, not 12.
    #[rasn(value("0..=2047"))]
    pub object_age: Option<DeltaTimeMilliSecondSigned>,
    pub object_perception_quality: Option<ObjectPerceptionQuality>,
    pub sensor_id_list: Option<SequenceOfIdentifier1B>,
    pub classification: Option<ObjectClassDescription>,
    pub map_position: Option<MapPosition>,
}

impl PerceivedObject {
    /// An object with only the mandatory components set.
    pub fn new(
        measurement_delta_time: DeltaTimeMilliSecondSigned,
        position: CartesianPosition3dWithConfidence,
    ) -> Self {
        Self {
            object_id: None,
            measurement_delta_time,
            position,
            velocity: None,
            acceleration: None,
            angles: None,
            z_angular_velocity: None,
            lower_triangular_correlation_matrices: None,
            object_dimension_z: None,
            object_dimension_y: None,
            object_dimension_x: None,
            object_age: None,
            object_perception_quality: None,
            sensor_id_list: None,
            classification: None,
            map_position: None,
        }
    }
}

// ---------------------------------------------------------------- shapes

/// `SequenceOfCartesianPosition3d ::= SEQUENCE (SIZE(1..16, ...)) OF CartesianPosition3d`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=16", extensible))]
pub struct SequenceOfCartesianPosition3d(pub SequenceOf<CartesianPosition3d>);

/// `RectangularShape`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct RectangularShape {
    pub center_point: Option<CartesianPosition3d>,
    pub semi_length: StandardLength12b,
    pub semi_breadth: StandardLength12b,
    pub orientation: Option<Wgs84AngleValue>,
    pub height: Option<StandardLength12b>,
}

/// `CircularShape`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct CircularShape {
    pub shape_reference_point: Option<CartesianPosition3d>,
    pub radius: StandardLength12b,
    pub height: Option<StandardLength12b>,
}

/// `PolygonalShape`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct PolygonalShape {
    pub shape_reference_point: Option<CartesianPosition3d>,
    /// `SequenceOfCartesianPosition3d (SIZE(3..16,...))`: the serial size
    /// constraint replaces the parent's 1..16 for PER.
    #[rasn(size("3..=16", extensible))]
    pub polygon: SequenceOfCartesianPosition3d,
    pub height: Option<StandardLength12b>,
}

/// `EllipticalShape`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct EllipticalShape {
    pub shape_reference_point: Option<CartesianPosition3d>,
    pub semi_major_axis_length: StandardLength12b,
    pub semi_minor_axis_length: StandardLength12b,
    pub orientation: Option<Wgs84AngleValue>,
    pub height: Option<StandardLength12b>,
}

/// `RadialShape`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct RadialShape {
    pub shape_reference_point: Option<CartesianPosition3d>,
    pub range: StandardLength12b,
    pub stationary_horizontal_opening_angle_start: Wgs84AngleValue,
    pub stationary_horizontal_opening_angle_end: Wgs84AngleValue,
    pub vertical_opening_angle_start: Option<CartesianAngleValue>,
    pub vertical_opening_angle_end: Option<CartesianAngleValue>,
}

/// `RadialShapeDetails`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct RadialShapeDetails {
    pub range: StandardLength12b,
    pub horizontal_opening_angle_start: CartesianAngleValue,
    pub horizontal_opening_angle_end: CartesianAngleValue,
    pub vertical_opening_angle_start: Option<CartesianAngleValue>,
    pub vertical_opening_angle_end: Option<CartesianAngleValue>,
}

/// `RadialShapesList ::= SEQUENCE SIZE(1..16,...) OF RadialShapeDetails`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=16", extensible))]
pub struct RadialShapesList(pub SequenceOf<RadialShapeDetails>);

/// `RadialShapes`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct RadialShapes {
    pub ref_point_id: Identifier1B,
    pub x_coordinate: CartesianCoordinateSmall,
    pub y_coordinate: CartesianCoordinateSmall,
    pub z_coordinate: Option<CartesianCoordinateSmall>,
    pub radial_shapes_list: RadialShapesList,
}

/// `Shape ::= CHOICE { ..., ... }` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(choice, automatic_tags)]
#[non_exhaustive]
pub enum Shape {
    Rectangular(RectangularShape),
    Circular(CircularShape),
    Polygonal(PolygonalShape),
    Elliptical(EllipticalShape),
    Radial(RadialShape),
    RadialShapes(RadialShapes),
}

// ---------------------------------------------------------------- originating vehicle

constrained_int!(
    /// `VehicleWidth ::= INTEGER (1..62)`: 0.1 m; 61 = outOfRange, 62 = unavailable.
    VehicleWidth(u8), "1..=62"
);

/// `TrailerData` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct TrailerData {
    pub ref_point_id: Identifier1B,
    pub hitch_point_offset: StandardLength1B,
    pub front_overhang: Option<StandardLength1B>,
    pub rear_overhang: Option<StandardLength1B>,
    pub trailer_width: Option<VehicleWidth>,
    pub hitch_angle: CartesianAngle,
}

impl TrailerData {
    pub fn new(
        ref_point_id: Identifier1B,
        hitch_point_offset: StandardLength1B,
        front_overhang: Option<StandardLength1B>,
        rear_overhang: Option<StandardLength1B>,
        trailer_width: Option<VehicleWidth>,
        hitch_angle: CartesianAngle,
    ) -> Self {
        Self { ref_point_id, hitch_point_offset, front_overhang, rear_overhang, trailer_width, hitch_angle }
    }
}

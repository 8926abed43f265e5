//! Release 1 Common Data Dictionary: module `ITS-Container` {itu-t (0)
//! identified-organization (4) etsi (0) itsDomain (5) wg1 (1) ts (102894)
//! cdd (2) version (2)}, the types the DENM of EN 302 637-3 V1.3.1 imports.
//!
//! That OID is the module text ETSI publishes with TS 102 894-2 V1.3.1 (the
//! ETSI forge `cdd_ts102894_2` module the DENM V1.3.1 repository builds
//! against, and the one pycrate compiles into `ITS_DENM_3`). The older
//! `version (1)` module differs on the wire (e.g. `CauseCode` has no extension
//! marker there), so it is not interchangeable with this one.
//!
//! Types whose UPER encoding is identical to the Release 2 CDD V2.1.1 type of
//! the same name ([`crate::cdd`]) are re-exported from there rather than
//! duplicated: `ItsPduHeader` (`protocolVersion`/`messageID` INTEGER (0..255),
//! `stationID`), `StationID`, `TimestampIts`, `ReferencePosition` with its
//! latitude / longitude / confidence ellipse / altitude, and `Speed` with its
//! value and confidence. Every other type here has no namesake in
//! [`crate::cdd`] (the CPM does not use it) and is defined with the
//! constraints and extension markers of the V1.3.1 module. Naming as in
//! [`crate::cdd`]: UpperCamel types (`ID` becomes `Id`), snake_case fields in
//! ASN.1 order.

use rasn::prelude::*;

pub use crate::cdd::{
    Altitude, AltitudeConfidence, AltitudeValue, HeadingValue, ItsPduHeader, Latitude, Longitude, MessageId,
    OrdinalNumber1B, PosConfidenceEllipse, ReferencePosition, SemiAxisLength, Speed, SpeedConfidence, SpeedValue,
    StationId, TimestampIts,
};

// ---------------------------------------------------------------- management

constrained_int!(
    /// `SequenceNumber ::= INTEGER (0..65535)`.
    SequenceNumber(u16), "0..=65535"
);

/// `ActionID`: identifies one event of one originating station; updates,
/// cancellations and negations of a DENM carry the same action id.
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct ActionId {
    pub originating_station_id: StationId,
    pub sequence_number: SequenceNumber,
}

/// `RelevanceDistance ::= ENUMERATED` (not extensible): distance from the
/// event position within which the event is relevant.
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
pub enum RelevanceDistance {
    LessThan50m = 0,
    LessThan100m = 1,
    LessThan200m = 2,
    LessThan500m = 3,
    LessThan1000m = 4,
    LessThan5km = 5,
    LessThan10km = 6,
    Over10km = 7,
}

impl RelevanceDistance {
    pub const ALL: [Self; 8] = [
        Self::LessThan50m,
        Self::LessThan100m,
        Self::LessThan200m,
        Self::LessThan500m,
        Self::LessThan1000m,
        Self::LessThan5km,
        Self::LessThan10km,
        Self::Over10km,
    ];

    /// The ASN.1 identifier, e.g. `lessThan200m`.
    pub fn asn1_name(self) -> &'static str {
        match self {
            Self::LessThan50m => "lessThan50m",
            Self::LessThan100m => "lessThan100m",
            Self::LessThan200m => "lessThan200m",
            Self::LessThan500m => "lessThan500m",
            Self::LessThan1000m => "lessThan1000m",
            Self::LessThan5km => "lessThan5km",
            Self::LessThan10km => "lessThan10km",
            Self::Over10km => "over10km",
        }
    }
}

/// `RelevanceTrafficDirection ::= ENUMERATED` (not extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
pub enum RelevanceTrafficDirection {
    AllTrafficDirections = 0,
    UpstreamTraffic = 1,
    DownstreamTraffic = 2,
    OppositeTraffic = 3,
}

constrained_int!(
    /// `ValidityDuration ::= INTEGER (0..86400)`: seconds after `detectionTime`
    /// during which the event is valid.
    ValidityDuration(u32), "0..=86400"
);
constrained_int!(
    /// `TransmissionInterval ::= INTEGER (1..10000)`: milliseconds between two
    /// repetitions of the DENM.
    TransmissionInterval(u16), "1..=10000"
);

constrained_int!(
    /// `StationType ::= INTEGER (0..255)`: see the associated constants.
    StationType(u8), "0..=255"
);
impl StationType {
    pub const UNKNOWN: Self = Self(0);
    pub const PEDESTRIAN: Self = Self(1);
    pub const CYCLIST: Self = Self(2);
    pub const MOPED: Self = Self(3);
    pub const MOTORCYCLE: Self = Self(4);
    pub const PASSENGER_CAR: Self = Self(5);
    pub const BUS: Self = Self(6);
    pub const LIGHT_TRUCK: Self = Self(7);
    pub const HEAVY_TRUCK: Self = Self(8);
    pub const TRAILER: Self = Self(9);
    pub const SPECIAL_VEHICLES: Self = Self(10);
    pub const TRAM: Self = Self(11);
    pub const ROAD_SIDE_UNIT: Self = Self(15);
}

// ---------------------------------------------------------------- situation

constrained_int!(
    /// `InformationQuality ::= INTEGER (0..7)`: 0 = unavailable, 1 = lowest,
    /// 7 = highest.
    InformationQuality(u8), "0..=7"
);

constrained_int!(
    /// `CauseCodeType ::= INTEGER (0..255)`: the event class; named values in
    /// the associated constants.
    CauseCodeType(u8), "0..=255"
);
impl CauseCodeType {
    pub const RESERVED: Self = Self(0);
    pub const TRAFFIC_CONDITION: Self = Self(1);
    pub const ACCIDENT: Self = Self(2);
    pub const ROADWORKS: Self = Self(3);
    pub const IMPASSABILITY: Self = Self(5);
    pub const ADVERSE_WEATHER_CONDITION_ADHESION: Self = Self(6);
    pub const AQUAPLANNNING: Self = Self(7);
    pub const HAZARDOUS_LOCATION_SURFACE_CONDITION: Self = Self(9);
    pub const HAZARDOUS_LOCATION_OBSTACLE_ON_THE_ROAD: Self = Self(10);
    pub const HAZARDOUS_LOCATION_ANIMAL_ON_THE_ROAD: Self = Self(11);
    pub const HUMAN_PRESENCE_ON_THE_ROAD: Self = Self(12);
    pub const WRONG_WAY_DRIVING: Self = Self(14);
    pub const RESCUE_AND_RECOVERY_WORK_IN_PROGRESS: Self = Self(15);
    pub const ADVERSE_WEATHER_CONDITION_EXTREME_WEATHER_CONDITION: Self = Self(17);
    pub const ADVERSE_WEATHER_CONDITION_VISIBILITY: Self = Self(18);
    pub const ADVERSE_WEATHER_CONDITION_PRECIPITATION: Self = Self(19);
    pub const SLOW_VEHICLE: Self = Self(26);
    pub const DANGEROUS_END_OF_QUEUE: Self = Self(27);
    pub const VEHICLE_BREAKDOWN: Self = Self(91);
    pub const POST_CRASH: Self = Self(92);
    pub const HUMAN_PROBLEM: Self = Self(93);
    pub const STATIONARY_VEHICLE: Self = Self(94);
    pub const EMERGENCY_VEHICLE_APPROACHING: Self = Self(95);
    pub const HAZARDOUS_LOCATION_DANGEROUS_CURVE: Self = Self(96);
    pub const COLLISION_RISK: Self = Self(97);
    pub const SIGNAL_VIOLATION: Self = Self(98);
    pub const DANGEROUS_SITUATION: Self = Self(99);
}

constrained_int!(
    /// `SubCauseCodeType ::= INTEGER (0..255)`: meaning depends on the cause,
    /// e.g. [`CollisionRiskSubCauseCode`] for [`CauseCodeType::COLLISION_RISK`].
    SubCauseCodeType(u8), "0..=255"
);

constrained_int!(
    /// `CollisionRiskSubCauseCode ::= INTEGER (0..255)`: sub-causes of
    /// `collisionRisk (97)`. Not referenced by the DENM itself (it carries a
    /// [`SubCauseCodeType`]); kept for its named values.
    CollisionRiskSubCauseCode(u8), "0..=255"
);
impl CollisionRiskSubCauseCode {
    pub const UNAVAILABLE: Self = Self(0);
    pub const LONGITUDINAL_COLLISION_RISK: Self = Self(1);
    pub const CROSSING_COLLISION_RISK: Self = Self(2);
    pub const LATERAL_COLLISION_RISK: Self = Self(3);
    /// `vulnerableRoadUser (4)`: collision risk involving a VRU.
    pub const VULNERABLE_ROAD_USER: Self = Self(4);
}
impl From<CollisionRiskSubCauseCode> for SubCauseCodeType {
    fn from(value: CollisionRiskSubCauseCode) -> Self {
        Self(value.0)
    }
}

/// `CauseCode` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct CauseCode {
    pub cause_code: CauseCodeType,
    pub sub_cause_code: SubCauseCodeType,
}

impl CauseCode {
    pub fn new(cause_code: CauseCodeType, sub_cause_code: SubCauseCodeType) -> Self {
        Self { cause_code, sub_cause_code }
    }
}

// ---------------------------------------------------------------- relative positions and paths

constrained_int!(
    /// `DeltaLatitude ::= INTEGER (-131071..131072)`: 0.1 µdegree;
    /// 131072 = unavailable.
    DeltaLatitude(i32), "-131071..=131072"
);
constrained_int!(
    /// `DeltaLongitude ::= INTEGER (-131071..131072)`: 0.1 µdegree;
    /// 131072 = unavailable.
    DeltaLongitude(i32), "-131071..=131072"
);
constrained_int!(
    /// `DeltaAltitude ::= INTEGER (-12700..12800)`: 0.01 m; 12800 = unavailable.
    DeltaAltitude(i16), "-12700..=12800"
);

/// `DeltaReferencePosition`: offset from a reference position.
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct DeltaReferencePosition {
    pub delta_latitude: DeltaLatitude,
    pub delta_longitude: DeltaLongitude,
    pub delta_altitude: DeltaAltitude,
}

/// `PathDeltaTime ::= INTEGER (1..65535, ...)`: 10 ms into the past. The
/// extensible constraint costs one extension bit on the wire.
///
/// Backed by rasn's unbounded [`Integer`]: rasn intersects a newtype's value
/// constraint with the range of a primitive inner type, and that intersection
/// drops the extension marker (a `u16` here would be encoded without the
/// extension bit).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[rasn(delegate, value("1..=65535", extensible))]
pub struct PathDeltaTime(pub Integer);

impl PathDeltaTime {
    pub fn new(ten_ms: u16) -> Self {
        Self(Integer::from(ten_ms))
    }

    /// The value when it is in the root range's type (`None` for values of a
    /// future extension that do not fit 16 bits).
    pub fn value(&self) -> Option<u16> {
        u16::try_from(&self.0).ok()
    }
}

/// `PathPoint`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct PathPoint {
    pub path_position: DeltaReferencePosition,
    pub path_delta_time: Option<PathDeltaTime>,
}

/// `PathHistory ::= SEQUENCE (SIZE(0..40)) OF PathPoint`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("0..=40"))]
pub struct PathHistory(pub SequenceOf<PathPoint>);

/// `Traces ::= SEQUENCE SIZE(1..7) OF PathHistory`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=7"))]
pub struct Traces(pub SequenceOf<PathHistory>);

/// `ItineraryPath ::= SEQUENCE SIZE(1..40) OF ReferencePosition`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=40"))]
pub struct ItineraryPath(pub SequenceOf<ReferencePosition>);

/// `EventPoint`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct EventPoint {
    pub event_position: DeltaReferencePosition,
    pub event_delta_time: Option<PathDeltaTime>,
    pub information_quality: InformationQuality,
}

/// `EventHistory ::= SEQUENCE (SIZE(1..23)) OF EventPoint`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=23"))]
pub struct EventHistory(pub SequenceOf<EventPoint>);

// ---------------------------------------------------------------- location

constrained_int!(
    /// `HeadingConfidence ::= INTEGER (1..127)`: 0.1°; 126 = outOfRange,
    /// 127 = unavailable.
    HeadingConfidence(u8), "1..=127"
);

/// `Heading`: WGS84 heading (0.1° clockwise from north) with confidence.
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct Heading {
    pub heading_value: HeadingValue,
    pub heading_confidence: HeadingConfidence,
}

/// `RoadType ::= ENUMERATED` (not extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
pub enum RoadType {
    UrbanNoStructuralSeparationToOppositeLanes = 0,
    UrbanWithStructuralSeparationToOppositeLanes = 1,
    NonUrbanNoStructuralSeparationToOppositeLanes = 2,
    NonUrbanWithStructuralSeparationToOppositeLanes = 3,
}

// ---------------------------------------------------------------- à la carte

constrained_int!(
    /// `LanePosition ::= INTEGER (-1..14)`: -1 = offTheRoad,
    /// 0 = innerHardShoulder, 1 = innermostDrivingLane, 14 = outerHardShoulder.
    LanePosition(i8), "-1..=14"
);
constrained_int!(
    /// `Temperature ::= INTEGER (-60..67)`: °C; the bounds mean "or beyond".
    Temperature(i8), "-60..=67"
);

/// `PositioningSolutionType ::= ENUMERATED {..., ...}` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
#[non_exhaustive]
pub enum PositioningSolutionType {
    NoPositioningSolution = 0,
    SGnss = 1,
    DGnss = 2,
    SGnssPlusDr = 3,
    DGnssPlusDr = 4,
    Dr = 5,
}

constrained_int!(
    /// `HeightLonCarr ::= INTEGER (1..100)`: 0.01 m; 100 = unavailable.
    HeightLonCarr(u8), "1..=100"
);
constrained_int!(
    /// `PosLonCarr ::= INTEGER (1..127)`: 0.01 m; 127 = unavailable.
    PosLonCarr(u8), "1..=127"
);
constrained_int!(
    /// `PosPillar ::= INTEGER (1..30)`: 0.1 m; 30 = unavailable.
    PosPillar(u8), "1..=30"
);

/// `PositionOfPillars ::= SEQUENCE (SIZE(1..3, ...)) OF PosPillar`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=3", extensible))]
pub struct PositionOfPillars(pub SequenceOf<PosPillar>);

constrained_int!(
    /// `PosCentMass ::= INTEGER (1..63)`: 0.1 m; 63 = unavailable.
    PosCentMass(u8), "1..=63"
);
constrained_int!(
    /// `WheelBaseVehicle ::= INTEGER (1..127)`: 0.1 m; 127 = unavailable.
    WheelBaseVehicle(u8), "1..=127"
);
constrained_int!(
    /// `TurningRadius ::= INTEGER (1..255)`: 0.4 m; 255 = unavailable.
    TurningRadius(u8), "1..=255"
);
constrained_int!(
    /// `PosFrontAx ::= INTEGER (1..20)`: 0.1 m; 20 = unavailable.
    PosFrontAx(u8), "1..=20"
);
fixed_bit_string!(
    /// `PositionOfOccupants ::= BIT STRING (SIZE(20))`: per seat row
    /// left/right/mid occupied, not detectable, not present.
    PositionOfOccupants, "20"
);
constrained_int!(
    /// `VehicleMass ::= INTEGER (1..1024)`: 100 kg; 1024 = unavailable.
    VehicleMass(u16), "1..=1024"
);

/// `RequestResponseIndication ::= ENUMERATED` (not extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
pub enum RequestResponseIndication {
    Request = 0,
    Response = 1,
}

fixed_bit_string!(
    /// `LightBarSirenInUse ::= BIT STRING {lightBarActivated (0),
    /// sirenActivated (1)} (SIZE(2))`.
    LightBarSirenInUse, "2"
);

/// `HardShoulderStatus ::= ENUMERATED` (not extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
pub enum HardShoulderStatus {
    AvailableForStopping = 0,
    Closed = 1,
    AvailableForDriving = 2,
}

/// `DrivingLaneStatus ::= BIT STRING (SIZE (1..13))`: bit n set = lane n closed.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=13"))]
pub struct DrivingLaneStatus(pub BitString);

/// `ClosedLanes` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct ClosedLanes {
    pub innerhard_shoulder_status: Option<HardShoulderStatus>,
    pub outerhard_shoulder_status: Option<HardShoulderStatus>,
    pub driving_lane_status: Option<DrivingLaneStatus>,
}

impl ClosedLanes {
    pub fn new(
        innerhard_shoulder_status: Option<HardShoulderStatus>,
        outerhard_shoulder_status: Option<HardShoulderStatus>,
        driving_lane_status: Option<DrivingLaneStatus>,
    ) -> Self {
        Self { innerhard_shoulder_status, outerhard_shoulder_status, driving_lane_status }
    }
}

/// `RestrictedTypes ::= SEQUENCE (SIZE(1..3, ...)) OF StationType`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=3", extensible))]
pub struct RestrictedTypes(pub SequenceOf<StationType>);

constrained_int!(
    /// `SpeedLimit ::= INTEGER (1..255)`: km/h.
    SpeedLimit(u8), "1..=255"
);

/// `TrafficRule ::= ENUMERATED {..., ...}` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
#[non_exhaustive]
pub enum TrafficRule {
    NoPassing = 0,
    NoPassingForTrucks = 1,
    PassToRight = 2,
    PassToLeft = 3,
}

/// `StationarySince ::= ENUMERATED` (not extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
pub enum StationarySince {
    LessThan1Minute = 0,
    LessThan2Minutes = 1,
    LessThan15Minutes = 2,
    EqualOrGreater15Minutes = 3,
}

/// `DangerousGoodsBasic ::= ENUMERATED` (not extensible): UN ADR classes.
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
pub enum DangerousGoodsBasic {
    Explosives1 = 0,
    Explosives2 = 1,
    Explosives3 = 2,
    Explosives4 = 3,
    Explosives5 = 4,
    Explosives6 = 5,
    FlammableGases = 6,
    NonFlammableGases = 7,
    ToxicGases = 8,
    FlammableLiquids = 9,
    FlammableSolids = 10,
    SubstancesLiableToSpontaneousCombustion = 11,
    SubstancesEmittingFlammableGasesUponContactWithWater = 12,
    OxidizingSubstances = 13,
    OrganicPeroxides = 14,
    ToxicSubstances = 15,
    InfectiousSubstances = 16,
    RadioactiveMaterial = 17,
    CorrosiveSubstances = 18,
    MiscellaneousDangerousSubstances = 19,
}

/// `PhoneNumber ::= NumericString (SIZE(1..16))` (4 bits per digit in UPER).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=16"))]
pub struct PhoneNumber(pub NumericString);

/// `DangerousGoodsExtended` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct DangerousGoodsExtended {
    pub dangerous_goods_type: DangerousGoodsBasic,
    /// UN number, `INTEGER (0..9999)`.
    #[rasn(value("0..=9999"))]
    pub un_number: u16,
    pub elevated_temperature: bool,
    pub tunnels_restricted: bool,
    pub limited_quantity: bool,
    /// `IA5String (SIZE (1..24))`.
    #[rasn(size("1..=24"))]
    pub emergency_action_code: Option<Ia5String>,
    pub phone_number: Option<PhoneNumber>,
    /// `UTF8String (SIZE (1..24))`; the size is not PER-visible for UTF8String,
    /// so UPER sends an unconstrained octet length.
    #[rasn(size("1..=24"))]
    pub company_name: Option<Utf8String>,
}

impl DangerousGoodsExtended {
    pub fn new(
        dangerous_goods_type: DangerousGoodsBasic,
        un_number: u16,
        elevated_temperature: bool,
        tunnels_restricted: bool,
        limited_quantity: bool,
    ) -> Self {
        Self {
            dangerous_goods_type,
            un_number,
            elevated_temperature,
            tunnels_restricted,
            limited_quantity,
            emergency_action_code: None,
            phone_number: None,
            company_name: None,
        }
    }
}

constrained_int!(
    /// `NumberOfOccupants ::= INTEGER (0..127)`: 127 = unavailable.
    NumberOfOccupants(u8), "0..=127"
);

/// `WMInumber ::= IA5String (SIZE(1..3))`: World Manufacturer Identifier.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=3"))]
pub struct WmiNumber(pub Ia5String);

/// `VDS ::= IA5String (SIZE(6))`: Vehicle Descriptor Section of the VIN.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("6"))]
pub struct Vds(pub Ia5String);

/// `VehicleIdentification` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct VehicleIdentification {
    pub wmi_number: Option<WmiNumber>,
    pub vds: Option<Vds>,
}

impl VehicleIdentification {
    pub fn new(wmi_number: Option<WmiNumber>, vds: Option<Vds>) -> Self {
        Self { wmi_number, vds }
    }
}

fixed_bit_string!(
    /// `EnergyStorageType ::= BIT STRING {hydrogenStorage (0),
    /// electricEnergyStorage (1), liquidPropaneGas (2), compressedNaturalGas (3),
    /// diesel (4), gasoline (5), ammonia (6)} (SIZE(7))`.
    EnergyStorageType, "7"
);

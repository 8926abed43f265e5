//! Decentralized Environmental Notification Message, ETSI EN 302 637-3 V1.3.1.
//!
//! The rasn types mirror the module `DENM-PDU-Descriptions` {itu-t (0)
//! identified-organization (4) etsi (0) itsDomain (5) wg1 (1) en (302637)
//! denm (1) version (2)} over the Release 1 `ITS-Container` it imports
//! ([`crate::its_container_v1`], re-exported here). [`decode`] / [`encode`]
//! handle the whole PDU; [`SimpleDenm`] is the flat view the pipeline works
//! with.
//!
//! `validityDuration ValidityDuration DEFAULT defaultValidity` is a plain
//! [`ValidityDuration`] field using rasn's DEFAULT support: the encoder omits
//! it (presence bit 0) when it equals [`DEFAULT_VALIDITY`] (600 s), as the
//! canonical PER encoding requires, and the decoder fills in 600 when absent.

pub mod fixtures;
mod simple;

pub use crate::its_container_v1::*;
pub use simple::SimpleDenm;

use rasn::prelude::*;

use crate::CodecError;

/// `protocolVersion` of an EN 302 637-3 V1.3.1 DENM. Release 2 DENMs (TS 103
/// 831) carry 2 as well, so the header alone does not tell the two apart;
/// V1.2.x DENMs (protocolVersion 1) use the older, wire-incompatible
/// ITS-Container and are rejected by [`SimpleDenm::from_denm`].
pub const PROTOCOL_VERSION: u8 = 2;

/// `defaultValidity INTEGER ::= 600` (seconds).
pub const DEFAULT_VALIDITY: ValidityDuration = ValidityDuration(600);

fn default_validity() -> ValidityDuration {
    DEFAULT_VALIDITY
}

/// Decodes a UPER `DENM`. Structural only: header values are checked by
/// [`SimpleDenm::from_denm`].
pub fn decode(bytes: &[u8]) -> Result<Denm, CodecError> {
    crate::uper_decode_exact(bytes, "DENM")
}

/// Encodes a `DENM` in UPER. Fails when a value breaks a constraint of the
/// ASN.1 (rasn checks them while encoding).
pub fn encode(msg: &Denm) -> Result<Vec<u8>, CodecError> {
    crate::uper_encode(msg, "DENM")
}

// ---------------------------------------------------------------- DENM-PDU-Descriptions

/// `DENM`: the DENM PDU.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct Denm {
    pub header: ItsPduHeader,
    pub denm: DecentralizedEnvironmentalNotificationMessage,
}

/// `DecentralizedEnvironmentalNotificationMessage` (not extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct DecentralizedEnvironmentalNotificationMessage {
    pub management: ManagementContainer,
    pub situation: Option<SituationContainer>,
    pub location: Option<LocationContainer>,
    pub alacarte: Option<AlacarteContainer>,
}

/// `ManagementContainer` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct ManagementContainer {
    pub action_id: ActionId,
    /// When the event was detected (TimestampIts, ms since 2004-01-01 TAI).
    pub detection_time: TimestampIts,
    /// When this DENM (new, update or termination) was generated.
    pub reference_time: TimestampIts,
    pub termination: Option<Termination>,
    pub event_position: ReferencePosition,
    pub relevance_distance: Option<RelevanceDistance>,
    pub relevance_traffic_direction: Option<RelevanceTrafficDirection>,
    /// `DEFAULT defaultValidity`: omitted on the wire when 600.
    #[rasn(default = "default_validity")]
    pub validity_duration: ValidityDuration,
    pub transmission_interval: Option<TransmissionInterval>,
    pub station_type: StationType,
}

impl ManagementContainer {
    /// A management container with the optional components absent and the
    /// default validity.
    pub fn new(
        action_id: ActionId,
        detection_time: TimestampIts,
        reference_time: TimestampIts,
        event_position: ReferencePosition,
        station_type: StationType,
    ) -> Self {
        Self {
            action_id,
            detection_time,
            reference_time,
            termination: None,
            event_position,
            relevance_distance: None,
            relevance_traffic_direction: None,
            validity_duration: DEFAULT_VALIDITY,
            transmission_interval: None,
            station_type,
        }
    }
}

/// `SituationContainer` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct SituationContainer {
    pub information_quality: InformationQuality,
    pub event_type: CauseCode,
    pub linked_cause: Option<CauseCode>,
    pub event_history: Option<EventHistory>,
}

impl SituationContainer {
    pub fn new(
        information_quality: InformationQuality,
        event_type: CauseCode,
        linked_cause: Option<CauseCode>,
        event_history: Option<EventHistory>,
    ) -> Self {
        Self { information_quality, event_type, linked_cause, event_history }
    }
}

/// `LocationContainer` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct LocationContainer {
    pub event_speed: Option<Speed>,
    pub event_position_heading: Option<Heading>,
    pub traces: Traces,
    pub road_type: Option<RoadType>,
}

impl LocationContainer {
    pub fn new(
        event_speed: Option<Speed>,
        event_position_heading: Option<Heading>,
        traces: Traces,
        road_type: Option<RoadType>,
    ) -> Self {
        Self { event_speed, event_position_heading, traces, road_type }
    }
}

/// `ImpactReductionContainer` (not extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct ImpactReductionContainer {
    pub height_lon_carr_left: HeightLonCarr,
    pub height_lon_carr_right: HeightLonCarr,
    pub pos_lon_carr_left: PosLonCarr,
    pub pos_lon_carr_right: PosLonCarr,
    pub position_of_pillars: PositionOfPillars,
    pub pos_cent_mass: PosCentMass,
    pub wheel_base_vehicle: WheelBaseVehicle,
    pub turning_radius: TurningRadius,
    pub pos_front_ax: PosFrontAx,
    pub position_of_occupants: PositionOfOccupants,
    pub vehicle_mass: VehicleMass,
    pub request_response_indication: RequestResponseIndication,
}

/// `RoadWorksContainerExtended` (not extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash, Default)]
#[rasn(automatic_tags)]
pub struct RoadWorksContainerExtended {
    pub light_bar_siren_in_use: Option<LightBarSirenInUse>,
    pub closed_lanes: Option<ClosedLanes>,
    pub restriction: Option<RestrictedTypes>,
    pub speed_limit: Option<SpeedLimit>,
    pub incident_indication: Option<CauseCode>,
    pub recommended_path: Option<ItineraryPath>,
    pub starting_point_speed_limit: Option<DeltaReferencePosition>,
    pub traffic_flow_rule: Option<TrafficRule>,
    pub reference_denms: Option<ReferenceDenms>,
}

/// `StationaryVehicleContainer` (not extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash, Default)]
#[rasn(automatic_tags)]
pub struct StationaryVehicleContainer {
    pub stationary_since: Option<StationarySince>,
    pub stationary_cause: Option<CauseCode>,
    pub carrying_dangerous_goods: Option<DangerousGoodsExtended>,
    pub number_of_occupants: Option<NumberOfOccupants>,
    pub vehicle_identification: Option<VehicleIdentification>,
    pub energy_storage_type: Option<EnergyStorageType>,
}

/// `AlacarteContainer` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash, Default)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct AlacarteContainer {
    pub lane_position: Option<LanePosition>,
    pub impact_reduction: Option<ImpactReductionContainer>,
    pub external_temperature: Option<Temperature>,
    pub road_works: Option<RoadWorksContainerExtended>,
    pub positioning_solution: Option<PositioningSolutionType>,
    pub stationary_vehicle: Option<StationaryVehicleContainer>,
}

impl AlacarteContainer {
    /// An empty container; set the components needed.
    pub fn new() -> Self {
        Self::default()
    }
}

/// `Termination ::= ENUMERATED {isCancellation(0), isNegation (1)}` (not
/// extensible): a cancellation is sent by the originator of the event, a
/// negation by another station that no longer observes it.
#[derive(AsnType, Decode, Encode, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
pub enum Termination {
    IsCancellation = 0,
    IsNegation = 1,
}

impl Termination {
    pub const ALL: [Self; 2] = [Self::IsCancellation, Self::IsNegation];

    /// The ASN.1 identifier, `isCancellation` or `isNegation`.
    pub fn asn1_name(self) -> &'static str {
        match self {
            Self::IsCancellation => "isCancellation",
            Self::IsNegation => "isNegation",
        }
    }
}

/// `ReferenceDenms ::= SEQUENCE (SIZE(1..8, ...)) OF ActionID`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=8", extensible))]
pub struct ReferenceDenms(pub SequenceOf<ActionId>);

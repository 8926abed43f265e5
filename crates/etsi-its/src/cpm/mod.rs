//! Collective Perception Message, ETSI TS 103 324 V2.1.1 (Release 2).
//!
//! The rasn types mirror the modules `CPM-PDU-Descriptions`,
//! `CPM-OriginatingStationContainers`, `CPM-SensorInformationContainer`,
//! `CPM-PerceptionRegionContainer` and `CPM-PerceivedObjectContainer`
//! (major-version-1 minor-version-1) over CDD V2.1.1 ([`crate::cdd`], re-exported
//! here). [`decode`] / [`encode`] handle the whole PDU; the containers inside
//! travel as open types ([`WrappedCpmContainer`]) and are unpacked with
//! [`WrappedCpmContainer::content`]. [`SimpleCpm`] is the flat view the
//! pipeline works with.

pub mod fixtures;
mod simple;

pub use crate::cdd::*;
pub use simple::{ObjectKind, SimpleCpm, SimpleObject};

use rasn::prelude::*;

use crate::CodecError;

/// `protocolVersion` a TS 103 324 V2.1.1 CPM carries (`ItsPduHeader (WITH
/// COMPONENTS {..., protocolVersion (2), messageId(cpm)})`).
pub const PROTOCOL_VERSION: u8 = 2;

/// Decodes a UPER `CollectivePerceptionMessage`. Structural only: the header
/// values and the container contents are checked by [`SimpleCpm::from_cpm`] /
/// [`WrappedCpmContainer::content`].
pub fn decode(bytes: &[u8]) -> Result<CollectivePerceptionMessage, CodecError> {
    crate::uper_decode_exact(bytes, "CPM")
}

/// Encodes a `CollectivePerceptionMessage` in UPER. Fails when a value breaks
/// a constraint of the ASN.1 (rasn checks them while encoding).
pub fn encode(msg: &CollectivePerceptionMessage) -> Result<Vec<u8>, CodecError> {
    crate::uper_encode(msg, "CPM")
}

// ---------------------------------------------------------------- CPM-PDU-Descriptions

/// `CollectivePerceptionMessage`: the CPM PDU.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct CollectivePerceptionMessage {
    pub header: ItsPduHeader,
    pub payload: CpmPayload,
}

/// `CpmPayload` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct CpmPayload {
    pub management_container: ManagementContainer,
    pub cpm_containers: ConstraintWrappedCpmContainers,
}

impl CpmPayload {
    pub fn new(management_container: ManagementContainer, cpm_containers: ConstraintWrappedCpmContainers) -> Self {
        Self { management_container, cpm_containers }
    }
}

/// `ManagementContainer` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct ManagementContainer {
    /// Reference time of all time-related information in the CPM.
    pub reference_time: TimestampIts,
    /// Reference position of all positions in the CPM.
    pub reference_position: ReferencePosition,
    pub segmentation_info: Option<MessageSegmentationInfo>,
    pub message_rate_range: Option<MessageRateRange>,
}

impl ManagementContainer {
    pub fn new(
        reference_time: TimestampIts,
        reference_position: ReferencePosition,
        segmentation_info: Option<MessageSegmentationInfo>,
        message_rate_range: Option<MessageRateRange>,
    ) -> Self {
        Self { reference_time, reference_position, segmentation_info, message_rate_range }
    }
}

/// `MessageRateRange`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct MessageRateRange {
    pub message_rate_min: MessageRateHz,
    pub message_rate_max: MessageRateHz,
}

constrained_int!(
    /// `CpmContainerId ::= INTEGER (1..16)`.
    CpmContainerId(u8), "1..=16"
);

impl CpmContainerId {
    pub const ORIGINATING_VEHICLE_CONTAINER: Self = Self(1);
    pub const ORIGINATING_RSU_CONTAINER: Self = Self(2);
    pub const SENSOR_INFORMATION_CONTAINER: Self = Self(3);
    pub const PERCEPTION_REGION_CONTAINER: Self = Self(4);
    pub const PERCEIVED_OBJECT_CONTAINER: Self = Self(5);
}

/// `WrappedCpmContainer`: a container id and the container as an open type
/// (UPER: length determinant in octets, then the container's complete
/// octet-padded encoding).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
pub struct WrappedCpmContainer {
    pub container_id: CpmContainerId,
    pub container_data: Any,
}

impl WrappedCpmContainer {
    /// Encodes `container` into its open-type wrapper.
    pub fn wrap(container: &CpmContainer) -> Result<Self, CodecError> {
        let data = match container {
            CpmContainer::OriginatingVehicle(c) => crate::uper_encode(c, "OriginatingVehicleContainer")?,
            CpmContainer::OriginatingRsu(c) => crate::uper_encode(c, "OriginatingRsuContainer")?,
            CpmContainer::SensorInformation(c) => crate::uper_encode(c, "SensorInformationContainer")?,
            CpmContainer::PerceptionRegion(c) => crate::uper_encode(c, "PerceptionRegionContainer")?,
            CpmContainer::PerceivedObject(c) => crate::uper_encode(c, "PerceivedObjectContainer")?,
        };
        Ok(Self { container_id: container.id(), container_data: Any::new(data) })
    }

    /// Decodes the open type according to `container_id`; `Ok(None)` for ids
    /// the CPM object set does not define yet (it is extensible: skip them).
    pub fn content(&self) -> Result<Option<CpmContainer>, CodecError> {
        let data = self.container_data.as_bytes();
        Ok(Some(match self.container_id {
            CpmContainerId::ORIGINATING_VEHICLE_CONTAINER => {
                CpmContainer::OriginatingVehicle(crate::uper_decode_exact(data, "OriginatingVehicleContainer")?)
            }
            CpmContainerId::ORIGINATING_RSU_CONTAINER => {
                CpmContainer::OriginatingRsu(crate::uper_decode_exact(data, "OriginatingRsuContainer")?)
            }
            CpmContainerId::SENSOR_INFORMATION_CONTAINER => {
                CpmContainer::SensorInformation(crate::uper_decode_exact(data, "SensorInformationContainer")?)
            }
            CpmContainerId::PERCEPTION_REGION_CONTAINER => {
                CpmContainer::PerceptionRegion(crate::uper_decode_exact(data, "PerceptionRegionContainer")?)
            }
            CpmContainerId::PERCEIVED_OBJECT_CONTAINER => {
                CpmContainer::PerceivedObject(crate::uper_decode_exact(data, "PerceivedObjectContainer")?)
            }
            _ => return Ok(None),
        }))
    }
}

/// `WrappedCpmContainers ::= SEQUENCE SIZE(1..8,...) OF WrappedCpmContainer`.
/// Kept for completeness; the payload uses [`ConstraintWrappedCpmContainers`].
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=8", extensible))]
pub struct WrappedCpmContainers(pub SequenceOf<WrappedCpmContainer>);

/// `ConstraintWrappedCpmContainers ::= WrappedCpmContainers ((WITH COMPONENT
/// ... containerId (ALL EXCEPT 1)) | (... (ALL EXCEPT 2)))`.
///
/// UPER: `SIZE(1..8)` without an extension bit. The serially applied
/// constraint is not extensible, which (X.680 serial application) drops the
/// parent's extension marker; the remaining PER-visible constraint is the
/// root `SIZE(1..8)`. This is also how the asn1c-generated stacks that send
/// real Release 2 CPMs (Vanetza, ika etsi_its_messages) encode it, so we stay
/// wire-compatible with them. The inner "not both originating containers"
/// rule is not PER-visible; [`SimpleCpm::from_cpm`] does not rely on it.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=8"))]
pub struct ConstraintWrappedCpmContainers(pub SequenceOf<WrappedCpmContainer>);

/// A decoded CPM container, tagged by its `CpmContainerId`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CpmContainer {
    OriginatingVehicle(OriginatingVehicleContainer),
    OriginatingRsu(OriginatingRsuContainer),
    SensorInformation(SensorInformationContainer),
    PerceptionRegion(PerceptionRegionContainer),
    PerceivedObject(PerceivedObjectContainer),
}

impl CpmContainer {
    pub fn id(&self) -> CpmContainerId {
        match self {
            Self::OriginatingVehicle(_) => CpmContainerId::ORIGINATING_VEHICLE_CONTAINER,
            Self::OriginatingRsu(_) => CpmContainerId::ORIGINATING_RSU_CONTAINER,
            Self::SensorInformation(_) => CpmContainerId::SENSOR_INFORMATION_CONTAINER,
            Self::PerceptionRegion(_) => CpmContainerId::PERCEPTION_REGION_CONTAINER,
            Self::PerceivedObject(_) => CpmContainerId::PERCEIVED_OBJECT_CONTAINER,
        }
    }
}

// ---------------------------------------------------------------- CPM-OriginatingStationContainers

/// `TrailerDataSet ::= SEQUENCE SIZE(1..8,...) OF TrailerData (WITH COMPONENTS
/// {..., frontOverhang ABSENT, rearOverhang ABSENT, trailerWidth ABSENT})`;
/// the inner constraint is not PER-visible.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=8", extensible))]
pub struct TrailerDataSet(pub SequenceOf<TrailerData>);

/// `OriginatingVehicleContainer` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct OriginatingVehicleContainer {
    pub orientation_angle: Wgs84Angle,
    pub pitch_angle: Option<CartesianAngle>,
    pub roll_angle: Option<CartesianAngle>,
    pub trailer_data_set: Option<TrailerDataSet>,
}

impl OriginatingVehicleContainer {
    pub fn new(
        orientation_angle: Wgs84Angle,
        pitch_angle: Option<CartesianAngle>,
        roll_angle: Option<CartesianAngle>,
        trailer_data_set: Option<TrailerDataSet>,
    ) -> Self {
        Self { orientation_angle, pitch_angle, roll_angle, trailer_data_set }
    }
}

/// `OriginatingRsuContainer` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct OriginatingRsuContainer {
    pub map_reference: Option<MapReference>,
}

impl OriginatingRsuContainer {
    pub fn new(map_reference: Option<MapReference>) -> Self {
        Self { map_reference }
    }
}

// ---------------------------------------------------------------- CPM-SensorInformationContainer

/// `SensorInformationContainer ::= SEQUENCE SIZE(1..128, ...) OF SensorInformation`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=128", extensible))]
pub struct SensorInformationContainer(pub SequenceOf<SensorInformation>);

/// `SensorInformation` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct SensorInformation {
    /// Unique within the CPM; perceived objects refer to it in `sensorIdList`.
    pub sensor_id: Identifier1B,
    pub sensor_type: SensorType,
    pub perception_region_shape: Option<Shape>,
    pub perception_region_confidence: Option<ConfidenceLevel>,
    pub shadowing_applies: bool,
}

impl SensorInformation {
    pub fn new(
        sensor_id: Identifier1B,
        sensor_type: SensorType,
        perception_region_shape: Option<Shape>,
        perception_region_confidence: Option<ConfidenceLevel>,
        shadowing_applies: bool,
    ) -> Self {
        Self { sensor_id, sensor_type, perception_region_shape, perception_region_confidence, shadowing_applies }
    }
}

// ---------------------------------------------------------------- CPM-PerceptionRegionContainer

/// `PerceivedObjectIds ::= SEQUENCE SIZE(0..255, ...) OF Identifier2B`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("0..=255", extensible))]
pub struct PerceivedObjectIds(pub SequenceOf<Identifier2B>);

/// `PerceptionRegion` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct PerceptionRegion {
    pub measurement_delta_time: DeltaTimeMilliSecondSigned,
    pub perception_region_confidence: ConfidenceLevel,
    pub perception_region_shape: Shape,
    pub shadowing_applies: bool,
    pub sensor_id_list: Option<SequenceOfIdentifier1B>,
    pub number_of_perceived_objects: Option<CardinalNumber1B>,
    pub perceived_object_ids: Option<PerceivedObjectIds>,
}

impl PerceptionRegion {
    pub fn new(
        measurement_delta_time: DeltaTimeMilliSecondSigned,
        perception_region_confidence: ConfidenceLevel,
        perception_region_shape: Shape,
        shadowing_applies: bool,
    ) -> Self {
        Self {
            measurement_delta_time,
            perception_region_confidence,
            perception_region_shape,
            shadowing_applies,
            sensor_id_list: None,
            number_of_perceived_objects: None,
            perceived_object_ids: None,
        }
    }
}

/// `PerceptionRegionContainer ::= SEQUENCE SIZE(1..256, ...) OF PerceptionRegion`.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("1..=256", extensible))]
pub struct PerceptionRegionContainer(pub SequenceOf<PerceptionRegion>);

// ---------------------------------------------------------------- CPM-PerceivedObjectContainer

/// `PerceivedObjects ::= SEQUENCE SIZE(0..255, ...) OF PerceivedObject (WITH
/// COMPONENTS {..., objectId PRESENT})`; the inner constraint is not
/// PER-visible (objectId keeps its presence bit), [`SimpleCpm::from_cpm`]
/// enforces it.
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(delegate, size("0..=255", extensible))]
pub struct PerceivedObjects(pub SequenceOf<PerceivedObject>);

/// `PerceivedObjectContainer` (extensible).
#[derive(AsnType, Decode, Encode, Debug, Clone, PartialEq, Eq, Hash)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct PerceivedObjectContainer {
    /// Objects known to the sender at generation time (may exceed the list
    /// when the CPM is segmented).
    pub number_of_perceived_objects: CardinalNumber1B,
    pub perceived_objects: PerceivedObjects,
}

impl PerceivedObjectContainer {
    pub fn new(number_of_perceived_objects: CardinalNumber1B, perceived_objects: PerceivedObjects) -> Self {
        Self { number_of_perceived_objects, perceived_objects }
    }
}

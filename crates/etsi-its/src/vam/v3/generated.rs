// @generated: the VRU Awareness Message of protocolVersion 3 (ETSI TS 103 300-3 V2.2.1,
// VAM-PDU-Descriptions major-version-3 minor-version-1) and the Common Data Dictionary types
// it uses, compiled by rasn-compiler 0.16.0 from the ASN.1 that
// tools/codecs/asn1tools_to_asn1.py (asn1tools 0.169.0) writes out of ETSI's text as the
// PyPI package v2xflexstack 0.11.2 ships it, formatted by rustfmt.
// Do not edit: `make codecs` regenerates it (tools/codecs/generate.sh), `make codecs-check`
// compares.

#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, unused, clippy::too_many_arguments)]
pub mod vam_pdu_descriptions {
    extern crate alloc;
    use core::borrow::Borrow;
    use rasn::prelude::*;
    use std::sync::LazyLock;
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum AccelerationChange {
        accelerate = 0,
        decelerate = 1,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct AccelerationChangeIndication {
        #[rasn(identifier = "accelOrDecel")]
        pub accel_or_decel: AccelerationChange,
        #[rasn(identifier = "actionDeltaTime")]
        pub action_delta_time: DeltaTimeTenthOfSecond,
    }
    impl AccelerationChangeIndication {
        pub fn new(accel_or_decel: AccelerationChange, action_delta_time: DeltaTimeTenthOfSecond) -> Self {
            Self { accel_or_decel, action_delta_time }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=102"))]
    pub struct AccelerationConfidence(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct Altitude {
        #[rasn(identifier = "altitudeValue")]
        pub altitude_value: AltitudeValue,
        #[rasn(identifier = "altitudeConfidence")]
        pub altitude_confidence: AltitudeConfidence,
    }
    impl Altitude {
        pub fn new(altitude_value: AltitudeValue, altitude_confidence: AltitudeConfidence) -> Self {
            Self { altitude_value, altitude_confidence }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum AltitudeConfidence {
        #[rasn(identifier = "alt-000-01")]
        alt_000_01 = 0,
        #[rasn(identifier = "alt-000-02")]
        alt_000_02 = 1,
        #[rasn(identifier = "alt-000-05")]
        alt_000_05 = 2,
        #[rasn(identifier = "alt-000-10")]
        alt_000_10 = 3,
        #[rasn(identifier = "alt-000-20")]
        alt_000_20 = 4,
        #[rasn(identifier = "alt-000-50")]
        alt_000_50 = 5,
        #[rasn(identifier = "alt-001-00")]
        alt_001_00 = 6,
        #[rasn(identifier = "alt-002-00")]
        alt_002_00 = 7,
        #[rasn(identifier = "alt-005-00")]
        alt_005_00 = 8,
        #[rasn(identifier = "alt-010-00")]
        alt_010_00 = 9,
        #[rasn(identifier = "alt-020-00")]
        alt_020_00 = 10,
        #[rasn(identifier = "alt-050-00")]
        alt_050_00 = 11,
        #[rasn(identifier = "alt-100-00")]
        alt_100_00 = 12,
        #[rasn(identifier = "alt-200-00")]
        alt_200_00 = 13,
        outOfRange = 14,
        unavailable = 15,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("-100000..=800001"))]
    pub struct AltitudeValue(pub i32);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("1..=127"))]
    pub struct AngleConfidence(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct BasicContainer {
        #[rasn(identifier = "stationType")]
        pub station_type: TrafficParticipantType,
        #[rasn(identifier = "referencePosition")]
        pub reference_position: ReferencePositionWithConfidence,
    }
    impl BasicContainer {
        pub fn new(station_type: TrafficParticipantType, reference_position: ReferencePositionWithConfidence) -> Self {
            Self { station_type, reference_position }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=255"))]
    pub struct CardinalNumber1B(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct CartesianAngle {
        pub value: CartesianAngleValue,
        pub confidence: AngleConfidence,
    }
    impl CartesianAngle {
        pub fn new(value: CartesianAngleValue, confidence: AngleConfidence) -> Self {
            Self { value, confidence }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=3601"))]
    pub struct CartesianAngleValue(pub u16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("-32768..=32767"))]
    pub struct CartesianCoordinate(pub i16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("-3094..=1001"))]
    pub struct CartesianCoordinateSmall(pub i16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct CartesianPosition3d {
        #[rasn(identifier = "xCoordinate")]
        pub x_coordinate: CartesianCoordinate,
        #[rasn(identifier = "yCoordinate")]
        pub y_coordinate: CartesianCoordinate,
        #[rasn(identifier = "zCoordinate")]
        pub z_coordinate: Option<CartesianCoordinate>,
    }
    impl CartesianPosition3d {
        pub fn new(
            x_coordinate: CartesianCoordinate,
            y_coordinate: CartesianCoordinate,
            z_coordinate: Option<CartesianCoordinate>,
        ) -> Self {
            Self { x_coordinate, y_coordinate, z_coordinate }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct CircularShape {
        #[rasn(identifier = "shapeReferencePoint")]
        pub shape_reference_point: Option<CartesianPosition3d>,
        pub radius: StandardLength12b,
        pub height: Option<StandardLength12b>,
    }
    impl CircularShape {
        pub fn new(
            shape_reference_point: Option<CartesianPosition3d>,
            radius: StandardLength12b,
            height: Option<StandardLength12b>,
        ) -> Self {
            Self { shape_reference_point, radius, height }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct ClusterBreakupInfo {
        #[rasn(identifier = "clusterBreakupReason")]
        pub cluster_breakup_reason: ClusterBreakupReason,
        #[rasn(identifier = "breakupTime")]
        pub breakup_time: DeltaTimeQuarterSecond,
    }
    impl ClusterBreakupInfo {
        pub fn new(cluster_breakup_reason: ClusterBreakupReason, breakup_time: DeltaTimeQuarterSecond) -> Self {
            Self { cluster_breakup_reason, breakup_time }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum ClusterBreakupReason {
        notProvided = 0,
        clusteringPurposeCompleted = 1,
        leaderMovedOutOfClusterBoundingBox = 2,
        joiningAnotherCluster = 3,
        enteringLowRiskAreaBasedOnMaps = 4,
        receptionOfCpmContainingCluster = 5,
        max = 15,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct ClusterJoinInfo {
        #[rasn(identifier = "clusterId")]
        pub cluster_id: Identifier1B,
        #[rasn(identifier = "joinTime")]
        pub join_time: DeltaTimeQuarterSecond,
    }
    impl ClusterJoinInfo {
        pub fn new(cluster_id: Identifier1B, join_time: DeltaTimeQuarterSecond) -> Self {
            Self { cluster_id, join_time }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct ClusterLeaveInfo {
        #[rasn(identifier = "clusterId")]
        pub cluster_id: Identifier1B,
        #[rasn(identifier = "clusterLeaveReason")]
        pub cluster_leave_reason: ClusterLeaveReason,
    }
    impl ClusterLeaveInfo {
        pub fn new(cluster_id: Identifier1B, cluster_leave_reason: ClusterLeaveReason) -> Self {
            Self { cluster_id, cluster_leave_reason }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum ClusterLeaveReason {
        notProvided = 0,
        clusterLeaderLost = 1,
        clusterDisbandedByLeader = 2,
        outOfClusterBoundingBox = 3,
        outOfClusterSpeedRange = 4,
        joiningAnotherCluster = 5,
        cancelledJoin = 6,
        failedJoin = 7,
        safetyCondition = 8,
        max = 15,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct Curvature {
        #[rasn(identifier = "curvatureValue")]
        pub curvature_value: CurvatureValue,
        #[rasn(identifier = "curvatureConfidence")]
        pub curvature_confidence: CurvatureConfidence,
    }
    impl Curvature {
        pub fn new(curvature_value: CurvatureValue, curvature_confidence: CurvatureConfidence) -> Self {
            Self { curvature_value, curvature_confidence }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    #[non_exhaustive]
    pub enum CurvatureCalculationMode {
        yawRateUsed = 0,
        yawRateNotUsed = 1,
        unavailable = 2,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum CurvatureConfidence {
        #[rasn(identifier = "onePerMeter-0-00002")]
        onePerMeter_0_00002 = 0,
        #[rasn(identifier = "onePerMeter-0-0001")]
        onePerMeter_0_0001 = 1,
        #[rasn(identifier = "onePerMeter-0-0005")]
        onePerMeter_0_0005 = 2,
        #[rasn(identifier = "onePerMeter-0-002")]
        onePerMeter_0_002 = 3,
        #[rasn(identifier = "onePerMeter-0-01")]
        onePerMeter_0_01 = 4,
        #[rasn(identifier = "onePerMeter-0-1")]
        onePerMeter_0_1 = 5,
        outOfRange = 6,
        unavailable = 7,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("-1023..=1023"))]
    pub struct CurvatureValue(pub i16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("-12700..=12800"))]
    pub struct DeltaAltitude(pub i16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("-131071..=131072"))]
    pub struct DeltaLatitude(pub i32);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("-131071..=131072"))]
    pub struct DeltaLongitude(pub i32);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct DeltaReferencePosition {
        #[rasn(identifier = "deltaLatitude")]
        pub delta_latitude: DeltaLatitude,
        #[rasn(identifier = "deltaLongitude")]
        pub delta_longitude: DeltaLongitude,
        #[rasn(identifier = "deltaAltitude")]
        pub delta_altitude: DeltaAltitude,
    }
    impl DeltaReferencePosition {
        pub fn new(
            delta_latitude: DeltaLatitude,
            delta_longitude: DeltaLongitude,
            delta_altitude: DeltaAltitude,
        ) -> Self {
            Self { delta_latitude, delta_longitude, delta_altitude }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("1..=255"))]
    pub struct DeltaTimeQuarterSecond(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=127"))]
    pub struct DeltaTimeTenthOfSecond(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct EllipticalShape {
        #[rasn(identifier = "shapeReferencePoint")]
        pub shape_reference_point: Option<CartesianPosition3d>,
        #[rasn(identifier = "semiMajorAxisLength")]
        pub semi_major_axis_length: StandardLength12b,
        #[rasn(identifier = "semiMinorAxisLength")]
        pub semi_minor_axis_length: StandardLength12b,
        pub orientation: Option<Wgs84AngleValue>,
        pub height: Option<StandardLength12b>,
    }
    impl EllipticalShape {
        pub fn new(
            shape_reference_point: Option<CartesianPosition3d>,
            semi_major_axis_length: StandardLength12b,
            semi_minor_axis_length: StandardLength12b,
            orientation: Option<Wgs84AngleValue>,
            height: Option<StandardLength12b>,
        ) -> Self {
            Self { shape_reference_point, semi_major_axis_length, semi_minor_axis_length, orientation, height }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate)]
    pub struct ExteriorLights(pub FixedBitString<8usize>);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(choice, automatic_tags)]
    #[non_exhaustive]
    pub enum GeneralizedLanePosition {
        trafficLanePosition(LanePosition),
        nonTrafficLanePosition(LanePositionAndType),
        trafficIslandPosition(TrafficIslandPosition),
        mapPosition(MapPosition),
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=65535"))]
    pub struct GenerationDeltaTime(pub u16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct HeadingChangeIndication {
        pub direction: TurningDirection,
        #[rasn(identifier = "actionDeltaTime")]
        pub action_delta_time: DeltaTimeTenthOfSecond,
    }
    impl HeadingChangeIndication {
        pub fn new(direction: TurningDirection, action_delta_time: DeltaTimeTenthOfSecond) -> Self {
            Self { direction, action_delta_time }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=3601"))]
    pub struct HeadingValue(pub u16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=255"))]
    pub struct Identifier1B(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=65535"))]
    pub struct Identifier2B(pub u16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct IntersectionReferenceId {
        pub region: Option<Identifier2B>,
        pub id: Identifier2B,
    }
    impl IntersectionReferenceId {
        pub fn new(region: Option<Identifier2B>, id: Identifier2B) -> Self {
            Self { region, id }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct ItsPduHeader {
        #[rasn(identifier = "protocolVersion")]
        pub protocol_version: OrdinalNumber1B,
        #[rasn(identifier = "messageId")]
        pub message_id: MessageId,
        #[rasn(identifier = "stationId")]
        pub station_id: StationId,
    }
    impl ItsPduHeader {
        pub fn new(protocol_version: OrdinalNumber1B, message_id: MessageId, station_id: StationId) -> Self {
            Self { protocol_version, message_id, station_id }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate)]
    pub struct ItsPduHeaderVam(pub ItsPduHeader);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("-1..=14"))]
    pub struct LanePosition(pub i8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct LanePositionAndType {
        #[rasn(identifier = "transversalPosition")]
        pub transversal_position: LanePosition,
        #[rasn(identifier = "laneType")]
        pub lane_type: LaneType,
    }
    impl LanePositionAndType {
        pub fn new(transversal_position: LanePosition, lane_type: LaneType) -> Self {
            Self { transversal_position, lane_type }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=31"))]
    pub struct LaneType(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct LateralAcceleration {
        #[rasn(identifier = "lateralAccelerationValue")]
        pub lateral_acceleration_value: LateralAccelerationValue,
        #[rasn(identifier = "lateralAccelerationConfidence")]
        pub lateral_acceleration_confidence: AccelerationConfidence,
    }
    impl LateralAcceleration {
        pub fn new(
            lateral_acceleration_value: LateralAccelerationValue,
            lateral_acceleration_confidence: AccelerationConfidence,
        ) -> Self {
            Self { lateral_acceleration_value, lateral_acceleration_confidence }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("-160..=161"))]
    pub struct LateralAccelerationValue(pub i16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("-900000000..=900000001"))]
    pub struct Latitude(pub i32);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("-1800000000..=1800000001"))]
    pub struct Longitude(pub i32);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct LongitudinalAcceleration {
        #[rasn(identifier = "longitudinalAccelerationValue")]
        pub longitudinal_acceleration_value: LongitudinalAccelerationValue,
        #[rasn(identifier = "longitudinalAccelerationConfidence")]
        pub longitudinal_acceleration_confidence: AccelerationConfidence,
    }
    impl LongitudinalAcceleration {
        pub fn new(
            longitudinal_acceleration_value: LongitudinalAccelerationValue,
            longitudinal_acceleration_confidence: AccelerationConfidence,
        ) -> Self {
            Self { longitudinal_acceleration_value, longitudinal_acceleration_confidence }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("-160..=161"))]
    pub struct LongitudinalAccelerationValue(pub i16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct LongitudinalLanePosition {
        #[rasn(identifier = "longitudinalLanePositionValue")]
        pub longitudinal_lane_position_value: LongitudinalLanePositionValue,
        #[rasn(identifier = "longitudinalLanePositionConfidence")]
        pub longitudinal_lane_position_confidence: LongitudinalLanePositionConfidence,
    }
    impl LongitudinalLanePosition {
        pub fn new(
            longitudinal_lane_position_value: LongitudinalLanePositionValue,
            longitudinal_lane_position_confidence: LongitudinalLanePositionConfidence,
        ) -> Self {
            Self { longitudinal_lane_position_value, longitudinal_lane_position_confidence }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=1023"))]
    pub struct LongitudinalLanePositionConfidence(pub u16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=32767"))]
    pub struct LongitudinalLanePositionValue(pub u16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct MapPosition {
        #[rasn(identifier = "mapReference")]
        pub map_reference: Option<MapReference>,
        #[rasn(identifier = "laneId")]
        pub lane_id: Option<Identifier1B>,
        #[rasn(identifier = "connectionId")]
        pub connection_id: Option<Identifier1B>,
        #[rasn(identifier = "longitudinalLanePosition")]
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
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(choice, automatic_tags)]
    pub enum MapReference {
        roadsegment(RoadSegmentReferenceId),
        intersection(IntersectionReferenceId),
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=255"))]
    pub struct MessageId(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=255"))]
    pub struct OrdinalNumber1B(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("1..=65535", extensible))]
    pub struct PathDeltaTime(pub Integer);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, size("40"))]
    pub struct PathHistory(pub SequenceOf<PathPoint>);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct PathPoint {
        #[rasn(identifier = "pathPosition")]
        pub path_position: DeltaReferencePosition,
        #[rasn(identifier = "pathDeltaTime")]
        pub path_delta_time: Option<PathDeltaTime>,
    }
    impl PathPoint {
        pub fn new(path_position: DeltaReferencePosition, path_delta_time: Option<PathDeltaTime>) -> Self {
            Self { path_position, path_delta_time }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct PathPointPredicted {
        #[rasn(identifier = "deltaLatitude")]
        pub delta_latitude: DeltaLatitude,
        #[rasn(identifier = "deltaLongitude")]
        pub delta_longitude: DeltaLongitude,
        #[rasn(identifier = "horizontalPositionConfidence")]
        pub horizontal_position_confidence: Option<PosConfidenceEllipse>,
        #[rasn(default = "path_point_predicted_delta_altitude_default", identifier = "deltaAltitude")]
        pub delta_altitude: DeltaAltitude,
        #[rasn(default = "path_point_predicted_altitude_confidence_default", identifier = "altitudeConfidence")]
        pub altitude_confidence: AltitudeConfidence,
        #[rasn(identifier = "pathDeltaTime")]
        pub path_delta_time: DeltaTimeTenthOfSecond,
    }
    impl PathPointPredicted {
        pub fn new(
            delta_latitude: DeltaLatitude,
            delta_longitude: DeltaLongitude,
            horizontal_position_confidence: Option<PosConfidenceEllipse>,
            delta_altitude: DeltaAltitude,
            altitude_confidence: AltitudeConfidence,
            path_delta_time: DeltaTimeTenthOfSecond,
        ) -> Self {
            Self {
                delta_latitude,
                delta_longitude,
                horizontal_position_confidence,
                delta_altitude,
                altitude_confidence,
                path_delta_time,
            }
        }
    }
    fn path_point_predicted_delta_altitude_default() -> DeltaAltitude {
        DeltaAltitude(12800)
    }
    fn path_point_predicted_altitude_confidence_default() -> AltitudeConfidence {
        AltitudeConfidence::unavailable
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, size("0..=15", extensible))]
    pub struct PathPredicted(pub SequenceOf<PathPointPredicted>);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct PolygonalShape {
        #[rasn(identifier = "shapeReferencePoint")]
        pub shape_reference_point: Option<CartesianPosition3d>,
        #[rasn(size("3..=16", extensible))]
        pub polygon: SequenceOfCartesianPosition3d,
        pub height: Option<StandardLength12b>,
    }
    impl PolygonalShape {
        pub fn new(
            shape_reference_point: Option<CartesianPosition3d>,
            polygon: SequenceOfCartesianPosition3d,
            height: Option<StandardLength12b>,
        ) -> Self {
            Self { shape_reference_point, polygon, height }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct PosConfidenceEllipse {
        #[rasn(identifier = "semiMajorConfidence")]
        pub semi_major_confidence: SemiAxisLength,
        #[rasn(identifier = "semiMinorConfidence")]
        pub semi_minor_confidence: SemiAxisLength,
        #[rasn(identifier = "semiMajorOrientation")]
        pub semi_major_orientation: HeadingValue,
    }
    impl PosConfidenceEllipse {
        pub fn new(
            semi_major_confidence: SemiAxisLength,
            semi_minor_confidence: SemiAxisLength,
            semi_major_orientation: HeadingValue,
        ) -> Self {
            Self { semi_major_confidence, semi_minor_confidence, semi_major_orientation }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct PositionConfidenceEllipse {
        #[rasn(identifier = "semiMajorAxisLength")]
        pub semi_major_axis_length: SemiAxisLength,
        #[rasn(identifier = "semiMinorAxisLength")]
        pub semi_minor_axis_length: SemiAxisLength,
        #[rasn(identifier = "semiMajorAxisOrientation")]
        pub semi_major_axis_orientation: Wgs84AngleValue,
    }
    impl PositionConfidenceEllipse {
        pub fn new(
            semi_major_axis_length: SemiAxisLength,
            semi_minor_axis_length: SemiAxisLength,
            semi_major_axis_orientation: Wgs84AngleValue,
        ) -> Self {
            Self { semi_major_axis_length, semi_minor_axis_length, semi_major_axis_orientation }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct RadialShape {
        #[rasn(identifier = "shapeReferencePoint")]
        pub shape_reference_point: Option<CartesianPosition3d>,
        pub range: StandardLength12b,
        #[rasn(identifier = "stationaryHorizontalOpeningAngleStart")]
        pub stationary_horizontal_opening_angle_start: Wgs84AngleValue,
        #[rasn(identifier = "stationaryHorizontalOpeningAngleEnd")]
        pub stationary_horizontal_opening_angle_end: Wgs84AngleValue,
        #[rasn(identifier = "verticalOpeningAngleStart")]
        pub vertical_opening_angle_start: Option<CartesianAngleValue>,
        #[rasn(identifier = "verticalOpeningAngleEnd")]
        pub vertical_opening_angle_end: Option<CartesianAngleValue>,
    }
    impl RadialShape {
        pub fn new(
            shape_reference_point: Option<CartesianPosition3d>,
            range: StandardLength12b,
            stationary_horizontal_opening_angle_start: Wgs84AngleValue,
            stationary_horizontal_opening_angle_end: Wgs84AngleValue,
            vertical_opening_angle_start: Option<CartesianAngleValue>,
            vertical_opening_angle_end: Option<CartesianAngleValue>,
        ) -> Self {
            Self {
                shape_reference_point,
                range,
                stationary_horizontal_opening_angle_start,
                stationary_horizontal_opening_angle_end,
                vertical_opening_angle_start,
                vertical_opening_angle_end,
            }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct RadialShapeDetails {
        pub range: StandardLength12b,
        #[rasn(identifier = "horizontalOpeningAngleStart")]
        pub horizontal_opening_angle_start: CartesianAngleValue,
        #[rasn(identifier = "horizontalOpeningAngleEnd")]
        pub horizontal_opening_angle_end: CartesianAngleValue,
        #[rasn(identifier = "verticalOpeningAngleStart")]
        pub vertical_opening_angle_start: Option<CartesianAngleValue>,
        #[rasn(identifier = "verticalOpeningAngleEnd")]
        pub vertical_opening_angle_end: Option<CartesianAngleValue>,
    }
    impl RadialShapeDetails {
        pub fn new(
            range: StandardLength12b,
            horizontal_opening_angle_start: CartesianAngleValue,
            horizontal_opening_angle_end: CartesianAngleValue,
            vertical_opening_angle_start: Option<CartesianAngleValue>,
            vertical_opening_angle_end: Option<CartesianAngleValue>,
        ) -> Self {
            Self {
                range,
                horizontal_opening_angle_start,
                horizontal_opening_angle_end,
                vertical_opening_angle_start,
                vertical_opening_angle_end,
            }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct RadialShapes {
        #[rasn(identifier = "refPointId")]
        pub ref_point_id: Identifier1B,
        #[rasn(identifier = "xCoordinate")]
        pub x_coordinate: CartesianCoordinateSmall,
        #[rasn(identifier = "yCoordinate")]
        pub y_coordinate: CartesianCoordinateSmall,
        #[rasn(identifier = "zCoordinate")]
        pub z_coordinate: Option<CartesianCoordinateSmall>,
        #[rasn(identifier = "radialShapesList")]
        pub radial_shapes_list: RadialShapesList,
    }
    impl RadialShapes {
        pub fn new(
            ref_point_id: Identifier1B,
            x_coordinate: CartesianCoordinateSmall,
            y_coordinate: CartesianCoordinateSmall,
            z_coordinate: Option<CartesianCoordinateSmall>,
            radial_shapes_list: RadialShapesList,
        ) -> Self {
            Self { ref_point_id, x_coordinate, y_coordinate, z_coordinate, radial_shapes_list }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, size("1..=16", extensible))]
    pub struct RadialShapesList(pub SequenceOf<RadialShapeDetails>);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct RectangularShape {
        #[rasn(identifier = "centerPoint")]
        pub center_point: Option<CartesianPosition3d>,
        #[rasn(identifier = "semiLength")]
        pub semi_length: StandardLength12b,
        #[rasn(identifier = "semiBreadth")]
        pub semi_breadth: StandardLength12b,
        pub orientation: Option<Wgs84AngleValue>,
        pub height: Option<StandardLength12b>,
    }
    impl RectangularShape {
        pub fn new(
            center_point: Option<CartesianPosition3d>,
            semi_length: StandardLength12b,
            semi_breadth: StandardLength12b,
            orientation: Option<Wgs84AngleValue>,
            height: Option<StandardLength12b>,
        ) -> Self {
            Self { center_point, semi_length, semi_breadth, orientation, height }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct ReferencePositionWithConfidence {
        pub latitude: Latitude,
        pub longitude: Longitude,
        #[rasn(identifier = "positionConfidenceEllipse")]
        pub position_confidence_ellipse: PositionConfidenceEllipse,
        pub altitude: Altitude,
    }
    impl ReferencePositionWithConfidence {
        pub fn new(
            latitude: Latitude,
            longitude: Longitude,
            position_confidence_ellipse: PositionConfidenceEllipse,
            altitude: Altitude,
        ) -> Self {
            Self { latitude, longitude, position_confidence_ellipse, altitude }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct RoadSegmentReferenceId {
        pub region: Option<Identifier2B>,
        pub id: Identifier2B,
    }
    impl RoadSegmentReferenceId {
        pub fn new(region: Option<Identifier2B>, id: Identifier2B) -> Self {
            Self { region, id }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct SafeDistanceIndication {
        #[rasn(identifier = "subjectStation")]
        pub subject_station: Option<StationId>,
        #[rasn(identifier = "safeDistanceIndicator")]
        pub safe_distance_indicator: SafeDistanceIndicator,
        #[rasn(identifier = "timeToCollision")]
        pub time_to_collision: Option<DeltaTimeTenthOfSecond>,
    }
    impl SafeDistanceIndication {
        pub fn new(
            subject_station: Option<StationId>,
            safe_distance_indicator: SafeDistanceIndicator,
            time_to_collision: Option<DeltaTimeTenthOfSecond>,
        ) -> Self {
            Self { subject_station, safe_distance_indicator, time_to_collision }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(delegate)]
    pub struct SafeDistanceIndicator(pub bool);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=4095"))]
    pub struct SemiAxisLength(pub u16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, size("1..=16", extensible))]
    pub struct SequenceOfCartesianPosition3d(pub SequenceOf<CartesianPosition3d>);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, size("1..=8", extensible))]
    pub struct SequenceOfSafeDistanceIndication(pub SequenceOf<SafeDistanceIndication>);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, size("1..=8", extensible))]
    pub struct SequenceOfTrajectoryInterceptionIndication(pub SequenceOf<TrajectoryInterceptionIndication>);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(choice, automatic_tags)]
    #[non_exhaustive]
    pub enum Shape {
        rectangular(RectangularShape),
        circular(CircularShape),
        polygonal(PolygonalShape),
        elliptical(EllipticalShape),
        radial(RadialShape),
        radialShapes(RadialShapes),
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct Speed {
        #[rasn(identifier = "speedValue")]
        pub speed_value: SpeedValue,
        #[rasn(identifier = "speedConfidence")]
        pub speed_confidence: SpeedConfidence,
    }
    impl Speed {
        pub fn new(speed_value: SpeedValue, speed_confidence: SpeedConfidence) -> Self {
            Self { speed_value, speed_confidence }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("1..=127"))]
    pub struct SpeedConfidence(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=16383"))]
    pub struct SpeedValue(pub u16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct StabilityChangeIndication {
        #[rasn(identifier = "lossProbability")]
        pub loss_probability: StabilityLossProbability,
        #[rasn(identifier = "actionDeltaTime")]
        pub action_delta_time: DeltaTimeTenthOfSecond,
    }
    impl StabilityChangeIndication {
        pub fn new(loss_probability: StabilityLossProbability, action_delta_time: DeltaTimeTenthOfSecond) -> Self {
            Self { loss_probability, action_delta_time }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=63"))]
    pub struct StabilityLossProbability(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=4095"))]
    pub struct StandardLength12b(pub u16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=4294967295"))]
    pub struct StationId(pub u32);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct TrafficIslandPosition {
        #[rasn(identifier = "oneSide")]
        pub one_side: LanePositionAndType,
        #[rasn(identifier = "otherSide")]
        pub other_side: LanePositionAndType,
    }
    impl TrafficIslandPosition {
        pub fn new(one_side: LanePositionAndType, other_side: LanePositionAndType) -> Self {
            Self { one_side, other_side }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=255"))]
    pub struct TrafficParticipantType(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=3"))]
    pub struct TrajectoryInterceptionConfidence(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct TrajectoryInterceptionIndication {
        #[rasn(identifier = "subjectStation")]
        pub subject_station: Option<StationId>,
        #[rasn(identifier = "trajectoryInterceptionProbability")]
        pub trajectory_interception_probability: TrajectoryInterceptionProbability,
        #[rasn(identifier = "trajectoryInterceptionConfidence")]
        pub trajectory_interception_confidence: Option<TrajectoryInterceptionConfidence>,
    }
    impl TrajectoryInterceptionIndication {
        pub fn new(
            subject_station: Option<StationId>,
            trajectory_interception_probability: TrajectoryInterceptionProbability,
            trajectory_interception_confidence: Option<TrajectoryInterceptionConfidence>,
        ) -> Self {
            Self { subject_station, trajectory_interception_probability, trajectory_interception_confidence }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=63"))]
    pub struct TrajectoryInterceptionProbability(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum TurningDirection {
        left = 0,
        right = 1,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct VAM {
        pub header: ItsPduHeaderVam,
        pub vam: VruAwareness,
    }
    impl VAM {
        pub fn new(header: ItsPduHeaderVam, vam: VruAwareness) -> Self {
            Self { header, vam }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct VamParameters {
        #[rasn(identifier = "basicContainer")]
        pub basic_container: BasicContainer,
        #[rasn(identifier = "vruHighFrequencyContainer")]
        pub vru_high_frequency_container: VruHighFrequencyContainer,
        #[rasn(identifier = "vruLowFrequencyContainer")]
        pub vru_low_frequency_container: Option<VruLowFrequencyContainer>,
        #[rasn(identifier = "vruClusterInformationContainer")]
        pub vru_cluster_information_container: Option<VruClusterInformationContainer>,
        #[rasn(identifier = "vruClusterOperationContainer")]
        pub vru_cluster_operation_container: Option<VruClusterOperationContainer>,
        #[rasn(identifier = "vruMotionPredictionContainer")]
        pub vru_motion_prediction_container: Option<VruMotionPredictionContainer>,
    }
    impl VamParameters {
        pub fn new(
            basic_container: BasicContainer,
            vru_high_frequency_container: VruHighFrequencyContainer,
            vru_low_frequency_container: Option<VruLowFrequencyContainer>,
            vru_cluster_information_container: Option<VruClusterInformationContainer>,
            vru_cluster_operation_container: Option<VruClusterOperationContainer>,
            vru_motion_prediction_container: Option<VruMotionPredictionContainer>,
        ) -> Self {
            Self {
                basic_container,
                vru_high_frequency_container,
                vru_low_frequency_container,
                vru_cluster_information_container,
                vru_cluster_operation_container,
                vru_motion_prediction_container,
            }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct VerticalAcceleration {
        #[rasn(identifier = "verticalAccelerationValue")]
        pub vertical_acceleration_value: VerticalAccelerationValue,
        #[rasn(identifier = "verticalAccelerationConfidence")]
        pub vertical_acceleration_confidence: AccelerationConfidence,
    }
    impl VerticalAcceleration {
        pub fn new(
            vertical_acceleration_value: VerticalAccelerationValue,
            vertical_acceleration_confidence: AccelerationConfidence,
        ) -> Self {
            Self { vertical_acceleration_value, vertical_acceleration_confidence }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("-160..=161"))]
    pub struct VerticalAccelerationValue(pub i16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct VruAwareness {
        #[rasn(identifier = "generationDeltaTime")]
        pub generation_delta_time: GenerationDeltaTime,
        #[rasn(identifier = "vamParameters")]
        pub vam_parameters: VamParameters,
    }
    impl VruAwareness {
        pub fn new(generation_delta_time: GenerationDeltaTime, vam_parameters: VamParameters) -> Self {
            Self { generation_delta_time, vam_parameters }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct VruClusterInformation {
        #[rasn(identifier = "clusterId")]
        pub cluster_id: Option<Identifier1B>,
        #[rasn(identifier = "clusterBoundingBoxShape")]
        pub cluster_bounding_box_shape: Option<Shape>,
        #[rasn(identifier = "clusterCardinalitySize")]
        pub cluster_cardinality_size: CardinalNumber1B,
        #[rasn(identifier = "clusterProfiles")]
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
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct VruClusterInformationContainer {
        #[rasn(identifier = "vruClusterInformation")]
        pub vru_cluster_information: VruClusterInformation,
    }
    impl VruClusterInformationContainer {
        pub fn new(vru_cluster_information: VruClusterInformation) -> Self {
            Self { vru_cluster_information }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct VruClusterOperationContainer {
        #[rasn(identifier = "clusterJoinInfo")]
        pub cluster_join_info: Option<ClusterJoinInfo>,
        #[rasn(identifier = "clusterLeaveInfo")]
        pub cluster_leave_info: Option<ClusterLeaveInfo>,
        #[rasn(identifier = "clusterBreakupInfo")]
        pub cluster_breakup_info: Option<ClusterBreakupInfo>,
        #[rasn(identifier = "clusterIdChangeTimeInfo")]
        pub cluster_id_change_time_info: Option<DeltaTimeQuarterSecond>,
    }
    impl VruClusterOperationContainer {
        pub fn new(
            cluster_join_info: Option<ClusterJoinInfo>,
            cluster_leave_info: Option<ClusterLeaveInfo>,
            cluster_breakup_info: Option<ClusterBreakupInfo>,
            cluster_id_change_time_info: Option<DeltaTimeQuarterSecond>,
        ) -> Self {
            Self { cluster_join_info, cluster_leave_info, cluster_breakup_info, cluster_id_change_time_info }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate)]
    pub struct VruClusterProfiles(pub FixedBitString<4usize>);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum VruDeviceUsage {
        unavailable = 0,
        other = 1,
        idle = 2,
        listeningToAudio = 3,
        typing = 4,
        calling = 5,
        playingGames = 6,
        reading = 7,
        viewing = 8,
        max = 255,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum VruEnvironment {
        unavailable = 0,
        intersectionCrossing = 1,
        zebraCrossing = 2,
        sidewalk = 3,
        onVehicleRoad = 4,
        protectedGeographicArea = 5,
        max = 255,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct VruExteriorLights {
        pub vehicular: ExteriorLights,
        #[rasn(identifier = "vruSpecific")]
        pub vru_specific: VruSpecificExteriorLights,
    }
    impl VruExteriorLights {
        pub fn new(vehicular: ExteriorLights, vru_specific: VruSpecificExteriorLights) -> Self {
            Self { vehicular, vru_specific }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct VruHighFrequencyContainer {
        pub heading: Wgs84Angle,
        pub speed: Speed,
        #[rasn(identifier = "longitudinalAcceleration")]
        pub longitudinal_acceleration: LongitudinalAcceleration,
        pub curvature: Option<Curvature>,
        #[rasn(identifier = "curvatureCalculationMode")]
        pub curvature_calculation_mode: Option<CurvatureCalculationMode>,
        #[rasn(identifier = "yawRate")]
        pub yaw_rate: Option<YawRate>,
        #[rasn(identifier = "lateralAcceleration")]
        pub lateral_acceleration: Option<LateralAcceleration>,
        #[rasn(identifier = "verticalAcceleration")]
        pub vertical_acceleration: Option<VerticalAcceleration>,
        #[rasn(identifier = "vruLanePosition")]
        pub vru_lane_position: Option<GeneralizedLanePosition>,
        pub environment: Option<VruEnvironment>,
        #[rasn(identifier = "movementControl")]
        pub movement_control: Option<VruMovementControl>,
        pub orientation: Option<Wgs84Angle>,
        #[rasn(identifier = "rollAngle")]
        pub roll_angle: Option<CartesianAngle>,
        #[rasn(identifier = "deviceUsage")]
        pub device_usage: Option<VruDeviceUsage>,
    }
    impl VruHighFrequencyContainer {
        pub fn new(
            heading: Wgs84Angle,
            speed: Speed,
            longitudinal_acceleration: LongitudinalAcceleration,
            curvature: Option<Curvature>,
            curvature_calculation_mode: Option<CurvatureCalculationMode>,
            yaw_rate: Option<YawRate>,
            lateral_acceleration: Option<LateralAcceleration>,
            vertical_acceleration: Option<VerticalAcceleration>,
            vru_lane_position: Option<GeneralizedLanePosition>,
            environment: Option<VruEnvironment>,
            movement_control: Option<VruMovementControl>,
            orientation: Option<Wgs84Angle>,
            roll_angle: Option<CartesianAngle>,
            device_usage: Option<VruDeviceUsage>,
        ) -> Self {
            Self {
                heading,
                speed,
                longitudinal_acceleration,
                curvature,
                curvature_calculation_mode,
                yaw_rate,
                lateral_acceleration,
                vertical_acceleration,
                vru_lane_position,
                environment,
                movement_control,
                orientation,
                roll_angle,
                device_usage,
            }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct VruLowFrequencyContainer {
        #[rasn(identifier = "profileAndSubprofile")]
        pub profile_and_subprofile: VruProfileAndSubprofile,
        #[rasn(identifier = "sizeClass")]
        pub size_class: Option<VruSizeClass>,
        #[rasn(identifier = "exteriorLights")]
        pub exterior_lights: Option<VruExteriorLights>,
    }
    impl VruLowFrequencyContainer {
        pub fn new(
            profile_and_subprofile: VruProfileAndSubprofile,
            size_class: Option<VruSizeClass>,
            exterior_lights: Option<VruExteriorLights>,
        ) -> Self {
            Self { profile_and_subprofile, size_class, exterior_lights }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct VruMotionPredictionContainer {
        #[rasn(identifier = "pathHistory")]
        pub path_history: Option<PathHistory>,
        #[rasn(identifier = "pathPrediction")]
        pub path_prediction: Option<PathPredicted>,
        #[rasn(identifier = "safeDistance")]
        pub safe_distance: Option<SequenceOfSafeDistanceIndication>,
        #[rasn(identifier = "trajectoryInterceptionIndication")]
        pub trajectory_interception_indication: Option<SequenceOfTrajectoryInterceptionIndication>,
        #[rasn(identifier = "accelerationChangeIndication")]
        pub acceleration_change_indication: Option<AccelerationChangeIndication>,
        #[rasn(identifier = "headingChangeIndication")]
        pub heading_change_indication: Option<HeadingChangeIndication>,
        #[rasn(identifier = "stabilityChangeIndication")]
        pub stability_change_indication: Option<StabilityChangeIndication>,
    }
    impl VruMotionPredictionContainer {
        pub fn new(
            path_history: Option<PathHistory>,
            path_prediction: Option<PathPredicted>,
            safe_distance: Option<SequenceOfSafeDistanceIndication>,
            trajectory_interception_indication: Option<SequenceOfTrajectoryInterceptionIndication>,
            acceleration_change_indication: Option<AccelerationChangeIndication>,
            heading_change_indication: Option<HeadingChangeIndication>,
            stability_change_indication: Option<StabilityChangeIndication>,
        ) -> Self {
            Self {
                path_history,
                path_prediction,
                safe_distance,
                trajectory_interception_indication,
                acceleration_change_indication,
                heading_change_indication,
                stability_change_indication,
            }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum VruMovementControl {
        unavailable = 0,
        braking = 1,
        hardBraking = 2,
        stopPedaling = 3,
        brakingAndStopPedaling = 4,
        hardBrakingAndStopPedaling = 5,
        noReaction = 6,
        max = 255,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(choice, automatic_tags)]
    #[non_exhaustive]
    pub enum VruProfileAndSubprofile {
        pedestrian(VruSubProfilePedestrian),
        bicyclistAndLightVruVehicle(VruSubProfileBicyclist),
        motorcyclist(VruSubProfileMotorcyclist),
        animal(VruSubProfileAnimal),
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum VruSizeClass {
        unavailable = 0,
        low = 1,
        medium = 2,
        high = 3,
        max = 15,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate)]
    pub struct VruSpecificExteriorLights(pub FixedBitString<8usize>);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum VruSubProfileAnimal {
        unavailable = 0,
        #[rasn(identifier = "wild-animal")]
        wild_animal = 1,
        #[rasn(identifier = "farm-animal")]
        farm_animal = 2,
        #[rasn(identifier = "service-animal")]
        service_animal = 3,
        max = 15,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum VruSubProfileBicyclist {
        unavailable = 0,
        bicyclist = 1,
        #[rasn(identifier = "wheelchair-user")]
        wheelchair_user = 2,
        #[rasn(identifier = "horse-and-rider")]
        horse_and_rider = 3,
        rollerskater = 4,
        #[rasn(identifier = "e-scooter")]
        e_scooter = 5,
        #[rasn(identifier = "personal-transporter")]
        personal_transporter = 6,
        pedelec = 7,
        #[rasn(identifier = "speed-pedelec")]
        speed_pedelec = 8,
        max = 15,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum VruSubProfileMotorcyclist {
        unavailable = 0,
        moped = 1,
        motorcycle = 2,
        #[rasn(identifier = "motorcycle-and-sidecar-right")]
        motorcycle_and_sidecar_right = 3,
        #[rasn(identifier = "motorcycle-and-sidecar-left")]
        motorcycle_and_sidecar_left = 4,
        max = 15,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum VruSubProfilePedestrian {
        unavailable = 0,
        #[rasn(identifier = "ordinary-pedestrian")]
        ordinary_pedestrian = 1,
        #[rasn(identifier = "road-worker")]
        road_worker = 2,
        #[rasn(identifier = "first-responder")]
        first_responder = 3,
        max = 15,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct Wgs84Angle {
        pub value: Wgs84AngleValue,
        pub confidence: Wgs84AngleConfidence,
    }
    impl Wgs84Angle {
        pub fn new(value: Wgs84AngleValue, confidence: Wgs84AngleConfidence) -> Self {
            Self { value, confidence }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("1..=127"))]
    pub struct Wgs84AngleConfidence(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=3601"))]
    pub struct Wgs84AngleValue(pub u16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct YawRate {
        #[rasn(identifier = "yawRateValue")]
        pub yaw_rate_value: YawRateValue,
        #[rasn(identifier = "yawRateConfidence")]
        pub yaw_rate_confidence: YawRateConfidence,
    }
    impl YawRate {
        pub fn new(yaw_rate_value: YawRateValue, yaw_rate_confidence: YawRateConfidence) -> Self {
            Self { yaw_rate_value, yaw_rate_confidence }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum YawRateConfidence {
        #[rasn(identifier = "degSec-000-01")]
        degSec_000_01 = 0,
        #[rasn(identifier = "degSec-000-05")]
        degSec_000_05 = 1,
        #[rasn(identifier = "degSec-000-10")]
        degSec_000_10 = 2,
        #[rasn(identifier = "degSec-001-00")]
        degSec_001_00 = 3,
        #[rasn(identifier = "degSec-005-00")]
        degSec_005_00 = 4,
        #[rasn(identifier = "degSec-010-00")]
        degSec_010_00 = 5,
        #[rasn(identifier = "degSec-100-00")]
        degSec_100_00 = 6,
        outOfRange = 7,
        unavailable = 8,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("-32766..=32767"))]
    pub struct YawRateValue(pub i16);
}

// @generated: the VRU Awareness Message (ETSI TS 103 300-3 V2.1.1) and the types it uses,
// compiled by rasn-compiler 0.16.0 from the ASN.1 that tools/codecs/pycrate_to_asn1.py
// writes out of pycrate 0.8.1 (pycrate_asn1dir.ITS_VAM_3), formatted by rustfmt.
// Do not edit: `make codecs` regenerates it (tools/codecs/generate.sh), `make codecs-check`
// compares.

#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, unused, clippy::too_many_arguments)]
pub mod cam_pdu_descriptions {
    extern crate alloc;
    use core::borrow::Borrow;
    use rasn::prelude::*;
    use std::sync::LazyLock;
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=65535"))]
    pub struct GenerationDeltaTime(pub u16);
}
#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, unused, clippy::too_many_arguments)]
pub mod dsrc {
    extern crate alloc;
    use super::its_container::{Latitude, Longitude};
    use core::borrow::Borrow;
    use rasn::prelude::*;
    use std::sync::LazyLock;
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=65535"))]
    pub struct IntersectionID(pub u16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct IntersectionReferenceID {
        pub region: Option<RoadRegulatorID>,
        pub id: IntersectionID,
    }
    impl IntersectionReferenceID {
        pub fn new(region: Option<RoadRegulatorID>, id: IntersectionID) -> Self {
            Self { region, id }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=255"))]
    pub struct LaneID(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags, identifier = "Node-LLmD-64b")]
    pub struct NodeLLmD64b {
        pub lon: Longitude,
        pub lat: Latitude,
    }
    impl NodeLLmD64b {
        pub fn new(lon: Longitude, lat: Latitude) -> Self {
            Self { lon, lat }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags, identifier = "Node-XY-20b")]
    pub struct NodeXY20b {
        pub x: OffsetB10,
        pub y: OffsetB10,
    }
    impl NodeXY20b {
        pub fn new(x: OffsetB10, y: OffsetB10) -> Self {
            Self { x, y }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags, identifier = "Node-XY-22b")]
    pub struct NodeXY22b {
        pub x: OffsetB11,
        pub y: OffsetB11,
    }
    impl NodeXY22b {
        pub fn new(x: OffsetB11, y: OffsetB11) -> Self {
            Self { x, y }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags, identifier = "Node-XY-24b")]
    pub struct NodeXY24b {
        pub x: OffsetB12,
        pub y: OffsetB12,
    }
    impl NodeXY24b {
        pub fn new(x: OffsetB12, y: OffsetB12) -> Self {
            Self { x, y }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags, identifier = "Node-XY-26b")]
    pub struct NodeXY26b {
        pub x: OffsetB13,
        pub y: OffsetB13,
    }
    impl NodeXY26b {
        pub fn new(x: OffsetB13, y: OffsetB13) -> Self {
            Self { x, y }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags, identifier = "Node-XY-28b")]
    pub struct NodeXY28b {
        pub x: OffsetB14,
        pub y: OffsetB14,
    }
    impl NodeXY28b {
        pub fn new(x: OffsetB14, y: OffsetB14) -> Self {
            Self { x, y }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags, identifier = "Node-XY-32b")]
    pub struct NodeXY32b {
        pub x: OffsetB16,
        pub y: OffsetB16,
    }
    impl NodeXY32b {
        pub fn new(x: OffsetB16, y: OffsetB16) -> Self {
            Self { x, y }
        }
    }
    #[doc = " Inner type "]
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct NodeOffsetPointXYRegional {
        #[rasn(identifier = "regionId")]
        pub region_id: RegionId,
        #[rasn(identifier = "regExtValue")]
        pub reg_ext_value: Any,
    }
    impl NodeOffsetPointXYRegional {
        pub fn new(region_id: RegionId, reg_ext_value: Any) -> Self {
            Self { region_id, reg_ext_value }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(choice, automatic_tags)]
    pub enum NodeOffsetPointXY {
        #[rasn(identifier = "node-XY1")]
        node_XY1(NodeXY20b),
        #[rasn(identifier = "node-XY2")]
        node_XY2(NodeXY22b),
        #[rasn(identifier = "node-XY3")]
        node_XY3(NodeXY24b),
        #[rasn(identifier = "node-XY4")]
        node_XY4(NodeXY26b),
        #[rasn(identifier = "node-XY5")]
        node_XY5(NodeXY28b),
        #[rasn(identifier = "node-XY6")]
        node_XY6(NodeXY32b),
        #[rasn(identifier = "node-LatLon")]
        node_LatLon(NodeLLmD64b),
        regional(NodeOffsetPointXYRegional),
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, identifier = "Offset-B10", value("-512..=511"))]
    pub struct OffsetB10(pub i16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, identifier = "Offset-B11", value("-1024..=1023"))]
    pub struct OffsetB11(pub i16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, identifier = "Offset-B12", value("-2048..=2047"))]
    pub struct OffsetB12(pub i16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, identifier = "Offset-B13", value("-4096..=4095"))]
    pub struct OffsetB13(pub i16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, identifier = "Offset-B14", value("-8192..=8191"))]
    pub struct OffsetB14(pub i16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, identifier = "Offset-B16", value("-32768..=32767"))]
    pub struct OffsetB16(pub i16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=255"))]
    pub struct RegionId(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=65535"))]
    pub struct RoadRegulatorID(pub u16);
}
#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, unused, clippy::too_many_arguments)]
pub mod its_container {
    extern crate alloc;
    use core::borrow::Borrow;
    use rasn::prelude::*;
    use std::sync::LazyLock;
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
    #[rasn(delegate)]
    pub struct ExteriorLights(pub FixedBitString<8usize>);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct Heading {
        #[rasn(identifier = "headingValue")]
        pub heading_value: HeadingValue,
        #[rasn(identifier = "headingConfidence")]
        pub heading_confidence: HeadingConfidence,
    }
    impl Heading {
        pub fn new(heading_value: HeadingValue, heading_confidence: HeadingConfidence) -> Self {
            Self { heading_value, heading_confidence }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("1..=127"))]
    pub struct HeadingConfidence(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=3601"))]
    pub struct HeadingValue(pub u16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("-1..=14"))]
    pub struct LanePosition(pub i8);
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
    #[rasn(delegate, value("1..=65535", extensible))]
    pub struct PathDeltaTime(pub Integer);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, size("0..=40"))]
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
    pub struct ReferencePosition {
        pub latitude: Latitude,
        pub longitude: Longitude,
        #[rasn(identifier = "positionConfidenceEllipse")]
        pub position_confidence_ellipse: PosConfidenceEllipse,
        pub altitude: Altitude,
    }
    impl ReferencePosition {
        pub fn new(
            latitude: Latitude,
            longitude: Longitude,
            position_confidence_ellipse: PosConfidenceEllipse,
            altitude: Altitude,
        ) -> Self {
            Self { latitude, longitude, position_confidence_ellipse, altitude }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=4095"))]
    pub struct SemiAxisLength(pub u16);
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
    #[rasn(delegate, value("0..=4294967295"))]
    pub struct StationID(pub u32);
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
#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, unused, clippy::too_many_arguments)]
pub mod vam_pdu_descriptions {
    extern crate alloc;
    use super::cam_pdu_descriptions::GenerationDeltaTime;
    use super::dsrc::{IntersectionReferenceID, LaneID};
    use super::its_container::{
        Curvature, CurvatureCalculationMode, ExteriorLights, Heading, LanePosition, LateralAcceleration,
        LongitudinalAcceleration, PathDeltaTime, PathHistory, ReferencePosition, Speed, StationID,
        VerticalAcceleration, YawRate,
    };
    use super::vam_temp_imports::{AreaCircular, AreaPolygon, AreaRectangle, BasicContainer, ItsPduHeader};
    use core::borrow::Borrow;
    use rasn::prelude::*;
    use std::sync::LazyLock;
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum AccelOrDecel {
        accelerate = 0,
        decelerate = 1,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct AccelerationChangeIndication {
        #[rasn(identifier = "accelOrDecel")]
        pub accel_or_decel: AccelOrDecel,
        #[rasn(identifier = "actionDeltaTime")]
        pub action_delta_time: ActionDeltaTime,
    }
    impl AccelerationChangeIndication {
        pub fn new(accel_or_decel: AccelOrDecel, action_delta_time: ActionDeltaTime) -> Self {
            Self { accel_or_decel, action_delta_time }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=127"))]
    pub struct ActionDeltaTime(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(choice, automatic_tags)]
    #[non_exhaustive]
    pub enum ClusterBoundingBoxShape {
        clusterRectangle(AreaRectangle),
        clusterCircle(AreaCircular),
        clusterPolygon(AreaPolygon),
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct ClusterBreakupInfo {
        #[rasn(identifier = "clusterBreakupReason")]
        pub cluster_breakup_reason: ClusterBreakupReason,
        #[rasn(identifier = "breakupTime")]
        pub breakup_time: VruClusterOpTimestamp,
    }
    impl ClusterBreakupInfo {
        pub fn new(cluster_breakup_reason: ClusterBreakupReason, breakup_time: VruClusterOpTimestamp) -> Self {
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
    #[rasn(delegate, value("0..=255"))]
    pub struct ClusterCardinalitySize(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=255"))]
    pub struct ClusterId(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct ClusterJoinInfo {
        #[rasn(identifier = "clusterId")]
        pub cluster_id: ClusterId,
        #[rasn(identifier = "joinTime")]
        pub join_time: VruClusterOpTimestamp,
    }
    impl ClusterJoinInfo {
        pub fn new(cluster_id: ClusterId, join_time: VruClusterOpTimestamp) -> Self {
            Self { cluster_id, join_time }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct ClusterLeaveInfo {
        #[rasn(identifier = "clusterId")]
        pub cluster_id: ClusterId,
        #[rasn(identifier = "clusterLeaveReason")]
        pub cluster_leave_reason: ClusterLeaveReason,
    }
    impl ClusterLeaveInfo {
        pub fn new(cluster_id: ClusterId, cluster_leave_reason: ClusterLeaveReason) -> Self {
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
    #[rasn(delegate)]
    pub struct ClusterProfiles(pub FixedBitString<4usize>);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct HeadingChangeIndication {
        pub direction: LeftOrRight,
        #[rasn(identifier = "actionDeltaTime")]
        pub action_delta_time: ActionDeltaTime,
    }
    impl HeadingChangeIndication {
        pub fn new(direction: LeftOrRight, action_delta_time: ActionDeltaTime) -> Self {
            Self { direction, action_delta_time }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate)]
    pub struct ItsPduHeaderVam(pub ItsPduHeader);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum LeftOrRight {
        left = 0,
        right = 1,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct MapPosition {
        #[rasn(identifier = "intersectionId")]
        pub intersection_id: IntersectionReferenceID,
        pub lane: LaneID,
    }
    impl MapPosition {
        pub fn new(intersection_id: IntersectionReferenceID, lane: LaneID) -> Self {
            Self { intersection_id, lane }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(choice, automatic_tags)]
    #[non_exhaustive]
    pub enum NonIslandLanePosition {
        offRoadLanePosition(OffRoadLanePosition),
        vehicularLanePosition(LanePosition),
        mapPosition(MapPosition),
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(enumerated)]
    pub enum OffRoadLanePosition {
        unavailable = 0,
        sidewalk = 1,
        parkingLane = 2,
        bikeLane = 3,
        max = 15,
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, size("1..=8"))]
    pub struct SequenceOfTrajectoryInterceptionIndication(pub SequenceOf<TrajectoryInterceptionIndication>);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate)]
    pub struct SequenceOfVruPathPoint(pub SequenceOf<VruPathPoint>);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, size("1..=8"))]
    pub struct SequenceOfVruSafeDistanceIndication(pub SequenceOf<VruSafeDistanceIndication>);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct StabilityChangeIndication {
        #[rasn(identifier = "lossProbability")]
        pub loss_probability: StabilityLossProbability,
        #[rasn(identifier = "actionDeltaTime")]
        pub action_delta_time: ActionDeltaTime,
    }
    impl StabilityChangeIndication {
        pub fn new(loss_probability: StabilityLossProbability, action_delta_time: ActionDeltaTime) -> Self {
            Self { loss_probability, action_delta_time }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=63"))]
    pub struct StabilityLossProbability(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash, Copy)]
    #[rasn(delegate)]
    pub struct StationSafeDistanceIndication(pub bool);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct TrafficIslandPosition {
        #[rasn(identifier = "oneSide")]
        pub one_side: NonIslandLanePosition,
        #[rasn(identifier = "otherSide")]
        pub other_side: NonIslandLanePosition,
    }
    impl TrafficIslandPosition {
        pub fn new(one_side: NonIslandLanePosition, other_side: NonIslandLanePosition) -> Self {
            Self { one_side, other_side }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=3"))]
    pub struct TrajectoryInterceptionConfidence(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct TrajectoryInterceptionIndication {
        #[rasn(identifier = "subjectStation")]
        pub subject_station: Option<StationID>,
        #[rasn(identifier = "trajectoryInterceptionProbability")]
        pub trajectory_interception_probability: TrajectoryInterceptionProbability,
        #[rasn(identifier = "trajectoryInterceptionConfidence")]
        pub trajectory_interception_confidence: Option<TrajectoryInterceptionConfidence>,
    }
    impl TrajectoryInterceptionIndication {
        pub fn new(
            subject_station: Option<StationID>,
            trajectory_interception_probability: TrajectoryInterceptionProbability,
            trajectory_interception_confidence: Option<TrajectoryInterceptionConfidence>,
        ) -> Self {
            Self { subject_station, trajectory_interception_probability, trajectory_interception_confidence }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=63"))]
    pub struct TrajectoryInterceptionProbability(pub u8);
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
        pub vru_high_frequency_container: Option<VruHighFrequencyContainer>,
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
            vru_high_frequency_container: Option<VruHighFrequencyContainer>,
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
    pub struct VruClusterInformationContainer {
        #[rasn(identifier = "clusterId")]
        pub cluster_id: ClusterId,
        #[rasn(identifier = "clusterBoundingBoxShape")]
        pub cluster_bounding_box_shape: ClusterBoundingBoxShape,
        #[rasn(identifier = "clusterCardinalitySize")]
        pub cluster_cardinality_size: ClusterCardinalitySize,
        #[rasn(identifier = "clusterProfiles")]
        pub cluster_profiles: ClusterProfiles,
    }
    impl VruClusterInformationContainer {
        pub fn new(
            cluster_id: ClusterId,
            cluster_bounding_box_shape: ClusterBoundingBoxShape,
            cluster_cardinality_size: ClusterCardinalitySize,
            cluster_profiles: ClusterProfiles,
        ) -> Self {
            Self { cluster_id, cluster_bounding_box_shape, cluster_cardinality_size, cluster_profiles }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("1..=255"))]
    pub struct VruClusterOpTimestamp(pub u8);
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
        pub cluster_id_change_time_info: Option<VruClusterOpTimestamp>,
    }
    impl VruClusterOperationContainer {
        pub fn new(
            cluster_join_info: Option<ClusterJoinInfo>,
            cluster_leave_info: Option<ClusterLeaveInfo>,
            cluster_breakup_info: Option<ClusterBreakupInfo>,
            cluster_id_change_time_info: Option<VruClusterOpTimestamp>,
        ) -> Self {
            Self { cluster_join_info, cluster_leave_info, cluster_breakup_info, cluster_id_change_time_info }
        }
    }
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
    pub struct VruExteriorLights {
        #[rasn(identifier = "vruSpecific")]
        pub vru_specific: VruSpecificExteriorLights,
        pub vehicular: ExteriorLights,
    }
    impl VruExteriorLights {
        pub fn new(vru_specific: VruSpecificExteriorLights, vehicular: ExteriorLights) -> Self {
            Self { vru_specific, vehicular }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct VruHighFrequencyContainer {
        pub heading: Heading,
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
        pub vru_lane_position: Option<VruLanePosition>,
        pub environment: Option<VruEnvironment>,
        #[rasn(identifier = "movementControl")]
        pub movement_control: Option<VruMovementControl>,
        pub orientation: Option<VruOrientation>,
        #[rasn(identifier = "rollAngle")]
        pub roll_angle: Option<VruRollAngle>,
        #[rasn(identifier = "deviceUsage")]
        pub device_usage: Option<VruDeviceUsage>,
    }
    impl VruHighFrequencyContainer {
        pub fn new(
            heading: Heading,
            speed: Speed,
            longitudinal_acceleration: LongitudinalAcceleration,
            curvature: Option<Curvature>,
            curvature_calculation_mode: Option<CurvatureCalculationMode>,
            yaw_rate: Option<YawRate>,
            lateral_acceleration: Option<LateralAcceleration>,
            vertical_acceleration: Option<VerticalAcceleration>,
            vru_lane_position: Option<VruLanePosition>,
            environment: Option<VruEnvironment>,
            movement_control: Option<VruMovementControl>,
            orientation: Option<VruOrientation>,
            roll_angle: Option<VruRollAngle>,
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
    #[rasn(choice, automatic_tags)]
    #[non_exhaustive]
    pub enum VruLanePosition {
        offRoadLanePosition(OffRoadLanePosition),
        vehicularLanePosition(LanePosition),
        trafficIslandPosition(TrafficIslandPosition),
        mapPosition(MapPosition),
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct VruLowFrequencyContainer {
        #[rasn(identifier = "profileAndSubprofile")]
        pub profile_and_subprofile: Option<VruProfileAndSubprofile>,
        #[rasn(identifier = "exteriorLights")]
        pub exterior_lights: Option<VruExteriorLights>,
        #[rasn(identifier = "sizeClass")]
        pub size_class: Option<VruSizeClass>,
    }
    impl VruLowFrequencyContainer {
        pub fn new(
            profile_and_subprofile: Option<VruProfileAndSubprofile>,
            exterior_lights: Option<VruExteriorLights>,
            size_class: Option<VruSizeClass>,
        ) -> Self {
            Self { profile_and_subprofile, exterior_lights, size_class }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct VruMotionPredictionContainer {
        #[rasn(identifier = "pathHistory")]
        pub path_history: Option<PathHistory>,
        #[rasn(identifier = "pathPrediction")]
        pub path_prediction: Option<SequenceOfVruPathPoint>,
        #[rasn(identifier = "safeDistance")]
        pub safe_distance: Option<SequenceOfVruSafeDistanceIndication>,
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
            path_prediction: Option<SequenceOfVruPathPoint>,
            safe_distance: Option<SequenceOfVruSafeDistanceIndication>,
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
    #[rasn(delegate)]
    pub struct VruOrientation(pub Heading);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct VruPathPoint {
        #[rasn(identifier = "pathPosition")]
        pub path_position: ReferencePosition,
        #[rasn(identifier = "pathDeltaTime")]
        pub path_delta_time: Option<PathDeltaTime>,
    }
    impl VruPathPoint {
        pub fn new(path_position: ReferencePosition, path_delta_time: Option<PathDeltaTime>) -> Self {
            Self { path_position, path_delta_time }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(choice, automatic_tags)]
    #[non_exhaustive]
    pub enum VruProfileAndSubprofile {
        pedestrian(VruSubProfilePedestrian),
        bicyclist(VruSubProfileBicyclist),
        motorcylist(VruSubProfileMotorcyclist),
        animal(VruSubProfileAnimal),
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate)]
    pub struct VruRollAngle(pub Heading);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct VruSafeDistanceIndication {
        #[rasn(identifier = "subjectStation")]
        pub subject_station: Option<StationID>,
        #[rasn(identifier = "stationSafeDistanceIndication")]
        pub station_safe_distance_indication: StationSafeDistanceIndication,
        #[rasn(identifier = "timeToCollision")]
        pub time_to_collision: Option<ActionDeltaTime>,
    }
    impl VruSafeDistanceIndication {
        pub fn new(
            subject_station: Option<StationID>,
            station_safe_distance_indication: StationSafeDistanceIndication,
            time_to_collision: Option<ActionDeltaTime>,
        ) -> Self {
            Self { subject_station, station_safe_distance_indication, time_to_collision }
        }
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
}
#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, unused, clippy::too_many_arguments)]
pub mod vam_temp_imports {
    extern crate alloc;
    use super::dsrc::{NodeOffsetPointXY, OffsetB10, OffsetB11, OffsetB12, OffsetB13, OffsetB14, OffsetB16};
    use super::its_container::{ReferencePosition, StationID};
    use core::borrow::Borrow;
    use rasn::prelude::*;
    use std::sync::LazyLock;
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct AreaCircular {
        #[rasn(identifier = "nodeCenterPoint")]
        pub node_center_point: Option<OffsetPoint>,
        pub radius: Radius,
    }
    impl AreaCircular {
        pub fn new(node_center_point: Option<OffsetPoint>, radius: Radius) -> Self {
            Self { node_center_point, radius }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct AreaPolygon {
        #[rasn(identifier = "polyPointList")]
        pub poly_point_list: PolyPointList,
    }
    impl AreaPolygon {
        pub fn new(poly_point_list: PolyPointList) -> Self {
            Self { poly_point_list }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct AreaRectangle {
        #[rasn(identifier = "nodeCenterPoint")]
        pub node_center_point: Option<OffsetPoint>,
        #[rasn(identifier = "semiMajorRangeLength")]
        pub semi_major_range_length: SemiRangeLength,
        #[rasn(identifier = "semiMinorRangeLength")]
        pub semi_minor_range_length: SemiRangeLength,
        #[rasn(identifier = "semiMajorRangeOrientation")]
        pub semi_major_range_orientation: WGS84AngleValue,
        #[rasn(identifier = "semiHeight")]
        pub semi_height: Option<SemiRangeLength>,
    }
    impl AreaRectangle {
        pub fn new(
            node_center_point: Option<OffsetPoint>,
            semi_major_range_length: SemiRangeLength,
            semi_minor_range_length: SemiRangeLength,
            semi_major_range_orientation: WGS84AngleValue,
            semi_height: Option<SemiRangeLength>,
        ) -> Self {
            Self {
                node_center_point,
                semi_major_range_length,
                semi_minor_range_length,
                semi_major_range_orientation,
                semi_height,
            }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    #[non_exhaustive]
    pub struct BasicContainer {
        #[rasn(identifier = "stationType")]
        pub station_type: StationType,
        #[rasn(identifier = "referencePosition")]
        pub reference_position: ReferencePosition,
    }
    impl BasicContainer {
        pub fn new(station_type: StationType, reference_position: ReferencePosition) -> Self {
            Self { station_type, reference_position }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct ItsPduHeader {
        #[rasn(value("0..=255"), identifier = "protocolVersion")]
        pub protocol_version: u8,
        #[rasn(value("0..=255"), identifier = "messageID")]
        pub message_id: u8,
        #[rasn(identifier = "stationID")]
        pub station_id: StationID,
    }
    impl ItsPduHeader {
        pub fn new(protocol_version: u8, message_id: u8, station_id: StationID) -> Self {
            Self { protocol_version, message_id, station_id }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(choice, automatic_tags)]
    pub enum NodeOffsetPointZ {
        #[rasn(identifier = "node-Z1")]
        node_Z1(OffsetB10),
        #[rasn(identifier = "node-Z2")]
        node_Z2(OffsetB11),
        #[rasn(identifier = "node-Z3")]
        node_Z3(OffsetB12),
        #[rasn(identifier = "node-Z4")]
        node_Z4(OffsetB13),
        #[rasn(identifier = "node-Z5")]
        node_Z5(OffsetB14),
        #[rasn(identifier = "node-Z6")]
        node_Z6(OffsetB16),
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(automatic_tags)]
    pub struct OffsetPoint {
        #[rasn(identifier = "nodeOffsetPointXY")]
        pub node_offset_point_xy: NodeOffsetPointXY,
        #[rasn(identifier = "nodeOffsetPointZ")]
        pub node_offset_point_z: Option<NodeOffsetPointZ>,
    }
    impl OffsetPoint {
        pub fn new(node_offset_point_xy: NodeOffsetPointXY, node_offset_point_z: Option<NodeOffsetPointZ>) -> Self {
            Self { node_offset_point_xy, node_offset_point_z }
        }
    }
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, size("3..=16", extensible))]
    pub struct PolyPointList(pub SequenceOf<OffsetPoint>);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=10000"))]
    pub struct Radius(pub u16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=10000"))]
    pub struct SemiRangeLength(pub u16);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=255"))]
    pub struct StationType(pub u8);
    #[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Hash)]
    #[rasn(delegate, value("0..=3601"))]
    pub struct WGS84AngleValue(pub u16);
}

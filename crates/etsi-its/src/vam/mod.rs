//! VRU Awareness Message, ETSI TS 103 300-3 V2.1.1 (VAM-PDU-Descriptions, over the Release 1
//! ITS-Container), and [`SimpleVam`], the flat view of a pedestrian's, cyclist's or
//! motorcyclist's VAM. The VAM of protocolVersion 3 (TS 103 300-3 V2.2.1, what current stacks
//! send) is [`v3`], read into and written from the same view.
//!
//! The codec is [`generated`]: rasn-compiler's output for the ASN.1 that
//! tools/codecs/pycrate_to_asn1.py writes back out of pycrate's compilation of ETSI's modules
//! (`make codecs`; nothing in it is written by hand).
//!
//! The header: V2.1.1's VAM-Temp-Imports numbers the VAM `vam(14)` among the `messageID` names,
//! the number TR 103 562 and TS 103 324 give the CPM; the Common Data Dictionary (TS 102 894-2
//! V2.x) has since made it `vam(16)`, which stations send and receivers (Wireshark's ITS
//! dissector among them) expect. The field is `INTEGER (0..255)` either way, so [`MESSAGE_ID`]
//! is 16: a VAM is then told from a CPM by its header.

/// The modules rasn-compiler generates, each as its ASN.1 module: `vam_pdu_descriptions`,
/// `vam_temp_imports`, `its_container`, `cam_pdu_descriptions`, `dsrc` (only the types the VAM
/// reaches). Generated code: clippy's lints are off for it.
#[allow(clippy::all)]
pub mod generated;
pub mod v3;

pub use generated::cam_pdu_descriptions::GenerationDeltaTime;
pub use generated::its_container::*;
pub use generated::vam_pdu_descriptions::*;
pub use generated::vam_temp_imports::{BasicContainer, ItsPduHeader, StationType};

use crate::checks::{
    heading_code, heading_from_code, require_available, speed_code, speed_from_code, yaw_rate_code, yaw_rate_from_code,
    ExpectedHeader, ACCELERATION_UNAVAILABLE,
};
use crate::CodecError;

/// `protocolVersion` of a TS 103 300-3 V2.1.1 VAM (the Release 1 ITS-Container's, as CAM and
/// DENM; V2.2.1 and later send 3).
pub const PROTOCOL_VERSION: u8 = 2;

/// `messageID` of a VAM (`vam(16)`, see the module).
pub const MESSAGE_ID: u8 = 16;

const HEADER: ExpectedHeader =
    ExpectedHeader::new("VAM", "messageID", MESSAGE_ID, PROTOCOL_VERSION, "TS 103 300-3 V2.1.1");

/// `ActionDeltaTime` (V2.1.1) and `DeltaTimeTenthOfSecond` (V2.2.1): 100 ms steps, 0..=126;
/// 127 is unavailable.
const ACTION_DELTA_UNAVAILABLE: u8 = 127;
const ACTION_DELTA_STEP_MS: u32 = 100;

/// The steps of a heading change's `actionDeltaTime`: rounded to the nearest, clamped, 127
/// when `None`.
fn action_delta_steps(ms: Option<u32>) -> u8 {
    ms.map_or(ACTION_DELTA_UNAVAILABLE, |ms| {
        let nearest = ms.saturating_add(ACTION_DELTA_STEP_MS / 2) / ACTION_DELTA_STEP_MS;
        nearest.min(u32::from(ACTION_DELTA_UNAVAILABLE) - 1) as u8
    })
}

/// The milliseconds of an `actionDeltaTime`; `None` when unavailable.
fn action_delta_ms(steps: u8) -> Option<u32> {
    (steps != ACTION_DELTA_UNAVAILABLE).then(|| u32::from(steps) * ACTION_DELTA_STEP_MS)
}

/// A VAM reduced to what the pipeline can use: who, where, how it moves, whether it is about to
/// turn and where it expects to be. `None` is "unavailable" (or not sent).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SimpleVam {
    /// Header `stationID`.
    pub station_id: u32,
    /// Basic container `stationType` (1 = pedestrian, 2 = cyclist, 3 = moped, 4 = motorcycle,
    /// 12 = lightVruVehicle, 13 = animal, ...).
    pub station_type: u8,
    /// `generationDeltaTime`: TimestampIts mod 65536, ms.
    pub generation_delta_time_ms: u16,
    /// Reference position latitude, 1e-7°.
    pub lat_e7: i32,
    /// Reference position longitude, 1e-7°.
    pub lon_e7: i32,
    /// High-frequency container `heading`: 0.1° clockwise from north, 0..=3599.
    pub heading_decideg: Option<u16>,
    /// High-frequency container `speed`: cm/s, 0..=16382.
    pub speed_cm_s: Option<u16>,
    /// High-frequency container `yawRate`: 0.01°/s, positive to the left (counter-clockwise),
    /// -32766..=32766.
    pub yaw_rate_centideg_s: Option<i16>,
    /// Motion-prediction container `headingChangeIndication`: the VRU is about to turn.
    pub heading_change: Option<HeadingChange>,
    /// Motion-prediction container `pathPrediction`, in its order; empty when not sent.
    pub path_prediction: Vec<PathPoint>,
}

/// A turn the VRU announces (`HeadingChangeIndication`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HeadingChange {
    /// `direction`.
    pub direction: Turn,
    /// `actionDeltaTime`: in how long the turn starts, ms, in 100 ms steps up to 12,600 ms
    /// (rounded to the nearest step and clamped when sent); `None` is unavailable.
    pub action_delta_ms: Option<u32>,
}

/// `LeftOrRight`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Turn {
    Left,
    Right,
}

/// One point of the predicted path (`VruPathPoint`). V2.1.1 gives each point as a complete
/// `ReferencePosition`, not as an offset from the reference position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PathPoint {
    /// `pathPosition` latitude, 1e-7°.
    pub lat_e7: i32,
    /// `pathPosition` longitude, 1e-7°.
    pub lon_e7: i32,
    /// `pathDeltaTime`: 10 ms steps, 1..=65535 (`PathDeltaTime`); `None` when not sent.
    pub delta_time_10ms: Option<u16>,
}

crate::checks::pdu_codec!(VAM, "VAM", feature = "vam");

impl SimpleVam {
    /// Builds the VAM: a high-frequency container always (heading, speed with "unavailable"
    /// codes for what is `None`, longitudinal acceleration unavailable, a yaw rate only when
    /// there is one), a motion-prediction container only with a heading change or a predicted
    /// path. Positions carry no confidence or altitude ("unavailable"). Values are clamped into
    /// their ranges.
    pub fn to_vam(&self) -> VAM {
        let heading = Heading::new(HeadingValue(heading_code(self.heading_decideg)), HeadingConfidence(127));
        let speed = Speed::new(SpeedValue(speed_code(self.speed_cm_s)), SpeedConfidence(127));
        let acceleration = LongitudinalAcceleration::new(
            LongitudinalAccelerationValue(ACCELERATION_UNAVAILABLE),
            AccelerationConfidence(102),
        );
        let yaw_rate = self
            .yaw_rate_centideg_s
            .map(|y| YawRate::new(YawRateValue(yaw_rate_code(Some(y))), YawRateConfidence::unavailable));
        let high_frequency = VruHighFrequencyContainer::new(
            heading,
            speed,
            acceleration,
            None,
            None,
            yaw_rate,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
        );
        let heading_change = self.heading_change.map(|change| {
            let direction = match change.direction {
                Turn::Left => LeftOrRight::left,
                Turn::Right => LeftOrRight::right,
            };
            HeadingChangeIndication::new(direction, ActionDeltaTime(action_delta_steps(change.action_delta_ms)))
        });
        let path_prediction = (!self.path_prediction.is_empty()).then(|| {
            SequenceOfVruPathPoint(
                self.path_prediction
                    .iter()
                    .map(|point| {
                        VruPathPoint::new(
                            crate::checks::position_without_confidence!(crate::vam, point.lat_e7, point.lon_e7),
                            point.delta_time_10ms.map(|t| PathDeltaTime(rasn::types::Integer::from(t.max(1)))),
                        )
                    })
                    .collect(),
            )
        });
        let motion_prediction = (heading_change.is_some() || path_prediction.is_some())
            .then(|| VruMotionPredictionContainer::new(None, path_prediction, None, None, None, heading_change, None));
        let (lat, lon) = (self.lat_e7, self.lon_e7);
        VAM::new(
            ItsPduHeaderVam(ItsPduHeader::new(PROTOCOL_VERSION, MESSAGE_ID, StationID(self.station_id))),
            VruAwareness::new(
                GenerationDeltaTime(self.generation_delta_time_ms),
                VamParameters::new(
                    BasicContainer::new(
                        StationType(self.station_type),
                        crate::checks::position_without_confidence!(crate::vam, lat, lon),
                    ),
                    Some(high_frequency),
                    None,
                    None,
                    None,
                    motion_prediction,
                ),
            ),
        )
    }

    /// Reads the view out of a decoded VAM. Errors when it is not a TS 103 300-3 V2.1.1 VAM
    /// (`messageID` ≠ 16, `protocolVersion` ≠ 2) or its reference position is unavailable.
    /// Predicted points whose position is unavailable, or whose `pathDeltaTime` lies beyond the
    /// root range, are left out (the time: kept as `None`).
    pub fn from_vam(vam: &VAM) -> Result<SimpleVam, CodecError> {
        let header = &vam.header.0;
        HEADER.check(header.protocol_version, header.message_id)?;
        let parameters = &vam.vam.vam_parameters;
        let basic = &parameters.basic_container;
        let position = &basic.reference_position;
        require_available(position.latitude.0, position.longitude.0, "VAM reference position")?;
        let mut simple = SimpleVam {
            station_id: header.station_id.0,
            station_type: basic.station_type.0,
            generation_delta_time_ms: vam.vam.generation_delta_time.0,
            lat_e7: position.latitude.0,
            lon_e7: position.longitude.0,
            heading_decideg: None,
            speed_cm_s: None,
            yaw_rate_centideg_s: None,
            heading_change: None,
            path_prediction: vec![],
        };
        if let Some(hf) = &parameters.vru_high_frequency_container {
            simple.heading_decideg = heading_from_code(hf.heading.heading_value.0);
            simple.speed_cm_s = speed_from_code(hf.speed.speed_value.0);
            simple.yaw_rate_centideg_s = hf.yaw_rate.as_ref().and_then(|y| yaw_rate_from_code(y.yaw_rate_value.0));
        }
        if let Some(motion) = &parameters.vru_motion_prediction_container {
            simple.heading_change = motion.heading_change_indication.as_ref().map(|change| HeadingChange {
                direction: match change.direction {
                    LeftOrRight::left => Turn::Left,
                    LeftOrRight::right => Turn::Right,
                },
                action_delta_ms: action_delta_ms(change.action_delta_time.0),
            });
            if let Some(path) = &motion.path_prediction {
                simple.path_prediction = path
                    .0
                    .iter()
                    .filter(|p| require_available(p.path_position.latitude.0, p.path_position.longitude.0, "").is_ok())
                    .map(|p| PathPoint {
                        lat_e7: p.path_position.latitude.0,
                        lon_e7: p.path_position.longitude.0,
                        delta_time_10ms: p.path_delta_time.as_ref().and_then(|t| u16::try_from(&t.0).ok()),
                    })
                    .collect();
            }
        }
        Ok(simple)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walking() -> SimpleVam {
        SimpleVam {
            station_id: 4711,
            station_type: 1,
            generation_delta_time_ms: 65_535,
            lat_e7: 478_095_000,
            lon_e7: 130_550_000,
            heading_decideg: Some(3599),
            speed_cm_s: Some(140),
            yaw_rate_centideg_s: Some(-250),
            heading_change: Some(HeadingChange { direction: Turn::Left, action_delta_ms: Some(1_500) }),
            path_prediction: vec![
                PathPoint { lat_e7: 478_095_100, lon_e7: 130_550_050, delta_time_10ms: Some(50) },
                PathPoint { lat_e7: 478_095_200, lon_e7: 130_550_100, delta_time_10ms: None },
            ],
        }
    }

    fn round_trip(vam: &SimpleVam) -> SimpleVam {
        let bytes = encode(&vam.to_vam()).unwrap();
        SimpleVam::from_vam(&decode(&bytes).unwrap()).unwrap()
    }

    #[test]
    fn simple_vams_round_trip() {
        let standing = SimpleVam {
            heading_decideg: None,
            speed_cm_s: None,
            yaw_rate_centideg_s: None,
            heading_change: None,
            path_prediction: vec![],
            ..walking()
        };
        let turning_right = SimpleVam {
            station_type: 2,
            heading_change: Some(HeadingChange { direction: Turn::Right, action_delta_ms: None }),
            path_prediction: vec![],
            ..walking()
        };
        let path_only = SimpleVam { heading_change: None, ..walking() };
        for vam in [walking(), standing, turning_right, path_only] {
            assert_eq!(round_trip(&vam), vam);
        }
    }

    #[test]
    fn containers_are_sent_only_with_their_data() {
        let standing = SimpleVam { heading_change: None, path_prediction: vec![], ..walking() }.to_vam();
        let parameters = &standing.vam.vam_parameters;
        assert!(parameters.vru_motion_prediction_container.is_none());
        assert!(parameters.vru_low_frequency_container.is_none());
        let hf = parameters.vru_high_frequency_container.as_ref().unwrap();
        assert!(hf.yaw_rate.is_some());
        let no_yaw = SimpleVam { yaw_rate_centideg_s: None, ..walking() }.to_vam();
        assert!(no_yaw.vam.vam_parameters.vru_high_frequency_container.unwrap().yaw_rate.is_none());
        let motion = walking().to_vam().vam.vam_parameters.vru_motion_prediction_container.unwrap();
        assert_eq!(motion.heading_change_indication.unwrap().action_delta_time, ActionDeltaTime(15));
        assert_eq!(motion.path_prediction.unwrap().0.len(), 2);
    }

    #[test]
    fn out_of_range_values_are_clamped() {
        let wild = SimpleVam {
            lat_e7: i32::MAX,
            heading_decideg: Some(3600 + 15),
            speed_cm_s: Some(u16::MAX),
            yaw_rate_centideg_s: Some(i16::MIN),
            heading_change: Some(HeadingChange { direction: Turn::Left, action_delta_ms: Some(u32::MAX) }),
            path_prediction: vec![PathPoint { lat_e7: i32::MIN, lon_e7: 0, delta_time_10ms: Some(0) }],
            ..walking()
        };
        // the reference latitude clamps to "unavailable": read back it is refused
        let bytes = encode(&wild.to_vam()).unwrap();
        assert!(SimpleVam::from_vam(&decode(&bytes).unwrap()).unwrap_err().message().contains("unavailable"));
        let back = round_trip(&SimpleVam { lat_e7: 478_095_000, ..wild });
        assert_eq!(back.heading_decideg, Some(15));
        assert_eq!(back.speed_cm_s, Some(16_382));
        assert_eq!(back.yaw_rate_centideg_s, Some(-32_766));
        assert_eq!(back.heading_change.unwrap().action_delta_ms, Some(12_600));
        assert_eq!(back.path_prediction, [PathPoint { lat_e7: -900_000_000, lon_e7: 0, delta_time_10ms: Some(1) }]);
        let rounded = round_trip(&SimpleVam {
            heading_change: Some(HeadingChange { direction: Turn::Right, action_delta_ms: Some(149) }),
            ..walking()
        });
        assert_eq!(rounded.heading_change.unwrap().action_delta_ms, Some(100));
    }

    #[test]
    fn unavailable_predicted_points_are_left_out() {
        let mut vam = walking();
        vam.path_prediction[0].lon_e7 = 1_800_000_001;
        assert_eq!(round_trip(&vam).path_prediction, walking().path_prediction[1..]);
    }

    #[test]
    fn unusable_vams_are_rejected_with_a_reason() {
        let mut vam = walking().to_vam();
        vam.header.0.message_id = 14;
        assert!(SimpleVam::from_vam(&vam).unwrap_err().message().contains("not a VAM: messageID 14"));
        let mut vam = walking().to_vam();
        vam.header.0.protocol_version = 3;
        assert!(SimpleVam::from_vam(&vam).unwrap_err().message().contains("protocolVersion 3"));
        let nowhere = SimpleVam { lon_e7: 1_800_000_001, ..walking() };
        assert!(SimpleVam::from_vam(&nowhere.to_vam()).unwrap_err().message().contains("unavailable"));
        assert!(decode(&[]).is_err());
        let mut long = encode(&walking().to_vam()).unwrap();
        long.push(0);
        assert!(decode(&long).unwrap_err().message().contains("trailing"));
        let bytes = encode(&walking().to_vam()).unwrap();
        assert!(decode(&bytes[..bytes.len() - 2]).unwrap_err().message().starts_with("VAM: UPER decode"));
    }

    #[test]
    fn header_is_protocol_version_2_message_id_16() {
        let bytes = encode(&walking().to_vam()).unwrap();
        assert_eq!(bytes[..2], [PROTOCOL_VERSION, MESSAGE_ID]);
        assert_eq!((PROTOCOL_VERSION, MESSAGE_ID), (2, 16));
    }

    #[test]
    fn xer_round_trips() {
        let vam = walking().to_vam();
        let xml = encode_xer(&vam).unwrap();
        let text = String::from_utf8_lossy(&xml);
        assert!(xml.starts_with(b"<VAM>") || xml.starts_with(b"<?xml"), "{text}");
        assert!(text.contains("<messageID>16</messageID>"), "{text}");
        assert_eq!(decode_xer(&xml).unwrap(), vam);
    }
}

//! The VRU Awareness Message current stacks send (Vanetza, ika's etsi_its_messages):
//! protocolVersion 3, ETSI TS 103 300-3 V2.2.1 (`VAM-PDU-Descriptions` major-version-3
//! minor-version-1, over the Release 2 Common Data Dictionary `ETSI-ITS-CDD`), read into and
//! written from the same [`SimpleVam`] as V2.1.1.
//!
//! The codec is [`generated`]: rasn-compiler's output for the ASN.1 that
//! tools/codecs/asn1tools_to_asn1.py writes out of ETSI's text as the PyPI package v2xflexstack
//! ships it (`make codecs`; nothing in it is written by hand).
//!
//! What differs from V2.1.1 for the view: the high-frequency container is mandatory; the heading
//! is a `Wgs84Angle`; the predicted path is a chain of offsets (`PathPointPredicted`: the first
//! from the reference position, each next one from the point before, in position and in time,
//! the time in 0.1 s steps); the heading change indication's time is a `DeltaTimeTenthOfSecond`
//! (the same 0.1 s steps, 127 unavailable).

/// The module rasn-compiler generates, `vam_pdu_descriptions` (the VAM and the CDD types it
/// reaches, in one ASN.1 module). Generated code: clippy's lints are off for it.
#[allow(clippy::all)]
pub mod generated;

pub use generated::vam_pdu_descriptions::*;

use super::{action_delta_ms, action_delta_steps, HeadingChange, SimpleVam, Turn, MESSAGE_ID};
use crate::checks::{
    clamp_position, heading_code, heading_from_code, require_available, speed_code, speed_from_code, yaw_rate_code,
    yaw_rate_from_code, ExpectedHeader, ACCELERATION_UNAVAILABLE,
};
use crate::CodecError;

/// `protocolVersion` of a TS 103 300-3 V2.2.1 VAM (`ItsPduHeaderVam`).
pub const PROTOCOL_VERSION: u8 = 3;

/// The standard the format names and errors cite.
pub const STANDARD: &str = "TS 103 300-3 V2.2.1";

const HEADER: ExpectedHeader = ExpectedHeader::new("VAM", "messageId", MESSAGE_ID, PROTOCOL_VERSION, STANDARD);

/// `DeltaLatitude` / `DeltaLongitude`: 1e-7°, ±131,071; 131,072 is unavailable.
const DELTA_MAX: i32 = 131_071;
const DELTA_UNAVAILABLE: i32 = 131_072;
/// `DeltaTimeTenthOfSecond`: 0..=126 steps of 0.1 s; 127 is unavailable.
const TENTHS_UNAVAILABLE: u8 = 127;
/// `PathPredicted ::= SEQUENCE (SIZE(0..15,...))`: the points sent.
const PATH_POINTS_MAX: usize = 15;

crate::checks::pdu_codec!(VAM, "VAM", feature = "vam");

/// A `ReferencePositionWithConfidence` with confidence ellipse and altitude "unavailable",
/// latitude and longitude clamped into their range.
fn position(lat_e7: i32, lon_e7: i32) -> ReferencePositionWithConfidence {
    let (lat, lon) = clamp_position(lat_e7, lon_e7);
    ReferencePositionWithConfidence::new(
        Latitude(lat),
        Longitude(lon),
        PositionConfidenceEllipse::new(SemiAxisLength(4095), SemiAxisLength(4095), Wgs84AngleValue(3601)),
        Altitude::new(AltitudeValue(800_001), AltitudeConfidence::unavailable),
    )
}

impl SimpleVam {
    /// Builds a protocolVersion 3 VAM, as [`SimpleVam::to_vam`] builds a V2.1.1 one: the
    /// high-frequency container (mandatory here) with heading, speed, longitudinal acceleration
    /// unavailable and a yaw rate only when there is one; a motion-prediction container only with
    /// a heading change or a predicted path. The predicted path is written as the chain of
    /// offsets V2.2.1 sends: it ends before the first point further than 131,071e-7° in
    /// latitude or longitude from the one before, or after 15 points; times are rounded to
    /// 0.1 s, a point without time sends "unavailable". Values are clamped into their ranges.
    pub fn to_vam_v3(&self) -> VAM {
        let yaw_rate = self
            .yaw_rate_centideg_s
            .map(|y| YawRate::new(YawRateValue(yaw_rate_code(Some(y))), YawRateConfidence::unavailable));
        let high_frequency = VruHighFrequencyContainer::new(
            Wgs84Angle::new(Wgs84AngleValue(heading_code(self.heading_decideg)), Wgs84AngleConfidence(127)),
            Speed::new(SpeedValue(speed_code(self.speed_cm_s)), SpeedConfidence(127)),
            LongitudinalAcceleration::new(
                LongitudinalAccelerationValue(ACCELERATION_UNAVAILABLE),
                AccelerationConfidence(102),
            ),
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
                Turn::Left => TurningDirection::left,
                Turn::Right => TurningDirection::right,
            };
            HeadingChangeIndication::new(direction, DeltaTimeTenthOfSecond(action_delta_steps(change.action_delta_ms)))
        });
        let path = self.path_predicted_v3();
        let path_prediction = (!path.is_empty()).then_some(PathPredicted(path));
        let motion_prediction = (heading_change.is_some() || path_prediction.is_some())
            .then(|| VruMotionPredictionContainer::new(None, path_prediction, None, None, None, heading_change, None));
        VAM::new(
            ItsPduHeaderVam(ItsPduHeader::new(
                OrdinalNumber1B(PROTOCOL_VERSION),
                MessageId(MESSAGE_ID),
                StationId(self.station_id),
            )),
            VruAwareness::new(
                GenerationDeltaTime(self.generation_delta_time_ms),
                VamParameters::new(
                    BasicContainer::new(TrafficParticipantType(self.station_type), position(self.lat_e7, self.lon_e7)),
                    high_frequency,
                    None,
                    None,
                    None,
                    motion_prediction,
                ),
            ),
        )
    }

    /// The predicted path as offsets, each from the point before (the first from the reference
    /// position); see [`SimpleVam::to_vam_v3`].
    fn path_predicted_v3(&self) -> Vec<PathPointPredicted> {
        let (mut lat, mut lon) = clamp_position(self.lat_e7, self.lon_e7);
        // the time of the point before, in 0.1 s steps from generation
        let mut tenths_before = 0u32;
        let mut path = vec![];
        for point in self.path_prediction.iter().take(PATH_POINTS_MAX) {
            let (point_lat, point_lon) = clamp_position(point.lat_e7, point.lon_e7);
            let (d_lat, d_lon) = (point_lat - lat, point_lon - lon);
            if d_lat.abs() > DELTA_MAX || d_lon.abs() > DELTA_MAX {
                break;
            }
            let delta_time = match point.delta_time_10ms {
                None => TENTHS_UNAVAILABLE,
                Some(t) => {
                    let tenths = (u32::from(t) + 5) / 10;
                    let step = tenths.saturating_sub(tenths_before).min(u32::from(TENTHS_UNAVAILABLE) - 1);
                    tenths_before += step;
                    step as u8
                }
            };
            path.push(PathPointPredicted::new(
                DeltaLatitude(d_lat),
                DeltaLongitude(d_lon),
                None,
                DeltaAltitude(12_800),
                AltitudeConfidence::unavailable,
                DeltaTimeTenthOfSecond(delta_time),
            ));
            (lat, lon) = (point_lat, point_lon);
        }
        path
    }

    /// Reads the view out of a decoded protocolVersion 3 VAM. Errors when it is not a TS 103
    /// 300-3 V2.2.1 VAM (`messageId` ≠ 16, `protocolVersion` ≠ 3) or its reference position is
    /// unavailable. The predicted path is added up from its offsets: it ends before the first
    /// point whose offset is unavailable; from the first point whose time is unavailable on,
    /// the points have no time (`None`).
    pub fn from_vam_v3(vam: &VAM) -> Result<SimpleVam, CodecError> {
        let header = &vam.header.0;
        HEADER.check(header.protocol_version.0, header.message_id.0)?;
        let parameters = &vam.vam.vam_parameters;
        let basic = &parameters.basic_container;
        let position = &basic.reference_position;
        require_available(position.latitude.0, position.longitude.0, "VAM reference position")?;
        let hf = &parameters.vru_high_frequency_container;
        let mut simple = SimpleVam {
            station_id: header.station_id.0,
            station_type: basic.station_type.0,
            generation_delta_time_ms: vam.vam.generation_delta_time.0,
            lat_e7: position.latitude.0,
            lon_e7: position.longitude.0,
            heading_decideg: heading_from_code(hf.heading.value.0),
            speed_cm_s: speed_from_code(hf.speed.speed_value.0),
            yaw_rate_centideg_s: hf.yaw_rate.as_ref().and_then(|y| yaw_rate_from_code(y.yaw_rate_value.0)),
            heading_change: None,
            path_prediction: vec![],
        };
        if let Some(motion) = &parameters.vru_motion_prediction_container {
            simple.heading_change = motion.heading_change_indication.as_ref().map(|change| HeadingChange {
                direction: match change.direction {
                    TurningDirection::left => Turn::Left,
                    TurningDirection::right => Turn::Right,
                },
                action_delta_ms: action_delta_ms(change.action_delta_time.0),
            });
            if let Some(path) = &motion.path_prediction {
                let (mut lat, mut lon) = (simple.lat_e7, simple.lon_e7);
                let mut tenths = Some(0u32);
                for point in &path.0 {
                    let (d_lat, d_lon) = (point.delta_latitude.0, point.delta_longitude.0);
                    if d_lat == DELTA_UNAVAILABLE || d_lon == DELTA_UNAVAILABLE {
                        break;
                    }
                    (lat, lon) = (lat.saturating_add(d_lat), lon.saturating_add(d_lon));
                    let step = point.path_delta_time.0;
                    tenths = tenths.filter(|_| step != TENTHS_UNAVAILABLE).map(|t| t + u32::from(step));
                    simple.path_prediction.push(super::PathPoint {
                        lat_e7: lat,
                        lon_e7: lon,
                        delta_time_10ms: tenths.and_then(|t| u16::try_from(t * 10).ok()),
                    });
                }
            }
        }
        Ok(simple)
    }
}

//! The checks the simple views share when reading a message: the `ItsPduHeader` announces the
//! expected message and protocol version, and the reference position is available.

use crate::CodecError;

/// What the header of one kind of message must carry, and the names the error texts use for it.
pub(crate) struct ExpectedHeader {
    /// Short name of the message, e.g. `DENM`.
    pub message: &'static str,
    /// The message id component as its ASN.1 module spells it (`messageID` in Release 1,
    /// `messageId` in Release 2).
    pub message_id_field: &'static str,
    pub message_id: u8,
    pub protocol_version: u8,
    /// The standard that defines `protocol_version`, e.g. `TS 103 324 V2.1.1`.
    pub standard: &'static str,
}

impl ExpectedHeader {
    pub(crate) const fn new(
        message: &'static str,
        message_id_field: &'static str,
        message_id: u8,
        protocol_version: u8,
        standard: &'static str,
    ) -> Self {
        Self { message, message_id_field, message_id, protocol_version, standard }
    }

    /// Checks a header's `protocolVersion` and message id.
    pub(crate) fn check(&self, protocol_version: u8, message_id: u8) -> Result<(), CodecError> {
        let Self { message, message_id_field, standard, .. } = self;
        if message_id != self.message_id {
            return Err(CodecError::new(format!(
                "not a {message}: {message_id_field} {message_id} (expected {})",
                self.message_id
            )));
        }
        if protocol_version != self.protocol_version {
            return Err(CodecError::new(format!(
                "unsupported {message} protocolVersion {protocol_version} (expected {}, {standard})",
                self.protocol_version
            )));
        }
        Ok(())
    }
}

/// `Latitude` unavailable (1e-7°); every CDD version uses these codes.
pub(crate) const LATITUDE_UNAVAILABLE: i32 = 900_000_001;
pub(crate) const LONGITUDE_UNAVAILABLE: i32 = 1_800_000_001;
/// `TimestampIts ::= INTEGER (0..4398046511103)`: ms, 42 bits.
pub(crate) const TIMESTAMP_ITS_MAX: u64 = 4_398_046_511_103;

/// "unavailable" codes of the kinematic values CAM and VAM share (`HeadingValue`, `SpeedValue`,
/// `YawRateValue`, `LongitudinalAccelerationValue`: every ITS-Container version alike).
pub(crate) const HEADING_UNAVAILABLE: u16 = 3601;
pub(crate) const SPEED_UNAVAILABLE: u16 = 16_383;
pub(crate) const YAW_RATE_UNAVAILABLE: i16 = 32_767;
pub(crate) const ACCELERATION_UNAVAILABLE: i16 = 161;

/// `HeadingValue` of a heading in 0.1° (taken modulo 360°); `None` is unavailable.
pub(crate) fn heading_code(decideg: Option<u16>) -> u16 {
    decideg.map_or(HEADING_UNAVAILABLE, |h| h % 3600)
}

/// The heading a `HeadingValue` gives, 0.1°: none for unavailable (3601) or 3600.
pub(crate) fn heading_from_code(code: u16) -> Option<u16> {
    (code < 3600).then_some(code)
}

/// `SpeedValue` of a speed in cm/s, clamped to 16382; `None` is unavailable.
pub(crate) fn speed_code(cm_s: Option<u16>) -> u16 {
    cm_s.map_or(SPEED_UNAVAILABLE, |s| s.min(SPEED_UNAVAILABLE - 1))
}

pub(crate) fn speed_from_code(code: u16) -> Option<u16> {
    (code != SPEED_UNAVAILABLE).then_some(code)
}

/// `YawRateValue` of a yaw rate in 0.01°/s, clamped to ±32766; `None` is unavailable.
pub(crate) fn yaw_rate_code(centideg_s: Option<i16>) -> i16 {
    centideg_s.map_or(YAW_RATE_UNAVAILABLE, |y| y.clamp(-32_766, 32_766))
}

pub(crate) fn yaw_rate_from_code(code: i16) -> Option<i16> {
    (code != YAW_RATE_UNAVAILABLE).then_some(code)
}

/// Errors with "`what` unavailable" when latitude or longitude is unavailable.
pub(crate) fn require_available(lat_e7: i32, lon_e7: i32, what: &str) -> Result<(), CodecError> {
    if lat_e7 == LATITUDE_UNAVAILABLE || lon_e7 == LONGITUDE_UNAVAILABLE {
        Err(CodecError::new(format!("{what} unavailable")))
    } else {
        Ok(())
    }
}

/// A latitude / longitude pair clamped into the encodable range (above it, that is the
/// "unavailable" code).
pub(crate) fn clamp_position(lat_e7: i32, lon_e7: i32) -> (i32, i32) {
    (lat_e7.clamp(-900_000_000, LATITUDE_UNAVAILABLE), lon_e7.clamp(-1_800_000_000, LONGITUDE_UNAVAILABLE))
}

/// A reference position (`ReferencePosition` of the CDD module `$cdd`: every version spells it
/// alike) with confidence ellipse and altitude "unavailable"; latitude and longitude are clamped
/// into their range (above it, that is the "unavailable" code).
macro_rules! position_without_confidence {
    ($cdd:path, $lat_e7:expr, $lon_e7:expr) => {{
        use $cdd as cdd;
        let (lat, lon) = crate::checks::clamp_position($lat_e7, $lon_e7);
        cdd::ReferencePosition {
            latitude: cdd::Latitude(lat),
            longitude: cdd::Longitude(lon),
            position_confidence_ellipse: cdd::PosConfidenceEllipse {
                semi_major_confidence: cdd::SemiAxisLength(4095),
                semi_minor_confidence: cdd::SemiAxisLength(4095),
                semi_major_orientation: cdd::HeadingValue(3601),
            },
            altitude: cdd::Altitude {
                altitude_value: cdd::AltitudeValue(800_001),
                altitude_confidence: cdd::AltitudeConfidence::unavailable,
            },
        }
    }};
}
pub(crate) use position_without_confidence;

/// `decode`, `encode`, `decode_xer` and `encode_xer` of one PDU type, named `$what` in errors;
/// with `feature = "…"`, only when that codec feature is built ([`crate::codecs`]), else each
/// returns its error (the constant branch leaves the generated codec unlinked).
macro_rules! pdu_codec {
    ($pdu:ty, $what:literal) => {
        crate::checks::pdu_codec!($pdu, $what, true, "");
    };
    ($pdu:ty, $what:literal, feature = $feature:tt) => {
        crate::checks::pdu_codec!($pdu, $what, cfg!(feature = $feature), $feature);
    };
    ($pdu:ty, $what:literal, $built:expr, $feature:expr) => {
        #[doc = concat!("Decodes a UPER ", $what, " (exactly the buffer). Structural only: the simple view checks the values.")]
        pub fn decode(bytes: &[u8]) -> Result<$pdu, crate::CodecError> {
            if !$built {
                return Err(crate::codecs::not_built($what, $feature));
            }
            crate::uper_decode_exact(bytes, $what)
        }

        #[doc = concat!("Encodes a ", $what, " in UPER. Fails when a value breaks a constraint of the ASN.1.")]
        pub fn encode(msg: &$pdu) -> Result<Vec<u8>, crate::CodecError> {
            if !$built {
                return Err(crate::codecs::not_built($what, $feature));
            }
            crate::uper_encode(msg, $what)
        }

        #[doc = concat!("Decodes an XER ", $what, ".")]
        pub fn decode_xer(xml: &[u8]) -> Result<$pdu, crate::CodecError> {
            if !$built {
                return Err(crate::codecs::not_built($what, $feature));
            }
            crate::xer_decode(xml, $what)
        }

        #[doc = concat!("Encodes a ", $what, " in XER.")]
        pub fn encode_xer(msg: &$pdu) -> Result<Vec<u8>, crate::CodecError> {
            if !$built {
                return Err(crate::codecs::not_built($what, $feature));
            }
            crate::xer_encode(msg, $what)
        }
    };
}
pub(crate) use pdu_codec;

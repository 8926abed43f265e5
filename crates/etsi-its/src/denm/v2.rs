//! The Release 2 DENM, ETSI TS 103 831 V2.2.1 (c-its-parser's `denm_2_2_1`, over the Common Data
//! Dictionary TS 102 894-2 V2.2.1), and the same [`SimpleDenm`] view of it.
//!
//! What changed for the pipeline's DENMs: the header and ActionID fields are renamed (same wire
//! format); `relevanceDistance` became `awarenessDistance` (`StandardLength3b`, the same eight
//! ranges); the event type is `CauseCodeV2`, a CHOICE with one alternative per cause code (0..=128)
//! whose value is that cause's sub-cause. None of it changes the octets: for what the pipeline
//! sends, both releases encode identically (tested below). Release 2 DENMs keep `protocolVersion`
//! 2, so a receiver knows the release from configuration, not from the header ([`DenmVersion`]).

use core::fmt;
use core::str::FromStr;

/// The Common Data Dictionary V2.2.1 the Release 2 DENM is built from.
pub use c_its_parser::standards::cdd_2_2_1::etsi_its_cdd as cdd;
/// The module `DENM-PDU-Description` of TS 103 831 V2.2.1.
pub use c_its_parser::standards::denm_2_2_1::denm_pdu_description as pdu;

use super::{RelevanceDistance, SimpleDenm, Termination, MESSAGE_ID, PROTOCOL_VERSION};
use crate::checks::{require_available, ExpectedHeader, TIMESTAMP_ITS_MAX};
use crate::CodecError;

/// The Release 2 DENM PDU.
pub type Denm = pdu::DENM;

const HEADER: ExpectedHeader =
    ExpectedHeader::new("DENM", "messageId", MESSAGE_ID, PROTOCOL_VERSION, "TS 103 831 V2.2.1");

/// Highest cause code `CauseCodeChoice` has an alternative for (`reserved128`).
pub const MAX_CAUSE: u8 = 128;

crate::checks::pdu_codec!(Denm, "DENM (TS 103 831)", feature = "denm-v2");

/// Which DENM an RSU is sent: EN 302 637-3 V1.3.1 (Release 1, what deployed vehicles read today)
/// or TS 103 831 V2.2.1 (Release 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DenmVersion {
    #[default]
    V1_3_1,
    V2_2_1,
}

impl DenmVersion {
    pub const ALL: [Self; 2] = [Self::V1_3_1, Self::V2_2_1];

    /// The standard, e.g. `TS 103 831 V2.2.1`.
    pub fn standard(self) -> &'static str {
        match self {
            Self::V1_3_1 => "EN 302 637-3 V1.3.1",
            Self::V2_2_1 => "TS 103 831 V2.2.1",
        }
    }

    /// The DENM in this version's UPER. Without `denm-v2` Release 2 is refused here too, so the
    /// component links none of its codec (the config never gives it: [`DenmVersion::from_str`]).
    pub fn encode(self, denm: &SimpleDenm) -> Result<Vec<u8>, CodecError> {
        match self {
            Self::V1_3_1 => super::encode_sent(denm),
            Self::V2_2_1 if cfg!(feature = "denm-v2") => encode(&denm.to_denm_v2()?),
            Self::V2_2_1 => Err(crate::codecs::not_built("DENM 2.2.1", "denm-v2")),
        }
    }

    /// Reads a UPER DENM of this version.
    pub fn decode(self, bytes: &[u8]) -> Result<SimpleDenm, CodecError> {
        match self {
            Self::V1_3_1 => SimpleDenm::from_denm(&super::decode(bytes)?),
            Self::V2_2_1 if cfg!(feature = "denm-v2") => SimpleDenm::from_denm_v2(&decode(bytes)?),
            Self::V2_2_1 => Err(crate::codecs::not_built("DENM 2.2.1", "denm-v2")),
        }
    }
}

impl fmt::Display for DenmVersion {
    /// The configuration value: `1.3.1` or `2.2.1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::V1_3_1 => "1.3.1",
            Self::V2_2_1 => "2.2.1",
        })
    }
}

impl FromStr for DenmVersion {
    type Err = CodecError;

    /// A version whose codec is not built in is refused here, where the config is read, not
    /// at the first DENM.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let version = Self::ALL.into_iter().find(|v| v.to_string() == s.trim()).ok_or_else(|| {
            CodecError::new(format!(
                "unknown DENM version `{s}` (1.3.1 for {}, 2.2.1 for {})",
                Self::V1_3_1.standard(),
                Self::V2_2_1.standard()
            ))
        })?;
        if version == Self::V2_2_1 && !cfg!(feature = "denm-v2") {
            return Err(crate::codecs::not_built("DENM 2.2.1", "denm-v2"));
        }
        Ok(version)
    }
}

/// `CauseCodeChoice` for a cause and sub-cause. Its UPER is the alternative's index (8 bits, the
/// CHOICE has 129 alternatives and no extension marker) followed by the sub-cause (every
/// alternative is an INTEGER (0..255)), and alternative N is cause code N: reading those two
/// octets with the generated decoder picks the alternative without a hand-written table of 129.
fn cause_choice(cause: u8, sub_cause: u8) -> Result<cdd::CauseCodeChoice, CodecError> {
    if cause > MAX_CAUSE {
        return Err(CodecError::new(format!(
            "cause code {cause} has no CauseCodeChoice alternative (0..={MAX_CAUSE})"
        )));
    }
    rasn::uper::decode(&[cause, sub_cause]).map_err(|e| CodecError::new(format!("cause code {cause}: {e}")))
}

/// (cause, sub-cause) of a `CauseCodeChoice`: the inverse of [`cause_choice`].
fn cause_of(choice: &cdd::CauseCodeChoice) -> Result<(u8, u8), CodecError> {
    match rasn::uper::encode(choice).map_err(|e| CodecError::new(format!("CauseCodeChoice: {e}")))?[..] {
        [cause, sub_cause] => Ok((cause, sub_cause)),
        ref other => Err(CodecError::new(format!("CauseCodeChoice encodes to {} octets, not 2", other.len()))),
    }
}

impl SimpleDenm {
    /// Builds the Release 2 DENM with the same content as [`SimpleDenm::to_denm`] builds the
    /// Release 1 one (same clamping and "unavailable" codes; relevance distance as awareness
    /// distance). Errors for a cause above [`MAX_CAUSE`], which Release 2 cannot express.
    pub fn to_denm_v2(&self) -> Result<Denm, CodecError> {
        let header = cdd::ItsPduHeader::new(
            cdd::OrdinalNumber1B(PROTOCOL_VERSION),
            cdd::MessageId(MESSAGE_ID),
            cdd::StationId(self.station_id),
        );
        let management = pdu::ManagementContainer::new(
            cdd::ActionId::new(cdd::StationId(self.originating_station_id), cdd::SequenceNumber(self.sequence_number)),
            cdd::TimestampIts(self.detection_time_its_ms.min(TIMESTAMP_ITS_MAX)),
            cdd::TimestampIts(self.reference_time_its_ms.min(TIMESTAMP_ITS_MAX)),
            self.termination.map(|t| match t {
                Termination::IsCancellation => pdu::Termination::isCancellation,
                Termination::IsNegation => pdu::Termination::isNegation,
            }),
            crate::checks::position_without_confidence!(cdd, self.event_lat_e7, self.event_lon_e7),
            self.relevance_distance.map(awareness_distance),
            None,
            cdd::DeltaTimeSecond(self.validity_duration_s.min(86_400)),
            None,
            cdd::StationType(self.station_type),
        );
        let situation = pdu::SituationContainer::new(
            cdd::InformationQuality(self.information_quality.min(7)),
            cdd::CauseCodeV2::new(cause_choice(self.cause, self.sub_cause)?),
            None,
            None,
            None,
        );
        Ok(Denm::new(header, pdu::DenmPayload::new(management, Some(situation), None, None)))
    }

    /// Reads the pipeline's view out of a Release 2 DENM, with the checks of
    /// [`SimpleDenm::from_denm`].
    pub fn from_denm_v2(denm: &Denm) -> Result<SimpleDenm, CodecError> {
        HEADER.check(denm.header.protocol_version.0, denm.header.message_id.0)?;
        let management = &denm.denm.management;
        let position = &management.event_position;
        require_available(position.latitude.0, position.longitude.0, "DENM event position")?;
        let (cause, sub_cause, information_quality) = match &denm.denm.situation {
            Some(s) => {
                let (cause, sub_cause) = cause_of(&s.event_type.cc_and_scc)?;
                (cause, sub_cause, s.information_quality.0)
            }
            None => (0, 0, 0),
        };
        Ok(SimpleDenm {
            station_id: denm.header.station_id.0,
            originating_station_id: management.action_id.originating_station_id.0,
            sequence_number: management.action_id.sequence_number.0,
            detection_time_its_ms: management.detection_time.0,
            reference_time_its_ms: management.reference_time.0,
            event_lat_e7: position.latitude.0,
            event_lon_e7: position.longitude.0,
            relevance_distance: management.awareness_distance.map(|d| RelevanceDistance::ALL[d as usize]),
            validity_duration_s: management.validity_duration.0,
            termination: management.termination.map(|t| match t {
                pdu::Termination::isCancellation => Termination::IsCancellation,
                pdu::Termination::isNegation => Termination::IsNegation,
            }),
            station_type: management.station_type.0,
            cause,
            sub_cause,
            information_quality,
        })
    }
}

/// Both enumerate the same eight ranges in the same order.
fn awareness_distance(distance: RelevanceDistance) -> cdd::StandardLength3b {
    use cdd::StandardLength3b as L;
    match distance {
        RelevanceDistance::LessThan50m => L::lessThan50m,
        RelevanceDistance::LessThan100m => L::lessThan100m,
        RelevanceDistance::LessThan200m => L::lessThan200m,
        RelevanceDistance::LessThan500m => L::lessThan500m,
        RelevanceDistance::LessThan1000m => L::lessThan1000m,
        RelevanceDistance::LessThan5km => L::lessThan5km,
        RelevanceDistance::LessThan10km => L::lessThan10km,
        RelevanceDistance::Over10km => L::over10km,
    }
}

/// Built without Release 2: the version is refused where the config is read, and by the codec
/// itself.
#[cfg(all(test, not(feature = "denm-v2")))]
mod without_release_2 {
    use super::*;

    #[test]
    fn release_2_is_refused_naming_the_feature() {
        assert!(DenmVersion::from_str("2.2.1").unwrap_err().to_string().contains("denm-v2"));
        let denm = crate::denm::fixtures::sample();
        assert!(DenmVersion::V2_2_1.encode(&denm).unwrap_err().to_string().contains("denm-v2"));
        assert!(DenmVersion::V2_2_1.decode(&[0; 8]).unwrap_err().to_string().contains("denm-v2"));
        assert!(DenmVersion::V1_3_1.encode(&denm).is_ok());
    }
}

#[cfg(all(test, feature = "denm-v2"))]
mod tests {
    use super::*;
    use crate::denm::codes;
    use crate::denm::fixtures;

    /// The DENM fixtures, the largest with the largest cause Release 2 can express.
    fn all_fixtures() -> Vec<SimpleDenm> {
        let max = SimpleDenm { cause: MAX_CAUSE, ..fixtures::extremes_max() };
        vec![fixtures::sample(), max, fixtures::extremes_min()]
    }

    #[test]
    fn release_2_carries_what_release_1_carries() {
        for denm in all_fixtures() {
            let v1 = DenmVersion::V1_3_1.decode(&DenmVersion::V1_3_1.encode(&denm).unwrap()).unwrap();
            let bytes = DenmVersion::V2_2_1.encode(&denm).unwrap();
            let v2 = DenmVersion::V2_2_1.decode(&bytes).unwrap();
            assert_eq!(v2, v1, "{denm:?}");
        }
    }

    #[test]
    fn collision_risk_is_the_collision_risk_alternative() {
        let denm =
            SimpleDenm { cause: codes::COLLISION_RISK, sub_cause: codes::VULNERABLE_ROAD_USER, ..fixtures::sample() };
        let v2 = denm.to_denm_v2().unwrap();
        let choice = &v2.denm.situation.as_ref().unwrap().event_type.cc_and_scc;
        assert_eq!(
            *choice,
            cdd::CauseCodeChoice::collisionRisk97(cdd::CollisionRiskSubCauseCode(codes::VULNERABLE_ROAD_USER))
        );
        let accident = cause_choice(2, 7).unwrap();
        assert_eq!(accident, cdd::CauseCodeChoice::accident2(cdd::AccidentSubCauseCode(7)));
    }

    #[test]
    fn every_cause_and_relevance_survives_release_2() {
        for cause in 0..=MAX_CAUSE {
            for sub_cause in [0, 1, 255] {
                assert_eq!(cause_of(&cause_choice(cause, sub_cause).unwrap()).unwrap(), (cause, sub_cause));
            }
        }
        for distance in RelevanceDistance::ALL {
            let denm = SimpleDenm { relevance_distance: Some(distance), ..fixtures::sample() };
            let back = DenmVersion::V2_2_1.decode(&DenmVersion::V2_2_1.encode(&denm).unwrap()).unwrap();
            assert_eq!(back.relevance_distance, Some(distance));
        }
        let beyond = SimpleDenm { cause: MAX_CAUSE + 1, ..fixtures::sample() };
        assert!(beyond.to_denm_v2().unwrap_err().message().contains("no CauseCodeChoice"));
    }

    #[test]
    fn versions_parse_from_configuration() {
        for version in DenmVersion::ALL {
            assert_eq!(version.to_string().parse::<DenmVersion>().unwrap(), version);
        }
        assert!("2.1.1".parse::<DenmVersion>().unwrap_err().message().contains("1.3.1 for EN 302 637-3"));
    }

    /// TS 103 831 kept the wire format of V1.3.1 for everything the pipeline's DENMs carry
    /// (renamed fields, `CauseCodeV2`'s CHOICE index is the cause code): a Release 2 receiver reads
    /// a V1.3.1 collision warning as is. Each release's decoder still checks its own tree.
    #[test]
    fn both_releases_send_the_same_octets_for_the_pipelines_denms() {
        for denm in all_fixtures() {
            let v1 = DenmVersion::V1_3_1.encode(&denm).unwrap();
            assert_eq!(DenmVersion::V2_2_1.encode(&denm).unwrap(), v1, "{denm:?}");
            assert_eq!(DenmVersion::V2_2_1.decode(&v1).unwrap(), denm);
        }
    }
}

//! Flat, plain-Rust view of a DENM for the pipeline: who reports which event
//! where, when, for how long, and whether the event is terminated.
//! [`SimpleDenm::to_denm`] builds the ASN.1 tree, [`SimpleDenm::from_denm`]
//! reads one back and rejects DENMs the pipeline cannot use.

use super::*;
use crate::checks::{require_available, ExpectedHeader, TIMESTAMP_ITS_MAX};
use c_its_parser::standards::cdd_1_3_1_1::its_container as asn1;
use c_its_parser::standards::denm_1_3_1::denm_pdu_descriptions as pdu;

const HEADER: ExpectedHeader =
    ExpectedHeader::new("DENM", "messageID", MESSAGE_ID, PROTOCOL_VERSION, "EN 302 637-3 V1.3.1");

/// `Termination ::= ENUMERATED {isCancellation(0), isNegation (1)}`: a cancellation is sent by
/// the originator of the event, a negation by another station that no longer observes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Termination {
    IsCancellation,
    IsNegation,
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

    pub fn to_asn1(self) -> pdu::Termination {
        match self {
            Self::IsCancellation => pdu::Termination::isCancellation,
            Self::IsNegation => pdu::Termination::isNegation,
        }
    }

    pub fn from_asn1(termination: pdu::Termination) -> Self {
        match termination {
            pdu::Termination::isCancellation => Self::IsCancellation,
            pdu::Termination::isNegation => Self::IsNegation,
        }
    }
}

/// `RelevanceDistance`: the radius around the event position within which it matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RelevanceDistance {
    LessThan50m,
    LessThan100m,
    LessThan200m,
    LessThan500m,
    LessThan1000m,
    LessThan5km,
    LessThan10km,
    Over10km,
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

    pub fn to_asn1(self) -> asn1::RelevanceDistance {
        use asn1::RelevanceDistance as R;
        match self {
            Self::LessThan50m => R::lessThan50m,
            Self::LessThan100m => R::lessThan100m,
            Self::LessThan200m => R::lessThan200m,
            Self::LessThan500m => R::lessThan500m,
            Self::LessThan1000m => R::lessThan1000m,
            Self::LessThan5km => R::lessThan5km,
            Self::LessThan10km => R::lessThan10km,
            Self::Over10km => R::over10km,
        }
    }

    pub fn from_asn1(distance: asn1::RelevanceDistance) -> Self {
        // declared in the order of the enumeration
        Self::ALL[distance as usize]
    }
}

/// A DENM reduced to what the pipeline consumes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SimpleDenm {
    /// Header `stationID`: the station sending this DENM.
    pub station_id: u32,
    /// `actionID.originatingStationID`: the station that detected the event
    /// (differs from `station_id` when a DENM is forwarded or negated).
    pub originating_station_id: u32,
    /// `actionID.sequenceNumber`: with `originating_station_id`, identifies
    /// the event across updates and termination.
    pub sequence_number: u16,
    /// `detectionTime`: ms since 2004-01-01T00:00:00Z, leap seconds included
    /// (TimestampIts, 0..=2^42-1).
    pub detection_time_its_ms: u64,
    /// `referenceTime`: generation time of this DENM, same scale.
    pub reference_time_its_ms: u64,
    /// Event latitude, 1e-7° (0.1 µdegree), positive north.
    pub event_lat_e7: i32,
    /// Event longitude, 1e-7°, positive east.
    pub event_lon_e7: i32,
    /// Radius around the event position within which it matters.
    pub relevance_distance: Option<RelevanceDistance>,
    /// `validityDuration`: seconds after detection, 0..=86400; 600 is the
    /// standard's default and is then left out of the encoding.
    pub validity_duration_s: u32,
    /// `Some` for a cancellation (by the originator) or negation (by another
    /// station) of the event identified by the action id.
    pub termination: Option<Termination>,
    /// `stationType` of the originating station, see [`StationType`] ([`codes`]).
    pub station_type: u8,
    /// `eventType.causeCode`, see [`CauseCodeType`] (97 = collisionRisk, [`codes`]).
    pub cause: u8,
    /// `eventType.subCauseCode`, e.g. `CollisionRiskSubCauseCode`
    /// (2 = crossingCollisionRisk, 4 = vulnerableRoadUser).
    pub sub_cause: u8,
    /// `informationQuality`: 0 = unavailable, 1 (lowest) ..= 7 (highest).
    pub information_quality: u8,
}

impl SimpleDenm {
    /// Builds the ASN.1 DENM (protocolVersion 2, messageID denm). Values
    /// outside a field's range are clamped to the nearest encodable value (the
    /// "unavailable" code for latitude / longitude above their range), so the
    /// result always encodes. The event position is sent with confidence
    /// ellipse and altitude "unavailable". A validity of 600 s is omitted
    /// (DEFAULT). The Situation container is always present, also in
    /// terminations, so the cause travels with every DENM of an event.
    pub fn to_denm(&self) -> Denm {
        let header = ItsPduHeader {
            protocol_version: PROTOCOL_VERSION,
            message_id: MESSAGE_ID,
            station_id: StationID(self.station_id),
        };
        let event_position = crate::checks::position_without_confidence!(asn1, self.event_lat_e7, self.event_lon_e7);
        let management = ManagementContainer::new(
            ActionID {
                originating_station_id: StationID(self.originating_station_id),
                sequence_number: SequenceNumber(self.sequence_number),
            },
            TimestampIts(self.detection_time_its_ms.min(TIMESTAMP_ITS_MAX)),
            TimestampIts(self.reference_time_its_ms.min(TIMESTAMP_ITS_MAX)),
            self.termination.map(Termination::to_asn1),
            event_position,
            self.relevance_distance.map(RelevanceDistance::to_asn1),
            None,
            ValidityDuration(self.validity_duration_s.min(86_400)),
            None,
            StationType(self.station_type),
        );
        let situation = SituationContainer::new(
            InformationQuality(self.information_quality.min(7)),
            CauseCode::new(CauseCodeType(self.cause), SubCauseCodeType(self.sub_cause)),
            None,
            None,
        );
        Denm {
            header,
            denm: DecentralizedEnvironmentalNotificationMessage {
                management,
                situation: Some(situation),
                location: None,
                alacarte: None,
            },
        }
    }

    /// Reads the pipeline's view out of a decoded DENM.
    ///
    /// Errors when the message is not an EN 302 637-3 V1.3.1 DENM
    /// (`messageID` ≠ 1, `protocolVersion` ≠ 2) or its event position is
    /// unavailable. A DENM without Situation container (allowed by the ASN.1)
    /// reads as cause 0 (reserved), sub-cause 0 and information quality 0
    /// (unavailable). Location and à la carte containers are ignored.
    pub fn from_denm(denm: &Denm) -> Result<SimpleDenm, CodecError> {
        let header = &denm.header;
        HEADER.check(header.protocol_version, header.message_id)?;
        let management = &denm.denm.management;
        let position = &management.event_position;
        require_available(position.latitude.0, position.longitude.0, "DENM event position")?;
        let (cause, sub_cause, information_quality) =
            denm.denm.situation.as_ref().map_or((0, 0, 0), |s| {
                (s.event_type.cause_code.0, s.event_type.sub_cause_code.0, s.information_quality.0)
            });
        Ok(SimpleDenm {
            station_id: header.station_id.0,
            originating_station_id: management.action_id.originating_station_id.0,
            sequence_number: management.action_id.sequence_number.0,
            detection_time_its_ms: management.detection_time.0,
            reference_time_its_ms: management.reference_time.0,
            event_lat_e7: position.latitude.0,
            event_lon_e7: position.longitude.0,
            relevance_distance: management.relevance_distance.map(RelevanceDistance::from_asn1),
            validity_duration_s: management.validity_duration.0,
            termination: management.termination.map(Termination::from_asn1),
            station_type: management.station_type.0,
            cause,
            sub_cause,
            information_quality,
        })
    }
}

//! Flat, plain-Rust view of a DENM for the pipeline: who reports which event
//! where, when, for how long, and whether the event is terminated.
//! [`SimpleDenm::to_denm`] builds the ASN.1 tree, [`SimpleDenm::from_denm`]
//! reads one back and rejects DENMs the pipeline cannot use.

use super::*;
use crate::checks::{require_available, ExpectedHeader};

const HEADER: ExpectedHeader = ExpectedHeader {
    message: "DENM",
    message_id_field: "messageID",
    message_id: MessageId::DENM,
    protocol_version: PROTOCOL_VERSION,
    standard: "EN 302 637-3 V1.3.1",
};

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
    /// `stationType` of the originating station, see [`StationType`].
    pub station_type: u8,
    /// `eventType.causeCode`, see [`CauseCodeType`] (97 = collisionRisk).
    pub cause: u8,
    /// `eventType.subCauseCode`, e.g. [`CollisionRiskSubCauseCode`]
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
            protocol_version: OrdinalNumber1B(PROTOCOL_VERSION),
            message_id: MessageId::DENM,
            station_id: StationId(self.station_id),
        };
        let event_position = ReferencePosition::without_confidence(self.event_lat_e7, self.event_lon_e7);
        let management = ManagementContainer {
            action_id: ActionId {
                originating_station_id: StationId(self.originating_station_id),
                sequence_number: SequenceNumber(self.sequence_number),
            },
            detection_time: TimestampIts(self.detection_time_its_ms.min(TimestampIts::MAX.0)),
            reference_time: TimestampIts(self.reference_time_its_ms.min(TimestampIts::MAX.0)),
            termination: self.termination,
            event_position,
            relevance_distance: self.relevance_distance,
            relevance_traffic_direction: None,
            validity_duration: ValidityDuration(self.validity_duration_s.min(86_400)),
            transmission_interval: None,
            station_type: StationType(self.station_type),
        };
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
        HEADER.check(header)?;
        let management = &denm.denm.management;
        let position = &management.event_position;
        require_available(position, "DENM event position")?;
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
            relevance_distance: management.relevance_distance,
            validity_duration_s: management.validity_duration.0,
            termination: management.termination,
            station_type: management.station_type.0,
            cause,
            sub_cause,
            information_quality,
        })
    }
}

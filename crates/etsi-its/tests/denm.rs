//! DENM codec (EN 302 637-3 V1.3.1): SimpleDenm round trips over the whole
//! value ranges, terminations, the DEFAULT validity, a hand-derived bit
//! layout, reference encodings, and robustness against malformed input.
//! The cross-check with an independent implementation (pycrate) lives in
//! tests/python/test_denm_pycrate.py.

use etsi_its::denm::{self, fixtures, *};
use proptest::prelude::*;

const TIMESTAMP_ITS_MAX: u64 = 4_398_046_511_103;

/// UPER of [`fixtures::full`]; pycrate 0.8.1 (`ITS_DENM_3`) decodes it to the
/// same values and re-encodes it to the same bytes.
const FULL_DENM_UPER_HEX: &str = "020100000bbaef800003e880039137e86a64044dfa1a9cc691207cc3988ed7807d03c1c2000002f6a3001f382be610406010600007fffe0001fffc10004bffeb8e73b8adbfb84401002c00c70063b19c00001ff9b7fcdd8ceefc006301f901ddf8d7f4f10087ff80ffce44c84048e80c101a4481f30e623b5e1ffffffc23b7743f48903e61cc476bc3ffffff8476ee87dfe0b807cd8ce31ffffffff000000000000ffff4ff2d84ba44b3a267662d08ad04d011a08a3b2b330b43933baba1026e1de363632b97f757ad5ed5ab4c65da48";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn round_trip(simple: &SimpleDenm) -> SimpleDenm {
    let bytes = denm::encode(&simple.to_denm()).expect("SimpleDenm always encodes");
    let decoded = denm::decode(&bytes).expect("own encoding decodes");
    assert_eq!(decoded, simple.to_denm(), "ASN.1 tree survives UPER");
    SimpleDenm::from_denm(&decoded).expect("own DENM is usable")
}

/// Bit `index` (0 = most significant bit of the first octet).
fn bit(bytes: &[u8], index: usize) -> bool {
    bytes[index / 8] & (0x80 >> (index % 8)) != 0
}

/// MSB-first bit writer for hand-built expectations.
#[derive(Default)]
struct Bits(Vec<bool>);

impl Bits {
    /// Appends `value` as an `n`-bit unsigned number.
    fn push(&mut self, value: u64, n: usize) -> &mut Self {
        self.0.extend((0..n).rev().map(|i| (value >> i) & 1 == 1));
        self
    }
    fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.0.len().div_ceil(8)];
        for (i, _) in self.0.iter().enumerate().filter(|(_, b)| **b) {
            out[i / 8] |= 0x80 >> (i % 8);
        }
        out
    }
}

// Bit offsets of the management container in a DENM, derived below in
// `minimal_denm_has_the_hand_derived_bit_layout`.
const TERMINATION_PRESENCE_BIT: usize = 52;
const VALIDITY_PRESENCE_BIT: usize = 55;
/// First bit after actionID, detectionTime and referenceTime.
const AFTER_TIMES_BIT: usize = 189;

// ---------------------------------------------------------------- reference encodings

#[test]
fn sample_matches_the_independent_pycrate_encoding() {
    let sample = fixtures::sample();
    let bytes = denm::encode(&sample.to_denm()).unwrap();
    assert_eq!(hex(&bytes), fixtures::SAMPLE_DENM_UPER_HEX);
    let decoded = denm::decode(&unhex(fixtures::SAMPLE_DENM_UPER_HEX)).unwrap();
    assert_eq!(SimpleDenm::from_denm(&decoded).unwrap(), sample);
}

#[test]
fn full_denm_round_trips_bit_exactly() {
    let full = fixtures::full();
    let bytes = denm::encode(&full).unwrap();
    assert_eq!(hex(&bytes), FULL_DENM_UPER_HEX);
    let decoded = denm::decode(&bytes).unwrap();
    assert_eq!(decoded, full);
    let alacarte = decoded.denm.alacarte.as_ref().unwrap();
    let goods = alacarte.stationary_vehicle.as_ref().unwrap().carrying_dangerous_goods.as_ref().unwrap();
    assert_eq!(goods.company_name.as_deref(), Some("Gefahrgut Müller"));
    let history = decoded.denm.situation.as_ref().unwrap().event_history.as_ref().unwrap();
    assert_eq!(history.0[0].event_delta_time.as_ref().map(|t| t.0.clone()), Some(65_535.into()));
}

#[test]
fn collision_risk_codes_are_the_its_container_values() {
    assert_eq!(codes::COLLISION_RISK, 97);
    assert_eq!(codes::COLLISION_RISK_UNAVAILABLE, 0);
    assert_eq!(codes::LONGITUDINAL_COLLISION_RISK, 1);
    assert_eq!(codes::CROSSING_COLLISION_RISK, 2);
    assert_eq!(codes::LATERAL_COLLISION_RISK, 3);
    assert_eq!(codes::VULNERABLE_ROAD_USER, 4);
}

// ---------------------------------------------------------------- hand-derived layout

/// A minimal DENM: header, management container with no optional component
/// (validity at its default), no situation / location / à la carte container.
///
/// UPER, bit by bit (X.691; constrained whole numbers take
/// ceil(log2(ub - lb + 1)) bits and carry `value - lb`):
///
/// | bits    | width | field                                              |
/// |---------|-------|----------------------------------------------------|
/// | 0-7     | 8     | header.protocolVersion (0..255) = 2                |
/// | 8-15    | 8     | header.messageID (0..255) = 1 (denm)               |
/// | 16-47   | 32    | header.stationID (0..4294967295)                   |
/// | 48-50   | 3     | presence = 000: situation, location, alacarte (no  |
/// |         |       | extension bit: the SEQUENCE has no `...`)          |
/// | 51      | 1     | ManagementContainer extension bit = 0              |
/// | 52-56   | 5     | presence = 00000: termination, relevanceDistance,  |
/// |         |       | relevanceTrafficDirection, validityDuration        |
/// |         |       | (DEFAULT), transmissionInterval                    |
/// | 57-88   | 32    | actionID.originatingStationID                      |
/// | 89-104  | 16    | actionID.sequenceNumber (0..65535)                 |
/// | 105-146 | 42    | detectionTime (0..2^42-1)                          |
/// | 147-188 | 42    | referenceTime                                      |
/// | 189-219 | 31    | eventPosition.latitude + 900000000 (1800000002 values) |
/// | 220-251 | 32    | eventPosition.longitude + 1800000000 (3600000002 values) |
/// | 252-263 | 12    | semiMajorConfidence (0..4095)                      |
/// | 264-275 | 12    | semiMinorConfidence (0..4095)                      |
/// | 276-287 | 12    | semiMajorOrientation (0..3601)                     |
/// | 288-307 | 20    | altitudeValue + 100000 (900002 values)             |
/// | 308-311 | 4     | altitudeConfidence: index of 16 (not extensible)   |
/// | 312-319 | 8     | stationType (0..255)                               |
///
/// 320 bits, exactly 40 octets, no padding.
#[test]
fn minimal_denm_has_the_hand_derived_bit_layout() {
    let position = ReferencePosition {
        latitude: Latitude(-123_456_789),
        longitude: Longitude(987_654_321),
        position_confidence_ellipse: PosConfidenceEllipse {
            semi_major_confidence: SemiAxisLength(4094),
            semi_minor_confidence: SemiAxisLength(1),
            semi_major_orientation: HeadingValue(3601),
        },
        altitude: Altitude { altitude_value: AltitudeValue(-1), altitude_confidence: AltitudeConfidence::alt_001_00 },
    };
    let minimal = Denm {
        header: ItsPduHeader { protocol_version: 2, message_id: MESSAGE_ID, station_id: StationID(0xDEAD_BEEF) },
        denm: DecentralizedEnvironmentalNotificationMessage {
            management: ManagementContainer::new(
                ActionID { originating_station_id: StationID(42), sequence_number: SequenceNumber(0xABCD) },
                TimestampIts(0x2AA_AAAA_AAAA),
                TimestampIts(TIMESTAMP_ITS_MAX),
                None,
                position,
                None,
                None,
                ValidityDuration(600),
                None,
                StationType(1), // pedestrian
            ),
            situation: None,
            location: None,
            alacarte: None,
        },
    };

    let mut expected = Bits::default();
    expected
        .push(2, 8)
        .push(1, 8)
        .push(0xDEAD_BEEF, 32)
        .push(0b000, 3)
        .push(0, 1)
        .push(0b00000, 5)
        .push(42, 32)
        .push(0xABCD, 16)
        .push(0x2AA_AAAA_AAAA, 42)
        .push(TIMESTAMP_ITS_MAX, 42)
        .push((-123_456_789i64 + 900_000_000) as u64, 31)
        .push((987_654_321i64 + 1_800_000_000) as u64, 32)
        .push(4094, 12)
        .push(1, 12)
        .push(3601, 12)
        .push((-1i64 + 100_000) as u64, 20)
        .push(6, 4) // alt-001-00 is the 7th root value
        .push(1, 8);
    assert_eq!(expected.0.len(), 320);

    let bytes = denm::encode(&minimal).unwrap();
    assert_eq!(hex(&bytes), hex(&expected.to_bytes()));
    assert_eq!(denm::decode(&bytes).unwrap(), minimal);
}

// ---------------------------------------------------------------- SimpleDenm round trips

/// Ranges bias towards the bounds: proptest alone would rarely hit them.
fn edgy_i64(lo: i64, hi: i64) -> impl Strategy<Value = i64> {
    prop_oneof![1 => Just(lo), 1 => Just(hi), 6 => lo..=hi]
}

prop_compose! {
    fn simple_denm()(
        station_id in prop_oneof![Just(0u32), Just(u32::MAX), any::<u32>()],
        originating_station_id in prop_oneof![Just(0u32), Just(u32::MAX), any::<u32>()],
        sequence_number in any::<u16>(),
        detection_time_its_ms in edgy_i64(0, TIMESTAMP_ITS_MAX as i64),
        reference_time_its_ms in edgy_i64(0, TIMESTAMP_ITS_MAX as i64),
        // the "unavailable" codes 900000001 / 1800000001 are rejected by from_denm
        event_lat_e7 in edgy_i64(-900_000_000, 900_000_000),
        event_lon_e7 in edgy_i64(-1_800_000_000, 1_800_000_000),
        relevance_distance in proptest::option::of(proptest::sample::select(RelevanceDistance::ALL.to_vec())),
        validity_duration_s in prop_oneof![1 => Just(600i64), 4 => edgy_i64(0, 86_400)],
        termination in proptest::option::of(proptest::sample::select(Termination::ALL.to_vec())),
        station_type in any::<u8>(),
        cause in prop_oneof![Just(97u8), any::<u8>()],
        sub_cause in any::<u8>(),
        information_quality in 0u8..=7,
    ) -> SimpleDenm {
        SimpleDenm {
            station_id,
            originating_station_id,
            sequence_number,
            detection_time_its_ms: detection_time_its_ms as u64,
            reference_time_its_ms: reference_time_its_ms as u64,
            event_lat_e7: event_lat_e7 as i32,
            event_lon_e7: event_lon_e7 as i32,
            relevance_distance,
            validity_duration_s: validity_duration_s as u32,
            termination,
            station_type,
            cause,
            sub_cause,
            information_quality,
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn simple_denm_round_trips(simple in simple_denm()) {
        prop_assert_eq!(round_trip(&simple), simple);
    }

    /// The lean encoder the pipeline sends with writes the generated encoder's octets.
    #[test]
    fn sent_denms_encode_as_the_generated_encoder_does(simple in simple_denm()) {
        prop_assert_eq!(denm::encode_sent(&simple).unwrap(), denm::encode(&simple.to_denm()).unwrap());
    }

    #[test]
    fn default_validity_presence_bit_follows_the_value(simple in simple_denm()) {
        let bytes = denm::encode(&simple.to_denm()).unwrap();
        prop_assert_eq!(bit(&bytes, VALIDITY_PRESENCE_BIT), simple.validity_duration_s != 600);
        prop_assert_eq!(bit(&bytes, TERMINATION_PRESENCE_BIT), simple.termination.is_some());
    }

    /// Malformed input yields an error, never a panic (decode, then the
    /// SimpleDenm view when the bytes happen to form a DENM).
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..160)) {
        if let Ok(decoded) = denm::decode(&bytes) {
            let _ = SimpleDenm::from_denm(&decoded);
        }
    }

    /// Bit flips in a valid DENM: no panic, and whatever still decodes is a
    /// valid DENM again (re-encodes and decodes to the same value).
    #[test]
    fn corrupted_full_denm_never_panics(
        flips in proptest::collection::vec(0usize..(FULL_DENM_UPER_HEX.len() * 4), 1..8),
    ) {
        let mut bytes = unhex(FULL_DENM_UPER_HEX);
        for flip in flips {
            bytes[flip / 8] ^= 0x80 >> (flip % 8);
        }
        if let Ok(decoded) = denm::decode(&bytes) {
            let _ = SimpleDenm::from_denm(&decoded);
            let again = denm::encode(&decoded).expect("a decoded DENM re-encodes");
            prop_assert_eq!(denm::decode(&again).expect("re-encoding decodes"), decoded);
        }
    }
}

#[test]
fn extremes_round_trip() {
    for extreme in [fixtures::extremes_max(), fixtures::extremes_min()] {
        assert_eq!(round_trip(&extreme), extreme);
    }
}

#[test]
fn out_of_range_values_are_clamped() {
    let wild = SimpleDenm {
        detection_time_its_ms: u64::MAX,
        reference_time_its_ms: TIMESTAMP_ITS_MAX + 1,
        event_lat_e7: i32::MIN,
        event_lon_e7: i32::MIN,
        validity_duration_s: u32::MAX,
        information_quality: u8::MAX,
        ..fixtures::sample()
    };
    let back = round_trip(&wild);
    assert_eq!(back.detection_time_its_ms, TIMESTAMP_ITS_MAX);
    assert_eq!(back.reference_time_its_ms, TIMESTAMP_ITS_MAX);
    assert_eq!((back.event_lat_e7, back.event_lon_e7), (-900_000_000, -1_800_000_000));
    assert_eq!(back.validity_duration_s, 86_400);
    assert_eq!(back.information_quality, 7);

    // above the range the clamp lands on "unavailable", which from_denm rejects
    let north = SimpleDenm { event_lat_e7: i32::MAX, ..fixtures::sample() };
    let bytes = denm::encode(&north.to_denm()).unwrap();
    assert!(SimpleDenm::from_denm(&denm::decode(&bytes).unwrap()).is_err());
}

// ---------------------------------------------------------------- termination

#[test]
fn termination_variants_round_trip_with_their_wire_bits() {
    for termination in [None, Some(Termination::IsCancellation), Some(Termination::IsNegation)] {
        let simple = SimpleDenm { termination, ..fixtures::sample() };
        let bytes = denm::encode(&simple.to_denm()).unwrap();
        assert_eq!(bit(&bytes, TERMINATION_PRESENCE_BIT), termination.is_some(), "{termination:?}");
        if let Some(t) = termination {
            // ENUMERATED with two root values, not extensible: one bit, the index
            assert_eq!(bit(&bytes, AFTER_TIMES_BIT), t == Termination::IsNegation, "{t:?}");
        }
        assert_eq!(round_trip(&simple), simple);
    }
}

#[test]
fn termination_keeps_the_action_id_and_cause() {
    let event = fixtures::sample();
    let cancel = SimpleDenm { termination: Some(Termination::IsCancellation), ..event.clone() };
    let decoded = denm::decode(&denm::encode(&cancel.to_denm()).unwrap()).unwrap();
    assert_eq!(decoded.denm.management.action_id, event.to_denm().denm.management.action_id);
    assert_eq!(decoded.denm.situation.as_ref().unwrap().event_type.cause_code, CauseCodeType(codes::COLLISION_RISK));
}

// ---------------------------------------------------------------- DEFAULT validity

#[test]
fn default_validity_is_omitted_and_restored() {
    let default = fixtures::sample();
    assert_eq!(default.validity_duration_s, 600);
    let longer = SimpleDenm { validity_duration_s: 601, ..default.clone() };
    let default_bytes = denm::encode(&default.to_denm()).unwrap();
    let longer_bytes = denm::encode(&longer.to_denm()).unwrap();
    assert!(!bit(&default_bytes, VALIDITY_PRESENCE_BIT));
    assert!(bit(&longer_bytes, VALIDITY_PRESENCE_BIT));
    // ValidityDuration (0..86400) takes 17 bits when present
    assert_eq!(default_bytes.len(), 44);
    assert_eq!(longer_bytes.len(), 46);
    assert_eq!(denm::decode(&default_bytes).unwrap().denm.management.validity_duration, DEFAULT_VALIDITY);
    assert_eq!(round_trip(&default), default);
}

#[test]
fn explicitly_encoded_default_validity_decodes_and_reencodes_canonically() {
    // Sample without relevance distance: validityDuration then starts right
    // after the 123-bit eventPosition (no termination either).
    let simple = SimpleDenm { relevance_distance: None, validity_duration_s: 601, ..fixtures::sample() };
    let mut bytes = denm::encode(&simple.to_denm()).unwrap();
    let start = AFTER_TIMES_BIT + 123;
    let read = |bytes: &[u8]| (0..17).fold(0u32, |v, i| (v << 1) | u32::from(bit(bytes, start + i)));
    assert_eq!(read(&bytes), 601);
    // 601 -> 600: clear the lowest bit of the 17-bit field
    let last = start + 16;
    bytes[last / 8] &= !(0x80 >> (last % 8));
    assert_eq!(read(&bytes), 600);

    let decoded = denm::decode(&bytes).expect("a non-canonical explicit DEFAULT is still valid");
    assert_eq!(decoded.denm.management.validity_duration, DEFAULT_VALIDITY);
    let canonical = denm::encode(&decoded).unwrap();
    assert!(canonical.len() < bytes.len());
    assert_eq!(canonical, denm::encode(&SimpleDenm { validity_duration_s: 600, ..simple }.to_denm()).unwrap());
}

// ---------------------------------------------------------------- rejection

#[test]
fn truncated_empty_and_padded_inputs_are_rejected() {
    for reference in [unhex(fixtures::SAMPLE_DENM_UPER_HEX), unhex(FULL_DENM_UPER_HEX)] {
        for len in 0..reference.len() {
            assert!(denm::decode(&reference[..len]).is_err(), "prefix of {len} bytes decoded");
        }
        let mut trailing = reference.clone();
        trailing.push(0);
        assert!(denm::decode(&trailing).is_err());
    }
}

#[test]
fn from_denm_rejects_what_the_pipeline_cannot_use() {
    let good = fixtures::sample().to_denm();

    let mut cam = good.clone();
    cam.header.message_id = 2; // cam
    assert!(SimpleDenm::from_denm(&cam).unwrap_err().message().contains("not a DENM"));

    let mut old = good.clone();
    old.header.protocol_version = 1;
    assert!(SimpleDenm::from_denm(&old).unwrap_err().message().contains("protocolVersion"));

    let mut nowhere = good.clone();
    nowhere.denm.management.event_position.longitude = Longitude(1_800_000_001);
    assert!(SimpleDenm::from_denm(&nowhere).unwrap_err().message().contains("unavailable"));
}

#[test]
fn missing_situation_container_reads_as_unavailable_cause() {
    let mut denm = fixtures::sample().to_denm();
    denm.denm.situation = None;
    let bytes = denm::encode(&denm).unwrap();
    let simple = SimpleDenm::from_denm(&denm::decode(&bytes).unwrap()).unwrap();
    assert_eq!((simple.cause, simple.sub_cause, simple.information_quality), (0, 0, 0));
    assert_eq!(simple.sequence_number, fixtures::sample().sequence_number);
}

use super::*;
use crate::proto::ObjectRef;
use crate::shared::geo::offset_to_wgs84;
use etsi_its::denm::Termination;

const SPOT: Wgs84 = Wgs84 { lat: 47.8101, lon: 13.0518 };

fn risk(car: u32, bike: u32, east_m: f64, ttc: f64) -> CollisionRisk {
    let p = offset_to_wgs84(SPOT, east_m, 0.0);
    let object = |object_id, mode: TravelMode| {
        Some(ObjectRef { station_id: 1001, object_id, mode: mode as i32, ..Default::default() })
    };
    CollisionRisk {
        first: object(car, TravelMode::Car),
        second: object(bike, TravelMode::Bicycle),
        conflict_latitude: p.lat,
        conflict_longitude: p.lon,
        time_to_collision_s: ttc,
        probability: 0.6,
        expected_at_us: 0,
        ..Default::default()
    }
}

#[test]
fn an_information_becomes_a_warning_at_once_and_stays_one_until_its_risk_is_gone() {
    let cfg = SenderConfig::default();
    let mut state = ActiveWarnings::default();
    let staged = |stage: RiskStage| CollisionRisk { stage: stage as i32, ..risk(1, 2, 0.0, 2.5) };
    let sent = step(&mut state, &frame(vec![staged(RiskStage::Information)]), 1_000_000, &cfg);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].information_quality, INFORMATION_QUALITY_INFORMATION);
    assert!(!is_warning(&sent[0]));
    // 100 ms later the same risk is a warning: an update under the same ActionID now, not at
    // the repetition interval.
    let sent = step(&mut state, &frame(vec![staged(RiskStage::Warning)]), 1_100_000, &cfg);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].sequence_number, 0);
    assert!(is_warning(&sent[0]), "{:?}", sent[0]);
    // Reported as information again: still a warning on its repetitions (hysteresis).
    let sent = step(&mut state, &frame(vec![staged(RiskStage::Information)]), 2_200_000, &cfg);
    assert_eq!(sent.len(), 1);
    assert!(is_warning(&sent[0]), "{:?}", sent[0]);
    // Gone (the car seen to yield took it below the information bar): terminated.
    let sent = step(&mut state, &frame(vec![]), 2_800_000, &cfg);
    assert_eq!((sent.len(), sent[0].termination), (1, Some(Termination::IsCancellation)));
    assert!(!is_warning(&sent[0]));
}

fn frame(risks: Vec<CollisionRisk>) -> CollisionRiskFrame {
    CollisionRiskFrame { rsu_id: "rsu1".into(), risks, ..Default::default() }
}

#[test]
fn the_rsu_station_id_comes_from_config() {
    let config = [("station_id", "7"), ("station_id.rsu-b", "2002"), ("repetition_ms", "500")];
    let a = SenderConfig::from_config("rsu-a", config).unwrap();
    let b = SenderConfig::from_config("rsu-b", config).unwrap();
    assert_eq!((a.station_id, b.station_id, a.repetition_us), (7, 2002, 500_000));
    assert!(SenderConfig::from_config("rsu-a", [("station_id", "99999999999")]).is_err());
}

#[test]
fn the_denm_release_is_configured_per_rsu() {
    let config = [("denm_version.rsu-b", "2.2.1")];
    assert_eq!(SenderConfig::from_config("rsu-a", config).unwrap().denm_version, DenmVersion::V1_3_1);
    assert_eq!(SenderConfig::from_config("rsu-b", config).unwrap().denm_version, DenmVersion::V2_2_1);
    let all = [("denm_version", "2.2.1"), ("denm_version.rsu-b", "1.3.1")];
    assert_eq!(SenderConfig::from_config("rsu-a", all).unwrap().denm_version, DenmVersion::V2_2_1);
    assert_eq!(SenderConfig::from_config("rsu-b", all).unwrap().denm_version, DenmVersion::V1_3_1);
    let err = SenderConfig::from_config("rsu-a", [("denm_version", "3")]).unwrap_err();
    assert!(err.reason.contains("denm_version") && err.reason.contains("TS 103 831"), "{err}");
}

#[test]
fn a_certain_risk_a_rounding_error_short_of_one_is_graded_highest() {
    let cfg = SenderConfig::default();
    for (k, (probability, quality)) in
        [(1.0, 7), (1.0 - 1e-15, 7), (0.99, 6), (0.8 - 1e-15, 6), (0.79, 5)].into_iter().enumerate()
    {
        let mut state = ActiveWarnings::default();
        let risk = CollisionRisk { probability, ..risk(1, 2, 0.0, 2.0) };
        let sent = step(&mut state, &frame(vec![risk]), 1_700_000_000_000_000 + k as u64, &cfg);
        assert_eq!(sent[0].information_quality, quality, "p {probability}");
    }
}

#[test]
fn a_warning_of_a_later_time_is_ended_and_the_same_risk_now_is_a_new_warning() {
    let cfg = SenderConfig::default();
    let mut state = ActiveWarnings::default();
    let t0 = 1_700_000_000_000_000;
    assert_eq!(step(&mut state, &frame(vec![risk(1, 2, 0.0, 2.0)]), t0, &cfg)[0].sequence_number, 0);
    // The same conflict 150 s earlier (the recording again, or the clock went back).
    let sent = step(&mut state, &frame(vec![risk(1, 2, 0.0, 2.0)]), t0 - 150_000_000, &cfg);
    let seen: Vec<(u16, bool)> = sent.iter().map(|d| (d.sequence_number, d.termination.is_some())).collect();
    assert_eq!(seen, [(0, true), (1, false)]);
    // A frame a little older than the warning (within the grace) is no other time.
    assert!(step(&mut state, &frame(vec![risk(1, 2, 0.0, 2.0)]), t0 - 150_000_000 - 100_000, &cfg).is_empty());
}

#[test]
fn a_risk_is_announced_updated_only_when_needed_and_terminated() {
    let cfg = SenderConfig::default();
    let mut state = ActiveWarnings::default();
    let t0 = 1_700_000_000_000_000;
    let sent = step(&mut state, &frame(vec![risk(1, 2, 0.0, 2.0)]), t0, &cfg);
    assert_eq!(sent.len(), 1);
    let d = &sent[0];
    assert_eq!((d.station_id, d.sequence_number, d.termination), (1001, 0, None));
    assert_eq!((d.cause, d.sub_cause, d.station_type), (97, SUB_CAUSE_VRU, STATION_TYPE_RSU));
    assert_eq!(d.validity_duration_s, 4);
    assert_eq!(d.information_quality, 5, "a warning 0.6 likely");
    assert_eq!(d.detection_time_its_ms, unix_us_to_its_ms(t0));

    // 125 ms later, as expected (TTC down by the elapsed time): no duplicate.
    assert!(step(&mut state, &frame(vec![risk(1, 2, 0.3, 1.875)]), t0 + 125_000, &cfg).is_empty());
    // The conflict point jumps 3 m: an update under the same ActionID.
    let sent = step(&mut state, &frame(vec![risk(1, 2, 3.0, 1.75)]), t0 + 250_000, &cfg);
    assert_eq!(sent.len(), 1);
    assert_eq!((sent[0].sequence_number, sent[0].termination), (0, None));
    assert_eq!(sent[0].detection_time_its_ms, unix_us_to_its_ms(t0));
    // Unchanged but a second since the last DENM: repeated.
    assert_eq!(step(&mut state, &frame(vec![risk(1, 2, 3.0, 0.75)]), t0 + 1_250_000, &cfg).len(), 1);
    // Missing for one frame: kept (no flapping); gone for longer than the grace: terminated.
    assert!(step(&mut state, &frame(vec![]), t0 + 1_375_000, &cfg).is_empty());
    let sent = step(&mut state, &frame(vec![]), t0 + 1_875_000, &cfg);
    assert_eq!((sent.len(), sent[0].sequence_number, sent[0].termination), (1, 0, Some(Termination::IsCancellation)));
    assert!(state.warnings.is_empty());
    assert!(step(&mut state, &frame(vec![]), t0 + 2_000_000, &cfg).is_empty());
}

#[test]
fn the_same_conflict_from_the_other_camera_is_the_same_warning() {
    let cfg = SenderConfig::default();
    let mut state = ActiveWarnings::default();
    // Objects 1/2 (camera 1) and 51/52 (camera 2) are the same car and cyclist.
    let sent = step(&mut state, &frame(vec![risk(1, 2, 0.0, 2.0), risk(51, 52, 1.0, 2.0)]), 1, &cfg);
    assert_eq!(sent.len(), 1);
    // After a track break the cyclist is object 9: still the same warning.
    assert!(step(&mut state, &frame(vec![risk(1, 9, 0.5, 2.0)]), 125_001, &cfg).is_empty());
    assert_eq!(state.warnings.len(), 1);
}

#[test]
fn a_warning_stands_for_the_risks_it_takes_for_the_same_conflict() {
    let cfg = SenderConfig::default();
    let mut state = ActiveWarnings::default();
    // Cars 1 and 3 at risk with cyclist 2, their conflict points 3 m apart: one warning, which
    // names the more imminent risk (the frame lists it second).
    let later = CollisionRisk { expected_at_us: 2_500_000, ..risk(3, 2, 3.0, 2.5) };
    let sooner = CollisionRisk { expected_at_us: 2_000_000, ..risk(1, 2, 0.0, 2.0) };
    let (sent, covering) = step_covering(&mut state, &frame(vec![later, sooner]), 1, &cfg);
    assert_eq!((sent.len(), covering), (1, vec![0, 0]));
    assert_eq!(state.warnings[0].risk_key, risk_key(&sooner));
    // A risk far from it gets the next warning.
    let (sent, covering) = step_covering(&mut state, &frame(vec![risk(4, 5, 40.0, 2.0)]), 125_001, &cfg);
    assert_eq!((sent.len(), covering), (1, vec![1]));
}

#[test]
fn each_risk_gets_its_own_action_id_and_sequence_numbers_wrap() {
    let cfg = SenderConfig::default();
    let mut state = ActiveWarnings { next_sequence: 65_535, ..Default::default() };
    let sent = step(&mut state, &frame(vec![risk(1, 2, 0.0, 2.0), risk(3, 4, 10.0, 1.0)]), 1, &cfg);
    let seqs: Vec<u16> = sent.iter().map(|d| d.sequence_number).collect();
    assert_eq!(seqs, vec![65_535, 0]);
    assert_eq!(state.next_sequence, 1);
}

#[test]
fn denms_encode_as_en_302_637_3() {
    let cfg = SenderConfig::default();
    let mut state = ActiveWarnings::default();
    for d in step(&mut state, &frame(vec![risk(1, 2, 0.0, 2.0)]), 1_700_000_000_000_000, &cfg) {
        let bytes = etsi_its::denm::encode(&d.to_denm()).unwrap();
        let back = SimpleDenm::from_denm(&etsi_its::denm::decode(&bytes).unwrap()).unwrap();
        assert_eq!(back, d);
    }
}

/// Found by fuzzing (fuzz/, targets `stage_denm_sender` and `state`): a risk 1.15e10 s ahead
/// (finite, so within the limits; or a stored warning's) overflowed the DENM's validity
/// duration, `u32::MAX + 2`: a panic with overflow checks, a validity of 1 s without.
#[test]
fn a_far_collision_gets_the_longest_validity() {
    use prost::Message as _;
    const FRAME: &[u8] = &[
        0x0a, 0x04, 0x72, 0x73, 0x75, 0x31, 0x1a, 0x41, 0x0a, 0x08, 0x08, 0xe9, 0x07, 0x10, 0xa8, 0x01, 0x20, 0x02,
        0x12, 0x08, 0x08, 0xe9, 0x07, 0x10, 0xab, 0x01, 0x20, 0x01, 0x19, 0xb7, 0xfe, 0xe6, 0x6a, 0xad, 0xe7, 0x47,
        0x40, 0x21, 0xa3, 0x32, 0xd1, 0x91, 0x8a, 0x1a, 0x2a, 0x40, 0x29, 0x54, 0x45, 0x95, 0xa7, 0x7e, 0x1a, 0x2a,
        0x40, 0x29, 0x93, 0x18, 0x04, 0x56, 0x0e, 0x2d, 0x05, 0x42, 0x31, 0x9e, 0xd8, 0xf0, 0xe5, 0xca, 0xc7, 0x9e,
        0x03,
    ];
    let frame = CollisionRiskFrame::decode(FRAME).unwrap();
    assert!(frame.risks[0].time_to_collision_s > 1e10);
    let (cfg, mut state) = (SenderConfig::default(), ActiveWarnings::default());
    let sent = step(&mut state, &frame, 0, &cfg);
    assert_eq!(sent[0].validity_duration_s, 86_400);
    // Its termination too.
    let ended = step(&mut state, &CollisionRiskFrame::default(), 1_000_000, &cfg);
    assert_eq!((ended[0].validity_duration_s, ended[0].termination), (86_400, Some(Termination::IsCancellation)));
}

/// Found by fuzzing (fuzz/, target `state`): stored warnings come back from key-value, and
/// one without its risk (these bytes, made by the fuzzer) panicked on "active warnings keep
/// their risk" as soon as a frame had a risk to compare with it.
#[test]
fn a_stored_warning_without_its_risk_is_dropped() {
    const STORED: &[u8] = &[
        0x0a, 0x6b, 0x0a, 0x11, 0x31, 0x30, 0x30, 0x31, 0x2f, 0x30, 0x2f, 0x30, 0x2d, 0x31, 0x30, 0x30, 0x31, 0x2f,
        0x33, 0x2f, 0x30, 0x18, 0xa8, 0xb5, 0x8e, 0x11, 0xfa, 0x9b, 0x22, 0x3d, 0x0a, 0x05, 0x08, 0xe9, 0x07, 0x20,
        0x02, 0x12, 0x07, 0x08, 0xe9, 0x07, 0x10, 0x03, 0x20, 0x01, 0x19, 0x9c, 0x4d, 0x4a, 0x37, 0xb1, 0xe7, 0x47,
        0x40, 0x21, 0x84, 0xd5, 0x1c, 0x1b, 0x7e, 0x1a, 0x2a, 0x40, 0x29, 0xe1, 0x7a, 0x14, 0xae, 0x47, 0xe1, 0xca,
        0x3f, 0x31, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f, 0x38, 0xd0, 0x92, 0xa7, 0xc9, 0xaa, 0xbc, 0xfa,
        0x02, 0x28, 0x80, 0xaa, 0x9a, 0xc9, 0xaa, 0xbc, 0xfa, 0x02, 0x30, 0xc8, 0xfa, 0xa1, 0xc9, 0xaa, 0xbc, 0xfa,
        0x02, 0x10, 0x01,
    ];
    let mut state: ActiveWarnings = crate::message::decode_state_or_empty(Some(STORED));
    assert!(state.warnings[0].risk.is_none());
    let sent = step(&mut state, &frame(vec![risk(1, 2, 0.0, 2.0)]), 1, &SenderConfig::default());
    assert_eq!((sent.len(), sent[0].termination), (1, None), "the new risk's warning");
    assert!(state.warnings.iter().all(|w| w.risk.is_some()));
}

#[test]
fn the_declared_keys_are_the_ones_read_with_their_defaults() {
    let read = |entries: &[(&str, &str)]| SenderConfig::from_config("r1", entries.iter().copied());
    assert_eq!(read(&crate::config::declared_defaults(KEYS)).unwrap(), SenderConfig::default());
    assert_eq!(crate::config::keys_read_without_refusal(KEYS, read), Vec::<&str>::new());
    // The per-RSU families too.
    assert!(read(&[("station_id.r1", "nonsense")]).is_err() && read(&[("denm_version.r1", "9.9")]).is_err());
}

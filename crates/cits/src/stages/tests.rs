//! The seven handlers on the platform in memory: what each refuses, retries and keeps.

use prost::Message as _;

use super::*;
use crate::pipeline::testing::*;
use crate::pipeline::*;
use crate::proto::{
    cits_message_wrapper, CitsMessageWrapper, CollisionRiskFrame, LocationsFrame, MatchedTrajectoryFrame,
    PredictedPathFrame, TrajectoryFrame,
};
use crate::shared::time::now_us;
use crate::subjects;

/// The reason `S` dead-letters `body` on `subject` with, received now.
fn refused<S: Handler>(svc: &mut InMemory, subject: &str, body: &[u8]) -> String {
    match S::run(svc, subject, body, now_us()) {
        Outcome::DeadLettered { letter, reason } => {
            assert_eq!(letter.subject, subjects::dead_letter(S::NAME));
            reason.reason
        }
        other => panic!("{} accepted it: {other:?}", S::NAME),
    }
}

#[test]
fn the_decoder_takes_cpms_only_from_registered_stations_of_the_rsu() {
    let mut svc = InMemory::default();
    assert!(matches!(Decoder::run(&mut svc, "cits.cpm.r1", &live_sample(), now_us()), Outcome::Processed(_)));
    assert_eq!(refused::<Decoder>(&mut svc, "cits.cpm.r9", &live_sample()), "unregistered RSU r9");
    // Not even decoded: garbage from an unregistered RSU is refused for that.
    assert_eq!(refused::<Decoder>(&mut svc, "cits.cpm.r9", &[0xff, 0xff]), "unregistered RSU r9");
    svc.config = vec![("rsu.r1".into(), "2001, 2002".into())];
    assert_eq!(
        refused::<Decoder>(&mut svc, "cits.cpm.r1", &live_sample()),
        "station mismatch: station 1001 does not belong to RSU r1"
    );
    svc.config = vec![("rsu.r1".into(), "1001,x".into())];
    assert!(refused::<Decoder>(&mut svc, "cits.cpm.r1", &live_sample()).contains("config `rsu.r1`"));
}

#[test]
fn the_decoder_refuses_cpms_of_another_time_or_beyond_its_limits() {
    let mut svc = InMemory::default();
    // The fixture as recorded (2022).
    let recorded = etsi_its::cpm::encode(&etsi_its::cpm::fixtures::sample().to_cpm()).unwrap();
    assert!(refused::<Decoder>(&mut svc, "cits.cpm.r1", &recorded).contains("s in the past (limit 60 s)"));
    let ahead = sample_sent(0);
    let ahead = etsi_its::cpm::SimpleCpm { reference_time_its_ms: ahead.reference_time_its_ms + 3_600_000, ..ahead };
    let ahead = etsi_its::cpm::encode(&ahead.to_cpm()).unwrap();
    assert!(refused::<Decoder>(&mut svc, "cits.cpm.r1", &ahead).starts_with("reference time 3600"));
    let mut crowd = sample_sent(0);
    crowd.objects =
        (0..200).map(|i| etsi_its::cpm::SimpleObject { object_id: i, ..crowd.objects[0].clone() }).collect();
    let crowd = etsi_its::cpm::encode(&crowd.to_cpm()).unwrap();
    assert_eq!(refused::<Decoder>(&mut svc, "cits.cpm.r1", &crowd), "too many objects: 200 > 128");
    // Limits are config: a deployment may allow more.
    svc.config.push(("limits.max_objects_per_cpm".into(), "255".into()));
    assert!(matches!(Decoder::run(&mut svc, "cits.cpm.r1", &crowd, now_us()), Outcome::Processed(_)));
    let mut far = sample_sent(0);
    far.objects[0].x_cm = 40_000;
    let far = etsi_its::cpm::encode(&far.to_cpm()).unwrap();
    assert_eq!(refused::<Decoder>(&mut svc, "cits.cpm.r1", &far), "object 7: 400 m from the sensor (limit 250 m)");
}

#[test]
fn the_collector_refuses_what_it_cannot_place_on_earth() {
    // Within a (silly) sensor range, but 20,000 km east of the reference position: no
    // WGS84 position comes out of that.
    let mut svc = InMemory::default();
    svc.config.push(("limits.max_sensor_range_m".into(), "1e9".into()));
    let Outcome::Processed(mut decoded) = Decoder::run(&mut svc, "cits.cpm.r1", &live_sample(), now_us()) else {
        panic!("not decoded")
    };
    let mut wrapper = CitsMessageWrapper::decode(decoded.remove(0).body.as_slice()).unwrap();
    if let Some(cits_message_wrapper::Message::Cpm(cpm)) = &mut wrapper.message {
        cpm.objects[1].x_cm = 2_000_000_000;
        cpm.objects[1].sensor_id = 0;
    }
    let reason = refused::<Collector>(&mut svc, "cits.decoded.r1", &wrapper.encode_to_vec());
    assert!(reason.starts_with("object 1001/0/255: (") && reason.ends_with("is not a WGS84 position"), "{reason}");
}

/// Every stage after the decoder checks the frame it gets, as the previous stage would
/// never send it.
#[test]
fn every_stage_checks_its_input_frame() {
    use crate::proto::{
        CollisionRisk, LocationsContainer, MatchedPoint, MatchedTrajectory, PredictedPath, PredictedPosition,
        Trajectory, TrajectoryPoint,
    };
    let mut svc = InMemory::default();
    let located = LocationsFrame {
        rsu_id: "r1".into(),
        station_id: 1001,
        locations: vec![LocationsContainer { station_id: 1002, ..Default::default() }],
        ..Default::default()
    };
    assert_eq!(
        refused::<Assembler>(&mut svc, "cits.locations.r1", &located.encode_to_vec()),
        "station mismatch: object 1002/0/0 in a frame of station 1001"
    );
    let point =
        |ms: u64| TrajectoryPoint { measured_at_us: ms * 1000, latitude: 47.8, longitude: 13.0, ..Default::default() };
    let trajectories = TrajectoryFrame {
        rsu_id: "r1".into(),
        trajectories: vec![Trajectory { points: vec![point(2), point(1)], ..Default::default() }],
        ..Default::default()
    };
    assert!(refused::<MapMatcher>(&mut svc, "cits.trajectories.r1", &trajectories.encode_to_vec())
        .contains("times not increasing"));
    let matched = MatchedTrajectoryFrame {
        rsu_id: "r1".into(),
        trajectories: vec![MatchedTrajectory {
            points: vec![MatchedPoint { offset_m: f64::NAN, ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    assert!(refused::<Predictor>(&mut svc, "cits.matched.r1", &matched.encode_to_vec()).contains("offset"));
    let predicted = PredictedPathFrame {
        rsu_id: "r1".into(),
        paths: vec![PredictedPath {
            probability: 2.0,
            positions: vec![PredictedPosition::default()],
            ..Default::default()
        }],
        ..Default::default()
    };
    assert!(refused::<CollisionDetector>(&mut svc, "cits.predicted.r1", &predicted.encode_to_vec())
        .contains("probability 2"));
    let risks = CollisionRiskFrame { rsu_id: "r1".into(), risks: vec![CollisionRisk::default()], ..Default::default() };
    assert!(refused::<DenmSender>(&mut svc, "cits.risks.r1", &risks.encode_to_vec()).contains("road users"));
    // A frame of another RSU than its subject's.
    assert!(refused::<DenmSender>(
        &mut svc,
        "cits.risks.r2",
        &CollisionRiskFrame { rsu_id: "r1".into(), ..Default::default() }.encode_to_vec()
    )
    .starts_with("RSU mismatch"));
}

#[test]
fn bad_input_is_a_dead_letter_of_the_stage_that_got_it() {
    let mut svc = InMemory::default();
    match Assembler::run(&mut svc, "cits.locations.r1", &[0xff, 0xff], 1) {
        Outcome::DeadLettered { letter, reason } => {
            assert_eq!(letter.subject, "cits.dlq.assembler");
            assert!(reason.reason.contains("LocationsFrame"), "{reason}");
        }
        other => panic!("expected a dead letter, got {other:?}"),
    }
    match Fused::run(&mut svc, "cits.cpm.r1", &[0xff, 0xff], 1) {
        Outcome::DeadLettered { letter, .. } => assert_eq!(letter.subject, "cits.dlq.decoder"),
        other => panic!("expected a dead letter, got {other:?}"),
    }
}

#[test]
fn an_unavailable_store_is_a_retry_not_a_dead_letter() {
    let mut svc = InMemory { down: true, ..Default::default() };
    let frame = LocationsFrame { rsu_id: "r1".into(), ..Default::default() };
    let mut frame_with_object = frame.clone();
    frame_with_object.locations.push(Default::default());
    let outcome = Assembler::run(&mut svc, "cits.locations.r1", &frame_with_object.encode_to_vec(), 1);
    assert!(matches!(outcome, Outcome::Retry(_)), "{outcome:?}");
}

#[test]
fn a_map_tile_read_short_is_a_retry_not_the_frames_dead_letter() {
    let mut svc = InMemory { cut_blob_reads: true, ..Default::default() };
    let outcome = Fused::run(&mut svc, "cits.cpm.r1", &live_sample(), now_us());
    match outcome {
        Outcome::Retry(e) => assert!(e.unavailable && e.reason.contains("map tile"), "{e}"),
        other => panic!("expected a retry, got {other:?}"),
    }
}

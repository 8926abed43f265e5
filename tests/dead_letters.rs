//! Bad input at every stage: each of the seven stages, given a message it cannot read on its
//! input subject, publishes a dead letter with the reason and the original bytes on
//! `cits.dlq.<stage>`, and the pipeline keeps flowing end to end afterwards.

use std::time::Duration;

use cits::proto::DeadLetter;
use cits_tests::{next_within, Lattice};
use futures::StreamExt as _;
use prost::Message as _;

const WAIT: Duration = Duration::from_secs(15);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_stage_dead_letters_what_it_cannot_read_and_keeps_running() {
    let lattice = Lattice::start("dead-letters");
    let nats = lattice.nats().await;
    let mut dlq = nats.subscribe("cits.dlq.>").await.unwrap();
    let mut done = nats.subscribe(cits::subjects::done("rsu-ok")).await.unwrap();
    nats.flush().await.unwrap();

    let rsu = "rsu-bad";
    lattice.add_rsu(rsu); // registered: its garbage reaches the CPM decoding, not the registry check
    let inputs = [
        ("decoder", format!("cits.cpm.{rsu}"), "CPM"),
        ("collector", cits::subjects::decoded(rsu), "not a protobuf CitsMessageWrapper"),
        ("assembler", cits::subjects::locations(rsu), "not a protobuf LocationsFrame"),
        ("map_matcher", cits::subjects::trajectories(rsu), "not a protobuf TrajectoryFrame"),
        ("predictor", cits::subjects::matched(rsu), "not a protobuf MatchedTrajectoryFrame"),
        ("collision_detector", cits::subjects::predicted(rsu), "not a protobuf PredictedPathFrame"),
        ("denm_sender", cits::subjects::risks(rsu), "not a protobuf CollisionRiskFrame"),
    ];
    // Invalid as UPER and as protobuf (field 0 is never valid).
    let garbage = b"\x00\x00\xff\xfe garbage".to_vec();
    for (stage, subject, reason) in &inputs {
        nats.publish(subject.clone(), garbage.clone().into()).await.unwrap();
        let msg = next_within(&mut dlq, WAIT, &format!("{stage} dead letter")).await.unwrap();
        assert_eq!(msg.subject.as_str(), cits::subjects::dead_letter(stage));
        let letter = DeadLetter::decode(msg.payload.as_ref()).unwrap();
        assert_eq!(letter.stage, *stage);
        assert_eq!(letter.source_subject, *subject);
        assert_eq!(letter.payload, garbage, "{stage} keeps the original bytes");
        assert!(letter.reason.contains(reason), "{stage}: {}", letter.reason);
    }

    // All stages still work: a valid CPM goes through to the end.
    let cpm = cits_client::replay::made_now(&cits_client::demo::recording()[40]);
    let mut mqtt = lattice.mqtt("rsu-ok").await;
    mqtt.publish("cits/cpm/rsu-ok", cpm).await;
    let msg = next_within(&mut done, WAIT, "FrameDone after the bad input").await.unwrap();
    let frame = cits::proto::FrameDone::decode(msg.payload.as_ref()).unwrap();
    let stages: Vec<&str> = frame.trace.iter().map(|t| t.stage.as_str()).collect();
    assert_eq!(
        stages,
        ["decoder", "collector", "assembler", "map_matcher", "predictor", "collision_detector", "denm_sender"]
    );
    assert!(tokio::time::timeout(Duration::from_millis(500), dlq.next()).await.is_err(), "no further dead letter");

    // The same bad bytes sent again and again are each a dead letter, each kept: the stream
    // holds one per message sent, not one per distinct payload.
    const AGAIN: u64 = 200;
    for _ in 0..AGAIN {
        nats.publish(format!("cits.cpm.{rsu}"), garbage.clone().into()).await.unwrap();
    }
    nats.flush().await.unwrap();
    let js = async_nats::jetstream::new(nats.clone());
    let expected = inputs.len() as u64 + AGAIN;
    let kept = || async {
        let mut stream = js.get_stream(cits_jetstream::DEAD_LETTERS.name).await.unwrap();
        stream.info().await.unwrap().state.messages
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while kept().await < expected && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(kept().await, expected, "every dead letter kept, none twice");
}

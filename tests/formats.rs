//! What other RSUs send, end to end: the default recording converted into each format real
//! equipment puts on MQTT — a TR 103 562 CPM ("v1") in UPER, a TS 103 324 CPM in XER, and one
//! inside a GeoNetworking + BTP packet — replayed into the fused deployment; each must give
//! exactly the DENMs the bare TS 103 324 UPER recording gives (the stage crates run natively on
//! the same CPMs, as in tests/pipeline.rs). Garbage in each format is dead-lettered with a
//! reason that names the format.

use std::time::Duration;

use cits_tests::{next_within, warnings, Lattice};
use etsi_its::format::Wire;
use prost::Message as _;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_input_format_warns_like_the_bare_uper_cpm() {
    let lattice = Lattice::start_with("formats", Some("wadm/cits-pipeline-fused.yaml"));
    let records = cits_client::recording::read_file(&lattice.repo.join("data/default.rec.b64")).unwrap();
    // The recording's first 30 s, replayed at 16x: every CPM arrives less than 30 s older than
    // live. A Release 1 CPM's time is 16 bits of ms (65.5 s), placed by the decoder's clock, so
    // only one less than 32 s old can be placed; and the decoder refuses CPMs older than its
    // window (60 s) anyway, which all of the recording at 16x would pass (~195 s).
    let first_30_s: Vec<_> =
        records.iter().take_while(|r| r.timestamp_ms - records[0].timestamp_ms < 30_000).cloned().collect();
    for wire in [Wire::CpmV1Uper, Wire::CpmV2Xer, Wire::CpmV2GnBtp] {
        // An RSU per format: the DENM sender's state (sequence numbers) is per RSU.
        let rsu = format!("rsu-{}", wire.name());
        let mut options = lattice.replay_options(&[&rsu], 16.0, 1);
        options.wire = wire;
        let (sent, received) = warnings::replay_and_collect(&lattice, &first_30_s, &options).await;
        assert!(!received.is_empty(), "{}: no DENM", wire.name());
        warnings::assert_warned_as_natively(&lattice, &sent.records, &received, wire.name());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_in_each_format_is_dead_lettered_with_its_reason() {
    let lattice = Lattice::start_with("formats-garbage", Some("wadm/cits-pipeline-fused.yaml"));
    let records = cits_client::recording::read_file(&lattice.repo.join("data/short.rec.b64")).unwrap();
    // Good CPMs, each a CPM of its own (the same CPM twice is one frame, produced once).
    let good = |i: usize, wire: Wire| {
        let cpm = cits_client::replay::made_now(&records[i]);
        wire.encode(&etsi_its::cpm::SimpleCpm::from_cpm(&etsi_its::cpm::decode(&cpm).unwrap()).unwrap()).unwrap()
    };
    let (v1, xer, gn) = (good(10, Wire::CpmV1Uper), good(11, Wire::CpmV2Xer), good(12, Wire::CpmV2GnBtp));
    let mut secured = gn.clone();
    secured[0] = (secured[0] & 0xf0) | 2; // basic header: next header "secured packet"
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (v1[..v1.len() / 2].to_vec(), "as CPM (TR 103 562), UPER"),
        (xer[..xer.len() - 40].to_vec(), "as CPM (TS 103 324), XER"),
        (gn[..gn.len() - 7].to_vec(), "GeoNetworking + BTP"),
        (secured, "trust anchor"),
        (b"<CPM><header></header></CPM>".to_vec(), "unknown format"),
    ];

    const RSU: &str = "rsu-garbage";
    let topic = format!("cits/cpm/{RSU}");
    let nats = lattice.nats().await;
    let mut dlq = nats.subscribe(cits::subjects::dead_letter("decoder")).await.unwrap();
    // The fused chain publishes no frames between its stages: the last stage's FrameDone.
    let mut done = nats.subscribe(cits::subjects::done(RSU)).await.unwrap();
    nats.flush().await.unwrap();
    let mut rsu = lattice.mqtt(RSU).await;
    for (bad, reason) in cases {
        rsu.publish(&topic, bad.clone()).await;
        let letter = next_within(&mut dlq, Duration::from_secs(20), "dead letter").await.unwrap();
        let letter = cits::proto::DeadLetter::decode(letter.payload.as_ref()).unwrap();
        assert!(letter.reason.contains(reason), "reason `{}` lacks `{reason}`", letter.reason);
        assert_eq!(letter.payload, bad);
    }
    // The stream is not blocked: a good CPM in each format after the garbage comes through.
    for payload in [v1, xer, gn] {
        rsu.publish(&topic, payload).await;
        next_within(&mut done, Duration::from_secs(20), "FrameDone").await.unwrap();
    }
}

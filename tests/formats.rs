//! What other RSUs send, end to end: the default recording converted into each format real
//! equipment puts on MQTT — a TR 103 562 CPM ("v1") in UPER, a TS 103 324 CPM in XER, and one
//! inside a GeoNetworking + BTP packet — replayed into the fused deployment; each must give
//! exactly the DENMs the bare TS 103 324 UPER recording gives (the stage crates run natively on
//! the same CPMs, as in tests/pipeline.rs). Garbage in each format is dead-lettered with a
//! reason that names the format. Those run the component with every codec (`make
//! actors-all-codecs`); the default one reads TS 103 324 CPMs (bare or in GeoNetworking) and CAMs
//! and dead-letters the others with the codec it lacks.

use std::time::Duration;

use cits_client::recording::Record;
use cits_tests::{fused_manifest_with_all_codecs, next_within, warnings, Lattice, Mqtt};
use etsi_its::format::Wire;
use prost::Message as _;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_input_format_warns_like_the_bare_uper_cpm() {
    let lattice = Lattice::start_with("formats", Some(&fused_manifest_with_all_codecs()));
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

/// An RSU of the test: its MQTT connection, the decoder's dead letters, its FrameDones (the
/// fused chain publishes no frames between its stages).
struct Rsu {
    topic: String,
    mqtt: Mqtt,
    dlq: async_nats::Subscriber,
    done: async_nats::Subscriber,
}

impl Rsu {
    async fn connect(lattice: &Lattice, rsu: &str) -> Self {
        let nats = lattice.nats().await;
        let dlq = nats.subscribe(cits::subjects::dead_letter("decoder")).await.unwrap();
        let done = nats.subscribe(cits::subjects::done(rsu)).await.unwrap();
        nats.flush().await.unwrap();
        Self { topic: format!("cits/cpm/{rsu}"), mqtt: lattice.mqtt(rsu).await, dlq, done }
    }

    /// Sends `bad`; it comes back as a dead letter whose reason contains `reason`.
    async fn dead_lettered(&mut self, bad: Vec<u8>, reason: &str) {
        self.mqtt.publish(&self.topic, bad.clone()).await;
        let letter = next_within(&mut self.dlq, Duration::from_secs(20), "dead letter").await.unwrap();
        let letter = cits::proto::DeadLetter::decode(letter.payload.as_ref()).unwrap();
        assert!(letter.reason.contains(reason), "reason `{}` lacks `{reason}`", letter.reason);
        assert_eq!(letter.payload, bad);
    }

    /// Sends `good`; its frame comes through the pipeline.
    async fn comes_through(&mut self, good: Vec<u8>, what: &str) {
        self.mqtt.publish(&self.topic, good).await;
        next_within(&mut self.done, Duration::from_secs(20), &format!("FrameDone of {what}")).await.unwrap();
    }
}

/// The short recording's CPMs.
fn short_recording(lattice: &Lattice) -> Vec<Record> {
    cits_client::recording::read_file(&lattice.repo.join("data/short.rec.b64")).unwrap()
}

/// CPM `i` of `records` made now, in `wire` (each a CPM of its own: the same CPM twice is one
/// frame, produced once).
fn cpm_in(records: &[Record], i: usize, wire: Wire) -> Vec<u8> {
    let cpm = cits_client::replay::made_now(&records[i]);
    wire.encode(&etsi_its::cpm::SimpleCpm::from_cpm(&etsi_its::cpm::decode(&cpm).unwrap()).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_in_each_format_is_dead_lettered_with_its_reason() {
    let lattice = Lattice::start_with("formats-garbage", Some(&fused_manifest_with_all_codecs()));
    let records = short_recording(&lattice);
    let good = |i, wire| cpm_in(&records, i, wire);
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
    let mut rsu = Rsu::connect(&lattice, "rsu-garbage").await;
    for (bad, reason) in cases {
        rsu.dead_lettered(bad, reason).await;
    }
    // The stream is not blocked: a good CPM in each format after the garbage comes through.
    for (payload, what) in [(v1, "TR 103 562"), (xer, "XER"), (gn, "GeoNetworking")] {
        rsu.comes_through(payload, what).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_component_dead_letters_the_formats_it_is_built_without() {
    let lattice = Lattice::start_with("formats-default", Some("wadm/cits-pipeline-fused.yaml"));
    let records = short_recording(&lattice);
    let mut rsu = Rsu::connect(&lattice, "rsu-default-codecs").await;
    for (wire, i, codec) in
        [(Wire::CpmV1Uper, 10, "cpm-v1"), (Wire::CpmV2Xer, 11, "xer"), (Wire::CpmV1Xer, 12, "cpm-v1")]
    {
        rsu.dead_lettered(cpm_in(&records, i, wire), &format!("built without the `{codec}` codec")).await;
    }
    // What it is built for comes through: a CPM in GeoNetworking, a bare one.
    for (wire, i) in [(Wire::CpmV2GnBtp, 13), (Wire::CpmV2Uper, 14)] {
        rsu.comes_through(cpm_in(&records, i, wire), wire.name()).await;
    }
}

//! Hard failures mid-run, the way Kafka Streams' exactly-once system test breaks things: two RSUs
//! replay the short recording over MQTT with QoS 1 at 4x into the fused deployment on two hosts,
//! and part way through (a) the messaging provider of one host is killed with SIGKILL, or (b) one
//! of the two hosts dies with everything it started. Afterwards every CPM has yielded exactly one
//! `FrameDone` (by frame id: none missing, none twice), each RSU's in the order it sent them, and
//! each RSU got exactly the DENMs the same stages produce in process — read from JetStream, which
//! is what RSUs are sent from.

use std::collections::BTreeMap;
use std::time::Duration;

use cits_tests::Lattice;
use cits_tools::replay::{replay, ReplayOptions};
use prost::Message as _;

const RSUS: [&str; 2] = ["rsu1", "rsu2"];
const SPEED: f64 = 4.0;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_a_messaging_provider_loses_and_duplicates_nothing() {
    survives("kill-provider", |lattice| {
        let pids = lattice.host_children(1, "messaging-nats").unwrap();
        assert!(!pids.is_empty(), "no messaging provider process under host 1");
        for pid in pids {
            Lattice::kill9(pid);
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_dying_loses_and_duplicates_nothing() {
    survives("kill-host", |lattice| lattice.crash_host(2).unwrap()).await;
}

async fn survives(name: &str, fault: impl FnOnce(&Lattice)) {
    let lattice = Lattice::start_hosts(name, Some("wadm/cits-pipeline-fused.yaml"), 2);
    let records = cits_tools::recording::read_file(&lattice.repo.join("data/short.rec.b64")).unwrap();
    let options = ReplayOptions {
        mqtt_host: "127.0.0.1".into(),
        mqtt_port: lattice.mqtt_port,
        rsus: RSUS.map(String::from).to_vec(),
        speed: SPEED,
        qos: 1,
        progress: false,
    };
    let replaying = {
        let records = records.clone();
        tokio::spawn(async move { replay(&records, &options).await })
    };
    // A third of the way through the replay, with frames of both RSUs in flight.
    let span_ms = records.last().unwrap().timestamp_ms - records[0].timestamp_ms;
    tokio::time::sleep(Duration::from_millis((span_ms as f64 / SPEED / 3.0) as u64)).await;
    fault(&lattice);
    let summary = replaying.await.unwrap().unwrap();
    assert_eq!(summary.messages as usize, records.len() * RSUS.len(), "every CPM acknowledged by the MQTT listener");

    // What must come out: per RSU, one frame per CPM in sending order, and the in-process DENMs.
    let expected: BTreeMap<&str, Vec<String>> = RSUS
        .iter()
        .map(|rsu| {
            let subject = format!("cits.cpm.{rsu}");
            (*rsu, records.iter().map(|r| cits::stage::frame_id(&subject, &r.cpm)).collect())
        })
        .collect();
    let xml = std::fs::read_to_string(lattice.repo.join("data/map/weiser-gabelsberger.osm")).unwrap();
    let graph = cits_tools::map::lane_graph_from_osm(&xml, "map").unwrap();
    let native: Vec<Vec<u8>> = cits_tools::evaluate::run(&graph, &records)
        .unwrap()
        .iter()
        .map(|d| cits::denm_sender::encode(&d.denm).unwrap())
        .collect();

    // Wait for the last frame of each RSU (redeliveries after the ack wait included), then a
    // little longer so that a late duplicate would show.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(180);
    loop {
        let done = frames_done(&lattice).await;
        let complete = RSUS.iter().all(|rsu| done.get(*rsu).is_some_and(|f| f.contains(expected[rsu].last().unwrap())));
        if complete {
            break;
        }
        if tokio::time::Instant::now() > deadline {
            let counts: Vec<_> = done.iter().map(|(r, f)| (r.clone(), f.len())).collect();
            panic!("not every frame came out within 180 s: {counts:?} of {} each", records.len());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    tokio::time::sleep(Duration::from_secs(3)).await;

    let done = frames_done(&lattice).await;
    for rsu in RSUS {
        let got = &done[rsu];
        let want = &expected[rsu];
        let missing = want.iter().filter(|id| !got.contains(id)).count();
        let mut seen = std::collections::HashSet::new();
        let duplicated = got.iter().filter(|id| !seen.insert(*id)).count();
        assert_eq!((missing, duplicated), (0, 0), "{rsu}: frames missing / duplicated");
        assert_eq!(got, want, "{rsu}: frames out of order");
    }
    let denms = lattice.stream_messages("CITS_DENM").await.unwrap();
    for rsu in RSUS {
        let subject = cits::subjects::denm_outbox(rsu);
        let got: Vec<Vec<u8>> =
            denms.iter().filter(|m| m.subject.as_str() == subject).map(|m| m.payload.to_vec()).collect();
        assert_eq!(got.len(), native.len(), "{rsu}: DENMs sent vs in process");
        assert!(got == native, "{rsu}: DENMs differ from the in-process pipeline's");
    }
}

/// Frame ids of the `FrameDone`s stored in JetStream, per RSU, in stream order.
async fn frames_done(lattice: &Lattice) -> BTreeMap<String, Vec<String>> {
    let mut by_rsu: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for m in lattice.stream_messages("CITS_DONE").await.unwrap() {
        let done = cits::proto::FrameDone::decode(m.payload.as_ref()).unwrap();
        by_rsu.entry(done.rsu_id).or_default().push(done.frame_id);
    }
    by_rsu
}

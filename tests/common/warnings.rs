//! A recording replayed over MQTT and the DENMs read back as the RSU would, against the same
//! stage crates run natively in process: the end-to-end tests' yardstick for "warns exactly as
//! the pipeline's own logic does".

use std::time::Duration;

use cits_client::recording::Record;
use cits_client::replay::{replay, ReplayOptions, ReplaySummary};
use cits_research::evaluate;
use etsi_its::denm::SimpleDenm;
use prost::Message as _;

use crate::{next_within, Lattice};

/// Replays `records` as `options.rsus[0]` (see [`replay`]) and returns what was sent and the
/// DENMs (UPER) that RSU received over MQTT, once every CPM has come out of the last stage.
pub async fn replay_and_collect(
    lattice: &Lattice,
    records: &[Record],
    options: &ReplayOptions,
) -> (ReplaySummary, Vec<Vec<u8>>) {
    let rsu = options.rsus[0].clone();
    let nats = lattice.nats().await;
    let mut done = nats.subscribe(cits::subjects::done(&rsu)).await.unwrap();
    nats.flush().await.unwrap();
    let auth = lattice.auth_dir();
    let mut denms = cits_client::denms::subscribe(
        "127.0.0.1",
        lattice.mqtt_port,
        &format!("denms-{rsu}"),
        std::slice::from_ref(&rsu),
        Some(&auth),
        lattice.supervisor().settings.tls().map(|f| f.ca).as_deref(),
    )
    .await
    .unwrap();

    let sent = replay(records, options).await.unwrap();
    // Every message (CPM or CAM) comes out of the last stage, a FrameDone each, then its DENMs
    // have been sent. Delivery is at-least-once: counted by frame id (distinct per message).
    let mut through = std::collections::HashSet::new();
    while through.len() < sent.records.len() {
        let what = format!("FrameDone {} of {} ({rsu})", through.len(), sent.records.len());
        let msg = next_within(&mut done, Duration::from_secs(30), &what).await.unwrap();
        through.insert(cits::proto::FrameDone::decode(msg.payload.as_ref()).unwrap().frame_id);
    }
    tokio::time::sleep(Duration::from_millis(500)).await; // the MQTT leg of the last DENMs
    let mut received = Vec::new();
    while let Ok(d) = denms.try_recv() {
        assert_eq!(d.rsu, rsu);
        received.push(d.uper);
    }
    (sent, received)
}

/// Asserts that `received` are exactly the DENMs the stage crates produce natively from the
/// records `sent`, byte for byte and in order (the map of the recordings).
pub fn assert_warned_as_natively(lattice: &Lattice, sent: &[Record], received: &[Vec<u8>], what: &str) {
    let xml = std::fs::read_to_string(lattice.repo.join("data/map/weiser-gabelsberger.osm")).unwrap();
    let graph = cits_map::lane_graph_from_osm(&xml, "map").unwrap();
    let native: Vec<Vec<u8>> = evaluate::run(&graph, sent)
        .unwrap()
        .iter()
        .map(|d| cits::stages::denm_sender::encode(&d.denm, Default::default()).unwrap())
        .collect();
    assert_eq!(received.len(), native.len(), "{what}: DENMs over MQTT vs native");
    if let Some(i) = (0..received.len()).find(|&i| received[i] != native[i]) {
        let show = |b: &[u8]| format!("{:?}", SimpleDenm::from_denm(&etsi_its::denm::decode(b).unwrap()).unwrap());
        panic!(
            "{what}: DENM {i} over MQTT differs from the native pipeline's:\n{}\n{}",
            show(&received[i]),
            show(&native[i])
        );
    }
}

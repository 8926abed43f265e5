//! The replayer against the real stack: a recording published over MQTT (QoS 1) as two RSUs at
//! 16x comes out of the pipeline complete — one location frame per CPM per RSU, every object.

use std::collections::HashMap;
use std::time::Duration;

use cits::proto::LocationsFrame;
use cits_client::recording;
use cits_client::replay::replay;
use cits_tests::{next_within, Lattice};
use prost::Message as _;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn short_recording_replayed_as_two_rsus_at_16x_arrives_complete() {
    let lattice = Lattice::start("replay");
    let records = recording::read_file(&lattice.repo.join("data/short.rec.b64")).unwrap();
    let objects_per_rsu: usize = records
        .iter()
        .map(|r| etsi_its::cpm::SimpleCpm::from_cpm(&etsi_its::cpm::decode(&r.cpm).unwrap()).unwrap().objects.len())
        .sum();
    let nats = lattice.nats().await;
    let mut frames = nats.subscribe("cits.locations.>").await.unwrap();
    nats.flush().await.unwrap();

    let rsus = vec!["rsu-a".to_string(), "rsu-b".to_string()];
    let options = lattice.replay_options(&["rsu-a", "rsu-b"], 16.0, 1);
    let summary = replay(&records, &options).await.unwrap();
    assert_eq!(summary.messages as usize, 2 * records.len(), "every publish acknowledged");
    // The recording spans ~20 s: at 16x the replay takes about 1.3 s, not 20 s, nor 0.
    let span_ms = records.last().unwrap().timestamp_ms - records[0].timestamp_ms;
    let expected = Duration::from_millis(span_ms / 16);
    assert!(
        summary.elapsed >= expected.mul_f64(0.9) && summary.elapsed < expected * 3,
        "{:?} vs {expected:?}",
        summary.elapsed
    );

    // Distinct frames (content without the trace): delivery is at-least-once, so a retried
    // invocation may repeat a frame; none may be missing.
    let mut seen = std::collections::HashSet::new();
    let mut frames_per_rsu: HashMap<String, usize> = HashMap::new();
    let mut objects: HashMap<String, usize> = HashMap::new();
    while frames_per_rsu.values().sum::<usize>() < 2 * records.len() {
        let msg = next_within(&mut frames, Duration::from_secs(10), "location frame").await.unwrap_or_else(|e| {
            panic!("{e}; got {frames_per_rsu:?} of {} per RSU", records.len());
        });
        let mut frame = LocationsFrame::decode(msg.payload.as_ref()).unwrap();
        frame.trace.clear();
        if !seen.insert(frame.encode_to_vec()) {
            continue;
        }
        *frames_per_rsu.entry(frame.rsu_id.clone()).or_default() += 1;
        *objects.entry(frame.rsu_id).or_default() += frame.locations.len();
    }
    for rsu in &rsus {
        assert_eq!(frames_per_rsu[rsu], records.len(), "{rsu}");
        assert_eq!(objects[rsu], objects_per_rsu, "{rsu}");
    }
}

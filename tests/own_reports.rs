//! Road users' own reports, end to end: an RSU forwards the vehicles' CAMs it hears on
//! `cits/cam/<rsu>` and the VRUs' VAMs on `cits/vam/<rsu>` with its own credentials, beside its
//! CPMs. Euro NCAP's right hook, filmed with the car sending CAMs (its indicator on before it
//! turns) or the cyclist sending VAMs, replayed over MQTT into the fused deployment, must give
//! exactly the DENMs the stage crates give natively from the same messages; a CAM or VAM that
//! does not decode is dead-lettered with its reason and blocks nothing.

use std::time::Duration;

use cits::proto::LaneGraph;
use cits_client::recording::{Ingest, Record};
use cits_research::sim::ncap::{cases, film_case, Case, Outcome, Shape};
use cits_research::sim::Conditions;
use cits_tests::{fused_manifest_with_all_codecs, next_within, warnings, Lattice};
use prost::Message as _;

/// Whether a recorded message is a CAM whose right indicator is on.
fn indicates_right(message: &[u8]) -> bool {
    etsi_its::cam::decode(message)
        .ok()
        .and_then(|cam| etsi_its::cam::SimpleCam::from_cam(&cam).ok())
        .and_then(|cam| cam.turn_signals)
        .is_some_and(|s| s.right)
}

/// The map and Euro NCAP's right hook with contact at `car_kmh`.
fn right_hook(lattice: &Lattice, car_kmh: f64) -> (LaneGraph, Case) {
    let xml = std::fs::read_to_string(lattice.repo.join("data/map/weiser-gabelsberger.osm")).unwrap();
    let graph = cits_map::lane_graph_from_osm(&xml, "map").unwrap();
    let case = cases(&graph, &[Shape::RightHook], &[Outcome::Contact])
        .unwrap()
        .into_iter()
        .find(|c| c.car_kmh == car_kmh)
        .unwrap();
    (graph, case)
}

/// Replays `records` as one RSU at 4x into `lattice` and checks its DENMs against the native
/// pipeline's.
async fn warned_as_natively(lattice: &Lattice, rsu: &str, records: &[Record], what: &str) {
    let options = lattice.replay_options(&[rsu], 4.0, 1);
    let (sent, received) = warnings::replay_and_collect(lattice, records, &options).await;
    assert!(!received.is_empty(), "the right hook was not warned");
    warnings::assert_warned_as_natively(lattice, &sent.records, &received, what);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_right_hook_with_the_cars_cams_warns_as_the_native_pipeline_does() {
    let lattice = Lattice::start_with("cams", Some("wadm/cits-pipeline-fused.yaml"));
    let (graph, case) = right_hook(&lattice, 15.0);
    let conditions = Conditions::named("cams-100").unwrap();
    // The first seed whose driver indicates (three in four do).
    let records = (1..20)
        .map(|seed| film_case(&graph, &case, seed, conditions).unwrap().sim.records)
        .find(|records| records.iter().any(|r| indicates_right(&r.cpm)))
        .expect("a driver who indicates");
    let cams = records.iter().filter(|r| r.ingest() == Ingest::Cam).count();
    assert!(cams > 50 && cams < records.len(), "{cams} CAMs of {} messages", records.len());
    warned_as_natively(&lattice, "rsu-cams", &records, "CPMs and CAMs").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_right_hook_with_the_cyclists_vams_warns_as_the_native_pipeline_does() {
    let lattice = Lattice::start_with("vams", Some(&fused_manifest_with_all_codecs()));
    let (graph, case) = right_hook(&lattice, 15.0);
    let records = film_case(&graph, &case, 1, Conditions::named("vams-100").unwrap()).unwrap().sim.records;
    // A cyclist's device sends a VAM every 4 m at least (about 1.3 Hz at 20 km/h).
    let vams = records.iter().filter(|r| r.ingest() == Ingest::Vam).count();
    assert!(vams > 5 && vams < records.len(), "{vams} VAMs of {} messages", records.len());
    warned_as_natively(&lattice, "rsu-vams", &records, "CPMs and VAMs").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn own_reports_that_do_not_decode_are_dead_lettered_with_their_reason() {
    let lattice = Lattice::start_with("own-reports-garbage", Some(&fused_manifest_with_all_codecs()));
    let (graph, case) = right_hook(&lattice, 15.0);
    const RSU: &str = "rsu-own-garbage";
    let nats = lattice.nats().await;
    let mut dlq = nats.subscribe(cits::subjects::dead_letter("decoder")).await.unwrap();
    let mut done = nats.subscribe(cits::subjects::done(RSU)).await.unwrap();
    nats.flush().await.unwrap();
    let mut rsu = lattice.mqtt(RSU).await;
    for (ingest, condition, kind) in [(Ingest::Cam, "cams-100", "cam"), (Ingest::Vam, "vams-100", "vam")] {
        let records = film_case(&graph, &case, 1, Conditions::named(condition).unwrap()).unwrap().sim.records;
        let good: Vec<Vec<u8>> =
            records.iter().filter(|r| r.ingest() == ingest).take(2).map(cits_client::replay::made_now).collect();
        let cpm = cits_client::replay::made_now(records.iter().find(|r| r.ingest() == Ingest::Cpm).unwrap());
        let (topic, what) = (format!("cits/{kind}/{RSU}"), ingest.name());
        for (bad, reason) in [
            (good[0][..good[0].len() / 2].to_vec(), format!("invalid {what}: as {what}, UPER")),
            (cpm.clone(), format!("invalid {what}: as CPM (TS 103 324), UPER: not a {what}")),
            (Vec::new(), format!("empty {what}")),
        ] {
            rsu.publish(&topic, bad.clone()).await;
            let letter = next_within(&mut dlq, Duration::from_secs(20), "dead letter").await.unwrap();
            let letter = cits::proto::DeadLetter::decode(letter.payload.as_ref()).unwrap();
            assert!(letter.reason.contains(&reason), "reason `{}` lacks `{reason}`", letter.reason);
            assert_eq!(letter.payload, bad);
        }
        // Nothing is blocked: a good report and a CPM after the garbage come through.
        rsu.publish(&topic, good[1].clone()).await;
        next_within(&mut done, Duration::from_secs(20), &format!("FrameDone of a {what}")).await.unwrap();
        rsu.publish(&format!("cits/cpm/{RSU}"), cpm).await;
        next_within(&mut done, Duration::from_secs(20), "FrameDone of a CPM").await.unwrap();
    }
}

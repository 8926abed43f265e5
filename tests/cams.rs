//! Vehicles' own CAMs, end to end: an RSU forwards the CAMs it hears on `cits/cam/<rsu>` with
//! its own credentials, beside its CPMs. Euro NCAP's right hook, filmed with the car sending
//! CAMs (its indicator on before it turns), replayed over MQTT into the fused deployment, must
//! give exactly the DENMs the stage crates give natively from the same messages; a CAM that does
//! not decode is dead-lettered with its reason and blocks nothing.

use std::time::Duration;

use cits_tests::{next_within, warnings, Lattice};
use cits_tools::sim::ncap::{cases, film_case, Outcome, Shape};
use cits_tools::sim::Conditions;
use prost::Message as _;

/// Whether a recorded message is a CAM whose right indicator is on.
fn indicates_right(message: &[u8]) -> bool {
    etsi_its::cam::decode(message)
        .ok()
        .and_then(|cam| etsi_its::cam::SimpleCam::from_cam(&cam).ok())
        .and_then(|cam| cam.turn_signals)
        .is_some_and(|s| s.right)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_right_hook_with_the_cars_cams_warns_as_the_native_pipeline_does() {
    let lattice = Lattice::start_with("cams", Some("wadm/cits-pipeline-fused.yaml"));
    let xml = std::fs::read_to_string(lattice.repo.join("data/map/weiser-gabelsberger.osm")).unwrap();
    let graph = cits_tools::map::lane_graph_from_osm(&xml, "map").unwrap();
    let case = cases(&graph, &[Shape::RightHook], &[Outcome::Contact])
        .unwrap()
        .into_iter()
        .find(|c| c.car_kmh == 15.0)
        .unwrap();
    let conditions = Conditions::named("cams-100").unwrap();
    // The first seed whose driver indicates (three in four do).
    let records = (1..20)
        .map(|seed| film_case(&graph, &case, seed, conditions).unwrap().sim.records)
        .find(|records| records.iter().any(|r| indicates_right(&r.cpm)))
        .expect("a driver who indicates");
    let cams = records.iter().filter(|r| r.is_cam()).count();
    assert!(cams > 50 && cams < records.len(), "{cams} CAMs of {} messages", records.len());

    let options = lattice.replay_options(&["rsu-cams"], 4.0, 1);
    let (sent, received) = warnings::replay_and_collect(&lattice, &records, &options).await;
    assert!(!received.is_empty(), "the right hook was not warned");
    warnings::assert_warned_as_natively(&lattice, &sent.records, &received, "CPMs and CAMs");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cam_that_does_not_decode_is_dead_lettered_with_its_reason() {
    let lattice = Lattice::start_with("cams-garbage", Some("wadm/cits-pipeline-fused.yaml"));
    let xml = std::fs::read_to_string(lattice.repo.join("data/map/weiser-gabelsberger.osm")).unwrap();
    let graph = cits_tools::map::lane_graph_from_osm(&xml, "map").unwrap();
    let case = cases(&graph, &[Shape::RightHook], &[Outcome::Contact]).unwrap()[0];
    let filmed = film_case(&graph, &case, 1, Conditions::named("cams-100").unwrap()).unwrap();
    let good: Vec<Vec<u8>> =
        filmed.sim.records.iter().filter(|r| r.is_cam()).take(2).map(cits_tools::replay::made_now).collect();
    let cpm = cits_tools::replay::made_now(filmed.sim.records.iter().find(|r| !r.is_cam()).unwrap());

    const RSU: &str = "rsu-cam-garbage";
    let nats = lattice.nats().await;
    let mut dlq = nats.subscribe(cits::subjects::dead_letter("decoder")).await.unwrap();
    let mut done = nats.subscribe(cits::subjects::done(RSU)).await.unwrap();
    nats.flush().await.unwrap();
    let mut rsu = lattice.mqtt(RSU).await;
    let cam_topic = format!("cits/cam/{RSU}");
    for (bad, reason) in [
        (good[0][..good[0].len() / 2].to_vec(), "invalid CAM: as CAM, UPER"),
        (cpm.clone(), "invalid CAM: as CPM (TS 103 324), UPER: not a CAM"),
        (Vec::new(), "empty CAM"),
    ] {
        rsu.publish(&cam_topic, bad.clone()).await;
        let letter = next_within(&mut dlq, Duration::from_secs(20), "dead letter").await.unwrap();
        let letter = cits::proto::DeadLetter::decode(letter.payload.as_ref()).unwrap();
        assert!(letter.reason.contains(reason), "reason `{}` lacks `{reason}`", letter.reason);
        assert_eq!(letter.payload, bad);
    }
    // Nothing is blocked: a good CAM and a CPM after the garbage come through.
    rsu.publish(&cam_topic, good[1].clone()).await;
    next_within(&mut done, Duration::from_secs(20), "FrameDone of a CAM").await.unwrap();
    rsu.publish(&format!("cits/cpm/{RSU}"), cpm).await;
    next_within(&mut done, Duration::from_secs(20), "FrameDone of a CPM").await.unwrap();
}

//! `make run TOPOLOGY=edge`, leaner: an RSU site on a leaf node of its own (JetStream domain
//! `site-1`, its own MQTT listener), linked to the hub through a link the test controls; the
//! pipeline on the hub (placement "hub": the site runs ingress only). Two RSUs of the site replay
//! the short recording at 4x while the link is cut for 10 s and restored: every CPM the site's
//! listener acknowledged still yields exactly one `FrameDone` on the hub, in order, and the DENMs
//! the site holds for its RSUs (sourced back from the hub) are the in-process pipeline's.

use std::time::Duration;

use cits_tests::faults::{replay_with_faults, Fault};
use cits_tests::Lattice;

const SHORT: &str = "data/short.rec.b64";

/// One hub server and its host, one site with its edge host.
const EDGE: &str = "{nats: [{}], hosts: [{}, {site: site-1}], sites: [{name: site-1, rsus: [rsu1, rsu2]}]}";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_site_loses_nothing_while_its_link_to_the_hub_is_cut() {
    let lattice =
        Lattice::start_topology("edge", EDGE, Some("wadm/cits-pipeline-fused.yaml"), 0, Duration::from_secs(300));

    // Midway through the cut: the site keeps what its RSUs sent, the hub has not seen it.
    let midway = async {
        tokio::time::sleep(Duration::from_secs(8)).await;
        let site = lattice.site_stream_messages(0, cits_jetstream::site::INGRESS).await.unwrap().len();
        let hub = lattice.stream_messages("CITS_DONE").await.unwrap().len();
        (site, hub)
    };
    let mut history = Vec::new();
    let faults =
        [(Duration::from_millis(1500), Fault::CutSiteLink), (Duration::from_millis(11_500), Fault::RestoreSiteLink)];
    let replay =
        replay_with_faults(&lattice, &mut history, SHORT, 4.0, &["rsu1", "rsu2"], &faults, Duration::from_secs(180));
    let (outcome, (site_midway, hub_midway)) = tokio::join!(replay, midway);
    eprintln!(
        "edge, link cut for 10 s: {outcome:?}; midway the site held {site_midway} CPMs, the hub {hub_midway} frames"
    );
    assert!(outcome.clean(), "{outcome:?}");
    assert!(outcome.denms > 0, "the recording warns, or DENMs equal says little");
    // The probe's frame is the hub's own.
    assert!(
        hub_midway < site_midway / 2,
        "the link was cut: the hub had {hub_midway} frames of the {site_midway} CPMs the site held"
    );
}

//! `make run TOPOLOGY=edge`, leaner: an RSU site on a leaf node of its own (JetStream domain
//! `site-1`, its own MQTT listener), linked to the hub through a link the test controls. Two RSUs
//! of the site replay the short recording at 4x while the link is cut for 10 s and restored,
//! with the pipeline in either place:
//!
//! - on the hub (the site runs ingress and DENM delivery only): every CPM the site's listener
//!   acknowledged still yields exactly one `FrameDone` on the hub, in order, and the DENMs the
//!   site holds for its RSUs (sourced back from the hub) are the in-process pipeline's;
//! - on the site's own host (with its own Redis): warnings go on through the cut, no DENM waits
//!   for the link, and the hub still gets every frame (sourced once the link is back).

use std::time::Duration;

use cits_tests::faults::{replay_with_faults, Fault, Outcome};
use cits_tests::Lattice;

const SHORT: &str = "data/short.rec.b64";

/// One hub server and its host, one site with its edge host.
const EDGE: &str = "{nats: [{}], hosts: [{}, {site: site-1}], sites: [{name: site-1, rsus: [rsu1, rsu2]}]}";

/// The same, the pipeline running on the edge host.
const EDGE_PIPELINE: &str =
    "{nats: [{}], hosts: [{}, {site: site-1}], sites: [{name: site-1, rsus: [rsu1, rsu2], pipeline: edge}]}";

/// The link cut from 1.5 s to 11.5 s after the replay starts.
const CUT: [(Duration, Fault); 2] =
    [(Duration::from_millis(1500), Fault::CutSiteLink), (Duration::from_millis(11_500), Fault::RestoreSiteLink)];

/// Replays the short recording as the site's two RSUs through [`CUT`] on `topology` (the fused
/// manifest deployed) and checks what must hold wherever the pipeline runs: nothing lost,
/// duplicated or reordered, the in-process pipeline's DENMs, and the link really cut — midway
/// through the cut, the site's stream `site_stream` holds more than twice what the hub's
/// `CITS_DONE` does. The outcome, for what differs by placement.
async fn cut_mid_replay(name: &str, topology: &str, site_stream: &str) -> Outcome {
    let lattice =
        Lattice::start_topology(name, topology, Some("wadm/cits-pipeline-fused.yaml"), 0, Duration::from_secs(300));
    let dashboard = lattice.start_dashboard();
    let midway = async {
        tokio::time::sleep(Duration::from_secs(8)).await;
        let site = lattice.site_stream_messages(0, site_stream).await.unwrap().len();
        let hub = lattice.stream_messages("CITS_DONE").await.unwrap().len();
        (site, hub, site_leaf_links(&lattice, &dashboard).await)
    };
    let mut history = Vec::new();
    let replay =
        replay_with_faults(&lattice, &mut history, SHORT, 4.0, &["rsu1", "rsu2"], &CUT, Duration::from_secs(180));
    let (outcome, (site_midway, hub_midway, links_midway)) = tokio::join!(replay, midway);
    eprintln!("{name}, link cut for 10 s: {outcome:?}; midway the site's {site_stream} held {site_midway}, the hub {hub_midway} frames");
    assert!(outcome.clean(), "{outcome:?}");
    assert!(outcome.denms > 0, "the recording warns, or DENMs equal says little");
    assert!(hub_midway < site_midway / 2, "the link was cut: the hub had {hub_midway} frames, the site {site_midway}");
    // The operator sees it: the dashboard lists the site's leaf node without a link while it is
    // cut, and with its link to the hub again once restored.
    assert_eq!(links_midway, 0, "the dashboard showed the cut link as up");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while site_leaf_links(&lattice, &dashboard).await != 1 {
        assert!(tokio::time::Instant::now() < deadline, "the dashboard never showed the restored link");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    outcome
}

/// The leaf links the dashboard's Lattice page lists for the site's leaf node (it must list it).
async fn site_leaf_links(lattice: &Lattice, dashboard: &str) -> usize {
    let view = lattice.dashboard_snapshot(dashboard, "lattice").await.unwrap();
    let servers = view["servers"].as_array().cloned().unwrap_or_default();
    let site = servers.iter().find(|s| s["role"] == "site site-1").unwrap_or_else(|| panic!("no site server: {view}"));
    assert_eq!(site["up"], true, "{site}");
    site["leafs"].as_array().map_or(0, Vec::len)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_site_loses_nothing_while_its_link_to_the_hub_is_cut() {
    // The site keeps what its RSUs send until the hub sourced it.
    cut_mid_replay("edge", EDGE, cits_jetstream::site::INGRESS).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_site_that_runs_its_pipeline_warns_through_a_cut_link() {
    // The site handles what its RSUs send while the link is down.
    let outcome = cut_mid_replay("edge-pipeline", EDGE_PIPELINE, "CITS_DONE").await;
    let wait = outcome.longest_denm_wait.expect("DENMs came out");
    assert!(wait < Duration::from_secs(5), "a DENM waited {wait:?}: the site's warnings must not wait for the link");
}

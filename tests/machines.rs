//! A lattice over several machines as docs/deploying.md lays it out, its machines on this
//! machine's loopback addresses, each part started by its own supervisor from its own state dir
//! (`CITS_MACHINE`) with `auth/` and `tls/` copied from the first:
//!
//! - 127.0.0.1: hub servers 1 and 2, hosts 1 and 2, wadm, the hub's Redis, secrets, policy;
//! - 127.0.0.3: hub server 3 and host 3 — away from the hub's Redis and blob folder, so its
//!   components call the key-value and blobstore providers on the first machine's hosts;
//! - 127.0.0.2: site `site-1`'s leaf node, its edge host and Redis, running the pipeline for
//!   `rsu1`, which dials the site at 127.0.0.2 (TLS, the certificate names it).
//!
//! `rsu2` sends to the hub. Both replay the short recording at once: nothing lost, duplicated or
//! reordered, the in-process pipeline's DENMs for each, and the dashboard on the first machine
//! lists every server, the third's and the site's read at their addresses.

use std::time::Duration;

use cits_tests::faults::replay_with_faults;
use cits_tests::Lattice;

const SHORT: &str = "data/short.rec.b64";

const MACHINES: &str = "{nats: [{address: 127.0.0.1}, {address: 127.0.0.1}, {address: 127.0.0.3}], \
    hosts: [{}, {}, {}, {site: site-1}], \
    sites: [{name: site-1, rsus: [rsu1], pipeline: edge, address: 127.0.0.2}]}";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lattice_over_three_machines_warns_as_one_does() {
    let lattice =
        Lattice::start_machines("machines", MACHINES, Some("wadm/cits-pipeline-fused.yaml"), Duration::from_secs(300));

    // Each machine's supervisor started its own part and nothing else.
    for (address, servers, services) in
        [("127.0.0.3", vec!["nats-3"], vec!["host-3"]), ("127.0.0.2", vec!["nats-4"], vec!["redis-site-1", "host-4"])]
    {
        let status = lattice.machine_supervisor(address).status();
        let running: Vec<&str> =
            status.lines().filter(|l| l.contains("running")).map(|l| l.split(':').next().unwrap()).collect();
        let expected: Vec<&str> = servers.into_iter().chain(services).collect();
        assert_eq!(running, expected, "{address}:\n{status}");
    }

    // Host 3 is labelled away from the store and runs no provider that needs it.
    let inventory: serde_json::Value =
        serde_json::from_str(&lattice.wash(&["get", "inventory", "-o", "json"]).unwrap()).unwrap();
    let hosts = inventory["inventories"].as_array().expect("inventories");
    assert_eq!(hosts.len(), 4, "{inventory}");
    for host in hosts {
        let name = host["labels"]["host"].as_str().unwrap_or_default();
        let providers: Vec<&str> =
            host["providers"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
        let components: Vec<&str> =
            host["components"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
        let (store, expected) = match name {
            "host-3" => ("remote", vec!["cits-messaging-nats"]),
            "host-4" => (
                "local",
                vec!["cits-blobstore-fs-site-1", "cits-keyvalue-redis-fused-site-1", "cits-messaging-nats-site-1"],
            ),
            _ => ("local", vec!["cits-blobstore-fs", "cits-keyvalue-redis-fused", "cits-messaging-nats"]),
        };
        assert_eq!(host["labels"]["store"], store, "{name}");
        let mut providers = providers;
        providers.sort();
        assert_eq!(providers, expected, "{name}");
        let pipeline = if name == "host-4" { "cits-pipeline-site-1" } else { "cits-pipeline" };
        assert!(components.contains(&pipeline), "{name} runs {components:?}");
    }

    // Both RSUs at once: the site's pipeline for rsu1, the hub's (over three machines) for rsu2.
    let (mut site_history, mut hub_history) = (Vec::new(), Vec::new());
    let patience = Duration::from_secs(180);
    let (site, hub) = tokio::join!(
        replay_with_faults(&lattice, &mut site_history, SHORT, 4.0, &["rsu1"], &[], patience),
        replay_with_faults(&lattice, &mut hub_history, SHORT, 4.0, &["rsu2"], &[], patience),
    );
    eprintln!("over three machines: site {site:?}; hub {hub:?}");
    for (who, outcome) in [("rsu1 at the site", &site), ("rsu2 at the hub", &hub)] {
        assert!(outcome.clean(), "{who}: {outcome:?}");
        assert!(outcome.denms > 0, "{who}: the recording warns, or DENMs equal says little");
    }

    // The dashboard on the first machine reads every server's monitoring endpoint, the other
    // machines' at their addresses.
    let dashboard = lattice.start_dashboard();
    let want = [("hub", "127.0.0.1"), ("hub", "127.0.0.1"), ("hub", "127.0.0.3"), ("site site-1", "127.0.0.2")];
    let want: Vec<(String, String, bool)> = want.iter().map(|(r, h)| (r.to_string(), h.to_string(), true)).collect();
    // Its first snapshot comes after a round of reads.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let view = lattice.dashboard_snapshot(&dashboard, "lattice").await;
        let seen = view.as_ref().map(servers_seen).unwrap_or_default();
        if seen == want {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the dashboard's servers: {view:?}");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Each server the dashboard's Lattice page lists: role, the host its monitor is read at, up.
fn servers_seen(view: &serde_json::Value) -> Vec<(String, String, bool)> {
    let servers = view["servers"].as_array().cloned().unwrap_or_default();
    servers
        .iter()
        .map(|s| {
            let host = s["monitor"].as_str().unwrap_or_default().split(':').next().unwrap_or_default().to_string();
            (s["role"].as_str().unwrap_or_default().to_string(), host, s["up"] == true)
        })
        .collect()
}

//! `make chaos`: the default recording (3,288 CPMs, 207 s) replayed at 4x as two RSUs over MQTT
//! QoS 1, in each deployment (fused, seven actors) on two hosts, once per fault kind, with that
//! fault injected at least five times at random moments of the run: kill -9 of a messaging
//! provider, a host dying (and coming back), Redis killed and restarted, nats-server killed and
//! restarted; on a three-server NATS cluster (`TOPOLOGY=cluster`, fused, RSUs on the second
//! server's MQTT listener), each server killed with SIGKILL in turn and started again; and on
//! that cluster as the hub of an RSU site (a leaf node with both RSUs and an edge host, the
//! pipeline on the hub, then on the edge host), the site's link cut for 30 s
//! (tests/common/link.rs), the edge host killed, and the hub's servers killed. A deployment's rows are replays one after the other on
//! one lattice, so its DENMs are held against the in-process pipeline given every replay so far:
//! state left by an earlier replay or fault must not change what the next one warns. Prints one
//! table (faults injected, CPMs in, frames out, lost, duplicated, DENMs equal to the in-process
//! pipeline's, the longest a DENM was due and not out) and fails unless every row is clean.
//! Ignored by `make test` (about 45 minutes).

use std::time::Duration;

use cits_tests::faults::{replay_with_faults, Fault, Outcome};
use cits_tests::Lattice;

const RECORDING: &str = "data/default.rec.b64";
const SPEED: f64 = 4.0;
const FAULTS_PER_RUN: usize = 5;

/// A fault kind: the fault to inject in round `i`.
type FaultOfRound = fn(usize) -> Fault;

/// When a row's faults happen.
#[derive(Clone, Copy)]
enum Schedule {
    /// [`FAULTS_PER_RUN`] faults spread over the replay, each at a random moment of its slot.
    Spread(FaultOfRound),
    /// The sites' link cut at a random moment of the replay's first quarter, restored
    /// [`LINK_CUT`] later.
    LinkCut,
}

/// How long a site's link is cut.
const LINK_CUT: Duration = Duration::from_secs(30);

impl Schedule {
    fn faults(self, rng: &mut u64) -> Vec<(Duration, Fault)> {
        let mut next = || {
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            *rng
        };
        match self {
            Schedule::Spread(fault) => {
                // Five faults spread over the replay (207 s / 4 ≈ 52 s).
                let slot_ms = 50_000 / FAULTS_PER_RUN as u64;
                (0..FAULTS_PER_RUN)
                    .map(|i| (Duration::from_millis(i as u64 * slot_ms + 1000 + next() % (slot_ms - 2000)), fault(i)))
                    .collect()
            }
            Schedule::LinkCut => {
                let cut = Duration::from_millis(2000 + next() % 10_000);
                vec![(cut, Fault::CutSiteLink), (cut + LINK_CUT, Fault::RestoreSiteLink)]
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "long: run with make chaos"]
async fn chaos() {
    let seed = std::env::var("CHAOS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
    });
    eprintln!("chaos seed {seed} (CHAOS_SEED={seed} repeats these fault times)");
    let mut rng = seed | 1;
    use Schedule::Spread;
    let on_one_server: &[(&str, Schedule)] = &[
        ("kill -9 messaging provider", Spread(|i| Fault::KillProvider(1 + (i % 2) as u8))),
        ("kill -9 host (restarted)", Spread(|i| Fault::CrashHost { host: 1 + (i % 2) as u8, restart: true })),
        ("restart Redis (kill -9)", Spread(|_| Fault::RestartRedis)),
        ("restart nats-server (kill -9)", Spread(|_| Fault::RestartNats)),
    ];
    // Each of the three servers in turn, at random moments.
    let in_a_cluster: &[(&str, Schedule)] =
        &[("kill -9 a cluster server (restarted)", Spread(|i| Fault::RestartNatsNode(1 + (i % 3) as u8)))];
    // A site on a leaf node of the cluster: its link, its edge host (host 4), the hub's servers.
    let at_a_site: &[(&str, Schedule)] = &[
        ("cut the site's link for 30 s", Schedule::LinkCut),
        ("kill -9 the edge host (restarted)", Spread(|_| Fault::CrashHost { host: 4, restart: true })),
        ("kill -9 a hub server (restarted)", Spread(|i| Fault::RestartNatsNode(1 + (i % 3) as u8))),
    ];
    // CHAOS_KINDS=3 (or 0,2 …) runs only those rows of each deployment: a fault kind under investigation.
    let listed = |var: &str| -> Option<Vec<usize>> {
        std::env::var(var).ok().map(|s| s.split(',').filter_map(|k| k.trim().parse().ok()).collect())
    };
    let only = listed("CHAOS_KINDS");
    // CHAOS_DEPLOYMENTS=3 runs only that deployment's rows (its faults drawn all the same).
    let only_deployments = listed("CHAOS_DEPLOYMENTS");
    let fused = Some("wadm/cits-pipeline-fused.yaml");
    // The cluster as the hub of one site with both RSUs and an edge host; the pipeline on the hub.
    let edge = "{nats: [{}, {}, {}], hosts: [{}, {}, {}, {site: site-1}], \
                sites: [{name: site-1, rsus: [rsu1, rsu2]}]}";
    let edge_pipeline = "{nats: [{}, {}, {}], hosts: [{}, {}, {}, {site: site-1}], \
                         sites: [{name: site-1, rsus: [rsu1, rsu2], pipeline: edge}]}";
    let deployments = [
        // (name, topology, manifest, the server whose MQTT listener hub RSUs use, faults)
        ("fused", "{hosts: [{}, {}]}", fused, 0, on_one_server),
        ("seven actors", "{hosts: [{}, {}]}", None, 0, on_one_server),
        ("cluster, fused", "cluster", fused, 1, in_a_cluster),
        ("edge (pipeline on the hub), fused", edge, fused, 0, at_a_site),
        ("edge (pipeline at the site), fused", edge_pipeline, fused, 0, at_a_site),
    ];
    let mut rows: Vec<(String, Outcome)> = Vec::new();
    for (d, (deployment, topology, manifest, rsu_server, kinds)) in deployments.iter().enumerate() {
        let mut lattice = None;
        let mut history = Vec::new();
        for (k, (label, schedule)) in kinds.iter().enumerate() {
            let faults = schedule.faults(&mut rng);
            // Skipped after drawing its fault times, so a seed gives every row the same times.
            if only.as_ref().is_some_and(|only| !only.contains(&k))
                || only_deployments.as_ref().is_some_and(|only| !only.contains(&d))
            {
                continue;
            }
            let lattice = lattice.get_or_insert_with(|| {
                // The default recording (207 s) at 4x: its first CPMs are sent ~155 s older than
                // live.
                Lattice::start_topology(
                    &format!("chaos-{d}"),
                    topology,
                    *manifest,
                    *rsu_server,
                    Duration::from_secs(300),
                )
            });
            let outcome = replay_with_faults(
                lattice,
                &mut history,
                RECORDING,
                SPEED,
                &["rsu1", "rsu2"],
                &faults,
                Duration::from_secs(300),
            )
            .await;
            eprintln!("{deployment}, {label}: {outcome:?}");
            rows.push((format!("{deployment}: {label}"), outcome));
        }
    }
    println!("\n| deployment: fault | faults injected | CPMs in | frames out | lost | duplicated | out of order | DENMs equal (so far) | longest DENM wait |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (label, o) in &rows {
        println!(
            "| {label} | {} | {} | {} | {} | {} | {} | {} | {} |",
            o.faults,
            o.cpms_in,
            o.frames_out,
            o.lost,
            o.duplicated,
            if o.out_of_order.is_empty() { "none".to_string() } else { o.out_of_order.join(", ") },
            if o.denms_equal { format!("yes ({})", o.denms) } else { format!("no ({})", o.denms) },
            o.longest_denm_wait.map_or("-".to_string(), |w| format!("{:.2} s", w.as_secs_f64()))
        );
    }
    assert!(rows.iter().all(|(_, o)| o.clean()), "a fault lost, duplicated or reordered something");
}

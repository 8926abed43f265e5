//! Hard failures mid-run, the way Kafka Streams' exactly-once system test breaks things: two RSUs
//! replay the short recording over MQTT with QoS 1 at 4x into the fused deployment on two hosts,
//! and a third of the way through (a) the messaging provider of one host is killed with SIGKILL,
//! or (b) one of the two hosts dies with everything it started. Afterwards every CPM has yielded
//! exactly one `FrameDone` (by frame id: none missing, none twice), each RSU's in the order it
//! sent them, and each RSU got exactly the DENMs the same stages produce in process — read from
//! JetStream, which is what RSUs are sent from. The same recording replayed again on the same
//! lattice, after a host of the seven-actor deployment died, gives the DENMs the in-process
//! pipeline gives for both replays. `make chaos` repeats all four fault kinds in both deployments.

use std::time::Duration;

use cits_tests::faults::{replay_with_faults, Fault};
use cits_tests::Lattice;

const SHORT: &str = "data/short.rec.b64";

async fn survives(name: &str, fault: Fault) {
    let lattice = Lattice::start_hosts(name, Some("wadm/cits-pipeline-fused.yaml"), 2);
    // The short recording spans 20 s, 5 s at 4x: the fault hits with frames of both RSUs in flight.
    let faults = [(Duration::from_millis(1700), fault)];
    let mut history = Vec::new();
    let outcome =
        replay_with_faults(&lattice, &mut history, SHORT, 4.0, &["rsu1", "rsu2"], &faults, Duration::from_secs(180))
            .await;
    eprintln!("{name}: {outcome:?}");
    assert_eq!((outcome.lost, outcome.duplicated), (0, 0), "frames lost / duplicated: {outcome:?}");
    assert!(outcome.out_of_order.is_empty(), "frames out of order: {outcome:?}");
    assert!(outcome.denms_equal, "DENMs differ from the in-process pipeline's: {outcome:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_a_messaging_provider_loses_and_duplicates_nothing() {
    survives("kill-provider", Fault::KillProvider(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_dying_loses_and_duplicates_nothing() {
    survives("kill-host", Fault::CrashHost { host: 2, restart: false }).await;
}

/// Seven actors on two hosts; host 2 dies mid-replay and comes back; then the same recording
/// again, undisturbed. Both replays' DENMs are the in-process pipeline's for the two in a row:
/// no state a fault left behind (a frame's tracks learned twice by the predictor, a warning
/// counted twice) and no timing changes what the pipeline says.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seven_actors_warn_alike_on_a_replay_after_a_host_died() {
    let lattice = Lattice::start_hosts("replay-again", None, 2);
    let mut history = Vec::new();
    let rsus = ["rsu1", "rsu2"];
    let crash = [(Duration::from_millis(1700), Fault::CrashHost { host: 2, restart: true })];
    for (round, faults) in [("with a host killed", &crash[..]), ("again, undisturbed", &[])] {
        let outcome =
            replay_with_faults(&lattice, &mut history, SHORT, 4.0, &rsus, faults, Duration::from_secs(180)).await;
        eprintln!("{round}: {outcome:?}");
        assert!(outcome.clean(), "{round}: {outcome:?}");
        assert!(outcome.denms > 0, "{round}: the recording warns, or DENMs equal says little");
    }
}

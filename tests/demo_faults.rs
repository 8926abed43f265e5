//! `cits demo` and `cits watch` tell the truth after a fault (issue 50: a killed messaging
//! provider, host or cluster server left the demo's summary at a third of the frames while the
//! streams held them all). The short recording (319 CPMs) is replayed by the `cits demo` binary as
//! `make run` runs it, at 4x with QoS 1, into the fused deployment on two hosts: once undisturbed,
//! once with the messaging provider of host 1 killed with SIGKILL two seconds in (its frame in
//! flight is redelivered after the consumer's ack wait, 10 s of silence — longer than the
//! watchers' 5 s idle), with `cits watch` running alongside. Each time, the frames and DENMs the
//! summary states are what streams CITS_DONE and CITS_DENM gained, counted here independently,
//! and every CPM made it through.

use std::collections::HashSet;
use std::process::Stdio;
use std::time::Duration;

use cits_tests::faults::Fault;
use cits_tests::{env_path, Lattice};
use prost::Message as _;

const SHORT: &str = "data/short.rec.b64";
const CPMS: u64 = 319;
const RSU: &str = "rsu1";

/// `cits <args>` against `lattice`, as `make run` runs it (operator and RSU credentials from
/// CITS_AUTH), its output captured.
fn cits(lattice: &Lattice, args: &[&str]) -> tokio::process::Child {
    tokio::process::Command::new(env_path("CITS_TOOL"))
        .args(args)
        .args(["--nats", &format!("127.0.0.1:{}", lattice.nats_port)])
        .args(["--mqtt", &format!("127.0.0.1:{}", lattice.mqtt_port), "--rsu", RSU, "--quiet"])
        .env("CITS_AUTH", lattice.auth_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("cits runs")
}

/// What a command printed, once it ended (within 150 s), and whether it succeeded.
async fn finish(child: tokio::process::Child, what: &str) -> (bool, String) {
    let out = tokio::time::timeout(Duration::from_secs(150), child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("{what} did not end within 150 s"))
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    eprintln!("--- {what}: {}\n{stdout}{}", out.status, String::from_utf8_lossy(&out.stderr));
    (out.status.success(), stdout)
}

/// The frames and DENMs a summary's headline states:
/// `--- 319 of 319 frames through the pipeline (stream CITS_DONE), 12 DENMs stored (…`.
fn headline(stdout: &str) -> (u64, u64) {
    let line = stdout
        .lines()
        .find(|l| l.contains("frames through the pipeline"))
        .unwrap_or_else(|| panic!("no headline in {stdout}"));
    assert!(line.contains("(stream CITS_DONE)"), "counted from the streams: {line}");
    let frames = line.trim_start_matches("--- ").split_whitespace().next().and_then(|n| n.parse().ok());
    let denms = line.split(" DENMs stored").next().and_then(|l| l.rsplit(' ').next()).and_then(|n| n.parse().ok());
    (frames.unwrap_or_else(|| panic!("frames in {line}")), denms.unwrap_or_else(|| panic!("DENMs in {line}")))
}

/// What the streams hold of `RSU`: its frames done (by frame id) and how many DENMs.
async fn stored(lattice: &Lattice) -> (HashSet<String>, u64) {
    let frames = lattice.stream_messages("CITS_DONE").await.unwrap();
    let frames = frames
        .iter()
        .map(|m| cits::proto::FrameDone::decode(m.payload.as_ref()).unwrap())
        .filter(|d| d.rsu_id == RSU)
        .map(|d| d.frame_id)
        .collect();
    let denms = lattice.stream_messages("CITS_DENM").await.unwrap();
    let subject = cits::subjects::denm_outbox(RSU);
    (frames, denms.iter().filter(|m| m.subject.as_str() == subject).count() as u64)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_counts_what_the_streams_hold_through_a_provider_kill() {
    let lattice = Lattice::start_hosts("demo-faults", Some("wadm/cits-pipeline-fused.yaml"), 2);
    lattice.add_rsu(RSU);
    let file = lattice.repo.join(SHORT);
    let file = file.to_str().unwrap();
    let demo_args = ["demo", "--file", file, "--speed", "4", "--qos", "1"];
    for (round, fault) in [("undisturbed", None), ("a messaging provider killed", Some(Fault::KillProvider(1)))] {
        let (frames_before, denms_before) = stored(&lattice).await;
        // A watcher alongside the faulted replay, started first (it counts from its start).
        let watch = fault.map(|_| cits(&lattice, &["watch"]));
        if watch.is_some() {
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        let demo = cits(&lattice, &demo_args);
        if let Some(fault) = fault {
            // The replay starts about half a second after the demo and lasts 5 s.
            tokio::time::sleep(Duration::from_millis(2500)).await;
            eprintln!("{round}: {fault:?}");
            tokio::task::block_in_place(|| fault.inject(&lattice));
        }
        let (ok, summary) = finish(demo, &format!("cits demo, {round}")).await;
        let watched = match watch {
            Some(w) => Some(finish(w, &format!("cits watch, {round}")).await),
            None => None,
        };

        let (frames_after, denms_after) = stored(&lattice).await;
        let frames = frames_after.difference(&frames_before).count() as u64;
        let denms = denms_after - denms_before;
        eprintln!("{round}: the streams gained {frames} frames done and {denms} DENMs for {RSU}");
        assert_eq!(frames, CPMS, "{round}: every CPM through the pipeline");
        assert!(denms > 0, "{round}: the recording warns, or equal DENM counts say little");
        assert!(ok, "{round}: cits demo failed:\n{summary}");
        assert_eq!(headline(&summary), (frames, denms), "{round}: the demo's summary against the streams");
        assert!(summary.contains(&format!("--- {CPMS} of {CPMS} frames")), "{round}: {summary}");
        if let Some((ok, watched)) = watched {
            assert!(ok, "{round}: cits watch failed:\n{watched}");
            assert_eq!(headline(&watched), (frames, denms), "{round}: the watcher's summary against the streams");
        }
    }
}

//! `make run TOPOLOGY=cluster`: three nats-servers in one cluster, every stream the pipeline and
//! the MQTT listener use kept on all three (R3), a wasmCloud host on each server. Two RSUs replay
//! the short recording over the MQTT listener of the second server at 4x while the first server
//! (the one the first host, wadm and the supervisor connect to) is killed with SIGKILL and started
//! again: every CPM still yields exactly one `FrameDone`, in order, and the DENMs are the
//! in-process pipeline's. (What the MQTT listener acknowledged while the ingress stream had no
//! leader reaches the pipeline through the listener's store: crates/cits-jetstream/src/mqtt.rs.)

use std::time::Duration;

use cits_tests::faults::{replay_with_faults, Fault};
use cits_tests::Lattice;

const SHORT: &str = "data/short.rec.b64";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_loses_nothing_when_a_server_is_killed_mid_replay() {
    let lattice = Lattice::start_topology(
        "cluster",
        "cluster",
        Some("wadm/cits-pipeline-fused.yaml"),
        1,
        Duration::from_secs(300),
    );

    let mut history = Vec::new();
    let faults = [(Duration::from_millis(1700), Fault::RestartNatsNode(1))];
    let outcome =
        replay_with_faults(&lattice, &mut history, SHORT, 4.0, &["rsu1", "rsu2"], &faults, Duration::from_secs(180))
            .await;
    eprintln!("cluster, server 1 killed: {outcome:?}");
    assert!(outcome.clean(), "{outcome:?}");
    assert!(outcome.denms > 0, "the recording warns, or DENMs equal says little");

    // Every stream on three servers: the pipeline's, wadm's, the hosts' and the secrets
    // backend's buckets and the MQTT listener's (made when the first RSU connected).
    let js = async_nats::jetstream::new(lattice.nats().await);
    let mut names = js.stream_names();
    let mut streams = Vec::new();
    while let Some(name) = futures::StreamExt::next(&mut names).await {
        streams.push(name.unwrap());
    }
    for spec in cits_jetstream::STREAMS {
        assert!(streams.iter().any(|s| s == spec.name), "{} exists: {streams:?}", spec.name);
    }
    assert!(streams.iter().any(|s| s.starts_with("$MQTT_")), "the MQTT listener's streams: {streams:?}");
    assert!(streams.iter().any(|s| s.starts_with("KV_LATTICEDATA_")), "{streams:?}");
    let mut single = Vec::new();
    for name in &streams {
        let replicas = js.get_stream(name).await.unwrap().cached_info().config.num_replicas;
        if replicas != 3 {
            single.push(format!("{name}: R{replicas}"));
        }
    }
    assert!(single.is_empty(), "streams not on all three servers: {single:?}");

    // What crosses a network is TLS: an RSU speaking plain MQTT gets no CONNACK (the replay
    // above spoke TLS, checking the lattice's CA), and a server's route port says nothing in
    // clear text (a plain route port greets with INFO at once; this one waits for a TLS
    // handshake, then hangs up).
    let plain = lattice.mqtt_login("plain-rsu", None).await;
    assert!(plain.is_err(), "plain MQTT on the TLS listener: {:?}", plain.as_ref().map(|_| "connected"));
    let route = lattice.supervisor().settings.server(0).cluster;
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", route)).await.unwrap();
    let mut greeting = vec![0u8; 4096];
    let read = tokio::time::timeout(Duration::from_secs(10), tokio::io::AsyncReadExt::read(&mut stream, &mut greeting))
        .await
        .expect("the route port hangs up on a peer that does not start TLS");
    assert_eq!(read.unwrap_or(0), 0, "clear text from the route port: {:?}", String::from_utf8_lossy(&greeting));
}

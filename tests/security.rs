//! Who may do what on a running lattice: anonymous connections refused; an RSU publishes only its
//! own CPMs and reads only its own DENMs, over MQTT only; a removed RSU is cut off without a
//! server restart; the hosts start only components signed with the project's key (an unsigned
//! one and one signed by another issuer are refused, wadm says why, nothing of them runs); the
//! native code they cache for components lives only in a directory no one else can write to.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cits_tests::{next_within, Lattice};
use futures::StreamExt as _;
use rumqttc::{AsyncClient, Event, Packet, QoS, SubscribeReasonCode};

const WAIT: Duration = Duration::from_secs(15);

/// Subscribes and returns the SUBACK's verdict: true if granted.
async fn granted(client: &AsyncClient, eventloop: &mut rumqttc::EventLoop, filter: &str) -> bool {
    client.subscribe(filter, QoS::AtLeastOnce).await.unwrap();
    loop {
        let event = tokio::time::timeout(WAIT, eventloop.poll()).await.expect("SUBACK in time").expect("connection");
        if let Event::Incoming(Packet::SubAck(ack)) = event {
            return ack.return_codes.iter().all(|c| !matches!(c, SubscribeReasonCode::Failure));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rsus_touch_only_their_own_subjects_and_anonymous_is_refused() {
    let lattice = Lattice::start("security-rsu");
    // rsu-a sends probe CPMs (stamped now, from the probe's station).
    let probe_station = cits_client::demo::PROBE_STATION_ID.to_string();
    lattice.step(&["rsu-add", "rsu-a", &probe_station]).unwrap();
    lattice.add_rsu("rsu-b");
    let nats = lattice.nats().await;
    let mut as_b = nats.subscribe("cits.*.rsu-b").await.unwrap();
    let mut done_a = nats.subscribe(cits::subjects::done("rsu-a")).await.unwrap();
    let mut wasmbus = nats.subscribe("wasmbus.>").await.unwrap();
    nats.flush().await.unwrap();

    // Anonymous: refused on NATS and on MQTT; a wrong password too.
    let anonymous = async_nats::ConnectOptions::new().connect(format!("127.0.0.1:{}", lattice.nats_port));
    assert!(
        tokio::time::timeout(Duration::from_secs(3), anonymous).await.map(|r| r.is_err()).unwrap_or(true),
        "anonymous NATS connection accepted"
    );
    assert!(lattice.mqtt_login("anon", None).await.is_err(), "anonymous MQTT accepted");
    assert!(lattice.mqtt_login("forged", Some(("rsu-a", "not-a-token"))).await.is_err(), "bad token accepted");
    // Another lattice's signature: a token of a fresh authority is not trusted here.
    let foreign_dir = lattice.state.join("foreign-auth");
    let foreign = cits_nats_auth::Authority::init(&foreign_dir).unwrap();
    let foreign_token = std::fs::read_to_string(foreign.add_rsu("rsu-a").unwrap()).unwrap();
    assert!(lattice.mqtt_login("foreign", Some(("rsu-a", &foreign_token))).await.is_err(), "foreign token accepted");
    // An RSU token is for MQTT only: as a plain NATS client it is refused.
    let jwt = lattice.rsu_token("rsu-a");
    let key = std::sync::Arc::new(nkeys::KeyPair::new_user());
    let plain = async_nats::ConnectOptions::with_jwt(jwt.clone(), move |nonce| {
        let key = key.clone();
        async move { key.sign(&nonce).map_err(async_nats::AuthError::new) }
    })
    .connect(format!("127.0.0.1:{}", lattice.nats_port));
    assert!(
        tokio::time::timeout(Duration::from_secs(3), plain).await.map(|r| r.is_err()).unwrap_or(true),
        "RSU token accepted on a NATS (non-MQTT) connection"
    );

    // rsu-a with its token: its own DENMs yes; another RSU's, all RSUs', the lattice's: no.
    let (client, mut eventloop) = lattice.mqtt_login("rsu-a-client", Some(("rsu-a", &jwt))).await.unwrap();
    assert!(granted(&client, &mut eventloop, "cits/denm/rsu-a").await);
    for filter in ["cits/denm/rsu-b", "cits/denm/#", "cits/cpm/rsu-b", "wasmbus/#", "$JS/API/#", "#", "$MQTT/sub/#"] {
        assert!(!granted(&client, &mut eventloop, filter).await, "rsu-a may subscribe {filter}");
    }
    // Publishing as rsu-b (CPMs, CAMs) or on the lattice's subjects goes nowhere; its own CPM
    // goes through.
    let cpm = cits_client::demo::probe_cpm();
    for topic in
        ["cits/cpm/rsu-b", "cits/cam/rsu-b", "cits/vam/rsu-b", "wasmbus/ctl/v1/default/host/stop", "cits/denm/rsu-b"]
    {
        client.publish(topic, QoS::AtMostOnce, false, cpm.clone()).await.unwrap();
    }
    client.publish("cits/cpm/rsu-a", QoS::AtLeastOnce, false, cpm.clone()).await.unwrap();
    let io = tokio::spawn(async move { while eventloop.poll().await.is_ok() {} });
    next_within(&mut done_a, WAIT, "rsu-a's own CPM through the pipeline").await.unwrap();
    assert!(tokio::time::timeout(Duration::from_secs(1), as_b.next()).await.is_err(), "rsu-a published as rsu-b");
    while let Ok(Some(m)) = tokio::time::timeout(Duration::from_millis(200), wasmbus.next()).await {
        assert!(!m.subject.as_str().contains("host.stop"), "rsu-a reached the control interface: {}", m.subject);
    }

    // Removing rsu-b: its token stops working at once (config reload, no restart), the
    // server's PID unchanged; rsu-a is unaffected.
    let nats_pid = lattice.pid("nats").unwrap();
    let b = lattice.rsu_token("rsu-b");
    let (_b_client, mut b_loop) = lattice.mqtt_login("rsu-b-client", Some(("rsu-b", &b))).await.unwrap();
    lattice.step(&["rsu-remove", "rsu-b"]).unwrap();
    let dropped = tokio::time::timeout(WAIT, async {
        loop {
            if b_loop.poll().await.is_err() {
                return;
            }
        }
    })
    .await;
    assert!(dropped.is_ok(), "rsu-b's connection survived its removal");
    assert!(lattice.mqtt_login("rsu-b-again", Some(("rsu-b", &b))).await.is_err(), "revoked token accepted");
    assert_eq!(lattice.pid("nats").unwrap(), nats_pid, "no server restart");
    assert!(lattice.mqtt_login("rsu-a-again", Some(("rsu-a", &jwt))).await.is_ok());
    io.abort();
}

/// Signs `wasm` with a freshly generated issuer (wash makes the keys in `keys`).
fn sign_foreign(wasm: &Path, out: &Path, keys: &Path) {
    let status = Command::new(std::env::var("WASH").unwrap())
        .args(["claims", "sign"])
        .arg(wasm)
        .arg("--destination")
        .arg(out)
        .args(["--name", "foreign", "--rev", "1", "--ver", "0.1.0"])
        .env("WASH_KEYS", keys)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn hosts_start_only_components_signed_with_the_project_key() {
    let lattice = Lattice::start("security-policy");
    let repo = &lattice.repo;
    let unsigned = repo.join("actors/decoder/build/decoder.wasm");
    let foreign = lattice.state.join("foreign_s.wasm");
    sign_foreign(&unsigned, &foreign, &lattice.state.join("foreign-keys"));
    // A provider archive whose binary changed after it was signed: one byte in its middle (the
    // archive is an uncompressed tar, the binary nearly all of it).
    let tampered = lattice.state.join("tampered.par");
    let mut par = std::fs::read(repo.join("build/providers/blobstore-fs.par")).unwrap();
    let middle = par.len() / 2;
    par[middle] ^= 0x01;
    std::fs::write(&tampered, par).unwrap();
    let manifest = lattice.state.join("intruders.yaml");
    std::fs::write(
        &manifest,
        format!(
            "apiVersion: core.oam.dev/v1beta1\nkind: Application\nmetadata:\n  name: intruders\n  annotations:\n    version: v0.0.1\n\
             spec:\n  components:\n\
             \x20   - name: unsigned\n      type: component\n      properties:\n        image: file://{}\n        id: intruder-unsigned\n\
             \x20     traits:\n        - type: spreadscaler\n          properties:\n            instances: 1\n\
             \x20   - name: foreign\n      type: component\n      properties:\n        image: file://{}\n        id: intruder-foreign\n\
             \x20     traits:\n        - type: spreadscaler\n          properties:\n            instances: 1\n\
             \x20   - name: tampered\n      type: capability\n      properties:\n        image: file://{}\n        id: intruder-tampered\n\
             \x20     traits:\n        - type: spreadscaler\n          properties:\n            instances: 1\n",
            unsigned.display(),
            foreign.display(),
            tampered.display()
        ),
    )
    .unwrap();
    lattice.wash(&["app", "deploy", manifest.to_str().unwrap()]).unwrap();

    // wadm reports the refusals with the policy's reasons; nothing of them runs.
    let mut status = String::new();
    for _ in 0..100 {
        status = lattice.wash(&["app", "status", "intruders", "-o", "json"]).unwrap_or_default();
        if status.contains("not signed") && status.contains("not an allowed issuer") && status.contains("hash") {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(status.contains("not signed"), "wadm status: {status}");
    assert!(status.contains("not an allowed issuer"), "wadm status: {status}");
    assert!(status.contains("hash do not match"), "wadm status: {status}");
    let inventory = lattice.wash(&["get", "inventory", "-o", "json"]).unwrap();
    assert!(!inventory.contains("intruder-"), "a refused component runs: {inventory}");
    // Ours run (the lattice's probe went through all seven of them) and were permitted.
    assert!(inventory.contains("cits-decoder"));
    let policy_log = std::fs::read_to_string(lattice.state.join("logs/policy.log")).unwrap();
    assert!(policy_log.contains("permitted") && policy_log.contains("refused"), "{policy_log}");

    // The host kept the machine code of the components it started, in a private directory.
    let cache = lattice.state.join("compiled");
    let mode = std::fs::metadata(&cache).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "compilation cache mode {mode:o}");
    // Written once Cranelift's code is compiled, in the background (tests/compilation.rs).
    let cached = cits_tests::wait_for(Duration::from_secs(120), || files_under(&cache) >= 7);
    assert!(cached, "the seven components' code is not in {}", cache.display());
}

fn files_under(dir: &Path) -> usize {
    std::fs::read_dir(dir).unwrap().flatten().map(|e| if e.path().is_dir() { files_under(&e.path()) } else { 1 }).sum()
}

/// A compilation cache others may write to could hand the host native code to run, around the
/// signature policy: the host refuses to start with one.
#[test]
fn a_host_refuses_a_compilation_cache_others_can_write_to() {
    let host = std::env::var("WASMCLOUD_HOST_BIN").expect("WASMCLOUD_HOST_BIN (make test-e2e sets it)");
    let dir = std::env::temp_dir().join(format!("cits-open-cache-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let mut child = Command::new(host)
        .env("WASMCLOUD_COMPILATION_CACHE_DIR", &dir)
        // Nothing listens there: a host that got past the check would wait for NATS.
        .env("WASMCLOUD_NATS_PORT", cits_tests::free_port().to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the host started with a compilation cache anyone may write to");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(!status.success());
    assert!(stderr.contains("writable by it alone"), "{stderr}");
}

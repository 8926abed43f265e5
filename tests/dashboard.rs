//! The web dashboard in a real browser (Debian's Chromium, driven by dashboard/tests/browser.mjs)
//! against a real lattice: what the pages show is checked against wash, and what an operator
//! changes on them is checked with wash. Screenshots of every page are kept as test output.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use cits_tests::Lattice;
use serde_json::Value;

use cits_tests::STAGE_COMPONENTS as STAGES;

fn screenshots() -> PathBuf {
    let base = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
    base.join("dashboard-screenshots")
}

/// One step of the browser script; its JSON report.
fn browser(lattice: &Lattice, url: &str, args: &[&str]) -> Value {
    let started = Instant::now();
    let out = Command::new("node")
        .arg(lattice.repo.join("dashboard/tests/browser.mjs"))
        .args(args)
        .env("DASHBOARD_URL", url)
        .env("DASHBOARD_PASSWORD_FILE", lattice.auth_dir().join("dashboard.password"))
        .env("SCREENSHOTS", screenshots())
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "browser step {args:?} failed after {:.1} s: {}{}\n(screenshots in {})",
        started.elapsed().as_secs_f64(),
        String::from_utf8_lossy(&out.stderr),
        stdout,
        screenshots().display()
    );
    eprintln!("browser {} in {:.1} s", args[0], started.elapsed().as_secs_f64());
    serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("the step reports JSON")
}

fn wash_json(lattice: &Lattice, args: &[&str]) -> Value {
    serde_json::from_str(&lattice.wash(args).unwrap()).unwrap()
}

/// Waits until `check` holds (wadm reconciles, hosts report) or fails with what was last seen.
fn eventually(what: &str, timeout: Duration, mut check: impl FnMut() -> Result<(), String>) {
    let deadline = Instant::now() + timeout;
    loop {
        match check() {
            Ok(()) => return,
            Err(seen) if Instant::now() > deadline => panic!("{what} not within {timeout:?}: {seen}"),
            Err(_) => std::thread::sleep(Duration::from_millis(500)),
        }
    }
}

fn instances(lattice: &Lattice, component: &str) -> Vec<u64> {
    let inv = wash_json(lattice, &["get", "inventory", "-o", "json"]);
    inv["inventories"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|h| h["components"].as_array().unwrap().iter())
        .filter(|c| c["id"] == component)
        .map(|c| c["max_instances"].as_u64().unwrap())
        .collect()
}

#[test]
fn an_operator_sees_and_changes_the_lattice_from_the_dashboard() {
    let started = Instant::now();
    let lattice = Lattice::start("dashboard");
    let url = lattice.start_dashboard();

    // Lattice page: the host, every stage with its instances, the providers, links and config.
    let seen = browser(&lattice, &url, &["lattice", "--components", &STAGES.join(",")]);
    assert_eq!(seen["hosts"], 1, "{seen}");
    assert_eq!(seen["servers"], serde_json::json!([["hub", true, 0]]), "the one server, answering: {seen}");
    assert_eq!(seen["sites"], serde_json::json!([["cits-local", 1]]), "the host under the hub: {seen}");
    for stage in STAGES {
        let row = seen["components"].as_array().unwrap().iter().find(|c| c[0] == stage).unwrap();
        assert_eq!(row[1], 8, "{stage} instances as in the manifest: {seen}");
    }
    for p in ["cits-messaging-nats", "cits-keyvalue-redis", "cits-blobstore-fs"] {
        assert!(seen["providers"].as_array().unwrap().iter().any(|x| x == p), "{p}: {seen}");
    }
    let links = wash_json(&lattice, &["get", "links", "-o", "json"]);
    assert_eq!(seen["links"], links["links"].as_array().unwrap().len(), "every link wash lists: {seen}");

    // Scale from the page: a new version, reconciled; wash sees the new instance count, and the
    // messaging provider applies the input link's new concurrency.
    let scaled =
        browser(&lattice, &url, &["scale", "--component", "decoder", "--instances", "3", "--concurrency", "2"]);
    let version = scaled["version"].as_str().unwrap().to_string();
    assert!(version.starts_with("v0.9.0-ops."), "{scaled}");
    let apps = wash_json(&lattice, &["app", "list", "-o", "json"]);
    assert_eq!(apps["applications"][0]["deployed_version"], version.as_str(), "{apps}");
    // wadm calls a scaler deployed once the host reported the new count: what the page called
    // reconciled is already so in the host's inventory.
    assert_eq!(instances(&lattice, "cits-decoder"), [3], "the page said reconciled: {scaled}");
    assert_eq!(instances(&lattice, "cits-collector"), [8], "other stages untouched");
    let host_log = lattice.state.join("logs/host-1.log");
    eventually("the provider applies concurrency 2", Duration::from_secs(60), || {
        let log = std::fs::read_to_string(&host_log).unwrap_or_default();
        log.lines()
            .any(|l| l.contains("link=\"decoder-input\"") && l.contains("concurrency=2"))
            .then_some(())
            .ok_or_else(|| "no re-link in the host log".into())
    });

    // A link's config from the page: the link and its config as wash shows them.
    let linked = browser(
        &lattice,
        &url,
        &["link", "--link", "decoder-input", "--config", "cits-decoder-input", "--key", "max_attempts", "--value", "5"],
    );
    assert_ne!(linked["version"], version.as_str());
    let links = wash_json(&lattice, &["get", "links", "-o", "json"]);
    let link =
        links["links"].as_array().unwrap().iter().find(|l| l["name"] == "decoder-input").expect("decoder-input link");
    let config_name = link["source_config"][0].as_str().unwrap().to_string();
    eventually("max_attempts 5 in the link's config", Duration::from_secs(30), || {
        let config = lattice.wash(&["config", "get", &config_name]).unwrap_or_default();
        config.contains("\"max_attempts\": \"5\"").then_some(()).ok_or(config)
    });

    // A stage's config from the page: a key the stage does not declare is refused, naming it.
    let refused = browser(
        &lattice,
        &url,
        &[
            "stage_config",
            "--component",
            "predictor",
            "--config",
            "cits-predictor-config",
            "--key",
            "horizon_msec",
            "--value",
            "3000",
            "--refused",
            "yes",
        ],
    );
    let said = refused["refused"].as_str().unwrap_or_default();
    assert!(said.contains("predictor config: unknown key `horizon_msec` (did you mean `horizon_ms`?)"), "{refused}");

    // Intersection page during a replay: road users move, a warning appears and terminates.
    let replay = Command::new(std::env::var("CITS_TOOL").unwrap())
        .args(["replay", "--file"])
        .arg(lattice.repo.join("data/short.rec.b64"))
        .args(["--mqtt", &format!("127.0.0.1:{}", lattice.mqtt_port), "--rsu", "rsu1", "--speed", "1"])
        .env("CITS_AUTH", lattice.auth_dir())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let seen = browser(&lattice, &url, &["intersection", "--timeout", "60"]);
    assert!(seen["moved"].as_u64().unwrap() >= 1, "{seen}");
    assert!(seen["warning"].as_str().unwrap().starts_with("1001/"), "ActionID of the RSU's station: {seen}");
    assert!(seen["priors"].as_u64().unwrap() >= 1, "turn priors learned from the replay's tracks: {seen}");
    let mut replay = replay;
    assert!(replay.wait().unwrap().success());

    // A garbage CPM appears under dead letters, with its reason and inspectable payload.
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let nats = lattice.nats_as(&lattice.creds("operator")).await.unwrap();
        nats.publish("cits.cpm.rsu1", b"\x00\x00\xff\xfe garbage".to_vec().into()).await.unwrap();
        nats.flush().await.unwrap();
    });
    let seen = browser(&lattice, &url, &["dead-letter", "--stage", "decoder", "--timeout", "30"]);
    assert!(seen["reason"].as_str().unwrap().contains("UPER"), "{seen}");
    assert_eq!(seen["stages"].as_array().unwrap().len(), 7, "{seen}");
    assert_eq!(seen["chart"], true);
    // What rsu1 sent, per format: the replay's CPMs and the garbage.
    let inputs = seen["inputs"].as_array().unwrap();
    let row = |format: &str| inputs.iter().find(|r| r[0] == "rsu1" && r[1] == format).map(|r| r[2].clone());
    let cpms: u64 = row("CPM (TS 103 324), UPER").and_then(|n| n.as_str()?.parse().ok()).unwrap_or(0);
    assert!(cpms > 100, "the replay's CPMs counted: {seen}");
    assert_eq!(row("unknown format"), Some(serde_json::json!("1")), "{seen}");
    // The registry as the collector reads it: the recordings' RSU sends in its cameras' frames,
    // the probe the standard's.
    assert_eq!(seen["rsus"]["rsu1"], "sensor", "{seen}");
    assert_eq!(seen["rsus"]["probe"], "enu", "{seen}");

    // Application page: switch to the fused deployment, a stored version.
    let app = browser(&lattice, &url, &["application"]);
    assert!(app["versions"].as_array().unwrap().iter().any(|v| v == "v0.9.0-fused"), "{app}");
    browser(&lattice, &url, &["switch", "--version", "v0.9.0-fused"]);
    eventually("only the fused actor runs", Duration::from_secs(90), || {
        let (fused, stage) = (instances(&lattice, "cits-pipeline"), instances(&lattice, "cits-decoder"));
        (fused.len() == 1 && stage.is_empty()).then_some(()).ok_or(format!("pipeline {fused:?}, decoder {stage:?}"))
    });
    eprintln!("dashboard test: {:.0} s; screenshots in {}", started.elapsed().as_secs_f64(), screenshots().display());
}

/// A host killed without a word (its process group, kill -9) is not dropped from the page: it is
/// shown as missing, and every stage it ran is listed as running on one host where it ran on two.
#[test]
fn a_killed_host_is_shown_missing_with_what_now_runs_once() {
    let lattice = Lattice::start_hosts("dashboard-missing", None, 2);
    let url = lattice.start_dashboard();
    // The page shows every stage on both hosts before host 2 dies (wadm starts them on each host
    // in its own time; what host 2 never ran cannot be missed).
    eventually("every stage on both hosts on the page", Duration::from_secs(120), || {
        let seen = browser(&lattice, &url, &["lattice", "--components", &STAGES.join(",")]);
        let rows = seen["components"].as_array().cloned().unwrap_or_default();
        let on_both = STAGES.iter().all(|stage| rows.iter().filter(|r| r[0] == *stage).count() == 2);
        (seen["hosts"] == 2 && on_both).then_some(()).ok_or(seen.to_string())
    });
    lattice.crash_host(2).unwrap();
    let seen = browser(&lattice, &url, &["missing-host", "--host", "host-2"]);
    assert_eq!(seen["missing"], serde_json::json!(["host-2"]), "{seen}");
    assert_eq!(seen["live"], serde_json::json!(["host-1"]), "{seen}");
    let degraded: Vec<(String, u64, u64)> = seen["degraded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r[0].as_str().unwrap().to_string(), r[1].as_u64().unwrap(), r[2].as_u64().unwrap()))
        .collect();
    for stage in STAGES {
        assert!(degraded.contains(&(stage.to_string(), 1, 2)), "{stage} runs once now: {degraded:?}");
    }
}

//! A provider that missed a link put catches up from the lattice's own link store
//! (`crates/cits-provider`), with nothing restarted. On a first deploy the miss is a race (a link
//! put published before the provider subscribed); here it is made deterministic: the messaging
//! provider is told on its own link-delete subject that the decoder's CPM link is gone, while the
//! lattice keeps the link. CPMs then stay in JetStream until, at its next check (at most 30 s
//! later), the provider applies the link again and they come out.

use std::time::{Duration, Instant};

use cits_tests::Lattice;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_the_provider_does_not_hold_is_applied_from_the_lattice() {
    let lattice = Lattice::start("link-catch-up");
    let links: serde_json::Value =
        serde_json::from_str(&lattice.wash(&["get", "links", "-o", "json"]).unwrap()).unwrap();
    let cpm_link = links["links"]
        .as_array()
        .expect("wash get links lists links")
        .iter()
        .find(|l| {
            l["wit_package"] == "messaging"
                && l["interfaces"].as_array().is_some_and(|i| i.iter().any(|i| i == "handler"))
                && l["target"].as_str().is_some_and(|t| t.contains("decoder"))
        })
        .cloned()
        .expect("a messaging handler link to the decoder");
    let provider = cpm_link["source_id"].as_str().unwrap();

    // What the host would send on a link delete: the provider drops the link and its consumers.
    let nats = lattice.nats().await;
    let forget = serde_json::json!({
        "source_id": provider,
        "target": cpm_link["target"],
        "name": cpm_link["name"],
        "wit_namespace": cpm_link["wit_namespace"],
        "wit_package": cpm_link["wit_package"],
        "interfaces": cpm_link["interfaces"],
    });
    nats.publish(format!("wasmbus.rpc.default.{provider}.linkdefs.del"), serde_json::to_vec(&forget).unwrap().into())
        .await
        .unwrap();
    nats.flush().await.unwrap();
    let host_log = lattice.state.join("logs/host-1.log");
    let log = || std::fs::read_to_string(&host_log).unwrap();
    let deleted_at = wait_for(|| log().find("handler link deleted: its consumers stopped"), Duration::from_secs(10))
        .expect("the provider did not drop the link");

    let since = Instant::now();
    let mut healed = false;
    while since.elapsed() < Duration::from_secs(45) {
        if lattice.probe(Duration::from_secs(5)) {
            healed = true;
            break;
        }
    }
    assert!(healed, "the provider did not take the lattice's link back within 45 s");
    eprintln!("pipeline flowing again {:.1} s after the provider lost its link", since.elapsed().as_secs_f64());
    let after = log()[deleted_at..].to_string();
    assert!(
        after.contains("link caught up") && after.contains("target=\"cits-decoder\""),
        "the decoder link came back some other way than the catch-up:\n{after}"
    );
}

/// Polls `found` until it returns something or `limit` passed.
fn wait_for<T>(found: impl Fn() -> Option<T>, limit: Duration) -> Option<T> {
    let since = Instant::now();
    loop {
        if let Some(t) = found() {
            return Some(t);
        }
        if since.elapsed() > limit {
            return None;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

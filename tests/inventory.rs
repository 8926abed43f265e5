//! The deployed lattice as an operator sees it with wash: two hosts, each running the signed
//! actors and the three providers, the application deployed, and the street map in the blobstore.

use cits_tests::Lattice;

#[test]
fn wash_shows_hosts_signed_actors_providers_and_app() {
    let lattice = Lattice::start_hosts("inventory", None, 2);

    let inventory: serde_json::Value =
        serde_json::from_str(&lattice.wash(&["get", "inventory", "-o", "json"]).unwrap()).unwrap();
    let text = inventory.to_string();
    let hosts = inventory["inventories"].as_array().expect("inventories list");
    assert_eq!(hosts.len(), 2, "{text}");
    let mut labels: Vec<&str> = hosts.iter().map(|h| h["labels"]["host"].as_str().unwrap_or("")).collect();
    labels.sort();
    assert_eq!(labels, ["host-1", "host-2"], "{text}");
    // Every stage and provider on both hosts (the manifest's daemonscalers).
    for host in hosts {
        let components: Vec<&str> =
            host["components"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
        for c in cits_tests::STAGE_COMPONENTS {
            assert!(components.contains(&c), "{c} missing from {components:?}");
        }
        let providers: Vec<&str> =
            host["providers"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
        for p in ["cits-messaging-nats", "cits-keyvalue-redis", "cits-blobstore-fs"] {
            assert!(providers.contains(&p), "{p} missing from {providers:?}");
        }
    }

    // Signed: wash reads the embedded claims (issuer and subject keys) back from the artefacts.
    for actor in ["decoder", "collector", "assembler", "map_matcher", "predictor", "collision_detector", "denm_sender"]
    {
        let wasm = lattice.repo.join(format!("actors/{actor}/build/{actor}_s.wasm"));
        let claims = lattice.wash(&["inspect", wasm.to_str().unwrap(), "-o", "json"]).unwrap();
        let claims: serde_json::Value = serde_json::from_str(&claims).unwrap();
        let issuer = claims["account"].as_str().unwrap_or_default();
        let module = claims["component"].as_str().unwrap_or_default();
        assert!(issuer.starts_with('A') && issuer.len() == 56, "{actor}: issuer {claims}");
        assert!(module.starts_with('M') && module.len() == 56, "{actor}: subject {claims}");
    }

    // The street map is in the blobstore: WKB centerlines per mode and the lane graph.
    let container = lattice.state.join("blobstore/cits-map");
    for (object, lanes) in
        [("centerlines-car.wkb", 22), ("centerlines-bicycle.wkb", 16), ("centerlines-pedestrian.wkb", 8)]
    {
        let bytes = std::fs::read(container.join(object)).unwrap_or_else(|e| panic!("{object}: {e}"));
        assert_eq!(cits::shared::wkb::decode_multi_line_string(&bytes).unwrap().len(), lanes, "{object}");
    }
    let graph = std::fs::read(container.join("lane-graph.pb")).unwrap();
    let graph = <cits::proto::LaneGraph as prost::Message>::decode(graph.as_slice()).unwrap();
    assert_eq!(graph.lanelets.len(), 46);

    let apps = lattice.wash(&["app", "list", "-o", "json"]).unwrap();
    let apps: serde_json::Value = serde_json::from_str(&apps).unwrap();
    let app = apps
        .as_array()
        .or(apps["applications"].as_array())
        .and_then(|a| a.iter().find(|a| a["name"] == "cits-pipeline"))
        .unwrap_or_else(|| panic!("cits-pipeline not listed: {apps}"))
        .to_string();
    assert!(app.to_lowercase().contains("deployed"), "{app}");
}

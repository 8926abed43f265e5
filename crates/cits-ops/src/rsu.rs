//! RSU administration on a running lattice: `cits rsu add | remove | list`, and `cits auth init`
//! (the lattice's NATS authority and its parts' users; cits lattice runs it at `up`).
//!
//! An RSU is two things: a NATS user (MQTT-only bearer token for `cits.cpm.<rsu>` /
//! `cits.denm.<rsu>`, crates/cits-nats-auth) and an entry of the decoder's RSU registry, the
//! named config `cits-rsus` (`rsu.<rsu>` = its station ids; a CPM from another station is a dead
//! letter; `object_frame.<rsu>` = the frame its CPMs give objects in, read by the collector,
//! see `cits::stages::collector::object_frame`). The registry is managed here, outside wadm (the manifests name it without
//! properties), and reaches running decoders through the host's config watch.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context as _};
use cits::stages::collector::object_frame::{ObjectFrame, ObjectFrames};
use cits_nats_auth::{Authority, Permissions};

// The decoder's RSU registry (named config).
use cits_manifest::RSU_REGISTRY as REGISTRY;

/// The lattice parts that get a NATS user of their own, with what they may touch.
pub fn lattice_users(lattice: &str) -> Vec<(&'static str, Permissions)> {
    vec![
        // The host's control and RPC connections; its providers get the RPC credentials.
        ("host", Permissions::all()),
        ("wadm", Permissions::all()),
        // Operator tools: wash, cits (streams, probe, rsu, bench, dlq).
        ("operator", Permissions::all()),
        // A site's leaf node, linked to the hub: what crosses is limited in its config
        // (`cits_jetstream::site::LINK_DENIED`), so that JetStream's domain traffic flows.
        ("leaf", Permissions::all()),
        // The policy service answers the hosts' requests and nothing else.
        (
            "policy",
            Permissions { publish: vec!["_INBOX.>".into()], subscribe: vec![format!("wasmcloud.policy.{lattice}")] },
        ),
        // The secrets backend (secrets-nats-kv): answers the hosts' secret requests and keeps
        // secrets (sealed with its encryption key) and who may read them in two KV buckets.
        ("secrets", secrets_backend_permissions()),
        // The dashboard reads: control queries (hosts, inventories, links, config), wadm's models
        // and status, stream and consumer info, stored dead letters, what the pipeline says, and
        // what the RSUs send (counted per format).
        (
            "dashboard",
            Permissions {
                publish: vec![
                    format!("wasmbus.ctl.v1.{lattice}.host.ping"),
                    format!("wasmbus.ctl.v1.{lattice}.host.get.*"),
                    format!("wasmbus.ctl.v1.{lattice}.link.get"),
                    format!("wasmbus.ctl.v1.{lattice}.config.get.*"),
                    format!("wadm.api.{lattice}.model.list"),
                    format!("wadm.api.{lattice}.model.get.*"),
                    format!("wadm.api.{lattice}.model.versions.*"),
                    format!("wadm.api.{lattice}.model.status.*"),
                    "$JS.API.STREAM.INFO.*".into(),
                    "$JS.API.CONSUMER.LIST.*".into(),
                    format!("$JS.API.STREAM.MSG.GET.{}", cits_jetstream::DEAD_LETTERS.name),
                ],
                subscribe: [
                    "_INBOX.>".into(),
                    format!("wasmbus.evt.{lattice}.>"),
                    format!("wadm.status.{lattice}.>"),
                    "cits.done.*".into(),
                    "cits.denm.*".into(),
                ]
                .into_iter()
                .chain(cits::subjects::INPUT_WILDCARDS.map(String::from))
                .collect(),
            },
        ),
        // The dashboard's changes, made only after the operator logged in on the page: models
        // put and deployed through wadm, nothing else.
        (
            "dashboard-operator",
            Permissions { publish: vec![format!("wadm.api.{lattice}.model.>")], subscribe: vec!["_INBOX.>".into()] },
        ),
    ]
}

/// The secrets backend's subject prefix (hosts: `WASMCLOUD_SECRETS_TOPIC`) and name (the wadm
/// secret policy's `backend`).
pub const SECRETS_TOPIC: &str = "wasmcloud.secrets";
pub const SECRETS_BACKEND: &str = "nats-kv";

/// What secrets-nats-kv 0.2.0 touches: requests on its subject, its two KV buckets
/// (`WASMCLOUD_SECRETS`, `SECRETS_nats-kv_state`) and its lock stream — no other stream.
fn secrets_backend_permissions() -> Permissions {
    let mut publish = vec!["_INBOX.>".to_string(), "$JS.API.INFO".into()];
    for stream in ["KV_WASMCLOUD_SECRETS", "KV_SECRETS_nats-kv_state", "SECRETS_nats-kv_state_lock"] {
        publish.extend([
            format!("$JS.API.STREAM.*.{stream}"),
            format!("$JS.API.STREAM.MSG.*.{stream}"),
            format!("$JS.API.DIRECT.GET.{stream}"),
            format!("$JS.API.DIRECT.GET.{stream}.>"),
            format!("$JS.API.CONSUMER.*.{stream}"),
            format!("$JS.API.CONSUMER.*.{stream}.>"),
        ]);
    }
    publish.extend(["$KV.WASMCLOUD_SECRETS.>".into(), "$KV.SECRETS_nats-kv_state.>".into()]);
    publish.push("SECRETS_nats-kv_state_lock.>".into());
    Permissions { publish, subscribe: vec!["_INBOX.>".into(), format!("{SECRETS_TOPIC}.>")] }
}

/// Creates the authority in `dir` (kept if present), the lattice parts' users and the secrets
/// backend's keys.
pub fn init(dir: &Path, lattice: &str) -> anyhow::Result<Authority> {
    let authority = Authority::init(dir)?;
    for (name, permissions) in lattice_users(lattice) {
        authority.user_creds(name, &permissions)?;
    }
    for key in ["transit", "encryption"] {
        authority.secrets_xkey(key)?;
    }
    Ok(authority)
}

pub struct Lattice<'a> {
    pub nats: &'a str,
    /// The lattice's auth directory: its operator user, unless `CITS_NATS_CREDS` names another.
    pub auth: &'a Path,
    pub lattice: &'a str,
    /// The PID files of the lattice's nats-servers (every one of a cluster): a config reload
    /// after a revocation (SIGHUP).
    pub nats_pid_files: &'a [PathBuf],
}

/// Issues `rsu` its token and registers its stations and the frame its CPMs give objects in
/// (`object_frame.<rsu>`, read by the collector); returns the token file.
pub async fn add(
    auth_dir: &Path,
    rsu: &str,
    stations: &[u32],
    frame: ObjectFrame,
    lattice: &Lattice<'_>,
) -> anyhow::Result<PathBuf> {
    if stations.is_empty() {
        bail!("give the RSU's station id(s): --station N");
    }
    let authority = Authority::open(auth_dir)?;
    let token = authority.add_rsu(rsu)?;
    let ids: Vec<String> = stations.iter().map(u32::to_string).collect();
    update_registry(lattice, |registry| {
        registry.insert(format!("rsu.{rsu}"), ids.join(","));
        registry.insert(ObjectFrames::key(rsu), frame.name().into());
    })
    .await?;
    Ok(token)
}

/// Revokes `rsu`'s token (the server drops its connections on the reload) and unregisters it.
pub async fn remove(auth_dir: &Path, rsu: &str, lattice: &Lattice<'_>) -> anyhow::Result<()> {
    let authority = Authority::open(auth_dir)?;
    authority.remove_rsu(rsu)?;
    reload_nats(lattice.nats_pid_files)?;
    update_registry(lattice, |registry| {
        registry.remove(&format!("rsu.{rsu}"));
        registry.remove(&ObjectFrames::key(rsu));
    })
    .await
}

/// Tells every nats-server to re-read its config (the account JWT with the revocation).
pub fn reload_nats(pid_files: &[PathBuf]) -> anyhow::Result<()> {
    if pid_files.is_empty() {
        bail!("--nats-pid-file is needed to reload the server(s) after a revocation");
    }
    for pid_file in pid_files {
        let pid = std::fs::read_to_string(pid_file).with_context(|| format!("cannot read {}", pid_file.display()))?;
        let status =
            std::process::Command::new("kill").args(["-HUP", pid.trim()]).status().context("cannot run kill")?;
        if !status.success() {
            bail!("cannot signal nats-server (pid {})", pid.trim());
        }
    }
    Ok(())
}

/// The lattice's control client (as the operator) and the registry it holds (empty if none yet).
async fn read_registry(
    lattice: &Lattice<'_>,
) -> anyhow::Result<(wasmcloud_control_interface::Client, HashMap<String, String>)> {
    let nats = cits_client::auth::connect_nats_in(lattice.nats, lattice.auth).await?;
    let ctl = wasmcloud_control_interface::ClientBuilder::new(nats).lattice(lattice.lattice).build();
    let current = ctl.get_config(REGISTRY).await.map_err(|e| anyhow!("config.get {REGISTRY}: {e}"))?;
    Ok((ctl, current.into_data().unwrap_or_default()))
}

async fn update_registry(
    lattice: &Lattice<'_>,
    change: impl FnOnce(&mut HashMap<String, String>),
) -> anyhow::Result<()> {
    let (ctl, mut registry) = read_registry(lattice).await?;
    change(&mut registry);
    let put = ctl.put_config(REGISTRY, registry).await.map_err(|e| anyhow!("config.put {REGISTRY}: {e}"))?;
    if !put.succeeded() {
        bail!("config.put {REGISTRY} refused: {}", put.message());
    }
    Ok(())
}

/// A registered RSU as `cits rsu list` shows it.
pub struct Registered {
    pub rsu: String,
    /// Its station ids, comma separated, or "(unregistered)".
    pub stations: String,
    /// The frame its CPMs give objects in (the standard's when the registry says nothing).
    pub frame: ObjectFrame,
    /// Its token's public key.
    pub key: String,
}

/// The registered RSUs with their stations and object frames (from the registry) and token
/// keys.
pub async fn list(auth_dir: &Path, lattice: &Lattice<'_>) -> anyhow::Result<Vec<Registered>> {
    let (_, registry) = read_registry(lattice).await?;
    let frames = ObjectFrames::from_config(REGISTRY, registry.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .map_err(|e| anyhow!("{REGISTRY}: {e}"))?;
    Ok(Authority::open(auth_dir)?
        .rsus()?
        .into_iter()
        .map(|r| {
            let stations = registry.get(&format!("rsu.{}", r.rsu)).cloned().unwrap_or_else(|| "(unregistered)".into());
            Registered { frame: frames.of(&r.rsu), rsu: r.rsu, stations, key: r.public_key }
        })
        .collect())
}

/// Waits until the secrets backend answers its xkey request (it subscribes, then makes its KV
/// buckets, then answers: an answer means secrets can be put). NATS has no event for "someone
/// subscribed": a request without responders fails at once and is tried again, backing off.
pub async fn secrets_ready(nats: &str, auth: &Path, timeout: std::time::Duration) -> anyhow::Result<()> {
    let client = cits_client::auth::connect_nats_in(nats, auth).await?;
    let subject = format!("{SECRETS_TOPIC}.v1alpha1.{SECRETS_BACKEND}.server_xkey");
    let give_up = tokio::time::Instant::now() + timeout;
    let mut pause = std::time::Duration::from_millis(10);
    loop {
        match client.request(subject.clone(), "".into()).await {
            Ok(reply) if reply.payload.starts_with(b"X") => return Ok(()),
            Ok(reply) => bail!("{subject}: unexpected answer {:?}", String::from_utf8_lossy(&reply.payload)),
            Err(e) if tokio::time::Instant::now() + pause > give_up => {
                bail!("no secrets backend answered on {subject} within {timeout:?}: {e}")
            }
            Err(_) => {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(std::time::Duration::from_millis(200));
            }
        }
    }
}

//! RSU administration on a running lattice: `cits rsu add | remove | list`, and `cits auth init`
//! (the lattice's NATS authority and its parts' users; tools/lattice.sh runs it at `up`).
//!
//! An RSU is two things: a NATS user (MQTT-only bearer token for `cits.cpm.<rsu>` /
//! `cits.denm.<rsu>`, crates/cits-nats-auth) and an entry of the decoder's RSU registry, the
//! named config `cits-rsus` (`rsu.<rsu>` = its station ids; a CPM from another station is a dead
//! letter). The registry is managed here, outside wadm (the manifests name it without
//! properties), and reaches running decoders through the host's config watch.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context as _};
use cits_nats_auth::{Authority, Permissions};

/// The decoder's RSU registry (named config).
pub const REGISTRY: &str = "cits-rsus";

/// The lattice parts that get a NATS user of their own, with what they may touch.
pub fn lattice_users(lattice: &str) -> Vec<(&'static str, Permissions)> {
    vec![
        // The host's control and RPC connections; its providers get the RPC credentials.
        ("host", Permissions::all()),
        ("wadm", Permissions::all()),
        // Operator tools: wash, cits (streams, probe, rsu, bench, dlq).
        ("operator", Permissions::all()),
        // The policy service answers the hosts' requests and nothing else.
        (
            "policy",
            Permissions { publish: vec!["_INBOX.>".into()], subscribe: vec![format!("wasmcloud.policy.{lattice}")] },
        ),
        // The dashboard reads: control queries (hosts, inventories, links, config), wadm's models
        // and status, stream and consumer info, stored dead letters, and what the pipeline says.
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
                subscribe: vec![
                    "_INBOX.>".into(),
                    format!("wasmbus.evt.{lattice}.>"),
                    format!("wadm.status.{lattice}.>"),
                    "cits.done.*".into(),
                    "cits.denm.*".into(),
                ],
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

/// Creates the authority in `dir` (kept if present) and the lattice parts' users.
pub fn init(dir: &Path, lattice: &str) -> anyhow::Result<Authority> {
    let authority = Authority::init(dir)?;
    for (name, permissions) in lattice_users(lattice) {
        authority.user_creds(name, &permissions)?;
    }
    Ok(authority)
}

pub struct Lattice<'a> {
    pub nats: &'a str,
    pub lattice: &'a str,
    /// nats-server's PID file: a config reload after a revocation (SIGHUP).
    pub nats_pid_file: Option<&'a Path>,
}

/// Issues `rsu` its token and registers its stations; returns the token file.
pub async fn add(auth_dir: &Path, rsu: &str, stations: &[u32], lattice: &Lattice<'_>) -> anyhow::Result<PathBuf> {
    if stations.is_empty() {
        bail!("give the RSU's station id(s): --station N");
    }
    let authority = Authority::open(auth_dir)?;
    let token = authority.add_rsu(rsu)?;
    let ids: Vec<String> = stations.iter().map(u32::to_string).collect();
    update_registry(lattice, |registry| {
        registry.insert(format!("rsu.{rsu}"), ids.join(","));
    })
    .await?;
    Ok(token)
}

/// Revokes `rsu`'s token (the server drops its connections on the reload) and unregisters it.
pub async fn remove(auth_dir: &Path, rsu: &str, lattice: &Lattice<'_>) -> anyhow::Result<()> {
    let authority = Authority::open(auth_dir)?;
    authority.remove_rsu(rsu)?;
    reload_nats(lattice.nats_pid_file)?;
    update_registry(lattice, |registry| {
        registry.remove(&format!("rsu.{rsu}"));
    })
    .await
}

/// Tells nats-server to re-read its config (the account JWT with the revocation).
fn reload_nats(pid_file: Option<&Path>) -> anyhow::Result<()> {
    let pid_file = pid_file.context("--nats-pid-file is needed to reload the server after a revocation")?;
    let pid = std::fs::read_to_string(pid_file).with_context(|| format!("cannot read {}", pid_file.display()))?;
    let status = std::process::Command::new("kill").args(["-HUP", pid.trim()]).status().context("cannot run kill")?;
    if !status.success() {
        bail!("cannot signal nats-server (pid {})", pid.trim());
    }
    Ok(())
}

/// The lattice's control client (as the operator) and the registry it holds (empty if none yet).
async fn read_registry(
    lattice: &Lattice<'_>,
) -> anyhow::Result<(wasmcloud_control_interface::Client, HashMap<String, String>)> {
    let nats = crate::auth::connect_nats(lattice.nats).await?;
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

/// The registered RSUs with their stations (from the registry) and token keys.
pub async fn list(auth_dir: &Path, lattice: &Lattice<'_>) -> anyhow::Result<Vec<(String, String, String)>> {
    let (_, registry) = read_registry(lattice).await?;
    Ok(Authority::open(auth_dir)?
        .rsus()?
        .into_iter()
        .map(|r| {
            let stations = registry.get(&format!("rsu.{}", r.rsu)).cloned().unwrap_or_else(|| "(unregistered)".into());
            (r.rsu, stations, r.public_key)
        })
        .collect())
}

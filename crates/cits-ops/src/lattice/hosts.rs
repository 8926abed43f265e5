//! What runs the application: the signature policy service the hosts ask before starting
//! anything, wadm, and the wasmCloud hosts of the topology. A host has joined when its
//! `host_started` event (the control interface's CloudEvent, published once it serves control
//! requests) carries its `host` label.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use anyhow::{bail, Context as _};
use futures::StreamExt as _;
use serde::Deserialize;

use super::process::{self, Processes, Program, StartGuard};
use super::settings::{required, Settings};
use super::topology::Host;

/// A host's grace for stopping its components and providers.
const HOST_GRACE: Duration = Duration::from_secs(15);

pub fn policy_topic(settings: &Settings) -> String {
    format!("wasmcloud.policy.{}", settings.lattice)
}

/// The signature policy: only components and providers signed with the project's account key
/// (wash's user_account.nk) are permitted. Ready when it answers a (refused) request.
pub async fn start_policy(settings: &Settings, guard: &mut StartGuard, processes: &Processes) -> anyhow::Result<()> {
    let issuer = super::secrets::public_key(settings, "user_account.nk")?;
    let program = Program::new(required(&settings.binaries.policy, "CITS_POLICY")?)
        .args(["serve", "--nats", &settings.nats_addr(), "--topic", &policy_topic(settings), "--allow-issuer", &issuer])
        .args(["--creds".to_string(), settings.creds("policy").display().to_string()])
        .envs(settings.common_env());
    let started = guard.start("policy", program)?;
    let client = super::nats::connect(settings).await?;
    let topic = policy_topic(settings);
    process::ready(processes, "policy", started.pid, Duration::from_secs(20), || async {
        client.request(topic.clone(), "{}".into()).await.context("policy request")?;
        Ok(())
    })
    .await
}

pub fn start_wadm(settings: &Settings, guard: &mut StartGuard) -> anyhow::Result<process::Started> {
    let program = Program::new(required(&settings.binaries.wadm, "WADM_BIN")?)
        .envs(settings.common_env())
        .env("WADM_NATS_SERVER", settings.nats_addr())
        .env("WADM_NATS_CREDS_FILE", settings.creds("wadm").display().to_string())
        // Its streams and buckets on as many servers as the pipeline's (tools/patches/wadm.sh).
        .env("WADM_STREAM_REPLICAS", settings.topology().replicas().to_string())
        .env("RUST_LOG", &settings.wadm_log);
    guard.start("wadm", program)
}

/// Waits until wadm answers its API (a status, or that there is no such application yet): it
/// has made its streams by then, so no host event is published before wadm records it.
/// `pid`: wadm's process here, None when it runs on the first server's machine (waited for
/// as long as another machine's part is).
pub async fn wadm_ready(settings: &Settings, processes: &Processes, pid: Option<i32>) -> anyhow::Result<()> {
    let wadm = wadm_client::Client::from_nats_client(&settings.lattice, None, super::nats::connect(settings).await?);
    let answers = || async {
        match wadm.get_manifest_status(&settings.app).await {
            Ok(_) | Err(wadm_client::error::ClientError::NotFound(_)) => Ok(()),
            Err(e) => Err(anyhow::anyhow!("wadm model.status: {e}")),
        }
    };
    let Some(pid) = pid else {
        super::log("waiting for wadm on the first server's machine");
        let give_up = tokio::time::Instant::now() + super::nats::OTHER_MACHINES;
        loop {
            match answers().await {
                Err(_) if tokio::time::Instant::now() < give_up => {
                    tokio::time::sleep(Duration::from_secs(2)).await;
                }
                outcome => return outcome.context("wadm on the first server's machine"),
            }
        }
    };
    process::ready(processes, "wadm", pid, Duration::from_secs(60), answers).await
}

/// Starts host `n` of the topology (if it does not run) on NATS server `server` (its control
/// and RPC connections and its providers'); its PID.
pub fn start_host(
    settings: &Settings,
    guard: &mut StartGuard,
    n: usize,
    host: &Host,
    server: usize,
) -> anyhow::Result<process::Started> {
    let name = Host::name(n);
    let port = settings.server(server).client.to_string();
    // The host caches fetched artefacts and unpacked providers under TMPDIR: keep them in STATE.
    let tmp = settings.state.join("host-tmp").join(n.to_string());
    std::fs::create_dir_all(&tmp)?;
    let mut program = Program::new(required(&settings.binaries.host, "WASMCLOUD_HOST_BIN")?)
        .envs(settings.common_env())
        .env("TMPDIR", tmp.display().to_string())
        .env("WASMCLOUD_TIERED_COMPILATION", settings.tiered_compilation.to_string())
        .env("WASMCLOUD_NATS_HOST", "127.0.0.1")
        .env("WASMCLOUD_NATS_PORT", &port)
        .env("WASMCLOUD_CTL_PORT", &port)
        .env("WASMCLOUD_RPC_PORT", &port)
        .env("WASMCLOUD_LATTICE", &settings.lattice)
        .env("WASMCLOUD_ALLOW_FILE_LOAD", "true")
        .env("WASMCLOUD_NATS_CREDS", settings.creds("host").display().to_string())
        .env("WASMCLOUD_POLICY_TOPIC", policy_topic(settings))
        .env("WASMCLOUD_SECRETS_TOPIC", crate::rsu::SECRETS_TOPIC)
        .env("WASMCLOUD_LOG_LEVEL", &settings.host_log)
        .env("WASMCLOUD_MAX_EXECUTION_TIME_MS", settings.host_execution_limit_ms.to_string());
    // Compiled components, shared by the hosts of this machine: a restarted host, or a
    // redeployed component, skips Cranelift.
    if let Some(cache) = settings.compilation_cache() {
        program = program.env("WASMCLOUD_COMPILATION_CACHE_DIR", cache.display().to_string());
    }
    // A site's host is on the site's leaf node: the lattice's buckets are the hub's.
    if host.site.is_some() {
        program = program.env("WASMCLOUD_JS_DOMAIN", cits_jetstream::site::HUB_DOMAIN);
    }
    for (key, value) in settings.topology().labels_of(n) {
        program = program.env(format!("WASMCLOUD_LABEL_{key}"), value);
    }
    guard.start(&name, program)
}

/// The `host_started` events of a lattice, subscribed to before the hosts start.
pub struct Joins {
    events: async_nats::Subscriber,
}

#[derive(Deserialize)]
struct HostStarted {
    data: HostStartedData,
}

#[derive(Deserialize)]
struct HostStartedData {
    #[serde(default)]
    labels: BTreeMap<String, String>,
}

impl Joins {
    pub async fn subscribe(settings: &Settings) -> anyhow::Result<Self> {
        let client = super::nats::connect(settings).await?;
        let events = client.subscribe(format!("wasmbus.evt.{}.host_started", settings.lattice)).await?;
        client.flush().await?;
        Ok(Self { events })
    }

    /// Waits until each host of `started` (name, PID) has joined, failing early if one exits.
    pub async fn wait(
        mut self,
        processes: &Processes,
        started: &[(String, i32)],
        limit: Duration,
    ) -> anyhow::Result<()> {
        let mut waiting: BTreeSet<&str> = started.iter().map(|(name, _)| name.as_str()).collect();
        if waiting.is_empty() {
            return Ok(());
        }
        let give_up = tokio::time::sleep(limit);
        tokio::pin!(give_up);
        // Resolves only when one of them exits.
        let exits = futures::future::select_all(started.iter().map(|(name, pid)| {
            Box::pin(async move {
                if !process::exited(*pid, limit).await.unwrap_or(false) {
                    std::future::pending::<()>().await;
                }
                name
            })
        }));
        tokio::pin!(exits);
        while !waiting.is_empty() {
            tokio::select! {
                event = self.events.next() => {
                    let event = event.context("host event subscription ended")?;
                    let Ok(started) = serde_json::from_slice::<HostStarted>(&event.payload) else { continue };
                    if let Some(name) = started.data.labels.get("host") {
                        waiting.remove(name.as_str());
                    }
                }
                (name, _, _) = &mut exits => {
                    bail!("{name} exited; log {}:\n{}", processes.log_file(name).display(), processes.log_tail(name, 30));
                }
                _ = &mut give_up => bail!(
                    "host(s) {waiting:?} did not join within {limit:?}; see their logs in {}",
                    processes.logs.display()
                ),
            }
        }
        Ok(())
    }
}

/// Stops the hosts (with their providers) and wadm, leaving NATS and Redis up (the native
/// baseline of `make bench` runs on them alone).
pub async fn stop_all(processes: &Processes) -> anyhow::Result<()> {
    for name in processes.named("host-") {
        processes.stop(&name, HOST_GRACE).await?;
    }
    processes.stop("wadm", super::GRACE).await
}

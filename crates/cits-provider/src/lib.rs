//! What our capability providers share: catching up on links the host announced before the
//! provider listened, and serving their exports ([`serve()`]).
//!
//! Why: wasmCloud host 1.9 gives a starting provider the links it knows when it spawns the
//! process, and publishes any later link on core NATS to the provider's link-put subject. A link
//! put between the spawn and the SDK's subscription reaches nobody, and the host does not send it
//! again: on about one first deploy in ten a stage never got its subscription (or the map matcher
//! its blobstore root) and the pipeline did not flow until the provider was restarted. The
//! lattice keeps every link (control interface `link.get`, configs by name in `config.get`), so
//! each provider compares that list with the links it holds and applies those it lacks: right
//! after start, then at growing intervals up to [`MAX_INTERVAL`]. A link put that is lost for any
//! other reason (a NATS reconnect) heals the same way.
//!
//! The same pass applies a link again when a named config it uses changed: wadm puts a changed
//! config (a new version of the application, e.g. from the dashboard) but not the link, so the
//! host never tells the provider. A `config_set` lattice event starts a pass at once.

mod serve;
pub use serve::serve;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, Context as _};
use tracing::{debug, info, warn};
use wasmcloud_control_interface::{Client as CtlClient, ClientBuilder, Link};
use wasmcloud_provider_sdk::core::InterfaceLinkDefinition;
use wasmcloud_provider_sdk::provider::receive_link_for_provider;
use wasmcloud_provider_sdk::{get_connection, load_host_data, Provider};

/// First check right after start; the interval then doubles up to this.
pub const MAX_INTERVAL: Duration = Duration::from_secs(30);
const FIRST_INTERVAL: Duration = Duration::from_millis(250);
/// Config names with this prefix are secret references (wasmCloud host convention).
const SECRET_PREFIX: &str = "SECRET";

/// Starts the catch-up task for `provider`. Call after `run_provider` (its link subscriptions
/// exist then, so every link from now on arrives one way or the other).
pub fn spawn_link_catch_up<P>(provider: P)
where
    P: Provider + Clone + Send + 'static,
{
    tokio::spawn(async move {
        let ctl = match ctl_client().await {
            Ok(c) => c,
            Err(e) => return warn!(error = %format!("{e:#}"), "link catch-up disabled: no control connection"),
        };
        // A named config a link uses was changed (wadm puts the config, not the link again): look
        // at once instead of at the next interval.
        let mut config_events = match ctl.events_receiver(vec!["config_set".into()]).await {
            Ok(rx) => Some(rx),
            Err(e) => {
                warn!(error = %e, "no config events: link config changes are seen at the next interval");
                None
            }
        };
        let mut seen = HashMap::new();
        let mut interval = FIRST_INTERVAL;
        loop {
            match catch_up(&provider, &ctl, &mut seen).await {
                Ok(0) => debug!("links up to date"),
                Ok(n) => info!(applied = n, "applied links the host announced before this provider listened"),
                Err(e) => warn!(error = %format!("{e:#}"), "link catch-up failed; trying again"),
            }
            tokio::select! {
                _ = tokio::time::sleep(interval) => interval = (interval * 2).min(MAX_INTERVAL),
                event = async { match config_events.as_mut() { Some(rx) => rx.recv().await, None => std::future::pending().await } } => {
                    if event.is_none() {
                        config_events = None;
                    }
                }
            }
        }
    });
}

/// NATS connect options with the credentials the host gave this provider (its lattice RPC
/// user: JWT and seed), or none if the lattice runs without auth.
pub fn lattice_connect_options() -> anyhow::Result<async_nats::ConnectOptions> {
    let host = load_host_data().context("no host data")?;
    Ok(match (host.lattice_rpc_user_jwt.trim(), host.lattice_rpc_user_seed.trim()) {
        ("", "") => async_nats::ConnectOptions::new(),
        (jwt, seed) => {
            let key_pair = Arc::new(nkeys::KeyPair::from_seed(seed).context("invalid lattice RPC seed")?);
            async_nats::ConnectOptions::with_jwt(jwt.to_string(), move |nonce| {
                let key_pair = Arc::clone(&key_pair);
                async move { key_pair.sign(&nonce).map_err(async_nats::AuthError::new) }
            })
        }
    })
}

/// A control-interface client on the lattice connection the host gave this provider.
async fn ctl_client() -> anyhow::Result<CtlClient> {
    let host = load_host_data().context("no host data")?;
    let nats = lattice_connect_options()?
        .name("cits provider link catch-up")
        .retry_on_initial_connect()
        .connect(host.lattice_rpc_url.as_str())
        .await
        .with_context(|| format!("cannot connect to {}", host.lattice_rpc_url))?;
    Ok(ClientBuilder::new(nats).lattice(&host.lattice_rpc_prefix).build())
}

/// A link: source, target, WIT namespace, package, name.
type LinkKey = (String, String, String, String, String);
/// A link's resolved source and target config as last applied.
type LinkConfigs = (HashMap<String, String>, HashMap<String, String>);

/// Applies every lattice link of this provider it does not hold yet, and again every held link
/// whose named config changed since it was applied (`seen`); returns how many.
async fn catch_up<P: Provider>(
    provider: &P,
    ctl: &CtlClient,
    seen: &mut HashMap<LinkKey, LinkConfigs>,
) -> anyhow::Result<usize> {
    let connection = get_connection();
    let me = connection.provider_key();
    let links = ctl.get_links().await.map_err(|e| anyhow!("link.get: {e}"))?;
    if !links.succeeded() {
        anyhow::bail!("link.get refused: {}", links.message());
    }
    let mut applied = 0;
    for link in links.into_data().unwrap_or_default() {
        if link.source_id() != me && link.target() != me {
            continue;
        }
        let held = || {
            connection.is_linked(link.source_id(), link.target(), link.wit_namespace(), link.wit_package(), link.name())
        };
        if link.source_config().iter().chain(link.target_config()).any(|n| n.starts_with(SECRET_PREFIX)) {
            // Secrets are sealed by the host for this provider's key; only the host can send them.
            if !held().await {
                warn!(
                    source = link.source_id(),
                    target = link.target(),
                    "missing link carries secrets: left to the host"
                );
            }
            continue;
        }
        let key: LinkKey = (
            link.source_id().into(),
            link.target().into(),
            link.wit_namespace().into(),
            link.wit_package().into(),
            link.name().into(),
        );
        let definition = resolve(ctl, &link).await?;
        let configs: LinkConfigs = (definition.source_config.clone(), definition.target_config.clone());
        if held().await {
            match seen.get(&key) {
                // First look at a link the host delivered: as delivered.
                None => {
                    seen.insert(key, configs);
                }
                Some(applied_configs) if *applied_configs == configs => {}
                Some(_) => {
                    // The provider restarts what the link drives with the new config.
                    receive_link_for_provider(provider, connection, definition).await?;
                    info!(
                        source = link.source_id(),
                        target = link.target(),
                        link = link.name(),
                        "link config changed: applied"
                    );
                    seen.insert(key, configs);
                    applied += 1;
                }
            }
            continue;
        }
        receive_link_for_provider(provider, connection, definition).await?;
        // Held now only if the provider accepted it (a refused link is tried again next time).
        if held().await {
            info!(source = link.source_id(), target = link.target(), link = link.name(), "link caught up");
            seen.insert(key, configs);
            applied += 1;
        }
    }
    Ok(applied)
}

/// The link as the host would have sent it: named configs merged in order (later names win).
async fn resolve(ctl: &CtlClient, link: &Link) -> anyhow::Result<InterfaceLinkDefinition> {
    Ok(InterfaceLinkDefinition {
        source_id: link.source_id().to_string(),
        target: link.target().to_string(),
        name: link.name().to_string(),
        wit_namespace: link.wit_namespace().to_string(),
        wit_package: link.wit_package().to_string(),
        interfaces: link.interfaces().clone(),
        source_config: merged_config(ctl, link.source_config()).await?,
        target_config: merged_config(ctl, link.target_config()).await?,
        source_secrets: None,
        target_secrets: None,
    })
}

async fn merged_config(ctl: &CtlClient, names: &[String]) -> anyhow::Result<HashMap<String, String>> {
    let mut merged = HashMap::new();
    for name in names {
        let config = ctl.get_config(name).await.map_err(|e| anyhow!("config.get {name}: {e}"))?;
        if !config.succeeded() {
            anyhow::bail!("config.get {name} refused: {}", config.message());
        }
        merged.extend(config.into_data().unwrap_or_default());
    }
    Ok(merged)
}

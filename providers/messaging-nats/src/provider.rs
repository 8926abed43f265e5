//! wRPC side: links (a handler link starts the durable JetStream consumers of
//! `cits_jetstream::durable` for its subscriptions), and the wasmcloud:messaging consumer
//! (publish, request) for components.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use bytes::Bytes;
use prost::Message as _;
use tokio::sync::{Mutex, RwLock};
use tracing::{info, warn};
use wasmcloud_provider_sdk::provider::WrpcClient;
use wasmcloud_provider_sdk::{
    get_connection, initialize_observability, run_provider, Context, LinkConfig, LinkDeleteInfo, Provider,
    ProviderInitConfig,
};

use cits_jetstream::dispatch::{Delivery, Failure, Target};
use cits_jetstream::durable::Consumers;
use cits_jetstream::handler::HandlerConfig;

use crate::config::ConnectionConfig;

mod bindings {
    wit_bindgen_wrpc::generate!({
        world: "provider",
        with: {
            "wasmcloud:messaging/consumer@0.2.0": generate,
            "wasmcloud:messaging/handler@0.2.0": generate,
            "wasmcloud:messaging/types@0.2.0": generate,
        },
    });
}

use bindings::wasmcloud::messaging::types::BrokerMessage;

/// One NATS connection per distinct server list, shared by all links that use it.
#[derive(Clone, Default)]
pub struct NatsMessagingProvider {
    default_config: Arc<RwLock<ConnectionConfig>>,
    clients: Arc<Mutex<HashMap<Vec<String>, async_nats::Client>>>,
    /// Components linked to us (consumer), by component id: the connection they publish on.
    consumers: Arc<RwLock<HashMap<String, async_nats::Client>>>,
    /// Handler links at work (their config and JetStream pull loops), by (component id, link name).
    handlers: Arc<RwLock<HashMap<(String, String), HandlerLink>>>,
}

/// A handler link's config and the JetStream pull loops serving it.
type HandlerLink = (HashMap<String, String>, Consumers);

/// Starts the provider under a wasmCloud host (reads host data from stdin).
pub async fn run() -> anyhow::Result<()> {
    initialize_observability!("messaging-nats-provider", std::env::var_os("PROVIDER_MESSAGING_NATS_FLAMEGRAPH_PATH"));
    let provider = NatsMessagingProvider::default();
    let shutdown = run_provider(provider.clone(), "messaging-nats-provider").await.context("failed to run provider")?;
    cits_provider::spawn_link_catch_up(provider.clone());
    let connection = get_connection();
    let wrpc = connection.get_wrpc_client(connection.provider_key()).await?;
    let invocations = bindings::serve(&wrpc, provider).await.context("failed to serve provider exports")?;
    cits_provider::serve(invocations, shutdown).await
}

impl NatsMessagingProvider {
    async fn client(&self, cfg: &ConnectionConfig) -> anyhow::Result<async_nats::Client> {
        let mut clients = self.clients.lock().await;
        if let Some(c) = clients.get(&cfg.cluster_uris) {
            return Ok(c.clone());
        }
        // The host's NATS user (lattice auth): the credentials it handed this provider.
        let client = cits_provider::lattice_connect_options()?
            .name("cits messaging provider")
            .retry_on_initial_connect()
            .connect(cfg.cluster_uris.join(","))
            .await
            .with_context(|| format!("cannot connect to NATS at {}", cfg.cluster_uris.join(",")))?;
        clients.insert(cfg.cluster_uris.clone(), client.clone());
        Ok(client)
    }

    /// The connection a component publishes on: its link's, else the provider default — so a
    /// publish that races the link's arrival still goes out instead of failing.
    async fn client_for(&self, cx: &Option<Context>) -> anyhow::Result<async_nats::Client> {
        if let Some(component) = cx.as_ref().and_then(|cx| cx.component.as_deref()) {
            if let Some(c) = self.consumers.read().await.get(component) {
                return Ok(c.clone());
            }
        }
        let cfg = self.default_config.read().await.clone();
        self.client(&cfg).await
    }

    async fn link_connection(&self, link: &LinkConfig<'_>) -> anyhow::Result<async_nats::Client> {
        let base = self.default_config.read().await.clone();
        let cfg = ConnectionConfig::from_map(link.config, &base).map_err(anyhow::Error::msg)?;
        self.client(&cfg).await
    }
}

/// A component behind a handler link.
struct Component {
    id: String,
    wrpc: WrpcClient,
    js: async_nats::jetstream::Context,
    dead_letter_stage: String,
}

impl Target for Component {
    async fn deliver(&self, msg: &Delivery) -> Result<(), Failure> {
        let (subject, body) = msg.invocation();
        let broker_msg = BrokerMessage { subject, reply_to: None, body };
        match bindings::wasmcloud::messaging::handler::handle_message(&self.wrpc, None, &broker_msg).await {
            Ok(Ok(())) => Ok(()),
            // The component's own answer (`unavailable:` waits, anything else counts).
            Ok(Err(e)) => Err(Failure::Refused(e)),
            Err(e) => Err(Failure::NoAnswer(format!("invoking {} failed: {e:#}", self.id))),
        }
    }

    async fn dead_letter(&self, msg: &Delivery, reason: &str) -> Result<(), String> {
        cits_jetstream::durable::store_dead_letter(&self.js, &self.dead_letter_stage, msg, reason).await
    }
}

impl bindings::exports::wasmcloud::messaging::consumer::Handler<Option<Context>> for NatsMessagingProvider {
    /// A [`cits::subjects::PUBLISH`] batch goes to JetStream with message ids and returns once
    /// all of it is stored; anything else is a plain NATS publish.
    async fn publish(&self, cx: Option<Context>, msg: BrokerMessage) -> anyhow::Result<Result<(), String>> {
        let client = match self.client_for(&cx).await {
            Ok(c) => c,
            Err(e) => return Ok(Err(format!("{e:#}"))),
        };
        if msg.subject == cits::subjects::PUBLISH {
            let batch = match cits::proto::MessageBatch::decode(msg.body) {
                Ok(b) => b,
                Err(e) => return Ok(Err(format!("not a protobuf MessageBatch: {e}"))),
            };
            let messages = batch.messages.into_iter().map(|m| (m.msg_id, m.subject, m.body)).collect();
            let js = async_nats::jetstream::new(client);
            let started = std::time::Instant::now();
            let stored = cits_jetstream::publish_all(&js, messages).await.map_err(|e| format!("{e:#}"));
            if started.elapsed() > Duration::from_millis(250) {
                warn!(took_ms = started.elapsed().as_millis() as u64, ok = stored.is_ok(), "slow JetStream publish");
            }
            return Ok(stored);
        }
        let res = match msg.reply_to {
            Some(reply) => client.publish_with_reply(msg.subject, reply, msg.body).await,
            None => client.publish(msg.subject, msg.body).await,
        };
        Ok(res.map_err(|e| e.to_string()))
    }

    async fn request(
        &self,
        cx: Option<Context>,
        subject: String,
        body: Bytes,
        timeout_ms: u32,
    ) -> anyhow::Result<Result<BrokerMessage, String>> {
        let client = match self.client_for(&cx).await {
            Ok(c) => c,
            Err(e) => return Ok(Err(format!("{e:#}"))),
        };
        let timeout = Duration::from_millis(timeout_ms.into());
        Ok(match tokio::time::timeout(timeout, client.request(subject.clone(), body)).await {
            Err(_) => Err(format!("request on {subject} timed out after {timeout_ms} ms")),
            Ok(Err(e)) => Err(format!("request on {subject} failed: {e}")),
            Ok(Ok(reply)) => Ok(BrokerMessage {
                subject: reply.subject.to_string(),
                reply_to: reply.reply.map(|r| r.to_string()),
                body: reply.payload,
            }),
        })
    }
}

impl Provider for NatsMessagingProvider {
    async fn init(&self, config: impl ProviderInitConfig) -> anyhow::Result<()> {
        // Without `cluster_uris`, the lattice's own NATS server (the host's RPC URL): a manifest
        // then names no port and deploys unchanged on any lattice.
        let lattice = wasmcloud_provider_sdk::load_host_data()
            .ok()
            .map(|host| host.lattice_rpc_url.trim().to_string())
            .filter(|url| !url.is_empty());
        let base = lattice.map_or_else(ConnectionConfig::default, |url| ConnectionConfig { cluster_uris: vec![url] });
        let cfg = ConnectionConfig::from_map(config.get_config(), &base)
            .map_err(|e| anyhow::anyhow!("invalid provider config: {e}"))?;
        info!(cluster_uris = ?cfg.cluster_uris, "NATS messaging provider configured");
        *self.default_config.write().await = cfg;
        Ok(())
    }

    /// A component that publishes through us.
    async fn receive_link_config_as_target(&self, link: LinkConfig<'_>) -> anyhow::Result<()> {
        let client = self.link_connection(&link).await.with_context(|| format!("link from {}", link.source_id))?;
        self.consumers.write().await.insert(link.source_id.to_string(), client);
        info!(component = link.source_id, "consumer linked");
        Ok(())
    }

    /// A component we deliver subscriptions to.
    ///
    /// Idempotent: the host and the link catch-up may both deliver one link; the same config
    /// again keeps the running consumers (restarting them would strand an in-flight message
    /// until its ack wait ran out).
    async fn receive_link_config_as_source(&self, link: LinkConfig<'_>) -> anyhow::Result<()> {
        let cfg = HandlerConfig::from_map(link.config)
            .map_err(|e| anyhow::anyhow!("invalid handler link config for {}: {e}", link.target_id))?;
        let key = (link.target_id.to_string(), link.link_name.to_string());
        // Held to the end: two deliveries of one link never start consumers side by side.
        let mut handlers = self.handlers.write().await;
        if let Some((running, _)) = handlers.get(&key) {
            if running == link.config {
                return Ok(());
            }
            info!(component = link.target_id, link = link.link_name, was = ?running, now = ?link.config, "handler link config changed: restarting its consumers");
        }
        let nats = self.link_connection(&link).await.with_context(|| format!("link to {}", link.target_id))?;
        let js = async_nats::jetstream::new(nats.clone());
        // Idempotent: the streams exist before any consumer is opened on them.
        cits_jetstream::ensure_streams(&js, &cits_jetstream::Limits::default()).await?;
        // The wRPC client's own timeout is the attempt deadline (see dispatch::attempt).
        let wrpc = get_connection().get_wrpc_client_custom(link.target_id, Some(cfg.attempt_deadline())).await?;
        let target = Arc::new(Component {
            id: link.target_id.to_string(),
            wrpc,
            js: js.clone(),
            dead_letter_stage: cfg.dead_letter_stage.clone(),
        });
        let default_durable = cits_jetstream::handler::default_durable(link.target_id, link.link_name);
        let consumers = cits_jetstream::durable::start(nats, js, &cfg, &default_durable, target);
        info!(
            component = link.target_id,
            link = link.link_name,
            subscriptions = ?cfg.subscriptions,
            durable = cfg.durable.as_deref().unwrap_or(&default_durable),
            concurrency = cfg.concurrency,
            batch_max = cfg.batch_max,
            "handler linked: pulling every partition from JetStream"
        );
        handlers.insert(key, (link.config.clone(), consumers));
        Ok(())
    }

    async fn delete_link_as_target(&self, info: impl LinkDeleteInfo) -> anyhow::Result<()> {
        self.consumers.write().await.remove(info.get_source_id());
        Ok(())
    }

    async fn delete_link_as_source(&self, info: impl LinkDeleteInfo) -> anyhow::Result<()> {
        let key = (info.get_target_id().to_string(), info.get_link_name().to_string());
        if self.handlers.write().await.remove(&key).is_none() {
            warn!(component = %key.0, link = %key.1, "deleted handler link was not known");
        } else {
            info!(component = %key.0, link = %key.1, "handler link deleted: its consumers stopped");
        }
        Ok(())
    }

    async fn shutdown(&self) -> anyhow::Result<()> {
        self.handlers.write().await.clear();
        self.consumers.write().await.clear();
        Ok(())
    }
}

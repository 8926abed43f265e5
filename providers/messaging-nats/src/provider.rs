//! wRPC side: links, subscriptions feeding a [`Dispatcher`] per handler link, and the
//! wasmcloud:messaging consumer (publish, request) for components.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use bytes::Bytes;
use futures::StreamExt as _;
use tokio::sync::{Mutex, RwLock};
use tokio::task::JoinHandle;
use tracing::{error, info, warn};
use wasmcloud_provider_sdk::provider::WrpcClient;
use wasmcloud_provider_sdk::{
    get_connection, initialize_observability, run_provider, serve_provider_exports, Context, LinkConfig,
    LinkDeleteInfo, Provider, ProviderInitConfig,
};

use crate::config::{ConnectionConfig, HandlerConfig};
use crate::dispatch::{Delivery, Dispatcher, Target};

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

/// A handler link at work: its subscriptions' reader tasks and the dispatcher they feed.
struct HandlerLink {
    readers: Vec<JoinHandle<()>>,
    _dispatcher: Arc<Dispatcher>,
}

impl Drop for HandlerLink {
    fn drop(&mut self) {
        for r in &self.readers {
            r.abort();
        }
    }
}

/// One NATS connection per distinct server list, shared by all links that use it.
#[derive(Clone, Default)]
pub struct NatsMessagingProvider {
    default_config: Arc<RwLock<ConnectionConfig>>,
    clients: Arc<Mutex<HashMap<Vec<String>, async_nats::Client>>>,
    /// Components linked to us (consumer), by component id: the connection they publish on.
    consumers: Arc<RwLock<HashMap<String, async_nats::Client>>>,
    /// Handler links, by (component id, link name).
    handlers: Arc<RwLock<HashMap<(String, String), HandlerLink>>>,
}

/// Starts the provider under a wasmCloud host (reads host data from stdin).
pub async fn run() -> anyhow::Result<()> {
    initialize_observability!("messaging-nats-provider", std::env::var_os("PROVIDER_MESSAGING_NATS_FLAMEGRAPH_PATH"));
    let provider = NatsMessagingProvider::default();
    let shutdown = run_provider(provider.clone(), "messaging-nats-provider").await.context("failed to run provider")?;
    let connection = get_connection();
    let wrpc = connection.get_wrpc_client(connection.provider_key()).await?;
    serve_provider_exports(&wrpc, provider, shutdown, bindings::serve).await.context("failed to serve provider exports")
}

impl NatsMessagingProvider {
    async fn client(&self, cfg: &ConnectionConfig) -> anyhow::Result<async_nats::Client> {
        let mut clients = self.clients.lock().await;
        if let Some(c) = clients.get(&cfg.cluster_uris) {
            return Ok(c.clone());
        }
        let client = async_nats::ConnectOptions::new()
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
    nats: async_nats::Client,
    dead_letter_stage: Option<String>,
}

impl Target for Component {
    async fn deliver(&self, msg: &Delivery) -> Result<(), String> {
        let broker_msg =
            BrokerMessage { subject: msg.subject.clone(), reply_to: msg.reply_to.clone(), body: msg.payload.clone() };
        match bindings::wasmcloud::messaging::handler::handle_message(&self.wrpc, None, &broker_msg).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(format!("{} returned an error: {e}", self.id)),
            Err(e) => Err(format!("invoking {} failed: {e:#}", self.id)),
        }
    }

    async fn dead_letter(&self, msg: Delivery, reason: String) {
        let Some(stage) = &self.dead_letter_stage else {
            error!(component = %self.id, subject = %msg.subject, %reason, "message dropped (no dead_letter_stage)");
            return;
        };
        let letter = cits::stage::dead_letter(
            stage,
            &cits::stage::StageError::new(reason),
            &msg.subject,
            &msg.payload,
            cits::time::now_us(),
        );
        if let Err(e) = self.nats.publish(letter.subject, letter.body.into()).await {
            error!(component = %self.id, %e, "dead letter could not be published");
        }
    }
}

impl bindings::exports::wasmcloud::messaging::consumer::Handler<Option<Context>> for NatsMessagingProvider {
    async fn publish(&self, cx: Option<Context>, msg: BrokerMessage) -> anyhow::Result<Result<(), String>> {
        let client = match self.client_for(&cx).await {
            Ok(c) => c,
            Err(e) => return Ok(Err(format!("{e:#}"))),
        };
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
        let cfg = ConnectionConfig::from_map(config.get_config(), &ConnectionConfig::default())
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
    async fn receive_link_config_as_source(&self, link: LinkConfig<'_>) -> anyhow::Result<()> {
        let cfg = HandlerConfig::from_map(link.config)
            .map_err(|e| anyhow::anyhow!("invalid handler link config for {}: {e}", link.target_id))?;
        let nats = self.link_connection(&link).await.with_context(|| format!("link to {}", link.target_id))?;
        let wrpc = get_connection().get_wrpc_client_custom(link.target_id, Some(cfg.invocation_timeout)).await?;
        let target = Arc::new(Component {
            id: link.target_id.to_string(),
            wrpc,
            nats: nats.clone(),
            dead_letter_stage: cfg.dead_letter_stage.clone(),
        });
        let dispatcher = Arc::new(Dispatcher::start(&cfg, target));
        let mut readers = Vec::new();
        for (subject, queue) in &cfg.subscriptions {
            let mut sub = match queue {
                Some(q) => nats.queue_subscribe(subject.clone(), q.clone()).await,
                None => nats.subscribe(subject.clone()).await,
            }
            .with_context(|| format!("cannot subscribe to {subject}"))?;
            let dispatcher = Arc::clone(&dispatcher);
            readers.push(tokio::spawn(async move {
                while let Some(m) = sub.next().await {
                    let delivery = Delivery {
                        subject: m.subject.to_string(),
                        reply_to: m.reply.map(|r| r.to_string()),
                        payload: m.payload,
                    };
                    dispatcher.submit(delivery).await;
                }
            }));
        }
        info!(
            component = link.target_id,
            link = link.link_name,
            subscriptions = ?cfg.subscriptions,
            ordering = ?cfg.ordering,
            concurrency = cfg.concurrency,
            "handler linked"
        );
        let key = (link.target_id.to_string(), link.link_name.to_string());
        self.handlers.write().await.insert(key, HandlerLink { readers, _dispatcher: dispatcher });
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
        }
        Ok(())
    }

    async fn shutdown(&self) -> anyhow::Result<()> {
        self.handlers.write().await.clear();
        self.consumers.write().await.clear();
        Ok(())
    }
}

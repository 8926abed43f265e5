//! A handler link's input from JetStream: one pull loop per partition of each subscribed stream,
//! each with at most one message in flight (the consumer's `max_ack_pending` is 1, so this holds
//! across every provider copy on every host), acknowledged only after the component accepted it
//! or its dead letter is stored.

use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::{self, consumer::PullConsumer, AckKind};
use futures::StreamExt as _;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;
use tracing::{error, info, warn};

use crate::config::HandlerConfig;
use crate::dispatch::{attempt, Delivery, Target};

/// Pull requests wait this long for a message before they are renewed; the server sends
/// heartbeats meanwhile, so a connection that went away is noticed.
const PULL_EXPIRES: Duration = Duration::from_secs(30);
const PULL_HEARTBEAT: Duration = Duration::from_secs(5);

/// The pull loops of one handler link; stopped when dropped (messages in flight are redelivered
/// to another puller after the consumer's ack wait).
pub struct Consumers {
    loops: Vec<JoinHandle<()>>,
}

impl Drop for Consumers {
    fn drop(&mut self) {
        for l in &self.loops {
            l.abort();
        }
    }
}

/// Starts pulling every partition of every subscription of `cfg` for `target`.
pub fn start<T: Target>(
    js: jetstream::Context,
    cfg: &HandlerConfig,
    default_durable: &str,
    target: Arc<T>,
) -> Consumers {
    let permits = Arc::new(Semaphore::new(cfg.concurrency.max(1)));
    let mut loops = Vec::new();
    for subscription in &cfg.subscriptions {
        let spec = cits_jetstream::stage_input(subscription).expect("checked by HandlerConfig::from_map");
        let consumer = cits_jetstream::ConsumerSpec {
            durable: cfg.durable.clone().unwrap_or_else(|| default_durable.to_string()),
            ack_wait: cfg.ack_wait,
        };
        for partition in 0..cits_jetstream::PARTITIONS {
            let (js, cfg, target, permits) = (js.clone(), cfg.clone(), Arc::clone(&target), Arc::clone(&permits));
            let config = consumer.config(spec, partition);
            loops.push(tokio::spawn(async move {
                pull_partition(js, spec.name, config, cfg, target, permits).await;
            }));
        }
    }
    Consumers { loops }
}

async fn pull_partition<T: Target>(
    js: jetstream::Context,
    stream: &'static str,
    config: jetstream::consumer::pull::Config,
    cfg: HandlerConfig,
    target: Arc<T>,
    permits: Arc<Semaphore>,
) {
    let name = config.durable_name.clone().unwrap_or_default();
    loop {
        let consumer = match open(&js, stream, &config).await {
            Ok(c) => c,
            Err(e) => {
                warn!(consumer = %name, "cannot open the consumer, trying again: {e:#}");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let messages = consumer.stream().heartbeat(PULL_HEARTBEAT).expires(PULL_EXPIRES).max_messages_per_batch(1);
        let mut messages = match messages.messages().await {
            Ok(m) => m,
            Err(e) => {
                warn!(consumer = %name, "cannot pull, trying again: {e}");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        info!(consumer = %name, "pulling");
        while let Some(next) = messages.next().await {
            match next {
                Ok(msg) => {
                    let _permit = permits.acquire().await.expect("the semaphore is never closed");
                    handle(&msg, &cfg, target.as_ref()).await;
                }
                Err(e) => {
                    // Missed heartbeats, a restarted server: pull anew (in-flight messages, if
                    // any, come again after the ack wait).
                    warn!(consumer = %name, "pull interrupted: {e}");
                    break;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn open(
    js: &jetstream::Context,
    stream: &str,
    config: &jetstream::consumer::pull::Config,
) -> anyhow::Result<PullConsumer> {
    let stream = js.get_stream(stream).await.map_err(|e| anyhow::anyhow!("stream {stream}: {e}"))?;
    let name = config.durable_name.clone().unwrap_or_default();
    stream.get_or_create_consumer(&name, config.clone()).await.map_err(|e| anyhow::anyhow!("consumer {name}: {e}"))
}

/// One message: delivered (acknowledged), or dead-lettered (stored, then terminated). Never
/// acknowledged before one of the two is done; if this provider dies first, the message is
/// redelivered after the ack wait.
async fn handle<T: Target>(msg: &jetstream::Message, cfg: &HandlerConfig, target: &T) {
    let delivery =
        Delivery { subject: cits_jetstream::published_subject(msg.subject.as_str()), payload: msg.payload.clone() };
    let redeliveries = msg.info().map(|i| i.delivered.saturating_sub(1) as u32).unwrap_or(0);
    let keep_alive = || async {
        if let Err(e) = msg.ack_with(AckKind::Progress).await {
            warn!(subject = %delivery.subject, "progress not acknowledged: {e}");
        }
    };
    match attempt(target, &delivery, cfg, redeliveries, keep_alive).await {
        Ok(()) => {
            // Lost acknowledgements are harmless: the redelivered message is recognised.
            if let Err(e) = msg.ack().await {
                warn!(subject = %delivery.subject, "delivered but not acknowledged: {e}");
            }
        }
        Err(reason) => {
            error!(subject = %delivery.subject, %reason, "dead letter");
            let mut wait = Duration::from_millis(100);
            while let Err(e) = target.dead_letter(&delivery, &reason).await {
                warn!(subject = %delivery.subject, "dead letter not stored, trying again: {e}");
                let _ = msg.ack_with(AckKind::Progress).await;
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(5));
            }
            if let Err(e) = msg.ack_with(AckKind::Term).await {
                warn!(subject = %delivery.subject, "dead-lettered but not terminated: {e}");
            }
        }
    }
}

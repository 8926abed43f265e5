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
/// heartbeats meanwhile, and a pull that hears nothing for two heartbeats is started anew.
///
/// The heartbeat is short on purpose: now and then a pull is neither served nor heartbeated
/// although messages wait (nats-server 2.11.3, async-nats 0.39; logged as "message delivered
/// late" by two heartbeats plus the re-pull, first deliveries, messages pending). Most of these
/// followed an acknowledgement that the server had not processed when the next pull arrived, so
/// acknowledgements are now confirmed first (`double_ack`: 13 such stalls in a `make bench` at 1x
/// with seven actors before, 1 after). For what is left, two heartbeats bound the cost: 2 s,
/// where a 5 s heartbeat cost 10 s.
const PULL_EXPIRES: Duration = Duration::from_secs(10);
const PULL_HEARTBEAT: Duration = Duration::from_secs(1);

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
    // When the partition last became free to take its next message (kept across re-pulls).
    let mut free_since = std::time::SystemTime::now();
    let mut finished = Finished::default();
    loop {
        let consumer = match open(&js, stream, &config).await {
            Ok(c) => c,
            Err(e) => {
                warn!(consumer = %name, "cannot open the consumer, trying again: {e:#}");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        finished.consumer(consumer.cached_info().created);
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
                    // Parsed once from the reply subject; every check below reads it.
                    let info = msg.info().ok();
                    let seq = info.as_ref().map(|i| i.stream_sequence);
                    if let Some(seq) = seq.filter(|&seq| finished.includes(seq)) {
                        info!(consumer = %name, seq, "delivered again although finished here: acknowledged, not handled");
                        if let Err(e) = msg.double_ack().await {
                            warn!(consumer = %name, seq, "not acknowledged: {e}");
                        }
                        continue;
                    }
                    if let Some(info) = &info {
                        report_late_delivery(&name, info, free_since);
                    }
                    let redeliveries = info.as_ref().map_or(0, |i| i.delivered.saturating_sub(1) as u32);
                    let _permit = permits.acquire().await.expect("the semaphore is never closed");
                    let started = std::time::Instant::now();
                    handle(&msg, redeliveries, &cfg, target.as_ref()).await;
                    if started.elapsed() > SLOW {
                        warn!(consumer = %name, took_ms = started.elapsed().as_millis() as u64, "slow message");
                    }
                    free_since = std::time::SystemTime::now();
                    if let Some(seq) = seq {
                        finished.record(seq);
                    }
                }
                Err(e) => {
                    // Missed heartbeats, a restarted server: pull anew (in-flight messages, if
                    // any, come again after the ack wait).
                    warn!(consumer = %name, "pull interrupted: {e}");
                    break;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// What one pull loop has finished of its partition. With one unacknowledged message per
/// partition, handed out in stream order, the consumer delivers a sequence only after every
/// earlier one was acknowledged or terminated; so a message at or below the highest sequence this
/// loop finished was done already and comes again only because the server forgot the
/// acknowledgement. Seen after nats-server was killed: frames up to ~190 back delivered again,
/// more than a stage's applied markers (64 inputs) recognise, so they were handled a second time
/// against newer state. Forgotten when the consumer is a new one (another creation time: the
/// stream or consumer was re-created, sequences start over).
#[derive(Debug, Default)]
struct Finished {
    consumer_created: Option<time::OffsetDateTime>,
    up_to: u64,
}

impl Finished {
    fn consumer(&mut self, created: time::OffsetDateTime) {
        if self.consumer_created != Some(created) {
            *self = Self { consumer_created: Some(created), up_to: 0 };
        }
    }

    fn includes(&self, seq: u64) -> bool {
        seq <= self.up_to
    }

    fn record(&mut self, seq: u64) {
        self.up_to = self.up_to.max(seq);
    }
}

/// A message that takes this long to handle, or waits this long for its pull, is logged.
const SLOW: Duration = Duration::from_millis(1000);

/// Reports a message that was stored while this partition was free but came only `SLOW` later:
/// time lost between JetStream and us, not in a stage.
fn report_late_delivery(consumer: &str, info: &jetstream::message::Info<'_>, free_since: std::time::SystemTime) {
    let stored = std::time::SystemTime::from(info.published);
    let waiting_from = stored.max(free_since);
    if let Ok(late) = std::time::SystemTime::now().duration_since(waiting_from) {
        if late > SLOW {
            warn!(
                consumer,
                late_ms = late.as_millis() as u64,
                delivered = info.delivered,
                pending = info.pending,
                "message delivered late"
            );
        }
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
/// redelivered after the ack wait. `redeliveries`: how often JetStream delivered it before.
async fn handle<T: Target>(msg: &jetstream::Message, redeliveries: u32, cfg: &HandlerConfig, target: &T) {
    let delivery =
        Delivery { subject: cits_jetstream::published_subject(msg.subject.as_str()), payload: msg.payload.clone() };
    let keep_alive = || async {
        if let Err(e) = msg.ack_with(AckKind::Progress).await {
            warn!(subject = %delivery.subject, "progress not acknowledged: {e}");
        }
    };
    match attempt(target, &delivery, cfg, redeliveries, keep_alive).await {
        Ok(()) => {
            // Confirmed by the server before the next pull goes out (see PULL_HEARTBEAT). Lost
            // acknowledgements are harmless: the redelivered message is recognised.
            if let Err(e) = msg.double_ack().await {
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

#[cfg(test)]
mod tests {
    use super::Finished;

    #[test]
    fn a_sequence_finished_here_is_recognised_until_the_consumer_is_new() {
        let created = time::OffsetDateTime::UNIX_EPOCH;
        let mut finished = Finished::default();
        finished.consumer(created);
        assert!(!finished.includes(1));
        finished.record(40);
        finished.record(12); // a redelivery handled before this loop knew better: no step back
        assert!(finished.includes(40) && finished.includes(3));
        assert!(!finished.includes(41));
        finished.consumer(created); // the same consumer, opened again after a server restart
        assert!(finished.includes(40));
        finished.consumer(created + time::Duration::seconds(5)); // re-created: sequences start over
        assert!(!finished.includes(1));
    }
}

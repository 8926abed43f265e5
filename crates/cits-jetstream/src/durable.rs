//! A handler link's input from JetStream: one pull loop per partition of each subscribed stream,
//! each with at most one message in flight (the consumer's `max_ack_pending` is 1, so this holds
//! across every provider copy on every host), acknowledged only after the component accepted it
//! or its dead letter is stored.
//!
//! Under a backlog the pulled message takes the partition's next messages along: they are read
//! from the stream (one batched direct get) and the component handles all of them in one
//! invocation, in stream order — one state read, one publish, one commit for the batch. The
//! consumer still hands them out one by one afterwards; the loop acknowledges them unhandled (see
//! [`Finished`]). Another puller that gets one of them first (this one died) handles it again,
//! which the stages' applied markers and the outputs' message ids make harmless.

use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::{self, consumer::PullConsumer, AckKind};
use futures::StreamExt as _;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;
use tracing::{debug, error, info, warn};

use bytes::Bytes;
use prost::Message as _;

use crate::dispatch::{attempt, Delivery, Target};
use crate::handler::HandlerConfig;

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

/// Starts pulling every partition of every subscription of `cfg` for `target` (`client`: the
/// connection of `js`, for the read-ahead).
pub fn start<T: Target>(
    client: async_nats::Client,
    js: jetstream::Context,
    cfg: &HandlerConfig,
    default_durable: &str,
    target: Arc<T>,
) -> Consumers {
    let permits = Arc::new(Semaphore::new(cfg.concurrency.max(1)));
    let mut loops = Vec::new();
    for subscription in &cfg.subscriptions {
        let spec = crate::stage_input(subscription).expect("checked by HandlerConfig::from_map");
        let consumer = crate::ConsumerSpec {
            durable: cfg.durable.clone().unwrap_or_else(|| default_durable.to_string()),
            ack_wait: cfg.ack_wait,
        };
        for partition in 0..crate::PARTITIONS {
            let (js, cfg, target, permits) = (js.clone(), cfg.clone(), Arc::clone(&target), Arc::clone(&permits));
            let config = consumer.config(spec, partition);
            let ahead = ReadAhead {
                client: client.clone(),
                stream: spec.name,
                filter: config.filter_subject.clone(),
                skip_core_copies: false,
            };
            loops.push(tokio::spawn(async move {
                pull_partition(js, ahead, config, cfg, target, permits).await;
            }));
        }
    }
    Consumers { loops }
}

async fn pull_partition<T: Target>(
    js: jetstream::Context,
    mut ahead: ReadAhead,
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
        let consumer = match open(&js, ahead.stream, &config).await {
            Ok((c, skip_core_copies)) => {
                ahead.skip_core_copies = skip_core_copies;
                c
            }
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
                        // A first delivery was handled with an earlier message's batch (read-ahead:
                        // every message of a backlog, so not worth a line each); a second one is
                        // an acknowledgement the server forgot.
                        if info.as_ref().is_some_and(|i| i.delivered > 1) {
                            info!(consumer = %name, seq, "delivered again although finished here: acknowledged, not handled");
                        } else {
                            debug!(consumer = %name, seq, "handled ahead with an earlier message: acknowledged");
                        }
                        if let Err(e) = msg.double_ack().await {
                            warn!(consumer = %name, seq, "not acknowledged: {e}");
                        }
                        continue;
                    }
                    if ahead.skip_core_copies && crate::mqtt::captured_twice(msg.headers.as_ref()) {
                        debug!(consumer = %name, ?seq, "core copy of a stored MQTT publish: acknowledged, not handled");
                        if let Err(e) = msg.double_ack().await {
                            warn!(consumer = %name, ?seq, "not acknowledged: {e}");
                        }
                        continue;
                    }
                    if let Some(info) = &info {
                        report_late_delivery(&name, info, free_since);
                    }
                    let redeliveries = info.as_ref().map_or(0, |i| i.delivered.saturating_sub(1) as u32);
                    let _permit = permits.acquire().await.expect("the semaphore is never closed");
                    let started = std::time::Instant::now();
                    let backlog = info.as_ref().map_or(0, |i| i.pending) as usize;
                    let also = match seq.filter(|_| cfg.batch_max > 1 && backlog > 0) {
                        Some(seq) => ahead.after(seq, backlog.min(cfg.batch_max - 1)).await.unwrap_or_else(|e| {
                            warn!(consumer = %name, seq, "read-ahead failed, handling the message alone: {e:#}");
                            Vec::new()
                        }),
                        None => Vec::new(),
                    };
                    let handled_up_to = handle(&msg, seq, also, redeliveries, &cfg, target.as_ref()).await;
                    if started.elapsed() > SLOW {
                        warn!(consumer = %name, took_ms = started.elapsed().as_millis() as u64, "slow message");
                    }
                    free_since = std::time::SystemTime::now();
                    if let Some(seq) = seq {
                        finished.record(handled_up_to.unwrap_or(seq));
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

/// Stores `msg` as a dead letter of `stage` on `cits.dlq.<stage>` (JetStream, acknowledged): what
/// a [`Target::dead_letter`] does wherever the stage runs.
pub async fn store_dead_letter(
    js: &jetstream::Context,
    stage: &str,
    msg: &Delivery,
    reason: &str,
) -> Result<(), String> {
    let error = cits::message::StageError::new(reason);
    let letter = cits::message::dead_letter(stage, &error, &msg.subject, &msg.payload, cits::shared::time::now_us());
    let id = cits::message::dead_letter_id(stage, &msg.subject, &msg.payload, msg.stream_sequence);
    crate::publish_all(js, vec![(id, letter.subject, letter.body)]).await.map_err(|e| format!("{e:#}"))
}

/// The partition's consumer, and whether its stream sources the MQTT listener's store (then the
/// core copies of what the listener stored are skipped: [`crate::mqtt`]).
async fn open(
    js: &jetstream::Context,
    stream: &str,
    config: &jetstream::consumer::pull::Config,
) -> anyhow::Result<(PullConsumer, bool)> {
    let stream = js.get_stream(stream).await.map_err(|e| anyhow::anyhow!("stream {stream}: {e}"))?;
    let sources_mqtt = crate::mqtt::sources_store(&stream.cached_info().config);
    let name = config.durable_name.clone().unwrap_or_default();
    let consumer = stream
        .get_or_create_consumer(&name, config.clone())
        .await
        .map_err(|e| anyhow::anyhow!("consumer {name}: {e}"))?;
    Ok((consumer, sources_mqtt))
}

/// The partition's messages stored after a given one, read straight from the stream.
struct ReadAhead {
    client: async_nats::Client,
    stream: &'static str,
    /// The partition's filter (`cits.cpm.3.*`), the consumer's own.
    filter: String,
    /// Leave out the core copies of stored MQTT publishes ([`crate::mqtt::captured_twice`]).
    skip_core_copies: bool,
}

/// A read-ahead that has not ended by then is cut off; what came so far is still used (it is the
/// partition's next messages in order all the same).
const READ_AHEAD_LIMIT: Duration = Duration::from_millis(500);

impl ReadAhead {
    /// Up to `max` messages of the partition after sequence `seq`, in stream order, by one direct
    /// get with `batch` (nats-server 2.11; the stream allows direct gets): the server answers
    /// with the messages, then a 204 status (or 404 when there are none). Each has its sequence.
    async fn after(&self, seq: u64, max: usize) -> anyhow::Result<Vec<Delivery>> {
        let inbox = self.client.new_inbox();
        let mut replies = self.client.subscribe(inbox.clone()).await?;
        let request = format!(r#"{{"seq":{},"next_by_subj":"{}","batch":{max}}}"#, seq + 1, self.filter);
        let subject = format!("$JS.API.DIRECT.GET.{}", self.stream);
        self.client.publish_with_reply(subject, inbox, Bytes::from(request)).await?;
        let mut ahead = Vec::with_capacity(max);
        let cut_off = tokio::time::Instant::now() + READ_AHEAD_LIMIT;
        while ahead.len() < max {
            let Ok(Some(reply)) = tokio::time::timeout_at(cut_off, replies.next()).await else { break };
            if let Some(status) = reply.status {
                match status.as_u16() {
                    204 | 404 => break,
                    _ => anyhow::bail!("direct get: {status} {}", reply.description.unwrap_or_default()),
                }
            }
            if self.skip_core_copies && crate::mqtt::captured_twice(reply.headers.as_ref()) {
                continue;
            }
            let header = |name| reply.headers.as_ref().and_then(|h| h.get(name)).map(|v| v.as_str().to_string());
            let stored_seq = header(async_nats::header::NATS_SEQUENCE).and_then(|s| s.parse::<u64>().ok());
            let (Some(stored_seq), Some(stored_subject)) = (stored_seq, header(async_nats::header::NATS_SUBJECT))
            else {
                anyhow::bail!("direct get: a reply without Nats-Sequence or Nats-Subject");
            };
            ahead.push(Delivery {
                subject: crate::published_subject(&stored_subject),
                payload: reply.payload,
                stream_sequence: Some(stored_seq),
            });
        }
        let _ = replies.unsubscribe().await;
        Ok(ahead)
    }
}

/// The pulled message and the ones read ahead as one [`cits::subjects::BATCH`] delivery.
fn batch_of(first: &Delivery, also: &[Delivery]) -> Delivery {
    let messages = std::iter::once(first).chain(also).map(Delivery::batched).collect();
    let batch = cits::proto::MessageBatch { messages };
    Delivery {
        subject: cits::subjects::BATCH.to_string(),
        payload: Bytes::from(batch.encode_to_vec()),
        stream_sequence: None,
    }
}

/// One message, with the messages read ahead after it if any: delivered (acknowledged), or
/// dead-lettered (stored, then terminated). Never acknowledged before one of the two is done; if
/// this provider dies first, the message is redelivered after the ack wait. `redeliveries`: how
/// often JetStream delivered it before. Returns the last sequence handled when the batch was.
///
/// A batch the component does not accept at once is not retried as a batch: the message goes on
/// alone and the ones read ahead come singly from the consumer, so a message that fails never
/// takes its neighbours to the dead letters.
async fn handle<T: Target>(
    msg: &jetstream::Message,
    seq: Option<u64>,
    also: Vec<Delivery>,
    redeliveries: u32,
    cfg: &HandlerConfig,
    target: &T,
) -> Option<u64> {
    let delivery = Delivery {
        subject: crate::published_subject(msg.subject.as_str()),
        payload: msg.payload.clone(),
        stream_sequence: seq,
    };
    if let Some(last) = also.last().and_then(|a| a.stream_sequence) {
        let batch = batch_of(&delivery, &also);
        let once = HandlerConfig { max_attempts: 1, max_unanswered: 1, ..cfg.clone() };
        let keep_alive = || async {
            let _ = msg.ack_with(AckKind::Progress).await;
        };
        match attempt(target, &batch, &once, 0, keep_alive).await {
            Ok(()) => {
                if let Err(e) = msg.double_ack().await {
                    warn!(subject = %delivery.subject, "delivered in a batch but not acknowledged: {e}");
                }
                return Some(last);
            }
            Err(reason) => {
                warn!(subject = %delivery.subject, batch = also.len() + 1, %reason, "batch not accepted: one by one")
            }
        }
    }
    single(msg, delivery, redeliveries, cfg, target).await;
    None
}

async fn single<T: Target>(
    msg: &jetstream::Message,
    delivery: Delivery,
    redeliveries: u32,
    cfg: &HandlerConfig,
    target: &T,
) {
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
    use super::*;
    use async_nats::HeaderMap;

    /// A nats-server of the test's own (the binary `make setup` built, `NATS_SERVER`), JetStream
    /// in a fresh directory; killed when dropped.
    struct Server {
        child: std::process::Child,
        port: u16,
        dir: std::path::PathBuf,
    }

    impl Server {
        fn start() -> Self {
            let bin =
                std::env::var("NATS_SERVER").expect("NATS_SERVER: the nats-server binary (make test-unit sets it)");
            let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
            let dir = std::env::temp_dir().join(format!("cits-read-ahead-{}-{port}", std::process::id()));
            let child = std::process::Command::new(bin)
                .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
                .arg(&dir)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("nats-server starts");
            Self { child, port, dir }
        }

        /// A client, once the server accepts connections, and the pipeline's streams (small).
        async fn streams(&self) -> (async_nats::Client, jetstream::Context) {
            let url = format!("127.0.0.1:{}", self.port);
            let mut client = None;
            for _ in 0..100 {
                match async_nats::connect(&url).await {
                    Ok(c) => {
                        client = Some(c);
                        break;
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                }
            }
            let client = client.expect("nats-server accepts connections");
            let js = jetstream::new(client.clone());
            let limits = crate::Limits { max_bytes: 64 << 20, ..Default::default() };
            crate::ensure_streams(&js, &limits).await.unwrap();
            (client, js)
        }
    }

    impl Drop for Server {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    #[tokio::test]
    async fn read_ahead_gives_the_partitions_next_messages_in_stream_order() {
        let server = Server::start();
        let (client, js) = server.streams().await;
        // Three RSUs' CPMs, CAMs and VAMs interleaved, each with its stream sequence and the
        // partition it went to: an RSU's CAMs and VAMs share its CPMs' partition and order.
        let mut stored: Vec<(u64, u32, String, String)> = Vec::new();
        let stream = js.get_stream("CITS_CPM").await.unwrap();
        for i in 0..12 {
            for rsu in ["rsu-a", "rsu-b", "rsu-c"] {
                let kind = ["cpm", "cpm", "cam", "cpm", "vam"][i % 5];
                let body = format!("{rsu} {kind} {i}");
                let subject = format!("cits.{kind}.{rsu}");
                let ack = js.publish(subject.clone(), body.clone().into()).await.unwrap().await.unwrap();
                let raw = stream.get_raw_message(ack.sequence).await.unwrap();
                let partition = raw.subject.split('.').nth(2).unwrap().parse().unwrap();
                assert!(stored.iter().all(|s| !s.2.ends_with(rsu) || s.1 == partition), "{rsu} in one partition");
                stored.push((ack.sequence, partition, subject, body));
            }
        }
        let spec = crate::stage_input("cits.cpm.*").unwrap();
        let partition = stored[0].1;
        let ahead =
            ReadAhead { client, stream: spec.name, filter: spec.partition_filter(partition), skip_core_copies: false };
        let in_partition: Vec<&(u64, u32, String, String)> = stored.iter().filter(|s| s.1 == partition).collect();
        let expect = |from: usize, n: usize| -> Vec<(u64, String, String)> {
            in_partition[from..].iter().take(n).map(|s| (s.0, s.2.clone(), s.3.clone())).collect()
        };
        let got = |ahead: Vec<Delivery>| -> Vec<(u64, String, String)> {
            ahead
                .into_iter()
                .map(|a| (a.stream_sequence.unwrap(), a.subject, String::from_utf8(a.payload.to_vec()).unwrap()))
                .collect()
        };
        // From the first message: the next five of its partition (other partitions skipped).
        assert_eq!(got(ahead.after(in_partition[0].0, 5).await.unwrap()), expect(1, 5));
        // Near the end: what there is; after the last: nothing (the server's 404).
        let last = in_partition.len() - 1;
        assert_eq!(got(ahead.after(in_partition[last - 2].0, 5).await.unwrap()), expect(last - 1, 5));
        assert!(ahead.after(in_partition[last].0, 5).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_stage_input_holds_only_what_its_stage_has_not_acknowledged() {
        let server = Server::start();
        let (_client, js) = server.streams().await;
        let spec = crate::stage_input("cits.decoded.*").unwrap();
        for i in 0..3 {
            js.publish("cits.decoded.rsu-a", format!("frame {i}").into()).await.unwrap().await.unwrap();
        }
        let mut stream = js.get_stream(spec.name).await.unwrap();
        let partition = stream.get_raw_message(1).await.unwrap().subject.split('.').nth(2).unwrap().parse().unwrap();
        let stage = crate::ConsumerSpec { durable: "collector".into(), ack_wait: Duration::from_secs(10) };
        let (consumer, _) = open(&js, spec.name, &stage.config(spec, partition)).await.unwrap();
        let mut batch = consumer.fetch().max_messages(1).messages().await.unwrap();
        batch.next().await.unwrap().unwrap().double_ack().await.unwrap();
        let held = stream.info().await.unwrap().state.messages;
        assert_eq!(held, 2, "the acknowledged frame is gone, the two not yet taken are kept");
        // One consumer per partition: another name on it is refused, so whoever serves the stage
        // (the native baseline too) takes the deployment's durable name.
        let other = crate::ConsumerSpec { durable: "native-collector".into(), ..stage };
        assert!(open(&js, spec.name, &other.config(spec, partition)).await.is_err());
    }

    /// What a stage was handed, message by message (a batch unpacked).
    #[derive(Default)]
    struct Handed(std::sync::Mutex<Vec<(String, String)>>);

    impl crate::dispatch::Target for Handed {
        async fn deliver(&self, msg: &Delivery) -> Result<(), crate::dispatch::Failure> {
            let (subject, payload) = msg.invocation();
            let messages = cits::proto::MessageBatch::decode(payload).map(|b| b.messages).unwrap_or_default();
            let mut handed = self.0.lock().unwrap();
            if subject == cits::subjects::BATCH {
                handed.extend(messages.into_iter().map(|m| (m.subject, String::from_utf8(m.body).unwrap())));
            } else {
                handed.push((subject, String::from_utf8(msg.payload.to_vec()).unwrap()));
            }
            Ok(())
        }

        async fn dead_letter(&self, _: &Delivery, reason: &str) -> Result<(), String> {
            panic!("no dead letters here: {reason}")
        }
    }

    /// Cluster ingress (crate::mqtt), the listener's two steps done by hand: a QoS 1 CPM is
    /// handled once, from the listener's store (also when its core copy was never captured, as
    /// while a new leader is elected); a QoS 0 CPM and a NATS client's once from the core
    /// capture; a DENM stored for an MQTT subscriber never reaches the stage.
    #[tokio::test]
    async fn in_a_cluster_a_qos1_publish_is_handled_once_from_the_listeners_store() {
        let server = Server::start();
        let (client, js) = server.streams().await;
        js.delete_stream("CITS_CPM").await.unwrap();
        let limits = crate::Limits { max_bytes: 16 << 20, source_mqtt: true, ..Default::default() };
        crate::ensure_streams(&js, &limits).await.unwrap();
        let mqtt = |qos: &str| {
            let mut h = HeaderMap::new();
            h.insert("Nmqtt-Pub", qos);
            h
        };
        let core = |subject: &'static str, headers: HeaderMap, body: &'static str| {
            let client = client.clone();
            async move { client.publish_with_headers(subject, headers, body.into()).await.unwrap() }
        };
        let stored = |subject: &'static str, body: &'static str| {
            let js = js.clone();
            async move {
                js.publish_with_headers(format!("$MQTT.msgs.{subject}"), mqtt("1"), body.into())
                    .await
                    .unwrap()
                    .await
                    .unwrap()
            }
        };
        core("cits.cpm.rsu-a", mqtt("1"), "qos1 one").await;
        stored("cits.cpm.rsu-a", "qos1 one").await;
        stored("cits.cpm.rsu-a", "qos1 two, core copy missed").await;
        core("cits.cpm.rsu-a", mqtt("0"), "qos0").await;
        core("cits.cpm.rsu-a", HeaderMap::new(), "nats client").await;
        stored("cits.denm.rsu-a", "a DENM for an MQTT subscriber").await;
        client.flush().await.unwrap();

        let handed = Arc::new(Handed::default());
        let cfg = HandlerConfig { subscriptions: vec!["cits.cpm.*".into()], ..Default::default() };
        let _consumers = start(client.clone(), js.clone(), &cfg, "decoder", Arc::clone(&handed));
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while handed.0.lock().unwrap().len() < 4 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        tokio::time::sleep(Duration::from_millis(500)).await; // a fifth would show
        let mut bodies: Vec<String> = handed.0.lock().unwrap().iter().map(|(_, b)| b.clone()).collect();
        bodies.sort();
        assert_eq!(bodies, ["nats client", "qos0", "qos1 one", "qos1 two, core copy missed"]);
        assert!(handed.0.lock().unwrap().iter().all(|(s, _)| s == "cits.cpm.rsu-a"), "{:?}", handed.0.lock());
        let stream = js.get_stream("CITS_CPM").await.unwrap();
        for p in 0..crate::PARTITIONS {
            let mut consumer: PullConsumer = stream.get_consumer(&format!("decoder-{p}")).await.unwrap();
            let info = consumer.info().await.unwrap();
            assert_eq!(
                (info.num_pending, info.num_ack_pending),
                (0, 0),
                "partition {p}: the skipped copy acknowledged too"
            );
        }
    }

    #[test]
    fn a_batch_carries_the_pulled_message_first_then_the_ones_read_ahead() {
        let d = |s: &str, b: &str, seq| Delivery {
            subject: s.into(),
            payload: Bytes::from(b.to_string()),
            stream_sequence: Some(seq),
        };
        let also = vec![d("cits.cpm.r2", "two", 8), d("cits.cpm.r1", "three", 9)];
        let batch = batch_of(&d("cits.cpm.r1", "one", 5), &also);
        assert_eq!(batch.subject, cits::subjects::BATCH);
        assert_eq!(batch.invocation(), (batch.subject.clone(), batch.payload.clone()), "invoked as it is");
        let messages = cits::proto::MessageBatch::decode(batch.payload).unwrap().messages;
        let seen: Vec<(&str, &[u8], u64)> =
            messages.iter().map(|m| (m.subject.as_str(), m.body.as_slice(), m.stream_sequence)).collect();
        assert_eq!(
            seen,
            vec![("cits.cpm.r1", &b"one"[..], 5), ("cits.cpm.r2", b"two", 8), ("cits.cpm.r1", b"three", 9)]
        );
    }

    #[test]
    fn a_message_from_a_stream_is_invoked_as_a_batch_of_one_with_its_sequence() {
        let pulled =
            Delivery { subject: "cits.cpm.r1".into(), payload: Bytes::from_static(b"one"), stream_sequence: Some(5) };
        let (subject, payload) = pulled.invocation();
        assert_eq!(subject, cits::subjects::BATCH);
        let messages = cits::proto::MessageBatch::decode(payload).unwrap().messages;
        assert_eq!(messages, vec![pulled.batched()]);
        assert_eq!((messages[0].subject.as_str(), messages[0].stream_sequence), ("cits.cpm.r1", 5));
        let plain = Delivery { stream_sequence: None, ..pulled };
        assert_eq!(plain.invocation(), (plain.subject.clone(), plain.payload.clone()));
    }

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

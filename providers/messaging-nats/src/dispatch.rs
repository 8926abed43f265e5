//! Delivery of a link's messages to its component: per-subject order, bounded concurrency,
//! retries, dead letters. Independent of wasmCloud, so it is tested natively.

use std::future::Future;
use std::hash::{Hash as _, Hasher as _};
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::Arc;

use bytes::Bytes;
use prost::Message as _;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tracing::{error, warn};

use crate::config::{HandlerConfig, Ordering};

/// Messages waiting per worker before the subscription stops reading (back-pressure to NATS).
const QUEUE_PER_WORKER: usize = 4096;

#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    pub subject: String,
    pub reply_to: Option<String>,
    pub payload: Bytes,
}

/// Where deliveries go: the component, and the dead-letter path for what it never accepted.
pub trait Target: Send + Sync + 'static {
    fn deliver(&self, msg: &Delivery) -> impl Future<Output = Result<(), String>> + Send;
    fn dead_letter(&self, msg: Delivery, reason: String) -> impl Future<Output = ()> + Send;
}

/// A fixed set of workers, each invoking the component for one message at a time. With
/// [`Ordering::Subject`] a subject always goes to the same worker, so its messages are handled
/// in arrival order and never concurrently.
pub struct Dispatcher {
    queues: Vec<mpsc::Sender<Delivery>>,
    workers: Vec<JoinHandle<()>>,
    ordering: Ordering,
    next: AtomicUsize,
}

impl Dispatcher {
    pub fn start<T: Target>(cfg: &HandlerConfig, target: Arc<T>) -> Self {
        let n = cfg.concurrency.max(1);
        let (queues, workers) = (0..n)
            .map(|_| {
                let (tx, rx) = mpsc::channel(QUEUE_PER_WORKER);
                (tx, tokio::spawn(worker(rx, Arc::clone(&target), cfg.clone())))
            })
            .unzip();
        Self { queues, workers, ordering: cfg.ordering, next: AtomicUsize::new(0) }
    }

    fn worker_for(&self, subject: &str) -> usize {
        match self.ordering {
            Ordering::Subject => {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                subject.hash(&mut h);
                (h.finish() % self.queues.len() as u64) as usize
            }
            Ordering::None => self.next.fetch_add(1, AtomicOrdering::Relaxed) % self.queues.len(),
        }
    }

    /// Queues a message; waits while its worker's queue is full.
    pub async fn submit(&self, msg: Delivery) {
        let i = self.worker_for(&msg.subject);
        if self.queues[i].send(msg).await.is_err() {
            error!("delivery worker {i} stopped; message dropped");
        }
    }
}

impl Drop for Dispatcher {
    fn drop(&mut self) {
        for w in &self.workers {
            w.abort();
        }
    }
}

async fn worker<T: Target>(mut rx: mpsc::Receiver<Delivery>, target: Arc<T>, cfg: HandlerConfig) {
    while let Some(first) = rx.recv().await {
        // What queued up while the component was busy goes along, in arrival order: under load
        // one invocation (and one state read and write in the component) serves several messages;
        // when idle a message goes alone, without waiting for company.
        let mut queued = vec![first];
        while queued.len() < cfg.batch_max {
            match rx.try_recv() {
                Ok(next) => queued.push(next),
                Err(_) => break,
            }
        }
        let delivery = if queued.len() == 1 { queued.pop().expect("one message") } else { batch(&queued) };
        let mut attempt = 1;
        loop {
            // Our own deadline: a lost invocation must not hold its subject forever.
            let result = tokio::time::timeout(cfg.invocation_timeout, target.deliver(&delivery))
                .await
                .unwrap_or_else(|_| Err(format!("no result within {} ms", cfg.invocation_timeout.as_millis())));
            match result {
                Ok(()) => break,
                Err(reason) if attempt >= cfg.max_attempts => {
                    let reason = format!("not delivered after {attempt} attempts: {reason}");
                    error!(subject = %delivery.subject, %reason, "dead letter");
                    // Each message of a batch becomes its own dead letter, as it arrived.
                    let messages = if queued.is_empty() { vec![delivery] } else { queued };
                    for msg in messages {
                        target.dead_letter(msg, reason.clone()).await;
                    }
                    break;
                }
                Err(reason) => {
                    warn!(subject = %delivery.subject, attempt, %reason, "delivery failed, retrying");
                    tokio::time::sleep(cfg.retry_backoff * 2u32.pow(attempt - 1)).await;
                    attempt += 1;
                }
            }
        }
    }
}

/// Several messages as one delivery on [`cits::subjects::BATCH`].
fn batch(messages: &[Delivery]) -> Delivery {
    let batch = cits::proto::MessageBatch {
        messages: messages
            .iter()
            .map(|m| cits::proto::BatchedMessage { subject: m.subject.clone(), body: m.payload.to_vec() })
            .collect(),
    };
    Delivery { subject: cits::subjects::BATCH.to_string(), reply_to: None, payload: Bytes::from(batch.encode_to_vec()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::sync::Mutex;
    use std::time::Duration;

    /// Records deliveries; never answers the first attempt of payloads starting with "lost";
    /// fails the first `fail_first` attempts of payloads starting with "flaky",
    /// always fails payloads starting with "poison", and flags any overlap within one subject.
    #[derive(Default)]
    struct Recorder {
        delivered: Mutex<Vec<Delivery>>,
        attempts: Mutex<HashMap<Bytes, u32>>,
        busy: Mutex<HashMap<String, bool>>,
        overlaps: AtomicUsize,
        dead: Mutex<Vec<(Delivery, String)>>,
        fail_first: u32,
    }

    impl Target for Recorder {
        async fn deliver(&self, msg: &Delivery) -> Result<(), String> {
            if self.busy.lock().unwrap().insert(msg.subject.clone(), true) == Some(true) {
                self.overlaps.fetch_add(1, AtomicOrdering::SeqCst);
            }
            tokio::time::sleep(Duration::from_micros(200)).await;
            self.busy.lock().unwrap().insert(msg.subject.clone(), false);
            let n = {
                let mut a = self.attempts.lock().unwrap();
                let n = a.entry(msg.payload.clone()).or_default();
                *n += 1;
                *n
            };
            if msg.payload.starts_with(b"lost") && n == 1 {
                std::future::pending::<()>().await;
            }
            if payloads(msg).iter().any(|p| p.starts_with(b"poison")) {
                return Err("component trapped".into());
            }
            if msg.payload.starts_with(b"flaky") && n <= self.fail_first {
                return Err("invocation timed out".into());
            }
            self.delivered.lock().unwrap().push(msg.clone());
            Ok(())
        }

        async fn dead_letter(&self, msg: Delivery, reason: String) {
            self.dead.lock().unwrap().push((msg, reason));
        }
    }

    /// The messages a delivery carries (a batch's, or itself).
    fn payloads(d: &Delivery) -> Vec<Bytes> {
        if d.subject == cits::subjects::BATCH {
            let batch = cits::proto::MessageBatch::decode(d.payload.as_ref()).unwrap();
            batch.messages.into_iter().map(|m| Bytes::from(m.body)).collect()
        } else {
            vec![d.payload.clone()]
        }
    }

    fn msg(subject: &str, payload: String) -> Delivery {
        Delivery { subject: subject.into(), reply_to: None, payload: Bytes::from(payload) }
    }

    fn cfg(concurrency: usize, ordering: Ordering) -> HandlerConfig {
        HandlerConfig { concurrency, ordering, retry_backoff: Duration::from_millis(1), ..Default::default() }
    }

    async fn drain(rec: &Recorder, expected: usize) {
        for _ in 0..2000 {
            if rec.delivered.lock().unwrap().len() + rec.dead.lock().unwrap().len() >= expected {
                return;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        panic!("deliveries did not finish");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn each_subject_is_delivered_in_order_and_never_concurrently() {
        let rec = Arc::new(Recorder::default());
        let d = Dispatcher::start(&cfg(3, Ordering::Subject), Arc::clone(&rec));
        let subjects = ["cits.cpm.a", "cits.cpm.b", "cits.cpm.c", "cits.cpm.d", "cits.cpm.e"];
        for i in 0..100 {
            for s in subjects {
                d.submit(msg(s, format!("{s}:{i}"))).await;
            }
        }
        drain(&rec, 500).await;
        assert_eq!(rec.overlaps.load(AtomicOrdering::SeqCst), 0, "a subject was handled concurrently");
        let delivered = rec.delivered.lock().unwrap();
        for s in subjects {
            let seq: Vec<String> = delivered
                .iter()
                .filter(|m| m.subject == s)
                .map(|m| String::from_utf8(m.payload.to_vec()).unwrap())
                .collect();
            let expected: Vec<String> = (0..100).map(|i| format!("{s}:{i}")).collect();
            assert_eq!(seq, expected, "order of {s}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn subjects_proceed_in_parallel_up_to_the_concurrency() {
        // Without parallelism 4 subjects × 20 messages × ≥200 µs would take ≥ 16 ms per subject
        // serially; the test only checks every message arrives with several workers busy.
        let rec = Arc::new(Recorder::default());
        let d = Dispatcher::start(&cfg(4, Ordering::None), Arc::clone(&rec));
        for i in 0..80 {
            d.submit(msg("cits.cpm.x", format!("{i}"))).await;
        }
        drain(&rec, 80).await;
        assert_eq!(rec.delivered.lock().unwrap().len(), 80);
        // Unordered delivery of one subject does overlap: the opposite of the ordered case.
        assert!(rec.overlaps.load(AtomicOrdering::SeqCst) > 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn what_queued_up_goes_in_one_batch_in_arrival_order() {
        let rec = Arc::new(Recorder::default());
        let d = Dispatcher::start(&HandlerConfig { batch_max: 8, ..cfg(1, Ordering::Subject) }, Arc::clone(&rec));
        for i in 0..40 {
            d.submit(msg("cits.cpm.a", format!("m{i:02}"))).await;
        }
        d.submit(msg("cits.cpm.a", "poison".into())).await;
        for _ in 0..2000 {
            let n: usize = rec.delivered.lock().unwrap().iter().map(|d| payloads(d).len()).sum();
            if n + rec.dead.lock().unwrap().len() >= 41 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let delivered = rec.delivered.lock().unwrap();
        assert!(delivered.len() < 40, "nothing was batched");
        assert!(delivered.iter().all(|d| payloads(d).len() <= 8), "a batch above batch_max");
        // The batch the poison message was in failed as a whole (it may have carried the last
        // good messages too); each of its messages is its own dead letter, with its own subject
        // and payload. Delivered and dead-lettered together: every message once, in order.
        let dead = rec.dead.lock().unwrap();
        assert!(dead.iter().all(|(m, _)| m.subject == "cits.cpm.a"));
        assert_eq!(dead.last().map(|(m, _)| m.payload.clone()), Some(Bytes::from("poison")));
        let all: Vec<Bytes> =
            delivered.iter().flat_map(payloads).chain(dead.iter().map(|(m, _)| m.payload.clone())).collect();
        let mut expected: Vec<Bytes> = (0..40).map(|i| Bytes::from(format!("m{i:02}"))).collect();
        expected.push(Bytes::from("poison"));
        assert_eq!(all, expected);
    }

    #[tokio::test]
    async fn failed_invocations_are_retried_then_dead_lettered_without_blocking_the_subject() {
        let rec = Arc::new(Recorder { fail_first: 2, ..Default::default() });
        let d = Dispatcher::start(&cfg(1, Ordering::Subject), Arc::clone(&rec));
        d.submit(msg("s", "flaky-1".into())).await;
        d.submit(msg("s", "poison-1".into())).await;
        d.submit(msg("s", "ok-1".into())).await;
        drain(&rec, 3).await;
        let delivered: Vec<Bytes> = rec.delivered.lock().unwrap().iter().map(|m| m.payload.clone()).collect();
        assert_eq!(delivered, vec![Bytes::from("flaky-1"), Bytes::from("ok-1")]);
        let dead = rec.dead.lock().unwrap();
        assert_eq!(dead.len(), 1);
        assert_eq!(dead[0].0.payload, Bytes::from("poison-1"));
        assert!(dead[0].1.contains("after 3 attempts") && dead[0].1.contains("trapped"), "{}", dead[0].1);
        assert_eq!(rec.attempts.lock().unwrap()[&Bytes::from("flaky-1")], 3);
    }

    #[tokio::test]
    async fn an_invocation_that_never_answers_is_retried_after_the_timeout() {
        let rec = Arc::new(Recorder::default());
        let cfg = HandlerConfig { invocation_timeout: Duration::from_millis(50), ..cfg(1, Ordering::Subject) };
        let d = Dispatcher::start(&cfg, Arc::clone(&rec));
        d.submit(msg("s", "lost-1".into())).await;
        d.submit(msg("s", "ok-1".into())).await;
        drain(&rec, 2).await;
        let delivered: Vec<Bytes> = rec.delivered.lock().unwrap().iter().map(|m| m.payload.clone()).collect();
        assert_eq!(delivered, vec![Bytes::from("lost-1"), Bytes::from("ok-1")]);
        assert_eq!(rec.attempts.lock().unwrap()[&Bytes::from("lost-1")], 2);
    }
}

//! Attempts at delivering one message to its component: when to retry, when an attempt is over,
//! when to give up and dead-letter. Independent of NATS and wasmCloud, so it is tested natively;
//! [`crate::durable`] feeds it from JetStream.

use std::future::Future;

use bytes::Bytes;
use tracing::warn;

use crate::handler::{HandlerConfig, MAX_BACKOFF};

pub use cits::message::UNAVAILABLE;

/// Why an attempt did not succeed.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The component answered with this error.
    Refused(String),
    /// No answer from the component: the transport or its host failed (a host killed mid-call
    /// ends the call with "incomplete results"), or the host reported that the invocation
    /// itself failed (a trap).
    NoAnswer(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    /// The subject the message was published on (not the partitioned subject it is stored under).
    pub subject: String,
    pub payload: Bytes,
    /// Where the stage's input stream stored it (`None`: not from a stream, or a batch).
    pub stream_sequence: Option<u64>,
}

impl Delivery {
    /// What the component is called with: a message from a stream as a [`cits::subjects::BATCH`]
    /// of one that carries its stream sequence (a dead letter's id needs it); anything else as
    /// it is.
    pub fn invocation(&self) -> (String, Bytes) {
        match self.stream_sequence {
            Some(_) if self.subject != cits::subjects::BATCH => {
                let batch = cits::proto::MessageBatch { messages: vec![self.batched()] };
                (cits::subjects::BATCH.to_string(), Bytes::from(prost::Message::encode_to_vec(&batch)))
            }
            _ => (self.subject.clone(), self.payload.clone()),
        }
    }

    /// This message as one of a batch.
    pub fn batched(&self) -> cits::proto::BatchedMessage {
        cits::proto::BatchedMessage {
            subject: self.subject.clone(),
            body: self.payload.to_vec(),
            stream_sequence: self.stream_sequence.unwrap_or(0),
            ..Default::default()
        }
    }
}

/// Where deliveries go: the component, and the dead-letter path for what it never accepted.
pub trait Target: Send + Sync + 'static {
    /// One invocation; its future may be dropped at the attempt deadline.
    fn deliver(&self, msg: &Delivery) -> impl Future<Output = Result<(), Failure>> + Send;
    /// Stores the dead letter (JetStream, acknowledged) or fails.
    fn dead_letter(&self, msg: &Delivery, reason: &str) -> impl Future<Output = Result<(), String>> + Send;
}

/// Delivers `msg` until the component accepts it (`Ok`) or gives up (`Err(reason)` for the dead
/// letter): after `max_attempts` refusals by the component, or `max_unanswered` attempts without
/// an answer. The two are counted apart because a host or provider dying takes every call it had
/// in flight with it — that says nothing about the message, and a few crashes in a row must not
/// dead-letter good frames — while a message that kills or traps its handler every time must
/// still end in the dead letters. `earlier_deliveries` are JetStream redeliveries (the puller that
/// had the message died): unanswered attempts. `keep_alive` is called before each retry (a
/// JetStream progress acknowledgement, so the message is not redelivered to another puller
/// meanwhile).
///
/// An attempt is over when the component answered or when [`HandlerConfig::attempt_deadline`]
/// passed — the host cancels an invocation at its execution limit, so after that no attempt of
/// this message is still running anywhere and the next one cannot overlap it.
pub async fn attempt<T, K, F>(
    target: &T,
    msg: &Delivery,
    cfg: &HandlerConfig,
    earlier_deliveries: u32,
    mut keep_alive: K,
) -> Result<(), String>
where
    T: Target,
    K: FnMut() -> F,
    F: Future<Output = ()>,
{
    attempt_with_deadline(target, msg, cfg, cfg.attempt_deadline(), earlier_deliveries, &mut keep_alive).await
}

async fn attempt_with_deadline<T, K, F>(
    target: &T,
    msg: &Delivery,
    cfg: &HandlerConfig,
    deadline: std::time::Duration,
    earlier_deliveries: u32,
    keep_alive: &mut K,
) -> Result<(), String>
where
    T: Target,
    K: FnMut() -> F,
    F: Future<Output = ()>,
{
    let (mut refused, mut unanswered) = (0u32, earlier_deliveries);
    let mut waits = 0u32;
    loop {
        let reason = match tokio::time::timeout(deadline, target.deliver(msg)).await {
            Ok(Ok(())) => return Ok(()),
            Ok(Err(Failure::Refused(e))) if e.starts_with(UNAVAILABLE) => e,
            Ok(Err(Failure::Refused(e))) => {
                refused += 1;
                e
            }
            Ok(Err(Failure::NoAnswer(e))) => {
                unanswered += 1;
                e
            }
            Err(_) => {
                unanswered += 1;
                format!("no result within {} ms", deadline.as_millis())
            }
        };
        if refused >= cfg.max_attempts {
            return Err(format!("refused {refused} times: {reason}"));
        }
        if unanswered >= cfg.max_unanswered {
            return Err(format!("no answer in {unanswered} attempts: {reason}"));
        }
        let backoff = cfg.retry_backoff.saturating_mul(2u32.saturating_pow(waits)).min(MAX_BACKOFF);
        warn!(subject = %msg.subject, refused, unanswered, ?backoff, %reason, "delivery failed, retrying");
        keep_alive().await;
        tokio::time::sleep(backoff).await;
        keep_alive().await;
        waits += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    /// A component on a simulated host: an invocation keeps running until it finishes or the
    /// host's limit cancels it — whether or not the provider is still waiting for it.
    struct Host {
        limit: Duration,
        /// How long each attempt of a payload takes (last entry repeats), and what it returns.
        script: HashMap<Bytes, Vec<(Duration, Result<(), String>)>>,
        attempts: Mutex<HashMap<Bytes, usize>>,
        running: Arc<AtomicUsize>,
        overlaps: Arc<AtomicUsize>,
        dead: Mutex<Vec<String>>,
    }

    impl Host {
        fn new(limit: Duration) -> Self {
            Self {
                limit,
                script: HashMap::new(),
                attempts: Mutex::default(),
                running: Arc::default(),
                overlaps: Arc::default(),
                dead: Mutex::default(),
            }
        }

        fn script(mut self, payload: &str, steps: Vec<(u64, Result<(), &str>)>) -> Self {
            let steps = steps.into_iter().map(|(ms, r)| (Duration::from_millis(ms), r.map_err(String::from))).collect();
            self.script.insert(Bytes::from(payload.to_string()), steps);
            self
        }

        fn attempts(&self, payload: &str) -> usize {
            self.attempts.lock().unwrap().get(payload.as_bytes()).copied().unwrap_or(0)
        }
    }

    impl Target for Host {
        async fn deliver(&self, msg: &Delivery) -> Result<(), Failure> {
            let n = {
                let mut a = self.attempts.lock().unwrap();
                let n = a.entry(msg.payload.clone()).or_default();
                *n += 1;
                *n
            };
            let steps = &self.script[&msg.payload];
            let (takes, result) = steps[(n - 1).min(steps.len() - 1)].clone();
            // The execution itself, on the host: runs on after the provider stops waiting.
            if self.running.fetch_add(1, Ordering::SeqCst) > 0 {
                self.overlaps.fetch_add(1, Ordering::SeqCst);
            }
            let (running, limit) = (Arc::clone(&self.running), self.limit);
            let (tx, rx) = tokio::sync::oneshot::channel();
            tokio::spawn(async move {
                let finished = tokio::time::timeout(limit, tokio::time::sleep(takes)).await.is_ok();
                running.fetch_sub(1, Ordering::SeqCst);
                let _ = tx.send(if finished { result } else { Err("host: execution limit reached".into()) });
            });
            // A reply that never comes (the lost wRPC replies seen under load): wait forever.
            if takes >= limit {
                std::future::pending::<()>().await;
            }
            match rx.await {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) if e.starts_with("host:") => Err(Failure::NoAnswer(e)),
                Ok(Err(e)) => Err(Failure::Refused(e)),
                Err(_) => Err(Failure::NoAnswer("host gone".into())),
            }
        }

        async fn dead_letter(&self, _msg: &Delivery, reason: &str) -> Result<(), String> {
            self.dead.lock().unwrap().push(reason.to_string());
            Ok(())
        }
    }

    fn msg(payload: &str) -> Delivery {
        Delivery { subject: "cits.cpm.r1".into(), payload: Bytes::from(payload.to_string()), stream_sequence: None }
    }

    fn cfg(limit_ms: u64) -> HandlerConfig {
        HandlerConfig {
            host_execution_limit: Duration::from_millis(limit_ms),
            retry_backoff: Duration::from_millis(1),
            ..Default::default()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_retry_never_starts_while_the_previous_attempt_may_still_run() {
        // Every attempt runs into the host's limit and its reply is lost.
        let host = Host::new(Duration::from_millis(200)).script("stuck", vec![(10_000, Ok(()))]);
        let keep_alives = AtomicUsize::new(0);
        let cfg = cfg(200);
        let result = attempt(&host, &msg("stuck"), &cfg, 0, || {
            keep_alives.fetch_add(1, Ordering::SeqCst);
            async {}
        })
        .await;
        assert!(result.unwrap_err().contains("no answer in 10 attempts"));
        assert_eq!(host.attempts("stuck"), 10);
        assert_eq!(host.overlaps.load(Ordering::SeqCst), 0, "two attempts of one message ran at once");
        assert_eq!(keep_alives.load(Ordering::SeqCst), 18, "progress acknowledged around each back-off");
    }

    #[tokio::test(start_paused = true)]
    async fn a_deadline_shorter_than_the_hosts_limit_would_overlap_attempts() {
        // The same situation with the provider giving up before the host does: the next attempt
        // starts while the previous one still runs. This is what the attempt deadline prevents.
        let host = Host::new(Duration::from_millis(200)).script("stuck", vec![(10_000, Ok(()))]);
        let cfg = cfg(200);
        let result =
            attempt_with_deadline(&host, &msg("stuck"), &cfg, Duration::from_millis(50), 0, &mut || async {}).await;
        assert!(result.is_err());
        assert!(host.overlaps.load(Ordering::SeqCst) > 0);
    }

    #[tokio::test(start_paused = true)]
    async fn refusals_are_retried_and_dead_lettered_after_max_attempts() {
        let host = Host::new(Duration::from_secs(2)).script("flaky", vec![(1, Err("bad state")), (1, Ok(()))]);
        assert_eq!(attempt(&host, &msg("flaky"), &cfg(2000), 0, || async {}).await, Ok(()));
        assert_eq!(host.attempts("flaky"), 2);
        let host = Host::new(Duration::from_secs(2)).script("poison", vec![(1, Err("bad state"))]);
        let err = attempt(&host, &msg("poison"), &cfg(2000), 0, || async {}).await.unwrap_err();
        assert_eq!(host.attempts("poison"), 3);
        assert!(err.contains("refused 3 times: bad state"), "{err}");
    }

    #[tokio::test(start_paused = true)]
    async fn crashes_around_a_good_message_do_not_dead_letter_it() {
        // Redelivered three times already (its pullers died), then its host dies twice more
        // mid-call: still delivered, as a message that merely met crashes must be.
        let steps = vec![(1, Err("host: incomplete results")), (1, Err("host: incomplete results")), (1, Ok(()))];
        let host = Host::new(Duration::from_secs(2)).script("good", steps);
        assert_eq!(attempt(&host, &msg("good"), &cfg(2000), 3, || async {}).await, Ok(()));
        assert_eq!(host.attempts("good"), 3);
        // A message that takes its handler down every time still ends as a dead letter,
        // its redeliveries counted.
        let host = Host::new(Duration::from_secs(2)).script("killer", vec![(1, Err("host: wasm trap"))]);
        let err = attempt(&host, &msg("killer"), &cfg(2000), 7, || async {}).await.unwrap_err();
        assert_eq!(host.attempts("killer"), 3);
        assert!(err.contains("no answer in 10 attempts: host: wasm trap"), "{err}");
    }

    #[tokio::test(start_paused = true)]
    async fn an_unavailable_service_waits_without_counting_towards_the_dead_letter() {
        let mut steps = vec![(1, Err("unavailable: pipeline: key-value get-many failed")); 20];
        steps.push((1, Ok(())));
        let host = Host::new(Duration::from_secs(2)).script("good", steps);
        assert_eq!(attempt(&host, &msg("good"), &cfg(2000), 0, || async {}).await, Ok(()));
        assert_eq!(host.attempts("good"), 21);
    }
}

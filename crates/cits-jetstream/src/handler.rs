//! How a handler link delivers: its keys (the table in providers/messaging-nats/README.md), read
//! from the link's source config by the provider and from the manifest by the native baseline.

use std::collections::HashMap;
use std::time::Duration;

/// Added to the host's execution limit before an attempt counts as over: the host cancels an
/// invocation at its limit, so after limit + grace the attempt is no longer running anywhere.
pub const ATTEMPT_GRACE: Duration = Duration::from_millis(500);

/// Longest wait between two attempts of one message.
pub const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// How a provider → component link delivers (source config of a handler link).
#[derive(Debug, Clone, PartialEq)]
pub struct HandlerConfig {
    /// Stage-input subjects (`cits.<kind>.*`), each kept in its partitioned JetStream stream.
    pub subscriptions: Vec<String>,
    /// Durable consumer name prefix (`<durable>-<partition>`); links that share it share the
    /// position in the stream (the seven-actor and the fused deployment's CPM input).
    pub durable: Option<String>,
    /// Invocations in flight at once for this link, on this provider copy (keep ≤ the
    /// component's `instances`); at most one per partition.
    pub concurrency: usize,
    /// Attempts of one message the component refused (answered with an error) before it is
    /// dead-lettered. A refusal because a service was unavailable does not count: it waits.
    pub max_attempts: u32,
    /// Attempts without an answer (host or transport failed, trap, nothing by the deadline;
    /// JetStream redeliveries included) before the message is dead-lettered.
    pub max_unanswered: u32,
    /// Wait before the first retry, doubled for each further one, at most [`MAX_BACKOFF`].
    pub retry_backoff: Duration,
    /// The host's execution limit for one invocation (`WASMCLOUD_MAX_EXECUTION_TIME_MS`).
    pub host_execution_limit: Duration,
    /// Redelivery of an unacknowledged message after its provider copy died.
    pub ack_wait: Duration,
    /// Most messages one invocation carries: when a partition has a backlog, the messages stored
    /// after the one pulled are read ahead and delivered with it in one batch (1: never).
    pub batch_max: usize,
    /// Stage whose dead-letter subject (`cits.dlq.<stage>`) receives undeliverable messages.
    pub dead_letter_stage: String,
}

impl Default for HandlerConfig {
    fn default() -> Self {
        Self {
            subscriptions: Vec::new(),
            durable: None,
            concurrency: 4,
            max_attempts: 3,
            max_unanswered: 10,
            retry_backoff: Duration::from_millis(50),
            host_execution_limit: Duration::from_secs(10),
            ack_wait: Duration::from_secs(30),
            batch_max: 16,
            dead_letter_stage: String::new(),
        }
    }
}

impl HandlerConfig {
    /// When an attempt is surely over: the host's limit plus [`ATTEMPT_GRACE`]. A retry never
    /// starts before, so two attempts of one message (one RSU) never run at once.
    pub fn attempt_deadline(&self) -> Duration {
        self.host_execution_limit + ATTEMPT_GRACE
    }

    /// Reads the handler keys; unknown keys are ignored (the same map carries `cluster_uris`),
    /// invalid values of known keys are errors so a typo never falls back to a default.
    pub fn from_map(values: &HashMap<String, String>) -> Result<Self, String> {
        let mut cfg = HandlerConfig::default();
        if let Some(subs) = lookup(values, "subscriptions") {
            cfg.subscriptions = list(subs);
        }
        for gone in ["ordering", "invocation_timeout_ms"] {
            if lookup(values, gone).is_some() {
                return Err(format!(
                    "`{gone}` is no longer a setting: delivery is ordered per RSU partition, one invocation at a time, \
                     and an attempt lasts the host's limit (`host_execution_limit_ms`)"
                ));
            }
        }
        let positive = |key: &str| -> Result<Option<u64>, String> {
            lookup(values, key)
                .map(|v| {
                    v.trim()
                        .parse::<u64>()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| format!("`{key}` must be a positive integer, got `{v}`"))
                })
                .transpose()
        };
        if let Some(n) = positive("concurrency")? {
            cfg.concurrency = n as usize;
        }
        if let Some(n) = positive("batch_max")? {
            if n as usize > cits::pipeline::MAX_BATCH {
                return Err(format!(
                    "`batch_max` must be at most {} (the inputs a stage recognises as applied), got {n}",
                    cits::pipeline::MAX_BATCH
                ));
            }
            cfg.batch_max = n as usize;
        }
        if let Some(n) = positive("max_attempts")? {
            cfg.max_attempts = n as u32;
        }
        if let Some(n) = positive("max_unanswered")? {
            cfg.max_unanswered = n as u32;
        }
        if let Some(ms) = positive("retry_backoff_ms")? {
            cfg.retry_backoff = Duration::from_millis(ms);
        }
        if let Some(ms) = positive("host_execution_limit_ms")? {
            cfg.host_execution_limit = Duration::from_millis(ms);
        }
        cfg.ack_wait = match positive("ack_wait_ms")? {
            Some(ms) => Duration::from_millis(ms),
            // Progress is acknowledged before each attempt and each back-off.
            None => cfg.attempt_deadline().max(MAX_BACKOFF) + Duration::from_secs(5),
        };
        if cfg.ack_wait <= cfg.attempt_deadline().max(MAX_BACKOFF) {
            return Err(format!(
                "`ack_wait_ms` ({} ms) must exceed an attempt ({} ms) and the longest back-off ({} ms): \
                 a message would be redelivered while it is still being handled",
                cfg.ack_wait.as_millis(),
                cfg.attempt_deadline().as_millis(),
                MAX_BACKOFF.as_millis()
            ));
        }
        cfg.durable = lookup(values, "durable").map(|s| s.trim().to_string());
        cfg.dead_letter_stage = lookup(values, "dead_letter_stage")
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .ok_or("`dead_letter_stage` is required: a message that cannot be delivered must go somewhere")?;
        for s in &cfg.subscriptions {
            if crate::stage_input(s).is_none() {
                return Err(format!("`{s}` is not a stage input kept in JetStream (see crates/cits-jetstream)"));
            }
        }
        Ok(cfg)
    }
}

/// The durable consumer name prefix of a handler link without a `durable` entry: one per link
/// (`<component id>-<link name>`). Whatever serves the link's stage instead (the native baseline)
/// must use the same: a stage input allows one consumer per partition.
pub fn default_durable(component_id: &str, link_name: &str) -> String {
    format!("{component_id}-{link_name}")
}

/// Case-insensitive lookup (wadm and wash keep keys as written).
pub fn lookup<'a>(values: &'a HashMap<String, String>, key: &str) -> Option<&'a str> {
    values.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.as_str())
}

pub fn list(value: &str) -> Vec<String> {
    value.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn handler_keys_are_read_with_defaults_for_the_rest() {
        let cfg = HandlerConfig::from_map(&map(&[
            ("subscriptions", "cits.cpm.*"),
            ("CONCURRENCY", "8"),
            ("dead_letter_stage", "decoder"),
            ("host_execution_limit_ms", "2000"),
            ("max_unanswered", "20"),
        ]))
        .unwrap();
        assert_eq!(cfg.subscriptions, vec!["cits.cpm.*".to_string()]);
        assert_eq!(cfg.concurrency, 8);
        assert_eq!(cfg.max_attempts, 3);
        assert_eq!(cfg.max_unanswered, 20);
        assert_eq!(cfg.dead_letter_stage, "decoder");
        assert_eq!(cfg.attempt_deadline(), Duration::from_millis(2500));
        assert!(cfg.ack_wait > cfg.attempt_deadline().max(MAX_BACKOFF));
    }

    #[test]
    fn invalid_values_are_errors_not_defaults() {
        let with = |pairs: &[(&str, &str)]| {
            let mut all = vec![("dead_letter_stage", "decoder"), ("subscriptions", "cits.cpm.*")];
            all.extend_from_slice(pairs);
            HandlerConfig::from_map(&map(&all))
        };
        assert!(with(&[]).is_ok());
        assert!(with(&[("concurrency", "0")]).is_err());
        assert!(with(&[("max_attempts", "three")]).is_err());
        assert!(with(&[("max_unanswered", "0")]).is_err());
        assert!(with(&[("ordering", "subject")]).is_err(), "a removed key is not silently ignored");
        assert_eq!(with(&[("batch_max", "64")]).unwrap().batch_max, 64);
        assert!(with(&[("batch_max", "65")]).unwrap_err().contains("at most 64"));
        assert!(with(&[("subscriptions", "cits.denm.*")]).is_err(), "not a stage input");
        assert!(with(&[("ack_wait_ms", "3000"), ("host_execution_limit_ms", "2000")])
            .unwrap_err()
            .contains("redelivered"));
        assert!(HandlerConfig::from_map(&map(&[("subscriptions", "cits.cpm.*")])).is_err(), "no dead-letter stage");
    }
}

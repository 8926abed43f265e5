//! Provider and link configuration (the table in README.md).

use std::collections::HashMap;
use std::time::Duration;

pub const DEFAULT_CLUSTER_URI: &str = "nats://127.0.0.1:4222";

/// Where to reach NATS: from the provider config, overridable per link.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectionConfig {
    pub cluster_uris: Vec<String>,
}

impl Default for ConnectionConfig {
    fn default() -> Self {
        Self { cluster_uris: vec![DEFAULT_CLUSTER_URI.to_string()] }
    }
}

impl ConnectionConfig {
    pub fn from_map(values: &HashMap<String, String>, base: &ConnectionConfig) -> Result<Self, String> {
        let mut cfg = base.clone();
        if let Some(uris) = lookup(values, "cluster_uris") {
            cfg.cluster_uris = list(uris);
            if cfg.cluster_uris.is_empty() {
                return Err("`cluster_uris` is empty".into());
            }
        }
        Ok(cfg)
    }
}

/// In which order a link's messages reach the component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ordering {
    /// Messages of one subject one after the other, in arrival order; subjects in parallel.
    Subject,
    /// Any order: spread over the workers as they come.
    None,
}

/// How a provider → component link delivers (source config of a handler link).
#[derive(Debug, Clone, PartialEq)]
pub struct HandlerConfig {
    /// (subject, queue group).
    pub subscriptions: Vec<(String, Option<String>)>,
    pub ordering: Ordering,
    /// Invocations in flight at once for this link (keep ≤ the component's `instances`).
    pub concurrency: usize,
    /// Invocations of one message before it becomes a dead letter.
    pub max_attempts: u32,
    /// Wait before the first retry, doubled for each further one.
    pub retry_backoff: Duration,
    pub invocation_timeout: Duration,
    /// Stage whose dead-letter subject (`cits.dlq.<stage>`) receives undeliverable messages;
    /// without it they are logged and dropped.
    pub dead_letter_stage: Option<String>,
    /// Most messages one invocation carries: what queued up for a worker while the component was
    /// busy goes in one [`cits::proto::MessageBatch`] (1 = one message per invocation).
    pub batch_max: usize,
}

impl Default for HandlerConfig {
    fn default() -> Self {
        Self {
            subscriptions: Vec::new(),
            ordering: Ordering::Subject,
            concurrency: 4,
            max_attempts: 3,
            retry_backoff: Duration::from_millis(50),
            invocation_timeout: Duration::from_secs(10),
            dead_letter_stage: None,
            batch_max: 1,
        }
    }
}

impl HandlerConfig {
    /// Reads the handler keys; unknown keys are ignored (the same map carries `cluster_uris`),
    /// invalid values of known keys are errors so a typo never falls back to a default.
    pub fn from_map(values: &HashMap<String, String>) -> Result<Self, String> {
        let mut cfg = HandlerConfig::default();
        if let Some(subs) = lookup(values, "subscriptions") {
            cfg.subscriptions = list(subs)
                .into_iter()
                .map(|s| match s.split_once('|') {
                    Some((subject, queue)) => (subject.trim().to_string(), Some(queue.trim().to_string())),
                    None => (s, None),
                })
                .collect();
        }
        if let Some(v) = lookup(values, "ordering") {
            cfg.ordering = match v.trim() {
                "subject" => Ordering::Subject,
                "none" => Ordering::None,
                other => return Err(format!("`ordering` must be `subject` or `none`, got `{other}`")),
            };
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
        if let Some(n) = positive("max_attempts")? {
            cfg.max_attempts = n as u32;
        }
        if let Some(ms) = positive("retry_backoff_ms")? {
            cfg.retry_backoff = Duration::from_millis(ms);
        }
        if let Some(ms) = positive("invocation_timeout_ms")? {
            cfg.invocation_timeout = Duration::from_millis(ms);
        }
        if let Some(n) = positive("batch_max")? {
            cfg.batch_max = n as usize;
        }
        cfg.dead_letter_stage = lookup(values, "dead_letter_stage").map(|s| s.trim().to_string());
        Ok(cfg)
    }
}

/// Case-insensitive lookup (wadm and wash keep keys as written).
fn lookup<'a>(values: &'a HashMap<String, String>, key: &str) -> Option<&'a str> {
    values.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.as_str())
}

fn list(value: &str) -> Vec<String> {
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
            ("subscriptions", "cits.cpm.*, cits.x|workers"),
            ("CONCURRENCY", "8"),
            ("dead_letter_stage", "decoder"),
        ]))
        .unwrap();
        assert_eq!(cfg.subscriptions, vec![("cits.cpm.*".into(), None), ("cits.x".into(), Some("workers".into()))]);
        assert_eq!(cfg.concurrency, 8);
        assert_eq!(cfg.ordering, Ordering::Subject);
        assert_eq!(cfg.max_attempts, 3);
        assert_eq!(cfg.dead_letter_stage.as_deref(), Some("decoder"));
    }

    #[test]
    fn invalid_values_are_errors_not_defaults() {
        assert!(HandlerConfig::from_map(&map(&[("concurrency", "0")])).is_err());
        assert!(HandlerConfig::from_map(&map(&[("max_attempts", "three")])).is_err());
        assert!(HandlerConfig::from_map(&map(&[("ordering", "random")])).is_err());
        assert!(ConnectionConfig::from_map(&map(&[("cluster_uris", " , ")]), &ConnectionConfig::default()).is_err());
    }

    #[test]
    fn link_uris_override_the_provider_default() {
        let base = ConnectionConfig::default();
        let cfg = ConnectionConfig::from_map(&map(&[("cluster_uris", "nats://10.0.0.1:4222")]), &base).unwrap();
        assert_eq!(cfg.cluster_uris, vec!["nats://10.0.0.1:4222".to_string()]);
        assert_eq!(ConnectionConfig::from_map(&map(&[]), &base).unwrap(), base);
    }
}

//! Where the provider reaches NATS (the table in README.md); a handler link's delivery keys are
//! read by [`cits_jetstream::handler::HandlerConfig`].

use std::collections::HashMap;

use cits_jetstream::handler::{list, lookup};

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

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn an_empty_server_list_is_an_error() {
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

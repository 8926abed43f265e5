//! What the pages see: the latest snapshot of each topic (lattice, app, pipeline, intersection)
//! and a stream of updates. A page that connects gets every snapshot first, then the updates, so
//! nothing is loaded once and left to go stale.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use tokio::sync::broadcast;

/// One update for the pages: a topic and its JSON.
#[derive(Clone, Debug)]
pub struct Update {
    pub topic: &'static str,
    pub json: Arc<str>,
}

#[derive(Clone)]
pub struct Hub {
    latest: Arc<Mutex<BTreeMap<&'static str, Arc<str>>>>,
    updates: broadcast::Sender<Update>,
}

impl Default for Hub {
    fn default() -> Self {
        Self::new()
    }
}

impl Hub {
    pub fn new() -> Self {
        // A slow page that falls this far behind skips to the newest snapshots (see `subscribe`).
        let (updates, _) = broadcast::channel(1024);
        Self { latest: Arc::default(), updates }
    }

    /// Replaces `topic`'s snapshot and tells the pages.
    pub fn publish(&self, topic: &'static str, value: &impl Serialize) {
        match serde_json::to_string(value) {
            Ok(json) => {
                let json: Arc<str> = json.into();
                self.latest.lock().expect("hub lock").insert(topic, json.clone());
                let _ = self.updates.send(Update { topic, json });
            }
            Err(e) => tracing::error!("cannot serialise {topic}: {e}"),
        }
    }

    /// An event that is not a snapshot (a dead letter, a DENM): pages append it.
    pub fn event(&self, topic: &'static str, value: &impl Serialize) {
        if let Ok(json) = serde_json::to_string(value) {
            let _ = self.updates.send(Update { topic, json: json.into() });
        }
    }

    pub fn snapshot(&self, topic: &str) -> Option<Arc<str>> {
        self.latest.lock().expect("hub lock").get(topic).cloned()
    }

    /// Every snapshot now, and the updates from here on.
    pub fn subscribe(&self) -> (Vec<Update>, broadcast::Receiver<Update>) {
        let latest = self.latest.lock().expect("hub lock");
        let rx = self.updates.subscribe();
        let now = latest.iter().map(|(topic, json)| Update { topic, json: json.clone() }).collect();
        (now, rx)
    }

    /// The snapshots again, for a page that lagged behind the update stream.
    pub fn snapshots(&self) -> Vec<Update> {
        self.latest.lock().expect("hub lock").iter().map(|(topic, json)| Update { topic, json: json.clone() }).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_page_gets_the_latest_snapshot_then_updates() {
        let hub = Hub::new();
        hub.publish("lattice", &serde_json::json!({"hosts": 1}));
        hub.publish("lattice", &serde_json::json!({"hosts": 2}));
        let (now, mut rx) = hub.subscribe();
        assert_eq!(now.len(), 1);
        assert_eq!(&*now[0].json, r#"{"hosts":2}"#);
        hub.event("dlq", &serde_json::json!({"stage": "decoder"}));
        let next = rx.try_recv().unwrap();
        assert_eq!(next.topic, "dlq");
        // Events are not snapshots: a later page does not get them.
        assert!(hub.snapshot("dlq").is_none());
    }
}

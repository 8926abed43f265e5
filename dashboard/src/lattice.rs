//! The Lattice page: hosts, what runs on each, links and named config, and the lattice's event
//! log. Rebuilt from the control interface whenever the lattice says something changed (its
//! events), and every few seconds for uptimes; never loaded once and left.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use futures::StreamExt as _;
use serde::Serialize;
use wasmcloud_control_interface::Client as Ctl;

use crate::hub::Hub;

#[derive(Serialize, Debug, Default)]
pub struct LatticeView {
    pub lattice: String,
    pub hosts: Vec<HostView>,
    pub links: Vec<LinkView>,
    /// Named config: name → its entries (as the hosts hold them).
    pub config: BTreeMap<String, BTreeMap<String, String>>,
    /// Newest first.
    pub events: Vec<EventView>,
    pub refreshed_at_ms: u64,
    pub error: Option<String>,
}

#[derive(Serialize, Debug)]
pub struct HostView {
    pub id: String,
    pub name: String,
    pub version: String,
    pub uptime: String,
    pub uptime_seconds: u64,
    pub labels: BTreeMap<String, String>,
    pub components: Vec<InstanceView>,
    pub providers: Vec<InstanceView>,
}

#[derive(Serialize, Debug)]
pub struct InstanceView {
    pub id: String,
    pub name: String,
    pub image: String,
    /// Components: how many invocations may run at once on this host. Providers: 1.
    pub instances: u32,
    /// The wadm application that manages it (annotation), if any.
    pub app: Option<String>,
}

#[derive(Serialize, Debug)]
pub struct LinkView {
    pub source: String,
    pub target: String,
    pub name: String,
    pub interface: String,
    pub source_config: Vec<String>,
    pub target_config: Vec<String>,
}

#[derive(Serialize, Debug, Clone)]
pub struct EventView {
    pub time: String,
    pub kind: String,
    pub summary: String,
}

const EVENT_LOG: usize = 200;

/// One lattice event (a CloudEvent on `wasmbus.evt.<lattice>.<type>`) for the log.
pub fn event_view(payload: &[u8]) -> Option<EventView> {
    let v: serde_json::Value = serde_json::from_slice(payload).ok()?;
    let kind = v.get("type")?.as_str()?.trim_start_matches("com.wasmcloud.lattice.").to_string();
    let time = v.get("time").and_then(|t| t.as_str()).unwrap_or_default().to_string();
    let data = v.get("data").cloned().unwrap_or_default();
    let field = |k: &str| data.get(k).and_then(|x| x.as_str()).map(str::to_string);
    let mut parts = Vec::new();
    for key in ["component_id", "provider_id", "source_id", "target", "name", "config_name", "image_ref"] {
        if let Some(value) = field(key) {
            parts.push(format!("{key}={value}"));
        }
    }
    if let Some(n) = data.get("max_instances").and_then(|x| x.as_u64()) {
        parts.push(format!("instances={n}"));
    }
    if let Some(e) = field("error") {
        parts.push(format!("error: {e}"));
    }
    let host = v.get("source").and_then(|s| s.as_str()).unwrap_or_default();
    if !host.is_empty() {
        parts.push(format!("host={}", short_id(host)));
    }
    Some(EventView { time, kind, summary: parts.join(" ") })
}

/// Host and provider keys are 56 characters; the first ten tell them apart on a page.
fn short_id(id: &str) -> String {
    id.chars().take(10).collect()
}

pub struct LatticeWatch {
    pub ctl: Ctl,
    pub nats: async_nats::Client,
    pub lattice: String,
    /// For the config names the deployed application declares (hosts cannot list them).
    pub wadm: wadm_client::Client,
    pub app: String,
}

impl LatticeWatch {
    pub async fn run(self, hub: Hub) {
        let mut events = match self.nats.subscribe(format!("wasmbus.evt.{}.>", self.lattice)).await {
            Ok(s) => Some(s),
            Err(e) => {
                tracing::error!("cannot subscribe to lattice events: {e}");
                None
            }
        };
        let mut log: VecDeque<EventView> = VecDeque::with_capacity(EVENT_LOG);
        let mut tick = tokio::time::interval(Duration::from_secs(5));
        let mut dirty = true;
        loop {
            if dirty {
                // Let a burst of events (a scale touches every host) settle into one refresh.
                tokio::time::sleep(Duration::from_millis(200)).await;
                if let Some(e) = events.as_mut() {
                    while let Some(msg) = e.now_or_never_flat() {
                        record(&mut log, &msg.payload);
                    }
                }
                let view = self.view(&log).await;
                hub.publish("lattice", &view);
                dirty = false;
            }
            tokio::select! {
                msg = async { match events.as_mut() { Some(e) => e.next().await, None => std::future::pending().await } } => {
                    let Some(msg) = msg else { events = None; continue };
                    // Any event, heartbeats included, changes the page (uptimes, the log).
                    dirty = record(&mut log, &msg.payload).is_some() || dirty;
                }
                _ = tick.tick() => dirty = true,
            }
        }
    }

    async fn view(&self, log: &VecDeque<EventView>) -> LatticeView {
        let mut view = LatticeView {
            lattice: self.lattice.clone(),
            events: log.iter().cloned().collect(),
            refreshed_at_ms: cits::time::now_ms(),
            ..Default::default()
        };
        if let Err(e) = self.fill(&mut view).await {
            view.error = Some(e.to_string());
        }
        view
    }

    async fn fill(&self, view: &mut LatticeView) -> anyhow::Result<()> {
        let hosts = self.ctl.get_hosts().await.map_err(|e| anyhow::anyhow!("host ping: {e}"))?;
        for host in hosts.into_iter().filter_map(|h| h.into_data()) {
            let inventory = match self.ctl.get_host_inventory(host.id()).await {
                Ok(r) => r.into_data(),
                Err(e) => {
                    tracing::warn!("inventory of {}: {e}", host.id());
                    None
                }
            };
            let app_of = |a: Option<&BTreeMap<String, String>>| a.and_then(|a| a.get("wasmcloud.dev/appspec")).cloned();
            let (components, providers) = match &inventory {
                Some(inv) => (
                    inv.components()
                        .iter()
                        .map(|c| InstanceView {
                            id: c.id().into(),
                            name: c.name().unwrap_or_default().into(),
                            image: c.image_ref().into(),
                            instances: c.max_instances(),
                            app: app_of(c.annotations()),
                        })
                        .collect(),
                    inv.providers()
                        .iter()
                        .map(|p| InstanceView {
                            id: p.id().into(),
                            name: p.name().unwrap_or_default().into(),
                            image: p.image_ref().unwrap_or_default().into(),
                            instances: 1,
                            app: app_of(p.annotations()),
                        })
                        .collect(),
                ),
                None => (Vec::new(), Vec::new()),
            };
            view.hosts.push(HostView {
                id: host.id().into(),
                name: host.friendly_name().into(),
                version: host.version().unwrap_or_default().into(),
                uptime: host.uptime_human().unwrap_or_default().into(),
                uptime_seconds: host.uptime_seconds(),
                labels: host.labels().clone(),
                components,
                providers,
            });
        }
        view.hosts.sort_by(|a, b| a.labels.get("host").cmp(&b.labels.get("host")).then(a.id.cmp(&b.id)));

        let links = self.ctl.get_links().await.map_err(|e| anyhow::anyhow!("link.get: {e}"))?;
        let mut names: BTreeSet<String> = BTreeSet::new();
        for l in links.into_data().unwrap_or_default() {
            names.extend(l.source_config().iter().cloned());
            names.extend(l.target_config().iter().cloned());
            view.links.push(LinkView {
                source: l.source_id().into(),
                target: l.target().into(),
                name: l.name().into(),
                interface: format!("{}:{}/{}", l.wit_namespace(), l.wit_package(), l.interfaces().join(",")),
                source_config: l.source_config().clone(),
                target_config: l.target_config().clone(),
            });
        }
        view.links.sort_by(|a, b| (&a.source, &a.name, &a.target).cmp(&(&b.source, &b.name, &b.target)));
        if let Ok(manifest) = self.wadm.get_manifest(&self.app, None).await {
            names.extend(crate::app::config_names(&manifest));
        }
        for name in names {
            match self.ctl.get_config(&name).await {
                Ok(r) => {
                    let entries: BTreeMap<String, String> = r.into_data().unwrap_or_default().into_iter().collect();
                    view.config.insert(name, entries);
                }
                Err(e) => tracing::warn!("config.get {name}: {e}"),
            }
        }
        Ok(())
    }
}

/// Adds an event to the log; `None` for a payload that is no lattice event.
fn record(log: &mut VecDeque<EventView>, payload: &[u8]) -> Option<()> {
    let event = event_view(payload)?;
    if log.len() == EVENT_LOG {
        log.pop_back();
    }
    log.push_front(event);
    Some(())
}

trait NowOrNever: futures::Stream + Unpin {
    /// The next item if one is ready now (`None`: nothing ready).
    fn now_or_never_flat(&mut self) -> Option<Self::Item> {
        futures::FutureExt::now_or_never(self.next()).flatten()
    }
}
impl<S: futures::Stream + Unpin> NowOrNever for S {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scale_event_reads_as_a_log_line() {
        let payload = br#"{"specversion":"1.0","type":"com.wasmcloud.lattice.component_scaled","source":"NBCDEFGHIJKLMNOP","time":"2026-11-23T10:00:00Z","data":{"component_id":"cits-decoder","max_instances":3,"image_ref":"file:///x.wasm"}}"#;
        let e = event_view(payload).unwrap();
        assert_eq!(e.kind, "component_scaled");
        assert_eq!(e.summary, "component_id=cits-decoder image_ref=file:///x.wasm instances=3 host=NBCDEFGHIJ");
        assert!(event_view(b"not json").is_none());
    }

    #[test]
    fn the_log_keeps_the_newest_events() {
        let mut log = VecDeque::new();
        for i in 0..EVENT_LOG + 5 {
            let p = format!(r#"{{"type":"com.wasmcloud.lattice.e{i}","data":{{}}}}"#);
            record(&mut log, p.as_bytes());
        }
        assert_eq!(log.len(), EVENT_LOG);
        assert_eq!(log[0].kind, format!("e{}", EVENT_LOG + 4));
    }
}

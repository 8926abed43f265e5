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
    /// Hosts seen before that no longer answer and never said they stopped (a killed process,
    /// a lost machine): wadm may still call the application deployed.
    pub missing_hosts: Vec<MissingHostView>,
    /// What the missing hosts ran that now runs on fewer hosts than before.
    pub degraded: Vec<DegradedView>,
    pub links: Vec<LinkView>,
    /// The NATS servers (hub and sites' leaf nodes) with their leaf links.
    pub servers: Vec<crate::servers::ServerView>,
    /// Named config: name → its entries (as the hosts hold them).
    pub config: BTreeMap<String, BTreeMap<String, String>>,
    /// Newest first.
    pub events: Vec<EventView>,
    pub refreshed_at_ms: u64,
    pub error: Option<String>,
}

#[derive(Serialize, Debug, Clone)]
pub struct HostView {
    pub id: String,
    pub name: String,
    pub version: String,
    pub uptime: String,
    pub uptime_seconds: u64,
    pub labels: BTreeMap<String, String>,
    pub components: Vec<InstanceView>,
    pub providers: Vec<InstanceView>,
    /// Whether `components` and `providers` are its inventory's (a host that answers the ping
    /// and dies before its inventory is read would otherwise be remembered as running nothing).
    #[serde(skip)]
    pub inventory_read: bool,
}

#[derive(Serialize, Debug, Clone)]
pub struct InstanceView {
    pub id: String,
    pub name: String,
    pub image: String,
    /// Components: how many invocations may run at once on this host. Providers: 1.
    pub instances: u32,
    /// The wadm application that manages it (annotation), if any.
    pub app: Option<String>,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct MissingHostView {
    pub id: String,
    pub name: String,
    pub labels: BTreeMap<String, String>,
    /// When it last answered the host ping.
    pub last_seen_ms: u64,
    /// Component and provider ids it ran then.
    pub components: Vec<String>,
    pub providers: Vec<String>,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct DegradedView {
    pub id: String,
    /// `component` or `provider`.
    pub kind: &'static str,
    /// Hosts that run it now, and that ran it with the missing hosts still there.
    pub hosts_now: usize,
    pub hosts_before: usize,
}

/// Every host the page has seen answer, so that one that stops answering is shown as missing
/// rather than silently dropped from the list. A host that announced its stop is forgotten.
#[derive(Debug, Default)]
pub struct HostRoster {
    seen: BTreeMap<String, (HostView, u64)>,
}

impl HostRoster {
    /// The hosts that answered at `now_ms` (all of them: the rest count as missing).
    pub fn answered(&mut self, hosts: &[HostView], now_ms: u64) {
        for host in hosts {
            let mut remembered = host.clone();
            if let Some((before, _)) = self.seen.get(&host.id).filter(|_| !host.inventory_read) {
                remembered.components.clone_from(&before.components);
                remembered.providers.clone_from(&before.providers);
                remembered.inventory_read = before.inventory_read;
            }
            self.seen.insert(host.id.clone(), (remembered, now_ms));
        }
    }

    /// A `host_stopped` event: it left on purpose.
    pub fn stopped(&mut self, id: &str) {
        self.seen.remove(id);
    }

    /// The seen hosts missing from `live`, and what runs on fewer hosts because of them.
    pub fn missing(&self, live: &[HostView]) -> (Vec<MissingHostView>, Vec<DegradedView>) {
        let is_live = |id: &str| live.iter().any(|h| h.id == id);
        let missing: Vec<MissingHostView> = self
            .seen
            .values()
            .filter(|(h, _)| !is_live(&h.id))
            .map(|(h, at)| MissingHostView {
                id: h.id.clone(),
                name: h.name.clone(),
                labels: h.labels.clone(),
                last_seen_ms: *at,
                components: h.components.iter().map(|c| c.id.clone()).collect(),
                providers: h.providers.iter().map(|p| p.id.clone()).collect(),
            })
            .collect();
        // (kind, id) → (live hosts running it, missing hosts that ran it), for what a missing host ran.
        let mut runs: BTreeMap<(&'static str, &String), (usize, usize)> = BTreeMap::new();
        for m in &missing {
            let ran =
                m.components.iter().map(|id| ("component", id)).chain(m.providers.iter().map(|id| ("provider", id)));
            for key in ran {
                runs.entry(key).or_default().1 += 1;
            }
        }
        for h in live {
            let running = h
                .components
                .iter()
                .map(|c| ("component", &c.id))
                .chain(h.providers.iter().map(|p| ("provider", &p.id)));
            for key in running {
                if let Some(count) = runs.get_mut(&key) {
                    count.0 += 1;
                }
            }
        }
        let degraded = runs
            .into_iter()
            .map(|((kind, id), (now, gone))| DegradedView {
                id: id.clone(),
                kind,
                hosts_now: now,
                hosts_before: now + gone,
            })
            .collect();
        (missing, degraded)
    }
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
    /// Whose event it is (a host's id), for the roster; the page shows its short form.
    #[serde(skip)]
    pub source: String,
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
    let source = v.get("source").and_then(|s| s.as_str()).unwrap_or_default().to_string();
    if !source.is_empty() {
        parts.push(format!("host={}", short_id(&source)));
    }
    Some(EventView { time, kind, summary: parts.join(" "), source })
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
    /// The servers' monitoring endpoints.
    pub monitors: Vec<crate::servers::Monitor>,
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
        let mut roster = HostRoster::default();
        let mut tick = tokio::time::interval(Duration::from_secs(5));
        let mut dirty = true;
        loop {
            if dirty {
                // Let a burst of events (a scale touches every host) settle into one refresh.
                tokio::time::sleep(Duration::from_millis(200)).await;
                if let Some(e) = events.as_mut() {
                    while let Some(msg) = e.now_or_never_flat() {
                        record(&mut log, &mut roster, &msg.payload);
                    }
                }
                let view = self.view(&log, &mut roster).await;
                hub.publish("lattice", &view);
                dirty = false;
            }
            tokio::select! {
                msg = async { match events.as_mut() { Some(e) => e.next().await, None => std::future::pending().await } } => {
                    let Some(msg) = msg else { events = None; continue };
                    // Any event, heartbeats included, changes the page (uptimes, the log).
                    dirty = record(&mut log, &mut roster, &msg.payload).is_some() || dirty;
                }
                _ = tick.tick() => dirty = true,
            }
        }
    }

    async fn view(&self, log: &VecDeque<EventView>, roster: &mut HostRoster) -> LatticeView {
        let mut view = LatticeView {
            lattice: self.lattice.clone(),
            events: log.iter().cloned().collect(),
            refreshed_at_ms: cits::shared::time::now_ms(),
            ..Default::default()
        };
        if let Err(e) = self.fill(&mut view, roster).await {
            view.error = Some(e.to_string());
        }
        view.servers = crate::servers::read(&self.monitors).await;
        view
    }

    async fn fill(&self, view: &mut LatticeView, roster: &mut HostRoster) -> anyhow::Result<()> {
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
                inventory_read: inventory.is_some(),
            });
        }
        view.hosts.sort_by(|a, b| a.labels.get("host").cmp(&b.labels.get("host")).then(a.id.cmp(&b.id)));
        roster.answered(&view.hosts, view.refreshed_at_ms);
        (view.missing_hosts, view.degraded) = roster.missing(&view.hosts);

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
fn record(log: &mut VecDeque<EventView>, roster: &mut HostRoster, payload: &[u8]) -> Option<()> {
    let event = event_view(payload)?;
    // A host that announced its stop left on purpose: not missing.
    if event.kind == "host_stopped" {
        roster.stopped(&event.source);
    }
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

    fn host(id: &str, components: &[&str], providers: &[&str]) -> HostView {
        let instance = |id: &&str| InstanceView {
            id: id.to_string(),
            name: id.to_string(),
            image: String::new(),
            instances: 1,
            app: None,
        };
        HostView {
            id: id.into(),
            name: id.into(),
            version: "1.9.2".into(),
            uptime: String::new(),
            uptime_seconds: 0,
            labels: BTreeMap::from([("host".into(), id.into())]),
            components: components.iter().map(instance).collect(),
            providers: providers.iter().map(instance).collect(),
            inventory_read: true,
        }
    }

    #[test]
    fn a_host_whose_inventory_went_unread_is_remembered_with_what_it_ran() {
        let two = host("N2", &["decoder"], &["nats"]);
        let mut roster = HostRoster::default();
        roster.answered(std::slice::from_ref(&two), 1_000);
        // It answered the ping, then died before its inventory was read.
        let unread = HostView { components: vec![], providers: vec![], inventory_read: false, ..two };
        roster.answered(&[unread], 2_000);
        let (missing, degraded) = roster.missing(&[]);
        assert_eq!((missing[0].last_seen_ms, missing[0].components.as_slice()), (2_000, &["decoder".to_string()][..]));
        assert_eq!(degraded.len(), 2, "{degraded:?}");
    }

    #[test]
    fn a_host_that_stops_answering_is_missing_with_what_now_runs_once() {
        let (one, two) =
            (host("N1", &["decoder", "collector"], &["nats"]), host("N2", &["decoder"], &["nats", "redis"]));
        let mut roster = HostRoster::default();
        roster.answered(&[one.clone(), two.clone()], 1_000);
        assert_eq!(roster.missing(&[one.clone(), two]), (vec![], vec![]), "all there");
        roster.answered(std::slice::from_ref(&one), 6_000);
        let (missing, degraded) = roster.missing(std::slice::from_ref(&one));
        assert_eq!(missing.len(), 1);
        assert_eq!((missing[0].id.as_str(), missing[0].last_seen_ms), ("N2", 1_000));
        assert_eq!(missing[0].components, ["decoder"]);
        let summary: Vec<(&str, &str, usize, usize)> =
            degraded.iter().map(|d| (d.kind, d.id.as_str(), d.hosts_now, d.hosts_before)).collect();
        assert_eq!(summary, [("component", "decoder", 1, 2), ("provider", "nats", 1, 2), ("provider", "redis", 0, 1)]);
        // Back again: nothing missing. Stopped on purpose: forgotten, not missing.
        roster.answered(&[one.clone(), host("N2", &["decoder"], &[])], 7_000);
        roster.stopped("N2");
        assert_eq!(roster.missing(&[one]).0, vec![]);
    }

    #[test]
    fn only_a_host_stopped_event_takes_a_host_off_the_roster() {
        let mut roster = HostRoster::default();
        roster.answered(&[host("NHOST", &["decoder"], &[])], 1_000);
        let mut log = VecDeque::new();
        let heartbeat = br#"{"type":"com.wasmcloud.lattice.host_heartbeat","source":"NHOST","data":{}}"#;
        record(&mut log, &mut roster, heartbeat).unwrap();
        assert_eq!(roster.missing(&[]).0.len(), 1, "silent since: missing");
        let stopped = br#"{"type":"com.wasmcloud.lattice.host_stopped","source":"NHOST","data":{}}"#;
        record(&mut log, &mut roster, stopped).unwrap();
        assert_eq!(roster.missing(&[]).0, vec![], "said it stopped: forgotten");
        assert_eq!(log.len(), 2);
    }

    #[test]
    fn the_log_keeps_the_newest_events() {
        let mut log = VecDeque::new();
        for i in 0..EVENT_LOG + 5 {
            let p = format!(r#"{{"type":"com.wasmcloud.lattice.e{i}","data":{{}}}}"#);
            record(&mut log, &mut HostRoster::default(), p.as_bytes());
        }
        assert_eq!(log.len(), EVENT_LOG);
        assert_eq!(log[0].kind, format!("e{}", EVENT_LOG + 4));
    }
}

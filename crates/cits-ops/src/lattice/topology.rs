//! What a lattice is made of: its NATS servers and its wasmCloud hosts with their labels, as a
//! value (`HOSTS=N`, or YAML/JSON inline or in a file) rather than as shell loops, so that a
//! lattice of several servers and hosts is a different value, not a different script.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context as _};
use serde::{Deserialize, Serialize};

/// The label every host of a local lattice carries (`site=cits-local`).
pub const SITE_LABEL: (&str, &str) = ("site", "cits-local");

/// Whether a host shares its machine with its site's Redis and blob folder (`store=local`, else
/// `store=remote`): the providers that reach them (key-value, blobstore) run only on such hosts
/// (the manifests require it), and components elsewhere call them through the lattice.
pub const STORE_LABEL: (&str, &str, &str) = ("store", "local", "remote");

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    /// NATS servers: one, or a cluster of three or more (JetStream keeps every stream on three
    /// of them). Server `i` (from 0) listens on the lattice's ports plus `i`.
    #[serde(default = "one_nats_server")]
    pub nats: Vec<NatsServer>,
    /// wasmCloud hosts, numbered from 1 in this order (`host-1`, …: PID file, log, labels).
    pub hosts: Vec<Host>,
    /// RSU sites at the edge: each a leaf node of the servers above (the hub) with a JetStream
    /// domain and an MQTT listener of its own, server `nats.len() + k` for site `k`.
    #[serde(default)]
    pub sites: Vec<Site>,
}

/// An RSU site: its RSUs connect to its leaf node, which keeps what they send and what they are
/// sent through a lost link to the hub (see `cits_jetstream::site`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Site {
    /// The leaf node's JetStream domain and its hosts' `site` label.
    pub name: String,
    /// The RSUs of the site (they connect to its MQTT listener).
    pub rsus: Vec<String>,
    /// Where the pipeline runs for its RSUs.
    #[serde(default)]
    pub pipeline: Placement,
    /// The address its RSUs and the hub reach its leaf node at (see [`NatsServer::address`]).
    #[serde(default)]
    pub address: Option<String>,
}

/// Where a site's RSUs' CPMs are turned into DENMs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// On the hub: the site keeps what its RSUs send until the hub sourced it, and the DENMs the
    /// hub sends back (ingress and delivery only at the site).
    #[default]
    Hub,
    /// On the site's own hosts, with a Redis of the site's own: warnings go on while the link is
    /// down; the hub sources the site's frames, DENMs and dead letters to watch them.
    Edge,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NatsServer {
    /// The loopback port sites dial this (hub) server's leaf node listener at, when a link is in
    /// between (e.g. the TCP proxy of a test that cuts it); it tells its sites this address too.
    #[serde(default)]
    pub leaf_via: Option<u16>,
    /// The address (IP or DNS name) other machines reach this server at: its route, leaf node and
    /// MQTT listeners then listen on every interface and tell their peers this address, and the
    /// lattice's certificate names it. None: loopback, every server on this machine. Clients
    /// (hosts, wadm, tools) always connect on loopback to a server of their own machine.
    #[serde(default)]
    pub address: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Host {
    /// Labels on top of `site=cits-local` and `host=host-<n>` (wadm spreads by labels).
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// The NATS server it (and its providers) connect to, from 0 (default: host `n` to server
    /// `(n − 1) mod servers`, so a cluster's hosts are spread over its servers).
    #[serde(default)]
    pub server: Option<usize>,
    /// The site whose leaf node it connects to (labelled `site=<name>`) instead of the hub.
    #[serde(default)]
    pub site: Option<String>,
}

fn one_nats_server() -> Vec<NatsServer> {
    vec![NatsServer::default()]
}

/// Replicas of every stream in a cluster: JetStream's most, a majority survives one lost server.
pub const CLUSTER_REPLICAS: usize = 3;

/// The hub's JetStream domain once it has sites (each site's is its name).
pub const HUB_DOMAIN: &str = "hub";

impl Topology {
    /// One NATS server and `hosts` hosts with the default labels (`make run HOSTS=N`).
    pub fn with_hosts(hosts: usize) -> Self {
        Self { nats: one_nats_server(), hosts: vec![Host::default(); hosts], sites: Vec::new() }
    }

    /// The named topologies of `make run TOPOLOGY=…`: `single` (one server, one host),
    /// `cluster` (three servers in one cluster, a host on each) and `edge` (that cluster as the
    /// hub of site `site-1`: RSU `rsu1` on its leaf node, an edge host there running the
    /// pipeline for it).
    pub fn preset(name: &str) -> Option<Self> {
        let cluster = Self { nats: vec![NatsServer::default(); 3], hosts: vec![Host::default(); 3], sites: Vec::new() };
        match name {
            "single" => Some(Self::with_hosts(1)),
            "cluster" => Some(cluster),
            "edge" => {
                let site =
                    Site { name: "site-1".into(), rsus: vec!["rsu1".into()], pipeline: Placement::Edge, address: None };
                let mut edge = cluster;
                edge.hosts.push(Host { site: Some(site.name.clone()), ..Host::default() });
                edge.sites.push(site);
                Some(edge)
            }
            _ => None,
        }
    }

    /// `--topology`: a preset's name ([`Topology::preset`]), a YAML or JSON file, or the same
    /// text inline (`{hosts: [{labels: {zone: a}}, {}]}`).
    pub fn parse_arg(arg: &str) -> anyhow::Result<Self> {
        if let Some(preset) = Self::preset(arg) {
            return Ok(preset);
        }
        let text = if Path::new(arg).is_file() {
            std::fs::read_to_string(arg).with_context(|| format!("cannot read topology {arg}"))?
        } else {
            arg.to_string()
        };
        let topology: Self = serde_yaml::from_str(&text).with_context(|| format!("`{arg}` is not a topology"))?;
        topology.check()?;
        Ok(topology)
    }

    /// What this supervisor can start: one NATS server, or a cluster of three or more (two
    /// servers have no majority once one is lost, so JetStream would stop with it).
    pub fn check(&self) -> anyhow::Result<()> {
        match self.nats.len() {
            0 => bail!("a topology needs a NATS server"),
            2 => bail!("2 NATS servers: a cluster needs 3 or more (JetStream needs a majority to go on without one)"),
            _ => {}
        }
        if self.hosts.is_empty() {
            bail!("a topology needs at least one wasmCloud host");
        }
        if !self.hosts.iter().any(|h| h.site.is_none()) {
            bail!("a topology needs a host on the hub (wadm places the pipeline there)");
        }
        let mut names = std::collections::BTreeSet::new();
        let mut rsus = std::collections::BTreeSet::new();
        for site in &self.sites {
            // The name is a JetStream domain (one subject token) and a host label value.
            let valid = site.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if site.name.is_empty() || !valid || site.name == HUB_DOMAIN {
                bail!("site `{}`: letters, digits, `_` and `-` only, not `{HUB_DOMAIN}`", site.name);
            }
            if !names.insert(site.name.as_str()) {
                bail!("site `{}` twice", site.name);
            }
            if site.rsus.is_empty() {
                bail!("site `{}` has no RSUs", site.name);
            }
            if site.pipeline == Placement::Edge && !self.hosts.iter().any(|h| h.site.as_ref() == Some(&site.name)) {
                bail!("site `{}` runs its pipeline but has no host", site.name);
            }
            for rsu in &site.rsus {
                if !rsus.insert(rsu.as_str()) {
                    bail!("RSU {rsu} in two sites");
                }
            }
        }
        for (i, host) in self.hosts.iter().enumerate() {
            if let Some(site) = host.site.as_deref().filter(|s| !names.contains(s)) {
                bail!("{}: site `{site}` does not exist", Host::name(i + 1));
            }
            if host.site.is_some() && host.server.is_some() {
                bail!(
                    "{}: a site's host connects to its leaf node, not to server {:?}",
                    Host::name(i + 1),
                    host.server
                );
            }
            if host.site.is_some() && host.labels.contains_key(SITE_LABEL.0) {
                bail!("{}: its `site` label is its site's name", Host::name(i + 1));
            }
            if host.labels.contains_key(STORE_LABEL.0) {
                bail!("{}: its `store` label says where it runs (the supervisor sets it)", Host::name(i + 1));
            }
            if let Some(server) = host.server.filter(|&s| s >= self.nats.len()) {
                bail!(
                    "{}: server {server} does not exist ({} NATS server(s), from 0)",
                    Host::name(i + 1),
                    self.nats.len()
                );
            }
        }
        for key in self.hosts.iter().flat_map(|h| h.labels.keys()) {
            if key == "host" {
                bail!("host label `host`: the supervisor names hosts itself (host-<n>)");
            }
            // A label reaches the host as WASMCLOUD_LABEL_<key>.
            if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                bail!("host label `{key}`: letters, digits, `_` and `-` only");
            }
        }
        Ok(())
    }

    /// Host `n` (from 1), if the topology has it.
    pub fn host(&self, n: usize) -> Option<&Host> {
        n.checked_sub(1).and_then(|i| self.hosts.get(i))
    }

    /// The server host `n` (from 1) connects to: its site's leaf node, or one of the hub's.
    pub fn server_of(&self, n: usize) -> usize {
        let host = self.host(n);
        if let Some(k) = host.and_then(|h| h.site.as_deref()).and_then(|s| self.sites.iter().position(|x| x.name == s))
        {
            return self.leaf_server(k);
        }
        host.and_then(|h| h.server).unwrap_or((n.max(1) - 1) % self.nats.len().max(1))
    }

    /// Every NATS server: the hub's, then each site's leaf node.
    pub fn servers(&self) -> usize {
        self.nats.len() + self.sites.len()
    }

    /// The server index of site `k`'s leaf node.
    pub fn leaf_server(&self, k: usize) -> usize {
        self.nats.len() + k
    }

    /// The site server `i` is the leaf node of, if it is one.
    pub fn site_of_server(&self, i: usize) -> Option<&Site> {
        i.checked_sub(self.nats.len()).and_then(|k| self.sites.get(k))
    }

    /// The address other machines reach server `i` at (hub server, or a site's leaf node), if
    /// the topology names one.
    pub fn address_of(&self, i: usize) -> Option<&str> {
        match i.checked_sub(self.nats.len()) {
            None => self.nats.get(i).and_then(|n| n.address.as_deref()),
            Some(k) => self.sites.get(k).and_then(|s| s.address.as_deref()),
        }
    }

    /// Whether server `i` runs on `machine` (one of the addresses the topology names); every
    /// server does when no machine is given (the whole topology on one machine).
    pub fn on_machine(&self, i: usize, machine: Option<&str>) -> bool {
        machine.is_none_or(|m| self.address_of(i) == Some(m))
    }

    /// Whether host `n` (from 1) is on the machine of its site's Redis and blob folder: a site's
    /// host always (with its leaf node), a hub host when its server is on the first server's
    /// machine (where the hub's are).
    pub fn host_by_store(&self, n: usize) -> bool {
        let server = self.server_of(n);
        self.site_of_server(server).is_some() || self.address_of(server) == self.address_of(0)
    }

    /// All labels of host `n` (from 1): [`Host::labels_of`] and where it is ([`STORE_LABEL`]).
    pub fn labels_of(&self, n: usize) -> BTreeMap<String, String> {
        let mut labels = self.host(n).map(|h| h.labels_of(n)).unwrap_or_default();
        let store = if self.host_by_store(n) { STORE_LABEL.1 } else { STORE_LABEL.2 };
        labels.insert(STORE_LABEL.0.to_string(), store.to_string());
        labels
    }

    /// What one machine of a topology spread over several needs: every server has an address
    /// and `machine` is one of them.
    pub fn check_machine(&self, machine: &str) -> anyhow::Result<()> {
        if let Some(i) = (0..self.servers()).find(|&i| self.address_of(i).is_none()) {
            bail!(
                "CITS_MACHINE={machine}: every NATS server needs its `address` to place it on a machine \
                 (server {i} has none)"
            );
        }
        if !(0..self.servers()).any(|i| self.on_machine(i, Some(machine))) {
            bail!("CITS_MACHINE={machine}: no server of the topology has that address ({:?})", self.addresses());
        }
        Ok(())
    }

    /// The address other servers reach server `i` at: its own, or loopback.
    pub fn reach(&self, i: usize) -> &str {
        self.address_of(i).unwrap_or("127.0.0.1")
    }

    /// Every address the topology names: the names the lattice's certificate must carry.
    pub fn addresses(&self) -> Vec<String> {
        let mut all: Vec<String> = Vec::new();
        for address in (0..self.servers()).filter_map(|i| self.address_of(i)) {
            if !all.iter().any(|a| a == address) {
                all.push(address.to_string());
            }
        }
        all
    }

    /// The site `rsu` belongs to, if any (else it connects to the hub).
    pub fn site_of_rsu(&self, rsu: &str) -> Option<(usize, &Site)> {
        self.sites.iter().enumerate().find(|(_, s)| s.rsus.iter().any(|r| r == rsu))
    }

    /// The server where `rsu`'s pipeline runs, its frames and DENMs core messages: its site's
    /// leaf node when the site runs the pipeline, else the hub's first server.
    pub fn pipeline_server(&self, rsu: &str) -> usize {
        self.pipeline_site(rsu).map_or(0, |k| self.leaf_server(k))
    }

    /// The site (its index) that runs `rsu`'s pipeline on its own hosts, if any.
    pub fn pipeline_site(&self, rsu: &str) -> Option<usize> {
        self.site_of_rsu(rsu).filter(|(_, site)| site.pipeline == Placement::Edge).map(|(k, _)| k)
    }

    /// The sites whose pipeline runs on their own hosts ([`Placement::Edge`]).
    pub fn edge_sites(&self) -> impl Iterator<Item = (usize, &Site)> {
        self.sites.iter().enumerate().filter(|(_, s)| s.pipeline == Placement::Edge)
    }

    /// Whether its servers speak TLS to each other and to RSUs: a cluster's servers, a site and
    /// its hub, and their RSUs are meant to be on different machines (one server is on loopback
    /// with its clients).
    pub fn tls(&self) -> bool {
        self.nats.len() > 1 || !self.sites.is_empty()
    }

    /// Replicas of each JetStream stream and bucket the lattice makes.
    pub fn replicas(&self) -> usize {
        if self.nats.len() > 1 {
            CLUSTER_REPLICAS.min(self.nats.len())
        } else {
            1
        }
    }
}

impl Host {
    /// The name host `n` goes by: its PID file, log and `host` label.
    pub fn name(n: usize) -> String {
        format!("host-{n}")
    }

    /// All labels of host `n`: `site=cits-local` (the hub) or its site's name, the topology's,
    /// and `host=host-<n>` (how the supervisor knows it joined).
    pub fn labels_of(&self, n: usize) -> BTreeMap<String, String> {
        let site = self.site.as_deref().unwrap_or(SITE_LABEL.1);
        let mut labels = BTreeMap::from([(SITE_LABEL.0.to_string(), site.to_string())]);
        labels.extend(self.labels.clone());
        labels.insert("host".to_string(), Self::name(n));
        labels
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_shorthand_is_one_server_and_n_default_hosts() {
        let t = Topology::with_hosts(2);
        assert_eq!(t.nats.len(), 1);
        assert_eq!(t.hosts.len(), 2);
        assert_eq!(
            t.host(2).unwrap().labels_of(2),
            BTreeMap::from([("host".into(), "host-2".into()), ("site".into(), "cits-local".into())])
        );
        assert!(t.host(0).is_none() && t.host(3).is_none());
    }

    #[test]
    fn inline_yaml_adds_labels_and_defaults_the_server() {
        let t = Topology::parse_arg("{hosts: [{labels: {zone: a}}, {}]}").unwrap();
        assert_eq!(t.nats, vec![NatsServer::default()]);
        assert_eq!(t.hosts[0].labels_of(1)["zone"], "a");
        assert_eq!(t.hosts[0].labels_of(1)["host"], "host-1");
        assert_eq!(t.hosts[1].labels_of(2).len(), 2);
    }

    #[test]
    fn json_is_yaml_too() {
        let t = Topology::parse_arg(r#"{"nats": [{}], "hosts": [{"labels": {"site": "lab"}}]}"#).unwrap();
        assert_eq!(t.hosts[0].labels_of(1)["site"], "lab");
    }

    #[test]
    fn what_cannot_be_started_is_refused() {
        for (text, why) in [
            ("{hosts: []}", "at least one"),
            ("{nats: [{}, {}], hosts: [{}]}", "3 or more"),
            ("{nats: [{}, {}, {}], hosts: [{server: 3}]}", "server 3 does not exist"),
            ("{nats: [], hosts: [{}]}", "needs a NATS"),
            ("{hosts: [{labels: {'a b': x}}]}", "label"),
            ("{hosts: [{}], extra: 1}", "not a topology"),
            ("{hosts: [{labels: {host: a}}]}", "names hosts itself"),
            ("{hosts: [{labels: {store: local}}]}", "supervisor sets it"),
        ] {
            let err = format!("{:#}", Topology::parse_arg(text).unwrap_err());
            assert!(err.contains(why), "{text}: {err}");
        }
    }

    #[test]
    fn the_cluster_preset_spreads_its_hosts_over_three_servers() {
        let t = Topology::parse_arg("cluster").unwrap();
        assert_eq!((t.nats.len(), t.hosts.len(), t.replicas()), (3, 3, 3));
        assert_eq!((1..=3).map(|n| t.server_of(n)).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(Topology::parse_arg("single").unwrap(), Topology::with_hosts(1));
        assert_eq!(Topology::with_hosts(2).replicas(), 1);
        let pinned = Topology::parse_arg("{nats: [{}, {}, {}, {}], hosts: [{server: 2}, {}]}").unwrap();
        assert_eq!((pinned.server_of(1), pinned.server_of(2), pinned.replicas()), (2, 1, 3));
    }

    #[test]
    fn the_edge_preset_puts_a_site_on_a_leaf_node_of_the_cluster() {
        let t = Topology::parse_arg("edge").unwrap();
        assert_eq!((t.nats.len(), t.servers(), t.hosts.len(), t.replicas()), (3, 4, 4, 3));
        assert_eq!((1..=4).map(|n| t.server_of(n)).collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert_eq!(t.host(4).unwrap().labels_of(4)["site"], "site-1");
        assert_eq!(t.host(1).unwrap().labels_of(1)["site"], "cits-local");
        assert_eq!(t.site_of_server(3).unwrap().name, "site-1");
        assert!(t.site_of_server(2).is_none());
        assert_eq!(t.site_of_rsu("rsu1").map(|(k, _)| k), Some(0));
        assert_eq!(t.edge_sites().map(|(k, _)| k).collect::<Vec<_>>(), [0]);
        assert!(t.site_of_rsu("rsu2").is_none() && t.tls());
        assert_eq!((t.pipeline_server("rsu1"), t.pipeline_server("rsu2")), (3, 0));
        let one_hub = Topology::parse_arg("{hosts: [{}, {site: a}], sites: [{name: a, rsus: [r1]}]}").unwrap();
        assert_eq!((one_hub.server_of(2), one_hub.replicas()), (1, 1));
        assert_eq!(one_hub.pipeline_server("r1"), 0, "a site's frames are at the hub when the hub runs its pipeline");
        assert_eq!(one_hub.sites[0].pipeline, Placement::Hub, "the pipeline stays on the hub unless asked");
        assert!(one_hub.tls(), "a site's link crosses a network");
    }

    #[test]
    fn sites_that_cannot_be_started_are_refused() {
        for (text, why) in [
            ("{hosts: [{site: a}], sites: [{name: a, rsus: [r]}]}", "a host on the hub"),
            ("{hosts: [{}, {site: b}], sites: [{name: a, rsus: [r]}]}", "site `b` does not exist"),
            ("{hosts: [{}], sites: [{name: hub, rsus: [r]}]}", "not `hub`"),
            ("{hosts: [{}], sites: [{name: 'a.b', rsus: [r]}]}", "letters"),
            ("{hosts: [{}], sites: [{name: a, rsus: []}]}", "no RSUs"),
            ("{hosts: [{}], sites: [{name: a, rsus: [r]}, {name: a, rsus: [s]}]}", "twice"),
            ("{hosts: [{}], sites: [{name: a, rsus: [r]}, {name: b, rsus: [r]}]}", "two sites"),
            ("{hosts: [{}, {site: a, server: 0}], sites: [{name: a, rsus: [r]}]}", "leaf node"),
            ("{hosts: [{}, {site: a, labels: {site: x}}], sites: [{name: a, rsus: [r]}]}", "site's name"),
            ("{hosts: [{}], sites: [{name: a, rsus: [r], pipeline: edge}]}", "has no host"),
            ("{hosts: [{}], sites: [{name: a, rsus: [r], pipeline: cloud}]}", "not a topology"),
        ] {
            let err = format!("{:#}", Topology::parse_arg(text).unwrap_err());
            assert!(err.contains(why), "{text}: {err}");
        }
    }

    #[test]
    fn a_file_is_read() {
        let path = std::env::temp_dir().join(format!("cits-topology-{}.yaml", std::process::id()));
        std::fs::write(&path, "hosts:\n  - labels: {gpu: 'no'}\n").unwrap();
        let t = Topology::parse_arg(path.to_str().unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(t.hosts[0].labels_of(1)["gpu"], "no");
    }
}

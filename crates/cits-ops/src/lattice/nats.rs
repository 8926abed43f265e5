//! The lattice's NATS server: JetStream, the MQTT listener the RSUs speak to, operator-mode auth.
//! Ready when the operator user reads its JetStream account and an MQTT client gets a CONNACK.

use std::time::Duration;

use anyhow::Context as _;
use serde::Serialize;

use super::process::{self, Program, StartGuard};
use super::settings::{required, ServerPorts, Settings};
use super::topology::Placement;

/// A NATS server's config file, typed: [`ServerConfig::render`] writes it once, each value in
/// the JSON syntax nats-server's config parser reads, then the include of the lattice's
/// operator-mode resolver (written by `crates/cits-nats-auth`).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct ServerConfig {
    pub server_name: String,
    /// Clients connect on loopback only.
    pub listen: String,
    /// Monitoring, which the dashboard reads from the first machine.
    pub http: String,
    /// Bytes (8 MiB): a batch of a partition's backlog travels as one message.
    pub max_payload: u64,
    pub jetstream: JetStream,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<Cluster>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leafnodes: Option<LeafNodes>,
    /// RSUs speak MQTT: topic cits/cpm/<rsu> arrives on subject cits.cpm.<rsu>.
    pub mqtt: Mqtt,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct JetStream {
    pub store_dir: String,
    /// A duration string ("2m"): as a bare number nats-server reads seconds.
    pub sync_interval: String,
    /// The hub's or a site's JetStream domain: a site's streams go on while its link is down.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
}

/// One of the servers of a cluster: JetStream keeps each stream on `replicas` of them.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Cluster {
    pub name: String,
    pub listen: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advertise: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls: Option<Tls>,
    pub routes: Vec<String>,
}

/// A hub's listener the sites' leaf nodes connect to (it tells them the address to reach it
/// at), or a site's remote: the hub at any of its servers, the pipeline's messages crossing only
/// as streams (sourced both ways, resumed after a cut), never as core messages.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct LeafNodes {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listen: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advertise: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls: Option<Tls>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remotes: Vec<Remote>,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Remote {
    pub urls: Vec<String>,
    /// The platform's account (its public key).
    pub account: String,
    pub credentials: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls: Option<Tls>,
    pub deny_imports: Vec<String>,
    pub deny_exports: Vec<String>,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Mqtt {
    pub listen: String,
    /// RSUs reach it over a network: TLS (their token would cross in clear text otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls: Option<Tls>,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Tls {
    pub cert_file: String,
    pub key_file: String,
    /// Servers check each other's certificate (the same one, signed by the lattice's CA).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify: Option<bool>,
}

/// Where the operator-mode resolver's config is, relative to the server's config file: only
/// users signed by this lattice's account connect, what each may touch is in its JWT; reloaded
/// after an RSU's revocation.
const RESOLVER_INCLUDE: &str = "auth/resolver.conf";

impl ServerConfig {
    /// The config file's text.
    pub fn render(&self) -> String {
        let serde_json::Value::Object(entries) = serde_json::to_value(self).unwrap_or_default() else {
            unreachable!("a struct serialises to a map")
        };
        let mut out = String::new();
        for (key, value) in entries {
            out.push_str(&format!("{key}: {value}\n"));
        }
        out.push_str(&format!("include \"{RESOLVER_INCLUDE}\"\n"));
        out
    }
}

/// The config of NATS server `i` of the topology: its ports (see [`Settings::server`]), its own
/// JetStream store and, in a cluster, the routes to every server; a hub of sites takes leaf node
/// connections, a site's leaf node dials the hub into `account` (the platform's; its public key).
pub fn config(settings: &Settings, i: usize, account: Option<&str>) -> ServerConfig {
    let topology = settings.topology();
    let servers = topology.nats.len();
    let ServerPorts { client, mqtt, http, cluster, leaf, .. } = settings.server(i);
    let files = settings.tls();
    let tls = |ca: bool, verify: bool| {
        files.as_ref().map(|f| Tls {
            cert_file: f.cert.display().to_string(),
            key_file: f.key.display().to_string(),
            ca_file: ca.then(|| f.ca.display().to_string()),
            verify: verify.then_some(true),
        })
    };
    // Listeners other machines dial (routes, leaf nodes, MQTT) and the monitoring endpoint: every
    // interface once the server has an address of its own.
    let bind = if topology.address_of(i).is_some() { "0.0.0.0" } else { "127.0.0.1" };
    let advertise = |port: u16| topology.address_of(i).map(|a| format!("{a}:{port}"));
    let site = topology.site_of_server(i);
    let domain = match site {
        Some(site) => Some(site.name.clone()),
        None if !topology.sites.is_empty() => Some(cits_jetstream::site::HUB_DOMAIN.to_string()),
        None => None,
    };
    let in_cluster = servers > 1 && site.is_none();
    let denied: Vec<String> = cits_jetstream::site::LINK_DENIED.iter().map(|s| s.to_string()).collect();
    let leafnodes = match site {
        Some(_) => Some(LeafNodes {
            listen: None,
            advertise: None,
            tls: None,
            remotes: vec![Remote {
                urls: (0..servers)
                    .map(|j| format!("nats-leaf://{}:{}", topology.reach(j), leaf_address(settings, j)))
                    .collect(),
                account: account.unwrap_or("<none>").to_string(),
                credentials: settings.creds("leaf").display().to_string(),
                tls: tls(true, false),
                deny_imports: denied.clone(),
                deny_exports: denied,
            }],
        }),
        None if !topology.sites.is_empty() => Some(LeafNodes {
            listen: Some(format!("{bind}:{leaf}")),
            advertise: Some(format!("{}:{}", topology.reach(i), leaf_address(settings, i))),
            tls: tls(true, true),
            remotes: Vec::new(),
        }),
        None => None,
    };
    ServerConfig {
        server_name: format!("cits-{client}"),
        listen: format!("127.0.0.1:{client}"),
        http: format!("{bind}:{http}"),
        max_payload: 8 * 1024 * 1024,
        jetstream: JetStream {
            store_dir: settings.state.join(jetstream_dir(i)).display().to_string(),
            sync_interval: settings.nats_sync.clone(),
            domain,
        },
        cluster: in_cluster.then(|| Cluster {
            name: "cits".into(),
            listen: format!("{bind}:{cluster}"),
            advertise: advertise(cluster),
            tls: tls(true, true),
            routes: (0..servers)
                .map(|j| format!("nats-route://{}:{}", topology.reach(j), settings.server(j).cluster))
                .collect(),
        }),
        leafnodes,
        mqtt: Mqtt { listen: format!("{bind}:{mqtt}"), tls: tls(false, false) },
    }
}

/// The port sites reach hub server `j`'s leaf node listener at: its own, or the link's in between.
fn leaf_address(settings: &Settings, j: usize) -> u16 {
    settings.topology().nats.get(j).and_then(|n| n.leaf_via).unwrap_or(settings.server(j).leaf)
}

/// Server `i`'s JetStream store under the state dir (the first server's is `jetstream`, as
/// before clusters).
pub fn jetstream_dir(i: usize) -> String {
    if i == 0 {
        "jetstream".to_string()
    } else {
        format!("jetstream-{}", i + 1)
    }
}

/// Server `i`'s config file under the state dir.
pub fn config_file(i: usize) -> String {
    format!("{}.conf", Settings::server_process(i))
}

/// Writes the config file of every server on this machine. The CA and certificate are made on
/// the first machine; the others must use its copy (their servers check each other against it).
pub fn write_configs(settings: &Settings) -> anyhow::Result<()> {
    if let Some(tls) = settings.tls() {
        if !settings.first_machine() && !tls.ca.is_file() {
            anyhow::bail!(
                "{} is missing: copy `tls/` (and `auth/`) from the state dir of the first server's machine",
                tls.ca.display()
            );
        }
        let mut names = cits_client::tls::names_from_env();
        names.extend(settings.topology().addresses());
        cits_client::tls::ensure(tls.ca.parent().expect("in the state dir"), &names)?;
    }
    let account = cits_nats_auth::Authority::open(&settings.auth())?.account_public_key();
    for i in settings.local_servers() {
        std::fs::create_dir_all(settings.state.join(jetstream_dir(i)))?;
        std::fs::write(settings.state.join(config_file(i)), config(settings, i, Some(&account)).render())?;
    }
    Ok(())
}

/// Starts every server of this machine on the configs [`write_configs`] wrote and waits until
/// each serves JetStream and MQTT (a cluster's only once a majority of its servers found each
/// other, a site's once it reaches the hub: on other machines, possibly started later).
pub async fn start(settings: &Settings, guard: &mut StartGuard, processes: &process::Processes) -> anyhow::Result<()> {
    let mut started = Vec::new();
    for i in settings.local_servers() {
        started.push((i, start_server(settings, guard, i)?));
    }
    for (i, pid) in started {
        serving(settings, processes, i, pid).await?;
    }
    Ok(())
}

/// Starts server `i` again (after a crash) and waits until it serves.
pub async fn restart(
    settings: &Settings,
    guard: &mut StartGuard,
    processes: &process::Processes,
    i: usize,
) -> anyhow::Result<()> {
    // Right after a kill -9 one of its ports can still be held for a moment (seen once in
    // `make chaos`: "bind: address already in use" on the monitoring port): start again.
    let mut attempt = 1;
    loop {
        let pid = start_server(settings, guard, i)?;
        match serving(settings, processes, i, pid).await {
            Err(e) if attempt < 5 && format!("{e:#}").contains("address already in use") => {
                eprintln!("{}: a port is still held ({attempt}); starting again", Settings::server_process(i));
                attempt += 1;
                tokio::time::sleep(Duration::from_secs(2)).await;
            }
            served => return served,
        }
    }
}

/// How long a machine's part of a topology waits for the parts it needs on other machines.
pub const OTHER_MACHINES: Duration = Duration::from_secs(300);

/// Waits until server `i` (process `pid`) serves, or fails with its log if it exits first.
async fn serving(settings: &Settings, processes: &process::Processes, i: usize, pid: i32) -> anyhow::Result<()> {
    // A server whose peers are on other machines waits for them to be started there too.
    let limit = if settings.machine.is_some() { OTHER_MACHINES } else { Duration::from_secs(30) };
    process::ready(processes, &Settings::server_process(i), pid, limit, || ready(settings, i)).await
}

fn start_server(settings: &Settings, guard: &mut StartGuard, i: usize) -> anyhow::Result<i32> {
    let server = required(&settings.binaries.nats_server, "NATS_SERVER")?;
    let conf = settings.state.join(config_file(i));
    let program = Program::new(server).args(["-c".to_string(), conf.display().to_string()]);
    Ok(guard.start(&Settings::server_process(i), program.envs(settings.common_env()))?.pid)
}

/// Server `i` serves JetStream (a cluster's once it has a meta leader) and MQTT; a site's leaf
/// node once it reaches the hub's JetStream too.
async fn ready(settings: &Settings, i: usize) -> anyhow::Result<()> {
    let ports = settings.server(i);
    let client = connect_to(settings, &format!("127.0.0.1:{}", ports.client)).await?;
    async_nats::jetstream::new(client.clone()).query_account().await.context("JetStream account info")?;
    if settings.topology().site_of_server(i).is_some() {
        let hub = cits_jetstream::site::HUB_DOMAIN;
        async_nats::jetstream::with_domain(client, hub)
            .query_account()
            .await
            .with_context(|| format!("the hub's JetStream (domain {hub}) through the leaf node link"))?;
    }
    mqtt_listening(ports.mqtt, settings.tls().map(|f| f.ca)).await
}

/// A connection as the lattice's operator user, to any server of the topology.
pub async fn connect(settings: &Settings) -> anyhow::Result<async_nats::Client> {
    connect_to(settings, &settings.nats_urls()).await
}

async fn connect_to(settings: &Settings, urls: &str) -> anyhow::Result<async_nats::Client> {
    let creds = settings.creds("operator");
    let options = async_nats::ConnectOptions::with_credentials_file(&creds)
        .await
        .with_context(|| format!("cannot read {}", creds.display()))?
        .name("cits-lattice");
    options
        .connect(cits_client::auth::nats_servers(urls)?)
        .await
        .with_context(|| format!("cannot connect to NATS at {urls}"))
}

/// Whether the MQTT listener answers a CONNECT (a refusal of this anonymous client counts:
/// the listener is up).
async fn mqtt_listening(port: u16, ca: Option<std::path::PathBuf>) -> anyhow::Result<()> {
    let mut opts = rumqttc::MqttOptions::new("cits-lattice-ready", "127.0.0.1", port);
    opts.set_keep_alive(Duration::from_secs(5));
    if let Some(ca) = ca {
        opts.set_transport(cits_client::tls::mqtt_transport(&ca)?);
    }
    let (_client, mut eventloop) = rumqttc::AsyncClient::new(opts, 1);
    loop {
        match tokio::time::timeout(Duration::from_secs(2), eventloop.poll()).await {
            Ok(Ok(rumqttc::Event::Incoming(rumqttc::Packet::ConnAck(_))))
            | Ok(Err(rumqttc::ConnectionError::ConnectionRefused(_))) => return Ok(()),
            Ok(Ok(_)) => {}
            Ok(Err(e)) => anyhow::bail!("MQTT on :{port}: {e}"),
            Err(_) => anyhow::bail!("MQTT on :{port}: no CONNACK"),
        }
    }
}

/// The pipeline's streams (stage inputs partitioned by RSU, outboxes, dead letters) and, in a
/// cluster, the hosts' buckets, all with the topology's replicas. A host makes its buckets with
/// one replica unless they exist, so they are made here first.
pub async fn ensure_streams(settings: &Settings) -> anyhow::Result<()> {
    if settings.first_machine() {
        // Streams of three replicas need three servers: across machines, some may still be
        // starting elsewhere.
        let topology = settings.topology();
        let local = settings.local_servers();
        let elsewhere: Vec<&str> =
            (0..topology.nats.len()).filter(|i| !local.contains(i)).filter_map(|i| topology.address_of(i)).collect();
        let give_up = tokio::time::Instant::now() + OTHER_MACHINES;
        let mut attempt = 0;
        while let Err(e) = ensure_hub_streams(settings).await {
            if elsewhere.is_empty() {
                return Err(e);
            }
            if tokio::time::Instant::now() > give_up {
                return Err(e.context(format!("are the hub servers on {elsewhere:?} up? waited {OTHER_MACHINES:?}")));
            }
            if attempt % 6 == 0 {
                super::log(format!("the hub's streams: {e:#}; waiting for the hub servers on {elsewhere:?}"));
            }
            attempt += 1;
            tokio::time::sleep(Duration::from_secs(5)).await;
        }
    }
    // Each site's on its leaf node (one server: one replica, the MQTT capture cannot miss): its
    // ingress and DENMs, or the whole pipeline's streams where it runs the pipeline.
    let topology = settings.topology();
    for (k, site) in topology.sites.iter().enumerate().filter(|(k, _)| settings.runs_here(topology.leaf_server(*k))) {
        let leaf =
            connect_to(settings, &format!("127.0.0.1:{}", settings.server(topology.leaf_server(k)).client)).await?;
        let js = async_nats::jetstream::new(leaf);
        let limits = cits_jetstream::Limits { max_bytes: settings.stream_max_bytes, ..Default::default() };
        match site.pipeline {
            Placement::Hub => cits_jetstream::site::ensure(&js, &site.rsus, &limits).await,
            Placement::Edge => cits_jetstream::ensure_streams(&js, &limits).await,
        }
        .with_context(|| format!("site {}", site.name))?;
    }
    Ok(())
}

/// The hub's streams and buckets (made from the first server's machine).
async fn ensure_hub_streams(settings: &Settings) -> anyhow::Result<()> {
    let js = async_nats::jetstream::new(connect(settings).await?);
    let replicas = settings.topology().replicas();
    if replicas > 1 {
        for bucket in replicated_buckets(settings, replicas) {
            if js.get_key_value(&bucket.bucket).await.is_err() {
                let name = bucket.bucket.clone();
                js.create_key_value(bucket)
                    .await
                    .map_err(|e| anyhow::anyhow!("cannot create bucket {name} (R{replicas}): {e}"))?;
            }
        }
        // The secrets backend's write lock (it makes it in memory with one replica otherwise).
        js.get_or_create_stream(async_nats::jetstream::stream::Config {
            name: format!("SECRETS_{SECRETS_BACKEND}_state_lock"),
            description: Some("Lock stream for secrets state".to_string()),
            discard: async_nats::jetstream::stream::DiscardPolicy::New,
            discard_new_per_subject: true,
            storage: async_nats::jetstream::stream::StorageType::Memory,
            max_messages_per_subject: 1,
            max_age: Duration::from_secs(3),
            subjects: vec![format!("SECRETS_{SECRETS_BACKEND}_state_lock.*")],
            num_replicas: replicas,
            ..Default::default()
        })
        .await
        .map_err(|e| anyhow::anyhow!("cannot create the secrets lock stream (R{replicas}): {e}"))?;
    }
    // In a cluster an MQTT PUBACK does not mean the ingress captured the CPM (a stream electing
    // its leader misses it): the ingress sources the listener's store too (cits_jetstream::mqtt).
    let topology = settings.topology();
    let limits = cits_jetstream::Limits {
        max_bytes: settings.stream_max_bytes,
        replicas,
        source_mqtt: replicas > 1,
        ingress_sites: sites_placed(&topology, Placement::Hub),
        watched_sites: sites_placed(&topology, Placement::Edge),
        ..Default::default()
    };
    cits_jetstream::ensure_streams(&js, &limits).await
}

/// The names of the sites whose pipeline runs at `placement`.
fn sites_placed(topology: &super::Topology, placement: Placement) -> Vec<String> {
    topology.sites.iter().filter(|s| s.pipeline == placement).map(|s| s.name.clone()).collect()
}

/// The secrets backend's name (secrets-nats-kv's default, in its bucket and stream names).
const SECRETS_BACKEND: &str = "nats-kv";

/// The buckets the hosts and the secrets backend make unless they exist, as they make them but
/// on `replicas` servers: the hosts' lattice data and named config, the backend's secrets and
/// their mappings.
fn replicated_buckets(settings: &Settings, replicas: usize) -> Vec<async_nats::jetstream::kv::Config> {
    use async_nats::jetstream::kv::Config;
    vec![
        Config { bucket: format!("LATTICEDATA_{}", settings.lattice), num_replicas: replicas, ..Default::default() },
        Config { bucket: format!("CONFIGDATA_{}", settings.lattice), num_replicas: replicas, ..Default::default() },
        Config {
            bucket: "WASMCLOUD_SECRETS".to_string(),
            description: "Secrets store".to_string(),
            compression: true,
            history: 64,
            num_replicas: replicas,
            ..Default::default()
        },
        Config {
            bucket: format!("SECRETS_{SECRETS_BACKEND}_state"),
            description: "Secrets state store".to_string(),
            compression: true,
            num_replicas: replicas,
            ..Default::default()
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Settings on ports 4300 (client), 1900 (MQTT), 8300 (monitoring), 6300 (routes) and 7300
    /// (leaf nodes) of the preset `topology`, state in /tmp/s.
    fn on_ports(topology: &str) -> Settings {
        Settings {
            state: "/tmp/s".into(),
            nats_port: 4300,
            mqtt_port: 1900,
            nats_http_port: 8300,
            nats_cluster_port: 6300,
            nats_leaf_port: 7300,
            topology: Some(crate::lattice::Topology::preset(topology).unwrap()),
            ..crate::lattice::tests::settings()
        }
    }

    /// The server's config file checked by nats-server itself (`-t`), beside a resolver include
    /// and TLS files as `cits lattice up` writes them.
    fn accepted_by_nats_server(settings: &Settings, conf: &ServerConfig) {
        let Some(server) = std::env::var_os("NATS_SERVER") else {
            panic!("NATS_SERVER: the nats-server binary (make test-unit sets it)")
        };
        let dir = settings.state.clone();
        std::fs::create_dir_all(dir.join("auth")).unwrap();
        std::fs::write(dir.join(RESOLVER_INCLUDE), "").unwrap();
        if let Some(tls) = settings.tls() {
            cits_client::tls::ensure(tls.ca.parent().unwrap(), &["localhost".to_string()]).unwrap();
        }
        let file = dir.join("check.conf");
        std::fs::write(&file, conf.render()).unwrap();
        let out = std::process::Command::new(server).arg("-c").arg(&file).arg("-t").output().unwrap();
        let said = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && said.contains("is valid"), "{said}\n{}", conf.render());
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn in_temp_state(settings: Settings, name: &str) -> Settings {
        let state = std::env::temp_dir().join(format!("cits-nats-conf-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&state);
        Settings { state, ..settings }
    }

    #[test]
    fn config_names_the_ports_the_store_and_the_resolver() {
        let settings = Settings { nats_sync: "2m".into(), ..on_ports("single") };
        let conf = config(&settings, 0, None);
        assert_eq!(
            (conf.server_name.as_str(), conf.listen.as_str(), conf.http.as_str(), conf.mqtt.listen.as_str()),
            ("cits-4300", "127.0.0.1:4300", "127.0.0.1:8300", "127.0.0.1:1900")
        );
        assert_eq!(
            conf.jetstream,
            JetStream { store_dir: "/tmp/s/jetstream".into(), sync_interval: "2m".into(), domain: None }
        );
        assert!(conf.cluster.is_none() && conf.leafnodes.is_none(), "one server, no routes: {conf:?}");
        let text = conf.render();
        assert!(
            text.contains("sync_interval\":\"2m\"") && text.ends_with("include \"auth/resolver.conf\"\n"),
            "{text}"
        );
        let settings = in_temp_state(settings, "single");
        accepted_by_nats_server(&settings, &config(&settings, 0, None));
    }

    #[test]
    fn a_cluster_servers_config_has_its_own_ports_and_store_and_routes_to_all() {
        let settings = on_ports("cluster");
        let conf = config(&settings, 2, None);
        assert_eq!((conf.server_name.as_str(), conf.http.as_str()), ("cits-4302", "127.0.0.1:8302"));
        assert_eq!(conf.jetstream.store_dir, "/tmp/s/jetstream-3");
        let cluster = conf.cluster.as_ref().unwrap();
        assert_eq!((cluster.name.as_str(), cluster.listen.as_str()), ("cits", "127.0.0.1:6302"));
        assert_eq!(
            cluster.routes,
            ["nats-route://127.0.0.1:6300", "nats-route://127.0.0.1:6301", "nats-route://127.0.0.1:6302"]
        );
        assert_eq!(cluster.tls.as_ref().and_then(|t| t.verify), Some(true), "servers check each other");
        assert_eq!(conf.mqtt.listen, "127.0.0.1:1902");
        assert!(conf.mqtt.tls.as_ref().is_some_and(|t| t.ca_file.is_none()));
        assert_eq!(config_file(2), "nats-3.conf");
        assert!(conf.leafnodes.is_none() && conf.jetstream.domain.is_none(), "no sites: {conf:?}");
        assert_eq!(settings.nats_urls(), "nats://127.0.0.1:4300,nats://127.0.0.1:4301,nats://127.0.0.1:4302");
        let settings = in_temp_state(settings, "cluster");
        accepted_by_nats_server(&settings, &config(&settings, 2, None));
    }

    #[test]
    fn servers_with_addresses_listen_on_every_interface_and_name_their_peers_by_address() {
        let mut settings = on_ports("edge");
        let mut topology = settings.topology().into_owned();
        for (j, n) in topology.nats.iter_mut().enumerate() {
            n.address = Some(format!("10.0.0.{}", j + 1));
        }
        topology.sites[0].address = Some("site-1.example".into());
        assert_eq!(topology.addresses(), ["10.0.0.1", "10.0.0.2", "10.0.0.3", "site-1.example"]);
        settings.topology = Some(topology);
        let hub = config(&settings, 1, None);
        assert_eq!((hub.listen.as_str(), hub.http.as_str()), ("127.0.0.1:4301", "0.0.0.0:8301"));
        let cluster = hub.cluster.as_ref().unwrap();
        assert_eq!((cluster.listen.as_str(), cluster.advertise.as_deref()), ("0.0.0.0:6301", Some("10.0.0.2:6301")));
        assert!(cluster.routes.contains(&"nats-route://10.0.0.1:6300".to_string()));
        assert!(cluster.routes.contains(&"nats-route://10.0.0.3:6302".to_string()));
        let leafnodes = hub.leafnodes.as_ref().unwrap();
        assert_eq!(
            (leafnodes.listen.as_deref(), leafnodes.advertise.as_deref()),
            (Some("0.0.0.0:7301"), Some("10.0.0.2:7301"))
        );
        assert_eq!(hub.mqtt.listen, "0.0.0.0:1901");
        let leaf = config(&settings, 3, Some("AKEY"));
        assert_eq!(
            leaf.leafnodes.as_ref().unwrap().remotes[0].urls,
            ["nats-leaf://10.0.0.1:7300", "nats-leaf://10.0.0.2:7301", "nats-leaf://10.0.0.3:7302"]
        );
        assert_eq!((leaf.listen.as_str(), leaf.mqtt.listen.as_str()), ("127.0.0.1:4303", "0.0.0.0:1903"));
    }

    #[test]
    fn each_machine_runs_its_own_servers_and_its_clients_connect_to_them() {
        let mut settings = on_ports("edge");
        settings.topology = Some(
            super::super::Topology::parse_arg(
                "{nats: [{address: 10.0.0.1}, {address: 10.0.0.1}, {address: 10.0.0.3}], \
                 hosts: [{}, {}, {}, {site: s}], sites: [{name: s, rsus: [r], pipeline: edge, address: 10.0.1.1}]}",
            )
            .unwrap(),
        );
        let on = |machine: &str| Settings { machine: Some(machine.into()), ..settings.clone() };
        let first = on("10.0.0.1");
        assert_eq!((first.local_servers(), first.first_machine()), (vec![0, 1], true));
        assert_eq!(first.nats_urls(), "nats://127.0.0.1:4300,nats://127.0.0.1:4301");
        assert_eq!(first.nats_pid_files().len(), 2);
        let third = on("10.0.0.3");
        assert_eq!(
            (third.local_servers(), third.first_machine(), third.nats_addr()),
            (vec![2], false, "127.0.0.1:4302".into())
        );
        let site = on("10.0.1.1");
        assert_eq!((site.local_servers(), site.nats_urls()), (vec![3], "nats://127.0.0.1:4303".into()));
        assert_eq!(site.common_env().iter().find(|(k, _)| *k == "WASMCLOUD_CTL_PORT").unwrap().1, "4303");
        assert_eq!(settings.local_servers(), [0, 1, 2, 3], "no machine given: all on this one");
        // The hub's third host is away from its Redis and blob folder; the site's is by its own.
        let topology = settings.topology();
        let store: Vec<String> = (1..=4).map(|n| topology.labels_of(n)["store"].clone()).collect();
        assert_eq!(store, ["local", "local", "remote", "local"]);
        assert!((1..=4).filter(|&n| first.runs_here(topology.server_of(n))).eq([1, 2]));
        assert!(topology.check_machine("10.0.1.1").is_ok());
        let err = topology.check_machine("10.9.9.9").unwrap_err().to_string();
        assert!(err.contains("no server") && err.contains("10.0.0.3"), "{err}");
        let edge = on_ports("edge").topology().into_owned();
        assert!(edge.check_machine("10.0.0.1").unwrap_err().to_string().contains("server 0 has none"));
    }

    #[test]
    fn a_hub_takes_its_sites_and_a_sites_leaf_node_dials_it_with_the_pipeline_kept_off_the_link() {
        let settings = on_ports("edge");
        let hub = config(&settings, 1, None);
        assert_eq!(hub.jetstream.domain.as_deref(), Some("hub"));
        let listener = hub.leafnodes.as_ref().unwrap();
        assert_eq!(
            (listener.listen.as_deref(), listener.advertise.as_deref()),
            (Some("127.0.0.1:7301"), Some("127.0.0.1:7301"))
        );
        assert_eq!(listener.tls.as_ref().and_then(|t| t.verify), Some(true));
        assert!(hub.cluster.as_ref().unwrap().routes.contains(&"nats-route://127.0.0.1:6302".to_string()));
        let leaf = config(&settings, 3, Some("AKEY"));
        assert_eq!(
            (leaf.server_name.as_str(), leaf.jetstream.store_dir.as_str(), leaf.jetstream.domain.as_deref()),
            ("cits-4303", "/tmp/s/jetstream-4", Some("site-1"))
        );
        let nodes = leaf.leafnodes.as_ref().unwrap();
        assert!(nodes.listen.is_none() && leaf.cluster.is_none(), "a leaf node only dials: {leaf:?}");
        let remote = &nodes.remotes[0];
        assert_eq!(
            remote.urls,
            ["nats-leaf://127.0.0.1:7300", "nats-leaf://127.0.0.1:7301", "nats-leaf://127.0.0.1:7302"]
        );
        assert_eq!((remote.account.as_str(), remote.credentials.as_str()), ("AKEY", "/tmp/s/auth/users/leaf.creds"));
        assert_eq!(
            (remote.deny_imports.as_slice(), remote.deny_exports.as_slice()),
            (&["cits.>".to_string(), "$MQTT.>".to_string()][..], &["cits.>".to_string(), "$MQTT.>".to_string()][..])
        );
        assert_eq!(remote.tls.as_ref().and_then(|t| t.ca_file.as_deref()), Some("/tmp/s/tls/ca.pem"));
        assert_eq!(leaf.mqtt.listen, "127.0.0.1:1903");
        assert_eq!(settings.rsu_mqtt_port("rsu1"), 1903);
        assert_eq!(settings.rsu_mqtt_port("probe"), 1900);
        // A link in between (a test's proxy): the site dials it instead, and the hub says so.
        let mut topology = settings.topology().into_owned();
        topology.nats[0].leaf_via = Some(9000);
        let via = Settings { topology: Some(topology), ..settings.clone() };
        let leaf = config(&via, 3, Some("AKEY"));
        assert_eq!(
            leaf.leafnodes.unwrap().remotes[0].urls[..2],
            ["nats-leaf://127.0.0.1:9000", "nats-leaf://127.0.0.1:7301"]
        );
        assert_eq!(config(&via, 0, None).leafnodes.unwrap().advertise.as_deref(), Some("127.0.0.1:9000"));
        // nats-server reads both, TLS files and all.
        let settings = in_temp_state(settings, "edge");
        accepted_by_nats_server(&settings, &config(&settings, 1, None));
        accepted_by_nats_server(&settings, &config(&settings, 3, Some("AKEY")));
    }
}

//! Shared fixtures of the end-to-end tests: a real lattice (NATS with JetStream and MQTT, Redis,
//! wadm, wasmCloud host) on free ports, the pipeline deployed with `wash app deploy`, and real
//! MQTT and NATS clients.
//!
//! Binaries come from `make setup`; run these tests with `make test-e2e`, which passes their paths.

pub mod faults;
pub mod link;
mod servers;
pub mod warnings;

pub use servers::{NatsServer, RedisServer};

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context as _};
use futures::StreamExt as _;
use rumqttc::{AsyncClient, Event, MqttOptions, Outgoing, Packet, QoS};

/// Runs `future` to completion on a runtime of its own (on a thread of its own: the caller may
/// be inside a test's runtime, where blocking on another is refused).
fn block_on<F: std::future::Future + Send>(future: F) -> F::Output
where
    F::Output: Send,
{
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a runtime for the lattice supervisor")
                    .block_on(future)
            })
            .join()
            .expect("the lattice supervisor's thread")
    })
}

/// Polls `done` every 200 ms for at most `limit`; whether it held.
pub fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let give_up = std::time::Instant::now() + limit;
    while std::time::Instant::now() < give_up {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    done()
}

pub fn env_path(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set: run the end-to-end tests with `make test-e2e`"))
}

/// The seven stage components' ids in the seven-actor deployment.
pub const STAGE_COMPONENTS: [&str; 7] = [
    "cits-decoder",
    "cits-collector",
    "cits-assembler",
    "cits-map-matcher",
    "cits-predictor",
    "cits-collision-detector",
    "cits-denm-sender",
];

/// A free TCP port on loopback, below the kernel's ephemeral range (32768 and up here): a server
/// restarted mid-test must find its port again, and an ephemeral one can meanwhile be the source
/// port of any outgoing connection ("bind: address already in use", seen in `make chaos`).
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    const FIRST: u32 = 20_000;
    const SPAN: u32 = 12_000;
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let start = std::process::id().wrapping_mul(7919) % SPAN;
    loop {
        let port = (FIRST + (start + NEXT.fetch_add(1, Ordering::Relaxed)) % SPAN) as u16;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

/// The first of `n` consecutive free TCP ports on loopback (a cluster's servers listen on a
/// lattice's ports plus 0, 1, 2).
pub fn free_ports(n: u16) -> u16 {
    loop {
        // Taken one after the other, so no later free_port() hands out one of them.
        let base = free_port();
        if (1..n).all(|i| free_port() == base + i) {
            return base;
        }
    }
}

/// The fused manifest deploying the component with every optional ETSI codec (`make
/// actors-all-codecs`) instead of the default one (TS 103 324 CPMs and CAMs): for the tests of the
/// other formats. Written to the temp dir with absolute artefact paths; pass it to
/// [`Lattice::start_with`].
pub fn fused_manifest_with_all_codecs() -> String {
    let repo = PathBuf::from(env_path("CITS_REPO"));
    let component = "actors/pipeline/build/pipeline_all_codecs_s.wasm";
    assert!(repo.join(component).exists(), "{component} is missing: `make actors-all-codecs` builds it");
    let images = vec![("pipeline".to_string(), repo.join(component).display().to_string())];
    let fused = repo.join("wadm/cits-pipeline-fused.yaml");
    let mut manifest = cits_manifest::load(&fused).unwrap();
    let render = cits_manifest::Render { images, ..Default::default() };
    cits_manifest::render(&mut manifest, &repo.join("wadm"), &render).unwrap();
    let manifest = cits_manifest::canonical_yaml(&manifest).unwrap();
    let path = std::env::temp_dir().join(format!("cits-e2e-fused-all-codecs-{}.yaml", std::process::id()));
    std::fs::write(&path, manifest).unwrap();
    path.display().to_string()
}

/// `<tmp>/cits-e2e-<name>-<pid>`, emptied: a test lattice's state (or scratch) dir.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cits-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A running lattice with the pipeline deployed; torn down (by PID) on drop.
pub struct Lattice {
    pub repo: PathBuf,
    pub state: PathBuf,
    pub nats_port: u16,
    pub mqtt_port: u16,
    pub redis_port: u16,
    http_port: u16,
    cluster_port: u16,
    leaf_port: u16,
    manifest: Option<PathBuf>,
    /// wasmCloud hosts in the lattice.
    pub hosts: u8,
    /// The lattice's servers and hosts when not one server and `hosts` hosts.
    topology: Option<cits_ops::lattice::Topology>,
    /// The NATS server (from 0) whose MQTT listener replays connect to (an RSU of a site: its
    /// site's leaf node).
    pub rsu_server: usize,
    /// The sites' link to the hub (to each of its servers), if it has sites: the test cuts it.
    pub site_link: Option<link::Link>,
    /// The pipeline's `limits.max_age_ms` when not the production value (replays faster than
    /// real time send CPMs older than live, see `cits_client::replay::live`).
    max_age_ms: Option<u64>,
    /// On a topology over several machines: the first's address (this lattice's state dir is
    /// its) and the others' with their state dirs (all on this machine's loopback addresses).
    machine: Option<String>,
    pub other_machines: Vec<(String, PathBuf)>,
}

impl Lattice {
    /// Starts everything, deploys `wadm/cits-pipeline.yaml` and waits until a probe CPM flows.
    pub fn start(name: &str) -> Self {
        Self::start_with(name, None)
    }

    /// Like [`Lattice::start`] with another manifest of the repository (e.g. `wadm/cits-pipeline-fused.yaml`).
    pub fn start_with(name: &str, manifest: Option<&str>) -> Self {
        Self::start_steps(name, manifest, &["up", "deploy", "probe"])
    }

    /// Like [`Lattice::start_with`] on `hosts` wasmCloud hosts (every stage and provider on each).
    pub fn start_hosts(name: &str, manifest: Option<&str>, hosts: u8) -> Self {
        Self::start_full(name, manifest, &["up", "deploy", "probe"], hosts, None)
    }

    /// The native baseline instead of the actors: the stages as `cits stage` processes on the
    /// same NATS, Redis and map (nothing deployed on the host); `native` is `cits lattice
    /// native-up`'s arguments (`seven core`, `fused durable`, …).
    pub fn start_native(name: &str, native: &str) -> Self {
        Self::start_steps(name, None, &["up", &format!("native-up {native}"), "probe"])
    }

    /// NATS, Redis, wadm and the hosts as `make run` starts them, nothing deployed.
    pub fn start_services(name: &str) -> Self {
        Self::start_steps(name, None, &["up"])
    }

    fn start_steps(name: &str, manifest: Option<&str>, steps: &[&str]) -> Self {
        Self::start_full(name, manifest, steps, 1, None)
    }

    /// As `make run` leaves it (up, deploy, probe), with its state in `<scratch>/.state` as
    /// `make run`'s is in the clone's `.state`: commands written for the clone (README) run in
    /// [`Lattice::scratch`] unchanged. Removed with the lattice.
    pub fn start_like_make_run(name: &str) -> Self {
        Self::start_in(fresh_dir(name).join(".state"), None, &["up", "deploy", "probe"], 1, None)
    }

    /// The folder holding this lattice's state dir.
    pub fn scratch(&self) -> PathBuf {
        self.state.parent().expect("state dir has a parent").to_path_buf()
    }

    /// A lattice of a named topology (`cluster`: three NATS servers in one cluster, a host on
    /// each), `manifest` deployed, replays connecting to the MQTT listener of server `rsu_server`.
    pub fn start_topology(
        name: &str,
        topology: &str,
        manifest: Option<&str>,
        rsu_server: usize,
        max_age: Duration,
    ) -> Self {
        let topology = cits_ops::lattice::Topology::parse_arg(topology).expect("a topology");
        let hosts = topology.hosts.len() as u8;
        Self::start_lattice(
            fresh_dir(name),
            manifest,
            &["up", "deploy", "probe"],
            hosts,
            Some(max_age.as_millis() as u64),
            Some(topology),
            rsu_server,
        )
    }

    /// A topology over several machines — its servers' addresses, loopback ones here
    /// (127.0.0.2, …) — started as an operator would: `init` on the first server's machine,
    /// its `auth/` and `tls/` copied to each other machine's state dir, `up` on every machine
    /// at once (each waits for what it needs of the others), then deploy and probe from the
    /// first; `manifest` deployed.
    pub fn start_machines(name: &str, topology: &str, manifest: Option<&str>, max_age: Duration) -> Self {
        let parsed = cits_ops::lattice::Topology::parse_arg(topology).expect("a topology");
        let first = parsed.address_of(0).expect("server 0 has an address").to_string();
        let hosts = parsed.hosts.len() as u8;
        let mut lattice = Self::start_lattice(
            fresh_dir(name),
            manifest,
            &[],
            hosts,
            Some(max_age.as_millis() as u64),
            Some(parsed),
            0,
        );
        lattice.machine = Some(first.clone());
        let others = lattice.topology.as_ref().unwrap().addresses().into_iter().filter(|a| *a != first);
        lattice.other_machines = others.map(|a| (a.clone(), fresh_dir(&format!("{name}-{a}")))).collect();
        lattice.step(&["init"]).expect("cits lattice init on the first machine");
        for (_, state) in &lattice.other_machines {
            std::fs::create_dir_all(state).unwrap();
            for dir in ["auth", "tls"] {
                let copied = Command::new("cp").arg("-a").arg(lattice.state.join(dir)).arg(state).status().unwrap();
                assert!(copied.success(), "cp -a {dir}");
            }
        }
        let supervisors: Vec<_> = std::iter::once(lattice.supervisor())
            .chain(lattice.other_machines.iter().map(|(a, _)| lattice.machine_supervisor(a)))
            .collect();
        std::thread::scope(|scope| {
            let ups: Vec<_> = supervisors
                .iter()
                .map(|s| scope.spawn(|| block_on(s.run(cits_ops::lattice::Step::Up)).map_err(|e| format!("{e:#}"))))
                .collect();
            for (up, s) in ups.into_iter().zip(&supervisors) {
                if let Err(e) = up.join().unwrap() {
                    panic!("cits lattice up on {:?} failed: {e}", s.settings.machine);
                }
            }
        });
        for step in ["deploy", "probe"] {
            lattice.step(&[step]).unwrap_or_else(|e| panic!("cits lattice {step}: {e:#}"));
        }
        lattice
    }

    /// The supervisor of machine `address`'s part of this lattice (one of [`Self::other_machines`]).
    pub fn machine_supervisor(&self, address: &str) -> cits_ops::lattice::Lattice {
        let (_, state) = self.other_machines.iter().find(|(a, _)| a == address).expect("one of the other machines");
        let mut supervisor = self.supervisor();
        supervisor.settings.machine = Some(address.to_string());
        supervisor.settings.state = state.clone();
        cits_ops::lattice::Lattice::new(supervisor.settings)
    }

    fn start_full(name: &str, manifest: Option<&str>, steps: &[&str], hosts: u8, max_age_ms: Option<u64>) -> Self {
        Self::start_in(fresh_dir(name), manifest, steps, hosts, max_age_ms)
    }

    fn start_in(state: PathBuf, manifest: Option<&str>, steps: &[&str], hosts: u8, max_age_ms: Option<u64>) -> Self {
        Self::start_lattice(state, manifest, steps, hosts, max_age_ms, None, 0)
    }

    fn start_lattice(
        state: PathBuf,
        manifest: Option<&str>,
        steps: &[&str],
        hosts: u8,
        max_age_ms: Option<u64>,
        topology: Option<cits_ops::lattice::Topology>,
        rsu_server: usize,
    ) -> Self {
        let repo = PathBuf::from(env_path("CITS_REPO"));
        // A cluster's servers listen on these plus 0, 1, 2, the sites' leaf nodes after them.
        let servers = topology.as_ref().map_or(1, |t| t.servers() as u16);
        let hub = topology.as_ref().map_or(1, |t| t.nats.len() as u16);
        let mut topology = topology;
        let leaf_port = free_ports(hub);
        // Sites reach the hub through a link of the test's own.
        let site_link = topology.as_mut().filter(|t| !t.sites.is_empty()).map(|t| {
            let link = link::Link::start(&(0..hub).map(|j| leaf_port + j).collect::<Vec<_>>());
            for (server, port) in t.nats.iter_mut().zip(&link.ports) {
                server.leaf_via = Some(*port);
            }
            link
        });
        let lattice = Self {
            state,
            nats_port: free_ports(servers),
            mqtt_port: free_ports(servers),
            // A site that runs its pipeline has a Redis on its leaf node's share of these.
            redis_port: free_ports(servers),
            http_port: free_ports(servers),
            cluster_port: free_ports(hub),
            leaf_port,
            manifest: manifest.map(|m| repo.join(m)),
            repo,
            hosts,
            max_age_ms,
            topology,
            rsu_server,
            site_link,
            machine: None,
            other_machines: Vec::new(),
        };
        for step in steps {
            if let Err(e) = lattice.step(&step.split_whitespace().collect::<Vec<_>>()) {
                let log = std::fs::read_to_string(lattice.state.join("logs/host-1.log")).unwrap_or_default();
                let tail: Vec<&str> = log.lines().rev().take(60).collect();
                panic!(
                    "cits lattice {step} failed: {e:#}\nhost log tail:\n{}",
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                );
            }
        }
        lattice
    }

    /// The supervisor of this lattice (`cits lattice`), with the binaries `make test-e2e` names.
    pub fn supervisor(&self) -> cits_ops::lattice::Lattice {
        let settings = cits_ops::lattice::Settings::from_env().expect("lattice settings from the environment");
        cits_ops::lattice::Lattice::new(cits_ops::lattice::Settings {
            state: self.state.clone(),
            repo: self.repo.clone(),
            nats_port: self.nats_port,
            mqtt_port: self.mqtt_port,
            redis_port: self.redis_port,
            nats_http_port: self.http_port,
            nats_cluster_port: self.cluster_port,
            nats_leaf_port: self.leaf_port,
            hosts: self.hosts.into(),
            topology: self.topology.clone(),
            manifest: self.manifest.clone(),
            max_age_ms: self.max_age_ms,
            machine: self.machine.clone(),
            // The server reserves each stream's limit up front against 75 % of the disk free at
            // its start: 10 × 256 MiB failed CI on a busy disk. A test replays a few MB per stream.
            stream_max_bytes: 64 << 20,
            ..settings
        })
    }

    /// Runs `wash` against this lattice and returns its stdout.
    pub fn wash(&self, args: &[&str]) -> anyhow::Result<String> {
        let out = Command::new(env_path("WASH"))
            .args(args)
            .env("WASMCLOUD_CTL_HOST", "127.0.0.1")
            .env("WASMCLOUD_CTL_PORT", self.nats_port.to_string())
            .env("WASH_CONTEXT_DIR", self.state.join("wash/contexts"))
            .env("WASH_CTL_CREDS", self.creds("operator"))
            .output()
            .context("wash runs")?;
        if !out.status.success() {
            bail!("wash {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// The lattice's auth directory (NATS authority, RSU tokens, Redis password).
    pub fn auth_dir(&self) -> PathBuf {
        self.state.join("auth")
    }

    /// The `.creds` file of lattice user `user` (operator, host, wadm, policy).
    pub fn creds(&self, user: &str) -> PathBuf {
        self.auth_dir().join("users").join(format!("{user}.creds"))
    }

    /// A NATS connection as the lattice's operator.
    pub async fn nats(&self) -> async_nats::Client {
        self.nats_as(&self.creds("operator")).await.expect("NATS reachable as operator")
    }

    pub async fn nats_as(&self, creds: &std::path::Path) -> anyhow::Result<async_nats::Client> {
        // Every server of a cluster: the test goes on through another while one is killed.
        self.nats_at(creds, &self.supervisor().settings.nats_urls()).await
    }

    /// As `creds`, to the servers of `urls` (comma separated) only.
    async fn nats_at(&self, creds: &std::path::Path, urls: &str) -> anyhow::Result<async_nats::Client> {
        let options = async_nats::ConnectOptions::with_credentials_file(creds).await?;
        Ok(options.connect(cits_client::auth::nats_servers(urls)?).await?)
    }

    /// Redis URL with the pipeline's ACL user and password.
    pub fn redis_url(&self) -> String {
        let password = std::fs::read_to_string(self.auth_dir().join("redis.password")).expect("Redis password");
        format!("redis://cits:{}@127.0.0.1:{}/", password.trim(), self.redis_port)
    }

    /// Registers RSU `rsu` (credentials and station 1001, the recordings' station).
    pub fn add_rsu(&self, rsu: &str) {
        self.step(&["rsu-add", rsu]).expect("cits rsu add");
    }

    /// Replay options for `rsus` (registered first), each RSU connecting with its own token.
    pub fn replay_options(&self, rsus: &[&str], speed: f64, qos: u8) -> cits_client::replay::ReplayOptions {
        for rsu in rsus {
            self.add_rsu(rsu);
        }
        let settings = self.supervisor().settings;
        let server = self.rsu_server_of(rsus[0]);
        cits_client::replay::ReplayOptions {
            // An RSU dials its server's address (its certificate names it), loopback by default.
            mqtt_host: settings.topology().reach(server).into(),
            mqtt_port: settings.server(server).mqtt,
            rsus: rsus.iter().map(|r| r.to_string()).collect(),
            speed,
            qos,
            progress: false,
            auth: Some(self.auth_dir()),
            wire: Default::default(),
            mqtt_ca: settings.tls().map(|f| f.ca),
        }
    }

    /// The NATS server whose MQTT listener `rsu` connects to: its site's leaf node, else server
    /// `rsu_server`.
    fn rsu_server_of(&self, rsu: &str) -> usize {
        let topology = self.supervisor().settings.topology().into_owned();
        topology.site_of_rsu(rsu).map_or(self.rsu_server, |(k, _)| topology.leaf_server(k))
    }

    /// RSU `rsu`'s token (its MQTT password), issued by `add_rsu`.
    pub fn rsu_token(&self, rsu: &str) -> String {
        cits_nats_auth::Authority::open(&self.auth_dir())
            .and_then(|a| a.rsu_token(rsu))
            .expect("RSU token")
            .trim()
            .into()
    }

    /// One MQTT login as `creds` (user, password; None: anonymous): the connected client and its
    /// event loop, or why the broker refused (the CONNACK code, the connection error).
    pub async fn mqtt_login(
        &self,
        id: &str,
        creds: Option<(&str, &str)>,
    ) -> Result<(AsyncClient, rumqttc::EventLoop), String> {
        let mut opts = MqttOptions::new(id, "127.0.0.1", self.mqtt_port);
        opts.set_keep_alive(Duration::from_secs(30));
        opts.set_max_packet_size(2 << 20, 2 << 20);
        if let Some((user, password)) = creds {
            opts.set_credentials(user, password);
        }
        let (client, mut eventloop) = AsyncClient::new(opts, 512);
        loop {
            match tokio::time::timeout(Duration::from_secs(15), eventloop.poll()).await {
                Ok(Ok(Event::Incoming(Packet::ConnAck(ack)))) if ack.code == rumqttc::ConnectReturnCode::Success => {
                    return Ok((client, eventloop))
                }
                Ok(Ok(Event::Incoming(Packet::ConnAck(ack)))) => return Err(format!("{:?}", ack.code)),
                Ok(Ok(_)) => {}
                Ok(Err(e)) => return Err(e.to_string()),
                Err(_) => return Err("no CONNACK".into()),
            }
        }
    }

    /// An MQTT client connected to NATS's MQTT listener as RSU `rsu` (registered first), with
    /// its token, as the RSU would be.
    pub async fn mqtt(&self, rsu: &str) -> Mqtt {
        self.add_rsu(rsu);
        self.mqtt_registered(rsu).await
    }

    /// An MQTT connection as `rsu`, registered already (e.g. with another station or object
    /// frame than [`Self::add_rsu`] gives).
    pub async fn mqtt_registered(&self, rsu: &str) -> Mqtt {
        let mut opts = MqttOptions::new(format!("{rsu}-client"), "127.0.0.1", self.mqtt_port);
        cits_client::auth::apply_rsu_credentials(Some(&self.auth_dir()), rsu, &mut opts).expect("RSU token");
        opts.set_keep_alive(Duration::from_secs(30));
        // rumqttc refuses packets over 10 KiB by default; oversized CPMs must reach the pipeline.
        opts.set_max_packet_size(1 << 20, 1 << 20);
        let (client, mut eventloop) = AsyncClient::new(opts, 256);
        let (sent_tx, sent_rx) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            loop {
                match eventloop.poll().await {
                    Ok(Event::Outgoing(Outgoing::Publish(_))) => {
                        let _ = sent_tx.send(());
                    }
                    Ok(_) => {}
                    Err(e) => {
                        eprintln!("MQTT event loop: {e}");
                        tokio::time::sleep(Duration::from_millis(200)).await;
                    }
                }
            }
        });
        Mqtt { client, sent: sent_rx }
    }
}

impl Lattice {
    /// Starts the web dashboard on a free port; returns its URL.
    pub fn start_dashboard(&self) -> String {
        let port = free_port();
        let mut supervisor = self.supervisor();
        supervisor.settings.dashboard_port = port;
        let step = cits_ops::lattice::Step::DashboardUp;
        if let Err(e) = block_on(supervisor.run(step)) {
            panic!("cits lattice dashboard-up failed: {e:#}");
        }
        format!("http://127.0.0.1:{port}/")
    }

    /// The dashboard's current snapshot of `topic` (`lattice`, `app`, …) as JSON, from the page's
    /// own API at `url` (what [`Lattice::start_dashboard`] returned).
    pub async fn dashboard_snapshot(&self, url: &str, topic: &str) -> anyhow::Result<serde_json::Value> {
        let addr = url.trim_start_matches("http://").trim_end_matches('/');
        cits_client::http::get_json(addr, &format!("/api/snapshot/{topic}"), Duration::from_secs(10)).await
    }

    /// Runs a `cits lattice` step against this lattice (`&["host-up", "2"]`).
    pub fn step(&self, args: &[&str]) -> anyhow::Result<()> {
        let step = cits_ops::lattice::parse_step(args)?;
        let supervisor = self.supervisor();
        block_on(supervisor.run(step)).with_context(|| format!("cits lattice {args:?}"))
    }

    /// Sends one probe CPM (`cits probe`) and tells whether its FrameDone came out in time.
    pub fn probe(&self, timeout: Duration) -> bool {
        Command::new(env_path("CITS_TOOL"))
            .args(["probe", "--nats", &format!("127.0.0.1:{}", self.nats_port)])
            .env("CITS_AUTH", self.auth_dir())
            .args(["--timeout-ms", &timeout.as_millis().to_string()])
            .status()
            .expect("cits probe runs")
            .success()
    }

    /// PID of service `name` (`nats`, `redis`, `host-1`, …) from its PID file.
    pub fn pid(&self, name: &str) -> anyhow::Result<i32> {
        let file = self.state.join("pids").join(format!("{name}.pid"));
        Ok(std::fs::read_to_string(&file).with_context(|| format!("{}", file.display()))?.trim().parse()?)
    }

    /// PIDs of the processes host `n` started whose command line contains `what` (its providers run
    /// from `<state>/host-tmp/<n>/wasmcloudcache/…/<archive path with _ for / and .>`).
    pub fn host_children(&self, n: u8, what: &str) -> anyhow::Result<Vec<i32>> {
        let group = self.pid(&format!("host-{n}"))?;
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc")?.flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
            let (Ok(stat), Ok(cmdline)) =
                (std::fs::read_to_string(entry.path().join("stat")), std::fs::read(entry.path().join("cmdline")))
            else {
                continue;
            };
            // Field 5 of /proc/<pid>/stat is the process group (after the parenthesised name).
            let pgrp = stat.rsplit_once(") ").and_then(|(_, rest)| rest.split(' ').nth(2)).and_then(|g| g.parse().ok());
            if pid != group && pgrp == Some(group) && String::from_utf8_lossy(&cmdline).contains(what) {
                found.push(pid);
            }
        }
        Ok(found)
    }

    /// `kill -9` of a process.
    pub fn kill9(pid: i32) {
        let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
    }

    /// A machine failure: host `n` and everything it started, killed at once.
    pub fn crash_host(&self, n: u8) -> anyhow::Result<()> {
        let pid = self.pid(&format!("host-{n}"))?;
        Command::new("kill").args(["-KILL", "--", &format!("-{pid}")]).status()?;
        Ok(())
    }

    /// Every message a JetStream stream holds, in stream order.
    pub async fn stream_messages(&self, stream: &str) -> anyhow::Result<Vec<async_nats::jetstream::Message>> {
        self.server_stream_messages(None, stream).await
    }

    /// Every message `stream` of site `k`'s leaf node holds (its own JetStream domain).
    pub async fn site_stream_messages(
        &self,
        k: usize,
        stream: &str,
    ) -> anyhow::Result<Vec<async_nats::jetstream::Message>> {
        let topology = self.supervisor().settings.topology().into_owned();
        self.server_stream_messages(Some(topology.leaf_server(k)), stream).await
    }

    /// A stream's messages on server `server` (None: any of the hub's).
    async fn server_stream_messages(
        &self,
        server: Option<usize>,
        stream: &str,
    ) -> anyhow::Result<Vec<async_nats::jetstream::Message>> {
        // A cluster heals for a while after a server came back (a stream or the reading consumer
        // without a leader answers 503): read again from the start.
        let mut attempt = 1;
        loop {
            let client = match server {
                None => self.nats().await,
                Some(i) => {
                    let port = self.supervisor().settings.server(i).client;
                    self.nats_at(&self.creds("operator"), &format!("nats://127.0.0.1:{port}")).await?
                }
            };
            match self.read_stream(client, stream).await {
                Err(e) if attempt < 6 => eprintln!("reading {stream} (attempt {attempt}): {e:#}; again"),
                read => return read,
            }
            attempt += 1;
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
    }

    async fn read_stream(
        &self,
        client: async_nats::Client,
        stream: &str,
    ) -> anyhow::Result<Vec<async_nats::jetstream::Message>> {
        use async_nats::jetstream::consumer::pull;
        let js = async_nats::jetstream::new(client);
        let mut stream = js.get_stream(stream).await.map_err(|e| anyhow::anyhow!("{e}"))?;
        let total = stream.info().await.map_err(|e| anyhow::anyhow!("{e}"))?.state.messages as usize;
        let consumer = stream
            .create_consumer(pull::Config {
                ack_policy: async_nats::jetstream::consumer::AckPolicy::None,
                ..Default::default()
            })
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut messages = consumer.messages().await.map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut all = Vec::with_capacity(total);
        while all.len() < total {
            match tokio::time::timeout(Duration::from_secs(10), messages.next()).await {
                Ok(Some(Ok(m))) => all.push(m),
                other => bail!(
                    "reading stream: {} of {total} messages, then {:?}",
                    all.len(),
                    other.map(|o| o.map(|r| r.err()))
                ),
            }
        }
        Ok(all)
    }
}

impl Drop for Lattice {
    fn drop(&mut self) {
        if let Err(e) = self.step(&["down"]) {
            eprintln!("{e:#}");
        }
        for (address, state) in &self.other_machines {
            if let Err(e) = block_on(self.machine_supervisor(address).run(cits_ops::lattice::Step::Down)) {
                eprintln!("{address}: {e:#}");
            }
            if std::env::var_os("CITS_KEEP_STATE").is_none() {
                let _ = std::fs::remove_dir_all(state);
            }
        }
        // CITS_KEEP_STATE=1 keeps logs and the rendered manifest for a post-mortem.
        if std::env::var_os("CITS_KEEP_STATE").is_none() {
            let _ = std::fs::remove_dir_all(&self.state);
            if self.state.file_name().is_some_and(|n| n == ".state") {
                let _ = std::fs::remove_dir_all(self.scratch());
            }
        }
    }
}

pub struct Mqtt {
    client: AsyncClient,
    sent: tokio::sync::mpsc::UnboundedReceiver<()>,
}

impl Mqtt {
    /// Publishes with QoS 0 and returns once the packet has left the client.
    pub async fn publish(&mut self, topic: &str, payload: Vec<u8>) {
        self.client.publish(topic, QoS::AtMostOnce, false, payload).await.expect("MQTT publish queued");
        tokio::time::timeout(Duration::from_secs(10), self.sent.recv())
            .await
            .expect("MQTT publish left the client within 10 s");
    }
}

/// Next message on `sub` within `timeout`, or an error naming `what`.
pub async fn next_within(
    sub: &mut async_nats::Subscriber,
    timeout: Duration,
    what: &str,
) -> anyhow::Result<async_nats::Message> {
    match tokio::time::timeout(timeout, sub.next()).await {
        Ok(Some(msg)) => Ok(msg),
        Ok(None) => bail!("subscription for {what} closed"),
        Err(_) => bail!("no {what} within {timeout:?}"),
    }
}

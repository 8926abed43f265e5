//! What a lattice is started with: ports, state dir, topology, binaries and tunables, each an
//! option with the environment variable the Makefile and the tests have always set.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use super::topology::Topology;

#[derive(clap::Args, Debug, Clone)]
pub struct Settings {
    /// State dir: PID files, logs, credentials, JetStream and Redis data, the blobstore.
    #[arg(long, env = "CITS_STATE", default_value = ".state")]
    pub state: PathBuf,
    /// The repository: the map, the manifests (wadm/), the dashboard's page.
    #[arg(long, env = "CITS_REPO", default_value = ".")]
    pub repo: PathBuf,
    #[arg(long, env = "WASMCLOUD_LATTICE", default_value = "default")]
    pub lattice: String,
    #[arg(long, env = "NATS_PORT", default_value_t = 4222)]
    pub nats_port: u16,
    #[arg(long, env = "MQTT_PORT", default_value_t = 1883)]
    pub mqtt_port: u16,
    #[arg(long, env = "REDIS_PORT", default_value_t = 6379)]
    pub redis_port: u16,
    /// NATS's monitoring endpoint (/varz, /healthz) for an operator's curl.
    #[arg(long, env = "NATS_HTTP_PORT", default_value_t = 8222)]
    pub nats_http_port: u16,
    /// A cluster's route port (server `i` listens on it plus `i`).
    #[arg(long, env = "NATS_CLUSTER_PORT", default_value_t = 6222)]
    pub nats_cluster_port: u16,
    /// Where a hub server takes its sites' leaf nodes (server `i` listens on it plus `i`).
    #[arg(long, env = "NATS_LEAF_PORT", default_value_t = 7422)]
    pub nats_leaf_port: u16,
    #[arg(long, env = "DASHBOARD_PORT", default_value_t = 8480)]
    pub dashboard_port: u16,
    /// wasmCloud hosts (labels host=host-1 … host-N); wadm spreads the stages over them.
    #[arg(long, env = "HOSTS", default_value_t = 1)]
    pub hosts: usize,
    /// The lattice's servers and hosts as YAML/JSON, inline or a file (instead of --hosts).
    #[arg(long, env = "CITS_TOPOLOGY", value_parser = Topology::parse_arg)]
    pub topology: Option<Topology>,
    /// The machine this supervisor runs on, when the topology spans several: one of the
    /// addresses it names. Only that machine's part starts here — its NATS servers and their
    /// hosts, a site's Redis; wadm, the hub's Redis, secrets, policy and dashboard on the first
    /// server's machine — with `auth/` and `tls/` copied from that machine's state dir.
    #[arg(long, env = "CITS_MACHINE")]
    pub machine: Option<String>,
    /// The manifest `deploy` deploys (default: wadm/cits-pipeline.yaml of the repository).
    #[arg(long, env = "CITS_MANIFEST")]
    pub manifest: Option<PathBuf>,
    #[arg(long, env = "CITS_APP", default_value = "cits-pipeline")]
    pub app: String,
    /// RSUs registered at `up` (credentials and station registry), comma separated.
    #[arg(long, env = "RSUS", default_value = "rsu1", value_delimiter = ',')]
    pub rsus: Vec<String>,
    /// Their station (the recordings').
    #[arg(long, env = "RSU_STATION", default_value_t = 1001)]
    pub rsu_station: u32,
    /// Replays faster than real time send CPMs older than live: every `limits.max_age_ms` of the
    /// deployed manifests (production 60 s).
    #[arg(long, env = "MAX_AGE_MS")]
    pub max_age_ms: Option<u64>,
    /// Stations given RSU_STATION's calibrated cameras: one recording replayed as several
    /// intersections (`make bench`), comma separated.
    #[arg(long, env = "CAMERA_STATIONS", value_delimiter = ',')]
    pub camera_stations: Vec<u32>,
    /// The host cancels an invocation after this; the manifests' handler links say the same
    /// (host_execution_limit_ms), so the messaging provider never retries one that may still run.
    #[arg(long, env = "HOST_EXECUTION_LIMIT_MS", default_value_t = 2000)]
    pub host_execution_limit_ms: u64,
    /// JetStream fsync interval: NATS's default loses nothing a killed process had acknowledged
    /// (the page cache survives); `always` also survives an OS crash (docs/reliability.md).
    #[arg(long, env = "NATS_SYNC", default_value = "2m")]
    pub nats_sync: String,
    /// Redis's AOF fsync: `always` loses nothing acknowledged, even to `kill -9`; `everysec`
    /// can lose up to 2 s of state commits to a killed Redis but costs less under load
    /// (docs/reliability.md).
    #[arg(long, env = "REDIS_APPENDFSYNC", default_value = "always")]
    pub redis_appendfsync: String,
    /// Where the hosts keep compiled components (default <state>/compiled): a restarted host or
    /// a redeployed component skips Cranelift.
    #[arg(long, env = "COMPILATION_CACHE")]
    pub compilation_cache: Option<PathBuf>,
    /// Compile every component at every start instead.
    #[arg(long)]
    pub no_compilation_cache: bool,
    /// A component not in that cache starts on Winch while Cranelift compiles in the background
    /// (tools/patches/wasmcloud-runtime.sh); false: Cranelift before it starts.
    #[arg(long, env = "TIERED_COMPILATION", default_value_t = true, action = clap::ArgAction::Set)]
    pub tiered_compilation: bool,
    /// Bytes each pipeline stream keeps at most: the server reserves this much disk per stream
    /// up front, and a development lattice should not need 10 GiB free.
    #[arg(long, env = "STREAM_MAX_BYTES", default_value_t = 256 << 20)]
    pub stream_max_bytes: i64,
    #[arg(long, env = "WASMCLOUD_LOG_LEVEL", default_value = "info")]
    pub host_log: String,
    #[arg(long, env = "WADM_LOG", default_value = "info")]
    pub wadm_log: String,
    #[arg(long, env = "SECRETS_LOG", default_value = "warn")]
    pub secrets_log: String,
    #[command(flatten)]
    pub binaries: Binaries,
}

/// The programs a lattice runs (`make setup` builds them; the Makefile exports their paths).
/// Optional here so that `down` and `status` need none of them.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Binaries {
    #[arg(long, env = "NATS_SERVER")]
    pub nats_server: Option<PathBuf>,
    #[arg(long, env = "REDIS_SERVER", default_value = "redis-server")]
    pub redis_server: PathBuf,
    #[arg(long, env = "WASMCLOUD_HOST_BIN")]
    pub host: Option<PathBuf>,
    #[arg(long, env = "WADM_BIN")]
    pub wadm: Option<PathBuf>,
    #[arg(long, env = "CITS_POLICY")]
    pub policy: Option<PathBuf>,
    #[arg(long, env = "CITS_DASHBOARD")]
    pub dashboard: Option<PathBuf>,
    #[arg(long, env = "SECRETS_NATS_KV")]
    pub secrets: Option<PathBuf>,
    /// `cits` itself, for the native stages (default: this program).
    #[arg(long, env = "CITS_TOOL")]
    pub cits: Option<PathBuf>,
    /// The keys wash signed the actors and providers with: its account key is the policy's
    /// allowed issuer, the key-value provider's key the one that may read the Redis password.
    #[arg(long, env = "WASH_KEYS")]
    pub wash_keys: Option<PathBuf>,
}

/// Where one NATS server of the lattice listens (loopback).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerPorts {
    pub client: u16,
    pub mqtt: u16,
    pub http: u16,
    pub cluster: u16,
    /// Where a hub server takes leaf node connections.
    pub leaf: u16,
    /// A site's Redis, when the site runs its pipeline (`REDIS_PORT` plus its leaf node's index).
    pub redis: u16,
}

/// A required binary, or what to set.
pub fn required<'a>(path: &'a Option<PathBuf>, env: &str) -> anyhow::Result<&'a Path> {
    path.as_deref().with_context(|| format!("set {env} (make setup prints the paths; use make targets)"))
}

#[derive(clap::Parser)]
struct FromEnv {
    #[command(flatten)]
    settings: Settings,
}

impl Settings {
    /// The frame a station's CPMs give objects in, as far as this lattice knows: the
    /// recordings' stations (RSU_STATION, and CAMERA_STATIONS given its cameras) are the research
    /// RSU's, in its cameras' frames; any other station sends the standard's.
    pub fn object_frame_of(&self, station: u32) -> cits::stages::collector::object_frame::ObjectFrame {
        if station == self.rsu_station || self.camera_stations.contains(&station) {
            cits::stages::collector::object_frame::ObjectFrame::Sensor
        } else {
            cits::stages::collector::object_frame::ObjectFrame::Enu
        }
    }

    /// The settings the environment gives (as `cits lattice` would take them without options).
    pub fn from_env() -> anyhow::Result<Self> {
        use clap::Parser as _;
        Ok(FromEnv::try_parse_from(["lattice"])?.settings)
    }

    /// The topology given, or `HOSTS` hosts on one server; borrowed when given (it is asked for
    /// per port and per server, in loops).
    pub fn topology(&self) -> std::borrow::Cow<'_, Topology> {
        match &self.topology {
            Some(t) => std::borrow::Cow::Borrowed(t),
            None => std::borrow::Cow::Owned(Topology::with_hosts(self.hosts)),
        }
    }

    /// The lattice's TLS files (`<state>/tls`, see [`cits_client::tls`]) where its topology crosses a
    /// network (a cluster); None for one server on loopback.
    pub fn tls(&self) -> Option<cits_client::tls::Files> {
        self.topology().tls().then(|| cits_client::tls::Files::in_dir(&self.state.join("tls")))
    }

    pub fn manifest(&self) -> PathBuf {
        self.manifest.clone().unwrap_or_else(|| self.repo.join("wadm/cits-pipeline.yaml"))
    }

    pub fn compilation_cache(&self) -> Option<PathBuf> {
        (!self.no_compilation_cache)
            .then(|| self.compilation_cache.clone().unwrap_or_else(|| self.state.join("compiled")))
    }

    /// The client address of this machine's first server (see [`Settings::client_servers`]).
    pub fn nats_addr(&self) -> String {
        format!("127.0.0.1:{}", self.nats_client_port())
    }

    fn nats_client_port(&self) -> u16 {
        self.client_servers().first().map_or(self.nats_port, |&i| self.server(i).client)
    }

    /// Every NATS server of the topology this machine's clients connect to, comma separated: a
    /// client that knows them all goes on with another when its own is lost.
    pub fn nats_urls(&self) -> String {
        self.client_servers()
            .into_iter()
            .map(|i| format!("nats://127.0.0.1:{}", self.server(i).client))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The servers this machine's clients (tools, wadm, hosts of the hub) connect to: its hub
    /// servers, or on a site's machine its leaf node (client listeners are on loopback).
    pub fn client_servers(&self) -> Vec<usize> {
        let hub = self.topology().nats.len();
        let local = self.local_servers();
        let on_hub: Vec<usize> = local.iter().copied().filter(|&i| i < hub).collect();
        if on_hub.is_empty() {
            local
        } else {
            on_hub
        }
    }

    /// The servers of the topology that run on this machine (all of them on one machine).
    pub fn local_servers(&self) -> Vec<usize> {
        (0..self.topology().servers()).filter(|&i| self.runs_here(i)).collect()
    }

    /// Whether NATS server `i` of the topology (a hub server or a site's leaf node) runs on this
    /// machine, and with it its hosts and a site's Redis.
    pub fn runs_here(&self, i: usize) -> bool {
        self.topology().on_machine(i, self.machine.as_deref())
    }

    /// Whether the lattice's services run here: wadm, the hub's Redis, the secrets backend, the
    /// policy service, the dashboard (on the first server's machine).
    pub fn first_machine(&self) -> bool {
        self.runs_here(0)
    }

    /// The ports of NATS server `i` (from 0; the hub's, then the sites' leaf nodes): the
    /// lattice's own for server 0, each one up by `i` for the others.
    pub fn server(&self, i: usize) -> ServerPorts {
        let up = |port: u16| port + i as u16;
        ServerPorts {
            client: up(self.nats_port),
            mqtt: up(self.mqtt_port),
            http: up(self.nats_http_port),
            cluster: up(self.nats_cluster_port),
            leaf: up(self.nats_leaf_port),
            redis: up(self.redis_port),
        }
    }

    /// The MQTT listener `rsu` connects to: its site's leaf node, or the hub's first server.
    pub fn rsu_mqtt_port(&self, rsu: &str) -> u16 {
        let topology = self.topology();
        let server = topology.site_of_rsu(rsu).map_or(0, |(k, _)| topology.leaf_server(k));
        self.server(server).mqtt
    }

    /// The PID files of every NATS server of the topology (the sites' leaf nodes too: they load
    /// the same accounts, and reload them after a revocation).
    /// On a topology over several machines: this machine's.
    pub fn nats_pid_files(&self) -> Vec<PathBuf> {
        self.local_servers().into_iter().map(|i| self.pids().join(format!("{}.pid", Self::server_process(i)))).collect()
    }

    /// NATS server `i`'s name among the lattice's processes (PID file, log): `nats` for the
    /// first, `nats-2`, `nats-3`, … for the others.
    pub fn server_process(i: usize) -> String {
        if i == 0 {
            "nats".to_string()
        } else {
            format!("nats-{}", i + 1)
        }
    }

    pub fn pids(&self) -> PathBuf {
        self.state.join("pids")
    }

    pub fn logs(&self) -> PathBuf {
        self.state.join("logs")
    }

    pub fn log(&self, name: &str) -> PathBuf {
        self.logs().join(format!("{name}.log"))
    }

    /// NATS users, RSU tokens and the Redis passwords of this lattice; never in the repository.
    pub fn auth(&self) -> PathBuf {
        self.state.join("auth")
    }

    pub fn creds(&self, user: &str) -> PathBuf {
        self.auth().join("users").join(format!("{user}.creds"))
    }

    pub fn blobstore(&self) -> PathBuf {
        self.state.join("blobstore")
    }

    /// What every process of the lattice finds in its environment: wash and our tools act as the
    /// lattice's operator user, with wash's contexts kept out of $HOME.
    pub fn common_env(&self) -> Vec<(&'static str, String)> {
        let path = |p: PathBuf| p.display().to_string();
        vec![
            ("WASMCLOUD_CTL_HOST", "127.0.0.1".into()),
            ("WASMCLOUD_CTL_PORT", self.nats_client_port().to_string()),
            ("WASMCLOUD_LATTICE", self.lattice.clone()),
            ("WASH_CONTEXT_DIR", path(self.state.join("wash/contexts"))),
            ("WASH_CTL_CREDS", path(self.creds("operator"))),
            ("CITS_AUTH", path(self.auth())),
            (
                "CITS_NATS_PID_FILE",
                self.nats_pid_files().iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(","),
            ),
        ]
    }
}

//! The local lattice, supervised: NATS (JetStream, MQTT, operator-mode auth), the secrets
//! backend, Redis (ACL), wadm, the signature policy service and the wasmCloud hosts of a
//! [`Topology`], each started by [`process`] and tracked by PID file in the state dir; its named
//! configs, the Redis password secret and RSUs put; the application deployed through wadm.
//!
//! `cits lattice <step>` runs one [`Step`] (`make run`, `make stop`, `make status`, `make
//! bench`); the end-to-end tests call [`Lattice::run`] directly. Each step waits for what it
//! starts by protocol (see the modules) and leaves nothing half started if it fails.

mod auth;
pub mod baseline;
mod dashboard;
pub mod deploy;
mod hosts;
mod nats;
pub mod process;
mod redis;
mod secrets;
mod settings;
pub mod topology;

use std::time::Duration;

use anyhow::{anyhow, bail, Context as _};
use cits::stages::collector::object_frame::ObjectFrame;

// The lattice's own values the manifests name but do not hold.
use cits_manifest::{LATTICE_BLOBSTORE, LATTICE_REDIS};

pub use baseline::{Input, Shape};
pub use process::Processes;
pub use settings::{Binaries, Settings};
pub use topology::Topology;

/// How long a service has between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_secs(10);

/// Every service `status` reports, in start order (the first NATS server's; the other servers
/// follow it, hosts and native stages the services).
const SERVICES: [&str; 6] = ["nats", "secrets", "redis", "wadm", "policy", "dashboard"];

fn log(line: impl AsRef<str>) {
    eprintln!("[lattice] {}", line.as_ref());
}

/// One thing to do to the lattice.
#[derive(clap::Subcommand, Debug, Clone)]
pub enum Step {
    /// Start everything (what runs already is kept), put the configs and the Redis secret,
    /// register the RSUs.
    Up,
    /// Make the lattice's credentials and certificates (`auth/`, `tls/`) and this machine's
    /// server configs, start nothing: on the first machine of a topology over several, before
    /// copying `auth/` and `tls/` to the others.
    Init,
    /// Stop everything this state dir's PID files name.
    Down,
    /// What of the lattice runs.
    Status,
    /// Store every manifest version, deploy the chosen one, wait until wadm reports it deployed.
    Deploy,
    /// Undeploy the application and wait until its components and providers are gone.
    Undeploy,
    /// Send a probe CPM through all stages until it comes out (six tries of 5 s).
    Probe,
    /// Start host N of the topology again (after a crash) and wait until it joins.
    HostUp { n: usize },
    /// Stop the hosts and wadm, leaving NATS and Redis up.
    HostDown,
    /// Fault injection: kill -9 a server (NATS: the n-th of the topology, from 1) and start it
    /// again on the same state.
    CrashRestart {
        server: Server,
        #[arg(default_value_t = 1)]
        n: usize,
    },
    /// The native baseline instead of a deployment (`cits stage` processes).
    NativeUp {
        #[arg(default_value = "seven")]
        shape: Shape,
        #[arg(default_value = "core")]
        input: Input,
    },
    /// Stop the native stages.
    NativeDown,
    /// Start the operator's web dashboard on DASHBOARD_PORT.
    DashboardUp,
    /// Stop the dashboard.
    DashboardDown,
    /// Register an RSU: its MQTT credentials, its station (default RSU_STATION) and the frame its
    /// CPMs give objects in (default: `sensor` for the recordings' stations, RSU_STATION and
    /// CAMERA_STATIONS, whose cameras the manifests calibrate; `enu`, the standard's, otherwise).
    RsuAdd { rsu: String, station: Option<u32>, object_frame: Option<ObjectFrame> },
    /// Revoke an RSU's credentials and unregister it.
    RsuRemove { rsu: String },
    /// Make this machine's NATS servers re-read their config (SIGHUP): on a topology over several
    /// machines, after an RSU was revoked on the first, with its `auth/resolver.conf` copied here.
    Reload,
    /// Print the pipeline's Redis URL (with its user and password): the hub's, or that of the site
    /// of `rsu` when the site runs its pipeline.
    RedisUrl { rsu: Option<String> },
    /// Print the client port of the NATS server that sees `rsu`'s (default: the first of RSUS)
    /// frames and DENMs as core messages: its site's leaf node when the site runs its pipeline,
    /// else the hub's first.
    NatsPort { rsu: Option<String> },
    /// Print the port of the MQTT listener RSU `rsu` (default: the first of RSUS) connects to:
    /// its site's leaf node, or the hub's first server.
    MqttPort { rsu: Option<String> },
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Server {
    Nats,
    Redis,
}

/// A lattice on one state dir.
pub struct Lattice {
    pub settings: Settings,
    pub processes: Processes,
}

impl Lattice {
    pub fn new(mut settings: Settings) -> Self {
        settings.state = process::absolute(&settings.state);
        settings.repo = process::absolute(&settings.repo);
        let processes = Processes { pids: settings.pids(), logs: settings.logs() };
        Self { settings, processes }
    }

    pub async fn run(&self, step: Step) -> anyhow::Result<()> {
        match step {
            Step::Up => self.up().await,
            Step::Init => self.init(),
            Step::Down => self.down().await,
            Step::Status => {
                print!("{}", self.status());
                Ok(())
            }
            Step::Deploy => deploy::deploy(&self.settings, &self.processes).await,
            Step::Undeploy => deploy::undeploy(&self.settings, &self.processes).await,
            Step::Probe => deploy::probe(&self.settings).await,
            Step::HostUp { n } => self.host_up(n).await,
            Step::HostDown => hosts::stop_all(&self.processes).await,
            Step::CrashRestart { server, n } => self.crash_restart(server, n).await,
            Step::NativeUp { shape, input } => {
                let mut guard = process::StartGuard::new(&self.processes);
                baseline::start(&self.settings, &mut guard, shape, input)?;
                guard.keep();
                Ok(())
            }
            Step::NativeDown => baseline::stop(&self.processes).await,
            Step::DashboardUp => {
                let mut guard = process::StartGuard::new(&self.processes);
                dashboard::start(&self.settings, &mut guard, &self.processes).await?;
                guard.keep();
                Ok(())
            }
            Step::DashboardDown => self.processes.stop("dashboard", GRACE).await,
            Step::RsuAdd { rsu, station, object_frame } => {
                let station = station.unwrap_or(self.settings.rsu_station);
                self.rsu_add(&rsu, station, object_frame.unwrap_or_else(|| self.settings.object_frame_of(station)))
                    .await
            }
            Step::RsuRemove { rsu } => self.rsu_remove(&rsu).await,
            Step::Reload => crate::rsu::reload_nats(&self.settings.nats_pid_files()),
            Step::RedisUrl { rsu } => {
                let redis = match rsu {
                    Some(rsu) => redis::Instance::of_rsu(&self.settings, &rsu),
                    None => redis::Instance::hub(&self.settings),
                };
                println!("{}", redis.url(&self.settings, redis::PIPELINE_USER)?);
                Ok(())
            }
            Step::NatsPort { rsu } => {
                let rsu = self.rsu_or_first(rsu)?;
                println!("{}", self.settings.server(self.settings.topology().pipeline_server(&rsu)).client);
                Ok(())
            }
            Step::MqttPort { rsu } => {
                let rsu = self.rsu_or_first(rsu)?;
                println!("{}", self.settings.rsu_mqtt_port(&rsu));
                Ok(())
            }
        }
    }

    /// `rsu`, or by default the first of RSUS.
    fn rsu_or_first(&self, rsu: Option<String>) -> anyhow::Result<String> {
        rsu.or_else(|| self.settings.rsus.first().cloned()).context("no RSU given, RSUS empty")
    }

    /// Starts the lattice, or on a topology over several machines this machine's part of it
    /// ([`Settings::machine`]): the first server's machine runs the lattice's services, every
    /// machine its servers and their hosts; a machine waits for the parts it needs elsewhere.
    pub async fn up(&self) -> anyhow::Result<()> {
        let s = &self.settings;
        let topology = s.topology();
        let first = s.first_machine();
        self.init()?;
        let mut guard = process::StartGuard::new(&self.processes);
        nats::start(s, &mut guard, &self.processes).await?;
        // Before anything makes buckets of its own: in a cluster they are made with three replicas.
        nats::ensure_streams(s).await?;
        // Street geometry for map matcher and predictor: blobstore-fs container cits-map.
        let graph = cits_map::load(&s.repo.join("data/map/weiser-gabelsberger.osm"), None)?;
        cits_map::write_blobs(&graph, &s.blobstore().join(cits_map::CONTAINER))?;
        let local_sites: Vec<usize> =
            topology.edge_sites().map(|(k, _)| k).filter(|&k| s.runs_here(topology.leaf_server(k))).collect();
        let wadm_pid = if first {
            secrets::start(s, &mut guard).await?;
            redis::start(s, &mut guard, &self.processes, &redis::Instance::hub(s)).await?;
            Some(hosts::start_wadm(s, &mut guard)?.pid)
        } else {
            None
        };
        for &k in &local_sites {
            redis::start(s, &mut guard, &self.processes, &redis::Instance::site(s, k)).await?;
        }
        // Before any host: wadm learns of hosts from their events in its own stream (and the
        // hub's buckets exist by then, made with their replicas).
        hosts::wadm_ready(s, &self.processes, wadm_pid).await?;
        if first {
            hosts::start_policy(s, &mut guard, &self.processes).await?;
        }

        let joins = hosts::Joins::subscribe(s).await?;
        let mut new_hosts = Vec::new();
        for (i, host) in topology.hosts.iter().enumerate().filter(|(i, _)| s.runs_here(topology.server_of(i + 1))) {
            let started = hosts::start_host(s, &mut guard, i + 1, host, topology.server_of(i + 1))?;
            if started.new {
                new_hosts.push((topology::Host::name(i + 1), started.pid));
            }
        }
        joins.wait(&self.processes, &new_hosts, Duration::from_secs(60)).await?;

        // Where this lattice's Redis and blobstore folder are: named configs the manifests refer
        // to (no port or path in them), like the RSU registry below. A site that runs its
        // pipeline has its own, put by its machine.
        if first {
            self.put_config(LATTICE_REDIS, [("url", redis::Instance::hub(s).url_without_password())]).await?;
            self.put_config(LATTICE_BLOBSTORE, [("ROOT", s.blobstore().display().to_string())]).await?;
        }
        for &k in &local_sites {
            let site = &topology.sites[k].name;
            let url = redis::Instance::site(s, k).url_without_password();
            self.put_config(&cits_manifest::site_config(LATTICE_REDIS, site), [("url", url)]).await?;
            let root = s.blobstore().display().to_string();
            self.put_config(&cits_manifest::site_config(LATTICE_BLOBSTORE, site), [("ROOT", root)]).await?;
        }

        // RSUs of the recordings (and the probe's), before deploy: the decoder's registry must
        // exist. `cits probe` sends as RSU probe from a station of its own. Their tokens are
        // the first machine's to hand out.
        if first {
            self.rsu_add("probe", cits_client::demo::PROBE_STATION_ID, ObjectFrame::Enu).await?;
            for rsu in &s.rsus {
                self.rsu_add(rsu, s.rsu_station, s.object_frame_of(s.rsu_station)).await?;
            }
        }
        guard.keep();
        log(self.summary());
        Ok(())
    }

    /// The state dir's folders, credentials, certificates and server configs (see [`Step::Init`]).
    pub fn init(&self) -> anyhow::Result<()> {
        let s = &self.settings;
        s.topology().check()?;
        if let Some(machine) = &s.machine {
            s.topology().check_machine(machine)?;
        }
        for dir in [s.pids(), s.logs(), s.state.join("jetstream"), s.blobstore(), s.state.join("wash/contexts")] {
            std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        if !s.first_machine() && !s.auth().join("users").is_dir() {
            bail!(
                "{} is missing: copy `auth/` and `tls/` from the state dir of the first server's machine",
                s.auth().display()
            );
        }
        auth::init(s)?;
        nats::write_configs(s)
    }

    /// What `up` started here, one line.
    fn summary(&self) -> String {
        let s = &self.settings;
        let topology = s.topology();
        let machine = s.machine.as_deref();
        let hub: Vec<usize> = s.local_servers().into_iter().filter(|&i| i < topology.nats.len()).collect();
        let servers = match hub.as_slice() {
            [] => String::new(),
            [i] if topology.nats.len() == 1 => {
                format!("NATS :{} (MQTT :{})", s.server(*i).client, s.server(*i).mqtt)
            }
            _ => format!(
                "{} NATS servers in a cluster, streams R{} (NATS {}; MQTT {})",
                if hub.len() == topology.nats.len() {
                    hub.len().to_string()
                } else {
                    format!("{} of {}", hub.len(), topology.nats.len())
                },
                topology.replicas(),
                hub.iter().map(|&i| format!(":{}", s.server(i).client)).collect::<Vec<_>>().join(" "),
                hub.iter().map(|&i| format!(":{}", s.server(i).mqtt)).collect::<Vec<_>>().join(" "),
            ),
        };
        let services = if s.first_machine() { format!("Redis :{}, wadm, ", s.redis_port) } else { String::new() };
        let hosts = (1..=topology.hosts.len()).filter(|&n| s.runs_here(topology.server_of(n))).count();
        let servers = if servers.is_empty() { String::new() } else { format!("{servers}, ") };
        let sites: String = topology
            .sites
            .iter()
            .enumerate()
            .filter(|(k, _)| s.runs_here(topology.leaf_server(*k)))
            .map(|(k, site)| {
                let ports = s.server(topology.leaf_server(k));
                format!(
                    "; site {} (RSUs {}): NATS :{}, MQTT :{}",
                    site.name,
                    site.rsus.join(","),
                    ports.client,
                    ports.mqtt
                )
            })
            .collect();
        let on = machine.map_or(String::new(), |m| format!(" on {m}"));
        format!("lattice up{on}: {servers}{services}{hosts} host(s){sites} (state {})", s.state.display())
    }

    pub async fn down(&self) -> anyhow::Result<()> {
        let p = &self.processes;
        p.stop("dashboard", GRACE).await?;
        hosts::stop_all(p).await?;
        baseline::stop(p).await?;
        for name in ["policy", "redis", "secrets"] {
            p.stop(name, GRACE).await?;
        }
        for name in p.named("redis-") {
            p.stop(&name, GRACE).await?;
        }
        // Last: JetStream (wadm's state) must outlive its users. Every server a state dir ever
        // had (a cluster's too), whatever the topology now says.
        for name in p.named("nats-") {
            p.stop(&name, GRACE).await?;
        }
        p.stop("nats", GRACE).await
    }

    /// One line per service: running (with its PID) or stopped.
    pub fn status(&self) -> String {
        let hosts = self.processes.named("host-");
        let natives = self.processes.named("native-");
        let site_redis = self.processes.named("redis-");
        // This machine's servers, and the services where they run (the first server's machine).
        let servers = self.settings.local_servers().into_iter().map(Settings::server_process);
        let services = if self.settings.first_machine() { &SERVICES[1..] } else { &[] };
        servers
            .chain(services.iter().map(|s| s.to_string()))
            .chain(site_redis)
            .chain(hosts)
            .chain(natives)
            .map(|name| match self.processes.running(&name) {
                Some(pid) => format!("{name}: running (pid {pid})\n"),
                None => format!("{name}: stopped\n"),
            })
            .collect()
    }

    pub async fn host_up(&self, n: usize) -> anyhow::Result<()> {
        let topology = self.settings.topology();
        let host = topology.host(n).with_context(|| format!("the topology has no host {n}"))?;
        let joins = hosts::Joins::subscribe(&self.settings).await?;
        let mut guard = process::StartGuard::new(&self.processes);
        let started = hosts::start_host(&self.settings, &mut guard, n, host, topology.server_of(n))?;
        let new = if started.new { vec![(topology::Host::name(n), started.pid)] } else { vec![] };
        joins.wait(&self.processes, &new, Duration::from_secs(60)).await?;
        guard.keep();
        Ok(())
    }

    pub async fn crash_restart(&self, server: Server, n: usize) -> anyhow::Result<()> {
        let mut guard = process::StartGuard::new(&self.processes);
        match server {
            Server::Nats => {
                let servers = self.settings.topology().servers();
                if n == 0 || n > servers {
                    bail!("NATS server {n}: the topology has {servers} (from 1)");
                }
                if !self.settings.local_servers().contains(&(n - 1)) {
                    bail!("NATS server {n} runs on another machine");
                }
                let name = Settings::server_process(n - 1);
                self.processes.kill(&name).await?;
                nats::restart(&self.settings, &mut guard, &self.processes, n - 1).await?;
            }
            Server::Redis => {
                self.processes.kill("redis").await?;
                redis::start(&self.settings, &mut guard, &self.processes, &redis::Instance::hub(&self.settings))
                    .await?;
            }
        }
        guard.keep();
        Ok(())
    }

    async fn put_config<const N: usize>(&self, name: &str, entries: [(&str, String); N]) -> anyhow::Result<()> {
        let ctl = wasmcloud_control_interface::ClientBuilder::new(nats::connect(&self.settings).await?)
            .lattice(&self.settings.lattice)
            .build();
        let values = entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect::<std::collections::HashMap<_, _>>();
        let put = ctl.put_config(name, values).await.map_err(|e| anyhow!("config.put {name}: {e}"))?;
        if !put.succeeded() {
            bail!("config.put {name} refused: {}", put.message());
        }
        Ok(())
    }

    /// What `crate::rsu` needs of this lattice, owned (its parts are derived from the settings).
    fn rsu_target(&self) -> RsuTarget {
        RsuTarget {
            nats: self.settings.nats_urls(),
            auth: self.settings.auth(),
            nats_pid_files: self.settings.nats_pid_files(),
        }
    }

    pub async fn rsu_add(&self, rsu: &str, station: u32, frame: ObjectFrame) -> anyhow::Result<()> {
        let target = self.rsu_target();
        let on = target.on(&self.settings.lattice);
        crate::rsu::add(&target.auth, rsu, &[station], frame, &on)
            .await
            .with_context(|| format!("cannot add RSU {rsu}"))?;
        Ok(())
    }

    pub async fn rsu_remove(&self, rsu: &str) -> anyhow::Result<()> {
        let target = self.rsu_target();
        let on = target.on(&self.settings.lattice);
        crate::rsu::remove(&target.auth, rsu, &on).await.with_context(|| format!("cannot remove RSU {rsu}"))
    }
}

/// The values a [`crate::rsu::Lattice`] borrows.
struct RsuTarget {
    nats: String,
    auth: std::path::PathBuf,
    nats_pid_files: Vec<std::path::PathBuf>,
}

impl RsuTarget {
    fn on<'a>(&'a self, lattice: &'a str) -> crate::rsu::Lattice<'a> {
        crate::rsu::Lattice { nats: &self.nats, auth: &self.auth, lattice, nats_pid_files: &self.nats_pid_files }
    }
}

/// A step as `cits lattice` takes it (`["host-up", "2"]`): what the tests write.
pub fn parse_step(args: &[&str]) -> anyhow::Result<Step> {
    #[derive(clap::Parser)]
    struct OneStep {
        #[command(subcommand)]
        step: Step,
    }
    use clap::Parser as _;
    Ok(OneStep::try_parse_from(std::iter::once("lattice").chain(args.iter().copied()))?.step)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Settings as with an empty environment.
    pub fn settings() -> Settings {
        #[derive(clap::Parser)]
        struct Bare {
            #[command(flatten)]
            settings: Settings,
        }
        use clap::Parser as _;
        Bare::try_parse_from(["lattice"]).unwrap().settings
    }

    #[test]
    fn steps_parse_as_the_tests_write_them() {
        assert!(matches!(parse_step(&["host-up", "2"]).unwrap(), Step::HostUp { n: 2 }));
        assert!(matches!(
            parse_step(&["crash-restart", "redis"]).unwrap(),
            Step::CrashRestart { server: Server::Redis, n: 1 }
        ));
        assert!(matches!(parse_step(&["crash-restart", "nats", "3"]).unwrap(), Step::CrashRestart { n: 3, .. }));
        assert!(matches!(
            parse_step(&["native-up", "fused", "durable"]).unwrap(),
            Step::NativeUp { shape: Shape::Fused, input: Input::Durable }
        ));
        assert!(matches!(
            parse_step(&["native-up"]).unwrap(),
            Step::NativeUp { shape: Shape::Seven, input: Input::Core }
        ));
        assert!(matches!(
            parse_step(&["rsu-add", "a", "7"]).unwrap(),
            Step::RsuAdd { station: Some(7), object_frame: None, .. }
        ));
        assert!(matches!(
            parse_step(&["rsu-add", "a", "7", "sensor"]).unwrap(),
            Step::RsuAdd { object_frame: Some(ObjectFrame::Sensor), .. }
        ));
        assert!(parse_step(&["rsu-add", "a", "7", "camera"]).is_err());
        assert!(parse_step(&["crash-restart", "wadm"]).is_err());
    }

    #[test]
    fn status_lists_every_service_and_the_hosts_with_pid_files() {
        let state = std::env::temp_dir().join(format!("cits-status-{}", std::process::id()));
        let lattice = Lattice::new(Settings { state: state.clone(), ..settings() });
        std::fs::create_dir_all(lattice.settings.pids()).unwrap();
        std::fs::write(lattice.settings.pids().join("host-1.pid"), format!("{}\n", std::process::id())).unwrap();
        let status = lattice.status();
        std::fs::remove_dir_all(state).unwrap();
        let lines: Vec<&str> = status.lines().collect();
        assert_eq!(lines[0], "nats: stopped");
        assert_eq!(lines[6], format!("host-1: running (pid {})", std::process::id()));
        assert_eq!(lines.len(), 7);
    }
}

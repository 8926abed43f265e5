//! The operator's web dashboard (dashboard/README.md) as its own NATS and Redis users; changes
//! need the operator's password (`<state>/auth/dashboard.password`). Ready when it answers HTTP.

use std::time::Duration;

use anyhow::Context as _;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use super::process::{self, Processes, Program, StartGuard};
use super::settings::{required, Settings};

pub async fn start(settings: &Settings, guard: &mut StartGuard, processes: &Processes) -> anyhow::Result<()> {
    let path = |p: std::path::PathBuf| p.display().to_string();
    let listen = format!("127.0.0.1:{}", settings.dashboard_port);
    let program = Program::new(required(&settings.binaries.dashboard, "CITS_DASHBOARD")?)
        .args(["--listen", &listen, "--nats", &settings.nats_addr(), "--lattice", &settings.lattice])
        .args(["--app", &settings.app])
        .args(["--creds".to_string(), path(settings.creds("dashboard"))])
        .args(["--admin-creds".to_string(), path(settings.creds("dashboard-operator"))])
        .args(["--password-file".to_string(), path(settings.auth().join("dashboard.password"))])
        .args(["--lane-graph".to_string(), path(settings.blobstore().join("cits-map/lane-graph.pb"))])
        .args(["--web".to_string(), path(settings.repo.join("dashboard/web"))])
        .args(["--vendor".to_string(), path(settings.repo.join("dashboard/node_modules"))])
        .args(monitors(settings).into_iter().flat_map(|m| ["--nats-monitor".to_string(), m]))
        .envs(settings.common_env())
        .env("CITS_DASHBOARD_REDIS", super::redis::url(settings, super::redis::DASHBOARD_USER)?);
    let started = guard.start("dashboard", program)?;
    process::ready(processes, "dashboard", started.pid, Duration::from_secs(30), || http_answers(&listen)).await?;
    super::log(format!(
        "dashboard: http://{listen}/ (operator password: {})",
        settings.auth().join("dashboard.password").display()
    ));
    Ok(())
}

/// `role=<address>:<monitoring port>` of every NATS server (loopback, or the address of one on
/// another machine): `hub`, or `site <name>` for a site's leaf node.
fn monitors(settings: &Settings) -> Vec<String> {
    let topology = settings.topology();
    (0..topology.servers())
        .map(|i| {
            let role = topology.site_of_server(i).map_or("hub".to_string(), |s| format!("site {}", s.name));
            format!("{role}={}:{}", topology.reach(i), settings.server(i).http)
        })
        .collect()
}

/// Whether an HTTP server answers a request for the page at `addr`.
async fn http_answers(addr: &str) -> anyhow::Result<()> {
    let mut stream = tokio::net::TcpStream::connect(addr).await.with_context(|| format!("connect {addr}"))?;
    stream.write_all(format!("GET / HTTP/1.0\r\nHost: {addr}\r\n\r\n").as_bytes()).await?;
    let mut head = [0u8; 8];
    stream.read_exact(&mut head).await?;
    anyhow::ensure!(head.starts_with(b"HTTP/1."), "not an HTTP answer");
    Ok(())
}

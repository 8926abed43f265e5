//! The lattice's NATS servers as their monitoring endpoints tell (`/varz`, `/leafz`): each
//! server with its role (one of the hub's, or a site's leaf node), its routes and leaf links —
//! and a server that does not answer, flagged rather than left out.

use std::time::Duration;

use anyhow::Context as _;
use serde::Serialize;
use serde_json::Value;

/// One server's monitoring endpoint: `role=host:port` (`--nats-monitor hub=127.0.0.1:8222`).
#[derive(Debug, Clone, PartialEq)]
pub struct Monitor {
    /// `hub`, or `site <name>` for a site's leaf node.
    pub role: String,
    pub addr: String,
}

impl std::str::FromStr for Monitor {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> anyhow::Result<Self> {
        let (role, addr) = s.split_once('=').context("expected role=host:port")?;
        Ok(Self { role: role.trim().to_string(), addr: addr.trim().to_string() })
    }
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct ServerView {
    pub role: String,
    pub monitor: String,
    /// Whether it answered; the rest is empty when it did not.
    pub up: bool,
    pub error: Option<String>,
    pub name: String,
    pub uptime: String,
    pub connections: u64,
    pub routes: u64,
    pub mem_mib: f64,
    /// Its leaf links: at a hub server the sites dialled in, at a leaf node its link to the hub.
    pub leafs: Vec<LeafView>,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct LeafView {
    /// The server at the other end.
    pub peer: String,
    pub address: String,
    pub rtt: String,
}

/// Every monitor's view, in the order given.
pub async fn read(monitors: &[Monitor]) -> Vec<ServerView> {
    let mut out = Vec::with_capacity(monitors.len());
    for m in monitors {
        let get = |path| cits_client::http::get_json(&m.addr, path, Duration::from_secs(2));
        let answered = async { anyhow::Ok((get("/varz").await?, get("/leafz").await?)) };
        out.push(match answered.await {
            Ok((varz, leafz)) => server_view(m, &varz, &leafz),
            Err(e) => ServerView {
                role: m.role.clone(),
                monitor: m.addr.clone(),
                up: false,
                error: Some(format!("{e:#}")),
                name: String::new(),
                uptime: String::new(),
                connections: 0,
                routes: 0,
                mem_mib: 0.0,
                leafs: Vec::new(),
            },
        });
    }
    out
}

/// The view of a server from its `/varz` and `/leafz` documents.
pub fn server_view(m: &Monitor, varz: &Value, leafz: &Value) -> ServerView {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    let number = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    let leafs = leafz
        .get("leafs")
        .and_then(Value::as_array)
        .map(|ls| {
            ls.iter()
                .map(|l| LeafView {
                    peer: text(l, "name"),
                    address: format!("{}:{}", text(l, "ip"), number(l, "port")),
                    rtt: text(l, "rtt"),
                })
                .collect()
        })
        .unwrap_or_default();
    ServerView {
        role: m.role.clone(),
        monitor: m.addr.clone(),
        up: true,
        error: None,
        name: text(varz, "server_name"),
        uptime: text(varz, "uptime"),
        connections: number(varz, "connections"),
        routes: number(varz, "routes"),
        mem_mib: number(varz, "mem") as f64 / 1_048_576.0,
        leafs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_monitor_is_a_role_and_an_address() {
        let m: Monitor = "site site-1=127.0.0.1:8225".parse().unwrap();
        assert_eq!(m, Monitor { role: "site site-1".into(), addr: "127.0.0.1:8225".into() });
        assert!("127.0.0.1:8222".parse::<Monitor>().is_err());
    }

    #[test]
    fn a_hub_server_shows_its_routes_and_the_sites_that_dialled_in() {
        let m = Monitor { role: "hub".into(), addr: "127.0.0.1:8222".into() };
        let varz = serde_json::json!({
            "server_name": "cits-4222", "uptime": "1h2m3s", "connections": 7, "routes": 2, "mem": 104857600u64
        });
        let leafz =
            serde_json::json!({"leafs": [{"name": "site-1-4225", "ip": "127.0.0.1", "port": 51234, "rtt": "1.2ms"}]});
        let v = server_view(&m, &varz, &leafz);
        assert_eq!((v.name.as_str(), v.uptime.as_str(), v.connections, v.routes), ("cits-4222", "1h2m3s", 7, 2));
        assert!((v.mem_mib - 100.0).abs() < 1e-9 && v.up);
        assert_eq!(
            v.leafs,
            [LeafView { peer: "site-1-4225".into(), address: "127.0.0.1:51234".into(), rtt: "1.2ms".into() }]
        );
    }

    #[tokio::test]
    async fn a_server_that_does_not_answer_is_shown_down() {
        // A port nothing listens on (bound, then freed).
        let addr = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().to_string();
        let views = read(&[Monitor { role: "hub".into(), addr: addr.clone() }]).await;
        assert_eq!((views[0].up, views[0].monitor.as_str()), (false, addr.as_str()));
        assert!(views[0].error.as_deref().unwrap().contains("connect"), "{views:?}");
    }
}

//! A running pipeline reached from outside, as RSUs and operators reach it: CPM recordings
//! ([`recording`], [`demo`]) published over MQTT ([`replay`]), DENMs received ([`denms`]), the
//! pipeline's output and streams observed ([`observe`], [`watch`], [`outbox`], [`dlq`]), with the lattice's
//! credentials ([`auth`], [`tls`]). What the operations, benchmark and research crates share.

pub mod auth;
pub mod demo;
pub mod denms;
pub mod dlq;
pub mod http;
pub mod observe;
pub mod outbox;
pub mod recording;
pub mod replay;
pub mod tls;
pub mod watch;

/// `host:port` as the MQTT clients take it.
pub fn split_host_port(addr: &str) -> anyhow::Result<(String, u16)> {
    use anyhow::Context as _;
    let (host, port) = addr.rsplit_once(':').with_context(|| format!("`{addr}` is not host:port"))?;
    Ok((host.to_string(), port.parse().with_context(|| format!("bad port in `{addr}`"))?))
}

//! How the tools authenticate to a lattice with NATS auth on (cits lattice always turns it
//! on; see crates/cits-nats-auth): from the environment, so every command works alike.
//!
//! - `CITS_AUTH`: the lattice's auth directory (`<state>/auth`). RSU connections (replay, DENM
//!   subscriptions; the library takes the directory as a parameter) use the RSU's token from it
//!   as MQTT password; NATS connections use its operator user.
//! - `CITS_NATS_CREDS`: a `.creds` file for NATS connections (overrides the operator user).
//!
//! Neither set: anonymous connections, for a broker without auth.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use rumqttc::MqttOptions;

/// The auth directory, if the environment names one.
pub fn auth_dir() -> Option<PathBuf> {
    std::env::var_os("CITS_AUTH").filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// The NATS credentials file the tools connect with, if any.
pub fn nats_creds() -> Option<PathBuf> {
    std::env::var_os("CITS_NATS_CREDS")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| auth_dir().map(|d| d.join("users").join("operator.creds")))
}

/// Connects to NATS at `addr` with the tools' credentials.
pub async fn connect_nats(addr: &str) -> anyhow::Result<async_nats::Client> {
    connect_nats_as(addr, nats_creds()).await
}

/// Connects to NATS at `addr` with the tools' credentials, else as the operator of the auth
/// directory `auth` (a command given `--auth DIR` works without `CITS_AUTH` in the environment).
pub async fn connect_nats_in(addr: &str, auth: &Path) -> anyhow::Result<async_nats::Client> {
    connect_nats_as(addr, nats_creds().or_else(|| Some(auth.join("users").join("operator.creds")))).await
}

async fn connect_nats_as(addr: &str, creds: Option<PathBuf>) -> anyhow::Result<async_nats::Client> {
    let mut options = async_nats::ConnectOptions::new().name("cits");
    if let Some(creds) = creds {
        options = options
            .credentials_file(&creds)
            .await
            .with_context(|| format!("cannot read NATS credentials {}", creds.display()))?;
    }
    options.connect(nats_servers(addr)?).await.with_context(|| format!("cannot connect to NATS at {addr}"))
}

/// `host:port` or `nats://host:port`, or several comma separated (a cluster's servers: the
/// client goes on with another when one is lost).
pub fn nats_servers(addr: &str) -> anyhow::Result<Vec<async_nats::ServerAddr>> {
    addr.split(',')
        .map(|a| a.trim().parse::<async_nats::ServerAddr>().with_context(|| format!("NATS server `{a}`")))
        .collect()
}

/// Sets RSU `rsu`'s MQTT credentials (user = RSU id, password = its token from the auth
/// directory `auth`), if one is given.
pub fn apply_rsu_credentials(auth: Option<&Path>, rsu: &str, mqtt: &mut MqttOptions) -> anyhow::Result<()> {
    if let Some(dir) = auth {
        let token = cits_nats_auth::Authority::open(dir)?.rsu_token(rsu)?;
        mqtt.set_credentials(rsu, token.trim());
    }
    Ok(())
}

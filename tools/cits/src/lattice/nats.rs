//! The lattice's NATS server: JetStream, the MQTT listener the RSUs speak to, operator-mode auth.
//! Ready when the operator user reads its JetStream account and an MQTT client gets a CONNACK.

use std::time::Duration;

use anyhow::Context as _;

use super::process::{self, Program, StartGuard};
use super::settings::{required, Settings};

/// The server's config file for `settings`' ports and state dir.
pub fn config(settings: &Settings) -> String {
    let Settings { nats_port, mqtt_port, nats_http_port, nats_sync, .. } = settings;
    let jetstream = settings.state.join("jetstream");
    format!(
        r#"server_name: cits-{nats_port}
listen: 127.0.0.1:{nats_port}
http: 127.0.0.1:{nats_http_port}
max_payload: 8MB
jetstream {{
  store_dir: "{store}"
  # Quoted: unquoted, "2m" is read as the number 2,000,000 (seconds), with only a warning.
  sync_interval: "{nats_sync}"
}}
# RSUs speak MQTT: topic cits/cpm/<rsu> arrives on subject cits.cpm.<rsu>.
mqtt {{
  listen: 127.0.0.1:{mqtt_port}
}}
# Operator mode: only users signed by this lattice's account connect (no anonymous access);
# what each may touch is in its JWT (crates/cits-nats-auth). Reloaded after an RSU's revocation.
include "auth/resolver.conf"
"#,
        store = jetstream.display(),
    )
}

/// Starts the server on the config `up` wrote and waits until it serves JetStream and MQTT.
pub async fn start(settings: &Settings, guard: &mut StartGuard, processes: &process::Processes) -> anyhow::Result<()> {
    let server = required(&settings.binaries.nats_server, "NATS_SERVER")?;
    let conf = settings.state.join("nats.conf");
    let program = Program::new(server).args(["-c".to_string(), conf.display().to_string()]);
    let started = guard.start("nats", program.envs(settings.common_env()))?;
    process::ready(processes, "nats", started.pid, Duration::from_secs(20), || ready(settings)).await
}

async fn ready(settings: &Settings) -> anyhow::Result<()> {
    let client = connect(settings).await?;
    async_nats::jetstream::new(client).query_account().await.context("JetStream account info")?;
    mqtt_listening(settings.mqtt_port).await
}

/// A connection as the lattice's operator user.
pub async fn connect(settings: &Settings) -> anyhow::Result<async_nats::Client> {
    let creds = settings.creds("operator");
    let options = async_nats::ConnectOptions::with_credentials_file(&creds)
        .await
        .with_context(|| format!("cannot read {}", creds.display()))?
        .name("cits-lattice");
    options
        .connect(settings.nats_addr())
        .await
        .with_context(|| format!("cannot connect to NATS at {}", settings.nats_addr()))
}

/// Whether the MQTT listener answers a CONNECT (a refusal of this anonymous client counts:
/// the listener is up).
async fn mqtt_listening(port: u16) -> anyhow::Result<()> {
    let mut opts = rumqttc::MqttOptions::new("cits-lattice-ready", "127.0.0.1", port);
    opts.set_keep_alive(Duration::from_secs(5));
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

/// The pipeline's streams (stage inputs partitioned by RSU, outboxes, dead letters).
pub async fn ensure_streams(settings: &Settings) -> anyhow::Result<()> {
    let js = async_nats::jetstream::new(connect(settings).await?);
    let limits = cits_jetstream::Limits { max_bytes: settings.stream_max_bytes, ..Default::default() };
    cits_jetstream::ensure_streams(&js, &limits).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_names_the_ports_the_store_and_the_resolver() {
        let settings = Settings {
            state: "/tmp/s".into(),
            nats_port: 4300,
            mqtt_port: 1900,
            nats_http_port: 8222,
            nats_sync: "2m".into(),
            ..crate::lattice::tests::settings()
        };
        let conf = config(&settings);
        for line in [
            "server_name: cits-4300",
            "listen: 127.0.0.1:4300",
            "http: 127.0.0.1:8222",
            "store_dir: \"/tmp/s/jetstream\"",
            "sync_interval: \"2m\"",
            "  listen: 127.0.0.1:1900",
            "include \"auth/resolver.conf\"",
        ] {
            assert!(conf.lines().any(|l| l.trim_end() == line || l.trim() == line.trim()), "{line} in\n{conf}");
        }
    }
}

//! Deploy → first DENM: the backlog replayed before a deployment, the first DENM JetStream stored
//! after it.

use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use futures::StreamExt as _;
use serde::{Deserialize, Serialize};

use super::clean_state;
use cits_client::recording::Record;
use cits_client::replay::{replay, ReplayOptions};

/// Deploy → first DENM, `startup-<system>[-<compiled>].json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FirstDenm {
    pub system: String,
    /// Absent in reports from before the compilation cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compiled: Option<Compiled>,
    pub deploy_to_first_denm_ms: f64,
}

/// How the host came by the components' machine code in a start-up measurement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Compiled {
    /// Compiled them (its compilation cache emptied first).
    Cold,
    /// Loaded them from its compilation cache.
    Cached,
}

impl Compiled {
    pub fn as_str(self) -> &'static str {
        match self {
            Compiled::Cold => "cold",
            Compiled::Cached => "cached",
        }
    }
}

/// `startup-<system>[-<compiled>]`: the RSU a start-up measurement replays as, and its file name.
pub fn startup_label(system: &str, compiled: Option<Compiled>) -> String {
    match compiled {
        Some(c) => format!("startup-{system}-{}", c.as_str()),
        None => format!("startup-{system}"),
    }
}

/// Deploy → first DENM, before the deployment: cleans the state and replays a short recording
/// once, as fast as possible, as RSU `startup-<system>[-<compiled>]`. Its CPMs wait in JetStream
/// (nothing consumes them while no deployment runs) for the deployment to come, as an RSU's do
/// while a pipeline is being deployed; the first DENM needs the pipeline through the backlog up
/// to the recording's first conflict. Replaying after the deployment instead made the time
/// include the replay itself, and however long the tool took to see the deployment done.
pub async fn first_denm_backlog(
    system: &str,
    compiled: Option<Compiled>,
    nats: &str,
    mqtt: (&str, u16),
    redis_url: &str,
    records: &[Record],
) -> anyhow::Result<()> {
    let mut store = redis::Client::open(redis_url)?.get_connection().context("Redis")?;
    let client = cits_client::auth::connect_nats(nats).await?;
    // An RSU of its own per system: a DENM identical to an earlier run's (same frame id) would
    // be dropped by JetStream's duplicate window.
    let rsu = startup_label(system, compiled);
    let opts = ReplayOptions {
        mqtt_host: mqtt.0.to_string(),
        mqtt_port: mqtt.1,
        rsus: vec![rsu],
        speed: 0.0,
        qos: 1,
        progress: false,
        auth: cits_client::auth::auth_dir(),
        wire: Default::default(),
        mqtt_ca: cits_client::tls::mqtt_ca_from_env(),
    };
    clean_state(&client, &mut store).await?;
    replay(records, &opts).await?;
    // MQTT's acknowledgements say the server has them; wait until the (purged) ingress stream
    // holds them all, so the deployment finds the whole backlog.
    let mut ingress = async_nats::jetstream::new(client).get_stream("CITS_CPM").await?;
    let give_up = Instant::now() + Duration::from_secs(10);
    loop {
        let held = ingress.info().await?.state.messages;
        if held >= records.len() as u64 {
            return Ok(());
        }
        if Instant::now() > give_up {
            bail!("the ingress stream holds {held} of {} CPMs replayed", records.len());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Deploy → first DENM, after the deployment was asked for at `since_us`: the time JetStream
/// stored the first DENM for the backlog's RSU (`first_denm_backlog`) after `since_us`, as ms
/// since `since_us` — read from the DENM stream, so it does not matter when this starts looking.
pub async fn first_denm(
    system: &str,
    compiled: Option<Compiled>,
    nats: &str,
    since_us: u64,
    timeout: Duration,
) -> anyhow::Result<FirstDenm> {
    use async_nats::jetstream::consumer::pull::OrderedConfig;
    let client = cits_client::auth::connect_nats(nats).await?;
    let rsu = startup_label(system, compiled);
    let stream = async_nats::jetstream::new(client).get_stream("CITS_DENM").await?;
    let consumer = stream
        .create_consumer(OrderedConfig { filter_subject: cits::subjects::denm_outbox(&rsu), ..Default::default() })
        .await?;
    let mut messages = consumer.messages().await?;
    let since = std::time::UNIX_EPOCH + Duration::from_micros(since_us);
    let first = async {
        while let Some(message) = messages.next().await {
            let message = message.map_err(|e| anyhow::anyhow!("DENM stream: {e}"))?;
            let stored = std::time::SystemTime::from(message.info().map_err(|e| anyhow::anyhow!("{e}"))?.published);
            // Earlier runs' DENMs of the same RSU come first.
            if let Ok(after) = stored.duration_since(since) {
                return Ok(after);
            }
        }
        bail!("DENM stream closed")
    };
    match tokio::time::timeout(timeout, first).await {
        Ok(after) => Ok(FirstDenm {
            system: system.to_string(),
            compiled,
            deploy_to_first_denm_ms: after?.as_secs_f64() * 1000.0,
        }),
        Err(_) => bail!("no DENM within {} s of deployment", timeout.as_secs()),
    }
}

//! Publishes a recording over MQTT as RSUs would: topic `cits/cpm/<rsu>`, original pacing divided
//! by a speed factor, several RSUs at once.

use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use rumqttc::{AsyncClient, Event, MqttOptions, Outgoing, Packet, QoS};

use crate::recording::Record;

pub struct ReplayOptions {
    pub mqtt_host: String,
    pub mqtt_port: u16,
    pub rsus: Vec<String>,
    /// 1.0 = real time; 4.0 = four times as fast; 0 = as fast as possible.
    pub speed: f64,
    pub qos: u8,
    pub progress: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ReplaySummary {
    pub messages: u64,
    pub bytes: u64,
    pub elapsed: Duration,
    /// Wall clock (µs since the Unix epoch) when each message was handed to the MQTT client, in
    /// publish order (record by record, each record once per RSU): where end-to-end latency starts.
    pub published_at_us: Vec<u64>,
}

impl ReplaySummary {
    pub fn rate(&self) -> f64 {
        self.messages as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// How long a QoS 1 replay keeps reconnecting after its connection was lost.
const RECONNECT_FOR: Duration = Duration::from_secs(60);

fn qos(level: u8) -> anyhow::Result<QoS> {
    Ok(match level {
        0 => QoS::AtMostOnce,
        1 => QoS::AtLeastOnce,
        _ => bail!("QoS {level} is not supported by the NATS MQTT bridge for publishing; use 0 or 1"),
    })
}

/// Replays `records` and returns once every message has left (QoS 0) or been acknowledged (QoS 1).
pub async fn replay(records: &[Record], opts: &ReplayOptions) -> anyhow::Result<ReplaySummary> {
    if opts.rsus.is_empty() {
        bail!("no RSU given");
    }
    let qos = qos(opts.qos)?;
    let client_id = format!("cits-replay-{}", std::process::id());
    let mut mqtt = MqttOptions::new(client_id, &opts.mqtt_host, opts.mqtt_port);
    mqtt.set_keep_alive(Duration::from_secs(30));
    mqtt.set_max_packet_size(1 << 20, 1 << 20);
    // A persistent session: after a lost connection (a restarted server) the client reconnects
    // and sends again every QoS 1 message not yet acknowledged, as an RSU must.
    mqtt.set_clean_session(false);
    let (client, mut eventloop) = AsyncClient::new(mqtt, 1024);

    // Drive the connection; count what actually went out (or was acknowledged).
    let expected = (records.len() * opts.rsus.len()) as u64;
    let io = tokio::spawn(async move {
        let mut done = 0u64;
        let mut connected = false;
        let mut lost_since: Option<Instant> = None;
        while done < expected {
            match eventloop.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    connected = true;
                    if lost_since.take().is_some() {
                        eprintln!("replay: MQTT connection back");
                    }
                }
                Ok(Event::Outgoing(Outgoing::Publish(_))) if qos == QoS::AtMostOnce => done += 1,
                Ok(Event::Incoming(Packet::PubAck(_))) => done += 1,
                Ok(_) => {}
                // QoS 1: reconnect and resend what is unacknowledged, for up to a minute.
                Err(e) if connected && qos == QoS::AtLeastOnce => {
                    let since = *lost_since.get_or_insert_with(|| {
                        eprintln!("replay: MQTT connection lost ({e}), reconnecting");
                        Instant::now()
                    });
                    if since.elapsed() > RECONNECT_FOR {
                        return Err(anyhow::Error::new(e).context("MQTT connection lost for a minute"));
                    }
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Err(e) => {
                    let what = if connected { "MQTT connection lost" } else { "cannot connect to MQTT" };
                    return Err(anyhow::Error::new(e).context(what));
                }
            }
        }
        Ok(done)
    });

    let started = Instant::now();
    let first_ts = records.first().map(|r| r.timestamp_ms).unwrap_or(0);
    let mut bytes = 0u64;
    let mut published_at_us = Vec::with_capacity(records.len() * opts.rsus.len());
    let total = records.len();
    for (i, record) in records.iter().enumerate() {
        if opts.speed > 0.0 {
            let offset_ms = record.timestamp_ms.saturating_sub(first_ts) as f64 / opts.speed;
            let due = started + Duration::from_secs_f64(offset_ms / 1000.0);
            tokio::time::sleep_until(due.into()).await;
        }
        for rsu in &opts.rsus {
            published_at_us.push(cits::time::now_us());
            client
                .publish(format!("cits/cpm/{rsu}"), qos, false, record.cpm.clone())
                .await
                .context("MQTT client closed")?;
            bytes += record.cpm.len() as u64;
        }
        if opts.progress && ((i + 1) % 50 == 0 || i + 1 == total) {
            progress_bar(i + 1, total, started.elapsed());
        }
        if io.is_finished() {
            break;
        }
    }
    let sent = io.await.context("MQTT task panicked")??;
    let elapsed = started.elapsed();
    client.disconnect().await.ok();
    if opts.progress {
        eprintln!();
    }
    Ok(ReplaySummary { messages: sent, bytes, elapsed, published_at_us })
}

fn progress_bar(done: usize, total: usize, elapsed: Duration) {
    let width = 40;
    let filled = done * width / total.max(1);
    eprint!(
        "\r[{}{}] {done}/{total} CPMs  {:.1} s",
        "#".repeat(filled),
        ".".repeat(width - filled),
        elapsed.as_secs_f64()
    );
}

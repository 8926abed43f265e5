//! DENMs as an RSU receives them: MQTT topic `cits/denm/<rsu>`, UPER payload.

use std::time::Duration;

use anyhow::{bail, Context as _};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use tokio::sync::mpsc;

/// MQTT topic filter of every RSU's DENMs.
pub const TOPIC_FILTER: &str = "cits/denm/+";

/// One DENM received: the RSU (from the topic) and the UPER bytes.
#[derive(Debug, Clone)]
pub struct Received {
    pub rsu: String,
    pub uper: Vec<u8>,
}

/// Subscribes (QoS 1) and returns once the broker acknowledged the subscription, so no DENM
/// published afterwards is missed. The connection lives as long as the receiver.
pub async fn subscribe(host: &str, port: u16, client_id: &str) -> anyhow::Result<mpsc::Receiver<Received>> {
    let mut opts = MqttOptions::new(client_id, host, port);
    opts.set_keep_alive(Duration::from_secs(30));
    let (client, mut eventloop) = AsyncClient::new(opts, 64);
    client.subscribe(TOPIC_FILTER, QoS::AtLeastOnce).await?;
    let subscribed = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match eventloop.poll().await {
                Ok(Event::Incoming(Packet::SubAck(_))) => return Ok(()),
                Ok(_) => {}
                Err(e) => bail!("MQTT {host}:{port}: {e}"),
            }
        }
    })
    .await
    .context("no MQTT SUBACK within 10 s")?;
    subscribed?;
    let (tx, rx) = mpsc::channel(1024);
    tokio::spawn(async move {
        let _client = client; // dropping it would end the session
        loop {
            match eventloop.poll().await {
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    let rsu = p.topic.rsplit('/').next().unwrap_or_default().to_string();
                    if tx.send(Received { rsu, uper: p.payload.to_vec() }).await.is_err() {
                        return;
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    eprintln!("DENM subscription: {e}; reconnecting");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
        }
    });
    Ok(rx)
}

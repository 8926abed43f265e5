//! DENMs as an RSU receives them: MQTT topic `cits/denm/<rsu>`, UPER payload.

use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context as _};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use tokio::sync::mpsc;

/// One DENM received: the RSU (from the topic) and the UPER bytes.
#[derive(Debug, Clone)]
pub struct Received {
    pub rsu: String,
    pub uper: Vec<u8>,
    /// When the RSU's connection got it (µs since the Unix epoch).
    pub received_us: u64,
}

/// Subscribes (QoS 1) to the DENMs of each of `rsus`, one connection per RSU with that RSU's
/// credentials (see [`crate::auth`]), over TLS when `ca` names the CA to check the listener
/// against (see [`crate::tls`]), and returns once the broker acknowledged every
/// subscription, so no DENM published afterwards is missed while connected. The connections
/// live as long as the receiver; a connection lost is made again (and subscribed again).
pub async fn subscribe(
    host: &str,
    port: u16,
    client_id: &str,
    rsus: &[String],
    auth: Option<&Path>,
    ca: Option<&Path>,
) -> anyhow::Result<mpsc::Receiver<Received>> {
    let (tx, rx) = mpsc::channel(1024);
    for rsu in rsus {
        subscribe_rsu(host, port, &format!("{client_id}-{rsu}"), rsu, auth, ca, tx.clone()).await?;
    }
    Ok(rx)
}

async fn subscribe_rsu(
    host: &str,
    port: u16,
    client_id: &str,
    rsu: &str,
    auth: Option<&Path>,
    ca: Option<&Path>,
    tx: mpsc::Sender<Received>,
) -> anyhow::Result<()> {
    let mut opts = MqttOptions::new(client_id, host, port);
    opts.set_keep_alive(Duration::from_secs(30));
    crate::auth::apply_rsu_credentials(auth, rsu, &mut opts)?;
    if let Some(ca) = ca {
        opts.set_transport(crate::tls::mqtt_transport(ca)?);
    }
    let (client, mut eventloop) = AsyncClient::new(opts, 64);
    let topic = format!("cits/denm/{rsu}");
    client.subscribe(topic.clone(), QoS::AtLeastOnce).await?;
    let subscribed = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match eventloop.poll().await {
                Ok(Event::Incoming(Packet::SubAck(ack))) => {
                    // A refused subscription (no permission) is a SUBACK with a failure code.
                    if ack.return_codes.iter().any(|c| matches!(c, rumqttc::SubscribeReasonCode::Failure)) {
                        bail!("MQTT {host}:{port}: subscription to cits/denm/{rsu} refused");
                    }
                    return Ok(());
                }
                Ok(_) => {}
                Err(e) => bail!("MQTT {host}:{port} as {rsu}: {e}"),
            }
        }
    })
    .await
    .context("no MQTT SUBACK within 10 s")?;
    subscribed?;
    tokio::spawn(async move {
        // Dropping the client would end the session; it subscribes again after a reconnect (a
        // clean session: the broker forgot the subscription with the connection). What was
        // published meanwhile is lost to this subscriber (DENMs reach MQTT with QoS 0): the
        // stream CITS_DENM keeps them (see crate::outbox).
        let client = client;
        loop {
            match eventloop.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    if let Err(e) = client.try_subscribe(topic.clone(), QoS::AtLeastOnce) {
                        eprintln!("DENM subscription: cannot subscribe again to {topic}: {e}");
                    }
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    let received_us = cits::shared::time::now_us();
                    let rsu = p.topic.rsplit('/').next().unwrap_or_default().to_string();
                    if tx.send(Received { rsu, uper: p.payload.to_vec(), received_us }).await.is_err() {
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
    Ok(())
}

//! `cits replay`: publish a recording over MQTT as one or more RSUs.

use std::path::PathBuf;

use cits_client::demo;
use cits_client::recording;
use cits_client::replay::{replay, replay_as_recorded, ReplayOptions, ReplaySummary};

#[derive(clap::Args, Clone)]
pub struct ReplayArgs {
    /// Recording (base64 records: 4-byte length, 8-byte timestamp, UPER CPM).
    #[arg(long, default_value = "data/demo.rec.b64")]
    pub file: PathBuf,
    /// MQTT listener (NATS's MQTT gateway), host:port; over TLS when `CITS_MQTT_CA` names the CA
    /// to check it against (a cluster's, `<state>/tls/ca.pem`).
    #[arg(long, env = "CITS_MQTT", default_value = "127.0.0.1:1883")]
    pub mqtt: String,
    /// RSU id(s) to publish as (topic cits/cpm/<rsu>); repeat to replay as several RSUs at once.
    #[arg(long = "rsu", default_value = demo::RSU_ID)]
    pub rsus: Vec<String>,
    /// Speed factor: 1 = recorded pace, 4 = four times as fast, 0 = as fast as possible.
    #[arg(long, default_value_t = 1.0)]
    speed: f64,
    /// MQTT QoS (0 or 1).
    #[arg(long, default_value_t = 0)]
    qos: u8,
    /// Send the CPMs with the times they were recorded at (the pipeline refuses CPMs far from
    /// its clock); by default every time is moved so that the recording plays as if live.
    #[arg(long)]
    as_recorded: bool,
    /// The format the CPMs go out in, as other equipment sends them: cpm-v2-uper (as recorded),
    /// cpm-v1-uper, cpm-v2-xer, cpm-v1-xer, cpm-v2-gn-btp (GeoNetworking + BTP).
    #[arg(long, default_value = "cpm-v2-uper")]
    wire: etsi_its::format::Wire,
}

impl ReplayArgs {
    /// The replay's options; `progress` prints how far it got while it runs.
    pub fn options(&self, progress: bool) -> anyhow::Result<ReplayOptions> {
        let (mqtt_host, mqtt_port) = cits_client::split_host_port(&self.mqtt)?;
        Ok(ReplayOptions {
            mqtt_host,
            mqtt_port,
            rsus: self.rsus.clone(),
            speed: self.speed,
            qos: self.qos,
            progress,
            auth: cits_client::auth::auth_dir(),
            wire: self.wire,
            mqtt_ca: cits_client::tls::mqtt_ca_from_env(),
        })
    }

    /// Replays `records` as these arguments say.
    pub async fn send(&self, records: &[recording::Record], options: &ReplayOptions) -> anyhow::Result<ReplaySummary> {
        if self.as_recorded {
            replay_as_recorded(records, options).await
        } else {
            replay(records, options).await
        }
    }
}

pub async fn run(args: ReplayArgs) -> anyhow::Result<()> {
    let records = recording::read_file(&args.file)?;
    let s = args.send(&records, &args.options(true)?).await?;
    println!(
        "replayed {} messages ({} bytes) in {:.2} s: {:.1} msg/s; times moved by {:.1} s",
        s.messages,
        s.bytes,
        s.elapsed.as_secs_f64(),
        s.rate(),
        s.shift_ms as f64 / 1000.0
    );
    Ok(())
}

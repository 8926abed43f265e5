//! `cits watch`: print what the pipeline puts out (location frames, DENMs as an RSU receives
//! them, dead letters) until it goes idle, then a summary with latencies per stage and hop
//! ([`cits_client::observe`], which `cits demo` observes its replay with too).

use std::time::Duration;

use cits_client::demo;
use cits_client::observe::{observe, print_summary, subscribe_denms, Print, Streams, Until, PATIENCE};

#[derive(clap::Args)]
pub struct WatchArgs {
    #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
    nats: String,
    /// MQTT listener the DENMs are read from (cits/denm/+), as an RSU would.
    #[arg(long, env = "CITS_MQTT", default_value = "127.0.0.1:1883")]
    mqtt: String,
    /// RSU(s) whose DENMs to read (each over its own MQTT connection, as that RSU).
    #[arg(long = "rsu", default_value = demo::RSU_ID)]
    rsus: Vec<String>,
    /// Stop after this long without anything new, once the stage inputs hold no frames (or
    /// after 60 s without anything new, whatever they hold).
    #[arg(long, default_value_t = 5000)]
    idle_ms: u64,
    #[command(flatten)]
    output: OutputArgs,
}

pub async fn run(args: WatchArgs) -> anyhow::Result<()> {
    let WatchArgs { nats, mqtt, rsus, idle_ms, output } = args;
    let client = cits_client::auth::connect_nats(&nats).await?;
    // Every RSU's frames from now on; DENMs over MQTT as the RSUs of `rsus`.
    let streams = Streams::start(&async_nats::jetstream::new(client.clone()), None).await;
    let denms = subscribe_denms(&mqtt, &rsus).await?;
    let until = Until::Quiet { idle: Duration::from_millis(idle_ms), patience: PATIENCE };
    let seen = observe(&client, streams, denms, output.print(), until).await?;
    print_summary(&seen, None, &rsus, None);
    Ok(())
}

#[derive(clap::Args)]
pub struct OutputArgs {
    /// Only print the summary.
    #[arg(long)]
    pub quiet: bool,
    /// Print every object location too (not only DENMs).
    #[arg(long)]
    locations: bool,
}

impl OutputArgs {
    /// What these flags ask `observe` to print.
    pub fn print(&self) -> Print {
        match (self.quiet, self.locations) {
            (true, _) => Print::Nothing,
            (false, true) => Print::Locations,
            (false, false) => Print::Denms,
        }
    }
}

//! `cits demo`: replay a recording while watching the pipeline, and `cits demo-data`: regenerate
//! the demo recording.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context as _};
use cits_client::demo;
use cits_client::recording;

use super::replay::ReplayArgs;
use super::watch::OutputArgs;
use cits_client::observe::{observe, print_summary, subscribe_denms, Streams, Until};

#[derive(clap::Args)]
pub struct DemoArgs {
    #[command(flatten)]
    replay: ReplayArgs,
    #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
    nats: String,
    #[command(flatten)]
    output: OutputArgs,
}

/// Replays while observing, then waits until every frame is done (stored in `CITS_DONE`, or a
/// dead letter) or nothing new was stored for [`DONE_PATIENCE`], and says what the streams hold
/// of this replay: the counts survive a provider, host or server killed meanwhile (see
/// [`super::watch`]). Fails if frames are missing.
pub async fn run(args: DemoArgs) -> anyhow::Result<()> {
    let DemoArgs { replay: a, nats, output } = args;
    let print = output.print();
    let denms = subscribe_denms(&a.mqtt, &a.rsus).await?;
    let records = recording::read_file(&a.file)?;
    let client = cits_client::auth::connect_nats(&nats).await?;
    // From just after what the streams hold before the replay, this replay's RSUs only.
    let streams = Streams::start(&async_nats::jetstream::new(client.clone()), Some(&a.rsus)).await;
    let expected = (records.len() * a.rsus.len()) as u64;
    let observer = {
        let client = client.clone();
        let until = Until::Frames { expected, patience: DONE_PATIENCE };
        tokio::spawn(async move { observe(&client, streams, denms, print, until).await })
    };
    tokio::time::sleep(Duration::from_millis(200)).await; // subscriptions in place first
                                                          // The replay's progress would interleave with the pipeline's output: only when quiet.
    let options = a.options(output.quiet)?;
    let s = tokio::select! {
        s = a.send(&records, &options) => s?,
        _ = tokio::signal::ctrl_c() => bail!("interrupted"),
    };
    let replay_ended = std::time::Instant::now();
    eprintln!("replayed {} CPMs in {:.2} s ({:.1} msg/s)", s.messages, s.elapsed.as_secs_f64(), s.rate());
    let seen = observer.await??;
    print_summary(&seen, Some(expected), &a.rsus, Some(replay_ended));
    let through = seen.frames_done();
    if through < expected {
        bail!("{} of {expected} CPMs did not make it through the pipeline", expected - through);
    }
    Ok(())
}

/// How long the pipeline may store no FrameDone before the ones missing count as lost (a killed
/// host or provider is back well within it, a server of a cluster too).
const DONE_PATIENCE: Duration = cits_client::observe::PATIENCE;

#[derive(clap::Args)]
pub struct DemoDataArgs {
    #[arg(long, default_value = "data/demo.rec.b64")]
    out: PathBuf,
}

pub fn run_data(args: DemoDataArgs) -> anyhow::Result<()> {
    let out = args.out;
    let records = demo::recording();
    let file = std::fs::File::create(&out).with_context(|| format!("cannot write {}", out.display()))?;
    recording::write(std::io::BufWriter::new(file), &records)?;
    println!("wrote {} records to {}", records.len(), out.display());
    Ok(())
}

//! `cits demo`: replay a recording while watching the pipeline, and `cits demo-data`: regenerate
//! the demo recording.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context as _};
use cits_tools::{demo, recording};

use super::replay::ReplayArgs;
use super::watch::{observe, print_summary, subscribe_denms, OutputArgs};

#[derive(clap::Args)]
pub struct DemoArgs {
    #[command(flatten)]
    replay: ReplayArgs,
    #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
    nats: String,
    #[command(flatten)]
    output: OutputArgs,
}

pub async fn run(args: DemoArgs) -> anyhow::Result<()> {
    let DemoArgs { replay: a, nats, output } = args;
    let print = output.print();
    let denms = subscribe_denms(&a.mqtt, &a.rsus).await?;
    let records = recording::read_file(&a.file)?;
    let client = cits_tools::auth::connect_nats(&nats).await?;
    let js = async_nats::jetstream::new(client.clone());
    // What CITS_DONE holds before the replay (none when it cannot be read: then only the watcher
    // counts).
    let done_before = cits_tools::outbox::frames_done(&js)
        .await
        .inspect_err(|e| eprintln!("cannot count stream CITS_DONE ({e:#}); counting what the watcher sees"))
        .ok();
    let expected = (records.len() * a.rsus.len()) as u64;
    let observer = {
        let client = client.clone();
        tokio::spawn(async move {
            observe(&client, denms, Duration::from_secs(5), print, |s| {
                s.frames >= expected && s.downstream.iter().all(|d| d.frames >= expected)
            })
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await; // subscriptions in place first
                                                          // The replay's progress would interleave with the pipeline's output: only when quiet.
    let options = a.options(output.quiet)?;
    let s = tokio::select! {
        s = a.send(&records, &options) => s?,
        _ = tokio::signal::ctrl_c() => bail!("interrupted"),
    };
    eprintln!("replayed {} CPMs in {:.2} s ({:.1} msg/s)", s.messages, s.elapsed.as_secs_f64(), s.rate());
    let seen = observer.await??;
    print_summary(&seen);
    let watched = seen.downstream.last().map_or(0, |d| d.frames);
    let mut through = watched;
    if let Some(before) = done_before.filter(|_| watched < expected) {
        // The watcher reads core NATS and gives up after 5 s of quiet (a restarting provider or
        // host is quiet longer): what counts is what stream CITS_DONE holds.
        let rsus: Vec<&str> = a.rsus.iter().map(String::as_str).collect();
        through = frames_stored(&js, &before, &rsus, expected).await?;
        eprintln!("the watcher saw {watched} of {expected} frames finish; stream CITS_DONE holds {through}");
    }
    if through < expected {
        bail!("{} of {expected} CPMs did not make it through the pipeline", expected - through);
    }
    Ok(())
}

/// How long the pipeline may store no FrameDone before the ones missing count as lost (a killed
/// host or provider is back well within it).
const DONE_PATIENCE: Duration = Duration::from_secs(60);

/// The FrameDones of `rsus` stored in CITS_DONE since `before`, once `expected` are there or
/// none came for [`DONE_PATIENCE`].
async fn frames_stored(
    js: &async_nats::jetstream::Context,
    before: &std::collections::BTreeMap<String, u64>,
    rsus: &[&str],
    expected: u64,
) -> anyhow::Result<u64> {
    let (mut stored, mut progress_at) = (0, std::time::Instant::now());
    loop {
        let now = cits_tools::outbox::frames_done(js).await?;
        let count = |m: &std::collections::BTreeMap<String, u64>, r: &str| m.get(r).copied().unwrap_or(0);
        let done: u64 = rsus.iter().map(|r| count(&now, r).saturating_sub(count(before, r))).sum();
        if done > stored {
            (stored, progress_at) = (done, std::time::Instant::now());
        }
        if stored >= expected || progress_at.elapsed() > DONE_PATIENCE {
            return Ok(stored);
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

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

//! `cits probe`, `cits streams` and `cits dlq`: checks of a running lattice's NATS side.

use std::time::Duration;

use cits_client::auth::connect_nats;
use cits_client::demo;
use cits_client::dlq;

#[derive(clap::Args)]
pub struct ProbeArgs {
    #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
    nats: String,
    #[arg(long, default_value_t = 5000)]
    timeout_ms: u64,
}

pub async fn run_probe(args: ProbeArgs) -> anyhow::Result<()> {
    let ProbeArgs { nats, timeout_ms } = args;
    demo::probe(&connect_nats(&nats).await?, Duration::from_millis(timeout_ms)).await
}

#[derive(clap::Args)]
pub struct StreamsArgs {
    #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
    nats: String,
    /// Bytes each stream keeps at most (oldest dropped first); the server reserves this much
    /// of its file store per stream when creating it. Existing streams keep their size.
    #[arg(long, env = "CITS_STREAM_MAX_BYTES", default_value_t = cits_jetstream::Limits::default().max_bytes)]
    max_bytes: i64,
}

pub async fn run_streams(args: StreamsArgs) -> anyhow::Result<()> {
    let js = async_nats::jetstream::new(connect_nats(&args.nats).await?);
    let limits = cits_jetstream::Limits { max_bytes: args.max_bytes, ..Default::default() };
    cits_jetstream::ensure_streams(&js, &limits).await?;
    for spec in cits_jetstream::STREAMS {
        let mut stream = js.get_stream(spec.name).await?;
        let messages = stream.info().await?.state.messages;
        println!("{:<18} {:<20} {messages:>8} messages", spec.name, spec.subjects);
    }
    Ok(())
}

#[derive(clap::Args)]
pub struct DlqArgs {
    #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
    nats: String,
}

pub async fn run_dlq(args: DlqArgs) -> anyhow::Result<()> {
    let client = connect_nats(&args.nats).await?;
    let counts = dlq::ensure_and_count(&client).await?;
    if counts.is_empty() {
        println!("dead letters: none");
    }
    for (stage, count) in counts {
        println!("dead letters from {stage}: {count}");
    }
    Ok(())
}

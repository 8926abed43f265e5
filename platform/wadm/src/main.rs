//! wadm, built from the `wadm` 0.21.1 library: wadm publishes no binary to crates.io.
//! All options are wadm's own (`WADM_*` env vars, e.g. `WADM_NATS_SERVER`); log filter from `RUST_LOG`.

use anyhow::Context as _;
use clap::Parser as _;
use wadm::config::WadmConfig;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = WadmConfig::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let subscriber = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    if config.structured_logging {
        subscriber.json().init();
    } else {
        subscriber.init();
    }

    let mut tasks = wadm::start_wadm(config).await.context("failed to start wadm")?;
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        res = tasks.join_next() => match res {
            Some(Ok(Ok(()))) | None => Ok(()),
            Some(Ok(Err(e))) => Err(e).context("a wadm task failed"),
            Some(Err(e)) => Err(e).context("a wadm task panicked"),
        },
        _ = tokio::signal::ctrl_c() => Ok(()),
        _ = terminate.recv() => Ok(()),
    }
}

//! `cits`: replay CPM recordings over MQTT, watch the pipeline's output, probe it, regenerate
//! the demo dataset. The command tree and one module per subcommand are in [`cli`].

mod cli;

use clap::Parser as _;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    cli::run(cli::Cli::parse()).await
}

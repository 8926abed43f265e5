//! `cits lattice <step>`: the local lattice's supervisor (`make run`, `make stop`, `make status`,
//! `make bench`); the steps and what they wait for are in [`cits_ops::lattice`].

use cits_ops::lattice::{Lattice, Settings, Step};

#[derive(clap::Args)]
pub struct LatticeArgs {
    #[command(flatten)]
    settings: Settings,
    #[command(subcommand)]
    step: Step,
}

pub async fn run(args: LatticeArgs) -> anyhow::Result<()> {
    let lattice = Lattice::new(args.settings);
    // Ctrl-C drops the step: what it started so far is stopped again (process::StartGuard).
    tokio::select! {
        outcome = lattice.run(args.step) => outcome,
        _ = tokio::signal::ctrl_c() => anyhow::bail!("interrupted"),
    }
}

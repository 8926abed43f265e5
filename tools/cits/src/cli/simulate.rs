//! `cits simulate`: simulated traffic recorded as the RSU's CPMs, with a ground-truth sidecar.

use std::path::PathBuf;

use cits_map as map;
use cits_research::sim::{self, Scenarios};

#[derive(clap::Args)]
pub struct SimulateArgs {
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// One junction of the map (`K` or `LAT,LON`, see `cits map --junctions`).
    #[arg(long)]
    junction: Option<map::junction::Choice>,
    /// How long the cameras run (2 × 8 CPMs a second).
    #[arg(long, default_value_t = 207)]
    duration_s: u32,
    /// Recording to write (base64 records in arrival order).
    #[arg(long, default_value = "data/default.rec.b64")]
    out: PathBuf,
    /// Ground-truth sidecar to write (road users, trajectories, tracker ids, planted conflicts).
    #[arg(long, default_value = "data/default.truth.json")]
    truth: PathBuf,
    #[arg(long, default_value = "data/map/weiser-gabelsberger.osm")]
    osm: PathBuf,
    /// Planted scenarios: `library` (all kinds) or `classic` (the committed recordings' three).
    // The doc line above names the values, as the help always has: the list clap would add is hidden.
    #[arg(long, value_enum, default_value = "library", hide_possible_values = true)]
    scenarios: ScenarioSet,
    /// Background traffic relative to the default (≈ 8 objects per CPM at 1).
    #[arg(long, default_value_t = 1.0)]
    density: f64,
}

/// The values `--scenarios` takes ([`Scenarios`] is the simulator's and not clap's).
#[derive(Clone, Copy, clap::ValueEnum)]
enum ScenarioSet {
    Library,
    Classic,
    /// No planted conflicts, background traffic only; undocumented, but accepted before (the
    /// option was parsed as the simulator's enum) and so still.
    #[value(hide = true)]
    Ncap,
}

impl From<ScenarioSet> for Scenarios {
    fn from(set: ScenarioSet) -> Self {
        match set {
            ScenarioSet::Library => Scenarios::Library,
            ScenarioSet::Classic => Scenarios::Classic,
            ScenarioSet::Ncap => Scenarios::Ncap,
        }
    }
}

pub fn run(args: SimulateArgs) -> anyhow::Result<()> {
    let SimulateArgs { seed, junction, duration_s, out, truth, osm, scenarios, density } = args;
    let params =
        sim::Params { seed, duration_s, scenarios: scenarios.into(), density, ..sim::Params::new(seed, duration_s) };
    let summary = sim::simulate_to_files(&map::load(&osm, junction)?, &params, &out, &truth)?;
    println!("{summary}\nwrote {} and {}", out.display(), truth.display());
    Ok(())
}

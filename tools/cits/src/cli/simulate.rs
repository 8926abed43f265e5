//! `cits simulate`: simulated traffic recorded as the RSU's CPMs, with a ground-truth sidecar.

use std::path::PathBuf;

use cits_tools::map;
use cits_tools::sim;

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
    #[arg(long, default_value = "library")]
    scenarios: String,
    /// Background traffic relative to the default (≈ 8 objects per CPM at 1).
    #[arg(long, default_value_t = 1.0)]
    density: f64,
}

pub fn run(args: SimulateArgs) -> anyhow::Result<()> {
    let SimulateArgs { seed, junction, duration_s, out, truth, osm, scenarios, density } = args;
    let scenarios = serde_json::from_value(serde_json::Value::String(scenarios.clone()))
        .map_err(|_| anyhow::anyhow!("--scenarios must be `library` or `classic`, got `{scenarios}`"))?;
    let params = sim::Params { seed, duration_s, scenarios, density, ..sim::Params::new(seed, duration_s) };
    let summary = sim::simulate_to_files(&map::load(&osm, junction)?, &params, &out, &truth)?;
    println!("{summary}\nwrote {} and {}", out.display(), truth.display());
    Ok(())
}

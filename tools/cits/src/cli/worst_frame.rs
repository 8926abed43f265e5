//! `cits worst-frame`: the fused pipeline timed in process on the most hostile CPMs allowed.

use std::path::PathBuf;

use anyhow::Context as _;
use cits::pipeline::{Fused, Handler as _};
use cits_map as map;
use cits_native as native;
use cits_research::worst_frame;

#[derive(clap::Args)]
pub struct WorstFrameArgs {
    /// Perceived objects per CPM.
    #[arg(long, default_value_t = 128)]
    objects: usize,
    /// Hostile RSUs at the intersection (the detector tests the paths of all of them).
    #[arg(long, default_value_t = 1)]
    rsus: usize,
    /// Seconds each road user runs towards the junction before it jumps back (longer: longer
    /// tracks, the map matcher's worst case).
    #[arg(long, default_value_t = worst_frame::CYCLE_S)]
    cycle_s: f64,
    /// Untimed frames first (trajectories and paths build up).
    #[arg(long, default_value_t = 30)]
    warmup: usize,
    /// Timed frames.
    #[arg(long, default_value_t = 50)]
    frames: usize,
    #[arg(long, default_value = "data/map/weiser-gabelsberger.osm")]
    osm: PathBuf,
    /// The manifest the fused actor's config is read from.
    #[arg(long, default_value = "wadm/cits-pipeline-fused.yaml")]
    manifest: PathBuf,
    /// Config entries to set on top of the manifest's, e.g. `limits.max_pairs_per_frame=1024`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

pub fn run(args: WorstFrameArgs) -> anyhow::Result<()> {
    let WorstFrameArgs { objects, rsus, cycle_s, warmup, frames, osm, manifest, set } = args;
    let xml = std::fs::read_to_string(&osm).with_context(|| format!("cannot read {}", osm.display()))?;
    let graph = map::lane_graph_from_osm(&xml, "map")?;
    let config = native::settings_from_manifest(&manifest, Fused::NAME)?.config;
    let config = native::with_entries(config, native::entries_set(&set)?);
    let config = worst_frame::config(config, rsus);
    let opts = worst_frame::Options { objects, rsus, cycle_s, warmup, frames };
    let svc = map::in_process(config, &graph);
    // CPU-bound for seconds: off the async worker without leaving the runtime.
    let report = tokio::task::block_in_place(|| worst_frame::run(&graph, svc, &opts))?;
    print!("{}", report.text(&opts));
    Ok(())
}

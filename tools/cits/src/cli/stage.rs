//! `cits stage`: one stage (or the fused pipeline) as a native process, the benchmark's baseline.

use std::path::PathBuf;

use cits_native as native;

#[derive(clap::Args)]
pub struct StageArgs {
    /// decoder, collector, assembler, map_matcher, predictor, collision_detector, denm_sender
    /// or pipeline.
    // A string, not a clap::ValueEnum: the names are those of native::handlers, which says
    // which it knows when given another.
    name: String,
    #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
    nats: String,
    #[arg(long, default_value = "redis://127.0.0.1:6379/")]
    redis: String,
    /// Blobstore-fs root holding the map (container cits-map), as `cits map` writes it.
    #[arg(long, default_value = ".state/blobstore")]
    blobstore_root: PathBuf,
    /// The manifest the stage's config and subscriptions are read from.
    #[arg(long, default_value = "wadm/cits-pipeline.yaml")]
    manifest: PathBuf,
    /// The lattice whose config store holds the named configs the manifest lists without
    /// entries (the RSU registry `cits-rsus`).
    #[arg(long, env = "WASMCLOUD_LATTICE", default_value = "default")]
    lattice: String,
    /// Config entries to set on top of the manifest's, e.g. `limits.max_age_ms=300000`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Input from the stage's own durable JetStream consumers, delivered as the messaging
    /// provider delivers to a component, instead of core NATS subscriptions.
    #[arg(long)]
    durable: bool,
}

pub async fn run(args: StageArgs) -> anyhow::Result<()> {
    let StageArgs { name, nats, redis, blobstore_root, manifest, lattice, set, durable } = args;
    let opts = native::ServeOptions {
        set: native::entries_set(&set)?,
        stage: name,
        nats,
        redis_url: redis,
        blobstore_root,
        manifest,
        lattice,
        durable,
    };
    native::serve(opts).await
}

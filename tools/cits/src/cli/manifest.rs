//! `cits manifest`: render a wadm manifest for a replay, print the config keys the stages read,
//! or wait for the lattice's secrets.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use clap::Subcommand;

#[derive(clap::Args)]
pub struct ManifestArgs {
    #[command(subcommand)]
    command: ManifestCommand,
}

#[derive(Subcommand)]
enum ManifestCommand {
    /// Render MANIFEST for a replay: relative artefacts made absolute, then the options given.
    Render {
        manifest: PathBuf,
        /// Where to write it (canonical YAML: keys sorted).
        #[arg(long)]
        out: PathBuf,
        /// Every `limits.max_age_ms` (a replay faster than real time sends older CPMs).
        #[arg(long)]
        max_age_ms: Option<u64>,
        /// Copy the camera calibrations (`sensor.<station>.<n>`) of this station …
        #[arg(long, requires = "camera_stations")]
        camera_source: Option<u32>,
        /// … to each of these stations (comma separated).
        #[arg(long, value_delimiter = ',')]
        camera_stations: Vec<u32>,
        /// Sites that run the pipeline on their own hosts: the hub's parts placed there too
        /// (comma separated; a deployment guide's manifest for a site).
        #[arg(long, value_delimiter = ',')]
        edge_sites: Vec<String>,
        /// Another build of a component, as NAME=IMAGE (a URL or a file path; repeatable): e.g.
        /// `pipeline=actors/pipeline/build/pipeline_all_codecs_s.wasm`.
        #[arg(long, value_parser = name_and_image)]
        image: Vec<(String, String)>,
    },
    /// Print the config keys every stage reads (the table of docs/deploying.md, Markdown).
    Keys,
    /// Wait until the lattice's secrets backend answers (its xkey request), at most TIMEOUT_MS.
    SecretsReady {
        #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
        nats: String,
        #[arg(long, env = "CITS_AUTH")]
        auth: PathBuf,
        #[arg(long, default_value_t = 20_000)]
        timeout_ms: u64,
    },
}

/// `NAME=IMAGE` of `--image`.
fn name_and_image(arg: &str) -> Result<(String, String), String> {
    match arg.split_once('=') {
        Some((name, image)) if !name.is_empty() && !image.is_empty() => Ok((name.to_string(), image.to_string())),
        _ => Err(format!("`{arg}` is not NAME=IMAGE")),
    }
}

pub async fn run(args: ManifestArgs) -> anyhow::Result<()> {
    match args.command {
        ManifestCommand::Render { manifest, out, max_age_ms, camera_source, camera_stations, edge_sites, image } => {
            let cameras = camera_source.map(|from| (from, camera_stations));
            let images = image
                .into_iter()
                .map(|(name, image)| match image.contains("://") {
                    true => Ok((name, image)),
                    false => Ok((name, std::path::absolute(&image)?.display().to_string())),
                })
                .collect::<std::io::Result<_>>()?;
            let render = cits_manifest::Render { max_age_ms, cameras, edge_sites, images };
            let mut model = cits_manifest::load(&manifest)?;
            let base = manifest.canonicalize()?.parent().map(PathBuf::from).unwrap_or_default();
            cits_manifest::render(&mut model, &base, &render)?;
            cits_manifest::validate(&model).with_context(|| format!("{} rendered", manifest.display()))?;
            std::fs::write(&out, cits_manifest::canonical_yaml(&model)?)
                .with_context(|| format!("cannot write {}", out.display()))?;
        }
        ManifestCommand::Keys => print!("{}", cits::pipeline::config_table()),
        ManifestCommand::SecretsReady { nats, auth, timeout_ms } => {
            cits_ops::rsu::secrets_ready(&nats, &auth, Duration::from_millis(timeout_ms)).await?;
        }
    }
    Ok(())
}

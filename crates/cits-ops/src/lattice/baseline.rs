//! The native baseline of `make bench`: the same stage crates as plain processes (`cits stage`)
//! on the lattice's subjects, Redis and map, with the settings of the deployment they stand in
//! for — seven processes like the seven-actor manifest, or the fused chain as one.

use std::time::Duration;

use super::process::{Processes, Program, StartGuard};
use super::settings::Settings;

/// Seven stage processes, or the fused chain as one.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shape {
    #[default]
    Seven,
    Fused,
}

/// Input from core NATS subscriptions (at most once), or pulled durably from each stage's own
/// JetStream consumers as the messaging provider delivers to a component (`cits stage --durable`).
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Input {
    #[default]
    Core,
    Durable,
}

const SEVEN: [&str; 7] =
    ["decoder", "collector", "assembler", "map_matcher", "predictor", "collision_detector", "denm_sender"];
const FUSED: [&str; 1] = ["pipeline"];

impl Shape {
    fn stages(self) -> &'static [&'static str] {
        match self {
            Shape::Seven => &SEVEN,
            Shape::Fused => &FUSED,
        }
    }

    fn manifest(self) -> &'static str {
        match self {
            Shape::Seven => "wadm/cits-pipeline.yaml",
            Shape::Fused => "wadm/cits-pipeline-fused.yaml",
        }
    }
}

pub fn start(settings: &Settings, guard: &mut StartGuard, shape: Shape, input: Input) -> anyhow::Result<()> {
    let manifest = settings.state.join("native-cits-pipeline.yaml");
    super::deploy::deployable(settings, &settings.repo.join(shape.manifest()), Some(&manifest))?;
    let cits = match &settings.binaries.cits {
        Some(path) => path.clone(),
        None => std::env::current_exe()?,
    };
    let redis = super::redis::url(settings, super::redis::PIPELINE_USER)?;
    for stage in shape.stages() {
        let mut program = Program::new(&cits)
            .args(["stage", stage, "--nats", &settings.nats_addr(), "--redis", &redis])
            .args(["--blobstore-root".to_string(), settings.blobstore().display().to_string()])
            .args(["--manifest".to_string(), manifest.display().to_string()])
            .envs(settings.common_env());
        if let Some(ms) = settings.max_age_ms {
            program = program.args(["--set".to_string(), format!("limits.max_age_ms={ms}")]);
        }
        if input == Input::Durable {
            program = program.args(["--durable"]);
        }
        guard.start(&format!("native-{stage}"), program)?;
    }
    Ok(())
}

pub async fn stop(processes: &Processes) -> anyhow::Result<()> {
    for stage in SEVEN.iter().chain(&FUSED) {
        processes.stop(&format!("native-{stage}"), Duration::from_secs(10)).await?;
    }
    Ok(())
}

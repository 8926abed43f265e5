//! The native baseline: a stage of `cits::pipeline` as a plain process on the same NATS subjects,
//! with its state in the same Redis keys and the map tiles read from the same blobstore folder —
//! no Wasm, no wasmCloud. Settings and subscriptions come from the wadm manifest, so both
//! platforms run the same code with the same configuration.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context as _};
use cits::pipeline::{self, Cached, Outcome, Services};
use cits::stage::StageError;
use futures::StreamExt as _;

/// A stage's settings in the manifest: its component's config entries and the subjects its
/// input link subscribes to.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StageSettings {
    pub config: Vec<(String, String)>,
    pub subscriptions: Vec<String>,
}

/// Reads `stage` (a `cits::pipeline` stage name such as `map_matcher`, or `pipeline` for the
/// fused actor) from a wadm manifest: component `map-matcher`, link `map-matcher-input`.
pub fn settings_from_manifest(manifest: &Path, stage: &str) -> anyhow::Result<StageSettings> {
    let text = std::fs::read_to_string(manifest).with_context(|| format!("cannot read {}", manifest.display()))?;
    let doc: serde_yaml::Value =
        serde_yaml::from_str(&text).with_context(|| format!("{} is not YAML", manifest.display()))?;
    let component = stage.replace('_', "-");
    let components = doc["spec"]["components"].as_sequence().context("manifest has no spec.components")?;
    let mut settings = StageSettings::default();
    let mut found = false;
    for c in components {
        if c["name"].as_str() == Some(component.as_str()) {
            found = true;
            settings.config = config_entries(&c["properties"]["config"]);
        }
        for trait_ in c["traits"].as_sequence().into_iter().flatten() {
            let link = &trait_["properties"];
            if trait_["type"].as_str() == Some("link")
                && link["target"]["name"].as_str() == Some(component.as_str())
                && link["interfaces"].as_sequence().is_some_and(|i| i.iter().any(|i| i.as_str() == Some("handler")))
            {
                for (key, value) in config_entries(&link["source"]["config"]) {
                    if key == "subscriptions" {
                        settings.subscriptions.extend(value.split(',').map(|s| s.trim().to_string()));
                    }
                }
            }
        }
    }
    if !found {
        bail!("{} has no component `{component}`", manifest.display());
    }
    if settings.subscriptions.is_empty() {
        bail!("{}: no messaging link subscribes `{component}` to anything", manifest.display());
    }
    Ok(settings)
}

/// The entries of a list of named configs (`- name: ..., properties: {k: v}`), in order.
fn config_entries(configs: &serde_yaml::Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for config in configs.as_sequence().into_iter().flatten() {
        for (k, v) in config["properties"].as_mapping().into_iter().flatten() {
            let value = match v {
                serde_yaml::Value::String(s) => s.clone(),
                other => serde_yaml::to_string(other).unwrap_or_default().trim().to_string(),
            };
            out.push((k.as_str().unwrap_or_default().to_string(), value));
        }
    }
    out
}

/// The platform services natively: config from the manifest, Redis (the key layout of our
/// key-value provider: `<bucket>:<key>`), the blobstore-fs folder layout (`<root>/<container>/<object>`).
pub struct Native {
    config: Vec<(String, String)>,
    redis: redis::Connection,
    blobstore_root: PathBuf,
}

impl Native {
    pub fn connect(config: Vec<(String, String)>, redis_url: &str, blobstore_root: PathBuf) -> anyhow::Result<Self> {
        let redis = redis::Client::open(redis_url)
            .and_then(|c| c.get_connection())
            .with_context(|| format!("cannot connect to Redis at {redis_url}"))?;
        Ok(Self { config, redis, blobstore_root })
    }
}

fn unavailable(what: &str, e: impl std::fmt::Display) -> StageError {
    StageError::unavailable(format!("{what}: {e}"))
}

impl Services for Native {
    fn config(&mut self) -> Result<Vec<(String, String)>, StageError> {
        Ok(self.config.clone())
    }

    fn get_many(&mut self, bucket: &str, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, StageError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let mut cmd = redis::cmd("MGET");
        for key in keys {
            cmd.arg(pipeline::flat_key(bucket, key));
        }
        cmd.query(&mut self.redis).map_err(|e| unavailable("Redis MGET", e))
    }

    fn set_many(&mut self, bucket: &str, items: Vec<(String, Vec<u8>)>) -> Result<(), StageError> {
        if items.is_empty() {
            return Ok(());
        }
        let mut cmd = redis::cmd("MSET");
        for (key, value) in items {
            cmd.arg(pipeline::flat_key(bucket, &key)).arg(value);
        }
        cmd.query(&mut self.redis).map_err(|e| unavailable("Redis MSET", e))
    }

    fn read_blob(&mut self, container: &str, object: &str) -> Result<Option<Vec<u8>>, StageError> {
        match std::fs::read(self.blobstore_root.join(container).join(object)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(unavailable(&format!("blob {container}/{object}"), e)),
        }
    }
}

/// Stage names `cits stage` runs: the seven stages and `pipeline` (all seven in one process).
pub const STAGES: [&str; 8] =
    ["decoder", "collector", "assembler", "map_matcher", "predictor", "collision_detector", "denm_sender", "pipeline"];

/// A stage run on one delivery's cache in front of the process's long-lived services.
type Run<'a> = fn(&mut Cached<&'a mut Native>, &str, &[u8], u64) -> Outcome;

/// The stage's run and whether it keeps state (see [`pipeline::Stage::STATEFUL`]).
fn runner<'a>(stage: &str) -> anyhow::Result<(Run<'a>, bool)> {
    use pipeline::*;
    fn of<'a, S: Stage>() -> (Run<'a>, bool) {
        (run::<S, _>, S::STATEFUL)
    }
    Ok(match stage {
        Decoder::NAME => of::<Decoder>(),
        Collector::NAME => of::<Collector>(),
        Assembler::NAME => of::<Assembler>(),
        MapMatcher::NAME => of::<MapMatcher>(),
        Predictor::NAME => of::<Predictor>(),
        CollisionDetector::NAME => of::<CollisionDetector>(),
        DenmSender::NAME => of::<DenmSender>(),
        "pipeline" => (Fused::run::<Cached<&'a mut Native>>, true),
        other => bail!("no stage `{other}`; one of {}", STAGES.join(", ")),
    })
}

pub struct ServeOptions {
    pub stage: String,
    pub nats: String,
    pub redis_url: String,
    pub blobstore_root: PathBuf,
    pub manifest: PathBuf,
}

/// Attempts per message when a service is unavailable, as the manifest's `max_attempts`.
const MAX_ATTEMPTS: u32 = 3;

/// Serves one stage until the NATS connection ends: messages one at a time, in arrival order
/// (so one RSU's frames are in order, as with our provider), bad input dead-lettered, an
/// unavailable service retried and then dead-lettered. Outputs go to JetStream with the same
/// message ids as the actors' (the streams' republish turns outboxes into DENMs and FrameDones);
/// input comes from core subscriptions: the baseline measures the stages, not durable delivery.
pub async fn serve(opts: ServeOptions) -> anyhow::Result<()> {
    runner(&opts.stage)?;
    let settings = settings_from_manifest(&opts.manifest, &opts.stage)?;
    let mut svc = Native::connect(settings.config, &opts.redis_url, opts.blobstore_root.clone())?;
    let client =
        async_nats::connect(&opts.nats).await.with_context(|| format!("cannot connect to NATS at {}", opts.nats))?;
    let mut subs = Vec::new();
    for subject in &settings.subscriptions {
        subs.push(client.subscribe(subject.clone()).await?);
    }
    client.flush().await?;
    eprintln!("native {} on {}", opts.stage, settings.subscriptions.join(", "));
    let mut messages = futures::stream::select_all(subs);
    let js = async_nats::jetstream::new(client.clone());
    let runtime = tokio::runtime::Handle::current();
    let mut publish = |out: &[(String, cits::stage::Outbound)]| {
        let messages = out.iter().map(|(id, o)| (id.clone(), o.subject.clone(), o.body.clone())).collect();
        runtime
            .block_on(cits_jetstream::publish_all(&js, messages))
            .map_err(|e| StageError::unavailable(format!("publish failed: {e:#}")))
    };
    while let Some(msg) = messages.next().await {
        let mut attempt = 1;
        loop {
            let (run, stateful) = runner(&opts.stage)?;
            let handled = tokio::task::block_in_place(|| {
                pipeline::handle(&mut svc, &opts.stage, stateful, run, &msg.subject, &msg.payload, &mut publish)
            });
            match handled {
                Ok(handled) => {
                    for (subject, reason) in &handled.rejected {
                        eprintln!("{}: dead letter from {subject}: {reason}", opts.stage);
                    }
                    break;
                }
                Err(reason) if attempt < MAX_ATTEMPTS => {
                    eprintln!("{}: {} not processed, retrying: {reason}", opts.stage, msg.subject);
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(100 * u64::from(attempt))).await;
                    // The connection may be what failed.
                    if let Ok(fresh) = Native::connect(svc.config.clone(), &opts.redis_url, opts.blobstore_root.clone())
                    {
                        svc = fresh;
                    }
                }
                Err(reason) => {
                    let now = cits::time::now_us();
                    let letter = cits::stage::dead_letter(&opts.stage, &reason, &msg.subject, &msg.payload, now);
                    let id = cits::stage::dead_letter_id(&opts.stage, &msg.subject, &msg.payload);
                    tokio::task::block_in_place(|| publish(&[(id, letter)]))?;
                    break;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../wadm").join(name)
    }

    #[test]
    fn a_stage_gets_its_component_config_and_input_subscriptions() {
        let s = settings_from_manifest(&manifest("cits-pipeline.yaml"), "collision_detector").unwrap();
        assert_eq!(s.subscriptions, vec!["cits.predicted.*"]);
        assert!(s.config.contains(&("intersection.rsu1".into(), "weiser-gabelsberger".into())), "{:?}", s.config);
        let d = settings_from_manifest(&manifest("cits-pipeline.yaml"), "decoder").unwrap();
        assert_eq!(d.subscriptions, vec!["cits.cpm.*"]);
        assert!(d.config.is_empty());
        assert!(settings_from_manifest(&manifest("cits-pipeline.yaml"), "nope").is_err());
    }

    /// The fused manifest must configure the stages exactly as the seven-actor one does.
    #[test]
    fn fused_manifest_has_the_settings_of_the_seven_stages() {
        let mut staged: Vec<(String, String)> = STAGES[..7]
            .iter()
            .flat_map(|s| settings_from_manifest(&manifest("cits-pipeline.yaml"), s).unwrap().config)
            .collect();
        let fused = settings_from_manifest(&manifest("cits-pipeline-fused.yaml"), "pipeline").unwrap();
        let mut fused_config = fused.config;
        staged.sort();
        fused_config.sort();
        assert_eq!(fused_config, staged);
        assert_eq!(fused.subscriptions, vec!["cits.cpm.*"]);
    }
}

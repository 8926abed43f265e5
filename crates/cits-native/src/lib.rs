//! The native baseline: a stage of `cits::pipeline` as a plain process on the same NATS subjects,
//! with its state in the same Redis keys and the map tiles read from the same blobstore folder —
//! no Wasm, no wasmCloud. Settings and subscriptions come from the wadm manifest, so both
//! platforms run the same code with the same configuration.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, bail, Context as _};
use cits::message::StageError;
use cits::pipeline::{self, EachStage as _, Handler, Services};
use cits_jetstream::dispatch::{Delivery, Failure, Target};
use cits_jetstream::handler::HandlerConfig;
use futures::StreamExt as _;

/// A stage's settings in the manifest: its component's config entries and the subjects its
/// input link subscribes to.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StageSettings {
    pub config: Vec<(String, String)>,
    pub subscriptions: Vec<String>,
    /// Every source-config entry of the component's input (handler) link: how the messaging
    /// provider delivers to it (`concurrency`, `batch_max`, `max_attempts`, …).
    pub input_link: Vec<(String, String)>,
    /// The durable consumer name the messaging provider gives that link when it has no `durable`
    /// entry: a stage input is a work queue with one consumer per partition, so a native stage on
    /// durable input takes the deployment's consumers.
    pub default_durable: String,
    /// Named configs the component has whose entries are not in the manifest but kept in the
    /// lattice's config store (e.g. the RSU registry `cits-rsus`, changed at run time).
    pub lattice_configs: Vec<String>,
}

/// Reads `stage` (a `cits::pipeline` stage name such as `map_matcher`, or `pipeline` for the
/// fused actor) from a wadm manifest: component `map-matcher`, link `map-matcher-input`.
pub fn settings_from_manifest(manifest: &Path, stage: &str) -> anyhow::Result<StageSettings> {
    use wadm_types::TraitProperty;
    let model = cits_manifest::load(manifest)?;
    let (component, properties) = component_of(&model, stage).map_err(|e| anyhow!("{}: {e}", manifest.display()))?;
    let mut settings = StageSettings {
        config: properties.config.iter().flat_map(config_entries).collect(),
        lattice_configs: properties.config.iter().filter(|c| c.properties.is_none()).map(|c| c.name.clone()).collect(),
        ..StageSettings::default()
    };
    // The id the host knows the component by (wadm's `<application>-<name>` when none is given).
    let component_id = properties.id.clone().unwrap_or_else(|| format!("{}-{component}", model.metadata.name));
    let inputs = model.links().filter_map(|t| match &t.properties {
        TraitProperty::Link(link)
            if link.target.name == component && link.interfaces.iter().any(|i| i == "handler") =>
        {
            Some(link)
        }
        _ => None,
    });
    for link in inputs {
        settings.default_durable =
            cits_jetstream::handler::default_durable(&component_id, link.name.as_deref().unwrap_or_default());
        for (key, value) in link.source.iter().flat_map(|s| s.config.iter()).flat_map(config_entries) {
            if key == "subscriptions" {
                settings.subscriptions.extend(value.split(',').map(|s| s.trim().to_string()));
            }
            settings.input_link.push((key, value));
        }
    }
    if settings.subscriptions.is_empty() {
        bail!("{}: no messaging link subscribes `{component}` to anything", manifest.display());
    }
    Ok(settings)
}

/// `stage`'s component in a manifest (`map_matcher` → component `map-matcher`): its name there
/// and its properties.
fn component_of<'a>(
    model: &'a wadm_types::Manifest,
    stage: &str,
) -> anyhow::Result<(String, &'a wadm_types::ComponentProperties)> {
    let component = stage.replace('_', "-");
    let found =
        model.components().find(|c| c.name == component).with_context(|| format!("no component `{component}`"))?;
    let wadm_types::Properties::Component { properties } = &found.properties else {
        bail!("`{component}` is a provider, not a component");
    };
    Ok((component, properties))
}

/// The config entries written out in a wadm manifest (its text) for `stage`'s component.
pub fn component_config(manifest: &str, stage: &str) -> anyhow::Result<Vec<(String, String)>> {
    let model: wadm_types::Manifest = serde_yaml::from_str(manifest).context("not a wadm manifest")?;
    Ok(component_of(&model, stage)?.1.config.iter().flat_map(config_entries).collect())
}

/// `KEY=VALUE` arguments as config entries.
pub fn entries_set(args: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    args.iter()
        .map(|a| {
            let (key, value) = a.split_once('=').with_context(|| format!("`{a}` is not KEY=VALUE"))?;
            Ok((key.trim().to_string(), value.trim().to_string()))
        })
        .collect()
}

/// `config` with `set` instead of the entries of the same keys (a deployment's own values, e.g. a
/// limit a benchmark needs wider, over the manifest's).
pub fn with_entries(mut config: Vec<(String, String)>, set: Vec<(String, String)>) -> Vec<(String, String)> {
    config.retain(|(k, _)| !set.iter().any(|(s, _)| s == k));
    config.extend(set);
    config
}

/// The entries of a named config written out in the manifest (by key: a config is a map), none
/// for one the lattice keeps.
fn config_entries(config: &wadm_types::ConfigProperty) -> Vec<(String, String)> {
    let mut entries: Vec<(String, String)> =
        config.properties.iter().flatten().map(|(k, v)| (k.clone(), v.clone())).collect();
    entries.sort();
    entries
}

/// Named configs of the lattice's config store as they are now (name → entries), kept current by
/// [`watch_lattice_configs`].
pub type LatticeConfigs = std::sync::Arc<std::sync::RwLock<std::collections::BTreeMap<String, Vec<(String, String)>>>>;

/// Keeps `names` (named configs) in `into` as the lattice's config store has them — the store the
/// wasmCloud hosts watch to update their components' config (JetStream key-value bucket
/// `CONFIGDATA_<lattice>`, each config a JSON map) — so a native stage sees a change as soon as an
/// actor does. Returns once each has been read.
pub async fn watch_lattice_configs(
    client: &async_nats::Client,
    lattice: &str,
    names: &[String],
    into: &LatticeConfigs,
) -> anyhow::Result<()> {
    if names.is_empty() {
        return Ok(());
    }
    let bucket = format!("CONFIGDATA_{lattice}");
    let store = async_nats::jetstream::new(client.clone())
        .get_key_value(&bucket)
        .await
        .with_context(|| format!("no config store {bucket} on the lattice (named configs {names:?})"))?;
    let entries = |value: &[u8]| -> Vec<(String, String)> {
        let map: std::collections::BTreeMap<String, String> = serde_json::from_slice(value).unwrap_or_default();
        map.into_iter().collect()
    };
    for name in names {
        let current = store.get(name).await.with_context(|| format!("cannot read config {name} from {bucket}"))?;
        into.write().expect("config lock").insert(name.clone(), current.as_deref().map(entries).unwrap_or_default());
        let mut updates = store.watch(name).await.with_context(|| format!("cannot watch config {name}"))?;
        let (into, name) = (into.clone(), name.clone());
        tokio::spawn(async move {
            while let Some(Ok(entry)) = updates.next().await {
                let value = match entry.operation {
                    async_nats::jetstream::kv::Operation::Put => entries(&entry.value),
                    _ => Vec::new(), // deleted or purged
                };
                into.write().expect("config lock").insert(name.clone(), value);
            }
            eprintln!("config {name}: watch ended, keeping the last entries");
        });
    }
    Ok(())
}

/// The platform services natively: config from the manifest, Redis (the key layout of our
/// key-value provider: `<bucket>:<key>`), the blobstore-fs folder layout (`<root>/<container>/<object>`).
pub struct Native {
    config: Vec<(String, String)>,
    /// The component's named configs kept in the lattice's config store, as they are now.
    lattice_configs: LatticeConfigs,
    redis_url: String,
    redis: redis::Connection,
    blobstore_root: PathBuf,
}

impl Native {
    pub fn connect(config: Vec<(String, String)>, redis_url: &str, blobstore_root: PathBuf) -> anyhow::Result<Self> {
        let redis = open_redis(redis_url)?;
        Ok(Self {
            config,
            lattice_configs: LatticeConfigs::default(),
            redis_url: redis_url.into(),
            redis,
            blobstore_root,
        })
    }

    /// A fresh Redis connection, after a service failed (the connection may be what failed).
    pub fn reconnect(&mut self) -> anyhow::Result<()> {
        self.redis = open_redis(&self.redis_url)?;
        Ok(())
    }

    /// With the component's named configs of the lattice's config store (see [`watch_lattice_configs`]).
    pub fn with_lattice_configs(self, lattice_configs: LatticeConfigs) -> Self {
        Self { lattice_configs, ..self }
    }
}

fn open_redis(url: &str) -> anyhow::Result<redis::Connection> {
    redis::Client::open(url)
        .and_then(|c| c.get_connection())
        .with_context(|| format!("cannot connect to Redis at {url}"))
}

/// Publishes a stage's outputs to JetStream with their message ids, from blocking code (inside
/// `block_in_place`); a failure is the stage's `unavailable` error.
fn jetstream_publisher<'a>(
    runtime: &'a tokio::runtime::Handle,
    js: &'a async_nats::jetstream::Context,
) -> impl FnMut(&[(String, cits::message::Outbound)]) -> Result<(), StageError> + 'a {
    move |out| {
        let messages = out.iter().map(|(id, o)| (id.clone(), o.subject.clone(), o.body.clone())).collect();
        runtime
            .block_on(cits_jetstream::publish_all(js, messages))
            .map_err(|e| StageError::unavailable(format!("publish failed: {e:#}")))
    }
}

fn unavailable(what: &str, e: impl std::fmt::Display) -> StageError {
    StageError::unavailable(format!("{what}: {e}"))
}

impl Services for Native {
    fn config(&mut self) -> Result<cits::pipeline::Config, StageError> {
        let lattice = self.lattice_configs.read().map_err(|_| StageError::unavailable("config lock poisoned"))?;
        Ok(self.config.iter().chain(lattice.values().flatten()).cloned().collect())
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

/// One delivery (a message or a batch) to a handler, in process as its actor handles it.
type Deliver = fn(&mut Native, &str, &[u8], pipeline::Publish<'_>) -> Result<pipeline::Handled, StageError>;

fn deliver<H: Handler>(
    svc: &mut Native,
    subject: &str,
    payload: &[u8],
    publish: pipeline::Publish<'_>,
) -> Result<pipeline::Handled, StageError> {
    pipeline::handle::<H, _>(svc, subject, payload, publish)
}

/// The handlers `cits stage` runs, by name: the seven stages and the fused chain (`pipeline`).
fn handlers() -> Vec<(&'static str, Deliver)> {
    struct Handlers(Vec<(&'static str, Deliver)>);
    impl pipeline::EachStage for Handlers {
        fn stage<H: Handler>(&mut self) {
            self.0.push((H::NAME, deliver::<H>));
        }
    }
    let mut handlers = Handlers(Vec::new());
    pipeline::for_each_stage(&mut handlers);
    handlers.stage::<pipeline::Fused>();
    handlers.0
}

/// Stage names `cits stage` runs: the seven stages and `pipeline` (all seven in one process).
pub fn stages() -> Vec<&'static str> {
    handlers().into_iter().map(|(name, _)| name).collect()
}

fn handler(stage: &str) -> anyhow::Result<Deliver> {
    match handlers().into_iter().find(|(name, _)| *name == stage) {
        Some((_, deliver)) => Ok(deliver),
        None => bail!("no stage `{stage}`; one of {}", stages().join(", ")),
    }
}

pub struct ServeOptions {
    pub stage: String,
    pub nats: String,
    pub redis_url: String,
    pub blobstore_root: PathBuf,
    pub manifest: PathBuf,
    /// The lattice whose config store holds the named configs the manifest does not fill in.
    pub lattice: String,
    /// Config entries over the manifest's (see [`with_entries`]).
    pub set: Vec<(String, String)>,
    /// Input through durable JetStream consumers, delivered as the messaging provider delivers
    /// to a component (same pull loops, batches, attempts and dead letters: `cits_jetstream`),
    /// instead of core NATS subscriptions.
    pub durable: bool,
}

/// Attempts per message when a service is unavailable, as the manifest's `max_attempts`.
const MAX_ATTEMPTS: u32 = 3;

/// Serves one stage: outputs go to JetStream with the same message ids as the actors' (the
/// streams' republish turns outboxes into DENMs and FrameDones). Input comes either from core
/// subscriptions ([`serve_core`]) or, with `durable`, from the stage's JetStream consumers
/// ([`serve_durable`]).
pub async fn serve(opts: ServeOptions) -> anyhow::Result<()> {
    let deliver = handler(&opts.stage)?;
    let settings = settings_from_manifest(&opts.manifest, &opts.stage)?;
    let config = with_entries(settings.config.clone(), opts.set.clone());
    let svc = Native::connect(config, &opts.redis_url, opts.blobstore_root.clone())?;
    let client = cits_client::auth::connect_nats(&opts.nats).await?;
    let lattice_configs = LatticeConfigs::default();
    watch_lattice_configs(&client, &opts.lattice, &settings.lattice_configs, &lattice_configs).await?;
    let svc = svc.with_lattice_configs(lattice_configs);
    if opts.durable {
        serve_durable(opts, settings, deliver, svc, client).await
    } else {
        serve_core(opts, settings, deliver, svc, client).await
    }
}

/// Until the NATS connection ends: messages one at a time, in arrival order (so one RSU's frames
/// are in order, as with our provider), bad input dead-lettered, an unavailable service retried
/// and then dead-lettered. At most once: what arrives while the process is down is lost.
async fn serve_core(
    opts: ServeOptions,
    settings: StageSettings,
    deliver: Deliver,
    mut svc: Native,
    client: async_nats::Client,
) -> anyhow::Result<()> {
    let mut subs = Vec::new();
    for subject in &settings.subscriptions {
        subs.push(client.subscribe(subject.clone()).await?);
    }
    client.flush().await?;
    eprintln!("native {} on {}", opts.stage, settings.subscriptions.join(", "));
    let mut messages = futures::stream::select_all(subs);
    let js = async_nats::jetstream::new(client.clone());
    let runtime = tokio::runtime::Handle::current();
    let mut publish = jetstream_publisher(&runtime, &js);
    while let Some(msg) = messages.next().await {
        let mut attempt = 1;
        loop {
            let handled = tokio::task::block_in_place(|| deliver(&mut svc, &msg.subject, &msg.payload, &mut publish));
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
                    let _ = svc.reconnect(); // the next attempt reports what still fails
                }
                Err(reason) => {
                    let now = cits::shared::time::now_us();
                    let letter = cits::message::dead_letter(&opts.stage, &reason, &msg.subject, &msg.payload, now);
                    // Core NATS: no stream sequence; identical bytes resent share a dead letter.
                    let id = cits::message::dead_letter_id(&opts.stage, &msg.subject, &msg.payload, None);
                    tokio::task::block_in_place(|| publish(&[(id, letter)]))?;
                    break;
                }
            }
        }
    }
    Ok(())
}

/// Until interrupted: the stage's input link delivered exactly as the messaging provider delivers
/// it to a component — the same `cits_jetstream` pull loops (one message in flight per RSU
/// partition, read-ahead batches under a backlog, acknowledged after the effect), attempts and
/// dead letters — with the stage called in-process instead of over wRPC. Its consumers are the
/// deployment's (a stage input is a work queue, one consumer per partition): run it instead of
/// the deployment, not beside it.
async fn serve_durable(
    opts: ServeOptions,
    settings: StageSettings,
    deliver: Deliver,
    svc: Native,
    client: async_nats::Client,
) -> anyhow::Result<()> {
    let link: std::collections::HashMap<String, String> = settings.input_link.into_iter().collect();
    let cfg = HandlerConfig::from_map(&link).map_err(|e| anyhow::anyhow!("{}: input link: {e}", opts.stage))?;
    let durable = cfg.durable.clone().unwrap_or_else(|| settings.default_durable.clone());
    let js = async_nats::jetstream::new(client.clone());
    cits_jetstream::ensure_streams(&js, &cits_jetstream::Limits::default()).await?;
    let target = std::sync::Arc::new(StageTarget {
        stage: opts.stage.clone(),
        deliver,
        svc: std::sync::Mutex::new(svc),
        js: js.clone(),
        dead_letter_stage: cfg.dead_letter_stage.clone(),
        runtime: tokio::runtime::Handle::current(),
    });
    let _consumers = cits_jetstream::durable::start(client, js, &cfg, &settings.default_durable, target);
    eprintln!("native {} on {} (durable {durable}-<partition>)", opts.stage, settings.subscriptions.join(", "));
    tokio::signal::ctrl_c().await?;
    Ok(())
}

/// A stage in this process as the target of durable delivery. One message at a time (the lock),
/// as one native process computes.
struct StageTarget {
    stage: String,
    deliver: Deliver,
    svc: std::sync::Mutex<Native>,
    js: async_nats::jetstream::Context,
    /// The input link's `dead_letter_stage`, as for a component.
    dead_letter_stage: String,
    runtime: tokio::runtime::Handle,
}

impl Target for StageTarget {
    async fn deliver(&self, msg: &Delivery) -> Result<(), Failure> {
        let mut publish = jetstream_publisher(&self.runtime, &self.js);
        let handled = tokio::task::block_in_place(|| {
            let mut svc = self.svc.lock().expect("a delivery never panics holding the stage");
            let (subject, payload) = msg.invocation();
            let handled = (self.deliver)(&mut svc, &subject, &payload, &mut publish);
            if handled.as_ref().is_err_and(|e| e.to_string().starts_with(cits::message::UNAVAILABLE)) {
                let _ = svc.reconnect(); // the retry reports what still fails
            }
            handled
        });
        match handled {
            Ok(handled) => {
                for (subject, reason) in &handled.rejected {
                    eprintln!("{}: dead letter from {subject}: {reason}", self.stage);
                }
                Ok(())
            }
            Err(reason) => Err(Failure::Refused(reason.to_string())),
        }
    }

    async fn dead_letter(&self, msg: &Delivery, reason: &str) -> Result<(), String> {
        cits_jetstream::durable::store_dead_letter(&self.js, &self.dead_letter_stage, msg, reason).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cits::pipeline::Fused;

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
        assert!(d.config.contains(&("limits.max_objects_per_cpm".into(), "128".into())), "{:?}", d.config);
        // The RSU registry is not in the manifest: it is read from the lattice.
        assert_eq!(d.lattice_configs, vec!["cits-rsus"]);
        assert!(d.config.iter().all(|(k, _)| !k.starts_with("rsu.")));
        assert!(settings_from_manifest(&manifest("cits-pipeline.yaml"), "nope").is_err());
        // `--durable` delivers as the input link says, for every stage of both deployments.
        for (file, stage) in
            stages()[..7].iter().map(|s| ("cits-pipeline.yaml", *s)).chain([("cits-pipeline-fused.yaml", Fused::NAME)])
        {
            let link: std::collections::HashMap<String, String> =
                settings_from_manifest(&manifest(file), stage).unwrap().input_link.into_iter().collect();
            let cfg = HandlerConfig::from_map(&link).unwrap_or_else(|e| panic!("{file} {stage}: {e}"));
            assert!(!cfg.subscriptions.is_empty() && !cfg.dead_letter_stage.is_empty(), "{file} {stage}: {cfg:?}");
        }
        let d = settings_from_manifest(&manifest("cits-pipeline.yaml"), "decoder").unwrap();
        assert!(d.input_link.contains(&("dead_letter_stage".into(), "decoder".into())), "{:?}", d.input_link);
        // Durable input takes the deployment's consumers: the provider's `<component id>-<link>`,
        // or the link's `durable` (the CPM input both deployments share).
        let durable = |s: &StageSettings| {
            let link: std::collections::HashMap<String, String> = s.input_link.iter().cloned().collect();
            HandlerConfig::from_map(&link).unwrap().durable.unwrap_or_else(|| s.default_durable.clone())
        };
        assert_eq!(durable(&s), "cits-collision-detector-collision-detector-input");
        assert_eq!(durable(&d), "ingress");
        assert_eq!(
            durable(&settings_from_manifest(&manifest("cits-pipeline-fused.yaml"), Fused::NAME).unwrap()),
            "ingress"
        );
    }

    /// The fused manifest must configure the stages exactly as the seven-actor one does; an entry
    /// several stages have (a limit) must have one value.
    #[test]
    fn fused_manifest_has_the_settings_of_the_seven_stages() {
        let seven: Vec<StageSettings> =
            stages()[..7].iter().map(|s| settings_from_manifest(&manifest("cits-pipeline.yaml"), s).unwrap()).collect();
        let mut staged: Vec<(String, String)> = seven.iter().flat_map(|s| s.config.clone()).collect();
        staged.sort();
        staged.dedup();
        let mut keys: Vec<&String> = staged.iter().map(|(k, _)| k).collect();
        keys.dedup();
        assert_eq!(keys.len(), staged.len(), "one key with two values: {staged:?}");
        let fused = settings_from_manifest(&manifest("cits-pipeline-fused.yaml"), Fused::NAME).unwrap();
        let mut fused_config = fused.config;
        fused_config.sort();
        assert_eq!(fused_config, staged);
        assert_eq!(fused.subscriptions, vec!["cits.cpm.*"]);
        let mut lattice_configs: Vec<String> = seven.into_iter().flat_map(|s| s.lattice_configs).collect();
        lattice_configs.dedup();
        assert_eq!(fused.lattice_configs, lattice_configs);
    }

    #[test]
    fn entries_set_on_the_command_line_replace_the_manifests() {
        let set = entries_set(&["limits.max_age_ms=300000".into(), " x = 1 ".into()]).unwrap();
        let config = vec![("limits.max_age_ms".into(), "60000".into()), ("y".into(), "2".into())];
        let mut config = with_entries(config, set);
        config.sort();
        assert_eq!(
            config,
            [("limits.max_age_ms", "300000"), ("x", "1"), ("y", "2")].map(|(k, v)| (k.into(), v.into()))
        );
        assert!(entries_set(&["no equals sign".into()]).is_err());
    }

    /// Every limit a stage checks is in the manifest, with the value the code has by default
    /// (what the manifest says for this intersection may be stricter: the sensor range).
    #[test]
    fn manifest_limits_are_the_production_defaults() {
        let fused = settings_from_manifest(&manifest("cits-pipeline-fused.yaml"), Fused::NAME).unwrap();
        let entries = fused.config.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        let limits = cits::limits::Limits::from_config(Fused::NAME, entries).unwrap();
        assert_eq!(limits, cits::limits::Limits { max_sensor_range_m: 100.0, ..cits::limits::Limits::default() });
        let keys = fused.config.iter().filter(|(k, _)| k.starts_with("limits.")).count();
        assert_eq!(keys, 9, "every limit spelled out");
    }

    /// The short recording, made now, through the fused pipeline with the manifest's config (its
    /// limits included) and a registry for its RSU: no frame is refused, and the DENMs are those
    /// of the native evaluation the end-to-end tests compare the lattice's DENMs with.
    #[test]
    fn the_fused_pipeline_refuses_nothing_of_a_recording_and_warns_as_the_evaluation() {
        use cits::pipeline::{Cached, Outcome};
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let xml = std::fs::read_to_string(root.join("data/map/weiser-gabelsberger.osm")).unwrap();
        let graph = cits_map::lane_graph_from_osm(&xml, "map").unwrap();
        let records = cits_client::recording::read_file(&root.join("data/short.rec.b64")).unwrap();
        let live = cits_client::replay::live(&records, 1.0, cits::shared::time::now_us() / 1000);
        let mut config = settings_from_manifest(&manifest("cits-pipeline-fused.yaml"), Fused::NAME).unwrap().config;
        config.push(("rsu.rsu1".into(), cits_client::demo::STATION_ID.to_string()));
        // The registry as the lattice writes it for the recordings' RSU: its cameras' frames.
        config.push(("object_frame.rsu1".into(), "sensor".into()));
        let mut svc = cits_map::in_process(config, &graph);
        let mut denms = Vec::new();
        for (i, r) in live.records.iter().enumerate() {
            let mut delivery = Cached::new(&mut svc);
            // Received when it arrived, as replayed at the recorded pace.
            match Fused::run(&mut delivery, "cits.cpm.rsu1", &r.cpm, r.timestamp_ms * 1000) {
                Outcome::Processed(out) => denms.extend(
                    out.into_iter().filter(|o| o.subject == cits::subjects::denm_outbox("rsu1")).map(|o| o.body),
                ),
                other => panic!("CPM {i}: {other:?}"),
            }
            delivery.flush().unwrap();
        }
        let native: Vec<Vec<u8>> = cits_research::evaluate::run(&graph, &live.records)
            .unwrap()
            .iter()
            .map(|d| cits::stages::denm_sender::encode(&d.denm, Default::default()).unwrap())
            .collect();
        assert!(!native.is_empty());
        assert_eq!(denms, native);
    }
}

// Over 600 lines with its tests (136 of them): the application page and its edits share one view.
//! The Application and "Scale and link" pages, the wadm way: a change is made to the deployed
//! model, put as a new version and deployed, so wadm's reconciliation carries it out (a direct
//! control-interface call would be undone by it). The page sees the diff before applying and the
//! status until reconciled. Editing is pure (`plan`) and unit-tested; `AppWatch` keeps the page
//! live from wadm's status subject and its model API.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{anyhow, bail, Context as _};
use futures::StreamExt as _;
use serde::{Deserialize, Serialize};
use wadm_types::api::Status;
use wadm_types::{
    Component, ConfigProperty, LinkProperty, Manifest, Properties, Trait, TraitProperty, DEFAULT_LINK_NAME,
    VERSION_ANNOTATION_KEY,
};

use crate::hub::Hub;

/// One edit of a model.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Edit {
    /// A component's or provider's scaler `instances`.
    Scale { component: String, instances: u64 },
    /// One entry of a named config a link carries (`side`: its source or its target config);
    /// `value` None removes the entry.
    LinkConfig { source: String, link: usize, side: Side, config: String, key: String, value: Option<String> },
    /// One entry of a component's own named config (a stage's settings); `value` None removes
    /// it. A key the stage does not declare is refused ([`cits_manifest::validate`]).
    ComponentConfig { component: String, config: String, key: String, value: Option<String> },
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Source,
    Target,
}

/// A change as the page asks for it: edits on top of a version (the one it was looking at).
#[derive(Deserialize, Serialize, Debug, Clone)]
pub struct ChangeRequest {
    pub base_version: String,
    pub edits: Vec<Edit>,
}

/// What applying a change would put: the new model, its version and the diff.
#[derive(Serialize, Debug, Clone)]
pub struct Plan {
    pub base_version: String,
    pub version: String,
    pub summary: String,
    pub diff: String,
    #[serde(skip)]
    pub manifest: Manifest,
    /// `version` is stored in wadm already (a deployment switch): deployed as it is, not put.
    #[serde(skip)]
    pub stored: bool,
}

/// Every named config the model declares (components, providers and links).
pub fn config_names(manifest: &Manifest) -> Vec<String> {
    let mut names: Vec<String> = manifest
        .components()
        .flat_map(|c| {
            let links =
                links(c).flat_map(|(_, l)| l.source.iter().flat_map(|s| s.config.iter()).chain(l.target.config.iter()));
            own_configs(c).iter().chain(links).map(|config| config.name.clone()).collect::<Vec<_>>()
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// A component's or provider's own named configs.
fn own_configs(component: &Component) -> &[ConfigProperty] {
    match &component.properties {
        Properties::Component { properties } => &properties.config,
        Properties::Capability { properties } => &properties.config,
    }
}

/// A component's links with their index among its traits (what an edit names).
fn links(component: &Component) -> impl Iterator<Item = (usize, &LinkProperty)> {
    component.traits.iter().flatten().enumerate().filter_map(|(i, t)| match &t.properties {
        TraitProperty::Link(link) if t.is_link() => Some((i, link)),
        _ => None,
    })
}

/// The model as YAML with keys in a fixed order, so that two versions diff line by line.
pub fn canonical_yaml(manifest: &Manifest) -> anyhow::Result<String> {
    cits_manifest::canonical_yaml(manifest)
}

fn version_of(manifest: &Manifest) -> String {
    manifest.metadata.annotations.get(VERSION_ANNOTATION_KEY).cloned().unwrap_or_default()
}

pub fn unified_diff(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    similar::TextDiff::from_lines(old, new).unified_diff().context_radius(3).header(old_name, new_name).to_string()
}

/// The version a change of `base` gets: the base's own version with a change number, unique by
/// the time it was made (wadm refuses a version it already has).
pub fn next_version(base: &str, now_ms: u64) -> String {
    let root = base.split("-ops.").next().unwrap_or(base);
    format!("{root}-ops.{now_ms}")
}

fn component_mut<'a>(model: &'a mut Manifest, name: &str) -> anyhow::Result<&'a mut Component> {
    model
        .spec
        .components
        .iter_mut()
        .find(|c| c.name == name)
        .ok_or_else(|| anyhow!("the model has no component `{name}`"))
}

fn traits_mut(component: &mut Component) -> anyhow::Result<&mut Vec<Trait>> {
    component.traits.as_mut().ok_or_else(|| anyhow!("component has no traits"))
}

/// Applies `edits` to `base` (a model as wadm returns it); returns the new model and one line
/// per edit saying what changed.
pub fn apply_edits(base: &Manifest, edits: &[Edit]) -> anyhow::Result<(Manifest, Vec<String>)> {
    if edits.is_empty() {
        bail!("nothing to change");
    }
    let mut model = base.clone();
    let mut said = Vec::new();
    for edit in edits {
        match edit {
            Edit::Scale { component, instances } => {
                if *instances == 0 {
                    bail!("{component}: 0 instances would stop the stage; undeploy the application instead");
                }
                let c = component_mut(&mut model, component)?;
                let scaler = traits_mut(c)?
                    .iter_mut()
                    .filter(|t| t.is_scaler())
                    .find_map(|t| match &mut t.properties {
                        TraitProperty::SpreadScaler(scaler) => Some(scaler),
                        _ => None,
                    })
                    .ok_or_else(|| anyhow!("{component} has no scaler"))?;
                let old = scaler.instances as u64;
                if old == *instances {
                    bail!("{component} already has {instances} instances");
                }
                scaler.instances = usize::try_from(*instances).context("instances")?;
                said.push(format!("{component}: instances {old} → {instances}"));
            }
            Edit::LinkConfig { source, link, side, config, key, value } => {
                if key.trim().is_empty() {
                    bail!("a config key cannot be empty");
                }
                let c = component_mut(&mut model, source)?;
                let t = traits_mut(c)?
                    .get_mut(*link)
                    .filter(|t| t.is_link())
                    .and_then(|t| match &mut t.properties {
                        TraitProperty::Link(l) => Some(l),
                        _ => None,
                    })
                    .ok_or_else(|| anyhow!("{source} has no link #{link}"))?;
                let link_name = t.name.clone().unwrap_or_else(|| DEFAULT_LINK_NAME.to_string());
                let configs = match side {
                    Side::Source => t.source.as_mut().map(|s| &mut s.config),
                    Side::Target => Some(&mut t.target.config),
                }
                .filter(|configs| !configs.is_empty())
                .ok_or_else(|| anyhow!("link {link_name} of {source} has no {side:?} config"))?;
                let old = set_entry(configs, &format!("link {link_name} of {source}"), config, key, value.as_deref())?;
                said.push(format!(
                    "link {link_name} ({source}): {config}.{key} {} → {}",
                    old.as_deref().unwrap_or("(unset)"),
                    value.as_deref().unwrap_or("(removed)")
                ));
            }
            Edit::ComponentConfig { component, config, key, value } => {
                if key.trim().is_empty() {
                    bail!("a config key cannot be empty");
                }
                let configs = match &mut component_mut(&mut model, component)?.properties {
                    Properties::Component { properties } => &mut properties.config,
                    Properties::Capability { properties } => &mut properties.config,
                };
                let old = set_entry(configs, component, config, key, value.as_deref())?;
                said.push(format!(
                    "{component}: {config}.{key} {} → {}",
                    old.as_deref().unwrap_or("(unset)"),
                    value.as_deref().unwrap_or("(removed)")
                ));
            }
        }
    }
    Ok((model, said))
}

/// Sets (`Some`) or removes (`None`) `key` of the named config `config` among `owner`'s
/// `configs`; returns the value it had. Refuses a config that is not there, and a change that
/// changes nothing.
fn set_entry(
    configs: &mut [ConfigProperty],
    owner: &str,
    config: &str,
    key: &str,
    value: Option<&str>,
) -> anyhow::Result<Option<String>> {
    let named =
        configs.iter_mut().find(|c| c.name == config).ok_or_else(|| anyhow!("{owner} has no config `{config}`"))?;
    let props = named.properties.get_or_insert_with(Default::default);
    let old = props.get(key).cloned();
    match value {
        Some(v) if old.as_deref() == Some(v) => bail!("{config}.{key} is already {v}"),
        Some(v) => {
            props.insert(key.to_string(), v.to_string());
        }
        None if old.is_none() => bail!("{config} has no entry {key}"),
        None => {
            props.remove(key);
        }
    }
    Ok(old)
}

/// The whole change: edits, new version and annotations, diff. `base` must be the version the
/// page was looking at.
pub fn plan(base: &Manifest, request: &ChangeRequest, now_ms: u64, by: &str) -> anyhow::Result<Plan> {
    let base_version = version_of(base);
    if base_version != request.base_version {
        bail!(
            "the model changed while you were looking at it: {} is now at {base_version}, not {}; reload and try again",
            base.metadata.name,
            request.base_version
        );
    }
    let (mut model, said) = apply_edits(base, &request.edits)?;
    let version = next_version(&base_version, now_ms);
    let summary = said.join("; ");
    let annotations = &mut model.metadata.annotations;
    annotations.insert(VERSION_ANNOTATION_KEY.into(), version.clone());
    annotations.insert("cits.dashboard/change".into(), summary.clone());
    annotations.insert("cits.dashboard/by".into(), by.into());
    // wadm checks the model (its links to known components, …) when it is put; check it here
    // first so a bad edit is refused before anything is sent.
    cits_manifest::validate(&model).context("the changed model is not a valid wadm manifest")?;
    let diff = unified_diff(&canonical_yaml(base)?, &canonical_yaml(&model)?, &base_version, &version);
    Ok(Plan { base_version, version, summary, diff, manifest: model, stored: false })
}

/// The application page's view: versions, the deployed model's components, links and scalers,
/// and wadm's status.
#[derive(Serialize, Debug, Default)]
pub struct AppView {
    pub name: String,
    pub deployed_version: Option<String>,
    pub latest_version: Option<String>,
    pub versions: Vec<VersionView>,
    pub status: String,
    pub message: String,
    pub scalers: Vec<ScalerView>,
    pub components: Vec<ComponentModel>,
    pub error: Option<String>,
    pub refreshed_at_ms: u64,
    /// When wadm last published the status shown (0: none seen yet, the status is polled). Right
    /// after a deploy the polled status is still the previous version's; a page waits for one
    /// published after its change before it calls the change reconciled.
    pub status_at_ms: u64,
}

#[derive(Serialize, Debug)]
pub struct VersionView {
    pub version: String,
    pub deployed: bool,
    pub description: String,
    pub change: Option<String>,
}

#[derive(Serialize, Debug)]
pub struct ScalerView {
    pub kind: String,
    pub name: String,
    pub status: String,
    pub message: String,
}

/// A component of the deployed model as the Scale and link page edits it.
#[derive(Serialize, Debug, Default, PartialEq)]
pub struct ComponentModel {
    pub name: String,
    pub kind: String,
    pub id: String,
    pub instances: Option<u64>,
    pub scaler: Option<String>,
    /// Its own named configs with their entries (a stage's settings).
    pub config: Vec<NamedConfig>,
    pub links: Vec<LinkModel>,
}

#[derive(Serialize, Debug, Default, PartialEq)]
pub struct LinkModel {
    /// Index among the component's traits (what an edit names).
    pub index: usize,
    pub name: String,
    pub target: String,
    pub interface: String,
    pub source_config: Vec<NamedConfig>,
    pub target_config: Vec<NamedConfig>,
}

#[derive(Serialize, Debug, Default, PartialEq)]
pub struct NamedConfig {
    pub name: String,
    pub properties: BTreeMap<String, String>,
}

fn named_configs(configs: &[ConfigProperty]) -> Vec<NamedConfig> {
    configs
        .iter()
        .map(|c| NamedConfig {
            name: c.name.clone(),
            properties: c.properties.iter().flatten().map(|(k, v)| (k.clone(), v.clone())).collect(),
        })
        .collect()
}

/// The components of a model with their scalers and the links they are the source of.
pub fn components_of(model: &Manifest) -> Vec<ComponentModel> {
    let mut out = Vec::new();
    for c in model.components() {
        let (kind, id) = match &c.properties {
            Properties::Component { properties } => ("component", &properties.id),
            Properties::Capability { properties } => ("capability", &properties.id),
        };
        let mut view = ComponentModel {
            name: c.name.clone(),
            kind: kind.into(),
            id: id.clone().unwrap_or_default(),
            config: named_configs(own_configs(c)),
            ..Default::default()
        };
        for t in c.traits.iter().flatten().filter(|t| t.is_scaler()) {
            if let TraitProperty::SpreadScaler(scaler) = &t.properties {
                view.scaler = Some(t.trait_type.clone());
                view.instances = Some(scaler.instances as u64);
            }
        }
        view.links = links(c)
            .map(|(index, l)| LinkModel {
                index,
                name: l.name.clone().unwrap_or_else(|| DEFAULT_LINK_NAME.to_string()),
                target: l.target.name.clone(),
                interface: format!("{}:{}/{}", l.namespace, l.package, l.interfaces.join(",")),
                source_config: named_configs(l.source.as_ref().map_or(&[][..], |s| &s.config)),
                target_config: named_configs(&l.target.config),
            })
            .collect();
        out.push(view);
    }
    out
}

/// Talks to wadm for the pages: reads as the dashboard user, changes as the operator.
pub struct AppWatch {
    pub wadm: wadm_client::Client,
    pub nats: async_nats::Client,
    pub lattice: String,
    pub app: String,
}

impl AppWatch {
    /// Keeps the "app" snapshot current: on every status wadm publishes, and every 3 s.
    pub async fn run(self, hub: Hub, mut poke: tokio::sync::mpsc::Receiver<()>) {
        let subject = format!("{}.{}.{}", wadm_types::api::WADM_STATUS_API_PREFIX, self.lattice, self.app);
        let mut status = self.nats.subscribe(subject).await.ok();
        let mut tick = tokio::time::interval(Duration::from_secs(3));
        let mut pushed: Option<(u64, Status)> = None;
        loop {
            let mut out = view(&self.wadm, &self.app).await;
            if let Some((at, status)) = &pushed {
                show_status(&mut out, status);
                out.status_at_ms = *at;
            }
            hub.publish("app", &out);
            tokio::select! {
                _ = tick.tick() => {}
                Some(()) = poke.recv() => {}
                msg = async { match status.as_mut() { Some(s) => s.next().await, None => std::future::pending().await } } => {
                    match msg {
                        None => status = None,
                        Some(m) => if let Ok(s) = serde_json::from_slice::<Status>(&m.payload) {
                            pushed = Some((cits::shared::time::now_ms(), s));
                        },
                    }
                }
            }
        }
    }
}

fn show_status(out: &mut AppView, status: &Status) {
    out.status = format!("{:?}", status.info.status_type).to_lowercase();
    out.message = status.info.message.clone();
    out.scalers = status
        .scalers
        .iter()
        .map(|s| ScalerView {
            kind: s.kind.clone(),
            name: s.name.clone(),
            status: format!("{:?}", s.info.status_type).to_lowercase(),
            message: s.info.message.clone(),
        })
        .collect();
}

pub async fn view(wadm: &wadm_client::Client, app: &str) -> AppView {
    let mut out = AppView { name: app.into(), refreshed_at_ms: cits::shared::time::now_ms(), ..Default::default() };
    if let Err(e) = fill(wadm, app, &mut out).await {
        out.error = Some(format!("{e:#}"));
    }
    out
}

async fn fill(wadm: &wadm_client::Client, app: &str, out: &mut AppView) -> anyhow::Result<()> {
    let summary = wadm
        .list_manifests()
        .await
        .context("wadm model.list")?
        .into_iter()
        .find(|m| m.name == app)
        .ok_or_else(|| anyhow!("wadm has no application `{app}`"))?;
    out.deployed_version = summary.deployed_version.clone();
    out.latest_version = Some(summary.version.clone());
    let status = wadm.get_manifest_status(app).await.context("wadm model.status")?;
    show_status(out, &status);
    for v in wadm.list_versions(app).await.context("wadm model.versions")? {
        let model = wadm.get_manifest(app, Some(&v.version)).await.ok();
        let annotation = |k: &str| model.as_ref().and_then(|m| m.metadata.annotations.get(k).cloned());
        out.versions.push(VersionView {
            description: annotation("description").unwrap_or_default(),
            change: annotation("cits.dashboard/change"),
            version: v.version,
            deployed: v.deployed,
        });
    }
    if let Some(deployed) = &out.deployed_version {
        let model = wadm.get_manifest(app, Some(deployed)).await.context("wadm model.get")?;
        out.components = components_of(&model);
    }
    Ok(())
}

/// The deployed model (or `version`).
pub async fn model(wadm: &wadm_client::Client, app: &str, version: Option<&str>) -> anyhow::Result<Manifest> {
    let version = match version {
        Some(v) => v.to_string(),
        None => wadm
            .list_manifests()
            .await
            .context("wadm model.list")?
            .into_iter()
            .find(|m| m.name == app)
            .and_then(|m| m.deployed_version)
            .ok_or_else(|| anyhow!("{app} is not deployed"))?,
    };
    wadm.get_manifest(app, Some(&version)).await.with_context(|| format!("wadm model.get {app} {version}"))
}

/// Puts the planned model and deploys it (as the operator).
pub async fn apply(admin: &wadm_client::Client, plan: &Plan) -> anyhow::Result<String> {
    let (name, version) =
        admin.put_manifest(plan.manifest.clone()).await.map_err(|e| anyhow!("wadm refused the model: {e}"))?;
    admin.deploy_manifest(&name, Some(&version)).await.map_err(|e| anyhow!("wadm did not deploy {version}: {e}"))?;
    Ok(version)
}

/// Deploying another stored version (the other deployment, an earlier change): the diff from the
/// deployed one.
pub async fn deploy_plan(wadm: &wadm_client::Client, app: &str, version: &str) -> anyhow::Result<Plan> {
    let deployed = model(wadm, app, None).await?;
    let other = model(wadm, app, Some(version)).await?;
    let from = version_of(&deployed);
    Ok(Plan {
        diff: unified_diff(&canonical_yaml(&deployed)?, &canonical_yaml(&other)?, &from, version),
        summary: format!("deploy {version} instead of {from}"),
        base_version: from,
        version: version.to_string(),
        manifest: other,
        stored: true,
    })
}

pub async fn deploy_version(admin: &wadm_client::Client, app: &str, version: &str) -> anyhow::Result<()> {
    admin.deploy_manifest(app, Some(version)).await.map_err(|e| anyhow!("wadm did not deploy {version}: {e}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Manifest {
        // Included, not read at run time: a test binary built in another checkout sharing the
        // target directory would otherwise look for the manifest there.
        let yaml = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../wadm/cits-pipeline.yaml"));
        serde_yaml::from_str(yaml).unwrap()
    }

    fn decoder_input(model: &Manifest) -> usize {
        components_of(model)
            .into_iter()
            .find(|c| c.name == "nats")
            .unwrap()
            .links
            .into_iter()
            .find(|l| l.name == "decoder-input")
            .unwrap()
            .index
    }

    #[test]
    fn scaling_a_stage_changes_its_instances_and_nothing_else() {
        let base = model();
        let req = ChangeRequest {
            base_version: "v0.9.0".into(),
            edits: vec![Edit::Scale { component: "decoder".into(), instances: 3 }],
        };
        let plan = plan(&base, &req, 1_795_000_000_000, "operator").unwrap();
        assert_eq!(plan.version, "v0.9.0-ops.1795000000000");
        assert_eq!(plan.summary, "decoder: instances 8 → 3");
        let decoder = components_of(&plan.manifest).into_iter().find(|c| c.name == "decoder").unwrap();
        assert_eq!(decoder.instances, Some(3));
        let changed: Vec<&str> = plan
            .diff
            .lines()
            .filter(|l| l.starts_with(['+', '-']) && !l.starts_with("+++") && !l.starts_with("---"))
            .collect();
        // The instance count and the version/annotations: nothing else moved.
        assert!(changed.contains(&"-        instances: 8"), "{}", plan.diff);
        assert!(changed.contains(&"+        instances: 3"), "{}", plan.diff);
        assert_eq!(changed.len(), 6, "{}", plan.diff);
        // Every other component keeps its instances.
        let before = components_of(&base);
        let after = components_of(&plan.manifest);
        for (b, a) in before.iter().zip(&after).filter(|(b, _)| b.name != "decoder") {
            assert_eq!(b, a);
        }
    }

    #[test]
    fn a_link_config_entry_is_changed_added_or_removed() {
        let base = model();
        let link = decoder_input(&base);
        let edit = |key: &str, value: Option<&str>| Edit::LinkConfig {
            source: "nats".into(),
            link,
            side: Side::Source,
            config: "cits-decoder-input".into(),
            key: key.into(),
            value: value.map(str::to_string),
        };
        let (m, said) = apply_edits(&base, &[edit("concurrency", Some("2"))]).unwrap();
        assert_eq!(said, ["link decoder-input (nats): cits-decoder-input.concurrency 4 → 2"]);
        let nats = components_of(&m).into_iter().find(|c| c.name == "nats").unwrap();
        let l = nats.links.iter().find(|l| l.index == link).unwrap();
        assert_eq!(l.source_config[0].properties["concurrency"], "2");
        let (m, _) = apply_edits(&m, &[edit("max_attempts", None)]).unwrap();
        let nats = components_of(&m).into_iter().find(|c| c.name == "nats").unwrap();
        assert!(!nats.links.iter().find(|l| l.index == link).unwrap().source_config[0]
            .properties
            .contains_key("max_attempts"));
        // Refused: no change, unknown config, a trait that is no link, an empty key.
        assert!(apply_edits(&base, &[edit("concurrency", Some("4"))]).unwrap_err().to_string().contains("already"));
        let bad = Edit::LinkConfig {
            source: "nats".into(),
            link,
            side: Side::Source,
            config: "nope".into(),
            key: "k".into(),
            value: Some("v".into()),
        };
        assert!(apply_edits(&base, &[bad]).is_err());
        assert!(apply_edits(
            &base,
            &[Edit::LinkConfig {
                source: "nats".into(),
                link: 0,
                side: Side::Source,
                config: "cits-nats".into(),
                key: "k".into(),
                value: None
            }]
        )
        .is_err());
        assert!(apply_edits(&base, &[edit(" ", Some("1"))]).is_err());
    }

    #[test]
    fn a_stage_config_entry_is_changed_and_a_key_no_stage_declares_is_refused() {
        let base = model();
        let version = version_of(&base);
        let change = |key: &str, value: &str| ChangeRequest {
            base_version: version.clone(),
            edits: vec![Edit::ComponentConfig {
                component: "predictor".into(),
                config: "cits-predictor-config".into(),
                key: key.into(),
                value: Some(value.into()),
            }],
        };
        let planned = plan(&base, &change("horizon_ms", "3000"), 1, "operator").unwrap();
        assert_eq!(planned.summary, "predictor: cits-predictor-config.horizon_ms 4000 → 3000");
        let predictor = components_of(&planned.manifest).into_iter().find(|c| c.name == "predictor").unwrap();
        assert_eq!(predictor.config[0].properties["horizon_ms"], "3000");
        let err = format!("{:#}", plan(&base, &change("horizon_msec", "3000"), 1, "operator").unwrap_err());
        assert!(
            err.contains("predictor config: unknown key `horizon_msec` (did you mean `horizon_ms`?)"),
            "names the stage and the nearest key: {err}"
        );
    }

    #[test]
    fn a_change_on_a_stale_version_or_to_nothing_is_refused() {
        let base = model();
        let stale = ChangeRequest {
            base_version: "v0.5.0".into(),
            edits: vec![Edit::Scale { component: "decoder".into(), instances: 3 }],
        };
        assert!(plan(&base, &stale, 1, "operator").unwrap_err().to_string().contains("changed while you were looking"));
        let zero = ChangeRequest {
            base_version: "v0.9.0".into(),
            edits: vec![Edit::Scale { component: "decoder".into(), instances: 0 }],
        };
        assert!(plan(&base, &zero, 1, "operator").is_err());
        let unknown = ChangeRequest {
            base_version: "v0.9.0".into(),
            edits: vec![Edit::Scale { component: "nobody".into(), instances: 2 }],
        };
        assert!(plan(&base, &unknown, 1, "operator").unwrap_err().to_string().contains("no component `nobody`"));
    }

    #[test]
    fn versions_made_here_keep_their_root() {
        assert_eq!(next_version("v0.6.0", 5), "v0.6.0-ops.5");
        assert_eq!(next_version("v0.6.0-ops.5", 9), "v0.6.0-ops.9");
        assert_eq!(next_version("v0.6.0-fused", 9), "v0.6.0-fused-ops.9");
    }

    #[test]
    fn config_names_cover_components_and_links() {
        let names = config_names(&model());
        for n in ["cits-rsus", "cits-decoder-input", "cits-lattice-redis", "cits-denm-config"] {
            assert!(names.contains(&n.to_string()), "{n} in {names:?}");
        }
    }
}

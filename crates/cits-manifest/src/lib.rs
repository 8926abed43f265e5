//! The wadm manifests as typed values (`wadm_types::Manifest`): what differs between one lattice
//! and another, applied to a committed manifest (`cits manifest render`), checked, and written
//! as canonical YAML (keys sorted, so two renderings diff line by line).
//!
//! The committed manifests name no port, path or password, so they deploy unchanged on any
//! lattice (README "Deploying by hand"): wash resolves their `file://../…` artefacts against the
//! manifest's folder, the messaging provider reaches the lattice's own NATS server, the Redis
//! endpoint and the blobstore folder are named configs the lattice keeps ([`LATTICE_REDIS`],
//! [`LATTICE_BLOBSTORE`]), the Redis password a secret. What a replay faster than real time or a
//! benchmark of many intersections changes (limits, cameras) is rendered.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{bail, Context as _};
use wadm_types::validation::{ValidationFailureLevel, ValidationOutput as _};
use wadm_types::{Manifest, Properties, TraitProperty};

/// The lattice's named config with its Redis endpoint (`url`, no password), the key-value
/// provider's first config; put by `cits lattice up`.
pub const LATTICE_REDIS: &str = "cits-lattice-redis";
/// The lattice's named config with the blobstore folder (`ROOT`), the blobstore links' target config.
pub const LATTICE_BLOBSTORE: &str = "cits-lattice-blobstore";
/// The decoder's RSU registry (`rsu.<id>` = station, `object_frame.<id>` = object frame), put by
/// `cits rsu add`/`remove`.
pub const RSU_REGISTRY: &str = "cits-rsus";

/// A lattice config's name for one site (`cits-lattice-redis-site-1`: the site's own Redis).
pub fn site_config(name: &str, site: &str) -> String {
    format!("{name}-{site}")
}

/// The label value that places a part of the committed manifests on the hub's hosts.
pub const HUB_SITE: &str = "cits-local";

/// The secret with the Redis password (the key-value provider's `password`) in the secrets backend.
pub const REDIS_PASSWORD_SECRET: &str = "redis-password";
/// The pipeline's plausibility limit on a CPM's age (crates/cits/src/limits.rs).
pub const MAX_AGE: &str = "limits.max_age_ms";

/// What a lattice changes in a manifest; `None` / empty keeps the committed value.
#[derive(Debug, Clone, Default)]
pub struct Render {
    /// Every `limits.max_age_ms` (replays faster than real time send older CPMs).
    pub max_age_ms: Option<u64>,
    /// Camera calibrations of station `.0` (`sensor.<station>.<n>`) copied for each station of
    /// `.1`: one recording replayed as several intersections (`make bench`).
    pub cameras: Option<(u32, Vec<u32>)>,
    /// Sites that run the pipeline for their RSUs on their own hosts (see [`place_at_sites`]).
    pub edge_sites: Vec<String>,
    /// Another build of a component: (component name, its image: a URL, or a file path made
    /// absolute), e.g. the fused component with every codec or with its function names.
    pub images: Vec<(String, String)>,
}

/// Reads a manifest file.
pub fn load(path: &Path) -> anyhow::Result<Manifest> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_yaml::from_str(&text).with_context(|| format!("{} is not a wadm manifest", path.display()))
}

/// Applies `render` to `manifest`, read from folder `base`: relative `file://` artefacts become
/// absolute (as `wash app deploy FILE` resolves them), then the lattice's values.
pub fn render(manifest: &mut Manifest, base: &Path, render: &Render) -> anyhow::Result<()> {
    for (name, _) in &render.images {
        if !manifest.spec.components.iter().any(|c| &c.name == name) {
            bail!("no component `{name}` in the manifest to give another image");
        }
    }
    for component in &mut manifest.spec.components {
        let image = match &mut component.properties {
            Properties::Component { properties } => &mut properties.image,
            Properties::Capability { properties } => &mut properties.image,
        };
        if let Some((_, other)) = render.images.iter().find(|(name, _)| *name == component.name) {
            *image = Some(if other.contains("://") { other.clone() } else { format!("file://{other}") });
        }
        if let Some(image) = image {
            *image = absolute_artefact(image, base)?;
        }
    }
    place_at_sites(manifest, &render.edge_sites);
    for_each_config(manifest, |config| {
        if let (Some(ms), Some(value)) = (render.max_age_ms, config.get_mut(MAX_AGE)) {
            *value = ms.to_string();
        }
        if let Some((from, to)) = &render.cameras {
            let prefix = format!("sensor.{from}.");
            let copies: Vec<(String, String)> = config
                .iter()
                .filter_map(|(key, value)| Some((key.strip_prefix(&prefix)?, value)))
                .flat_map(|(camera, value)| to.iter().map(move |s| (format!("sensor.{s}.{camera}"), value.clone())))
                .collect();
            config.extend(copies);
        }
    });
    Ok(())
}

/// Whether `name` is one of the lattice's own configs (a site has its own copy of each).
fn is_lattice_config(name: &str) -> bool {
    name == LATTICE_REDIS || name == LATTICE_BLOBSTORE
}

/// Every part the manifest places on the hub (spread requirement `site=cits-local`) once more
/// for each of `sites`, placed on that site's hosts (`site=<name>`): named `<name>-<site>` with
/// id `<id>-<site>`, linked among themselves (a provider at the site invokes the component at the
/// site, never one across the link), with the site's own Redis and blob folder ([`site_config`]
/// of [`LATTICE_REDIS`], [`LATTICE_BLOBSTORE`]). The site's messaging provider connects to its host's NATS server, the
/// site's leaf node, where the site's streams are.
pub fn place_at_sites(manifest: &mut Manifest, sites: &[String]) {
    let at_hub = |component: &wadm_types::Component| {
        component.traits.iter().flatten().any(|t| match &t.properties {
            TraitProperty::SpreadScaler(scaler) => {
                scaler.spread.iter().any(|s| s.requirements.get("site").is_some_and(|v| v == HUB_SITE))
            }
            _ => false,
        })
    };
    let hub: Vec<wadm_types::Component> = manifest.spec.components.iter().filter(|c| at_hub(c)).cloned().collect();
    let names: Vec<String> = hub.iter().map(|c| c.name.clone()).collect();
    for site in sites {
        for mut component in hub.clone() {
            component.name = format!("{}-{site}", component.name);
            let (id, configs) = match &mut component.properties {
                Properties::Component { properties } => (&mut properties.id, &mut properties.config),
                Properties::Capability { properties } => (&mut properties.id, &mut properties.config),
            };
            if let Some(id) = id {
                *id = format!("{id}-{site}");
            }
            // The site's own Redis and blob folder, on its machine.
            for config in configs.iter_mut().filter(|c| is_lattice_config(&c.name)) {
                config.name = site_config(&config.name, site);
            }
            for t in component.traits.iter_mut().flatten() {
                match &mut t.properties {
                    TraitProperty::SpreadScaler(scaler) => {
                        for spread in &mut scaler.spread {
                            spread.name = site.clone();
                            spread.requirements.insert("site".into(), site.clone());
                        }
                    }
                    TraitProperty::Link(link) => {
                        if names.contains(&link.target.name) {
                            link.target.name = format!("{}-{site}", link.target.name);
                        }
                        // A link's own configs are named once per manifest.
                        let source = link.source.iter_mut().flat_map(|s| s.config.iter_mut());
                        let own =
                            |c: &&mut wadm_types::ConfigProperty| c.properties.is_some() || is_lattice_config(&c.name);
                        for config in source.chain(link.target.config.iter_mut()).filter(own) {
                            config.name = site_config(&config.name, site);
                        }
                    }
                    _ => {}
                }
            }
            manifest.spec.components.push(component);
        }
    }
}

/// Calls `f` with every config map of the manifest: components', providers', and both ends of
/// every link.
fn for_each_config(manifest: &mut Manifest, mut f: impl FnMut(&mut HashMap<String, String>)) {
    for component in &mut manifest.spec.components {
        let configs = match &mut component.properties {
            Properties::Component { properties } => &mut properties.config,
            Properties::Capability { properties } => &mut properties.config,
        };
        configs.iter_mut().filter_map(|c| c.properties.as_mut()).for_each(&mut f);
        for link in component.traits.iter_mut().flatten().filter_map(|t| match &mut t.properties {
            TraitProperty::Link(link) => Some(link),
            _ => None,
        }) {
            let source = link.source.iter_mut().flat_map(|s| s.config.iter_mut());
            for config in source.chain(link.target.config.iter_mut()) {
                if let Some(properties) = config.properties.as_mut() {
                    f(properties);
                }
            }
        }
    }
}

/// `file://relative/path` as an absolute `file://` URL from folder `base`; other references
/// unchanged. Exactly as `wash app deploy FILE` (wash 0.43) makes it: the canonical folder
/// joined with the path, `..` kept (the host's file system resolves it) — wadm takes a put of a
/// stored version again only if it is identical (tools/patches/wadm.sh), so the lattice must
/// store what the README's `wash app deploy` sends. The artefact need not exist yet.
fn absolute_artefact(image: &str, base: &Path) -> anyhow::Result<String> {
    let Some(path) = image.strip_prefix("file://").filter(|p| !p.starts_with('/')) else {
        return Ok(image.to_string());
    };
    let full = base.canonicalize().with_context(|| format!("no folder {}", base.display()))?.join(path);
    url::Url::from_file_path(&full)
        .map(String::from)
        .map_err(|()| anyhow::anyhow!("{} is not an absolute path", full.display()))
}

/// wadm's own checks (the ones `wash app validate` runs), plus: no config value is a URL with a
/// password — config is readable by every operator (`wash config get`, `wash get links`);
/// passwords are secrets; and a stage's config holds only keys the stage declares (a misspelt
/// key would silently mean the default: see [`unknown_stage_keys`]).
pub fn validate(manifest: &Manifest) -> anyhow::Result<()> {
    let failures = futures::executor::block_on(wadm_types::validation::validate_manifest(manifest))?;
    let mut errors: Vec<String> = failures
        .errors()
        .into_iter()
        .filter(|f| f.level == ValidationFailureLevel::Error)
        .map(|f| f.to_string())
        .collect();
    errors.extend(unknown_stage_keys(manifest));
    let mut manifest = manifest.clone();
    for_each_config(&mut manifest, |config| {
        for (key, value) in config.iter() {
            if url::Url::parse(value).is_ok_and(|u| u.password().is_some()) {
                errors.push(format!("config `{key}` carries a password: reference a secret instead"));
            }
        }
    });
    if !errors.is_empty() {
        bail!("invalid manifest:\n  {}", errors.join("\n  "));
    }
    Ok(())
}

/// Each config given inline to a stage's component that holds a key the stage does not declare:
/// the component, the config, and the stage's reason naming the nearest declared key. A
/// component is a stage's by its name (`map-matcher`; on an edge site `map-matcher-<site>`).
pub fn unknown_stage_keys(manifest: &Manifest) -> Vec<String> {
    let handlers = cits::pipeline::all_declared();
    let mut errors = Vec::new();
    for component in &manifest.spec.components {
        let Properties::Component { properties } = &component.properties else { continue };
        let stage = handlers
            .iter()
            .filter(|(name, _)| {
                let name = name.replace('_', "-");
                component.name == name || component.name.starts_with(&format!("{name}-"))
            })
            .max_by_key(|(name, _)| name.len());
        let Some((stage, declared)) = stage else { continue };
        for config in &properties.config {
            let Some(entries) = &config.properties else { continue };
            let mut keys: Vec<(&str, &str)> = entries.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            keys.sort();
            if let Err(e) = cits::config::check_known(stage, declared, keys) {
                errors.push(format!("component `{}`, config `{}`: {}", component.name, config.name, e.reason));
            }
        }
    }
    errors
}

/// The manifest as YAML with every mapping's keys sorted.
pub fn canonical_yaml(manifest: &Manifest) -> anyhow::Result<String> {
    Ok(canonical_yaml_value(&serde_json::to_value(manifest)?))
}

/// A manifest-shaped value as YAML with every mapping's keys sorted, so that two versions diff
/// line by line (the dashboard's version diffs, rendered manifests).
pub fn canonical_yaml_value(v: &serde_json::Value) -> String {
    fn sorted(v: &serde_json::Value) -> serde_yaml::Value {
        match v {
            serde_json::Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                let mut out = serde_yaml::Mapping::new();
                for k in keys {
                    out.insert(serde_yaml::Value::String(k.clone()), sorted(&map[k]));
                }
                serde_yaml::Value::Mapping(out)
            }
            serde_json::Value::Array(items) => serde_yaml::Value::Sequence(items.iter().map(sorted).collect()),
            other => serde_yaml::to_value(other).unwrap_or(serde_yaml::Value::Null),
        }
    }
    serde_yaml::to_string(&sorted(v)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn repo() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    fn committed(name: &str) -> Manifest {
        load(&repo().join("wadm").join(name)).unwrap()
    }

    fn configs(manifest: &Manifest) -> Vec<HashMap<String, String>> {
        let mut all = Vec::new();
        for_each_config(&mut manifest.clone(), |c| all.push(c.clone()));
        all
    }

    fn values_of(manifest: &Manifest, key: &str) -> Vec<String> {
        configs(manifest).iter().filter_map(|c| c.get(key).cloned()).collect()
    }

    #[test]
    fn committed_manifests_are_valid_and_name_no_port_path_or_password() {
        let mut names = std::collections::HashSet::new();
        for name in ["cits-pipeline.yaml", "cits-pipeline-fused.yaml"] {
            let manifest = committed(name);
            validate(&manifest).unwrap_or_else(|e| panic!("{name}: {e:#}"));
            let yaml = canonical_yaml(&manifest).unwrap();
            for lattice_specific in ["4222", "6379", "cluster_uris", "url", "ROOT", ".state", "redis://"] {
                assert!(!yaml.contains(lattice_specific), "{name} names `{lattice_specific}`");
            }
            assert!(yaml.contains(LATTICE_REDIS) && yaml.contains(LATTICE_BLOBSTORE), "{name}");
            // The Redis password is the provider's secret, from the NATS KV backend.
            let secrets: Vec<_> = manifest
                .spec
                .components
                .iter()
                .filter_map(|c| match &c.properties {
                    Properties::Capability { properties } => Some(&properties.secrets),
                    _ => None,
                })
                .flatten()
                .collect();
            assert_eq!(secrets.len(), 1, "{name}");
            // The provider's `password-…` secret, named per version (wadm deletes the reference
            // of the version switched from, by name).
            assert!(secrets[0].name.starts_with("password-"), "{name}: {}", secrets[0].name);
            assert!(names.insert(secrets[0].name.clone()), "{name}: secret name shared by both versions");
            assert_eq!(secrets[0].properties.key, REDIS_PASSWORD_SECRET);
            let policy = &manifest.spec.policies[0];
            assert_eq!(policy.name, secrets[0].properties.policy);
            assert_eq!(policy.properties["backend"], cits_ops::rsu::SECRETS_BACKEND);
        }
    }

    #[test]
    fn a_provider_both_deployments_share_by_id_is_defined_alike_in_both() {
        // Else a switch stops it (the old version's cleanup) on some hosts where the new version
        // counted it as running: stopped there until wadm's next reconcile, 60-80 s.
        let providers = |name: &str| -> HashMap<String, String> {
            committed(name)
                .spec
                .components
                .iter()
                .filter_map(|c| match &c.properties {
                    Properties::Capability { properties } => {
                        Some((properties.id.clone().unwrap_or_default(), serde_yaml::to_string(properties).unwrap()))
                    }
                    _ => None,
                })
                .collect()
        };
        let (seven, fused) = (providers("cits-pipeline.yaml"), providers("cits-pipeline-fused.yaml"));
        let shared: Vec<&String> = seven.keys().filter(|id| fused.contains_key(*id)).collect();
        assert!(!shared.is_empty(), "the messaging provider is shared (it holds messages in flight)");
        for id in shared {
            assert_eq!(seven[id], fused[id], "{id}: one id, two definitions");
        }
    }

    #[test]
    fn a_replay_renders_artefact_paths_limits_and_cameras() {
        let mut manifest = committed("cits-pipeline-fused.yaml");
        assert_eq!(values_of(&manifest, MAX_AGE), ["60000"]);
        let render_with =
            Render { max_age_ms: Some(300_000), cameras: Some((1001, vec![1002, 1003])), ..Default::default() };
        render(&mut manifest, &repo().join("wadm"), &render_with).unwrap();
        validate(&manifest).unwrap();
        assert_eq!(values_of(&manifest, MAX_AGE), ["300000"]);
        let cameras = configs(&manifest).into_iter().find(|c| c.contains_key("sensor.1001.1")).unwrap();
        for station in [1001, 1002, 1003] {
            assert_eq!(cameras[&format!("sensor.{station}.1")], "47.81028,13.05203,225");
            assert_eq!(cameras[&format!("sensor.{station}.2")], "47.80992,13.05157,45");
        }
        for c in &manifest.spec.components {
            let image = match &c.properties {
                Properties::Component { properties } => properties.image.clone(),
                Properties::Capability { properties } => properties.image.clone(),
            }
            .unwrap();
            let wadm = repo().join("wadm").canonicalize().unwrap();
            let relative =
                image.strip_prefix(&format!("file://{}/", wadm.display())).unwrap_or_else(|| panic!("{image}"));
            assert!(relative.starts_with("../actors/") || relative.starts_with("../build/providers/"), "{image}");
        }
    }

    #[test]
    fn another_build_of_a_component_replaces_its_image_and_a_misnamed_one_is_refused() {
        let mut manifest = committed("cits-pipeline-fused.yaml");
        let images = vec![("pipeline".to_string(), "/tmp/pipeline_named_s.wasm".to_string())];
        render(&mut manifest, &repo().join("wadm"), &Render { images, ..Default::default() }).unwrap();
        let image =
            |m: &Manifest, name: &str| match &m.spec.components.iter().find(|c| c.name == name).unwrap().properties {
                Properties::Component { properties } => properties.image.clone().unwrap(),
                Properties::Capability { properties } => properties.image.clone().unwrap(),
            };
        assert_eq!(image(&manifest, "pipeline"), "file:///tmp/pipeline_named_s.wasm");
        assert!(image(&manifest, "nats").ends_with("/build/providers/messaging-nats.par"), "others as committed");

        let mut manifest = committed("cits-pipeline-fused.yaml");
        let images = vec![("pipelin".to_string(), "/tmp/x.wasm".to_string())];
        let e = render(&mut manifest, &repo().join("wadm"), &Render { images, ..Default::default() }).unwrap_err();
        assert!(e.to_string().contains("no component `pipelin`"), "{e}");
    }

    #[test]
    fn a_site_that_runs_its_pipeline_gets_its_own_copy_of_every_hub_part_linked_among_themselves() {
        for name in ["cits-pipeline-fused.yaml", "cits-pipeline.yaml"] {
            let mut manifest = committed(name);
            let hub_parts = manifest.spec.components.len();
            let sites = vec!["site-1".to_string(), "b".to_string()];
            render(&mut manifest, &repo().join("wadm"), &Render { edge_sites: sites, ..Default::default() }).unwrap();
            validate(&manifest).unwrap_or_else(|e| panic!("{name}: {e:#}"));
            assert_eq!(manifest.spec.components.len(), 3 * hub_parts, "{name}");
            for component in manifest.spec.components.iter().filter(|c| c.name.ends_with("-site-1")) {
                let yaml = serde_yaml::to_string(component).unwrap();
                assert!(
                    yaml.contains("site: site-1") && !yaml.contains(HUB_SITE),
                    "{name}: placed at the site\n{yaml}"
                );
                let id = match &component.properties {
                    Properties::Component { properties } => properties.id.clone(),
                    Properties::Capability { properties } => properties.id.clone(),
                };
                assert!(id.unwrap().ends_with("-site-1"), "{name}: {}", component.name);
                for t in component.traits.iter().flatten() {
                    if let TraitProperty::Link(link) = &t.properties {
                        assert!(link.target.name.ends_with("-site-1"), "{name}: {} links to the hub", component.name);
                    }
                }
                for config in [LATTICE_REDIS, LATTICE_BLOBSTORE] {
                    let own = site_config(config, "site-1");
                    assert_eq!(
                        yaml.matches(config).count(),
                        yaml.matches(&own).count(),
                        "{name}: the site's own\n{yaml}"
                    );
                }
            }
        }
    }

    #[test]
    fn only_hosts_by_the_store_run_the_providers_that_reach_it() {
        for name in ["cits-pipeline.yaml", "cits-pipeline-fused.yaml"] {
            let manifest = committed(name);
            for component in &manifest.spec.components {
                let store = component.traits.iter().flatten().find_map(|t| match &t.properties {
                    TraitProperty::SpreadScaler(scaler) => Some(scaler.spread[0].requirements.get("store").cloned()),
                    _ => None,
                });
                let by_store = matches!(component.name.as_str(), "kv-redis" | "blobstore-fs");
                let expected = by_store.then(|| "local".to_string());
                assert_eq!(store, Some(expected), "{name}: {}", component.name);
            }
        }
    }

    #[test]
    fn a_password_in_config_is_refused() {
        let mut manifest = committed("cits-pipeline-fused.yaml");
        for_each_config(&mut manifest, |c| {
            if c.contains_key("pool_size") {
                c.insert("url".into(), "redis://cits:s3cret@127.0.0.1:6379/".into());
            }
        });
        let err = validate(&manifest).unwrap_err().to_string();
        assert!(err.contains("password") && !err.contains("s3cret"), "{err}");
    }

    #[test]
    fn a_key_the_stage_does_not_declare_is_refused_naming_stage_and_nearest_key() {
        for name in ["cits-pipeline.yaml", "cits-pipeline-fused.yaml"] {
            assert_eq!(unknown_stage_keys(&committed(name)), Vec::<String>::new(), "{name}: every key declared");
        }
        let misspell = |name: &str, config: &str, from: &str, to: &str| {
            let mut manifest = committed(name);
            for component in &mut manifest.spec.components {
                if let Properties::Component { properties } = &mut component.properties {
                    for c in properties.config.iter_mut().filter(|c| c.name == config) {
                        let entries = c.properties.as_mut().unwrap();
                        let value = entries.remove(from).unwrap();
                        entries.insert(to.into(), value);
                    }
                }
            }
            validate(&manifest).unwrap_err().to_string()
        };
        let err = misspell("cits-pipeline.yaml", "cits-assembler-config", "window_ms", "windw_ms");
        assert!(
            err.contains(
                "component `assembler`, config `cits-assembler-config`: assembler config: unknown key `windw_ms` \
                 (did you mean `window_ms`?)"
            ),
            "{err}"
        );
        let err = misspell("cits-pipeline-fused.yaml", "cits-fused-detector-config", "harm_ratio", "harm_ration");
        assert!(err.contains("pipeline config: unknown key `harm_ration` (did you mean `harm_ratio`?)"), "{err}");
        // A key of another stage: the map matcher reads no horizon.
        let err = misspell("cits-pipeline.yaml", "cits-map-matcher-config", "map_refresh_s", "horizon_ms");
        assert!(err.contains("map_matcher config: unknown key `horizon_ms`"), "{err}");
    }

    #[test]
    fn canonical_yaml_sorts_keys_and_reads_back_equal() {
        let manifest = committed("cits-pipeline.yaml");
        let yaml = canonical_yaml(&manifest).unwrap();
        let api = yaml.find("apiVersion").unwrap();
        assert!(api < yaml.find("kind").unwrap() && yaml.find("kind").unwrap() < yaml.find("metadata").unwrap());
        let back: Manifest = serde_yaml::from_str(&yaml).unwrap();
        assert_eq!(back, manifest);
    }
}

//! The application on the lattice: every manifest of the repository stored as a version of it
//! (an operator switches with `wash app deploy APP VERSION` or from the dashboard), the chosen
//! one deployed through wadm's API (`wadm-client`) and followed on its status subject until
//! wadm reports that version deployed; undeployed until no host holds a `cits-` component or
//! provider (the control interface's inventories). And the probe: one CPM through all stages.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, bail, Context as _};
use futures::StreamExt as _;
use wadm_types::api::StatusType;
use wadm_types::Manifest;

use super::log;
use super::settings::Settings;
use cits_manifest::{self as manifest, Render};

/// How long a deployment may take per host: each host unpacks and starts its providers, and on a
/// small machine the hosts of a cluster take turns (three on two cores took over a minute).
const DEPLOY_LIMIT_PER_HOST: Duration = Duration::from_secs(60);

fn deploy_limit(settings: &Settings) -> Duration {
    DEPLOY_LIMIT_PER_HOST * settings.topology().hosts.len().max(1) as u32
}

/// What this lattice changes in the committed manifests: a replay faster than real time
/// (MAX_AGE_MS) or one recording as many intersections (CAMERA_STATIONS get RSU_STATION's
/// cameras). Nothing: they deploy as committed.
pub fn render_options(settings: &Settings) -> Render {
    Render {
        max_age_ms: settings.max_age_ms,
        cameras: (!settings.camera_stations.is_empty())
            .then(|| (settings.rsu_station, settings.camera_stations.clone())),
        edge_sites: settings.topology().edge_sites().map(|(_, s)| s.name.clone()).collect(),
        images: Vec::new(),
    }
}

/// `file` as this lattice deploys it: artefacts absolute as `wash app deploy FILE` sends them,
/// then [`render_options`]; a rendered one is also written to `<state>/<file name>` (or `out`)
/// for a post-mortem and the native stages.
pub fn deployable(settings: &Settings, file: &Path, out: Option<&Path>) -> anyhow::Result<Manifest> {
    let mut model = manifest::load(file)?;
    let base = file.canonicalize()?.parent().map(PathBuf::from).unwrap_or_default();
    let render = render_options(settings);
    manifest::render(&mut model, &base, &render)?;
    let rendered = render.max_age_ms.is_some() || render.cameras.is_some() || !render.edge_sites.is_empty();
    if rendered || out.is_some() {
        manifest::validate(&model).with_context(|| format!("{} rendered", file.display()))?;
        let out = out.map(PathBuf::from).unwrap_or_else(|| settings.state.join(file.file_name().unwrap_or_default()));
        std::fs::write(&out, manifest::canonical_yaml(&model)?)
            .with_context(|| format!("cannot write {}", out.display()))?;
    }
    Ok(model)
}

/// The chosen manifest first, then every other `wadm/cits-pipeline*.yaml`.
fn manifests(settings: &Settings) -> anyhow::Result<Vec<PathBuf>> {
    let chosen = settings.manifest();
    let mut all = vec![chosen.clone()];
    let mut others: Vec<PathBuf> = std::fs::read_dir(settings.repo.join("wadm"))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("cits-pipeline") && n.ends_with(".yaml"))
        })
        .filter(|p| !same_file(p, &chosen))
        .collect();
    others.sort();
    all.extend(others);
    Ok(all)
}

fn same_file(a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
}

pub async fn deploy(settings: &Settings, processes: &super::process::Processes) -> anyhow::Result<()> {
    let client = super::nats::connect(settings).await?;
    let wadm = wadm_client::Client::from_nats_client(&settings.lattice, None, client);
    let mut put_log = String::new();
    let mut version = None;
    for file in manifests(settings)? {
        let model = deployable(settings, &file, None)?;
        version.get_or_insert_with(|| model.version().to_string());
        // A version stored before with other content stays as it was stored (wadm refuses the
        // put; the identical one it takes again, tools/patches/wadm.sh): deployed as stored.
        match wadm.put_manifest(model).await {
            Ok((name, v)) => put_log.push_str(&format!("{}: stored {name} {v}\n", file.display())),
            Err(e) => put_log.push_str(&format!("{}: {e}\n", file.display())),
        }
    }
    std::fs::write(settings.log("deploy"), &put_log)?;
    let version = version.context("no manifest")?;
    let app = &settings.app;

    let mut status = wadm.subscribe_to_status(app).await.map_err(|e| anyhow!("wadm status of {app}: {e}"))?;
    // When the deploy itself was asked for (µs), for `make bench`'s deploy → first DENM: the
    // versions stored above are an operator's earlier step, not part of deploying one.
    let now_us = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_micros();
    std::fs::write(settings.state.join("deploy-requested-us"), format!("{now_us}\n"))?;
    wadm.deploy_manifest(app, Some(&version))
        .await
        .map_err(|e| anyhow!("wadm refused to deploy {app} {version}: {e}\n{put_log}"))?;

    let give_up = tokio::time::sleep(deploy_limit(settings));
    tokio::pin!(give_up);
    // A status update is the cue to look; the tick covers a deployment that was already
    // complete (no update follows) or an update missed between two looks.
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let asked = tokio::time::Instant::now();
    let mut remedies = 0;
    loop {
        if deployed(&wadm, app, &version).await? {
            log(format!("{app} deployed"));
            return Ok(());
        }
        // Seen on fresh edge lattices (`make run TOPOLOGY=edge`, `make bench`'s edge-hub): wadm
        // acknowledged the deploy and never acted on it (status "undeployed" minutes later, its
        // log silent). Once the same request made again was deployed at once; once that did not
        // help either. So a request not taken up within UNHEARD is made again, and after as long
        // again wadm is restarted (it keeps nothing but what is in its buckets) and asked once more.
        if remedies < 2 && asked.elapsed() > UNHEARD * (remedies + 1) && undeployed(&wadm, app).await {
            if remedies == 0 {
                log(format!("{app}: wadm has not taken up the deploy after {UNHEARD:?}; asking again"));
            } else {
                log(format!("{app}: still not taken up; restarting wadm"));
                restart_wadm(settings, processes).await?;
            }
            wadm.deploy_manifest(app, Some(&version))
                .await
                .map_err(|e| anyhow!("wadm refused to deploy {app}: {e}"))?;
            remedies += 1;
        }
        tokio::select! {
            _ = status.next() => {}
            _ = tick.tick() => {}
            _ = &mut give_up => {
                let why = wadm.get_manifest_status(app).await.map(|s| format!("{:?}: {}", s.info.status_type, s.info.message));
                bail!(
                    "{app} {version} not deployed within {:?} ({})",
                    deploy_limit(settings),
                    why.unwrap_or_else(|e| e.to_string())
                );
            }
        }
    }
}

/// Stops wadm and starts it again, ready when it answers its API.
async fn restart_wadm(settings: &Settings, processes: &super::process::Processes) -> anyhow::Result<()> {
    processes.stop("wadm", super::GRACE).await?;
    let mut guard = super::process::StartGuard::new(processes);
    let wadm = super::hosts::start_wadm(settings, &mut guard)?;
    super::hosts::wadm_ready(settings, processes, Some(wadm.pid)).await?;
    guard.keep();
    Ok(())
}

/// How long wadm may leave a deploy request without any sign of taking it up.
const UNHEARD: Duration = Duration::from_secs(30);

/// Whether wadm still reports `app` undeployed (it has not begun to deploy it).
async fn undeployed(wadm: &wadm_client::Client, app: &str) -> bool {
    wadm.get_manifest_status(app).await.is_ok_and(|s| s.info.status_type == StatusType::Undeployed)
}

/// Whether wadm reports `app` deployed, at `version`.
async fn deployed(wadm: &wadm_client::Client, app: &str, version: &str) -> anyhow::Result<bool> {
    let status = wadm.get_manifest_status(app).await.map_err(|e| anyhow!("wadm status of {app}: {e}"))?;
    if status.info.status_type != StatusType::Deployed {
        return Ok(false);
    }
    let versions = wadm.list_versions(app).await.map_err(|e| anyhow!("wadm versions of {app}: {e}"))?;
    Ok(versions.iter().any(|v| v.version == version && v.deployed))
}

/// Undeploys the application and waits until its components and providers are gone.
pub async fn undeploy(settings: &Settings, processes: &super::Processes) -> anyhow::Result<()> {
    let client = super::nats::connect(settings).await?;
    let wadm = wadm_client::Client::from_nats_client(&settings.lattice, None, client.clone());
    let app = &settings.app;
    if let Err(e) = wadm.undeploy_manifest(app).await {
        std::fs::write(settings.log("undeploy"), format!("{e}\n"))?;
    }
    // Hosts answer the inventory query within milliseconds: a short collection window.
    let ctl = wasmcloud_control_interface::ClientBuilder::new(client)
        .lattice(&settings.lattice)
        .auction_timeout(Duration::from_millis(300))
        .build();
    // Any lattice event (a component scaled, a provider stopped) is the cue to look again.
    let mut events = ctl.nats_client().subscribe(format!("wasmbus.evt.{}.>", settings.lattice)).await?;
    let give_up = tokio::time::sleep(deploy_limit(settings));
    tokio::pin!(give_up);
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    // Every host of ours must answer: one too slow for the query window would look empty.
    let hosts = processes.named("host-").iter().filter(|h| processes.running(h).is_some()).count();
    let started = tokio::time::Instant::now();
    loop {
        let left = leftovers(&ctl, hosts).await?;
        if left.is_empty() {
            log(format!("{app} undeployed"));
            return Ok(());
        }
        // A wadm started again moments ago may still be starting what the application had
        // (reconciling the deployment it stored) when the undeploy arrives, and then leaves those
        // running (seen in `make bench`, switching back from the native baseline): stop them on
        // their hosts directly.
        if started.elapsed() > UNDEPLOY_GRACE {
            for l in &left {
                stop_leftover(&ctl, l).await;
            }
        }
        tokio::select! {
            _ = events.next() => {}
            _ = tick.tick() => {}
            _ = &mut give_up => {
                let left: Vec<String> = left.iter().map(Leftover::to_string).collect();
                bail!("{app} still has {left:?} running after {:?}", deploy_limit(settings))
            }
        }
    }
}

/// How long wadm has to remove the application before [`undeploy`] stops what is left itself.
const UNDEPLOY_GRACE: Duration = Duration::from_secs(10);

/// A component or provider of the application still on a host.
enum Leftover {
    Component {
        host: String,
        id: String,
        image: String,
    },
    Provider {
        host: String,
        id: String,
    },
    /// Fewer hosts answered than run: one too slow for the query window would look empty.
    Unanswered {
        answered: usize,
        hosts: usize,
    },
}

impl std::fmt::Display for Leftover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Leftover::Component { id, .. } | Leftover::Provider { id, .. } => f.write_str(id),
            Leftover::Unanswered { answered, hosts } => write!(f, "{answered} of {hosts} hosts answered"),
        }
    }
}

/// The application's components and providers still on some host.
async fn leftovers(ctl: &wasmcloud_control_interface::Client, hosts: usize) -> anyhow::Result<Vec<Leftover>> {
    let answered = ctl.get_hosts().await.map_err(|e| anyhow!("hosts: {e}"))?;
    if answered.len() < hosts {
        return Ok(vec![Leftover::Unanswered { answered: answered.len(), hosts }]);
    }
    let mut left = Vec::new();
    for host in answered {
        let Some(host) = host.into_data() else { continue };
        let inventory = ctl.get_host_inventory(host.id()).await.map_err(|e| anyhow!("inventory: {e}"))?;
        let Some(inventory) = inventory.into_data() else { continue };
        let ours = |id: &str| id.starts_with("cits-");
        left.extend(inventory.components().iter().filter(|c| ours(c.id())).map(|c| Leftover::Component {
            host: host.id().to_string(),
            id: c.id().to_string(),
            image: c.image_ref().to_string(),
        }));
        left.extend(
            inventory
                .providers()
                .iter()
                .filter(|p| ours(p.id()))
                .map(|p| Leftover::Provider { host: host.id().to_string(), id: p.id().to_string() }),
        );
    }
    Ok(left)
}

/// Asks the leftover's host to stop it (a failed request is retried with the next look).
async fn stop_leftover(ctl: &wasmcloud_control_interface::Client, leftover: &Leftover) {
    let outcome = match leftover {
        Leftover::Component { host, id, image } => {
            ctl.scale_component(host, image, id, 0, None, Vec::new(), false).await.map(|_| ())
        }
        Leftover::Provider { host, id } => ctl.stop_provider(host, id).await.map(|_| ()),
        Leftover::Unanswered { .. } => return,
    };
    if let Err(e) = outcome {
        log(format!("stopping {leftover}: {e}"));
    }
}

/// Sends probe CPMs until one comes out of the DENM sender. The first may meet providers still
/// catching up on links (cits-provider applies a link the host announced before the provider
/// listened within seconds), so it is tried six times, five seconds each; nothing is restarted.
pub async fn probe(settings: &Settings) -> anyhow::Result<()> {
    let client = super::nats::connect(settings).await?;
    for attempt in 1..=6 {
        match cits_client::demo::probe(&client, Duration::from_secs(5)).await {
            Ok(()) => return Ok(()),
            Err(e) => log(format!("pipeline not flowing yet (attempt {attempt}): {e:#}")),
        }
    }
    bail!("the pipeline is not flowing after 30 s; see {}/host-*.log", settings.logs().display())
}

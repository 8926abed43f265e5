//! `cits import`: a trajectory dataset's road users (drone recordings: INTERACTION, levelX,
//! SinD) filmed by an intersection's RSU as the simulator films simulated traffic — the same
//! cameras, noise, dropouts, tracker ids and latency ([`crate::sim::film_recorded`]) — and
//! scored by the same truth (PET of every vehicle–VRU pair, [`crate::sim::truth`]).
//!
//! One reader per format ([`interaction`], [`levelx`], [`sind`]) turns its files into
//! [`Track`]s (dataset id and class, samples in lat/lon with true east/north velocities); here
//! classes become the simulator's kinds and the tracks its recorded road users. Units and frames
//! per format: docs/warnings/real.md.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};
use cits::proto::LaneGraph;
use cits::shared::geo::Wgs84;

use crate::sim::{self, Conditions, Kind, RecordedSample, RecordedUser, Simulation, Truth, TruthSource};

mod csv;
pub mod interaction;
pub mod levelx;
pub mod projection;
pub mod sind;
#[cfg(test)]
mod tests;

use csv::Table;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Interaction,
    Levelx,
    Sind,
}

impl Format {
    pub const ALL: [Format; 3] = [Format::Interaction, Format::Levelx, Format::Sind];

    pub fn name(self) -> &'static str {
        match self {
            Format::Interaction => "interaction",
            Format::Levelx => "levelx",
            Format::Sind => "sind",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<Format> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .with_context(|| format!("unknown format `{s}` (one of interaction, levelx, sind)"))
    }
}

/// One road user as a dataset has it.
#[derive(Debug, Clone, PartialEq)]
pub struct Track {
    /// The file it came from and its id there.
    pub file: String,
    pub id: String,
    /// The dataset's class name.
    pub class: String,
    /// Samples in time order (ms of the dataset's clock).
    pub samples: Vec<RecordedSample>,
}

/// What a reader found.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    pub format: Format,
    pub files: Vec<PathBuf>,
    pub tracks: Vec<Track>,
}

/// Reads a dataset: `path` is its folder (with `recording_id` where it holds several) or one of
/// its track files.
pub fn read(format: Format, path: &Path, recording_id: Option<u32>) -> anyhow::Result<Dataset> {
    match format {
        Format::Interaction => interaction::read(path, recording_id),
        Format::Levelx => levelx::read(path, recording_id),
        Format::Sind => sind::read(path),
    }
}

/// A track's samples from a table's rows: rows grouped by track id in order of first
/// appearance, time strictly increasing within each track.
pub(crate) struct Columns {
    pub id: usize,
    pub time: usize,
}

pub(crate) fn group_tracks(
    table: &Table,
    columns: Columns,
    mut row: impl FnMut(usize) -> anyhow::Result<(String, RecordedSample)>,
) -> anyhow::Result<Vec<Track>> {
    let mut order: Vec<String> = Vec::new();
    let mut by_id: BTreeMap<String, Track> = BTreeMap::new();
    for r in 0..table.len() {
        let id = table.text(r, columns.id).to_string();
        if id.is_empty() {
            return Err(table.error(r, columns.id, "empty track id"));
        }
        let (class, sample) = row(r)?;
        let track = by_id.entry(id.clone()).or_insert_with(|| {
            order.push(id.clone());
            Track { file: table.name(), id: id.clone(), class: class.clone(), samples: Vec::new() }
        });
        if track.class != class {
            return Err(table.error(r, columns.id, &format!("track {id} was `{}` before, now `{class}`", track.class)));
        }
        if let Some(last) = track.samples.last() {
            if sample.t_ms <= last.t_ms {
                return Err(table.error(
                    r,
                    columns.time,
                    &format!("time goes backwards in track {id}: {} ms after {} ms", sample.t_ms, last.t_ms),
                ));
            }
        }
        track.samples.push(sample);
    }
    // Invariant: every id in `order` was inserted into `by_id` above.
    Ok(order.into_iter().filter_map(|id| by_id.remove(&id)).collect())
}

/// How a class the dataset does not separate is split: INTERACTION's `pedestrian/bicycle` is a
/// bicycle when its 85th-percentile speed reaches this (9 km/h: a brisk walk is 2 m/s, a
/// cyclist rides 4–6).
pub const CYCLIST_P85_SPEED_MPS: f64 = 2.5;

/// The kind a track becomes, and the rule that decided it where the class does not say.
fn kind_of(track: &Track) -> Option<(Kind, Option<String>)> {
    let class = track.class.to_ascii_lowercase();
    let kind = match class.as_str() {
        "car" | "truck" | "bus" | "truck_bus" | "van" | "trailer" | "motorcycle" | "motorbike" => Kind::Car,
        "bicycle" | "cyclist" | "bike" | "tricycle" => Kind::Bicycle,
        "pedestrian" | "person" => Kind::Pedestrian,
        "pedestrian/bicycle" => {
            let p85 = speed_percentile(&track.samples, 0.85);
            let (kind, cmp) =
                if p85 >= CYCLIST_P85_SPEED_MPS { (Kind::Bicycle, "≥") } else { (Kind::Pedestrian, "<") };
            let rule = format!(
                "pedestrian/bicycle → {}: 85th-percentile speed {p85:.2} m/s {cmp} {CYCLIST_P85_SPEED_MPS} m/s",
                kind.name()
            );
            return Some((kind, Some(rule)));
        }
        _ => return None,
    };
    Some((kind, None))
}

fn speed_percentile(samples: &[RecordedSample], q: f64) -> f64 {
    let mut v: Vec<f64> = samples.iter().map(|s| s.velocity.0.hypot(s.velocity.1)).collect();
    v.sort_by(f64::total_cmp);
    let i = ((v.len() as f64 - 1.0) * q).round() as usize;
    v.get(i).copied().unwrap_or(0.0)
}

/// The recorded road users of a dataset (time 0 at its first sample), their classes, the rules
/// applied, and the dataset clock's start (ms).
pub struct Classified {
    pub users: Vec<RecordedUser>,
    pub classes: BTreeMap<String, BTreeMap<String, usize>>,
    pub rules: Vec<String>,
    pub start_ms: i64,
    pub end_ms: i64,
}

pub fn classify(dataset: &Dataset) -> anyhow::Result<Classified> {
    let start_ms = dataset.tracks.iter().filter_map(|t| t.samples.first()).map(|s| s.t_ms).min();
    let end_ms = dataset.tracks.iter().filter_map(|t| t.samples.last()).map(|s| s.t_ms).max();
    let (Some(start_ms), Some(end_ms)) = (start_ms, end_ms) else {
        bail!(
            "no road users in {}",
            dataset.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ")
        )
    };
    let mut classes: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let mut rules = Vec::new();
    let mut users = Vec::new();
    for t in &dataset.tracks {
        let Some((kind, rule)) = kind_of(t) else {
            bail!("{}: track {}: class `{}` is none this importer knows (docs/warnings/real.md)", t.file, t.id, t.class)
        };
        *classes.entry(t.class.clone()).or_default().entry(kind.name().to_string()).or_default() += 1;
        let mut description = format!("{} {} ({})", kind.name(), t.id, t.class);
        if let Some(rule) = rule {
            description = format!("{} {} ({})", kind.name(), t.id, rule);
            rules.push(format!("track {}: {rule}", t.id));
        }
        let samples = t.samples.iter().map(|s| RecordedSample { t_ms: s.t_ms - start_ms, ..*s }).collect();
        users.push(RecordedUser { kind, description, samples });
    }
    Ok(Classified { users, classes, rules, start_ms, end_ms })
}

/// A dataset filmed: the simulation (records, road users, tracker ids) and its truth.
pub struct Imported {
    pub sim: Simulation,
    pub truth: Truth,
    pub classified: Classified,
}

/// Reads a dataset and films it with the RSU of `graph`'s junction under `conditions`
/// (`seed` drives the cameras' noise, dropouts and latency).
pub fn import(
    graph: &LaneGraph,
    format: Format,
    path: &Path,
    recording_id: Option<u32>,
    seed: u64,
    conditions: Conditions,
) -> anyhow::Result<Imported> {
    if conditions.cam_share > 0.0 || conditions.vam_share > 0.0 {
        bail!("the CAM and VAM conditions need the simulator's routes (turn signals); recorded traffic takes nominal, noise-x2, dropouts-10, latency-300ms or one-camera");
    }
    let dataset = read(format, path, recording_id)?;
    let classified = classify(&dataset)?;
    let duration_s = u32::try_from(((classified.end_ms - classified.start_ms) as f64 / 1e3).ceil() as i64)
        .context("recording too long")?
        .max(1);
    let params = sim::Params { seed, duration_s, scenarios: sim::Scenarios::Classic, density: 0.0, conditions };
    let sim = sim::film_recorded(graph, &classified.users, &params)?;
    let mut truth = sim::truth(&sim);
    let tracked: std::collections::BTreeSet<u32> = truth.tracks.iter().map(|t| t.2).collect();
    let (seen, unseen) = truth.encounters.drain(..).partition(|e| e.users.iter().all(|u| tracked.contains(u)));
    truth.encounters = seen;
    truth.source = Some(TruthSource {
        format: format.name().to_string(),
        files: dataset.files.iter().map(|f| f.display().to_string()).collect(),
        classes: classified.classes.clone(),
        class_rules: classified.rules.clone(),
        dataset_start_s: classified.start_ms as f64 / 1e3,
        unseen_encounters: unseen,
    });
    Ok(Imported { sim, truth, classified })
}

/// Counts of an import: road users by kind, filmed or not, encounters and conflicts seen or not.
pub fn report(imported: &Imported) -> String {
    use crate::evaluate::CONFLICT_PET_S;
    let truth = &imported.truth;
    let tracked: std::collections::BTreeSet<u32> = truth.tracks.iter().map(|t| t.2).collect();
    let mut out = String::new();
    let kinds: Vec<String> = Kind::ALL
        .iter()
        .map(|k| {
            let all = truth.road_users.iter().filter(|u| u.kind == *k).count();
            let seen = truth.road_users.iter().filter(|u| u.kind == *k && tracked.contains(&u.id)).count();
            format!("{} {all} ({seen} filmed)", k.name())
        })
        .collect();
    out.push_str(&format!("road users: {}\n", kinds.join(", ")));
    if let Some(source) = &truth.source {
        for (class, kinds) in &source.classes {
            let k: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
            out.push_str(&format!("class {class}: {}\n", k.join(", ")));
        }
        if !source.class_rules.is_empty() {
            out.push_str(&format!(
                "classes split by speed (pedestrian/bicycle → bicycle when the 85th-percentile speed ≥ {CYCLIST_P85_SPEED_MPS} m/s):\n"
            ));
            for rule in &source.class_rules {
                out.push_str(&format!("  {rule}\n"));
            }
        }
        let conflicts = |es: &[sim::TruthEncounter]| es.iter().filter(|e| e.pet_s < CONFLICT_PET_S).count();
        out.push_str(&format!(
            "vehicle–VRU pairs within reach: {} seen by the cameras ({} conflicts, PET < {CONFLICT_PET_S} s); {} never both seen ({} conflicts), not scored\n",
            truth.encounters.len(),
            conflicts(&truth.encounters),
            source.unseen_encounters.len(),
            conflicts(&source.unseen_encounters),
        ));
    }
    // The simulator's summary less its planted conflicts (recorded traffic has none).
    for line in imported.sim.summary.to_string().lines().filter(|l| !l.starts_with("planted conflicts")) {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Writes PREFIX.rec.b64 and PREFIX.truth.json.
pub fn write(imported: &Imported, prefix: &Path) -> anyhow::Result<(PathBuf, PathBuf)> {
    let with = |ext: &str| {
        let mut name = prefix.as_os_str().to_owned();
        name.push(ext);
        PathBuf::from(name)
    };
    let (rec, truth) = (with(".rec.b64"), with(".truth.json"));
    if let Some(dir) = rec.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let file = std::fs::File::create(&rec).with_context(|| format!("cannot write {}", rec.display()))?;
    cits_client::recording::write(std::io::BufWriter::new(file), &imported.sim.records)?;
    let text = serde_json::to_string(&imported.truth).context("the truth serialises")?;
    std::fs::write(&truth, format!("{text}\n")).with_context(|| format!("cannot write {}", truth.display()))?;
    Ok((rec, truth))
}

/// A sample from a local grid position and grid velocity.
pub(crate) fn sample_on(grid: projection::LocalGrid, t_ms: i64, x: f64, y: f64, v: (f64, f64)) -> RecordedSample {
    let at: Wgs84 = grid.to_wgs84(x, y);
    RecordedSample { t_ms, at, velocity: grid.utm.true_velocity(at, v) }
}

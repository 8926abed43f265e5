//! levelX (inD, rounD, uniD, exiD; `data/NN_*.csv` per recording `NN`):
//! - `NN_recordingMeta.csv`, one row: `frameRate` (Hz), `latLocation`, `lonLocation` (degrees:
//!   where, and so the UTM zone), `xUtmOrigin`, `yUtmOrigin` (m);
//! - `NN_tracksMeta.csv`, one row per track: `trackId`, `class` (`car`, `truck_bus`, `van`,
//!   `trailer`, `motorcycle`, `bicycle`, `pedestrian`);
//! - `NN_tracks.csv`, one row per track and frame: `trackId`, `frame`, `xCenter`, `yCenter` (m,
//!   the UTM grid less the origin), `xVelocity`, `yVelocity` (m/s on the same grid).
//!
//! Time is `frame / frameRate`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};
use cits::shared::geo::Wgs84;

use super::csv::Table;
use super::projection::{LocalGrid, Utm};
use super::{group_tracks, sample_on, Columns, Dataset, Format};

/// The recording's prefix `NN_` and folder: from the folder and `recording_id`, or the folder's
/// only recording, or one of its files.
fn recording(path: &Path, recording_id: Option<u32>) -> anyhow::Result<(PathBuf, String)> {
    if !path.is_dir() {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let Some((nn, _)) = name.split_once('_') else {
            bail!("{}: a levelX file is named NN_tracks.csv, NN_tracksMeta.csv or NN_recordingMeta.csv", path.display())
        };
        return Ok((path.parent().unwrap_or(Path::new(".")).to_path_buf(), format!("{nn}_")));
    }
    if let Some(n) = recording_id {
        return Ok((path.to_path_buf(), format!("{n:02}_")));
    }
    let entries = std::fs::read_dir(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut found: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix("_tracks.csv").map(|nn| format!("{nn}_")))
        .collect();
    found.sort();
    match &found[..] {
        [one] => Ok((path.to_path_buf(), one.clone())),
        [] => bail!("{}: no NN_tracks.csv", path.display()),
        _ => bail!("{}: several recordings ({}): choose one with --recording-id", path.display(), found.join(", ")),
    }
}

pub fn read(path: &Path, recording_id: Option<u32>) -> anyhow::Result<Dataset> {
    let (dir, prefix) = recording(path, recording_id)?;
    let [tracks_file, meta_file, recording_file] =
        ["tracks", "tracksMeta", "recordingMeta"].map(|n| dir.join(format!("{prefix}{n}.csv")));
    for f in [&tracks_file, &meta_file, &recording_file] {
        if !f.is_file() {
            bail!("{}: no such file", f.display());
        }
    }

    let rec = Table::read(&recording_file)?;
    if rec.len() != 1 {
        bail!("{}: {} rows, a recording's meta has one", rec.name(), rec.len());
    }
    let [rate, lat, lon, x0, y0] =
        ["frameRate", "latLocation", "lonLocation", "xUtmOrigin", "yUtmOrigin"].map(|c| rec.column(c));
    let (rate, lat, lon, x0, y0) = (rate?, lat?, lon?, x0?, y0?);
    let frame_rate = rec.number(0, rate)?;
    if frame_rate <= 0.0 {
        return Err(rec.error(0, rate, "not a positive rate"));
    }
    let utm = Utm::of(Wgs84 { lat: rec.number(0, lat)?, lon: rec.number(0, lon)? });
    let grid = LocalGrid { utm, origin: (rec.number(0, x0)?, rec.number(0, y0)?) };

    let meta = Table::read(&meta_file)?;
    let (meta_id, meta_class) = (meta.column("trackId")?, meta.column("class")?);
    let mut class_of: BTreeMap<String, String> = BTreeMap::new();
    for r in 0..meta.len() {
        let id = meta.text(r, meta_id).to_string();
        if class_of.insert(id.clone(), meta.text(r, meta_class).to_string()).is_some() {
            return Err(meta.error(r, meta_id, &format!("track {id} listed twice")));
        }
    }

    let table = Table::read(&tracks_file)?;
    let [id, frame, x, y, vx, vy] =
        ["trackId", "frame", "xCenter", "yCenter", "xVelocity", "yVelocity"].map(|c| table.column(c));
    let (id, frame, x, y, vx, vy) = (id?, frame?, x?, y?, vx?, vy?);
    let tracks = group_tracks(&table, Columns { id, time: frame }, |r| {
        let f = table.number(r, frame)?;
        if f.fract() != 0.0 || f < 0.0 {
            return Err(table.error(r, frame, "not a frame number"));
        }
        let track = table.text(r, id);
        let class = class_of
            .get(track)
            .ok_or_else(|| table.error(r, id, &format!("track {track} is not in {}", meta.name())))?;
        let t_ms = (f / frame_rate * 1e3).round() as i64;
        let (px, py, v) = (table.number(r, x)?, table.number(r, y)?, (table.number(r, vx)?, table.number(r, vy)?));
        Ok((class.clone(), sample_on(grid, t_ms, px, py, v)))
    })?;
    Ok(Dataset { format: Format::Levelx, files: vec![recording_file, meta_file, tracks_file], tracks })
}

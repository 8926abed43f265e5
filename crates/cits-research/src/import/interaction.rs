//! INTERACTION (`recorded_trackfiles/<location>/vehicle_tracks_NNN.csv` and
//! `pedestrian_tracks_NNN.csv`): one row per road user and frame (10 Hz); `track_id`,
//! `timestamp_ms` (ms), `agent_type` (`car`, `truck`, …; `pedestrian/bicycle` in the pedestrian
//! file), `x`, `y` (m) and `vx`, `vy` (m/s) on the UTM grid less the grid position of lat/lon
//! 0,0 — the frame the dataset's `.osm` maps (lat/lon near 0,0) give with the Lanelet2
//! `UtmProjector` at origin 0,0, as its own tools load them.

use std::path::{Path, PathBuf};

use anyhow::bail;
use cits::shared::geo::Wgs84;

use super::csv::Table;
use super::projection::LocalGrid;
use super::{group_tracks, sample_on, Columns, Dataset, Format, Track};

/// The two files of recording `NNN`: from the folder and `recording_id` (default 0), or from
/// either file.
fn files(path: &Path, recording_id: Option<u32>) -> anyhow::Result<(PathBuf, PathBuf)> {
    if path.is_dir() {
        let n = recording_id.unwrap_or(0);
        return Ok((
            path.join(format!("vehicle_tracks_{n:03}.csv")),
            path.join(format!("pedestrian_tracks_{n:03}.csv")),
        ));
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let dir = path.parent().unwrap_or(Path::new("."));
    if let Some(n) = name.strip_prefix("vehicle_tracks_") {
        Ok((path.to_path_buf(), dir.join(format!("pedestrian_tracks_{n}"))))
    } else if let Some(n) = name.strip_prefix("pedestrian_tracks_") {
        Ok((dir.join(format!("vehicle_tracks_{n}")), path.to_path_buf()))
    } else {
        bail!(
            "{}: an INTERACTION track file is named vehicle_tracks_NNN.csv or pedestrian_tracks_NNN.csv",
            path.display()
        )
    }
}

/// The grid the dataset's positions are on.
pub fn grid() -> LocalGrid {
    LocalGrid::projector(Wgs84 { lat: 0.0, lon: 0.0 })
}

fn tracks(path: &Path, prefix: &str) -> anyhow::Result<Vec<Track>> {
    let table = Table::read(path)?;
    let [id, time, class, x, y, vx, vy] =
        ["track_id", "timestamp_ms", "agent_type", "x", "y", "vx", "vy"].map(|c| table.column(c));
    let (id, time, class, x, y, vx, vy) = (id?, time?, class?, x?, y?, vx?, vy?);
    let grid = grid();
    let mut out = group_tracks(&table, Columns { id, time }, |r| {
        let t = table.number(r, time)?;
        if t.fract() != 0.0 {
            return Err(table.error(r, time, "not whole milliseconds"));
        }
        let (px, py, v) = (table.number(r, x)?, table.number(r, y)?, (table.number(r, vx)?, table.number(r, vy)?));
        Ok((table.text(r, class).to_string(), sample_on(grid, t as i64, px, py, v)))
    })?;
    for t in &mut out {
        t.id = format!("{prefix}{}", t.id);
    }
    Ok(out)
}

pub fn read(path: &Path, recording_id: Option<u32>) -> anyhow::Result<Dataset> {
    let (vehicles, pedestrians) = files(path, recording_id)?;
    if !vehicles.is_file() {
        bail!("{}: no such file (INTERACTION: --tracks DIR --recording-id N, or a track file)", vehicles.display());
    }
    let mut all = tracks(&vehicles, "v")?;
    let mut files = vec![vehicles];
    // Not every INTERACTION recording has pedestrians: without the file there are none.
    if pedestrians.is_file() {
        all.extend(tracks(&pedestrians, "")?);
        files.push(pedestrians);
    }
    Ok(Dataset { format: Format::Interaction, files, tracks: all })
}

//! SinD (one folder per recording): `Veh_smoothed_tracks.csv` and `Ped_smoothed_tracks.csv`,
//! one row per road user and frame; `track_id` (pedestrians `P…`), `timestamp_ms` (ms),
//! `agent_type` (`car`, `truck`, `bus`, `motorcycle`, `tricycle`, `bicycle`, `pedestrian`),
//! `x`, `y` (m) and `vx`, `vy` (m/s) in the frame of the dataset's Lanelet2 maps
//! (data/map/public/sind-*.osm, lat/lon near 0,0): the UTM grid less the grid position of
//! lat/lon 0,0, as INTERACTION's.

use std::path::Path;

use anyhow::bail;

use super::csv::Table;
use super::{group_tracks, interaction, sample_on, Columns, Dataset, Format, Track};

fn tracks(path: &Path) -> anyhow::Result<Vec<Track>> {
    let table = Table::read(path)?;
    let [id, time, class, x, y, vx, vy] =
        ["track_id", "timestamp_ms", "agent_type", "x", "y", "vx", "vy"].map(|c| table.column(c));
    let (id, time, class, x, y, vx, vy) = (id?, time?, class?, x?, y?, vx?, vy?);
    let grid = interaction::grid();
    group_tracks(&table, Columns { id, time }, |r| {
        let t = table.number(r, time)?.round() as i64;
        let (px, py, v) = (table.number(r, x)?, table.number(r, y)?, (table.number(r, vx)?, table.number(r, vy)?));
        Ok((table.text(r, class).to_string(), sample_on(grid, t, px, py, v)))
    })
}

/// `path`: the recording's folder, or one of its two files.
pub fn read(path: &Path) -> anyhow::Result<Dataset> {
    let dir = if path.is_dir() { path } else { path.parent().unwrap_or(Path::new(".")) };
    let files = [dir.join("Veh_smoothed_tracks.csv"), dir.join("Ped_smoothed_tracks.csv")];
    let mut all = Vec::new();
    for f in &files {
        if !f.is_file() {
            bail!("{}: no such file (SinD: --tracks <recording folder>)", f.display());
        }
        all.extend(tracks(f)?);
    }
    Ok(Dataset { format: Format::Sind, files: files.to_vec(), tracks: all })
}

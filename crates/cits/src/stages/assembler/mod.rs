//! Assembler stage: [`LocationsFrame`] → [`TrajectoryFrame`], one trajectory per object of the
//! frame with all its points so far, time-sorted.
//!
//! State is per object (key = station/sensor/object id, value = the binary protobuf trajectory):
//! the actor reads all keys of a frame in one `get-many` and writes them back in one `set-many`;
//! this module is the pure merge in between. Windows run on measurement time, so a replay at any
//! speed gives the same trajectories.

use prost::Message as _;

use crate::config::{Key, Kind};
use crate::message::{decode_state_or_empty, StageError};
use crate::proto::{
    AwarenessRoster, CamLinks, LocationsContainer, LocationsFrame, Trajectory, TrajectoryFrame, TrajectoryPoint,
};
use crate::stages::assembler::association::{is_linked, link, links_key, roster_key, update_roster};
use crate::stages::collector::SELF_REPORTED;

pub mod association;
mod handler;
mod limits;

pub(crate) use handler::trajectory_keys;
pub use handler::Assembler;

pub const STAGE: &str = "assembler";

#[derive(Debug, Clone, PartialEq)]
pub struct AssemblerConfig {
    /// A trajectory closes after this long without a point; a later point with the same (reused)
    /// object id starts a new generation.
    pub window_us: u64,
    /// Points older than this before the newest are trimmed: prediction looks back
    /// [`crate::stages::predictor::HISTORY_US`] only, and every stage after this one handles every point
    /// sent, each frame. At least that history (refused below it).
    pub keep_us: u64,
    /// Hard cap on points per trajectory.
    pub max_points: usize,
    /// A new point farther from the newest one than this speed (plus measurement noise) allows
    /// is another road user under a reused id: it starts a new generation.
    pub max_speed_mps: f64,
}

/// Points kept by default: the predictor's history, 4 s (`cits evaluate --seeds 1-10 --set
/// keep_ms=…`: 5 s and 10 s warn exactly as 4 s does).
pub const DEFAULT_KEEP_US: u64 = crate::stages::predictor::HISTORY_US;

/// Position noise two measurements of one road user may differ by on top of its movement (m).
const JUMP_TOLERANCE_M: f64 = 3.0;

/// The assembler's keys ([`AssemblerConfig::from_config`]).
pub const KEYS: &[Key] = &[
    Key { name: "window_ms", kind: Kind::Millis, default: "5000", doc: "a trajectory closes after this long without a point (a reused object id then starts a new one)" },
    Key { name: "keep_ms", kind: Kind::Millis, default: "4000", doc: "points older than this before the newest are trimmed: the predictor's history, the least allowed" },
    Key { name: "max_points", kind: Kind::Count, default: "100", doc: "hard cap on points per trajectory" },
    Key { name: "max_speed_mps", kind: Kind::Positive, default: "20", doc: "a new point farther from the newest than this speed (plus 3 m of noise) allows is another road user under a reused id" },
];

impl Default for AssemblerConfig {
    fn default() -> Self {
        Self { window_us: 5_000_000, keep_us: DEFAULT_KEEP_US, max_points: 100, max_speed_mps: 20.0 }
    }
}

impl AssemblerConfig {
    /// Reads `window_ms`, `keep_ms`, `max_points` from the stage's config; others keep defaults.
    pub fn from_config<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, StageError> {
        let mut cfg = Self::default();
        for e in crate::config::entries(STAGE, entries) {
            match e.key {
                "window_ms" => cfg.window_us = e.millis_as_us()?,
                "keep_ms" => cfg.keep_us = e.millis_as_us()?,
                "max_points" => cfg.max_points = e.positive_u64()? as usize,
                "max_speed_mps" => cfg.max_speed_mps = e.positive_f64()?,
                _ => {}
            }
        }
        if cfg.keep_us < crate::stages::predictor::HISTORY_US {
            return Err(StageError::new(format!(
                "assembler config: keep_ms must be at least {} (the history the predictor looks back on), got {}",
                crate::stages::predictor::HISTORY_US / 1000,
                cfg.keep_us / 1000
            )));
        }
        Ok(cfg)
    }
}

/// State key of one tracked object.
pub fn state_key(station_id: u32, sensor_id: u32, object_id: u32) -> String {
    format!("{station_id}/{sensor_id}/{object_id}")
}

/// The state key of a located object as seen by `rsu`: the RSU first, so one RSU's state never
/// meets another's (station ids are the RSU's own claim) and can be listed or dropped per RSU.
pub fn key_of(rsu: &str, l: &LocationsContainer) -> String {
    format!("{rsu}/{}", state_key(l.station_id, l.sensor_id, l.object_id))
}

/// A state value to write back: (key, binary protobuf trajectory).
pub type StateWrite = (String, Vec<u8>);

/// The state a frame needs, in [`assemble_frame`]'s order: each located object's trajectory,
/// then the RSU's CAM roster and links ([`crate::stages::assembler::association`]).
pub fn state_keys(frame: &LocationsFrame) -> Vec<String> {
    let objects = frame.locations.iter().map(|l| key_of(&frame.rsu_id, l));
    objects.chain([roster_key(&frame.rsu_id), links_key(&frame.rsu_id)]).collect()
}

/// The assembler's step for one frame: `stored[i]` is the value under [`state_keys`]`[i]`.
/// A CAM's frame updates the roster and gives its station's trajectory unless the station is
/// linked to a sensor track; a sensor frame links the roster's stations to its objects, whose
/// trajectories then carry the CAM's intent cue. Returns the values to write back and the output.
pub fn assemble_frame(
    mut frame: LocationsFrame,
    keys: &[String],
    mut stored: Vec<Option<Vec<u8>>>,
    cfg: &AssemblerConfig,
) -> Result<(Vec<StateWrite>, TrajectoryFrame), StageError> {
    let objects = frame.locations.len();
    if keys.len() != objects + 2 || stored.len() != keys.len() {
        return Err(StageError::new("assembler: keys and stored values do not match the frame"));
    }
    let mut links: CamLinks = decode_state_or_empty(stored[objects + 1].as_deref());
    let mut roster: AwarenessRoster = decode_state_or_empty(stored[objects].as_deref());
    stored.truncate(objects);
    let keys = &keys[..objects];
    // Each of the two is written by one kind of frame only (see crate::stages::assembler::association).
    let mut own = Vec::new();
    let self_reported = frame.locations.iter().any(|l| l.sensor_id == SELF_REPORTED);
    if self_reported {
        frame.locations.iter().for_each(|l| update_roster(&mut roster, l));
        own.push((roster_key(&frame.rsu_id), crate::shared::encode::encode(&roster)));
    } else if !roster.stations.is_empty() || !links.links.is_empty() {
        let (cues, changed) = link(&frame.locations, keys, &roster, &mut links);
        for (l, cue) in frame.locations.iter_mut().zip(cues) {
            l.cue = cue.or(l.cue);
        }
        if changed {
            own.push((links_key(&frame.rsu_id), crate::shared::encode::encode(&links)));
        }
    }
    let (mut writes, mut out) = assemble(&frame, keys, &stored, cfg)?;
    if self_reported {
        // The CAM of a vehicle the cameras track is that track's cue, not a second road user.
        out.trajectories.retain(|t| !is_linked(&links, t.station_id, frame.reference_time_us));
    }
    writes.extend(own);
    Ok((writes, out))
}

/// Merges `frame` into the stored trajectories. `stored[i]` is the value under `keys[i]` (None if
/// absent). Returns the values to write back (one per distinct key) and the output frame.
pub fn assemble(
    frame: &LocationsFrame,
    keys: &[String],
    stored: &[Option<Vec<u8>>],
    cfg: &AssemblerConfig,
) -> Result<(Vec<StateWrite>, TrajectoryFrame), StageError> {
    if keys.len() != frame.locations.len() || stored.len() != keys.len() {
        return Err(StageError::new("assembler: keys and stored values do not match the frame"));
    }
    // A frame may hold one object twice (two measurements): merge in order, last state wins.
    let mut updated: Vec<(String, Trajectory)> = Vec::new();
    for (i, location) in frame.locations.iter().enumerate() {
        let current = match updated.iter().position(|(k, _)| *k == keys[i]) {
            Some(pos) => Some(updated.swap_remove(pos).1),
            None => match &stored[i] {
                Some(bytes) => Some(Trajectory::decode(bytes.as_slice()).map_err(|e| {
                    StageError::new(format!("stored trajectory `{}` is not a protobuf Trajectory: {e}", keys[i]))
                })?),
                None => None,
            },
        };
        updated.push((keys[i].clone(), merge(current, location, cfg)));
    }
    let trajectories: Vec<Trajectory> = updated.iter().map(|(_, t)| t.clone()).collect();
    let writes = updated.into_iter().map(|(k, t)| (k, crate::shared::encode::encode(&t))).collect();
    Ok((
        writes,
        TrajectoryFrame {
            rsu_id: frame.rsu_id.clone(),
            reference_time_us: frame.reference_time_us,
            trajectories,
            frame_id: frame.frame_id.clone(),
            trace: frame.trace.clone(),
        },
    ))
}

fn point(l: &LocationsContainer) -> TrajectoryPoint {
    TrajectoryPoint {
        measured_at_us: l.measured_at_us,
        latitude: l.latitude,
        longitude: l.longitude,
        speed_mps: l.speed_mps,
        heading_deg: l.heading_deg,
    }
}

/// The generation of a track that starts with `l`: when its first point was measured (ms,
/// wrapping every 49 days). Not a count of the object id's earlier tracks: that depends on
/// whether the state of the previous one still exists (a lattice's Redis expires it after its
/// TTL, the in-process pipeline keeps it), and the same CPMs must name the same objects — the
/// collision detector and the DENM sender know an object by its generation (a lattice that
/// counted from 0 again after a pause found the warnings of an earlier track under that key
/// and sent one DENM more than the in-process pipeline).
fn generation_of(l: &LocationsContainer) -> u32 {
    (l.measured_at_us / 1000) as u32
}

/// Adds one location to its trajectory (or starts one).
pub fn merge(current: Option<Trajectory>, l: &LocationsContainer, cfg: &AssemblerConfig) -> Trajectory {
    let fresh = || Trajectory {
        station_id: l.station_id,
        object_id: l.object_id,
        generation: generation_of(l),
        classification: l.classification,
        points: vec![point(l)],
        sensor_id: l.sensor_id,
        cue: l.cue,
    };
    let Some(mut t) = current else { return fresh() };
    let newest = t.points.last().map_or(0, |p| p.measured_at_us);
    let oldest = t.points.first().map_or(0, |p| p.measured_at_us);
    // Window closed: more than `window` after the newest point (a reused id, or the object came
    // back). A point far *before* the trajectory is a straggler of an older track: start anew too.
    if l.measured_at_us > newest.saturating_add(cfg.window_us)
        || l.measured_at_us.saturating_add(cfg.window_us) < oldest
    {
        return fresh();
    }
    // A jump no road user can make since the newest point: the tracker reused the id already.
    if let Some(last) = t.points.last().filter(|p| l.measured_at_us > p.measured_at_us) {
        let dt_s = (l.measured_at_us - last.measured_at_us) as f64 / 1e6;
        let (dx, dy) = crate::shared::geo::wgs84_to_offset(
            crate::shared::geo::Wgs84 { lat: last.latitude, lon: last.longitude },
            crate::shared::geo::Wgs84 { lat: l.latitude, lon: l.longitude },
        );
        if crate::shared::geo::distance(dx, dy) > JUMP_TOLERANCE_M + cfg.max_speed_mps * dt_s {
            return fresh();
        }
    }
    // Late points are inserted in place; a repeated timestamp replaces the earlier measurement.
    match t.points.binary_search_by_key(&l.measured_at_us, |p| p.measured_at_us) {
        Ok(i) => t.points[i] = point(l),
        Err(i) => t.points.insert(i, point(l)),
    }
    t.classification = l.classification;
    // What the road user says of its intent (its own CAM, or the CAM linked to this track).
    if let Some(cue) = &l.cue {
        t.cue = Some(crate::stages::assembler::association::refreshed(t.cue.as_ref(), cue));
    }
    let newest = t.points.last().map_or(0, |p| p.measured_at_us);
    let cutoff = newest.saturating_sub(cfg.keep_us);
    let keep_from = t.points.partition_point(|p| p.measured_at_us < cutoff);
    let over = t.points.len().saturating_sub(cfg.max_points);
    t.points.drain(..keep_from.max(over));
    t
}

#[cfg(test)]
mod tests;

//! The ground-truth sidecar, a typed file: parameters, every road user with its trajectory at
//! 10 Hz, the tracker ids' lives, the planted conflicts, and the surrogate safety measures (PET,
//! minimum TTC) of every vehicle–VRU pair whose paths come within reach.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::safety::{encounter, sample, Motion};
use super::*;

pub const FORMAT: &str = "cits-sim-truth/2";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Truth {
    pub format: String,
    pub parameters: Parameters,
    pub summary: TruthSummary,
    pub road_users: Vec<TruthUser>,
    /// The conflicts planted on purpose.
    pub conflicts: Vec<TruthConflict>,
    /// Every vehicle–VRU pair whose paths come within reach, planted or not, by conflict time.
    pub encounters: Vec<TruthEncounter>,
    pub tracks_columns: [String; 5],
    /// (sensor id, tracker id, road user, first and last measurement, unix ms).
    pub tracks: Vec<(u8, u8, u32, i64, i64)>,
    /// Recorded traffic ([`crate::import`]): where the road users came from; absent for
    /// simulated traffic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<TruthSource>,
}

/// Where recorded road users came from, how their classes were read, and the encounters the
/// cameras could not have warned of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TruthSource {
    /// `interaction`, `levelx` or `sind`.
    pub format: String,
    pub files: Vec<String>,
    /// The dataset's classes, each with how many of its tracks became which kind.
    pub classes: BTreeMap<String, BTreeMap<String, usize>>,
    /// How classes the dataset does not separate were split, when it had any.
    pub class_rules: Vec<String>,
    /// Seconds of the dataset's clock at the recording's start.
    pub dataset_start_s: f64,
    /// Encounters (as in `encounters`) of pairs the cameras never tracked both of: no warning
    /// could be about them, so they are not scored.
    pub unseen_encounters: Vec<TruthEncounter>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parameters {
    pub seed: u64,
    pub duration_s: u32,
    pub scenarios: Scenarios,
    /// Background traffic relative to the default (1: ≈ 8 objects per CPM).
    pub density: f64,
    pub map: String,
    pub start_unix_ms: u64,
    pub station_id: u32,
    pub sensors: Vec<TruthSensor>,
    pub measurement_delta_ms: i16,
    pub noise: Noise,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TruthSensor {
    pub sensor_id: u8,
    pub lat: f64,
    pub lon: f64,
    pub x_axis_heading_deg: f64,
    pub range_m: f64,
    pub half_fov_deg: f64,
    pub period_ms: i64,
    pub phase_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Noise {
    pub position_sigma_m: f64,
    pub velocity_sigma_mps: f64,
    pub yaw_sigma_deg: f64,
    pub dropout_p: f64,
    pub occlusion_p: f64,
    pub message_loss_p: f64,
    pub late_p: f64,
    pub track_timeout_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TruthSummary {
    pub cpms: usize,
    pub objects_per_cpm_mean: f64,
    pub objects_per_cpm_max: usize,
    pub road_users: BTreeMap<String, usize>,
    pub conflicts: BTreeMap<String, usize>,
    pub id_reuses: BTreeMap<String, usize>,
    pub out_of_order_records: usize,
    pub lost_messages: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TruthUser {
    pub id: u32,
    pub kind: Kind,
    pub route: Vec<i64>,
    pub description: String,
    pub entry_unix_us: i64,
    pub exit_unix_us: i64,
    pub speed_kmh: Speeds,
    /// (unix ms, lat, lon) every 100 ms.
    pub trajectory: Vec<(i64, f64, f64)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Speeds {
    pub cruise: f64,
    pub turn: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserRef {
    pub id: u32,
    pub kind: Kind,
    pub route: Vec<i64>,
    pub description: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SensorIds {
    pub sensor_id: u8,
    pub ids: [Vec<u8>; 2],
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TruthConflict {
    pub kind: String,
    pub time_unix_us: i64,
    pub lat: f64,
    pub lon: f64,
    pub arrival_gap_s: f64,
    pub users: [UserRef; 2],
    pub tracker_ids: Vec<SensorIds>,
}

/// A vehicle–VRU pair's encounter per the true trajectories.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TruthEncounter {
    /// Road user ids, the vehicle first.
    pub users: [u32; 2],
    /// Post-encroachment time, s (0: both in the conflict area at once).
    pub pet_s: f64,
    /// Minimum time to collision at constant velocities, s; None when never on a collision course.
    pub min_ttc_s: Option<f64>,
    /// When the second road user enters the conflict area.
    pub time_unix_us: i64,
    pub lat: f64,
    pub lon: f64,
    /// The planted conflict's kind, when this pair was planted.
    pub planted: Option<String>,
}

fn round7(x: f64) -> f64 {
    (x * 1e7).round() / 1e7
}

fn round3(x: f64) -> f64 {
    (x * 1e3).round() / 1e3
}

pub(super) fn unix_us(rel_us: i64) -> i64 {
    START_UNIX_MS as i64 * 1000 + rel_us
}

/// How far past the recording's end encounters are still listed: a warning raised in its last
/// seconds is about an encounter up to the warning horizon later, and is judged by it (without
/// this, by "paths never within reach").
pub const TAIL_S: f64 = 5.0;

/// The encounters of every vehicle–VRU pair of `sim`'s road users whose conflict time falls in
/// the recording or within [`TAIL_S`] after it.
fn encounters(sim: &Simulation) -> Vec<TruthEncounter> {
    let duration_s = f64::from(sim.params.duration_s);
    let motions: Vec<Motion> = sim
        .users
        .iter()
        .map(|u| {
            let m = &u.mover;
            let route = &sim.routes[m.route];
            sample(u.kind, &route.points, m.entry_s, m.exit_s(), |t| m.state(&sim.routes, t).map(|(p, v, _)| (p, v)))
        })
        .collect();
    let planted: BTreeMap<(usize, usize), &PlantedConflict> =
        sim.conflicts.iter().map(|c| ((c.users[0].min(c.users[1]), c.users[0].max(c.users[1])), c)).collect();
    let mut out = Vec::new();
    for (a, ua) in sim.users.iter().enumerate() {
        if ua.kind != Kind::Car {
            continue;
        }
        for (b, ub) in sim.users.iter().enumerate() {
            // Lives that do not overlap cannot share a conflict area closely in time.
            if ub.kind == Kind::Car || ub.entry_us > ua.exit_us + 5_000_000 || ua.entry_us > ub.exit_us + 5_000_000 {
                continue;
            }
            let Some(e) = encounter(&motions[a], &motions[b]) else { continue };
            if !(0.0..=duration_s + TAIL_S).contains(&e.at_s) {
                continue;
            }
            let place = offset_to_wgs84(sim.site.centre, e.place.0, e.place.1);
            out.push(TruthEncounter {
                users: [ua.id, ub.id],
                pet_s: round3(e.pet_s),
                min_ttc_s: e.min_ttc_s.map(round3),
                time_unix_us: unix_us((e.at_s * 1e6).round() as i64),
                lat: round7(place.lat),
                lon: round7(place.lon),
                planted: planted.get(&(a.min(b), a.max(b))).map(|c| c.kind.name().to_string()),
            });
        }
    }
    out.sort_by_key(|e| (e.time_unix_us, e.users));
    out
}

/// The ground truth of a simulation.
pub fn truth(sim: &Simulation) -> Truth {
    let sensors = sim
        .site
        .sensors
        .iter()
        .enumerate()
        .map(|(i, (id, pose))| TruthSensor {
            sensor_id: *id,
            lat: pose.origin.lat,
            lon: pose.origin.lon,
            x_axis_heading_deg: pose.x_axis_heading_deg,
            range_m: RANGE_M,
            half_fov_deg: HALF_FOV_DEG,
            period_ms: PERIOD_US / 1000,
            phase_ms: PHASE_US[i] / 1000,
        })
        .collect();
    let duration_us = i64::from(sim.params.duration_s) * 1_000_000;
    let road_users = sim
        .users
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let first = (u.entry_us.max(-1_000_000) + TRUTH_STEP_US - 1).div_euclid(TRUTH_STEP_US) * TRUTH_STEP_US;
            let trajectory = (0..)
                .map(|k| first + k * TRUTH_STEP_US)
                .take_while(|&t| t <= u.exit_us.min(duration_us + 1_000_000))
                .filter_map(|t| {
                    let (p, _) = sim.true_state(i, t)?;
                    Some((unix_us(t) / 1000, round7(p.lat), round7(p.lon)))
                })
                .collect();
            TruthUser {
                id: u.id,
                kind: u.kind,
                route: u.route.clone(),
                description: u.description.clone(),
                entry_unix_us: unix_us(u.entry_us),
                exit_unix_us: unix_us(u.exit_us),
                speed_kmh: Speeds {
                    cruise: (u.cruise_kmh * 10.0).round() / 10.0,
                    turn: u.turn_kmh.map(|v| (v * 10.0).round() / 10.0),
                },
                trajectory,
            }
        })
        .collect();
    let user_ref = |i: usize| {
        let u = &sim.users[i];
        UserRef { id: u.id, kind: u.kind, route: u.route.clone(), description: u.description.clone() }
    };
    let conflicts = sim
        .conflicts
        .iter()
        .map(|c| TruthConflict {
            kind: c.kind.name().to_string(),
            time_unix_us: unix_us(c.time_us),
            lat: round7(c.at.lat),
            lon: round7(c.at.lon),
            arrival_gap_s: round3(c.gap_s),
            users: c.users.map(user_ref),
            tracker_ids: c.tracker_ids.iter().map(|(s, ids)| SensorIds { sensor_id: *s, ids: ids.clone() }).collect(),
        })
        .collect();
    let tracks = sim
        .tracks
        .iter()
        .map(|t| {
            let ms = |us| unix_us(us) / 1000;
            (t.sensor_id, t.tracker_id, sim.users[t.user].id, ms(t.first_us), ms(t.last_us))
        })
        .collect();
    let s = &sim.summary;
    let names = |m: &BTreeMap<&str, usize>| m.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    Truth {
        format: FORMAT.to_string(),
        parameters: Parameters {
            seed: sim.params.seed,
            duration_s: sim.params.duration_s,
            scenarios: sim.params.scenarios,
            density: sim.params.density,
            map: sim.map_name.clone(),
            start_unix_ms: START_UNIX_MS,
            station_id: sim.site.station_id,
            sensors,
            measurement_delta_ms: MEASUREMENT_DELTA_MS,
            noise: Noise {
                position_sigma_m: POSITION_SIGMA_M * sim.params.conditions.noise,
                velocity_sigma_mps: VELOCITY_SIGMA_MPS * sim.params.conditions.noise,
                yaw_sigma_deg: YAW_SIGMA_DEG * sim.params.conditions.noise,
                dropout_p: sim.params.conditions.dropout_p,
                occlusion_p: OCCLUSION_P,
                message_loss_p: MESSAGE_LOSS_P,
                late_p: LATE_P,
                track_timeout_ms: TRACK_TIMEOUT_US / 1000,
            },
        },
        summary: TruthSummary {
            cpms: s.cpms,
            objects_per_cpm_mean: (s.objects_mean * 100.0).round() / 100.0,
            objects_per_cpm_max: s.objects_max,
            road_users: names(&s.users_by_kind),
            conflicts: names(&s.conflicts_by_kind),
            id_reuses: s.id_reuses.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            out_of_order_records: s.out_of_order,
            lost_messages: s.lost_messages,
        },
        road_users,
        conflicts,
        encounters: encounters(sim),
        tracks_columns: ["sensor_id", "tracker_id", "road_user", "first_unix_ms", "last_unix_ms"].map(String::from),
        tracks,
        source: None,
    }
}

pub fn truth_text(sim: &Simulation) -> String {
    format!("{}\n", serde_json::to_string(&truth(sim)).expect("the truth serialises"))
}

/// Reads a ground-truth file.
pub fn read(path: &std::path::Path) -> anyhow::Result<Truth> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let truth: Truth =
        serde_json::from_str(&text).with_context(|| format!("{} is no {FORMAT} file", path.display()))?;
    Ok(truth)
}

//! Traffic simulator and RSU emulator: road users drive, ride and walk the Lanelet2 map's lanes;
//! the RSU's two cameras (station 1001, the demo poses) track them and send CPMs the way the
//! research's recording looks — noise, dropouts, lost and late messages, 8-bit tracker ids that
//! get reused. Conflicts are planted on purpose and listed in a ground-truth sidecar; all other
//! traffic is kept conflict-free, so every warning the pipeline raises can be judged.
//!
//! Deterministic: a seed drives a self-contained SplitMix64, so `cits simulate` regenerates the
//! committed `data/*.rec.b64` byte for byte (tests check it).
//!
//! Traffic: cars cruise at 35–50 km/h and slow on left/right connectors to √(a·R) — R the
//! connector's tightest bend, a the driver's lateral acceleration, 0.9–2.6 m/s² as recorded
//! drivers take turns (braking 2 m/s², accelerating 1.5 m/s²), turning 25 % left / 55 % straight
//! / 20 % right; cyclists ride 15–22 km/h (round a right turn √(a·R), a 1.0–2.5 m/s²), 75 %
//! straight / 25 % right; pedestrians walk
//! 1.1–1.6 m/s across a crosswalk (either way) and round the corner walkway. Each road user
//! follows its lanelets' centerlines; heading is the tangent, velocity speed × tangent.
//!
//! Conflict-free background: a road user is held back at its entry until no shared crossing
//! point sees it within [`CROSSING_WINDOW_S`] of anyone else and it keeps its distance (8 m
//! behind a car on the same lanelet, 4 m bicycle, 2.5 m pedestrians, 2.3 m elsewhere).
//!
//! Frames: the simulation runs in metres east/north of the site's centre (the RSU's reference
//! position, [`cits_map::site::Site`]); times are microseconds from the recording start ([`START_UNIX_MS`]). The record
//! timestamp is when the message arrived at the recorder, so the file is in arrival order.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context as _};
use cits::proto::LaneGraph;
use cits::shared::geo::{offset_to_wgs84, Wgs84};
use etsi_its::cpm::{SimpleCpm, SimpleObject};

use cits_client::demo::START_UNIX_MS;
use cits_client::recording::{self, Record};
use cits_map::site::Site;

pub mod ncap;
mod params;
mod recorded;
mod rng;
mod routes;
mod safety;
mod scenarios;
#[cfg(test)]
mod tests;
mod traffic;
mod truth;
mod v2x;

pub use params::{Conditions, Params};
pub use recorded::{film_recorded, RecordedSample, RecordedUser};
use rng::Rng;
pub use routes::Kind;
use routes::Route;
use scenarios::{schedule, Hidden};
pub use scenarios::{ConflictKind, PlantedConflict, Scenarios};
use traffic::{Mover, World};
pub use truth::{read as read_truth, truth, truth_text, Truth, TruthEncounter, TruthSource, TruthUser};
use v2x::{cams, vams};
pub use v2x::{CAM_PERIOD_US, CAM_POSITION_SIGMA_M, CAM_STATION_BASE, SIGNAL_P, VAM_POSITION_SIGMA_M};

// ------------------------------------------------------------------------------- parameters

/// Each camera reports at 8 Hz; the second one half a period (rounded to whole ms) later.
pub const PERIOD_US: i64 = 125_000;
pub const PHASE_US: [i64; 2] = [0, 62_000];
pub const RANGE_M: f64 = 60.0;
/// Half the horizontal field of view about the camera's x axis.
pub const HALF_FOV_DEG: f64 = 70.0;
/// Camera latency: objects are measured this long before the CPM's reference time.
pub const MEASUREMENT_DELTA_MS: i16 = -40;
/// Gaussian measurement noise (1σ) per axis in the sensor frame.
pub const POSITION_SIGMA_M: f64 = 0.15;
pub const VELOCITY_SIGMA_MPS: f64 = 0.2;
pub const YAW_SIGMA_DEG: f64 = 2.0;
/// Position confidence sent: ETSI coordinate confidence is a 95 % bound, ≈ 2σ.
const POSITION_CONFIDENCE_CM: u16 = 30;
/// A visible object is missing from a CPM with this probability (detector miss).
pub const DROPOUT_P: f64 = 0.03;
/// Per visible object and frame, probability that an occlusion starts; it hides the object for
/// 1.2–2.5 s, longer than [`TRACK_TIMEOUT_US`], so the tracker loses it and re-acquires it with a
/// new id — the usual reason real trackers churn through ids.
pub const OCCLUSION_P: f64 = 0.004;
/// Per frame, probability that the tracker spends an id on a tentative track (clutter, a
/// shadow) that is never confirmed and so never reported: reported ids skip numbers.
pub const TENTATIVE_TRACK_P: f64 = 0.04;
/// A whole CPM is lost on the way with this probability.
pub const MESSAGE_LOSS_P: f64 = 0.005;
/// Normal delivery latency, then the share of messages held up by 60–250 ms (they overtake).
const LATENCY_US: (f64, f64) = (3_000.0, 15_000.0);
pub const LATE_P: f64 = 0.02;
const LATE_US: (f64, f64) = (60_000.0, 250_000.0);
/// A track not seen for longer than this is dropped; the object gets a new id when seen again.
pub const TRACK_TIMEOUT_US: i64 = 1_000_000;
pub const MAX_OBJECTS_PER_CPM: usize = 128;
/// ETSI SensorType monovideo.
const SENSOR_TYPE_CAMERA: u8 = 3;

/// Background road users may not reach a shared crossing point within this much of each other.
pub const CROSSING_WINDOW_S: f64 = 3.0;
/// Planted conflicts: both users reach the crossing point within this much of each other.
pub const PLANTED_WINDOW_S: f64 = 0.5;
/// Background arrivals per second (all arms together), tuned to ≈ 8 objects per CPM.
const ARRIVALS_PER_S: [(Kind, f64); 3] = [(Kind::Car, 0.5), (Kind::Bicycle, 0.3), (Kind::Pedestrian, 0.28)];
/// Traffic starts flowing this long before the cameras do, so the first CPMs see a busy junction.
const WARM_UP_S: f64 = 20.0;
/// A road user that cannot enter conflict-free is held back in steps of this, at most this often.
const HOLD_BACK_S: f64 = 0.5;
const HOLD_BACK_TRIES: u32 = 40;
/// Comfortable braking before and acceleration after a turn, m/s².
const BRAKING_MPS2: f64 = 2.0;
const ACCELERATION_MPS2: f64 = 1.5;
/// Speed-profile sampling step along the route.
const PROFILE_STEP_M: f64 = 0.5;
/// Ground-truth trajectory sampling.
const TRUTH_STEP_US: i64 = 100_000;

fn kmh(v: f64) -> f64 {
    v / 3.6
}

// -------------------------------------------------------------------------------- simulation

/// One tracker id's life: which road user a sensor reported under `tracker_id`, from `first_us`
/// to `last_us` (measurement times, µs from the start).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Track {
    pub sensor_id: u8,
    pub tracker_id: u8,
    pub user: usize,
    pub first_us: i64,
    pub last_us: i64,
}

/// A road user as the ground truth lists it.
#[derive(Clone)]
pub struct RoadUser {
    pub id: u32,
    pub kind: Kind,
    pub route: Vec<i64>,
    pub description: String,
    pub entry_us: i64,
    pub exit_us: i64,
    pub cruise_kmh: f64,
    pub turn_kmh: Option<f64>,
    mover: Mover,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub cpms: usize,
    pub duration_s: f64,
    pub objects_mean: f64,
    pub objects_max: usize,
    pub users_by_kind: BTreeMap<&'static str, usize>,
    pub conflicts_by_kind: BTreeMap<&'static str, usize>,
    /// Per sensor: ids assigned that had been assigned before.
    pub id_reuses: BTreeMap<u8, usize>,
    /// Records whose CPM is older than the previous record's.
    pub out_of_order: usize,
    pub lost_messages: usize,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |m: &BTreeMap<&str, usize>| m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ");
        writeln!(f, "CPMs: {} over {:.1} s ({} lost on the way)", self.cpms, self.duration_s, self.lost_messages)?;
        writeln!(f, "objects per CPM: mean {:.2}, max {}", self.objects_mean, self.objects_max)?;
        writeln!(f, "road users: {}", list(&self.users_by_kind))?;
        writeln!(f, "planted conflicts: {}", list(&self.conflicts_by_kind))?;
        let reuses = self.id_reuses.iter().map(|(s, n)| format!("sensor {s} {n}")).collect::<Vec<_>>().join(", ");
        writeln!(f, "tracker id reuses: {reuses}")?;
        write!(f, "out-of-order records: {}", self.out_of_order)
    }
}

pub struct Simulation {
    pub params: Params,
    pub map_name: String,
    pub records: Vec<Record>,
    pub users: Vec<RoadUser>,
    pub conflicts: Vec<PlantedConflict>,
    pub tracks: Vec<Track>,
    pub summary: Summary,
    routes: Vec<Route>,
    /// The junction filmed, its RSU and cameras.
    pub site: Site,
    /// Road users (ids) whose CAMs indicated their turn.
    pub signalled: Vec<u32>,
}

impl Simulation {
    /// True position and velocity (east/north) of user `index` at `t_us` (µs from the start).
    pub fn true_state(&self, index: usize, t_us: i64) -> Option<(Wgs84, (f64, f64))> {
        let (p, v, _) = self.users[index].mover.state(&self.routes, t_us as f64 / 1e6)?;
        Some((offset_to_wgs84(self.site.centre, p.0, p.1), v))
    }

    /// The road user a sensor reported as `tracker_id` at measurement time `t_us`.
    pub fn user_of(&self, sensor_id: u8, tracker_id: u8, t_us: i64) -> Option<usize> {
        self.tracks
            .iter()
            .find(|t| {
                t.sensor_id == sensor_id && t.tracker_id == tracker_id && (t.first_us..=t.last_us).contains(&t_us)
            })
            .map(|t| t.user)
    }
}

/// One camera's tracker: 8-bit ids handed out in turn, skipping ids still in use.
struct Tracker {
    sensor_id: u8,
    next_id: u8,
    /// road user → (tracker id, last seen µs, index into tracks)
    active: BTreeMap<usize, (u8, i64, usize)>,
    occluded_until: BTreeMap<usize, i64>,
    ever_assigned: [bool; 256],
    reuses: usize,
}

impl Tracker {
    fn take_id(&mut self) -> u8 {
        loop {
            let id = self.next_id;
            self.next_id = self.next_id.wrapping_add(1);
            if !self.active.values().any(|a| a.0 == id) {
                if self.ever_assigned[id as usize] {
                    self.reuses += 1;
                }
                self.ever_assigned[id as usize] = true;
                return id;
            }
        }
    }
}

/// Runs the simulation on `graph` with `params`.
pub fn simulate(graph: &LaneGraph, params: &Params) -> anyhow::Result<Simulation> {
    if params.duration_s == 0 {
        bail!("duration must be at least one second");
    }
    if !(params.density > 0.0 && params.density.is_finite()) {
        bail!("density must be a positive number");
    }
    let world = World::new(graph, params.scenarios != Scenarios::Classic)?;
    let plan = schedule(&world, params);
    film(world, plan, params, &graph.name)
}

/// Who is on the road: the road users (into the world's routes), the planted conflicts (pairs
/// of indices into the movers) and who is hidden from which camera when.
type Plan = (Vec<Mover>, Vec<(ConflictKind, [usize; 2])>, Vec<Hidden>);

/// The cameras film the plan: the recording of CPMs as the RSU sends them, and what truth
/// needs to judge it. The random streams are the cameras' (2), CAMs' (4) and VAMs' (5): each
/// part draws from its own, so one part's condition never changes what another films.
fn film(world: World, (movers, planted, hidden): Plan, params: &Params, map_name: &str) -> anyhow::Result<Simulation> {
    if params.duration_s == 0 {
        bail!("duration must be at least one second");
    }
    let duration_us = i64::from(params.duration_s) * 1_000_000;
    let (users, index_of) = road_users(&world, &movers, duration_us);
    let mut air = Air::default();
    let cameras = film_cameras(&world, &users, &index_of, &hidden, params, duration_us, &mut air)?;
    let signalled = send_v2x(&world, &users, params, duration_us, &mut air)?;
    let records = air.records();
    let conflicts = planted_conflicts(&world, &movers, &planted, &index_of, &cameras.tracks);
    let summary = summarize(params, &records, &users, &conflicts, &cameras.trackers, cameras.lost)?;
    Ok(Simulation {
        params: *params,
        map_name: map_name.to_string(),
        records,
        users,
        conflicts,
        tracks: cameras.tracks,
        summary,
        routes: world.routes,
        site: world.site,
        signalled,
    })
}

/// Road users who are around while the cameras run, numbered by entry time; and each one's
/// number by its index among the movers.
fn road_users(world: &World, movers: &[Mover], duration_us: i64) -> (Vec<RoadUser>, BTreeMap<usize, usize>) {
    let mut order: Vec<usize> = (0..movers.len())
        .filter(|&i| movers[i].exit_s() > -1.0 && movers[i].entry_s < duration_us as f64 / 1e6)
        .collect();
    order.sort_by(|&a, &b| movers[a].entry_s.total_cmp(&movers[b].entry_s).then(a.cmp(&b)));
    let index_of: BTreeMap<usize, usize> = order.iter().enumerate().map(|(new, &old)| (old, new)).collect();
    let users: Vec<RoadUser> = order
        .iter()
        .enumerate()
        .map(|(i, &m)| {
            let mover = movers[m].clone();
            let route = &world.routes[mover.route];
            RoadUser {
                id: i as u32 + 1,
                kind: mover.kind,
                route: route.lanelets.clone(),
                description: route.describe(),
                entry_us: (mover.entry_s * 1e6).round() as i64,
                exit_us: (mover.exit_s() * 1e6).round() as i64,
                cruise_kmh: mover.cruise_mps * 3.6,
                turn_kmh: mover.turn_mps.map(|v| v * 3.6),
                mover,
            }
        })
        .collect();
    (users, index_of)
}

/// What the cameras' trackers did over a recording: their state at its end, every track they
/// kept, and the CPMs lost on the way.
struct Filmed {
    trackers: Vec<Tracker>,
    tracks: Vec<Track>,
    lost: usize,
}

/// Both cameras at 8 Hz: every road user in view (not hidden, occluded or dropped) measured
/// with noise under its tracker id, sent as one CPM per camera and tick into `air`.
fn film_cameras(
    world: &World,
    users: &[RoadUser],
    index_of: &BTreeMap<usize, usize>,
    hidden: &[Hidden],
    params: &Params,
    duration_us: i64,
    air: &mut Air,
) -> anyhow::Result<Filmed> {
    let mut rng = Rng::new(params.seed, 2);
    let (centre, sensors) = (world.site.centre, &world.site.sensors);
    let mut trackers: Vec<Tracker> = sensors
        .iter()
        .map(|(id, _)| Tracker {
            sensor_id: *id,
            // The tracker has been running before the recording starts.
            next_id: rng.next_u64() as u8,
            active: BTreeMap::new(),
            occluded_until: BTreeMap::new(),
            ever_assigned: [false; 256],
            reuses: 0,
        })
        .collect();
    let mut tracks: Vec<Track> = Vec::new();
    let mut lost = 0;
    let ticks = duration_us / PERIOD_US;
    for tick in 0..ticks {
        let cameras = if params.conditions.one_camera { 1 } else { sensors.len() };
        for (s, (sensor_id, pose)) in sensors.iter().enumerate().take(cameras) {
            let ref_us = tick * PERIOD_US + PHASE_US[s];
            let meas_us = ref_us + i64::from(MEASUREMENT_DELTA_MS) * 1000;
            let meas_s = meas_us as f64 / 1e6;
            let tracker = &mut trackers[s];
            tracker.active.retain(|_, a| meas_us - a.1 <= TRACK_TIMEOUT_US);
            let mut objects: Vec<(f64, SimpleObject)> = Vec::new();
            for (u, user) in users.iter().enumerate() {
                let Some((p, v, _)) = user.mover.state(&world.routes, meas_s) else { continue };
                let (x, y) = pose.from_wgs84(offset_to_wgs84(centre, p.0, p.1));
                let range = x.hypot(y);
                if range > RANGE_M || y.atan2(x).to_degrees().abs() > HALF_FOV_DEG {
                    continue;
                }
                let behind = |h: &Hidden| {
                    index_of.get(&h.mover) == Some(&u)
                        && h.sensor.is_none_or(|s| s == *sensor_id)
                        && (h.from_s..=h.to_s).contains(&meas_s)
                };
                if hidden.iter().any(behind) {
                    continue;
                }
                if tracker.occluded_until.get(&u).is_some_and(|&until| meas_us < until) {
                    continue;
                }
                if rng.chance(OCCLUSION_P) {
                    tracker.occluded_until.insert(u, meas_us + (rng.range(1.2, 2.5) * 1e6) as i64);
                    continue;
                }
                if rng.chance(params.conditions.dropout_p) {
                    continue;
                }
                let id = match tracker.active.get(&u) {
                    Some(&(id, _, track)) => {
                        tracks[track].last_us = meas_us;
                        tracker.active.insert(u, (id, meas_us, track));
                        id
                    }
                    None => {
                        let id = tracker.take_id();
                        tracks.push(Track {
                            sensor_id: *sensor_id,
                            tracker_id: id,
                            user: u,
                            first_us: meas_us,
                            last_us: meas_us,
                        });
                        tracker.active.insert(u, (id, meas_us, tracks.len() - 1));
                        id
                    }
                };
                let (vx, vy) = pose.from_east_north(v.0, v.1);
                let noise = params.conditions.noise;
                let yaw = vy.atan2(vx).to_degrees() + noise * YAW_SIGMA_DEG * rng.gauss();
                let (nx, ny) = (x + noise * POSITION_SIGMA_M * rng.gauss(), y + noise * POSITION_SIGMA_M * rng.gauss());
                let (nvx, nvy) =
                    (vx + noise * VELOCITY_SIGMA_MPS * rng.gauss(), vy + noise * VELOCITY_SIGMA_MPS * rng.gauss());
                let confidence = match user.kind {
                    Kind::Car => rng.range(85.0, 99.0),
                    _ => rng.range(70.0, 95.0),
                };
                objects.push((
                    range,
                    SimpleObject {
                        object_id: u16::from(id),
                        measurement_delta_ms: MEASUREMENT_DELTA_MS,
                        x_cm: (nx * 100.0).round() as i32,
                        y_cm: (ny * 100.0).round() as i32,
                        x_conf_cm: POSITION_CONFIDENCE_CM,
                        y_conf_cm: POSITION_CONFIDENCE_CM,
                        velocity: Some(((nvx * 100.0).round() as i16, (nvy * 100.0).round() as i16)),
                        yaw_decideg: Some(((yaw * 10.0).round() as i32).rem_euclid(3600) as u16),
                        class: user.kind.object_kind(),
                        class_confidence_pct: confidence.round() as u8,
                        sensor_id: Some(*sensor_id),
                    },
                ));
            }
            if rng.chance(TENTATIVE_TRACK_P) {
                tracker.take_id();
            }
            // The nearest objects first when a CPM would overflow.
            objects.sort_by(|a, b| a.0.total_cmp(&b.0));
            objects.truncate(MAX_OBJECTS_PER_CPM);
            objects.sort_by_key(|o| o.1.object_id);
            let latency = rng.range(LATENCY_US.0, LATENCY_US.1)
                + if rng.chance(LATE_P) { rng.range(LATE_US.0, LATE_US.1) } else { 0.0 }
                + params.conditions.extra_latency_us;
            if rng.chance(MESSAGE_LOSS_P) {
                lost += 1;
                continue;
            }
            let ref_unix_us = START_UNIX_MS * 1000 + ref_us as u64;
            let cpm = SimpleCpm {
                protocol_version: 2,
                station_id: world.site.station_id,
                reference_time_its_ms: cits::shared::time::unix_us_to_its_ms(ref_unix_us),
                reference_lat_e7: (centre.lat * 1e7).round() as i32,
                reference_lon_e7: (centre.lon * 1e7).round() as i32,
                sensors: vec![(*sensor_id, SENSOR_TYPE_CAMERA)],
                objects: objects.into_iter().map(|o| o.1).collect(),
            };
            let bytes = etsi_its::cpm::encode(&cpm.to_cpm()).context("simulated CPM does not encode")?;
            air.send(ref_unix_us + latency as u64, bytes);
        }
    }
    Ok(Filmed { trackers, tracks, lost })
}

/// The cars that send CAMs and the VRUs that send VAMs, each drawn from a random stream of its
/// own (the cameras film the same with them as without); returns the cars that signalled.
fn send_v2x(
    world: &World,
    users: &[RoadUser],
    params: &Params,
    duration_us: i64,
    air: &mut Air,
) -> anyhow::Result<Vec<u32>> {
    let mut cam_rng = Rng::new(params.seed, 4);
    let mut signalled = Vec::new();
    for user in users {
        if user.kind == Kind::Car
            && cam_rng.chance(params.conditions.cam_share)
            && cams(user, world, duration_us, &mut cam_rng, air)?
        {
            signalled.push(user.id);
        }
    }
    // The VRUs that send VAMs, likewise from a stream of their own.
    let mut vam_rng = Rng::new(params.seed, 5);
    for user in users {
        if user.kind != Kind::Car && vam_rng.chance(params.conditions.vam_share) {
            vams(user, world, duration_us, &mut vam_rng, air)?;
        }
    }
    Ok(signalled)
}

/// The planted conflicts as the truth lists them: when and where the pair crosses, and the
/// tracker ids each camera gave its two road users around then.
fn planted_conflicts(
    world: &World,
    movers: &[Mover],
    planted: &[(ConflictKind, [usize; 2])],
    index_of: &BTreeMap<usize, usize>,
    tracks: &[Track],
) -> Vec<PlantedConflict> {
    let (centre, sensors) = (world.site.centre, &world.site.sensors);
    planted
        .iter()
        .filter_map(|(kind, pair)| {
            let users_ix = [*index_of.get(&pair[0])?, *index_of.get(&pair[1])?];
            let (c, ta, tb) = world.close_crossing(&movers[pair[0]], &movers[pair[1]], kind.window_s())?;
            let time_us = (ta.min(tb) * 1e6).round() as i64;
            let tracker_ids = sensors
                .iter()
                .map(|(sensor_id, _)| {
                    let ids = users_ix.map(|u| {
                        let mut ids: Vec<u8> = tracks
                            .iter()
                            .filter(|t| t.sensor_id == *sensor_id && t.user == u)
                            .filter(|t| t.first_us <= time_us + 2_000_000 && t.last_us >= time_us - 2_000_000)
                            .map(|t| t.tracker_id)
                            .collect();
                        ids.dedup();
                        ids
                    });
                    (*sensor_id, ids)
                })
                .collect();
            Some(PlantedConflict {
                kind: *kind,
                time_us,
                at: offset_to_wgs84(centre, c.at.0, c.at.1),
                gap_s: (ta - tb).abs(),
                users: users_ix,
                tracker_ids,
            })
        })
        .collect()
}

/// What the RSU receives, by arrival (µs), in the order sent within one arrival time.
#[derive(Default)]
struct Air(Vec<(u64, u64, Record)>);

impl Air {
    fn send(&mut self, arrival_us: u64, message: Vec<u8>) {
        let sequence = self.0.len() as u64;
        self.0.push((arrival_us, sequence, Record { timestamp_ms: arrival_us / 1000, cpm: message }));
    }

    /// The recording: by arrival.
    fn records(mut self) -> Vec<Record> {
        self.0.sort_by_key(|s| (s.0, s.1));
        self.0.into_iter().map(|s| s.2).collect()
    }
}

fn summarize(
    params: &Params,
    records: &[Record],
    users: &[RoadUser],
    conflicts: &[PlantedConflict],
    trackers: &[Tracker],
    lost_messages: usize,
) -> anyhow::Result<Summary> {
    let mut counts = Vec::with_capacity(records.len());
    let mut out_of_order = 0;
    let mut previous = 0;
    for r in records.iter().filter(|r| r.ingest() == recording::Ingest::Cpm) {
        let cpm = SimpleCpm::from_cpm(&etsi_its::cpm::decode(&r.cpm)?)?;
        counts.push(cpm.objects.len());
        if cpm.reference_time_its_ms < previous {
            out_of_order += 1;
        }
        previous = cpm.reference_time_its_ms;
    }
    let mut users_by_kind: BTreeMap<&'static str, usize> = Kind::ALL.iter().map(|k| (k.name(), 0)).collect();
    for u in users {
        *users_by_kind.get_mut(u.kind.name()).unwrap() += 1;
    }
    let mut conflicts_by_kind: BTreeMap<&'static str, usize> =
        ConflictKind::ALL.iter().map(|k| (k.name(), 0)).collect();
    for c in conflicts {
        *conflicts_by_kind.get_mut(c.kind.name()).unwrap() += 1;
    }
    Ok(Summary {
        cpms: counts.len(),
        duration_s: f64::from(params.duration_s),
        objects_mean: counts.iter().sum::<usize>() as f64 / counts.len().max(1) as f64,
        objects_max: counts.iter().copied().max().unwrap_or(0),
        users_by_kind,
        conflicts_by_kind,
        id_reuses: trackers.iter().map(|t| (t.sensor_id, t.reuses)).collect(),
        out_of_order,
        lost_messages,
    })
}

/// Simulates on `graph` and writes the recording and the ground truth.
pub fn simulate_to_files(graph: &LaneGraph, params: &Params, out: &Path, truth: &Path) -> anyhow::Result<Summary> {
    let sim = simulate(graph, params)?;
    let file = std::fs::File::create(out).with_context(|| format!("cannot write {}", out.display()))?;
    recording::write(std::io::BufWriter::new(file), &sim.records)?;
    std::fs::write(truth, truth_text(&sim)).with_context(|| format!("cannot write {}", truth.display()))?;
    Ok(sim.summary)
}

/// How many car, bicycle and pedestrian routes the graph's junction offers.
pub fn route_counts(graph: &LaneGraph) -> anyhow::Result<(usize, usize, usize)> {
    let world = World::new(graph, true)?;
    let count = |k: Kind| world.routes.iter().filter(|r| r.kind == k).count();
    Ok((count(Kind::Car), count(Kind::Bicycle), count(Kind::Pedestrian)))
}

pub fn load_map(osm: &Path) -> anyhow::Result<LaneGraph> {
    cits_map::load(osm, None)
}

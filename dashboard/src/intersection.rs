//! The Intersection page: the map (lanelets from the project's lane graph, in metres east/north of
//! its origin — no tiles), the road users the pipeline tracks with their trails and predicted
//! paths, and its active warnings. Read from the pipeline's own state in Redis (tracks, paths,
//! active warnings: the same for the seven-actor and the fused deployment) with a read-only Redis
//! user, and from the DENMs the RSUs receive.

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::time::Duration;

use anyhow::Context as _;
use futures::StreamExt as _;
use prost::Message as _;
use redis::AsyncCommands as _;
use serde::Serialize;

use cits::pipeline::buckets;
use cits::proto::{ActiveWarnings, LaneGraph, ObjectClass, RsuPaths, Trajectory, TravelMode, TurnPriors};
use cits::shared::geo::{wgs84_to_offset, Wgs84};
use etsi_its::denm::SimpleDenm;

use crate::hub::Hub;

/// Trail drawn behind a road user.
const TRAIL_US: u64 = 5_000_000;
/// A road user not seen for this long (behind its RSU's newest point) is gone from the page.
const GONE_US: u64 = 2_000_000;
const DENM_LOG: usize = 100;
/// An RSU whose newest point has not changed for this long is idle (a probe, a finished replay):
/// its last road users stay in Redis until their TTL but are no longer on the page.
const IDLE_MS: u64 = 10_000;

#[derive(Serialize, Debug, Clone)]
pub struct MapView {
    pub name: String,
    pub lanelets: Vec<LaneletView>,
    /// min east, min north, max east, max north (m)
    pub bounds: [f64; 4],
}

#[derive(Serialize, Debug, Clone)]
pub struct LaneletView {
    pub id: i64,
    pub mode: String,
    pub role: String,
    pub turn: String,
    pub points: Vec<[f64; 2]>,
}

pub struct Projection(Wgs84);

impl Projection {
    pub fn xy(&self, lat: f64, lon: f64) -> [f64; 2] {
        let (e, n) = wgs84_to_offset(self.0, Wgs84 { lat, lon });
        [round_cm(e), round_cm(n)]
    }
}

fn round_cm(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

fn mode_name(mode: i32) -> String {
    TravelMode::try_from(mode).unwrap_or(TravelMode::Unknown).short_name()
}

fn class_name(class: i32) -> String {
    ObjectClass::try_from(class).unwrap_or(ObjectClass::Unknown).short_name()
}

pub fn map_view(graph: &LaneGraph) -> (MapView, Projection) {
    let projection = Projection(Wgs84 { lat: graph.origin_latitude, lon: graph.origin_longitude });
    let mut bounds = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
    let lanelets = graph
        .lanelets
        .iter()
        .map(|l| {
            let points: Vec<[f64; 2]> = l.centerline.chunks_exact(2).map(|p| projection.xy(p[1], p[0])).collect();
            for p in &points {
                bounds = [bounds[0].min(p[0]), bounds[1].min(p[1]), bounds[2].max(p[0]), bounds[3].max(p[1])];
            }
            LaneletView {
                id: l.id,
                mode: mode_name(l.mode),
                role: l.role.clone(),
                turn: l.turn().name().to_string(),
                points,
            }
        })
        .collect();
    (MapView { name: graph.name.clone(), lanelets, bounds }, projection)
}

pub fn load_map(path: &Path) -> anyhow::Result<LaneGraph> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read the lane graph {}", path.display()))?;
    LaneGraph::decode(bytes.as_slice()).with_context(|| format!("{} is not a lane graph", path.display()))
}

#[derive(Serialize, Debug, Default)]
pub struct IntersectionView {
    pub rsus: Vec<RsuView>,
    pub denms: Vec<DenmEvent>,
    pub refreshed_at_ms: u64,
    pub error: Option<String>,
}

#[derive(Serialize, Debug, Default)]
pub struct RsuView {
    pub rsu: String,
    pub intersection: String,
    pub newest_us: u64,
    pub objects: Vec<RoadUser>,
    pub warnings: Vec<WarningView>,
    /// The turn priors the predictor learned from this RSU's tracks, per approach and mode.
    pub priors: Vec<PriorView>,
}

/// How the road users of one type on one approach went on, as the predictor counted them
/// (decayed counts; shares of left, straight, right).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct PriorView {
    pub approach: i64,
    pub mode: String,
    pub tracks: f64,
    pub shares: [f64; 3],
}

/// What the pipeline stored for one RSU, as the page shows it.
#[derive(Default)]
pub struct Stored<'a> {
    pub tracks: &'a [(String, Trajectory)],
    pub paths: Option<&'a RsuPaths>,
    pub warnings: Option<&'a ActiveWarnings>,
    pub priors: Option<&'a TurnPriors>,
}

#[derive(Serialize, Debug, Clone)]
pub struct RoadUser {
    /// station/sensor/object
    pub key: String,
    pub object_id: u32,
    pub class: String,
    pub position: [f64; 2],
    pub heading_deg: Option<f64>,
    pub speed_mps: Option<f64>,
    pub seen_us: u64,
    pub trail: Vec<[f64; 2]>,
    pub paths: Vec<PathView>,
}

#[derive(Serialize, Debug, Clone)]
pub struct PathView {
    pub mode: String,
    pub probability: f64,
    pub points: Vec<[f64; 2]>,
}

#[derive(Serialize, Debug, Clone)]
pub struct WarningView {
    /// DENM ActionID: originating station / sequence number.
    pub action_id: String,
    pub pair: String,
    pub ttc_s: f64,
    pub probability: f64,
    pub place: [f64; 2],
    pub detected_its_ms: u64,
    pub last_seen_us: u64,
}

#[derive(Serialize, Debug, Clone)]
pub struct DenmEvent {
    pub rsu: String,
    pub action_id: String,
    /// new, update, terminated
    pub kind: String,
    pub place: [f64; 2],
    pub at_ms: u64,
}

/// Builds the view of one RSU from its stored state.
pub fn rsu_view(rsu: &str, intersection: &str, stored: Stored, denm_station: Option<u32>, p: &Projection) -> RsuView {
    let Stored { tracks, paths, warnings, priors } = stored;
    let newest = tracks.iter().filter_map(|(_, t)| t.points.last().map(|q| q.measured_at_us)).max().unwrap_or(0);
    let mut objects = Vec::new();
    for (key, t) in tracks {
        let Some(last) = t.points.last() else { continue };
        if last.measured_at_us + GONE_US < newest {
            continue;
        }
        let trail = t
            .points
            .iter()
            .filter(|q| q.measured_at_us + TRAIL_US >= last.measured_at_us)
            .map(|q| p.xy(q.latitude, q.longitude))
            .collect();
        let object_paths = paths
            .and_then(|ps| ps.objects.iter().find(|o| &o.object_key == key))
            .map(|o| {
                o.paths
                    .iter()
                    .map(|pp| PathView {
                        mode: mode_name(pp.mode),
                        probability: pp.probability,
                        points: pp.positions.iter().map(|q| p.xy(q.latitude, q.longitude)).collect(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        objects.push(RoadUser {
            key: key.clone(),
            object_id: t.object_id,
            class: class_name(t.classification),
            position: p.xy(last.latitude, last.longitude),
            heading_deg: last.heading_deg,
            speed_mps: last.speed_mps,
            seen_us: last.measured_at_us,
            trail,
            paths: object_paths,
        });
    }
    objects.sort_by(|a, b| a.key.cmp(&b.key));
    let warnings = warnings
        .map(|w| {
            w.warnings
                .iter()
                .filter_map(|a| {
                    let r = a.risk.as_ref()?;
                    let obj = |o: &Option<cits::proto::ObjectRef>| {
                        o.as_ref().map(|o| format!("{} {}", mode_name(o.mode), o.object_id)).unwrap_or_default()
                    };
                    Some(WarningView {
                        action_id: match denm_station {
                            Some(station) => format!("{station}/{}", a.sequence_number),
                            None => format!("?/{}", a.sequence_number),
                        },
                        pair: format!("{} ↔ {}", obj(&r.first), obj(&r.second)),
                        ttc_s: r.time_to_collision_s,
                        probability: r.probability,
                        place: p.xy(r.conflict_latitude, r.conflict_longitude),
                        detected_its_ms: a.detection_time_its_ms,
                        last_seen_us: a.last_seen_us,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let mut priors: Vec<PriorView> = priors
        .map(|l| {
            l.approaches
                .iter()
                .map(|a| {
                    let tracks = a.left + a.straight + a.right;
                    let share = |n: f64| if tracks > 0.0 { n / tracks } else { 0.0 };
                    PriorView {
                        approach: a.approach_lanelet_id,
                        mode: mode_name(a.mode),
                        tracks,
                        shares: [share(a.left), share(a.straight), share(a.right)],
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    priors.sort_by(|a, b| (a.approach, &a.mode).cmp(&(b.approach, &b.mode)));
    RsuView { rsu: rsu.into(), intersection: intersection.into(), newest_us: newest, objects, warnings, priors }
}

/// `<rsu>/<station>/<sensor>/<object>` → (rsu, station/sensor/object)
fn split_track_key(key: &str) -> Option<(&str, &str)> {
    key.split_once('/')
}

pub struct IntersectionWatch {
    pub redis: redis::Client,
    pub nats: async_nats::Client,
    pub projection: Projection,
}

impl IntersectionWatch {
    pub async fn run(self, hub: Hub) {
        let mut denms_in = match self.nats.subscribe("cits.denm.*").await {
            Ok(s) => Some(s),
            Err(e) => {
                tracing::error!("cannot subscribe to DENMs: {e}");
                None
            }
        };
        let mut log: VecDeque<DenmEvent> = VecDeque::new();
        let mut announced = std::collections::HashSet::new();
        // The ActionID originator per RSU, as its DENMs say (the sender's config may set one per RSU).
        let mut stations: BTreeMap<String, u32> = BTreeMap::new();
        let mut redis = None;
        // Per RSU: its newest point and when (wall clock) it last changed.
        let mut progress: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        let mut tick = tokio::time::interval(Duration::from_millis(250));
        loop {
            tokio::select! {
                msg = async { match denms_in.as_mut() { Some(s) => s.next().await, None => std::future::pending().await } } => {
                    let Some(msg) = msg else { denms_in = None; continue };
                    let rsu = msg.subject.as_str().rsplit('.').next().unwrap_or_default().to_string();
                    if let Some((e, station)) = denm_event(&rsu, &msg.payload, &mut announced, &self.projection) {
                        stations.insert(rsu.clone(), station);
                        hub.event("denm", &e);
                        if log.len() == DENM_LOG { log.pop_back(); }
                        log.push_front(e);
                    }
                }
                _ = tick.tick() => {
                    let mut view = IntersectionView { refreshed_at_ms: cits::shared::time::now_ms(), ..Default::default() };
                    if redis.is_none() {
                        match redis::aio::ConnectionManager::new(self.redis.clone()).await {
                            Ok(c) => redis = Some(c),
                            Err(e) => view.error = Some(format!("Redis: {e}")),
                        }
                    }
                    if let Some(conn) = redis.as_mut() {
                        match self.read(conn, &stations).await {
                            Ok(mut rsus) => {
                                let now = view.refreshed_at_ms;
                                rsus.retain(|r| active(&mut progress, &r.rsu, r.newest_us, now));
                                view.rsus = rsus;
                            }
                            Err(e) => view.error = Some(format!("Redis: {e:#}")),
                        }
                    }
                    view.denms = log.iter().cloned().collect();
                    hub.publish("intersection", &view);
                }
            }
        }
    }

    async fn read(
        &self,
        conn: &mut redis::aio::ConnectionManager,
        stations: &BTreeMap<String, u32>,
    ) -> anyhow::Result<Vec<RsuView>> {
        let track_keys = scan(conn, &format!("{}:*", buckets::TRAJECTORIES)).await?;
        let track_values: Vec<Option<Vec<u8>>> =
            if track_keys.is_empty() { Vec::new() } else { conn.mget(&track_keys).await? };
        let mut tracks: BTreeMap<String, Vec<(String, Trajectory)>> = BTreeMap::new();
        for (key, value) in track_keys.iter().zip(track_values) {
            let (Some(value), Some((rsu, object))) =
                (value, split_track_key(key.trim_start_matches(&format!("{}:", buckets::TRAJECTORIES))))
            else {
                continue;
            };
            if let Ok(t) = Trajectory::decode(value.as_slice()) {
                tracks.entry(rsu.to_string()).or_default().push((object.to_string(), t));
            }
        }
        // paths:<intersection>/<rsu>
        let path_keys = scan(conn, &format!("{}:*", buckets::PATHS)).await?;
        let path_values: Vec<Option<Vec<u8>>> =
            if path_keys.is_empty() { Vec::new() } else { conn.mget(&path_keys).await? };
        let mut paths: BTreeMap<String, (String, RsuPaths)> = BTreeMap::new();
        for (key, value) in path_keys.iter().zip(path_values) {
            let Some((intersection, rsu)) = key.trim_start_matches(&format!("{}:", buckets::PATHS)).split_once('/')
            else {
                continue;
            };
            // As the detector stores them (each object's shared past once); undecodable: skipped.
            let decoded =
                value.map(|v| RsuPaths::decode(v.as_slice()).map(cits::stages::collision_detector::with_pasts));
            if let Some(Ok(p)) = decoded {
                paths.insert(rsu.to_string(), (intersection.to_string(), p));
            }
        }
        let mut out = Vec::new();
        for (rsu, rsu_tracks) in &tracks {
            let warning_key = format!("{}:{}", buckets::WARNINGS, cits::stages::denm_sender::state_key(rsu));
            let warnings: Option<Vec<u8>> = conn.get(&warning_key).await?;
            let warnings = warnings.and_then(|w| ActiveWarnings::decode(w.as_slice()).ok());
            let priors: Option<Vec<u8>> = conn.get(format!("{}:{rsu}", buckets::TURN_PRIORS)).await?;
            let priors = priors.and_then(|p| TurnPriors::decode(p.as_slice()).ok());
            let (intersection, rsu_paths) = match paths.get(rsu) {
                Some((i, p)) => (i.as_str(), Some(p)),
                None => ("", None),
            };
            let stored =
                Stored { tracks: rsu_tracks, paths: rsu_paths, warnings: warnings.as_ref(), priors: priors.as_ref() };
            out.push(rsu_view(rsu, intersection, stored, stations.get(rsu).copied(), &self.projection));
        }
        // RSUs that sent nothing lately (only the probe, a stale test) stay off the page.
        out.retain(|r| !r.objects.is_empty() || !r.warnings.is_empty());
        Ok(out)
    }
}

/// Whether an RSU's newest point changed within [`IDLE_MS`] (of wall clock, so that replays at any
/// speed and with any time shift count alike).
fn active(progress: &mut BTreeMap<String, (u64, u64)>, rsu: &str, newest_us: u64, now_ms: u64) -> bool {
    let entry = progress.entry(rsu.to_string()).or_insert((newest_us, now_ms));
    if entry.0 != newest_us {
        *entry = (newest_us, now_ms);
    }
    now_ms.saturating_sub(entry.1) < IDLE_MS
}

async fn scan(conn: &mut redis::aio::ConnectionManager, pattern: &str) -> anyhow::Result<Vec<String>> {
    let mut keys = Vec::new();
    let mut cursor = 0u64;
    loop {
        let (next, batch): (u64, Vec<String>) =
            redis::cmd("SCAN").arg(cursor).arg("MATCH").arg(pattern).arg("COUNT").arg(1000).query_async(conn).await?;
        keys.extend(batch);
        if next == 0 {
            return Ok(keys);
        }
        cursor = next;
    }
}

/// A DENM an RSU received, for the warning log: new, update or termination of its ActionID;
/// with the station that originated it.
pub fn denm_event(
    rsu: &str,
    uper: &[u8],
    announced: &mut std::collections::HashSet<(u32, u16)>,
    p: &Projection,
) -> Option<(DenmEvent, u32)> {
    let denm = etsi_its::denm::decode(uper).ok()?;
    let d = SimpleDenm::from_denm(&denm).ok()?;
    let id = (d.originating_station_id, d.sequence_number);
    let kind = match (d.termination.is_some(), announced.insert(id)) {
        (true, _) => "terminated",
        (false, true) => "new",
        (false, false) => "update",
    };
    if d.termination.is_some() {
        announced.remove(&id);
    }
    let event = DenmEvent {
        rsu: rsu.into(),
        action_id: format!("{}/{}", id.0, id.1),
        kind: kind.into(),
        place: p.xy(f64::from(d.event_lat_e7) / 1e7, f64::from(d.event_lon_e7) / 1e7),
        at_ms: cits::shared::time::now_ms(),
    };
    Some((event, id.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cits::proto::{
        ApproachTurns, CollisionRisk, ObjectPaths, ObjectRef, PredictedPath, PredictedPosition, TrajectoryPoint,
    };

    fn origin() -> Projection {
        Projection(Wgs84 { lat: 47.81, lon: 13.052 })
    }

    fn track(id: u32, class: ObjectClass, points: &[(u64, f64, f64)]) -> Trajectory {
        Trajectory {
            station_id: 1001,
            object_id: id,
            generation: 0,
            classification: class as i32,
            points: points
                .iter()
                .map(|&(t, lat, lon)| TrajectoryPoint {
                    measured_at_us: t,
                    latitude: lat,
                    longitude: lon,
                    speed_mps: Some(5.0),
                    heading_deg: Some(90.0),
                })
                .collect(),
            sensor_id: 1,
            cue: None,
        }
    }

    #[test]
    fn road_users_their_paths_and_warnings_in_metres() {
        let p = origin();
        let tracks = vec![
            (
                "1001/1/7".to_string(),
                track(7, ObjectClass::Car, &[(1_000_000, 47.81, 13.052), (10_000_000, 47.81, 13.0521)]),
            ),
            // Last seen 3 s before the newest point of the RSU: gone.
            ("1001/1/8".to_string(), track(8, ObjectClass::Pedestrian, &[(7_000_000, 47.8101, 13.052)])),
        ];
        let paths = RsuPaths {
            objects: vec![ObjectPaths {
                object_key: "1001/1/7".into(),
                observed_at_us: 10_000_000,
                paths: vec![PredictedPath {
                    mode: TravelMode::Car as i32,
                    probability: 0.8,
                    positions: vec![PredictedPosition {
                        at_us: 11_000_000,
                        latitude: 47.81,
                        longitude: 13.0522,
                        lanelet_id: 1,
                    }],
                    ..Default::default()
                }],
                past: Vec::new(),
            }],
        };
        let warnings = ActiveWarnings {
            warnings: vec![cits::proto::ActiveWarning {
                sequence_number: 3,
                risk: Some(CollisionRisk {
                    first: Some(ObjectRef { object_id: 7, mode: TravelMode::Car as i32, ..Default::default() }),
                    second: Some(ObjectRef { object_id: 9, mode: TravelMode::Pedestrian as i32, ..Default::default() }),
                    conflict_latitude: 47.81,
                    conflict_longitude: 13.052,
                    time_to_collision_s: 2.5,
                    probability: 0.7,
                    ..Default::default()
                }),
                ..Default::default()
            }],
            next_sequence: 4,
        };
        let priors = TurnPriors {
            approaches: vec![ApproachTurns {
                approach_lanelet_id: 1100,
                mode: TravelMode::Car as i32,
                left: 1.0,
                straight: 6.0,
                right: 3.0,
                ..Default::default()
            }],
            updated_at_us: 0,
            ..Default::default()
        };
        let stored = Stored { tracks: &tracks, paths: Some(&paths), warnings: Some(&warnings), priors: Some(&priors) };
        let v = rsu_view("rsu1", "x", stored, Some(1001), &p);
        assert_eq!(
            v.priors,
            vec![PriorView { approach: 1100, mode: "car".into(), tracks: 10.0, shares: [0.1, 0.6, 0.3] }]
        );
        assert_eq!(v.objects.len(), 1, "the pedestrian last seen 3 s before is gone");
        let car = &v.objects[0];
        assert_eq!(car.class, "car");
        assert!((car.position[0] - 7.49).abs() < 0.05, "0.0001° east at 47.81° ≈ 7.5 m: {:?}", car.position);
        assert_eq!(car.trail.len(), 1, "only the last 5 s of the track");
        assert_eq!(car.paths[0].points.len(), 1);
        assert_eq!(v.warnings[0].action_id, "1001/3");
        assert_eq!(v.warnings[0].pair, "car 7 ↔ pedestrian 9");
        assert_eq!(v.warnings[0].place, [0.0, 0.0]);
    }

    #[test]
    fn an_rsu_that_sends_nothing_new_leaves_the_page() {
        let mut progress = BTreeMap::new();
        assert!(active(&mut progress, "rsu1", 5, 1_000));
        assert!(active(&mut progress, "rsu1", 5, 10_999));
        assert!(!active(&mut progress, "rsu1", 5, 11_000), "idle for 10 s");
        assert!(active(&mut progress, "rsu1", 6, 30_000), "a new point brings it back");
    }

    #[test]
    fn the_map_is_in_metres_with_its_bounds() {
        let graph = LaneGraph {
            name: "t".into(),
            origin_latitude: 47.81,
            origin_longitude: 13.052,
            lanelets: vec![cits::proto::Lanelet {
                id: 1,
                mode: TravelMode::Bicycle as i32,
                centerline: vec![13.052, 47.81, 13.052, 47.8101],
                role: "approach".into(),
                ..Default::default()
            }],
        };
        let (m, _) = map_view(&graph);
        assert_eq!(m.lanelets[0].mode, "bicycle");
        assert_eq!(m.lanelets[0].points[0], [0.0, 0.0]);
        assert!((m.bounds[3] - 11.12).abs() < 0.05, "{:?}", m.bounds);
    }
}

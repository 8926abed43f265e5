use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

use cits::shared::geo::SensorPose;

use super::routes::{dist, P};
use super::truth::unix_us;
use super::v2x::{STATION_TYPE_CYCLIST, STATION_TYPE_PEDESTRIAN};
use super::*;
use cits::shared::geo::wgs84_to_offset;
use cits_client::demo::{CENTER, SENSORS, STATION_ID};

fn repo(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

fn graph() -> &'static LaneGraph {
    static GRAPH: OnceLock<LaneGraph> = OnceLock::new();
    GRAPH.get_or_init(|| load_map(&repo("data/map/weiser-gabelsberger.osm")).unwrap())
}

/// The parameters a committed recording was made with, from its truth sidecar.
fn committed(name: &str) -> (Vec<Record>, String, Truth, Params) {
    let records = recording::read_file(&repo(&format!("data/{name}.rec.b64"))).unwrap();
    let text = std::fs::read_to_string(repo(&format!("data/{name}.truth.json"))).unwrap();
    let truth: Truth = serde_json::from_str(&text).unwrap();
    let p = &truth.parameters;
    let params = Params {
        seed: p.seed,
        duration_s: p.duration_s,
        scenarios: p.scenarios,
        density: p.density,
        conditions: Conditions::NOMINAL,
    };
    (records, text, truth, params)
}

fn short() -> &'static Simulation {
    static SHORT: OnceLock<Simulation> = OnceLock::new();
    SHORT.get_or_init(|| simulate(graph(), &committed("short").3).unwrap())
}

fn default_truth() -> &'static (Vec<Record>, String, Truth, Params) {
    static DEFAULT: OnceLock<(Vec<Record>, String, Truth, Params)> = OnceLock::new();
    DEFAULT.get_or_init(|| committed("default"))
}

fn decode(r: &Record) -> SimpleCpm {
    SimpleCpm::from_cpm(&etsi_its::cpm::decode(&r.cpm).unwrap()).unwrap()
}

#[test]
fn same_seed_same_output_other_seed_other_output() {
    let params = Params::new(42, 12);
    let (a, b) = (simulate(graph(), &params).unwrap(), simulate(graph(), &params).unwrap());
    assert!(a.records == b.records);
    assert_eq!(truth_text(&a), truth_text(&b));
    let c = simulate(graph(), &Params { seed: 43, ..params }).unwrap();
    assert!(a.records != c.records);
    assert_ne!(truth_text(&a), truth_text(&c));
}

#[test]
fn committed_short_recording_and_truth_are_up_to_date() {
    let (records, text, _, params) = committed("short");
    let sim = simulate(graph(), &params).unwrap();
    assert!(records == sim.records, "data/short.rec.b64 is stale: run `cits simulate` with {params:?}");
    assert!(text == truth_text(&sim), "data/short.truth.json is stale: run `cits simulate` with {params:?}");
}

#[test]
fn committed_default_recording_and_truth_are_up_to_date() {
    let (records, text, _, params) = default_truth();
    let sim = simulate(graph(), params).unwrap();
    assert!(*records == sim.records, "data/default.rec.b64 is stale: run `cits simulate` with {params:?}");
    assert!(*text == truth_text(&sim), "data/default.truth.json is stale: run `cits simulate` with {params:?}");
}

/// Decoded CPMs, put back into WGS84 with the camera poses, land on the true positions at
/// measurement time within the configured noise.
#[test]
fn decoded_objects_match_ground_truth_within_noise() {
    let sim = short();
    let poses: HashMap<u8, SensorPose> = SENSORS.iter().copied().collect();
    let (mut n, mut pos_err, mut vel_err) = (0usize, 0.0, 0.0);
    for r in &sim.records {
        let cpm = decode(r);
        assert_eq!(cpm.station_id, STATION_ID);
        let ref_us = cits::shared::time::its_ms_to_unix_us(cpm.reference_time_its_ms) as i64 - unix_us(0);
        assert!(r.timestamp_ms as i64 * 1000 >= unix_us(ref_us), "arrives before it is sent");
        for o in &cpm.objects {
            let sensor = o.sensor_id.unwrap();
            let pose = poses[&sensor];
            let t_us = ref_us + i64::from(o.measurement_delta_ms) * 1000;
            let user = sim.user_of(sensor, o.object_id as u8, t_us).expect("every object is a tracked road user");
            assert_eq!(o.class, sim.users[user].kind.object_kind());
            let (truth, velocity) = sim.true_state(user, t_us).unwrap();
            let (ex, ey) = wgs84_to_offset(truth, pose.to_wgs84(f64::from(o.x_cm) / 100.0, f64::from(o.y_cm) / 100.0));
            let limit = 5.0 * POSITION_SIGMA_M + 0.01;
            assert!(
                ex.abs() < limit && ey.abs() < limit,
                "object {} of sensor {sensor}: off by ({ex}, {ey})",
                o.object_id
            );
            let (vx, vy) = o.velocity.unwrap();
            let (ve, vn) = pose.to_east_north(f64::from(vx) / 100.0, f64::from(vy) / 100.0);
            let (dve, dvn) = (ve - velocity.0, vn - velocity.1);
            let limit = 5.0 * VELOCITY_SIGMA_MPS + 0.01;
            assert!(dve.abs() < limit && dvn.abs() < limit, "velocity off by ({dve}, {dvn})");
            n += 1;
            pos_err += ex.hypot(ey);
            vel_err += dve.hypot(dvn);
        }
    }
    assert!(n > 1000, "{n} objects");
    let (pos_mean, vel_mean) = (pos_err / n as f64, vel_err / n as f64);
    // The mean 2D error of isotropic noise is 1.25σ.
    assert!(pos_mean < 2.0 * POSITION_SIGMA_M && pos_mean > 0.8 * POSITION_SIGMA_M, "{pos_mean}");
    assert!(vel_mean < 2.0 * VELOCITY_SIGMA_MPS && vel_mean > 0.8 * VELOCITY_SIGMA_MPS, "{vel_mean}");
}

#[test]
fn short_recording_has_a_conflict_of_every_classic_kind() {
    let kinds: BTreeSet<ConflictKind> = short().conflicts.iter().map(|c| c.kind).collect();
    assert_eq!(kinds.len(), 3, "{kinds:?}");
}

/// When a road user passes `at` (m from the centre) per its 10 Hz trajectory, s since the
/// start, and how close it gets.
fn passage(user: &truth::TruthUser, at: P) -> (f64, f64) {
    let points: Vec<(f64, P)> = user
        .trajectory
        .iter()
        .map(|&(ms, lat, lon)| ((ms - START_UNIX_MS as i64) as f64 / 1e3, wgs84_to_offset(CENTER, Wgs84 { lat, lon })))
        .collect();
    let mut best = (f64::NAN, f64::MAX);
    for w in points.windows(2) {
        let ((t0, a), (t1, b)) = (w[0], w[1]);
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let len2 = dx * dx + dy * dy;
        let f = if len2 > 0.0 { (((at.0 - a.0) * dx + (at.1 - a.1) * dy) / len2).clamp(0.0, 1.0) } else { 0.0 };
        let d = dist(at, (a.0 + f * dx, a.1 + f * dy));
        if d < best.1 {
            best = (t0 + f * (t1 - t0), d);
        }
    }
    best
}

#[test]
fn default_recording_has_the_research_recordings_shape() {
    let (records, _, truth, params) = default_truth();
    assert_eq!(params.duration_s, 207);
    assert!((3000..=3600).contains(&records.len()), "{} CPMs", records.len());
    let (mut objects, mut max, mut out_of_order, mut previous) = (0, 0, 0, 0);
    let mut seen: BTreeMap<(u8, u8), BTreeSet<u32>> = BTreeMap::new();
    let ids: HashMap<u32, &truth::TruthUser> = truth.road_users.iter().map(|u| (u.id, u)).collect();
    for w in records.windows(2) {
        assert!(w[0].timestamp_ms <= w[1].timestamp_ms, "records are in arrival order");
    }
    for r in records {
        let cpm = decode(r);
        objects += cpm.objects.len();
        max = max.max(cpm.objects.len());
        out_of_order += usize::from(cpm.reference_time_its_ms < previous);
        previous = cpm.reference_time_its_ms;
        for o in &cpm.objects {
            seen.entry((o.sensor_id.unwrap(), o.object_id as u8)).or_default();
        }
    }
    let mean = objects as f64 / records.len() as f64;
    assert!((6.0..=10.0).contains(&mean), "mean {mean} objects per CPM");
    assert!(max <= MAX_OBJECTS_PER_CPM);
    assert!(out_of_order >= 1, "no out-of-order record");
    // Tracker ids: per sensor, some id stands for two different road users over time.
    for t in &truth.tracks {
        let key = (t.0, t.1);
        assert!(seen.contains_key(&key), "track {key:?} never reported");
        seen.get_mut(&key).unwrap().insert(t.2);
    }
    for (sensor, _) in SENSORS {
        let reused = seen.iter().filter(|((s, _), users)| *s == sensor && users.len() > 1).count();
        assert!(reused >= 1, "sensor {sensor} never reuses a tracker id");
    }
    // Planted conflicts: both users pass the crossing point within 0.5 s.
    let conflicts = &truth.conflicts;
    let mut planted_pairs = BTreeSet::new();
    for kind in &ConflictKind::ALL[..3] {
        assert!(conflicts.iter().any(|c| c.kind == kind.name()), "no {}", kind.name());
    }
    for c in conflicts {
        let at = wgs84_to_offset(CENTER, Wgs84 { lat: c.lat, lon: c.lon });
        let pair: Vec<u32> = c.users.iter().map(|u| u.id).collect();
        let (ta, da) = passage(ids[&pair[0]], at);
        let (tb, db) = passage(ids[&pair[1]], at);
        assert!(da < 0.1 && db < 0.1, "{c:?}: users pass {da} m / {db} m from the crossing point");
        assert!((ta - tb).abs() <= PLANTED_WINDOW_S, "{c:?}: arrivals {ta} s and {tb} s");
        let t_us = c.time_unix_us - unix_us(0);
        assert!((ta.min(tb) - t_us as f64 / 1e6).abs() < 0.05, "{c:?}: conflict time");
        planted_pairs.insert((pair[0].min(pair[1]), pair[0].max(pair[1])));
    }
    // Everyone else keeps at least 2 m from everyone at every sample.
    let mut at_time: BTreeMap<i64, Vec<(u32, P)>> = BTreeMap::new();
    for u in ids.values() {
        for &(ms, lat, lon) in &u.trajectory {
            at_time.entry(ms).or_default().push((u.id, wgs84_to_offset(CENTER, Wgs84 { lat, lon })));
        }
    }
    for (t, here) in &at_time {
        for (i, (a, pa)) in here.iter().enumerate() {
            for (b, pb) in &here[i + 1..] {
                if planted_pairs.contains(&((*a).min(*b), (*a).max(*b))) {
                    continue;
                }
                assert!(dist(*pa, *pb) >= 2.0, "road users {a} and {b} are {} m apart at {t}", dist(*pa, *pb));
            }
        }
    }
}

#[test]
fn planted_conflicts_list_the_users_tracker_ids() {
    let sim = short();
    for c in &sim.conflicts {
        assert!(c.gap_s <= PLANTED_WINDOW_S);
        // Near the centre both cameras see both road users.
        assert!(c.tracker_ids.iter().all(|(_, ids)| !ids[0].is_empty() && !ids[1].is_empty()), "{c:?}");
    }
}

#[test]
fn library_pedestrians_walk_up_to_the_kerb_classic_ones_start_there() {
    let role = |id: i64| graph().lanelets.iter().find(|l| l.id == id).map_or("?", |l| l.role.as_str());
    for library in [true, false] {
        let site = cits_map::site::Site::of(graph()).unwrap();
        let routes = super::routes::routes_from_graph(graph(), &site.junction, site.centre, library).unwrap();
        let walks: Vec<_> = routes.iter().filter(|r| r.kind == Kind::Pedestrian).collect();
        assert_eq!(walks.len(), 8, "both directions of four crosswalks");
        for r in walks {
            let roles: Vec<&str> = r.legs.iter().map(|(id, _)| role(*id)).collect();
            if library {
                // On the camera's view of the street for a few seconds before she steps off.
                assert_eq!(roles, ["walkway", "crosswalk", "walkway"], "{}", r.describe());
                assert!(r.legs[0].1 >= 4.0, "{}: walks up only {:.1} m", r.describe(), r.legs[0].1);
            } else {
                assert_eq!(roles, ["crosswalk", "walkway"], "{}", r.describe());
            }
        }
    }
}

#[test]
fn vams_come_as_the_vru_basic_service_triggers_them_from_vrus_only() {
    let params = Params { duration_s: 60, conditions: Conditions::named("vams-100").unwrap(), ..Params::new(7, 60) };
    let sim = simulate(graph(), &params).unwrap();
    let mut by_station: HashMap<u32, Vec<(u64, etsi_its::vam::SimpleVam)>> = HashMap::new();
    for r in sim.records.iter().filter(|r| r.ingest() == recording::Ingest::Vam) {
        let vam = etsi_its::vam::SimpleVam::from_vam(&etsi_its::vam::decode(&r.cpm).unwrap()).unwrap();
        by_station.entry(vam.station_id).or_default().push((r.timestamp_ms, vam));
    }
    assert!(by_station.len() > 10, "{} VRUs sent VAMs", by_station.len());
    for (station, vams) in &by_station {
        let user = sim.users.iter().find(|u| u.id + CAM_STATION_BASE == *station).expect("a road user's station");
        let expected = if user.kind == Kind::Bicycle { STATION_TYPE_CYCLIST } else { STATION_TYPE_PEDESTRIAN };
        assert!(user.kind != Kind::Car && vams.iter().all(|(_, v)| v.station_type == expected), "{station}");
        // At least every 5 s (plus the delivery's jitter), never twice within one 100 ms check.
        for w in vams.windows(2) {
            let gap_ms = w[1].0.abs_diff(w[0].0);
            assert!(gap_ms <= 5_000 + 200, "{station}: {gap_ms} ms between VAMs");
        }
        let ticks: BTreeSet<u16> = vams.iter().map(|(_, v)| v.generation_delta_time_ms / 100).collect();
        assert_eq!(ticks.len(), vams.len(), "{station}: two VAMs in one check");
    }
    // A cyclist at cruising speed sends a VAM every 4 m: about one a second, far more than every 5 s.
    let cyclist =
        sim.users.iter().filter(|u| u.kind == Kind::Bicycle).find_map(|u| by_station.get(&(u.id + CAM_STATION_BASE)));
    let cyclist = cyclist.expect("a cyclist's VAMs");
    let span_s = (cyclist.last().unwrap().0 - cyclist[0].0) as f64 / 1000.0;
    assert!(cyclist.len() as f64 > span_s / 2.0, "{} VAMs in {span_s} s", cyclist.len());
    // The same traffic and camera films as without VAMs.
    let nominal = simulate(graph(), &Params { conditions: Conditions::NOMINAL, ..params }).unwrap();
    let cpms =
        |s: &Simulation| s.records.iter().filter(|r| r.ingest() == recording::Ingest::Cpm).cloned().collect::<Vec<_>>();
    assert_eq!(cpms(&sim), cpms(&nominal));
}

#[test]
fn turns_are_taken_at_the_speed_their_bend_allows() {
    // Our right turns bend round 7.3–7.6 m, the lefts round 9.4 m, the cyclists' rights round
    // 5.6–5.9 m: each driver and rider takes its own at √(a·R) within the recorded lateral
    // accelerations, so a right is slower than a left, and none is faster than its bend allows.
    let world = traffic::World::new(graph(), true).unwrap();
    let mut rng = rng::Rng::new(7, 0);
    let mut fastest: HashMap<(Kind, cits::proto::Turn), f64> = HashMap::new();
    for (i, r) in world.routes.iter().enumerate().filter(|(_, r)| r.turn_span.is_some()) {
        let radius = r.turn_radius_m.expect("our connectors bend");
        for _ in 0..50 {
            let turn = world.mover(&mut rng, i, 0.0).turn_mps.unwrap();
            let (gentle, brisk) = if r.kind == Kind::Car { (0.9, 2.6) } else { (1.0, 2.5) };
            assert!(turn >= (gentle * radius).sqrt() - 1e-9, "{} at {turn}", r.describe());
            assert!(turn <= (brisk * radius).sqrt() + 1e-9, "{} at {turn} round {radius} m", r.describe());
            let top = fastest.entry((r.kind, r.turn)).or_default();
            *top = top.max(turn);
        }
    }
    let car = |turn| fastest[&(Kind::Car, turn)];
    assert!(car(cits::proto::Turn::Right) < car(cits::proto::Turn::Left), "{fastest:?}");
    assert!(car(cits::proto::Turn::Right) < 25.0 / 3.6, "{fastest:?}");
}

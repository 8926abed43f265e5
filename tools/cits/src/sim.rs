//! Traffic simulator and RSU emulator: road users drive, ride and walk the Lanelet2 map's lanes;
//! the RSU's two cameras (station 1001, the demo poses) track them and send CPMs the way the
//! research's recording looks — noise, dropouts, lost and late messages, 8-bit tracker ids that
//! get reused. Conflicts are planted on purpose and listed in a ground-truth sidecar; all other
//! traffic is kept conflict-free, so every warning the pipeline raises can be judged.
//!
//! Deterministic: a seed drives a self-contained SplitMix64, so `cits simulate` regenerates the
//! committed `data/*.rec.b64` byte for byte (tests check it).
//!
//! Traffic: cars cruise at 35–50 km/h and slow to 15–25 km/h on left/right connectors (braking
//! 2 m/s², accelerating 1.5 m/s²), turning 25 % left / 55 % straight / 20 % right; cyclists ride
//! 15–22 km/h (12–16 km/h round a right turn), 75 % straight / 25 % right; pedestrians walk
//! 1.1–1.6 m/s across a crosswalk (either way) and round the corner walkway. Each road user
//! follows its lanelets' centerlines; heading is the tangent, velocity speed × tangent.
//!
//! Conflict-free background: a road user is held back at its entry until no shared crossing
//! point sees it within [`CROSSING_WINDOW_S`] of anyone else and it keeps its distance (8 m
//! behind a car on the same lanelet, 4 m bicycle, 2.5 m pedestrians, 2.3 m elsewhere).
//!
//! Frames: the simulation runs in metres east/north of the intersection centre
//! ([`CENTER`]); times are microseconds from the recording start ([`START_UNIX_MS`]). The record
//! timestamp is when the message arrived at the recorder, so the file is in arrival order.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context as _};
use cits::geo::{offset_to_wgs84, wgs84_to_offset, Wgs84};
use cits::proto::{LaneGraph, Lanelet};
use etsi_its::cpm::{ObjectKind, SimpleCpm, SimpleObject};
use serde_json::json;

use crate::demo::{CENTER, SENSORS, START_UNIX_MS, STATION_ID};
use crate::recording::{self, Record};

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

// ------------------------------------------------------------------------------------- PRNG

/// SplitMix64: tiny, fast, good enough for traffic, and identical everywhere.
struct Rng(u64);

impl Rng {
    /// Independent streams per purpose, so tuning the traffic does not reshuffle sensor noise.
    fn new(seed: u64, stream: u64) -> Self {
        let mut r = Rng(seed ^ stream.wrapping_mul(0xA076_1D64_78BD_642F));
        r.next_u64();
        r
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Standard normal (Box–Muller).
    fn gauss(&mut self) -> f64 {
        let u = 1.0 - self.unit(); // (0, 1]
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    fn index(&mut self, n: usize) -> usize {
        (self.unit() * n as f64) as usize % n
    }

    /// Index drawn with the given weights.
    fn weighted(&mut self, weights: &[f64]) -> usize {
        let mut x = self.unit() * weights.iter().sum::<f64>();
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        weights.len() - 1
    }
}

// ------------------------------------------------------------------------------------ routes

type P = (f64, f64); // east, north (m) from the intersection centre

fn dist(a: P, b: P) -> f64 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Car,
    Bicycle,
    Pedestrian,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Car, Kind::Bicycle, Kind::Pedestrian];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Car => "car",
            Kind::Bicycle => "bicycle",
            Kind::Pedestrian => "pedestrian",
        }
    }

    fn object_kind(self) -> ObjectKind {
        match self {
            Kind::Car => ObjectKind::Car,
            Kind::Bicycle => ObjectKind::Bicycle,
            Kind::Pedestrian => ObjectKind::Pedestrian,
        }
    }
}

const ARMS: [&str; 4] = ["north", "east", "south", "west"];

/// Arms are numbered 1..=4 clockwise from north, like the map's ids (leading digit).
fn arm_of(lanelet: i64) -> u8 {
    (lanelet / 1000) as u8
}

fn arm_name(arm: u8) -> &'static str {
    ARMS[(arm as usize + 3) % 4]
}

fn opposite(arm: u8) -> u8 {
    (arm + 1) % 4 + 1
}

/// A way through the intersection: approach → connector → exit (pedestrians: crosswalk →
/// walkway), as one polyline in travel direction.
struct Route {
    kind: Kind,
    lanelets: Vec<i64>,
    /// Approach arm (pedestrians: the crosswalk's arm).
    arm: u8,
    /// "left" / "straight" / "right"; empty for pedestrians.
    turn: String,
    points: Vec<P>,
    /// Arc length at each point.
    cum: Vec<f64>,
    /// (lanelet, arc length where it ends).
    legs: Vec<(i64, f64)>,
    /// Arc-length span of a left or right connector, where vehicles slow down.
    turn_span: Option<(f64, f64)>,
}

impl Route {
    fn length(&self) -> f64 {
        *self.cum.last().unwrap()
    }

    /// Position and unit tangent at arc length `s`.
    fn at(&self, s: f64) -> (P, P) {
        let s = s.clamp(0.0, self.length());
        let i = self.cum.partition_point(|&c| c <= s).clamp(1, self.points.len() - 1);
        let (a, b) = (self.points[i - 1], self.points[i]);
        let d = self.cum[i] - self.cum[i - 1];
        let f = if d > 0.0 { (s - self.cum[i - 1]) / d } else { 0.0 };
        let tangent = if d > 0.0 { ((b.0 - a.0) / d, (b.1 - a.1) / d) } else { (1.0, 0.0) };
        ((a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1)), tangent)
    }

    fn lanelet_at(&self, s: f64) -> i64 {
        self.legs.iter().find(|(_, end)| s <= *end).unwrap_or(self.legs.last().unwrap()).0
    }

    fn describe(&self) -> String {
        match self.kind {
            Kind::Pedestrian => format!("pedestrian across {} crosswalk", arm_name(self.arm)),
            k => format!("{} from {} {}", k.name(), arm_name(self.arm), self.turn),
        }
    }
}

fn local_centerline(l: &Lanelet) -> Vec<P> {
    l.centerline.chunks_exact(2).map(|c| wgs84_to_offset(CENTER, Wgs84 { lat: c[1], lon: c[0] })).collect()
}

fn build_route(kind: Kind, arm: u8, turn: &str, parts: &[(i64, Vec<P>)], turn_lanelet: Option<i64>) -> Route {
    let mut points: Vec<P> = Vec::new();
    let mut legs = Vec::new();
    let mut turn_span = None;
    let mut cum: Vec<f64> = Vec::new();
    for (id, line) in parts {
        let start_s = cum.last().copied().unwrap_or(0.0);
        for &p in line {
            if let Some(&last) = points.last() {
                if dist(last, p) < 1e-6 {
                    continue; // lanelets share their joining point
                }
                cum.push(cum.last().unwrap() + dist(last, p));
            } else {
                cum.push(0.0);
            }
            points.push(p);
        }
        let end_s = *cum.last().unwrap();
        legs.push((*id, end_s));
        if Some(*id) == turn_lanelet {
            turn_span = Some((start_s, end_s));
        }
    }
    Route {
        kind,
        lanelets: parts.iter().map(|p| p.0).collect(),
        arm,
        turn: turn.to_string(),
        points,
        cum,
        legs,
        turn_span,
    }
}

/// Every route the map offers: car and bicycle approach → connector → exit; pedestrian
/// crosswalk (either direction) → the walkway at the end reached.
fn routes_from_graph(graph: &LaneGraph) -> anyhow::Result<Vec<Route>> {
    let by_id: BTreeMap<i64, &Lanelet> = graph.lanelets.iter().map(|l| (l.id, l)).collect();
    let mut routes = Vec::new();
    for approach in graph.lanelets.iter().filter(|l| l.role == "approach") {
        let kind = if approach.mode == cits::proto::TravelMode::Car as i32 { Kind::Car } else { Kind::Bicycle };
        for c in &approach.successors {
            let connector = by_id[c];
            let exit = by_id[connector.successors.first().with_context(|| format!("connector {c} leads nowhere"))?];
            let turning = (connector.turn != "straight").then_some(connector.id);
            let parts = [approach, connector, exit].map(|l| (l.id, local_centerline(l)));
            routes.push(build_route(kind, arm_of(approach.id), &connector.turn, &parts, turning));
        }
    }
    for crosswalk in graph.lanelets.iter().filter(|l| l.role == "crosswalk") {
        for reverse in [false, true] {
            let mut line = local_centerline(crosswalk);
            if reverse {
                line.reverse();
            }
            let end = *line.last().unwrap();
            let walkway = crosswalk
                .successors
                .iter()
                .map(|w| by_id[w])
                .find(|w| {
                    let c = local_centerline(w);
                    dist(c[0], end) < 0.5 || dist(*c.last().unwrap(), end) < 0.5
                })
                .with_context(|| format!("no walkway at an end of crosswalk {}", crosswalk.id))?;
            let mut walk = local_centerline(walkway);
            if dist(walk[0], end) > dist(*walk.last().unwrap(), end) {
                walk.reverse();
            }
            let parts = [(crosswalk.id, line), (walkway.id, walk)];
            routes.push(build_route(Kind::Pedestrian, arm_of(crosswalk.id), "", &parts, None));
        }
    }
    if routes.is_empty() {
        bail!("map {} has no routes", graph.name);
    }
    Ok(routes)
}

/// Where two routes' polylines cross: arc lengths along each and the point.
#[derive(Debug, Clone, Copy)]
struct Crossing {
    s_a: f64,
    s_b: f64,
    at: P,
}

/// All crossings of two routes, in order along `a`. Collinear stretches (a shared lane) are not
/// crossings; the spacing rule covers those. Where routes merge or diverge their polylines touch
/// at one point, which counts.
fn crossings(a: &Route, b: &Route) -> Vec<Crossing> {
    const EPS: f64 = 1e-9;
    let boxes = |r: &Route| -> Vec<[f64; 4]> {
        r.points
            .windows(2)
            .map(|w| [w[0].0.min(w[1].0), w[0].1.min(w[1].1), w[0].0.max(w[1].0), w[0].1.max(w[1].1)])
            .collect()
    };
    let (boxes_a, boxes_b) = (boxes(a), boxes(b));
    let mut found: Vec<Crossing> = Vec::new();
    for (i, ba) in boxes_a.iter().enumerate() {
        let (p, p2) = (a.points[i], a.points[i + 1]);
        let r = (p2.0 - p.0, p2.1 - p.1);
        for (j, bb) in boxes_b.iter().enumerate() {
            if ba[0] > bb[2] + EPS || bb[0] > ba[2] + EPS || ba[1] > bb[3] + EPS || bb[1] > ba[3] + EPS {
                continue;
            }
            let (q, q2) = (b.points[j], b.points[j + 1]);
            let d = (q2.0 - q.0, q2.1 - q.1);
            let denom = r.0 * d.1 - r.1 * d.0;
            if denom.abs() < 1e-6 * r.0.hypot(r.1) * d.0.hypot(d.1) {
                continue; // parallel
            }
            let w = (q.0 - p.0, q.1 - p.1);
            let t = (w.0 * d.1 - w.1 * d.0) / denom;
            let u = (w.0 * r.1 - w.1 * r.0) / denom;
            if !(-EPS..=1.0 + EPS).contains(&t) || !(-EPS..=1.0 + EPS).contains(&u) {
                continue;
            }
            let s_a = a.cum[i] + t.clamp(0.0, 1.0) * (a.cum[i + 1] - a.cum[i]);
            let s_b = b.cum[j] + u.clamp(0.0, 1.0) * (b.cum[j + 1] - b.cum[j]);
            // Touching segment ends report the same crossing twice.
            if found.iter().any(|c| (c.s_a - s_a).abs() < 1.0 && (c.s_b - s_b).abs() < 1.0) {
                continue;
            }
            found.push(Crossing { s_a, s_b, at: (p.0 + t * r.0, p.1 + t * r.1) });
        }
    }
    found.sort_by(|x, y| x.s_a.total_cmp(&y.s_a));
    found
}

// -------------------------------------------------------------------------------- road users

/// A road user on its route: entry time and speed profile (time and speed per arc length).
#[derive(Clone)]
struct Mover {
    kind: Kind,
    route: usize,
    entry_s: f64,
    cruise_mps: f64,
    turn_mps: Option<f64>,
    /// Seconds since entry at each profile sample (every `PROFILE_STEP_M`, last one at the end).
    t: Vec<f64>,
    v: Vec<f64>,
    step: f64,
}

impl Mover {
    fn new(routes: &[Route], route: usize, entry_s: f64, cruise_mps: f64, turn_mps: Option<f64>) -> Self {
        let r = &routes[route];
        let n = ((r.length() / PROFILE_STEP_M).ceil() as usize).max(1);
        let step = r.length() / n as f64;
        let speed = |s: f64| match (r.turn_span, turn_mps) {
            (Some((a, _)), Some(vt)) if s < a => cruise_mps.min((vt * vt + 2.0 * BRAKING_MPS2 * (a - s)).sqrt()),
            (Some((_, b)), Some(vt)) if s > b => cruise_mps.min((vt * vt + 2.0 * ACCELERATION_MPS2 * (s - b)).sqrt()),
            (Some(_), Some(vt)) => vt,
            _ => cruise_mps,
        };
        let v: Vec<f64> = (0..=n).map(|i| speed(i as f64 * step)).collect();
        let mut t = vec![0.0];
        for i in 1..=n {
            t.push(t[i - 1] + 2.0 * step / (v[i - 1] + v[i]));
        }
        Mover { kind: routes[route].kind, route, entry_s, cruise_mps, turn_mps, t, v, step }
    }

    fn exit_s(&self) -> f64 {
        self.entry_s + self.t.last().unwrap()
    }

    /// Arc length and speed at absolute time `time_s`, `None` outside the route.
    fn s_at(&self, time_s: f64) -> Option<(f64, f64)> {
        let rel = time_s - self.entry_s;
        if rel < 0.0 || rel > *self.t.last().unwrap() {
            return None;
        }
        let i = self.t.partition_point(|&x| x <= rel).clamp(1, self.t.len() - 1);
        let f = (rel - self.t[i - 1]) / (self.t[i] - self.t[i - 1]);
        Some(((i - 1) as f64 * self.step + f * self.step, self.v[i - 1] + f * (self.v[i] - self.v[i - 1])))
    }

    /// Absolute time at arc length `s`.
    fn time_at(&self, s: f64) -> f64 {
        let x = (s / self.step).clamp(0.0, (self.t.len() - 1) as f64);
        let i = (x.floor() as usize).min(self.t.len() - 2);
        self.entry_s + self.t[i] + (x - i as f64) * (self.t[i + 1] - self.t[i])
    }

    /// Position, velocity (east/north, m/s) and lanelet at `time_s`.
    fn state(&self, routes: &[Route], time_s: f64) -> Option<(P, P, i64)> {
        let (s, v) = self.s_at(time_s)?;
        let r = &routes[self.route];
        let (p, tangent) = r.at(s);
        Some((p, (v * tangent.0, v * tangent.1), r.lanelet_at(s)))
    }
}

/// The map's routes and their pairwise crossings.
struct World {
    routes: Vec<Route>,
    crossings: Vec<Vec<Vec<Crossing>>>,
}

impl World {
    fn new(graph: &LaneGraph) -> anyhow::Result<Self> {
        let routes = routes_from_graph(graph)?;
        let n = routes.len();
        let mut table = vec![vec![Vec::new(); n]; n];
        for a in 0..n {
            for b in a + 1..n {
                let found = crossings(&routes[a], &routes[b]);
                let mut mirrored: Vec<Crossing> =
                    found.iter().map(|c| Crossing { s_a: c.s_b, s_b: c.s_a, at: c.at }).collect();
                mirrored.sort_by(|x, y| x.s_a.total_cmp(&y.s_a));
                table[a][b] = found;
                table[b][a] = mirrored;
            }
        }
        let crossings = table;
        Ok(World { routes, crossings })
    }

    fn find_route(&self, kind: Kind, arm: u8, turn: &str) -> Option<usize> {
        self.routes.iter().position(|r| r.kind == kind && r.arm == arm && r.turn == turn)
    }

    /// The first crossing (along `a`) both reach within `window_s` of each other, with their
    /// arrival times. The one test used to plant conflicts and to keep other traffic clear.
    fn close_crossing(&self, a: &Mover, b: &Mover, window_s: f64) -> Option<(Crossing, f64, f64)> {
        if a.entry_s > b.exit_s() + window_s || b.entry_s > a.exit_s() + window_s {
            return None;
        }
        self.crossings[a.route][b.route].iter().find_map(|c| {
            let (ta, tb) = (a.time_at(c.s_a), b.time_at(c.s_b));
            ((ta - tb).abs() <= window_s).then_some((*c, ta, tb))
        })
    }

    /// Closer than road users keep to each other: following on one lanelet needs a real gap,
    /// anywhere else (adjacent lanes, passing pedestrians) a little more than the 2 m the
    /// conflict-free check demands.
    fn too_close(&self, a: &Mover, b: &Mover) -> bool {
        let (from, to) = (a.entry_s.max(b.entry_s), a.exit_s().min(b.exit_s()));
        // The distance shrinks at most by the sum of top speeds per second: skip ahead while far.
        let closing = a.cruise_mps.max(a.turn_mps.unwrap_or(0.0)) + b.cruise_mps.max(b.turn_mps.unwrap_or(0.0));
        let mut t = from;
        while t <= to {
            let mut step = 0.1;
            if let (Some((pa, _, la)), Some((pb, _, lb))) = (a.state(&self.routes, t), b.state(&self.routes, t)) {
                let gap = if la != lb {
                    2.3
                } else if a.kind == Kind::Car || b.kind == Kind::Car {
                    8.0
                } else if a.kind == Kind::Bicycle || b.kind == Kind::Bicycle {
                    4.0
                } else {
                    2.5
                };
                let d = dist(pa, pb);
                if d < gap {
                    return true;
                }
                step = f64::max(step, (d - 8.0) / closing);
            }
            t += step;
        }
        false
    }

    fn compatible(&self, a: &Mover, b: &Mover) -> bool {
        self.close_crossing(a, b, CROSSING_WINDOW_S).is_none() && !self.too_close(a, b)
    }

    /// A road user of `kind` on `route` with random speeds from the kind's range.
    fn mover(&self, rng: &mut Rng, route: usize, entry_s: f64) -> Mover {
        let r = &self.routes[route];
        let (cruise, turn) = match r.kind {
            Kind::Car => (kmh(rng.range(35.0, 50.0)), r.turn_span.map(|_| kmh(rng.range(15.0, 25.0)))),
            Kind::Bicycle => {
                let v = kmh(rng.range(15.0, 22.0));
                (v, r.turn_span.map(|_| v.min(kmh(rng.range(12.0, 16.0)))))
            }
            Kind::Pedestrian => (rng.range(1.1, 1.6), None),
        };
        Mover::new(&self.routes, route, entry_s, cruise, turn)
    }

    /// A random route for a background road user: cars favour the east–west axis through the
    /// viaduct, cyclists the north–south commute; turning mix as in the module docs.
    fn random_route(&self, rng: &mut Rng, kind: Kind) -> usize {
        let pick = |rng: &mut Rng, weights: &[f64; 4]| rng.weighted(weights) as u8 + 1;
        let found = match kind {
            Kind::Car => {
                let arm = pick(rng, &[1.0, 1.5, 1.0, 1.5]);
                let turn = ["left", "straight", "right"][rng.weighted(&[0.25, 0.55, 0.20])];
                self.find_route(kind, arm, turn)
            }
            Kind::Bicycle => {
                let arm = pick(rng, &[1.5, 1.0, 1.5, 1.0]);
                self.find_route(kind, arm, ["straight", "right"][rng.weighted(&[0.75, 0.25])])
            }
            Kind::Pedestrian => {
                let peds: Vec<usize> = (0..self.routes.len()).filter(|&i| self.routes[i].kind == kind).collect();
                Some(peds[rng.index(peds.len())])
            }
        };
        found.unwrap_or_else(|| {
            // A map without the preferred turn: any route of the kind.
            (0..self.routes.len()).find(|&i| self.routes[i].kind == kind).expect("every kind has a route")
        })
    }
}

// ---------------------------------------------------------------------------- conflicts

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConflictKind {
    /// A car turning right across the bicycle lane of its own arm, a cyclist going straight on.
    RightTurnVsStraightCyclist,
    /// A car turning left across the path of a cyclist coming straight from the opposite arm.
    LeftTurnVsOncomingCyclist,
    /// A car turning into an arm while a pedestrian crosses that arm's crosswalk.
    TurningCarVsPedestrian,
}

impl ConflictKind {
    pub const ALL: [ConflictKind; 3] = [
        ConflictKind::RightTurnVsStraightCyclist,
        ConflictKind::LeftTurnVsOncomingCyclist,
        ConflictKind::TurningCarVsPedestrian,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ConflictKind::RightTurnVsStraightCyclist => "right_turn_car_vs_straight_cyclist",
            ConflictKind::LeftTurnVsOncomingCyclist => "left_turn_car_vs_oncoming_cyclist",
            ConflictKind::TurningCarVsPedestrian => "turning_car_vs_crossing_pedestrian",
        }
    }
}

/// A conflict planted on purpose: `users` (indices into [`Simulation::users`]) reach `at` within
/// [`PLANTED_WINDOW_S`].
#[derive(Debug, Clone)]
pub struct PlantedConflict {
    pub kind: ConflictKind,
    /// When the first of the two reaches the crossing point, µs from the recording start.
    pub time_us: i64,
    pub at: Wgs84,
    /// Arrival gap at the crossing point, s.
    pub gap_s: f64,
    pub users: [usize; 2],
    /// Per sensor, the tracker ids each user held within ±2 s of the conflict.
    pub tracker_ids: Vec<(u8, [Vec<u8>; 2])>,
}

/// The two routes of a conflict of `kind`, the car's first: random arm and (for pedestrians)
/// turn and walking direction.
fn conflict_routes(world: &World, rng: &mut Rng, kind: ConflictKind) -> Option<(usize, usize)> {
    let arm = rng.index(4) as u8 + 1;
    match kind {
        ConflictKind::RightTurnVsStraightCyclist => {
            Some((world.find_route(Kind::Car, arm, "right")?, world.find_route(Kind::Bicycle, arm, "straight")?))
        }
        ConflictKind::LeftTurnVsOncomingCyclist => Some((
            world.find_route(Kind::Car, arm, "left")?,
            world.find_route(Kind::Bicycle, opposite(arm), "straight")?,
        )),
        ConflictKind::TurningCarVsPedestrian => {
            let (turn, into) = if rng.chance(0.5) { ("left", arm % 4 + 1) } else { ("right", (arm + 2) % 4 + 1) };
            let car = world.find_route(Kind::Car, arm, turn)?;
            let peds: Vec<usize> = (0..world.routes.len())
                .filter(|&i| world.routes[i].kind == Kind::Pedestrian && world.routes[i].arm == into)
                .collect();
            (!peds.is_empty()).then(|| (car, peds[rng.index(peds.len())]))
        }
    }
}

/// Plants a conflict of `kind` around `time_s`: both users are timed to reach their routes'
/// first crossing within ±0.3 s of each other, and must keep clear of everyone already placed.
fn plant(world: &World, rng: &mut Rng, kind: ConflictKind, time_s: f64, placed: &[Mover]) -> Option<[Mover; 2]> {
    for _ in 0..50 {
        let (ra, rb) = conflict_routes(world, rng, kind)?;
        let Some(c) = world.crossings[ra][rb].first().copied() else { continue };
        let t = time_s + rng.range(-1.5, 1.5);
        let probe_a = world.mover(rng, ra, 0.0);
        let probe_b = world.mover(rng, rb, 0.0);
        let a = Mover { entry_s: t - probe_a.time_at(c.s_a), ..probe_a };
        let b = Mover { entry_s: t + rng.range(-0.3, 0.3) - probe_b.time_at(c.s_b), ..probe_b };
        let planted = world.close_crossing(&a, &b, PLANTED_WINDOW_S);
        if planted.is_none_or(|(found, _, _)| (found.s_a - c.s_a).abs() > 1e-9) {
            continue;
        }
        if placed.iter().all(|p| world.compatible(p, &a) && world.compatible(p, &b)) {
            return Some([a, b]);
        }
    }
    None
}

// -------------------------------------------------------------------------------- simulation

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    pub seed: u64,
    pub duration_s: u32,
}

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
}

impl Simulation {
    /// True position and velocity (east/north) of user `index` at `t_us` (µs from the start).
    pub fn true_state(&self, index: usize, t_us: i64) -> Option<(Wgs84, (f64, f64))> {
        let (p, v, _) = self.users[index].mover.state(&self.routes, t_us as f64 / 1e6)?;
        Some((offset_to_wgs84(CENTER, p.0, p.1), v))
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

/// Places the road users: planted conflicts first, evenly over the recording and cycling through
/// the kinds, then Poisson background traffic held back until it clears everyone placed.
fn schedule(world: &World, params: &Params) -> (Vec<Mover>, Vec<(ConflictKind, [usize; 2])>) {
    let mut rng = Rng::new(params.seed, 1);
    let duration = f64::from(params.duration_s);
    let mut movers: Vec<Mover> = Vec::new();
    let mut planted = Vec::new();
    let n = ((duration / 25.0).round() as usize).max(3);
    let (first, last) = (6.0, (duration - 4.0).max(7.0));
    for k in 0..n {
        let kind = ConflictKind::ALL[k % 3];
        let time = first + (last - first) * k as f64 / (n - 1) as f64;
        if let Some(pair) = plant(world, &mut rng, kind, time, &movers) {
            planted.push((kind, [movers.len(), movers.len() + 1]));
            movers.extend(pair);
        }
    }
    let mut arrivals: Vec<(f64, Kind)> = Vec::new();
    for (kind, rate) in ARRIVALS_PER_S {
        let mut t = -WARM_UP_S;
        loop {
            t += -(1.0 - rng.unit()).ln() / rate;
            if t >= duration {
                break;
            }
            arrivals.push((t, kind));
        }
    }
    arrivals.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for (t, kind) in arrivals {
        let route = world.random_route(&mut rng, kind);
        let mut candidate = world.mover(&mut rng, route, t);
        for _ in 0..HOLD_BACK_TRIES {
            if candidate.entry_s >= duration {
                break;
            }
            if movers.iter().all(|m| world.compatible(m, &candidate)) {
                movers.push(candidate);
                break;
            }
            candidate.entry_s += HOLD_BACK_S;
        }
    }
    (movers, planted)
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
    let world = World::new(graph)?;
    let (movers, planted) = schedule(&world, params);
    let duration_us = i64::from(params.duration_s) * 1_000_000;

    // Road users who are around while the cameras run, numbered by entry time.
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

    // The cameras.
    let mut rng = Rng::new(params.seed, 2);
    let mut trackers: Vec<Tracker> = SENSORS
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
    let mut sent: Vec<(u64, u64, Record)> = Vec::new(); // (arrival µs, sequence, record)
    let mut lost = 0;
    let ticks = duration_us / PERIOD_US;
    for tick in 0..ticks {
        for (s, (sensor_id, pose)) in SENSORS.iter().enumerate() {
            let ref_us = tick * PERIOD_US + PHASE_US[s];
            let meas_us = ref_us + i64::from(MEASUREMENT_DELTA_MS) * 1000;
            let meas_s = meas_us as f64 / 1e6;
            let tracker = &mut trackers[s];
            tracker.active.retain(|_, a| meas_us - a.1 <= TRACK_TIMEOUT_US);
            let mut objects: Vec<(f64, SimpleObject)> = Vec::new();
            for (u, user) in users.iter().enumerate() {
                let Some((p, v, _)) = user.mover.state(&world.routes, meas_s) else { continue };
                let (x, y) = pose.from_wgs84(offset_to_wgs84(CENTER, p.0, p.1));
                let range = x.hypot(y);
                if range > RANGE_M || y.atan2(x).to_degrees().abs() > HALF_FOV_DEG {
                    continue;
                }
                if tracker.occluded_until.get(&u).is_some_and(|&until| meas_us < until) {
                    continue;
                }
                if rng.chance(OCCLUSION_P) {
                    tracker.occluded_until.insert(u, meas_us + (rng.range(1.2, 2.5) * 1e6) as i64);
                    continue;
                }
                if rng.chance(DROPOUT_P) {
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
                let yaw = vy.atan2(vx).to_degrees() + YAW_SIGMA_DEG * rng.gauss();
                let (nx, ny) = (x + POSITION_SIGMA_M * rng.gauss(), y + POSITION_SIGMA_M * rng.gauss());
                let (nvx, nvy) = (vx + VELOCITY_SIGMA_MPS * rng.gauss(), vy + VELOCITY_SIGMA_MPS * rng.gauss());
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
                + if rng.chance(LATE_P) { rng.range(LATE_US.0, LATE_US.1) } else { 0.0 };
            if rng.chance(MESSAGE_LOSS_P) {
                lost += 1;
                continue;
            }
            let ref_unix_us = START_UNIX_MS * 1000 + ref_us as u64;
            let cpm = SimpleCpm {
                protocol_version: 2,
                station_id: STATION_ID,
                reference_time_its_ms: cits::time::unix_us_to_its_ms(ref_unix_us),
                reference_lat_e7: (CENTER.lat * 1e7).round() as i32,
                reference_lon_e7: (CENTER.lon * 1e7).round() as i32,
                sensors: vec![(*sensor_id, SENSOR_TYPE_CAMERA)],
                objects: objects.into_iter().map(|o| o.1).collect(),
            };
            let bytes = etsi_its::cpm::encode(&cpm.to_cpm()).context("simulated CPM does not encode")?;
            let arrival_us = ref_unix_us + latency as u64;
            sent.push((arrival_us, sent.len() as u64, Record { timestamp_ms: arrival_us / 1000, cpm: bytes }));
        }
    }
    sent.sort_by_key(|s| (s.0, s.1));
    let records: Vec<Record> = sent.into_iter().map(|s| s.2).collect();

    let conflicts: Vec<PlantedConflict> = planted
        .iter()
        .filter_map(|(kind, pair)| {
            let users_ix = [*index_of.get(&pair[0])?, *index_of.get(&pair[1])?];
            let (c, ta, tb) = world.close_crossing(&movers[pair[0]], &movers[pair[1]], PLANTED_WINDOW_S)?;
            let time_us = (ta.min(tb) * 1e6).round() as i64;
            let tracker_ids = SENSORS
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
                at: offset_to_wgs84(CENTER, c.at.0, c.at.1),
                gap_s: (ta - tb).abs(),
                users: users_ix,
                tracker_ids,
            })
        })
        .collect();

    let summary = summarize(params, &records, &users, &conflicts, &trackers, lost)?;
    Ok(Simulation {
        params: *params,
        map_name: graph.name.clone(),
        records,
        users,
        conflicts,
        tracks,
        summary,
        routes: world.routes,
    })
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
    for r in records {
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
        cpms: records.len(),
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

// ---------------------------------------------------------------------------- ground truth

fn round7(x: f64) -> f64 {
    (x * 1e7).round() / 1e7
}

fn unix_us(rel_us: i64) -> i64 {
    START_UNIX_MS as i64 * 1000 + rel_us
}

/// The ground-truth sidecar: parameters, every road user with its trajectory at 10 Hz, the
/// tracker ids' lives, and the planted conflicts.
pub fn truth_json(sim: &Simulation) -> serde_json::Value {
    let sensors: Vec<_> = SENSORS
        .iter()
        .enumerate()
        .map(|(i, (id, pose))| {
            json!({
                "sensor_id": id, "lat": pose.origin.lat, "lon": pose.origin.lon,
                "x_axis_heading_deg": pose.x_axis_heading_deg, "range_m": RANGE_M, "half_fov_deg": HALF_FOV_DEG,
                "period_ms": PERIOD_US / 1000, "phase_ms": PHASE_US[i] / 1000,
            })
        })
        .collect();
    let duration_us = i64::from(sim.params.duration_s) * 1_000_000;
    let users: Vec<_> = sim
        .users
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let first = (u.entry_us.max(-1_000_000) + TRUTH_STEP_US - 1).div_euclid(TRUTH_STEP_US) * TRUTH_STEP_US;
            let trajectory: Vec<_> = (0..)
                .map(|k| first + k * TRUTH_STEP_US)
                .take_while(|&t| t <= u.exit_us.min(duration_us + 1_000_000))
                .filter_map(|t| {
                    let (p, _) = sim.true_state(i, t)?;
                    Some(json!([unix_us(t) / 1000, round7(p.lat), round7(p.lon)]))
                })
                .collect();
            json!({
                "id": u.id, "kind": u.kind.name(), "route": u.route, "description": u.description,
                "entry_unix_us": unix_us(u.entry_us), "exit_unix_us": unix_us(u.exit_us),
                "speed_kmh": { "cruise": (u.cruise_kmh * 10.0).round() / 10.0,
                               "turn": u.turn_kmh.map(|v| (v * 10.0).round() / 10.0) },
                "trajectory": trajectory,
            })
        })
        .collect();
    let conflicts: Vec<_> = sim
        .conflicts
        .iter()
        .map(|c| {
            let user = |i: usize| {
                let u = &sim.users[i];
                json!({ "id": u.id, "kind": u.kind.name(), "route": u.route, "description": u.description })
            };
            json!({
                "kind": c.kind.name(), "time_unix_us": unix_us(c.time_us),
                "lat": round7(c.at.lat), "lon": round7(c.at.lon),
                "arrival_gap_s": (c.gap_s * 1000.0).round() / 1000.0,
                "users": [user(c.users[0]), user(c.users[1])],
                "tracker_ids": c.tracker_ids.iter().map(|(s, ids)| json!({
                    "sensor_id": s,
                    "ids": [ids[0], ids[1]],
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let tracks: Vec<_> = sim
        .tracks
        .iter()
        .map(|t| {
            json!([
                t.sensor_id,
                t.tracker_id,
                sim.users[t.user].id,
                unix_us(t.first_us) / 1000,
                unix_us(t.last_us) / 1000
            ])
        })
        .collect();
    let s = &sim.summary;
    json!({
        "format": "cits-sim-truth/1",
        "parameters": {
            "seed": sim.params.seed, "duration_s": sim.params.duration_s, "map": sim.map_name,
            "start_unix_ms": START_UNIX_MS, "station_id": STATION_ID, "sensors": sensors,
            "measurement_delta_ms": MEASUREMENT_DELTA_MS,
            "noise": { "position_sigma_m": POSITION_SIGMA_M, "velocity_sigma_mps": VELOCITY_SIGMA_MPS,
                       "yaw_sigma_deg": YAW_SIGMA_DEG, "dropout_p": DROPOUT_P, "occlusion_p": OCCLUSION_P,
                       "message_loss_p": MESSAGE_LOSS_P, "late_p": LATE_P,
                       "track_timeout_ms": TRACK_TIMEOUT_US / 1000 },
        },
        "summary": {
            "cpms": s.cpms, "objects_per_cpm_mean": (s.objects_mean * 100.0).round() / 100.0,
            "objects_per_cpm_max": s.objects_max, "road_users": s.users_by_kind, "conflicts": s.conflicts_by_kind,
            "id_reuses": s.id_reuses.iter().map(|(k, v)| (k.to_string(), *v)).collect::<BTreeMap<_, _>>(),
            "out_of_order_records": s.out_of_order, "lost_messages": s.lost_messages,
        },
        "road_users": users,
        "conflicts": conflicts,
        "tracks_columns": ["sensor_id", "tracker_id", "road_user", "first_unix_ms", "last_unix_ms"],
        "tracks": tracks,
    })
}

/// Loads the map, simulates, and writes the recording and the ground truth.
pub fn simulate_to_files(osm: &Path, params: &Params, out: &Path, truth: &Path) -> anyhow::Result<Summary> {
    let sim = simulate(&load_map(osm)?, params)?;
    let file = std::fs::File::create(out).with_context(|| format!("cannot write {}", out.display()))?;
    recording::write(std::io::BufWriter::new(file), &sim.records)?;
    std::fs::write(truth, truth_text(&sim)).with_context(|| format!("cannot write {}", truth.display()))?;
    Ok(sim.summary)
}

pub fn truth_text(sim: &Simulation) -> String {
    format!("{}\n", truth_json(sim))
}

pub fn load_map(osm: &Path) -> anyhow::Result<LaneGraph> {
    let xml = std::fs::read_to_string(osm).with_context(|| format!("cannot read {}", osm.display()))?;
    let name = osm.file_stem().and_then(|s| s.to_str()).unwrap_or("map");
    crate::map::lane_graph_from_osm(&xml, name).with_context(|| format!("in {}", osm.display()))
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeSet, HashMap};
    use std::sync::OnceLock;

    use cits::geo::SensorPose;

    use super::*;

    fn repo(path: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
    }

    fn graph() -> &'static LaneGraph {
        static GRAPH: OnceLock<LaneGraph> = OnceLock::new();
        GRAPH.get_or_init(|| load_map(&repo("data/map/weiser-gabelsberger.osm")).unwrap())
    }

    /// The parameters a committed recording was made with, from its truth sidecar.
    fn committed(name: &str) -> (Vec<Record>, String, serde_json::Value, Params) {
        let records = recording::read_file(&repo(&format!("data/{name}.rec.b64"))).unwrap();
        let text = std::fs::read_to_string(repo(&format!("data/{name}.truth.json"))).unwrap();
        let truth: serde_json::Value = serde_json::from_str(&text).unwrap();
        let p = &truth["parameters"];
        let params = Params { seed: p["seed"].as_u64().unwrap(), duration_s: p["duration_s"].as_u64().unwrap() as u32 };
        (records, text, truth, params)
    }

    fn short() -> &'static Simulation {
        static SHORT: OnceLock<Simulation> = OnceLock::new();
        SHORT.get_or_init(|| simulate(graph(), &committed("short").3).unwrap())
    }

    fn default_truth() -> &'static (Vec<Record>, String, serde_json::Value, Params) {
        static DEFAULT: OnceLock<(Vec<Record>, String, serde_json::Value, Params)> = OnceLock::new();
        DEFAULT.get_or_init(|| committed("default"))
    }

    fn decode(r: &Record) -> SimpleCpm {
        SimpleCpm::from_cpm(&etsi_its::cpm::decode(&r.cpm).unwrap()).unwrap()
    }

    #[test]
    fn same_seed_same_output_other_seed_other_output() {
        let params = Params { seed: 42, duration_s: 12 };
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
            let ref_us = cits::time::its_ms_to_unix_us(cpm.reference_time_its_ms) as i64 - unix_us(0);
            assert!(r.timestamp_ms as i64 * 1000 >= unix_us(ref_us), "arrives before it is sent");
            for o in &cpm.objects {
                let sensor = o.sensor_id.unwrap();
                let pose = poses[&sensor];
                let t_us = ref_us + i64::from(o.measurement_delta_ms) * 1000;
                let user = sim.user_of(sensor, o.object_id as u8, t_us).expect("every object is a tracked road user");
                assert_eq!(o.class, sim.users[user].kind.object_kind());
                let (truth, velocity) = sim.true_state(user, t_us).unwrap();
                let (ex, ey) =
                    wgs84_to_offset(truth, pose.to_wgs84(f64::from(o.x_cm) / 100.0, f64::from(o.y_cm) / 100.0));
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
    fn short_recording_has_a_conflict_of_every_kind() {
        let kinds: BTreeSet<ConflictKind> = short().conflicts.iter().map(|c| c.kind).collect();
        assert_eq!(kinds.len(), 3, "{kinds:?}");
    }

    /// When a road user passes `at` (m from the centre) per its 10 Hz trajectory, s since the
    /// start, and how close it gets.
    fn passage(user: &serde_json::Value, at: P) -> (f64, f64) {
        let points: Vec<(f64, P)> = user["trajectory"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let p = wgs84_to_offset(CENTER, Wgs84 { lat: s[1].as_f64().unwrap(), lon: s[2].as_f64().unwrap() });
                ((s[0].as_i64().unwrap() - START_UNIX_MS as i64) as f64 / 1e3, p)
            })
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
        let mut seen: BTreeMap<(u8, u8), BTreeSet<i64>> = BTreeMap::new();
        let ids: HashMap<i64, &serde_json::Value> =
            truth["road_users"].as_array().unwrap().iter().map(|u| (u["id"].as_i64().unwrap(), u)).collect();
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
        for t in truth["tracks"].as_array().unwrap() {
            let key = (t[0].as_u64().unwrap() as u8, t[1].as_u64().unwrap() as u8);
            assert!(seen.contains_key(&key), "track {key:?} never reported");
            seen.get_mut(&key).unwrap().insert(t[2].as_i64().unwrap());
        }
        for (sensor, _) in SENSORS {
            let reused = seen.iter().filter(|((s, _), users)| *s == sensor && users.len() > 1).count();
            assert!(reused >= 1, "sensor {sensor} never reuses a tracker id");
        }
        // Planted conflicts: both users pass the crossing point within 0.5 s.
        let conflicts = truth["conflicts"].as_array().unwrap();
        let mut planted_pairs = BTreeSet::new();
        for kind in ConflictKind::ALL {
            assert!(conflicts.iter().any(|c| c["kind"] == kind.name()), "no {}", kind.name());
        }
        for c in conflicts {
            let at =
                wgs84_to_offset(CENTER, Wgs84 { lat: c["lat"].as_f64().unwrap(), lon: c["lon"].as_f64().unwrap() });
            let pair: Vec<i64> = c["users"].as_array().unwrap().iter().map(|u| u["id"].as_i64().unwrap()).collect();
            let (ta, da) = passage(ids[&pair[0]], at);
            let (tb, db) = passage(ids[&pair[1]], at);
            assert!(da < 0.1 && db < 0.1, "{c}: users pass {da} m / {db} m from the crossing point");
            assert!((ta - tb).abs() <= PLANTED_WINDOW_S, "{c}: arrivals {ta} s and {tb} s");
            let t_us = c["time_unix_us"].as_i64().unwrap() - unix_us(0);
            assert!((ta.min(tb) - t_us as f64 / 1e6).abs() < 0.05, "{c}: conflict time");
            planted_pairs.insert((pair[0].min(pair[1]), pair[0].max(pair[1])));
        }
        // Everyone else keeps at least 2 m from everyone at every sample.
        let mut at_time: BTreeMap<i64, Vec<(i64, P)>> = BTreeMap::new();
        for u in ids.values() {
            for s in u["trajectory"].as_array().unwrap() {
                let p = wgs84_to_offset(CENTER, Wgs84 { lat: s[1].as_f64().unwrap(), lon: s[2].as_f64().unwrap() });
                at_time.entry(s[0].as_i64().unwrap()).or_default().push((u["id"].as_i64().unwrap(), p));
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
}

//! Road users on their routes: speed profiles, and the world's rules for keeping them apart.

use cits::proto::{LaneGraph, Turn};

use super::rng::Rng;
use super::routes::{crossings, dist, routes_from_graph, Crossing, Kind, Route, P};
use super::*;
use cits_map::site::Site;

/// A road user on its route: entry time and speed profile (time and speed per arc length).
#[derive(Clone)]
pub(super) struct Mover {
    pub(super) kind: Kind,
    pub(super) route: usize,
    pub(super) entry_s: f64,
    pub(super) cruise_mps: f64,
    pub(super) turn_mps: Option<f64>,
    /// Seconds since entry at each profile sample (every `PROFILE_STEP_M`, last one at the end).
    pub(super) t: Vec<f64>,
    pub(super) v: Vec<f64>,
    pub(super) step: f64,
    /// A stop (yielding): the profile sample where the road user stands, and for how long (s).
    pub(super) stop: Option<(usize, f64)>,
    /// Where in its lane the road user keeps (m left of the centerline, [`LanePosition`]).
    pub(super) lane_position: LanePosition,
    /// A recorded road user's track, played back instead of the profile along the route
    /// ([`super::recorded`]).
    pub(super) recorded: Option<std::sync::Arc<super::recorded::Playback>>,
}

/// Lateral position in the lane: drivers and riders keep a little off the centerline (a bias
/// of their own) and, before a turn, move over to the side they turn to — towards the centre
/// line for a left turn, the kerb for a right one — back to the centerline once on the
/// connector. This is the cue a real RSU sees before any turn (no CPM carries a turn signal).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct LanePosition {
    /// The road user's own offset, m (positive: left of the centerline).
    pub(super) bias_m: f64,
    /// The offset reached at the stop line before a turn (signed like `bias_m`), m.
    pub(super) turn_m: f64,
    /// Over how many metres before the connector the move happens.
    pub(super) over_m: f64,
}

/// Largest lateral move before a turn (cars, cyclists) and over how long it happens, m.
const TURN_SHIFT_M: [(Kind, f64, f64); 2] = [(Kind::Car, 0.6, 30.0), (Kind::Bicycle, 0.25, 15.0)];
/// A road user's own offset from the centerline is drawn from ±this, m.
const LANE_BIAS_M: f64 = 0.15;
/// The behaviour library's drivers and riders (the evaluation's traffic, not the committed
/// recordings'): no turning road user is one driver. No published share was found for either,
/// so each is a large one, not a rare case — and not the predictor's own constants.
/// Of turning drivers, the share that approach at their turn speed and turn without braking.
const STEADY_TURN_SHARE: f64 = 0.3;
/// Of turning drivers and riders, the share that do not move over in their lane first.
const NO_MOVE_OVER_SHARE: f64 = 0.4;
/// Where riders keep in their lane, m left of its centerline: from the kerb side to mid-lane.
const RIDER_BIAS_M: (f64, f64) = (-0.3, 0.1);

/// Lateral acceleration (m/s²) a driver takes a turn with, one drawn per driver: recorded turns
/// (INTERACTION EP0, 43 of them: 0.85–2.5 m/s² from the 10th to the 90th percentile); the turn
/// speed is √(a·R) on the connector's tightest bend R, so a tight right is slower than a
/// sweeping left. Riders: up to a lean of about 14°.
const CAR_TURN_LATERAL_MPS2: (f64, f64) = (0.9, 2.6);
const BICYCLE_TURN_LATERAL_MPS2: (f64, f64) = (1.0, 2.5);
/// Turn speeds (km/h) where a connector does not bend (a map's odd drawing): a common one.
const UNBENT_TURN_KMH: (f64, f64) = (15.0, 25.0);

/// A turning road user's speed (m/s) on a connector whose tightest bend is `radius_m`, with a
/// lateral acceleration drawn from `lateral_mps2`.
fn turn_speed(rng: &mut Rng, radius_m: Option<f64>, lateral_mps2: (f64, f64)) -> f64 {
    match radius_m {
        Some(r) => (rng.range(lateral_mps2.0, lateral_mps2.1) * r).sqrt(),
        None => kmh(rng.range(UNBENT_TURN_KMH.0, UNBENT_TURN_KMH.1)),
    }
}

/// The connector distance over which a turning road user is back on the centerline, m.
const BACK_ON_CENTERLINE_M: f64 = 5.0;

impl LanePosition {
    /// Offset (m left of the centerline) at arc length `s` of a route whose connector spans
    /// `turn_span`.
    fn at(&self, s: f64, turn_span: Option<(f64, f64)>) -> f64 {
        let Some((a, _)) = turn_span.filter(|_| self.turn_m != 0.0) else { return self.bias_m };
        let share = if s <= a {
            ((s - (a - self.over_m)) / self.over_m).clamp(0.0, 1.0)
        } else {
            (1.0 - (s - a) / BACK_ON_CENTERLINE_M).clamp(0.0, 1.0)
        };
        self.bias_m * (1.0 - share) + self.turn_m * share
    }
}

/// Seconds since entry at each sample of a speed profile sampled every `step` metres.
fn profile_times(v: &[f64], step: f64) -> Vec<f64> {
    let mut t = vec![0.0];
    for i in 1..v.len() {
        t.push(t[i - 1] + 2.0 * step / (v[i - 1] + v[i]));
    }
    t
}

impl Mover {
    pub(super) fn new(routes: &[Route], route: usize, entry_s: f64, cruise_mps: f64, turn_mps: Option<f64>) -> Self {
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
        let t = profile_times(&v, step);
        Mover {
            kind: routes[route].kind,
            route,
            entry_s,
            cruise_mps,
            turn_mps,
            t,
            v,
            step,
            stop: None,
            lane_position: LanePosition::default(),
            recorded: None,
        }
    }

    /// The same road user stopping at arc length `at_m` for `dwell_s` (braking at `braking_mps2`,
    /// pulling away as after turns): a driver yielding.
    pub(super) fn stopping_braking(mut self, at_m: f64, dwell_s: f64, braking_mps2: f64) -> Self {
        let k = ((at_m / self.step).round() as usize).clamp(1, self.v.len() - 2);
        let stop_m = k as f64 * self.step;
        for (i, v) in self.v.iter_mut().enumerate() {
            let d = i as f64 * self.step - stop_m;
            let limit = if d < 0.0 { (2.0 * braking_mps2 * -d).sqrt() } else { (2.0 * ACCELERATION_MPS2 * d).sqrt() };
            *v = v.min(limit);
        }
        self.t = profile_times(&self.v, self.step);
        self.stop = Some((k, dwell_s));
        self
    }

    fn dwell_s(&self) -> f64 {
        self.stop.map_or(0.0, |(_, d)| d)
    }

    pub(super) fn exit_s(&self) -> f64 {
        if let Some(r) = &self.recorded {
            return r.end_s();
        }
        self.entry_s + self.t.last().unwrap() + self.dwell_s()
    }

    /// Arc length and speed at absolute time `time_s`, `None` outside the route.
    pub(super) fn s_at(&self, time_s: f64) -> Option<(f64, f64)> {
        let mut rel = time_s - self.entry_s;
        if rel < 0.0 || rel > *self.t.last().unwrap() + self.dwell_s() {
            return None;
        }
        if let Some((k, dwell)) = self.stop {
            if rel >= self.t[k] {
                if rel <= self.t[k] + dwell {
                    return Some((k as f64 * self.step, 0.0));
                }
                rel -= dwell;
            }
        }
        let i = self.t.partition_point(|&x| x <= rel).clamp(1, self.t.len() - 1);
        let f = (rel - self.t[i - 1]) / (self.t[i] - self.t[i - 1]);
        Some(((i - 1) as f64 * self.step + f * self.step, self.v[i - 1] + f * (self.v[i] - self.v[i - 1])))
    }

    /// Absolute time at arc length `s`.
    pub(super) fn time_at(&self, s: f64) -> f64 {
        let x = (s / self.step).clamp(0.0, (self.t.len() - 1) as f64);
        let i = (x.floor() as usize).min(self.t.len() - 2);
        let waited = self.stop.filter(|&(k, _)| x > k as f64).map_or(0.0, |(_, d)| d);
        self.entry_s + self.t[i] + (x - i as f64) * (self.t[i + 1] - self.t[i]) + waited
    }

    /// Position, velocity (east/north, m/s) and lanelet at `time_s`.
    pub(super) fn state(&self, routes: &[Route], time_s: f64) -> Option<(P, P, i64)> {
        if let Some(r) = &self.recorded {
            // On no lanelet of the map's: the route is the track's own way.
            let (p, v) = r.state(time_s)?;
            return Some((p, v, -1));
        }
        let (s, v) = self.s_at(time_s)?;
        let r = &routes[self.route];
        let (p, tangent) = r.at(s);
        let left = self.lane_position.at(s, r.turn_span);
        let p = (p.0 - tangent.1 * left, p.1 + tangent.0 * left);
        Some((p, (v * tangent.0, v * tangent.1), r.lanelet_at(s)))
    }
}

/// The map's routes and their pairwise crossings.
pub(super) struct World {
    pub(super) routes: Vec<Route>,
    pub(super) crossings: Vec<Vec<Vec<Crossing>>>,
    /// Road users keep a lane position of their own and move over before turns
    /// ([`LanePosition`]); off for the classic scenarios (the committed recordings).
    pub(super) lane_keeping: bool,
    /// The junction, its RSU and cameras.
    pub(super) site: Site,
}

impl World {
    pub(super) fn new(graph: &LaneGraph, library: bool) -> anyhow::Result<Self> {
        let site = Site::of(graph)?;
        let routes = routes_from_graph(graph, &site.junction, site.centre, library)?;
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
        Ok(World { routes, crossings, lane_keeping: library, site })
    }

    /// Adds a route (e.g. one of a test shape's own) with its crossings; its index.
    pub(super) fn add_route(&mut self, route: Route) -> usize {
        let new = self.routes.len();
        for (i, row) in self.crossings.iter_mut().enumerate() {
            let found = crossings(&self.routes[i], &route);
            row.push(found);
        }
        let mut own: Vec<Vec<Crossing>> = (0..new)
            .map(|i| {
                let mut c: Vec<Crossing> =
                    self.crossings[i][new].iter().map(|c| Crossing { s_a: c.s_b, s_b: c.s_a, at: c.at }).collect();
                c.sort_by(|x, y| x.s_a.total_cmp(&y.s_a));
                c
            })
            .collect();
        own.push(Vec::new());
        self.crossings.push(own);
        self.routes.push(route);
        new
    }

    pub(super) fn find_route(&self, kind: Kind, arm: u8, turn: Turn) -> Option<usize> {
        self.routes.iter().position(|r| r.kind == kind && r.arm == arm && r.turn == turn)
    }

    /// The first crossing (along `a`) both reach within `window_s` of each other, with their
    /// arrival times. The one test used to plant conflicts and to keep other traffic clear.
    pub(super) fn close_crossing(&self, a: &Mover, b: &Mover, window_s: f64) -> Option<(Crossing, f64, f64)> {
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
    pub(super) fn too_close(&self, a: &Mover, b: &Mover) -> bool {
        let (from, to) = (a.entry_s.max(b.entry_s), a.exit_s().min(b.exit_s()));
        // The distance shrinks at most by the sum of top speeds per second: skip ahead while far.
        let closing = a.cruise_mps.max(a.turn_mps.unwrap_or(0.0)) + b.cruise_mps.max(b.turn_mps.unwrap_or(0.0));
        let mut t = from;
        while t <= to {
            let mut step = 0.1;
            if let (Some((pa, _, la)), Some((pb, _, lb))) = (a.state(&self.routes, t), b.state(&self.routes, t)) {
                // A shared road's bicycle twin is the road's own lane: cars keep a car's gap to
                // cyclists on it instead of passing through them.
                let same_lane = la == lb || (la - lb).abs() == cits_map::SHARED_ROAD_ID_OFFSET;
                let gap = if !same_lane {
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

    pub(super) fn compatible(&self, a: &Mover, b: &Mover) -> bool {
        self.close_crossing(a, b, CROSSING_WINDOW_S).is_none() && !self.too_close(a, b)
    }

    /// A road user of `kind` on `route` with random speeds from the kind's range.
    pub(super) fn mover(&self, rng: &mut Rng, route: usize, entry_s: f64) -> Mover {
        let r = &self.routes[route];
        let (mut cruise, turn) = match r.kind {
            Kind::Car => {
                let cruise = kmh(rng.range(35.0, 50.0));
                (cruise, r.turn_span.map(|_| turn_speed(rng, r.turn_radius_m, CAR_TURN_LATERAL_MPS2).min(cruise)))
            }
            Kind::Bicycle => {
                let v = kmh(rng.range(15.0, 22.0));
                (v, r.turn_span.map(|_| turn_speed(rng, r.turn_radius_m, BICYCLE_TURN_LATERAL_MPS2).min(v)))
            }
            Kind::Pedestrian => (rng.range(1.1, 1.6), None),
        };
        if let Some(v) = turn.filter(|_| self.lane_keeping && r.kind == Kind::Car) {
            if rng.chance(STEADY_TURN_SHARE) {
                cruise = v;
            }
        }
        let mut m = Mover::new(&self.routes, route, entry_s, cruise, turn);
        if self.lane_keeping {
            if let Some(&(_, shift, over)) = TURN_SHIFT_M.iter().find(|(k, _, _)| *k == r.kind) {
                let side = match r.turn {
                    Turn::Left => 1.0,
                    Turn::Right => -1.0,
                    _ => 0.0,
                };
                let bias_m = match r.kind {
                    Kind::Bicycle => rng.range(RIDER_BIAS_M.0, RIDER_BIAS_M.1),
                    _ => rng.range(-LANE_BIAS_M, LANE_BIAS_M),
                };
                let moves = if rng.chance(NO_MOVE_OVER_SHARE) { 0.0 } else { rng.range(0.6, 1.0) };
                m.lane_position = LanePosition { bias_m, turn_m: side * shift * moves, over_m: over };
            }
        }
        m
    }

    /// A random route for a background road user, arms weighted as the site's traffic is
    /// (ours: cars favour the east–west axis through the viaduct, cyclists the north–south
    /// commute); turning mix as in the module docs. None where the map has no route of the kind.
    pub(super) fn random_route(&self, rng: &mut Rng, kind: Kind) -> Option<usize> {
        let pick = |rng: &mut Rng, weights: &[f64]| rng.weighted(weights) as u8 + 1;
        let found = match kind {
            Kind::Car => {
                let arm = pick(rng, &self.site.car_arm_weights);
                let turn = [Turn::Left, Turn::Straight, Turn::Right][rng.weighted(&[0.25, 0.55, 0.20])];
                self.find_route(kind, arm, turn)
            }
            Kind::Bicycle => {
                let arm = pick(rng, &self.site.bicycle_arm_weights);
                self.find_route(kind, arm, [Turn::Straight, Turn::Right][rng.weighted(&[0.75, 0.25])])
            }
            Kind::Pedestrian => {
                let peds: Vec<usize> = (0..self.routes.len()).filter(|&i| self.routes[i].kind == kind).collect();
                (!peds.is_empty()).then(|| peds[rng.index(peds.len())])
            }
        };
        // A map without the preferred turn: any route of the kind.
        found.or_else(|| (0..self.routes.len()).find(|&i| self.routes[i].kind == kind))
    }
}

//! Euro NCAP's turning and crossing test shapes, placed on a map's junction and filmed by the
//! RSU's cameras: test cases the warning model was not shaped on.
//!
//! NCAP's kinematics, not the simulator's traffic: the car holds a constant 10, 15 or 20 km/h
//! (no braking to a turn speed, no moving over in its lane) and turns on a clothoid–arc–clothoid
//! path from its approach lane into the exit lane; the cyclist rides a constant 15 km/h, the
//! pedestrian walks a constant 5 km/h; the two reach the point where their paths cross at the
//! same time (the car's centre line meets the VRU's centre: NCAP's 50 % impact position).
//! No other road users. The arc radius is the one whose path best follows the map's own turn
//! connector, so the shape fits the junction it is placed on (a tighter corner, a tighter arc).
//!
//! Negatives of the same shapes: the car slows early and gently, stops short and pulls away 3–4 s
//! behind the VRU, or the VRU arrives 3–4 s after the car has passed (true PET ≥ 3 s either way,
//! checked in the table).

use cits::proto::{LaneGraph, Turn};

use super::routes::{build_route, crossings, dist, Kind, Route, Through, P};
use super::safety::point_segment;
use super::scenarios::yielding_braking;
use super::traffic::{LanePosition, Mover, World};
use super::*;

/// What NCAP calls the test, by what the car and the VRU do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shape {
    /// CBTA near-side turn: the car turns right across a cyclist riding straight on beside it
    /// (the right hook).
    RightHook,
    /// CBTA far-side turn: the car turns left across a cyclist coming straight from the
    /// opposite arm.
    LeftAcrossCyclist,
    /// CPTA: the car turns (right or left) across a pedestrian on the crosswalk of the arm it
    /// turns into, who sets out from the kerb near the corner the car turns round (`near`) or
    /// from the other one.
    TurnAcrossPedestrian { right: bool, near: bool },
    /// CBNA / CBFA: the car goes straight, a cyclist crosses its path from its near side (its
    /// right) or its far side.
    CrossingCyclist { near: bool },
    /// CPNA / CPFA: the car goes straight, a pedestrian crosses the crosswalk of the arm it
    /// drives into, from the near (right) or the far kerb.
    CrossingPedestrian { near: bool },
}

impl Shape {
    pub const ALL: [Shape; 10] = [
        Shape::RightHook,
        Shape::LeftAcrossCyclist,
        Shape::TurnAcrossPedestrian { right: true, near: true },
        Shape::TurnAcrossPedestrian { right: true, near: false },
        Shape::TurnAcrossPedestrian { right: false, near: true },
        Shape::TurnAcrossPedestrian { right: false, near: false },
        Shape::CrossingCyclist { near: true },
        Shape::CrossingCyclist { near: false },
        Shape::CrossingPedestrian { near: true },
        Shape::CrossingPedestrian { near: false },
    ];

    pub fn name(self) -> &'static str {
        match self {
            Shape::RightHook => "CBTA right hook",
            Shape::LeftAcrossCyclist => "CBTA left, oncoming",
            Shape::TurnAcrossPedestrian { right: true, near: true } => "CPTA right, near kerb",
            Shape::TurnAcrossPedestrian { right: true, near: false } => "CPTA right, far kerb",
            Shape::TurnAcrossPedestrian { right: false, near: true } => "CPTA left, near kerb",
            Shape::TurnAcrossPedestrian { right: false, near: false } => "CPTA left, far kerb",
            Shape::CrossingCyclist { near: true } => "CBNA straight",
            Shape::CrossingCyclist { near: false } => "CBFA straight",
            Shape::CrossingPedestrian { near: true } => "CPNA straight",
            Shape::CrossingPedestrian { near: false } => "CPFA straight",
        }
    }

    /// The car's turn.
    fn turn(self) -> Turn {
        match self {
            Shape::RightHook | Shape::TurnAcrossPedestrian { right: true, .. } => Turn::Right,
            Shape::LeftAcrossCyclist | Shape::TurnAcrossPedestrian { right: false, .. } => Turn::Left,
            Shape::CrossingCyclist { .. } | Shape::CrossingPedestrian { .. } => Turn::Straight,
        }
    }

    pub fn turns(self) -> bool {
        self.turn() != Turn::Straight
    }

    /// The car's constant speeds, km/h: NCAP's turning speeds; straight crossings at urban
    /// junction speeds.
    pub fn car_speeds_kmh(self) -> [f64; 3] {
        if self.turns() {
            [10.0, 15.0, 20.0]
        } else {
            [20.0, 30.0, 40.0]
        }
    }
}

/// Whether the pair meets (NCAP's test) or passes safely (a negative of the same shape).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    /// Both reach the crossing point at once.
    Contact,
    /// The car stops short of the VRU's path and pulls away 3–4 s after the VRU has cleared it.
    CarYields,
    /// The VRU reaches the crossing 3–4 s after the car has left it.
    VruLater,
}

impl Outcome {
    pub const ALL: [Outcome; 3] = [Outcome::Contact, Outcome::CarYields, Outcome::VruLater];

    pub fn name(self) -> &'static str {
        match self {
            Outcome::Contact => "contact",
            Outcome::CarYields => "car yields, pulls away behind",
            Outcome::VruLater => "VRU 3-4 s later",
        }
    }
}

/// One test: a shape at a car speed from one approach lane of one arm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Case {
    pub shape: Shape,
    pub car_kmh: f64,
    pub outcome: Outcome,
    /// The car's approach lanelet.
    pub approach: i64,
}

/// NCAP's cyclist and pedestrian speeds.
pub const CYCLIST_KMH: f64 = 15.0;
pub const PEDESTRIAN_KMH: f64 = 5.0;
/// When (s into the recording) the two meet: the cameras film for this long before.
pub const CONTACT_S: f64 = 14.0;
/// And film on this long after.
const AFTER_S: f64 = 4.0;
/// How much slower than it came a yielding car is when its yield counts as showing, m/s.
const YIELD_SHOWS_MPS: f64 = 0.5;
/// How gently a yielding car brakes to its stop, m/s².
const YIELD_BRAKING_MPS2: (f64, f64) = (0.8, 1.5);
/// Sampling step of the turn curve, m.
const CURVE_STEP_M: f64 = 0.5;
/// Arc radii tried when fitting the turn to the junction, m.
const RADII_M: (f64, f64, f64) = (3.0, 40.0, 0.25);

/// Every case the map's junction offers for the shapes and outcomes asked: each shape from
/// every approach lane that has the car's turn, at each of its speeds.
pub fn cases(graph: &LaneGraph, shapes: &[Shape], outcomes: &[Outcome]) -> anyhow::Result<Vec<Case>> {
    let world = World::new(graph, true)?;
    let mut out = Vec::new();
    for &shape in shapes {
        for car in world.routes.iter().filter(|r| r.kind == Kind::Car && r.turn == shape.turn()) {
            if vru_route(&world, car, shape).is_none() {
                continue;
            }
            for &outcome in outcomes {
                if outcome == Outcome::CarYields && !shape.turns() {
                    continue; // NCAP's negatives are the turning shapes'
                }
                for car_kmh in shape.car_speeds_kmh() {
                    out.push(Case { shape, car_kmh, outcome, approach: car.lanelets[car.core.0] });
                }
            }
        }
    }
    Ok(out)
}

/// The VRU's route of `shape` against the car's route `car`.
fn vru_route(world: &World, car: &Route, shape: Shape) -> Option<usize> {
    let (arm, junction) = (car.arm, &world.site.junction);
    let crossing_of = |i: usize| crossings(car, &world.routes[i]).first().copied();
    // The VRU's start lies on the car's right (near side) or left at the crossing point.
    let from_right = |i: usize| -> Option<bool> {
        let c = crossing_of(i)?;
        let (_, h) = car.at(c.s_a);
        let p = world.routes[i].points[0];
        Some(h.0 * (p.1 - c.at.1) - h.1 * (p.0 - c.at.0) < 0.0)
    };
    let candidates: Vec<usize> = match shape {
        Shape::RightHook => world.find_route(Kind::Bicycle, arm, Turn::Straight).into_iter().collect(),
        Shape::LeftAcrossCyclist => junction
            .opposite(arm)
            .and_then(|from| world.find_route(Kind::Bicycle, from, Turn::Straight))
            .into_iter()
            .collect(),
        Shape::CrossingCyclist { near } => {
            // Near side: the arm on the car's right (the one before it clockwise), far: on its left.
            let from = if near { junction.right_of(arm) } else { junction.left_of(arm) };
            world.find_route(Kind::Bicycle, from, Turn::Straight).into_iter().collect()
        }
        Shape::TurnAcrossPedestrian { near, .. } | Shape::CrossingPedestrian { near } => {
            let exit_arm = car.exit_arm;
            (0..world.routes.len())
                .filter(|&i| world.routes[i].kind == Kind::Pedestrian && world.routes[i].arm == exit_arm)
                .filter(|&i| {
                    // Near kerb: for a right turn the corner it turns round is on the car's
                    // right; for a left turn and going straight, the right kerb as NCAP's near side.
                    from_right(i) == Some(near)
                })
                .collect()
        }
    };
    candidates.into_iter().find(|&i| crossing_of(i).is_some())
}

/// A clothoid–arc–clothoid turn through `angle` (rad, left positive) on an arc of `radius`,
/// starting at the origin heading along +x: its points every [`CURVE_STEP_M`]. Each clothoid
/// turns a sixth of the angle, the arc two thirds.
fn turn_curve(angle: f64, radius: f64) -> Vec<P> {
    let k = angle.signum() / radius;
    let clothoid = radius * angle.abs() / 3.0;
    let arc = 2.0 * radius * angle.abs() / 3.0;
    let total = 2.0 * clothoid + arc;
    let curvature = |s: f64| {
        if s < clothoid {
            k * s / clothoid
        } else if s < clothoid + arc {
            k
        } else {
            k * ((total - s) / clothoid).max(0.0)
        }
    };
    const DS: f64 = 0.02;
    let n = (total / DS).ceil() as usize;
    let ds = total / n as f64;
    let every = ((CURVE_STEP_M / ds).round() as usize).max(1);
    let (mut x, mut y, mut heading) = (0.0, 0.0, 0.0);
    let mut points = vec![(0.0, 0.0)];
    for i in 0..n {
        let s = i as f64 * ds;
        let next = heading + ds * curvature(s + ds / 2.0);
        let mid = (heading + next) / 2.0;
        x += ds * mid.cos();
        y += ds * mid.sin();
        heading = next;
        if (i + 1) % every == 0 || i + 1 == n {
            points.push((x, y));
        }
    }
    points
}

fn unit(a: P, b: P) -> P {
    let d = dist(a, b).max(1e-9);
    ((b.0 - a.0) / d, (b.1 - a.1) / d)
}

fn cross(a: P, b: P) -> f64 {
    a.0 * b.1 - a.1 * b.0
}

fn point_to_polyline(p: P, line: &[P]) -> f64 {
    line.windows(2).map(|w| point_segment(p, w[0], w[1])).fold(f64::INFINITY, f64::min)
}

/// The car's NCAP path for the map's turn route `route` (approach → connector → exit): along
/// the approach lane's centerline, a clothoid–arc–clothoid turn whose arc radius makes it follow
/// the connector best, then along the exit lane. None where the lanes are (near) parallel.
fn ncap_turn_route(route: &Route) -> Option<Route> {
    let (a, x) = route.core;
    let (approach, connector, exit) =
        (route.points_of(0, a), route.points_of(a + 1, x - 1), route.points_of(x, route.lanelets.len() - 1));
    let a_end = *approach.last()?;
    let a_back = approach.iter().rev().find(|p| dist(**p, a_end) >= 5.0).copied().unwrap_or(approach[0]);
    let u = unit(a_back, a_end);
    let x0 = exit[0];
    let x_on = exit.iter().find(|p| dist(**p, x0) >= 5.0).copied().unwrap_or(*exit.last()?);
    let w = unit(x0, x_on);
    let (sin, cos) = (cross(u, w), u.0 * w.0 + u.1 * w.1);
    if sin.abs() < 0.2 {
        return None;
    }
    let angle = sin.atan2(cos);
    let n = (-u.1, u.0);
    // The path, and the indices of the curve's first and last points in it.
    let build = |radius: f64| -> Option<(Vec<P>, usize, usize)> {
        let curve = turn_curve(angle, radius);
        let (ex, ey) = *curve.last()?;
        // Shift the start along the approach line until the curve ends on the exit line.
        let t = -(cross((a_end.0 - x0.0, a_end.1 - x0.1), w) + ex * cross(u, w) + ey * cross(n, w)) / cross(u, w);
        let start = (a_end.0 + t * u.0, a_end.1 + t * u.1);
        let world = |(cx, cy): P| (start.0 + cx * u.0 + cy * n.0, start.1 + cx * u.1 + cy * n.1);
        let end = world((ex, ey));
        let along_u = |p: &P| (p.0 - start.0) * u.0 + (p.1 - start.1) * u.1;
        let along_w = |p: &P| (p.0 - end.0) * w.0 + (p.1 - end.1) * w.1;
        if along_u(&approach[0]) >= 0.0 {
            return None; // the turn would begin before the approach lane does
        }
        let mut points: Vec<P> = approach.iter().copied().filter(|p| along_u(p) < -0.01).collect();
        let turn_from = points.len();
        points.extend(curve.iter().map(|&c| world(c)));
        let turn_to = points.len() - 1;
        points.extend(exit.iter().copied().filter(|p| along_w(p) > 0.01));
        Some((points, turn_from, turn_to))
    };
    let mut best: Option<(f64, f64)> = None;
    let (lowest, highest, step) = RADII_M;
    let mut radius = lowest;
    while radius <= highest {
        if let Some((points, _, _)) = build(radius) {
            let cost = connector.iter().map(|p| point_to_polyline(*p, &points)).sum::<f64>() / connector.len() as f64;
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, radius));
            }
        }
        radius += step;
    }
    let (points, turn_from, turn_to) = build(best?.1)?;
    // The three lanelets' parts, joined at the curve's ends (the ground truth names them).
    let parts = [
        (route.lanelets[a], points[..=turn_from].to_vec()),
        (route.lanelets[a + 1], points[turn_from..=turn_to].to_vec()),
        (route.lanelets[x], points[turn_to..].to_vec()),
    ];
    let through =
        Through { arm: route.arm, arm_name: &route.arm_name, exit_arm: route.exit_arm, turn: route.turn, core: (0, 2) };
    Some(build_route(Kind::Car, &through, &parts, Some(route.lanelets[a + 1])))
}

/// Why `case` cannot be filmed on a map's junction — the map lacks what its shape needs (a VRU
/// route, a turn the NCAP path fits, a crossing): the error [`film_case`] returns then, so a
/// caller can skip the case (`err.downcast_ref::<Unfit>()`) and tell it from a failure.
#[derive(Debug, Clone, PartialEq)]
pub struct Unfit {
    pub case: Case,
    pub reason: String,
}

impl std::fmt::Display for Unfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for Unfit {}

/// One case filmed: the simulation (its two road users, the car first) and when the car's turn
/// began (s into the recording; None going straight).
pub struct Filmed {
    pub sim: Simulation,
    pub turn_onset_s: Option<f64>,
    /// A yielding car's: when (s into the film) it first goes 0.5 m/s slower than it came —
    /// about the least a speed measured for half a second can tell from noise.
    pub yield_shows_s: Option<f64>,
}

/// Films `case` with the cameras' noise of `seed` under `conditions`; an [`Unfit`] error where
/// the map's junction cannot host it.
pub fn film_case(graph: &LaneGraph, case: &Case, seed: u64, conditions: Conditions) -> anyhow::Result<Filmed> {
    let mut world = World::new(graph, true)?;
    let unfit = |reason: String| anyhow::Error::new(Unfit { case: *case, reason });
    let from_approach: Vec<usize> = (0..world.routes.len())
        .filter(|&i| {
            let r = &world.routes[i];
            r.kind == Kind::Car && r.lanelets[r.core.0] == case.approach && r.turn == case.shape.turn()
        })
        .collect();
    if from_approach.is_empty() {
        return Err(unfit(format!("no {} route from lanelet {}", case.shape.turn().name(), case.approach)));
    }
    // The route [`cases`] placed the shape on: the first from the approach with the car's turn
    // that has a VRU route for it (another route of the same turn, e.g. into another exit lane,
    // may have none).
    let (map_route, vru) = from_approach
        .iter()
        .find_map(|&i| vru_route(&world, &world.routes[i], case.shape).map(|vru| (i, vru)))
        .ok_or_else(|| unfit(format!("no VRU route for {} from lanelet {}", case.shape.name(), case.approach)))?;
    let car_route = if case.shape.turns() {
        let route = ncap_turn_route(&world.routes[map_route])
            .ok_or_else(|| unfit(format!("no NCAP turn fits from lanelet {}", case.approach)))?;
        world.add_route(route)
    } else {
        map_route
    };
    let c = *world.crossings[car_route][vru]
        .first()
        .ok_or_else(|| unfit(format!("the NCAP car path from lanelet {} does not cross the VRU's", case.approach)))?;
    let mut rng = Rng::new(seed, 3);
    let vru_kind = world.routes[vru].kind;
    let vru_mps = kmh(if vru_kind == Kind::Bicycle { CYCLIST_KMH } else { PEDESTRIAN_KMH });
    let car = Mover::new(&world.routes, car_route, 0.0, kmh(case.car_kmh), None);
    let car = Mover { entry_s: CONTACT_S - car.time_at(c.s_a), ..car };
    let mut vru_mover = Mover::new(&world.routes, vru, 0.0, vru_mps, None);
    // Riders anywhere from mid-lane to the kerb side.
    if vru_kind == Kind::Bicycle {
        vru_mover.lane_position = LanePosition { bias_m: rng.range(-0.3, 0.1), ..LanePosition::default() };
    }
    let vru_at = |m: &Mover| m.time_at(c.s_b);
    let (car_length, _) = super::safety::footprint(Kind::Car);
    let (vru_length, vru_width) = super::safety::footprint(vru_kind);
    let car_clears_s = (car_length + vru_width) / kmh(case.car_kmh);
    let offset_s = match case.outcome {
        Outcome::Contact | Outcome::CarYields => 0.0,
        Outcome::VruLater => car_clears_s + vru_length / vru_mps + rng.range(3.0, 4.0),
    };
    let vru_mover = Mover { entry_s: CONTACT_S + offset_s - vru_at(&vru_mover), ..vru_mover };
    let car = match case.outcome {
        // Seeing the VRU ahead, the driver slows early and gently (braking from the approach
        // speed to a stop, short of the VRU's path, takes 2.5-5 s): the stop shows before the
        // contact it avoids would have come.
        Outcome::CarYields => {
            let braking = rng.range(YIELD_BRAKING_MPS2.0, YIELD_BRAKING_MPS2.1);
            yielding_braking(&mut rng, car, &vru_mover, c, (3.5, 4.5), braking)
        }
        _ => car,
    };
    let turn_onset_s = world.routes[car_route].turn_span.filter(|_| case.shape.turns()).map(|(a, _)| car.time_at(a));
    let yield_shows_s = car.stop.and_then(|_| {
        let k = car.v.iter().position(|&v| v < car.cruise_mps - YIELD_SHOWS_MPS)?;
        Some(car.entry_s + car.t[k])
    });
    let params = Params {
        seed,
        duration_s: (CONTACT_S + AFTER_S + offset_s + car.stop.map_or(0.0, |(_, d)| d)).ceil() as u32,
        scenarios: Scenarios::Ncap,
        density: 0.0,
        conditions,
    };
    let sim = film(world, (vec![car, vru_mover], Vec::new(), Vec::new()), &params, &graph.name)?;
    Ok(Filmed { sim, turn_onset_s, yield_shows_s })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_turn_curve_turns_through_its_angle_on_its_arc() {
        let right = turn_curve(-std::f64::consts::FRAC_PI_2, 10.0);
        let n = right.len();
        let end = unit(right[n - 2], right[n - 1]);
        assert!(end.0.abs() < 0.02 && (end.1 + 1.0).abs() < 0.02, "ends heading south: {end:?}");
        // A circle of 10 m alone would end at (10, -10); clothoids ease in and out, so further.
        assert!(right[n - 1].0 > 10.0 && right[n - 1].1 < -10.0, "{:?}", right[n - 1]);
        // The first metres hardly turn: the steering builds up.
        let early = unit(right[0], right[2]);
        assert!(early.1.abs() < 0.02, "{early:?}");
    }

    #[test]
    fn every_shape_is_placed_on_the_committed_junction() {
        let graph =
            load_map(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/map/weiser-gabelsberger.osm"))
                .unwrap();
        let cases = cases(&graph, &Shape::ALL, &[Outcome::Contact]).unwrap();
        for shape in Shape::ALL {
            assert!(cases.iter().any(|c| c.shape == shape), "{} not placed", shape.name());
        }
        let case = cases.iter().find(|c| c.shape == Shape::RightHook && c.car_kmh == 10.0).unwrap();
        let filmed = film_case(&graph, case, 1, Conditions::NOMINAL).unwrap();
        let truth = truth(&filmed.sim);
        let e = truth.encounters.iter().find(|e| e.users == [1, 2]).expect("the car meets the cyclist");
        assert!(e.pet_s < 0.5, "PET {}", e.pet_s);
        let contact_s = (e.time_unix_us - START_UNIX_MS as i64 * 1000) as f64 / 1e6;
        let onset = filmed.turn_onset_s.unwrap();
        assert!(onset < contact_s && contact_s - onset < 6.0, "turn begins {onset} s, contact {contact_s} s");
    }
}

//! Planted conflicts and the background traffic around them.

use cits::proto::Turn;
use cits::shared::geo::Wgs84;

use super::rng::Rng;
use super::routes::{dist, Crossing, Kind};
use super::traffic::{Mover, World};
use super::*;

/// Which scenarios a recording plants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scenarios {
    /// The first three kinds only (the committed recordings were made with these).
    Classic,
    /// The whole library: also the Euro NCAP-like variants, occlusions and a yielding near miss.
    Library,
    /// One Euro NCAP test shape alone on the junction, no other traffic ([`super::ncap`]).
    Ncap,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConflictKind {
    /// A car turning right across the bicycle lane of its own arm, a cyclist going straight on.
    RightTurnVsStraightCyclist,
    /// A car turning left across the path of a cyclist coming straight from the opposite arm.
    LeftTurnVsOncomingCyclist,
    /// A car turning into an arm while a pedestrian crosses that arm's crosswalk.
    TurningCarVsPedestrian,
    /// ... the pedestrian setting out from the kerb nearer the car's approach,
    TurningCarVsNearSidePedestrian,
    /// ... or from the far kerb.
    TurningCarVsFarSidePedestrian,
    /// A right-turning car and a straight cyclist whom one camera cannot see for the last
    /// seconds before the conflict (hidden behind a stopped vehicle).
    RightTurnVsOccludedCyclist,
    /// A turning car and a pedestrian whom no camera sees until shortly before the conflict (she
    /// steps out between stopped cars).
    TurningCarVsSteppingOutPedestrian,
    /// Not a conflict: a turning car yields to a crossing cyclist or pedestrian and passes 2–3 s
    /// after them (a near miss the pipeline should not warn of).
    YieldingCarNearMiss,
}

impl ConflictKind {
    pub const ALL: [ConflictKind; 8] = [
        ConflictKind::RightTurnVsStraightCyclist,
        ConflictKind::LeftTurnVsOncomingCyclist,
        ConflictKind::TurningCarVsPedestrian,
        ConflictKind::TurningCarVsNearSidePedestrian,
        ConflictKind::TurningCarVsFarSidePedestrian,
        ConflictKind::RightTurnVsOccludedCyclist,
        ConflictKind::TurningCarVsSteppingOutPedestrian,
        ConflictKind::YieldingCarNearMiss,
    ];
    const CLASSIC: [ConflictKind; 3] = [
        ConflictKind::RightTurnVsStraightCyclist,
        ConflictKind::LeftTurnVsOncomingCyclist,
        ConflictKind::TurningCarVsPedestrian,
    ];
    const LIBRARY: [ConflictKind; 7] = [
        ConflictKind::RightTurnVsStraightCyclist,
        ConflictKind::LeftTurnVsOncomingCyclist,
        ConflictKind::TurningCarVsNearSidePedestrian,
        ConflictKind::YieldingCarNearMiss,
        ConflictKind::RightTurnVsOccludedCyclist,
        ConflictKind::TurningCarVsFarSidePedestrian,
        ConflictKind::TurningCarVsSteppingOutPedestrian,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ConflictKind::RightTurnVsStraightCyclist => "right_turn_car_vs_straight_cyclist",
            ConflictKind::LeftTurnVsOncomingCyclist => "left_turn_car_vs_oncoming_cyclist",
            ConflictKind::TurningCarVsPedestrian => "turning_car_vs_crossing_pedestrian",
            ConflictKind::TurningCarVsNearSidePedestrian => "turning_car_vs_near_side_pedestrian",
            ConflictKind::TurningCarVsFarSidePedestrian => "turning_car_vs_far_side_pedestrian",
            ConflictKind::RightTurnVsOccludedCyclist => "right_turn_car_vs_occluded_cyclist",
            ConflictKind::TurningCarVsSteppingOutPedestrian => "turning_car_vs_stepping_out_pedestrian",
            ConflictKind::YieldingCarNearMiss => "yielding_car_near_miss",
        }
    }

    /// How close in time the two reach their crossing point: at once for conflicts, a few
    /// seconds apart for the near miss.
    pub(super) fn window_s(self) -> f64 {
        match self {
            ConflictKind::YieldingCarNearMiss => YIELD_WINDOW_S,
            _ => PLANTED_WINDOW_S,
        }
    }
}

/// The yielding car passes the crossing point at most this long after the road user it let go.
const YIELD_WINDOW_S: f64 = 8.0;

/// A camera (or all, `None`) cannot see road user `mover` from `from_s` to `to_s`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Hidden {
    pub(super) mover: usize,
    pub(super) sensor: Option<u8>,
    pub(super) from_s: f64,
    pub(super) to_s: f64,
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
pub(super) fn conflict_routes(world: &World, rng: &mut Rng, kind: ConflictKind) -> Option<(usize, usize)> {
    let junction = &world.site.junction;
    let arm = rng.index(junction.arms.len()) as u8 + 1;
    match kind {
        ConflictKind::RightTurnVsStraightCyclist => Some((
            world.find_route(Kind::Car, arm, Turn::Right)?,
            world.find_route(Kind::Bicycle, arm, Turn::Straight)?,
        )),
        ConflictKind::LeftTurnVsOncomingCyclist => Some((
            world.find_route(Kind::Car, arm, Turn::Left)?,
            world.find_route(Kind::Bicycle, junction.opposite(arm)?, Turn::Straight)?,
        )),
        ConflictKind::RightTurnVsOccludedCyclist => {
            conflict_routes(world, rng, ConflictKind::RightTurnVsStraightCyclist)
        }
        ConflictKind::TurningCarVsPedestrian => {
            let turn = if rng.chance(0.5) { Turn::Left } else { Turn::Right };
            let car = world.find_route(Kind::Car, arm, turn)?;
            let into = world.routes[car].exit_arm;
            let peds: Vec<usize> = (0..world.routes.len())
                .filter(|&i| world.routes[i].kind == Kind::Pedestrian && world.routes[i].arm == into)
                .collect();
            (!peds.is_empty()).then(|| (car, peds[rng.index(peds.len())]))
        }
        ConflictKind::TurningCarVsNearSidePedestrian
        | ConflictKind::TurningCarVsFarSidePedestrian
        | ConflictKind::TurningCarVsSteppingOutPedestrian => {
            let (car, ped) = conflict_routes(world, rng, ConflictKind::TurningCarVsPedestrian)?;
            // Near side: the pedestrian sets out from the kerb nearer the car's approach.
            let near = |ped: usize| {
                let (start, approach) = (world.routes[ped].points[0], world.routes[car].points[0]);
                let crosswalk = &world.routes[ped];
                let end = crosswalk.at(crosswalk.legs[0].1).0;
                dist(start, approach) < dist(end, approach)
            };
            let want_near = kind != ConflictKind::TurningCarVsFarSidePedestrian;
            let ped = if near(ped) == want_near {
                ped
            } else {
                world.routes.iter().position(|r| {
                    r.kind == Kind::Pedestrian
                        && r.lanelets[0] == world.routes[ped].lanelets[0]
                        && dist(r.points[0], world.routes[ped].points[0]) > 1.0
                })?
            };
            Some((car, ped))
        }
        ConflictKind::YieldingCarNearMiss => {
            let kinds = [ConflictKind::RightTurnVsStraightCyclist, ConflictKind::TurningCarVsPedestrian];
            let kind = kinds[rng.index(2)];
            conflict_routes(world, rng, kind)
        }
    }
}

/// Plants a conflict of `kind` around `time_s`: both users are timed to reach their routes'
/// first crossing within ±0.3 s of each other, and must keep clear of everyone already placed.
pub(super) fn plant(
    world: &World,
    rng: &mut Rng,
    kind: ConflictKind,
    time_s: f64,
    placed: &[Mover],
) -> Option<[Mover; 2]> {
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
        let a = if kind == ConflictKind::YieldingCarNearMiss { yielding(rng, a, &b, c, (2.0, 3.0)) } else { a };
        if placed.iter().all(|p| world.compatible(p, &a) && world.compatible(p, &b)) {
            return Some([a, b]);
        }
    }
    None
}

const YIELD_SHORT_M: f64 = 3.0;

/// The car `a` stopping short of crossing `c` until `b` has cleared it, then passing `after_s`
/// (a range, s) after `b` left.
pub(super) fn yielding(rng: &mut Rng, a: Mover, b: &Mover, c: Crossing, after_s: (f64, f64)) -> Mover {
    yielding_braking(rng, a, b, c, after_s, BRAKING_MPS2)
}

/// [`yielding`], braking at `braking_mps2` to the stop.
pub(super) fn yielding_braking(
    rng: &mut Rng,
    a: Mover,
    b: &Mover,
    c: Crossing,
    after_s: (f64, f64),
    braking_mps2: f64,
) -> Mover {
    let (car_length, _) = super::safety::footprint(Kind::Car);
    let (vru_length, _) = super::safety::footprint(b.kind);
    // The car's front stops 3 m short of the VRU's path (the kerb side of a crosswalk or a bike
    // lane's edge, a metre to spare).
    let stop_m = (c.s_a - car_length / 2.0 - YIELD_SHORT_M).max(0.0);
    // The VRU has cleared the car's lane when its rear is past the car's half width.
    let cleared = b.time_at(c.s_b + vru_length / 2.0 + 1.0);
    let stopped = a.stopping_braking(stop_m, 0.0, braking_mps2);
    let enter = stopped.time_at(c.s_a - car_length / 2.0 - 1.0);
    let dwell = (cleared + rng.range(after_s.0, after_s.1) - enter).max(0.5);
    let stop = stopped.stop.map_or(0, |(k, _)| k);
    Mover { stop: Some((stop, dwell)), ..stopped }
}

/// Places the road users: planted conflicts first, evenly over the recording and cycling through
/// the kinds, then Poisson background traffic held back until it clears everyone placed.
pub(super) fn schedule(world: &World, params: &Params) -> Plan {
    let mut rng = Rng::new(params.seed, 1);
    let duration = f64::from(params.duration_s);
    let mut movers: Vec<Mover> = Vec::new();
    let mut planted = Vec::new();
    let mut hidden = Vec::new();
    let (kinds, spacing_s): (&[ConflictKind], f64) = match params.scenarios {
        Scenarios::Classic => (&ConflictKind::CLASSIC, 25.0),
        Scenarios::Library => (&ConflictKind::LIBRARY, 20.0),
        Scenarios::Ncap => (&[], 20.0),
    };
    let n = ((duration / spacing_s).round() as usize).max(kinds.len());
    let (first, last) = (6.0, (duration - 4.0).max(7.0));
    for k in (0..n).take_while(|_| !kinds.is_empty()) {
        let kind = kinds[k % kinds.len()];
        let time = first + (last - first) * k as f64 / (n - 1) as f64;
        if let Some(pair) = plant(world, &mut rng, kind, time, &movers) {
            let (car, vru) = (movers.len(), movers.len() + 1);
            let conflict_s = pair[0].time_at(world.crossings[pair[0].route][pair[1].route][0].s_a);
            match kind {
                ConflictKind::RightTurnVsOccludedCyclist => hidden.push(Hidden {
                    mover: vru,
                    sensor: Some(world.site.sensors[rng.index(world.site.sensors.len())].0),
                    from_s: conflict_s - 4.0,
                    to_s: conflict_s - 0.5,
                }),
                ConflictKind::TurningCarVsSteppingOutPedestrian => {
                    hidden.push(Hidden { mover: vru, sensor: None, from_s: f64::MIN, to_s: conflict_s - 3.5 })
                }
                _ => {}
            }
            planted.push((kind, [car, vru]));
            movers.extend(pair);
        }
    }
    let mut arrivals: Vec<(f64, Kind)> = Vec::new();
    for (kind, base_rate) in ARRIVALS_PER_S {
        let rate = base_rate * params.density;
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
        let Some(route) = world.random_route(&mut rng, kind) else { continue };
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
    (movers, planted, hidden)
}

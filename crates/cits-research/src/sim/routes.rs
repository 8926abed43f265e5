//! Routes through the intersection from the lane graph, and where they cross.

use std::collections::BTreeMap;

use anyhow::{bail, Context as _};
use cits::proto::{LaneGraph, Lanelet, Turn};
use cits::shared::geo::Wgs84;
use etsi_its::cpm::ObjectKind;

use cits_map::junction::Junction;

pub(super) type P = (f64, f64); // east, north (m) from the intersection centre

pub(super) fn dist(a: P, b: P) -> f64 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
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

    pub(super) fn object_kind(self) -> ObjectKind {
        match self {
            Kind::Car => ObjectKind::Car,
            Kind::Bicycle => ObjectKind::Bicycle,
            Kind::Pedestrian => ObjectKind::Pedestrian,
        }
    }
}

/// A way through the intersection: approach → connector → exit (pedestrians: [walkway →]
/// crosswalk → walkway), as one polyline in travel direction.
pub(super) struct Route {
    pub(super) kind: Kind,
    pub(super) lanelets: Vec<i64>,
    /// Approach arm (pedestrians: the crosswalk's arm), and its name.
    pub(super) arm: u8,
    pub(super) arm_name: String,
    /// Arm the route leaves by (pedestrians: the crosswalk's arm).
    pub(super) exit_arm: u8,
    /// Indices into `lanelets` of the approach and the exit (pedestrians: the crosswalk, twice):
    /// lanes before the approach and after the exit lead up to and away from the junction.
    pub(super) core: (usize, usize),
    /// Left, straight or right; `Turn::None` for pedestrians.
    pub(super) turn: Turn,
    pub(super) points: Vec<P>,
    /// Arc length at each point.
    pub(super) cum: Vec<f64>,
    /// (lanelet, arc length where it ends).
    pub(super) legs: Vec<(i64, f64)>,
    /// Arc-length span of a left or right connector, where vehicles slow down.
    pub(super) turn_span: Option<(f64, f64)>,
    /// That connector's tightest bend (m), which sets how fast it is taken.
    pub(super) turn_radius_m: Option<f64>,
}

impl Route {
    pub(super) fn length(&self) -> f64 {
        *self.cum.last().unwrap()
    }

    /// Position and unit tangent at arc length `s`.
    pub(super) fn at(&self, s: f64) -> (P, P) {
        let s = s.clamp(0.0, self.length());
        let i = self.cum.partition_point(|&c| c <= s).clamp(1, self.points.len() - 1);
        let (a, b) = (self.points[i - 1], self.points[i]);
        let d = self.cum[i] - self.cum[i - 1];
        let f = if d > 0.0 { (s - self.cum[i - 1]) / d } else { 0.0 };
        let tangent = if d > 0.0 { ((b.0 - a.0) / d, (b.1 - a.1) / d) } else { (1.0, 0.0) };
        ((a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1)), tangent)
    }

    pub(super) fn lanelet_at(&self, s: f64) -> i64 {
        self.legs.iter().find(|(_, end)| s <= *end).unwrap_or(self.legs.last().unwrap()).0
    }

    pub(super) fn describe(&self) -> String {
        match self.kind {
            Kind::Pedestrian => format!("pedestrian across {} crosswalk", self.arm_name),
            k => format!("{} from {} {}", k.name(), self.arm_name, self.turn.name()),
        }
    }

    /// Points of the legs `from..=to` (indices into `lanelets`).
    pub(super) fn points_of(&self, from: usize, to: usize) -> Vec<P> {
        let start = if from == 0 { 0.0 } else { self.legs[from - 1].1 };
        let end = self.legs[to].1;
        self.points
            .iter()
            .zip(&self.cum)
            .filter(|(_, s)| (start - 1e-9..=end + 1e-9).contains(*s))
            .map(|(p, _)| *p)
            .collect()
    }
}

/// Where a route runs through the junction: approach arm and its name, exit arm, turn, and
/// which of its parts are the approach and the exit.
pub(super) struct Through<'a> {
    pub(super) arm: u8,
    pub(super) arm_name: &'a str,
    pub(super) exit_arm: u8,
    pub(super) turn: Turn,
    pub(super) core: (usize, usize),
}

pub(super) fn build_route(kind: Kind, through: &Through, parts: &[(i64, Vec<P>)], turn_lanelet: Option<i64>) -> Route {
    let mut points: Vec<P> = Vec::new();
    let mut legs = Vec::new();
    let mut turn_span = None;
    let mut turn_radius_m = None;
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
            turn_radius_m = cits::shared::geo::tightest_radius_m(line, cits::shared::geo::BEND_WINDOW_M);
        }
    }
    Route {
        kind,
        lanelets: parts.iter().map(|p| p.0).collect(),
        arm: through.arm,
        arm_name: through.arm_name.to_string(),
        exit_arm: through.exit_arm,
        core: through.core,
        turn: through.turn,
        points,
        cum,
        legs,
        turn_span,
        turn_radius_m,
    }
}

/// Lanes before an approach (after an exit) are added while they lead on alone, up to this
/// much road before (after) the junction: road users are filmed before they reach it.
const LEAD_UP_M: f64 = 60.0;
const LEAD_AWAY_M: f64 = 40.0;

/// Every route the junction offers: car and bicycle [lead-up →] approach → connector(s) → exit
/// [→ lead-away] (U-turns left out); pedestrian crosswalk (either direction) → the walkway at the
/// end reached, if the map has one.
/// `library` (the library scenarios): pedestrians come along the half of the start corner's
/// walkway nearest the crosswalk, and leave along the first half of the far corner's walkway (their
/// way on along the street) instead of walking it to the next crosswalk's kerb, where they would
/// stand facing the road when their route ends — as if about to cross.
pub(super) fn routes_from_graph(
    graph: &LaneGraph,
    junction: &Junction,
    centre: Wgs84,
    library: bool,
) -> anyhow::Result<Vec<Route>> {
    let by_id: BTreeMap<i64, &Lanelet> = graph.lanelets.iter().map(|l| (l.id, l)).collect();
    let line = |l: &Lanelet| cits_map::local_line(centre, l);
    let predecessors =
        |id: i64| -> Vec<&Lanelet> { graph.lanelets.iter().filter(|p| p.successors.contains(&id)).collect() };
    let is_connector = |id: &i64| junction.connectors.binary_search(id).is_ok();
    let mut routes = Vec::new();
    for approach in graph.lanelets.iter().filter(|l| l.role == "approach") {
        let Some(&arm) = junction.arm_of.get(&approach.id) else { continue };
        let kind = if approach.mode == cits::proto::TravelMode::Car as i32 { Kind::Car } else { Kind::Bicycle };
        let mut lead_up: Vec<&Lanelet> = Vec::new();
        let mut first = approach;
        while lead_up.iter().map(|l| l.length_m).sum::<f64>() + approach.length_m < LEAD_UP_M {
            match predecessors(first.id)[..] {
                [p] if !is_connector(&p.id) && !lead_up.iter().any(|l| l.id == p.id) && p.id != approach.id => {
                    lead_up.insert(0, p);
                    first = p;
                }
                _ => break,
            }
        }
        for c in approach.successors.iter().filter(|c| is_connector(c)) {
            let connector = by_id[c];
            if !matches!(connector.turn(), Turn::Left | Turn::Straight | Turn::Right) {
                continue;
            }
            // Through the box: connectors on until the first lane out of it.
            let mut chain = vec![connector];
            let exit = loop {
                let last = chain.last().unwrap();
                let next =
                    by_id[last.successors.first().with_context(|| format!("connector {} leads nowhere", last.id))?];
                if !is_connector(&next.id) || chain.len() > 8 {
                    break next;
                }
                chain.push(next);
            };
            let Some(&exit_arm) = junction.arm_of.get(&exit.id) else { continue };
            let mut lead_away: Vec<&Lanelet> = Vec::new();
            let mut last = exit;
            while lead_away.iter().map(|l| l.length_m).sum::<f64>() + exit.length_m < LEAD_AWAY_M {
                match last.successors[..] {
                    [s] if !is_connector(&s) && s != exit.id && !lead_away.iter().any(|l| l.id == s) => {
                        last = by_id[&s];
                        lead_away.push(last);
                    }
                    _ => break,
                }
            }
            let lanes: Vec<&Lanelet> = lead_up
                .iter()
                .copied()
                .chain([approach])
                .chain(chain.iter().copied())
                .chain([exit])
                .chain(lead_away)
                .collect();
            let parts: Vec<(i64, Vec<P>)> = lanes.iter().map(|l| (l.id, line(l))).collect();
            let core = (lead_up.len(), lead_up.len() + chain.len() + 1);
            let turning = (connector.turn() != Turn::Straight).then_some(connector.id);
            let arm_name = junction.arm_name(arm);
            let through = Through { arm, arm_name, exit_arm, turn: connector.turn(), core };
            routes.push(build_route(kind, &through, &parts, turning));
        }
    }
    for crosswalk in graph.lanelets.iter().filter(|l| l.role == "crosswalk") {
        let Some(&arm) = junction.arm_of.get(&crosswalk.id) else { continue };
        for reverse in [false, true] {
            let mut cross = line(crosswalk);
            if reverse {
                cross.reverse();
            }
            // The corner's walkway at a crosswalk end, leading away from that end.
            let walkway_from = |end: P| -> Option<(i64, Vec<P>)> {
                let walkway = crosswalk.successors.iter().map(|w| by_id[w]).find(|w| {
                    let c = line(w);
                    dist(c[0], end) < 0.5 || dist(*c.last().unwrap(), end) < 0.5
                })?;
                let mut walk = line(walkway);
                if dist(walk[0], end) > dist(*walk.last().unwrap(), end) {
                    walk.reverse();
                }
                Some((walkway.id, walk))
            };
            let away = walkway_from(*cross.last().unwrap());
            // Library pedestrians also come along the street to the kerb, as people do (a
            // pedestrian who appears at the kerb gives no camera time to see her coming).
            let up = if library { walkway_from(cross[0]) } else { None };
            let mut parts = Vec::new();
            if let Some((up_id, up)) = up {
                let mut up = near_half(up);
                up.reverse();
                parts.push((up_id, up));
            }
            let at = parts.len();
            parts.push((crosswalk.id, cross));
            if let Some((away_id, away)) = away {
                parts.push((away_id, if library { near_half(away) } else { away }));
            }
            let through =
                Through { arm, arm_name: junction.arm_name(arm), exit_arm: arm, turn: Turn::None, core: (at, at) };
            routes.push(build_route(Kind::Pedestrian, &through, &parts, None));
        }
    }
    if routes.is_empty() {
        bail!("map {} has no routes", graph.name);
    }
    Ok(routes)
}

/// The first half of a walkway's points (at least its first segment): the part at its start.
fn near_half(mut walk: Vec<P>) -> Vec<P> {
    walk.truncate(walk.len().div_ceil(2).max(2));
    walk
}

/// Where two routes' polylines cross: arc lengths along each and the point.
#[derive(Debug, Clone, Copy)]
pub(super) struct Crossing {
    pub(super) s_a: f64,
    pub(super) s_b: f64,
    pub(super) at: P,
}

/// All crossings of two routes, in order along `a`. Collinear stretches (a shared lane) are not
/// crossings; the spacing rule covers those. Where routes merge or diverge their polylines touch
/// at one point, which counts.
pub(super) fn crossings(a: &Route, b: &Route) -> Vec<Crossing> {
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

//! The lane graph in local metres: projecting points onto lanes, the connectors a vehicle may
//! be on, the routes ahead with their probabilities, and walking along them.

use std::collections::HashMap;

use crate::proto::{LaneGraph, MatchedPoint, TravelMode, Turn};
use crate::shared::finite;
use crate::shared::geo::{distance, tightest_radius_m, wgs84_to_offset, Wgs84, BEND_WINDOW_M};
use crate::stages::map_matcher::{local_centerline, stations};

use super::intent::{turn_prior, turn_speeds_mps, Evidence};

pub(super) struct Lane {
    pub(super) points: Vec<(f64, f64)>,
    /// Distance along the centerline at each point.
    pub(super) stations: Vec<f64>,
    pub(super) successors: Vec<i64>,
    pub(super) turn: Turn,
    /// A crosswalk (pedestrians cross the road on it).
    pub(super) crosswalk: bool,
    /// A turn connector's tightest bend (m), which sets how fast it is taken; None elsewhere
    /// and where the connector does not bend.
    pub(super) radius_m: Option<f64>,
}

/// How far (1σ, m) a vehicle's measured points stray from its lane's centerline: measurement
/// noise and lane keeping.
const LANE_KEEPING_SIGMA_M: f64 = 0.5;

/// Independent observations of a lane line in a second of one road user's points: how fast
/// lane-keeping deviations decorrelate (about every half second).
const INDEPENDENT_FIXES: f64 = 2.0;

impl Lane {
    /// Station of the centerline's first point (a lane has two or more: [`LaneMap::new`]).
    pub(super) fn start(&self) -> f64 {
        self.stations.first().copied().unwrap_or(0.0)
    }

    /// Station of the centerline's last point: the lane's length from the lanelet's start.
    pub(super) fn end(&self) -> f64 {
        self.stations.last().copied().unwrap_or(0.0)
    }

    /// Station of the centerline point nearest `p`, and the distance to it.
    pub(super) fn project(&self, p: Local) -> (f64, f64) {
        let mut best = (self.start(), f64::INFINITY);
        for (k, w) in self.points.windows(2).enumerate() {
            let (dx, dy) = (w[1].0 - w[0].0, w[1].1 - w[0].1);
            let len2 = dx * dx + dy * dy;
            let f = if len2 > 0.0 { (((p.0 - w[0].0) * dx + (p.1 - w[0].1) * dy) / len2).clamp(0.0, 1.0) } else { 0.0 };
            let d = distance(p.0 - w[0].0 - f * dx, p.1 - w[0].1 - f * dy);
            if d < best.1 {
                best = (self.stations[k] + f * (self.stations[k + 1] - self.stations[k]), d);
            }
        }
        best
    }

    /// The point at `station` metres along the centerline (held at its ends), and its lanelet
    /// station clamped to the lane.
    pub(super) fn at(&self, station: f64) -> ((f64, f64), f64) {
        let d = station.clamp(self.start(), self.end());
        let k = self.stations.partition_point(|s| *s < d).clamp(1, self.points.len() - 1);
        let (s0, s1) = (self.stations[k - 1], self.stations[k]);
        let f = if s1 > s0 { (d - s0) / (s1 - s0) } else { 0.0 };
        let (a, b) = (self.points[k - 1], self.points[k]);
        ((a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1)), d)
    }

    /// The centerline's direction at `station` (a unit vector), over `half_m` either side; None
    /// where the lane has no length there.
    pub(super) fn direction(&self, station: f64, half_m: f64) -> Option<(f64, f64)> {
        let ((x0, y0), _) = self.at(station - half_m);
        let ((x1, y1), _) = self.at(station + half_m);
        let len = distance(x1 - x0, y1 - y0);
        (len > 0.0).then(|| ((x1 - x0) / len, (y1 - y0) / len))
    }
}

/// The lane graph in local metres, for walking along routes.
pub struct LaneMap {
    pub(super) origin: Wgs84,
    pub(super) lanes: HashMap<i64, Lane>,
    /// Each lanelet's predecessors.
    pub(super) predecessors: HashMap<i64, Vec<i64>>,
}

impl LaneMap {
    pub fn new(graph: &LaneGraph) -> Self {
        let origin = Wgs84 { lat: graph.origin_latitude, lon: graph.origin_longitude };
        let lanes = graph
            .lanelets
            .iter()
            .map(|l| {
                let points = local_centerline(origin, l);
                // Clipped tile lanelets count distances from the full lanelet's start, as matching does.
                let stations = stations(&points, l.station_offset_m);
                let (successors, turn, crosswalk) = (l.successors.clone(), l.turn(), l.role == "crosswalk");
                let radius_m = matches!(turn, Turn::Left | Turn::Right | Turn::Uturn)
                    .then(|| tightest_radius_m(&points, BEND_WINDOW_M))
                    .flatten();
                (l.id, Lane { points, stations, successors, turn, crosswalk, radius_m })
            })
            // A centerline of fewer than two points has no direction to predict along: such a
            // lanelet (a damaged map blob) is left out, as absent lanelets are (routes and
            // matched tracks look lanes up by id).
            .filter(|(_, lane)| lane.points.len() >= 2)
            .collect();
        let mut predecessors: HashMap<i64, Vec<i64>> = HashMap::new();
        for l in &graph.lanelets {
            for s in &l.successors {
                predecessors.entry(*s).or_default().push(l.id);
            }
        }
        Self { origin, lanes, predecessors }
    }

    /// The speeds (m/s, slowest and fastest) road users of `mode` take connector `id` at (see
    /// [`turn_speeds_mps`]); None off a turn connector.
    pub(super) fn connector_speeds(&self, mode: TravelMode, id: i64) -> Option<(f64, f64)> {
        turn_speeds_mps(mode, self.lanes.get(&id)?.radius_m)
    }

    /// The speeds road users of `mode` take `turn` from `approach` at: its connectors' (the
    /// tightest, where it has several); None where it has no such connector.
    pub(super) fn turn_speeds(&self, mode: TravelMode, approach: i64, turn: Turn) -> Option<(f64, f64)> {
        let lane = self.lanes.get(&approach)?;
        let radius = lane
            .successors
            .iter()
            .filter_map(|id| self.lanes.get(id))
            .filter(|c| c.turn == turn)
            .filter_map(|c| c.radius_m)
            .reduce(f64::min);
        turn_speeds_mps(mode, radius)
    }

    /// Where a matched point was measured (local metres): its snapped point moved back by its
    /// offset across its lanelet. A fit to the snapped points would re-score the matcher's own
    /// choice (they lie on that lanelet by construction).
    pub(super) fn measured_point(&self, q: &MatchedPoint) -> Local {
        let snapped = wgs84_to_offset(self.origin, Wgs84 { lat: q.latitude, lon: q.longitude });
        let Some((dx, dy)) = self.lanes.get(&q.lanelet_id).and_then(|lane| lane.direction(q.station_m, 0.5)) else {
            return snapped;
        };
        if !q.offset_m.is_finite() {
            return snapped;
        }
        // Left of the lanelet's direction is positive.
        (snapped.0 - dy * q.offset_m, snapped.1 + dx * q.offset_m)
    }

    /// The turn connectors a vehicle matched to connector `lanelet` may really be on, with the
    /// station of its position `at` on each and how well its recent measured points `track`
    /// (local metres, see [`LaneMap::measured_point`]) follow each, as a likelihood. Connectors
    /// leaving one approach overlap where they start, so the matcher's nearest one is a guess
    /// until they part: a car going straight through is matched to the left turn's connector as
    /// often as not. A road user's deviations from its line are slow (lane keeping), so a
    /// second of points is [`INDEPENDENT_FIXES`] observations, not one per point: ten points
    /// scored as independent let a still-straight start outvote a turn signal a hundredfold.
    pub(super) fn connector_candidates(&self, lanelet: i64, at: Local, track: &[Local]) -> Vec<(i64, f64, f64)> {
        let from = self.predecessors.get(&lanelet).and_then(|p| p.first());
        let siblings: Vec<i64> = match from.and_then(|f| self.lanes.get(f)) {
            Some(approach) => approach.successors.iter().copied().filter(|s| self.lanes.contains_key(s)).collect(),
            None => vec![lanelet],
        };
        let before = from.and_then(|f| self.lanes.get(f));
        let fits: Vec<(i64, f64, f64)> = siblings
            .iter()
            .map(|id| {
                let lane = &self.lanes[id];
                let squared = track
                    .iter()
                    .map(|p| {
                        let d = lane.project(*p).1;
                        let d = before.map_or(d, |b| finite::min(d, b.project(*p).1));
                        d * d
                    })
                    .sum::<f64>()
                    / track.len().max(1) as f64
                    * INDEPENDENT_FIXES;
                (*id, lane.project(at).0, squared)
            })
            .collect();
        let best = fits.iter().map(|f| f.2).fold(f64::INFINITY, finite::min);
        fits.into_iter()
            .map(|(id, station, squared)| {
                (id, station, (-(squared - best) / (2.0 * LANE_KEEPING_SIGMA_M.powi(2))).exp())
            })
            .collect()
    }

    /// The walkable lanelet that begins or ends where `lane` ends (`at_end`) or begins: a
    /// walkway's crosswalk at a kerb, a crosswalk's walkway. With its id and whether it is walked
    /// in its drawing direction. None where nothing joins (or the tile cut the lane there).
    pub(super) fn walked_onto(&self, lane: &Lane, at_end: bool) -> Option<(i64, &Lane, bool)> {
        const JOINED_M: f64 = 1.0;
        let kerb = if at_end { *lane.points.last()? } else { lane.points[0] };
        let near = |p: Local| distance(p.0 - kerb.0, p.1 - kerb.1) <= JOINED_M;
        lane.successors.iter().find_map(|id| {
            let next = self.lanes.get(id)?;
            if near(next.points[0]) {
                Some((*id, next, true))
            } else {
                near(*next.points.last()?).then_some((*id, next, false))
            }
        })
    }

    /// Routes from `lanelet` that cover `distance` metres (or end), with their probabilities.
    /// A route enters no lanelet twice (`behind`: the route so far): successors can form cycles
    /// (crosswalks and sidewalks lead both ways), and a long enough distance would go round them.
    pub(super) fn routes(
        &self,
        mode: TravelMode,
        evidence: &Evidence,
        lanelet: i64,
        remaining: f64,
        behind: &[i64],
    ) -> Vec<(Vec<i64>, f64)> {
        let Some(lane) = self.lanes.get(&lanelet) else { return Vec::new() };
        let left = remaining - lane.end();
        let behind = [behind, &[lanelet]].concat();
        let next: Vec<&i64> =
            lane.successors.iter().filter(|s| self.lanes.contains_key(s) && !behind.contains(s)).collect();
        if left <= 0.0 || next.is_empty() {
            return vec![(vec![lanelet], 1.0)];
        }
        let shares =
            super::normalised(&next.iter().map(|s| turn_prior(mode, self.lanes[s].turn, evidence)).collect::<Vec<_>>());
        let mut out = Vec::new();
        for (s, p) in next.into_iter().zip(shares) {
            for (mut route, q) in self.routes(mode, evidence, *s, left, &behind) {
                route.insert(0, lanelet);
                out.push((route, p * q));
            }
        }
        out
    }

    /// The point `distance` metres along `route` from its start (held at the route's end).
    pub(super) fn walk(&self, route: &[i64], mut distance: f64) -> ((f64, f64), i64) {
        for (i, id) in route.iter().enumerate() {
            let lane = &self.lanes[id];
            let length = lane.end();
            if distance <= length || i + 1 == route.len() {
                return (lane.at(distance.min(length)).0, *id);
            }
            distance -= length;
        }
        unreachable!("routes are never empty")
    }
}

/// Local metres east/north of the map origin.
pub(super) type Local = (f64, f64);

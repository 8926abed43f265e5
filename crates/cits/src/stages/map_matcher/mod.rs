// Over 600 lines with its tests: the lane index, tiles and matching share their geometry.
//! Map matcher stage logic: trajectory points snapped to the lanelets of their travel mode.
//!
//! The lane graph is indexed once into a grid of cells (local metres around the map origin), so
//! matching a point looks at the few centerline segments of the 3×3 cells around it instead of
//! the whole map. A point is scored by its distance to a segment plus a penalty when its heading
//! disagrees with the lane's direction, and a bonus when the lanelet continues the previous
//! point's lanelet (same one or a successor): cheap, and far better than nearest-point snapping at
//! an intersection where lanes cross and run side by side.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::proto::{LaneGraph, MatchedPoint, MatchedTrajectory, ObjectClass, Trajectory, TravelMode};
use crate::shared::geo::{distance, offset_to_wgs84, wgs84_to_offset, Wgs84};

mod handler;
mod limits;

pub use handler::MapMatcher;

pub const STAGE: &str = "map_matcher";

/// Grid cell edge: no smaller than any match radius, so the 3×3 neighbourhood holds every
/// candidate; no larger, because every segment in those cells is projected (at 20 m a point at
/// the intersection was tried against hundreds of segments, most of the map matcher's time).
pub const CELL_M: f64 = MATCH_REACH_M;
const _: () = {
    let modes = [TravelMode::Car, TravelMode::Bicycle, TravelMode::Pedestrian, TravelMode::Unknown];
    let mut i = 0;
    while i < modes.len() {
        assert!(match_radius_m(modes[i]) <= CELL_M, "a match radius exceeds the cell edge");
        i += 1;
    }
};
/// Metres of distance one radian of heading disagreement costs.
const HEADING_WEIGHT_M_PER_RAD: f64 = 2.0;
/// Bonus (m) for staying on the previous lanelet or moving to one of its successors.
const CONTINUITY_BONUS_M: f64 = 1.0;
/// Below this speed a heading is noise and is not used.
const MIN_SPEED_FOR_HEADING_MPS: f64 = 1.0;

/// How far from a centerline a point of each mode may be and still be matched.
pub const fn match_radius_m(mode: TravelMode) -> f64 {
    match mode {
        TravelMode::Car => 3.0,
        TravelMode::Bicycle => 2.0,
        TravelMode::Pedestrian => 3.0,
        TravelMode::Unknown => 0.0,
    }
}

/// The lane mode a perceived class travels in.
pub fn travel_mode(class: ObjectClass) -> TravelMode {
    match class {
        ObjectClass::Bicycle => TravelMode::Bicycle,
        ObjectClass::Pedestrian => TravelMode::Pedestrian,
        ObjectClass::Unknown | ObjectClass::Animal => TravelMode::Unknown,
        _ => TravelMode::Car,
    }
}

#[derive(Debug, Clone)]
struct Segment {
    lanelet_id: i64,
    bidirectional: bool,
    a: (f64, f64),
    b: (f64, f64),
    /// Distance along the lanelet's centerline at `a`.
    station_a: f64,
    /// a → b: length, and direction clockwise from north (radians), computed once per map.
    length: f64,
    heading: f64,
}

/// The lane graph indexed for matching.
pub struct LaneIndex {
    origin: Wgs84,
    /// Segments by travel mode and cell: a point is only ever matched to lanes of its mode.
    cells: HashMap<(i32, i32, i32), Vec<Segment>, BuildHasherDefault<CellHasher>>,
    successors: HashMap<i64, Vec<i64>>,
}

/// Hashes a cell's three integers with a multiply per integer (FxHash's step) instead of SipHash:
/// the index is built anew per delivery from the map tile, a few thousand insertions, and SipHash
/// was a fifth of building it in the actors (perf, 2026-11-27). Keys are our own cells, not input
/// an attacker picks.
#[derive(Default)]
struct CellHasher(u64);

impl Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b.into());
        }
    }

    fn write_i32(&mut self, i: i32) {
        self.write_u64(i as u32 as u64);
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// Map tiles: the lane graph cut along a fixed WGS84 grid (≈ 150 m × 220 m here), each tile with
/// every lanelet within [`TILE_MARGIN_M`] of it — about the area one RSU covers. A component finds
/// the tile under a trajectory's newest point from the point alone (no map metadata) and reads
/// only that one, never the whole map for every message; the margin lets that one tile also serve
/// the frame's other objects (see [`TileCache`]), so a frame costs a single blob read even where
/// an intersection lies on a tile corner, as ours does.
pub const TILE_DEG: f64 = 0.002;
/// Lanelets within this distance of a tile belong to it.
pub const TILE_MARGIN_M: f64 = 150.0;
/// How far around a point matching looks for lanelets (the farthest candidate it accepts).
pub const MATCH_REACH_M: f64 = 5.0;
/// How far around a point the predictor walks routes: more than a fast car covers over the
/// prediction horizon (14 m/s × 3 s).
pub const ROUTE_REACH_M: f64 = 60.0;

pub fn tile_of(p: Wgs84) -> (i64, i64) {
    ((p.lon / TILE_DEG).floor() as i64, (p.lat / TILE_DEG).floor() as i64)
}

/// Blob name of a tile in the map container.
pub fn tile_object(tile: (i64, i64)) -> String {
    format!("tile_{}_{}.pb", tile.0, tile.1)
}

/// Whether `p` lies within `margin_m` of `tile` (east/north distance to the tile's rectangle).
fn tile_reaches(tile: (i64, i64), p: Wgs84, margin_m: f64) -> bool {
    let (lon0, lat0) = (tile.0 as f64 * TILE_DEG, tile.1 as f64 * TILE_DEG);
    let centre = Wgs84 { lat: lat0 + TILE_DEG / 2.0, lon: lon0 + TILE_DEG / 2.0 };
    let (half_w, half_h) = wgs84_to_offset(centre, Wgs84 { lat: lat0 + TILE_DEG, lon: lon0 + TILE_DEG });
    let (e, n) = wgs84_to_offset(centre, p);
    e.abs() <= half_w + margin_m && n.abs() <= half_h + margin_m
}

/// The part of `graph` within `margin_m` of `tile` (with [`TILE_MARGIN_M`]: what `cits map`
/// writes as the tile).
pub fn tile_graph(graph: &LaneGraph, tile: (i64, i64), margin_m: f64) -> LaneGraph {
    let inside = |c: &[f64]| tile_reaches(tile, Wgs84 { lat: c[1], lon: c[0] }, margin_m);
    // Each lanelet clipped to its points inside (plus one neighbour each side, so no segment
    // crossing the edge is lost); the station offset keeps distances along the full lanelet.
    let lanelets = graph
        .lanelets
        .iter()
        .filter_map(|l| {
            let points: Vec<&[f64]> = l.centerline.chunks_exact(2).collect();
            let first = points.iter().position(|c| inside(c))?;
            let last = points.iter().rposition(|c| inside(c))?;
            let (from, to) = (first.saturating_sub(1), (last + 1).min(points.len() - 1));
            let local = local_centerline(Wgs84 { lat: graph.origin_latitude, lon: graph.origin_longitude }, l);
            let offset = stations(&local, 0.0)[from];
            Some(crate::proto::Lanelet {
                centerline: points[from..=to].iter().flat_map(|c| c.iter().copied()).collect(),
                station_offset_m: l.station_offset_m + offset,
                ..l.clone()
            })
        })
        .collect();
    LaneGraph { lanelets, ..graph.clone() }
}

/// Prepared tiles (a [`LaneIndex`], a predictor's lane map, ...), each built once from its lane
/// graph, which the caller loads (from the blobstore in an actor, from the whole map natively).
/// A point is served by any loaded tile that holds every lanelet within `reach_m` of it, so the
/// objects of one frame mostly share the first tile loaded.
pub struct TileCache<T> {
    build: fn(&LaneGraph) -> T,
    reach_m: f64,
    tiles: Vec<((i64, i64), T)>,
    /// Tiles to load, where one serves a point, before the tile under it (see [`Self::plan`]).
    planned: Vec<(i64, i64)>,
}

impl<T> TileCache<T> {
    /// `reach_m`: how far around a point the user looks ([`MATCH_REACH_M`], [`ROUTE_REACH_M`]).
    pub fn new(build: fn(&LaneGraph) -> T, reach_m: f64) -> Self {
        assert!(reach_m <= TILE_MARGIN_M, "a tile holds lanelets within {TILE_MARGIN_M} m only");
        Self { build, reach_m, tiles: Vec::new(), planned: Vec::new() }
    }

    /// Prefer these tiles (read ahead, e.g. [`covering_tiles`] of a frame) to the tile under a
    /// point: which tile a point gets otherwise depends on the order points come in.
    pub fn plan(&mut self, tiles: Vec<(i64, i64)>) {
        self.planned = tiles;
    }

    /// The prepared tile for `p`; `load` gives a tile's lane graph when it is first needed.
    pub fn at<E>(&mut self, p: Wgs84, load: impl FnOnce((i64, i64)) -> Result<LaneGraph, E>) -> Result<&T, E> {
        let reach_m = self.reach_m;
        let i = match self.tiles.iter().position(|(tile, _)| serves(*tile, p, reach_m)) {
            Some(i) => i,
            None => {
                let tile = self.planned.iter().copied().find(|t| serves(*t, p, reach_m)).unwrap_or_else(|| tile_of(p));
                self.tiles.push((tile, (self.build)(&load(tile)?)));
                self.tiles.len() - 1
            }
        };
        Ok(&self.tiles[i].1)
    }
}

/// Whether `tile` holds every lanelet within `reach_m` of `p`.
fn serves(tile: (i64, i64), p: Wgs84, reach_m: f64) -> bool {
    tile_reaches(tile, p, TILE_MARGIN_M - reach_m)
}

/// Few tiles that together serve every point for a user looking `reach_m` around it: the tile
/// under each point no tile chosen before serves. Around one intersection, one tile.
pub fn covering_tiles(points: impl IntoIterator<Item = Wgs84>, reach_m: f64) -> Vec<(i64, i64)> {
    let mut tiles: Vec<(i64, i64)> = Vec::new();
    for p in points {
        if !tiles.iter().any(|t| serves(*t, p, reach_m)) {
            tiles.push(tile_of(p));
        }
    }
    tiles
}

/// Every tile with lanelets within `margin_m` (the tiles `cits map` writes; any other tile of the
/// grid has none).
pub fn tiles_of(graph: &LaneGraph, margin_m: f64) -> Vec<(i64, i64)> {
    let points: Vec<Wgs84> = graph
        .lanelets
        .iter()
        .flat_map(|l| l.centerline.chunks_exact(2).map(|c| Wgs84 { lat: c[1], lon: c[0] }))
        .collect();
    let Some(first) = points.first() else { return Vec::new() };
    // Degrees per metre at the map's latitude, padded by one tile for the margin's rounding.
    let (dlat, dlon) =
        (margin_m / 111_000.0 + TILE_DEG, margin_m / (111_000.0 * first.lat.to_radians().cos()) + TILE_DEG);
    let (lo, hi) = points.iter().fold(((f64::MAX, f64::MAX), (f64::MIN, f64::MIN)), |(lo, hi), p| {
        ((lo.0.min(p.lon), lo.1.min(p.lat)), (hi.0.max(p.lon), hi.1.max(p.lat)))
    });
    let (a, b) =
        (tile_of(Wgs84 { lat: lo.1 - dlat, lon: lo.0 - dlon }), tile_of(Wgs84 { lat: hi.1 + dlat, lon: hi.0 + dlon }));
    (a.0..=b.0)
        .flat_map(|ix| (a.1..=b.1).map(move |iy| (ix, iy)))
        .filter(|t| !tile_graph(graph, *t, margin_m).lanelets.is_empty())
        .collect()
}

/// Distance along a polyline at each of its points, counting from `start`.
pub fn stations(points: &[(f64, f64)], start: f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(points.len());
    out.push(start);
    for w in points.windows(2) {
        out.push(out[out.len() - 1] + distance(w[1].0 - w[0].0, w[1].1 - w[0].1));
    }
    out
}

/// A lanelet's centerline in metres east/north of `origin`.
pub fn local_centerline(origin: Wgs84, l: &crate::proto::Lanelet) -> Vec<(f64, f64)> {
    l.centerline.chunks_exact(2).map(|c| wgs84_to_offset(origin, Wgs84 { lat: c[1], lon: c[0] })).collect()
}

fn cell_of(p: (f64, f64)) -> (i32, i32) {
    ((p.0 / CELL_M).floor() as i32, (p.1 / CELL_M).floor() as i32)
}

impl LaneIndex {
    pub fn new(graph: &LaneGraph) -> Self {
        let origin = Wgs84 { lat: graph.origin_latitude, lon: graph.origin_longitude };
        let mut cells: HashMap<(i32, i32, i32), Vec<Segment>, BuildHasherDefault<CellHasher>> = HashMap::default();
        for l in &graph.lanelets {
            let mode = TravelMode::try_from(l.mode).unwrap_or(TravelMode::Unknown);
            let points = local_centerline(origin, l);
            let along = stations(&points, l.station_offset_m);
            for (k, w) in points.windows(2).enumerate() {
                let segment = Segment {
                    lanelet_id: l.id,
                    bidirectional: l.bidirectional,
                    a: w[0],
                    b: w[1],
                    station_a: along[k],
                    length: distance(w[1].0 - w[0].0, w[1].1 - w[0].1),
                    heading: (w[1].0 - w[0].0).atan2(w[1].1 - w[0].1),
                };
                // Every cell of the segment's bounding box (one or two for the map's 1 m samples).
                let (ca, cb) = (cell_of(w[0]), cell_of(w[1]));
                for x in ca.0.min(cb.0)..=ca.0.max(cb.0) {
                    for y in ca.1.min(cb.1)..=ca.1.max(cb.1) {
                        cells.entry((mode as i32, x, y)).or_default().push(segment.clone());
                    }
                }
            }
        }
        let successors = graph.lanelets.iter().map(|l| (l.id, l.successors.clone())).collect();
        Self { origin, cells, successors }
    }

    /// Best lanelet for one point, or None when no lane of the mode is within its radius.
    pub fn match_point(
        &self,
        p: Wgs84,
        heading_deg: Option<f64>,
        mode: TravelMode,
        previous: Option<i64>,
    ) -> Option<MatchedPoint> {
        let radius = match_radius_m(mode);
        let q = wgs84_to_offset(self.origin, p);
        // Only the cells the radius reaches around the point (one to four of the 3×3 around it):
        // a segment within the radius has a point there, and is kept in every cell of its box.
        let (low, high) = (cell_of((q.0 - radius, q.1 - radius)), cell_of((q.0 + radius, q.1 + radius)));
        let heading = heading_deg.map(f64::to_radians);
        let continues = |id: i64| {
            previous.is_some_and(|prev| prev == id || self.successors.get(&prev).is_some_and(|n| n.contains(&id)))
        };
        let mut best: Option<(f64, &Segment, (f64, f64), f64)> = None;
        for x in low.0..=high.0 {
            for y in low.1..=high.1 {
                for s in self.cells.get(&(mode as i32, x, y)).into_iter().flatten() {
                    let (foot, t, dist) = project(q, s.a, s.b);
                    if dist > radius {
                        continue;
                    }
                    let mut score = dist;
                    if let Some(h) = heading {
                        let mut diff = angle_diff(h, s.heading);
                        if s.bidirectional {
                            diff = diff.min(std::f64::consts::PI - diff);
                        }
                        score += HEADING_WEIGHT_M_PER_RAD * diff;
                    }
                    if continues(s.lanelet_id) {
                        score -= CONTINUITY_BONUS_M;
                    }
                    if best.as_ref().is_none_or(|b| score < b.0) {
                        best = Some((score, s, foot, s.station_a + t * s.length));
                    }
                }
            }
        }
        best.map(|(_, s, foot, station)| {
            let snapped = offset_to_wgs84(self.origin, foot.0, foot.1);
            MatchedPoint {
                measured_at_us: 0,
                latitude: snapped.lat,
                longitude: snapped.lon,
                lanelet_id: s.lanelet_id,
                // Signed, left of the lanelet's drawing direction positive: where in its lane a
                // road user keeps tells the predictor which way it is about to turn.
                offset_m: {
                    let side = (s.b.0 - s.a.0) * (q.1 - s.a.1) - (s.b.1 - s.a.1) * (q.0 - s.a.0);
                    distance(q.0 - foot.0, q.1 - foot.1).copysign(side)
                },
                station_m: station,
                speed_mps: None,
                heading_deg: None,
            }
        })
    }

    /// Matches every point of a trajectory in time order. Unmatched points (off every lane of the
    /// mode, or objects of unknown class) keep their position and lanelet id 0.
    pub fn match_trajectory(&self, t: &Trajectory) -> MatchedTrajectory {
        let mode = travel_mode(ObjectClass::try_from(t.classification).unwrap_or(ObjectClass::Unknown));
        let mut previous = None;
        let points = t
            .points
            .iter()
            .map(|p| {
                let heading = p.heading_deg.filter(|_| p.speed_mps.unwrap_or(0.0) >= MIN_SPEED_FOR_HEADING_MPS);
                let at = Wgs84 { lat: p.latitude, lon: p.longitude };
                let matched = self.match_point(at, heading, mode, previous).unwrap_or(MatchedPoint {
                    latitude: p.latitude,
                    longitude: p.longitude,
                    ..Default::default()
                });
                previous = (matched.lanelet_id != 0).then_some(matched.lanelet_id).or(previous);
                MatchedPoint {
                    measured_at_us: p.measured_at_us,
                    speed_mps: p.speed_mps,
                    heading_deg: heading,
                    ..matched
                }
            })
            .collect();
        MatchedTrajectory {
            station_id: t.station_id,
            object_id: t.object_id,
            generation: t.generation,
            mode: mode as i32,
            points,
            sensor_id: t.sensor_id,
            cue: t.cue,
        }
    }
}

/// Foot of the perpendicular from `q` onto segment a–b: (foot, fraction along, distance).
fn project(q: (f64, f64), a: (f64, f64), b: (f64, f64)) -> ((f64, f64), f64, f64) {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let t = if len2 > 0.0 { (((q.0 - a.0) * dx + (q.1 - a.1) * dy) / len2).clamp(0.0, 1.0) } else { 0.0 };
    let foot = (a.0 + t * dx, a.1 + t * dy);
    (foot, t, distance(q.0 - foot.0, q.1 - foot.1))
}

/// Absolute difference of two angles (radians), 0..π.
fn angle_diff(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(std::f64::consts::TAU);
    d.min(std::f64::consts::TAU - d)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod tile_tests;

//! The street map for the actors: from the Lanelet2 OSM file to the blobs map matcher and
//! predictor read from the blobstore — WKB centerlines per travel mode (the research's format)
//! and a compact protobuf lane graph with successors.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::{bail, Context as _};
use cits::pipeline::InProcess;
use cits::proto::{LaneGraph, Lanelet, TravelMode, Turn};
use cits::shared::geo::{offset_to_wgs84, wgs84_to_offset, Wgs84};
use prost::Message as _;

mod infer;
pub mod intersection;
pub mod junction;
mod shared_roads;
pub mod site;

/// Blobstore container of the map and its objects.
pub const CONTAINER: &str = "cits-map";
pub const LANE_GRAPH: &str = "lane-graph.pb";

pub fn centerlines_object(mode: TravelMode) -> String {
    format!("centerlines-{}.wkb", mode.short_name())
}

/// Bound endpoints closer than this belong together (the map shares nodes; this absorbs rounding).
const JOIN_TOLERANCE_M: f64 = 0.2;
/// Centerline sampling step.
const STEP_M: f64 = 1.0;

type Point = (f64, f64); // east, north (m) from the map origin

fn dist(a: Point, b: Point) -> f64 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

fn polyline_length(line: &[Point]) -> f64 {
    line.windows(2).map(|w| dist(w[0], w[1])).sum()
}

/// A lane graph centerline (lon, lat pairs) from metres east/north of `origin`, and back.
fn lon_lat(origin: Wgs84, line: &[Point]) -> Vec<f64> {
    line.iter()
        .flat_map(|p| {
            let w = offset_to_wgs84(origin, p.0, p.1);
            [w.lon, w.lat]
        })
        .collect()
}

pub fn local_line(origin: Wgs84, l: &Lanelet) -> Vec<Point> {
    l.centerline.chunks_exact(2).map(|c| wgs84_to_offset(origin, Wgs84 { lat: c[1], lon: c[0] })).collect()
}

/// The point at fraction `t` (0..1) of a polyline's length.
fn point_at(line: &[Point], t: f64) -> Point {
    let total = polyline_length(line);
    let mut remaining = t.clamp(0.0, 1.0) * total;
    for w in line.windows(2) {
        let d = dist(w[0], w[1]);
        if remaining <= d && d > 0.0 {
            let f = remaining / d;
            return (w[0].0 + f * (w[1].0 - w[0].0), w[0].1 + f * (w[1].1 - w[0].1));
        }
        remaining -= d;
    }
    *line.last().expect("non-empty polyline")
}

/// The lanelet's centerline in driving direction: the bounds are aligned with each other, the
/// midline sampled every metre, and the result oriented so that the left bound lies on its left.
fn centerline(left: &[Point], right: &[Point]) -> Vec<Point> {
    let mut right = right.to_vec();
    let (l0, ln, r0, rn) = (left[0], left[left.len() - 1], right[0], right[right.len() - 1]);
    if dist(l0, r0) + dist(ln, rn) > dist(l0, rn) + dist(ln, r0) {
        right.reverse();
    }
    let n = ((polyline_length(left).max(polyline_length(&right)) / STEP_M).ceil() as usize).max(1);
    let mut center: Vec<Point> = (0..=n)
        .map(|i| {
            let t = i as f64 / n as f64;
            let (a, b) = (point_at(left, t), point_at(&right, t));
            ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0)
        })
        .collect();
    let mid = n / 2;
    let (c0, c1) = (center[mid], center[(mid + 1).min(n)]);
    let l = point_at(left, mid as f64 / n as f64);
    let cross = (c1.0 - c0.0) * (l.1 - c0.1) - (c1.1 - c0.1) * (l.0 - c0.0);
    if cross < 0.0 {
        center.reverse();
    }
    center
}

/// One way of a lanelet bound: its node ids and points.
#[derive(Debug)]
struct BoundLine {
    nodes: Vec<i64>,
    points: Vec<Point>,
}

impl BoundLine {
    fn reverse(&mut self) {
        self.nodes.reverse();
        self.points.reverse();
    }
}

/// A lanelet's bound from its ways (`lines`, the relation's members of `role` in the order it
/// lists them): joined into one line, each way turned round where needed so that it begins where
/// the line so far ends — at the same node, or within [`JOIN_TOLERANCE_M`]. The first way may be
/// turned round too (the second then meets its start). A shared node is kept once. An error
/// names the lanelet and its ways where they do not join, and where the bound has none.
///
/// Lanelet2 itself (1.2.3) accepts exactly one way per bound (`Lanelet has not exactly one left
/// border!`): several in a row are what maps drawn for other tools (inD-style) have.
fn join_bound(lanelet: i64, role: &str, ways: &[i64], lines: Vec<BoundLine>) -> anyhow::Result<BoundLine> {
    let mut lines = lines.into_iter();
    let Some(mut joined) = lines.next() else { bail!("lanelet {lanelet} has no {role} bound") };
    let listed = || ways.iter().map(|w| w.to_string()).collect::<Vec<_>>().join(", ");
    for (k, mut next) in lines.enumerate() {
        let (previous, way) = (ways[k], ways[k + 1]);
        if ways[..=k].contains(&way) {
            bail!("lanelet {lanelet}: {role} bound ways {} list way {way} twice", listed());
        }
        // (turn the line so far round, turn the next way round): which ends meet.
        let mut options = vec![(false, false), (false, true)];
        if k == 0 {
            options.extend([(true, false), (true, true)]);
        }
        let end = |line: &BoundLine, last: bool| {
            if last {
                (*line.nodes.last().unwrap(), *line.points.last().unwrap())
            } else {
                (line.nodes[0], line.points[0])
            }
        };
        let gap = |(turn_joined, turn_next): (bool, bool)| {
            let (a, b) = (end(&joined, !turn_joined), end(&next, turn_next));
            // A shared node joins before any pair merely within the tolerance.
            if a.0 == b.0 {
                0.0
            } else {
                dist(a.1, b.1).max(f64::MIN_POSITIVE)
            }
        };
        let (best, d) =
            options.iter().map(|o| (*o, gap(*o))).min_by(|a, b| a.1.total_cmp(&b.1)).expect("two options at least");
        if d >= JOIN_TOLERANCE_M {
            let which = if k == 0 { "starts or ends" } else { "ends" };
            bail!(
                "lanelet {lanelet}: {role} bound ways {} do not join: way {way} begins or ends {d:.2} m from \
                 where way {previous} {which} (tolerance {JOIN_TOLERANCE_M} m)",
                listed()
            );
        }
        if best.0 {
            joined.reverse();
        }
        if best.1 {
            next.reverse();
        }
        let skip = usize::from(next.nodes[0] == *joined.nodes.last().unwrap());
        joined.nodes.extend_from_slice(&next.nodes[skip..]);
        joined.points.extend_from_slice(&next.points[skip..]);
    }
    Ok(joined)
}

/// Travel mode and whether the lanelet is walkable both ways, by Lanelet2 subtype (`road` when
/// the map gives none, Lanelet2's default).
fn mode_of(subtype: Option<&str>) -> Option<(TravelMode, bool)> {
    match subtype {
        None | Some("road" | "highway") => Some((TravelMode::Car, false)),
        Some("bicycle_lane") => Some((TravelMode::Bicycle, false)),
        Some("crosswalk" | "walkway") => Some((TravelMode::Pedestrian, true)),
        _ => None,
    }
}

/// A vehicle lanelet drivable both ways (`one_way=no`) becomes two lanelets, the reversed one
/// with this added to its id (Lanelet2 ids stay far below it).
pub const REVERSED_ID_OFFSET: i64 = 1_000_000_000_000;

/// Reads a Lanelet2 OSM file into the lane graph (centerlines in WGS84).
pub fn lane_graph_from_osm(xml: &str, name: &str) -> anyhow::Result<LaneGraph> {
    let doc = roxmltree::Document::parse(xml).context("not XML")?;
    let root = doc.root_element();
    let osm = Osm::read(root)?;
    let mut raw = Vec::new();
    for r in root.children().filter(|n| n.has_tag_name("relation")) {
        raw.extend(osm.lanelets(r)?);
    }
    link_successors(&mut raw);
    let centers: Vec<Vec<Point>> = raw.iter().map(|r| r.center.clone()).collect();
    let walkable: Vec<Option<&str>> = raw.iter().map(|r| r.walkable_role).collect();
    let mut lanelets: Vec<Lanelet> = raw.into_iter().map(|r| r.lanelet).collect();
    infer::infer_roles(&mut lanelets, &centers, &walkable);
    lanelets.sort_by_key(|l| l.id);
    let origin = osm.origin;
    Ok(LaneGraph { name: name.to_string(), origin_latitude: origin.lat, origin_longitude: origin.lon, lanelets })
}

/// An OSM file's nodes and ways, and the origin the lane graph's metres count from.
struct Osm {
    // Ordered: the origin is a sum over the nodes, the same every run only in one order.
    nodes: BTreeMap<i64, Wgs84>,
    ways: HashMap<i64, Vec<i64>>,
    origin: Wgs84,
}

/// A lanelet as read, with its centerline in metres and, for walkways and crosswalks, its role.
struct Raw {
    lanelet: Lanelet,
    center: Vec<Point>,
    walkable_role: Option<&'static str>,
}

fn element_id(n: roxmltree::Node) -> anyhow::Result<i64> {
    Ok(n.attribute("id").context("element without id")?.parse()?)
}

impl Osm {
    fn read(root: roxmltree::Node) -> anyhow::Result<Self> {
        let mut nodes: BTreeMap<i64, Wgs84> = BTreeMap::new();
        let mut ways: HashMap<i64, Vec<i64>> = HashMap::new();
        for n in root.children().filter(|n| n.has_tag_name("node")) {
            let coord = |k| -> anyhow::Result<f64> {
                Ok(n.attribute(k).with_context(|| format!("node without {k}"))?.parse()?)
            };
            let node = element_id(n)?;
            if nodes.insert(node, Wgs84 { lat: coord("lat")?, lon: coord("lon")? }).is_some() {
                bail!("node {node} is defined twice");
            }
        }
        if nodes.is_empty() {
            bail!("map has no nodes");
        }
        for w in root.children().filter(|n| n.has_tag_name("way")) {
            let refs = w
                .children()
                .filter(|c| c.has_tag_name("nd"))
                .map(|c| Ok(c.attribute("ref").context("nd without ref")?.parse()?));
            let way = element_id(w)?;
            if ways.insert(way, refs.collect::<anyhow::Result<_>>()?).is_some() {
                bail!("way {way} is defined twice");
            }
        }
        let origin = {
            let k = nodes.len() as f64;
            Wgs84 {
                lat: nodes.values().map(|p| p.lat).sum::<f64>() / k,
                lon: nodes.values().map(|p| p.lon).sum::<f64>() / k,
            }
        };
        Ok(Self { nodes, ways, origin })
    }

    /// A way's points in metres from the origin.
    fn way_line(&self, way: i64) -> anyhow::Result<BoundLine> {
        let refs = self.ways.get(&way).with_context(|| format!("way {way} missing"))?;
        let points: Vec<Point> = refs
            .iter()
            .map(|n| {
                self.nodes.get(n).map(|p| wgs84_to_offset(self.origin, *p)).with_context(|| format!("node {n} missing"))
            })
            .collect::<anyhow::Result<_>>()?;
        if points.len() < 2 {
            bail!("way {way} has fewer than two nodes");
        }
        Ok(BoundLine { nodes: refs.clone(), points })
    }

    /// The lanelets a relation is: none for another relation or a lanelet of no travel mode,
    /// two for a vehicle lanelet drivable both ways (`one_way=no`: the reversed copy first).
    fn lanelets(&self, r: roxmltree::Node) -> anyhow::Result<Vec<Raw>> {
        let mut tags: HashMap<&str, &str> = HashMap::new();
        let mut conflict = None;
        for t in r.children().filter(|c| c.has_tag_name("tag")) {
            let (Some(k), Some(v)) = (t.attribute("k"), t.attribute("v")) else { continue };
            if let Some(before) = tags.insert(k, v).filter(|before| *before != v) {
                conflict = conflict.or(Some((k, before, v)));
            }
        }
        let tag = |k: &str| tags.get(k).copied();
        if tag("type") != Some("lanelet") {
            return Ok(Vec::new());
        }
        let lanelet_id = element_id(r)?;
        // A key given twice with different values is refused, not read as one of them.
        if let Some((k, before, v)) = conflict {
            bail!("lanelet {lanelet_id}: tag {k} given twice, {before:?} and {v:?}");
        }
        let subtype = tag("subtype");
        let Some((mode, bidirectional)) = mode_of(subtype) else { return Ok(Vec::new()) };
        // Every way of a bound, in the order the relation lists them.
        let members = |role: &str| -> anyhow::Result<Vec<i64>> {
            r.children()
                .filter(|c| c.has_tag_name("member") && c.attribute("role") == Some(role))
                .map(|m| {
                    let way = m.attribute("ref").context("member without ref")?.parse()?;
                    match m.attribute("type") {
                        None | Some("way") => Ok(way),
                        Some(other) => bail!("lanelet {lanelet_id}: {role} bound member {way} is a {other}, not a way"),
                    }
                })
                .collect()
        };
        let bound = |role: &str| -> anyhow::Result<Vec<Point>> {
            let ways = members(role)?;
            let lines = ways.iter().map(|w| self.way_line(*w)).collect::<anyhow::Result<Vec<_>>>()?;
            Ok(join_bound(lanelet_id, role, &ways, lines)?.points)
        };
        let center = centerline(&bound("left")?, &bound("right")?);
        let turn = match tag("cits:turn") {
            None => Turn::None,
            Some(name) => Turn::from_name(name).with_context(|| {
                format!("lanelet {lanelet_id}: cits:turn {name:?} is none of left, straight, right, uturn")
            })?,
        };
        let lanelet = |id: i64, center: &[Point]| Lanelet {
            id,
            mode: mode as i32,
            centerline: lon_lat(self.origin, center),
            successors: Vec::new(),
            length_m: polyline_length(center),
            role: tag("cits:role").unwrap_or_default().to_string(),
            turn: turn as i32,
            bidirectional,
            station_offset_m: 0.0,
        };
        let walkable_role = match subtype {
            Some("crosswalk") => Some("crosswalk"),
            Some("walkway") => Some("walkway"),
            _ => None,
        };
        let mut out = Vec::new();
        if !bidirectional && matches!(tag("one_way"), Some("no" | "false")) {
            let reversed: Vec<Point> = center.iter().rev().copied().collect();
            let id = lanelet_id + REVERSED_ID_OFFSET;
            out.push(Raw { lanelet: lanelet(id, &reversed), center: reversed, walkable_role });
        }
        out.push(Raw { lanelet: lanelet(lanelet_id, &center), center, walkable_role });
        Ok(out)
    }
}

/// Successors: same mode, this lanelet's end is the other's start (either end for walkable ones).
fn link_successors(raw: &mut [Raw]) {
    let ends = |center: &[Point]| (center.first().copied(), center.last().copied());
    for i in 0..raw.len() {
        let (a, (a_start, a_end)) = (&raw[i].lanelet, ends(&raw[i].center));
        let near = |p: Option<Point>, q: Option<Point>| p.zip(q).is_some_and(|(p, q)| dist(p, q) < JOIN_TOLERANCE_M);
        let successors = raw
            .iter()
            // A lanelet drivable both ways does not turn round into its own reversed copy.
            .filter(|b| b.lanelet.id != a.id && (b.lanelet.id - a.id).abs() != REVERSED_ID_OFFSET)
            .filter(|b| b.lanelet.mode == a.mode)
            .filter(|b| {
                let (b_start, b_end) = ends(&b.center);
                if a.bidirectional {
                    [a_start, a_end].iter().any(|p| near(*p, b_start) || near(*p, b_end))
                } else {
                    near(a_end, b_start)
                }
            })
            .map(|b| b.lanelet.id)
            .collect();
        raw[i].lanelet.successors = successors;
    }
}

/// Reads a Lanelet2 OSM file; with `junction`, cropped round that junction of the map. Where
/// the result has no bicycle lanes, cyclists share the roads ([`bicycles_share_roads`]).
pub fn load(osm: &Path, junction: Option<junction::Choice>) -> anyhow::Result<LaneGraph> {
    let xml = std::fs::read_to_string(osm).with_context(|| format!("cannot read {}", osm.display()))?;
    let name = osm.file_stem().and_then(|s| s.to_str()).unwrap_or("map");
    let graph = lane_graph_from_osm(&xml, name).with_context(|| format!("in {}", osm.display()))?;
    let mut graph = match junction {
        Some(choice) => {
            let chosen = junction::choose(&graph, choice).with_context(|| format!("in {}", osm.display()))?;
            junction::crop(&graph, &chosen)?
        }
        None => graph,
    };
    if !graph.lanelets.iter().any(|l| l.mode == TravelMode::Bicycle as i32) {
        bicycles_share_roads(&mut graph);
    }
    Ok(graph)
}

pub use shared_roads::{bicycles_share_roads, SHARED_ROAD_ID_OFFSET};

/// WKB MultiLineString of all centerlines of one mode, in lanelet id order.
pub fn centerlines_wkb(graph: &LaneGraph, mode: TravelMode) -> Vec<u8> {
    let lines: Vec<Vec<(f64, f64)>> = graph
        .lanelets
        .iter()
        .filter(|l| l.mode == mode as i32)
        .map(|l| l.centerline.chunks_exact(2).map(|c| (c[0], c[1])).collect())
        .collect();
    cits::shared::wkb::encode_multi_line_string(&lines)
}

pub const MODES: [TravelMode; 3] = [TravelMode::Car, TravelMode::Bicycle, TravelMode::Pedestrian];

/// The map's blobs as (object name, bytes): the lane graph, the centerlines per mode and the tiles
/// map matcher and predictor read (every tile with lanelets in reach).
pub fn blobs(graph: &LaneGraph) -> Vec<(String, Vec<u8>)> {
    use cits::stages::map_matcher::{tile_graph, tile_object, tiles_of, TILE_MARGIN_M};
    let mut out = vec![(LANE_GRAPH.to_string(), graph.encode_to_vec())];
    out.extend(MODES.iter().map(|mode| (centerlines_object(*mode), centerlines_wkb(graph, *mode))));
    out.extend(
        tiles_of(graph, TILE_MARGIN_M)
            .into_iter()
            .map(|tile| (tile_object(tile), tile_graph(graph, tile, TILE_MARGIN_M).encode_to_vec())),
    );
    out
}

/// The platform in process with `config` (a component's wasi:config entries) and the blobs
/// [`write_blobs`] writes for `graph`: the code the actors run, without a lattice, Redis or a
/// blobstore.
pub fn in_process(config: Vec<(String, String)>, graph: &LaneGraph) -> InProcess {
    let blobs = blobs(graph).into_iter().map(|(object, bytes)| (InProcess::blob_path(CONTAINER, &object), bytes));
    InProcess::new(config, std::sync::Arc::new(blobs.collect()))
}

/// Writes the map's blobs into `dir` (a blobstore-fs container folder).
pub fn write_blobs(graph: &LaneGraph, dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for (object, bytes) in blobs(graph) {
        std::fs::write(dir.join(object), bytes)?;
    }
    Ok(())
}

/// Per-lanelet summary for independent checks (tests/python).
pub fn summary_json(graph: &LaneGraph) -> serde_json::Value {
    serde_json::Value::Array(
        graph
            .lanelets
            .iter()
            .map(|l| {
                let n = l.centerline.len();
                serde_json::json!({
                    "id": l.id,
                    "mode": TravelMode::try_from(l.mode).unwrap_or(TravelMode::Unknown).as_str_name(),
                    "length_m": l.length_m,
                    "start": [l.centerline[0], l.centerline[1]],
                    "end": [l.centerline[n - 2], l.centerline[n - 1]],
                    "successors": l.successors,
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn committed_map() -> LaneGraph {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/map/weiser-gabelsberger.osm");
        lane_graph_from_osm(&std::fs::read_to_string(path).unwrap(), "weiser-gabelsberger").unwrap()
    }

    #[test]
    fn inference_on_the_untagged_map_gives_the_tags_roles_turns_and_arms() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/map/weiser-gabelsberger.osm");
        let xml = std::fs::read_to_string(path).unwrap();
        let stripped: String = xml.lines().filter(|l| !l.contains("k=\"cits:")).collect::<Vec<_>>().join("\n");
        assert!(!stripped.contains("cits:") && stripped.len() < xml.len());
        let (tagged, inferred) = (committed_map(), lane_graph_from_osm(&stripped, "weiser-gabelsberger").unwrap());
        assert_eq!(tagged.lanelets.len(), inferred.lanelets.len());
        for (t, i) in tagged.lanelets.iter().zip(&inferred.lanelets) {
            assert_eq!((t.id, &t.role, &t.turn), (i.id, &i.role, &i.turn));
        }
        // One junction, four arms numbered like the ids' leading digit (1 north … 4 west).
        let junctions = junction::Junction::all(&inferred);
        assert_eq!(junctions.len(), 1);
        let j = &junctions[0];
        let names: Vec<&str> = j.arms.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["north", "east", "south", "west"]);
        let arm_lanes =
            inferred.lanelets.iter().filter(|l| matches!(l.role.as_str(), "approach" | "exit" | "crosswalk"));
        for l in arm_lanes {
            assert_eq!(j.arm_of.get(&l.id), Some(&((l.id / 1000) as u8)), "lanelet {}", l.id);
        }
        assert_eq!(j.arm_of.len(), 10 + 8 + 4);
        assert_eq!((j.opposite(1), j.left_of(1), j.right_of(1)), (Some(3), 2, 4));
    }

    fn fixture(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/map/test").join(name)
    }

    #[test]
    fn bounds_of_several_ways_load_like_whole_ones_and_keep_the_junction_whole() {
        // The fixture splits four bounds: a line two lanelets share into three ways (the middle
        // one stored reversed), a kerb into two listed far part first, a connector's curve into
        // two with the first stored reversed.
        let xml = std::fs::read_to_string(fixture("t-junction-split.osm")).unwrap();
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let split: Vec<&str> = doc
            .root_element()
            .children()
            .filter(|r| r.has_tag_name("relation"))
            .filter(|r| {
                ["left", "right"].iter().any(|role| {
                    r.children().filter(|m| m.has_tag_name("member") && m.attribute("role") == Some(role)).count() > 1
                })
            })
            .map(|r| r.attribute("id").unwrap())
            .collect();
        assert_eq!(split, ["101", "201", "202", "1012"]);
        let whole = load(&fixture("t-junction.osm"), None).unwrap();
        let joined = load(&fixture("t-junction-split.osm"), None).unwrap();
        assert_eq!((whole.origin_latitude, whole.origin_longitude), (joined.origin_latitude, joined.origin_longitude));
        assert_eq!(whole.lanelets.len(), joined.lanelets.len());
        for (w, j) in whole.lanelets.iter().zip(&joined.lanelets) {
            assert_eq!((w.id, w.mode, &w.role, w.turn, &w.successors), (j.id, j.mode, &j.role, j.turn, &j.successors));
            assert!((w.length_m - j.length_m).abs() < 1e-9, "lanelet {}: {} vs {} m", w.id, w.length_m, j.length_m);
            assert_eq!(w.centerline.len(), j.centerline.len(), "lanelet {}", w.id);
            let apart = w.centerline.iter().zip(&j.centerline).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            assert!(apart < 1e-12, "lanelet {}: centerlines {apart}° apart", w.id);
        }
        // One junction with its three arms (the T's stem north), every approach and exit on its arm.
        let junctions = junction::Junction::all(&joined);
        assert_eq!(junctions.len(), 1, "{}", junction::describe_all(&joined));
        assert_eq!(junctions, junction::Junction::all(&whole));
        let j = &junctions[0];
        let names: Vec<&str> = j.arms.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["north", "east", "west"]);
        // Six car connectors, and their twins cyclists ride (the map has no bicycle lanes).
        assert_eq!(j.connectors.iter().filter(|c| **c < SHARED_ROAD_ID_OFFSET).count(), 6);
        for (arm, lanes) in [(1, [101, 102]), (2, [201, 202]), (3, [301, 302])] {
            for l in lanes {
                assert_eq!(j.arm_of.get(&l), Some(&arm), "lanelet {l}");
            }
        }
    }

    #[test]
    fn bound_ways_join_in_the_listed_order_each_turned_to_meet_the_line_so_far() {
        // Node n at (n, 0) unless placed.
        let line = |nodes: &[i64]| BoundLine {
            nodes: nodes.to_vec(),
            points: nodes.iter().map(|&n| (n as f64, 0.0)).collect(),
        };
        let join = |ways: Vec<BoundLine>| {
            let ids: Vec<i64> = (11..).take(ways.len()).collect();
            join_bound(7, "left", &ids, ways).map(|b| (b.nodes, b.points.len()))
        };
        // One way: as it is.
        assert_eq!(join(vec![line(&[3, 2, 1])]).unwrap(), (vec![3, 2, 1], 3));
        // The middle way stored reversed; a shared node is kept once.
        assert_eq!(join(vec![line(&[1, 2, 3]), line(&[5, 4, 3]), line(&[5, 6])]).unwrap().0, [1, 2, 3, 4, 5, 6]);
        // The first way stored reversed: the second meets its start.
        assert_eq!(join(vec![line(&[3, 2, 1]), line(&[3, 4])]).unwrap().0, [1, 2, 3, 4]);
        // Listed from the far end: the line runs that way.
        assert_eq!(join(vec![line(&[4, 5, 6]), line(&[1, 2, 3, 4])]).unwrap().0, [6, 5, 4, 3, 2, 1]);
        // Ends 0.1 m apart (within the tolerance), different nodes: both kept.
        let near = BoundLine { nodes: vec![8, 9], points: vec![(2.1, 0.0), (9.0, 0.0)] };
        assert_eq!(join(vec![line(&[1, 2]), near]).unwrap(), (vec![1, 2, 8, 9], 4));
        // 2 m apart: refused, naming the lanelet and its ways.
        let err = join(vec![line(&[1, 2]), line(&[4, 5])]).unwrap_err().to_string();
        assert!(err.contains("lanelet 7: left bound ways 11, 12 do not join") && err.contains("2.00 m"), "{err}");
        // After the second way only the line's end can go on.
        let err = join(vec![line(&[2, 3]), line(&[3, 4]), line(&[2, 1])]).unwrap_err().to_string();
        assert!(err.contains("ways 11, 12, 13 do not join: way 13"), "{err}");
        let twice = join_bound(7, "left", &[11, 12, 11], vec![line(&[1, 2]), line(&[2, 3]), line(&[1, 2])]);
        assert!(twice.unwrap_err().to_string().contains("list way 11 twice"));
        assert!(join(vec![]).unwrap_err().to_string().contains("lanelet 7 has no left bound"));
    }

    #[test]
    fn the_loader_refuses_what_it_cannot_read_whole() {
        let xml = std::fs::read_to_string(fixture("t-junction-split.osm")).unwrap();
        let refused = |edited: String| format!("{:#}", lane_graph_from_osm(&edited, "edited").unwrap_err());
        // Lanelet 201's left bound without its middle way: the other two lie 20 m apart.
        let err = refused(xml.replacen("<member type='way' ref='20002' role='left' />", "", 1));
        assert!(err.contains("lanelet 201: left bound ways 20001, 20003 do not join"), "{err}");
        let err = refused(xml.replacen(
            "<member type='way' ref='20010' role='right' />",
            "<member type='node' ref='20010' role='right' />",
            1,
        ));
        assert!(err.contains("lanelet 201: right bound member 20010 is a node, not a way"), "{err}");
        let err = refused(xml.replacen(
            "<tag k='one_way' v='yes' />",
            "<tag k='one_way' v='yes' /><tag k='one_way' v='no' />",
            1,
        ));
        assert!(err.contains("lanelet 101: tag one_way given twice"), "{err}");
        let way = xml.find("  <way id='20001'").unwrap();
        let err = refused(format!(
            "{}{}",
            &xml[..way],
            xml[way..].replacen("<way id='20001'", "<way id='20001'></way><way id='20001'", 1)
        ));
        assert!(err.contains("way 20001 is defined twice"), "{err}");
    }

    #[test]
    fn centerline_follows_the_left_bound_direction() {
        // Driving north: left bound west (x = 0), right bound east (x = 3), stored reversed.
        let left = [(0.0, 0.0), (0.0, 10.0)];
        let right = [(3.0, 10.0), (3.0, 0.0)];
        let c = centerline(&left, &right);
        assert_eq!((c[0], *c.last().unwrap()), ((1.5, 0.0), (1.5, 10.0)));
        // Same bounds, sides swapped: the lanelet drives south.
        let c = centerline(&right, &left);
        assert_eq!((c[0], *c.last().unwrap()), ((1.5, 10.0), (1.5, 0.0)));
        assert!((polyline_length(&c) - 10.0).abs() < 1e-9);
    }

    #[test]
    fn intersection_lane_graph_has_every_lanelet_and_turn() {
        let g = committed_map();
        let count = |m: TravelMode| g.lanelets.iter().filter(|l| l.mode == m as i32).count();
        assert_eq!((count(TravelMode::Car), count(TravelMode::Bicycle), count(TravelMode::Pedestrian)), (22, 16, 8));
        let by_id: HashMap<i64, &Lanelet> = g.lanelets.iter().map(|l| (l.id, l)).collect();
        for l in g.lanelets.iter().filter(|l| l.role == "connector") {
            // Each connector continues into exactly one exit, and exactly one approach leads into it.
            assert_eq!(l.successors.len(), 1, "connector {}", l.id);
            assert_eq!(by_id[&l.successors[0]].role, "exit", "connector {}", l.id);
            let preds: Vec<_> = g.lanelets.iter().filter(|p| p.successors.contains(&l.id)).collect();
            assert_eq!(preds.len(), 1, "connector {}", l.id);
            assert_eq!(preds[0].role, "approach");
            assert!(l.length_m > 5.0 && l.length_m < 60.0, "connector {} length {}", l.id, l.length_m);
        }
        for l in g.lanelets.iter().filter(|l| l.role == "exit") {
            assert!(l.successors.is_empty(), "exit {} leads on", l.id);
        }
        // Every car approach offers its turns, e.g. the north approach left, straight and right.
        let turns: Vec<Turn> = by_id[&1100].successors.iter().map(|s| by_id[s].turn()).collect();
        assert_eq!(turns.len(), 3, "{turns:?}");
    }

    #[test]
    fn map_matcher_puts_points_on_their_own_lane_of_the_real_map() {
        use cits::stages::map_matcher::LaneIndex;
        let g = committed_map();
        let index = LaneIndex::new(&g);
        let origin = Wgs84 { lat: g.origin_latitude, lon: g.origin_longitude };
        let mut checked = 0;
        for l in g.lanelets.iter().filter(|l| l.role == "approach" || l.role == "exit") {
            let mode = TravelMode::try_from(l.mode).unwrap();
            let pts: Vec<Point> =
                l.centerline.chunks_exact(2).map(|c| wgs84_to_offset(origin, Wgs84 { lat: c[1], lon: c[0] })).collect();
            let (a, b) = (pts[pts.len() / 2], pts[pts.len() / 2 + 1]);
            let heading = cits::shared::geo::heading_deg(b.0 - a.0, b.1 - a.1);
            // 0.4 m to the side of the centre line, moving along the lane.
            let (len, nx, ny) = ((b.0 - a.0).hypot(b.1 - a.1), -(b.1 - a.1), b.0 - a.0);
            let p = offset_to_wgs84(origin, a.0 + 0.4 * nx / len, a.1 + 0.4 * ny / len);
            let m =
                index.match_point(p, Some(heading), mode, None).unwrap_or_else(|| panic!("lanelet {} unmatched", l.id));
            assert_eq!(m.lanelet_id, l.id, "{mode:?} point of lanelet {} matched elsewhere", l.id);
            checked += 1;
        }
        assert_eq!(checked, 6 + 4 + 4 + 4, "car approach/exit and bike approach/exit lanelets");
    }

    #[test]
    fn blobs_decode_to_the_lane_counts_and_lengths() {
        let g = committed_map();
        let dir = std::env::temp_dir().join(format!("cits-map-test-{}", std::process::id()));
        write_blobs(&g, &dir).unwrap();
        for (mode, lanes) in [(TravelMode::Car, 22), (TravelMode::Bicycle, 16), (TravelMode::Pedestrian, 8)] {
            let bytes = std::fs::read(dir.join(centerlines_object(mode))).unwrap();
            let lines = cits::shared::wkb::decode_multi_line_string(&bytes).unwrap();
            assert_eq!(lines.len(), lanes, "{mode:?}");
            let origin = Wgs84 { lat: g.origin_latitude, lon: g.origin_longitude };
            let wkb_length: f64 = lines
                .iter()
                .map(|line| {
                    let pts: Vec<Point> =
                        line.iter().map(|&(lon, lat)| wgs84_to_offset(origin, Wgs84 { lat, lon })).collect();
                    polyline_length(&pts)
                })
                .sum();
            let graph_length: f64 = g.lanelets.iter().filter(|l| l.mode == mode as i32).map(|l| l.length_m).sum();
            assert!((wkb_length - graph_length).abs() < 0.01, "{mode:?}: {wkb_length} vs {graph_length}");
            // Arms are ~75 m: car lanes alone add up to well over a kilometre of centerline.
            assert!(wkb_length > 100.0, "{mode:?} {wkb_length}");
        }
        let decoded = LaneGraph::decode(std::fs::read(dir.join(LANE_GRAPH)).unwrap().as_slice()).unwrap();
        assert_eq!(decoded, g);
        std::fs::remove_dir_all(dir).unwrap();
    }
}

//! Junctions of a lane graph: which connectors make one junction box, its centre and its arms,
//! and a lane graph cropped round one junction — so one intersection of a city map can be
//! simulated and served like ours.
//!
//! Arms are found by clustering the directions in which the junction's approaches and exits
//! leave the box (not by the lanes' positions, which multi-lane arms spread sideways), so
//! T-junctions, five arms and skewed arms come out as they are. Arms are numbered clockwise from
//! the one nearest north, starting at 1 (our map: 1 north, 2 east, 3 south, 4 west).

use std::collections::{BTreeMap, HashMap};

use anyhow::{bail, Context as _};
use cits::proto::{LaneGraph, Lanelet};
use cits::shared::geo::{offset_to_wgs84, wgs84_to_offset, Wgs84};

use super::infer::{angle_diff, bearing, cross_inside, end_heading, is_vehicle, start_heading};
use super::{dist, local_line as local, Point};

/// Lanes leaving the box within this of each other's direction belong to one arm.
const ARM_GAP_DEG: f64 = 25.0;
/// An arm counts as opposite another within this of the straight-across direction.
const OPPOSITE_WITHIN_DEG: f64 = 45.0;
/// How far beyond the box a cropped lane graph keeps lanelets: a road user must be tracked for
/// a few seconds before it reaches the junction.
pub const CROP_BEYOND_BOX_M: f64 = 70.0;

#[derive(Debug, Clone, PartialEq)]
pub struct Arm {
    pub number: u8,
    /// Direction in which the arm leaves the junction, degrees clockwise from north.
    pub bearing_deg: f64,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Junction {
    /// Centroid of the connectors' midpoints.
    pub centre: Wgs84,
    /// Clockwise, [`Arm::number`] = index + 1.
    pub arms: Vec<Arm>,
    /// The arm of every approach, exit and crosswalk of this junction.
    pub arm_of: BTreeMap<i64, u8>,
    pub connectors: Vec<i64>,
    /// Farthest connector point from the centre, m.
    pub radius_m: f64,
}

fn compass(bearing_deg: f64) -> &'static str {
    const NAMES: [&str; 8] = ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"];
    NAMES[((bearing_deg / 45.0).round() as usize) % 8]
}

fn circular_mean(bearings: &[f64]) -> f64 {
    let (s, c) = bearings.iter().fold((0.0, 0.0), |(s, c), b| (s + b.to_radians().sin(), c + b.to_radians().cos()));
    s.atan2(c).to_degrees().rem_euclid(360.0)
}

/// Groups bearings whose neighbours (round the circle) lie within [`ARM_GAP_DEG`]: the mean of
/// each group.
fn cluster_bearings(mut bearings: Vec<f64>) -> Vec<f64> {
    if bearings.is_empty() {
        return Vec::new();
    }
    bearings.sort_by(f64::total_cmp);
    // Start after the widest gap, so no group straddles the cut.
    let n = bearings.len();
    let gap = |i: usize| (bearings[(i + 1) % n] - bearings[i]).rem_euclid(360.0);
    let widest = (0..n).max_by(|&a, &b| gap(a).total_cmp(&gap(b))).unwrap_or(0);
    let mut groups: Vec<Vec<f64>> = Vec::new();
    for k in 1..=n {
        let i = (widest + k) % n;
        let previous = (i + n - 1) % n;
        if groups.is_empty() || (k > 1 && (bearings[i] - bearings[previous]).rem_euclid(360.0) > ARM_GAP_DEG) {
            groups.push(Vec::new());
        }
        groups.last_mut().unwrap().push(bearings[i]);
    }
    groups.iter().map(|g| circular_mean(g)).collect()
}

/// The point half-way along a polyline.
fn midpoint(line: &[Point]) -> Point {
    super::point_at(line, 0.5)
}

impl Junction {
    /// Every junction of the graph (connected groups of connectors with at least two arms),
    /// the one with most connectors first.
    pub fn all(graph: &LaneGraph) -> Vec<Junction> {
        let origin = Wgs84 { lat: graph.origin_latitude, lon: graph.origin_longitude };
        let lanes = &graph.lanelets;
        let index: HashMap<i64, usize> = lanes.iter().enumerate().map(|(i, l)| (l.id, i)).collect();
        let lines: Vec<Vec<Point>> = lanes.iter().map(|l| local(origin, l)).collect();
        let mut pred: Vec<Vec<usize>> = vec![Vec::new(); lanes.len()];
        for (i, l) in lanes.iter().enumerate() {
            for s in l.successors.iter().filter_map(|s| index.get(s)) {
                pred[*s].push(i);
            }
        }
        let succ = |i: usize| lanes[i].successors.iter().filter_map(|s| index.get(s).copied()).collect::<Vec<_>>();
        let connectors: Vec<usize> = (0..lanes.len()).filter(|&i| lanes[i].role == "connector").collect();
        // Union-find: connectors that cross, share an approach or share an exit are one box.
        let mut parent: Vec<usize> = (0..connectors.len()).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        for a in 0..connectors.len() {
            for b in a + 1..connectors.len() {
                let (i, j) = (connectors[a], connectors[b]);
                let shares = pred[i].iter().any(|p| pred[j].contains(p)) || succ(i).iter().any(|s| succ(j).contains(s));
                if shares || cross_inside(&lines[i], &lines[j], 0.0) {
                    let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                    parent[ra] = rb;
                }
            }
        }
        let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (a, &c) in connectors.iter().enumerate() {
            let r = root(&mut parent, a);
            groups.entry(r).or_default().push(c);
        }
        let mut out: Vec<Junction> = groups
            .values()
            .filter_map(|members| Self::of_connectors(lanes, &lines, &pred, &succ, members, origin))
            .collect();
        out.sort_by(|a, b| b.connectors.len().cmp(&a.connectors.len()).then(b.centre.lat.total_cmp(&a.centre.lat)));
        out
    }

    fn of_connectors(
        lanes: &[Lanelet],
        lines: &[Vec<Point>],
        pred: &[Vec<usize>],
        succ: &dyn Fn(usize) -> Vec<usize>,
        members: &[usize],
        origin: Wgs84,
    ) -> Option<Junction> {
        let mids: Vec<Point> = members.iter().map(|&i| midpoint(&lines[i])).collect();
        let k = mids.len() as f64;
        let centre = (mids.iter().map(|p| p.0).sum::<f64>() / k, mids.iter().map(|p| p.1).sum::<f64>() / k);
        let radius_m = members.iter().flat_map(|&i| lines[i].iter()).map(|p| dist(*p, centre)).fold(0.0, f64::max);
        let is_member = |i: &usize| members.contains(i);
        // Each approach and exit with the direction in which it leaves the box.
        let mut leaving: BTreeMap<usize, f64> = BTreeMap::new();
        for &c in members {
            for &p in pred[c].iter().filter(|p| !is_member(p) && is_vehicle(&lanes[**p])) {
                leaving.insert(p, (end_heading(&lines[p]) + 180.0).rem_euclid(360.0));
            }
            for s in succ(c).into_iter().filter(|s| !is_member(s) && is_vehicle(&lanes[*s])) {
                leaving.insert(s, start_heading(&lines[s]));
            }
        }
        let bearings = cluster_bearings(leaving.values().copied().collect());
        if bearings.len() < 2 {
            return None;
        }
        // Number clockwise from the arm nearest north.
        let first =
            bearings.iter().copied().min_by(|a, b| angle_diff(0.0, *a).abs().total_cmp(&angle_diff(0.0, *b).abs()))?;
        let mut bearings = bearings;
        bearings.sort_by(|a, b| (a - first).rem_euclid(360.0).total_cmp(&(b - first).rem_euclid(360.0)));
        let mut arms: Vec<Arm> = Vec::new();
        for (i, b) in bearings.iter().enumerate() {
            let base = compass(*b);
            let taken = arms.iter().filter(|a| a.name.starts_with(base)).count();
            let name = if taken == 0 { base.to_string() } else { format!("{base} {}", taken + 1) };
            arms.push(Arm { number: i as u8 + 1, bearing_deg: *b, name });
        }
        let nearest_arm = |bearing_deg: f64| {
            arms.iter().min_by(|a, b| {
                angle_diff(a.bearing_deg, bearing_deg).abs().total_cmp(&angle_diff(b.bearing_deg, bearing_deg).abs())
            })
        };
        let mut arm_of: BTreeMap<i64, u8> =
            leaving.iter().filter_map(|(&i, &b)| Some((lanes[i].id, nearest_arm(b)?.number))).collect();
        // Crosswalks that cross the box's lanes near it, on the arm they lie in.
        let box_lanes: Vec<usize> = members.iter().copied().chain(leaving.keys().copied()).collect();
        for (i, l) in lanes.iter().enumerate().filter(|(_, l)| l.role == "crosswalk") {
            let mid = midpoint(&lines[i]);
            let near = dist(mid, centre) <= radius_m + 15.0;
            if near && box_lanes.iter().any(|&j| cross_inside(&lines[i], &lines[j], 0.0)) {
                if let Some(arm) = nearest_arm(bearing(centre, mid)) {
                    arm_of.insert(l.id, arm.number);
                }
            }
        }
        let mut connectors: Vec<i64> = members.iter().map(|&i| lanes[i].id).collect();
        connectors.sort_unstable();
        Some(Junction { centre: offset_to_wgs84(origin, centre.0, centre.1), arms, arm_of, connectors, radius_m })
    }

    /// The arm after `arm` clockwise: where a left turn from `arm` leads (right-hand traffic).
    pub fn left_of(&self, arm: u8) -> u8 {
        arm % self.arms.len() as u8 + 1
    }

    /// The arm before `arm` clockwise: where a right turn leads, the near side of a car from `arm`.
    pub fn right_of(&self, arm: u8) -> u8 {
        let n = self.arms.len() as u8;
        (arm + n - 2) % n + 1
    }

    /// The arm across the junction from `arm`, if one lies roughly straight across.
    pub fn opposite(&self, arm: u8) -> Option<u8> {
        let across = self.arms.get(usize::from(arm).checked_sub(1)?)?.bearing_deg + 180.0;
        self.arms
            .iter()
            .map(|a| (angle_diff(a.bearing_deg, across).abs(), a.number))
            .filter(|(d, _)| *d <= OPPOSITE_WITHIN_DEG)
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, n)| n)
    }

    pub fn arm_name(&self, arm: u8) -> &str {
        self.arms.get(usize::from(arm).wrapping_sub(1)).map_or("?", |a| a.name.as_str())
    }
}

/// One line per junction of the graph (as `--junction K` numbers them): centre, size, arms.
pub fn describe_all(graph: &LaneGraph) -> String {
    let mut out = String::new();
    for (k, j) in Junction::all(graph).iter().enumerate() {
        let arms: Vec<String> = j.arms.iter().map(|a| format!("{} {:.0}°", a.name, a.bearing_deg)).collect();
        let lanes = |role: &str| {
            j.arm_of.keys().filter(|id| graph.lanelets.iter().any(|l| l.id == **id && l.role == role)).count()
        };
        out.push_str(&format!(
            "junction {k}: centre {:.7},{:.7}, box radius {:.0} m, {} connectors, {} approaches, {} exits, {} crosswalks; arms {}\n",
            j.centre.lat,
            j.centre.lon,
            j.radius_m,
            j.connectors.len(),
            lanes("approach"),
            lanes("exit"),
            lanes("crosswalk"),
            arms.join(", ")
        ));
    }
    out
}

/// Which junction of a map: the k-th of [`Junction::all`] (0 = the one with most connectors) or
/// the one nearest a position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Choice {
    Index(usize),
    Near(Wgs84),
}

impl std::fmt::Display for Choice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Choice::Index(k) => write!(f, "{k}"),
            Choice::Near(at) => write!(f, "{:.5},{:.5}", at.lat, at.lon),
        }
    }
}

impl std::str::FromStr for Choice {
    type Err = anyhow::Error;

    /// `K` or `LAT,LON`.
    fn from_str(s: &str) -> anyhow::Result<Self> {
        if let Some((lat, lon)) = s.split_once(',') {
            return Ok(Choice::Near(Wgs84 { lat: lat.trim().parse()?, lon: lon.trim().parse()? }));
        }
        Ok(Choice::Index(s.parse().with_context(|| format!("--junction `{s}`: K or LAT,LON"))?))
    }
}

pub fn choose(graph: &LaneGraph, choice: Choice) -> anyhow::Result<Junction> {
    let all = Junction::all(graph);
    match choice {
        Choice::Index(k) => all.into_iter().nth(k).with_context(|| format!("map {} has no junction {k}", graph.name)),
        Choice::Near(at) => {
            let d = |j: &Junction| dist(wgs84_to_offset(at, j.centre), (0.0, 0.0));
            all.into_iter()
                .min_by(|a, b| d(a).total_cmp(&d(b)))
                .with_context(|| format!("map {} has no junction", graph.name))
        }
    }
}

/// The lanelets within [`CROP_BEYOND_BOX_M`] of `junction`'s box (whole lanelets, successors
/// kept only inside), with the junction's centre as the graph's origin.
pub fn crop(graph: &LaneGraph, junction: &Junction) -> anyhow::Result<LaneGraph> {
    let reach = junction.radius_m + CROP_BEYOND_BOX_M;
    let mut lanelets: Vec<Lanelet> = graph
        .lanelets
        .iter()
        .filter(|l| local(junction.centre, l).iter().any(|p| dist(*p, (0.0, 0.0)) <= reach))
        .cloned()
        .collect();
    if lanelets.is_empty() {
        bail!("no lanelets round the junction");
    }
    let kept: std::collections::HashSet<i64> = lanelets.iter().map(|l| l.id).collect();
    for l in &mut lanelets {
        l.successors.retain(|s| kept.contains(s));
    }
    Ok(LaneGraph {
        name: graph.name.clone(),
        origin_latitude: junction.centre.lat,
        origin_longitude: junction.centre.lon,
        lanelets,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cits::proto::Turn;

    /// A junction with one approach and one exit lane per arm (right-hand traffic, 3.5 m
    /// lanes, the box 12 m round the centre) and a connector from every approach to every other
    /// arm's exit; roles and turns left for the inference.
    fn synthetic(bearings: &[f64]) -> LaneGraph {
        use cits::proto::TravelMode;
        let origin = Wgs84 { lat: 48.0, lon: 11.0 };
        let unit = |b: f64| (b.to_radians().sin(), b.to_radians().cos());
        let at =
            |u: (f64, f64), along: f64, n: (f64, f64), side: f64| (u.0 * along + n.0 * side, u.1 * along + n.1 * side);
        let mut lanes: Vec<(i64, Vec<Point>, Vec<i64>)> = Vec::new();
        for (k, &b) in bearings.iter().enumerate() {
            let (u, k) = (unit(b), k as i64);
            let right_in = (-u.1, u.0); // right of the inbound direction −u
            let approach = vec![at(u, 60.0, right_in, 1.75), at(u, 12.0, right_in, 1.75)];
            let exit = vec![at(u, 12.0, right_in, -1.75), at(u, 60.0, right_in, -1.75)];
            let connectors = (0..bearings.len() as i64).filter(|j| *j != k).map(|j| 1000 + 10 * k + j).collect();
            lanes.push((100 + k, approach, connectors));
            lanes.push((200 + k, exit, vec![]));
        }
        for (k, &bk) in bearings.iter().enumerate() {
            for (j, &bj) in bearings.iter().enumerate().filter(|(j, _)| *j != k) {
                let (uk, uj) = (unit(bk), unit(bj));
                let p0 = *lanes[2 * k].1.last().unwrap();
                let p3 = lanes[2 * j + 1].1[0];
                let (p1, p2) = ((p0.0 - 6.0 * uk.0, p0.1 - 6.0 * uk.1), (p3.0 - 6.0 * uj.0, p3.1 - 6.0 * uj.1));
                let bezier: Vec<Point> = (0..=20)
                    .map(|i| {
                        let t = i as f64 / 20.0;
                        let c = [(1.0 - t).powi(3), 3.0 * t * (1.0 - t).powi(2), 3.0 * t * t * (1.0 - t), t.powi(3)];
                        let x = c[0] * p0.0 + c[1] * p1.0 + c[2] * p2.0 + c[3] * p3.0;
                        (x, c[0] * p0.1 + c[1] * p1.1 + c[2] * p2.1 + c[3] * p3.1)
                    })
                    .collect();
                lanes.push((1000 + 10 * k as i64 + j as i64, bezier, vec![200 + j as i64]));
            }
        }
        let centers: Vec<Vec<Point>> = lanes.iter().map(|l| l.1.clone()).collect();
        let mut lanelets: Vec<Lanelet> = lanes
            .into_iter()
            .map(|(id, line, successors)| Lanelet {
                id,
                mode: TravelMode::Car as i32,
                centerline: super::super::lon_lat(origin, &line),
                successors,
                length_m: super::super::polyline_length(&line),
                ..Default::default()
            })
            .collect();
        super::super::infer::infer_roles(&mut lanelets, &centers, &vec![None; centers.len()]);
        LaneGraph { name: "synthetic".into(), origin_latitude: origin.lat, origin_longitude: origin.lon, lanelets }
    }

    #[test]
    fn t_junctions_five_arms_and_skewed_arms_are_inferred() {
        for bearings in [vec![0.0, 90.0, 270.0], vec![10.0, 82.0, 154.0, 226.0, 298.0], vec![0.0, 60.0, 180.0, 270.0]] {
            let g = synthetic(&bearings);
            let junctions = Junction::all(&g);
            assert_eq!(junctions.len(), 1, "{bearings:?}");
            let j = &junctions[0];
            let found: Vec<f64> = j.arms.iter().map(|a| a.bearing_deg).collect();
            assert_eq!(found.len(), bearings.len(), "{bearings:?}: {found:?}");
            for (k, &b) in bearings.iter().enumerate() {
                // Numbered clockwise from the arm nearest north: here the input order.
                assert!(angle_diff(found[k], b).abs() < 1.0, "{bearings:?}: {found:?}");
                assert_eq!(j.arm_of[&(100 + k as i64)], k as u8 + 1);
                assert_eq!(j.arm_of[&(200 + k as i64)], k as u8 + 1);
            }
            for l in &g.lanelets {
                let expected = match l.id {
                    100..200 => ("approach", Turn::None),
                    200..300 => ("exit", Turn::None),
                    _ => {
                        let (k, j) = (((l.id - 1000) / 10) as usize, ((l.id - 1000) % 10) as usize);
                        let change = angle_diff(bearings[k] + 180.0, bearings[j]);
                        ("connector", super::super::infer::turn_of(change))
                    }
                };
                assert_eq!((l.role.as_str(), l.turn()), expected, "{bearings:?}: lanelet {}", l.id);
            }
        }
        // The T: from the north, east is a left turn and west a right turn.
        let tee = synthetic(&[0.0, 90.0, 270.0]);
        let turn = |id: i64| tee.lanelets.iter().find(|l| l.id == id).unwrap().turn();
        assert_eq!((turn(1001), turn(1002), turn(1012)), (Turn::Left, Turn::Right, Turn::Straight));
    }

    #[test]
    fn bearings_cluster_into_arms_across_north() {
        let arms = cluster_bearings(vec![358.0, 2.0, 1.0, 88.0, 91.0, 181.0, 179.0, 271.0]);
        assert_eq!(arms.len(), 4, "{arms:?}");
        assert!(arms.iter().any(|b| angle_diff(0.0, *b).abs() < 1.0), "{arms:?}");
        // Skewed: two arms 50° apart stay apart, a T-junction has three.
        assert_eq!(cluster_bearings(vec![0.0, 50.0, 180.0, 181.0]).len(), 3);
    }

    #[test]
    fn turn_neighbours_wrap_round_any_number_of_arms() {
        let arm = |n: u8, b: f64| Arm { number: n, bearing_deg: b, name: compass(b).into() };
        let j = |arms: Vec<Arm>| Junction {
            centre: Wgs84 { lat: 0.0, lon: 0.0 },
            arms,
            arm_of: BTreeMap::new(),
            connectors: vec![],
            radius_m: 10.0,
        };
        let four = j(vec![arm(1, 0.0), arm(2, 90.0), arm(3, 180.0), arm(4, 270.0)]);
        assert_eq!((four.left_of(1), four.right_of(1), four.opposite(1)), (2, 4, Some(3)));
        assert_eq!((four.left_of(4), four.right_of(4), four.opposite(4)), (1, 3, Some(2)));
        let tee = j(vec![arm(1, 0.0), arm(2, 90.0), arm(3, 270.0)]);
        assert_eq!((tee.opposite(1), tee.opposite(2), tee.right_of(1)), (None, Some(3), 3));
    }
}

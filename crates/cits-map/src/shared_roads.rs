//! Cyclists on roads without bicycle lanes: Lanelet2's `road` admits bicycles, so where a
//! junction has no bicycle lanelets cyclists get lanes of their own along the roads' right edge.

use std::collections::HashSet;

use cits::proto::{LaneGraph, Lanelet, TravelMode};
use cits::shared::geo::Wgs84;

use super::{dist, infer, local_line, lon_lat, polyline_length, Point, REVERSED_ID_OFFSET};

/// A shared road's bicycle lanelet has the road's id plus this.
pub const SHARED_ROAD_ID_OFFSET: i64 = 2 * REVERSED_ID_OFFSET;
/// Cyclists on a shared road keep this far right of its centre line (about half a metre from
/// the kerb of a 3.5 m lane): a car keeping its lane passes them, it does not run them over.
const CYCLIST_KEEPS_RIGHT_M: f64 = 1.3;
/// A lane whose centre lies this far to a lane's right, running the same way, is a lane on its
/// right: cyclists do not ride there.
const LANE_ON_RIGHT_M: (f64, f64) = (1.5, 5.0);

/// Where a junction has no bicycle lanes, cyclists ride the road (Lanelet2's `road` admits
/// bicycles) at its right edge: every car lanelet without a lane on its right gets a bicycle
/// twin (same role and turn, the twins' topology) [`CYCLIST_KEEPS_RIGHT_M`] right of its centre
/// line, so the map matcher and the predictor have lanes for cyclists. Twins that lead nowhere
/// (a turn into an inner lane) are left out.
pub fn bicycles_share_roads(graph: &mut LaneGraph) {
    let origin = Wgs84 { lat: graph.origin_latitude, lon: graph.origin_longitude };
    let cars: Vec<&Lanelet> = graph.lanelets.iter().filter(|l| l.mode == TravelMode::Car as i32).collect();
    let lines: Vec<Vec<Point>> = cars.iter().map(|l| local_line(origin, l)).collect();
    let heading = |line: &[Point], i: usize| {
        let (a, b) = (line[i.saturating_sub(1)], line[(i + 1).min(line.len() - 1)]);
        infer::bearing(a, b)
    };
    let lane_on_right = |i: usize| {
        let line = &lines[i];
        let k = line.len() / 2;
        let (mid, h) = (line[k], heading(line, k));
        let (t, n) = ((h.to_radians().sin(), h.to_radians().cos()), (h.to_radians().cos(), -h.to_radians().sin()));
        (0..lines.len()).filter(|&j| j != i).any(|j| {
            lines[j].iter().enumerate().any(|(q, p)| {
                let d = (p.0 - mid.0, p.1 - mid.1);
                let (along, side) = (d.0 * t.0 + d.1 * t.1, d.0 * n.0 + d.1 * n.1);
                along.abs() < 2.0
                    && (LANE_ON_RIGHT_M.0..LANE_ON_RIGHT_M.1).contains(&side)
                    && infer::angle_diff(h, heading(&lines[j], q)).abs() < 30.0
            })
        })
    };
    let mut twinned: HashSet<i64> = (0..cars.len()).filter(|&i| !lane_on_right(i)).map(|i| cars[i].id).collect();
    // A connector twin must lead on to a twin.
    loop {
        let dead: Vec<i64> = cars
            .iter()
            .filter(|l| twinned.contains(&l.id) && l.role == "connector")
            .filter(|l| !l.successors.iter().any(|s| twinned.contains(s)))
            .map(|l| l.id)
            .collect();
        if dead.is_empty() {
            break;
        }
        for id in dead {
            twinned.remove(&id);
        }
    }
    let twins: Vec<Lanelet> = cars
        .iter()
        .zip(&lines)
        .filter(|(l, _)| twinned.contains(&l.id))
        .map(|(l, line)| {
            let shifted = shift_right(line, CYCLIST_KEEPS_RIGHT_M);
            Lanelet {
                id: l.id + SHARED_ROAD_ID_OFFSET,
                mode: TravelMode::Bicycle as i32,
                centerline: lon_lat(origin, &shifted),
                successors: l
                    .successors
                    .iter()
                    .filter(|s| twinned.contains(s))
                    .map(|s| s + SHARED_ROAD_ID_OFFSET)
                    .collect(),
                length_m: polyline_length(&shifted),
                ..(*l).clone()
            }
        })
        .collect();
    graph.lanelets.extend(twins);
}

/// The polyline moved `by` metres to its right (each point along the mean of its segments'
/// normals).
fn shift_right(line: &[Point], by: f64) -> Vec<Point> {
    let normal = |a: Point, b: Point| {
        let d = dist(a, b).max(1e-9);
        ((b.1 - a.1) / d, -(b.0 - a.0) / d)
    };
    (0..line.len())
        .map(|i| {
            let before = (i > 0).then(|| normal(line[i - 1], line[i]));
            let after = (i + 1 < line.len()).then(|| normal(line[i], line[i + 1]));
            let n = match (before, after) {
                (Some(a), Some(b)) => {
                    let (x, y) = (a.0 + b.0, a.1 + b.1);
                    let len = x.hypot(y).max(1e-9);
                    (x / len, y / len)
                }
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => (0.0, 0.0),
            };
            (line[i].0 + by * n.0, line[i].1 + by * n.1)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_road_gives_cyclists_a_twin_right_of_its_centre() {
        // Northbound: right is east.
        assert_eq!(shift_right(&[(0.0, 0.0), (0.0, 10.0)], 1.0), vec![(1.0, 0.0), (1.0, 10.0)]);
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/map/weiser-gabelsberger.osm");
        let mut g = super::super::load(&path, None).unwrap();
        g.lanelets.retain(|l| l.mode == TravelMode::Car as i32);
        bicycles_share_roads(&mut g);
        let twin = |id: i64| g.lanelets.iter().find(|l| l.id == id + SHARED_ROAD_ID_OFFSET);
        // North: one approach lane, cyclists ride it; east: the left-turn lane 2100 has lane
        // 2101 on its right, cyclists ride only 2101; exits have no lane on their right.
        assert_eq!(twin(1100).map(|t| (t.mode, t.role.as_str())), Some((TravelMode::Bicycle as i32, "approach")));
        assert!(twin(2100).is_none() && twin(2101).is_some() && twin(2200).is_some());
        // The north approach's twin leads on into twins of its connectors, each into an exit twin.
        let from_north = &twin(1100).unwrap().successors;
        assert!(!from_north.is_empty());
        for c in from_north {
            let connector = g.lanelets.iter().find(|l| l.id == *c).unwrap();
            assert_eq!(connector.mode, TravelMode::Bicycle as i32);
            assert!(connector.successors.iter().all(|s| g.lanelets.iter().any(|l| l.id == *s && l.role == "exit")));
        }
    }
}

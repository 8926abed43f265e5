//! What the `cits:role` and `cits:turn` tags say, inferred from topology and geometry for maps
//! that do not carry them (any Lanelet2 map).
//!
//! A connector is a vehicle lanelet inside a junction box: it crosses another vehicle lanelet
//! (paths through a junction cross each other; lanes along a street never do), or it leaves the
//! same lanelet as a connector or enters the same lanelet as one (the right turn that crosses
//! nothing still diverges from the left turn's approach or merges into the straight's exit).
//! Approaches lead into connectors, exits out of them. A connector's turn is the change of heading
//! from the approach's end to the exit's start.

use std::collections::HashMap;

use cits::proto::{Lanelet, TravelMode, Turn};

use super::{dist, polyline_length, Point};

/// Longer lanelets are street, not junction box, even where they cross (a road mapped as one
/// lanelet through a small junction is not a turn).
const MAX_CONNECTOR_M: f64 = 80.0;
/// A crossing this close to either lanelet's ends is where they join, not where they cross.
const END_MARGIN_M: f64 = 1.0;
/// Heading change up to this is straight on; beyond [`UTURN_DEG`] a U-turn.
const STRAIGHT_DEG: f64 = 35.0;
const UTURN_DEG: f64 = 150.0;
/// Length over which a lane's heading at its end is measured.
const HEADING_SPAN_M: f64 = 5.0;

pub(crate) fn is_vehicle(l: &Lanelet) -> bool {
    !l.bidirectional && (l.mode == TravelMode::Car as i32 || l.mode == TravelMode::Bicycle as i32)
}

/// Compass heading (degrees clockwise from north) from `a` to `b`.
pub(crate) fn bearing(a: Point, b: Point) -> f64 {
    (b.0 - a.0).atan2(b.1 - a.1).to_degrees().rem_euclid(360.0)
}

/// `b − a` in (−180, 180]: positive clockwise (to the right).
pub(crate) fn angle_diff(a: f64, b: f64) -> f64 {
    let d = (b - a).rem_euclid(360.0);
    if d > 180.0 {
        d - 360.0
    } else {
        d
    }
}

/// The point `span` metres along the line from its start.
fn point_along(line: &[Point], span: f64) -> Point {
    let mut left = span;
    for w in line.windows(2) {
        let d = dist(w[0], w[1]);
        if d >= left && d > 0.0 {
            let f = left / d;
            return (w[0].0 + f * (w[1].0 - w[0].0), w[0].1 + f * (w[1].1 - w[0].1));
        }
        left -= d;
    }
    *line.last().expect("non-empty line")
}

/// Heading at the start of a line (over its first few metres) and at its end.
pub(crate) fn start_heading(line: &[Point]) -> f64 {
    bearing(line[0], point_along(line, HEADING_SPAN_M))
}

pub(crate) fn end_heading(line: &[Point]) -> f64 {
    let reversed: Vec<Point> = line.iter().rev().copied().collect();
    bearing(point_along(&reversed, HEADING_SPAN_M), reversed[0])
}

/// The turn a heading change makes (right-hand compass: positive is to the right).
pub(crate) fn turn_of(change_deg: f64) -> Turn {
    match change_deg {
        d if d.abs() <= STRAIGHT_DEG => Turn::Straight,
        d if d.abs() > UTURN_DEG => Turn::Uturn,
        d if d > 0.0 => Turn::Right,
        _ => Turn::Left,
    }
}

/// Whether two polylines cross more than `margin` from their ends (where joining lanelets touch).
pub(crate) fn cross_inside(a: &[Point], b: &[Point], margin: f64) -> bool {
    let (len_a, len_b) = (polyline_length(a), polyline_length(b));
    let bbox = |l: &[Point]| {
        l.iter().fold([f64::MAX, f64::MAX, f64::MIN, f64::MIN], |m, p| {
            [m[0].min(p.0), m[1].min(p.1), m[2].max(p.0), m[3].max(p.1)]
        })
    };
    let (ba, bb) = (bbox(a), bbox(b));
    if ba[0] > bb[2] || bb[0] > ba[2] || ba[1] > bb[3] || bb[1] > ba[3] {
        return false;
    }
    let mut s_a = 0.0;
    for wa in a.windows(2) {
        let (p, r) = (wa[0], (wa[1].0 - wa[0].0, wa[1].1 - wa[0].1));
        let mut s_b = 0.0;
        for wb in b.windows(2) {
            let (q, d) = (wb[0], (wb[1].0 - wb[0].0, wb[1].1 - wb[0].1));
            let denom = r.0 * d.1 - r.1 * d.0;
            if denom.abs() > 1e-9 {
                let w = (q.0 - p.0, q.1 - p.1);
                let t = (w.0 * d.1 - w.1 * d.0) / denom;
                let u = (w.0 * r.1 - w.1 * r.0) / denom;
                if (0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u) {
                    let at_a = s_a + t * r.0.hypot(r.1);
                    let at_b = s_b + u * d.0.hypot(d.1);
                    let inside = |s: f64, len: f64| s >= margin && s <= len - margin;
                    if inside(at_a, len_a) && inside(at_b, len_b) {
                        return true;
                    }
                }
            }
            s_b += d.0.hypot(d.1);
        }
        s_a += r.0.hypot(r.1);
    }
    false
}

/// Fills `role` and `turn` where the map left them empty; `centers[i]` is lanelet i's centerline
/// in metres. Roles: connector, approach, exit (vehicles), crosswalk, walkway (by subtype, passed
/// as `walkable_role`); vehicle lanelets that are none of these keep an empty role.
pub(crate) fn infer_roles(lanelets: &mut [Lanelet], centers: &[Vec<Point>], walkable_role: &[Option<&str>]) {
    let n = lanelets.len();
    let index: HashMap<i64, usize> = lanelets.iter().enumerate().map(|(i, l)| (l.id, i)).collect();
    let succ: Vec<Vec<usize>> =
        lanelets.iter().map(|l| l.successors.iter().filter_map(|s| index.get(s).copied()).collect()).collect();
    let mut pred = vec![Vec::new(); n];
    for (i, s) in succ.iter().enumerate() {
        for &j in s {
            pred[j].push(i);
        }
    }
    let vehicle: Vec<bool> = lanelets.iter().map(is_vehicle).collect();
    let candidate: Vec<bool> = (0..n)
        .map(|i| vehicle[i] && !pred[i].is_empty() && !succ[i].is_empty() && lanelets[i].length_m <= MAX_CONNECTOR_M)
        .collect();
    let mut connector: Vec<bool> = (0..n)
        .map(|i| {
            candidate[i]
                && (0..n).any(|j| {
                    j != i
                        && vehicle[j]
                        && !succ[i].contains(&j)
                        && !pred[i].contains(&j)
                        && cross_inside(&centers[i], &centers[j], END_MARGIN_M)
                })
        })
        .collect();
    loop {
        let sibling = |i: usize| {
            pred[i].iter().any(|&p| succ[p].iter().any(|&s| connector[s]))
                || succ[i].iter().any(|&s| pred[s].iter().any(|&p| connector[p]))
        };
        let grown: Vec<usize> = (0..n).filter(|&i| candidate[i] && !connector[i] && sibling(i)).collect();
        if grown.is_empty() {
            break;
        }
        for i in grown {
            connector[i] = true;
        }
    }
    for i in 0..n {
        if !lanelets[i].role.is_empty() {
            continue;
        }
        lanelets[i].role = if let Some(role) = walkable_role[i] {
            role.to_string()
        } else if connector[i] {
            "connector".to_string()
        } else if vehicle[i] && succ[i].iter().any(|&s| connector[s]) {
            "approach".to_string()
        } else if vehicle[i] && pred[i].iter().any(|&p| connector[p]) {
            "exit".to_string()
        } else {
            String::new()
        };
    }
    for i in 0..n {
        if !connector[i] || lanelets[i].turn() != Turn::None {
            continue;
        }
        // The heading on entering (the lane before, else the connector's own start) and on
        // leaving (the lane after).
        let before = pred[i].first().map_or_else(|| start_heading(&centers[i]), |&p| end_heading(&centers[p]));
        let after = succ[i].first().map_or_else(|| end_heading(&centers[i]), |&s| start_heading(&centers[s]));
        lanelets[i].turn = turn_of(angle_diff(before, after)) as i32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heading_changes_name_their_turns() {
        assert_eq!(turn_of(angle_diff(180.0, 270.0)), Turn::Right); // southbound, then westbound
        assert_eq!(turn_of(angle_diff(180.0, 90.0)), Turn::Left);
        assert_eq!(turn_of(angle_diff(350.0, 10.0)), Turn::Straight);
        assert_eq!(turn_of(angle_diff(0.0, 175.0)), Turn::Uturn);
        assert_eq!(turn_of(angle_diff(0.0, 40.0)), Turn::Right);
    }

    #[test]
    fn crossing_lines_cross_but_joining_lines_do_not() {
        let a = [(0.0, -5.0), (0.0, 5.0)];
        assert!(cross_inside(&a, &[(-5.0, 0.0), (5.0, 0.0)], END_MARGIN_M));
        // Touching at an end: a lanelet and its successor, or two merging into one exit.
        assert!(!cross_inside(&a, &[(0.0, 5.0), (5.0, 10.0)], END_MARGIN_M));
        assert!(!cross_inside(&a, &[(-5.0, 4.5), (5.0, 5.5)], END_MARGIN_M));
        // Parallel lanes.
        assert!(!cross_inside(&a, &[(3.0, -5.0), (3.0, 5.0)], 0.0));
    }
}

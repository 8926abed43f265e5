//! Surrogate safety measures from the true trajectories: post-encroachment time (PET) and minimum
//! time to collision (TTC) of every vehicle–VRU pair whose paths come within reach.
//!
//! PET (Allen et al. 1978; the usual measure for crossing conflicts at intersections): the time
//! between the first road user leaving the area where the two paths meet and the second one
//! entering it; 0 when both are in it at once. A road user is in the conflict area while any
//! part of its footprint (a segment of its length along its heading, widened by half its width)
//! is within half the other's width of the other's path. TTC: at each instant, how long until
//! the two footprints (discs) touch if both kept their velocity; its minimum over the encounter.

use super::routes::{dist, Kind, P};

/// Sampling step of the true trajectories for the measures.
const STEP_S: f64 = 0.05;
/// Only pairs that come closer than this are followed for the TTC.
const TTC_RANGE_M: f64 = 30.0;
/// Two occupancy intervals of a pair belong to the same conflict area when the road users'
/// positions at their middles are closer than this (routes that cross twice have two).
const SAME_AREA_M: f64 = 8.0;

/// Footprint: length along the heading and width (m).
pub(super) fn footprint(kind: Kind) -> (f64, f64) {
    match kind {
        Kind::Car => (4.5, 1.8),
        Kind::Bicycle => (1.8, 0.6),
        Kind::Pedestrian => (0.5, 0.5),
    }
}

/// One road user's true motion, sampled every [`STEP_S`] from `t0_s`.
pub(super) struct Motion<'a> {
    pub(super) kind: Kind,
    pub(super) t0_s: f64,
    /// Position and velocity (east/north, m and m/s) per sample.
    pub(super) states: Vec<(P, P)>,
    /// The route's polyline (the whole way the road user goes).
    pub(super) path: &'a [P],
}

impl Motion<'_> {
    fn time(&self, i: usize) -> f64 {
        self.t0_s + i as f64 * STEP_S
    }

    /// The samples of `other`'s time span, as index ranges into both.
    fn common(&self, other: &Motion) -> Option<(usize, usize, usize)> {
        let from = self.t0_s.max(other.t0_s);
        let to = self.time(self.states.len().saturating_sub(1)).min(other.time(other.states.len().saturating_sub(1)));
        if from > to || self.states.is_empty() || other.states.is_empty() {
            return None;
        }
        let i = ((from - self.t0_s) / STEP_S).round() as usize;
        let j = ((from - other.t0_s) / STEP_S).round() as usize;
        let n = ((to - from) / STEP_S).round() as usize + 1;
        Some((i, j, n.min(self.states.len() - i).min(other.states.len() - j)))
    }
}

pub(super) fn sample(
    kind: Kind,
    path: &[P],
    entry_s: f64,
    exit_s: f64,
    state: impl Fn(f64) -> Option<(P, P)>,
) -> Motion<'_> {
    let t0_s = (entry_s / STEP_S).ceil() * STEP_S;
    let states = (0..).map(|k| t0_s + k as f64 * STEP_S).take_while(|&t| t <= exit_s).map_while(&state).collect();
    Motion { kind, t0_s, states, path }
}

/// Distance from point `p` to segment `a`–`b`.
pub(super) fn point_segment(p: P, a: P, b: P) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let f = if len2 > 0.0 { (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0) } else { 0.0 };
    dist(p, (a.0 + f * dx, a.1 + f * dy))
}

fn segments_cross(a: P, b: P, c: P, d: P) -> bool {
    let cross = |o: P, p: P, q: P| (p.0 - o.0) * (q.1 - o.1) - (p.1 - o.1) * (q.0 - o.0);
    let (d1, d2, d3, d4) = (cross(c, d, a), cross(c, d, b), cross(a, b, c), cross(a, b, d));
    d1 * d2 < 0.0 && d3 * d4 < 0.0
}

/// Distance between segments `a`–`b` and `c`–`d`.
fn segment_segment(a: P, b: P, c: P, d: P) -> f64 {
    if segments_cross(a, b, c, d) {
        return 0.0;
    }
    point_segment(a, c, d).min(point_segment(b, c, d)).min(point_segment(c, a, b)).min(point_segment(d, a, b))
}

/// The intervals (sample index ranges, end exclusive) in which `m` occupies `other_path`.
fn occupancy(m: &Motion, other_path: &[P], other_kind: Kind) -> Vec<(usize, usize)> {
    let (length, width) = footprint(m.kind);
    let reach = (width + footprint(other_kind).1) / 2.0;
    // Bounding boxes of the path's segments grown by what can reach them: a cheap cut per sample.
    let grow = reach + length / 2.0;
    let boxes: Vec<[f64; 4]> = other_path
        .windows(2)
        .map(|w| {
            [w[0].0.min(w[1].0) - grow, w[0].1.min(w[1].1) - grow, w[0].0.max(w[1].0) + grow, w[0].1.max(w[1].1) + grow]
        })
        .collect();
    let inside = |(p, v): &(P, P)| {
        let speed = v.0.hypot(v.1);
        let h = if speed > 1e-6 { (v.0 / speed * length / 2.0, v.1 / speed * length / 2.0) } else { (0.0, 0.0) };
        let (front, rear) = ((p.0 + h.0, p.1 + h.1), (p.0 - h.0, p.1 - h.1));
        other_path.windows(2).zip(&boxes).any(|(w, b)| {
            (b[0]..=b[2]).contains(&p.0)
                && (b[1]..=b[3]).contains(&p.1)
                && segment_segment(rear, front, w[0], w[1]) <= reach
        })
    };
    let mut out = Vec::new();
    let mut start = None;
    for (i, s) in m.states.iter().enumerate() {
        match (inside(s), start) {
            (true, None) => start = Some(i),
            (false, Some(a)) => {
                out.push((a, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(a) = start {
        out.push((a, m.states.len()));
    }
    out
}

/// What the true trajectories say about one pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Encounter {
    /// Post-encroachment time, s (0: both in the conflict area at once).
    pub(super) pet_s: f64,
    /// When the second road user enters the conflict area (the moment a collision would be), s.
    pub(super) at_s: f64,
    /// Where: between the two road users' positions in the middle of their times in the area.
    pub(super) place: P,
    /// Minimum TTC over the encounter, s (None: never on a collision course).
    pub(super) min_ttc_s: Option<f64>,
    /// Which of the two came first into the conflict area (0 or 1).
    pub(super) first: usize,
}

/// The most critical conflict area of a pair (smallest PET), None when their paths never come
/// within reach of each other.
pub(super) fn encounter(a: &Motion, b: &Motion) -> Option<Encounter> {
    let (ia, ib) = (occupancy(a, b.path, b.kind), occupancy(b, a.path, a.kind));
    let middle = |m: &Motion, (s, e): (usize, usize)| m.states[(s + e - 1) / 2].0;
    let mut best: Option<Encounter> = None;
    for &ra in &ia {
        for &rb in &ib {
            if dist(middle(a, ra), middle(b, rb)) > SAME_AREA_M {
                continue;
            }
            let (a_in, a_out) = (a.time(ra.0), a.time(ra.1 - 1));
            let (b_in, b_out) = (b.time(rb.0), b.time(rb.1 - 1));
            let (pet_s, first) = if a_out < b_in {
                (b_in - a_out, 0)
            } else if b_out < a_in {
                (a_in - b_out, 1)
            } else {
                (0.0, usize::from(b_in < a_in))
            };
            let at_s = a_in.max(b_in);
            let (pa, pb) = (middle(a, ra), middle(b, rb));
            let place = ((pa.0 + pb.0) / 2.0, (pa.1 + pb.1) / 2.0);
            if best.is_none_or(|e| pet_s < e.pet_s) {
                best = Some(Encounter { pet_s, at_s, place, min_ttc_s: None, first });
            }
        }
    }
    best.map(|e| Encounter { min_ttc_s: min_ttc(a, b), ..e })
}

/// Radius of the disc a road user's footprint is taken as for the TTC.
fn ttc_radius(kind: Kind) -> f64 {
    let (length, width) = footprint(kind);
    (length + width) / 4.0
}

/// The minimum over the common samples of the time until the discs touch at constant
/// velocities.
fn min_ttc(a: &Motion, b: &Motion) -> Option<f64> {
    let (i, j, n) = a.common(b)?;
    let r = ttc_radius(a.kind) + ttc_radius(b.kind);
    (0..n)
        .filter_map(|k| {
            let ((pa, va), (pb, vb)) = (a.states[i + k], b.states[j + k]);
            let (dx, dy) = (pb.0 - pa.0, pb.1 - pa.1);
            if dx.hypot(dy) > TTC_RANGE_M {
                return None;
            }
            time_to_touch((dx, dy), (vb.0 - va.0, vb.1 - va.1), r)
        })
        .min_by(f64::total_cmp)
}

/// Smallest t ≥ 0 with |d + v t| = r (0 when already touching), None when never.
pub(super) fn time_to_touch(d: P, v: P, r: f64) -> Option<f64> {
    let c = d.0 * d.0 + d.1 * d.1 - r * r;
    if c <= 0.0 {
        return Some(0.0);
    }
    let a = v.0 * v.0 + v.1 * v.1;
    let b = 2.0 * (d.0 * v.0 + d.1 * v.1);
    let disc = b * b - 4.0 * a * c;
    if a <= 0.0 || b >= 0.0 || disc < 0.0 {
        return None;
    }
    Some((-b - disc.sqrt()) / (2.0 * a))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Straight motion from `from` at `v` for `secs`, along a path of 100 m each way.
    fn straight(kind: Kind, from: P, v: P, secs: f64, path: &[P]) -> Motion<'_> {
        sample(kind, path, 0.0, secs, |t| Some(((from.0 + v.0 * t, from.1 + v.1 * t), v)))
    }

    #[test]
    fn pet_is_the_gap_between_leaving_and_entering_the_shared_area() {
        // A car eastwards at 10 m/s through the origin; a pedestrian northwards at 1 m/s.
        let car_path = [(-100.0, 0.0), (100.0, 0.0)];
        let ped_path = [(0.0, -100.0), (0.0, 100.0)];
        let car = straight(Kind::Car, (-50.0, 0.0), (10.0, 0.0), 10.0, &car_path);
        // The car (4.5 m long) is within (1.8 + 0.5) / 2 = 1.15 m of the pedestrian's path while
        // its centre is within 2.25 + 1.15 = 3.4 m of x = 0: t = 4.66 .. 5.34 s. The pedestrian
        // (0.5 m) is within 1.15 m of the car's path from y = -1.4: t = 8.0 s.
        let ped = straight(Kind::Pedestrian, (0.0, -9.4), (0.0, 1.0), 20.0, &ped_path);
        let e = encounter(&car, &ped).unwrap();
        // Sampled every 50 ms: each end may be a step late.
        assert!((e.pet_s - (8.0 - 5.34)).abs() <= 2.0 * STEP_S + 1e-9, "{e:?}");
        assert_eq!(e.first, 0);
        assert!((e.at_s - 8.0).abs() <= STEP_S + 1e-9, "{e:?}");
        assert!(e.place.0.hypot(e.place.1) < 0.5, "{e:?}");
        assert!(e.min_ttc_s.is_none(), "never on a collision course: {e:?}");
        // At the same time: PET 0 and a TTC that reaches 0.
        let ped = straight(Kind::Pedestrian, (0.0, -5.0), (0.0, 1.0), 20.0, &ped_path);
        let e = encounter(&car, &ped).unwrap();
        assert_eq!((e.pet_s, e.min_ttc_s), (0.0, Some(0.0)));
        // Parallel paths 5 m apart never meet.
        let side = [(-100.0, 5.0), (100.0, 5.0)];
        let bike = straight(Kind::Bicycle, (-40.0, 5.0), (5.0, 0.0), 10.0, &side);
        assert!(encounter(&car, &bike).is_none());
    }

    #[test]
    fn time_to_touch_of_discs_closing_head_on() {
        assert_eq!(time_to_touch((10.0, 0.0), (-2.0, 0.0), 2.0), Some(4.0));
        assert_eq!(time_to_touch((10.0, 0.0), (2.0, 0.0), 2.0), None);
        assert_eq!(time_to_touch((10.0, 3.0), (-2.0, 0.0), 2.0), None);
        assert_eq!(time_to_touch((1.0, 0.0), (0.0, 0.0), 2.0), Some(0.0));
    }
}

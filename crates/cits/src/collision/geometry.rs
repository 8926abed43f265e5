//! Where and when two paths meet: road users' sizes, polylines and where they cross, paths as
//! timed points, predicted post-encroachment time, the first overlap of two paths in space and
//! time, and chords that rank pairs cheaply.

use crate::finite::{max as hi, min as lo};
use crate::geo::{distance, offset_to_wgs84, wgs84_to_offset, Wgs84};
use crate::proto::{PredictedPath, TravelMode};

/// Radius (m) of the area a road user of this mode occupies around its predicted position at
/// the time of its observation (the uncertainty then grows,
/// [`DetectorConfig::spread_mps`](super::DetectorConfig::spread_mps)).
pub(super) fn radius_m(mode: TravelMode) -> f64 {
    match mode {
        TravelMode::Car => 2.0,
        TravelMode::Bicycle => 1.0,
        TravelMode::Pedestrian => 0.75,
        TravelMode::Unknown => 1.0,
    }
}

/// Half the width of a road user of this mode (m): side by side, areas closer than the sum touch.
fn half_width_m(mode: TravelMode) -> f64 {
    match mode {
        TravelMode::Car => 1.0,
        TravelMode::Bicycle => 0.4,
        TravelMode::Pedestrian => 0.3,
        TravelMode::Unknown => 0.5,
    }
}

/// Where two polylines (local metres) cross: the point, and for each polyline the segment and
/// the fraction along it.
pub(super) struct Crossing {
    pub(super) at: (f64, f64),
    pub(super) a: (usize, f64),
    pub(super) b: (usize, f64),
}

/// A polyline (local metres) with the bounding box of each of its segments.
#[derive(Clone, Copy)]
pub(super) struct Polyline<'a> {
    pub(super) points: &'a [(f64, f64)],
    pub(super) boxes: &'a [[f64; 4]],
}

/// Bounding boxes (min x, min y, max x, max y) of a polyline's segments (finite points:
/// validated on input).
pub(super) fn segment_boxes(points: &[(f64, f64)]) -> Vec<[f64; 4]> {
    points
        .windows(2)
        .map(|w| [lo(w[0].0, w[1].0), lo(w[0].1, w[1].1), hi(w[0].0, w[1].0), hi(w[0].1, w[1].1)])
        .collect()
}

pub(super) fn crossing_points(a: Polyline, b: Polyline) -> Vec<Crossing> {
    let cross = |o: (f64, f64), p: (f64, f64), q: (f64, f64)| (p.0 - o.0) * (q.1 - o.1) - (p.1 - o.1) * (q.0 - o.0);
    let apart = |p: &[f64; 4], q: &[f64; 4]| p[0] > q[2] || q[0] > p[2] || p[1] > q[3] || q[1] > p[3];
    // All of `b` in one box: a segment of `a` away from it meets none of b's segments, and
    // most of a path is away from the other (the detector's costliest loop, perf 2026-11-27).
    let whole_b = b.boxes.iter().fold([f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY], |w, s| {
        [lo(w[0], s[0]), lo(w[1], s[1]), hi(w[2], s[2]), hi(w[3], s[3])]
    });
    let mut out = Vec::new();
    for (i, (sa, ba)) in a.points.windows(2).zip(a.boxes).enumerate() {
        if apart(ba, &whole_b) {
            continue;
        }
        for (j, (sb, bb)) in b.points.windows(2).zip(b.boxes).enumerate() {
            // Segments whose boxes do not meet cannot cross: most pairs end here.
            if apart(ba, bb) {
                continue;
            }
            let (d1, d2) = (cross(sb[0], sb[1], sa[0]), cross(sb[0], sb[1], sa[1]));
            let (d3, d4) = (cross(sa[0], sa[1], sb[0]), cross(sa[0], sa[1], sb[1]));
            if d1 * d2 <= 0.0 && d3 * d4 <= 0.0 && (d1 != d2 || d3 != d4) {
                // The crossing point (the segments' starts when they are collinear).
                let fa = if d1 != d2 { d1 / (d1 - d2) } else { 0.0 };
                let fb = if d3 != d4 { d3 / (d3 - d4) } else { 0.0 };
                let at = (sa[0].0 + fa * (sa[1].0 - sa[0].0), sa[0].1 + fa * (sa[1].1 - sa[0].1));
                out.push(Crossing { at, a: (i, fa), b: (j, fb) });
            }
        }
    }
    out
}

/// Longest a road user takes to pass a crossing (its length at a crawl), s: how much later than
/// the other it can arrive there with a given post-encroachment time.
pub(super) const OCCUPANCY_S: f64 = 2.0;

/// Length along the path and width of a road user of this mode (m).
fn footprint_m(mode: TravelMode) -> (f64, f64) {
    match mode {
        TravelMode::Car => (4.5, 1.8),
        TravelMode::Bicycle => (1.8, 0.6),
        TravelMode::Pedestrian => (0.5, 0.5),
        TravelMode::Unknown => (1.0, 1.0),
    }
}

/// A path as timed points (µs, local metres): where its road user was ([`PredictedPath::past`])
/// and where it is predicted to be, in time order. A road user that has just crossed the other's
/// path still conflicts with one arriving there shortly after, though its predicted positions
/// (all ahead of it) no longer reach the crossing.
pub(super) struct Timed {
    times: Vec<f64>,
    points: Vec<(f64, f64)>,
    /// Of `points`' segments (see [`crossing_points`]), computed once per path.
    boxes: Vec<[f64; 4]>,
    /// Where the predicted positions begin in `points` (the past comes first).
    ahead_from: usize,
}

impl Timed {
    /// `local`: the path's positions in local metres (see [`detect`](super::detect)). Past points
    /// not before the first position (out of order) are left out.
    pub(super) fn of(p: &PredictedPath, local: &[(f64, f64)], origin: Wgs84) -> Self {
        let first = p.positions.first().map_or(u64::MAX, |q| q.at_us);
        let past = p.past.iter().filter(|q| q.at_us < first);
        let mut times: Vec<f64> = past.clone().map(|q| q.at_us as f64).collect();
        let mut points: Vec<(f64, f64)> =
            past.map(|q| wgs84_to_offset(origin, Wgs84 { lat: q.latitude, lon: q.longitude })).collect();
        let ahead_from = points.len();
        times.extend(p.positions.iter().map(|q| q.at_us as f64));
        points.extend_from_slice(local);
        let boxes = segment_boxes(&points);
        Self { times, points, boxes, ahead_from }
    }

    /// The whole polyline, past and predicted.
    fn whole(&self) -> Polyline<'_> {
        Polyline { points: &self.points, boxes: &self.boxes }
    }

    /// The predicted positions only.
    fn ahead(&self) -> Polyline<'_> {
        let boxes = self.boxes.get(self.ahead_from..).unwrap_or_default();
        Polyline { points: &self.points[self.ahead_from..], boxes }
    }

    /// Where the polyline is at `t` (µs), between its first and last point.
    pub(super) fn at(&self, t: f64) -> Option<(f64, f64)> {
        let k = self.times.windows(2).position(|w| w[0] <= t && t <= w[1])?;
        let (t0, t1) = (self.times[k], self.times[k + 1]);
        let f = if t1 > t0 { (t - t0) / (t1 - t0) } else { 0.0 };
        let (p, q) = (self.points[k], self.points[k + 1]);
        Some((p.0 + (q.0 - p.0) * f, p.1 + (q.1 - p.1) * f))
    }
}

/// When a timed polyline passes segment `k` at fraction `f` (µs), and its speed there (m/s):
/// over the chord of the segments around it (up to [`SPEED_CHORD_SEGMENTS`] either side). One
/// segment of the past is one pair of measured points 0.25 s apart, whose noise gave a walking
/// pedestrian 0.4 m/s or none at all — and so seconds in the conflict area, where the true PET
/// was 3.5 s.
fn passing(times: &[f64], local: &[(f64, f64)], (k, f): (usize, f64)) -> (f64, f64) {
    let (t0, t1) = (times[k], times[k + 1]);
    let (from, to) = (k.saturating_sub(SPEED_CHORD_SEGMENTS), (k + 1 + SPEED_CHORD_SEGMENTS).min(local.len() - 1));
    let (a, b) = (local[from], local[to]);
    let speed = distance(b.0 - a.0, b.1 - a.1) / ((times[to] - times[from]) / 1e6).max(1e-6);
    (t0 + f * (t1 - t0), speed)
}

/// See [`passing`]: 2 segments either side, about a second in all.
const SPEED_CHORD_SEGMENTS: usize = 2;

/// The predicted post-encroachment time where two paths cross (s) and when the second road user
/// enters the crossing (µs): as the ground truth measures it, from the predicted passing times,
/// speeds and the road users' sizes.
fn predicted_pet(
    (ta, la, ma): (&[f64], &[(f64, f64)], TravelMode),
    (tb, lb, mb): (&[f64], &[(f64, f64)], TravelMode),
    c: &Crossing,
) -> (f64, f64) {
    let ((ta, va), (tb, vb)) = (passing(ta, la, c.a), passing(tb, lb, c.b));
    let ((len_a, wid_a), (len_b, wid_b)) = (footprint_m(ma), footprint_m(mb));
    // Time to cover its own half length and the other's half width, µs.
    let half = |len: f64, other_width: f64, v: f64| (len + other_width) / 2.0 / v.max(0.1) * 1e6;
    let (a_in, a_out) = (ta - half(len_a, wid_b, va), ta + half(len_a, wid_b, va));
    let (b_in, b_out) = (tb - half(len_b, wid_a, vb), tb + half(len_b, wid_a, vb));
    let pet_us = (b_in - a_out).max(a_in - b_out).max(0.0);
    (pet_us / 1e6, a_in.max(b_in))
}

/// Position (local metres) of a path at `t_us`, interpolated between its positions; None
/// outside its span. `k` is the index of the first position not before `t_us`.
fn position_at(p: &PredictedPath, local: &[(f64, f64)], k: usize, t_us: u64) -> Option<(f64, f64)> {
    let next = p.positions.get(k)?;
    if next.at_us == t_us {
        return Some(local[k]);
    }
    let prev = p.positions.get(k.checked_sub(1)?)?;
    // Positions out of time order (anything on the lattice may send them) have no position
    // between them.
    let (into, span) = (t_us.checked_sub(prev.at_us)?, next.at_us.checked_sub(prev.at_us)?);
    if span == 0 || into > span {
        return None;
    }
    let f = into as f64 / span as f64;
    let (a, b) = (local[k - 1], local[k]);
    Some((a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1)))
}

/// First time at which two paths conflict: (time, conflict point). Their areas must overlap and
/// their paths must cross there — road users on neighbouring lanes that never cut across each other (a
/// car passing a cyclist on the bike lane beside it, a car and a bike leaving the junction on
/// parallel lanes) only conflict where they would actually touch sideways.
/// The paths' positions need not share timestamps (two cameras measure at different times):
/// one merge walk over both time grids compares them at every position of either, the other
/// interpolated — linear in the positions, on this O(paths²) path.
/// `ta`, `tb`: the paths in local metres around `origin` (built once per path by the caller, not
/// once per pair). The areas grow with the time ahead of each path's observation (`spread_mps`).
pub(super) fn first_overlap(
    (a, ta): (&PredictedPath, &Timed),
    (b, tb): (&PredictedPath, &Timed),
    origin: Wgs84,
    spread_mps: f64,
    max_pet_s: f64,
) -> Option<(u64, Wgs84)> {
    let (ma, mb) = (TravelMode::try_from(a.mode).unwrap_or_default(), TravelMode::try_from(b.mode).unwrap_or_default());
    let reach = radius_m(ma) + radius_m(mb);
    let touch = half_width_m(ma) + half_width_m(mb);
    let mut crossings: Option<Vec<Crossing>> = None; // computed once, when first needed
    let (la, lb) = (ta.ahead().points, tb.ahead().points);
    let (mut i, mut j) = (0, 0);
    while let (Some(pa), Some(pb)) = (a.positions.get(i), b.positions.get(j)) {
        let t = pa.at_us.min(pb.at_us);
        if let (Some((xa, ya)), Some((xb, yb))) = (position_at(a, la, i, t), position_at(b, lb, j, t)) {
            let ahead_s = (t.saturating_sub(a.observed_at_us) + t.saturating_sub(b.observed_at_us)) as f64 / 1e6;
            let d = distance(xa - xb, ya - yb);
            let within = reach + spread_mps * ahead_s;
            // Close, and about to cut across each other: where their paths cross is within
            // reach of both (paths that cross somewhere else, later or earlier, do not count).
            let cutting = |c: &Vec<Crossing>| {
                c.iter().any(|c| {
                    distance(c.at.0 - xa, c.at.1 - ya) <= within && distance(c.at.0 - xb, c.at.1 - yb) <= within
                })
            };
            if d <= touch
                || (d <= within && cutting(crossings.get_or_insert_with(|| crossing_points(ta.ahead(), tb.ahead()))))
            {
                return Some((t, offset_to_wgs84(origin, (xa + xb) / 2.0, (ya + yb) / 2.0)));
            }
        }
        i += usize::from(pa.at_us == t);
        j += usize::from(pb.at_us == t);
    }
    // Never close at one time, but crossing where one follows the other closely: a near miss
    // by post-encroachment time, the measure the warnings are judged by.
    // Both paths reach back to where their road users came from: where one has just crossed
    // counts too, as long as the second is still to enter.
    let now = a.observed_at_us.max(b.observed_at_us) as f64;
    crossing_points(ta.whole(), tb.whole())
        .iter()
        .map(|c| (predicted_pet((&ta.times, &ta.points, ma), (&tb.times, &tb.points, mb), c), c.at))
        .filter(|((pet_s, at_us), _)| *pet_s <= max_pet_s && *at_us >= now)
        .min_by(|x, y| x.0 .1.total_cmp(&y.0 .1))
        .map(|((_, at_us), p)| (at_us.max(0.0) as u64, offset_to_wgs84(origin, p.0, p.1)))
}

/// A path as straight motion, for ranking pairs cheaply: the chord from its first to its last
/// position, `at(t) = base + velocity · t` (local metres; seconds since the first path's first
/// position) over `t0_s..=t1_s`, and how far any of its positions strays from the chord's point
/// at the same time.
pub(super) struct Chord {
    base: (f64, f64),
    pub(super) velocity: (f64, f64),
    t0_s: f64,
    t1_s: f64,
    slack_m: f64,
}

impl Chord {
    pub(super) fn of(p: &PredictedPath, local: &[(f64, f64)], t_base_us: u64) -> Option<Self> {
        let secs = |us: u64| (us as f64 - t_base_us as f64) / 1e6;
        let (first, last) = (p.positions.first()?, p.positions.last()?);
        let (t0_s, t1_s) = (secs(first.at_us), secs(last.at_us));
        let (a, b) = (local[0], local[local.len() - 1]);
        let span = t1_s - t0_s;
        let velocity = if span > 0.0 { ((b.0 - a.0) / span, (b.1 - a.1) / span) } else { (0.0, 0.0) };
        let base = (a.0 - velocity.0 * t0_s, a.1 - velocity.1 * t0_s);
        let slack_m = p
            .positions
            .iter()
            .zip(local)
            .map(|(q, (x, y))| {
                let t = secs(q.at_us);
                distance(x - (base.0 + velocity.0 * t), y - (base.1 + velocity.1 * t))
            })
            .fold(0.0, f64::max);
        Some(Self { base, velocity, t0_s, t1_s, slack_m })
    }

    /// When the two chords come closest in the time both paths span, and how close: a lower
    /// bound (`within` added to both slacks) of the paths' distance at any time step they share.
    /// None when they share no time or cannot come within `within` metres of each other.
    pub(super) fn closest_approach(&self, other: &Chord, within: f64) -> Option<(f64, f64)> {
        let (t0, t1) = (self.t0_s.max(other.t0_s), self.t1_s.min(other.t1_s));
        if t0 > t1 {
            return None;
        }
        let (rx, ry) = (self.base.0 - other.base.0, self.base.1 - other.base.1);
        let (vx, vy) = (self.velocity.0 - other.velocity.0, self.velocity.1 - other.velocity.1);
        let vv = vx * vx + vy * vy;
        let t = if vv > 0.0 { (-(rx * vx + ry * vy) / vv).clamp(t0, t1) } else { t0 };
        let (dx, dy) = (rx + vx * t, ry + vy * t);
        let slack = self.slack_m + other.slack_m;
        // Compared squared: no square root for the many pairs that pass far apart.
        let limit = within + slack + 1e-6;
        let d2 = dx * dx + dy * dy;
        (d2 <= limit * limit).then(|| ((d2.sqrt() - slack).max(0.0), t))
    }
}

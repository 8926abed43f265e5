//! Where and when two paths meet: road users' sizes, polylines and where they cross, paths as
//! timed points, predicted post-encroachment time, the first overlap of two paths in space and
//! time, and chords that rank pairs cheaply.

use crate::proto::{PredictedPath, TravelMode};
use crate::shared::finite::{max as hi, min as lo};
use crate::shared::geo::{distance, offset_to_wgs84, wgs84_to_offset, Wgs84};

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

/// A conflict of two paths: how likely their road users' true PET there is below the
/// threshold, when the second enters the conflict zone (µs) and where.
#[derive(Debug, Clone, Copy)]
pub(super) struct Conflict {
    pub(super) probability: f64,
    pub(super) at_us: u64,
    pub(super) at: Wgs84,
}

/// Paths meeting at a smaller angle than this (cosine) run the same way (or head-on along one
/// lane): a car behind or beside a cyclist. Their "crossing" is where one follows the other, so
/// they are judged by their footprints, not by a post-encroachment time.
const SAME_DIRECTION_COS: f64 = 0.866; // 30°

/// Spread (1σ) of when a road user passes a point: the timing of the measured track itself, s.
const PASSING_SIGMA_S: f64 = 0.1;

/// How much a road user's speed and acceleration stray (1σ) from what its predicted path keeps
/// up over the seconds ahead (the estimate's error and the road user's own changes): (m/s,
/// m/s²). A walker's pace is steadier than a driver's.
fn motion_sigma(mode: TravelMode) -> (f64, f64) {
    match mode {
        TravelMode::Car => (0.2, 0.3),
        TravelMode::Bicycle => (0.15, 0.2),
        TravelMode::Pedestrian => (0.1, 0.1),
        TravelMode::Unknown => (0.2, 0.3),
    }
}

/// Spread (1σ, s) of when a road user at `speed` arrives where its path puts it `ahead_s`
/// after its observation: speed noise carried forward moves it by σ_v·τ, acceleration noise by
/// σ_a·τ²/2, each a time error of that distance over its speed.
fn arrival_sigma_s(mode: TravelMode, speed: f64, ahead_s: f64) -> f64 {
    let (sigma_v, sigma_a) = motion_sigma(mode);
    let tau = ahead_s.max(0.0);
    let metres = ((sigma_v * tau).powi(2) + (0.5 * sigma_a * tau * tau).powi(2)).sqrt();
    (PASSING_SIGMA_S.powi(2) + (metres / speed.max(0.5)).powi(2)).sqrt()
}

/// The standard normal distribution function (Abramowitz and Stegun 7.1.26, error < 1.5e-7).
fn phi(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly =
        t * (0.254_829_592 + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-z * z).exp();
    if x >= 0.0 {
        0.5 * (1.0 + erf)
    } else {
        0.5 * (1.0 - erf)
    }
}

/// A timed polyline's direction at segment `k` (unit vector; zero on a standstill).
fn direction(points: &[(f64, f64)], k: usize) -> (f64, f64) {
    let (p, q) = (points[k], points[(k + 1).min(points.len() - 1)]);
    let len = distance(q.0 - p.0, q.1 - p.1);
    if len > 0.0 {
        ((q.0 - p.0) / len, (q.1 - p.1) / len)
    } else {
        (0.0, 0.0)
    }
}

/// Where two paths cross at an angle: the probability that the road users' true
/// post-encroachment time there is below `pet_s` and when the second enters the zone (µs).
/// The predicted passing times are each uncertain by [`arrival_sigma_s`], growing with how far
/// ahead of its observation the road user passes; the PET is below `pet_s` exactly when the
/// passing times are closer than `pet_s` plus both occupancy half-times, so the probability is
/// that of a normal difference falling in that window. None where they run the same way.
fn crossing_conflict(
    (ta, oa, ma): (&Timed, f64, TravelMode),
    (tb, ob, mb): (&Timed, f64, TravelMode),
    c: &Crossing,
    pet_s: f64,
) -> Option<(f64, f64)> {
    let (da, db) = (direction(&ta.points, c.a.0), direction(&tb.points, c.b.0));
    if (da.0 * db.0 + da.1 * db.1).abs() > SAME_DIRECTION_COS {
        return None;
    }
    let ((pa, va), (pb, vb)) = (passing(&ta.times, &ta.points, c.a), passing(&tb.times, &tb.points, c.b));
    let ((len_a, wid_a), (len_b, wid_b)) = (footprint_m(ma), footprint_m(mb));
    // The conflict area as the ground truth has it: a road user is in it while its footprint is
    // within both half widths of the other's path, which at an angle θ spans (w_a + w_b) / sin θ
    // of its own path, plus its own length. Half of that, over its speed, s.
    let sin = (da.0 * db.1 - da.1 * db.0).abs().max(0.5);
    let half = |len: f64, v: f64| (len + (wid_a + wid_b) / sin) / 2.0 / v.max(0.1);
    let (ha, hb) = (half(len_a, va), half(len_b, vb));
    let gap_s = (pb - pa) / 1e6;
    let sigma =
        (arrival_sigma_s(ma, va, (pa - oa) / 1e6).powi(2) + arrival_sigma_s(mb, vb, (pb - ob) / 1e6).powi(2)).sqrt();
    let window = pet_s + ha + hb;
    let probability = phi((window - gap_s) / sigma) - phi((-window - gap_s) / sigma);
    let second_in_us = (pa - ha * 1e6).max(pb - hb * 1e6);
    Some((probability.clamp(0.0, 1.0), second_in_us))
}

/// `d` (local metres) in the frame of `heading` (a unit vector): how far along it (positive
/// ahead) and how far across it (either side).
fn along_across(heading: (f64, f64), d: (f64, f64)) -> (f64, f64) {
    (d.0 * heading.0 + d.1 * heading.1, (d.0 * heading.1 - d.1 * heading.0).abs())
}

/// Whether two road users' footprints (length along each one's heading, width across it)
/// overlap when their centres are `d` apart (local metres), `a` heading `heading_a`.
fn footprints_overlap(ma: TravelMode, mb: TravelMode, heading_a: (f64, f64), d: (f64, f64)) -> bool {
    let ((len_a, wid_a), (len_b, wid_b)) = (footprint_m(ma), footprint_m(mb));
    let (along, across) = along_across(heading_a, d);
    along.abs() <= (len_a + len_b) / 2.0 && across <= (wid_a + wid_b) / 2.0
}

/// Farthest apart (m) two road users' centres can be with their footprints overlapping
/// ([`footprints_overlap`], whose heading is a unit vector), and a little more for rounding.
fn footprints_reach_m(ma: TravelMode, mb: TravelMode) -> f64 {
    let ((len_a, wid_a), (len_b, wid_b)) = (footprint_m(ma), footprint_m(mb));
    distance((len_a + len_b) / 2.0, (wid_a + wid_b) / 2.0) + 1e-6
}

/// Deceleration (m/s²) a road user closing on another ahead of it in its line can take to
/// follow it: more than comfortable braking, and the pair conflicts.
const FOLLOWING_DECELERATION_MPS2: f64 = 3.0;

/// How much less than both half widths apart sideways two road users are still in one line
/// (one behind the other, as a car behind a cyclist in its lane), m.
const IN_LINE_SLACK_M: f64 = 0.5;

/// Whether the road user behind closes on the one ahead too fast to follow it by comfortable
/// braking (the two at their first predicted positions, in one line): the closing speed's
/// square over twice the gap between their footprints, against [`FOLLOWING_DECELERATION_MPS2`].
/// A car behind a cyclist in its lane, predicted at its own speed, always "runs into" her
/// seconds later; drivers slow and follow, and the ground truth sees no conflict.
fn closing_too_fast(
    (a, la, ma): (&PredictedPath, &[(f64, f64)], TravelMode),
    (b, lb, mb): (&PredictedPath, &[(f64, f64)], TravelMode),
) -> bool {
    let (Some(&a0), Some(&b0)) = (la.first(), lb.first()) else { return true };
    let speed = |p: &PredictedPath, l: &[(f64, f64)]| match (p.positions.first(), p.positions.get(1)) {
        (Some(p0), Some(p1)) if p1.at_us > p0.at_us => {
            distance(l[1].0 - l[0].0, l[1].1 - l[0].1) / ((p1.at_us - p0.at_us) as f64 / 1e6)
        }
        _ => 0.0,
    };
    // Along a's heading: positive when b is ahead.
    let (along, across) = along_across(direction(la, 0), (b0.0 - a0.0, b0.1 - a0.1));
    let ((len_a, wid_a), (len_b, wid_b)) = (footprint_m(ma), footprint_m(mb));
    // Beside each other rather than one behind the other: one passing the other that close
    // touches sideways, whatever its braking.
    if across > (wid_a + wid_b) / 2.0 - IN_LINE_SLACK_M {
        return true;
    }
    let gap = along.abs() - (len_a + len_b) / 2.0;
    let (va, vb) = (speed(a, la), speed(b, lb));
    let closing = if along >= 0.0 { va - vb } else { vb - va };
    gap <= 0.0 || (closing > 0.0 && closing * closing / (2.0 * gap) > FOLLOWING_DECELERATION_MPS2)
}

/// The conflict of two paths, if any: where they cross at an angle, the most likely of their
/// crossings by [`crossing_conflict`] (as long as the second road user is still to enter it —
/// both paths reach back to where their road users came from, so one that has just crossed
/// counts); where they run the same way (a car closing on a cyclist ahead in its lane, or
/// beside it), the first time their footprints would overlap — unless the one behind can
/// follow by comfortable braking ([`closing_too_fast`]).
/// The paths' positions need not share timestamps (two cameras measure at different times):
/// one merge walk over both time grids compares them at every position of either, the other
/// interpolated. `ta`, `tb`: the paths in local metres around `origin` (built once per path by
/// the caller, not once per pair).
pub(super) fn conflict(
    (a, ta): (&PredictedPath, &Timed),
    (b, tb): (&PredictedPath, &Timed),
    origin: Wgs84,
    pet_s: f64,
) -> Option<Conflict> {
    let (ma, mb) = (TravelMode::try_from(a.mode).unwrap_or_default(), TravelMode::try_from(b.mode).unwrap_or_default());
    let now = a.observed_at_us.max(b.observed_at_us) as f64;
    let (oa, ob) = (a.observed_at_us as f64, b.observed_at_us as f64);
    let crossed = crossing_points(ta.whole(), tb.whole())
        .iter()
        .filter_map(|c| crossing_conflict((ta, oa, ma), (tb, ob, mb), c, pet_s).map(|(p, at_us)| (p, at_us, c.at)))
        .filter(|(p, at_us, _)| *p > 0.0 && *at_us >= now)
        .max_by(|x, y| x.0.total_cmp(&y.0))
        .map(|(probability, at_us, p)| Conflict {
            probability,
            at_us: at_us as u64,
            at: offset_to_wgs84(origin, p.0, p.1),
        });
    let (la, lb) = (ta.ahead().points, tb.ahead().points);
    // Paths whose predicted positions stay farther apart on either axis than footprints reach
    // have nothing for the walk below to find, and most pairs are such (the walk was 3 % of the
    // machine at 32 intersections, profile 2026-11-29).
    let reach = footprints_reach_m(ma, mb);
    let (ba, bb) = (bounds(la), bounds(lb));
    if ba[0] - bb[2] > reach || bb[0] - ba[2] > reach || ba[1] - bb[3] > reach || bb[1] - ba[3] > reach {
        return crossed;
    }
    let (mut i, mut j) = (0, 0);
    while let (Some(pa), Some(pb)) = (a.positions.get(i), b.positions.get(j)) {
        let t = pa.at_us.min(pb.at_us);
        if crossed.is_some_and(|c| c.probability >= 1.0 - 1e-9 && c.at_us <= t) {
            break; // nothing sooner or surer to find
        }
        if let (Some((xa, ya)), Some((xb, yb))) = (position_at(a, la, i, t), position_at(b, lb, j, t)) {
            let (ha, hb) = (direction(la, i.saturating_sub(1)), direction(lb, j.saturating_sub(1)));
            let same_way = (ha.0 * hb.0 + ha.1 * hb.1).abs() > SAME_DIRECTION_COS;
            if same_way && footprints_overlap(ma, mb, ha, (xb - xa, yb - ya)) {
                if !closing_too_fast((a, la, ma), (b, lb, mb)) {
                    break; // one follows the other, as drivers and riders do
                }
                let touch = Conflict {
                    probability: 1.0,
                    at_us: t,
                    at: offset_to_wgs84(origin, (xa + xb) / 2.0, (ya + yb) / 2.0),
                };
                return Some(match crossed {
                    Some(c) if c.at_us < t => Conflict { probability: 1.0, ..c },
                    _ => touch,
                });
            }
        }
        i += usize::from(pa.at_us == t);
        j += usize::from(pb.at_us == t);
    }
    crossed
}

/// Bounding box (min x, min y, max x, max y) of points; empty: inverted, apart from every box.
fn bounds(points: &[(f64, f64)]) -> [f64; 4] {
    points.iter().fold([f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY], |b, p| {
        [lo(b[0], p.0), lo(b[1], p.1), hi(b[2], p.0), hi(b[3], p.1)]
    })
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

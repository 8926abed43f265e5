//! Local sensor frames to WGS84 (EPSG:4326).
//!
//! A roadside camera reports x/y in metres relative to itself. Over the few hundred metres a
//! sensor covers, a tangent plane at the sensor with the WGS84 ellipsoid's radii of curvature at
//! the sensor's latitude is accurate to well below a millimetre — far under sensor noise — and
//! costs a handful of flops per object, which matters at 16x replay speed.

/// WGS84 semi-major axis (m).
const A: f64 = 6_378_137.0;
/// WGS84 flattening.
const F: f64 = 1.0 / 298.257_223_563;
const E2: f64 = F * (2.0 - F);

/// A WGS84 position in degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Wgs84 {
    pub lat: f64,
    pub lon: f64,
}

/// Metres per degree of latitude and of longitude at `lat_deg`, remembered for the latitude
/// last asked: nearly every call is for one origin (a map's, a sensor's), and the sine and
/// cosine were a twentieth of a frame's CPU (perf of `cits evaluate`, 2026-11-29). The same
/// latitude gives the same bits either way. Not inlined: one copy of the memo, not one per caller.
#[inline(never)]
fn metres_per_degree(lat_deg: f64) -> (f64, f64) {
    thread_local! {
        static LAST: std::cell::Cell<Option<(u64, (f64, f64))>> = const { std::cell::Cell::new(None) };
    }
    LAST.with(|last| match last.get() {
        Some((bits, scale)) if bits == lat_deg.to_bits() => scale,
        _ => {
            let scale = metres_per_degree_at(lat_deg);
            last.set(Some((lat_deg.to_bits(), scale)));
            scale
        }
    })
}

fn metres_per_degree_at(lat_deg: f64) -> (f64, f64) {
    let phi = lat_deg.to_radians();
    let s = phi.sin();
    let w = (1.0 - E2 * s * s).sqrt();
    let meridional = A * (1.0 - E2) / (w * w * w); // M: north-south radius of curvature
    let normal = A / w; // N: east-west radius of curvature
    let k = std::f64::consts::PI / 180.0;
    (meridional * k, normal * phi.cos() * k)
}

/// The point `east_m`/`north_m` metres from `origin`.
pub fn offset_to_wgs84(origin: Wgs84, east_m: f64, north_m: f64) -> Wgs84 {
    let (m_lat, m_lon) = metres_per_degree(origin.lat);
    Wgs84 { lat: origin.lat + north_m / m_lat, lon: origin.lon + east_m / m_lon }
}

/// East/north metres of `point` from `origin` (inverse of [`offset_to_wgs84`]).
pub fn wgs84_to_offset(origin: Wgs84, point: Wgs84) -> (f64, f64) {
    let (m_lat, m_lon) = metres_per_degree(origin.lat);
    ((point.lon - origin.lon) * m_lon, (point.lat - origin.lat) * m_lat)
}

/// Where a sensor is and which way its x axis points.
///
/// The sensor frame is right-handed with z up: y is x turned 90° counter-clockwise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SensorPose {
    pub origin: Wgs84,
    /// Direction of the sensor's +x axis, degrees clockwise from north (90 = x points east).
    pub x_axis_heading_deg: f64,
}

impl SensorPose {
    /// A frame with x east and y north at `origin`: ETSI's convention for positions relative to a
    /// station's reference position.
    pub fn east_north(origin: Wgs84) -> Self {
        Self { origin, x_axis_heading_deg: 90.0 }
    }

    /// Rotates a sensor-frame vector into east/north components.
    pub fn to_east_north(&self, x: f64, y: f64) -> (f64, f64) {
        let (s, c) = self.x_axis_heading_deg.to_radians().sin_cos();
        (x * s - y * c, x * c + y * s)
    }

    /// Sensor-frame position (m) → WGS84.
    pub fn to_wgs84(&self, x_m: f64, y_m: f64) -> Wgs84 {
        let (e, n) = self.to_east_north(x_m, y_m);
        offset_to_wgs84(self.origin, e, n)
    }

    /// Rotates an east/north vector into the sensor frame (inverse of [`Self::to_east_north`]).
    pub fn from_east_north(&self, east: f64, north: f64) -> (f64, f64) {
        let (s, c) = self.x_axis_heading_deg.to_radians().sin_cos();
        (east * s + north * c, -east * c + north * s)
    }

    /// WGS84 → sensor-frame position (m); used by the RSU emulator and in tests.
    pub fn from_wgs84(&self, p: Wgs84) -> (f64, f64) {
        let (e, n) = wgs84_to_offset(self.origin, p);
        self.from_east_north(e, n)
    }

    /// Heading (degrees clockwise from north, 0..360) of a direction given as an angle in the
    /// sensor frame, counter-clockwise from +x.
    pub fn heading_of_angle(&self, angle_ccw_from_x_deg: f64) -> f64 {
        normalize_deg(self.x_axis_heading_deg - angle_ccw_from_x_deg)
    }
}

/// Length of an east/north vector (m). Not `f64::hypot`: its guard against overflow is for
/// magnitudes far beyond any street, and in a Wasm component it is a libm call, not an
/// instruction (7 % of the fused host's CPU in `perf`, before).
#[inline]
pub fn distance(east: f64, north: f64) -> f64 {
    (east * east + north * north).sqrt()
}

/// Stretch over which a turn connector's bend is measured ([`tightest_radius_m`]), m: about a
/// car's length.
pub const BEND_WINDOW_M: f64 = 5.0;

/// Radius (m) of a polyline's tightest bend: over every stretch of at least `window_m` (or
/// the whole line, if shorter) between two of its segments, the stretch's length over the turn of
/// heading along it; the smallest. None for a line that turns less than a degree per `window_m`.
/// Measured over a window, not per vertex: maps draw corners with unevenly spaced points, and
/// one sharp vertex between long segments is a kink in the drawing, not a bend a car can take.
pub fn tightest_radius_m(points: &[(f64, f64)], window_m: f64) -> Option<f64> {
    // Each segment's heading (unwrapped, radians) and the station of its middle.
    let mut segments: Vec<(f64, f64)> = Vec::new();
    let mut station = 0.0;
    for w in points.windows(2) {
        let (dx, dy) = (w[1].0 - w[0].0, w[1].1 - w[0].1);
        let len = distance(dx, dy);
        if len < 1e-6 {
            continue;
        }
        let mut heading = dy.atan2(dx);
        if let Some(&(prev, _)) = segments.last() {
            heading =
                prev + (heading - prev + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI;
        }
        segments.push((heading, station + len / 2.0));
        station += len;
    }
    let (first, last) = (segments.first()?, segments.last()?);
    let window = window_m.min(last.1 - first.1);
    let mut sharpest = 0.0_f64;
    for (i, &(h0, s0)) in segments.iter().enumerate() {
        let Some(&(h1, s1)) = segments[i + 1..].iter().find(|(_, s)| *s - s0 >= window - 1e-9) else { break };
        sharpest = sharpest.max((h1 - h0).abs() / (s1 - s0));
    }
    let least = 1f64.to_radians() / window_m.max(1e-6);
    (sharpest > least).then(|| 1.0 / sharpest)
}

/// How far heading `to` lies clockwise of heading `from` (degrees, -180..180).
pub fn heading_difference_deg(to: f64, from: f64) -> f64 {
    (to - from + 540.0).rem_euclid(360.0) - 180.0
}

/// Heading (degrees clockwise from north, 0..360) of an east/north vector.
pub fn heading_deg(east: f64, north: f64) -> f64 {
    normalize_deg(east.atan2(north).to_degrees())
}

fn normalize_deg(d: f64) -> f64 {
    let r = d.rem_euclid(360.0);
    if r >= 360.0 {
        0.0
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SALZBURG: Wgs84 = Wgs84 { lat: 47.8095, lon: 13.0550 };

    /// A quarter circle drawn with `n` points.
    fn arc(radius: f64, n: usize) -> Vec<(f64, f64)> {
        (0..=n)
            .map(|i| {
                let a = std::f64::consts::FRAC_PI_2 * i as f64 / n as f64;
                (radius * a.sin(), radius * (1.0 - a.cos()))
            })
            .collect()
    }

    #[test]
    fn a_quarter_circle_has_its_radius_however_it_is_drawn() {
        for (radius, n) in [(8.0, 6), (8.0, 40), (15.0, 12), (30.0, 8)] {
            let r = tightest_radius_m(&arc(radius, n), 5.0).unwrap();
            // A chord-drawn arc is a little tighter than the circle it approximates.
            assert!((r - radius).abs() < 0.05 * radius, "{radius} m with {n} points: {r}");
        }
    }

    #[test]
    fn the_tightest_bend_counts_not_the_straight_run_up() {
        let mut line: Vec<(f64, f64)> = (0..=10).map(|i| (-20.0 + 2.0 * i as f64, 0.0)).collect();
        line.extend(arc(6.0, 10).into_iter().skip(1));
        let r = tightest_radius_m(&line, 5.0).unwrap();
        assert!((r - 6.0).abs() < 0.4, "{r}");
        // A straight line, or one bending a hair, has no bend.
        assert_eq!(tightest_radius_m(&[(0.0, 0.0), (10.0, 0.0), (20.0, 0.0)], 5.0), None);
        assert_eq!(tightest_radius_m(&[(0.0, 0.0), (10.0, 0.0), (20.0, 0.01)], 5.0), None);
        assert_eq!(tightest_radius_m(&[(0.0, 0.0)], 5.0), None);
    }

    #[test]
    fn one_degree_of_latitude_is_about_111_km() {
        let p = offset_to_wgs84(SALZBURG, 0.0, 111_186.6);
        assert!((p.lat - SALZBURG.lat - 1.0).abs() < 2e-3, "{p:?}");
    }

    #[test]
    fn metres_per_degree_matches_ellipsoid_at_47_8_north() {
        // Independent reference: the series 111132.954 − 559.822·cos2φ + 1.175·cos4φ (latitude)
        // and 111412.84·cosφ − 93.5·cos3φ + 0.118·cos5φ (longitude) at φ = 47.8095°.
        let (m_lat, m_lon) = metres_per_degree(SALZBURG.lat);
        assert!((m_lat - 111_186.615).abs() < 0.01, "{m_lat}");
        assert!((m_lon - 74_899.643).abs() < 0.05, "{m_lon}");
    }

    #[test]
    fn x_axis_heading_rotates_offsets() {
        let east = SensorPose { origin: SALZBURG, x_axis_heading_deg: 90.0 };
        let (e, n) = east.to_east_north(10.0, 0.0);
        assert!((e - 10.0).abs() < 1e-9 && n.abs() < 1e-9);
        let north = SensorPose { origin: SALZBURG, x_axis_heading_deg: 0.0 };
        let (e, n) = north.to_east_north(10.0, 0.0);
        assert!(e.abs() < 1e-9 && (n - 10.0).abs() < 1e-9);
        // y is x turned counter-clockwise: with x north, y points west.
        let (e, n) = north.to_east_north(0.0, 5.0);
        assert!((e + 5.0).abs() < 1e-9 && n.abs() < 1e-9);
    }

    #[test]
    fn heading_of_vectors() {
        assert!((heading_deg(0.0, 1.0) - 0.0).abs() < 1e-9);
        assert!((heading_deg(1.0, 0.0) - 90.0).abs() < 1e-9);
        assert!((heading_deg(0.0, -1.0) - 180.0).abs() < 1e-9);
        assert!((heading_deg(-1.0, 0.0) - 270.0).abs() < 1e-9);
        let pose = SensorPose { origin: SALZBURG, x_axis_heading_deg: 30.0 };
        assert!((pose.heading_of_angle(90.0) - 300.0).abs() < 1e-9);
    }

    #[test]
    fn heading_differences_are_signed_and_take_the_short_way() {
        assert!((heading_difference_deg(10.0, 350.0) - 20.0).abs() < 1e-9);
        assert!((heading_difference_deg(350.0, 10.0) + 20.0).abs() < 1e-9);
        assert!((heading_difference_deg(90.0, 90.0)).abs() < 1e-9);
        assert!((heading_difference_deg(180.0, 0.0) + 180.0).abs() < 1e-9);
    }

    proptest! {
        #[test]
        fn sensor_frame_round_trips(x in -300.0f64..300.0, y in -300.0f64..300.0, h in 0.0f64..360.0) {
            let pose = SensorPose { origin: SALZBURG, x_axis_heading_deg: h };
            let p = pose.to_wgs84(x, y);
            let (bx, by) = pose.from_wgs84(p);
            prop_assert!((bx - x).abs() < 1e-6 && (by - y).abs() < 1e-6);
        }

        #[test]
        fn rotation_preserves_distance(x in -300.0f64..300.0, y in -300.0f64..300.0, h in 0.0f64..360.0) {
            let pose = SensorPose { origin: SALZBURG, x_axis_heading_deg: h };
            let (e, n) = pose.to_east_north(x, y);
            prop_assert!((e.hypot(n) - x.hypot(y)).abs() < 1e-9);
        }
    }
}

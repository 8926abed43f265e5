//! Universal Transverse Mercator on WGS84, both ways: the datasets give positions in metres of a
//! UTM grid (levelX: the grid less an origin; INTERACTION and SinD: less the grid position of
//! lat/lon 0,0, as the Lanelet2 `UtmProjector` with origin 0,0 their tools use), our maps and
//! CPMs are in lat/lon. Krüger's series to the third order (sub-millimetre within a zone).

use cits::shared::geo::Wgs84;

const A: f64 = 6_378_137.0;
const F: f64 = 1.0 / 298.257_223_563;
const K0: f64 = 0.9996;
const FALSE_EASTING: f64 = 500_000.0;
const FALSE_NORTHING_SOUTH: f64 = 10_000_000.0;

/// One UTM zone (1–60) and hemisphere.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Utm {
    pub zone: u8,
    pub north: bool,
}

struct Series {
    /// Rectifying radius times k0.
    k0a: f64,
    alpha: [f64; 3],
    beta: [f64; 3],
    delta: [f64; 3],
    /// 2√n / (1 + n): the conformal latitude's eccentricity term.
    e: f64,
}

fn series() -> Series {
    let n = F / (2.0 - F);
    let (n2, n3) = (n * n, n * n * n);
    Series {
        k0a: K0 * A / (1.0 + n) * (1.0 + n2 / 4.0 + n2 * n2 / 64.0),
        alpha: [n / 2.0 - 2.0 * n2 / 3.0 + 5.0 * n3 / 16.0, 13.0 * n2 / 48.0 - 3.0 * n3 / 5.0, 61.0 * n3 / 240.0],
        beta: [n / 2.0 - 2.0 * n2 / 3.0 + 37.0 * n3 / 96.0, n2 / 48.0 + n3 / 15.0, 17.0 * n3 / 480.0],
        delta: [2.0 * n - 2.0 * n2 / 3.0 - 2.0 * n3, 7.0 * n2 / 3.0 - 8.0 * n3 / 5.0, 56.0 * n3 / 15.0],
        e: 2.0 * n.sqrt() / (1.0 + n),
    }
}

impl Utm {
    /// The zone a point lies in (the standard 6° zones; Norway's and Svalbard's exceptions
    /// are not needed by any dataset here).
    pub fn of(at: Wgs84) -> Utm {
        let zone = (((at.lon + 180.0) / 6.0).floor() as i64).rem_euclid(60) as u8 + 1;
        Utm { zone, north: at.lat >= 0.0 }
    }

    fn central_meridian_deg(self) -> f64 {
        f64::from(self.zone) * 6.0 - 183.0
    }

    /// Easting and northing (m) of a point.
    pub fn forward(self, at: Wgs84) -> (f64, f64) {
        let s = series();
        let (phi, dlambda) = (at.lat.to_radians(), (at.lon - self.central_meridian_deg()).to_radians());
        let t = (phi.sin().atanh() - s.e * (s.e * phi.sin()).atanh()).sinh();
        let xi = t.atan2(dlambda.cos());
        let eta = (dlambda.sin() / (1.0 + t * t).sqrt()).atanh();
        let (mut x, mut y) = (eta, xi);
        for (j, a) in s.alpha.iter().enumerate() {
            let k = 2.0 * (j + 1) as f64;
            x += a * (k * xi).cos() * (k * eta).sinh();
            y += a * (k * xi).sin() * (k * eta).cosh();
        }
        let north = if self.north { 0.0 } else { FALSE_NORTHING_SOUTH };
        (FALSE_EASTING + s.k0a * x, north + s.k0a * y)
    }

    /// The point at an easting and northing (m).
    pub fn inverse(self, easting: f64, northing: f64) -> Wgs84 {
        let s = series();
        let north = if self.north { 0.0 } else { FALSE_NORTHING_SOUTH };
        let (xi, eta) = ((northing - north) / s.k0a, (easting - FALSE_EASTING) / s.k0a);
        let (mut xi1, mut eta1) = (xi, eta);
        for (j, b) in s.beta.iter().enumerate() {
            let k = 2.0 * (j + 1) as f64;
            xi1 -= b * (k * xi).sin() * (k * eta).cosh();
            eta1 -= b * (k * xi).cos() * (k * eta).sinh();
        }
        let chi = (xi1.sin() / eta1.cosh()).asin();
        let mut phi = chi;
        for (j, d) in s.delta.iter().enumerate() {
            phi += d * (2.0 * (j + 1) as f64 * chi).sin();
        }
        let lon = self.central_meridian_deg() + eta1.sinh().atan2(xi1.cos()).to_degrees();
        Wgs84 { lat: phi.to_degrees(), lon }
    }

    /// Grid convergence at a point, radians: how far grid north lies clockwise of true north.
    pub fn convergence(self, at: Wgs84) -> f64 {
        let dlambda = (at.lon - self.central_meridian_deg()).to_radians();
        (dlambda.tan() * at.lat.to_radians().sin()).atan()
    }

    /// A velocity on the grid (m/s along grid east and grid north) as true east/north.
    pub fn true_velocity(self, at: Wgs84, (ve, vn): (f64, f64)) -> (f64, f64) {
        let (s, c) = self.convergence(at).sin_cos();
        (ve * c + vn * s, -ve * s + vn * c)
    }
}

/// A local metric frame on a UTM grid: x, y are easting and northing less an origin's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocalGrid {
    pub utm: Utm,
    pub origin: (f64, f64),
}

impl LocalGrid {
    /// The frame the Lanelet2 `UtmProjector` gives for an origin point (INTERACTION's and
    /// SinD's maps: origin 0,0).
    pub fn projector(origin: Wgs84) -> LocalGrid {
        let utm = Utm::of(origin);
        LocalGrid { utm, origin: utm.forward(origin) }
    }

    pub fn to_wgs84(self, x: f64, y: f64) -> Wgs84 {
        self.utm.inverse(x + self.origin.0, y + self.origin.1)
    }

    pub fn to_local(self, at: Wgs84) -> (f64, f64) {
        let (e, n) = self.utm.forward(at);
        (e - self.origin.0, n - self.origin.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utm_of_known_points_and_back() {
        // lat/lon 0,0 in zone 31: 3° west of the central meridian on the equator.
        let utm = Utm::of(Wgs84 { lat: 0.0, lon: 0.0 });
        assert_eq!(utm, Utm { zone: 31, north: true });
        let (e, n) = utm.forward(Wgs84 { lat: 0.0, lon: 0.0 });
        assert!((e - 166_021.443).abs() < 0.01 && n.abs() < 1e-6, "{e} {n}");
        // Aachen (inD), zone 32; round trip within a millimetre.
        let aachen = Wgs84 { lat: 50.782, lon: 6.071 };
        let utm = Utm::of(aachen);
        assert_eq!(utm.zone, 32);
        let (e, n) = utm.forward(aachen);
        let back = utm.inverse(e, n);
        assert!((back.lat - aachen.lat).abs() < 1e-8 && (back.lon - aachen.lon).abs() < 1e-8, "{back:?}");
        // West of the central meridian in the north: grid north lies west of true north.
        assert!(utm.convergence(aachen) < -0.03);
        let grid = LocalGrid::projector(Wgs84 { lat: 0.0, lon: 0.0 });
        let p = grid.to_wgs84(1000.0, 980.0);
        let (x, y) = grid.to_local(p);
        assert!((x - 1000.0).abs() < 1e-3 && (y - 980.0).abs() < 1e-3, "{x} {y}");
    }

    #[test]
    fn the_lanelet2_utm_projector_at_0_0_agrees() {
        // Nodes of INTERACTION's DR_USA_Intersection_EP0 map (I_5_INTERACTION_USA.osm) and where
        // lanelet2 1.2.3's UtmProjector(Origin(0, 0)) puts them.
        let grid = LocalGrid::projector(Wgs84 { lat: 0.0, lon: 0.0 });
        for (lat, lon, x, y) in [
            (0.00884570148, 0.00927236958, 1033.2076494112844, 979.0582715795357),
            (0.00883886284, 0.00943508842, 1051.3390363019425, 978.3012123764496),
            (0.00888562738, 0.00862142546, 960.6744243077119, 983.4779303223285),
        ] {
            let (px, py) = grid.to_local(Wgs84 { lat, lon });
            assert!((px - x).abs() < 1e-3 && (py - y).abs() < 1e-3, "{px} {py} vs {x} {y}");
            let back = grid.to_wgs84(x, y);
            assert!((back.lat - lat).abs() < 1e-10 && (back.lon - lon).abs() < 1e-10, "{back:?}");
        }
    }
}

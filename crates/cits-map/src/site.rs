//! Where the roadside unit and its cameras stand at a junction: the calibrated RSU where there is
//! one (ours, station 1001), otherwise two cameras placed from the junction's geometry.

use cits::proto::LaneGraph;
use cits::shared::geo::{offset_to_wgs84, SensorPose, Wgs84};

use super::infer::angle_diff;
use super::junction::Junction;
use cits_client::demo::{CENTER, SENSORS, STATION_ID};

/// A junction this close to a calibrated RSU's reference position is that RSU's.
const CALIBRATED_WITHIN_M: f64 = 30.0;
/// Placed cameras stand this far outside the junction box, at least [`MIN_CAMERA_DISTANCE_M`]
/// from the centre (ours: about 26 m, 7 m beyond the connectors).
const CAMERA_BEYOND_BOX_M: f64 = 7.0;
const MIN_CAMERA_DISTANCE_M: f64 = 20.0;

#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    /// The RSU's reference position: the simulation's origin and the CPMs' reference.
    pub centre: Wgs84,
    pub station_id: u32,
    pub sensors: Vec<(u8, SensorPose)>,
    pub junction: Junction,
    /// Relative background arrivals per arm (index = arm − 1) for cars and for bicycles.
    pub car_arm_weights: Vec<f64>,
    pub bicycle_arm_weights: Vec<f64>,
}

impl Site {
    /// The site of the graph's junction nearest its origin (a cropped graph's origin is its
    /// junction's centre).
    pub fn of(graph: &LaneGraph) -> anyhow::Result<Site> {
        let origin = Wgs84 { lat: graph.origin_latitude, lon: graph.origin_longitude };
        let junction = super::junction::choose(graph, super::junction::Choice::Near(origin))?;
        let off = |a: Wgs84, b: Wgs84| {
            let (e, n) = cits::shared::geo::wgs84_to_offset(a, b);
            e.hypot(n)
        };
        let n = junction.arms.len();
        if off(CENTER, junction.centre) <= CALIBRATED_WITHIN_M && n == 4 {
            // Our RSU: its calibration, and its traffic — cars favour the east–west axis through
            // the viaduct, cyclists the north–south commute.
            return Ok(Site {
                centre: CENTER,
                station_id: STATION_ID,
                sensors: SENSORS.to_vec(),
                junction,
                car_arm_weights: vec![1.0, 1.5, 1.0, 1.5],
                bicycle_arm_weights: vec![1.5, 1.0, 1.5, 1.0],
            });
        }
        let sensors = placed_cameras(&junction);
        Ok(Site {
            centre: junction.centre,
            station_id: STATION_ID,
            sensors,
            junction,
            car_arm_weights: vec![1.0; n],
            bicycle_arm_weights: vec![1.0; n],
        })
    }
}

/// Two cameras on the two corners (between neighbouring arms) most nearly opposite each other,
/// looking at the centre.
fn placed_cameras(junction: &Junction) -> Vec<(u8, SensorPose)> {
    let arms = &junction.arms;
    let corners: Vec<f64> = (0..arms.len())
        .map(|i| {
            let (a, b) = (arms[i].bearing_deg, arms[(i + 1) % arms.len()].bearing_deg);
            (a + (b - a).rem_euclid(360.0) / 2.0).rem_euclid(360.0)
        })
        .collect();
    let mut best = (0, 1 % corners.len(), f64::INFINITY);
    for i in 0..corners.len() {
        for j in i + 1..corners.len() {
            let off = (180.0 - angle_diff(corners[i], corners[j]).abs()).abs();
            if off < best.2 {
                best = (i, j, off);
            }
        }
    }
    let distance = (junction.radius_m + CAMERA_BEYOND_BOX_M).max(MIN_CAMERA_DISTANCE_M);
    [corners[best.0], corners[best.1]]
        .iter()
        .enumerate()
        .map(|(k, &corner)| {
            let (s, c) = corner.to_radians().sin_cos();
            let origin = offset_to_wgs84(junction.centre, distance * s, distance * c);
            (k as u8 + 1, SensorPose { origin, x_axis_heading_deg: (corner + 180.0).rem_euclid(360.0) })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::junction::Arm;

    #[test]
    fn placed_cameras_face_each_other_across_a_t_junction() {
        let arm = |n: u8, b: f64| Arm { number: n, bearing_deg: b, name: String::new() };
        let tee = Junction {
            centre: Wgs84 { lat: 48.0, lon: 11.0 },
            arms: vec![arm(1, 0.0), arm(2, 90.0), arm(3, 270.0)],
            arm_of: Default::default(),
            connectors: vec![],
            radius_m: 15.0,
        };
        let cams = placed_cameras(&tee);
        assert_eq!(cams.len(), 2);
        // Corners at 45°, 180° and 315°: 45° and 180° (or 315° and 180°) are the most opposite.
        let headings: Vec<f64> = cams.iter().map(|c| c.1.x_axis_heading_deg).collect();
        assert!(headings.contains(&0.0), "{headings:?}");
        let (e, n) = cits::shared::geo::wgs84_to_offset(tee.centre, cams[1].1.origin);
        assert!((e.hypot(n) - 22.0).abs() < 0.01, "{e} {n}");
    }
}

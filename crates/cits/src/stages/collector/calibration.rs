//! Sensor calibration: where each camera of an RSU stands and which way it looks.
//!
//! Comes from wasi:config (the `collector` config of the wadm manifest), one entry per sensor:
//! `sensor.<station_id>.<sensor_id> = "<lat>,<lon>,<x_axis_heading_deg>"`.

use crate::config::{Key, Kind};
use crate::message::StageError;
use crate::shared::geo::{SensorPose, Wgs84};

const KEY_PREFIX: &str = "sensor.";

/// The collector's calibration keys.
pub const KEYS: &[Key] = &[Key {
    name: "sensor.<station>.<sensor>",
    kind: Kind::Text,
    default: "",
    doc: "`<lat>,<lon>,<x-axis heading ° from north>` of a camera: used for RSUs whose object frame is `sensor`",
}];

#[derive(Debug, Clone, PartialEq)]
pub struct SensorCalibration {
    pub station_id: u32,
    pub sensor_id: u32,
    pub pose: SensorPose,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Calibrations {
    sensors: Vec<SensorCalibration>,
}

impl Calibrations {
    pub fn new(sensors: Vec<SensorCalibration>) -> Self {
        Self { sensors }
    }

    /// Reads all `sensor.*` entries of a config; other keys are ignored. A malformed sensor entry
    /// is an error: silently dropping it would put every object of that camera in the wrong place.
    pub fn from_config<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, StageError> {
        let mut sensors = Vec::new();
        for (key, value) in entries {
            let Some(ids) = key.strip_prefix(KEY_PREFIX) else { continue };
            let bad = |why: &str| StageError::new(format!("invalid sensor calibration `{key}` = `{value}`: {why}"));
            let (station, sensor) =
                ids.split_once('.').ok_or_else(|| bad("key must be sensor.<station_id>.<sensor_id>"))?;
            let station_id = station.parse().map_err(|_| bad("station id is not an integer"))?;
            let sensor_id = sensor.parse().map_err(|_| bad("sensor id is not an integer"))?;
            let fields: Vec<f64> = value
                .split(',')
                .map(|f| f.trim().parse::<f64>())
                .collect::<Result<_, _>>()
                .map_err(|_| bad("value must be <lat>,<lon>,<x_axis_heading_deg>"))?;
            let [lat, lon, heading] = fields[..] else {
                return Err(bad("value must be <lat>,<lon>,<x_axis_heading_deg>"));
            };
            if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) || !heading.is_finite() {
                return Err(bad("coordinates out of range"));
            }
            sensors.push(SensorCalibration {
                station_id,
                sensor_id,
                pose: SensorPose { origin: Wgs84 { lat, lon }, x_axis_heading_deg: heading },
            });
        }
        Ok(Self { sensors })
    }

    pub fn pose(&self, station_id: u32, sensor_id: u32) -> Option<&SensorPose> {
        self.sensors.iter().find(|s| s.station_id == station_id && s.sensor_id == sensor_id).map(|s| &s.pose)
    }

    pub fn is_empty(&self) -> bool {
        self.sensors.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sensor_entries_and_ignores_others() {
        let c = Calibrations::from_config([
            ("sensor.1001.1", "47.8095, 13.0550, 45.5"),
            ("log_level", "debug"),
            ("sensor.1001.2", "47.8090,13.0560,225"),
        ])
        .unwrap();
        let p = c.pose(1001, 2).unwrap();
        assert_eq!(p.origin, Wgs84 { lat: 47.8090, lon: 13.0560 });
        assert_eq!(p.x_axis_heading_deg, 225.0);
        assert_eq!(c.pose(1001, 1).unwrap().x_axis_heading_deg, 45.5);
        assert!(c.pose(1002, 1).is_none());
    }

    #[test]
    fn malformed_entries_are_errors() {
        for (k, v) in [
            ("sensor.1001", "47.8,13.0,0"),
            ("sensor.x.1", "47.8,13.0,0"),
            ("sensor.1.1", "47.8,13.0"),
            ("sensor.1.1", "47.8,13.0,0,1"),
            ("sensor.1.1", "north,13.0,0"),
            ("sensor.1.1", "97.8,13.0,0"),
        ] {
            let err = Calibrations::from_config([(k, v)]).unwrap_err();
            assert!(err.reason.contains(k), "{err}");
        }
    }
}

//! In which frame an RSU gives its perceived objects' positions, velocities and angles.
//!
//! The standards fix it: TS 103 324 V2.1.1 (CPM-PerceivedObjectContainer) gives every object
//! east (x) and north (y) of the CPM's reference position, and TR 103 562 V2.1.1 does the same
//! for an RSU's objects (a vehicle's are in its body frame: `etsi_its::cpm::v1` turns those into
//! east/north when it reads them). That is [`ObjectFrame::Enu`], what every RSU is assumed to
//! send.
//!
//! The research RSU this project started from sends each object in the frame of the camera
//! that measured it instead (x along the camera's axis, from the camera's position). Its
//! recordings, and everything filmed by our simulator, need [`ObjectFrame::Sensor`]: each
//! object placed by its sensor's calibration (`sensor.<station>.<id>`, see
//! [`crate::stages::collector::calibration`]). Which RSU sends which is an explicit setting of the RSU registry
//! (`object_frame.<rsu>` in the named config `cits-rsus`; `cits rsu add --object-frame`).

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use crate::config::{Key, Kind};
use crate::message::StageError;

const KEY_PREFIX: &str = "object_frame.";

/// In the RSU registry ([`crate::stages::decoder::registry::KEYS`]).
pub const KEY: Key = Key {
    name: "object_frame.<rsu>",
    kind: Kind::Text,
    default: "enu",
    doc: "collector: `enu` or `sensor`, the frame RSU `<rsu>`'s CPMs give objects in ([inputs](inputs.md#where-a-cpms-objects-are-the-object-frame))",
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ObjectFrame {
    /// x east, y north of the CPM's reference position (TS 103 324, TR 103 562 for RSUs).
    #[default]
    Enu,
    /// x, y in the frame of the sensor that measured the object (the research RSU).
    Sensor,
}

impl ObjectFrame {
    pub const ALL: [ObjectFrame; 2] = [ObjectFrame::Enu, ObjectFrame::Sensor];

    /// The config value naming it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Enu => "enu",
            Self::Sensor => "sensor",
        }
    }

    /// One line for people: what the RSU's numbers mean.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Enu => "east/north of the CPM's reference position (TS 103 324, TR 103 562)",
            Self::Sensor => "in each sensor's own frame, placed by its calibration (the research RSU)",
        }
    }
}

impl fmt::Display for ObjectFrame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ObjectFrame {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|f| f.name() == s.trim()).ok_or_else(|| {
            format!("object frame must be `enu` (the standard's) or `sensor` (calibrated cameras), got `{s}`")
        })
    }
}

/// The object frame of each RSU; RSUs without an entry send the standard's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ObjectFrames {
    by_rsu: HashMap<String, ObjectFrame>,
    /// For RSUs without an entry.
    otherwise: ObjectFrame,
}

impl ObjectFrames {
    /// Every RSU in `frame` (the native evaluation of simulated recordings).
    pub fn everywhere(frame: ObjectFrame) -> Self {
        Self { by_rsu: HashMap::new(), otherwise: frame }
    }

    /// Reads the `object_frame.<rsu>` entries of `stage`'s config; other keys are left alone. A
    /// value that names no frame is an error: guessing would misplace every object of the RSU.
    pub fn from_config<'a>(
        stage: &'a str,
        entries: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, StageError> {
        let mut by_rsu = HashMap::new();
        for e in crate::config::entries(stage, entries) {
            let Some(rsu) = e.key.strip_prefix(KEY_PREFIX) else { continue };
            let frame = e
                .value
                .parse::<ObjectFrame>()
                .ok()
                .filter(|_| !rsu.is_empty())
                .ok_or_else(|| {
                    StageError::new(format!(
                        "{stage} config `{}` must be `enu` (the standard's frame) or `sensor` (calibrated cameras), got `{}`",
                        e.key, e.value
                    ))
                })?;
            by_rsu.insert(rsu.to_string(), frame);
        }
        Ok(Self { by_rsu, otherwise: ObjectFrame::default() })
    }

    pub fn of(&self, rsu: &str) -> ObjectFrame {
        self.by_rsu.get(rsu).copied().unwrap_or(self.otherwise)
    }

    /// The registry key of `rsu`'s frame.
    pub fn key(rsu: &str) -> String {
        format!("{KEY_PREFIX}{rsu}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rsus_without_an_entry_send_the_standards_frame() {
        let frames = ObjectFrames::from_config(
            "collector",
            [("object_frame.rsu1", "sensor"), ("object_frame.rsu2", " enu "), ("rsu.rsu1", "1001")],
        )
        .unwrap();
        assert_eq!(frames.of("rsu1"), ObjectFrame::Sensor);
        assert_eq!(frames.of("rsu2"), ObjectFrame::Enu);
        assert_eq!(frames.of("rsu3"), ObjectFrame::Enu);
        assert_eq!(ObjectFrames::everywhere(ObjectFrame::Sensor).of("rsu3"), ObjectFrame::Sensor);
        assert_eq!(ObjectFrames::key("rsu1"), "object_frame.rsu1");
    }

    #[test]
    fn a_frame_that_is_not_named_is_an_error() {
        for (k, v) in [("object_frame.rsu1", "camera"), ("object_frame.rsu1", ""), ("object_frame.", "enu")] {
            let err = ObjectFrames::from_config("collector", [(k, v)]).unwrap_err();
            assert!(err.reason.contains(&format!("`{k}`")) && err.reason.contains("`enu`"), "{err}");
        }
        assert_eq!("sensor".parse::<ObjectFrame>(), Ok(ObjectFrame::Sensor));
        assert!("ENU".parse::<ObjectFrame>().is_err());
    }
}

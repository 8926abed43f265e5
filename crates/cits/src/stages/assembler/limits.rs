//! What the assembler checks of its input, located objects (the collector checks its own output
//! with it: no conversion may have turned a position into NaN).

use crate::limits::{check_rsu, heading, position, seconds, Limits, MAX_MEASUREMENT_DELTA_US};
use crate::message::StageError;
use crate::proto::LocationsFrame;

impl Limits {
    /// Located objects: what the collector makes of a CPM (also its own output: no conversion
    /// may turn a position into NaN) and what the assembler merges into trajectories.
    pub fn check_locations(&self, frame: &LocationsFrame, subject: &str) -> Result<(), StageError> {
        check_rsu(&frame.rsu_id, subject)?;
        self.objects(frame.locations.len())?;
        for l in &frame.locations {
            let what = || format!("object {}/{}/{}", l.station_id, l.sensor_id, l.object_id);
            if l.station_id != frame.station_id {
                return Err(StageError::new(format!(
                    "station mismatch: {} in a frame of station {}",
                    what(),
                    frame.station_id
                )));
            }
            position(what, l.latitude, l.longitude)?;
            self.speed(what, l.speed_mps)?;
            heading(what, l.heading_deg)?;
            if l.measured_at_us.abs_diff(frame.reference_time_us) > MAX_MEASUREMENT_DELTA_US {
                return Err(StageError::new(format!(
                    "{}: measured {} s from the frame's reference time (limit {} s)",
                    what(),
                    seconds(l.measured_at_us.abs_diff(frame.reference_time_us)),
                    seconds(MAX_MEASUREMENT_DELTA_US)
                )));
            }
        }
        Ok(())
    }
}

//! What the decoder checks of a CPM before it goes on (the collector checks it again: in the
//! seven-actor deployment anything on the lattice may publish on its input).

use crate::limits::{round1, seconds, Limits};
use crate::message::StageError;
use crate::proto::Cpm;

impl Limits {
    /// A CPM's reference time against the wall clock when it was received.
    pub fn check_reference_time(&self, reference_time_us: u64, received_at_us: u64) -> Result<(), StageError> {
        if reference_time_us > received_at_us.saturating_add(self.max_future_us) {
            let ahead = reference_time_us - received_at_us;
            return Err(StageError::new(format!(
                "reference time {} s in the future (limit {} s)",
                seconds(ahead),
                seconds(self.max_future_us)
            )));
        }
        if reference_time_us.saturating_add(self.max_age_us) < received_at_us {
            let behind = received_at_us - reference_time_us;
            return Err(StageError::new(format!(
                "reference time {} s in the past (limit {} s)",
                seconds(behind),
                seconds(self.max_age_us)
            )));
        }
        Ok(())
    }

    /// A decoded CPM's objects: how many, how far from their sensor, how fast.
    pub fn check_cpm(&self, cpm: &Cpm) -> Result<(), StageError> {
        self.objects(cpm.objects.len())?;
        for o in &cpm.objects {
            let what = || format!("object {}", o.object_id);
            let range_m = crate::shared::geo::distance(f64::from(o.x_cm), f64::from(o.y_cm)) / 100.0;
            if range_m > self.max_sensor_range_m {
                return Err(StageError::new(format!(
                    "{}: {} m from the sensor (limit {} m)",
                    what(),
                    round1(range_m),
                    self.max_sensor_range_m
                )));
            }
            if let (Some(vx), Some(vy)) = (o.velocity_x_cm_s, o.velocity_y_cm_s) {
                self.speed(what, Some(crate::shared::geo::distance(f64::from(vx), f64::from(vy)) / 100.0))?;
            }
        }
        Ok(())
    }
}

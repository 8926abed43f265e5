//! What the collision detector checks of its input.

use crate::limits::{check_rsu, increasing, position, probability, Limits};
use crate::message::StageError;
use crate::proto::PredictedPathFrame;

impl Limits {
    /// Predicted paths, as the collision detector gets them.
    pub fn check_predicted(&self, frame: &PredictedPathFrame, subject: &str) -> Result<(), StageError> {
        check_rsu(&frame.rsu_id, subject)?;
        self.count("frame", "paths", frame.paths.len(), self.max_paths_per_frame)?;
        for p in &frame.paths {
            let what = || format!("path {}/{}/{} #{}", p.station_id, p.sensor_id, p.object_id, p.rank);
            self.count(&what(), "positions", p.positions.len(), self.max_positions_per_path)?;
            probability(what, p.probability)?;
            // The detector pairs two paths' positions by walking both in time order.
            increasing(what, p.positions.iter().map(|q| q.at_us))?;
            // Where it came from: as many points at most, and all before its first prediction.
            self.count(&what(), "past positions", p.past.len(), self.max_positions_per_path)?;
            increasing(what, p.past.iter().chain(p.positions.first()).map(|q| q.at_us))?;
            for q in p.past.iter().chain(&p.positions) {
                position(what, q.latitude, q.longitude)?;
            }
        }
        Ok(())
    }
}

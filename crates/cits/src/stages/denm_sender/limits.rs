//! What the DENM sender checks of its input.

use crate::limits::{check_rsu, position, probability, Limits};
use crate::message::StageError;
use crate::proto::CollisionRiskFrame;

impl Limits {
    /// Collision risks, as the DENM sender gets them.
    pub fn check_risks(&self, frame: &CollisionRiskFrame, subject: &str) -> Result<(), StageError> {
        check_rsu(&frame.rsu_id, subject)?;
        self.count("frame", "risks", frame.risks.len(), self.max_pairs_per_frame)?;
        for (i, r) in frame.risks.iter().enumerate() {
            let what = || format!("risk #{i}");
            if r.first.is_none() || r.second.is_none() {
                return Err(StageError::new(format!("{}: lacks one of its two road users", what())));
            }
            position(what, r.conflict_latitude, r.conflict_longitude)?;
            probability(what, r.probability)?;
            if !(r.time_to_collision_s.is_finite() && r.time_to_collision_s >= 0.0) {
                return Err(StageError::new(format!(
                    "{}: time to collision {} s is not a duration",
                    what(),
                    r.time_to_collision_s
                )));
            }
        }
        Ok(())
    }
}

//! What the predictor checks of its input.

use crate::limits::Limits;
use crate::message::StageError;
use crate::proto::MatchedTrajectoryFrame;

impl Limits {
    /// Trajectories snapped to lanes, as the predictor gets them.
    pub fn check_matched(&self, frame: &MatchedTrajectoryFrame, subject: &str) -> Result<(), StageError> {
        self.check_tracks(&frame.rsu_id, subject, &frame.trajectories)
    }
}

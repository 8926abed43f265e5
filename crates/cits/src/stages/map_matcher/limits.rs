//! What the map matcher checks of its input.

use crate::limits::Limits;
use crate::message::StageError;
use crate::proto::TrajectoryFrame;

impl Limits {
    /// Trajectories, as the map matcher gets them.
    pub fn check_trajectories(&self, frame: &TrajectoryFrame, subject: &str) -> Result<(), StageError> {
        self.check_tracks(&frame.rsu_id, subject, &frame.trajectories)
    }
}

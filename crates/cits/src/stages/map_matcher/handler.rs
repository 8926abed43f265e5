//! The map matcher as a pipeline stage: its input decoded and checked against the limits, its config read, its
//! domain logic called, its state read and written through [`Services`].

use super::{LaneIndex, MATCH_REACH_M};
use crate::config::Declared;
use crate::limits::Limits;
use crate::message::{Outbound, StageError};
use crate::pipeline::{entries, process_frame, FrameStage, Handler, Inbound, MapTiles, Services};
use crate::proto::{MatchedTrajectoryFrame, TrajectoryFrame};
use crate::subjects;

/// Reads only the map tile(s) the frame's trajectories are in, never the whole map.
pub struct MapMatcher;

impl Handler for MapMatcher {
    const INPUT_IS_FRAME: bool = true;
    const NAME: &'static str = super::STAGE;
    const CONFIG: Declared = &[crate::pipeline::tiles::KEYS, crate::limits::KEYS];

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        process_frame::<Self, V>(svc, msg)
    }
}

impl FrameStage for MapMatcher {
    type Input = TrajectoryFrame;
    type Output = MatchedTrajectoryFrame;

    fn next_frame<V: Services>(
        svc: &mut V,
        frame: &mut Self::Input,
        subject: &str,
    ) -> Result<Self::Output, StageError> {
        Limits::from_config(Self::NAME, entries(&svc.config()?))?.check_trajectories(frame, subject)?;
        let mut tiles = MapTiles::restore(svc, Self::NAME, LaneIndex::new, MATCH_REACH_M)?;
        let mut matched = Vec::with_capacity(frame.trajectories.len());
        for t in &frame.trajectories {
            let Some(last) = t.points.last() else { continue };
            matched.push(tiles.at(svc, last.latitude, last.longitude)?.match_trajectory(t));
        }
        tiles.keep(svc);
        Ok(MatchedTrajectoryFrame {
            rsu_id: frame.rsu_id.clone(),
            reference_time_us: frame.reference_time_us,
            trajectories: matched,
            frame_id: std::mem::take(&mut frame.frame_id),
            trace: std::mem::take(&mut frame.trace),
        })
    }

    fn subject(frame: &Self::Output) -> String {
        subjects::matched(&frame.rsu_id)
    }
}

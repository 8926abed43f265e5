//! The assembler as a pipeline stage: its input decoded and checked against the limits, its config read, its
//! domain logic called, its state read and written through [`Services`].

use prost::Message as _;

use super::{assemble_frame, state_keys, AssemblerConfig};
use crate::config::Declared;
use crate::limits::Limits;
use crate::message::{Outbound, StageError};
use crate::pipeline::{buckets, entries, process_frame, FrameStage, Handler, Inbound, Services};
use crate::proto::{LocationsFrame, TrajectoryFrame};
use crate::subjects;

/// Trajectories as binary protobuf in key-value, one key per object, a frame at a time; beside
/// them per RSU the CAM stations heard and their links to sensor tracks (see
/// [`super::association`]).
pub struct Assembler;

impl Handler for Assembler {
    const INPUT_IS_FRAME: bool = true;
    const STATEFUL: bool = true;
    const NAME: &'static str = super::STAGE;
    const CONFIG: Declared = &[super::KEYS, crate::limits::KEYS];

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        process_frame::<Self, V>(svc, msg)
    }

    /// Each located object's trajectory (bad input: none, it is refused unread).
    fn state_keys(body: &[u8]) -> Vec<(&'static str, String)> {
        LocationsFrame::decode(body).map_or_else(|_| Vec::new(), |frame| trajectory_keys(&frame))
    }
}

impl FrameStage for Assembler {
    type Input = LocationsFrame;
    type Output = TrajectoryFrame;

    fn next_frame<V: Services>(
        svc: &mut V,
        frame: &mut Self::Input,
        subject: &str,
    ) -> Result<Self::Output, StageError> {
        let config = svc.config()?;
        Limits::from_config(Self::NAME, entries(&config))?.check_locations(frame, subject)?;
        let cfg = AssemblerConfig::from_config(entries(&config))?;
        let keys = state_keys(frame);
        let stored = svc.get_many(buckets::TRAJECTORIES, &keys)?;
        // A copy: assembling may still refuse the frame, which then is dead-lettered whole.
        let (writes, out) = assemble_frame(frame.clone(), &keys, stored, &cfg)?;
        svc.set_many(buckets::TRAJECTORIES, writes)?;
        Ok(out)
    }

    fn subject(frame: &Self::Output) -> String {
        subjects::trajectories(&frame.rsu_id)
    }
}

/// The assembler's state for a frame: each located object's trajectory, the RSU's CAM roster and
/// links.
pub(crate) fn trajectory_keys(frame: &LocationsFrame) -> Vec<(&'static str, String)> {
    state_keys(frame).into_iter().map(|key| (buckets::TRAJECTORIES, key)).collect()
}

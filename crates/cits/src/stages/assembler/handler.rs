//! The assembler as a pipeline stage: its input decoded and checked against the limits, its config read, its
//! domain logic called, its state read and written through [`Services`].

use prost::Message as _;

use super::{assemble_frame, state_keys, AssemblerConfig};
use crate::config::Declared;
use crate::limits::Limits;
use crate::message::{decode_input, Outbound, StageError, Traced as _};
use crate::pipeline::{buckets, entries, Handler, Inbound, Services};
use crate::proto::LocationsFrame;
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
        let frame: LocationsFrame = decode_input(msg.body, "LocationsFrame")?;
        let config = svc.config()?;
        Limits::from_config(Self::NAME, entries(&config))?.check_locations(&frame, msg.subject)?;
        let cfg = AssemblerConfig::from_config(entries(&config))?;
        let keys = state_keys(&frame);
        let stored = svc.get_many(buckets::TRAJECTORIES, &keys)?;
        let (writes, out) = assemble_frame(frame, &keys, stored, &cfg)?;
        svc.set_many(buckets::TRAJECTORIES, writes)?;
        Ok(vec![Outbound {
            subject: subjects::trajectories(&out.rsu_id),
            body: out.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }

    /// Each located object's trajectory (bad input: none, it is refused unread).
    fn state_keys(body: &[u8]) -> Vec<(&'static str, String)> {
        LocationsFrame::decode(body).map_or_else(|_| Vec::new(), |frame| trajectory_keys(&frame))
    }
}

/// The assembler's state for a frame: each located object's trajectory, the RSU's CAM roster and
/// links.
pub(crate) fn trajectory_keys(frame: &LocationsFrame) -> Vec<(&'static str, String)> {
    state_keys(frame).into_iter().map(|key| (buckets::TRAJECTORIES, key)).collect()
}

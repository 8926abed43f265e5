//! The five stages between the decoder and the DENM sender as steps from one frame of the
//! pipeline to the next. A stage of its own (`Handler::process`: [`process_frame`]) decodes its
//! frame from the message and encodes the next; the fused chain ([`super::Fused`]) hands the
//! frames from step to step as values, so the broad ones (trajectories, matched trajectories,
//! predicted paths) are never encoded only to be decoded again.

use crate::message::{decode_input, Outbound, StageError, Traced};

use super::{Handler, Inbound, Services};

/// A stage whose input and output are frames of the pipeline.
pub trait FrameStage: Handler {
    type Input: prost::Message + Default;
    type Output: Traced;

    /// The next frame from `input`, which arrived on `subject`. A step may take parts of its
    /// input only after its last refusal that is not [`StageError::unavailable`]: the fused chain
    /// dead-letters the input as it is left after a refusal, as the stage's own stream would
    /// have kept it.
    fn next_frame<V: Services>(svc: &mut V, input: &mut Self::Input, subject: &str)
        -> Result<Self::Output, StageError>;

    /// Where the next frame goes (the next stage's input subject).
    fn subject(output: &Self::Output) -> String;
}

/// [`Handler::process`] of a [`FrameStage`]: its frame decoded from the message, the next one
/// stamped with the stage's trace entry and encoded.
pub fn process_frame<S: FrameStage, V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
    // Named as the dead letter names it: `not a protobuf LocationsFrame`.
    let name = std::any::type_name::<S::Input>().rsplit("::").next().unwrap_or_default();
    let mut input: S::Input = decode_input(msg.body, name)?;
    let output = S::next_frame(svc, &mut input, msg.subject)?;
    Ok(vec![Outbound { subject: S::subject(&output), body: output.stamp_and_encode(S::NAME, msg.received_at_us) }])
}

//! What a stage's messages carry: outgoing messages, their ids, the trace, dead letters, and
//! inputs and state decoded with a reason when they do not decode.

use crate::proto::{DeadLetter, StageTrace};

pub use crate::error::{StageError, UNAVAILABLE};

/// A message a stage publishes.
#[derive(Debug, Clone, PartialEq)]
pub struct Outbound {
    pub subject: String,
    pub body: Vec<u8>,
}

/// The dead letter for `payload` that `stage` could not process.
pub fn dead_letter(stage: &str, error: &StageError, source_subject: &str, payload: &[u8], now_us: u64) -> Outbound {
    let letter = DeadLetter {
        stage: stage.to_string(),
        reason: error.reason.clone(),
        source_subject: source_subject.to_string(),
        payload: payload.to_vec(),
        failed_at_us: now_us,
    };
    Outbound { subject: crate::subjects::dead_letter(stage), body: crate::shared::encode::encode(&letter) }
}

/// The id of the frame a CPM starts: a hash of its subject (the RSU) and its bytes. A resent CPM
/// (MQTT QoS 1 duplicate, JetStream redelivery) has the same id, so its outputs are recognised as
/// duplicates; distinct CPMs of one RSU differ at least in their reference time.
pub fn frame_id(subject: &str, payload: &[u8]) -> String {
    format!("{:016x}", fnv1a(&[subject.as_bytes(), &[0], payload]))
}

/// The id of one received input for its dead letters: the frame id and, when the message came
/// from a stream, its stream sequence. A redelivery has the same sequence, so JetStream keeps one
/// dead letter per input; an RSU sending the same bad bytes twice gets two, and both are counted.
pub fn input_id(subject: &str, payload: &[u8], stream_sequence: Option<u64>) -> String {
    match stream_sequence {
        Some(seq) => format!("{}@{seq}", frame_id(subject, payload)),
        None => frame_id(subject, payload),
    }
}

/// The message id of the dead letter for `payload` on `subject` (at `stream_sequence` of the
/// stage's input stream, if known) that `stage` gave up on: see [`input_id`].
pub fn dead_letter_id(stage: &str, subject: &str, payload: &[u8], stream_sequence: Option<u64>) -> String {
    format!("{}:{stage}:dlq", input_id(subject, payload, stream_sequence))
}

/// 64-bit FNV-1a: stable across builds and platforms (std's hasher promises neither).
pub(crate) fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in parts.iter().flat_map(|p| p.iter()) {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Appends this stage's trace entry. `sent_at_us` is taken right before encoding, the last
/// moment the stage can stamp its output.
pub fn push_trace(trace: &mut Vec<StageTrace>, stage: &str, received_at_us: u64, sent_at_us: u64) {
    trace.push(StageTrace { stage: stage.to_string(), received_at_us, sent_at_us });
}

/// A stage's stored key-value state, or the empty state when there is none or it cannot be
/// decoded (e.g. written by an older version): state that only carries recent context (the
/// detector's paths, the DENM sender's active warnings) is rebuilt by the next frames, which is
/// better than blocking every later frame of the RSU on one bad value.
pub fn decode_state_or_empty<M: prost::Message + Default>(bytes: Option<&[u8]>) -> M {
    bytes.and_then(|b| M::decode(b).ok()).unwrap_or_default()
}

/// Decodes a stage's protobuf input, naming the stage's expected type in the error.
pub fn decode_input<M: prost::Message + Default>(payload: &[u8], what: &str) -> Result<M, StageError> {
    M::decode(payload).map_err(|e| StageError::new(format!("not a protobuf {what}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message as _;

    #[test]
    fn stored_state_decodes_and_missing_or_corrupt_state_is_empty() {
        use crate::proto::ActiveWarnings;
        let state = ActiveWarnings { next_sequence: 7, ..Default::default() };
        let bytes = state.encode_to_vec();
        assert_eq!(decode_state_or_empty::<ActiveWarnings>(Some(&bytes)), state);
        assert_eq!(decode_state_or_empty::<ActiveWarnings>(None), ActiveWarnings::default());
        assert_eq!(decode_state_or_empty::<ActiveWarnings>(Some(&[0xff, 0xff, 0xff])), ActiveWarnings::default());
    }

    #[test]
    fn dead_letter_keeps_payload_and_reason() {
        let out = dead_letter("decoder", &StageError::new("truncated"), "cits.cpm.r1", &[1, 2, 3], 42);
        assert_eq!(out.subject, "cits.dlq.decoder");
        let letter = DeadLetter::decode(out.body.as_slice()).unwrap();
        assert_eq!(letter.reason, "truncated");
        assert_eq!(letter.payload, vec![1, 2, 3]);
        assert_eq!(letter.source_subject, "cits.cpm.r1");
        assert_eq!(letter.failed_at_us, 42);
    }

    #[test]
    fn frame_ids_name_subject_and_bytes() {
        let id = frame_id("cits.cpm.r1", &[1, 2, 3]);
        assert_eq!(id.len(), 16);
        assert_eq!(id, frame_id("cits.cpm.r1", &[1, 2, 3]));
        assert_ne!(id, frame_id("cits.cpm.r2", &[1, 2, 3]));
        assert_ne!(id, frame_id("cits.cpm.r1", &[1, 2, 4]));
        // The subject ends where the bytes begin.
        assert_ne!(frame_id("a", b"bc"), frame_id("ab", b"c"));
        // Known value: FNV-1a 64 of the empty input is its offset basis, of "\0" its first step.
        assert_eq!(frame_id("", &[]), format!("{:016x}", 0xaf63_bd4c_8601_b7dfu64));
    }

    #[test]
    fn a_dead_letter_id_tells_a_redelivery_from_the_same_bytes_sent_again() {
        let at = |seq| dead_letter_id("decoder", "cits.cpm.r1", b"junk", seq);
        assert_eq!(at(Some(7)), at(Some(7)), "redelivered: one dead letter");
        assert_ne!(at(Some(7)), at(Some(8)), "sent again: a dead letter each");
        assert_ne!(at(Some(7)), dead_letter_id("decoder", "cits.cpm.r1", b"junk!", Some(7)));
        assert_eq!(at(None), format!("{}:decoder:dlq", frame_id("cits.cpm.r1", b"junk")));
    }

    #[test]
    fn garbage_is_not_a_wrapper() {
        let err = decode_input::<crate::proto::CitsMessageWrapper>(&[0xff, 0xff, 0xff], "CitsMessageWrapper");
        assert!(err.unwrap_err().reason.contains("CitsMessageWrapper"));
    }
}

/// Stage messages that carry the per-stage trace.
pub trait Traced: prost::Message + Sized {
    fn trace_mut(&mut self) -> &mut Vec<StageTrace>;

    /// Stamps this stage's trace entry: it got the message at `received_at_us` and is done now.
    fn stamp(&mut self, stage: &str, received_at_us: u64) {
        push_trace(self.trace_mut(), stage, received_at_us, crate::shared::time::now_us());
    }

    /// Stamps this stage's trace entry and encodes the message.
    fn stamp_and_encode(mut self, stage: &str, received_at_us: u64) -> Vec<u8> {
        self.stamp(stage, received_at_us);
        crate::shared::encode::encode(&self)
    }
}

macro_rules! traced {
    ($($t:ty),*) => {$(
        impl Traced for $t {
            fn trace_mut(&mut self) -> &mut Vec<StageTrace> {
                &mut self.trace
            }
        }
    )*};
}

traced!(
    crate::proto::CitsMessageWrapper,
    crate::proto::LocationsFrame,
    crate::proto::TrajectoryFrame,
    crate::proto::MatchedTrajectoryFrame,
    crate::proto::PredictedPathFrame,
    crate::proto::CollisionRiskFrame,
    crate::proto::FrameDone
);

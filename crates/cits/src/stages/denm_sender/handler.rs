//! The DENM sender as a pipeline stage: its input decoded and checked against the limits, its config read, its
//! domain logic called, its state read and written through [`Services`].

use super::{encode, step, SenderConfig};
use crate::config::Declared;
use crate::limits::Limits;
use crate::message::{decode_input, decode_state_or_empty, Outbound, StageError, Traced as _};
use crate::pipeline::{buckets, entries, Handler, Inbound, Services};
use crate::proto::{ActiveWarnings, CollisionRiskFrame, FrameDone};
use crate::subjects;

/// Active warnings per RSU in key-value; DENMs as UPER on `cits.denm.<rsu>` (MQTT
/// `cits/denm/<rsu>`), and every frame ends with a `FrameDone` carrying its full trace.
pub struct DenmSender;

impl Handler for DenmSender {
    const INPUT_IS_FRAME: bool = true;
    const STATEFUL: bool = true;
    const NAME: &'static str = super::STAGE;
    const CONFIG: Declared = &[super::KEYS, crate::limits::KEYS];

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let frame: CollisionRiskFrame = decode_input(msg.body, "CollisionRiskFrame")?;
        let config = svc.config()?;
        Limits::from_config(Self::NAME, entries(&config))?.check_risks(&frame, msg.subject)?;
        let cfg = SenderConfig::from_config(&frame.rsu_id, entries(&config))?;
        let key = super::state_key(&frame.rsu_id);
        svc.prefetch(&[(buckets::WARNINGS, key.clone()), (buckets::SEQUENCES, key.clone())])?;
        let stored = svc.get_many(buckets::WARNINGS, std::slice::from_ref(&key))?;
        // Lost warnings only restart with new ActionIDs: the sequence is kept apart, without
        // expiry, so an ActionID is never given twice (warnings expire, the sequence does not).
        let mut state: ActiveWarnings = decode_state_or_empty(stored[0].as_deref());
        let sequence = svc.get_many(buckets::SEQUENCES, std::slice::from_ref(&key))?;
        state.next_sequence = super::decode_sequence(sequence[0].as_deref())?;
        let now = frame.reference_time_us;
        let denms = step(&mut state, &frame, now, &cfg);
        svc.set_many(buckets::WARNINGS, vec![(key.clone(), crate::shared::encode::encode(&state))])?;
        svc.set_many(buckets::SEQUENCES, vec![(key, super::encode_sequence(state.next_sequence))])?;
        let mut out = Vec::with_capacity(denms.len() + 1);
        for d in &denms {
            out.push(Outbound { subject: subjects::denm_outbox(&frame.rsu_id), body: encode(d, cfg.denm_version)? });
        }
        let done = FrameDone {
            rsu_id: frame.rsu_id,
            reference_time_us: now,
            risks: frame.risks.len() as u32,
            denms: denms.len() as u32,
            frame_id: frame.frame_id,
            trace: frame.trace,
        };
        out.push(Outbound {
            subject: subjects::done_outbox(&done.rsu_id),
            body: done.stamp_and_encode(Self::NAME, msg.received_at_us),
        });
        Ok(out)
    }
}

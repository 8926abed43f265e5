//! DENM sender actor: the Wasm shim around [`cits::denm_sender`]. Active warnings per RSU live in
//! key-value; DENMs go out as UPER on `cits.denm.<rsu>` (MQTT `cits/denm/<rsu>`), and every frame
//! ends with a `FrameDone` carrying its full trace on `cits.done.<rsu>`.

use cits::denm_sender::{encode, state_key, step, SenderConfig};
use cits::proto::{ActiveWarnings, CollisionRiskFrame, FrameDone};
use cits::stage::{decode_input, decode_state_or_empty, Traced as _};
use cits_actor::{kv, Config, Inbound, Outbound, Stage, StageError};
use prost::Message as _;

/// Key-value bucket of the active warnings.
const BUCKET: &str = "warnings";

struct DenmSender;

impl Stage for DenmSender {
    const NAME: &'static str = cits::denm_sender::STAGE;

    fn process(msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let frame: CollisionRiskFrame = decode_input(msg.body, "CollisionRiskFrame")?;
        let cfg = SenderConfig::from_config(&frame.rsu_id, Config::load()?.entries())?;
        let key = state_key(&frame.rsu_id);
        let stored = kv::get_many(BUCKET, std::slice::from_ref(&key))?;
        // Lost state only means warnings restart with new ActionIDs.
        let mut state: ActiveWarnings = decode_state_or_empty(stored[0].as_deref());
        let now = frame.reference_time_us;
        let denms = step(&mut state, &frame, now, &cfg);
        kv::set_many(BUCKET, vec![(key, state.encode_to_vec())])?;
        let mut out = Vec::with_capacity(denms.len() + 1);
        for d in &denms {
            out.push(Outbound { subject: cits::subjects::denm(&frame.rsu_id), body: encode(d)? });
        }
        let done = FrameDone {
            rsu_id: frame.rsu_id,
            reference_time_us: now,
            risks: frame.risks.len() as u32,
            denms: denms.len() as u32,
            trace: frame.trace,
        };
        out.push(Outbound {
            subject: cits::subjects::done(&done.rsu_id),
            body: done.stamp_and_encode(Self::NAME, msg.received_at_us),
        });
        Ok(out)
    }
}

cits_actor::export_stage!(DenmSender);

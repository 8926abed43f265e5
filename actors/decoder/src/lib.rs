//! Decoder actor: the Wasm shim around [`cits::decoder`].

use cits::stage::Traced as _;
use cits_actor::{Inbound, Outbound, Stage, StageError};

struct Decoder;

impl Stage for Decoder {
    const NAME: &'static str = cits::decoder::STAGE;

    fn process(msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let wrapper = cits::decoder::decode(msg.subject, msg.body, msg.received_at_us)?;
        let rsu = cits::subjects::rsu_of_cpm_subject(msg.subject)?;
        Ok(vec![Outbound {
            subject: cits::subjects::decoded(rsu),
            body: wrapper.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }
}

cits_actor::export_stage!(Decoder);

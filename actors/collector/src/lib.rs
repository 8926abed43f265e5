//! Collector actor: the Wasm shim around [`cits::collector`].

use cits::calibration::Calibrations;
use cits::proto::CitsMessageWrapper;
use cits::stage::{decode_input, Traced as _};
use cits_actor::{Inbound, Outbound, Stage, StageError};

struct Collector;

impl Stage for Collector {
    const NAME: &'static str = cits::collector::STAGE;

    fn process(msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let wrapper: CitsMessageWrapper = decode_input(msg.body, "CitsMessageWrapper")?;
        let calibrations = Calibrations::from_config(cits_actor::Config::load()?.entries())?;
        let frame = cits::collector::collect(&wrapper, &calibrations)?;
        Ok(vec![Outbound {
            subject: cits::subjects::locations(&frame.rsu_id),
            body: frame.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }
}

cits_actor::export_stage!(Collector);

//! The collector as a pipeline stage: its input decoded and checked against the limits, its config read, its
//! domain logic called, its state read and written through [`Services`].

use super::calibration::Calibrations;
use super::object_frame::ObjectFrames;
use crate::config::Declared;
use crate::limits::Limits;
use crate::message::{decode_input, Outbound, StageError, Traced as _};
use crate::pipeline::{entries, Handler, Inbound, Services};
use crate::proto::{cits_message_wrapper, CitsMessageWrapper};
use crate::subjects;

pub struct Collector;

impl Handler for Collector {
    const INPUT_IS_FRAME: bool = true;
    const NAME: &'static str = super::STAGE;
    const CONFIG: Declared = &[super::calibration::KEYS, crate::stages::decoder::registry::KEYS, crate::limits::KEYS];

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let wrapper: CitsMessageWrapper = decode_input(msg.body, "CitsMessageWrapper")?;
        let config = svc.config()?;
        let limits = Limits::from_config(Self::NAME, entries(&config))?;
        if let Some(cits_message_wrapper::Message::Cpm(cpm)) = &wrapper.message {
            limits.check_cpm(cpm)?;
        }
        let calibrations = Calibrations::from_config(entries(&config))?;
        let frames = ObjectFrames::from_config(Self::NAME, entries(&config))?;
        let frame = super::collect(&wrapper, &calibrations, &frames)?;
        // Checked as the next stage will (on this stage's input subject, which names the same
        // RSU): no conversion may have turned a position into NaN.
        limits.check_locations(&frame, msg.subject)?;
        Ok(vec![Outbound {
            subject: subjects::locations(&frame.rsu_id),
            body: frame.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }
}

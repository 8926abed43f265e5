//! The collector as a pipeline stage: its input decoded and checked against the limits, its config read, its
//! domain logic called, its state read and written through [`Services`].

use super::calibration::Calibrations;
use super::object_frame::ObjectFrames;
use crate::config::Declared;
use crate::limits::Limits;
use crate::message::{Outbound, StageError};
use crate::pipeline::{entries, process_frame, FrameStage, Handler, Inbound, Services};
use crate::proto::{cits_message_wrapper, CitsMessageWrapper, LocationsFrame};
use crate::subjects;

pub struct Collector;

impl Handler for Collector {
    const INPUT_IS_FRAME: bool = true;
    const NAME: &'static str = super::STAGE;
    const CONFIG: Declared = &[super::calibration::KEYS, crate::stages::decoder::registry::KEYS, crate::limits::KEYS];

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        process_frame::<Self, V>(svc, msg)
    }
}

impl FrameStage for Collector {
    type Input = CitsMessageWrapper;
    type Output = LocationsFrame;

    fn next_frame<V: Services>(
        svc: &mut V,
        wrapper: &mut Self::Input,
        subject: &str,
    ) -> Result<Self::Output, StageError> {
        let config = svc.config()?;
        let limits = Limits::from_config(Self::NAME, entries(&config))?;
        if let Some(cits_message_wrapper::Message::Cpm(cpm)) = &wrapper.message {
            limits.check_cpm(cpm)?;
        }
        let calibrations = Calibrations::from_config(entries(&config))?;
        let frames = ObjectFrames::from_config(Self::NAME, entries(&config))?;
        let frame = super::collect(wrapper, &calibrations, &frames)?;
        // Checked as the next stage will (on this stage's input subject, which names the same
        // RSU): no conversion may have turned a position into NaN.
        limits.check_locations(&frame, subject)?;
        Ok(frame)
    }

    fn subject(frame: &Self::Output) -> String {
        subjects::locations(&frame.rsu_id)
    }
}

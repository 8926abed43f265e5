//! The decoder as a pipeline stage: its input decoded and checked against the limits, its config read, its
//! domain logic called, its state read and written through [`Services`].

use super::registry::RsuRegistry;
use crate::config::Declared;
use crate::limits::Limits;
use crate::message::{Outbound, StageError, Traced as _};
use crate::pipeline::{entries, Handler, Inbound, Services};
use crate::proto::{cits_message_wrapper, CitsMessageWrapper};
use crate::subjects;

pub struct Decoder;

impl Handler for Decoder {
    const NAME: &'static str = super::STAGE;
    const CONFIG: Declared = &[super::registry::KEYS, crate::limits::KEYS];

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let (wrapper, subject) = Self::frame(svc, &msg)?;
        Ok(vec![Outbound { subject, body: wrapper.stamp_and_encode(Self::NAME, msg.received_at_us) }])
    }
}

impl Decoder {
    /// The message decoded and checked: the collector's frame, and the subject it goes out on.
    pub fn frame<V: Services>(svc: &mut V, msg: &Inbound<'_>) -> Result<(CitsMessageWrapper, String), StageError> {
        let (_, rsu) = subjects::ingest_of_subject(msg.subject)?;
        let config = svc.config()?;
        let registry = RsuRegistry::from_config(Self::NAME, entries(&config))?;
        // The topic alone tells: bytes of an RSU nobody registered never reach the UPER decoder.
        registry.check_rsu(rsu)?;
        let limits = Limits::from_config(Self::NAME, entries(&config))?;
        let wrapper = super::decode(msg.subject, msg.body, msg.received_at_us)?;
        match &wrapper.message {
            Some(cits_message_wrapper::Message::Cpm(cpm)) => {
                registry.check(rsu, cpm.station_id)?;
                limits.check_reference_time(cpm.reference_time_us, msg.received_at_us)?;
                limits.check_cpm(cpm)?;
            }
            // A CAM or VAM is any road user's: its station is not the RSU's to register.
            Some(cits_message_wrapper::Message::Awareness(report)) => {
                limits.check_reference_time(report.generated_at_us, msg.received_at_us)?;
            }
            None => return Err(StageError::new("decoded message is neither a CPM, a CAM nor a VAM")),
        }
        Ok((wrapper, subjects::decoded(rsu)))
    }
}

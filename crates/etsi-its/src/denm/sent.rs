//! The EN 302 637-3 V1.3.1 DENM as the pipeline sends it, for the encoder alone. The generated
//! `DENM` links the UPER encoder of every container the ASN.1 allows — location (traces),
//! à la carte (road works, stationary vehicle, impact reduction…), event history — about 100 kB
//! of a component, though we never fill them. These types have the generated ones' shape with
//! those optional fields typed `()`: always absent, they encode as their presence bit 0, and
//! the octets are those of [`super::encode`] (tested in tests/denm.rs against it).

use rasn::prelude::*;

use super::{CauseCode, Denm, InformationQuality, ItsPduHeader, ManagementContainer, SimpleDenm};

#[derive(AsnType, Encode)]
#[rasn(automatic_tags)]
pub(super) struct DenmAsSent {
    header: ItsPduHeader,
    denm: PayloadAsSent,
}

/// `DecentralizedEnvironmentalNotificationMessage` (not extensible).
#[derive(AsnType, Encode)]
#[rasn(automatic_tags)]
struct PayloadAsSent {
    management: ManagementContainer,
    situation: Option<SituationAsSent>,
    location: Option<()>,
    alacarte: Option<()>,
}

/// `SituationContainer` (extensible, as the generated one: `non_exhaustive`).
#[derive(AsnType, Encode)]
#[rasn(automatic_tags)]
#[non_exhaustive]
struct SituationAsSent {
    information_quality: InformationQuality,
    event_type: CauseCode,
    linked_cause: Option<CauseCode>,
    event_history: Option<()>,
}

impl DenmAsSent {
    /// `simple` as [`SimpleDenm::to_denm`] builds it: header, management and situation; the
    /// containers left out here it never fills.
    pub(super) fn of(simple: &SimpleDenm) -> Self {
        let Denm { header, denm } = simple.to_denm();
        debug_assert!(denm.location.is_none() && denm.alacarte.is_none());
        let situation = denm.situation.map(|s| {
            debug_assert!(s.event_history.is_none());
            SituationAsSent {
                information_quality: s.information_quality,
                event_type: s.event_type,
                linked_cause: s.linked_cause,
                event_history: None,
            }
        });
        Self { header, denm: PayloadAsSent { management: denm.management, situation, location: None, alacarte: None } }
    }
}

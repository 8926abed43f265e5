//! The two UPER encodings of a TS 103 324 V2.1.1 CPM's container list met in the field.
//!
//! `cpmContainers` is `ConstraintWrappedCpmContainers`: `WrappedCpmContainers` (`SEQUENCE
//! SIZE(1..8,...) OF`) with a serially applied, non-extensible constraint. Read as X.680 says
//! (the last constraint's extensibility counts) the list has no extension bit: what Vanetza, ika's
//! asn1c codec and we write (tools/patches/c-its-parser.sh, change 3). asn1tools on ETSI's
//! unmodified ASN.1 and ms-van3t's asn1c code keep the parent's `...` and write the bit before the
//! count. The two differ by that one bit, so every later bit of the PDU shifts: a CPM in the other
//! form does not decode (or leaves trailing bytes) as the one we expect.
//!
//! We read both ([`decode_with_list`]) and write the root form only ([`super::encode`]).

use rasn::prelude::*;

use super::{CollectivePerceptionMessage, CpmPayload, ItsPduHeader, ManagementContainer, WrappedCpmContainers};
use crate::CodecError;

/// How a CPM's container list was encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContainerList {
    /// Without extension bit (`SIZE(1..8)`): ours, Vanetza's, ika's.
    Root,
    /// With the extension bit of `SIZE(1..8,...)`: asn1tools on the unmodified ASN.1, ms-van3t.
    WithExtensionBit,
}

impl ContainerList {
    /// How a format label names it; `None` for the root form, the one labels assume.
    pub fn label(self) -> Option<&'static str> {
        match self {
            Self::Root => None,
            Self::WithExtensionBit => Some("container list with extension bit"),
        }
    }
}

/// The CPM as the senders that keep the extension bit encode it: c-its-parser's header and
/// management container, the list as the extensible `WrappedCpmContainers`.
#[derive(AsnType, Decode, Encode)]
#[rasn(automatic_tags)]
struct CpmWithExtensibleList {
    header: ItsPduHeader,
    payload: PayloadWithExtensibleList,
}

/// `CpmPayload` (extensible, as c-its-parser's) with the extensible list.
#[derive(AsnType, Decode, Encode)]
#[rasn(automatic_tags)]
#[non_exhaustive]
struct PayloadWithExtensibleList {
    management_container: ManagementContainer,
    cpm_containers: WrappedCpmContainers,
}

/// Decodes a UPER CPM in either form and says which. The root form is tried first and wins when
/// both decode to the end of the buffer: it is what the ASN.1 means (see the module), and a
/// CPM that fits both exactly would need its shifted bits to form a valid PDU by chance. Only
/// when the root form fails or leaves bytes over is the extensible one tried; when both fail, the
/// error is the root form's.
pub fn decode_with_list(bytes: &[u8]) -> Result<(CollectivePerceptionMessage, ContainerList), CodecError> {
    let root_error = match crate::uper_decode_exact::<CollectivePerceptionMessage>(bytes, "CPM") {
        Ok(cpm) => return Ok((cpm, ContainerList::Root)),
        Err(e) => e,
    };
    match crate::uper_decode_exact::<CpmWithExtensibleList>(bytes, "CPM") {
        Ok(cpm) => Ok((
            CollectivePerceptionMessage {
                header: cpm.header,
                payload: CpmPayload::new(
                    cpm.payload.management_container,
                    super::ConstraintWrappedCpmContainers(cpm.payload.cpm_containers.0),
                ),
            },
            ContainerList::WithExtensionBit,
        )),
        // The root form's error: the form we expect says best what is wrong.
        Err(_) => Err(root_error),
    }
}

/// Encodes `cpm` with the extension bit before its container list (the form we read but do not
/// send): for tests and for converting our CPMs into what such senders emit.
pub fn encode_with_extension_bit(cpm: &CollectivePerceptionMessage) -> Result<Vec<u8>, CodecError> {
    let value = CpmWithExtensibleList {
        header: cpm.header.clone(),
        payload: PayloadWithExtensibleList {
            management_container: cpm.payload.management_container.clone(),
            cpm_containers: WrappedCpmContainers(cpm.payload.cpm_containers.0.clone()),
        },
    };
    crate::uper_encode(&value, "CPM")
}

//! Which codecs this build carries. Each optional one is a Cargo feature of this crate (`cpm-v1`,
//! `cam`, `vam`, `denm-v2`, `xer`; Cargo.toml), chosen per component:
//! the generated UPER and XER code of a message is most of a component's size, so a decoder
//! whose RSUs send no XER need not carry an XML reader. A message whose codec is left out is
//! refused with a [`CodecError`] that names the feature (the decoder dead-letters it).
//!
//! Always built: the TS 103 324 CPM and the EN 302 637-3 V1.3.1 DENM in UPER, GeoNetworking +
//! BTP framing (a few kB).

use crate::CodecError;

/// The error for `what` (a message, or "XER") when its codec `feature` is not built in.
pub(crate) fn not_built(what: &str, feature: &str) -> CodecError {
    CodecError::new(format!(
        "{what}: this component is built without the `{feature}` codec (`make actors CODECS={feature}` adds it)"
    ))
}

//! Which codecs this build carries. Each is a Cargo feature of this crate, chosen per component:
//! the generated UPER and XER code of a message is most of a component's size, so a decoder
//! whose RSUs send no XER need not carry an XML reader. A message whose codec is left out is
//! refused with a [`CodecError`] that names the feature (the decoder dead-letters it).
//!
//! Always built: the TS 103 324 CPM and the EN 302 637-3 V1.3.1 DENM in UPER, GeoNetworking +
//! BTP framing (a few kB).

use crate::CodecError;

/// One optional codec: its Cargo feature, whether this build has it, what it reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Codec {
    pub feature: &'static str,
    pub built: bool,
    pub doc: &'static str,
}

/// Every optional codec, in the order `make actors CODECS=…` documents them.
pub const ALL: [Codec; 5] = [
    Codec { feature: "cpm-v1", built: cfg!(feature = "cpm-v1"), doc: "TR 103 562 CPM (Release 1), UPER" },
    Codec { feature: "cam", built: cfg!(feature = "cam"), doc: "EN 302 637-2 V1.4.1 CAM, UPER" },
    Codec {
        feature: "vam",
        built: cfg!(feature = "vam"),
        doc: "TS 103 300-3 VAM, V2.1.1 and V2.2.1 (protocol versions 2 and 3), UPER",
    },
    Codec { feature: "denm-v2", built: cfg!(feature = "denm-v2"), doc: "TS 103 831 V2.2.1 DENM, UPER" },
    Codec { feature: "xer", built: cfg!(feature = "xer"), doc: "XER (ASN.1 XML) of every message built in" },
];

/// The features of the optional codecs this build has, e.g. `["cpm-v1", "cam", "vam"]`.
pub fn built() -> Vec<&'static str> {
    ALL.iter().filter(|c| c.built).map(|c| c.feature).collect()
}

/// The error for `what` (a message, or "XER") when its codec `feature` is not built in.
pub(crate) fn not_built(what: &str, feature: &str) -> CodecError {
    CodecError::new(format!(
        "{what}: this component is built without the `{feature}` codec (`make actors CODECS={feature}` adds it)"
    ))
}

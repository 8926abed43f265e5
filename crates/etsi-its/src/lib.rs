//! ETSI C-ITS messages for the pipeline, on the types and codecs that c-its-parser generates
//! (rasn-compiler) from ETSI's ASN.1, with our plain-Rust views of them.
//!
//! * [`cpm`]: Collective Perception Message, TS 103 324 V2.1.1 (Release 2), and the TR 103 562
//!   CPM of Release 1 ([`cpm::v1`]), both read into [`cpm::SimpleCpm`].
//! * [`denm`]: Decentralized Environmental Notification Message, EN 302 637-3 V1.3.1, with
//!   [`denm::SimpleDenm`].
//! * [`cam`]: Cooperative Awareness Message, EN 302 637-2 V1.4.1, with [`cam::SimpleCam`].
//! * [`vam`]: VRU Awareness Message, TS 103 300-3 V2.1.1, with [`vam::SimpleVam`]; its codec is
//!   generated here (rasn-compiler, from the ASN.1 pycrate compiled), not taken from c-its-parser.
//! * [`gn`]: GeoNetworking + BTP framing of these messages.
//! * [`format`]: which of these encodings a received buffer is, and decoding it.
//!
//! UPER is the encoding on the air; XER (the ASN.1 XML encoding) is what some RSUs log and
//! forward. Free of threads, files and sockets, so it builds for `wasm32-wasip2` components as
//! well as natively.

#![forbid(unsafe_code)]

pub mod cam;
mod checks;
pub mod codecs;
pub mod cpm;
pub mod denm;
pub mod format;
pub mod gn;
pub mod vam;

use core::fmt;

/// The generated ASN.1 modules, for values beyond what the simple views carry.
pub use c_its_parser::standards as asn1;

/// Why a message could not be encoded, decoded or interpreted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodecError {
    message: String,
}

impl CodecError {
    pub fn new(message: impl Into<String>) -> Self {
        Self { message: message.into() }
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error with `context: ` in front.
    pub(crate) fn context(self, context: &str) -> Self {
        Self::new(format!("{context}: {}", self.message))
    }
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CodecError {}

/// Decodes one complete UPER value; bytes after its final octet are an error,
/// because a PDU (or an open-type container) must fill its buffer exactly.
pub(crate) fn uper_decode_exact<T: rasn::Decode>(bytes: &[u8], what: &str) -> Result<T, CodecError> {
    if bytes.is_empty() {
        return Err(CodecError::new(format!("{what}: empty input")));
    }
    let (value, rest) = rasn::uper::decode_with_remainder::<T>(bytes)
        .map_err(|e| CodecError::new(format!("{what}: UPER decode: {e}")))?;
    if !rest.is_empty() {
        return Err(CodecError::new(format!("{what}: {} trailing byte(s) after the encoding", rest.len())));
    }
    Ok(value)
}

pub(crate) fn uper_encode<T: rasn::Encode>(value: &T, what: &str) -> Result<Vec<u8>, CodecError> {
    rasn::uper::encode(value).map_err(|e| CodecError::new(format!("{what}: UPER encode: {e}")))
}

/// Decodes an XER document (UTF-8, one PDU; an XML declaration may precede it). rasn's XER
/// decoder does not check value constraints (found by fuzzing: a 1..127 field read as 154), so
/// the value is checked by encoding it in UPER, which does: XER is refused where UPER would be.
pub(crate) fn xer_decode<T: rasn::Decode + rasn::Encode>(bytes: &[u8], what: &str) -> Result<T, CodecError> {
    if !cfg!(feature = "xer") {
        return Err(codecs::not_built(what, "xer"));
    }
    if bytes.is_empty() {
        return Err(CodecError::new(format!("{what}: empty input")));
    }
    let value = rasn::xer::decode::<T>(bytes).map_err(|e| CodecError::new(format!("{what}: XER decode: {e}")))?;
    rasn::uper::encode(&value)
        .map_err(|e| CodecError::new(format!("{what}: XER decode: a value out of its range: {e}")))?;
    Ok(value)
}

pub(crate) fn xer_encode<T: rasn::Encode>(value: &T, what: &str) -> Result<Vec<u8>, CodecError> {
    if !cfg!(feature = "xer") {
        return Err(codecs::not_built(what, "xer"));
    }
    rasn::xer::encode(value).map_err(|e| CodecError::new(format!("{what}: XER encode: {e}")))
}

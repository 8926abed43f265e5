//! ETSI C-ITS message codecs in unaligned PER (UPER), built on `rasn`.
//!
//! * [`cpm`]: Collective Perception Message, ETSI TS 103 324 V2.1.1 (Release 2),
//!   with a plain-Rust view ([`cpm::SimpleCpm`]) for the pipeline.
//! * [`cdd`]: the Common Data Dictionary types it uses (TS 102 894-2 V2.1.1).
//! * [`denm`]: Decentralized Environmental Notification Message, ETSI EN 302
//!   637-3 V1.3.1, with a plain-Rust view ([`denm::SimpleDenm`]).
//! * [`its_container_v1`]: the Release 1 `ITS-Container` (OID version 2) types
//!   the DENM imports; those identical on the wire are re-exported from [`cdd`].
//!
//! Free of threads, files and sockets, so it builds for `wasm32-wasip2`
//! components as well as natively.

#![forbid(unsafe_code)]

#[macro_use]
mod macros;

pub mod cdd;
mod checks;
pub mod cpm;
pub mod denm;
pub mod its_container_v1;

use core::fmt;

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
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CodecError {}

impl From<rasn::error::DecodeError> for CodecError {
    fn from(e: rasn::error::DecodeError) -> Self {
        Self::new(format!("UPER decode: {e}"))
    }
}

impl From<rasn::error::EncodeError> for CodecError {
    fn from(e: rasn::error::EncodeError) -> Self {
        Self::new(format!("UPER encode: {e}"))
    }
}

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

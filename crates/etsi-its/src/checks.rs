//! The checks [`crate::cpm::SimpleCpm::from_cpm`] and
//! [`crate::denm::SimpleDenm::from_denm`] share: the `ItsPduHeader` announces
//! the expected message and protocol version, and the reference position is
//! available.

use crate::cdd::{ItsPduHeader, MessageId, ReferencePosition};
use crate::CodecError;

/// What the header of one kind of message must carry, and the names the
/// error texts use for it.
pub(crate) struct ExpectedHeader {
    /// Short name of the message, e.g. `DENM`.
    pub message: &'static str,
    /// The message id component as its ASN.1 module spells it (`messageID`
    /// in Release 1, `messageId` in Release 2).
    pub message_id_field: &'static str,
    pub message_id: MessageId,
    pub protocol_version: u8,
    /// The standard that defines `protocol_version`, e.g. `TS 103 324 V2.1.1`.
    pub standard: &'static str,
}

impl ExpectedHeader {
    pub(crate) fn check(&self, header: &ItsPduHeader) -> Result<(), CodecError> {
        let Self { message, message_id_field, message_id, protocol_version, standard } = self;
        if header.message_id != *message_id {
            return Err(CodecError::new(format!(
                "not a {message}: {message_id_field} {} (expected {})",
                header.message_id.0, message_id.0
            )));
        }
        if header.protocol_version.0 != *protocol_version {
            return Err(CodecError::new(format!(
                "unsupported {message} protocolVersion {} (expected {protocol_version}, {standard})",
                header.protocol_version.0
            )));
        }
        Ok(())
    }
}

/// Errors with "`what` unavailable" when latitude or longitude is unavailable.
pub(crate) fn require_available(position: &ReferencePosition, what: &str) -> Result<(), CodecError> {
    if position.is_available() {
        Ok(())
    } else {
        Err(CodecError::new(format!("{what} unavailable")))
    }
}

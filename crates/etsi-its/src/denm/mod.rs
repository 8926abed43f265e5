//! Decentralized Environmental Notification Message, ETSI EN 302 637-3 V1.3.1.
//!
//! The types are c-its-parser's, generated from the module `DENM-PDU-Descriptions` {itu-t (0)
//! identified-organization (4) etsi (0) itsDomain (5) wg1 (1) en (302637) denm (1) version (2)}
//! and the Release 1 `ITS-Container` (V1.3.1) it imports, all re-exported here; [`Denm`] is the
//! PDU. [`decode`] / [`encode`] handle the whole PDU; [`SimpleDenm`] is the flat view the pipeline
//! works with.
//!
//! `validityDuration ValidityDuration DEFAULT defaultValidity` uses rasn's DEFAULT support: the
//! encoder omits it (presence bit 0) when it equals 600 s, as the canonical PER encoding
//! requires, and the decoder fills in 600 when absent.

pub mod fixtures;
mod sent;
mod simple;
pub mod v2;

pub use c_its_parser::standards::cdd_1_3_1_1::its_container::*;
pub use c_its_parser::standards::denm_1_3_1::denm_pdu_descriptions::*;
pub use simple::{RelevanceDistance, SimpleDenm, Termination};
pub use v2::DenmVersion;

use crate::CodecError;

/// The DENM PDU.
pub type Denm = DENM;

/// `protocolVersion` of an EN 302 637-3 V1.3.1 DENM. Release 2 DENMs (TS 103 831) carry 2 as
/// well, so the header alone does not tell the two apart; V1.2.x DENMs (protocolVersion 1) use
/// the older, wire-incompatible ITS-Container and are rejected by [`SimpleDenm::from_denm`].
pub const PROTOCOL_VERSION: u8 = 2;

/// `messageID` of a DENM (`denm(1)`).
pub const MESSAGE_ID: u8 = 1;

/// `defaultValidity INTEGER ::= 600` (seconds).
pub const DEFAULT_VALIDITY_S: u32 = 600;

/// Codes of the ITS-Container the pipeline's DENMs use.
pub mod codes {
    /// `StationType` roadSideUnit.
    pub const ROAD_SIDE_UNIT: u8 = 15;
    /// `StationType` passengerCar.
    pub const PASSENGER_CAR: u8 = 5;
    /// `CauseCodeType` collisionRisk.
    pub const COLLISION_RISK: u8 = 97;
    /// `CollisionRiskSubCauseCode` values.
    pub const COLLISION_RISK_UNAVAILABLE: u8 = 0;
    pub const LONGITUDINAL_COLLISION_RISK: u8 = 1;
    pub const CROSSING_COLLISION_RISK: u8 = 2;
    pub const LATERAL_COLLISION_RISK: u8 = 3;
    pub const VULNERABLE_ROAD_USER: u8 = 4;
}

crate::checks::pdu_codec!(Denm, "DENM");

/// Encodes `simple` as the pipeline sends it: the same octets as `encode(&simple.to_denm())`,
/// through an encoder without the containers [`SimpleDenm`] never fills (see `sent`).
pub fn encode_sent(simple: &SimpleDenm) -> Result<Vec<u8>, CodecError> {
    crate::uper_encode(&sent::DenmAsSent::of(simple), "DENM")
}

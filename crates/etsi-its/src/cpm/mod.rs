//! Collective Perception Message, ETSI TS 103 324 V2.1.1 (Release 2), and the Release 1 CPM of
//! TR 103 562 ([`v1`]).
//!
//! The types are c-its-parser's, generated from the modules `CPM-PDU-Descriptions`,
//! `CPM-OriginatingStationContainers`, `CPM-SensorInformationContainer`,
//! `CPM-PerceptionRegionContainer` and `CPM-PerceivedObjectContainer` and the CDD they import
//! (all re-exported here). [`decode`] / [`encode`] handle the whole PDU; the containers inside
//! travel as open types ([`WrappedCpmContainer`]) and are unpacked with
//! [`CpmContainer::from_wrapped`]. [`SimpleCpm`] is the flat view the pipeline works with.

mod container;
mod container_list;
pub mod fixtures;
mod simple;
pub mod v1;

pub use c_its_parser::standards::cdd_2_2_1::etsi_its_cdd::*;
pub use c_its_parser::standards::cpm_2_1_1::cpm_originating_station_containers::*;
pub use c_its_parser::standards::cpm_2_1_1::cpm_pdu_descriptions::*;
pub use c_its_parser::standards::cpm_2_1_1::cpm_perceived_object_container::*;
pub use c_its_parser::standards::cpm_2_1_1::cpm_perception_region_container::*;
pub use c_its_parser::standards::cpm_2_1_1::cpm_sensor_information_container::*;
pub use container::CpmContainer;
pub use container_list::{decode_with_list, encode_with_extension_bit, ContainerList};
pub use simple::{new_perceived_object, ObjectKind, SimpleCpm, SimpleObject};

use crate::CodecError;

/// `protocolVersion` a TS 103 324 V2.1.1 CPM carries (`ItsPduHeader (WITH COMPONENTS {...,
/// protocolVersion (2), messageId(cpm)})`).
pub const PROTOCOL_VERSION: u8 = 2;

/// `messageId` of a CPM (`cpm(14)`), in both releases.
pub const MESSAGE_ID: u8 = 14;

/// Largest `TimestampIts` (ms since 2004-01-01T00:00:00Z, 42 bits).
pub const TIMESTAMP_ITS_MAX: u64 = crate::checks::TIMESTAMP_ITS_MAX;

/// Decodes a UPER `CollectivePerceptionMessage`, its container list with or without extension
/// bit ([`decode_with_list`] says which). Structural only: the header values and the container
/// contents are checked by [`SimpleCpm::from_cpm`] / [`CpmContainer::from_wrapped`].
pub fn decode(bytes: &[u8]) -> Result<CollectivePerceptionMessage, CodecError> {
    decode_with_list(bytes).map(|(cpm, _)| cpm)
}

/// Encodes a `CollectivePerceptionMessage` in UPER, the container list without extension bit
/// ([`ContainerList::Root`]). Fails when a value breaks a constraint of the
/// ASN.1 (rasn checks them while encoding).
pub fn encode(msg: &CollectivePerceptionMessage) -> Result<Vec<u8>, CodecError> {
    crate::uper_encode(msg, "CPM")
}

/// Decodes an XER `CollectivePerceptionMessage` (each container the XML element of its type, as
/// X.693 encodes an open type) into the form [`decode`] returns: containers as their UPER
/// encoding. Errors for container ids this version does not know.
pub fn decode_xer(xml: &[u8]) -> Result<CollectivePerceptionMessage, CodecError> {
    container::decode_xer(xml)
}

/// Encodes a `CollectivePerceptionMessage` in XER, its containers as their XML elements.
pub fn encode_xer(msg: &CollectivePerceptionMessage) -> Result<Vec<u8>, CodecError> {
    container::encode_xer(msg)
}

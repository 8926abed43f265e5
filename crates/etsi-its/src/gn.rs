//! GeoNetworking (EN 302 636-4-1) + Basic Transport Protocol (EN 302 636-5-1) framing, as RSUs
//! send the facilities messages over the air and often forward them: c-its-parser's (and its
//! `geonetworking` crate's) header codecs, with the unwrapping and wrapping the pipeline needs.
//!
//! Secured packets (TS 103 097: an IEEE 1609.2 signed payload) are refused until a trust anchor
//! can be configured: their content must not pass as verified without checking the signature.

pub use c_its_parser::gn::en302636_4_1 as headers;
pub use c_its_parser::gn::Packet;
pub use c_its_parser::transport::{BasicTransportBHeader, TransportHeader};

use c_its_parser::gn::{Encode as _, UnsecuredHeader};
use headers::{
    Address, AreaType, BasicHeader, BroadcastType, CommonHeader, ExtendedHeader, GeoBroadcast, HeaderType, Lifetime,
    LongPositionVector, NextAfterBasic, NextAfterCommon, SingleHopBroadcast, StationType, Timestamp, TrafficClass,
};

use crate::CodecError;

/// BTP-B destination port of the CPM (TS 103 248).
pub const PORT_CPM: u16 = 2009;
/// BTP-B destination port of the CAM.
pub const PORT_CAM: u16 = 2001;
/// BTP-B destination port of the DENM.
pub const PORT_DENM: u16 = 2002;
/// BTP-B destination port of the VAM (TS 103 248).
pub const PORT_VAM: u16 = 2018;

/// GeoNetworking protocol version of EN 302 636-4-1 V1.3.1 and later.
const GN_VERSION: u8 = 1;

/// A GeoNetworking + BTP packet taken apart.
#[derive(Debug, Clone, PartialEq)]
pub struct Unwrapped<'a> {
    pub packet: Packet<'a>,
    pub transport: TransportHeader,
    /// The facilities-layer message (UPER).
    pub payload: &'a [u8],
}

impl Unwrapped<'_> {
    /// BTP destination port (BTP-A or -B); `None` over IPv6.
    pub fn destination_port(&self) -> Option<u16> {
        match &self.transport {
            TransportHeader::BtpA(a) => Some(a.destination_port),
            TransportHeader::BtpB(b) => Some(b.destination_port),
            TransportHeader::IPv6(_) => None,
        }
    }
}

/// Whether the GeoNetworking basic header announces a secured packet (next header 2).
pub fn is_secured(bytes: &[u8]) -> bool {
    bytes.first().is_some_and(|b| b & 0x0f == NextAfterBasic::SecuredPacket as u8)
}

/// Takes the GeoNetworking and BTP headers off a packet. Errors for secured packets (see the
/// module) and for packets whose headers do not decode.
pub fn unwrap(bytes: &[u8]) -> Result<Unwrapped<'_>, CodecError> {
    if bytes.is_empty() {
        return Err(CodecError::new("GeoNetworking: empty input"));
    }
    if is_secured(bytes) {
        return Err(CodecError::new(
            "GeoNetworking: secured packet (TS 103 097); verifying its signature needs a configured trust anchor, \
             none is: not read",
        ));
    }
    let packet = read_unsecured(bytes).map_err(|e| CodecError::new(format!("GeoNetworking + BTP: {e}")))?;
    let Packet::Unsecured { common, payload, .. } = &packet else { unreachable!("read_unsecured reads no other") };
    let (payload, transport) = TransportHeader::decode_with_gn_next_header(common.next_header, payload)
        .map_err(|e| CodecError::new(format!("GeoNetworking + BTP: {e}")))?;
    Ok(Unwrapped { packet, transport, payload })
}

/// An unsecured packet's headers, each with the `geonetworking` crate's codec of it, in the order
/// its whole-packet decoder reads them (which also links its IEEE 1609.2 parser, 55 kB of a
/// component, for the secured packets refused before this).
fn read_unsecured(bytes: &[u8]) -> Result<Packet<'_>, String> {
    use headers::{GeoUnicast, LSReply, LSRequest, LocationServiceType, TopologicallyScopedBroadcast};

    fn read<'a, T: c_its_parser::gn::Decode<'a>>(bytes: &'a [u8]) -> Result<(T, &'a [u8]), String> {
        let decoded = T::decode(bytes).map_err(|e| format!("{e:?}"))?;
        Ok((decoded.decoded, &bytes[decoded.bytes_consumed..]))
    }
    let (basic, rest) = read::<BasicHeader>(bytes)?;
    let (common, rest) = read::<CommonHeader>(rest)?;
    let (extended, rest) = match common.header_type_and_subtype {
        HeaderType::Any => (None, rest),
        HeaderType::Beacon => read(rest).map(|(h, r)| (Some(ExtendedHeader::Beacon(h)), r))?,
        HeaderType::GeoUnicast => read::<GeoUnicast>(rest).map(|(h, r)| (Some(ExtendedHeader::GUC(h)), r))?,
        HeaderType::GeoAnycast(_) => read(rest).map(|(h, r)| (Some(ExtendedHeader::GAC(h)), r))?,
        HeaderType::GeoBroadcast(_) => read(rest).map(|(h, r)| (Some(ExtendedHeader::GBC(h)), r))?,
        HeaderType::TopologicallyScopedBroadcast(BroadcastType::SingleHop) => {
            read(rest).map(|(h, r)| (Some(ExtendedHeader::SHB(h)), r))?
        }
        HeaderType::TopologicallyScopedBroadcast(_) => {
            read::<TopologicallyScopedBroadcast>(rest).map(|(h, r)| (Some(ExtendedHeader::TSB(h)), r))?
        }
        HeaderType::LocationService(LocationServiceType::Request) => {
            read::<LSRequest>(rest).map(|(h, r)| (Some(ExtendedHeader::LSRequest(h)), r))?
        }
        HeaderType::LocationService(_) => read::<LSReply>(rest).map(|(h, r)| (Some(ExtendedHeader::LSReply(h)), r))?,
    };
    let payload = rest.get(..usize::from(common.payload_length)).ok_or_else(|| {
        format!(
            "payload length {} in the common header, {} bytes follow the headers",
            common.payload_length,
            rest.len()
        )
    })?;
    Ok(Packet::Unsecured { basic, common, extended, payload })
}

/// How a wrapped message is forwarded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Broadcast {
    /// Single-hop broadcast, as most RSUs send CPMs and CAMs.
    SingleHop,
    /// Geo-broadcast to a circle of `radius_m` around the sender's position (DENMs, and CPMs of
    /// some RSUs).
    Circle { radius_m: u16 },
}

/// The sender of a wrapped message: its GeoNetworking source position vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sender {
    /// Becomes the last four octets of the GeoNetworking address (an RSU's, manually configured).
    pub station_id: u32,
    /// TimestampIts of the position, ms (GeoNetworking keeps it modulo 2^32).
    pub time_its_ms: u64,
    pub lat_e7: i32,
    pub lon_e7: i32,
}

/// Wraps a UPER facilities message into an unsecured GeoNetworking packet with a BTP-B header
/// for `port` (e.g. [`PORT_CPM`]): lifetime 1 s, traffic class 0, hop limit 1 for single-hop and
/// 10 for geo-broadcast.
pub fn wrap(message: &[u8], port: u16, sender: &Sender, broadcast: Broadcast) -> Result<Vec<u8>, CodecError> {
    let mut payload = TransportHeader::BtpB(BasicTransportBHeader { destination_port: port, destination_port_info: 0 })
        .encode()
        .map_err(|e| CodecError::new(format!("BTP-B: {e}")))?;
    payload.extend_from_slice(message);
    let length = u16::try_from(payload.len())
        .map_err(|_| CodecError::new(format!("GeoNetworking: payload of {} bytes is too long", payload.len())))?;

    let id = sender.station_id.to_be_bytes();
    let position = LongPositionVector {
        gn_address: Address::new(true, StationType::RoadSideUnit, [0, 0, id[0], id[1], id[2], id[3]]),
        timestamp: Timestamp::from_its_timestamp(sender.time_its_ms),
        latitude: sender.lat_e7,
        longitude: sender.lon_e7,
        ..Default::default()
    };
    let (header_type, hop_limit, extended) = match broadcast {
        Broadcast::SingleHop => (
            HeaderType::TopologicallyScopedBroadcast(BroadcastType::SingleHop),
            1,
            ExtendedHeader::SHB(SingleHopBroadcast { source_position_vector: position, media_dependent_data: [0; 4] }),
        ),
        Broadcast::Circle { radius_m } => (
            HeaderType::GeoBroadcast(AreaType::Circular),
            10,
            ExtendedHeader::GBC(GeoBroadcast {
                sequence_number: 0,
                reserved_1: 0,
                source_position_vector: position,
                geo_area_position_latitude: sender.lat_e7,
                geo_area_position_longitude: sender.lon_e7,
                distance_a: radius_m,
                distance_b: 0,
                angle: 0,
                reserved_2: 0,
            }),
        ),
    };
    let gn_error = |e: String| CodecError::new(format!("GeoNetworking: {e}"));
    let basic =
        BasicHeader::try_new(GN_VERSION, NextAfterBasic::CommonHeader, Lifetime::from_milliseconds(1000), hop_limit)
            .map_err(|e| gn_error(format!("{e:?}")))?;
    let traffic_class = TrafficClass::try_new(false, false, 0).map_err(|e| gn_error(format!("{e:?}")))?;
    let common = CommonHeader::from_values(NextAfterCommon::BTPB, header_type, traffic_class, false, length, hop_limit);
    UnsecuredHeader { basic, common, extended: Some(extended) }
        .with_payload(&payload)
        .map_err(|e| gn_error(format!("{e:?}")))?
        .encode_to_vec()
        .map_err(|e| gn_error(format!("{e:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sender() -> Sender {
        Sender { station_id: 1001, time_its_ms: 591_619_380_000, lat_e7: 478_095_000, lon_e7: 130_550_000 }
    }

    #[test]
    fn wrapped_messages_unwrap_to_the_same_bytes() {
        let message = [0x02, 0x0e, 0xde, 0xad, 0xbe, 0xef];
        for broadcast in [Broadcast::SingleHop, Broadcast::Circle { radius_m: 300 }] {
            let packet = wrap(&message, PORT_CPM, &sender(), broadcast).unwrap();
            assert_eq!(packet[0] >> 4, GN_VERSION, "{broadcast:?}");
            let unwrapped = unwrap(&packet).unwrap();
            assert_eq!(unwrapped.payload, message, "{broadcast:?}");
            assert_eq!(unwrapped.destination_port(), Some(PORT_CPM));
            let source = unwrapped.packet.source_position_vector().unwrap();
            assert_eq!((source.latitude, source.longitude), (478_095_000, 130_550_000));
        }
    }

    /// The headers read one by one are the packet the crate's whole-packet decoder reads, and
    /// every prefix that one refuses is refused too.
    #[test]
    fn headers_read_as_the_whole_packet_decoder_reads_them() {
        use c_its_parser::gn::Decode as _;
        for broadcast in [Broadcast::SingleHop, Broadcast::Circle { radius_m: 300 }] {
            let packet = wrap(&[0x02, 0x0e, 0xde, 0xad], PORT_CPM, &sender(), broadcast).unwrap();
            assert_eq!(read_unsecured(&packet).unwrap(), Packet::decode(&packet[..]).unwrap().decoded);
            for len in 0..packet.len() {
                let whole = Packet::decode(&packet[..len]).is_ok();
                assert_eq!(read_unsecured(&packet[..len]).is_ok(), whole, "{broadcast:?}, {len} bytes");
            }
        }
    }

    #[test]
    fn negative_speeds_in_the_position_vector_decode() {
        // A reversing sender: -1.50 m/s, 15-bit two's complement after the accuracy bit, at
        // offset 32 of a single-hop broadcast (basic 4 + common 8 + address, time, lat, lon 20).
        // geonetworking 0.4.2 panicked here (tools/patches/geonetworking.sh).
        let mut packet = wrap(&[0x02, 0x0e], PORT_CPM, &sender(), Broadcast::SingleHop).unwrap();
        let raw = (-150i16 as u16) & 0x7fff;
        packet[32..34].copy_from_slice(&raw.to_be_bytes());
        let unwrapped = unwrap(&packet).unwrap();
        assert_eq!(unwrapped.packet.source_position_vector().unwrap().speed.value(), -150);
        assert_eq!(unwrapped.payload, [0x02, 0x0e]);
    }

    #[test]
    fn secured_packets_are_refused_with_the_reason() {
        let mut packet = wrap(&[0x02, 0x0e], PORT_CPM, &sender(), Broadcast::SingleHop).unwrap();
        packet[0] = (packet[0] & 0xf0) | NextAfterBasic::SecuredPacket as u8;
        let error = unwrap(&packet).unwrap_err();
        assert!(error.message().contains("trust anchor"), "{error}");
    }

    #[test]
    fn malformed_headers_are_an_error() {
        assert!(unwrap(&[]).is_err());
        let packet = wrap(&[0x02, 0x0e], PORT_CPM, &sender(), Broadcast::SingleHop).unwrap();
        for len in 1..packet.len() - 2 {
            assert!(unwrap(&packet[..len]).is_err(), "prefix of {len} bytes unwrapped");
        }
    }
}

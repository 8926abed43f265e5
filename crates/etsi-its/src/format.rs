//! What a received buffer is, among the inputs real RSUs send: a CPM of either release, a CAM, a
//! DENM or a VAM, in UPER or XER, bare or in a GeoNetworking + BTP packet; and decoding it.
//!
//! Recognised from the first bytes: UPER starts with the `ItsPduHeader` (`protocolVersion`,
//! then the message id), XER with `<` (the message id and protocol version are read from their
//! elements), GeoNetworking with its basic header (version 0 or 1 in the high nibble, next header
//! common (1) or secured (2) in the low one). A CPM's release is its `protocolVersion`: 2 is TS
//! 103 324, anything else TR 103 562.

use crate::cpm::v1::CpmV1;
use crate::cpm::{CollectivePerceptionMessage, ContainerList, SimpleCpm};
use crate::{cam, cpm, denm, gn, vam, CodecError};

/// The kinds of message read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Message {
    /// TS 103 324 V2.1.1 CPM (protocolVersion 2).
    CpmV2,
    /// TR 103 562 CPM (protocolVersion 1).
    CpmV1,
    /// EN 302 637-2 CAM.
    Cam,
    /// EN 302 637-3 DENM.
    Denm,
    /// TS 103 300-3 V2.1.1 VAM (protocolVersion 2).
    Vam,
    /// TS 103 300-3 V2.2.1 VAM (protocolVersion 3), what current stacks send.
    VamV3,
}

impl Message {
    fn from_header(protocol_version: u8, message_id: u8) -> Option<Self> {
        match (message_id, protocol_version) {
            (cpm::MESSAGE_ID, cpm::PROTOCOL_VERSION) => Some(Self::CpmV2),
            (cpm::MESSAGE_ID, _) => Some(Self::CpmV1),
            (cam::MESSAGE_ID, _) => Some(Self::Cam),
            (denm::MESSAGE_ID, _) => Some(Self::Denm),
            (vam::MESSAGE_ID, vam::v3::PROTOCOL_VERSION) => Some(Self::VamV3),
            (vam::MESSAGE_ID, _) => Some(Self::Vam),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::CpmV2 => "CPM (TS 103 324)",
            Self::CpmV1 => "CPM (TR 103 562)",
            Self::Cam => "CAM",
            Self::Denm => "DENM",
            Self::Vam => "VAM",
            Self::VamV3 => "VAM (TS 103 300-3 V2.2.1)",
        }
    }
}

/// The format of a buffer, from [`detect`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Uper(Message),
    Xer(Message),
    /// An unsecured GeoNetworking + BTP packet carrying a UPER message.
    GnBtp(Message),
    /// A secured GeoNetworking packet (TS 103 097): not read, see [`gn`].
    SecuredGn,
    Unknown,
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Uper(m) => write!(f, "{}, UPER", m.name()),
            Self::Xer(m) => write!(f, "{}, XER", m.name()),
            Self::GnBtp(m) => write!(f, "{} in GeoNetworking + BTP", m.name()),
            Self::SecuredGn => f.write_str("secured GeoNetworking"),
            Self::Unknown => f.write_str("unknown format"),
        }
    }
}

/// A decoded message of any [`Message`] kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    CpmV2(Box<CollectivePerceptionMessage>),
    CpmV1(Box<CpmV1>),
    Cam(Box<cam::CAM>),
    Denm(Box<denm::Denm>),
    Vam(Box<vam::VAM>),
    VamV3(Box<vam::v3::VAM>),
}

/// A received buffer recognised ([`recognise`]): its format, and the message's own bytes — the
/// facilities-layer payload of a GeoNetworking + BTP packet, unwrapped once here, or else the
/// whole buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recognised<'a> {
    pub format: Format,
    /// The message itself (UPER inside a [`Format::GnBtp`] packet).
    pub message: &'a [u8],
    /// The whole buffer as received.
    pub bytes: &'a [u8],
}

/// Recognises the format of `bytes` without decoding the message (see the module); a
/// GeoNetworking packet is unwrapped to read its payload's header, and the payload kept.
pub fn recognise(bytes: &[u8]) -> Recognised<'_> {
    let whole = |format| Recognised { format, message: bytes, bytes };
    if let Some(message) = uper_header(bytes) {
        return whole(Format::Uper(message));
    }
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<') {
        return whole(xer_header(bytes).map_or(Format::Unknown, Format::Xer));
    }
    match bytes.first().map(|b| (b >> 4, b & 0x0f)) {
        Some((0 | 1, 2)) => whole(Format::SecuredGn),
        Some((0 | 1, 1)) => match gn::unwrap(bytes).ok().and_then(|u| Some((uper_header(u.payload)?, u.payload))) {
            Some((message, payload)) => Recognised { format: Format::GnBtp(message), message: payload, bytes },
            None => whole(Format::Unknown),
        },
        _ => whole(Format::Unknown),
    }
}

/// The format of `bytes` ([`recognise`]'s).
pub fn detect(bytes: &[u8]) -> Format {
    recognise(bytes).format
}

/// The message a UPER `ItsPduHeader` at the start announces: protocol version 1 or 2 and a
/// message id read here, or a VAM of protocol version 3 (TS 103 300-3 V2.2.1).
fn uper_header(bytes: &[u8]) -> Option<Message> {
    match bytes {
        [version @ (1 | 2), id, ..] => Message::from_header(*version, *id),
        [vam::v3::PROTOCOL_VERSION, vam::MESSAGE_ID, ..] => Some(Message::VamV3),
        _ => None,
    }
}

/// The message an XER document's header announces: the first `messageID` / `messageId` and
/// `protocolVersion` elements.
fn xer_header(bytes: &[u8]) -> Option<Message> {
    let text = std::str::from_utf8(bytes).ok()?;
    let element = |names: &[&str]| {
        names.iter().find_map(|name| {
            let start = text.find(&format!("<{name}>"))? + name.len() + 2;
            let end = start + text[start..].find('<')?;
            text[start..end].trim().parse::<u8>().ok()
        })
    };
    Message::from_header(element(&["protocolVersion"])?, element(&["messageID", "messageId"])?)
}

/// Decodes a message in any format [`detect`] recognises. The error says which format was
/// tried and why it failed.
pub fn decode(bytes: &[u8]) -> Result<Decoded, CodecError> {
    let Recognised { format, message: inner, .. } = recognise(bytes);
    let decoded = match format {
        Format::Uper(message) | Format::GnBtp(message) => decode_uper(message, inner),
        Format::Xer(message) => decode_xer(message, bytes),
        Format::SecuredGn | Format::Unknown => return Err(unreadable(bytes, format)),
    };
    decoded.map_err(|e| e.context(&format!("as {format}")))
}

/// Why a buffer of `format` (secured GeoNetworking, or unknown) is not read. A GeoNetworking
/// packet whose headers or payload do not parse says so rather than "unknown".
fn unreadable(bytes: &[u8], format: Format) -> CodecError {
    let Some(first) = bytes.first() else { return CodecError::new("empty input") };
    let looks_like_gn = matches!((first >> 4, first & 0x0f), (0 | 1, 1 | 2));
    if looks_like_gn {
        let error = match gn::unwrap(bytes) {
            Err(e) => e,
            Ok(u) => CodecError::new(format!(
                "BTP port {:?}: the payload is no CPM, CAM, DENM or VAM (first byte {:#04x})",
                u.destination_port(),
                u.payload.first().copied().unwrap_or(0)
            )),
        };
        // gn::unwrap names the layer that failed.
        return if format == Format::SecuredGn { error.context(&format!("as {format}")) } else { error };
    }
    CodecError::new(format!(
        "as {format}: not a CPM, CAM, DENM or VAM in UPER, XER or GeoNetworking (first byte {first:#04x})"
    ))
}

fn decode_uper(message: Message, bytes: &[u8]) -> Result<Decoded, CodecError> {
    Ok(match message {
        Message::CpmV2 => Decoded::CpmV2(Box::new(cpm::decode(bytes)?)),
        Message::CpmV1 => Decoded::CpmV1(Box::new(cpm::v1::decode(bytes)?)),
        Message::Cam => Decoded::Cam(Box::new(cam::decode(bytes)?)),
        Message::Denm => Decoded::Denm(Box::new(denm::decode(bytes)?)),
        Message::Vam => Decoded::Vam(Box::new(vam::decode(bytes)?)),
        Message::VamV3 => Decoded::VamV3(Box::new(vam::v3::decode(bytes)?)),
    })
}

fn decode_xer(message: Message, bytes: &[u8]) -> Result<Decoded, CodecError> {
    Ok(match message {
        Message::CpmV2 => Decoded::CpmV2(Box::new(cpm::decode_xer(bytes)?)),
        Message::CpmV1 => Decoded::CpmV1(Box::new(cpm::v1::decode_xer(bytes)?)),
        Message::Cam => Decoded::Cam(Box::new(cam::decode_xer(bytes)?)),
        Message::Denm => Decoded::Denm(Box::new(denm::decode_xer(bytes)?)),
        Message::Vam => Decoded::Vam(Box::new(vam::decode_xer(bytes)?)),
        Message::VamV3 => Decoded::VamV3(Box::new(vam::v3::decode_xer(bytes)?)),
    })
}

/// Reads a CPM of either release, in any format, into the pipeline's view; `received_its_ms`
/// (TimestampIts) completes a Release 1 CPM's 16-bit time ([`SimpleCpm::from_cpm_v1`]).
/// Only the CPM codecs are called (the decoder stage's component links no CAM, DENM or VAM decoder).
pub fn simple_cpm(bytes: &[u8], received_its_ms: u64) -> Result<SimpleCpm, CodecError> {
    read_cpm_as(recognise(bytes), received_its_ms).map(|read| read.cpm)
}

/// A CPM read into the pipeline's view, and how its container list was encoded: `Some` for a TS
/// 103 324 CPM in UPER (bare or in GeoNetworking), `None` where the question does not arise (XER,
/// TR 103 562).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadCpm {
    pub cpm: SimpleCpm,
    pub container_list: Option<ContainerList>,
}

/// Reads a CPM [`recognise`]d already, also telling how its container list was encoded (name it
/// with [`label`]).
pub fn read_cpm_as(recognised: Recognised<'_>, received_its_ms: u64) -> Result<ReadCpm, CodecError> {
    let Recognised { format, message: bytes, .. } = recognised;
    let unlisted = |cpm| ReadCpm { cpm, container_list: None };
    let read_v2 = |bytes| {
        cpm::decode_with_list(bytes)
            .and_then(|(c, list)| Ok(ReadCpm { cpm: SimpleCpm::from_cpm(&c)?, container_list: Some(list) }))
    };
    let read_v1 =
        |bytes| cpm::v1::decode(bytes).and_then(|c| SimpleCpm::from_cpm_v1(&c, received_its_ms)).map(unlisted);
    let read = match format {
        Format::Uper(Message::CpmV2) => read_v2(bytes),
        Format::Uper(Message::CpmV1) => read_v1(bytes),
        Format::Xer(Message::CpmV2) => cpm::decode_xer(bytes).and_then(|c| SimpleCpm::from_cpm(&c)).map(unlisted),
        Format::Xer(Message::CpmV1) => {
            cpm::v1::decode_xer(bytes).and_then(|c| SimpleCpm::from_cpm_v1(&c, received_its_ms)).map(unlisted)
        }
        Format::GnBtp(message @ (Message::CpmV2 | Message::CpmV1)) => {
            let read = if message == Message::CpmV2 { read_v2(bytes) } else { read_v1(bytes) };
            return read
                .map_err(|e| e.context(&format!("as {}", Format::Uper(message))).context("in GeoNetworking + BTP"));
        }
        Format::Uper(_) | Format::Xer(_) | Format::GnBtp(_) => Err(CodecError::new("not a CPM")),
        Format::SecuredGn | Format::Unknown => return Err(unreadable(recognised.bytes, format)),
    };
    read.map_err(|e| e.context(&format!("as {format}")))
}

/// The format's name with the CPM container list's encoding when it is not the root one, e.g.
/// "CPM (TS 103 324), UPER, container list with extension bit"; otherwise `format`'s own name.
pub fn label(format: Format, container_list: Option<ContainerList>) -> String {
    match container_list.and_then(ContainerList::label) {
        Some(list) => format!("{format}, {list}"),
        None => format.to_string(),
    }
}

/// [`detect`]'s name for `bytes`, told apart further where [`label`] does: a TS 103 324 CPM in
/// UPER (bare or in GeoNetworking) is decoded (its outer PDU only, the containers stay open
/// types) to tell its container list's encoding. What does not decode gets [`detect`]'s name.
pub fn describe(bytes: &[u8]) -> String {
    let Recognised { format, message, .. } = recognise(bytes);
    let cpm_v2 = matches!(format, Format::Uper(Message::CpmV2) | Format::GnBtp(Message::CpmV2));
    label(format, cpm_v2.then(|| cpm::decode_with_list(message).ok()).flatten().map(|(_, list)| list))
}

/// Reads a CAM, in any format [`detect`] recognises, into the pipeline's view (only the CAM
/// codecs are called).
pub fn simple_cam_as(recognised: Recognised<'_>) -> Result<cam::SimpleCam, CodecError> {
    simple_as(
        recognised,
        Message::Cam,
        |uper| cam::decode(uper).and_then(|c| cam::SimpleCam::from_cam(&c)),
        |xer| cam::decode_xer(xer).and_then(|c| cam::SimpleCam::from_cam(&c)),
    )
}

/// Reads a VAM, in any format [`detect`] recognises, into the pipeline's view (only the VAM
/// codecs are called).
pub fn simple_vam_as(recognised: Recognised<'_>) -> Result<vam::SimpleVam, CodecError> {
    if let Format::Uper(Message::VamV3) | Format::Xer(Message::VamV3) | Format::GnBtp(Message::VamV3) =
        recognised.format
    {
        return simple_as(
            recognised,
            Message::VamV3,
            |uper| vam::v3::decode(uper).and_then(|v| vam::SimpleVam::from_vam_v3(&v)),
            |xer| vam::v3::decode_xer(xer).and_then(|v| vam::SimpleVam::from_vam_v3(&v)),
        );
    }
    simple_as(
        recognised,
        Message::Vam,
        |uper| vam::decode(uper).and_then(|v| vam::SimpleVam::from_vam(&v)),
        |xer| vam::decode_xer(xer).and_then(|v| vam::SimpleVam::from_vam(&v)),
    )
}

/// Reads a `message` in any format with `read_uper` or `read_xer` (decode, then the view);
/// errors name the format, and "not a CAM" (say) when the buffer is another message.
fn simple_as<T>(
    recognised: Recognised<'_>,
    message: Message,
    read_uper: fn(&[u8]) -> Result<T, CodecError>,
    read_xer: fn(&[u8]) -> Result<T, CodecError>,
) -> Result<T, CodecError> {
    let Recognised { format, message: bytes, .. } = recognised;
    let simple = match format {
        Format::Uper(m) if m == message => read_uper(bytes),
        Format::Xer(m) if m == message => read_xer(bytes),
        Format::GnBtp(m) if m == message => {
            return read_uper(bytes)
                .map_err(|e| e.context(&format!("as {}", Format::Uper(m))).context("in GeoNetworking + BTP"));
        }
        Format::Uper(_) | Format::Xer(_) | Format::GnBtp(_) => {
            Err(CodecError::new(format!("not a {}", message.name())))
        }
        Format::SecuredGn | Format::Unknown => return Err(unreadable(recognised.bytes, format)),
    };
    simple.map_err(|e| e.context(&format!("as {format}")))
}

/// A wire format CPMs can be sent in: what an RSU or a bridge puts on MQTT. Converts the
/// pipeline's recordings (TS 103 324 UPER) into what other equipment sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Wire {
    /// TS 103 324 V2.1.1 in UPER, bare (our RSUs).
    #[default]
    CpmV2Uper,
    /// TR 103 562 in UPER, bare (the pre-standard CPM of the research recordings).
    CpmV1Uper,
    /// TS 103 324 V2.1.1 in XER.
    CpmV2Xer,
    /// TR 103 562 in XER.
    CpmV1Xer,
    /// TS 103 324 V2.1.1 in UPER inside an unsecured single-hop GeoNetworking + BTP-B packet
    /// (what a radio RSU forwards).
    CpmV2GnBtp,
}

impl Wire {
    pub const ALL: [Wire; 5] = [Self::CpmV2Uper, Self::CpmV1Uper, Self::CpmV2Xer, Self::CpmV1Xer, Self::CpmV2GnBtp];

    /// Its name on the command line (`cits replay --wire`).
    pub fn name(self) -> &'static str {
        match self {
            Self::CpmV2Uper => "cpm-v2-uper",
            Self::CpmV1Uper => "cpm-v1-uper",
            Self::CpmV2Xer => "cpm-v2-xer",
            Self::CpmV1Xer => "cpm-v1-xer",
            Self::CpmV2GnBtp => "cpm-v2-gn-btp",
        }
    }

    /// Encodes `cpm` in this format.
    pub fn encode(self, cpm: &SimpleCpm) -> Result<Vec<u8>, CodecError> {
        match self {
            Self::CpmV2Uper => cpm::encode(&cpm.to_cpm()),
            Self::CpmV1Uper => cpm::v1::encode(&cpm.to_cpm_v1()?),
            Self::CpmV2Xer => cpm::encode_xer(&cpm.to_cpm()),
            Self::CpmV1Xer => cpm::v1::encode_xer(&cpm.to_cpm_v1()?),
            Self::CpmV2GnBtp => {
                let sender = gn::Sender {
                    station_id: cpm.station_id,
                    time_its_ms: cpm.reference_time_its_ms,
                    lat_e7: cpm.reference_lat_e7,
                    lon_e7: cpm.reference_lon_e7,
                };
                gn::wrap(&cpm::encode(&cpm.to_cpm())?, gn::PORT_CPM, &sender, gn::Broadcast::SingleHop)
            }
        }
    }
}

impl std::str::FromStr for Wire {
    type Err = CodecError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|w| w.name() == name).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|w| w.name()).collect();
            CodecError::new(format!("unknown wire format {name:?} (one of {})", names.join(", ")))
        })
    }
}

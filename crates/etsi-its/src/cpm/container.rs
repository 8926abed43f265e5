//! The CPM's containers travel as open types: a container id and the container's own encoding,
//! in UPER its complete UPER encoding, in XER (X.693) its XML element. [`CpmContainer`] is a
//! decoded one, tagged by its id.

use super::*;

/// A decoded CPM container, tagged by its `CpmContainerId`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CpmContainer {
    OriginatingVehicle(OriginatingVehicleContainer),
    OriginatingRsu(OriginatingRsuContainer),
    SensorInformation(SensorInformationContainer),
    PerceptionRegion(PerceptionRegionContainer),
    PerceivedObject(PerceivedObjectContainer),
}

/// The encoding rules of an open type's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rules {
    Uper,
    Xer,
}

fn encode_in<T: rasn::Encode>(rules: Rules, value: &T, what: &str) -> Result<Vec<u8>, CodecError> {
    match rules {
        Rules::Uper => crate::uper_encode(value, what),
        Rules::Xer => crate::xer_encode(value, what),
    }
}

fn decode_in<T: rasn::Decode + rasn::Encode>(rules: Rules, data: &[u8], what: &str) -> Result<T, CodecError> {
    match rules {
        Rules::Uper => crate::uper_decode_exact(data, what),
        Rules::Xer => crate::xer_decode(data, what),
    }
}

impl CpmContainer {
    pub fn id(&self) -> CpmContainerId {
        match self {
            Self::OriginatingVehicle(_) => ORIGINATING_VEHICLE_CONTAINER,
            Self::OriginatingRsu(_) => ORIGINATING_RSU_CONTAINER,
            Self::SensorInformation(_) => SENSOR_INFORMATION_CONTAINER,
            Self::PerceptionRegion(_) => PERCEPTION_REGION_CONTAINER,
            Self::PerceivedObject(_) => PERCEIVED_OBJECT_CONTAINER,
        }
    }

    /// Encodes the container into its open-type wrapper.
    pub fn wrap(&self) -> Result<WrappedCpmContainer, CodecError> {
        self.wrap_in(Rules::Uper)
    }

    /// Decodes the open type according to `container_id`; `Ok(None)` for ids the CPM object set
    /// does not define yet (it is extensible: skip them).
    pub fn from_wrapped(wrapped: &WrappedCpmContainer) -> Result<Option<Self>, CodecError> {
        Self::unwrap_in(Rules::Uper, wrapped)
    }

    fn wrap_in(&self, rules: Rules) -> Result<WrappedCpmContainer, CodecError> {
        let data = match self {
            Self::OriginatingVehicle(c) => encode_in(rules, c, "OriginatingVehicleContainer")?,
            Self::OriginatingRsu(c) => encode_in(rules, c, "OriginatingRsuContainer")?,
            Self::SensorInformation(c) => encode_in(rules, c, "SensorInformationContainer")?,
            Self::PerceptionRegion(c) => encode_in(rules, c, "PerceptionRegionContainer")?,
            Self::PerceivedObject(c) => encode_in(rules, c, "PerceivedObjectContainer")?,
        };
        Ok(WrappedCpmContainer { container_id: self.id(), container_data: rasn::types::Any::new(data) })
    }

    fn unwrap_in(rules: Rules, wrapped: &WrappedCpmContainer) -> Result<Option<Self>, CodecError> {
        let data = wrapped.container_data.as_bytes();
        Ok(Some(match wrapped.container_id.0 {
            1 => Self::OriginatingVehicle(decode_in(rules, data, "OriginatingVehicleContainer")?),
            2 => Self::OriginatingRsu(decode_in(rules, data, "OriginatingRsuContainer")?),
            3 => Self::SensorInformation(decode_in(rules, data, "SensorInformationContainer")?),
            4 => Self::PerceptionRegion(decode_in(rules, data, "PerceptionRegionContainer")?),
            5 => Self::PerceivedObject(decode_in(rules, data, "PerceivedObjectContainer")?),
            _ => return Ok(None),
        }))
    }
}

/// The CPM with every container's open type re-encoded from `from` into `to` rules. Errors for
/// container ids this version does not know: their content cannot be converted.
fn convert_containers(
    msg: &CollectivePerceptionMessage,
    from: Rules,
    to: Rules,
) -> Result<CollectivePerceptionMessage, CodecError> {
    let mut converted = msg.clone();
    for wrapped in &mut converted.payload.cpm_containers.0 {
        let container = CpmContainer::unwrap_in(from, wrapped)?.ok_or_else(|| {
            CodecError::new(format!("CPM container id {} is unknown: cannot convert it", wrapped.container_id.0))
        })?;
        *wrapped = container.wrap_in(to)?;
    }
    Ok(converted)
}

/// Encodes a CPM (containers in UPER, as decoded) in XER, each container as its XML element.
/// rasn's XER encoder does not write an open type's XML (it fails on it), so the PDU is encoded
/// with empty `containerData` elements and the containers' XML is put into them in order.
pub(super) fn encode_xer(msg: &CollectivePerceptionMessage) -> Result<Vec<u8>, CodecError> {
    const EMPTY: &str = "<containerData />";
    let mut shell = msg.clone();
    let mut elements = Vec::with_capacity(shell.payload.cpm_containers.0.len());
    for wrapped in &mut shell.payload.cpm_containers.0 {
        let container = CpmContainer::from_wrapped(wrapped)?.ok_or_else(|| {
            CodecError::new(format!("CPM container id {} is unknown: cannot convert it", wrapped.container_id.0))
        })?;
        elements.push(container.wrap_in(Rules::Xer)?.container_data);
        wrapped.container_data = rasn::types::Any::new(Vec::new());
    }
    let xml =
        String::from_utf8(crate::xer_encode(&shell, "CPM")?).map_err(|e| CodecError::new(format!("CPM: XER: {e}")))?;
    let mut parts = xml.split(EMPTY);
    let mut out = parts.next().unwrap_or_default().as_bytes().to_vec();
    for (element, rest) in elements.iter().zip(parts) {
        out.extend_from_slice(b"<containerData>");
        out.extend_from_slice(element.as_bytes());
        out.extend_from_slice(b"</containerData>");
        out.extend_from_slice(rest.as_bytes());
    }
    Ok(out)
}

/// Decodes an XER CPM into the form [`decode`] gives: containers as their UPER encoding.
pub(super) fn decode_xer(xml: &[u8]) -> Result<CollectivePerceptionMessage, CodecError> {
    convert_containers(&crate::xer_decode(xml, "CPM")?, Rules::Xer, Rules::Uper)
}

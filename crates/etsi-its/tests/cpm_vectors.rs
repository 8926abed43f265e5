//! Byte-exact checks against the standard: a CPM whose UPER bits are derived by
//! hand from the ASN.1, encodings of the PER-visible constraints that are easy
//! to get wrong, and vectors produced by an independent encoder.

use etsi_its::cpm::{self, *};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// Smallest useful CPM: station 1, reference time 0, reference position
/// (0°, 0°), no sensors, empty Perceived Object Container.
///
/// Bit layout, derived from TS 103 324 V2.1.1 / CDD V2.1.1 (UPER, X.691):
///
/// ```text
/// bits     field                                   constraint            bits value
/// 0-7      header.protocolVersion = 2              INTEGER (0..255)      8    00000010
/// 8-15     header.messageId = 14 (cpm)             INTEGER (0..255)      8    00001110
/// 16-47    header.stationId = 1                    INTEGER (0..2^32-1)   32   0...01
/// 48       CpmPayload extension bit                SEQUENCE {..., ...}   1    0
/// 49       ManagementContainer extension bit                             1    0
/// 50-51    presence: segmentationInfo, messageRateRange                  2    00
/// 52-93    referenceTime = 0                       INTEGER (0..2^42-1)   42   0...0
/// 94-124   latitude = 0 → 0+900000000              (-900000000..900000001)  31  0x35A4E900
/// 125-156  longitude = 0 → 0+1800000000            (-1800000000..1800000001) 32 0x6B49D200
/// 157-168  semiMajorConfidence = 4095 (unavail.)   INTEGER (0..4095)     12   0xFFF
/// 169-180  semiMinorConfidence = 4095                                    12   0xFFF
/// 181-192  semiMajorOrientation = 3601 (unavail.)  INTEGER (0..3601)     12   0xE11
/// 193-212  altitudeValue = 800001 → +100000        (-100000..800001)     20   0xDBBA1
/// 213-216  altitudeConfidence = unavailable        ENUMERATED, 16 items  4    1111 (index 15)
/// 217-219  cpmContainers count 1 → 1-1             SIZE(1..8), no ext.   3    000
/// 220-223  containerId = 5 → 5-1                   INTEGER (1..16)       4    0100
/// 224-231  containerData length = 3 octets         open type length      8    00000011
/// 232-255  containerData = PerceivedObjectContainer:
///            extension bit 0, numberOfPerceivedObjects 0 (8 bits),
///            perceivedObjects: extension bit 0, count 0 (SIZE(0..255,...) → 8 bits),
///            = 18 bits, padded to 3 octets                                24   0x000000
/// ```
///
/// 256 bits = 32 octets, no padding at the end.
const MINIMAL_CPM: &str = "020e00000001000000000001ad2748035a4e9007ffffff08eddd0f8403000000";

fn minimal() -> SimpleCpm {
    SimpleCpm {
        protocol_version: 2,
        station_id: 1,
        reference_time_its_ms: 0,
        reference_lat_e7: 0,
        reference_lon_e7: 0,
        sensors: vec![],
        objects: vec![],
    }
}

#[test]
fn minimal_cpm_matches_hand_derived_bits() {
    let bytes = cpm::encode(&minimal().to_cpm()).unwrap();
    assert_eq!(bytes, hex(MINIMAL_CPM));
    let back = cpm::decode(&bytes).unwrap();
    assert_eq!(SimpleCpm::from_cpm(&back).unwrap(), minimal());
}

/// The same CPM as produced by a sender on a newer minor version: extension
/// additions in CpmPayload, ManagementContainer and a PerceivedObject, plus a
/// container with an id (9) this version does not know. Also from asn1tools.
const FUTURE_CPM: &str = "020e000003e9c226fd0d4c8291207cc3988ed787ffffff08eddd0f8080d02206010023002180804deadbeef4380100ba030003bf3a04e20137fb28076867bf9febfe377bf000080b640e02300c0ad0cad8d8de801803fe000ff38018c01b80620004083140010180";

#[test]
fn sample_cpm_matches_independent_encoder() {
    assert_eq!(cpm::encode(&fixtures::sample().to_cpm()).unwrap(), hex(fixtures::SAMPLE_CPM_UPER_HEX));
    let decoded = cpm::decode(&hex(fixtures::SAMPLE_CPM_UPER_HEX)).unwrap();
    assert_eq!(SimpleCpm::from_cpm(&decoded).unwrap(), fixtures::sample());
}

#[test]
fn extension_additions_and_unknown_containers_are_skipped() {
    let decoded = cpm::decode(&hex(FUTURE_CPM)).unwrap();
    let containers = &decoded.payload.cpm_containers.0;
    assert_eq!(containers.len(), 3);
    assert_eq!(containers[1].container_id, CpmContainerId(9));
    assert_eq!(CpmContainer::from_wrapped(&containers[1]).unwrap(), None);
    assert_eq!(containers[1].container_data.as_bytes(), &[0xde, 0xad, 0xbe, 0xef]);
    assert_eq!(SimpleCpm::from_cpm(&decoded).unwrap(), fixtures::sample());
}

fn encode<T: rasn::Encode>(value: &T) -> Vec<u8> {
    rasn::uper::encode(value).unwrap()
}

#[test]
fn vehicle_sub_class_uses_the_effective_range_0_to_14() {
    // ObjectClass: extension bit 0, alternative 0 of 4 (2 bits), value 14 in
    // 4 bits (not 8): 0 00 1110 + pad → 0x1c
    assert_eq!(encode(&ObjectClass::vehicleSubClass(TrafficParticipantType(14))), [0x1c]);
}

#[test]
fn vru_sub_profiles_encode_their_enumeration_index() {
    // CDD V2.1.1 ENUMERATED {unavailable(0), ..., first-responder(3), max(15)}:
    // 5 root items → 3-bit index; max is index 4.
    // ObjectClass ext 0, alt 1 (01), VruProfileAndSubprofile ext 0, alt 0 (00), 100
    let pedestrian_max = ObjectClass::vruSubClass(VruProfileAndSubprofile::pedestrian(VruSubProfilePedestrian::max));
    assert_eq!(encode(&pedestrian_max), [0x22, 0x00]);
    // bicyclist sub-profile: 10 items → 4 bits; e-scooter is index 5: 0 01 0101
    let e_scooter = VruProfileAndSubprofile::bicyclistAndLightVruVehicle(VruSubProfileBicyclist::e_scooter);
    assert_eq!(encode(&e_scooter), [0x2a]);
}

#[test]
fn object_age_uses_its_serial_constraint_0_to_2047() {
    let coordinate =
        CartesianCoordinateWithConfidence { value: CartesianCoordinateLarge(0), confidence: CoordinateConfidence(1) };
    let mut object = new_perceived_object(
        DeltaTimeMilliSecondSigned(0),
        CartesianPosition3dWithConfidence {
            x_coordinate: coordinate.clone(),
            y_coordinate: coordinate,
            z_coordinate: None,
        },
    );
    object.object_id = Some(Identifier2B(1));
    object.object_age = Some(DeltaTimeMilliSecondSigned(2047));
    // ext 0, 14 presence bits (objectId and objectAge set), objectId 16 bits,
    // measurementDeltaTime 12 bits (0+2048), position (z presence 0, x and y:
    // 18-bit value 0+131072, 12-bit confidence 0), then objectAge 2047 in
    // 11 bits at bit 104: ff e0.
    assert_eq!(encode(&object), hex("40200003000800000020000000ffe0"));
}

#[test]
fn polygon_uses_its_serial_size_constraint_3_to_16() {
    let point = CartesianPosition3d {
        x_coordinate: CartesianCoordinate(0),
        y_coordinate: CartesianCoordinate(0),
        z_coordinate: None,
    };
    let polygon = PolygonalShape {
        shape_reference_point: None,
        polygon: SequenceOfCartesianPosition3d(vec![point; 3]),
        height: None,
    };
    // presence 00, size extension bit 0, count 3-3 in 4 bits, points...
    assert_eq!(encode(&polygon), hex("0080008000400040002000200000"));
}

#[test]
#[allow(clippy::unusual_byte_groupings)] // grouped by field
fn container_list_has_no_extension_bit() {
    // Same CPM with 1 vs 2 containers: only the 3-bit count after the
    // management container changes (000 → 001), nothing is inserted before it.
    let mut two = minimal();
    two.sensors = vec![(0, 0)];
    let bytes = cpm::encode(&two.to_cpm()).unwrap();
    let one = hex(MINIMAL_CPM);
    assert_eq!(bytes[..27], one[..27]);
    // byte 27: altitudeConfidence's last bit, count 001, containerId 3-1 = 0010
    assert_eq!(bytes[27], 0b1_001_0010);
}

//! CPMs encoded by asn1tools, a codec independent of ours, from ETSI's ASN.1
//! (tests/python/make_cpm_fixtures.py wrote them once; fixtures/cpm/fixtures.json has the values
//! encoded and what we must read out of them): both container-list encodings of TS 103 324
//! V2.1.1, its XER with perception region shapes (every `Shape` alternative in v2_shapes.xml),
//! and TR 103 562 V2.1.1 from an RSU and from a vehicle (objects in its body frame).

use etsi_its::cpm::{self, v1, ContainerList, ObjectKind, SimpleCpm};
use etsi_its::format::{self, Format, Message};
use etsi_its::gn;
use rasn::prelude::*;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cpm");

#[derive(AsnType, Decode, Encode, Debug)]
#[rasn(automatic_tags)]
struct Document {
    generator: Utf8String,
    fixtures: SequenceOf<Fixture>,
}

#[derive(AsnType, Decode, Encode, Debug)]
#[rasn(automatic_tags)]
struct Fixture {
    file: Utf8String,
    container_list: Option<Utf8String>,
    expected: Expected,
}

#[derive(AsnType, Decode, Encode, Debug)]
#[rasn(automatic_tags)]
struct Expected {
    protocol_version: u8,
    station_id: u32,
    reference_lat_e7: i32,
    reference_lon_e7: i32,
    reference_time_its_ms: u64,
    sensors: SequenceOf<SequenceOf<u8>>,
    objects: SequenceOf<ExpectedObject>,
}

#[derive(AsnType, Decode, Encode, Debug)]
#[rasn(automatic_tags)]
struct ExpectedObject {
    object_id: u16,
    class: Utf8String,
    x_cm: i32,
    y_cm: i32,
    vx_cm_s: i32,
    vy_cm_s: i32,
    yaw_decideg: i32,
}

fn document() -> Document {
    let json = std::fs::read_to_string(format!("{DIR}/fixtures.json")).unwrap();
    rasn::jer::decode(&json).unwrap()
}

fn bytes(file: &str) -> Vec<u8> {
    let text = std::fs::read_to_string(format!("{DIR}/{file}")).unwrap();
    if file.ends_with(".hex") {
        let hex = text.trim();
        (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
    } else {
        text.into_bytes()
    }
}

fn kind(name: &str) -> ObjectKind {
    *ObjectKind::ALL.iter().find(|k| format!("{k:?}") == name).unwrap_or_else(|| panic!("no kind {name}"))
}

/// What we read equals what was encoded: positions within 0.1 m east/north, velocities within
/// 0.05 m/s, yaw within 0.2°, classes exactly.
fn assert_reads_as(file: &str, read: &SimpleCpm, expected: &Expected) {
    assert_eq!(read.protocol_version, expected.protocol_version, "{file}");
    assert_eq!(read.station_id, expected.station_id, "{file}");
    assert_eq!((read.reference_lat_e7, read.reference_lon_e7), (expected.reference_lat_e7, expected.reference_lon_e7));
    assert_eq!(read.reference_time_its_ms, expected.reference_time_its_ms, "{file}");
    let sensors: Vec<(u8, u8)> = expected.sensors.iter().map(|s| (s[0], s[1])).collect();
    assert_eq!(read.sensors, sensors, "{file}");
    assert_eq!(read.objects.len(), expected.objects.len(), "{file}");
    for (got, want) in read.objects.iter().zip(&expected.objects) {
        let what = format!("{file}, object {}", want.object_id);
        assert_eq!(got.object_id, want.object_id, "{what}");
        assert_eq!(got.class, kind(&want.class), "{what}");
        assert!((got.x_cm - want.x_cm).abs() <= 10 && (got.y_cm - want.y_cm).abs() <= 10, "{what}: {got:?}");
        let (vx, vy) = got.velocity.unwrap_or_else(|| panic!("{what}: no velocity"));
        assert!(
            (i32::from(vx) - want.vx_cm_s).abs() <= 5 && (i32::from(vy) - want.vy_cm_s).abs() <= 5,
            "{what}: {got:?}"
        );
        let yaw = i32::from(got.yaw_decideg.unwrap_or_else(|| panic!("{what}: no yaw")));
        let off = (yaw - want.yaw_decideg).rem_euclid(3600);
        assert!(off.min(3600 - off) <= 2, "{what}: yaw {yaw}, encoded {}", want.yaw_decideg);
    }
}

#[test]
fn every_fixture_reads_as_encoded() {
    let document = document();
    assert_eq!(document.generator, "asn1tools 0.169.0");
    assert_eq!(document.fixtures.len(), 6);
    for fixture in &document.fixtures {
        let file = fixture.file.as_str();
        let bytes = bytes(file);
        let expected_format = match file {
            f if f.ends_with(".xml") => Format::Xer(Message::CpmV2),
            f if f.starts_with("v2") => Format::Uper(Message::CpmV2),
            _ => Format::Uper(Message::CpmV1),
        };
        assert_eq!(format::detect(&bytes), expected_format, "{file}");
        let received = fixture.expected.reference_time_its_ms + 1_000;
        let read = format::read_cpm_as(format::recognise(&bytes), received).unwrap_or_else(|e| panic!("{file}: {e}"));
        let list = fixture.container_list.as_deref().map(|l| match l {
            "Root" => ContainerList::Root,
            "WithExtensionBit" => ContainerList::WithExtensionBit,
            other => panic!("{other}"),
        });
        assert_eq!(read.container_list, list, "{file}");
        assert_reads_as(file, &read.cpm, &fixture.expected);
    }
}

#[test]
fn both_container_lists_decode_to_one_cpm_and_we_write_the_root_one() {
    let (with_bit, root) = (bytes("v2_extension_bit.hex"), bytes("v2_root.hex"));
    let (from_bit, list) = cpm::decode_with_list(&with_bit).unwrap();
    assert_eq!(list, ContainerList::WithExtensionBit);
    let (from_root, list) = cpm::decode_with_list(&root).unwrap();
    assert_eq!(list, ContainerList::Root);
    assert_eq!(from_bit, from_root);
    // byte for byte what asn1tools writes, each form
    assert_eq!(cpm::encode(&from_bit).unwrap(), root);
    assert_eq!(cpm::encode_with_extension_bit(&from_root).unwrap(), with_bit);
    // the XER carries the same CPM (containers as their UPER encoding once read)
    assert_eq!(cpm::decode_xer(&bytes("v2.xml")).unwrap(), from_root);

    assert_eq!(format::describe(&root), "CPM (TS 103 324), UPER");
    assert_eq!(format::describe(&with_bit), "CPM (TS 103 324), UPER, container list with extension bit");
    assert_eq!(format::describe(&bytes("v2.xml")), "CPM (TS 103 324), XER");
    assert_eq!(format::describe(&bytes("v1_rsu.hex")), "CPM (TR 103 562), UPER");
    assert_eq!(
        format::label(format::detect(&with_bit), Some(ContainerList::WithExtensionBit)),
        format::describe(&with_bit)
    );
}

#[test]
fn a_geonetworking_framed_cpm_with_the_extension_bit_is_read() {
    let with_bit = bytes("v2_extension_bit.hex");
    let sender =
        gn::Sender { station_id: 4711, time_its_ms: 591_619_380_000, lat_e7: 478_101_000, lon_e7: 130_518_000 };
    let packet = gn::wrap(&with_bit, gn::PORT_CPM, &sender, gn::Broadcast::SingleHop).unwrap();
    let format = format::detect(&packet);
    assert_eq!(format, Format::GnBtp(Message::CpmV2));
    let read = format::read_cpm_as(format::recognise(&packet), 0).unwrap();
    assert_eq!(read.container_list, Some(ContainerList::WithExtensionBit));
    assert_eq!(read.cpm, format::simple_cpm(&with_bit, 0).unwrap());
    assert_eq!(format::describe(&packet), "CPM (TS 103 324) in GeoNetworking + BTP, container list with extension bit");
}

#[test]
fn release_1_fixtures_re_encode_byte_for_byte() {
    for file in ["v1_rsu.hex", "v1_vehicle.hex"] {
        let bytes = bytes(file);
        assert_eq!(v1::encode(&v1::decode(&bytes).unwrap()).unwrap(), bytes, "{file}");
    }
}

#[test]
fn a_vehicle_cpm_without_orientation_is_refused() {
    use etsi_its::asn1::cdd_1_3_1_1::its_container::HeadingValue;
    use etsi_its::asn1::cpm_1::cpm_pdu_descriptions::StationDataContainer;
    let mut cpm = v1::decode(&bytes("v1_vehicle.hex")).unwrap();
    let Some(StationDataContainer::originatingVehicleContainer(vehicle)) =
        &mut cpm.cpm.cpm_parameters.station_data_container
    else {
        panic!("the fixture is a vehicle's")
    };
    vehicle.heading.heading_value = HeadingValue(3601);
    let error = SimpleCpm::from_cpm_v1(&cpm, 591_619_380_000).unwrap_err();
    assert!(error.message().contains("heading unavailable"), "{error}");
    // and a station that is no RSU and says nothing of its frame
    cpm.cpm.cpm_parameters.station_data_container = None;
    let error = SimpleCpm::from_cpm_v1(&cpm, 591_619_380_000).unwrap_err();
    assert!(error.message().contains("station type 5"), "{error}");
}

/// The scene of the fixtures as our view, from what fixtures.json says v2_root.hex holds.
fn scene() -> SimpleCpm {
    let document = document();
    let expected = &document.fixtures.iter().find(|f| f.file == "v2_root.hex").unwrap().expected;
    SimpleCpm {
        protocol_version: expected.protocol_version,
        station_id: expected.station_id,
        reference_time_its_ms: expected.reference_time_its_ms,
        reference_lat_e7: expected.reference_lat_e7,
        reference_lon_e7: expected.reference_lon_e7,
        sensors: expected.sensors.iter().map(|s| (s[0], s[1])).collect(),
        objects: expected
            .objects
            .iter()
            .map(|o| etsi_its::cpm::SimpleObject {
                object_id: o.object_id,
                measurement_delta_ms: 0,
                x_cm: o.x_cm,
                y_cm: o.y_cm,
                x_conf_cm: 25,
                y_conf_cm: 25,
                velocity: Some((o.vx_cm_s as i16, o.vy_cm_s as i16)),
                yaw_decideg: Some(o.yaw_decideg as u16),
                class: kind(&o.class),
                class_confidence_pct: 85,
                sensor_id: Some(1),
            })
            .collect(),
    }
}

/// Our encodings of the scene, committed for tests/python/test_cpm_asn1tools.py to decode with
/// asn1tools: `ours_v2.hex` and `ours_v1.hex` (SimpleCpm::to_cpm / to_cpm_v1) and `ours_v2.xml`
/// and `ours_v2_shapes.xml` (the asn1tools CPMs with perception region shapes, written by our XER
/// encoder). This test keeps
/// them what our encoders write; `CITS_WRITE_FIXTURES=1` rewrites them.
#[test]
fn our_encodings_are_the_committed_ones() {
    let scene = scene();
    let ours = [
        ("ours_v2.hex", cpm::encode(&scene.to_cpm()).unwrap()),
        ("ours_v1.hex", v1::encode(&scene.to_cpm_v1().unwrap()).unwrap()),
        ("ours_v2.xml", cpm::encode_xer(&cpm::decode(&bytes("v2_root.hex")).unwrap()).unwrap()),
        ("ours_v2_shapes.xml", cpm::encode_xer(&cpm::decode_xer(&bytes("v2_shapes.xml")).unwrap()).unwrap()),
    ];
    for (file, encoded) in ours {
        let text = if file.ends_with(".hex") {
            encoded.iter().map(|b| format!("{b:02x}")).collect::<String>()
        } else {
            String::from_utf8(encoded).unwrap()
        } + "\n";
        if std::env::var_os("CITS_WRITE_FIXTURES").is_some() {
            std::fs::write(format!("{DIR}/{file}"), &text).unwrap();
        }
        assert_eq!(std::fs::read_to_string(format!("{DIR}/{file}")).unwrap(), text, "{file}");
    }
}

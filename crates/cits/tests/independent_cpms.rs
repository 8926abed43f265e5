//! CPMs encoded by an independent codec (asn1tools from ETSI's ASN.1, the fixtures of
//! crates/etsi-its/tests/fixtures/cpm, made by tests/python/make_cpm_fixtures.py) through the
//! decoder and collector as an RSU that sends the standard's frame: every object lands where it
//! was encoded, whatever the encoding.
//!
//! The scene: station 4711 at 47.8101, 13.0518; a car 20 m west and 1.8 m south of the
//! reference position heading east at 8.3 m/s, a cyclist 6.5 m east and 12.4 m north heading
//! south at 4.2 m/s, a pedestrian 3.5 m west and 9 m north heading west at 1.1 m/s.

use cits::proto::ObjectClass;
use cits::shared::geo::{wgs84_to_offset, Wgs84};
use cits::stages::collector::calibration::Calibrations;
use cits::stages::collector::object_frame::ObjectFrames;

const REFERENCE: Wgs84 = Wgs84 { lat: 47.8101, lon: 13.0518 };
/// The fixtures' reference time (TimestampIts, ms).
const REFERENCE_ITS_MS: u64 = 591_619_380_000;

/// (class, east m, north m, speed m/s, heading °).
const SCENE: [(ObjectClass, f64, f64, f64, f64); 3] = [
    (ObjectClass::Car, -20.0, -1.8, 8.3, 90.0),
    (ObjectClass::Bicycle, 6.5, 12.4, 4.2, 180.0),
    (ObjectClass::Pedestrian, -3.5, 9.0, 1.1, 270.0),
];

fn fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../etsi-its/tests/fixtures/cpm").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if name.ends_with(".xml") {
        return text.into_bytes();
    }
    let hex = text.trim();
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
}

#[test]
fn independent_cpms_land_where_they_were_encoded() {
    let received_at_us = cits::shared::time::its_ms_to_unix_us(REFERENCE_ITS_MS + 150);
    for (file, format) in [
        ("v2_root.hex", "CPM (TS 103 324), UPER"),
        ("v2_extension_bit.hex", "CPM (TS 103 324), UPER, container list with extension bit"),
        ("v2.xml", "CPM (TS 103 324), XER"),
        ("v2_shapes.xml", "CPM (TS 103 324), XER"),
        ("v1_rsu.hex", "CPM (TR 103 562), UPER"),
        // A car's Release 1 CPM: its objects in its body frame (heading 60°), turned east/north.
        ("v1_vehicle.hex", "CPM (TR 103 562), UPER"),
    ] {
        let wrapper = cits::stages::decoder::decode("cits.cpm.vendor", &fixture(file), received_at_us)
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(wrapper.ingest.as_ref().unwrap().format, format, "{file}");
        // No object_frame entry: the standard's frame; the calibration of another station's
        // camera 1 must not matter.
        let frame = cits::stages::collector::collect(&wrapper, &Calibrations::default(), &ObjectFrames::default())
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(frame.locations.len(), SCENE.len(), "{file}");
        for (l, (class, east, north, speed, heading)) in frame.locations.iter().zip(SCENE) {
            let (e, n) = wgs84_to_offset(REFERENCE, Wgs84 { lat: l.latitude, lon: l.longitude });
            assert!((e - east).abs() < 0.1 && (n - north).abs() < 0.1, "{file} {class:?}: ({e:.2}, {n:.2})");
            assert_eq!(l.classification, class as i32, "{file}");
            assert!((l.speed_mps.unwrap() - speed).abs() < 0.05, "{file} {class:?}: {:?}", l.speed_mps);
            let off = (l.heading_deg.unwrap() - heading + 540.0).rem_euclid(360.0) - 180.0;
            assert!(off.abs() < 1.0, "{file} {class:?}: heading {:?}", l.heading_deg);
        }
    }
}

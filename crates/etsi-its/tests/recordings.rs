//! Every CPM of the committed recordings (data/*.rec.b64): re-encoding its `SimpleCpm` gives the
//! recorded bytes (as the hand-written codec this crate replaced did, byte for byte), and it
//! survives each conversion the recordings can be made into: Release 1 (TR 103 562), XER, and
//! GeoNetworking + BTP, each read back through `format`.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use etsi_its::cpm::{self, SimpleCpm};
use etsi_its::format::{self, Format, Message};
use etsi_its::gn;

/// (file, the UPER CPMs it records): 4-byte length, 8-byte timestamp, CPM, base64 per line.
fn recordings() -> Vec<(String, Vec<Vec<u8>>)> {
    // The crate's folder as `cargo test` says it when running: a test binary built in another
    // checkout that shares the target directory has that checkout's folder compiled in.
    let crate_dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string());
    let data = std::path::Path::new(&crate_dir).join("../../data");
    let mut files: Vec<_> = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".rec.b64"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no recordings in {}", data.display());
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let cpms = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|line| {
                    let raw = STANDARD.decode(line.trim()).unwrap();
                    let len = u32::from_be_bytes(raw[..4].try_into().unwrap()) as usize;
                    assert_eq!(raw.len(), 12 + len, "{}", path.display());
                    raw[12..].to_vec()
                })
                .collect();
            (path.file_name().unwrap().to_string_lossy().into_owned(), cpms)
        })
        .collect()
}

#[test]
fn recorded_cpms_re_encode_to_the_recorded_bytes() {
    let mut count = 0;
    for (file, cpms) in recordings() {
        for (i, bytes) in cpms.iter().enumerate() {
            let simple = SimpleCpm::from_cpm(&cpm::decode(bytes).unwrap()).unwrap();
            assert_eq!(&cpm::encode(&simple.to_cpm()).unwrap(), bytes, "{file} #{i}");
            count += 1;
        }
    }
    assert!(count > 1000, "only {count} CPMs");
}

/// Every fifth CPM (the conversions are slow in a debug build).
#[test]
fn recorded_cpms_convert_to_every_input_format() {
    for (file, cpms) in recordings() {
        for (i, bytes) in cpms.iter().enumerate().step_by(5) {
            let simple = SimpleCpm::from_cpm(&cpm::decode(bytes).unwrap()).unwrap();
            let received = simple.reference_time_its_ms + 150;
            let what = format!("{file} #{i}");

            let v1 = cpm::v1::encode(&simple.to_cpm_v1().unwrap()).unwrap();
            assert_eq!(format::detect(&v1), Format::Uper(Message::CpmV1), "{what}");
            let from_v1 = format::simple_cpm(&v1, received).unwrap();
            assert_eq!(SimpleCpm { protocol_version: simple.protocol_version, ..from_v1 }, simple, "{what}: Release 1");

            let xer = cpm::encode_xer(&cpm::decode(bytes).unwrap()).unwrap();
            assert_eq!(format::detect(&xer), Format::Xer(Message::CpmV2), "{what}");
            assert_eq!(format::simple_cpm(&xer, received).unwrap(), simple, "{what}: XER");

            let sender = gn::Sender {
                station_id: simple.station_id,
                time_its_ms: simple.reference_time_its_ms,
                lat_e7: simple.reference_lat_e7,
                lon_e7: simple.reference_lon_e7,
            };
            let packet = gn::wrap(bytes, gn::PORT_CPM, &sender, gn::Broadcast::SingleHop).unwrap();
            assert_eq!(format::detect(&packet), Format::GnBtp(Message::CpmV2), "{what}");
            assert_eq!(format::simple_cpm(&packet, received).unwrap(), simple, "{what}: GeoNetworking");
        }
    }
}

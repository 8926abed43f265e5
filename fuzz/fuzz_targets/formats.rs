//! Every input format the decoder recognises (CPM of either release, CAM, DENM, VAM; UPER, XER,
//! GeoNetworking + BTP) on arbitrary bytes: recognised and decoded or refused with a reason, never
//! a panic; what decodes encodes again (UPER) to the same value.
#![no_main]

use etsi_its::format::{self, Decoded};
use etsi_its::{cam, cpm, denm, vam};

/// A reception time (TimestampIts, 2023) to place a Release 1 CPM's 16-bit time.
const RECEIVED_ITS_MS: u64 = 600_000_000_000;

/// Encodes `value` in UPER and decodes it again: the same value.
fn round_trip<T: PartialEq + std::fmt::Debug>(
    value: &T,
    encode: fn(&T) -> Result<Vec<u8>, etsi_its::CodecError>,
    decode: fn(&[u8]) -> Result<T, etsi_its::CodecError>,
) {
    let again = encode(value).unwrap_or_else(|e| panic!("a decoded message does not encode: {e}"));
    let back = decode(&again).unwrap_or_else(|e| panic!("a re-encoded message does not decode: {e}"));
    assert_eq!(&back, value, "a decoded message encodes to another value");
}

libfuzzer_sys::fuzz_target!(init: cits_fuzz::init(), |data: &[u8]| {
    let _ = format::detect(data);
    let _ = format::simple_cpm(data, RECEIVED_ITS_MS);
    let _ = format::simple_cam_as(format::recognise(data));
    let _ = format::simple_vam_as(format::recognise(data));
    match format::decode(data) {
        Ok(Decoded::CpmV2(c)) => round_trip(c.as_ref(), cpm::encode, cpm::decode),
        Ok(Decoded::CpmV1(c)) => round_trip(c.as_ref(), cpm::v1::encode, cpm::v1::decode),
        Ok(Decoded::Cam(c)) => round_trip(c.as_ref(), cam::encode, cam::decode),
        Ok(Decoded::Denm(d)) => round_trip(d.as_ref(), denm::encode, denm::decode),
        Ok(Decoded::Vam(v)) => round_trip(v.as_ref(), vam::encode, vam::decode),
        Ok(Decoded::VamV3(v)) => round_trip(v.as_ref(), vam::v3::encode, vam::v3::decode),
        Err(e) => assert!(!e.message().is_empty(), "an error without a reason"),
    }
});

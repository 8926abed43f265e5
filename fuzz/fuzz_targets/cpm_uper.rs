//! The UPER CPM decoder (TS 103 324) on arbitrary bytes: it decodes or says why not, and what it
//! decodes is a CPM the pipeline's view accepts or refuses with a reason, and encodes again to the
//! same value.
#![no_main]

libfuzzer_sys::fuzz_target!(init: cits_fuzz::init(), |data: &[u8]| {
    let Ok(cpm) = etsi_its::cpm::decode(data) else { return };
    let _ = etsi_its::cpm::SimpleCpm::from_cpm(&cpm);
    let again = etsi_its::cpm::encode(&cpm).unwrap_or_else(|e| panic!("a decoded CPM does not encode: {e}"));
    let back = etsi_its::cpm::decode(&again).unwrap_or_else(|e| panic!("a re-encoded CPM does not decode: {e}"));
    assert_eq!(back, cpm, "a decoded CPM encodes to another value");
});

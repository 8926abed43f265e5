//! The denm_sender stage's handler on arbitrary bytes on its input subject, delivered as its actor
//! delivers them: processed, or a dead letter with a reason.
#![no_main]

libfuzzer_sys::fuzz_target!(init: cits_fuzz::init(), |data: &[u8]| cits_fuzz::fuzz_stage::<cits::stages::DenmSender>(data));

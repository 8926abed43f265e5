//! The fused chain (all seven stages in one invocation, as the fused actor runs them) on
//! arbitrary bytes: one CPM or a batch of messages, optionally delivered twice (see
//! `cits_fuzz::FusedInput`). Every message is processed or dead-lettered with a reason; a
//! redelivered single message is recognised as applied and publishes nothing again.
#![no_main]

use cits::pipeline::Fused;
use cits_fuzz::{check, deliver, FusedInput, Platform};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some(input) = FusedInput::parse(data) else { return };
    let subject = input.subject();
    let mut svc = Platform::new(Vec::new());
    check("pipeline", deliver(&mut svc, "pipeline", true, Fused::run, &subject, input.body));
    if input.redelivered {
        let again =
            check("pipeline (redelivered)", deliver(&mut svc, "pipeline", true, Fused::run, &subject, input.body));
        if !input.batch {
            assert_eq!(again.already_applied, 1, "a redelivered CPM is applied again");
            assert!(again.outbound.is_empty(), "a redelivered CPM publishes again");
        }
    }
});

//! The fused chain (all seven stages in one invocation, as the fused actor runs them) on
//! arbitrary bytes: one CPM or a batch of messages, optionally delivered twice (see
//! `cits_fuzz::FusedInput`). Every message is processed or dead-lettered with a reason; delivered
//! again, every message is recognised as applied and nothing is published twice.
#![no_main]

use cits::pipeline::{Fused, Handler as _};
use cits::proto::MessageBatch;
use cits_fuzz::{check, deliver, platform, FusedInput};
use prost::Message as _;

libfuzzer_sys::fuzz_target!(init: cits_fuzz::init(), |data: &[u8]| {
    let Some(input) = FusedInput::parse(data) else { return };
    let subject = input.subject();
    let mut svc = platform(Vec::new());
    check::<Fused>(Fused::NAME, &subject, input.body, deliver::<Fused>(&mut svc, &subject, input.body));
    if !input.redelivered {
        return;
    }
    let again = deliver::<Fused>(&mut svc, &subject, input.body);
    let again = check::<Fused>(&format!("{} (redelivered)", Fused::NAME), &subject, input.body, again);
    // A batch that is no MessageBatch is one dead letter, published again under the same id. Of
    // the others, a subject's applied marker keeps the last 64 messages.
    let n = if input.batch { MessageBatch::decode(input.body).ok().map(|b| b.messages.len()) } else { Some(1) };
    if let Some(n) = n.filter(|n| *n <= 64) {
        assert_eq!(again.already_applied, n, "a redelivered message is applied again");
        assert!(again.outbound.is_empty(), "a redelivered message publishes again");
    }
});

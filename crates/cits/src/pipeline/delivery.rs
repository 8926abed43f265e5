//! One delivery (a message or a batch) from the messaging provider, handled so that a
//! redelivery is harmless.

use std::collections::HashMap;

use prost::Message as _;

use super::{buckets, Cached, Handler, Outcome, Services};
use crate::config::check_known;
use crate::message::{dead_letter, Outbound, StageError};
use crate::subjects;

/// What one delivery (a message or a batch) produced.
#[derive(Debug, Default)]
pub struct Handled {
    /// To publish, in order: outputs and dead letters of every message, each with its message id
    /// (`<input frame>:<stage>:<n>`, the same when the input is delivered again).
    pub outbound: Vec<(String, Outbound)>,
    /// (subject, reason) of each message that became a dead letter, for the log.
    pub rejected: Vec<(String, StageError)>,
    /// Messages skipped because their effects were already committed (a redelivery).
    pub already_applied: usize,
}

/// How a platform publishes one delivery's outputs: returns once all of them are stored (the
/// messaging provider awaits JetStream's acks), or fails so the delivery is retried.
pub type Publish<'a> = &'a mut dyn FnMut(&[(String, Outbound)]) -> Result<(), StageError>;

/// Handles one delivery with handler `H` (a stage or [`super::Fused`]): a single message, or a
/// [`crate::proto::MessageBatch`] on [`subjects::BATCH`] whose messages are handled one after the
/// other. The order of effects makes a redelivered message harmless:
///
/// 1. compute every message's outputs on state read through a [`Cached`] view (nothing written),
///    a batch's state ([`Handler::state_keys`] of each message) read with its first read;
/// 2. `publish` them, each with a message id derived from its input, so JetStream drops the
///    copies a redelivery publishes again;
/// 3. commit the state in one write, together with an "applied" marker per input subject
///    holding the ids of the last inputs applied ([`input_key`]);
/// 4. return, after which the provider acknowledges the input.
///
/// A crash before 3 leaves the state as it was: the redelivered input is computed again and its
/// outputs are duplicates that JetStream drops. A crash between 3 and 4 leaves the marker: a
/// stateful stage that finds its input's id there skips it (its outputs were published before
/// the commit); so does an identical message resent by the RSU. An unavailable service fails the
/// delivery before anything was written.
pub fn handle<H: Handler, V: Services>(
    svc: V,
    subject: &str,
    body: &[u8],
    publish: Publish<'_>,
) -> Result<Handled, StageError> {
    let name = H::NAME;
    let batch = if subject == subjects::BATCH {
        match crate::proto::MessageBatch::decode(body) {
            Ok(batch) => batch.messages,
            Err(e) => {
                let reason = StageError::new(format!("not a protobuf MessageBatch: {e}"));
                let letter = dead_letter(name, &reason, subject, body, crate::shared::time::now_us());
                let id = crate::message::dead_letter_id(name, subject, body, None);
                let handled = Handled {
                    outbound: vec![(id, letter)],
                    rejected: vec![(subject.to_string(), reason)],
                    ..Default::default()
                };
                publish(&handled.outbound)?;
                return Ok(handled);
            }
        }
    } else {
        vec![crate::proto::BatchedMessage { subject: subject.to_string(), body: body.to_vec(), ..Default::default() }]
    };
    let ids: Vec<String> = batch.iter().map(|m| input_key::<H>(&m.subject, &m.body)).collect();
    let marker = |m: &crate::proto::BatchedMessage| format!("{name}/{}", m.subject);
    // Inputs found applied: the computation starts over without them (rare: only after a crash
    // between commit and acknowledgement), so no state they changed is applied twice.
    let mut skip = vec![false; batch.len()];
    let mut cached = Cached::new(svc);
    // A config key the handler does not declare is a misspelling or a setting of another stage:
    // every message says so as a dead letter rather than run on the default it meant to change.
    let misconfigured = check_known(name, H::CONFIG, super::entries(&cached.config()?)).err();
    'attempt: loop {
        cached.discard();
        if H::STATEFUL {
            // Read with the stage's own first read: no extra round trip. So is the state of the
            // batch's later messages (a single message's stage reads all of its own at once).
            for m in &batch {
                cached.want(buckets::APPLIED, marker(m));
                if batch.len() > 1 {
                    for (bucket, key) in H::state_keys(&m.body) {
                        cached.want(bucket, key);
                    }
                }
            }
        }
        let mut handled = Handled { already_applied: skip.iter().filter(|s| **s).count(), ..Default::default() };
        for (i, msg) in batch.iter().enumerate() {
            if skip[i] {
                continue;
            }
            let now = crate::shared::time::now_us();
            let outcome = match &misconfigured {
                Some(reason) => Outcome::DeadLettered {
                    letter: dead_letter(name, reason, &msg.subject, &msg.body, now),
                    reason: reason.clone(),
                },
                None => H::run(&mut cached, &msg.subject, &msg.body, now),
            };
            // A good input is known by its key (`input_key`: the RSU's resend of a CPM is the same
            // frame); a bad one by its bytes and where the stream stored it, so that the same bad
            // bytes sent again are a dead letter again, while its redelivery is not (`input_id`).
            let id = match outcome {
                Outcome::DeadLettered { .. } => {
                    crate::message::input_id(&msg.subject, &msg.body, Some(msg.stream_sequence).filter(|&s| s > 0))
                }
                _ => ids[i].clone(),
            };
            if H::STATEFUL {
                let stored = match cached.known(buckets::APPLIED, &marker(msg)) {
                    Some(stored) => stored.map(<[u8]>::to_vec),
                    // The stage read nothing (refused its input first): read the marker now.
                    None => cached.get_many(buckets::APPLIED, &[marker(msg)])?.remove(0),
                };
                let applied = Applied::parse(stored.as_deref());
                if applied.contains(&id) {
                    skip[i] = true;
                    continue 'attempt;
                }
                cached.set_many(buckets::APPLIED, vec![(marker(msg), applied.with(&id))])?;
            }
            let outputs = match outcome {
                Outcome::Processed(out) => out,
                Outcome::DeadLettered { letter, reason } => {
                    handled.rejected.push((msg.subject.clone(), reason));
                    vec![letter]
                }
                Outcome::Retry(reason) => return Err(reason),
            };
            handled.outbound.extend(output_ids(&id, name, outputs));
        }
        if !handled.outbound.is_empty() {
            publish(&handled.outbound)?;
        }
        cached.flush()?;
        return Ok(handled);
    }
}

/// The field every frame of the pipeline keeps the CPM's frame id in (`frame_id = 14`), read
/// alone from any of them.
#[derive(Clone, PartialEq, prost::Message)]
struct CarriedFrameId {
    #[prost(string, tag = "14")]
    frame_id: String,
}

/// How an input is known to its stage (applied markers, output message ids): by the CPM frame
/// it carries (see [`Handler::INPUT_IS_FRAME`]); else by its subject and bytes
/// ([`crate::message::frame_id`]: a CPM the RSU sent again is the same frame). A frame known by
/// its CPM gives the same output ids however often it is computed, so JetStream keeps one
/// `FrameDone` per CPM even when an upstream stage handled it twice against different state.
pub fn input_key<H: Handler>(subject: &str, body: &[u8]) -> String {
    if H::INPUT_IS_FRAME {
        if let Some(carried) = CarriedFrameId::decode(body).ok().filter(|c| !c.frame_id.is_empty()) {
            return carried.frame_id;
        }
    }
    crate::message::frame_id(subject, body)
}

/// Each output's message id: the input's id, the stage, the output's subject and its place among
/// that input's outputs on the same subject. Not its place among all outputs: an input handled
/// again against newer state (redelivered after its applied marker rolled off) may add or drop a
/// DENM, and its `FrameDone` must still get the id it had, so the stream drops the copy.
fn output_ids(input_id: &str, stage: &str, outputs: Vec<Outbound>) -> Vec<(String, Outbound)> {
    let mut per_subject: HashMap<String, usize> = HashMap::new();
    outputs
        .into_iter()
        .map(|out| {
            let n = per_subject.entry(out.subject.clone()).or_default();
            let id = format!("{input_id}:{stage}:{}#{n}", out.subject);
            *n += 1;
            (id, out)
        })
        .collect()
}

/// The ids of the last inputs a stateful stage applied from one subject (newest last): enough to
/// recognise any message of a redelivered batch, whose messages are the newest of their subject.
struct Applied(Vec<String>);

impl Applied {
    const KEEP: usize = super::MAX_BATCH;

    fn parse(stored: Option<&[u8]>) -> Self {
        let text = stored.and_then(|b| std::str::from_utf8(b).ok()).unwrap_or("");
        Self(text.split(',').filter(|s| !s.is_empty()).map(String::from).collect())
    }

    fn contains(&self, id: &str) -> bool {
        self.0.iter().any(|a| a == id)
    }

    fn with(mut self, id: &str) -> Vec<u8> {
        self.0.push(id.to_string());
        let from = self.0.len().saturating_sub(Self::KEEP);
        self.0[from..].join(",").into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::*;
    use crate::pipeline::*;
    use crate::proto::{FrameDone, LaneGraph};
    use crate::stages::map_matcher::MATCH_REACH_M;
    use crate::stages::*;

    /// A frame computed twice upstream (other trajectories, other bytes) is one frame to the next
    /// stage; raw CPMs are known by their bytes.
    #[test]
    fn a_frame_is_known_by_the_cpm_it_carries_and_a_cpm_by_its_bytes() {
        let frame = |reference_time_us| {
            crate::proto::TrajectoryFrame {
                rsu_id: "r1".into(),
                reference_time_us,
                frame_id: "0123456789abcdef".into(),
                ..Default::default()
            }
            .encode_to_vec()
        };
        let (first, again) = (frame(1), frame(2));
        assert_ne!(first, again);
        assert_eq!(input_key::<MapMatcher>("cits.trajectories.r1", &first), "0123456789abcdef");
        assert_eq!(input_key::<MapMatcher>("cits.trajectories.r1", &again), "0123456789abcdef");
        let none = crate::proto::TrajectoryFrame { rsu_id: "r1".into(), ..Default::default() }.encode_to_vec();
        assert_eq!(
            input_key::<MapMatcher>("cits.trajectories.r1", &none),
            crate::message::frame_id("cits.trajectories.r1", &none)
        );
        assert_eq!(input_key::<Decoder>("cits.cpm.r1", &first), crate::message::frame_id("cits.cpm.r1", &first));
    }

    #[test]
    fn an_outputs_message_id_does_not_depend_on_the_other_outputs() {
        let done = Outbound { subject: "cits.outbox.done.r1".into(), body: vec![1] };
        let denm = Outbound { subject: "cits.outbox.denm.r1".into(), body: vec![2] };
        let alone = output_ids("f1", Fused::NAME, vec![done.clone()]);
        let after_two_denms = output_ids("f1", Fused::NAME, vec![denm.clone(), denm, done]);
        assert_eq!(alone[0].0, after_two_denms[2].0, "the FrameDone keeps its id");
        assert_ne!(after_two_denms[0].0, after_two_denms[1].0, "two DENMs of one frame differ");
        assert_ne!(output_ids("f2", Fused::NAME, alone.into_iter().map(|o| o.1).collect())[0].0, after_two_denms[2].0);
    }

    #[test]
    fn the_same_bad_bytes_sent_twice_are_two_dead_letters_and_a_redelivery_is_one() {
        let junk = |seq| crate::proto::BatchedMessage {
            subject: "cits.cpm.r1".into(),
            body: b"not a CPM".to_vec(),
            stream_sequence: seq,
            ..Default::default()
        };
        let ids = |seqs: &[u64]| -> Vec<String> {
            let batch = crate::proto::MessageBatch { messages: seqs.iter().map(|&s| junk(s)).collect() };
            let handled =
                handle::<Fused, _>(InMemory::default(), subjects::BATCH, &batch.encode_to_vec(), &mut |_| Ok(()))
                    .unwrap();
            assert_eq!(handled.rejected.len(), seqs.len());
            handled
                .outbound
                .into_iter()
                .map(|(id, out)| {
                    assert!(out.subject.starts_with("cits.dlq."), "{}", out.subject);
                    id
                })
                .collect()
        };
        let sent_twice = ids(&[41, 42]);
        assert_ne!(sent_twice[0], sent_twice[1], "two publishes, two dead letters kept");
        assert_eq!(ids(&[42]), sent_twice[1..], "a redelivery of the second: its id again");
        // Delivered without a stream (a test, `cits stage` on core NATS): by content, as before.
        let alone = handle::<Fused, _>(InMemory::default(), "cits.cpm.r1", b"not a CPM", &mut |_| Ok(())).unwrap();
        assert!(alone.outbound[0].0.starts_with(&crate::message::frame_id("cits.cpm.r1", b"not a CPM")));
        assert!(!alone.outbound[0].0.contains('@'));
    }

    #[test]
    fn a_config_key_no_stage_declares_dead_letters_every_message_saying_so() {
        let batch = cpm_batch().encode_to_vec();
        let mut misspelt = InMemory::default();
        misspelt.config.push(("limits.max_age_msec".into(), "60000".into()));
        let handled = handle::<Fused, _>(misspelt, subjects::BATCH, &batch, &mut |_| Ok(())).unwrap();
        assert_eq!(handled.rejected.len(), 5, "every message of the delivery");
        for (_, reason) in &handled.rejected {
            assert_eq!(
                reason.reason,
                "pipeline config: unknown key `limits.max_age_msec` (did you mean `limits.max_age_ms`?)"
            );
        }
        assert!(handled.outbound.iter().all(|(_, out)| out.subject == subjects::dead_letter(Fused::NAME)));
        // A stage's own key in another stage's config is refused as well: it would change nothing.
        let mut elsewhere = InMemory::new(vec![("horizon_ms".into(), "3000".into())], Default::default());
        let frame = crate::proto::LocationsFrame { rsu_id: "r1".into(), ..Default::default() };
        let handled =
            handle::<Assembler, _>(&mut elsewhere, "cits.locations.r1", &frame.encode_to_vec(), &mut |_| Ok(()))
                .unwrap();
        assert_eq!(handled.rejected[0].1.reason, "assembler config: unknown key `horizon_ms`");
        // The same delivery with the key spelt right: processed.
        let mut right = InMemory::default();
        right.config.push(("limits.max_age_ms".into(), "60000".into()));
        let handled = handle::<Fused, _>(right, subjects::BATCH, &batch, &mut |_| Ok(())).unwrap();
        assert!(handled.rejected.is_empty(), "{:?}", handled.rejected);
    }

    /// Five CPMs of one RSU as a provider batch, the same objects moving on, one each side of
    /// a map tile's edge (longitude 13.054°).
    fn cpm_batch() -> crate::proto::MessageBatch {
        let mut cpm = sample_sent(1000);
        cpm.reference_lon_e7 = 130_540_100;
        let messages = (0..5)
            .map(|_| {
                cpm.reference_time_its_ms += 100;
                for o in &mut cpm.objects {
                    o.x_cm += 50;
                }
                crate::proto::BatchedMessage {
                    subject: "cits.cpm.r1".into(),
                    body: etsi_its::cpm::encode(&cpm.to_cpm()).unwrap(),
                    ..Default::default()
                }
            })
            .collect();
        crate::proto::MessageBatch { messages }
    }

    /// One delivery through the fused chain; what it published is appended to `published`.
    fn deliver<V: Services>(
        svc: V,
        subject: &str,
        body: &[u8],
        published: &mut Vec<(String, Outbound)>,
    ) -> Result<Handled, StageError> {
        handle::<Fused, V>(svc, subject, body, &mut |out: &[(String, Outbound)]| {
            published.extend_from_slice(out);
            Ok(())
        })
    }

    /// Each message delivered on its own, in order.
    fn deliver_each(
        store: &mut InMemory,
        messages: &[crate::proto::BatchedMessage],
        published: &mut Vec<(String, Outbound)>,
    ) {
        for m in messages {
            deliver(&mut *store, &m.subject, &m.body, published).unwrap();
        }
    }

    fn done(out: &[(String, Outbound)]) -> Vec<(FrameDone, Vec<String>)> {
        out.iter().map(|(_, o)| o).filter(|o| o.subject == "cits.outbox.done.r1").map(stages_of).collect()
    }

    #[test]
    fn a_batch_gives_what_its_messages_give_one_by_one_with_one_write_back() {
        let batch = cpm_batch();
        let mut batched = Recording::new(InMemory::default());
        let out = deliver(&mut batched, subjects::BATCH, &batch.encode_to_vec(), &mut Vec::new()).unwrap();
        let mut single = Recording::new(InMemory::default());
        let mut singles = Vec::new();
        for m in &batch.messages {
            deliver(&mut single, &m.subject, &m.body, &mut singles).unwrap();
        }
        let ids = |out: &[(String, Outbound)]| -> Vec<String> { out.iter().map(|(id, _)| id.clone()).collect() };
        assert_eq!(ids(&out.outbound), ids(&singles), "message ids depend on the input only");
        assert_eq!(done(&out.outbound).len(), 5);
        assert_eq!(done(&out.outbound), done(&singles));
        assert_eq!(state_of(&batched.inner), state_of(&single.inner), "same state in the store");
        // All state read ahead in one call and written back in one, one tile read.
        assert_eq!((batched.gets, batched.sets), (1, 1));
        assert_eq!(batched.blob_reads, 1);
        // The objects lie in two grid tiles; one tile serves them all, and only that one is read.
        let tiles_read: Vec<&String> =
            batched.keys_read.iter().filter(|k| k.starts_with(&flat_key(buckets::MAP_TILES, ""))).collect();
        assert_eq!(tiles_read.len(), 1, "{tiles_read:?}");
        assert_eq!((single.gets, single.sets), (5, 5), "one read and one write per message delivered alone");
        assert_eq!(single.blob_reads, 1, "later messages find the tile's copy with their state");
        // The next delivery reads the copy of its tile with its state: one read in all.
        let mut next = sample_sent(400);
        for o in &mut next.objects {
            o.x_cm += 300;
        }
        let (gets, blob_reads) = (batched.gets, batched.blob_reads);
        let next = etsi_its::cpm::encode(&next.to_cpm()).unwrap();
        let handled = deliver(&mut batched, "cits.cpm.r1", &next, &mut Vec::new()).unwrap();
        assert_eq!((handled.already_applied, handled.rejected.len()), (0, 0));
        assert_eq!((batched.gets - gets, batched.blob_reads - blob_reads), (1, 0));
    }

    #[test]
    fn a_batch_reads_the_state_of_all_its_messages_in_its_first_read() {
        // Four location frames of one RSU, each bringing an object the ones before did not have.
        let frames: Vec<crate::proto::BatchedMessage> = (0..4u32)
            .map(|i| {
                let now = crate::shared::time::now_us();
                let located = |object_id: u32| crate::proto::LocationsContainer {
                    station_id: 1001,
                    sensor_id: 1,
                    object_id,
                    measured_at_us: now,
                    latitude: 47.8101,
                    longitude: 13.0518 + f64::from(object_id) * 1e-4,
                    ..Default::default()
                };
                let frame = crate::proto::LocationsFrame {
                    rsu_id: "r1".into(),
                    station_id: 1001,
                    reference_time_us: now,
                    locations: (0..=i).map(located).collect(),
                    frame_id: format!("f{i}"),
                    ..Default::default()
                };
                crate::proto::BatchedMessage {
                    subject: "cits.locations.r1".into(),
                    body: frame.encode_to_vec(),
                    ..Default::default()
                }
            })
            .collect();
        let batch = crate::proto::MessageBatch { messages: frames }.encode_to_vec();
        fn gets_with<H: Handler>(batch: &[u8]) -> (usize, usize) {
            // The assembler's config: the RSU registry of the default is the decoder's.
            let mut svc = Recording::new(InMemory::new(Vec::new(), Default::default()));
            let handled = handle::<H, _>(&mut svc, subjects::BATCH, batch, &mut |_| Ok(())).unwrap();
            assert_eq!((handled.outbound.len(), handled.rejected.len()), (4, 0), "{:?}", handled.rejected);
            (svc.gets, svc.sets)
        }
        /// The assembler without its [`Handler::state_keys`].
        struct Unannounced;
        impl Handler for Unannounced {
            const NAME: &'static str = Assembler::NAME;
            const STATEFUL: bool = true;
            const CONFIG: crate::config::Declared = Assembler::CONFIG;
            fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
                Assembler::process(svc, msg)
            }
        }
        assert_eq!(gets_with::<Assembler>(&batch), (1, 1), "one read and one write for the batch");
        assert_eq!(gets_with::<Unannounced>(&batch), (4, 1), "without them, a read per message with a new object");
    }

    #[test]
    fn prepared_tiles_are_kept_for_the_rest_of_the_delivery() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static BUILDS: AtomicUsize = AtomicUsize::new(0);
        fn build(_: &LaneGraph) -> usize {
            BUILDS.fetch_add(1, Ordering::SeqCst)
        }
        let message = |svc: &mut Cached<InMemory>| {
            let mut tiles = MapTiles::restore(svc, "test", build, MATCH_REACH_M).unwrap();
            tiles.at(svc, 47.8101, 13.0518).unwrap();
            tiles.keep(svc);
        };
        let mut delivery = Cached::new(InMemory::default());
        for _ in 0..3 {
            message(&mut delivery);
        }
        assert_eq!(BUILDS.load(Ordering::SeqCst), 1);
        // A service with no place to keep them prepares them for each message.
        let mut plain = InMemory::default();
        for _ in 0..2 {
            let mut tiles = MapTiles::restore(&mut plain, "test", build, MATCH_REACH_M).unwrap();
            tiles.at(&mut plain, 47.8101, 13.0518).unwrap();
            tiles.keep(&mut plain);
        }
        assert_eq!(BUILDS.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn an_unavailable_store_fails_the_whole_batch_before_any_write() {
        let batch = cpm_batch();
        let mut down = Recording::new(InMemory { down: true, ..Default::default() });
        let mut published = Vec::new();
        let err = deliver(&mut down, subjects::BATCH, &batch.encode_to_vec(), &mut published).unwrap_err();
        assert!(err.unavailable);
        assert_eq!(down.sets, 0);
        assert!(published.is_empty(), "nothing published for a delivery that will be retried");
        // A broken envelope is a dead letter, not a retry.
        let out = deliver(&mut down, subjects::BATCH, &[0xff, 0xff], &mut published).unwrap();
        assert_eq!(out.outbound[0].1.subject, "cits.dlq.pipeline");
        assert_eq!(published.len(), 1);
    }

    #[test]
    fn a_failed_publish_commits_no_state() {
        let batch = cpm_batch();
        let mut store = Recording::new(InMemory::default());
        let m = &batch.messages[0];
        let err = handle::<Fused, _>(&mut store, &m.subject, &m.body, &mut |_: &[(String, Outbound)]| {
            Err(StageError::unavailable("JetStream unavailable"))
        })
        .unwrap_err();
        assert!(err.unavailable);
        assert_eq!(store.sets, 0, "state is committed only after the outputs are stored");
    }

    #[test]
    fn a_redelivery_after_the_commit_is_skipped_and_publishes_nothing() {
        let batch = cpm_batch();
        let mut store = InMemory::default();
        deliver_each(&mut store, &batch.messages, &mut Vec::new());
        let committed = store.kv.clone();
        // The provider died before acknowledging the last message: it comes again.
        let last = batch.messages.last().unwrap();
        let mut again = Vec::new();
        let handled = deliver(&mut store, &last.subject, &last.body, &mut again).unwrap();
        assert_eq!(handled.already_applied, 1);
        assert!(again.is_empty(), "its outputs were published before the commit");
        assert_eq!(store.kv, committed, "no state applied twice");
        // A batch whose first messages were applied goes on with the rest, as if delivered anew.
        let mut fresh = InMemory::default();
        let mut reference = Vec::new();
        deliver(&mut fresh, subjects::BATCH, &batch.encode_to_vec(), &mut reference).unwrap();
        let mut partial = InMemory::default();
        let mut published = Vec::new();
        deliver_each(&mut partial, &batch.messages[..2], &mut published);
        let handled = deliver(&mut partial, subjects::BATCH, &batch.encode_to_vec(), &mut published).unwrap();
        assert_eq!(handled.already_applied, 2);
        assert_eq!(state_of(&partial), state_of(&fresh));
        assert_eq!(done(&published), done(&reference));
    }

    #[test]
    fn a_redelivery_before_the_commit_publishes_the_same_ids_and_applies_state_once() {
        let batch = cpm_batch();
        let mut reference = InMemory::default();
        let mut expected = Vec::new();
        deliver_each(&mut reference, &batch.messages, &mut expected);
        // The last message's outputs are published, then the store fails before the commit.
        let mut store = InMemory::default();
        let mut published = Vec::new();
        let (last, first) = batch.messages.split_last().unwrap();
        deliver_each(&mut store, first, &mut published);
        store.fail_next_set = true;
        assert!(deliver(&mut store, &last.subject, &last.body, &mut published).is_err());
        deliver(&mut store, &last.subject, &last.body, &mut published).unwrap();
        assert_eq!(state_of(&store), state_of(&reference), "state as if delivered once");
        // JetStream keeps the first of each message id: what it stores equals one clean run.
        let mut seen = std::collections::HashSet::new();
        let stored: Vec<(String, Outbound)> = published.into_iter().filter(|(id, _)| seen.insert(id.clone())).collect();
        assert_eq!(
            stored.iter().map(|(id, _)| id).collect::<Vec<_>>(),
            expected.iter().map(|(id, _)| id).collect::<Vec<_>>()
        );
        assert_eq!(done(&stored), done(&expected));
    }

    /// Found by fuzzing (fuzz/, target `fused`: a recorded CPM mutated until the decoder refused
    /// it). A message refused before its stage read any state left the applied marker of its
    /// subject unread, and `handle` wrote it as if it had been empty: the ids of the inputs applied
    /// before were lost, so one of them redelivered after a crash would be applied twice.
    #[test]
    fn a_message_refused_before_any_read_keeps_the_applied_marker() {
        const REFUSED: &[u8] = &[
            0x02, 0x0e, 0x00, 0x00, 0x03, 0xe9, 0x02, 0x26, 0xfd, 0x0d, 0xdf, 0xf6, 0x91, 0x21, 0x38, 0x43, 0x98, 0x8a,
            0xef, 0x87, 0xff, 0xff, 0xff, 0x08, 0xed, 0xdd, 0x0f, 0x92, 0x04, 0x00, 0x00, 0x43, 0x00, 0x45, 0x00, 0x18,
            0x0d, 0xa0, 0x30, 0x00, 0x0b, 0xec, 0x21, 0x15, 0x50, 0x13, 0x7e, 0xb5, 0x00, 0x4e, 0x7b, 0x69, 0xfa, 0x12,
            0x57, 0xe1, 0x51, 0xbf, 0x00, 0x01, 0x00, 0xb6, 0x5a, 0x03, 0x00, 0x00, 0x3e, 0xc1, 0xfe, 0x7d, 0x01, 0x37,
            0xda, 0x84, 0x04, 0xe8, 0x27, 0xbf, 0xa0, 0x9e, 0xfe, 0x07, 0x0b, 0xf0, 0x00, 0x10, 0x24, 0x6c, 0xb4, 0x06,
            0x00, 0x02, 0x7d, 0xe9, 0x02, 0x26, 0xfd, 0x0e, 0x00, 0x32, 0x91, 0x21, 0x38, 0x43, 0x98, 0x8a, 0xef, 0x87,
            0xff, 0xff, 0xff, 0x08, 0xed, 0xdd, 0x0f, 0x92, 0x04, 0x00, 0x00, 0x23, 0x00, 0x46, 0x90, 0x20, 0x11, 0xa0,
            0x30, 0x05, 0x3b, 0xec, 0x20, 0x72, 0x30, 0x1d, 0x80, 0x11, 0x80, 0x76, 0x80, 0x3d, 0xf9, 0xed, 0x4f, 0xe2,
            0xac, 0x3f, 0x00, 0x00, 0x80, 0xb5, 0x5a, 0x03, 0x00, 0x55, 0x3e, 0xc2, 0x09, 0xff, 0x01, 0xd8, 0x09, 0x78,
            0x07, 0x67, 0x72, 0xff, 0xa1, 0x86, 0xfe, 0x16, 0xd7, 0xf0, 0x00, 0x08, 0x0b, 0x59, 0xa0, 0x30, 0x05, 0x63,
            0xec, 0x20, 0x2f, 0x90, 0x1d, 0x81, 0x0a, 0x00, 0x76, 0x82, 0x33, 0xf9, 0xf6, 0x6f, 0xe3, 0x12, 0x7f, 0x00,
            0x00, 0x82, 0x46, 0xdb, 0x40, 0x60, 0x0a, 0xd7, 0xd8, 0x42, 0x71, 0xe0, 0x3b, 0x06, 0x24, 0x00, 0xec, 0xfa,
            0x5f, 0xf3, 0xe9, 0xff, 0xc4, 0x6e, 0x7e, 0x00, 0x84, 0x16, 0xfa, 0x02, 0x70, 0x24, 0x50, 0x09, 0xd0, 0x18,
            0xbf, 0x3f, 0x9c, 0xfc, 0x62, 0x77, 0xe0, 0x00, 0x20, 0x41, 0xb2, 0x00,
        ];
        let good = &cpm_batch().messages[0];
        let mut store = InMemory::default();
        deliver(&mut store, &good.subject, &good.body, &mut Vec::new()).unwrap();
        let refused = deliver(&mut store, &good.subject, REFUSED, &mut Vec::new()).unwrap();
        assert_eq!(
            refused.rejected[0].1.reason,
            "invalid CPM: as CPM (TS 103 324), UPER: CPM: 131 trailing byte(s) after the encoding"
        );
        for body in [good.body.as_slice(), REFUSED] {
            let again = deliver(&mut store, &good.subject, body, &mut Vec::new()).unwrap();
            assert_eq!(again.already_applied, 1, "a redelivery is recognised");
            assert!(again.outbound.is_empty(), "its outputs were published before the commit");
        }
    }
}

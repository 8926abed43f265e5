//! What the fuzz targets share: the platform in memory (`cits::pipeline::testing::InMemory`) with
//! the map and config the seeds were made with (see [`data`]), deliveries the way the actors make
//! them ([`cits::pipeline::handle`]), the input layouts of the `state` and `fused` targets, and the
//! checks every outcome must pass.
//!
//! The seeds come from `crates/cits-research/examples/fuzz_seeds.rs`, which writes these layouts.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use cits::message::{Outbound, StageError};
use cits::pipeline::testing::InMemory;
use cits::pipeline::{self, handle, Handled, Handler};
use cits::proto::DeadLetter;
use prost::Message as _;

mod input;
pub use input::*;

/// What every target runs before libFuzzer starts (`fuzz_target!(init: …)`): lets libFuzzer's
/// crash handler run on a stack of its own, so that a stack overflow is reported like any crash,
/// with the input saved (libFuzzer keeps the `SA_ONSTACK` flag of the handler it replaces;
/// otherwise its handler itself faults on the exhausted stack and the process dies silently).
pub fn init() {
    const SIZE: usize = 1 << 20;
    let stack: &'static mut [u8] = Box::leak(vec![0u8; SIZE].into_boxed_slice());
    // SAFETY: the alternate stack lives for the rest of the process; the handlers set are the
    // defaults, only with the flag libFuzzer carries over to its own.
    unsafe {
        let alt = libc::stack_t { ss_sp: stack.as_mut_ptr().cast(), ss_flags: 0, ss_size: SIZE };
        assert_eq!(libc::sigaltstack(&alt, std::ptr::null_mut()), 0, "sigaltstack");
        for signal in [libc::SIGSEGV, libc::SIGBUS] {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = libc::SIG_DFL;
            action.sa_flags = libc::SA_ONSTACK;
            assert_eq!(libc::sigaction(signal, &action, std::ptr::null_mut()), 0, "sigaction");
        }
    }
}

/// Where `fuzz_seeds` wrote the map's blobs and the config (`CITS_FUZZ_DATA`, set by `make fuzz`).
pub const DATA_ENV: &str = "CITS_FUZZ_DATA";

/// The services' read-only part: config entries and the map's blobs (`<container>/<object>`).
pub struct Data {
    pub config: Vec<(String, String)>,
    pub blobs: Arc<HashMap<String, Vec<u8>>>,
}

/// `$CITS_FUZZ_DATA/config.txt` (one `key=value` a line) and the map tiles in
/// `$CITS_FUZZ_DATA/map/`, read once. Without the variable: RSU [`RSU`] registered for station
/// 1001 with no age limit, and no map (every tile empty).
pub fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| match std::env::var_os(DATA_ENV) {
        Some(dir) => load(Path::new(&dir)).unwrap_or_else(|e| panic!("{DATA_ENV}={}: {e}", dir.to_string_lossy())),
        None => {
            eprintln!("{DATA_ENV} not set: no map, default config");
            Data {
                config: vec![
                    (format!("rsu.{RSU}"), "1001".into()),
                    (format!("object_frame.{RSU}"), "sensor".into()),
                    ("limits.max_age_ms".into(), MAX_AGE_MS.into()),
                ],
                blobs: Arc::default(),
            }
        }
    })
}

fn load(dir: &Path) -> std::io::Result<Data> {
    let text = std::fs::read_to_string(dir.join("config.txt"))?;
    let config = text.lines().filter_map(|l| l.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let mut blobs = HashMap::new();
    for entry in std::fs::read_dir(dir.join("map"))? {
        let entry = entry?;
        let object = entry.file_name().to_string_lossy().into_owned();
        blobs.insert(
            pipeline::InProcess::blob_path(pipeline::MapTiles::<()>::CONTAINER, &object),
            std::fs::read(entry.path())?,
        );
    }
    Ok(Data { config, blobs: Arc::new(blobs) })
}

/// The platform of a fuzz input: [`data`]'s config and map; a key never written is read from
/// `stored` (the values the `state` target's input gives, in the order they are asked for; absent
/// after).
pub fn platform(stored: Vec<Option<Vec<u8>>>) -> InMemory {
    let data = data();
    InMemory { unwritten: stored.into_iter(), ..InMemory::new(data.config.clone(), data.blobs.clone()) }
}

/// One delivery of `body` on `subject` to handler `H`, as its actor makes it.
pub fn deliver<H: Handler>(svc: &mut InMemory, subject: &str, body: &[u8]) -> Result<Handled, StageError> {
    // As the seven-actor manifest does: the stage is given the keys it declares of the config.
    let own = cits::config::declared_only(H::CONFIG, &svc.config);
    let shared = std::mem::replace(&mut svc.config, own);
    let handled = handle::<H, _>(&mut *svc, subject, body, &mut |_: &[(String, Outbound)]| Ok(()));
    svc.config = shared;
    handled
}

/// What every delivery of `body` on `subject` must give with services that work: the outputs
/// of each of its messages or a dead letter with the reason — never a retry, which only a
/// service that is down may cause (a message that fails every time would hold up its RSU for
/// good).
pub fn check<H: Handler>(what: &str, subject: &str, body: &[u8], result: Result<Handled, StageError>) -> Handled {
    let handled =
        result.unwrap_or_else(|e| panic!("{what}: the input made the delivery fail as if a service were down: {e}"));
    check_handled::<H>(what, subject, body, &handled);
    handled
}

/// Each refused message has a decodable dead letter on `cits.dlq.<stage>` with its reason, and
/// each message is accounted for: unless skipped as already applied, it has an output (its id
/// prefixed by the message's key for stage `H`, [`pipeline::input_key`]) or a dead letter.
pub fn check_handled<H: Handler>(what: &str, subject: &str, body: &[u8], handled: &Handled) {
    let letters: Vec<DeadLetter> = handled
        .outbound
        .iter()
        .filter(|(_, o)| o.subject.starts_with("cits.dlq."))
        .map(|(_, o)| {
            let letter = DeadLetter::decode(o.body.as_slice()).expect("a dead letter decodes");
            assert_eq!(
                o.subject,
                cits::subjects::dead_letter(&letter.stage),
                "{what}: dead letter on the wrong subject"
            );
            assert!(!letter.reason.is_empty(), "{what}: dead letter without a reason");
            letter
        })
        .collect();
    assert_eq!(letters.len(), handled.rejected.len(), "{what}: one dead letter per refused message");
    if handled.already_applied > 0 {
        return;
    }
    for (subject, body) in messages(subject, body) {
        // An output is known by the input's key, a dead letter by the input's own bytes.
        let key = pipeline::input_key::<H>(&subject, &body);
        let own = cits::message::frame_id(&subject, &body);
        assert!(
            handled
                .outbound
                .iter()
                .any(|(out, o)| out.starts_with(&key) || (o.subject.starts_with("cits.dlq.") && out.starts_with(&own))),
            "{what}: a message on {subject} gave neither an output nor a dead letter"
        );
    }
}

/// The messages of a delivery: a batch's, or the delivery itself.
fn messages(subject: &str, body: &[u8]) -> Vec<(String, Vec<u8>)> {
    match cits::proto::MessageBatch::decode(body) {
        Ok(batch) if subject == cits::subjects::BATCH => {
            batch.messages.into_iter().map(|m| (m.subject, m.body)).collect()
        }
        _ => vec![(subject.to_string(), body.to_vec())],
    }
}

/// Stage `H` given `body` on its input subject (each, for the decoder), with no stored state.
pub fn fuzz_stage<H: Handler>(body: &[u8]) {
    use cits::subjects::Ingest;
    let mut subjects = vec![input_subject(H::NAME)];
    // The decoder reads the CAMs and VAMs an RSU forwards too, on their own subjects.
    if H::NAME == cits::stages::decoder::STAGE {
        subjects.extend([Ingest::Cam, Ingest::Vam].map(|i| format!("{}{RSU}", i.prefix())));
    }
    for subject in subjects {
        let mut svc = platform(Vec::new());
        check::<H>(H::NAME, &subject, body, deliver::<H>(&mut svc, &subject, body));
    }
}

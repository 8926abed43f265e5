//! What runs a stage's handler on any platform: the contract, delivery, state, map tiles.
//!
//! A stage ([`Handler`], one per folder of [`crate::stages`]) turns one input message into its output messages, using only what [`Services`] gives
//! it (config, key-value batches, read-only blobs). The Wasm actors implement `Services` with WIT
//! imports (`cits-actor`), the native baseline (`cits stage`) with Redis, files and a config map,
//! so the platform comparison runs exactly the same code. [`Fused`] runs all seven in one
//! invocation, for the deployment that keeps every hop but the first and last off the broker.
//!
//! Modules: [`tiles`] (map tiles from the blobstore), [`memory`] (the platform in process), [`cache`]
//! (one delivery's read-through, write-back view of the services), [`delivery`] (the order of
//! effects that makes redelivery harmless), [`fused`] (all seven in one invocation), [`frames`]
//! (the stages between the decoder and the DENM sender as steps from frame to frame).

use std::collections::HashMap;

use crate::message::{dead_letter, Outbound, StageError};

mod cache;
mod delivery;
mod frames;
mod fused;
pub mod memory;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub(crate) mod tiles;

pub use cache::Cached;
pub use delivery::{handle, input_key, Handled, Publish};
pub use frames::{process_frame, FrameStage};
pub use fused::{all_declared, chain, config_table, for_each_stage, EachStage, Fused, Step};
pub use memory::InProcess;
pub use tiles::MapTiles;

/// Most messages one delivery may carry: a stateful stage recognises this many of its last inputs
/// per subject as applied, so a redelivered batch is never applied twice.
pub const MAX_BATCH: usize = 64;

/// Key-value buckets (Redis key prefixes with our provider).
pub mod buckets {
    pub const TRAJECTORIES: &str = "trajectories";
    pub const PATHS: &str = "paths";
    pub const WARNINGS: &str = "warnings";
    /// The DENM sender's next ActionID sequence number per RSU (never expires).
    pub const SEQUENCES: &str = "sequences";
    /// The input each stateful stage applied last, per input subject (see [`handle`]).
    pub const APPLIED: &str = "applied";
    /// Copies of the map tiles in the blobstore, by object name (see [`MapTiles`]).
    pub const MAP_TILES: &str = "map-tiles";
    /// The turn priors the predictor learned per RSU (see `predictor::priors`).
    pub const TURN_PRIORS: &str = "turn-priors";
}

/// A stage's config entries, shared: the seven stages of a fused invocation each ask for them,
/// and copying them per stage was 1.8 % of the machine at 32 intersections (profile, 2026-11-29).
pub type Config = std::sync::Arc<[(String, String)]>;

/// What a stage needs from the platform it runs on. Every failure here is the platform's, not
/// the message's: implementations return [`StageError::unavailable`] so the message is retried.
pub trait Services {
    /// The stage's config entries (wasi:config; named configs of the manifest).
    fn config(&mut self) -> Result<Config, StageError>;
    /// The values of `keys` in `bucket`, in the order of `keys` (None where absent).
    fn get_many(&mut self, bucket: &str, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, StageError>;
    fn set_many(&mut self, bucket: &str, items: Vec<(String, Vec<u8>)>) -> Result<(), StageError>;
    /// A whole read-only object, None when the container has no such object.
    fn read_blob(&mut self, container: &str, object: &str) -> Result<Option<Vec<u8>>, StageError>;

    /// Where prepared map tiles outlive one message (for the rest of a batch), if anywhere.
    fn kept(&mut self) -> Option<&mut Kept> {
        None
    }

    /// Reads these (bucket, key) pairs ahead, in one call where the platform can, for the stages
    /// to find later. A hint: platforms without a cache ignore it.
    fn prefetch(&mut self, _keys: &[(&str, String)]) -> Result<(), StageError> {
        Ok(())
    }
}

/// A borrowed platform is one too (so a long-lived service can back one delivery's [`Cached`]).
impl<S: Services + ?Sized> Services for &mut S {
    fn config(&mut self) -> Result<Config, StageError> {
        (**self).config()
    }
    fn get_many(&mut self, bucket: &str, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, StageError> {
        (**self).get_many(bucket, keys)
    }
    fn set_many(&mut self, bucket: &str, items: Vec<(String, Vec<u8>)>) -> Result<(), StageError> {
        (**self).set_many(bucket, items)
    }
    fn read_blob(&mut self, container: &str, object: &str) -> Result<Option<Vec<u8>>, StageError> {
        (**self).read_blob(container, object)
    }
    fn kept(&mut self) -> Option<&mut Kept> {
        (**self).kept()
    }
    fn prefetch(&mut self, keys: &[(&str, String)]) -> Result<(), StageError> {
        (**self).prefetch(keys)
    }
}

/// Key `key` of bucket `bucket` as our key-value provider stores it (`bucket:key`), which is the
/// same key of the unnamed bucket: so state of several buckets is read or written in one call.
pub fn flat_key(bucket: &str, key: &str) -> String {
    if bucket.is_empty() {
        key.to_string()
    } else {
        format!("{bucket}:{key}")
    }
}

/// Values prepared once and reused by the later messages of a delivery (one per type).
#[derive(Default)]
pub struct Kept(HashMap<std::any::TypeId, Box<dyn std::any::Any>>);

/// One message as a stage sees it.
pub struct Inbound<'a> {
    pub subject: &'a str,
    pub body: &'a [u8],
    /// Wall clock when the stage got the message (µs since the Unix epoch).
    pub received_at_us: u64,
}

/// The one contract every platform runs a message handler by: each of the seven stages and the
/// fused chain ([`Fused`]) implement it, and [`handle`], the actors (`cits-actor`), the native
/// runner (`cits stage`), the fuzz targets and the tests take the handler as a type parameter.
pub trait Handler {
    /// Name: trace entries, dead-letter subject `cits.dlq.<NAME>`, applied markers, message ids,
    /// log context; the component's name in the manifests with `-` for `_`.
    const NAME: &'static str;
    /// Whether the handler keeps key-value state, and so must recognise an input it already
    /// applied (see [`handle`]); stateless handlers simply compute the same outputs again.
    const STATEFUL: bool = false;
    /// Whether its input is a frame of the pipeline, carrying the frame id of the CPM it comes
    /// from: then an input is known by that id rather than by its bytes (see [`handle`]), so a
    /// frame computed again upstream against newer state (other bytes) is still the same frame.
    const INPUT_IS_FRAME: bool = false;
    /// The config keys it reads: a delivery whose config has any other is refused whole
    /// ([`handle`]: each message a dead letter naming the key and the nearest declared one).
    const CONFIG: crate::config::Declared;

    /// One input message's outputs. An error is either the message's fault (it becomes a dead
    /// letter) or, with [`StageError::unavailable`], the platform's (it is retried).
    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError>;

    /// Runs the handler on one message the way every platform must: bad input becomes a dead
    /// letter, an unavailable service a retry.
    fn run<V: Services>(svc: &mut V, subject: &str, body: &[u8], received_at_us: u64) -> Outcome {
        match Self::process(svc, Inbound { subject, body, received_at_us }) {
            Ok(out) => Outcome::Processed(out),
            Err(reason) => refused::<Self, _>(reason, subject, || body),
        }
    }

    /// The state a message will be read with, as (bucket, key): read for a whole batch in its
    /// first read (see [`handle`]) instead of one read per message that brings new keys.
    fn state_keys(_body: &[u8]) -> Vec<(&'static str, String)> {
        Vec::new()
    }
}

/// What becomes of a message handler `H` refused: a retry when a service was unavailable, else
/// the message as a dead letter. Its `body` is asked for only then (a frame the fused chain
/// handed over as a value is encoded for its dead letter alone).
pub(crate) fn refused<H: Handler + ?Sized, B: AsRef<[u8]>>(
    reason: StageError,
    subject: &str,
    body: impl FnOnce() -> B,
) -> Outcome {
    if reason.unavailable {
        return Outcome::Retry(reason);
    }
    Outcome::DeadLettered {
        letter: dead_letter(H::NAME, &reason, subject, body().as_ref(), crate::shared::time::now_us()),
        reason,
    }
}

/// What became of one message.
#[derive(Debug)]
pub enum Outcome {
    /// Processed: publish these.
    Processed(Vec<Outbound>),
    /// Bad input: publish the dead letter (the reason is for the log); the stream goes on.
    DeadLettered { letter: Outbound, reason: StageError },
    /// A service was unavailable: fail the invocation so the message is retried.
    Retry(StageError),
}

pub(crate) fn entries(config: &[(String, String)]) -> impl Iterator<Item = (&str, &str)> {
    config.iter().map(|(k, v)| (k.as_str(), v.as_str()))
}

//! The Wasm side every stage actor shares.
//!
//! An actor is a type implementing [`Stage`] (pure logic from the `cits` crate) plus one line,
//! `cits_actor::export_stage!(MyStage);`. This crate owns the WIT bindings and does the rest:
//! timestamps, publishing, dead letters for bad input, logging.

pub use cits::stage::{Outbound, StageError};

#[doc(hidden)]
pub mod bindings {
    wit_bindgen::generate!({
        world: "stage",
        path: "wit",
        generate_all,
        pub_export_macro: true,
        default_bindings_module: "cits_actor::bindings",
    });
}

use bindings::wasi::logging::logging::{log, Level};
use bindings::wasmcloud::messaging::consumer;
use bindings::wasmcloud::messaging::types::BrokerMessage;

/// One message as the stage sees it.
pub struct Inbound<'a> {
    pub subject: &'a str,
    pub body: &'a [u8],
    /// Wall clock when the invocation started (µs since the Unix epoch).
    pub received_at_us: u64,
}

/// A pipeline stage: turns one input message into zero or more output messages.
pub trait Stage {
    /// Stage name: trace entries, dead-letter subject `cits.dlq.<NAME>`, log context.
    const NAME: &'static str;

    fn process(msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError>;
}

/// Runs one invocation. Bad input becomes a dead letter and the invocation still succeeds, so
/// the stream never blocks on it; an unavailable service or a failed publish fails the
/// invocation, so the provider retries it (and dead-letters it only if that keeps failing).
pub fn handle<S: Stage>(msg: BrokerMessage) -> Result<(), String> {
    let received_at_us = cits::time::now_us();
    let inbound = Inbound { subject: &msg.subject, body: &msg.body, received_at_us };
    let outbound = match S::process(inbound) {
        Ok(out) => out,
        Err(err) if err.unavailable => {
            log(Level::Warn, S::NAME, &format!("{} not processed, to be retried: {err}", msg.subject));
            return Err(format!("{}: {err}", S::NAME));
        }
        Err(err) => {
            log(Level::Warn, S::NAME, &format!("dead letter from {}: {err}", msg.subject));
            vec![cits::stage::dead_letter(S::NAME, &err, &msg.subject, &msg.body, cits::time::now_us())]
        }
    };
    for out in outbound {
        consumer::publish(&BrokerMessage { subject: out.subject, body: out.body, reply_to: None })
            .map_err(|e| format!("{}: publish failed: {e}", S::NAME))?;
    }
    Ok(())
}

/// The component's runtime config (wasi:config): its named configs' entries.
pub struct Config(Vec<(String, String)>);

impl Config {
    pub fn load() -> Result<Self, StageError> {
        bindings::wasi::config::store::get_all()
            .map(Config)
            .map_err(|e| StageError::unavailable(format!("config unavailable: {e:?}")))
    }

    /// (key, value) pairs, as the `from_config` readers of the `cits` crate take them.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// Per-object state in the key-value store (wasi:keyvalue), a frame at a time: one round trip to
/// read all keys, one to write them back.
pub mod kv {
    use super::bindings::wasi::keyvalue::{batch, store};
    use super::StageError;

    fn open(bucket: &str) -> Result<store::Bucket, StageError> {
        store::open(bucket)
            .map_err(|e| StageError::unavailable(format!("key-value bucket `{bucket}` unavailable: {e:?}")))
    }

    /// The values of `keys`, in the same order (None where absent).
    pub fn get_many(bucket: &str, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, StageError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let found = batch::get_many(&open(bucket)?, keys)
            .map_err(|e| StageError::unavailable(format!("key-value get-many in `{bucket}` failed: {e:?}")))?;
        // Match by key, not position: the interface does not promise the order.
        let mut by_key: std::collections::HashMap<String, Vec<u8>> = found.into_iter().flatten().collect();
        Ok(keys.iter().map(|k| by_key.remove(k)).collect())
    }

    pub fn set_many(bucket: &str, items: Vec<(String, Vec<u8>)>) -> Result<(), StageError> {
        if items.is_empty() {
            return Ok(());
        }
        batch::set_many(&open(bucket)?, &items)
            .map_err(|e| StageError::unavailable(format!("key-value set-many in `{bucket}` failed: {e:?}")))
    }
}

/// Read-only blobs (street geometry) from the blobstore (wasi:blobstore).
pub mod blob {
    use super::bindings::wasi::blobstore::{blobstore, types::IncomingValue};
    use super::StageError;

    /// The whole object, or None when the container has no such object. Two calls to the
    /// provider on the usual path (container, data); the existence check only after a failure.
    pub fn read(container: &str, object: &str) -> Result<Option<Vec<u8>>, StageError> {
        let err =
            |what: &str, e: String| StageError::unavailable(format!("blobstore {what} `{container}/{object}`: {e}"));
        let c = blobstore::get_container(&container.to_string()).map_err(|e| err("container", e))?;
        match c.get_data(&object.to_string(), 0, u64::MAX) {
            Ok(value) => IncomingValue::incoming_value_consume_sync(value).map(Some).map_err(|e| err("read", e)),
            Err(e) => match c.has_object(&object.to_string()) {
                Ok(false) => Ok(None),
                Ok(true) => Err(err("read", e)),
                Err(lookup) => Err(err("lookup", lookup)),
            },
        }
    }
}

/// Street geometry from the blobstore: the map tile under a position, read and prepared (`build`)
/// at most once per invocation; a tile the map has no blob for is prepared from an empty graph.
pub struct MapTiles<T> {
    object: fn((i64, i64)) -> String,
    cache: cits::map_matcher::TileCache<T>,
}

impl<T> MapTiles<T> {
    /// Blobstore container of the map (written by `cits map`).
    pub const CONTAINER: &'static str = "cits-map";

    /// `object` names a tile's blob (e.g. `cits::map_matcher::tile_object`).
    pub fn new(object: fn((i64, i64)) -> String, build: fn(&cits::proto::LaneGraph) -> T) -> Self {
        Self { object, cache: cits::map_matcher::TileCache::new(build) }
    }

    pub fn at(&mut self, latitude: f64, longitude: f64) -> Result<&T, StageError> {
        let object = self.object;
        self.cache.at(cits::geo::Wgs84 { lat: latitude, lon: longitude }, |tile| {
            match blob::read(Self::CONTAINER, &object(tile))? {
                Some(bytes) => cits::stage::decode_input(&bytes, "LaneGraph map tile"),
                None => Ok(cits::proto::LaneGraph::default()),
            }
        })
    }
}

/// Exports `$stage` (a [`Stage`]) as the component's wasmcloud:messaging handler.
#[macro_export]
macro_rules! export_stage {
    ($stage:ty) => {
        struct __CitsComponent;

        impl $crate::bindings::exports::wasmcloud::messaging::handler::Guest for __CitsComponent {
            fn handle_message(
                msg: $crate::bindings::wasmcloud::messaging::types::BrokerMessage,
            ) -> ::core::result::Result<(), ::std::string::String> {
                $crate::handle::<$stage>(msg)
            }
        }

        $crate::bindings::export!(__CitsComponent with_types_in $crate::bindings);
    };
}

//! The Wasm side every stage actor shares.
//!
//! A stage's logic lives in `cits::pipeline` (a [`Handler`] using platform [`Services`]); an actor
//! is one line, `cits_actor::export_stage!(cits::stages::Decoder);`. This crate owns the WIT
//! bindings and implements `Services` with them: wasi:config, wasi:keyvalue batches,
//! wasi:blobstore; it publishes through wasmcloud:messaging and logs through wasi:logging.

pub use cits::message::{Outbound, StageError};
pub use cits::pipeline::{Handler, Services};

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

pub use cits::message::UNAVAILABLE;

/// Runs one invocation (a message, or a batch of them from our provider) through handler `H` (a
/// stage or the fused chain), in the order of [`cits::pipeline::handle`]: compute, publish everything in
/// one call to the provider (which returns once JetStream stored all of it), commit the state.
/// Bad input becomes a dead letter and the invocation still succeeds, so the stream never blocks
/// on it; an unavailable service or a failed publish fails the invocation, so the provider
/// delivers it again.
pub fn handle<H: Handler>(msg: BrokerMessage) -> Result<(), String> {
    let name = H::NAME;
    let handled = match cits::pipeline::handle::<H, _>(Wasi, &msg.subject, &msg.body, &mut publish) {
        Ok(handled) => handled,
        Err(err) => {
            log(Level::Warn, name, &format!("{} not processed, to be retried: {err}", msg.subject));
            let kind = if err.unavailable { UNAVAILABLE } else { "failed:" };
            return Err(format!("{kind} {name}: {err}"));
        }
    };
    for (subject, reason) in &handled.rejected {
        log(Level::Warn, name, &format!("dead letter from {subject}: {reason}"));
    }
    if handled.already_applied > 0 {
        log(Level::Info, name, &format!("{} redelivered message(s) already applied", handled.already_applied));
    }
    Ok(())
}

/// All outputs of an invocation in one [`cits::proto::MessageBatch`] on [`cits::subjects::PUBLISH`],
/// each with its message id.
fn publish(outbound: &[(String, Outbound)]) -> Result<(), StageError> {
    let batch = cits::proto::MessageBatch {
        messages: outbound
            .iter()
            .map(|(id, out)| cits::proto::BatchedMessage {
                subject: out.subject.clone(),
                body: out.body.clone(),
                msg_id: id.clone(),
                ..Default::default()
            })
            .collect(),
    };
    use prost::Message as _;
    consumer::publish(&BrokerMessage {
        subject: cits::subjects::PUBLISH.to_string(),
        body: batch.encode_to_vec(),
        reply_to: None,
    })
    .map_err(|e| StageError::unavailable(format!("publish failed: {e}")))
}

/// The platform services as WIT imports of the component; an actor imports only the ones its
/// stages call. Wrapped in [`Cached`] per invocation.
pub struct Wasi;

impl Services for Wasi {
    fn config(&mut self) -> Result<cits::pipeline::Config, StageError> {
        bindings::wasi::config::store::get_all()
            .map(Into::into)
            .map_err(|e| StageError::unavailable(format!("config unavailable: {e:?}")))
    }

    /// One round trip to read all keys.
    fn get_many(&mut self, bucket: &str, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, StageError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let found = bindings::wasi::keyvalue::batch::get_many(&open(bucket)?, keys)
            .map_err(|e| StageError::unavailable(format!("key-value get-many in `{bucket}` failed: {e:?}")))?;
        // Match by key, not position: the interface does not promise the order.
        let mut by_key: std::collections::HashMap<String, Vec<u8>> = found.into_iter().flatten().collect();
        Ok(keys.iter().map(|k| by_key.remove(k)).collect())
    }

    /// One round trip to write them back.
    fn set_many(&mut self, bucket: &str, items: Vec<(String, Vec<u8>)>) -> Result<(), StageError> {
        if items.is_empty() {
            return Ok(());
        }
        bindings::wasi::keyvalue::batch::set_many(&open(bucket)?, &items)
            .map_err(|e| StageError::unavailable(format!("key-value set-many in `{bucket}` failed: {e:?}")))
    }

    /// Two calls to the provider on the usual path (container, data); the existence check only
    /// after a failure.
    fn read_blob(&mut self, container: &str, object: &str) -> Result<Option<Vec<u8>>, StageError> {
        use bindings::wasi::blobstore::{blobstore, types::IncomingValue};
        let err =
            |what: &str, e: String| StageError::unavailable(format!("blobstore {what} `{container}/{object}`: {e}"));
        let c = blobstore::get_container(container).map_err(|e| err("container", e))?;
        match c.get_data(object, 0, u64::MAX) {
            Ok(value) => IncomingValue::incoming_value_consume_sync(value).map(Some).map_err(|e| err("read", e)),
            Err(e) => match c.has_object(object) {
                Ok(false) => Ok(None),
                Ok(true) => Err(err("read", e)),
                Err(lookup) => Err(err("lookup", lookup)),
            },
        }
    }
}

fn open(bucket: &str) -> Result<bindings::wasi::keyvalue::store::Bucket, StageError> {
    bindings::wasi::keyvalue::store::open(bucket)
        .map_err(|e| StageError::unavailable(format!("key-value bucket `{bucket}` unavailable: {e:?}")))
}

/// Exports `$handler` (a [`Handler`] of `cits::pipeline`: one stage, or `cits::pipeline::Fused`
/// for all seven in one component) as the component's wasmcloud:messaging handler.
#[macro_export]
macro_rules! export_stage {
    ($handler:ty) => {
        struct __CitsComponent;

        impl $crate::bindings::exports::wasmcloud::messaging::handler::Guest for __CitsComponent {
            fn handle_message(
                msg: $crate::bindings::wasmcloud::messaging::types::BrokerMessage,
            ) -> ::core::result::Result<(), ::std::string::String> {
                $crate::handle::<$handler>(msg)
            }
        }

        $crate::bindings::export!(__CitsComponent with_types_in $crate::bindings);
    };
}

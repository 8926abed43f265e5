//! wasmcloud:messaging on NATS for pipeline stages.
//!
//! Unlike the published NATS provider (which spawns one task per message and drops a message when
//! its invocation fails), this one delivers the messages of a subject **in order, one at a time**
//! — so a stage's read-modify-write of per-object state is never raced by its own next message —
//! bounds the invocations in flight, retries failed invocations and sends a message that still
//! fails to the stage's dead-letter subject instead of losing it. See README.md for the config.

pub mod config;
pub mod dispatch;
pub mod durable;
mod provider;

pub use provider::{run, NatsMessagingProvider};

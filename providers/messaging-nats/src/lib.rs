//! wasmcloud:messaging on NATS for pipeline stages.
//!
//! Unlike the published NATS provider (core NATS, at most once; one task per message; a failed
//! invocation drops the message), this one pulls stage inputs from JetStream streams partitioned
//! by RSU, one message in flight per partition across every provider copy, acknowledges a message
//! only after the component accepted it (its outputs stored, its state committed), retries without
//! overlapping attempts and dead-letters what keeps failing. See README.md.

pub mod config;
mod provider;

pub use provider::{run, NatsMessagingProvider};

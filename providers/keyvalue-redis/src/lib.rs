//! Redis key-value provider for wasmCloud: serves wrpc:keyvalue store, atomics and batch, which
//! the host maps to the wasi:keyvalue imports of components.
//!
//! Why our own: no Redis provider is published on crates.io, and the one the research used
//! accepted only UTF-8 values, which forced the assembler to store trajectories as JSON. Here
//! values are bytes end to end, a frame's keys are read and written in one round trip
//! (`get-many`/`set-many` → MGET/MSET), and each linked component gets a small pool of
//! multiplexed, self-reconnecting connections.

pub mod config;
mod provider;
pub mod store;

pub use config::RedisConfig;
pub use provider::{run, KvRedisProvider};
pub use store::{RedisStore, StoreError};

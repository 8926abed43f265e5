//! Operator tools around the pipeline: recordings (the research's format), the demo dataset,
//! MQTT replay and pipeline observation, the benchmark and its native baseline. Native only.

pub mod auth;
pub mod bench;
pub mod demo;
pub mod denms;
pub mod dlq;
pub mod evaluate;
pub mod http;
pub mod import;
pub mod lattice;
pub mod manifest;
pub mod map;
pub mod native;
pub mod outbox;
pub mod recording;
pub mod replay;
pub mod rsu;
pub mod sim;
pub mod tls;
pub mod watch;
pub mod worst_frame;

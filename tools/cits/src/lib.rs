//! Operator tools around the pipeline: recordings (the research's format), the demo dataset,
//! MQTT replay and pipeline observation. Native only.

pub mod demo;
pub mod denms;
pub mod dlq;
pub mod evaluate;
pub mod map;
pub mod recording;
pub mod replay;
pub mod sim;
pub mod watch;

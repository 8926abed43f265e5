//! The seven stages of the pipeline, one folder each: the domain logic (`mod.rs` and its
//! modules), the stage's handler on any platform (`handler.rs`) and its tests.
//!
//! decoder → collector → assembler → map matcher → predictor → collision detector → DENM sender:
//! each [`crate::pipeline::Handler`] turns one input message into its output messages.

pub mod assembler;
pub mod collector;
pub mod collision_detector;
pub mod decoder;
pub mod denm_sender;
pub mod map_matcher;
pub mod predictor;

pub use assembler::Assembler;
pub use collector::Collector;
pub use collision_detector::CollisionDetector;
pub use decoder::Decoder;
pub use denm_sender::DenmSender;
pub use map_matcher::MapMatcher;
pub use predictor::Predictor;

#[cfg(test)]
mod tests;

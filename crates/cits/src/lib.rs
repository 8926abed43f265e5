//! Domain logic of the C-ITS warning pipeline, free of any wasmCloud or Wasm dependency.
//!
//! Each stage is a plain function here (`decoder::decode`, `collector::collect`, ...), tested
//! natively; the Wasm actors in `actors/` only move bytes between NATS and these functions.

pub mod assembler;
pub mod association;
pub mod calibration;
pub mod collector;
pub mod collision;
pub mod config;
pub mod decoder;
pub mod denm_sender;
pub mod encode;
pub mod error;
pub mod finite;
pub mod fit;
pub mod geo;
pub mod limits;
pub mod map_matcher;
pub mod object_frame;
pub mod pipeline;
pub mod predictor;
pub mod registry;
pub mod stage;
pub mod subjects;
pub mod time;
pub mod wkb;

/// Protobuf messages exchanged between stages (generated from `proto/cits/v1/pipeline.proto`).
pub mod proto {
    pub use generated::*;

    /// prost's output, as generated: not held to our lints.
    #[allow(clippy::all, clippy::pedantic)]
    mod generated {
        include!(concat!(env!("OUT_DIR"), "/cits.v1.rs"));
    }

    impl ObjectClass {
        /// "car", "bicycle", … (the enum name without its prefix), for people and file names.
        pub fn short_name(self) -> String {
            self.as_str_name().trim_start_matches("OBJECT_CLASS_").to_lowercase()
        }
    }

    impl Turn {
        /// "left", "straight", "right", "uturn" ("" for none): a map's `cits:turn` tag, and what
        /// tables and traces print.
        pub fn name(self) -> &'static str {
            match self {
                Turn::None => "",
                Turn::Left => "left",
                Turn::Straight => "straight",
                Turn::Right => "right",
                Turn::Uturn => "uturn",
            }
        }

        /// The turn a [`name`](Self::name) names; None for a name that is no turn.
        pub fn from_name(name: &str) -> Option<Self> {
            [Turn::None, Turn::Left, Turn::Straight, Turn::Right, Turn::Uturn].into_iter().find(|t| t.name() == name)
        }
    }

    impl TravelMode {
        /// "car", "bicycle", "pedestrian", "unknown".
        pub fn short_name(self) -> String {
            self.as_str_name().trim_start_matches("TRAVEL_MODE_").to_lowercase()
        }
    }
}

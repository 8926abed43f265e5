//! Domain logic of the C-ITS warning pipeline, free of any wasmCloud or Wasm dependency.
//!
//! [`stages`] holds the seven stages, one folder each: the domain logic (`decoder::decode`,
//! `collector::collect`, ...), its config, its handler and its tests, all native; the Wasm actors
//! in `actors/` only move bytes between NATS and these handlers. [`pipeline`] is what runs a
//! handler on any platform (delivery, batching, state cache, the fused chain), [`shared`] the
//! math and encodings the stages share, [`message`] what every stage's messages carry.

pub mod config;
pub mod error;
pub mod limits;
pub mod message;
pub mod pipeline;
pub mod shared;
pub mod stages;
pub mod subjects;

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

//! The warning policy and the detector's config: the operating point picked from the sweep, when
//! a risk is reported (probability and TTC, two tiers) and the config entries that set them.

use crate::stage::StageError;

pub const STAGE: &str = "collision_detector";

/// The warning policy's operating point, picked from the recall against clearly-false-warnings
/// curve over simulated recordings (`cits evaluate --sweep`, docs/warnings/); the manifests name
/// the same values.
pub struct OperatingPoint {
    pub min_probability: f64,
    pub max_ttc_s: f64,
    pub early_min_probability: f64,
    pub early_max_ttc_s: f64,
    pub max_pet_s: f64,
}

pub const OPERATING_POINT: OperatingPoint = OperatingPoint {
    min_probability: 0.8,
    max_ttc_s: 1.6,
    early_min_probability: 0.89,
    early_max_ttc_s: 2.5,
    max_pet_s: 1.75,
};

/// How far below a bar a probability may fall and still count as reaching it. Probabilities are
/// sums of products of likelihoods made with `exp`, whose last bits differ between the Wasm
/// build's libm and the native one; a route that is certain comes out 1.0 in one and
/// 0.999…9 in the other. Without this slack the actors and the native pipeline would warn (and
/// grade) such a risk differently.
pub const PROBABILITY_SLACK: f64 = 1e-9;

#[derive(Debug, Clone, PartialEq)]
pub struct DetectorConfig {
    /// Risks below this probability are not reported.
    pub min_probability: f64,
    /// Only vehicle ↔ vulnerable road user pairs (the warning's purpose); false adds vehicle pairs.
    pub vru_only: bool,
    /// An object's paths are dropped when its newest point is this much older than the frame.
    pub path_ttl_us: u64,
    /// Path pairs tested per frame at most (`limits.max_pairs_per_frame`, see
    /// [`pairs_to_test`](super::pairs_to_test)).
    pub max_pairs: usize,
    /// Paths an RSU's state keeps at most (`limits.max_paths_per_frame`, see
    /// [`update_paths`](super::update_paths)).
    pub max_paths: usize,
    /// Risks further ahead than this (time to collision, s) are not reported yet: the further
    /// ahead, the less a prediction is worth.
    pub max_ttc_s: f64,
    /// A risk further ahead than `max_ttc_s` is still reported up to this TTC (s) when it is at
    /// least `early_min_probability` likely: the surer a prediction, the further ahead it is
    /// worth a warning (a second tier of the policy; equal to `max_ttc_s`, it is off).
    pub early_max_ttc_s: f64,
    pub early_min_probability: f64,
    /// How fast a predicted position's uncertainty grows with the time ahead of its
    /// observation: the areas' radii grow by this many metres per second.
    pub spread_mps: f64,
    /// Paths that cross conflict when the predicted post-encroachment time there (the second
    /// road user reaching the crossing after the first has left it) is at most this, s.
    pub max_pet_s: f64,
}

impl Default for DetectorConfig {
    fn default() -> Self {
        Self {
            min_probability: OPERATING_POINT.min_probability,
            vru_only: true,
            path_ttl_us: 500_000,
            max_pairs: crate::limits::Limits::default().max_pairs_per_frame,
            max_paths: crate::limits::Limits::default().max_paths_per_frame,
            max_ttc_s: OPERATING_POINT.max_ttc_s,
            early_max_ttc_s: OPERATING_POINT.early_max_ttc_s,
            early_min_probability: OPERATING_POINT.early_min_probability,
            spread_mps: 0.3,
            max_pet_s: OPERATING_POINT.max_pet_s,
        }
    }
}

impl DetectorConfig {
    /// Reads `min_probability`, `vru_only`, `path_ttl_ms`, `max_ttc_s`, `early_max_ttc_s`,
    /// `early_min_probability`, `spread_mps`, `max_pet_s`; others (e.g. `intersection.*`) are
    /// left to [`intersection_of`](super::intersection_of).
    pub fn from_config<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, StageError> {
        let mut cfg = Self::default();
        for e in crate::config::entries(STAGE, entries) {
            match e.key {
                "min_probability" => cfg.min_probability = e.probability()?,
                "vru_only" => cfg.vru_only = e.boolean()?,
                "path_ttl_ms" => cfg.path_ttl_us = e.millis_as_us()?,
                "max_ttc_s" => cfg.max_ttc_s = e.positive_f64()?,
                "spread_mps" => cfg.spread_mps = e.non_negative_f64()?,
                "max_pet_s" => cfg.max_pet_s = e.non_negative_f64()?,
                "early_max_ttc_s" => cfg.early_max_ttc_s = e.positive_f64()?,
                "early_min_probability" => cfg.early_min_probability = e.probability()?,
                _ => {}
            }
        }
        Ok(cfg)
    }

    /// Whether a risk this likely, this far ahead (TTC, s), is reported: either tier of the
    /// policy (`min_probability` up to `max_ttc_s`, `early_min_probability` up to
    /// `early_max_ttc_s`).
    pub fn reports(&self, probability: f64, ttc_s: f64) -> bool {
        let reaches = |bar: f64| probability + PROBABILITY_SLACK >= bar;
        (reaches(self.min_probability) && ttc_s <= self.max_ttc_s)
            || (reaches(self.early_min_probability) && ttc_s <= self.early_max_ttc_s)
    }
}

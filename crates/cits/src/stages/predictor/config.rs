//! The predictor's settings from the stage config.

use super::STAGE;
use crate::config::{Key, Kind};
use crate::message::StageError;

/// The predictor's keys ([`PredictorConfig::from_config`]).
pub const KEYS: &[Key] = &[
    Key { name: "horizon_ms", kind: Kind::Millis, default: "4000", doc: "how far ahead paths are predicted" },
    Key {
        name: "step_ms",
        kind: Kind::Millis,
        default: "250",
        doc: "time between predicted positions (at most `horizon_ms`)",
    },
    Key {
        name: "max_alternatives",
        kind: Kind::Count,
        default: "3",
        doc: "routes reported per road user, the most likely first",
    },
    Key {
        name: "prior_half_life_s",
        kind: Kind::Seconds,
        default: "86400",
        doc: "learned turn counts fade by half in this time",
    },
    Key {
        name: "prior_pseudo_count",
        kind: Kind::Positive,
        default: "20",
        doc: "tracks' worth of the neutral turn prior against the learned counts",
    },
];

#[derive(Debug, Clone, PartialEq)]
pub struct PredictorConfig {
    pub horizon_us: u64,
    pub step_us: u64,
    /// Routes reported per object (most likely first).
    pub max_alternatives: usize,
    /// How fast learned turn counts fade (half-life, µs): traffic changes over the day and
    /// with roadworks; a day's tracks outweigh last week's.
    pub prior_half_life_us: u64,
    /// How many tracks' worth the neutral prior weighs against the learned counts: the first
    /// few tracks of an approach move it little.
    pub prior_pseudo_count: f64,
}

impl Default for PredictorConfig {
    fn default() -> Self {
        Self {
            horizon_us: 4_000_000,
            step_us: 250_000,
            max_alternatives: 3,
            prior_half_life_us: 24 * 3_600_000_000,
            prior_pseudo_count: 20.0,
        }
    }
}

impl PredictorConfig {
    /// Reads `horizon_ms`, `step_ms`, `max_alternatives`, `prior_half_life_s`,
    /// `prior_pseudo_count`; others keep defaults.
    pub fn from_config<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, StageError> {
        let mut cfg = Self::default();
        for e in crate::config::entries(STAGE, entries) {
            match e.key {
                "horizon_ms" => cfg.horizon_us = e.millis_as_us()?,
                "step_ms" => cfg.step_us = e.millis_as_us()?,
                "max_alternatives" => cfg.max_alternatives = e.positive_u64()? as usize,
                "prior_half_life_s" => cfg.prior_half_life_us = e.positive_u64()?.saturating_mul(1_000_000),
                "prior_pseudo_count" => cfg.prior_pseudo_count = e.positive_f64()?,
                _ => {}
            }
        }
        if cfg.step_us > cfg.horizon_us {
            return Err(StageError::new("predictor config `step_ms` must not exceed `horizon_ms`"));
        }
        Ok(cfg)
    }
}

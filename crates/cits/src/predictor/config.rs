//! The predictor's settings from the stage config.

use super::STAGE;
use crate::stage::StageError;

#[derive(Debug, Clone, PartialEq)]
pub struct PredictorConfig {
    pub horizon_us: u64,
    pub step_us: u64,
    /// Routes reported per object (most likely first).
    pub max_alternatives: usize,
}

impl Default for PredictorConfig {
    fn default() -> Self {
        Self { horizon_us: 4_000_000, step_us: 250_000, max_alternatives: 3 }
    }
}

impl PredictorConfig {
    /// Reads `horizon_ms`, `step_ms`, `max_alternatives`; others keep defaults.
    pub fn from_config<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, StageError> {
        let mut cfg = Self::default();
        for e in crate::config::entries(STAGE, entries) {
            match e.key {
                "horizon_ms" => cfg.horizon_us = e.millis_as_us()?,
                "step_ms" => cfg.step_us = e.millis_as_us()?,
                "max_alternatives" => cfg.max_alternatives = e.positive_u64()? as usize,
                _ => {}
            }
        }
        if cfg.step_us > cfg.horizon_us {
            return Err(StageError::new("predictor config `step_ms` must not exceed `horizon_ms`"));
        }
        Ok(cfg)
    }
}

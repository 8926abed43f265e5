//! The warning policy and the detector's config: how a risk (the probability of a real conflict,
//! its time to conflict, whether the vehicle signals the turn) is staged — information, warning
//! or nothing — and the config entries that set it.
//!
//! The decision rule (docs/warnings/decision.md):
//! - **Information** when a conflict is possible (probability ≥ `info_min_probability`) inside
//!   an R151-shaped window: not earlier than its first line (`info_max_ttc_s`, ≈ 4 s ahead).
//! - **Warning** when the expected harm avoided by warning now rather than one decision step
//!   later outweighs the expected cost of a false warning:
//!   `p · H · (A(ttc) − A(ttc − step)) ≥ (1 − p) · C`, with A(t) the share of a conflict's harm
//!   a warning `t` ahead lets the road users avoid: none below `no_avoid_s` (0: even a late
//!   warning takes some speed off),
//!   all from `full_avoid_s` (reaction and comfortable braking), rising as the square root of
//!   the time between (the first braking takes off the most harmful speed). So the bar is
//!   `p ≥ 1 / (1 + (H/C) · (A(ttc) − A(ttc − step)))`: nothing while waiting costs nothing (far
//!   ahead), lowest where every step of delay costs harm.
//! - The vehicle's own turn signal for the conflicting route escalates an information to a
//!   warning inside the warning window (`ttc ≤ full_avoid_s + step`).
//! - Hysteresis lives in the DENM sender: a warning on air stays one while its risk is still
//!   reported (as information at least).

use crate::config::{Key, Kind};
use crate::message::StageError;
use crate::proto::RiskStage;

/// The collision detector's keys: the warning decision ([`DetectorConfig::from_config`]) and
/// the RSUs sharing an intersection ([`intersection_of`](super::intersection_of)).
pub const KEYS: &[Key] = &[
    Key {
        name: "info_min_probability",
        kind: Kind::Probability,
        default: "0.5",
        doc: "information: a conflict at least this likely ([warnings](warnings.md)) …",
    },
    Key { name: "info_max_ttc_s", kind: Kind::Positive, default: "4.0", doc: "… at most this far ahead" },
    Key {
        name: "harm_ratio",
        kind: Kind::NonNegative,
        default: "1.0",
        doc: "warning: harm of a conflict not warned in time over the cost of a false warning (H/C)",
    },
    Key {
        name: "no_avoid_s",
        kind: Kind::NonNegative,
        default: "0.0",
        doc: "a warning less than this far ahead avoids nothing …",
    },
    Key {
        name: "full_avoid_s",
        kind: Kind::Positive,
        default: "2.0",
        doc: "… one this far ahead or more everything (more than `no_avoid_s`)",
    },
    Key { name: "step_s", kind: Kind::Positive, default: "0.5", doc: "how much later the next decision comes" },
    Key {
        name: "max_pet_s",
        kind: Kind::NonNegative,
        default: "1.5",
        doc: "a conflict is a post-encroachment time below this",
    },
    Key {
        name: "spread_mps",
        kind: Kind::NonNegative,
        default: "0.3",
        doc: "how fast a pair's reach grows with time ahead when ranking the pairs to test",
    },
    Key {
        name: "vru_only",
        kind: Kind::Boolean,
        default: "true",
        doc: "only vehicle ↔ vulnerable road user pairs (the warning's purpose); `false` adds vehicle pairs",
    },
    Key {
        name: "path_ttl_ms",
        kind: Kind::Millis,
        default: "500",
        doc: "a road user's paths are dropped when its newest point is this much older than the frame",
    },
    Key {
        name: "intersection.<rsu>",
        kind: Kind::Text,
        default: "",
        doc: "the intersection RSU `<rsu>` stands at: RSUs of one intersection test each other's paths",
    },
];

pub const STAGE: &str = "collision_detector";

/// How far below a bar a probability may fall and still count as reaching it. Probabilities are
/// sums of products of likelihoods made with `exp`, whose last bits differ between the Wasm
/// build's libm and the native one; a route that is certain comes out 1.0 in one and
/// 0.999…9 in the other. Without this slack the actors and the native pipeline would warn (and
/// grade) such a risk differently.
pub const PROBABILITY_SLACK: f64 = 1e-9;

#[derive(Debug, Clone, PartialEq)]
pub struct DetectorConfig {
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
    /// Information: a conflict at least this likely, at most `info_max_ttc_s` ahead.
    pub info_min_probability: f64,
    pub info_max_ttc_s: f64,
    /// Harm of a conflict not warned in time over the cost of a false warning (H/C).
    pub harm_ratio: f64,
    /// A warning less than `no_avoid_s` ahead avoids nothing, one `full_avoid_s` ahead or more
    /// everything; `step_s`: how much later the next decision comes.
    pub no_avoid_s: f64,
    pub full_avoid_s: f64,
    pub step_s: f64,
    /// How far ahead (m/s of time predicted) a pair's reach grows when ranking which pairs to
    /// test ([`pairs_to_test`](super::pairs_to_test)).
    pub spread_mps: f64,
    /// A conflict is a post-encroachment time below this, s (the ground truth's).
    pub max_pet_s: f64,
}

impl Default for DetectorConfig {
    /// The decision rule's constants: `harm_ratio`, `no_avoid_s`, `full_avoid_s` and
    /// `info_min_probability` calibrated on the development seeds only (`cits evaluate --sweep`,
    /// docs/warnings/decision.md), the first line and the step from R151, the PET from the
    /// ground truth. The manifests name the same values.
    fn default() -> Self {
        Self {
            vru_only: true,
            path_ttl_us: 500_000,
            max_pairs: crate::limits::Limits::default().max_pairs_per_frame,
            max_paths: crate::limits::Limits::default().max_paths_per_frame,
            info_min_probability: 0.5,
            info_max_ttc_s: 4.0,
            harm_ratio: 1.0,
            no_avoid_s: 0.0,
            full_avoid_s: 2.0,
            step_s: 0.5,
            spread_mps: 0.3,
            max_pet_s: 1.5,
        }
    }
}

impl DetectorConfig {
    /// Reads `vru_only`, `path_ttl_ms`, `info_min_probability`, `info_max_ttc_s`, `harm_ratio`,
    /// `no_avoid_s`, `full_avoid_s`, `step_s`, `spread_mps`, `max_pet_s`; others (e.g.
    /// `intersection.*`) are left to [`intersection_of`](super::intersection_of).
    pub fn from_config<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, StageError> {
        let mut cfg = Self::default();
        for e in crate::config::entries(STAGE, entries) {
            match e.key {
                "vru_only" => cfg.vru_only = e.boolean()?,
                "path_ttl_ms" => cfg.path_ttl_us = e.millis_as_us()?,
                "info_min_probability" => cfg.info_min_probability = e.probability()?,
                "info_max_ttc_s" => cfg.info_max_ttc_s = e.positive_f64()?,
                "harm_ratio" => cfg.harm_ratio = e.non_negative_f64()?,
                "no_avoid_s" => cfg.no_avoid_s = e.non_negative_f64()?,
                "full_avoid_s" => cfg.full_avoid_s = e.positive_f64()?,
                "step_s" => cfg.step_s = e.positive_f64()?,
                "spread_mps" => cfg.spread_mps = e.non_negative_f64()?,
                "max_pet_s" => cfg.max_pet_s = e.non_negative_f64()?,
                _ => {}
            }
        }
        if cfg.full_avoid_s <= cfg.no_avoid_s {
            return Err(StageError::new(format!(
                "{STAGE} config: full_avoid_s ({}) must exceed no_avoid_s ({})",
                cfg.full_avoid_s, cfg.no_avoid_s
            )));
        }
        Ok(cfg)
    }

    /// A(t): the share of a conflict's harm a warning `ttc_s` ahead lets the road users avoid.
    /// Concave: the first tenths of a second of braking take off the speed that does the most
    /// harm (injury risk climbs steeply with impact speed), the last ones only a slow touch.
    fn avoidable(&self, ttc_s: f64) -> f64 {
        ((ttc_s - self.no_avoid_s) / (self.full_avoid_s - self.no_avoid_s)).clamp(0.0, 1.0).sqrt()
    }

    /// The probability from which warning now beats waiting one step (see the module's rule);
    /// above 1 where waiting costs nothing.
    pub fn warning_bar(&self, ttc_s: f64) -> f64 {
        let gain = self.avoidable(ttc_s) - self.avoidable(ttc_s - self.step_s);
        if gain <= 0.0 {
            f64::INFINITY
        } else {
            1.0 / (1.0 + self.harm_ratio * gain)
        }
    }

    /// How a risk this likely, this far ahead (s), is reported, if at all; `signalled`: the
    /// vehicle's own CAM announces the conflicting turn.
    pub fn stage(&self, probability: f64, ttc_s: f64, signalled: bool) -> Option<RiskStage> {
        let reaches = |bar: f64| probability + PROBABILITY_SLACK >= bar;
        let informs = reaches(self.info_min_probability) && ttc_s <= self.info_max_ttc_s;
        let in_window = ttc_s <= self.full_avoid_s + self.step_s;
        if reaches(self.warning_bar(ttc_s)) || (informs && signalled && in_window) {
            Some(RiskStage::Warning)
        } else if informs {
            Some(RiskStage::Information)
        } else {
            None
        }
    }
}

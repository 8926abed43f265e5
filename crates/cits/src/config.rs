//! Reading a stage's named config (wasi:config key/value strings) into typed settings.
//!
//! Unknown keys are left alone (one config may serve several purposes); a known key with an
//! invalid value is an error naming the stage and key, so a typo never silently means a default.

use crate::message::StageError;

/// One `key = value` entry of `stage`'s config.
pub struct Entry<'a> {
    pub stage: &'a str,
    pub key: &'a str,
    pub value: &'a str,
}

impl Entry<'_> {
    fn invalid(&self, what: &str) -> StageError {
        StageError::new(format!("{} config `{}` must be {what}, got `{}`", self.stage, self.key, self.value))
    }

    pub fn positive_u64(&self) -> Result<u64, StageError> {
        self.value.trim().parse::<u64>().ok().filter(|v| *v > 0).ok_or_else(|| self.invalid("a positive integer"))
    }

    /// Milliseconds as microseconds.
    pub fn millis_as_us(&self) -> Result<u64, StageError> {
        self.positive_u64().map(|ms| ms * 1000)
    }

    pub fn positive_f64(&self) -> Result<f64, StageError> {
        self.value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v > 0.0)
            .ok_or_else(|| self.invalid("a positive number"))
    }

    pub fn non_negative_f64(&self) -> Result<f64, StageError> {
        self.value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| self.invalid("a number of 0 or more"))
    }

    pub fn probability(&self) -> Result<f64, StageError> {
        self.value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| (0.0..=1.0).contains(v))
            .ok_or_else(|| self.invalid("a probability between 0 and 1"))
    }

    pub fn boolean(&self) -> Result<bool, StageError> {
        match self.value.trim() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(self.invalid("`true` or `false`")),
        }
    }
}

/// The entries of `stage`'s config, for a `match entry.key { ... }` per setting.
pub fn entries<'a>(
    stage: &'a str,
    entries: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> impl Iterator<Item = Entry<'a>> {
    entries.into_iter().map(move |(key, value)| Entry { stage, key, value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked_and_errors_name_stage_and_key() {
        let e = |value| Entry { stage: "predictor", key: "horizon_ms", value };
        assert_eq!(e(" 3000 ").millis_as_us().unwrap(), 3_000_000);
        assert_eq!(
            e("0").positive_u64().unwrap_err().reason,
            "predictor config `horizon_ms` must be a positive integer, got `0`"
        );
        assert!(e("1.5").probability().is_err());
        assert_eq!(e("0.25").probability().unwrap(), 0.25);
        assert!(e("NaN").positive_f64().is_err());
        assert!(e("0").non_negative_f64().is_ok() && e("-0.1").non_negative_f64().is_err());
        assert!(e("yes").boolean().is_err());
        assert!(e("false").boolean().is_ok_and(|b| !b));
    }
}

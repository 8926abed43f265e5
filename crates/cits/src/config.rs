//! A stage's named config (wasi:config key/value strings): the keys each stage declares
//! ([`Key`], once, beside the code that reads them) and reading them into typed settings.
//!
//! A key no declaration names is refused ([`check_known`]): by `cits manifest render`, deploys
//! and the dashboard's edits before it reaches a lattice, and by the stage itself, which
//! dead-letters every message rather than run on a default the operator meant to change. A
//! declared key with an invalid value is an error naming the stage and key.

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

/// The type of a config value, as its reader checks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A positive integer.
    Count,
    /// A positive integer of milliseconds.
    Millis,
    /// A positive integer of seconds.
    Seconds,
    /// A positive number.
    Positive,
    /// A number of 0 or more.
    NonNegative,
    /// A number between 0 and 1.
    Probability,
    /// `true` or `false`.
    Boolean,
    /// Text in the form the key's doc gives.
    Text,
}

impl Kind {
    /// How the docs name the type.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Count => "count",
            Kind::Millis => "ms",
            Kind::Seconds => "s",
            Kind::Positive => "number > 0",
            Kind::NonNegative => "number ≥ 0",
            Kind::Probability => "0–1",
            Kind::Boolean => "true/false",
            Kind::Text => "text",
        }
    }
}

/// One config key a stage reads. `name` is the key, or a family of keys with a placeholder
/// (`rsu.<rsu>`: `rsu.` and anything after it); `default` is what the stage uses without it
/// (empty: nothing, the key's absence means what `doc` says).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub name: &'static str,
    pub kind: Kind,
    pub default: &'static str,
    pub doc: &'static str,
}

impl Key {
    /// Whether `key` is this key, or one of its family.
    pub fn matches(&self, key: &str) -> bool {
        match self.name.find('<') {
            Some(at) => key.len() > at && key.starts_with(&self.name[..at]),
            None => key == self.name,
        }
    }
}

/// The keys a handler reads, as lists of declarations (a stage's own, and those it shares: the
/// limits, the RSU registry, map tiles).
pub type Declared = &'static [&'static [Key]];

/// Whether `declared` names `key` (itself, or its family).
fn declares(declared: Declared, key: &str) -> bool {
    declared.iter().flat_map(|keys| keys.iter()).any(|k| k.matches(key))
}

/// The entries of one config shared by all stages that `declared` names: what a stage of the
/// seven-actor deployment is given of the fused actor's config (the fuzz seeds and targets run
/// every stage on one config).
pub fn declared_only(declared: Declared, entries: &[(String, String)]) -> Vec<(String, String)> {
    entries.iter().filter(|(key, _)| declares(declared, key)).cloned().collect()
}

/// The first key of `entries` that `declared` does not name, as the error a stage and a deploy
/// give: the stage, the key, and the nearest declared key.
pub fn check_known<'a>(
    stage: &str,
    declared: Declared,
    entries: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<(), StageError> {
    for (key, _) in entries {
        if !declares(declared, key) {
            let hint = nearest(key, declared).map_or(String::new(), |k| format!(" (did you mean `{k}`?)"));
            return Err(StageError::new(format!("{stage} config: unknown key `{key}`{hint}")));
        }
    }
    Ok(())
}

/// The declared key `key` is most likely a misspelling of: fewest edits, within a third of its
/// length (at least two).
pub fn nearest(key: &str, declared: Declared) -> Option<&'static str> {
    let limit = (key.chars().count() / 3).max(2);
    declared
        .iter()
        .flat_map(|keys| keys.iter())
        .map(|k| (edits(key, k.name), k.name))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, name)| name)
}

/// Levenshtein distance, by characters.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1).min(row[j] + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The stage-config table of docs/deploying.md (`cits manifest keys`): every declared key once,
/// with its type, default, the stages that read it (named as in `stages`) and its doc.
pub fn markdown_table(stages: &[(&str, Declared)]) -> String {
    let mut rows: Vec<(&Key, Vec<&str>)> = Vec::new();
    for (stage, declared) in stages {
        for key in declared.iter().flat_map(|keys| keys.iter()) {
            match rows.iter_mut().find(|(k, _)| k.name == key.name) {
                Some((_, readers)) => readers.push(stage),
                None => rows.push((key, vec![stage])),
            }
        }
    }
    let mut out = String::from("| key | type | default | stages | what |\n|---|---|---|---|---|\n");
    for (key, readers) in rows {
        let default = if key.default.is_empty() { "—".to_string() } else { format!("`{}`", key.default) };
        let readers = if readers.len() == stages.len() { "every stage".to_string() } else { readers.join(", ") };
        out.push_str(&format!(
            "| `{}` | {} | {default} | {readers} | {} |\n",
            key.name,
            key.kind.name(),
            key.doc.replace('|', "\\|")
        ));
    }
    out
}

/// The entries of `stage`'s config, for a `match entry.key { ... }` per setting.
pub fn entries<'a>(
    stage: &'a str,
    entries: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> impl Iterator<Item = Entry<'a>> {
    entries.into_iter().map(move |(key, value)| Entry { stage, key, value })
}

/// `keys`' defaults as config entries (families and keys without a default left out): what a
/// stage's reader must turn into its `Default` settings.
#[cfg(test)]
pub(crate) fn declared_defaults(keys: &[Key]) -> Vec<(&'static str, &'static str)> {
    keys.iter().filter(|k| !k.name.contains('<') && !k.default.is_empty()).map(|k| (k.name, k.default)).collect()
}

/// Whether `read` refuses each typed key of `keys` (families and text left out) given `nonsense`:
/// so the reader does read every key declared. Returns the keys it accepted nonsense for.
#[cfg(test)]
pub(crate) fn keys_read_without_refusal<T>(
    keys: &[Key],
    read: impl Fn(&[(&str, &str)]) -> Result<T, StageError>,
) -> Vec<&'static str> {
    keys.iter()
        .filter(|k| !k.name.contains('<') && k.kind != Kind::Text)
        .filter(|k| read(&[(k.name, "nonsense")]).is_ok())
        .map(|k| k.name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DECLARED: Declared = &[
        &[
            Key { name: "window_ms", kind: Kind::Millis, default: "5000", doc: "" },
            Key { name: "keep_ms", kind: Kind::Millis, default: "4000", doc: "" },
        ],
        &[Key { name: "rsu.<rsu>", kind: Kind::Text, default: "", doc: "" }],
    ];

    #[test]
    fn an_undeclared_key_is_refused_naming_the_stage_and_the_nearest_key() {
        assert!(check_known("assembler", DECLARED, [("window_ms", "1"), ("rsu.r7", "1001")]).is_ok());
        let err = check_known("assembler", DECLARED, [("keep_ms", "1"), ("windw_ms", "1")]).unwrap_err();
        assert_eq!(err.reason, "assembler config: unknown key `windw_ms` (did you mean `window_ms`?)");
        assert!(!err.unavailable, "the message's fault to the platform: a dead letter, not a retry");
        // A family needs its member's name; nothing near: no guess.
        assert!(check_known("decoder", DECLARED, [("rsu.", "1001")]).is_err());
        let err = check_known("decoder", DECLARED, [("colour", "red")]).unwrap_err();
        assert_eq!(err.reason, "decoder config: unknown key `colour`");
        assert_eq!(nearest("windows_ms", DECLARED), Some("window_ms"));
        assert_eq!(nearest("keepms", DECLARED), Some("keep_ms"));
    }

    #[test]
    fn the_table_lists_each_key_once_with_the_stages_that_read_it() {
        let stages: &[(&str, Declared)] = &[("assembler", DECLARED), ("decoder", &DECLARED[1..])];
        let table = markdown_table(stages);
        assert!(table.contains("| `window_ms` | ms | `5000` | assembler |"), "{table}");
        assert!(table.contains("| `rsu.<rsu>` | text | — | every stage |"), "{table}");
        assert_eq!(table.lines().count(), 2 + 3);
    }

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

//! Provider and link configuration (see README.md for the table), and the Redis password from
//! the `password` secret.

use std::collections::HashMap;
use std::time::Duration;

pub const DEFAULT_URL: &str = "redis://127.0.0.1:6379/";
pub const DEFAULT_POOL_SIZE: usize = 4;
pub const DEFAULT_RESPONSE_TIMEOUT: Duration = Duration::from_millis(1000);
pub const DEFAULT_CONNECTION_TIMEOUT: Duration = Duration::from_millis(1000);
/// The secret (wadm `secrets:` on the provider or on a link to it) that holds the Redis password.
pub const PASSWORD_SECRET: &str = "password";

#[derive(Debug, Clone, PartialEq)]
pub struct RedisConfig {
    pub url: String,
    pub pool_size: usize,
    pub response_timeout: Duration,
    pub connection_timeout: Duration,
    /// Expiry of the keys of a bucket (`ttl.<bucket>`), renewed by every write: state whose
    /// window has long passed goes by itself, so memory stays bounded.
    pub ttls: std::collections::BTreeMap<String, Duration>,
}

impl Default for RedisConfig {
    fn default() -> Self {
        Self {
            url: DEFAULT_URL.to_string(),
            pool_size: DEFAULT_POOL_SIZE,
            response_timeout: DEFAULT_RESPONSE_TIMEOUT,
            connection_timeout: DEFAULT_CONNECTION_TIMEOUT,
            ttls: Default::default(),
        }
    }
}

impl RedisConfig {
    /// The URL for logs and errors: a password in it shown as `***`.
    pub fn display_url(&self) -> String {
        let Some((scheme, rest)) = self.url.split_once("://") else { return self.url.clone() };
        match rest.rsplit_once('@') {
            Some((userinfo, host)) => {
                let user = userinfo.split_once(':').map_or(userinfo, |(user, _)| user);
                let hidden = if userinfo.contains(':') { ":***" } else { "" };
                format!("{scheme}://{user}{hidden}@{host}")
            }
            None => self.url.clone(),
        }
    }

    /// The URL with `password` (from the `password` secret) as its password; the user, if any,
    /// stays the URL's.
    pub fn with_password(mut self, password: &str) -> Result<Self, String> {
        let mut url = redis::parse_redis_url(&self.url).ok_or("`url` is not a redis:// URL")?;
        url.set_password(Some(password)).map_err(|()| "`url` cannot carry a password".to_string())?;
        self.url = url.to_string();
        Ok(self)
    }

    /// Reads the keys of the table in README.md (case-insensitive), over `base` defaults.
    /// Unknown keys are ignored (links may carry config for other purposes); invalid values of
    /// known keys are errors, so a typo never silently falls back to a default.
    pub fn from_map(values: &HashMap<String, String>, base: &RedisConfig) -> Result<Self, String> {
        let mut cfg = base.clone();
        for (key, value) in values {
            let value = value.trim();
            let millis = || {
                value
                    .parse::<u64>()
                    .ok()
                    .filter(|ms| *ms > 0)
                    .map(Duration::from_millis)
                    .ok_or_else(|| format!("`{key}` must be a positive number of milliseconds, got `{value}`"))
            };
            match key.to_ascii_lowercase().as_str() {
                "url" => {
                    let url = redis::parse_redis_url(value).ok_or_else(|| format!("`{key}` is not a redis:// URL"))?;
                    // Config is readable by every operator (`wash config get`, `wash get links`).
                    if url.password().is_some() {
                        return Err(format!(
                            "`{key}` carries a password: give it as the `{PASSWORD_SECRET}` secret instead"
                        ));
                    }
                    cfg.url = value.to_string();
                }
                "pool_size" => {
                    cfg.pool_size = value
                        .parse::<usize>()
                        .ok()
                        .filter(|n| (1..=64).contains(n))
                        .ok_or_else(|| format!("`{key}` must be 1..=64, got `{value}`"))?;
                }
                "response_timeout_ms" => cfg.response_timeout = millis()?,
                "connection_timeout_ms" => cfg.connection_timeout = millis()?,
                k if k.starts_with("ttl.") && k.len() > 4 => {
                    let bucket = key.trim()[4..].to_string();
                    let ttl = value
                        .parse::<u64>()
                        .ok()
                        .filter(|s| *s > 0)
                        .map(Duration::from_secs)
                        .ok_or_else(|| format!("`{key}` must be a positive number of seconds, got `{value}`"))?;
                    cfg.ttls.insert(bucket, ttl);
                }
                _ => {}
            }
        }
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn defaults_and_overrides() {
        let cfg = RedisConfig::from_map(
            &map(&[("URL", "redis://10.0.0.1:7000/2"), ("pool_size", "8"), ("other", "x")]),
            &RedisConfig::default(),
        )
        .unwrap();
        assert_eq!(cfg.url, "redis://10.0.0.1:7000/2");
        assert_eq!(cfg.pool_size, 8);
        assert_eq!(cfg.response_timeout, DEFAULT_RESPONSE_TIMEOUT);
        assert!(cfg.ttls.is_empty());
        let cfg = RedisConfig::from_map(&map(&[("ttl.trajectories", "60")]), &cfg).unwrap();
        assert_eq!(cfg.ttls["trajectories"], Duration::from_secs(60));
    }

    #[test]
    fn invalid_values_are_rejected() {
        for (k, v) in [
            ("url", "http://x"),
            ("pool_size", "0"),
            ("pool_size", "many"),
            ("response_timeout_ms", "-1"),
            ("connection_timeout_ms", "0"),
            ("ttl.paths", "0"),
            ("ttl.paths", "1h"),
        ] {
            let err = RedisConfig::from_map(&map(&[(k, v)]), &RedisConfig::default()).unwrap_err();
            assert!(err.contains(k), "{err}");
        }
    }

    #[test]
    fn the_password_comes_from_the_secret_never_from_config() {
        let err = RedisConfig::from_map(&map(&[("url", "redis://cits:s3cret@127.0.0.1:6379/")]), &Default::default())
            .unwrap_err();
        assert!(err.contains("secret"), "{err}");
        let cfg = RedisConfig::from_map(&map(&[("url", "redis://cits@127.0.0.1:7000/")]), &Default::default()).unwrap();
        let cfg = cfg.with_password("p/w@x").unwrap();
        assert_eq!(cfg.url, "redis://cits:p%2Fw%40x@127.0.0.1:7000/");
        let info = redis::IntoConnectionInfo::into_connection_info(cfg.url.as_str()).unwrap();
        assert_eq!(info.redis.username.as_deref(), Some("cits"));
        assert_eq!(info.redis.password.as_deref(), Some("p/w@x"));
        assert_eq!(cfg.display_url(), "redis://cits:***@127.0.0.1:7000/");
    }

    #[test]
    fn passwords_never_reach_logs() {
        let with = |url: &str| RedisConfig { url: url.into(), ..Default::default() }.display_url();
        assert_eq!(with("redis://cits:s3cret@127.0.0.1:6379/"), "redis://cits:***@127.0.0.1:6379/");
        assert_eq!(with("redis://:s3cret@h:1/0"), "redis://:***@h:1/0");
        assert_eq!(with("redis://127.0.0.1:6379/"), "redis://127.0.0.1:6379/");
    }
}

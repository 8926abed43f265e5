//! The Redis operations behind wasi:keyvalue, independent of wRPC so they can be tested directly.
//!
//! Buckets are namespaces: key `k` of bucket `b` is the Redis key `b:k` (the empty bucket uses
//! `k` as is). Values are opaque bytes.

use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::OnceCell;

use crate::config::RedisConfig;

/// A failed key-value operation, with the reason the component will see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

impl From<redis::RedisError> for StoreError {
    fn from(e: redis::RedisError) -> Self {
        StoreError(format!("redis: {e}"))
    }
}

/// One page of keys of a bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPage {
    pub keys: Vec<String>,
    /// Pass back to continue; `None` when the scan is complete.
    pub cursor: Option<u64>,
}

/// A pool of multiplexed connections to one Redis server.
///
/// Connections are opened lazily and reconnect by themselves, so a component can be linked while
/// Redis is down and recovers without manual steps when Redis comes back.
pub struct RedisStore {
    client: redis::Client,
    manager_config: ConnectionManagerConfig,
    connections: Vec<OnceCell<ConnectionManager>>,
    next: AtomicUsize,
    config: RedisConfig,
}

const SCAN_PAGE: usize = 1000;

impl RedisStore {
    pub fn new(config: RedisConfig) -> Result<Self, StoreError> {
        let client = redis::Client::open(config.url.as_str())?;
        let manager_config = ConnectionManagerConfig::new()
            .set_response_timeout(config.response_timeout)
            .set_connection_timeout(config.connection_timeout)
            .set_number_of_retries(2)
            .set_max_delay(500);
        Ok(Self {
            client,
            manager_config,
            connections: (0..config.pool_size).map(|_| OnceCell::new()).collect(),
            next: AtomicUsize::new(0),
            config,
        })
    }

    pub fn config(&self) -> &RedisConfig {
        &self.config
    }

    /// Round-robin over the pool; a multiplexed connection pipelines concurrent requests, the pool
    /// spreads them over several sockets.
    async fn connection(&self) -> Result<ConnectionManager, StoreError> {
        let slot = &self.connections[self.next.fetch_add(1, Ordering::Relaxed) % self.connections.len()];
        let conn = slot
            .get_or_try_init(|| ConnectionManager::new_with_config(self.client.clone(), self.manager_config.clone()))
            .await
            .map_err(|e| StoreError(format!("cannot connect to Redis at {}: {e}", self.config.display_url())))?;
        Ok(conn.clone())
    }

    async fn query<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> Result<T, StoreError> {
        let mut conn = self.connection().await?;
        Ok(cmd.query_async(&mut conn).await?)
    }

    pub async fn get(&self, bucket: &str, key: &str) -> Result<Option<Bytes>, StoreError> {
        let value: Option<Vec<u8>> = self.query(redis::cmd("GET").arg(redis_key(bucket, key))).await?;
        Ok(value.map(Bytes::from))
    }

    pub async fn set(&self, bucket: &str, key: &str, value: &[u8]) -> Result<(), StoreError> {
        self.query(&self.set_cmd(redis_key(bucket, key), value)).await
    }

    /// `SET key value`, with `PX` when the key's bucket has a TTL (`ttl.<bucket>`). A key of the
    /// unnamed bucket written as `bucket:key` gets that bucket's TTL too.
    fn set_cmd(&self, redis_key: String, value: &[u8]) -> redis::Cmd {
        let ttl = redis_key.split_once(':').and_then(|(bucket, _)| self.config.ttls.get(bucket));
        let mut cmd = redis::cmd("SET");
        cmd.arg(redis_key).arg(value);
        if let Some(ttl) = ttl {
            cmd.arg("PX").arg(ttl.as_millis() as u64);
        }
        cmd
    }

    pub async fn delete(&self, bucket: &str, key: &str) -> Result<(), StoreError> {
        let _: i64 = self.query(redis::cmd("DEL").arg(redis_key(bucket, key))).await?;
        Ok(())
    }

    pub async fn exists(&self, bucket: &str, key: &str) -> Result<bool, StoreError> {
        self.query(redis::cmd("EXISTS").arg(redis_key(bucket, key))).await
    }

    /// Keys of `bucket`, a page at a time (SCAN: never blocks Redis like KEYS would).
    pub async fn list_keys(&self, bucket: &str, cursor: Option<u64>) -> Result<KeyPage, StoreError> {
        let pattern = format!("{}*", glob_escape(&redis_key(bucket, "")));
        let (next, keys): (u64, Vec<String>) = self
            .query(redis::cmd("SCAN").arg(cursor.unwrap_or(0)).arg("MATCH").arg(pattern).arg("COUNT").arg(SCAN_PAGE))
            .await?;
        let prefix_len = redis_key(bucket, "").len();
        Ok(KeyPage {
            keys: keys.into_iter().map(|k| k[prefix_len..].to_string()).collect(),
            cursor: (next != 0).then_some(next),
        })
    }

    pub async fn increment(&self, bucket: &str, key: &str, delta: u64) -> Result<u64, StoreError> {
        let delta = i64::try_from(delta).map_err(|_| StoreError(format!("increment {delta} exceeds i64")))?;
        let value: i64 = self.query(redis::cmd("INCRBY").arg(redis_key(bucket, key)).arg(delta)).await?;
        u64::try_from(value).map_err(|_| StoreError(format!("counter `{key}` is negative ({value})")))
    }

    /// All `keys` in one MGET round trip; `None` for missing keys, in the order asked.
    pub async fn get_many(&self, bucket: &str, keys: &[String]) -> Result<Vec<Option<(String, Bytes)>>, StoreError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let mut cmd = redis::cmd("MGET");
        for key in keys {
            cmd.arg(redis_key(bucket, key));
        }
        let values: Vec<Option<Vec<u8>>> = self.query(&cmd).await?;
        Ok(keys.iter().zip(values).map(|(k, v)| v.map(|v| (k.clone(), Bytes::from(v)))).collect())
    }

    /// All pairs in one round trip, atomically: MSET, or MULTI … EXEC of SETs with expiry when
    /// a TTL applies (a stage's state and its "applied" marker are committed together or not at all).
    pub async fn set_many(&self, bucket: &str, items: &[(String, Bytes)]) -> Result<(), StoreError> {
        if items.is_empty() {
            return Ok(());
        }
        if self.config.ttls.is_empty() {
            let mut cmd = redis::cmd("MSET");
            for (key, value) in items {
                cmd.arg(redis_key(bucket, key)).arg(value.as_ref());
            }
            return self.query(&cmd).await;
        }
        let mut pipe = redis::pipe();
        pipe.atomic();
        for (key, value) in items {
            pipe.add_command(self.set_cmd(redis_key(bucket, key), value)).ignore();
        }
        let mut conn = self.connection().await?;
        Ok(pipe.query_async(&mut conn).await?)
    }

    pub async fn delete_many(&self, bucket: &str, keys: &[String]) -> Result<(), StoreError> {
        if keys.is_empty() {
            return Ok(());
        }
        let mut cmd = redis::cmd("DEL");
        for key in keys {
            cmd.arg(redis_key(bucket, key));
        }
        let _: i64 = self.query(&cmd).await?;
        Ok(())
    }
}

fn redis_key(bucket: &str, key: &str) -> String {
    if bucket.is_empty() {
        key.to_string()
    } else {
        format!("{bucket}:{key}")
    }
}

/// Escapes Redis glob characters so a bucket name matches only itself in SCAN MATCH.
fn glob_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_namespace_keys() {
        assert_eq!(redis_key("trajectories", "1001/7/0"), "trajectories:1001/7/0");
        assert_eq!(redis_key("", "plain"), "plain");
    }

    #[test]
    fn glob_characters_are_escaped() {
        assert_eq!(glob_escape("a*b?[c]\\"), "a\\*b\\?\\[c\\]\\\\");
    }
}

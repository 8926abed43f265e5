//! wRPC side: link lifecycle and the wrpc:keyvalue handlers, delegating to [`RedisStore`].

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::Context as _;
use bytes::Bytes;
use tokio::sync::RwLock;
use tracing::{info, warn};
use wasmcloud_provider_sdk::core::secrets::SecretValue;
use wasmcloud_provider_sdk::{
    get_connection, initialize_observability, run_provider, Context, LinkConfig, LinkDeleteInfo, Provider,
    ProviderInitConfig,
};

use crate::config::{RedisConfig, PASSWORD_SECRET};
use crate::store::{RedisStore, StoreError};

mod bindings {
    wit_bindgen_wrpc::generate!({
        world: "provider",
        with: {
            "wrpc:keyvalue/store@0.2.0-draft": generate,
            "wrpc:keyvalue/atomics@0.2.0-draft": generate,
            "wrpc:keyvalue/batch@0.2.0-draft": generate,
        }
    });
}

use bindings::exports::wrpc::keyvalue::{atomics, batch, store};

type KvResult<T> = anyhow::Result<Result<T, store::Error>>;

/// The provider: one Redis pool per linked component (each link may name its own server), plus
/// a default pool from the provider's own config for calls without a known source.
#[derive(Clone, Default)]
pub struct KvRedisProvider {
    /// The provider's config, without a password (links start from it).
    default_config: Arc<RwLock<RedisConfig>>,
    /// The provider's `password` secret: used by every link that brings none of its own.
    default_password: Arc<RwLock<Option<String>>>,
    default_store: Arc<RwLock<Option<Arc<RedisStore>>>>,
    stores: Arc<RwLock<HashMap<String, Arc<RedisStore>>>>,
}

/// Starts the provider under a wasmCloud host (reads host data from stdin).
pub async fn run() -> anyhow::Result<()> {
    initialize_observability!("keyvalue-redis-provider", std::env::var_os("PROVIDER_KEYVALUE_REDIS_FLAMEGRAPH_PATH"));
    let provider = KvRedisProvider::default();
    let shutdown = run_provider(provider.clone(), "keyvalue-redis-provider").await.context("failed to run provider")?;
    cits_provider::spawn_link_catch_up(provider.clone());
    let connection = get_connection();
    let wrpc = connection.get_wrpc_client(connection.provider_key()).await?;
    let invocations = bindings::serve(&wrpc, provider).await.context("failed to serve provider exports")?;
    cits_provider::serve(invocations, shutdown).await
}

impl KvRedisProvider {
    async fn store_for(&self, cx: &Option<Context>) -> Result<Arc<RedisStore>, store::Error> {
        if let Some(component) = cx.as_ref().and_then(|cx| cx.component.as_deref()) {
            if let Some(store) = self.stores.read().await.get(component) {
                return Ok(Arc::clone(store));
            }
        }
        let mut default = self.default_store.write().await;
        if let Some(store) = default.as_ref() {
            return Ok(Arc::clone(store));
        }
        let cfg = self.default_config.read().await.clone();
        let cfg =
            with_secret_password(cfg, self.default_password.read().await.as_deref()).map_err(store::Error::Other)?;
        let store = Arc::new(RedisStore::new(cfg).map_err(to_wit)?);
        *default = Some(Arc::clone(&store));
        Ok(store)
    }
}

/// The Redis password of a secrets map: the string secret `password`, or the one named
/// `password-<anything>` (each version of an application names its own: wadm calls a secret's
/// reference after the application and the secret's name, and deletes the old version's when
/// another is deployed, so two versions sharing a name would lose it on a switch).
fn password_of(secrets: &HashMap<String, SecretValue>) -> anyhow::Result<Option<String>> {
    let mut named: Vec<(&String, &SecretValue)> = secrets
        .iter()
        .filter(|(name, _)| {
            *name == PASSWORD_SECRET || name.strip_prefix(PASSWORD_SECRET).is_some_and(|rest| rest.starts_with('-'))
        })
        .collect();
    named.sort_by_key(|(name, _)| *name != PASSWORD_SECRET);
    let Some((name, value)) = named.first() else { return Ok(None) };
    if *name != PASSWORD_SECRET && named.len() > 1 {
        anyhow::bail!("more than one `{PASSWORD_SECRET}-…` secret: give one");
    }
    value.as_string().map(|p| Some(p.to_string())).ok_or_else(|| anyhow::anyhow!("secret `{name}` must be a string"))
}

fn with_secret_password(cfg: RedisConfig, password: Option<&str>) -> Result<RedisConfig, String> {
    match password {
        Some(p) => cfg.with_password(p),
        None => Ok(cfg),
    }
}

fn to_wit(e: StoreError) -> store::Error {
    store::Error::Other(e.0)
}

/// Runs `op` on the caller's store; Redis failures become `error::other` with the reason.
macro_rules! with_store {
    ($self:ident, $cx:ident, |$store:ident| $op:expr) => {{
        let $store = match $self.store_for(&$cx).await {
            Ok(s) => s,
            Err(e) => return Ok(Err(e)),
        };
        Ok($op.await.map_err(to_wit))
    }};
}

impl store::Handler<Option<Context>> for KvRedisProvider {
    async fn get(&self, cx: Option<Context>, bucket: String, key: String) -> KvResult<Option<Bytes>> {
        with_store!(self, cx, |s| s.get(&bucket, &key))
    }

    async fn set(&self, cx: Option<Context>, bucket: String, key: String, value: Bytes) -> KvResult<()> {
        with_store!(self, cx, |s| s.set(&bucket, &key, &value))
    }

    async fn delete(&self, cx: Option<Context>, bucket: String, key: String) -> KvResult<()> {
        with_store!(self, cx, |s| s.delete(&bucket, &key))
    }

    async fn exists(&self, cx: Option<Context>, bucket: String, key: String) -> KvResult<bool> {
        with_store!(self, cx, |s| s.exists(&bucket, &key))
    }

    async fn list_keys(
        &self,
        cx: Option<Context>,
        bucket: String,
        cursor: Option<u64>,
    ) -> KvResult<store::KeyResponse> {
        let store = match self.store_for(&cx).await {
            Ok(s) => s,
            Err(e) => return Ok(Err(e)),
        };
        Ok(store
            .list_keys(&bucket, cursor)
            .await
            .map(|page| store::KeyResponse { keys: page.keys, cursor: page.cursor })
            .map_err(to_wit))
    }
}

impl atomics::Handler<Option<Context>> for KvRedisProvider {
    async fn increment(&self, cx: Option<Context>, bucket: String, key: String, delta: u64) -> KvResult<u64> {
        with_store!(self, cx, |s| s.increment(&bucket, &key, delta))
    }
}

impl batch::Handler<Option<Context>> for KvRedisProvider {
    async fn get_many(
        &self,
        cx: Option<Context>,
        bucket: String,
        keys: Vec<String>,
    ) -> KvResult<Vec<Option<(String, Bytes)>>> {
        with_store!(self, cx, |s| s.get_many(&bucket, &keys))
    }

    async fn set_many(&self, cx: Option<Context>, bucket: String, items: Vec<(String, Bytes)>) -> KvResult<()> {
        with_store!(self, cx, |s| s.set_many(&bucket, &items))
    }

    async fn delete_many(&self, cx: Option<Context>, bucket: String, keys: Vec<String>) -> KvResult<()> {
        with_store!(self, cx, |s| s.delete_many(&bucket, &keys))
    }
}

impl Provider for KvRedisProvider {
    async fn init(&self, config: impl ProviderInitConfig) -> anyhow::Result<()> {
        let cfg = RedisConfig::from_map(config.get_config(), &RedisConfig::default())
            .map_err(|e| anyhow::anyhow!("invalid provider config: {e}"))?;
        let password = password_of(config.get_secrets())?;
        info!(
            url = %cfg.display_url(),
            pool_size = cfg.pool_size,
            password_secret = password.is_some(),
            "Redis key-value provider configured"
        );
        *self.default_config.write().await = cfg;
        *self.default_password.write().await = password;
        Ok(())
    }

    /// A component linked to us: its link config may point at its own Redis server, its link
    /// secrets bring that server's password (else the provider's `password` secret applies).
    async fn receive_link_config_as_target(&self, link: LinkConfig<'_>) -> anyhow::Result<()> {
        let base = self.default_config.read().await.clone();
        let invalid = |e: String| anyhow::anyhow!("invalid link config from {}: {e}", link.source_id);
        let cfg = RedisConfig::from_map(link.config, &base).map_err(invalid)?;
        let password = match password_of(link.secrets)? {
            Some(p) => Some(p),
            None => self.default_password.read().await.clone(),
        };
        let cfg = with_secret_password(cfg, password.as_deref()).map_err(invalid)?;
        let store = RedisStore::new(cfg).map_err(|e| anyhow::anyhow!("link from {}: {e}", link.source_id))?;
        info!(component = link.source_id, url = %store.config().display_url(), pool_size = store.config().pool_size, "component linked");
        self.stores.write().await.insert(link.source_id.to_string(), Arc::new(store));
        Ok(())
    }

    async fn delete_link_as_target(&self, info: impl LinkDeleteInfo) -> anyhow::Result<()> {
        if self.stores.write().await.remove(info.get_source_id()).is_none() {
            warn!(component = info.get_source_id(), "link deleted for unknown component");
        }
        Ok(())
    }

    async fn shutdown(&self) -> anyhow::Result<()> {
        self.stores.write().await.clear();
        self.default_store.write().await.take();
        self.default_password.write().await.take();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(pairs: &[(&str, &str)]) -> HashMap<String, SecretValue> {
        pairs.iter().map(|(k, v)| (k.to_string(), SecretValue::String(v.to_string()))).collect()
    }

    #[test]
    fn the_password_is_the_secret_password_or_one_password_dash_name() {
        assert_eq!(password_of(&secrets(&[])).unwrap(), None);
        assert_eq!(password_of(&secrets(&[("other", "x")])).unwrap(), None);
        assert_eq!(password_of(&secrets(&[("password", "a")])).unwrap().as_deref(), Some("a"));
        assert_eq!(password_of(&secrets(&[("password-fused", "b")])).unwrap().as_deref(), Some("b"));
        assert_eq!(password_of(&secrets(&[("password-x", "b"), ("password", "a")])).unwrap().as_deref(), Some("a"));
        assert_eq!(password_of(&secrets(&[("passwords", "c")])).unwrap(), None);
        assert!(password_of(&secrets(&[("password-a", "a"), ("password-b", "b")])).is_err());
        let bytes = HashMap::from([("password".to_string(), SecretValue::Bytes(vec![1]))]);
        assert!(password_of(&bytes).is_err());
    }
}

//! wasmCloud's NATS KV secrets backend (secrets-nats-kv, its own NATS user): hosts resolve a
//! manifest's secret references there (WASMCLOUD_SECRETS_TOPIC) and hand the values over sealed
//! for the component or provider. It keeps secrets sealed with its encryption key in a JetStream
//! KV bucket. The Redis password goes there, readable by the key-value provider's key alone.

use std::time::Duration;

use anyhow::{bail, Context as _};

use super::process::{Program, StartGuard};
use super::settings::{required, Settings};
use crate::rsu::SECRETS_TOPIC;
use cits_manifest::REDIS_PASSWORD_SECRET;

pub async fn start(settings: &Settings, guard: &mut StartGuard) -> anyhow::Result<()> {
    let backend = required(&settings.binaries.secrets, "SECRETS_NATS_KV")?;
    let auth = settings.auth();
    let seed = |key: &str| super::redis::read_secret(&auth.join("secrets").join(format!("{key}.xk")));
    // Seeds and the password in the environment, never on a command line (ps shows those).
    let transit = seed("transit")?;
    let program = Program::new(backend)
        .args(["run", "--subject-base", SECRETS_TOPIC, "--nats-address", &settings.nats_addr()])
        .args(["--nats-creds-file".to_string(), settings.creds("secrets").display().to_string()])
        .envs(settings.common_env())
        .env("TRANSIT_XKEY_SEED", &transit)
        .env("ENCRYPTION_XKEY_SEED", seed("encryption")?)
        .env("RUST_LOG", &settings.secrets_log);
    guard.start("secrets", program)?;
    crate::rsu::secrets_ready(&settings.nats_addr(), &auth, Duration::from_secs(20)).await?;

    let provider_key = public_key(settings, "keyvalue-redis-provider_service.nk")?;
    let password = super::redis::read_secret(&auth.join("redis.password"))?;
    admin(settings, backend, &["put", REDIS_PASSWORD_SECRET], &[("SECRET_STRING_VALUE", &password)], &transit).await?;
    admin(settings, backend, &["add-mapping", &provider_key, "--secret", REDIS_PASSWORD_SECRET], &[], &transit).await
}

/// One admin command of the backend as the lattice's operator; its output goes to
/// `secrets-admin.log`.
async fn admin(
    settings: &Settings,
    backend: &std::path::Path,
    args: &[&str],
    env: &[(&str, &str)],
    transit: &str,
) -> anyhow::Result<()> {
    let log = std::fs::OpenOptions::new().create(true).append(true).open(settings.log("secrets-admin"))?;
    let status = tokio::process::Command::new(backend)
        .args(args)
        .args(["--subject-base", SECRETS_TOPIC, "--nats-address", &settings.nats_addr()])
        .envs(env.iter().copied())
        .env("TRANSIT_XKEY_SEED", transit)
        .env("NATS_CREDSFILE", settings.creds("operator"))
        .stdout(log.try_clone()?)
        .stderr(log)
        .status()
        .await
        .with_context(|| format!("cannot run {}", backend.display()))?;
    if !status.success() {
        bail!("secrets-nats-kv {} failed ({status}); see {}", args[0], settings.log("secrets-admin").display());
    }
    Ok(())
}

/// The public key of one of wash's signing keys in WASH_KEYS.
pub fn public_key(settings: &Settings, seed_file: &str) -> anyhow::Result<String> {
    let file = required(&settings.binaries.wash_keys, "WASH_KEYS")?.join(seed_file);
    let seed = super::redis::read_secret(&file)?;
    Ok(nkeys::KeyPair::from_seed(&seed).with_context(|| format!("{} holds no nkey seed", file.display()))?.public_key())
}

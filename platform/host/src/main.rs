//! The lattice host: a thin launcher around the `wasmcloud-host` 0.27.1 library (wasmCloud v1.9.2).
//!
//! wasmCloud does not publish its host binary to crates.io, so we build it from the library.
//! Every option can be set by the same `WASMCLOUD_*` environment variables the upstream host
//! reads, so `wash up --host-path` and our Makefile drive it alike.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context as _};
use clap::Parser;
use nkeys::KeyPair;
use wasmcloud_host::url::Url;
use wasmcloud_host::wasmbus::host_config::PolicyService;
use wasmcloud_host::wasmbus::{Features, Host};
use wasmcloud_host::WasmbusHostConfig;

/// Version reported in host heartbeats: the upstream release this library version ships in.
const HOST_VERSION: &str = "1.9.2";

#[derive(Debug, Parser)]
#[command(name = "wasmcloud", version = HOST_VERSION, about = "wasmCloud host for the C-ITS pipeline")]
struct Args {
    /// NATS host for control interface and RPC traffic.
    #[arg(long, env = "WASMCLOUD_NATS_HOST", default_value = "127.0.0.1")]
    nats_host: String,
    #[arg(long, env = "WASMCLOUD_NATS_PORT", default_value_t = 4222)]
    nats_port: u16,
    /// Control-interface NATS host/port (default: --nats-host/--nats-port).
    #[arg(long, env = "WASMCLOUD_CTL_HOST")]
    ctl_host: Option<String>,
    #[arg(long, env = "WASMCLOUD_CTL_PORT")]
    ctl_port: Option<u16>,
    /// RPC NATS host/port (default: --nats-host/--nats-port).
    #[arg(long, env = "WASMCLOUD_RPC_HOST")]
    rpc_host: Option<String>,
    #[arg(long, env = "WASMCLOUD_RPC_PORT")]
    rpc_port: Option<u16>,
    /// Timeout of one RPC call between components and providers.
    #[arg(long, env = "WASMCLOUD_RPC_TIMEOUT_MS", default_value_t = 2000)]
    rpc_timeout_ms: u64,
    /// Lattice name.
    #[arg(short = 'x', long, env = "WASMCLOUD_LATTICE", default_value = "default")]
    lattice: String,
    /// Host seed key (nkey "SN..."); a fresh one is generated when absent.
    #[arg(long, env = "WASMCLOUD_HOST_SEED")]
    host_seed: Option<String>,
    /// JetStream domain.
    #[arg(long, env = "WASMCLOUD_JS_DOMAIN")]
    js_domain: Option<String>,
    /// Allow `file://` component and provider references (local builds).
    #[arg(long, env = "WASMCLOUD_ALLOW_FILE_LOAD", default_value_t = false)]
    allow_file_load: bool,
    /// Host labels `key=value` (repeatable); `WASMCLOUD_LABEL_<key>=<value>` env vars are added.
    #[arg(short = 'l', long = "label")]
    labels: Vec<String>,
    /// Log filter (tracing EnvFilter syntax or a level).
    #[arg(long, env = "WASMCLOUD_LOG_LEVEL", default_value = "info")]
    log_level: String,
    #[arg(long, env = "WASMCLOUD_STRUCTURED_LOGGING_ENABLED", default_value_t = false)]
    structured_logging: bool,
    /// Delay between asking a provider to stop and killing it.
    #[arg(long, env = "WASMCLOUD_PROV_SHUTDOWN_DELAY_MS", default_value_t = 300)]
    provider_shutdown_delay_ms: u64,
    /// Linear memory limit per component instance.
    #[arg(long, env = "WASMCLOUD_MAX_LINEAR_MEMORY", default_value_t = 64 * 1024 * 1024)]
    max_linear_memory: u32,
    /// Longest a single component invocation may run.
    #[arg(long, env = "WASMCLOUD_MAX_EXECUTION_TIME_MS", default_value_t = 10_000)]
    max_execution_time_ms: u64,
    /// Heartbeat interval in seconds (wadm reconciles on heartbeats).
    #[arg(long, env = "WASMCLOUD_HEARTBEAT_INTERVAL")]
    heartbeat_interval_secs: Option<u64>,
    /// NATS credentials file (user JWT + seed) for the control and RPC connections; the host
    /// passes the RPC credentials on to the providers it starts.
    #[arg(long, env = "WASMCLOUD_NATS_CREDS")]
    nats_creds: Option<std::path::PathBuf>,
    /// Subject of the policy service asked before starting a component or provider (and before
    /// a component's first invocation); without an answer nothing starts.
    #[arg(long, env = "WASMCLOUD_POLICY_TOPIC")]
    policy_topic: Option<String>,
    /// Subject on which the policy service announces changed decisions.
    #[arg(long, env = "WASMCLOUD_POLICY_CHANGES_TOPIC")]
    policy_changes_topic: Option<String>,
    #[arg(long, env = "WASMCLOUD_POLICY_TIMEOUT_MS", default_value_t = 2000)]
    policy_timeout_ms: u64,
    /// Subject prefix of the secrets backends (e.g. `wasmcloud.secrets`): secret references in a
    /// manifest are resolved there when a component or provider starts or a link is put. Unset:
    /// anything that references a secret fails to start.
    #[arg(long = "secrets-topic", env = "WASMCLOUD_SECRETS_TOPIC")]
    secrets_topic_prefix: Option<String>,
    /// Directory in which compiled components are kept, so that a restarted
    /// host, or one deploying a component it compiled before, loads machine code instead of
    /// compiling again. Must be a directory only this user can write to (created 0700 if
    /// missing): the host runs what it finds there. Unset: every start compiles.
    #[arg(long, env = "WASMCLOUD_COMPILATION_CACHE_DIR")]
    compilation_cache_dir: Option<std::path::PathBuf>,
    /// Start a component the cache does not hold on baseline code (Winch, ~6x faster to compile,
    /// slower to run) and swap in Cranelift's code once compiled in the background at low
    /// priority: the first deployment of seven components is up in a fraction of the time.
    #[arg(long, env = "WASMCLOUD_TIERED_COMPILATION", default_value_t = true, action = clap::ArgAction::Set)]
    tiered_compilation: bool,
    /// Experimental host features (comma separated).
    #[arg(long = "feature", env = "WASMCLOUD_EXPERIMENTAL_FEATURES", value_delimiter = ',')]
    features: Vec<String>,
}

fn nats_url(host: Option<String>, port: Option<u16>, args: &Args) -> anyhow::Result<Url> {
    let host = host.unwrap_or_else(|| args.nats_host.clone());
    let port = port.unwrap_or(args.nats_port);
    Url::parse(&format!("nats://{host}:{port}")).with_context(|| format!("invalid NATS address {host}:{port}"))
}

/// The user JWT and seed of a NATS `.creds` file (the format `nsc` and NATS tools write).
fn read_creds(path: &std::path::Path) -> anyhow::Result<(String, Arc<KeyPair>)> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    // Each block is a `-----BEGIN …-----` line, the value, an `------END …------` line.
    let block = |name: &str| {
        let mut lines = text.lines().map(str::trim);
        lines.find(|l| l.starts_with("-----BEGIN") && l.contains(name))?;
        lines.next().filter(|v| !v.is_empty() && !v.starts_with("--")).map(str::to_string)
    };
    let jwt = block("JWT").with_context(|| format!("{}: no user JWT", path.display()))?;
    let seed = block("SEED").with_context(|| format!("{}: no nkey seed", path.display()))?;
    let key = KeyPair::from_seed(&seed).with_context(|| format!("{}: invalid nkey seed", path.display()))?;
    Ok((jwt, Arc::new(key)))
}

/// The compilation cache directory, created 0700 where missing; refused if another user owns it
/// or anyone else may write to it, since whatever is cached there runs as native code.
fn private_dir(dir: &std::path::Path) -> anyhow::Result<()> {
    use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .with_context(|| format!("cannot create {}", dir.display()))?;
    let meta = std::fs::metadata(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    if meta.uid() != uid || meta.mode() & 0o022 != 0 {
        bail!(
            "compilation cache {} must be owned by uid {uid} and writable by it alone (owner {}, mode {:o})",
            dir.display(),
            meta.uid(),
            meta.mode() & 0o777
        );
    }
    Ok(())
}

fn labels(args: &Args) -> anyhow::Result<HashMap<String, String>> {
    let mut labels: HashMap<String, String> =
        std::env::vars().filter_map(|(k, v)| Some((k.strip_prefix("WASMCLOUD_LABEL_")?.to_string(), v))).collect();
    for pair in &args.labels {
        let Some((k, v)) = pair.split_once('=') else {
            bail!("invalid label `{pair}`, expected key=value");
        };
        labels.insert(k.to_string(), v.to_string());
    }
    Ok(labels)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let filter = tracing_subscriber::EnvFilter::try_new(&args.log_level)
        .with_context(|| format!("invalid log level `{}`", args.log_level))?;
    let subscriber = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    if args.structured_logging {
        subscriber.json().init();
    } else {
        subscriber.init();
    }

    if let Some(dir) = &args.compilation_cache_dir {
        private_dir(dir)?;
        wasmcloud_runtime::set_compilation_cache(dir.clone());
        tracing::info!(dir = %dir.display(), "compiled components cached");
    }
    wasmcloud_runtime::set_tiered_compilation(args.tiered_compilation);

    let host_key = args
        .host_seed
        .as_deref()
        .map(KeyPair::from_seed)
        .transpose()
        .context("WASMCLOUD_HOST_SEED is not a valid nkey seed")?
        .map(Arc::new);
    let creds = args.nats_creds.as_deref().map(read_creds).transpose()?;
    let (jwt, key) = creds.map_or((None, None), |(jwt, key)| (Some(jwt), Some(key)));
    let config = WasmbusHostConfig {
        ctl_jwt: jwt.clone(),
        ctl_key: key.clone(),
        rpc_jwt: jwt,
        rpc_key: key,
        policy_service_config: PolicyService {
            policy_topic: args.policy_topic.clone(),
            policy_changes_topic: args.policy_changes_topic.clone(),
            policy_timeout_ms: Some(Duration::from_millis(args.policy_timeout_ms)),
        },
        secrets_topic_prefix: args.secrets_topic_prefix.clone(),
        ctl_nats_url: nats_url(args.ctl_host.clone(), args.ctl_port, &args)?,
        rpc_nats_url: nats_url(args.rpc_host.clone(), args.rpc_port, &args)?,
        rpc_timeout: Duration::from_millis(args.rpc_timeout_ms),
        lattice: Arc::from(args.lattice.as_str()),
        host_key,
        js_domain: args.js_domain.clone(),
        labels: labels(&args)?,
        provider_shutdown_delay: Some(Duration::from_millis(args.provider_shutdown_delay_ms)),
        allow_file_load: args.allow_file_load,
        enable_structured_logging: args.structured_logging,
        version: HOST_VERSION.to_string(),
        max_linear_memory: args.max_linear_memory,
        max_execution_time: Duration::from_millis(args.max_execution_time_ms),
        heartbeat_interval: args.heartbeat_interval_secs.map(Duration::from_secs),
        experimental_features: args.features.iter().map(|f| Features::from(f.as_str())).sum(),
        ..Default::default()
    };
    let (host, shutdown) = Box::pin(Host::new(config)).await.context("failed to start the wasmCloud host")?;

    // Stop on SIGINT/SIGTERM (make stop sends SIGTERM) or when the lattice asks the host to stop.
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let deadline = tokio::select! {
        _ = tokio::signal::ctrl_c() => None,
        _ = terminate.recv() => None,
        deadline = host.stopped() => deadline?,
    };
    drop(host);
    let grace =
        deadline.map(|d| d.saturating_duration_since(tokio::time::Instant::now())).unwrap_or(Duration::from_secs(10));
    tokio::time::timeout(grace, shutdown).await.context("host shutdown timed out")?.context("host shutdown failed")
}

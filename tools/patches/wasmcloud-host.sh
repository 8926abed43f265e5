#!/usr/bin/env bash
# Builds the copy of wasmcloud-host 0.27.1 that Cargo.toml's [patch.crates-io] points at: the
# crates.io release (checksum-verified) with three changes.
#
# 1. A wRPC client per target reused across calls. Why: for every call a component makes to a
# provider (a key-value read, a publish, a blob read) the host built a new wRPC NATS client: a wildcard subscription on a fresh inbox (`SUB`, and
# nats-server purges its subject cache of everything that wildcard matches), a demultiplexing
# task, and `UNSUB` when the call was done: three times per frame in the fused deployment, once
# per hop and call in the seven-actor one. A client is made to be shared (the provider SDK keeps
# one per link; replies are routed by a per-call inbox under the client's one subscription), so
# the host now keeps one per NATS connection and target (`<lattice>.<target id>`) for as long as
# it runs. A target that goes away leaves one idle subscription behind; the map is cleared when
# it holds 1024, so targets that come and go cannot grow it without bound.
#
# 2. A provider archive given as a file is read in one go and checked in memory on a blocking
# thread. Why: the release streams it through tokio's file reader in 8 KiB reads (each one a hop
# to the blocking pool), gunzips and hashes it on an async worker and rewrites the binary in
# place: 0.35-0.45 s per provider while a deployment's components compile, on the path to the
# first link. Same checks (claims signature, binary hash); the binary is written beside the old
# one and renamed over it, so a provider still running from it is never touched mid-write.
#
# 3. No provider is spawned while a provider binary is open for writing. Why: a process forked
# (to spawn one provider) while another thread has a binary open for writing inherits that file
# descriptor until its exec; exec of that binary then fails with ETXTBSY ("Text file busy"), the
# provider never starts and wadm waits on it (seen in CI: two of three providers started, the
# deployment stuck at "Scaling provider"). One lock around each write and each spawn.
#
#   tools/patches/wasmcloud-host.sh <destination dir>
set -euo pipefail

VERSION=0.27.1
SHA256=6edaf1f51d0b9ec8b799a6d64fce474eb6cf299be3e1ca2e296dfc3c385b8a36
dest=$1

source "$(dirname "$0")/crate.sh"
begin_patch wasmcloud-host "$VERSION" "$SHA256" "$dest"

python3 - "$work/wasmcloud-host-$VERSION/src/wasmbus/handler.rs" <<'PY'
import sys
path = sys.argv[1]
src = open(path).read()
per_call = """        let nats = wrpc_transport_nats::Client::new(
            Arc::clone(&self.nats),
            format!("{}.{id}", &self.lattice),
            None,
        )
        .await
        .map_err(Error::Handler)?;
"""
if src.count(per_call) != 1:
    sys.exit(f"wasmcloud-host patch: expected one per-call wRPC client, found {src.count(per_call)}")
src = src.replace(per_call, """\
        // cits patch (tools/patches/wasmcloud-host.sh): one client per target, reused.
        let nats = shared_wrpc_client(&self.nats, format!("{}.{id}", &self.lattice))
            .await
            .map_err(Error::Handler)?;
""")
src += """
// cits patch (tools/patches/wasmcloud-host.sh).
type SharedClients = std::sync::Mutex<HashMap<(usize, String), wrpc_transport_nats::Client>>;
static SHARED_WRPC_CLIENTS: std::sync::OnceLock<SharedClients> = std::sync::OnceLock::new();

/// The wRPC client for invocations on `prefix` over `nats`, made on first use. Keyed by the
/// connection's address too: a cached client holds its connection, so the address is not reused
/// while the entry lives.
async fn shared_wrpc_client(
    nats: &Arc<async_nats::Client>,
    prefix: String,
) -> anyhow::Result<wrpc_transport_nats::Client> {
    let clients = SHARED_WRPC_CLIENTS.get_or_init(Default::default);
    let key = (Arc::as_ptr(nats) as usize, prefix);
    if let Some(client) = clients.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(client.clone());
    }
    let client = wrpc_transport_nats::Client::new(Arc::clone(nats), key.1.clone(), None).await?;
    let mut clients = clients.lock().unwrap_or_else(|e| e.into_inner());
    if clients.len() >= 1024 {
        clients.clear();
    }
    // Two first calls at once both made one: the first stored wins, the other is dropped.
    Ok(clients.entry(key).or_insert(client).clone())
}
"""
open(path, "w").write(src)
PY

python3 - "$work/wasmcloud-host-$VERSION" <<'PY'
import sys
root = sys.argv[1]
path = f"{root}/src/lib.rs"
src = open(path).read()
streamed = """            wasmcloud_core::par::read(
                provider_path,
                host_id,
                provider_ref,
                wasmcloud_core::par::UseParFileCache::Ignore,
            )
            .await
            .context("failed to read provider")
"""
if src.count(streamed) != 1:
    sys.exit(f"wasmcloud-host patch: expected one streamed provider archive read, found {src.count(streamed)}")
src = src.replace(streamed, """\
            // cits patch (tools/patches/wasmcloud-host.sh): read whole, checked off the workers.
            read_provider_archive(provider_path, host_id.as_ref(), provider_ref.as_ref())
                .await
                .context("failed to read provider")
""")
src += """
// cits patch (tools/patches/wasmcloud-host.sh).
/// Reads the provider archive at `path` in one read, checks its claims and binary hash in memory
/// and writes the native binary to the host's provider cache, all on a blocking thread.
async fn read_provider_archive(
    path: &std::path::Path,
    host_id: &str,
    provider_ref: &str,
) -> anyhow::Result<(PathBuf, Option<jwt::Token<jwt::CapabilityProvider>>)> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let path = path.to_path_buf();
    let exe = wasmcloud_core::par::cache_path(host_id, provider_ref);
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        let bytes = std::fs::read(&path)
            .with_context(|| format!("failed to read provider archive [{}]", path.display()))?;
        let target = format!("{}-{}", std::env::consts::ARCH, std::env::consts::OS);
        // Reads from memory only: nothing in it waits on the runtime.
        let par = runtime
            .block_on(provider_archive::ProviderArchive::try_load_target(&bytes, &target))
            .map_err(|e| anyhow::anyhow!(e).context("failed to load provider archive"))?;
        let binary = par
            .target_bytes(&target)
            .with_context(|| format!("target `{target}` not found"))?;
        let dir = exe.parent().context("failed to determine parent path")?;
        std::fs::create_dir_all(dir).context("failed to create parent directory")?;
        // Unique per call: two starts of one provider at once must not write the same file.
        static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let fresh = exe.with_extension(format!("new-{}-{call}", std::process::id()));
        let written = {
            let _no_spawn = provider_binary_lock();
            std::fs::OpenOptions::new()
                .create(true)
                .truncate(true)
                .write(true)
                .mode(0o755)
                .open(&fresh)
                .and_then(|mut file| file.write_all(&binary))
        }
        .and_then(|()| std::fs::rename(&fresh, &exe));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&fresh);
            return Err(anyhow::Error::new(e)
                .context(format!("failed to write provider binary [{}]", exe.display())));
        }
        Ok((exe, par.claims_token()))
    })
    .await
    .context("provider archive reader failed")?
}

/// Held while a provider binary is open for writing and while a provider process is spawned, so
/// that no spawned process inherits a binary's write descriptor (exec would fail with ETXTBSY).
pub(crate) fn provider_binary_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}
"""
open(path, "w").write(src)
# provider-archive is wasmcloud-core's already (same lock entry); the host now calls it itself.
manifest = f"{root}/Cargo.toml"
toml = open(manifest).read()
if "[dependencies.provider-archive]" in toml:
    sys.exit("wasmcloud-host patch: provider-archive is a dependency already")
toml = toml.replace("[dependencies.futures]", """[dependencies.provider-archive]
version = "^0.16.1"
default-features = false

[dependencies.futures]""", 1)
open(manifest, "w").write(toml)
PY

python3 - "$work/wasmcloud-host-$VERSION/src/wasmbus/providers/mod.rs" <<'PY'
import sys
path = sys.argv[1]
src = open(path).read()
spawn = """    let mut child = child_cmd
        .stdin(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .context("failed to spawn provider process")?;
"""
if src.count(spawn) != 1:
    sys.exit(f"wasmcloud-host patch: expected one provider spawn, found {src.count(spawn)}")
src = src.replace(spawn, """\
    // cits patch (tools/patches/wasmcloud-host.sh): never while a provider binary is being written.
    let spawned = {
        let _no_write = crate::provider_binary_lock();
        child_cmd.stdin(Stdio::piped()).kill_on_drop(true).spawn()
    };
    let mut child = spawned.context("failed to spawn provider process")?;
""")
open(path, "w").write(src)
PY

install_crate "$work/wasmcloud-host-$VERSION" "$dest"

#!/usr/bin/env bash
# Builds the copy of wasmcloud-host 0.27.1 that Cargo.toml's [patch.crates-io] points at: the
# crates.io release (checksum-verified) with one change, a wRPC client per target reused across
# calls.
#
# Why: for every call a component makes to a provider (a key-value read, a publish, a blob read)
# the host built a new wRPC NATS client: a wildcard subscription on a fresh inbox (`SUB`, and
# nats-server purges its subject cache of everything that wildcard matches), a demultiplexing
# task, and `UNSUB` when the call was done: three times per frame in the fused deployment, once
# per hop and call in the seven-actor one. A client is made to be shared (the provider SDK keeps
# one per link; replies are routed by a per-call inbox under the client's one subscription), so
# the host now keeps one per NATS connection and target (`<lattice>.<target id>`) for as long as
# it runs. A target that goes away leaves one idle subscription behind; the map is cleared when
# it holds 1024, so targets that come and go cannot grow it without bound.
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

install_crate "$work/wasmcloud-host-$VERSION" "$dest"

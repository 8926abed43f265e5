//! wasi:blobstore on the local filesystem (street geometry blobs): the crates.io provider, run
//! the way the published binary runs it plus our link catch-up and export serving (see
//! `cits-provider`), its reads sent in large chunks (see [`whole_reads`]).
mod whole_reads;

use anyhow::Context as _;
use wasmcloud_provider_blobstore_fs::FsProvider;
use wasmcloud_provider_sdk::{get_connection, initialize_observability, run_provider};

// One thread: the provider only waits on sockets, and a second worker would be woken (a context
// switch, on a VM an inter-processor interrupt) for nearly every message it relays.
#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    initialize_observability!("blobstore-fs-provider", std::env::var_os("PROVIDER_BLOBSTORE_FS_FLAMEGRAPH_PATH"));
    let provider = FsProvider::default();
    let shutdown = run_provider(provider.clone(), "blobstore-fs-provider").await.context("failed to run provider")?;
    cits_provider::spawn_link_catch_up(provider.clone());
    let connection = get_connection();
    let wrpc = connection.get_wrpc_client(connection.provider_key()).await?;
    let invocations = wrpc_interface_blobstore::bindings::serve(&wrpc, whole_reads::WholeReads(provider))
        .await
        .context("failed to serve provider exports")?;
    cits_provider::serve(invocations, shutdown).await
}

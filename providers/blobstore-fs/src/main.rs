//! wasi:blobstore on the local filesystem (street geometry blobs): the crates.io provider as a binary.
#[tokio::main]
async fn main() -> anyhow::Result<()> {
    wasmcloud_provider_blobstore_fs::run().await
}

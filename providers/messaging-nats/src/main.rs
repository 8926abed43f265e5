//! wasmcloud:messaging over NATS: the crates.io provider, run as a binary so `wash par create`
//! can package it (wasmCloud publishes the library, not the binary).
#[tokio::main]
async fn main() -> anyhow::Result<()> {
    wasmcloud_provider_messaging_nats::run().await
}

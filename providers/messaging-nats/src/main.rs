#[tokio::main]
async fn main() -> anyhow::Result<()> {
    messaging_nats::run().await
}

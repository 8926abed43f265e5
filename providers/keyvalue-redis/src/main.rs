#[tokio::main]
async fn main() -> anyhow::Result<()> {
    keyvalue_redis::run().await
}

// One thread: the provider only waits on sockets, and a second worker would be woken (a context
// switch, on a VM an inter-processor interrupt) for nearly every message it relays.
#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    keyvalue_redis::run().await
}

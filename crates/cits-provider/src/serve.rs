//! Serving a provider's wRPC exports.

use std::future::Future;

use futures::StreamExt as _;
use tracing::warn;
use wasmcloud_provider_sdk::provider::InvocationStreams;

/// Serves the invocations of a provider's exports until `shutdown`, each on a task of its own,
/// and reaps every task as it ends.
///
/// Instead of the SDK's `serve_provider_exports`, which keeps each finished task in its
/// `JoinSet` until shutdown: its memory grows with every call the provider has ever served
/// (several per frame for the messaging and key-value providers).
pub async fn serve(invocations: InvocationStreams, shutdown: impl Future<Output = ()>) -> anyhow::Result<()> {
    let mut invocations = futures::stream::select_all(
        invocations.into_iter().map(|(instance, name, calls)| calls.map(move |call| (instance, name, call))),
    );
    let mut shutdown = std::pin::pin!(shutdown);
    let mut tasks = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            Some((instance, name, call)) = invocations.next() => match call {
                Ok(call) => {
                    tasks.spawn(async move {
                        if let Err(err) = call.await {
                            warn!(?err, instance, name, "failed to serve invocation");
                        }
                    });
                }
                Err(err) => warn!(?err, instance, name, "failed to accept invocation"),
            },
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            () = &mut shutdown => return Ok(()),
        }
    }
}

//! The wRPC NATS transport every call between the host and a provider goes through, as patched
//! (tools/patches/wrpc-transport-nats.sh): three messages per call, not five, and a call no one
//! serves still fails at once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cits_tests::NatsServer;
use futures::StreamExt as _;
use wrpc_transport::{InvokeExt as _, ServeExt as _};

const NO_PATHS: &[&[Option<usize>]] = &[];

/// What a server that takes no nested streams subscribes to.
fn no_paths() -> Arc<[Box<[Option<usize>]>]> {
    Arc::from(Vec::new())
}

/// Serves `greeting.hello(name) -> string` and `greeting.anyone() -> string` on `prefix`.
async fn serve(nats: async_nats::Client, prefix: &str) -> wrpc_transport_nats::Client {
    let server = wrpc_transport_nats::Client::new(nats, prefix, None).await.unwrap();
    let hello = server.serve_values::<(String,), (String,)>("greeting", "hello", no_paths()).await.unwrap();
    tokio::spawn(async move {
        let mut hello = std::pin::pin!(hello);
        while let Some(Ok((_, (name,), _, respond))) = hello.next().await {
            respond((format!("hello, {name}"),)).await.unwrap();
        }
    });
    let anyone = server.serve_values::<(), (String,)>("greeting", "anyone", no_paths()).await.unwrap();
    tokio::spawn(async move {
        let mut anyone = std::pin::pin!(anyone);
        while let Some(Ok((_, (), _, respond))) = anyone.next().await {
            respond(("anyone there?".to_string(),)).await.unwrap();
        }
    });
    server
}

/// Every message the server routes from now on: subject, payload size, whether it names a reply
/// subject.
async fn watch(nats: &async_nats::Client) -> Arc<std::sync::Mutex<Vec<(String, usize, bool)>>> {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut all = nats.subscribe(">").await.unwrap();
    nats.flush().await.unwrap();
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Some(m) = all.next().await {
            log.lock().unwrap().push((m.subject.to_string(), m.payload.len(), m.reply.is_some()));
        }
    });
    seen
}

#[tokio::test]
async fn a_call_takes_three_messages_and_a_call_without_parameters_still_ends_them() {
    let server = NatsServer::start();
    let _serving = serve(server.connect().await, "lattice.greeter").await;
    let client = wrpc_transport_nats::Client::new(server.connect().await, "lattice.greeter", None).await.unwrap();
    let client = client.timeout(Duration::from_secs(5));
    let call = |name: &'static str| {
        let client = client.clone();
        async move {
            let ((greeting,), _) = client
                .invoke_values::<_, (String,), (String,)>(None, "greeting", "hello", (name.to_string(),), NO_PATHS)
                .await
                .unwrap();
            greeting
        }
    };
    assert_eq!(call("warm-up").await, "hello, warm-up");

    let watcher = server.connect().await;
    let seen = watch(&watcher).await;
    for name in ["rsu-1", "rsu-2", "rsu-3"] {
        assert_eq!(call(name).await, format!("hello, {name}"));
    }
    // Anything still in flight (an end of stream the patch no longer sends) would arrive by now.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let seen = seen.lock().unwrap().clone();
    let results = seen.iter().filter(|(subject, ..)| subject.ends_with(".results")).count();
    assert_eq!(results, 3, "each call's results, seen by the watcher: {seen:?}");
    // An end of stream is an empty message without a reply subject (the handshake names one):
    // neither the caller's parameters nor the server's results are ended by one any more.
    let ends: Vec<_> = seen.iter().filter(|(_, size, reply)| *size == 0 && !reply).collect();
    assert!(ends.is_empty(), "end-of-stream messages: {ends:?}");
    assert!(seen.len() <= 3 * 3, "at most invocation, handshake and results per call: {seen:?}");

    // No parameters to decode: the server decodes "nothing" at the end of the parameters, so those
    // are still ended, and the call completes.
    let ((answer,), _) =
        client.invoke_values::<_, (), (String,)>(None, "greeting", "anyone", (), NO_PATHS).await.unwrap();
    assert_eq!(answer, "anyone there?");
}

#[tokio::test]
async fn a_call_no_one_serves_fails_at_once_not_at_its_timeout() {
    let server = NatsServer::start();
    let client = wrpc_transport_nats::Client::new(server.connect().await, "lattice.nobody", None).await.unwrap();
    let started = Instant::now();
    let client = client.timeout(Duration::from_secs(10));
    let call =
        client.invoke_values::<_, (String,), (String,)>(None, "greeting", "hello", ("rsu-1".to_string(),), NO_PATHS);
    let result = tokio::time::timeout(Duration::from_secs(5), call).await.expect("the call ends");
    assert!(result.is_err(), "a call no one serves cannot succeed");
    assert!(started.elapsed() < Duration::from_secs(2), "refused after {:?}", started.elapsed());
}

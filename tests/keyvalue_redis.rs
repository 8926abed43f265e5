//! Our Redis key-value provider's operations against a real redis-server: binary values, batch
//! round trips, bucket namespaces, atomics, and recovery when Redis restarts.

use std::time::Duration;

use bytes::Bytes;
use cits_tests::{Lattice, RedisServer};
use keyvalue_redis::{RedisConfig, RedisStore};

fn store(redis: &RedisServer) -> RedisStore {
    RedisStore::new(RedisConfig { url: redis.url(), pool_size: 4, ..RedisConfig::default() }).unwrap()
}

#[tokio::test]
async fn values_are_binary_safe() {
    let redis = RedisServer::start();
    let kv = store(&redis);
    // Every byte value, including invalid UTF-8 and NUL: a protobuf trajectory is such a value.
    let value: Vec<u8> = (0..=255u8).chain([0xff, 0xfe, 0x00, 0xc3]).collect();
    kv.set("trajectories", "1001/7/0", &value).await.unwrap();
    assert_eq!(kv.get("trajectories", "1001/7/0").await.unwrap(), Some(Bytes::from(value)));
    assert_eq!(kv.get("trajectories", "missing").await.unwrap(), None);
    assert!(kv.exists("trajectories", "1001/7/0").await.unwrap());
    kv.delete("trajectories", "1001/7/0").await.unwrap();
    assert!(!kv.exists("trajectories", "1001/7/0").await.unwrap());
}

#[tokio::test]
async fn batch_operations_keep_order_and_report_missing_keys() {
    let redis = RedisServer::start();
    let kv = store(&redis);
    let items: Vec<(String, Bytes)> =
        (0..100).map(|i| (format!("obj/{i}"), Bytes::from(vec![i as u8, 0xff, i as u8]))).collect();
    kv.set_many("frame", &items).await.unwrap();
    let keys: Vec<String> = ["obj/5", "nope", "obj/99", "obj/0"].iter().map(|s| s.to_string()).collect();
    let got = kv.get_many("frame", &keys).await.unwrap();
    assert_eq!(
        got,
        vec![
            Some(("obj/5".to_string(), Bytes::from(vec![5, 0xff, 5]))),
            None,
            Some(("obj/99".to_string(), Bytes::from(vec![99, 0xff, 99]))),
            Some(("obj/0".to_string(), Bytes::from(vec![0, 0xff, 0]))),
        ]
    );
    kv.delete_many("frame", &keys).await.unwrap();
    assert_eq!(kv.get_many("frame", &keys).await.unwrap(), vec![None, None, None, None]);
    assert!(kv.get_many("frame", &[]).await.unwrap().is_empty());
}

#[tokio::test]
async fn buckets_are_separate_namespaces_and_listing_pages_through_all_keys() {
    let redis = RedisServer::start();
    let kv = store(&redis);
    let a: Vec<(String, Bytes)> = (0..2500).map(|i| (format!("k{i}"), Bytes::from_static(b"x"))).collect();
    kv.set_many("bucket-a", &a).await.unwrap();
    kv.set("bucket-b", "k1", b"other").await.unwrap();
    kv.set("bucket*", "k1", b"glob").await.unwrap();
    assert_eq!(kv.get("bucket-b", "k1").await.unwrap(), Some(Bytes::from_static(b"other")));

    let mut keys = all_keys(&kv, "bucket-a").await;
    keys.sort();
    keys.dedup(); // SCAN may return a key twice
    assert_eq!(keys.len(), 2500);
    assert!(keys.iter().all(|k| k.starts_with('k')));
    // A bucket named with a glob character lists only its own keys.
    assert_eq!(all_keys(&kv, "bucket*").await, vec!["k1".to_string()]);
}

/// Pages through a bucket: a SCAN page may be empty while the cursor goes on.
async fn all_keys(kv: &RedisStore, bucket: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut cursor = None;
    loop {
        let page = kv.list_keys(bucket, cursor).await.unwrap();
        keys.extend(page.keys);
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => return keys,
        }
    }
}

#[tokio::test]
async fn increments_are_atomic_under_concurrency() {
    let redis = RedisServer::start();
    let kv = std::sync::Arc::new(store(&redis));
    let tasks: Vec<_> = (0..200)
        .map(|_| {
            let kv = kv.clone();
            tokio::spawn(async move { kv.increment("denm", "sequence", 1).await.unwrap() })
        })
        .collect();
    let mut seen = Vec::new();
    for t in tasks {
        seen.push(t.await.unwrap());
    }
    seen.sort();
    assert_eq!(seen, (1..=200).collect::<Vec<u64>>());
    assert_eq!(kv.increment("denm", "sequence", 5).await.unwrap(), 205);
}

#[tokio::test]
async fn recovers_when_redis_restarts_and_errors_clearly_while_down() {
    let mut redis = RedisServer::start();
    let kv = store(&redis);
    kv.set("s", "k", b"v1").await.unwrap();

    redis.stop();
    let err = kv.get("s", "k").await.unwrap_err();
    assert!(err.0.contains("redis") || err.0.contains("Redis"), "unclear error: {err}");

    redis.restart();
    // The pool reconnects by itself; no new store, no manual step.
    let mut ok = false;
    for _ in 0..50 {
        if kv.set("s", "k", b"v2").await.is_ok() {
            ok = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(ok, "store did not recover after Redis restarted");
    assert_eq!(kv.get("s", "k").await.unwrap(), Some(Bytes::from_static(b"v2")));
}

/// The lattice's own Redis (its ACL, its AOF) killed with `kill -9` right after two writes and
/// started again: both are there. Failed twice before: Redis 7.0 re-checks each EXEC of the AOF
/// against the default user, which the lattice turns off, so with no permissions on it the
/// stages' state commits (MULTI … EXEC, as `set_many` with TTLs writes them) vanished; and with
/// `appendfsync everysec` the plain write made during the first write's fsync was lost.
#[tokio::test]
async fn the_lattices_redis_keeps_acknowledged_transactions_across_kill_9() {
    let lattice = Lattice::start_services("kv-aof");
    let ttls = [("warnings".to_string(), Duration::from_secs(3600))].into_iter().collect();
    let kv = RedisStore::new(RedisConfig { url: lattice.redis_url(), ttls, ..RedisConfig::default() }).unwrap();
    let state: Vec<(String, Bytes)> = vec![
        ("warnings:rsu1".to_string(), Bytes::from_static(b"w")),
        ("sequences:rsu1".to_string(), Bytes::from_static(b"4")),
    ];
    kv.set_many("", &state).await.unwrap();
    kv.set("plain", "k", b"v").await.unwrap();

    lattice.step(&["crash-restart", "redis"]).unwrap();
    let keys: Vec<String> = state.iter().map(|(k, _)| k.clone()).collect();
    let mut got = Err(keyvalue_redis::StoreError(String::new()));
    for _ in 0..50 {
        got = kv.get_many("", &keys).await;
        if got.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(got.unwrap(), state.into_iter().map(Some).collect::<Vec<_>>(), "a committed transaction was lost");
    assert_eq!(kv.get("plain", "k").await.unwrap(), Some(Bytes::from_static(b"v")));
}

#[tokio::test]
async fn a_store_can_be_created_while_redis_is_down() {
    let mut redis = RedisServer::start();
    redis.stop();
    let kv = store(&redis);
    let err = kv.get("s", "k").await.unwrap_err();
    assert!(err.0.contains(&format!("127.0.0.1:{}", redis.port)), "{err}");
    redis.restart();
    kv.set("s", "k", b"up").await.unwrap();
}

#[tokio::test]
async fn buckets_with_a_ttl_expire_and_are_renewed_by_every_write() {
    let redis = RedisServer::start();
    let ttls = [("paths".to_string(), Duration::from_secs(1))].into_iter().collect();
    let kv = RedisStore::new(RedisConfig { url: redis.url(), ttls, ..RedisConfig::default() }).unwrap();
    // The stages write several buckets at once through the unnamed bucket (`bucket:key`).
    let items = vec![
        ("paths:x/rsu1".to_string(), Bytes::from_static(b"p")),
        ("sequences:rsu1".to_string(), Bytes::from_static(b"7")),
    ];
    kv.set_many("", &items).await.unwrap();
    kv.set("paths", "x/rsu2", b"q").await.unwrap();
    tokio::time::sleep(Duration::from_millis(600)).await;
    kv.set_many("", &items[..1]).await.unwrap(); // renews paths:x/rsu1 only
    tokio::time::sleep(Duration::from_millis(600)).await;
    let keys: Vec<String> = ["paths:x/rsu1", "paths:x/rsu2", "sequences:rsu1"].map(String::from).to_vec();
    let got: Vec<bool> = kv.get_many("", &keys).await.unwrap().iter().map(Option::is_some).collect();
    assert_eq!(got, vec![true, false, true], "renewed key kept, stale key expired, no-TTL bucket kept");
}

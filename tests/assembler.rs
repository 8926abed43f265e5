//! Assembler on the real stack: per-object trajectories grow across CPMs (late points in place),
//! are stored in Redis as binary protobuf through our key-value provider, and a reused object id
//! after the 5 s window starts a new generation (named by its start); concurrent invocations lose no point.

use std::time::Duration;

use cits::proto::{Trajectory, TrajectoryFrame};
use cits_tests::{next_within, Lattice};
use etsi_its::cpm::{ObjectKind, SimpleCpm, SimpleObject};
use keyvalue_redis::{RedisConfig, RedisStore};
use prost::Message as _;

const RSU: &str = "rsu-asm";
/// The test's time origin: 15 s before its first CPM, so that all its CPMs (up to 11.2 s after
/// it) are in the past when sent, as the decoder requires.
static T0_ITS_MS: std::sync::LazyLock<u64> =
    std::sync::LazyLock::new(|| cits::shared::time::unix_us_to_its_ms(cits::shared::time::now_us()) - 15_000);

fn cpm(reference_its_ms: u64, x_cm: i32) -> Vec<u8> {
    let object = SimpleObject {
        object_id: 7,
        measurement_delta_ms: -30,
        x_cm,
        y_cm: 0,
        x_conf_cm: 10,
        y_conf_cm: 10,
        velocity: Some((500, 0)),
        yaw_decideg: None,
        class: ObjectKind::Bicycle,
        class_confidence_pct: 80,
        sensor_id: Some(1),
    };
    let cpm = SimpleCpm {
        protocol_version: 2,
        station_id: 1001,
        reference_time_its_ms: reference_its_ms,
        reference_lat_e7: 478_101_000,
        reference_lon_e7: 130_518_000,
        sensors: vec![(1, 3)],
        objects: vec![object],
    };
    etsi_its::cpm::encode(&cpm.to_cpm()).unwrap()
}

fn measured_ms(t: &Trajectory) -> Vec<u64> {
    let t0 = cits::shared::time::its_ms_to_unix_us(*T0_ITS_MS);
    t.points.iter().map(|p| (p.measured_at_us - t0) / 1000).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trajectories_grow_in_time_order_live_in_redis_and_restart_after_the_window() {
    let lattice = Lattice::start("assembler");
    let nats = lattice.nats().await;
    let mut out = nats.subscribe(format!("cits.trajectories.{RSU}")).await.unwrap();
    nats.flush().await.unwrap();
    let mut rsu = lattice.mqtt(RSU).await;
    let topic = format!("cits/cpm/{RSU}");

    // Measurement times (reference − 30 ms): 1000, 1250, then the late 1125.
    let mut last = None;
    for (offset_ms, x_cm) in [(1030, 100), (1280, 225), (1155, 160)] {
        rsu.publish(&topic, cpm(*T0_ITS_MS + offset_ms, x_cm)).await;
        let msg = next_within(&mut out, Duration::from_secs(10), "trajectory frame").await.unwrap();
        last = Some(TrajectoryFrame::decode(msg.payload.as_ref()).unwrap());
    }
    let frame = last.unwrap();
    assert_eq!(frame.rsu_id, RSU);
    let stages: Vec<&str> = frame.trace.iter().map(|t| t.stage.as_str()).collect();
    assert_eq!(stages, ["decoder", "collector", "assembler"]);
    let t = &frame.trajectories[0];
    assert_eq!((t.station_id, t.sensor_id, t.object_id), (1001, 1, 7));
    assert_eq!(measured_ms(t), vec![1000, 1125, 1250]);
    // A track's generation is when it started (its first point, in ms).
    let started = |t: &cits::proto::Trajectory| (t.points[0].measured_at_us / 1000) as u32;
    assert_eq!(t.generation, started(t));
    let first_generation = t.generation;

    // The state is the same trajectory, as binary protobuf in Redis.
    let redis = RedisStore::new(RedisConfig { url: lattice.redis_url(), ..RedisConfig::default() }).unwrap();
    let stored = stored_trajectory(&redis, &format!("{RSU}/1001/1/7"), |s| s == t).await;
    assert_eq!(stored, *t);

    // The same id 10 s later is another road user: a new generation with one point.
    rsu.publish(&topic, cpm(*T0_ITS_MS + 11_030, 900)).await;
    let msg = next_within(&mut out, Duration::from_secs(10), "trajectory frame").await.unwrap();
    let t = TrajectoryFrame::decode(msg.payload.as_ref()).unwrap().trajectories.remove(0);
    assert_eq!(measured_ms(&t), vec![11_000]);
    assert_eq!(t.generation, started(&t));
    assert_ne!(t.generation, first_generation);
    let second_generation = t.generation;

    // Malformed input to the assembler is dead-lettered; the stage keeps working.
    let mut dlq = nats.subscribe("cits.dlq.assembler").await.unwrap();
    nats.flush().await.unwrap();
    nats.publish(format!("cits.locations.{RSU}"), vec![0xff, 0xff, 0xff].into()).await.unwrap();
    let letter = next_within(&mut dlq, Duration::from_secs(10), "assembler dead letter").await.unwrap();
    let letter = cits::proto::DeadLetter::decode(letter.payload.as_ref()).unwrap();
    assert!(letter.reason.contains("LocationsFrame"), "{}", letter.reason);
    rsu.publish(&topic, cpm(*T0_ITS_MS + 11_155, 960)).await;
    let msg = next_within(&mut out, Duration::from_secs(10), "trajectory frame after a dead letter").await.unwrap();
    let t = TrajectoryFrame::decode(msg.payload.as_ref()).unwrap().trajectories.remove(0);
    assert_eq!((t.generation, measured_ms(&t)), (second_generation, vec![11_000, 11_125]));

    concurrent_updates_lose_no_point(&lattice, &redis).await;
}

/// The trajectory stored under `key` once `settled` holds, or the last one read after 10 s. A stage
/// publishes its outputs before it commits its state (a crash in between is repaired by the
/// redelivery), so the state may trail the frame just received by a moment.
async fn stored_trajectory(redis: &RedisStore, key: &str, settled: impl Fn(&Trajectory) -> bool) -> Trajectory {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let stored = redis.get("trajectories", key).await.unwrap().map(|b| Trajectory::decode(b.as_ref()).unwrap());
        match stored {
            Some(t) if settled(&t) || std::time::Instant::now() > deadline => return t,
            None if std::time::Instant::now() > deadline => panic!("no trajectory stored under {key}"),
            _ => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}

/// Four RSUs' frames, published as one interleaved burst, are assembled by concurrent assembler
/// invocations (the stage's link delivers up to 4 at once); each object's read-modify-write in
/// Redis is never raced because one RSU's frames are delivered one at a time, in order. Every
/// point of every object within the keep window must be in its final trajectory.
async fn concurrent_updates_lose_no_point(lattice: &Lattice, redis: &RedisStore) {
    use cits::proto::{LocationsContainer, LocationsFrame, ObjectClass};
    const RSUS: u32 = 4;
    const FRAMES: u64 = 60;
    const OBJECTS: u32 = 3;
    let nats = lattice.nats().await;
    let mut out = nats.subscribe("cits.trajectories.*").await.unwrap();
    nats.flush().await.unwrap();
    let t0_us = cits::shared::time::its_ms_to_unix_us(*T0_ITS_MS + 20_000);
    for k in 0..FRAMES {
        for r in 0..RSUS {
            let at = t0_us + k * 100_000;
            let frame = LocationsFrame {
                rsu_id: format!("rsu-burst-{r}"),
                station_id: 2000 + r,
                reference_time_us: at,
                locations: (1..=OBJECTS)
                    .map(|o| LocationsContainer {
                        station_id: 2000 + r,
                        sensor_id: 1,
                        object_id: o,
                        measured_at_us: at,
                        latitude: 47.8101 + k as f64 * 1e-6,
                        longitude: 13.0518 + f64::from(o) * 1e-4,
                        classification: ObjectClass::Car as i32,
                        ..Default::default()
                    })
                    .collect(),
                frame_id: format!("burst-{r}-{k}"),
                trace: Vec::new(),
            };
            nats.publish(format!("cits.locations.rsu-burst-{r}"), frame.encode_to_vec().into()).await.unwrap();
        }
    }
    nats.flush().await.unwrap();
    // Until every frame came out once (a redelivered invocation may repeat an output).
    let mut spans: Vec<(u32, u64, u64)> = Vec::new();
    let mut frames = std::collections::HashSet::new();
    while frames.len() < (RSUS as u64 * FRAMES) as usize {
        let what = format!("burst trajectory frame {}", frames.len());
        let msg = next_within(&mut out, Duration::from_secs(30), &what).await.unwrap();
        let frame = TrajectoryFrame::decode(msg.payload.as_ref()).unwrap();
        let Some(rsu) = frame.rsu_id.strip_prefix("rsu-burst-") else { continue };
        let rsu: u32 = rsu.parse().unwrap();
        frames.insert((rsu, frame.reference_time_us));
        let asm = frame.trace.iter().find(|t| t.stage == "assembler").unwrap();
        spans.push((rsu, asm.received_at_us, asm.sent_at_us));
    }
    for r in 0..RSUS {
        for o in 1..=OBJECTS {
            let key = format!("rsu-burst-{r}/{}/1/{o}", 2000 + r);
            // The burst spans 6 s: the points within the keep window behind the newest remain.
            let keep_ms = cits::stages::assembler::DEFAULT_KEEP_US / 1000;
            let newest_ms = 20_000 + (FRAMES - 1) * 100;
            let expected: Vec<u64> =
                (0..FRAMES).map(|k| 20_000 + k * 100).filter(|&ms| ms + keep_ms >= newest_ms).collect();
            assert!(expected.len() < FRAMES as usize, "the burst must outlast the keep window");
            let t = stored_trajectory(redis, &key, |t| measured_ms(t) == expected).await;
            assert_eq!(measured_ms(&t), expected, "points of {key}");
        }
    }
    // The burst really was handled concurrently: invocations for different RSUs overlapped.
    let overlapping = spans.iter().any(|a| spans.iter().any(|b| a.0 != b.0 && a.1 < b.2 && b.1 < a.2));
    assert!(overlapping, "no two RSUs' frames were assembled at the same time");
}

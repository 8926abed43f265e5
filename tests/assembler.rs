//! Assembler on the real stack: per-object trajectories grow across CPMs (late points in place),
//! are stored in Redis as binary protobuf through our key-value provider, and a reused object id
//! after the 5 s window starts a new generation.

use std::time::Duration;

use cits::proto::{Trajectory, TrajectoryFrame};
use cits_tests::{next_within, Lattice};
use etsi_its::cpm::{ObjectKind, SimpleCpm, SimpleObject};
use keyvalue_redis::{RedisConfig, RedisStore};
use prost::Message as _;

const RSU: &str = "rsu-asm";
const T0_ITS_MS: u64 = 591_619_400_000;

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
    let t0 = cits::time::its_ms_to_unix_us(T0_ITS_MS);
    t.points.iter().map(|p| (p.measured_at_us - t0) / 1000).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trajectories_grow_in_time_order_live_in_redis_and_restart_after_the_window() {
    let lattice = Lattice::start("assembler");
    let nats = lattice.nats().await;
    let mut out = nats.subscribe(format!("cits.trajectories.{RSU}")).await.unwrap();
    nats.flush().await.unwrap();
    let mut rsu = lattice.mqtt("rsu-asm-client").await;
    let topic = format!("cits/cpm/{RSU}");

    // Measurement times (reference − 30 ms): 1000, 1250, then the late 1125.
    let mut last = None;
    for (offset_ms, x_cm) in [(1030, 100), (1280, 225), (1155, 160)] {
        rsu.publish(&topic, cpm(T0_ITS_MS + offset_ms, x_cm)).await;
        let msg = next_within(&mut out, Duration::from_secs(10), "trajectory frame").await.unwrap();
        last = Some(TrajectoryFrame::decode(msg.payload.as_ref()).unwrap());
    }
    let frame = last.unwrap();
    assert_eq!(frame.rsu_id, RSU);
    let stages: Vec<&str> = frame.trace.iter().map(|t| t.stage.as_str()).collect();
    assert_eq!(stages, ["decoder", "collector", "assembler"]);
    let t = &frame.trajectories[0];
    assert_eq!((t.station_id, t.sensor_id, t.object_id, t.generation), (1001, 1, 7, 0));
    assert_eq!(measured_ms(t), vec![1000, 1125, 1250]);

    // The state is the same trajectory, as binary protobuf in Redis.
    let redis = RedisStore::new(RedisConfig {
        url: format!("redis://127.0.0.1:{}/", lattice.redis_port),
        ..RedisConfig::default()
    })
    .unwrap();
    let stored = redis.get("trajectories", "1001/1/7").await.unwrap().expect("trajectory stored");
    assert_eq!(Trajectory::decode(stored.as_ref()).unwrap(), *t);

    // The same id 10 s later is another road user: a new generation with one point.
    rsu.publish(&topic, cpm(T0_ITS_MS + 11_030, 900)).await;
    let msg = next_within(&mut out, Duration::from_secs(10), "trajectory frame").await.unwrap();
    let t = TrajectoryFrame::decode(msg.payload.as_ref()).unwrap().trajectories.remove(0);
    assert_eq!((t.generation, measured_ms(&t)), (1, vec![11_000]));

    // Malformed input to the assembler is dead-lettered; the stage keeps working.
    let mut dlq = nats.subscribe("cits.dlq.assembler").await.unwrap();
    nats.flush().await.unwrap();
    nats.publish(format!("cits.locations.{RSU}"), vec![0xff, 0xff, 0xff].into()).await.unwrap();
    let letter = next_within(&mut dlq, Duration::from_secs(10), "assembler dead letter").await.unwrap();
    let letter = cits::proto::DeadLetter::decode(letter.payload.as_ref()).unwrap();
    assert!(letter.reason.contains("LocationsFrame"), "{}", letter.reason);
    rsu.publish(&topic, cpm(T0_ITS_MS + 11_155, 960)).await;
    let msg = next_within(&mut out, Duration::from_secs(10), "trajectory frame after a dead letter").await.unwrap();
    let t = TrajectoryFrame::decode(msg.payload.as_ref()).unwrap().trajectories.remove(0);
    assert_eq!((t.generation, measured_ms(&t)), (1, vec![11_000, 11_125]));
}

//! The embedded demo dataset: one RSU (station 1001) with two calibrated cameras at the
//! Weiserstraße × Gabelsbergstraße intersection, road users crossing on straight paths.
//!
//! Deterministic: `cits demo-data` regenerates `data/demo.rec.b64` byte for byte (a test checks
//! it). The realistic simulator with lanes, noise and planted conflicts is a separate tool.

use cits::shared::geo::{offset_to_wgs84, SensorPose, Wgs84};
use etsi_its::cpm::{ObjectKind, SimpleCpm, SimpleObject};

use crate::recording::Record;

pub const STATION_ID: u32 = 1001;
pub const RSU_ID: &str = "rsu1";
/// Intersection centre; also the RSU's reference position.
pub const CENTER: Wgs84 = Wgs84 { lat: 47.81010, lon: 13.05180 };
/// The cameras exactly as calibrated in `wadm/cits-pipeline.yaml` (sensor.1001.<id>).
pub const SENSORS: [(u8, SensorPose); 2] = [
    (1, SensorPose { origin: Wgs84 { lat: 47.81028, lon: 13.05203 }, x_axis_heading_deg: 225.0 }),
    (2, SensorPose { origin: Wgs84 { lat: 47.80992, lon: 13.05157 }, x_axis_heading_deg: 45.0 }),
];
/// ETSI SensorType monovideo.
const SENSOR_TYPE_CAMERA: u8 = 3;
/// 2022-09-30T10:43:00Z, when the research recorded its dataset.
pub const START_UNIX_MS: u64 = 1_664_534_580_000;
const PERIOD_MS: u64 = 125; // 8 Hz per sensor
const RANGE_M: f64 = 70.0;
/// Camera pipeline latency: objects are measured this long before the CPM's reference time.
const MEASUREMENT_DELAY_MS: i16 = 40;

/// A road user on a straight path at constant velocity.
struct RoadUser {
    kind: ObjectKind,
    /// Start, metres east/north of the centre.
    start: (f64, f64),
    /// Velocity east/north, m/s.
    velocity: (f64, f64),
    enters_s: f64,
    leaves_s: f64,
}

fn road_users() -> Vec<RoadUser> {
    use ObjectKind::*;
    let u = |kind, start, velocity, enters_s, leaves_s| RoadUser { kind, start, velocity, enters_s, leaves_s };
    vec![
        u(Car, (60.0, 2.0), (-8.3, 0.0), 0.0, 14.0),       // westbound, 30 km/h
        u(Bicycle, (-3.0, -55.0), (0.0, 4.5), 1.0, 25.0),  // northbound cyclist
        u(Pedestrian, (-8.0, 9.0), (1.4, 0.0), 2.0, 13.0), // crossing the north arm
        u(Car, (-60.0, -2.0), (7.5, 0.0), 6.0, 22.0),      // eastbound
        u(Truck, (2.0, 60.0), (0.0, -6.0), 9.0, 28.0),     // southbound
        u(Pedestrian, (9.0, -8.0), (0.0, 1.2), 12.0, 26.0),
        u(Bicycle, (55.0, -3.5), (-5.0, 0.0), 15.0, 30.0),
    ]
}

/// The demo recording: 30 s, two cameras at 8 Hz (480 CPMs).
pub fn recording() -> Vec<Record> {
    let users = road_users();
    let mut records = Vec::new();
    // Each camera's tracker numbers objects as it first sees them (8-bit ids, reused).
    let mut ids: Vec<[Option<u8>; 16]> = vec![[None; 16]; SENSORS.len()];
    let mut next_id = [0u8; SENSORS.len()];
    for tick in 0..240u64 {
        for (s, (sensor_id, pose)) in SENSORS.iter().enumerate() {
            // The two cameras are out of phase by half a period.
            let sent_ms = START_UNIX_MS + tick * PERIOD_MS + s as u64 * PERIOD_MS / 2;
            let measured_s = (sent_ms - START_UNIX_MS) as f64 / 1000.0 - f64::from(MEASUREMENT_DELAY_MS) / 1000.0;
            let mut objects = Vec::new();
            for (u, user) in users.iter().enumerate() {
                if measured_s < user.enters_s || measured_s > user.leaves_s {
                    continue;
                }
                let dt = measured_s - user.enters_s;
                let (e, n) = (user.start.0 + user.velocity.0 * dt, user.start.1 + user.velocity.1 * dt);
                let (x, y) = pose.from_wgs84(offset_to_wgs84(CENTER, e, n));
                if x.hypot(y) > RANGE_M {
                    continue;
                }
                let id = *ids[s][u].get_or_insert_with(|| {
                    let id = next_id[s];
                    next_id[s] = next_id[s].wrapping_add(1);
                    id
                });
                let (vx, vy) = pose.from_east_north(user.velocity.0, user.velocity.1);
                let yaw = vy.atan2(vx).to_degrees().rem_euclid(360.0);
                objects.push(SimpleObject {
                    object_id: u16::from(id),
                    measurement_delta_ms: -MEASUREMENT_DELAY_MS,
                    x_cm: (x * 100.0).round() as i32,
                    y_cm: (y * 100.0).round() as i32,
                    x_conf_cm: 20,
                    y_conf_cm: 20,
                    velocity: Some(((vx * 100.0).round() as i16, (vy * 100.0).round() as i16)),
                    yaw_decideg: Some((yaw * 10.0).round() as u16 % 3600),
                    class: user.kind,
                    class_confidence_pct: 90,
                    sensor_id: Some(*sensor_id),
                });
            }
            let bytes = cpm_at_center(STATION_ID, sent_ms, vec![(*sensor_id, SENSOR_TYPE_CAMERA)], objects);
            records.push(Record { timestamp_ms: sent_ms, cpm: bytes });
        }
    }
    records
}

/// Station id of `cits probe`: its objects never share key-value state with a real RSU's.
pub const PROBE_STATION_ID: u32 = 4_000_000_000;

/// Sends one [`probe_cpm`] (subject cits.cpm.probe) and waits at most `timeout` for its
/// FrameDone at the end of the pipeline (cits.done.probe), printing dead letters meanwhile.
pub async fn probe(client: &async_nats::Client, timeout: std::time::Duration) -> anyhow::Result<()> {
    use futures::StreamExt as _;
    let mut sub = client.subscribe(cits::subjects::done("probe")).await?;
    let mut dlq = client.subscribe("cits.dlq.>").await?;
    client.flush().await?;
    // Road users on the map, so every stage, its key-value state and the map tiles in the
    // blobstore are exercised, not just the message path.
    client.publish("cits.cpm.probe", probe_cpm().into()).await?;
    client.flush().await?;
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            Some(_) = sub.next() => {
                eprintln!("pipeline is flowing");
                return Ok(());
            }
            Some(letter) = dlq.next() => eprintln!("probe: {}", crate::watch::format_dead_letter(&letter.payload)),
            _ = &mut deadline => anyhow::bail!("the probe CPM did not come out of the DENM sender within {timeout:?}"),
        }
    }
}

/// The CPM `cits probe` sends: three road users on the intersection's lanes (positions relative
/// to the reference position, no sensor calibration needed), from the probe station.
pub fn probe_cpm() -> Vec<u8> {
    let object = |object_id, (x, y): (f64, f64), (vx, vy): (f64, f64), class| SimpleObject {
        object_id,
        measurement_delta_ms: 0,
        x_cm: (x * 100.0) as i32,
        y_cm: (y * 100.0) as i32,
        x_conf_cm: 20,
        y_conf_cm: 20,
        velocity: Some(((vx * 100.0) as i16, (vy * 100.0) as i16)),
        yaw_decideg: None,
        class,
        class_confidence_pct: 90,
        sensor_id: None,
    };
    let objects = vec![
        object(1, (25.0, 2.0), (-8.0, 0.0), ObjectKind::Car),
        object(2, (-3.0, -25.0), (0.0, 4.5), ObjectKind::Bicycle),
        object(3, (-8.0, 9.0), (1.4, 0.0), ObjectKind::Pedestrian),
    ];
    // Sent now: every probe is a CPM of its own (the same bytes again would be recognised as a
    // resent CPM and dropped as a duplicate).
    let now_ms = cits::shared::time::now_us() / 1000;
    cpm_at_center(PROBE_STATION_ID, now_ms, vec![], objects)
}

/// A UPER CPM from the RSU at the intersection centre, sent at `sent_ms` (Unix ms).
pub fn cpm_at_center(station_id: u32, sent_ms: u64, sensors: Vec<(u8, u8)>, objects: Vec<SimpleObject>) -> Vec<u8> {
    let cpm = SimpleCpm {
        protocol_version: 2,
        station_id,
        reference_time_its_ms: cits::shared::time::unix_us_to_its_ms(sent_ms * 1000),
        reference_lat_e7: (CENTER.lat * 1e7).round() as i32,
        reference_lon_e7: (CENTER.lon * 1e7).round() as i32,
        sensors,
        objects,
    };
    etsi_its::cpm::encode(&cpm.to_cpm()).expect("demo CPM encodes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_demo_recording_is_up_to_date() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/demo.rec.b64");
        let committed = crate::recording::read_file(&path).unwrap();
        assert!(committed == recording(), "data/demo.rec.b64 is stale: run `cits demo-data`");
    }

    #[test]
    fn demo_covers_both_cameras_and_all_classes() {
        let records = recording();
        assert_eq!(records.len(), 480);
        let mut kinds = std::collections::BTreeSet::new();
        let mut objects = 0;
        for r in &records {
            let cpm = SimpleCpm::from_cpm(&etsi_its::cpm::decode(&r.cpm).unwrap()).unwrap();
            objects += cpm.objects.len();
            kinds.extend(cpm.objects.iter().map(|o| format!("{:?}", o.class)));
        }
        assert!(objects > 1000, "{objects}");
        assert!(kinds.len() >= 4, "{kinds:?}");
    }
}

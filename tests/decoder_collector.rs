//! Decoder and collector on the real stack: CPMs published over MQTT come out as WGS84 locations,
//! placed in the frame the RSU is registered with (its cameras' for the recordings' RSU, east/north
//! of the reference position for a standard one); malformed CPMs go to the dead-letter subject
//! while valid ones keep flowing.

use std::time::Duration;

use cits::proto::{DeadLetter, LocationsFrame, ObjectClass};
use cits_tests::{next_within, Lattice};
use etsi_its::cpm::{ObjectKind, SimpleCpm, SimpleObject};
use prost::Message as _;

/// Registered as the recordings' RSU (station 1001): objects in its cameras' frames.
const RSU: &str = "rsu-e2e";
/// The same station registered as an RSU that sends the standard's frame.
const STANDARD_RSU: &str = "rsu-e2e-std";
const WAIT: Duration = Duration::from_secs(10);

fn object(id: u16, x_cm: i32, y_cm: i32, sensor_id: Option<u8>, class: ObjectKind) -> SimpleObject {
    SimpleObject {
        object_id: id,
        measurement_delta_ms: -30,
        x_cm,
        y_cm,
        x_conf_cm: 10,
        y_conf_cm: 10,
        velocity: None,
        yaw_decideg: None,
        class,
        class_confidence_pct: 80,
        sensor_id,
    }
}

/// Station 1001 is calibrated in wadm/cits-pipeline.yaml: sensor 1 at 47.81028,13.05203 looking
/// 225°, sensor 2 at 47.80992,13.05157 looking 45°; reference position 47.81010,13.05180.
/// Made now: the decoder refuses CPMs far from its clock.
fn cpm(objects: Vec<SimpleObject>) -> Vec<u8> {
    cpm_at(cits::shared::time::unix_us_to_its_ms(cits::shared::time::now_us()), objects)
}

fn cpm_at(reference_time_its_ms: u64, objects: Vec<SimpleObject>) -> Vec<u8> {
    let cpm = SimpleCpm {
        protocol_version: 2,
        station_id: 1001,
        reference_time_its_ms,
        reference_lat_e7: 478_101_000,
        reference_lon_e7: 130_518_000,
        sensors: vec![(1, 3), (2, 3)],
        objects,
    };
    etsi_its::cpm::encode(&cpm.to_cpm()).unwrap()
}

/// Expected positions, computed independently of our geodesy (metres per degree from the series
/// 111132.954 − 559.822 cos2φ + 1.175 cos4φ and 111412.84 cosφ − 93.5 cos3φ + 0.118 cos5φ).
/// From the sensor-frame RSU:
const EXPECTED: [(u32, f64, f64); 2] = [
    (11, 47.810_216_403_6, 13.051_935_591_4), // sensor 1: 10 m along x (south-west)
    (12, 47.810_047_192_8, 13.051_381_184_0), // sensor 2: 20 m along y (north-west)
];
/// From the standard RSU, whatever sensor measured them:
const EXPECTED_STANDARD: [(u32, f64, f64); 2] = [
    (13, 47.810_073_018_3, 13.051_866_756_8), // no sensor: 5 m east, 3 m south of the reference
    (14, 47.810_189_938_9, 13.051_766_621_6), // sensor 1 (calibrated, not used): 2.5 m west, 10 m north
];

fn assert_located(frame: &LocationsFrame, expected: &[(u32, f64, f64)]) {
    assert_eq!(frame.locations.len(), expected.len());
    for ((id, lat, lon), got) in expected.iter().zip(&frame.locations) {
        assert_eq!(got.object_id, *id);
        assert!((got.latitude - lat).abs() < 1e-9, "object {id}: latitude {} expected {lat}", got.latitude);
        assert!((got.longitude - lon).abs() < 1e-9, "object {id}: longitude {} expected {lon}", got.longitude);
        assert_eq!(got.station_id, 1001);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cpm_over_mqtt_becomes_wgs84_locations_and_bad_input_is_dead_lettered() {
    let lattice = Lattice::start("decoder-collector");
    let nats = lattice.nats().await;
    let mut frames = nats.subscribe(format!("cits.locations.{RSU}")).await.unwrap();
    let mut dlq = nats.subscribe("cits.dlq.>").await.unwrap();
    nats.flush().await.unwrap();
    let mut rsu = lattice.mqtt(RSU).await;
    let topic = format!("cits/cpm/{RSU}");

    // 1. Exact WGS84 locations, in the RSU's cameras' frames.
    let reference_its_ms = cits::shared::time::unix_us_to_its_ms(cits::shared::time::now_us());
    rsu.publish(
        &topic,
        cpm_at(
            reference_its_ms,
            vec![object(11, 1000, 0, Some(1), ObjectKind::Car), object(12, 0, 2000, Some(2), ObjectKind::Bicycle)],
        ),
    )
    .await;
    let msg = next_within(&mut frames, WAIT, "location frame").await.unwrap();
    let frame = LocationsFrame::decode(msg.payload.as_ref()).unwrap();
    assert_eq!(frame.rsu_id, RSU);
    assert_eq!(frame.station_id, 1001);
    assert_located(&frame, &EXPECTED);
    assert_eq!(frame.locations[1].classification, ObjectClass::Bicycle as i32);
    // Measurement time: reference time (ITS ms → Unix µs) minus 30 ms.
    assert_eq!(frame.locations[0].measured_at_us, cits::shared::time::its_ms_to_unix_us(reference_its_ms) - 30_000);
    // Both stages traced, in order, with real clocks.
    let stages: Vec<&str> = frame.trace.iter().map(|t| t.stage.as_str()).collect();
    assert_eq!(stages, ["decoder", "collector"]);
    let now = cits::shared::time::now_us();
    for t in &frame.trace {
        assert!(t.received_at_us <= t.sent_at_us && t.sent_at_us <= now && now - t.sent_at_us < 60_000_000, "{t:?}");
    }
    assert!(frame.trace[0].sent_at_us <= frame.trace[1].received_at_us);

    // 2. The same station as a standard RSU: objects east/north of the reference position, the
    // calibration of its camera 1 unused.
    lattice.step(&["rsu-add", STANDARD_RSU, "1001", "enu"]).unwrap();
    let mut standard = lattice.mqtt_registered(STANDARD_RSU).await;
    let mut standard_frames = nats.subscribe(format!("cits.locations.{STANDARD_RSU}")).await.unwrap();
    nats.flush().await.unwrap();
    standard
        .publish(
            &format!("cits/cpm/{STANDARD_RSU}"),
            cpm(vec![
                object(13, 500, -300, None, ObjectKind::Pedestrian),
                object(14, -250, 1000, Some(1), ObjectKind::Car),
            ]),
        )
        .await;
    let msg = next_within(&mut standard_frames, WAIT, "location frame of the standard RSU").await.unwrap();
    let frame = LocationsFrame::decode(msg.payload.as_ref()).unwrap();
    assert_located(&frame, &EXPECTED_STANDARD);
    assert_eq!(frame.locations[0].classification, ObjectClass::Pedestrian as i32);

    // 3. An object of an uncalibrated sensor from the sensor-frame RSU: refused with the key to
    // set, never placed as if the frame were the standard's.
    let uncalibrated = cpm(vec![object(15, -250, 1000, Some(9), ObjectKind::Car)]);
    rsu.publish(&topic, uncalibrated.clone()).await;
    let letter = next_within(&mut dlq, WAIT, "dead letter of an uncalibrated sensor").await.unwrap();
    assert_eq!(letter.subject.as_str(), "cits.dlq.collector");
    let letter = DeadLetter::decode(letter.payload.as_ref()).unwrap();
    assert!(letter.reason.contains("sensor.1001.9"), "{}", letter.reason);

    // 4. Malformed CPMs are dead-lettered with a reason; valid ones around them still flow.
    let valid = cpm(vec![object(21, 100, 100, Some(1), ObjectKind::Car)]);
    let garbage = b"\xde\xad\xbe\xef not a CPM".to_vec();
    let truncated = valid[..valid.len() / 2].to_vec();
    let oversized = vec![0x55u8; cits::stages::decoder::MAX_CPM_BYTES + 1];
    for (i, (bad, reason)) in
        [(garbage, "invalid CPM"), (truncated, "invalid CPM"), (oversized, "oversized")].into_iter().enumerate()
    {
        rsu.publish(&topic, bad.clone()).await;
        // A CPM of its own each time: the same bytes again would be the same CPM resent, whose
        // frame is recognised as a duplicate and not produced twice.
        let valid = cpm(vec![object(21, 100 + 10 * i as i32, 100, Some(1), ObjectKind::Car)]);
        rsu.publish(&topic, valid).await;
        let letter = next_within(&mut dlq, WAIT, "dead letter").await.unwrap();
        assert_eq!(letter.subject.as_str(), "cits.dlq.decoder");
        let letter = DeadLetter::decode(letter.payload.as_ref()).unwrap();
        assert!(letter.reason.contains(reason), "reason `{}` lacks `{reason}`", letter.reason);
        assert_eq!(letter.payload, bad);
        assert_eq!(letter.source_subject, format!("cits.cpm.{RSU}"));
        let msg = next_within(&mut frames, WAIT, "location frame after a bad CPM").await.unwrap();
        let frame = LocationsFrame::decode(msg.payload.as_ref()).unwrap();
        assert_eq!(frame.locations.len(), 1);
        assert_eq!(frame.locations[0].object_id, 21);
    }
}

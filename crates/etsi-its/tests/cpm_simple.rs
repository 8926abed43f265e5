//! SimpleCpm ↔ CPM mapping: round trips over the whole value ranges, clamping,
//! semantic rejection, and robustness against malformed input.

use etsi_its::cpm::{self, *};
use proptest::prelude::*;

fn object_kind() -> impl Strategy<Value = ObjectKind> {
    proptest::sample::select(ObjectKind::ALL.to_vec())
}

/// Ranges bias towards the bounds: proptest alone would rarely hit them.
fn edgy_i64(lo: i64, hi: i64) -> impl Strategy<Value = i64> {
    prop_oneof![1 => Just(lo), 1 => Just(hi), 6 => lo..=hi]
}

prop_compose! {
    fn simple_object()(
        object_id in any::<u16>(),
        measurement_delta_ms in edgy_i64(-2048, 2047),
        x_cm in edgy_i64(-131_072, 131_071),
        y_cm in edgy_i64(-131_072, 131_071),
        x_conf_cm in edgy_i64(1, 4096),
        y_conf_cm in edgy_i64(1, 4096),
        // 16383 is "unavailable", read back as None
        velocity in proptest::option::of((edgy_i64(-16_383, 16_382), edgy_i64(-16_383, 16_382))),
        yaw_decideg in proptest::option::of(edgy_i64(0, 3599)),
        class in object_kind(),
        class_confidence_pct in edgy_i64(0, 100),
        sensor_id in proptest::option::of(any::<u8>()),
    ) -> SimpleObject {
        SimpleObject {
            object_id,
            measurement_delta_ms: measurement_delta_ms as i16,
            x_cm: x_cm as i32,
            y_cm: y_cm as i32,
            x_conf_cm: x_conf_cm as u16,
            y_conf_cm: y_conf_cm as u16,
            velocity: velocity.map(|(x, y)| (x as i16, y as i16)),
            yaw_decideg: yaw_decideg.map(|v| v as u16),
            class,
            class_confidence_pct: class_confidence_pct as u8,
            sensor_id,
        }
    }
}

prop_compose! {
    fn simple_cpm(min_objects: usize, max_objects: usize)(
        station_id in any::<u32>(),
        reference_time_its_ms in edgy_i64(0, 4_398_046_511_103),
        // the "unavailable" codes 900000001 / 1800000001 are rejected by from_cpm
        reference_lat_e7 in edgy_i64(-900_000_000, 900_000_000),
        reference_lon_e7 in edgy_i64(-1_800_000_000, 1_800_000_000),
        sensors in proptest::collection::vec((any::<u8>(), 0u8..=31), 0..=8),
        objects in proptest::collection::vec(simple_object(), min_objects..=max_objects),
    ) -> SimpleCpm {
        SimpleCpm {
            protocol_version: 2,
            station_id,
            reference_time_its_ms: reference_time_its_ms as u64,
            reference_lat_e7: reference_lat_e7 as i32,
            reference_lon_e7: reference_lon_e7 as i32,
            sensors,
            objects,
        }
    }
}

fn round_trip(simple: &SimpleCpm) -> SimpleCpm {
    let bytes = cpm::encode(&simple.to_cpm()).expect("encode");
    let decoded = cpm::decode(&bytes).expect("decode");
    SimpleCpm::from_cpm(&decoded).expect("from_cpm")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn simple_cpm_round_trips(simple in simple_cpm(0, 16)) {
        prop_assert_eq!(round_trip(&simple), simple);
    }

    #[test]
    fn decoding_arbitrary_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        if let Ok(msg) = cpm::decode(&bytes) {
            let _ = SimpleCpm::from_cpm(&msg);
            for c in &msg.payload.cpm_containers.0 {
                let _ = CpmContainer::from_wrapped(c);
            }
        }
    }

    #[test]
    fn decoding_arbitrary_container_data_never_panics(id in 1u8..=16, bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let wrapped = WrappedCpmContainer { container_id: CpmContainerId(id), container_data: rasn::types::Any::new(bytes) };
        let _ = CpmContainer::from_wrapped(&wrapped);
    }

    #[test]
    fn corrupted_cpms_never_panic(simple in simple_cpm(0, 4), flips in proptest::collection::vec(any::<(usize, u8)>(), 1..6), cut in any::<usize>()) {
        let mut bytes = cpm::encode(&simple.to_cpm()).unwrap();
        for (at, mask) in flips {
            let i = at % bytes.len();
            bytes[i] ^= mask;
        }
        bytes.truncate(1 + cut % bytes.len());
        if let Ok(msg) = cpm::decode(&bytes) {
            let _ = SimpleCpm::from_cpm(&msg);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn full_cpms_round_trip(simple in simple_cpm(100, 128)) {
        prop_assert_eq!(round_trip(&simple), simple);
    }
}

fn object(object_id: u16) -> SimpleObject {
    SimpleObject {
        object_id,
        measurement_delta_ms: 0,
        x_cm: 0,
        y_cm: 0,
        x_conf_cm: 1,
        y_conf_cm: 1,
        velocity: None,
        yaw_decideg: None,
        class: ObjectKind::Unknown,
        class_confidence_pct: 0,
        sensor_id: None,
    }
}

fn base() -> SimpleCpm {
    SimpleCpm {
        protocol_version: 2,
        station_id: 7,
        reference_time_its_ms: 600_000_000_000,
        reference_lat_e7: 480_000_000,
        reference_lon_e7: 110_000_000,
        sensors: vec![],
        objects: vec![],
    }
}

#[test]
fn object_counts_at_the_bounds_round_trip() {
    // 0 and 128 objects, the root bound 255, and 256 (needs the size extension)
    for n in [0usize, 1, 128, 255, 256] {
        let mut c = base();
        c.objects = (0..n).map(|i| object(i as u16)).collect();
        assert_eq!(round_trip(&c), c, "{n} objects");
        let decoded = cpm::decode(&cpm::encode(&c.to_cpm()).unwrap()).unwrap();
        let Some(CpmContainer::PerceivedObject(poc)) =
            CpmContainer::from_wrapped(decoded.payload.cpm_containers.0.last().unwrap()).unwrap()
        else {
            panic!("no perceived object container")
        };
        assert_eq!(usize::from(poc.number_of_perceived_objects.0), n.min(255));
    }
}

#[test]
fn sensor_counts_at_the_bounds_round_trip() {
    for n in [1usize, 128, 129] {
        let mut c = base();
        c.sensors = (0..n).map(|i| (i as u8, (i % 32) as u8)).collect();
        assert_eq!(round_trip(&c), c, "{n} sensors");
    }
}

#[test]
fn extreme_values_round_trip() {
    let low = SimpleObject {
        object_id: 0,
        measurement_delta_ms: -2048,
        x_cm: -131_072,
        y_cm: -131_072,
        x_conf_cm: 1,
        y_conf_cm: 1,
        velocity: Some((-16_383, -16_383)),
        yaw_decideg: Some(0),
        class: ObjectKind::Unknown,
        class_confidence_pct: 1,
        sensor_id: Some(0),
    };
    let high = SimpleObject {
        object_id: u16::MAX,
        measurement_delta_ms: 2047,
        x_cm: 131_071,
        y_cm: 131_071,
        x_conf_cm: 4096,
        y_conf_cm: 4096,
        velocity: Some((16_382, 16_382)),
        yaw_decideg: Some(3599),
        class: ObjectKind::Animal,
        class_confidence_pct: 100,
        sensor_id: Some(u8::MAX),
    };
    for (time, lat, lon, station) in
        [(0, -900_000_000, -1_800_000_000, 0), (4_398_046_511_103, 900_000_000, 1_800_000_000, u32::MAX)]
    {
        let c = SimpleCpm {
            protocol_version: 2,
            station_id: station,
            reference_time_its_ms: time,
            reference_lat_e7: lat,
            reference_lon_e7: lon,
            sensors: vec![(0, 0), (255, 31)],
            objects: vec![low.clone(), high.clone()],
        };
        assert_eq!(round_trip(&c), c);
    }
}

#[test]
fn every_object_kind_round_trips() {
    for kind in ObjectKind::ALL {
        for pct in [0, 1, 55, 100] {
            let mut c = base();
            let mut o = object(1);
            o.class = kind;
            o.class_confidence_pct = pct;
            c.objects = vec![o];
            assert_eq!(round_trip(&c), c, "{kind:?} {pct}%");
        }
    }
}

#[test]
fn out_of_range_values_are_clamped_to_the_standard_codes() {
    let mut c = base();
    c.reference_time_its_ms = u64::MAX;
    c.sensors = vec![(1, 200)];
    c.objects = vec![SimpleObject {
        object_id: 1,
        measurement_delta_ms: i16::MIN,
        x_cm: i32::MAX,
        y_cm: i32::MIN,
        x_conf_cm: 0,
        y_conf_cm: u16::MAX,
        velocity: Some((i16::MAX, i16::MIN)),
        yaw_decideg: Some(3600 + 15),
        class: ObjectKind::Car,
        class_confidence_pct: 250,
        sensor_id: None,
    }];
    let back = round_trip(&c);
    assert_eq!(back.reference_time_its_ms, 4_398_046_511_103);
    assert_eq!(back.sensors, vec![(1, 31)]);
    let o = &back.objects[0];
    assert_eq!((o.measurement_delta_ms, o.x_cm, o.y_cm), (-2048, 131_071, -131_072));
    assert_eq!((o.x_conf_cm, o.y_conf_cm), (1, 4096));
    // 16383 = unavailable: a clamped-to-unavailable component drops the velocity
    assert_eq!(o.velocity, None);
    assert_eq!(o.yaw_decideg, Some(15));
    assert_eq!(o.class_confidence_pct, 100);
}

#[test]
fn reading_picks_the_most_confident_class_and_converts_polar_velocity() {
    let mut msg = base().to_cpm();
    let mut o = new_perceived_object(
        DeltaTimeMilliSecondSigned(-3),
        CartesianPosition3dWithConfidence {
            x_coordinate: CartesianCoordinateWithConfidence {
                value: CartesianCoordinateLarge(100),
                confidence: CoordinateConfidence(5),
            },
            y_coordinate: CartesianCoordinateWithConfidence {
                value: CartesianCoordinateLarge(-100),
                confidence: CoordinateConfidence(6),
            },
            z_coordinate: None,
        },
    );
    o.object_id = Some(Identifier2B(42));
    // 1000 cm/s heading 90° from the x (east) axis: due north
    o.velocity = Some(Velocity3dWithConfidence::polarVelocity(VelocityPolarWithZ {
        velocity_magnitude: Speed { speed_value: SpeedValue(1000), speed_confidence: SpeedConfidence(10) },
        velocity_direction: CartesianAngle { value: CartesianAngleValue(900), confidence: AngleConfidence(5) },
        z_velocity: None,
    }));
    o.angles = Some(EulerAnglesWithConfidence {
        z_angle: CartesianAngle { value: CartesianAngleValue(3601), confidence: AngleConfidence(127) },
        y_angle: None,
        x_angle: None,
    });
    o.classification = Some(ObjectClassDescription(vec![
        ObjectClassWithConfidence {
            object_class: ObjectClass::vehicleSubClass(TrafficParticipantType(6)),
            confidence: ConfidenceLevel(30),
        },
        ObjectClassWithConfidence {
            object_class: ObjectClass::vruSubClass(VruProfileAndSubprofile::bicyclistAndLightVruVehicle(
                VruSubProfileBicyclist::pedelec,
            )),
            confidence: ConfidenceLevel(60),
        },
        ObjectClassWithConfidence {
            object_class: ObjectClass::groupSubClass(VruClusterInformation::new(None, None, CardinalNumber1B(3), None)),
            confidence: ConfidenceLevel(101), // unavailable
        },
    ]));
    let container =
        CpmContainer::PerceivedObject(PerceivedObjectContainer::new(CardinalNumber1B(1), PerceivedObjects(vec![o])));
    msg.payload.cpm_containers.0 = vec![container.wrap().unwrap()];
    let decoded = cpm::decode(&cpm::encode(&msg).unwrap()).unwrap();
    let simple = SimpleCpm::from_cpm(&decoded).unwrap();
    let read = &simple.objects[0];
    assert_eq!(read.object_id, 42);
    assert_eq!(read.velocity, Some((0, 1000)));
    assert_eq!(read.yaw_decideg, None);
    assert_eq!((read.class, read.class_confidence_pct), (ObjectKind::Bicycle, 60));
    assert_eq!((read.x_conf_cm, read.y_conf_cm), (5, 6));
}

fn error_of(msg: &CollectivePerceptionMessage) -> String {
    let decoded = cpm::decode(&cpm::encode(msg).unwrap()).unwrap();
    SimpleCpm::from_cpm(&decoded).unwrap_err().to_string()
}

#[test]
fn unusable_cpms_are_rejected_with_a_reason() {
    let mut msg = base().to_cpm();
    msg.header.message_id = MessageId(2); // cam
    assert!(error_of(&msg).contains("messageId 2"), "{}", error_of(&msg));

    let mut msg = base().to_cpm();
    msg.header.protocol_version = OrdinalNumber1B(1);
    assert!(error_of(&msg).contains("protocolVersion 1"));

    let mut c = base();
    c.reference_lat_e7 = 900_000_001;
    assert!(error_of(&c.to_cpm()).contains("reference position unavailable"));

    // a Perceived Object Container whose open type holds garbage
    let mut msg = base().to_cpm();
    msg.payload.cpm_containers.0[0].container_data = rasn::types::Any::new(vec![0xff; 3]);
    assert!(error_of(&msg).contains("PerceivedObjectContainer"), "{}", error_of(&msg));

    // trailing bytes inside the open type
    let mut msg = base().to_cpm();
    let mut data = msg.payload.cpm_containers.0[0].container_data.as_bytes().to_vec();
    data.push(0);
    msg.payload.cpm_containers.0[0].container_data = rasn::types::Any::new(data);
    assert!(error_of(&msg).contains("trailing"), "{}", error_of(&msg));

    // objectId is mandatory in a CPM
    let mut c = base();
    c.objects = vec![object(3)];
    let mut msg = c.to_cpm();
    let Some(CpmContainer::PerceivedObject(mut poc)) =
        CpmContainer::from_wrapped(&msg.payload.cpm_containers.0[0]).unwrap()
    else {
        panic!()
    };
    poc.perceived_objects.0[0].object_id = None;
    msg.payload.cpm_containers.0[0] = CpmContainer::PerceivedObject(poc).wrap().unwrap();
    assert!(error_of(&msg).contains("objectId"));
}

#[test]
fn encode_rejects_values_outside_the_constraints() {
    let mut msg = base().to_cpm();
    msg.header.message_id = MessageId(14);
    msg.payload.management_container.reference_time = TimestampIts(1 << 42);
    assert!(cpm::encode(&msg).is_err());
    let mut msg = base().to_cpm();
    msg.payload.cpm_containers.0.clear();
    assert!(cpm::encode(&msg).is_err(), "a CPM needs at least one container");
}

#[test]
fn malformed_input_is_an_error() {
    let good = cpm::encode(&base().to_cpm()).unwrap();
    assert!(cpm::decode(&[]).unwrap_err().to_string().contains("empty"));
    for len in 1..good.len() {
        assert!(cpm::decode(&good[..len]).is_err(), "prefix of {len} bytes decoded");
    }
    let mut long = good.clone();
    long.push(0x55);
    assert!(cpm::decode(&long).unwrap_err().to_string().contains("trailing"));
    for junk in [&b"not a cpm at all"[..], &[0xff; 40], &[0x00; 40], &[0x02, 0x0e], &[0x5a; 3]] {
        let result = cpm::decode(junk).and_then(|m| SimpleCpm::from_cpm(&m));
        assert!(result.is_err(), "{junk:02x?} was accepted");
    }
}

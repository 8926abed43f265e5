//! A reference CPM shared by the codec's tests and the pipeline's decoder tests: two sensors, a
//! car with velocity and yaw, a pedestrian without. Its UPER bytes were produced independently of
//! rasn (asn1tools 0.169 from the TS 103 324 V2.1.1 + CDD V2.1.1 ASN.1).

use super::{ObjectKind, SimpleCpm, SimpleObject};

pub const SAMPLE_CPM_UPER_HEX: &str = "020e000003e90226fd0d4c8291207cc3988ed787ffffff08eddd0f920601002300218042e01009a030003bf3a04e20137fb28076867bf9febfe377bf000080b65003007fc001fe70031803700c400081062800";

pub fn sample() -> SimpleCpm {
    SimpleCpm {
        protocol_version: 2,
        station_id: 1001,
        reference_time_its_ms: 591_619_380_000,
        reference_lat_e7: 478_095_000,
        reference_lon_e7: 130_550_000,
        sensors: vec![(1, 3), (2, 3)],
        objects: vec![
            SimpleObject {
                object_id: 7,
                measurement_delta_ms: -25,
                x_cm: 1250,
                y_cm: -310,
                x_conf_cm: 20,
                y_conf_cm: 30,
                velocity: Some((830, -40)),
                yaw_decideg: Some(3550),
                class: ObjectKind::Car,
                class_confidence_pct: 90,
                sensor_id: Some(1),
            },
            SimpleObject {
                object_id: 255,
                measurement_delta_ms: 0,
                x_cm: -400,
                y_cm: 220,
                x_conf_cm: 50,
                y_conf_cm: 50,
                velocity: None,
                yaw_decideg: None,
                class: ObjectKind::Pedestrian,
                class_confidence_pct: 70,
                sensor_id: Some(2),
            },
        ],
    }
}

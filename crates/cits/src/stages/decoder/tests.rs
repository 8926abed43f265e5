use super::*;
use etsi_its::cpm::{self, fixtures::sample};
use etsi_its::format::Wire;

#[test]
fn decodes_a_cpm_into_the_wrapper() {
    let bytes = cpm::encode(&sample().to_cpm()).unwrap();
    let w = decode("cits.cpm.rsu-salzburg", &bytes, 123).unwrap();
    let ingest = w.ingest.unwrap();
    assert_eq!(ingest.rsu_id, "rsu-salzburg");
    assert_eq!(ingest.received_at_us, 123);
    assert_eq!(ingest.payload_bytes as usize, bytes.len());
    let Some(cits_message_wrapper::Message::Cpm(c)) = w.message else { panic!("no CPM") };
    assert_eq!(c.station_id, 1001);
    assert_eq!(c.reference_time_us, time::its_ms_to_unix_us(591_619_380_000));
    assert_eq!(c.objects.len(), 2);
    let car = &c.objects[0];
    assert_eq!((car.object_id, car.x_cm, car.y_cm, car.measurement_delta_time_ms), (7, 1250, -310, -25));
    assert_eq!((car.velocity_x_cm_s, car.velocity_y_cm_s), (Some(830), Some(-40)));
    assert_eq!(car.yaw_decideg, Some(3550));
    assert_eq!(car.classification, ObjectClass::Car as i32);
    assert_eq!(car.sensor_id, 1);
    let ped = &c.objects[1];
    assert_eq!((ped.object_id, ped.sensor_id), (255, 2));
    assert_eq!(ped.classification, ObjectClass::Pedestrian as i32);
    assert_eq!(ped.velocity_x_cm_s, None);
    assert_eq!(c.sensors.len(), 2);
}

/// What other RSUs send reads as the same CPM: a Release 1 CPM (its 16-bit time placed by
/// the reception time), XER, a GeoNetworking + BTP packet; the format is recorded.
#[test]
fn every_input_format_decodes_to_the_same_cpm() {
    let cpm = sample();
    let received_at_us = time::its_ms_to_unix_us(cpm.reference_time_its_ms) + 180_000;
    let uper = decode("cits.cpm.r1", &Wire::CpmV2Uper.encode(&cpm).unwrap(), received_at_us).unwrap();
    for (wire, format) in [
        (Wire::CpmV1Uper, "CPM (TR 103 562), UPER"),
        (Wire::CpmV2Xer, "CPM (TS 103 324), XER"),
        (Wire::CpmV1Xer, "CPM (TR 103 562), XER"),
        (Wire::CpmV2GnBtp, "CPM (TS 103 324) in GeoNetworking + BTP"),
    ] {
        let payload = wire.encode(&cpm).unwrap();
        let got = decode("cits.cpm.r1", &payload, received_at_us).unwrap();
        let ingest = got.ingest.as_ref().unwrap();
        assert_eq!(ingest.format, format);
        let (Some(cits_message_wrapper::Message::Cpm(a)), Some(cits_message_wrapper::Message::Cpm(b))) =
            (&got.message, &uper.message)
        else {
            panic!("no CPM")
        };
        // Release 1 says so in its protocol version; all else is the same CPM.
        assert_eq!(Cpm { protocol_version: b.protocol_version, ..a.clone() }, *b, "{format}");
    }
    assert_eq!(uper.ingest.as_ref().unwrap().format, "CPM (TS 103 324), UPER");
    // The container list with its extension bit (asn1tools, ms-van3t): the same CPM, and
    // the format says which encoding it was.
    let with_bit = etsi_its::cpm::encode_with_extension_bit(&cpm.to_cpm()).unwrap();
    let got = decode("cits.cpm.r1", &with_bit, received_at_us).unwrap();
    assert_eq!(got.ingest.as_ref().unwrap().format, "CPM (TS 103 324), UPER, container list with extension bit");
    assert_eq!(got.message, uper.message);
}

#[test]
fn a_cam_decodes_into_an_awareness_report() {
    let cam = etsi_its::cam::SimpleCam {
        station_id: 4711,
        station_type: 5,
        generation_delta_time_ms: 1000,
        lat_e7: 478_095_000,
        lon_e7: 130_550_000,
        heading_decideg: Some(900),
        speed_cm_s: Some(1000),
        yaw_rate_centideg_s: Some(-300),
        longitudinal_acceleration_dm_s2: None,
        turn_signals: Some(etsi_its::cam::TurnSignals { left: false, right: true }),
    };
    let bytes = etsi_its::cam::encode(&cam.to_cam()).unwrap();
    // Received 40 ms after its generation: TimestampIts ≡ 1000 (mod 65536).
    let received_its_ms = 591_619_380_000 - 591_619_380_000 % 65_536 + 1_040;
    let w = decode("cits.cam.r1", &bytes, time::its_ms_to_unix_us(received_its_ms)).unwrap();
    assert_eq!(w.ingest.as_ref().unwrap().format, "CAM, UPER");
    let Some(cits_message_wrapper::Message::Awareness(a)) = w.message else { panic!("no awareness") };
    assert_eq!(a.generated_at_us, time::its_ms_to_unix_us(received_its_ms - 40));
    assert_eq!((a.station_id, a.station_type, a.heading_decideg, a.speed_cm_s), (4711, 5, Some(900), Some(1000)));
    assert_eq!((a.yaw_rate_centideg_s, a.turn_signal), (Some(-300), TurnSignal::Right as i32));
    // On the CPM subject a CAM is not a CPM, and the other way round.
    assert!(decode("cits.cpm.r1", &bytes, 0).unwrap_err().reason.contains("invalid CPM: as CAM, UPER: not a CPM"));
    let cpm_bytes = cpm::encode(&sample().to_cpm()).unwrap();
    assert!(decode("cits.cam.r1", &cpm_bytes, 0)
        .unwrap_err()
        .reason
        .contains("invalid CAM: as CPM (TS 103 324), UPER: not a CAM"));
    assert!(decode("cits.cam.r1", &[], 0).unwrap_err().reason.contains("empty CAM"));
}

#[test]
fn a_vam_decodes_into_an_awareness_report_with_its_announced_path() {
    use etsi_its::vam::{HeadingChange, PathPoint, Turn as VamTurn};
    let vam = SimpleVam {
        station_id: 815,
        station_type: 2,
        generation_delta_time_ms: 1000,
        lat_e7: 478_095_000,
        lon_e7: 130_550_000,
        heading_decideg: Some(1800),
        speed_cm_s: Some(450),
        yaw_rate_centideg_s: None,
        heading_change: Some(HeadingChange { direction: VamTurn::Left, action_delta_ms: Some(1500) }),
        path_prediction: vec![PathPoint { lat_e7: 478_094_600, lon_e7: 130_550_000, delta_time_10ms: Some(100) }],
    };
    let bytes = etsi_its::vam::encode(&vam.to_vam()).unwrap();
    let received_its_ms = 591_619_380_000 - 591_619_380_000 % 65_536 + 1_040;
    let w = decode("cits.vam.r1", &bytes, time::its_ms_to_unix_us(received_its_ms)).unwrap();
    assert_eq!(w.ingest.as_ref().unwrap().format, "VAM, UPER");
    let Some(cits_message_wrapper::Message::Awareness(a)) = w.message else { panic!("no awareness") };
    assert_eq!(a.message, AwarenessMessage::Vam as i32);
    assert_eq!(a.generated_at_us, time::its_ms_to_unix_us(received_its_ms - 40));
    assert_eq!((a.station_id, a.station_type, a.heading_decideg, a.speed_cm_s), (815, 2, Some(1800), Some(450)));
    assert_eq!((a.heading_change, a.heading_change_in_ms), (Turn::Left as i32, Some(1500)));
    assert_eq!(
        a.path_prediction,
        [PredictedPoint { latitude: 478_094_600, longitude: 130_550_000, delta_time_ms: Some(1000) }]
    );
    // A VAM is no CAM, and a CAM no VAM.
    assert!(decode("cits.cam.r1", &bytes, 0).unwrap_err().reason.contains("invalid CAM: as VAM, UPER: not a CAM"));
    let cam = etsi_its::cam::SimpleCam {
        station_id: 1,
        station_type: 5,
        generation_delta_time_ms: 0,
        lat_e7: vam.lat_e7,
        lon_e7: vam.lon_e7,
        heading_decideg: None,
        speed_cm_s: None,
        yaw_rate_centideg_s: None,
        longitudinal_acceleration_dm_s2: None,
        turn_signals: None,
    };
    let cam_bytes = etsi_its::cam::encode(&cam.to_cam()).unwrap();
    let err = decode("cits.vam.r1", &cam_bytes, 0).unwrap_err().reason;
    assert!(err.contains("invalid VAM: as CAM, UPER: not a VAM"), "{err}");
}

#[test]
fn every_etsi_object_kind_has_a_pipeline_class() {
    assert_eq!(object_class(ObjectKind::LightVruVehicle), ObjectClass::Bicycle);
    assert_eq!(object_class(ObjectKind::Moped), ObjectClass::Motorcycle);
    assert_eq!(object_class(ObjectKind::LightTruck), ObjectClass::Truck);
    assert_eq!(object_class(ObjectKind::Agricultural), ObjectClass::OtherVehicle);
    // Only an unknown object stays unknown.
    for kind in ObjectKind::ALL {
        assert_eq!(object_class(kind) == ObjectClass::Unknown, kind == ObjectKind::Unknown, "{kind:?}");
    }
}

#[test]
fn rejects_bad_input_with_a_reason() {
    let good = cpm::encode(&sample().to_cpm()).unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("cits.cpm.r1", vec![], "empty"),
        ("cits.cpm.r1", vec![0u8; MAX_CPM_BYTES + 1], "oversized"),
        ("cits.cpm.r1", good[..good.len() / 2].to_vec(), "invalid CPM: as CPM (TS 103 324), UPER"),
        ("cits.cpm.r1", b"not a cpm at all".to_vec(), "CPM"),
        ("cits.cpm.r1", Wire::CpmV1Uper.encode(&sample()).unwrap()[..20].to_vec(), "as CPM (TR 103 562), UPER"),
        ("cits.cpm.r1", b"<CAM><header>".to_vec(), "unknown format"),
        ("cits.cpm.r1", etsi_its::denm::encode(&etsi_its::denm::fixtures::sample().to_denm()).unwrap(), "not a CPM"),
        ("cits.other.r1", good.clone(), "subject"),
    ];
    for (subject, payload, expect) in cases {
        let err = decode(subject, &payload, 0).unwrap_err();
        assert!(err.reason.contains(expect), "{subject} {}: {err}", payload.len());
    }
}

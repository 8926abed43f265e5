//! Recognising and decoding the other inputs RSUs send: Release 1 CPMs, XER, GeoNetworking +
//! BTP (secured packets refused), CAMs, DENMs and VAMs; each failure names the format it tried.

use etsi_its::cpm::{self, fixtures, v1, ObjectKind, SimpleCpm};
use etsi_its::format::{self, Decoded, Format, Message};
use etsi_its::{cam, denm, gn, vam};

fn sender() -> gn::Sender {
    gn::Sender { station_id: 2001, time_its_ms: 591_619_380_000, lat_e7: 478_095_000, lon_e7: 130_550_000 }
}

#[test]
fn every_kind_and_encoding_is_recognised() {
    let cpm2 = cpm::encode(&fixtures::sample().to_cpm()).unwrap();
    let cpm1 = v1::encode(&fixtures::sample().to_cpm_v1().unwrap()).unwrap();
    let denm = denm::encode(&denm::fixtures::sample().to_denm()).unwrap();
    let cam = cam::encode(&cam::decode(&cam_bytes()).unwrap()).unwrap();
    assert_eq!(format::detect(&cpm2), Format::Uper(Message::CpmV2));
    assert_eq!(format::detect(&cpm1), Format::Uper(Message::CpmV1));
    assert_eq!(format::detect(&denm), Format::Uper(Message::Denm));
    assert_eq!(format::detect(&cam), Format::Uper(Message::Cam));
    let xer1 = v1::encode_xer(&v1::decode(&cpm1).unwrap()).unwrap();
    assert_eq!(format::detect(&xer1), Format::Xer(Message::CpmV1));
    let xer_denm = denm::encode_xer(&denm::decode(&denm).unwrap()).unwrap();
    assert_eq!(format::detect(&xer_denm), Format::Xer(Message::Denm));
    let framed = gn::wrap(&denm, gn::PORT_DENM, &sender(), gn::Broadcast::Circle { radius_m: 200 }).unwrap();
    assert_eq!(format::detect(&framed), Format::GnBtp(Message::Denm));
    // Recognised once: the packet's payload is kept for the reader, which does not unwrap again.
    let recognised = format::recognise(&framed);
    assert_eq!((recognised.message, recognised.bytes), (denm.as_slice(), framed.as_slice()));
    assert_eq!(format::recognise(&denm).message, denm.as_slice());
    assert!(matches!(format::decode(&framed).unwrap(), Decoded::Denm(d) if *d == denm::decode(&denm).unwrap()));
    assert_eq!(format::detect(b""), Format::Unknown);
    assert_eq!(format::detect(b"hello"), Format::Unknown);
}

fn cam_bytes() -> Vec<u8> {
    let simple = cam::SimpleCam {
        station_id: 7,
        station_type: 5,
        generation_delta_time_ms: 100,
        lat_e7: 1,
        lon_e7: 2,
        heading_decideg: Some(900),
        speed_cm_s: Some(500),
        yaw_rate_centideg_s: None,
        longitudinal_acceleration_dm_s2: Some(3),
        turn_signals: None,
    };
    cam::encode(&simple.to_cam()).unwrap()
}

#[test]
fn release_1_cpms_read_like_release_2_where_they_can() {
    let sample = fixtures::sample();
    let received = sample.reference_time_its_ms + 30_000;
    let from_v1 = format::simple_cpm(&v1::encode(&sample.to_cpm_v1().unwrap()).unwrap(), received).unwrap();
    assert_eq!(from_v1.protocol_version, v1::PROTOCOL_VERSION);
    assert_eq!(SimpleCpm { protocol_version: 2, ..from_v1 }, sample);

    // TR 103 562 V2.1.1 has every kind but LightVruVehicle and Animal's details; ids are 8 bits
    for kind in ObjectKind::ALL {
        let mut one = sample.clone();
        one.objects[0].class = kind;
        let back = SimpleCpm::from_cpm_v1(&one.to_cpm_v1().unwrap(), received).unwrap();
        assert_eq!(back.objects[0].class, kind);
    }
    let mut many = sample.clone();
    many.objects[0].object_id = 256;
    assert!(many.to_cpm_v1().unwrap_err().message().contains("256"));
}

#[test]
fn generation_delta_time_lands_nearest_the_reception() {
    let t = 591_619_380_000u64;
    let gdt = (t % 65_536) as u16;
    for received in [t, t + 1, t + 32_000, t - 32_000] {
        assert_eq!(v1::reference_time_near(gdt, received), t, "received {received}");
    }
    assert_eq!(v1::reference_time_near(5, 10), 5);
    assert_eq!(v1::reference_time_near(65_530, 10), 65_530);
}

#[test]
fn xer_cpms_round_trip_with_their_containers() {
    let msg = fixtures::sample().to_cpm();
    let xml = cpm::encode_xer(&msg).unwrap();
    let text = String::from_utf8(xml.clone()).unwrap();
    assert!(text.contains("<containerData><PerceivedObjectContainer>"), "{text}");
    assert_eq!(cpm::decode_xer(&xml).unwrap(), msg);
    let v1 = fixtures::sample().to_cpm_v1().unwrap();
    assert_eq!(v1::decode_xer(&v1::encode_xer(&v1).unwrap()).unwrap(), v1);
}

#[test]
fn failures_name_the_format_tried() {
    let mut cpm2 = cpm::encode(&fixtures::sample().to_cpm()).unwrap();
    cpm2.truncate(10);
    assert!(format::decode(&cpm2).unwrap_err().message().starts_with("as CPM (TS 103 324), UPER: "));
    let mut secured = gn::wrap(&[2, 14], gn::PORT_CPM, &sender(), gn::Broadcast::SingleHop).unwrap();
    secured[0] = (secured[0] & 0xf0) | 2;
    assert_eq!(format::detect(&secured), Format::SecuredGn);
    let error = format::decode(&secured).unwrap_err();
    assert!(
        error.message().starts_with("as secured GeoNetworking: ") && error.message().contains("trust anchor"),
        "{error}"
    );
    assert!(format::decode(b"<CPM>oops").unwrap_err().message().contains("unknown format"));
    let denm = denm::encode(&denm::fixtures::sample().to_denm()).unwrap();
    assert!(format::simple_cpm(&denm, 0).unwrap_err().message().contains("not a CPM"));
}

#[test]
fn cams_read_alike_in_every_format() {
    let bytes = cam_bytes();
    let simple = cam::SimpleCam::from_cam(&cam::decode(&bytes).unwrap()).unwrap();
    let xer = cam::encode_xer(&cam::decode(&bytes).unwrap()).unwrap();
    let framed = gn::wrap(&bytes, gn::PORT_CAM, &sender(), gn::Broadcast::SingleHop).unwrap();
    for payload in [&bytes, &xer, &framed] {
        assert_eq!(format::simple_cam_as(format::recognise(payload)).unwrap(), simple);
    }
    let cpm = cpm::encode(&fixtures::sample().to_cpm()).unwrap();
    assert!(format::simple_cam_as(format::recognise(&cpm)).unwrap_err().message().contains("not a CAM"));
    let truncated = &bytes[..bytes.len() / 2];
    assert!(format::simple_cam_as(format::recognise(truncated)).unwrap_err().message().starts_with("as CAM, UPER"));
}

fn vam_bytes() -> Vec<u8> {
    let simple = vam::SimpleVam {
        station_id: 12,
        station_type: 2,
        generation_delta_time_ms: 200,
        lat_e7: 478_095_000,
        lon_e7: 130_550_000,
        heading_decideg: Some(1800),
        speed_cm_s: Some(420),
        yaw_rate_centideg_s: Some(100),
        heading_change: Some(vam::HeadingChange { direction: vam::Turn::Right, action_delta_ms: Some(800) }),
        path_prediction: vec![vam::PathPoint { lat_e7: 478_094_900, lon_e7: 130_550_000, delta_time_10ms: Some(100) }],
    };
    vam::encode(&simple.to_vam()).unwrap()
}

#[test]
fn vams_are_recognised_and_read_alike_in_every_format() {
    let bytes = vam_bytes();
    let decoded = vam::decode(&bytes).unwrap();
    let simple = vam::SimpleVam::from_vam(&decoded).unwrap();
    let xer = vam::encode_xer(&decoded).unwrap();
    let framed = gn::wrap(&bytes, gn::PORT_VAM, &sender(), gn::Broadcast::SingleHop).unwrap();
    assert_eq!(format::detect(&bytes), Format::Uper(Message::Vam));
    assert_eq!(format::detect(&xer), Format::Xer(Message::Vam));
    assert_eq!(format::detect(&framed), Format::GnBtp(Message::Vam));
    assert_eq!(gn::unwrap(&framed).unwrap().destination_port(), Some(2018));
    for payload in [&bytes, &xer, &framed] {
        assert!(matches!(format::decode(payload).unwrap(), Decoded::Vam(v) if *v == decoded));
        assert_eq!(format::simple_vam_as(format::recognise(payload)).unwrap(), simple);
    }
    assert_eq!(Format::GnBtp(Message::Vam).to_string(), "VAM in GeoNetworking + BTP");

    // each reader refuses the other's message, and names the format it tried
    let cpm = cpm::encode(&fixtures::sample().to_cpm()).unwrap();
    assert!(format::simple_vam_as(format::recognise(&cpm)).unwrap_err().message().contains("not a VAM"));
    assert!(format::simple_cam_as(format::recognise(&bytes)).unwrap_err().message().contains("not a CAM"));
    assert!(format::simple_cpm(&bytes, 0).unwrap_err().message().contains("not a CPM"));
    let truncated = &bytes[..bytes.len() / 2];
    assert!(format::simple_vam_as(format::recognise(truncated)).unwrap_err().message().starts_with("as VAM, UPER"));
    let mut inner = bytes.clone();
    inner.truncate(bytes.len() - 3);
    let framed = gn::wrap(&inner, gn::PORT_VAM, &sender(), gn::Broadcast::SingleHop).unwrap();
    let error = format::simple_vam_as(format::recognise(&framed)).unwrap_err();
    assert!(error.message().starts_with("in GeoNetworking + BTP: as VAM, UPER"), "{error}");
}

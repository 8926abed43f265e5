//! VAMs of protocolVersion 3 (TS 103 300-3 V2.2.1) encoded by an independent codec, asn1tools
//! (tests/python/make_vam_fixtures.py, committed as tests/fixtures/vam/v3.json), read by our
//! codec and `etsi_its::format` in UPER, XER and GeoNetworking + BTP into the values they were
//! encoded with; and our own encoding of them.

use etsi_its::format::{self, Decoded, Format, Message};
use etsi_its::gn;
use etsi_its::vam::{self, HeadingChange, PathPoint, SimpleVam, Turn};

const FIXTURES: &str = include_str!("fixtures/vam/v3.json");

/// One VAM of the fixture file: its fields as written by make_vam_fixtures.py.
struct Fixture<'a> {
    text: &'a str,
}

impl<'a> Fixture<'a> {
    fn all() -> Vec<Fixture<'static>> {
        FIXTURES.split("\"name\":").skip(1).map(|text| Fixture { text }).collect()
    }

    /// The raw JSON value of `key` (up to the next `,` or `]` at the same line, or the array).
    fn raw(&self, key: &str) -> Option<&'a str> {
        let start = self.text.find(&format!("\"{key}\":"))? + key.len() + 3;
        let rest = self.text[start..].trim_start();
        let end = if rest.starts_with('[') {
            let mut depth = 0;
            rest.char_indices()
                .find(|&(_, c)| {
                    depth += i32::from(c == '[') - i32::from(c == ']');
                    depth == 0
                })
                .map(|(i, _)| i + 1)?
        } else {
            rest.find([',', '\n', '}']).unwrap_or(rest.len())
        };
        Some(rest[..end].trim())
    }

    fn int(&self, key: &str) -> i64 {
        self.raw(key).unwrap_or_else(|| panic!("no {key}")).parse().unwrap()
    }

    fn ints(&self, key: &str) -> Vec<i64> {
        self.raw(key)
            .map(|raw| {
                raw.split(|c: char| !(c.is_ascii_digit() || c == '-'))
                    .filter(|s| !s.is_empty())
                    .map(|s| s.parse().unwrap())
                    .collect()
            })
            .unwrap_or_default()
    }

    fn name(&self) -> &'a str {
        self.text.trim_start().trim_start_matches('"').split('"').next().unwrap()
    }

    fn bytes(&self) -> Vec<u8> {
        let hex = self.raw("uper_hex").unwrap().trim_matches('"');
        (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
    }

    /// The view the VAM was encoded to carry: the path's offsets added up from the reference
    /// position, its 0.1 s steps added up into 10 ms units.
    fn expected(&self) -> SimpleVam {
        let (lat, lon) = (self.int("lat_e7") as i32, self.int("lon_e7") as i32);
        let offsets = self.ints("path_offsets");
        let (mut at_lat, mut at_lon, mut tenths) = (lat, lon, 0);
        let path_prediction = offsets
            .chunks(3)
            .map(|o| {
                (at_lat, at_lon, tenths) = (at_lat + o[0] as i32, at_lon + o[1] as i32, tenths + o[2]);
                PathPoint { lat_e7: at_lat, lon_e7: at_lon, delta_time_10ms: Some(tenths as u16 * 10) }
            })
            .collect();
        let heading_change = self.raw("heading_change").map(|raw| HeadingChange {
            direction: if raw.contains("left") { Turn::Left } else { Turn::Right },
            action_delta_ms: Some(self.ints("heading_change")[0] as u32 * 100),
        });
        SimpleVam {
            station_id: self.int("station_id") as u32,
            station_type: self.int("station_type") as u8,
            generation_delta_time_ms: self.int("generation_delta_time_ms") as u16,
            lat_e7: lat,
            lon_e7: lon,
            heading_decideg: Some(self.int("heading_decideg") as u16),
            speed_cm_s: Some(self.int("speed_cm_s") as u16),
            yaw_rate_centideg_s: self.raw("yaw_rate_centideg_s").map(|y| y.parse().unwrap()),
            heading_change,
            path_prediction,
        }
    }
}

fn sender(vam: &SimpleVam) -> gn::Sender {
    gn::Sender { station_id: vam.station_id, time_its_ms: 1_000, lat_e7: vam.lat_e7, lon_e7: vam.lon_e7 }
}

#[test]
fn asn1tools_vams_decode_to_what_they_were_encoded_with() {
    let fixtures = Fixture::all();
    assert_eq!(fixtures.len(), 2);
    for fixture in fixtures {
        let name = fixture.name();
        let bytes = fixture.bytes();
        let expected = fixture.expected();
        assert_eq!(format::detect(&bytes), Format::Uper(Message::VamV3), "{name}");
        let simple = format::simple_vam_as(format::recognise(&bytes)).unwrap();
        assert_eq!(simple, expected, "{name}");
        // the position exactly (1e-7°: about 1 cm), so well within 0.1 m
        assert_eq!((simple.lat_e7, simple.lon_e7), (expected.lat_e7, expected.lon_e7), "{name}");
        let Ok(Decoded::VamV3(decoded)) = format::decode(&bytes) else { panic!("{name}: not decoded as a V2.2.1 VAM") };
        assert_eq!(vam::v3::encode(&decoded).unwrap(), bytes, "{name}: re-encoded differently");

        // XER, and GeoNetworking + BTP (port 2018), into the same view
        let xer = vam::v3::encode_xer(&decoded).unwrap();
        assert_eq!(format::detect(&xer), Format::Xer(Message::VamV3), "{name}");
        assert_eq!(format::simple_vam_as(format::recognise(&xer)).unwrap(), expected, "{name}");
        let framed = gn::wrap(&bytes, gn::PORT_VAM, &sender(&expected), gn::Broadcast::SingleHop).unwrap();
        assert_eq!(format::detect(&framed), Format::GnBtp(Message::VamV3), "{name}");
        assert_eq!(format::simple_vam_as(format::recognise(&framed)).unwrap(), expected, "{name}");
    }
}

#[test]
fn our_encoding_reads_back_and_is_the_same_view() {
    for fixture in Fixture::all() {
        let expected = fixture.expected();
        let bytes = vam::v3::encode(&expected.to_vam_v3()).unwrap();
        assert_eq!(bytes[..2], [3, 16]);
        assert_eq!(format::simple_vam_as(format::recognise(&bytes)).unwrap(), expected, "{}", fixture.name());
    }
}

#[test]
fn versions_are_told_apart_and_named() {
    let fixture = &Fixture::all()[0];
    let simple = fixture.expected();
    let v2 = vam::encode(&simple.to_vam()).unwrap();
    assert_eq!(format::detect(&v2), Format::Uper(Message::Vam));
    assert_eq!(Format::Uper(Message::VamV3).to_string(), "VAM (TS 103 300-3 V2.2.1), UPER");
    // each version's reader refuses the other's header
    let v3 = simple.to_vam_v3();
    let mut wrong = v3.clone();
    wrong.header.0.protocol_version.0 = 2;
    let error = SimpleVam::from_vam_v3(&wrong).unwrap_err();
    assert!(error.message().contains("protocolVersion 2 (expected 3, TS 103 300-3 V2.2.1)"), "{error}");
    let mut not_a_vam = v3;
    not_a_vam.header.0.message_id.0 = 14;
    assert!(SimpleVam::from_vam_v3(&not_a_vam).unwrap_err().message().contains("not a VAM: messageId 14"));
}

#[test]
fn paths_are_chained_offsets_and_cut_where_they_cannot_be_sent() {
    let mut simple = Fixture::all()[0].expected();
    let far = PathPoint { lat_e7: simple.lat_e7 + 200_000, lon_e7: simple.lon_e7, delta_time_10ms: Some(900) };
    simple.path_prediction.push(far);
    let back = SimpleVam::from_vam_v3(&simple.to_vam_v3()).unwrap();
    assert_eq!(back.path_prediction, simple.path_prediction[..3]);
    // a point without time: it and every later point have none
    let mut untimed = Fixture::all()[0].expected();
    untimed.path_prediction[1].delta_time_10ms = None;
    let back = SimpleVam::from_vam_v3(&untimed.to_vam_v3()).unwrap();
    let times: Vec<_> = back.path_prediction.iter().map(|p| p.delta_time_10ms).collect();
    assert_eq!(times, [Some(50), None, None]);
}

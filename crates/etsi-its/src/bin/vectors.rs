//! DENM, VAM and CAM test vectors for the independent cross-check with pycrate
//! (tests/python/test_denm_pycrate.py, tests/python/test_vam_pycrate.py,
//! tests/python/test_cam_pycrate.py).
//!
//! * no arguments: one line per reference DENM, `HEX<TAB>JSON`, where HEX is
//!   our UPER encoding and JSON the [`SimpleDenm`] fields it was built from
//!   plus `"name"`.
//! * `--decode HEX`: decodes a DENM with our decoder and prints its
//!   [`SimpleDenm`] fields as JSON; exit status 1 and a message on stderr when
//!   it does not decode.
//! * `vam` and `vam --decode HEX`: the same for VAMs and [`SimpleVam`].
//! * `cam` and `cam --decode HEX`: the same for CAMs and [`SimpleCam`]; the
//!   JSON of a reference CAM is the view it carries, which for a value out of
//!   range is the clamped one.
//!
//! The JSON is written by hand (objects of integers, strings, booleans, null
//! and, for the VAM and CAM, nested objects and a list) to keep serde out of
//! the crate.

use std::fmt::{Debug, Display};
use std::process::ExitCode;

use etsi_its::cam::{self, SimpleCam, TurnSignals};
use etsi_its::denm::{self, codes, fixtures, Denm, RelevanceDistance, SimpleDenm, Termination};
use etsi_its::vam::{self, HeadingChange, PathPoint, SimpleVam, Turn};
use etsi_its::CodecError;

fn vectors() -> Vec<(&'static str, Denm)> {
    let sample = fixtures::sample();
    let simple = |name, denm: SimpleDenm| (name, denm.to_denm());
    vec![
        simple("sample", sample.clone()),
        simple(
            "vru",
            SimpleDenm {
                sequence_number: 8,
                relevance_distance: Some(RelevanceDistance::LessThan100m),
                validity_duration_s: 60,
                sub_cause: codes::VULNERABLE_ROAD_USER,
                information_quality: 7,
                ..sample.clone()
            },
        ),
        simple("cancellation", SimpleDenm { termination: Some(Termination::IsCancellation), ..sample.clone() }),
        simple(
            "negation",
            SimpleDenm {
                station_id: 4242,
                termination: Some(Termination::IsNegation),
                relevance_distance: None,
                validity_duration_s: 0,
                ..sample.clone()
            },
        ),
        simple("extremes_max", fixtures::extremes_max()),
        simple("extremes_min", fixtures::extremes_min()),
        ("full", fixtures::full()),
    ]
}

/// A JSON number or boolean for `value`, `null` for `None`.
fn or_null(value: Option<impl Display>) -> String {
    value.map_or_else(|| "null".to_string(), |v| v.to_string())
}

/// The JSON object of `fields` (`"key": value, ...`), led by `"name"` when given.
fn object(name: Option<&str>, fields: String) -> String {
    match name {
        Some(name) => format!("{{\"name\": \"{name}\", {fields}}}"),
        None => format!("{{{fields}}}"),
    }
}

fn json(name: Option<&str>, d: &SimpleDenm) -> String {
    let string_or_null = |s: Option<&str>| or_null(s.map(|s| format!("\"{s}\"")));
    let fields = format!(
        "\"station_id\": {}, \"originating_station_id\": {}, \"sequence_number\": {}, \
         \"detection_time_its_ms\": {}, \"reference_time_its_ms\": {}, \"event_lat_e7\": {}, \
         \"event_lon_e7\": {}, \"relevance_distance\": {}, \"validity_duration_s\": {}, \"termination\": {}, \
         \"station_type\": {}, \"cause\": {}, \"sub_cause\": {}, \"information_quality\": {}",
        d.station_id,
        d.originating_station_id,
        d.sequence_number,
        d.detection_time_its_ms,
        d.reference_time_its_ms,
        d.event_lat_e7,
        d.event_lon_e7,
        string_or_null(d.relevance_distance.map(RelevanceDistance::asn1_name)),
        d.validity_duration_s,
        string_or_null(d.termination.map(Termination::asn1_name)),
        d.station_type,
        d.cause,
        d.sub_cause,
        d.information_quality,
    );
    object(name, fields)
}

fn vam_vectors() -> Vec<(&'static str, SimpleVam)> {
    let walking = SimpleVam {
        station_id: 4711,
        station_type: 1,
        generation_delta_time_ms: 40_000,
        lat_e7: 478_095_000,
        lon_e7: 130_550_000,
        heading_decideg: Some(2700),
        speed_cm_s: Some(140),
        yaw_rate_centideg_s: Some(-250),
        heading_change: Some(HeadingChange { direction: Turn::Left, action_delta_ms: Some(1_500) }),
        path_prediction: vec![
            PathPoint { lat_e7: 478_095_010, lon_e7: 130_549_800, delta_time_10ms: Some(50) },
            PathPoint { lat_e7: 478_095_150, lon_e7: 130_549_700, delta_time_10ms: None },
        ],
    };
    let standing = SimpleVam {
        station_id: 1,
        station_type: 2,
        heading_decideg: None,
        speed_cm_s: None,
        yaw_rate_centideg_s: None,
        heading_change: None,
        path_prediction: vec![],
        ..walking.clone()
    };
    let turning = SimpleVam {
        station_type: 4,
        heading_change: Some(HeadingChange { direction: Turn::Right, action_delta_ms: None }),
        path_prediction: vec![],
        ..walking.clone()
    };
    let extremes = SimpleVam {
        station_id: u32::MAX,
        station_type: 255,
        generation_delta_time_ms: u16::MAX,
        lat_e7: -900_000_000,
        lon_e7: 1_800_000_000,
        heading_decideg: Some(3599),
        speed_cm_s: Some(16_382),
        yaw_rate_centideg_s: Some(-32_766),
        heading_change: Some(HeadingChange { direction: Turn::Right, action_delta_ms: Some(12_600) }),
        path_prediction: vec![
            PathPoint { lat_e7: 900_000_000, lon_e7: -1_800_000_000, delta_time_10ms: Some(u16::MAX) },
            PathPoint { lat_e7: 0, lon_e7: 0, delta_time_10ms: Some(1) },
        ],
    };
    let long_path = SimpleVam {
        heading_change: None,
        path_prediction: (0..20)
            .map(|i| PathPoint {
                lat_e7: 478_095_000 + 70 * i,
                lon_e7: 130_550_000 - 35 * i,
                delta_time_10ms: Some(10 * (i as u16 + 1)),
            })
            .collect(),
        ..walking.clone()
    };
    vec![
        ("walking", walking),
        ("standing", standing),
        ("turning", turning),
        ("extremes", extremes),
        ("long_path", long_path),
    ]
}

fn vam_json(name: Option<&str>, v: &SimpleVam) -> String {
    let heading_change = v.heading_change.map(|change| {
        let direction = match change.direction {
            Turn::Left => "left",
            Turn::Right => "right",
        };
        format!("{{\"direction\": \"{direction}\", \"action_delta_ms\": {}}}", or_null(change.action_delta_ms))
    });
    let points: Vec<String> = v
        .path_prediction
        .iter()
        .map(|p| {
            format!(
                "{{\"lat_e7\": {}, \"lon_e7\": {}, \"delta_time_10ms\": {}}}",
                p.lat_e7,
                p.lon_e7,
                or_null(p.delta_time_10ms)
            )
        })
        .collect();
    let fields = format!(
        "\"station_id\": {}, \"station_type\": {}, \"generation_delta_time_ms\": {}, \"lat_e7\": {}, \
         \"lon_e7\": {}, \"heading_decideg\": {}, \"speed_cm_s\": {}, \"yaw_rate_centideg_s\": {}, \
         \"heading_change\": {}, \"path_prediction\": [{}]",
        v.station_id,
        v.station_type,
        v.generation_delta_time_ms,
        v.lat_e7,
        v.lon_e7,
        or_null(v.heading_decideg),
        or_null(v.speed_cm_s),
        or_null(v.yaw_rate_centideg_s),
        or_null(heading_change),
        points.join(", "),
    );
    object(name, fields)
}

/// Reference CAMs: the name, the [`SimpleCam`] the CAM is built from, and the view it carries
/// (the same, but for values out of range, which are clamped).
fn cam_vectors() -> Vec<(&'static str, SimpleCam, SimpleCam)> {
    let moving = SimpleCam {
        station_id: 4711,
        station_type: 5,
        generation_delta_time_ms: 40_000,
        lat_e7: 478_095_000,
        lon_e7: 130_550_000,
        heading_decideg: Some(2700),
        speed_cm_s: Some(1389),
        yaw_rate_centideg_s: Some(-250),
        longitudinal_acceleration_dm_s2: Some(-12),
        turn_signals: Some(TurnSignals { left: false, right: true }),
    };
    let parked = SimpleCam {
        station_id: 1,
        heading_decideg: None,
        speed_cm_s: None,
        yaw_rate_centideg_s: None,
        longitudinal_acceleration_dm_s2: None,
        turn_signals: None,
        ..moving.clone()
    };
    let hazard = SimpleCam {
        speed_cm_s: Some(0),
        yaw_rate_centideg_s: Some(0),
        longitudinal_acceleration_dm_s2: Some(0),
        turn_signals: Some(TurnSignals { left: true, right: true }),
        ..moving.clone()
    };
    let extremes = SimpleCam {
        station_id: u32::MAX,
        station_type: 255,
        generation_delta_time_ms: u16::MAX,
        lat_e7: -900_000_000,
        lon_e7: 1_800_000_000,
        heading_decideg: Some(3600 + 3599),
        speed_cm_s: Some(u16::MAX),
        yaw_rate_centideg_s: Some(i16::MIN),
        longitudinal_acceleration_dm_s2: Some(i16::MAX),
        turn_signals: Some(TurnSignals { left: false, right: false }),
    };
    let clamped = SimpleCam {
        heading_decideg: Some(3599),
        speed_cm_s: Some(16_382),
        yaw_rate_centideg_s: Some(-32_766),
        longitudinal_acceleration_dm_s2: Some(160),
        ..extremes.clone()
    };
    let rsu = SimpleCam {
        station_id: 0,
        station_type: 15,
        generation_delta_time_ms: 0,
        lat_e7: 900_000_000,
        lon_e7: -1_800_000_000,
        ..parked.clone()
    };
    let as_built = |name, cam: SimpleCam| (name, cam.clone(), cam);
    vec![
        as_built("moving", moving),
        as_built("parked", parked),
        as_built("hazard", hazard),
        ("extremes", extremes, clamped),
        as_built("rsu", rsu),
    ]
}

fn cam_json(name: Option<&str>, c: &SimpleCam) -> String {
    let turn_signals = c.turn_signals.map(|t| format!("{{\"left\": {}, \"right\": {}}}", t.left, t.right));
    let fields = format!(
        "\"station_id\": {}, \"station_type\": {}, \"generation_delta_time_ms\": {}, \"lat_e7\": {}, \
         \"lon_e7\": {}, \"heading_decideg\": {}, \"speed_cm_s\": {}, \"yaw_rate_centideg_s\": {}, \
         \"longitudinal_acceleration_dm_s2\": {}, \"turn_signals\": {}",
        c.station_id,
        c.station_type,
        c.generation_delta_time_ms,
        c.lat_e7,
        c.lon_e7,
        or_null(c.heading_decideg),
        or_null(c.speed_cm_s),
        or_null(c.yaw_rate_centideg_s),
        or_null(c.longitudinal_acceleration_dm_s2),
        or_null(turn_signals),
    );
    object(name, fields)
}

fn read_denm(uper: &[u8]) -> Result<SimpleDenm, CodecError> {
    denm::decode(uper).and_then(|d| SimpleDenm::from_denm(&d))
}

fn read_vam(uper: &[u8]) -> Result<SimpleVam, CodecError> {
    vam::decode(uper).and_then(|v| SimpleVam::from_vam(&v))
}

fn read_cam(uper: &[u8]) -> Result<SimpleCam, CodecError> {
    cam::decode(uper).and_then(|c| SimpleCam::from_cam(&c))
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn from_hex(hex: &str) -> Result<Vec<u8>, String> {
    let hex = hex.trim();
    if !hex.len().is_multiple_of(2) || !hex.is_ascii() {
        return Err("hex input must be an even number of ASCII hex digits".into());
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|e| format!("bad hex at {i}: {e}")))
        .collect()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        [] => {
            let denms = vectors().into_iter().map(|(name, denm)| {
                let simple = SimpleDenm::from_denm(&denm).expect("reference DENMs are valid");
                (name, denm, simple)
            });
            print_vectors(denms, denm::encode, read_denm, json)
        }
        ["--decode", hex] => print_decoded(hex, read_denm, json),
        ["vam"] => {
            let vams = vam_vectors().into_iter().map(|(name, vam)| (name, vam.clone(), vam));
            print_vectors(vams, |v| vam::encode(&v.to_vam()), read_vam, vam_json)
        }
        ["vam", "--decode", hex] => print_decoded(hex, read_vam, vam_json),
        ["cam"] => print_vectors(cam_vectors(), |c| cam::encode(&c.to_cam()), read_cam, cam_json),
        ["cam", "--decode", hex] => print_decoded(hex, read_cam, cam_json),
        _ => {
            eprintln!("usage: etsi-its-vectors [vam | cam] [--decode HEX]");
            ExitCode::from(2)
        }
    }
}

/// Prints the `HEX<TAB>JSON` line of each reference message `(name, message, view)`: encodes
/// `message`, checks that our decoder reads `view` back out of the bytes, and writes `view` as
/// the JSON.
fn print_vectors<M, S: PartialEq + Debug>(
    vectors: impl IntoIterator<Item = (&'static str, M, S)>,
    encode: impl Fn(&M) -> Result<Vec<u8>, CodecError>,
    read: impl Fn(&[u8]) -> Result<S, CodecError>,
    json: impl Fn(Option<&str>, &S) -> String,
) -> ExitCode {
    for (name, message, view) in vectors {
        let bytes = encode(&message).unwrap_or_else(|e| panic!("reference message {name} does not encode: {e}"));
        assert_eq!(read(&bytes).as_ref(), Ok(&view), "reference message {name} reads back as meant");
        println!("{}\t{}", to_hex(&bytes), json(Some(name), &view));
    }
    ExitCode::SUCCESS
}

/// Decodes `hex` with `read` and prints the JSON of the view; exit status 1 and the reason on
/// stderr when it does not decode.
fn print_decoded<S>(
    hex: &str,
    read: impl Fn(&[u8]) -> Result<S, CodecError>,
    json: impl Fn(Option<&str>, &S) -> String,
) -> ExitCode {
    match from_hex(hex).and_then(|b| read(&b).map_err(|e| e.to_string())) {
        Ok(view) => {
            println!("{}", json(None, &view));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("etsi-its-vectors: {e}");
            ExitCode::FAILURE
        }
    }
}

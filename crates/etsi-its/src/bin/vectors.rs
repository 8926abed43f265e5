//! DENM and VAM test vectors for the independent cross-check with pycrate
//! (tests/python/test_denm_pycrate.py, tests/python/test_vam_pycrate.py).
//!
//! * no arguments: one line per reference DENM, `HEX<TAB>JSON`, where HEX is
//!   our UPER encoding and JSON the [`SimpleDenm`] fields it was built from
//!   plus `"name"`.
//! * `--decode HEX`: decodes a DENM with our decoder and prints its
//!   [`SimpleDenm`] fields as JSON; exit status 1 and a message on stderr when
//!   it does not decode.
//! * `vam` and `vam --decode HEX`: the same for VAMs and [`SimpleVam`].
//!
//! The JSON is written by hand (objects of integers, strings, null and, for
//! the VAM, a nested object and a list) to keep serde out of the crate.

use std::process::ExitCode;

use etsi_its::denm::{self, codes, fixtures, Denm, RelevanceDistance, SimpleDenm, Termination};
use etsi_its::vam::{self, HeadingChange, PathPoint, SimpleVam, Turn};

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

fn json(name: Option<&str>, d: &SimpleDenm) -> String {
    let string_or_null = |s: Option<&str>| s.map_or("null".to_string(), |s| format!("\"{s}\""));
    let mut out = String::from("{");
    if let Some(name) = name {
        out.push_str(&format!("\"name\": \"{name}\", "));
    }
    out.push_str(&format!(
        "\"station_id\": {}, \"originating_station_id\": {}, \"sequence_number\": {}, \
         \"detection_time_its_ms\": {}, \"reference_time_its_ms\": {}, \"event_lat_e7\": {}, \
         \"event_lon_e7\": {}, \"relevance_distance\": {}, \"validity_duration_s\": {}, \"termination\": {}, \
         \"station_type\": {}, \"cause\": {}, \"sub_cause\": {}, \"information_quality\": {}}}",
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
    ));
    out
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
    let or_null = |value: Option<String>| value.unwrap_or_else(|| "null".to_string());
    let heading_change = v.heading_change.map(|change| {
        let direction = match change.direction {
            Turn::Left => "left",
            Turn::Right => "right",
        };
        format!(
            "{{\"direction\": \"{direction}\", \"action_delta_ms\": {}}}",
            or_null(change.action_delta_ms.map(|ms| ms.to_string()))
        )
    });
    let points: Vec<String> = v
        .path_prediction
        .iter()
        .map(|p| {
            format!(
                "{{\"lat_e7\": {}, \"lon_e7\": {}, \"delta_time_10ms\": {}}}",
                p.lat_e7,
                p.lon_e7,
                or_null(p.delta_time_10ms.map(|t| t.to_string()))
            )
        })
        .collect();
    let mut out = String::from("{");
    if let Some(name) = name {
        out.push_str(&format!("\"name\": \"{name}\", "));
    }
    out.push_str(&format!(
        "\"station_id\": {}, \"station_type\": {}, \"generation_delta_time_ms\": {}, \"lat_e7\": {}, \
         \"lon_e7\": {}, \"heading_decideg\": {}, \"speed_cm_s\": {}, \"yaw_rate_centideg_s\": {}, \
         \"heading_change\": {}, \"path_prediction\": [{}]}}",
        v.station_id,
        v.station_type,
        v.generation_delta_time_ms,
        v.lat_e7,
        v.lon_e7,
        or_null(v.heading_decideg.map(|h| h.to_string())),
        or_null(v.speed_cm_s.map(|s| s.to_string())),
        or_null(v.yaw_rate_centideg_s.map(|y| y.to_string())),
        or_null(heading_change),
        points.join(", "),
    ));
    out
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
    match args.as_slice() {
        [] => {
            for (name, denm) in vectors() {
                let bytes = denm::encode(&denm).expect("reference DENMs encode");
                let simple = SimpleDenm::from_denm(&denm).expect("reference DENMs are valid");
                println!("{}\t{}", to_hex(&bytes), json(Some(name), &simple));
            }
            ExitCode::SUCCESS
        }
        [flag, hex] if flag == "--decode" => print_decoded(hex, |b| {
            denm::decode(b).and_then(|d| SimpleDenm::from_denm(&d)).map(|simple| json(None, &simple))
        }),
        [message] if message == "vam" => {
            for (name, simple) in vam_vectors() {
                let bytes = vam::encode(&simple.to_vam()).expect("reference VAMs encode");
                let back = SimpleVam::from_vam(&vam::decode(&bytes).expect("reference VAMs decode"));
                assert_eq!(back.as_ref(), Ok(&simple), "reference VAM {name} reads back as built");
                println!("{}\t{}", to_hex(&bytes), vam_json(Some(name), &simple));
            }
            ExitCode::SUCCESS
        }
        [message, flag, hex] if message == "vam" && flag == "--decode" => print_decoded(hex, |b| {
            vam::decode(b).and_then(|v| SimpleVam::from_vam(&v)).map(|simple| vam_json(None, &simple))
        }),
        _ => {
            eprintln!("usage: etsi-its-vectors [vam] [--decode HEX]");
            ExitCode::from(2)
        }
    }
}

/// Decodes `hex` with `read` and prints the JSON it gives; exit status 1 and the reason on
/// stderr when it does not decode.
fn print_decoded(hex: &str, read: impl Fn(&[u8]) -> Result<String, etsi_its::CodecError>) -> ExitCode {
    match from_hex(hex).and_then(|b| read(&b).map_err(|e| e.to_string())) {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("etsi-its-vectors: {e}");
            ExitCode::FAILURE
        }
    }
}

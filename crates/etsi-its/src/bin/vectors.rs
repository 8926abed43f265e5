//! DENM test vectors for the independent cross-check with pycrate
//! (tests/python/test_denm_pycrate.py).
//!
//! * no arguments: one line per reference DENM, `HEX<TAB>JSON`, where HEX is
//!   our UPER encoding and JSON the [`SimpleDenm`] fields it was built from
//!   plus `"name"`.
//! * `--decode HEX`: decodes a DENM with our decoder and prints its
//!   [`SimpleDenm`] fields as JSON; exit status 1 and a message on stderr when
//!   it does not decode.
//!
//! The JSON is written by hand (flat object of integers, strings and null) to
//! keep serde out of the crate.

use std::process::ExitCode;

use etsi_its::denm::{self, codes, fixtures, Denm, RelevanceDistance, SimpleDenm, Termination};

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
        [flag, hex] if flag == "--decode" => {
            match from_hex(hex)
                .and_then(|b| denm::decode(&b).map_err(|e| e.to_string()))
                .and_then(|d| SimpleDenm::from_denm(&d).map_err(|e| e.to_string()))
            {
                Ok(simple) => {
                    println!("{}", json(None, &simple));
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("etsi-its-vectors: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => {
            eprintln!("usage: etsi-its-vectors [--decode HEX]");
            ExitCode::from(2)
        }
    }
}

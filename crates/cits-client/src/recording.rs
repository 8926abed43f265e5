//! CPM recordings in the research's format: a text file of base64 records, one per line; each
//! record is a 4-byte big-endian length, an 8-byte big-endian timestamp (Unix ms, when the message
//! arrived at the recording point; file order is arrival order) and the UPER CPM itself. A
//! recording may also hold the CAMs and VAMs the RSU heard (its content tells: [`subject_of`]).

use std::io::{BufRead, Write};

use anyhow::{bail, Context as _};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
pub use cits::subjects::Ingest;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub timestamp_ms: u64,
    /// The message: a CPM, a CAM or a VAM.
    pub cpm: Vec<u8>,
}

impl Record {
    /// What the record holds (see [`ingest_of`]).
    pub fn ingest(&self) -> Ingest {
        ingest_of(&self.cpm)
    }
}

/// What a recorded message is, by its header (in any format the decoder reads): a CAM, a VAM,
/// or a CPM (all else, so that the decoder says what is wrong with it).
pub fn ingest_of(message: &[u8]) -> Ingest {
    use etsi_its::format::{detect, Format, Message};
    match detect(message) {
        Format::Uper(Message::Cam) | Format::Xer(Message::Cam) | Format::GnBtp(Message::Cam) => Ingest::Cam,
        Format::Uper(Message::Vam | Message::VamV3)
        | Format::Xer(Message::Vam | Message::VamV3)
        | Format::GnBtp(Message::Vam | Message::VamV3) => Ingest::Vam,
        _ => Ingest::Cpm,
    }
}

/// The NATS subject a recorded message arrives on at `rsu`: MQTT `cits/cam/<rsu>` for a CAM,
/// `cits/vam/<rsu>` for a VAM, `cits/cpm/<rsu>` for all else.
pub fn subject_of(rsu: &str, message: &[u8]) -> String {
    format!("{}{rsu}", ingest_of(message).prefix())
}

impl Record {
    pub fn to_line(&self) -> String {
        let mut raw = Vec::with_capacity(12 + self.cpm.len());
        raw.extend_from_slice(&(self.cpm.len() as u32).to_be_bytes());
        raw.extend_from_slice(&self.timestamp_ms.to_be_bytes());
        raw.extend_from_slice(&self.cpm);
        STANDARD.encode(raw)
    }

    pub fn from_line(line: &str) -> anyhow::Result<Self> {
        let raw = STANDARD.decode(line.trim()).context("record is not base64")?;
        if raw.len() < 12 {
            bail!("record of {} bytes is shorter than its 12-byte header", raw.len());
        }
        let len = u32::from_be_bytes(raw[0..4].try_into().unwrap()) as usize;
        let timestamp_ms = u64::from_be_bytes(raw[4..12].try_into().unwrap());
        if raw.len() != 12 + len {
            bail!("record announces {len} CPM bytes but carries {}", raw.len() - 12);
        }
        Ok(Self { timestamp_ms, cpm: raw[12..].to_vec() })
    }
}

pub fn write(mut out: impl Write, records: &[Record]) -> anyhow::Result<()> {
    for r in records {
        writeln!(out, "{}", r.to_line())?;
    }
    Ok(())
}

/// Reads all records; a bad line is an error naming its line number.
pub fn read(input: impl BufRead) -> anyhow::Result<Vec<Record>> {
    let mut records = Vec::new();
    for (i, line) in input.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        records.push(Record::from_line(&line).with_context(|| format!("line {}", i + 1))?);
    }
    Ok(records)
}

pub fn read_file(path: &std::path::Path) -> anyhow::Result<Vec<Record>> {
    let file = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    read(std::io::BufReader::new(file)).with_context(|| format!("in {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let records = vec![
            Record { timestamp_ms: 1_664_534_580_125, cpm: vec![1, 2, 3, 255] },
            Record { timestamp_ms: 0, cpm: vec![] },
        ];
        let mut buf = Vec::new();
        write(&mut buf, &records).unwrap();
        assert_eq!(read(buf.as_slice()).unwrap(), records);
    }

    #[test]
    fn header_layout_is_length_then_timestamp() {
        let line = Record { timestamp_ms: 0x0102030405060708, cpm: vec![0xAA] }.to_line();
        let raw = STANDARD.decode(line).unwrap();
        assert_eq!(raw, vec![0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 0xAA]);
    }

    #[test]
    fn bad_records_are_errors_with_line_numbers() {
        let good = Record { timestamp_ms: 5, cpm: vec![9; 4] }.to_line();
        let short = STANDARD.encode([0u8; 5]);
        let lying = STANDARD.encode([0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 1, 7]);
        for bad in ["%%%", short.as_str(), lying.as_str()] {
            let text = format!("{good}\n{bad}\n");
            let err = read(text.as_bytes()).unwrap_err();
            assert!(format!("{err:#}").contains("line 2"), "{err:#}");
        }
    }
}

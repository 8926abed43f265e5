//! Well-known binary (OGC simple features) for lane centerlines: the geometry format the research
//! chose because every language parses it and it is faster than text formats.
//!
//! Only what the map needs: little-endian 2D LineString and MultiLineString, coordinates as
//! (x = longitude, y = latitude) in degrees.

use crate::message::StageError;

const LITTLE_ENDIAN: u8 = 1;
const LINE_STRING: u32 = 2;
const MULTI_LINE_STRING: u32 = 5;

/// A polyline of (longitude, latitude) points.
pub type Line = Vec<(f64, f64)>;

pub fn encode_multi_line_string(lines: &[Line]) -> Vec<u8> {
    let points: usize = lines.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(9 + lines.len() * 9 + points * 16);
    out.push(LITTLE_ENDIAN);
    out.extend_from_slice(&MULTI_LINE_STRING.to_le_bytes());
    out.extend_from_slice(&(lines.len() as u32).to_le_bytes());
    for line in lines {
        out.push(LITTLE_ENDIAN);
        out.extend_from_slice(&LINE_STRING.to_le_bytes());
        out.extend_from_slice(&(line.len() as u32).to_le_bytes());
        for (x, y) in line {
            out.extend_from_slice(&x.to_le_bytes());
            out.extend_from_slice(&y.to_le_bytes());
        }
    }
    out
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], StageError> {
        let end = self.at + N;
        let chunk = self
            .bytes
            .get(self.at..end)
            .ok_or_else(|| StageError::new(format!("WKB truncated at byte {}", self.at)))?;
        self.at = end;
        chunk.try_into().map_err(|_| StageError::new(format!("WKB truncated at byte {}", end - N)))
    }

    fn header(&mut self, expected: u32) -> Result<u32, StageError> {
        let [order] = self.take::<1>()?;
        if order != LITTLE_ENDIAN {
            return Err(StageError::new("WKB: only little-endian geometries are supported"));
        }
        let kind = u32::from_le_bytes(self.take()?);
        if kind != expected {
            return Err(StageError::new(format!("WKB: geometry type {kind}, expected {expected}")));
        }
        let count = u32::from_le_bytes(self.take()?);
        // Each element takes at least 9 bytes (a line) or 16 (a point): reject absurd counts early.
        if count as usize > self.bytes.len() / 9 {
            return Err(StageError::new(format!("WKB: count {count} exceeds the data")));
        }
        Ok(count)
    }
}

pub fn decode_multi_line_string(bytes: &[u8]) -> Result<Vec<Line>, StageError> {
    let mut r = Reader { bytes, at: 0 };
    let lines = r.header(MULTI_LINE_STRING)?;
    let mut out = Vec::with_capacity(lines as usize);
    for _ in 0..lines {
        let points = r.header(LINE_STRING)?;
        let mut line = Vec::with_capacity(points as usize);
        for _ in 0..points {
            line.push((f64::from_le_bytes(r.take()?), f64::from_le_bytes(r.take()?)));
        }
        out.push(line);
    }
    if r.at != bytes.len() {
        return Err(StageError::new(format!("WKB: {} bytes after the geometry", bytes.len() - r.at)));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_the_ogc_specification() {
        let bytes = encode_multi_line_string(&[vec![(1.0, 2.0)]]);
        let mut expected = vec![1, 5, 0, 0, 0, 1, 0, 0, 0, 1, 2, 0, 0, 0, 1, 0, 0, 0];
        expected.extend_from_slice(&1.0f64.to_le_bytes());
        expected.extend_from_slice(&2.0f64.to_le_bytes());
        assert_eq!(bytes, expected);
    }

    #[test]
    fn round_trip() {
        let lines = vec![vec![(13.0518, 47.8101), (13.0519, 47.8102)], vec![], vec![(0.0, -90.0)]];
        assert_eq!(decode_multi_line_string(&encode_multi_line_string(&lines)).unwrap(), lines);
    }

    #[test]
    fn malformed_input_is_an_error() {
        let good = encode_multi_line_string(&[vec![(1.0, 2.0), (3.0, 4.0)]]);
        for n in 0..good.len() {
            assert!(decode_multi_line_string(&good[..n]).is_err(), "prefix {n}");
        }
        let mut big_endian = good.clone();
        big_endian[0] = 0;
        assert!(decode_multi_line_string(&big_endian).is_err());
        let mut trailing = good.clone();
        trailing.push(0);
        assert!(decode_multi_line_string(&trailing).is_err());
        assert!(decode_multi_line_string(&[1, 5, 0, 0, 0, 255, 255, 255, 255]).is_err());
    }
}

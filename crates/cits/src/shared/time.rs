//! Clocks and the ETSI time base.

use std::time::{SystemTime, UNIX_EPOCH};

/// 2004-01-01T00:00:00Z, the ETSI ITS epoch, in Unix milliseconds.
pub const ITS_EPOCH_UNIX_MS: u64 = 1_072_915_200_000;

/// TimestampIts counts leap seconds (it follows TAI): five were inserted since 2004
/// (2005-12-31, 2008-12-31, 2012-06-30, 2015-06-30, 2016-12-31). Valid for instants after 2017.
pub const LEAP_SECONDS_SINCE_ITS_EPOCH: u64 = 5;

const ITS_TO_UNIX_OFFSET_MS: u64 = ITS_EPOCH_UNIX_MS - LEAP_SECONDS_SINCE_ITS_EPOCH * 1000;

/// TimestampIts (ms since the ETSI epoch) → Unix microseconds.
pub fn its_ms_to_unix_us(its_ms: u64) -> u64 {
    its_ms.saturating_add(ITS_TO_UNIX_OFFSET_MS).saturating_mul(1000)
}

/// Unix microseconds → TimestampIts (ms since the ETSI epoch); 0 before the epoch.
pub fn unix_us_to_its_ms(unix_us: u64) -> u64 {
    (unix_us / 1000).saturating_sub(ITS_TO_UNIX_OFFSET_MS)
}

/// Wall clock in Unix microseconds (in a component this is wasi:clocks/wall-clock).
pub fn now_us() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_micros() as u64).unwrap_or(0)
}

/// Wall clock in Unix milliseconds.
pub fn now_ms() -> u64 {
    now_us() / 1000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn its_epoch_maps_to_2004_minus_leap_seconds() {
        assert_eq!(its_ms_to_unix_us(0), (ITS_EPOCH_UNIX_MS - 5_000) * 1000);
    }

    #[test]
    fn known_instant_round_trips() {
        // 2022-09-30T10:43:00Z, the day the research recorded its dataset.
        let unix_us = 1_664_534_580_000_000;
        let its = unix_us_to_its_ms(unix_us);
        assert_eq!(its, 1_664_534_580_000 - 1_072_915_200_000 + 5_000);
        assert_eq!(its_ms_to_unix_us(its), unix_us);
    }

    #[test]
    fn before_epoch_saturates() {
        assert_eq!(unix_us_to_its_ms(0), 0);
    }
}

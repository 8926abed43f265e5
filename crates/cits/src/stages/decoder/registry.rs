//! Which stations may speak for which RSU: the decoder's RSU registry.
//!
//! An RSU publishes on its own topic `cits/cpm/<rsu>` (the broker enforces that), but the station
//! id inside a CPM is the sender's own claim. The registry, named config entries
//! `rsu.<rsu-id> = <station id>[,<station id>...]`, lists the stations each RSU sends for; a CPM
//! from any other station, or on the topic of an RSU the registry does not know, is refused.

use std::collections::HashMap;

use crate::config::{Key, Kind};
use crate::message::StageError;
use crate::stages::collector::object_frame;

const KEY_PREFIX: &str = "rsu.";

/// The RSU registry's keys (named config `cits-rsus`, put by `cits rsu add`), given whole to
/// the decoder and the collector: each reads its own family and accepts the other's.
pub const KEYS: &[Key] = &[
    Key {
        name: "rsu.<rsu>",
        kind: Kind::Text,
        default: "",
        doc: "decoder: the station ids RSU `<rsu>` sends for, `<id>[,<id>…]`; CPMs of other stations, and every message of an RSU not listed, are dead letters",
    },
    object_frame::KEY,
];

#[derive(Debug, Clone, Default, PartialEq)]
pub struct RsuRegistry {
    stations: HashMap<String, Vec<u32>>,
}

impl RsuRegistry {
    /// Reads the `rsu.*` entries of `stage`'s config; other keys are ignored. A malformed entry
    /// is an error: dropping it silently would refuse every CPM of that RSU.
    pub fn from_config<'a>(
        stage: &'a str,
        entries: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, StageError> {
        let mut stations = HashMap::new();
        for e in crate::config::entries(stage, entries) {
            let Some(rsu) = e.key.strip_prefix(KEY_PREFIX) else { continue };
            let ids = e
                .value
                .split(',')
                .map(|s| s.trim().parse::<u32>())
                .collect::<Result<Vec<u32>, _>>()
                .ok()
                .filter(|ids| !rsu.is_empty() && !ids.is_empty())
                .ok_or_else(|| {
                    StageError::new(format!(
                        "{stage} config `{}` must list the RSU's station ids (e.g. `1001,1002`), got `{}`",
                        e.key, e.value
                    ))
                })?;
            stations.insert(rsu.to_string(), ids);
        }
        Ok(Self { stations })
    }

    /// Whether the RSU is registered at all (checked before a CPM is decoded: the topic alone
    /// tells).
    pub fn check_rsu(&self, rsu: &str) -> Result<(), StageError> {
        if !self.stations.contains_key(rsu) {
            return Err(StageError::new(format!("unregistered RSU {rsu}")));
        }
        Ok(())
    }

    /// Whether `station_id` sends for `rsu`.
    pub fn check(&self, rsu: &str, station_id: u32) -> Result<(), StageError> {
        self.check_rsu(rsu)?;
        if !self.stations[rsu].contains(&station_id) {
            return Err(StageError::new(format!(
                "station mismatch: station {station_id} does not belong to RSU {rsu}"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: [(&str, &str); 4] =
        [("rsu.rsu-salzburg", "1001"), ("rsu.rsu2", " 2001, 2002 "), ("sensor.1001.1", "47.8,13.0,0"), ("x", "y")];

    #[test]
    fn a_registered_station_passes() {
        let r = RsuRegistry::from_config("decoder", CONFIG).unwrap();
        r.check("rsu-salzburg", 1001).unwrap();
        r.check("rsu2", 2002).unwrap();
    }

    #[test]
    fn another_station_on_an_rsus_topic_is_a_station_mismatch() {
        let r = RsuRegistry::from_config("decoder", CONFIG).unwrap();
        assert_eq!(
            r.check("rsu-salzburg", 2001).unwrap_err().reason,
            "station mismatch: station 2001 does not belong to RSU rsu-salzburg"
        );
    }

    #[test]
    fn an_rsu_without_entry_is_unregistered() {
        let r = RsuRegistry::from_config("decoder", CONFIG).unwrap();
        assert_eq!(r.check("rsu9", 1001).unwrap_err().reason, "unregistered RSU rsu9");
        assert_eq!(r.check_rsu("rsu9").unwrap_err().reason, "unregistered RSU rsu9");
        // No registry at all: nobody may send.
        let empty = RsuRegistry::from_config("decoder", []).unwrap();
        assert!(empty.check("rsu-salzburg", 1001).is_err());
    }

    #[test]
    fn malformed_entries_are_config_errors() {
        for (k, v) in [("rsu.r1", ""), ("rsu.r1", "abc"), ("rsu.r1", "1001,"), ("rsu.r1", "-1"), ("rsu.", "1001")] {
            let err = RsuRegistry::from_config("decoder", [(k, v)]).unwrap_err();
            assert!(err.reason.contains(&format!("`{k}`")), "{err}");
        }
    }
}

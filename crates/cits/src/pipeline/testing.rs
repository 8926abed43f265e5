//! A test double for the platform services and sample inputs, shared by the pipeline's tests.

use std::collections::HashMap;

use prost::Message as _;

use super::{flat_key, Services};
use crate::proto::FrameDone;
use crate::stage::{Outbound, StageError};

pub(crate) struct InMemory {
    pub(crate) config: Vec<(String, String)>,
    pub(crate) kv: HashMap<String, Vec<u8>>,
    pub(crate) blobs: HashMap<String, Vec<u8>>,
    pub(crate) down: bool,
    pub(crate) fail_next_set: bool,
}

impl Default for InMemory {
    /// RSU `r1` registered for the sample CPM's station.
    fn default() -> Self {
        Self {
            config: vec![("rsu.r1".into(), "1001".into())],
            kv: HashMap::new(),
            blobs: HashMap::new(),
            down: false,
            fail_next_set: false,
        }
    }
}

/// The sample CPM as sent `ago_ms` before now (the decoder refuses 2022's time of the fixture).
pub(crate) fn sample_sent(ago_ms: u64) -> etsi_its::cpm::SimpleCpm {
    let mut cpm = etsi_its::cpm::fixtures::sample();
    cpm.reference_time_its_ms = crate::time::unix_us_to_its_ms(crate::time::now_us() - ago_ms * 1000);
    cpm
}

pub(crate) fn live_sample() -> Vec<u8> {
    etsi_its::cpm::encode(&sample_sent(0).to_cpm()).unwrap()
}

impl Services for InMemory {
    fn config(&mut self) -> Result<Vec<(String, String)>, StageError> {
        Ok(self.config.clone())
    }
    fn get_many(&mut self, bucket: &str, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, StageError> {
        if self.down {
            return Err(StageError::unavailable("kv down"));
        }
        Ok(keys.iter().map(|k| self.kv.get(&flat_key(bucket, k)).cloned()).collect())
    }
    fn set_many(&mut self, bucket: &str, items: Vec<(String, Vec<u8>)>) -> Result<(), StageError> {
        if std::mem::take(&mut self.fail_next_set) {
            return Err(StageError::unavailable("kv went away"));
        }
        for (k, v) in items {
            self.kv.insert(flat_key(bucket, &k), v);
        }
        Ok(())
    }
    fn read_blob(&mut self, container: &str, object: &str) -> Result<Option<Vec<u8>>, StageError> {
        Ok(self.blobs.get(&format!("{container}/{object}")).cloned())
    }
}

/// Counts the calls that reach the store.
#[derive(Default)]
pub(crate) struct Counting {
    pub(crate) store: InMemory,
    pub(crate) gets: usize,
    pub(crate) sets: usize,
    pub(crate) blob_reads: usize,
    /// Every key read, in order (flat: `bucket:key`).
    pub(crate) keys_read: Vec<String>,
}

impl Services for Counting {
    fn config(&mut self) -> Result<Vec<(String, String)>, StageError> {
        self.store.config()
    }
    fn get_many(&mut self, bucket: &str, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, StageError> {
        self.gets += 1;
        self.keys_read.extend(keys.iter().map(|k| flat_key(bucket, k)));
        self.store.get_many(bucket, keys)
    }
    fn set_many(&mut self, bucket: &str, items: Vec<(String, Vec<u8>)>) -> Result<(), StageError> {
        // As the platforms do: an empty write makes no call.
        if !items.is_empty() {
            self.sets += 1;
        }
        self.store.set_many(bucket, items)
    }
    fn read_blob(&mut self, container: &str, object: &str) -> Result<Option<Vec<u8>>, StageError> {
        self.blob_reads += 1;
        self.store.read_blob(container, object)
    }
}

/// The trace without its clock readings.
pub(crate) fn stages_of(done: &Outbound) -> (FrameDone, Vec<String>) {
    let mut done = FrameDone::decode(done.body.as_slice()).unwrap();
    let stages = done.trace.drain(..).map(|t| t.stage).collect();
    (done, stages)
}

/// The stages' state in a store, without the map tile copies (which hold the time they were read).
pub(crate) fn state_of(store: &InMemory) -> HashMap<String, Vec<u8>> {
    let copies = flat_key(super::buckets::MAP_TILES, "");
    store.kv.iter().filter(|(k, _)| !k.starts_with(&copies)).map(|(k, v)| (k.clone(), v.clone())).collect()
}

//! The platform for tests (feature `testing`): [`InMemory`], the platform in process with the
//! fault switches the tests and the fuzzer need, [`Recording`] to see what a handler asked of
//! them, and sample inputs. The pipeline's own tests and the fuzz targets use these; no
//! production binary enables the feature.

use std::collections::HashMap;
use std::sync::Arc;

use prost::Message as _;

use super::memory::InProcess;
use super::{flat_key, Services};
use crate::message::{Outbound, StageError};
use crate::proto::FrameDone;

/// The platform in process ([`InProcess`]) with the fault switches of the tests and the fuzzer.
pub struct InMemory {
    /// Config, state and blobs (also reached through `Deref`: `svc.kv`, `svc.put_blob(..)`).
    pub platform: InProcess,
    /// Values for keys never written, handed out in the order they are asked for (then absent):
    /// stored state of unknown origin, as the fuzzer makes it.
    pub unwritten: std::vec::IntoIter<Option<Vec<u8>>>,
    /// Fault: every key-value read fails as unavailable.
    pub down: bool,
    /// Fault: the next key-value write fails as unavailable.
    pub fail_next_set: bool,
    /// Fault: every blob read comes back cut short (as when nats-server restarted mid-read).
    pub cut_blob_reads: bool,
}

impl InMemory {
    /// Services with these config entries and blobs, no state and no faults.
    pub fn new(config: Vec<(String, String)>, blobs: Arc<HashMap<String, Vec<u8>>>) -> Self {
        Self {
            platform: InProcess::new(config, blobs),
            unwritten: Vec::new().into_iter(),
            down: false,
            fail_next_set: false,
            cut_blob_reads: false,
        }
    }
}

impl std::ops::Deref for InMemory {
    type Target = InProcess;
    fn deref(&self) -> &InProcess {
        &self.platform
    }
}

impl std::ops::DerefMut for InMemory {
    fn deref_mut(&mut self) -> &mut InProcess {
        &mut self.platform
    }
}

impl Default for InMemory {
    /// RSU `r1` registered for the station of [`sample_sent`]'s CPM; no blobs.
    fn default() -> Self {
        Self::new(vec![("rsu.r1".into(), "1001".into())], Arc::default())
    }
}

impl Services for InMemory {
    fn config(&mut self) -> Result<super::Config, StageError> {
        self.platform.config()
    }

    fn get_many(&mut self, bucket: &str, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, StageError> {
        if self.down {
            return Err(StageError::unavailable("kv down"));
        }
        let mut values = self.platform.get_many(bucket, keys)?;
        for value in values.iter_mut().filter(|v| v.is_none()) {
            *value = self.unwritten.next().flatten();
        }
        Ok(values)
    }

    fn set_many(&mut self, bucket: &str, items: Vec<(String, Vec<u8>)>) -> Result<(), StageError> {
        if std::mem::take(&mut self.fail_next_set) {
            return Err(StageError::unavailable("kv went away"));
        }
        self.platform.set_many(bucket, items)
    }

    fn read_blob(&mut self, container: &str, object: &str) -> Result<Option<Vec<u8>>, StageError> {
        if self.cut_blob_reads {
            // A length-delimited field whose announced length the bytes do not reach.
            return Ok(Some(vec![0x0a, 0x40, 0x01]));
        }
        self.platform.read_blob(container, object)
    }
}

/// Services that record what reaches the ones they wrap: calls, keys read, values read back.
/// Counts as the platforms call: an empty write makes no call.
#[derive(Default)]
pub struct Recording<S> {
    pub inner: S,
    /// Key-value read calls.
    pub gets: usize,
    /// Key-value write calls that wrote something.
    pub sets: usize,
    pub blob_reads: usize,
    /// Every key read, in order (flat: `bucket:key`).
    pub keys_read: Vec<String>,
    /// Every value read back, in order (what a stateful stage read its state from).
    pub values_read: Vec<Option<Vec<u8>>>,
}

impl<S> Recording<S> {
    pub fn new(inner: S) -> Self {
        Self { inner, gets: 0, sets: 0, blob_reads: 0, keys_read: Vec::new(), values_read: Vec::new() }
    }
}

impl<S: Services> Services for Recording<S> {
    fn config(&mut self) -> Result<super::Config, StageError> {
        self.inner.config()
    }

    fn get_many(&mut self, bucket: &str, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, StageError> {
        self.gets += 1;
        self.keys_read.extend(keys.iter().map(|k| flat_key(bucket, k)));
        let values = self.inner.get_many(bucket, keys)?;
        self.values_read.extend(values.iter().cloned());
        Ok(values)
    }

    fn set_many(&mut self, bucket: &str, items: Vec<(String, Vec<u8>)>) -> Result<(), StageError> {
        if !items.is_empty() {
            self.sets += 1;
        }
        self.inner.set_many(bucket, items)
    }

    fn read_blob(&mut self, container: &str, object: &str) -> Result<Option<Vec<u8>>, StageError> {
        self.blob_reads += 1;
        self.inner.read_blob(container, object)
    }
}

/// The sample CPM as sent `ago_ms` before now (the decoder refuses 2022's time of the fixture).
pub fn sample_sent(ago_ms: u64) -> etsi_its::cpm::SimpleCpm {
    let mut cpm = etsi_its::cpm::fixtures::sample();
    cpm.reference_time_its_ms = crate::shared::time::unix_us_to_its_ms(crate::shared::time::now_us() - ago_ms * 1000);
    cpm
}

/// The sample CPM sent now, UPER-encoded.
pub fn live_sample() -> Vec<u8> {
    etsi_its::cpm::encode(&sample_sent(0).to_cpm()).unwrap()
}

/// The trace without its clock readings.
pub fn stages_of(done: &Outbound) -> (FrameDone, Vec<String>) {
    let mut done = FrameDone::decode(done.body.as_slice()).unwrap();
    let stages = done.trace.drain(..).map(|t| t.stage).collect();
    (done, stages)
}

/// The stages' state in a store, without the map tile copies (which hold the time they were read).
pub fn state_of(store: &InMemory) -> HashMap<String, Vec<u8>> {
    let copies = flat_key(super::buckets::MAP_TILES, "");
    store.kv.iter().filter(|(k, _)| !k.starts_with(&copies)).map(|(k, v)| (k.clone(), v.clone())).collect()
}

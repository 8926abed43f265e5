//! One delivery's view of the platform services.

use std::collections::{BTreeMap, HashMap};

use super::{flat_key, Kept, Services};
use crate::message::StageError;

/// The platform services for one invocation: config and blobs read (and map tiles prepared) once,
/// key-value state read through a cache (ahead of the stages with [`Services::prefetch`]) and
/// written back once, at [`Cached::flush`]. So a batch of messages costs one state read per
/// message with keys not seen yet and one write in all, and a stage sees its own writes of
/// earlier messages of the batch.
pub struct Cached<V> {
    inner: V,
    /// Keys to read along with the next read that goes to the store.
    wanted: Vec<(String, String)>,
    config: Option<super::Config>,
    values: HashMap<(String, String), Option<Vec<u8>>>,
    dirty: BTreeMap<(String, String), Vec<u8>>,
    blobs: HashMap<(String, String), Option<Vec<u8>>>,
    kept: Kept,
}

impl<V: Services> Cached<V> {
    pub fn new(inner: V) -> Self {
        Self {
            inner,
            wanted: Vec::new(),
            config: None,
            values: HashMap::new(),
            dirty: BTreeMap::new(),
            blobs: HashMap::new(),
            kept: Kept::default(),
        }
    }

    /// Forgets state read and written (not config, blobs and prepared tiles): the delivery starts over.
    pub fn discard(&mut self) {
        self.values.clear();
        self.dirty.clear();
        self.wanted.clear();
    }

    /// Reads `key` of `bucket` with the next read that goes to the store anyway (no call of its own).
    pub fn want(&mut self, bucket: &str, key: String) {
        let at = (bucket.to_string(), key);
        if !self.values.contains_key(&at) {
            self.wanted.push(at);
        }
    }

    /// The value of a key if it has been read (or written) in this delivery: `None` when not read.
    pub fn known(&self, bucket: &str, key: &str) -> Option<Option<&[u8]>> {
        self.values.get(&(bucket.to_string(), key.to_string())).map(|v| v.as_deref())
    }

    /// Writes the state changed since the last flush, in one `set_many` (see [`flat_key`]).
    pub fn flush(&mut self) -> Result<(), StageError> {
        let items: Vec<(String, Vec<u8>)> =
            std::mem::take(&mut self.dirty).into_iter().map(|((b, k), v)| (flat_key(&b, &k), v)).collect();
        self.inner.set_many("", items)
    }
}

impl<V: Services> Services for Cached<V> {
    fn config(&mut self) -> Result<super::Config, StageError> {
        match &self.config {
            Some(config) => Ok(config.clone()),
            None => Ok(self.config.insert(self.inner.config()?).clone()),
        }
    }

    fn get_many(&mut self, bucket: &str, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, StageError> {
        let wanted: Vec<(&str, String)> = keys.iter().map(|k| (bucket, k.clone())).collect();
        self.prefetch(&wanted)?;
        Ok(keys.iter().map(|k| self.values[&(bucket.to_string(), k.clone())].clone()).collect())
    }

    fn set_many(&mut self, bucket: &str, items: Vec<(String, Vec<u8>)>) -> Result<(), StageError> {
        for (key, value) in items {
            let at = (bucket.to_string(), key);
            self.values.insert(at.clone(), Some(value.clone()));
            self.dirty.insert(at, value);
        }
        Ok(())
    }

    fn read_blob(&mut self, container: &str, object: &str) -> Result<Option<Vec<u8>>, StageError> {
        let at = (container.to_string(), object.to_string());
        if let Some(blob) = self.blobs.get(&at) {
            return Ok(blob.clone());
        }
        let blob = self.inner.read_blob(container, object)?;
        self.blobs.insert(at, blob.clone());
        Ok(blob)
    }

    fn kept(&mut self) -> Option<&mut Kept> {
        Some(&mut self.kept)
    }

    fn prefetch(&mut self, keys: &[(&str, String)]) -> Result<(), StageError> {
        let mut missing: Vec<(String, String)> =
            keys.iter().map(|(b, k)| (b.to_string(), k.clone())).filter(|at| !self.values.contains_key(at)).collect();
        if missing.is_empty() {
            return Ok(());
        }
        for at in std::mem::take(&mut self.wanted) {
            if !self.values.contains_key(&at) && !missing.contains(&at) {
                missing.push(at);
            }
        }
        let flat: Vec<String> = missing.iter().map(|(b, k)| flat_key(b, k)).collect();
        let found = self.inner.get_many("", &flat)?;
        self.values.extend(missing.into_iter().zip(found));
        Ok(())
    }
}

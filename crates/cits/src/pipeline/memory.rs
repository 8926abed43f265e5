//! The platform in process: [`Services`] on plain maps. `cits evaluate`, `cits worst-frame` and
//! the fuzz seeds run the seven stages on it, natively and without a broker; the tests' fault
//! switches wrap it (`testing::InMemory`).

use std::collections::HashMap;
use std::sync::Arc;

use super::{flat_key, Services};
use crate::message::StageError;

/// Config, key-value state and read-only blobs in memory. As our key-value provider does, a key
/// of a bucket is the flat key `bucket:key` ([`flat_key`]) and an empty write changes nothing.
#[derive(Clone)]
pub struct InProcess {
    /// The config entries every [`Services::config`] returns.
    pub config: Vec<(String, String)>,
    /// Key-value state by flat key.
    pub kv: HashMap<String, Vec<u8>>,
    /// Read-only objects by `<container>/<object>` ([`InProcess::blob_path`]); shared, so that many
    /// short-lived platforms (one per fuzz input) hold one map.
    pub blobs: Arc<HashMap<String, Vec<u8>>>,
}

impl InProcess {
    /// Services with these config entries and blobs and no state.
    pub fn new(config: Vec<(String, String)>, blobs: Arc<HashMap<String, Vec<u8>>>) -> Self {
        Self { config, kv: HashMap::new(), blobs }
    }

    /// Where [`InProcess::blobs`] keeps `object` of `container`.
    pub fn blob_path(container: &str, object: &str) -> String {
        format!("{container}/{object}")
    }

    /// Adds (or replaces) one blob.
    pub fn put_blob(&mut self, container: &str, object: &str, bytes: Vec<u8>) {
        Arc::make_mut(&mut self.blobs).insert(Self::blob_path(container, object), bytes);
    }
}

impl Services for InProcess {
    fn config(&mut self) -> Result<super::Config, StageError> {
        Ok(self.config.as_slice().into())
    }

    fn get_many(&mut self, bucket: &str, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, StageError> {
        Ok(keys.iter().map(|k| self.kv.get(&flat_key(bucket, k)).cloned()).collect())
    }

    fn set_many(&mut self, bucket: &str, items: Vec<(String, Vec<u8>)>) -> Result<(), StageError> {
        self.kv.extend(items.into_iter().map(|(k, v)| (flat_key(bucket, &k), v)));
        Ok(())
    }

    fn read_blob(&mut self, container: &str, object: &str) -> Result<Option<Vec<u8>>, StageError> {
        Ok(self.blobs.get(&Self::blob_path(container, object)).cloned())
    }
}

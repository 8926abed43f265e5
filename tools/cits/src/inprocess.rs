//! The platform services in memory: `cits::pipeline` run in this process with the key-value
//! state in a map, the street map's blobs built from the Lanelet2 map and the config given — the
//! code the actors run, without a lattice, Redis or a blobstore.

use std::collections::HashMap;

use cits::pipeline::{flat_key, Services};
use cits::proto::LaneGraph;
use cits::stage::StageError;

pub struct InProcess {
    config: Vec<(String, String)>,
    kv: HashMap<String, Vec<u8>>,
    /// `<container>/<object>`.
    blobs: HashMap<String, Vec<u8>>,
}

impl InProcess {
    /// Services with `config` (a component's wasi:config entries) and the blobs `cits map` would
    /// write for `graph`.
    pub fn new(config: Vec<(String, String)>, graph: &LaneGraph) -> Self {
        let blobs = crate::map::blobs(graph)
            .into_iter()
            .map(|(object, bytes)| (format!("{}/{object}", crate::map::CONTAINER), bytes))
            .collect();
        Self { config, kv: HashMap::new(), blobs }
    }
}

impl Services for InProcess {
    fn config(&mut self) -> Result<Vec<(String, String)>, StageError> {
        Ok(self.config.clone())
    }

    fn get_many(&mut self, bucket: &str, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, StageError> {
        Ok(keys.iter().map(|k| self.kv.get(&flat_key(bucket, k)).cloned()).collect())
    }

    fn set_many(&mut self, bucket: &str, items: Vec<(String, Vec<u8>)>) -> Result<(), StageError> {
        for (k, v) in items {
            self.kv.insert(flat_key(bucket, &k), v);
        }
        Ok(())
    }

    fn read_blob(&mut self, container: &str, object: &str) -> Result<Option<Vec<u8>>, StageError> {
        Ok(self.blobs.get(&format!("{container}/{object}")).cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cits::pipeline::{Cached, Fused, Outcome};

    /// The short recording, made now, through the fused pipeline with the manifest's config (its
    /// limits included) and a registry for its RSU: no frame is refused, and the DENMs are those
    /// of the native evaluation the end-to-end tests compare the lattice's DENMs with.
    #[test]
    fn the_fused_pipeline_refuses_nothing_of_a_recording_and_warns_as_the_evaluation() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let xml = std::fs::read_to_string(root.join("data/map/weiser-gabelsberger.osm")).unwrap();
        let graph = crate::map::lane_graph_from_osm(&xml, "map").unwrap();
        let records = crate::recording::read_file(&root.join("data/short.rec.b64")).unwrap();
        let live = crate::replay::live(&records, 1.0, cits::time::now_us() / 1000);
        let manifest = root.join("wadm/cits-pipeline-fused.yaml");
        let mut config = crate::native::settings_from_manifest(&manifest, "pipeline").unwrap().config;
        config.push(("rsu.rsu1".into(), crate::demo::STATION_ID.to_string()));
        let mut svc = InProcess::new(config, &graph);
        let mut denms = Vec::new();
        for (i, r) in live.records.iter().enumerate() {
            let mut delivery = Cached::new(&mut svc);
            // Received when it arrived, as replayed at the recorded pace.
            match Fused::run(&mut delivery, "cits.cpm.rsu1", &r.cpm, r.timestamp_ms * 1000) {
                Outcome::Processed(out) => denms.extend(
                    out.into_iter().filter(|o| o.subject == cits::subjects::denm_outbox("rsu1")).map(|o| o.body),
                ),
                other => panic!("CPM {i}: {other:?}"),
            }
            delivery.flush().unwrap();
        }
        let native: Vec<Vec<u8>> = crate::evaluate::run(&graph, &live.records)
            .unwrap()
            .iter()
            .map(|d| cits::denm_sender::encode(&d.denm).unwrap())
            .collect();
        assert!(!native.is_empty());
        assert_eq!(denms, native);
    }
}

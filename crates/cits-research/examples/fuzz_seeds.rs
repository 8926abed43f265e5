//! Seeds for the fuzz targets in fuzz/ (`make fuzz`, `make test-fuzz`), made from the recordings in
//! data/ so that the fuzzer starts deep in every stage:
//!
//! ```sh
//! cargo run -p cits-research --example fuzz_seeds -- OUT [MAX_CPMS_PER_RECORDING]
//! ```
//!
//! writes `OUT/data/` (the map's blobs and the fused actor's config from the manifest, which the
//! targets read at start, see `cits_fuzz::data`) and `OUT/seeds/<target>/`: every CPM of the
//! recordings, each stage's input as the stage before it made it, the stored values each stateful
//! stage read back with the frame it read them for, and CPMs one by one and in batches for the
//! fused chain. Each recording runs through the seven stages one delivery at a time, as the
//! seven actors handle it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};
use cits::message::Outbound;
use cits::pipeline::testing::Recording;
use cits::pipeline::InProcess;
use cits::pipeline::{for_each_stage, handle, EachStage, Fused, Handler};
use cits::proto::{BatchedMessage, MessageBatch};
use cits_client::recording::{self, Record};
use etsi_its::cpm::SimpleCpm;
use etsi_its::format::Wire;
use prost::Message as _;

/// The layouts of the targets' inputs, shared with the fuzz targets.
#[allow(dead_code)]
#[path = "../../../fuzz/src/input.rs"]
mod input;

/// CPMs a fused batch seed holds (the messaging provider batches a partition's backlog).
const BATCH: usize = 4;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next().map(PathBuf::from) else {
        bail!("usage: fuzz_seeds OUT [MAX_CPMS_PER_RECORDING]");
    };
    let max_cpms: usize = args.next().map(|n| n.parse()).transpose().context("MAX_CPMS_PER_RECORDING")?.unwrap_or(320);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");

    let xml = std::fs::read_to_string(root.join("data/map/weiser-gabelsberger.osm"))?;
    let graph = cits_map::lane_graph_from_osm(&xml, "map")?;
    let mut recordings = Vec::new();
    for entry in std::fs::read_dir(root.join("data"))? {
        let path = entry?.path();
        if path.to_string_lossy().ends_with(".rec.b64") {
            let mut records = recording::read_file(&path)?;
            records.truncate(max_cpms);
            let name = path.file_name().unwrap_or_default().to_string_lossy().replace(".rec.b64", "");
            recordings.push((name, records));
        }
    }
    recordings.sort_by(|a, b| a.0.cmp(&b.0));

    let data = out.join("data");
    let _ = std::fs::remove_dir_all(&data);
    cits_map::write_blobs(&graph, &data.join("map"))?;
    let config = config(&root, &recordings)?;
    let text: String = config.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
    std::fs::write(data.join("config.txt"), text)?;

    let seeds = Seeds::new(out.join("seeds"))?;
    for (name, records) in &recordings {
        let mut svc = cits_map::in_process(config.clone(), &graph);
        for (i, record) in records.iter().enumerate() {
            let seed = format!("{name}-{i:04}");
            seeds.write("cpm_uper", &seed, &record.cpm)?;
            // Every input format, from every tenth CPM (the formats target's corpus).
            if i % 10 == 0 {
                let simple = SimpleCpm::from_cpm(&etsi_its::cpm::decode(&record.cpm)?)?;
                for wire in Wire::ALL {
                    seeds.write("formats", &format!("{seed}-{}", wire.name()), &wire.encode(&simple)?)?;
                }
            }
            let fused = input::FusedInput { batch: false, redelivered: i % 2 == 1, body: &record.cpm };
            seeds.write("fused", &seed, &fused.to_bytes())?;
            through_the_stages(&mut svc, &seeds, &seed, &record.cpm)?;
        }
        for (i, batch) in records.chunks(BATCH).enumerate() {
            let body = batch_of(batch).encode_to_vec();
            let fused = input::FusedInput { batch: true, redelivered: i % 2 == 1, body: &body };
            seeds.write("fused", &format!("{name}-batch-{i:04}"), &fused.to_bytes())?;
        }
    }
    own_reports(&graph, &seeds)?;
    eprintln!("fuzz seeds of {} recording(s) in {}", recordings.len(), out.display());
    Ok(())
}

/// Road users' own reports for the decoder and the formats target: the CAMs and VAMs of Euro
/// NCAP's right hook filmed with them, in UPER and XER (what the recordings in data/ do not hold).
fn own_reports(graph: &cits::proto::LaneGraph, seeds: &Seeds) -> anyhow::Result<()> {
    use cits_research::sim::ncap::{cases, film_case, Outcome, Shape};
    use cits_research::sim::Conditions;
    let case = cases(graph, &[Shape::RightHook], &[Outcome::Contact])?[0];
    for (condition, ingest) in [("cams-100", recording::Ingest::Cam), ("vams-100", recording::Ingest::Vam)] {
        let records = film_case(graph, &case, 1, Conditions::named(condition)?)?.sim.records;
        for (i, r) in records.iter().filter(|r| r.ingest() == ingest).take(8).enumerate() {
            let xer = match ingest {
                recording::Ingest::Vam => etsi_its::vam::encode_xer(&etsi_its::vam::decode(&r.cpm)?)?,
                _ => etsi_its::cam::encode_xer(&etsi_its::cam::decode(&r.cpm)?)?,
            };
            let name = format!("{}-{i:02}", ingest.name().to_lowercase());
            for target in ["formats", "stage_decoder"] {
                seeds.write(target, &format!("{name}-uper"), &r.cpm)?;
                seeds.write(target, &format!("{name}-xer"), &xer)?;
            }
        }
    }
    Ok(())
}

/// The fused actor's config in the manifest, with the recordings' stations registered for
/// [`input::RSU`] and no age limit (the recordings are years old).
fn config(root: &Path, recordings: &[(String, Vec<Record>)]) -> anyhow::Result<Vec<(String, String)>> {
    let manifest = root.join("wadm/cits-pipeline-fused.yaml");
    let mut config = cits_native::settings_from_manifest(&manifest, Fused::NAME)?.config;
    let stations: BTreeSet<u32> = recordings
        .iter()
        .flat_map(|(_, records)| records)
        .filter_map(|r| etsi_its::cpm::decode(&r.cpm).ok())
        .map(|cpm| cpm.header.station_id.0)
        .collect();
    let stations: Vec<String> = stations.iter().map(u32::to_string).collect();
    config.retain(|(k, _)| k != "limits.max_age_ms");
    config.push((format!("rsu.{}", input::RSU), stations.join(",")));
    // The recordings are the research RSU's: objects in its cameras' frames, as deployed.
    config.push((format!("object_frame.{}", input::RSU), "sensor".into()));
    config.push(("limits.max_age_ms".into(), input::MAX_AGE_MS.into()));
    Ok(config)
}

fn batch_of(records: &[Record]) -> MessageBatch {
    let subject = input::input_subject(cits::stages::decoder::STAGE);
    let messages = records
        .iter()
        .map(|r| BatchedMessage { subject: subject.clone(), body: r.cpm.clone(), ..Default::default() })
        .collect();
    MessageBatch { messages }
}

struct Seeds(PathBuf);

impl Seeds {
    fn new(dir: PathBuf) -> anyhow::Result<Self> {
        let _ = std::fs::remove_dir_all(&dir);
        Ok(Self(dir))
    }

    fn write(&self, target: &str, name: &str, bytes: &[u8]) -> anyhow::Result<()> {
        let dir = self.0.join(target);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(name), bytes).with_context(|| format!("seed {target}/{name}"))
    }
}

/// What one delivery published, and the values its stage read.
type Delivered = anyhow::Result<(Vec<Outbound>, Vec<Option<Vec<u8>>>)>;

/// One stage's delivery (see [`deliver`]).
type Step = fn(&mut InProcess, &[u8]) -> Delivered;

/// One delivery of `body` to stage `H`, recording the values it read back.
fn deliver<H: Handler>(svc: &mut InProcess, body: &[u8]) -> Delivered {
    // As the seven-actor manifest does: the stage is given the keys it declares of the config.
    let own = cits::config::declared_only(H::CONFIG, &svc.config);
    let shared = std::mem::replace(&mut svc.config, own);
    let mut recording = Recording::new(&mut *svc);
    let subject = input::input_subject(H::NAME);
    let handled = handle::<H, _>(&mut recording, &subject, body, &mut |_: &[(String, Outbound)]| Ok(()));
    let values_read = recording.values_read;
    svc.config = shared;
    let handled = handled.map_err(|e| anyhow::anyhow!("{}: {e}", H::NAME))?;
    Ok((handled.outbound.into_iter().map(|(_, o)| o).collect(), values_read))
}

/// The CPM through the seven stages, one delivery each: every stage's input is a seed of its
/// `stage_<name>` target, every stateful stage's reads and input a seed of `state`.
fn through_the_stages(svc: &mut InProcess, seeds: &Seeds, seed: &str, cpm: &[u8]) -> anyhow::Result<()> {
    struct Steps(Vec<(&'static str, Step)>);
    impl EachStage for Steps {
        fn stage<H: Handler>(&mut self) {
            self.0.push((H::NAME, deliver::<H>));
        }
    }
    let mut steps = Steps(Vec::new());
    for_each_stage(&mut steps);
    let steps = steps.0;
    let mut body = cpm.to_vec();
    for (i, (name, step)) in steps.iter().enumerate() {
        seeds.write(&format!("stage_{name}"), seed, &body)?;
        let (outputs, read) = step(svc, &body)?;
        if input::STATEFUL.contains(name) {
            let state = input::StateInput {
                stage: input::STATEFUL.iter().find(|s| *s == name).unwrap(),
                stored: read,
                frame: &body,
            };
            if let Some(bytes) = state.to_bytes() {
                seeds.write("state", &format!("{name}-{seed}"), &bytes)?;
            }
        }
        let Some(next) = steps.get(i + 1).map(|(n, _)| input::input_subject(n)) else { break };
        match outputs.into_iter().find(|o| o.subject == next) {
            Some(out) => body = out.body,
            // Refused (a dead letter): the frame goes no further.
            None => break,
        }
    }
    Ok(())
}

//! The compute floor of a component: what the seven stages cost as code, with no platform around
//! them. A [`Fixture`] holds the fused component's config, the map's blobs and a recording's
//! messages with their arrival times; [`run`] sends every message through [`Fused::run`] (the
//! fused actor's chain, state in memory) and times it. Built natively and for `wasm32-wasip2`
//! (run there by `cits-wasm-floor` on the host's own engine), the same fixture gives the cost
//! of Wasm itself: a CPU target against the native baseline cannot be lower than this ratio.
//! `cits bench floor-fixture` writes a fixture; `make floor` compares the two builds.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use cits::pipeline::{Fused, Handler as _, InProcess, Outcome};
use prost::Message as _;

/// One config entry or one blob.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Entry {
    #[prost(string, tag = "1")]
    pub key: String,
    #[prost(bytes = "vec", tag = "2")]
    pub value: Vec<u8>,
}

/// A message as an RSU sent it, and when it arrived (the decoder's age check reads it).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Arrival {
    #[prost(string, tag = "1")]
    pub subject: String,
    #[prost(bytes = "vec", tag = "2")]
    pub body: Vec<u8>,
    #[prost(uint64, tag = "3")]
    pub arrived_us: u64,
}

/// Everything a run needs, in one protobuf file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Fixture {
    /// The fused component's config entries (wasi:config).
    #[prost(message, repeated, tag = "1")]
    pub config: Vec<Entry>,
    /// The blobstore's objects by [`InProcess::blob_path`].
    #[prost(message, repeated, tag = "2")]
    pub blobs: Vec<Entry>,
    /// In arrival order.
    #[prost(message, repeated, tag = "3")]
    pub messages: Vec<Arrival>,
}

impl Fixture {
    /// The fixture of a pipeline's services (config and blobs, no state) and its input.
    pub fn of(svc: &InProcess, messages: Vec<Arrival>) -> Self {
        let mut blobs: Vec<Entry> =
            svc.blobs.iter().map(|(key, value)| Entry { key: key.clone(), value: value.clone() }).collect();
        // The same fixture for the same input: files can be compared.
        blobs.sort_by(|a, b| a.key.cmp(&b.key));
        let config = svc.config.iter().map(|(k, v)| Entry { key: k.clone(), value: v.clone().into_bytes() }).collect();
        Self { config, blobs, messages }
    }

    pub fn read(bytes: &[u8]) -> Result<Self, String> {
        Self::decode(bytes).map_err(|e| format!("not a floor fixture: {e}"))
    }

    /// Services with this config and these blobs, and no state.
    pub fn services(&self) -> Result<InProcess, String> {
        let config = self
            .config
            .iter()
            .map(|e| {
                Ok((
                    e.key.clone(),
                    String::from_utf8(e.value.clone()).map_err(|_| format!("config `{}` is not UTF-8", e.key))?,
                ))
            })
            .collect::<Result<_, String>>()?;
        let blobs: HashMap<String, Vec<u8>> = self.blobs.iter().map(|e| (e.key.clone(), e.value.clone())).collect();
        Ok(InProcess::new(config, Arc::new(blobs)))
    }
}

/// What one pass over the fixture's messages did and took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pass {
    pub micros: f64,
    /// Outputs of the chain (DENMs and `FrameDone`s), and the DENMs among them: the same in
    /// every build, or the builds did not compute the same thing.
    pub outputs: usize,
    pub denms: usize,
    pub dead_letters: usize,
}

/// Every message of `fixture` through the fused chain, from empty state; fails if a stage
/// could not run in memory.
pub fn pass(fixture: &Fixture) -> Result<Pass, String> {
    let mut svc = fixture.services()?;
    let (mut outputs, mut denms, mut dead_letters) = (0, 0, 0);
    let denm = cits::subjects::denm_outbox("");
    let started = Instant::now();
    for m in &fixture.messages {
        match Fused::run(&mut svc, &m.subject, &m.body, m.arrived_us) {
            Outcome::Processed(out) => {
                outputs += out.len();
                denms += out.iter().filter(|o| o.subject.starts_with(&denm)).count();
            }
            Outcome::DeadLettered { .. } => dead_letters += 1,
            Outcome::Retry(reason) => return Err(format!("{}: {reason}", Fused::NAME)),
        }
    }
    Ok(Pass { micros: started.elapsed().as_secs_f64() * 1e6, outputs, denms, dead_letters })
}

/// `rounds` passes; the median pass's time per message (µs), and the passes.
pub fn run(fixture: &Fixture, rounds: usize) -> Result<(f64, Vec<Pass>), String> {
    let passes = (0..rounds.max(1)).map(|_| pass(fixture)).collect::<Result<Vec<_>, _>>()?;
    let what = |p: &Pass| (p.outputs, p.denms, p.dead_letters);
    if passes.windows(2).any(|w| what(&w[0]) != what(&w[1])) {
        return Err("passes over the same messages gave different outputs".into());
    }
    let mut micros: Vec<f64> = passes.iter().map(|p| p.micros).collect();
    micros.sort_by(f64::total_cmp);
    let median = micros[micros.len() / 2] / fixture.messages.len().max(1) as f64;
    Ok((median, passes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixture_reads_back_as_the_services_it_was_made_of() {
        let mut svc = InProcess::new(vec![("keep_ms".into(), "3000".into())], Arc::default());
        svc.put_blob("cits-map", "lane-graph.pb", vec![1, 2, 3]);
        let messages = vec![Arrival { subject: "cits.cpm.r1".into(), body: vec![9], arrived_us: 5 }];
        let fixture = Fixture::read(&Fixture::of(&svc, messages.clone()).encode_to_vec()).unwrap();
        let back = fixture.services().unwrap();
        assert_eq!(back.config, svc.config);
        assert_eq!(back.blobs, svc.blobs);
        assert_eq!(fixture.messages, messages);
    }

    #[test]
    fn a_message_no_stage_can_read_is_counted_as_a_dead_letter_not_an_output() {
        let svc = InProcess::new(Vec::new(), Arc::default());
        let fixture =
            Fixture::of(&svc, vec![Arrival { subject: "cits.cpm.r1".into(), body: vec![0xff; 7], arrived_us: 1 }]);
        let (_, passes) = run(&fixture, 3).unwrap();
        assert_eq!(passes.len(), 3);
        assert!(passes.iter().all(|p| p.dead_letters == 1 && p.outputs == 0), "{passes:?}");
    }
}

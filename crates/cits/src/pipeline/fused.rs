//! All seven stages in one invocation.

use prost::Message as _;

use super::buckets;
use super::{entries, refused, FrameStage, Handler, Inbound, MapTiles, Outcome, Services};
use crate::config::Declared;
use crate::message::{Outbound, StageError, Traced as _};
use crate::proto::LocationsFrame;
use crate::shared::time::now_us;
use crate::stages::assembler::trajectory_keys;
use crate::stages::collision_detector::intersection_of;
use crate::stages::{Assembler, Collector, CollisionDetector, Decoder, DenmSender, MapMatcher, Predictor};

/// One stage of the chain [`Fused`] runs: its [`Handler::NAME`] and its [`Handler::run`].
pub type Step<V> = (&'static str, fn(&mut V, &str, &[u8], u64) -> Outcome);

/// Something done with each of the seven stages' handler types ([`for_each_stage`]).
pub trait EachStage {
    fn stage<H: Handler>(&mut self);
}

/// Calls `each` with the seven stages in pipeline order: the one list of them.
pub fn for_each_stage(each: &mut impl EachStage) {
    each.stage::<Decoder>();
    each.stage::<Collector>();
    each.stage::<Assembler>();
    each.stage::<MapMatcher>();
    each.stage::<Predictor>();
    each.stage::<CollisionDetector>();
    each.stage::<DenmSender>();
}

/// Every handler a manifest may run, by name, with its declared keys (the seven stages in
/// pipeline order, then [`Fused`]).
pub fn all_declared() -> Vec<(&'static str, Declared)> {
    struct All(Vec<(&'static str, Declared)>);
    impl EachStage for All {
        fn stage<H: Handler>(&mut self) {
            self.0.push((H::NAME, H::CONFIG));
        }
    }
    let mut all = All(Vec::new());
    for_each_stage(&mut all);
    all.0.push((Fused::NAME, Fused::CONFIG));
    all.0
}

/// The stage-config table of docs/deploying.md: every key the seven stages declare, with the
/// components (manifest names) that read it; `pipeline` reads them all.
pub fn config_table() -> String {
    let stages: Vec<(String, Declared)> = all_declared()
        .into_iter()
        .filter(|(name, _)| *name != Fused::NAME)
        .map(|(name, declared)| (name.replace('_', "-"), declared))
        .collect();
    let named: Vec<(&str, Declared)> = stages.iter().map(|(name, declared)| (name.as_str(), *declared)).collect();
    crate::config::markdown_table(&named)
}

/// The stages in pipeline order.
pub fn chain<V: Services>() -> Vec<Step<V>> {
    struct Chain<V>(Vec<Step<V>>);
    impl<V: Services> EachStage for Chain<V> {
        fn stage<H: Handler>(&mut self) {
            self.0.push((H::NAME, H::run::<V>));
        }
    }
    let mut chain = Chain(Vec::with_capacity(7));
    for_each_stage(&mut chain);
    chain.0
}

/// Reads the state the assembler, predictor, detector and DENM sender will need for this frame of located
/// objects, and the copies of the map tiles planned for them, in one call (a miss here only costs the
/// stage its own read).
fn prefetch_state<V: Services>(svc: &mut V, frame: &LocationsFrame) -> Result<(), StageError> {
    let config = svc.config()?;
    let mut keys = trajectory_keys(frame);
    let (intersection, rsus) = intersection_of(&frame.rsu_id, entries(&config));
    keys.extend(
        rsus.iter().map(|rsu| (buckets::PATHS, crate::stages::collision_detector::state_key(&intersection, rsu))),
    );
    keys.push((buckets::TURN_PRIORS, frame.rsu_id.clone()));
    keys.push((buckets::WARNINGS, crate::stages::denm_sender::state_key(&frame.rsu_id)));
    keys.push((buckets::SEQUENCES, crate::stages::denm_sender::state_key(&frame.rsu_id)));
    let points = frame.locations.iter().map(|l| crate::shared::geo::Wgs84 { lat: l.latitude, lon: l.longitude });
    keys.extend(MapTiles::<()>::plan(svc, points));
    svc.prefetch(&keys)
}

/// Stage `S` on the frame the stage before handed over on `subject` at `received_at_us`: the next
/// frame, stamped with `S`'s trace entry, and its subject; or what `S` on its own would have made
/// of a refusal (the dead letter holds the frame as `S`'s input stream would have).
fn hand<S: FrameStage, V: Services>(
    svc: &mut V,
    mut frame: S::Input,
    subject: &str,
    received_at_us: u64,
) -> Result<(S::Output, String), Outcome> {
    match S::next_frame(svc, &mut frame, subject) {
        Ok(mut next) => {
            next.stamp(S::NAME, received_at_us);
            let subject = S::subject(&next);
            Ok((next, subject))
        }
        Err(reason) => Err(refused::<S, _>(reason, subject, || frame.encode_to_vec())),
    }
}

/// All seven stages in one invocation: a CPM in, the DENMs and the `FrameDone` out. Each stage
/// still stamps its trace entry and dead-letters bad input under its own name; the frames between
/// stages are handed over as values (the five in the middle are [`FrameStage`]s) instead of
/// through the broker, and only the small risk frame is encoded for the DENM sender.
pub struct Fused;

impl Fused {
    /// The chain on one message: its outputs, or the outcome of the stage that refused it.
    fn frames<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, Outcome> {
        let (mut wrapper, subject) =
            Decoder::frame(svc, &msg).map_err(|reason| refused::<Decoder, _>(reason, msg.subject, || msg.body))?;
        wrapper.stamp(Decoder::NAME, msg.received_at_us);
        let (locations, subject) = hand::<Collector, V>(svc, wrapper, &subject, now_us())?;
        // State is read ahead once the objects are located, so no later stage reads on its own.
        let handed_at_us = now_us();
        prefetch_state(svc, &locations).map_err(Outcome::Retry)?;
        let (trajectories, subject) = hand::<Assembler, V>(svc, locations, &subject, handed_at_us)?;
        let (matched, subject) = hand::<MapMatcher, V>(svc, trajectories, &subject, now_us())?;
        let (predicted, subject) = hand::<Predictor, V>(svc, matched, &subject, now_us())?;
        let (risks, subject) = hand::<CollisionDetector, V>(svc, predicted, &subject, now_us())?;
        match DenmSender::run(svc, &subject, &risks.encode_to_vec(), now_us()) {
            Outcome::Processed(out) => Ok(out),
            other => Err(other),
        }
    }
}

impl Handler for Fused {
    /// The fused actor's component (`pipeline`), its dead letters' stage when a batch envelope is
    /// broken, its applied markers and message ids.
    const NAME: &'static str = "pipeline";
    const STATEFUL: bool = true;
    /// Every stage's keys: one config serves all seven.
    const CONFIG: Declared = &[
        crate::stages::decoder::registry::KEYS,
        crate::stages::collector::calibration::KEYS,
        crate::stages::assembler::KEYS,
        crate::pipeline::tiles::KEYS,
        crate::stages::predictor::KEYS,
        crate::stages::collision_detector::KEYS,
        crate::stages::denm_sender::KEYS,
        crate::limits::KEYS,
    ];

    /// The chain's outputs, or why a stage did not give them (without the stage's name: [`Fused::run`]
    /// dead-letters under the name of the stage that refused).
    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        match Self::run(svc, msg.subject, msg.body, msg.received_at_us) {
            Outcome::Processed(out) => Ok(out),
            Outcome::DeadLettered { reason, .. } | Outcome::Retry(reason) => Err(reason),
        }
    }

    /// The whole chain, starting with the decoder on `subject`.
    fn run<V: Services>(svc: &mut V, subject: &str, body: &[u8], received_at_us: u64) -> Outcome {
        match Self::frames(svc, Inbound { subject, body, received_at_us }) {
            Ok(out) => Outcome::Processed(out),
            Err(outcome) => outcome,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::*;
    use crate::pipeline::*;
    use crate::shared::time::now_us;

    #[test]
    fn fused_gives_what_the_seven_stages_give_one_after_the_other() {
        let cpm = live_sample();
        let (mut fused_svc, mut staged_svc) = (InMemory::default(), InMemory::default());
        let Outcome::Processed(fused) = Fused::run(&mut fused_svc, "cits.cpm.r1", &cpm, now_us()) else {
            panic!("fused failed")
        };

        let mut input = Outbound { subject: "cits.cpm.r1".into(), body: cpm };
        let mut staged = Vec::new();
        for (name, stage) in chain::<InMemory>() {
            let Outcome::Processed(mut out) = stage(&mut staged_svc, &input.subject, &input.body, now_us()) else {
                panic!("{name} failed")
            };
            input = out.pop().unwrap();
            staged = out;
        }
        staged.push(input);

        assert_eq!(fused.len(), staged.len());
        assert_eq!(fused.last().unwrap().subject, "cits.outbox.done.r1");
        let (fused_done, fused_stages) = stages_of(fused.last().unwrap());
        let (staged_done, staged_stages) = stages_of(staged.last().unwrap());
        assert_eq!(fused_done, staged_done);
        assert_eq!(fused_stages, chain::<InMemory>().iter().map(|(n, _)| n.to_string()).collect::<Vec<_>>());
        assert_eq!(fused_stages, staged_stages);
        assert_eq!(state_of(&fused_svc), state_of(&staged_svc), "same state written");
        assert!(fused_svc.kv.keys().any(|k| k.starts_with("trajectories:")), "{:?}", fused_svc.kv.keys());
    }

    /// A stage in the middle refusing the frame handed to it dead-letters it as it would on its
    /// own: under its name, on its input subject, the frame whole.
    #[test]
    fn a_frame_refused_in_the_middle_is_dead_lettered_whole_under_the_stage_that_refused_it() {
        use crate::proto::{DeadLetter, PredictedPath, PredictedPathFrame, PredictedPosition};
        let position = PredictedPosition { at_us: 1_000, latitude: 47.81, longitude: 13.05, ..Default::default() };
        let path = |object_id| PredictedPath {
            station_id: 1001,
            object_id,
            probability: 1.0,
            positions: vec![position],
            ..Default::default()
        };
        let frame = PredictedPathFrame {
            rsu_id: "r1".into(),
            reference_time_us: 1_000,
            paths: vec![path(1), path(2)],
            frame_id: "f1".into(),
            trace: Vec::new(),
        };
        let config = vec![("rsu.r1".into(), "1001".into()), ("limits.max_paths_per_frame".into(), "1".into())];
        let subject = crate::subjects::predicted("r1");
        let mut svc = InMemory::new(config, Default::default());
        let Err(Outcome::DeadLettered { letter, .. }) =
            hand::<CollisionDetector, _>(&mut svc, frame.clone(), &subject, now_us())
        else {
            panic!("the detector took two paths with a limit of one")
        };
        let letter = DeadLetter::decode(letter.body.as_slice()).unwrap();
        assert_eq!(
            (letter.stage.as_str(), letter.source_subject.as_str()),
            (CollisionDetector::NAME, subject.as_str())
        );
        assert!(letter.reason.contains("paths"), "{}", letter.reason);
        assert_eq!(PredictedPathFrame::decode(letter.payload.as_slice()).unwrap(), frame);
    }
}

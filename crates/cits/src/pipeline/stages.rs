//! The seven stage handlers: decode their input, check it against the limits, call the stage's
//! domain logic, read and write its state through [`Services`].

use prost::Message as _;

use super::{entries, Handler, Inbound, MapTiles, Services};
use crate::assembler::{assemble_frame, state_keys, AssemblerConfig};
use crate::calibration::Calibrations;
use crate::collision::{current_paths, detect, intersection_of, update_paths, DetectorConfig};
use crate::denm_sender::{encode, step, SenderConfig};
use crate::limits::Limits;
use crate::map_matcher::{LaneIndex, MATCH_REACH_M, ROUTE_REACH_M};
use crate::object_frame::ObjectFrames;
use crate::predictor::{learn_and_predict, LaneMap, PredictorConfig};
use crate::proto::{
    cits_message_wrapper, ActiveWarnings, CitsMessageWrapper, CollisionRiskFrame, FrameDone, LocationsFrame,
    MatchedTrajectoryFrame, PredictedPathFrame, RsuPaths, TrajectoryFrame, TurnPriors,
};
use crate::registry::RsuRegistry;
use crate::stage::{decode_input, decode_state_or_empty, Outbound, StageError, Traced as _};
use crate::subjects;

/// Key-value buckets (Redis key prefixes with our provider).
pub mod buckets {
    pub const TRAJECTORIES: &str = "trajectories";
    pub const PATHS: &str = "paths";
    pub const WARNINGS: &str = "warnings";
    /// The DENM sender's next ActionID sequence number per RSU (never expires).
    pub const SEQUENCES: &str = "sequences";
    /// The input each stateful stage applied last, per input subject (see [`super::handle`]).
    pub const APPLIED: &str = "applied";
    /// Copies of the map tiles in the blobstore, by object name (see [`super::MapTiles`]).
    pub const MAP_TILES: &str = "map-tiles";
    /// The turn priors the predictor learned per RSU (see `predictor::priors`).
    pub const TURN_PRIORS: &str = "turn-priors";
}

pub struct Decoder;

impl Handler for Decoder {
    const NAME: &'static str = crate::decoder::STAGE;

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let (_, rsu) = subjects::ingest_of_subject(msg.subject)?;
        let config = svc.config()?;
        let registry = RsuRegistry::from_config(Self::NAME, entries(&config))?;
        // The topic alone tells: bytes of an RSU nobody registered never reach the UPER decoder.
        registry.check_rsu(rsu)?;
        let limits = Limits::from_config(Self::NAME, entries(&config))?;
        let wrapper = crate::decoder::decode(msg.subject, msg.body, msg.received_at_us)?;
        match &wrapper.message {
            Some(cits_message_wrapper::Message::Cpm(cpm)) => {
                registry.check(rsu, cpm.station_id)?;
                limits.check_reference_time(cpm.reference_time_us, msg.received_at_us)?;
                limits.check_cpm(cpm)?;
            }
            // A CAM or VAM is any road user's: its station is not the RSU's to register.
            Some(cits_message_wrapper::Message::Awareness(report)) => {
                limits.check_reference_time(report.generated_at_us, msg.received_at_us)?;
            }
            None => return Err(StageError::new("decoded message is neither a CPM, a CAM nor a VAM")),
        }
        Ok(vec![Outbound {
            subject: subjects::decoded(rsu),
            body: wrapper.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }
}

pub struct Collector;

impl Handler for Collector {
    const INPUT_IS_FRAME: bool = true;
    const NAME: &'static str = crate::collector::STAGE;

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let wrapper: CitsMessageWrapper = decode_input(msg.body, "CitsMessageWrapper")?;
        let config = svc.config()?;
        let limits = Limits::from_config(Self::NAME, entries(&config))?;
        if let Some(cits_message_wrapper::Message::Cpm(cpm)) = &wrapper.message {
            limits.check_cpm(cpm)?;
        }
        let calibrations = Calibrations::from_config(entries(&config))?;
        let frames = ObjectFrames::from_config(Self::NAME, entries(&config))?;
        let frame = crate::collector::collect(&wrapper, &calibrations, &frames)?;
        // Checked as the next stage will (on this stage's input subject, which names the same
        // RSU): no conversion may have turned a position into NaN.
        limits.check_locations(&frame, msg.subject)?;
        Ok(vec![Outbound {
            subject: subjects::locations(&frame.rsu_id),
            body: frame.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }
}

/// Trajectories as binary protobuf in key-value, one key per object, a frame at a time; beside
/// them per RSU the CAM stations heard and their links to sensor tracks (see
/// [`crate::association`]).
pub struct Assembler;

impl Handler for Assembler {
    const INPUT_IS_FRAME: bool = true;
    const STATEFUL: bool = true;
    const NAME: &'static str = crate::assembler::STAGE;

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let frame: LocationsFrame = decode_input(msg.body, "LocationsFrame")?;
        let config = svc.config()?;
        Limits::from_config(Self::NAME, entries(&config))?.check_locations(&frame, msg.subject)?;
        let cfg = AssemblerConfig::from_config(entries(&config))?;
        let keys = state_keys(&frame);
        let stored = svc.get_many(buckets::TRAJECTORIES, &keys)?;
        let (writes, out) = assemble_frame(frame, &keys, stored, &cfg)?;
        svc.set_many(buckets::TRAJECTORIES, writes)?;
        Ok(vec![Outbound {
            subject: subjects::trajectories(&out.rsu_id),
            body: out.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }

    /// Each located object's trajectory (bad input: none, it is refused unread).
    fn state_keys(body: &[u8]) -> Vec<(&'static str, String)> {
        LocationsFrame::decode(body).map_or_else(|_| Vec::new(), |frame| trajectory_keys(&frame))
    }
}

/// The assembler's state for a frame: each located object's trajectory, the RSU's CAM roster and
/// links.
pub(super) fn trajectory_keys(frame: &LocationsFrame) -> Vec<(&'static str, String)> {
    state_keys(frame).into_iter().map(|key| (buckets::TRAJECTORIES, key)).collect()
}

/// Reads only the map tile(s) the frame's trajectories are in, never the whole map.
pub struct MapMatcher;

impl Handler for MapMatcher {
    const INPUT_IS_FRAME: bool = true;
    const NAME: &'static str = crate::map_matcher::STAGE;

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let frame: TrajectoryFrame = decode_input(msg.body, "TrajectoryFrame")?;
        Limits::from_config(Self::NAME, entries(&svc.config()?))?.check_trajectories(&frame, msg.subject)?;
        let mut tiles = MapTiles::restore(svc, Self::NAME, LaneIndex::new, MATCH_REACH_M)?;
        let mut matched = Vec::with_capacity(frame.trajectories.len());
        for t in &frame.trajectories {
            let Some(last) = t.points.last() else { continue };
            matched.push(tiles.at(svc, last.latitude, last.longitude)?.match_trajectory(t));
        }
        tiles.keep(svc);
        let out = MatchedTrajectoryFrame {
            rsu_id: frame.rsu_id.clone(),
            reference_time_us: frame.reference_time_us,
            trajectories: matched,
            frame_id: frame.frame_id,
            trace: frame.trace,
        };
        Ok(vec![Outbound {
            subject: subjects::matched(&out.rsu_id),
            body: out.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }
}

/// The lane graph comes from the map tile(s) under the frame's trajectories.
pub struct Predictor;

impl Handler for Predictor {
    const INPUT_IS_FRAME: bool = true;
    const NAME: &'static str = crate::predictor::STAGE;

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let frame: MatchedTrajectoryFrame = decode_input(msg.body, "MatchedTrajectoryFrame")?;
        let config = svc.config()?;
        Limits::from_config(Self::NAME, entries(&config))?.check_matched(&frame, msg.subject)?;
        let cfg = PredictorConfig::from_config(entries(&config))?;
        let mut maps = MapTiles::restore(svc, Self::NAME, LaneMap::new, ROUTE_REACH_M)?;
        let key = frame.rsu_id.clone();
        let stored = svc.get_many(buckets::TURN_PRIORS, std::slice::from_ref(&key))?;
        let mut priors: TurnPriors = decode_state_or_empty(stored[0].as_deref());
        let (mut paths, mut learned) = (Vec::new(), false);
        for t in &frame.trajectories {
            let Some(last) = t.points.last() else { continue };
            let (predicted, counted) =
                learn_and_predict(maps.at(svc, last.latitude, last.longitude)?, t, &cfg, &mut priors);
            paths.extend(predicted);
            learned |= counted;
        }
        maps.keep(svc);
        // A frame handled twice counts no track twice (the priors remember what they counted).
        if learned {
            svc.set_many(buckets::TURN_PRIORS, vec![(key, crate::encode::encode(&priors))])?;
        }
        // Sent even without paths: the detector's state and the DENM sender's terminations
        // advance with every frame.
        let out = PredictedPathFrame {
            rsu_id: frame.rsu_id.clone(),
            reference_time_us: frame.reference_time_us,
            paths,
            frame_id: frame.frame_id,
            trace: frame.trace,
        };
        Ok(vec![Outbound {
            subject: subjects::predicted(&out.rsu_id),
            body: out.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }
}

/// Each RSU's current paths are one key-value entry of its intersection; a frame rewrites its own
/// RSU's entry and tests the paths of all RSUs there, so objects seen by different RSUs meet.
pub struct CollisionDetector;

impl Handler for CollisionDetector {
    const INPUT_IS_FRAME: bool = true;
    const STATEFUL: bool = true;
    const NAME: &'static str = crate::collision::STAGE;

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let frame: PredictedPathFrame = decode_input(msg.body, "PredictedPathFrame")?;
        let config = svc.config()?;
        let limits = Limits::from_config(Self::NAME, entries(&config))?;
        limits.check_predicted(&frame, msg.subject)?;
        let cfg = DetectorConfig {
            max_pairs: limits.max_pairs_per_frame,
            max_paths: limits.max_paths_per_frame,
            ..DetectorConfig::from_config(entries(&config))?
        };
        let (intersection, rsus) = intersection_of(&frame.rsu_id, entries(&config));
        let keys: Vec<String> = rsus.iter().map(|rsu| crate::collision::state_key(&intersection, rsu)).collect();
        // Paths expire within the TTL anyway: lost state is rebuilt by the next frames.
        let mut states: Vec<RsuPaths> =
            svc.get_many(buckets::PATHS, &keys)?.iter().map(|v| decode_state_or_empty(v.as_deref())).collect();
        // Invariant: `intersection_of` lists the RSU it is asked about (alone, or with the RSUs
        // configured at its intersection, its own entry among them).
        let own = rsus.iter().position(|rsu| *rsu == frame.rsu_id).expect("intersection_of lists the RSU itself");
        let now = frame.reference_time_us;
        update_paths(&mut states[own], frame.paths, now, &cfg);
        let risks = detect(&current_paths(&states, now, &cfg), now, &cfg);
        svc.set_many(buckets::PATHS, vec![(keys[own].clone(), crate::encode::encode(&states[own]))])?;
        let out = CollisionRiskFrame {
            rsu_id: frame.rsu_id,
            reference_time_us: now,
            risks,
            frame_id: frame.frame_id,
            trace: frame.trace,
        };
        Ok(vec![Outbound {
            subject: subjects::risks(&out.rsu_id),
            body: out.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }
}

/// Active warnings per RSU in key-value; DENMs as UPER on `cits.denm.<rsu>` (MQTT
/// `cits/denm/<rsu>`), and every frame ends with a `FrameDone` carrying its full trace.
pub struct DenmSender;

impl Handler for DenmSender {
    const INPUT_IS_FRAME: bool = true;
    const STATEFUL: bool = true;
    const NAME: &'static str = crate::denm_sender::STAGE;

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let frame: CollisionRiskFrame = decode_input(msg.body, "CollisionRiskFrame")?;
        let config = svc.config()?;
        Limits::from_config(Self::NAME, entries(&config))?.check_risks(&frame, msg.subject)?;
        let cfg = SenderConfig::from_config(&frame.rsu_id, entries(&config))?;
        let key = crate::denm_sender::state_key(&frame.rsu_id);
        svc.prefetch(&[(buckets::WARNINGS, key.clone()), (buckets::SEQUENCES, key.clone())])?;
        let stored = svc.get_many(buckets::WARNINGS, std::slice::from_ref(&key))?;
        // Lost warnings only restart with new ActionIDs: the sequence is kept apart, without
        // expiry, so an ActionID is never given twice (warnings expire, the sequence does not).
        let mut state: ActiveWarnings = decode_state_or_empty(stored[0].as_deref());
        let sequence = svc.get_many(buckets::SEQUENCES, std::slice::from_ref(&key))?;
        state.next_sequence = crate::denm_sender::decode_sequence(sequence[0].as_deref())?;
        let now = frame.reference_time_us;
        let denms = step(&mut state, &frame, now, &cfg);
        svc.set_many(buckets::WARNINGS, vec![(key.clone(), crate::encode::encode(&state))])?;
        svc.set_many(buckets::SEQUENCES, vec![(key, crate::denm_sender::encode_sequence(state.next_sequence))])?;
        let mut out = Vec::with_capacity(denms.len() + 1);
        for d in &denms {
            out.push(Outbound { subject: subjects::denm_outbox(&frame.rsu_id), body: encode(d, cfg.denm_version)? });
        }
        let done = FrameDone {
            rsu_id: frame.rsu_id,
            reference_time_us: now,
            risks: frame.risks.len() as u32,
            denms: denms.len() as u32,
            frame_id: frame.frame_id,
            trace: frame.trace,
        };
        out.push(Outbound {
            subject: subjects::done_outbox(&done.rsu_id),
            body: done.stamp_and_encode(Self::NAME, msg.received_at_us),
        });
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::*;
    use crate::pipeline::*;
    use crate::time::now_us;

    /// The reason `S` dead-letters `body` on `subject` with, received now.
    fn refused<S: Handler>(svc: &mut InMemory, subject: &str, body: &[u8]) -> String {
        match S::run(svc, subject, body, now_us()) {
            Outcome::DeadLettered { letter, reason } => {
                assert_eq!(letter.subject, subjects::dead_letter(S::NAME));
                reason.reason
            }
            other => panic!("{} accepted it: {other:?}", S::NAME),
        }
    }

    #[test]
    fn the_decoder_takes_cpms_only_from_registered_stations_of_the_rsu() {
        let mut svc = InMemory::default();
        assert!(matches!(Decoder::run(&mut svc, "cits.cpm.r1", &live_sample(), now_us()), Outcome::Processed(_)));
        assert_eq!(refused::<Decoder>(&mut svc, "cits.cpm.r9", &live_sample()), "unregistered RSU r9");
        // Not even decoded: garbage from an unregistered RSU is refused for that.
        assert_eq!(refused::<Decoder>(&mut svc, "cits.cpm.r9", &[0xff, 0xff]), "unregistered RSU r9");
        svc.config = vec![("rsu.r1".into(), "2001, 2002".into())];
        assert_eq!(
            refused::<Decoder>(&mut svc, "cits.cpm.r1", &live_sample()),
            "station mismatch: station 1001 does not belong to RSU r1"
        );
        svc.config = vec![("rsu.r1".into(), "1001,x".into())];
        assert!(refused::<Decoder>(&mut svc, "cits.cpm.r1", &live_sample()).contains("config `rsu.r1`"));
    }

    #[test]
    fn the_decoder_refuses_cpms_of_another_time_or_beyond_its_limits() {
        let mut svc = InMemory::default();
        // The fixture as recorded (2022).
        let recorded = etsi_its::cpm::encode(&etsi_its::cpm::fixtures::sample().to_cpm()).unwrap();
        assert!(refused::<Decoder>(&mut svc, "cits.cpm.r1", &recorded).contains("s in the past (limit 60 s)"));
        let ahead = sample_sent(0);
        let ahead =
            etsi_its::cpm::SimpleCpm { reference_time_its_ms: ahead.reference_time_its_ms + 3_600_000, ..ahead };
        let ahead = etsi_its::cpm::encode(&ahead.to_cpm()).unwrap();
        assert!(refused::<Decoder>(&mut svc, "cits.cpm.r1", &ahead).starts_with("reference time 3600"));
        let mut crowd = sample_sent(0);
        crowd.objects =
            (0..200).map(|i| etsi_its::cpm::SimpleObject { object_id: i, ..crowd.objects[0].clone() }).collect();
        let crowd = etsi_its::cpm::encode(&crowd.to_cpm()).unwrap();
        assert_eq!(refused::<Decoder>(&mut svc, "cits.cpm.r1", &crowd), "too many objects: 200 > 128");
        // Limits are config: a deployment may allow more.
        svc.config.push(("limits.max_objects_per_cpm".into(), "255".into()));
        assert!(matches!(Decoder::run(&mut svc, "cits.cpm.r1", &crowd, now_us()), Outcome::Processed(_)));
        let mut far = sample_sent(0);
        far.objects[0].x_cm = 40_000;
        let far = etsi_its::cpm::encode(&far.to_cpm()).unwrap();
        assert_eq!(refused::<Decoder>(&mut svc, "cits.cpm.r1", &far), "object 7: 400 m from the sensor (limit 250 m)");
    }

    #[test]
    fn the_collector_refuses_what_it_cannot_place_on_earth() {
        // Within a (silly) sensor range, but 20,000 km east of the reference position: no
        // WGS84 position comes out of that.
        let mut svc = InMemory::default();
        svc.config.push(("limits.max_sensor_range_m".into(), "1e9".into()));
        let Outcome::Processed(mut decoded) = Decoder::run(&mut svc, "cits.cpm.r1", &live_sample(), now_us()) else {
            panic!("not decoded")
        };
        let mut wrapper = CitsMessageWrapper::decode(decoded.remove(0).body.as_slice()).unwrap();
        if let Some(cits_message_wrapper::Message::Cpm(cpm)) = &mut wrapper.message {
            cpm.objects[1].x_cm = 2_000_000_000;
            cpm.objects[1].sensor_id = 0;
        }
        let reason = refused::<Collector>(&mut svc, "cits.decoded.r1", &wrapper.encode_to_vec());
        assert!(reason.starts_with("object 1001/0/255: (") && reason.ends_with("is not a WGS84 position"), "{reason}");
    }

    /// Every stage after the decoder checks the frame it gets, as the previous stage would
    /// never send it.
    #[test]
    fn every_stage_checks_its_input_frame() {
        use crate::proto::{
            CollisionRisk, LocationsContainer, MatchedPoint, MatchedTrajectory, PredictedPath, PredictedPosition,
            Trajectory, TrajectoryPoint,
        };
        let mut svc = InMemory::default();
        let located = LocationsFrame {
            rsu_id: "r1".into(),
            station_id: 1001,
            locations: vec![LocationsContainer { station_id: 1002, ..Default::default() }],
            ..Default::default()
        };
        assert_eq!(
            refused::<Assembler>(&mut svc, "cits.locations.r1", &located.encode_to_vec()),
            "station mismatch: object 1002/0/0 in a frame of station 1001"
        );
        let point = |ms: u64| TrajectoryPoint {
            measured_at_us: ms * 1000,
            latitude: 47.8,
            longitude: 13.0,
            ..Default::default()
        };
        let trajectories = TrajectoryFrame {
            rsu_id: "r1".into(),
            trajectories: vec![Trajectory { points: vec![point(2), point(1)], ..Default::default() }],
            ..Default::default()
        };
        assert!(refused::<MapMatcher>(&mut svc, "cits.trajectories.r1", &trajectories.encode_to_vec())
            .contains("times not increasing"));
        let matched = MatchedTrajectoryFrame {
            rsu_id: "r1".into(),
            trajectories: vec![MatchedTrajectory {
                points: vec![MatchedPoint { offset_m: f64::NAN, ..Default::default() }],
                ..Default::default()
            }],
            ..Default::default()
        };
        assert!(refused::<Predictor>(&mut svc, "cits.matched.r1", &matched.encode_to_vec()).contains("offset"));
        let predicted = PredictedPathFrame {
            rsu_id: "r1".into(),
            paths: vec![PredictedPath {
                probability: 2.0,
                positions: vec![PredictedPosition::default()],
                ..Default::default()
            }],
            ..Default::default()
        };
        assert!(refused::<CollisionDetector>(&mut svc, "cits.predicted.r1", &predicted.encode_to_vec())
            .contains("probability 2"));
        let risks =
            CollisionRiskFrame { rsu_id: "r1".into(), risks: vec![CollisionRisk::default()], ..Default::default() };
        assert!(refused::<DenmSender>(&mut svc, "cits.risks.r1", &risks.encode_to_vec()).contains("road users"));
        // A frame of another RSU than its subject's.
        assert!(refused::<DenmSender>(
            &mut svc,
            "cits.risks.r2",
            &CollisionRiskFrame { rsu_id: "r1".into(), ..Default::default() }.encode_to_vec()
        )
        .starts_with("RSU mismatch"));
    }

    #[test]
    fn bad_input_is_a_dead_letter_of_the_stage_that_got_it() {
        let mut svc = InMemory::default();
        match Assembler::run(&mut svc, "cits.locations.r1", &[0xff, 0xff], 1) {
            Outcome::DeadLettered { letter, reason } => {
                assert_eq!(letter.subject, "cits.dlq.assembler");
                assert!(reason.reason.contains("LocationsFrame"), "{reason}");
            }
            other => panic!("expected a dead letter, got {other:?}"),
        }
        match Fused::run(&mut svc, "cits.cpm.r1", &[0xff, 0xff], 1) {
            Outcome::DeadLettered { letter, .. } => assert_eq!(letter.subject, "cits.dlq.decoder"),
            other => panic!("expected a dead letter, got {other:?}"),
        }
    }

    #[test]
    fn an_unavailable_store_is_a_retry_not_a_dead_letter() {
        let mut svc = InMemory { down: true, ..Default::default() };
        let frame = LocationsFrame { rsu_id: "r1".into(), ..Default::default() };
        let mut frame_with_object = frame.clone();
        frame_with_object.locations.push(Default::default());
        let outcome = Assembler::run(&mut svc, "cits.locations.r1", &frame_with_object.encode_to_vec(), 1);
        assert!(matches!(outcome, Outcome::Retry(_)), "{outcome:?}");
    }

    #[test]
    fn a_map_tile_read_short_is_a_retry_not_the_frames_dead_letter() {
        let mut svc = InMemory { cut_blob_reads: true, ..Default::default() };
        let outcome = Fused::run(&mut svc, "cits.cpm.r1", &live_sample(), now_us());
        match outcome {
            Outcome::Retry(e) => assert!(e.unavailable && e.reason.contains("map tile"), "{e}"),
            other => panic!("expected a retry, got {other:?}"),
        }
    }
}

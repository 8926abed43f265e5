//! The seven stages as message handlers, independent of the platform that runs them.
//!
//! A stage turns one input message into its output messages, using only what [`Services`] gives
//! it (config, key-value batches, read-only blobs). The Wasm actors implement `Services` with WIT
//! imports (`cits-actor`), the native baseline (`cits stage`) with Redis, files and a config map,
//! so the platform comparison runs exactly the same code. [`Fused`] runs all seven in one
//! invocation, for the deployment that keeps every hop but the first and last off the broker.

use std::collections::{BTreeMap, HashMap};

use prost::Message as _;

use crate::assembler::{assemble, key_of, AssemblerConfig};
use crate::calibration::Calibrations;
use crate::collision::{current_paths, detect, intersection_of, update_paths, DetectorConfig};
use crate::denm_sender::{encode, step, SenderConfig};
use crate::limits::Limits;
use crate::map_matcher::{tile_object, LaneIndex, TileCache, MATCH_REACH_M, ROUTE_REACH_M};
use crate::predictor::{predict, LaneMap, PredictorConfig};
use crate::proto::{
    cits_message_wrapper, ActiveWarnings, CitsMessageWrapper, CollisionRiskFrame, FrameDone, LaneGraph, LocationsFrame,
    MatchedTrajectoryFrame, PredictedPathFrame, RsuPaths, TrajectoryFrame,
};
use crate::registry::RsuRegistry;
use crate::stage::{dead_letter, decode_input, decode_state_or_empty, Outbound, StageError, Traced as _};
use crate::subjects;

/// What a stage needs from the platform it runs on. Every failure here is the platform's, not
/// the message's: implementations return [`StageError::unavailable`] so the message is retried.
pub trait Services {
    /// The stage's config entries (wasi:config; named configs of the manifest).
    fn config(&mut self) -> Result<Vec<(String, String)>, StageError>;
    /// The values of `keys` in `bucket`, in the order of `keys` (None where absent).
    fn get_many(&mut self, bucket: &str, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, StageError>;
    fn set_many(&mut self, bucket: &str, items: Vec<(String, Vec<u8>)>) -> Result<(), StageError>;
    /// A whole read-only object, None when the container has no such object.
    fn read_blob(&mut self, container: &str, object: &str) -> Result<Option<Vec<u8>>, StageError>;

    /// Where prepared map tiles outlive one message (for the rest of a batch), if anywhere.
    fn kept(&mut self) -> Option<&mut Kept> {
        None
    }

    /// Reads these (bucket, key) pairs ahead, in one call where the platform can, for the stages
    /// to find later. A hint: platforms without a cache ignore it.
    fn prefetch(&mut self, _keys: &[(&str, String)]) -> Result<(), StageError> {
        Ok(())
    }
}

/// A borrowed platform is one too (so a long-lived service can back one delivery's [`Cached`]).
impl<S: Services + ?Sized> Services for &mut S {
    fn config(&mut self) -> Result<Vec<(String, String)>, StageError> {
        (**self).config()
    }
    fn get_many(&mut self, bucket: &str, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, StageError> {
        (**self).get_many(bucket, keys)
    }
    fn set_many(&mut self, bucket: &str, items: Vec<(String, Vec<u8>)>) -> Result<(), StageError> {
        (**self).set_many(bucket, items)
    }
    fn read_blob(&mut self, container: &str, object: &str) -> Result<Option<Vec<u8>>, StageError> {
        (**self).read_blob(container, object)
    }
    fn kept(&mut self) -> Option<&mut Kept> {
        (**self).kept()
    }
    fn prefetch(&mut self, keys: &[(&str, String)]) -> Result<(), StageError> {
        (**self).prefetch(keys)
    }
}

/// Key `key` of bucket `bucket` as our key-value provider stores it (`bucket:key`), which is the
/// same key of the unnamed bucket: so state of several buckets is read or written in one call.
pub fn flat_key(bucket: &str, key: &str) -> String {
    if bucket.is_empty() {
        key.to_string()
    } else {
        format!("{bucket}:{key}")
    }
}

/// Values prepared once and reused by the later messages of a delivery (one per type).
#[derive(Default)]
pub struct Kept(HashMap<std::any::TypeId, Box<dyn std::any::Any>>);

/// One message as a stage sees it.
pub struct Inbound<'a> {
    pub subject: &'a str,
    pub body: &'a [u8],
    /// Wall clock when the stage got the message (µs since the Unix epoch).
    pub received_at_us: u64,
}

/// A pipeline stage: turns one input message into zero or more output messages.
pub trait Stage {
    /// Stage name: trace entries, dead-letter subject `cits.dlq.<NAME>`, log context.
    const NAME: &'static str;
    /// Whether the stage keeps key-value state, and so must recognise an input it already
    /// applied (see [`handle`]); stateless stages simply compute the same outputs again.
    const STATEFUL: bool = false;

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError>;
}

/// What became of one message.
#[derive(Debug)]
pub enum Outcome {
    /// Processed: publish these.
    Processed(Vec<Outbound>),
    /// Bad input: publish the dead letter (the reason is for the log); the stream goes on.
    DeadLettered { letter: Outbound, reason: StageError },
    /// A service was unavailable: fail the invocation so the message is retried.
    Retry(StageError),
}

/// Runs `S` on one message the way every platform must: bad input becomes a dead letter, an
/// unavailable service a retry.
pub fn run<S: Stage, V: Services>(svc: &mut V, subject: &str, body: &[u8], received_at_us: u64) -> Outcome {
    match S::process(svc, Inbound { subject, body, received_at_us }) {
        Ok(out) => Outcome::Processed(out),
        Err(reason) if reason.unavailable => Outcome::Retry(reason),
        Err(reason) => Outcome::DeadLettered {
            letter: dead_letter(S::NAME, &reason, subject, body, crate::time::now_us()),
            reason,
        },
    }
}

fn entries(config: &[(String, String)]) -> impl Iterator<Item = (&str, &str)> {
    config.iter().map(|(k, v)| (k.as_str(), v.as_str()))
}

/// Street geometry from the blobstore: the map tile under a position, read and prepared (`build`)
/// at most once per delivery, and reused for every position within `reach_m` of its lanelets'
/// edge (see [`TileCache`]); a tile the map has no blob for is prepared from an empty graph.
pub struct MapTiles<T> {
    cache: TileCache<T>,
}

impl<T: 'static> MapTiles<T> {
    /// Blobstore container of the map (written by `cits map`).
    pub const CONTAINER: &'static str = "cits-map";

    /// The tiles an earlier message of this delivery prepared, or none yet.
    pub fn restore<V: Services>(svc: &mut V, build: fn(&LaneGraph) -> T, reach_m: f64) -> Self {
        let kept = svc.kept().and_then(|k| k.0.remove(&std::any::TypeId::of::<Self>()));
        match kept.and_then(|b| b.downcast::<Self>().ok()) {
            Some(tiles) => *tiles,
            None => Self { cache: TileCache::new(build, reach_m) },
        }
    }

    /// Leaves the prepared tiles to the next message of the delivery.
    pub fn keep<V: Services>(self, svc: &mut V) {
        if let Some(kept) = svc.kept() {
            kept.0.insert(std::any::TypeId::of::<Self>(), Box::new(self));
        }
    }

    pub fn at<V: Services>(&mut self, svc: &mut V, latitude: f64, longitude: f64) -> Result<&T, StageError> {
        self.cache.at(crate::geo::Wgs84 { lat: latitude, lon: longitude }, |tile| {
            let object = tile_object(tile);
            match svc.read_blob(Self::CONTAINER, &object)? {
                // The map is ours, not the frame's: a tile that does not decode was read short
                // (seen when nats-server restarted mid-read) or the map is broken. Either way the
                // frame is good and waits for a whole read.
                Some(bytes) => decode_input::<LaneGraph>(&bytes, "LaneGraph map tile")
                    .map_err(|e| StageError::unavailable(format!("map tile {object} (read cut short?): {e}"))),
                None => Ok(LaneGraph::default()),
            }
        })
    }
}

/// Key-value buckets (Redis key prefixes with our provider).
pub mod buckets {
    pub const TRAJECTORIES: &str = "trajectories";
    pub const PATHS: &str = "paths";
    pub const WARNINGS: &str = "warnings";
    /// The DENM sender's next ActionID sequence number per RSU (never expires).
    pub const SEQUENCES: &str = "sequences";
    /// The input each stateful stage applied last, per input subject (see [`super::handle`]).
    pub const APPLIED: &str = "applied";
}

pub struct Decoder;

impl Stage for Decoder {
    const NAME: &'static str = crate::decoder::STAGE;

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let rsu = subjects::rsu_of_cpm_subject(msg.subject)?;
        let config = svc.config()?;
        let registry = RsuRegistry::from_config(Self::NAME, entries(&config))?;
        // The topic alone tells: bytes of an RSU nobody registered never reach the UPER decoder.
        registry.check_rsu(rsu)?;
        let limits = Limits::from_config(Self::NAME, entries(&config))?;
        let wrapper = crate::decoder::decode(msg.subject, msg.body, msg.received_at_us)?;
        let Some(cits_message_wrapper::Message::Cpm(cpm)) = &wrapper.message else {
            return Err(StageError::new("decoded message is not a CPM"));
        };
        registry.check(rsu, cpm.station_id)?;
        limits.check_reference_time(cpm.reference_time_us, msg.received_at_us)?;
        limits.check_cpm(cpm)?;
        Ok(vec![Outbound {
            subject: subjects::decoded(rsu),
            body: wrapper.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }
}

pub struct Collector;

impl Stage for Collector {
    const NAME: &'static str = crate::collector::STAGE;

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let wrapper: CitsMessageWrapper = decode_input(msg.body, "CitsMessageWrapper")?;
        let config = svc.config()?;
        let limits = Limits::from_config(Self::NAME, entries(&config))?;
        if let Some(cits_message_wrapper::Message::Cpm(cpm)) = &wrapper.message {
            limits.check_cpm(cpm)?;
        }
        let calibrations = Calibrations::from_config(entries(&config))?;
        let frame = crate::collector::collect(&wrapper, &calibrations)?;
        // Checked as the next stage will (on this stage's input subject, which names the same
        // RSU): no conversion may have turned a position into NaN.
        limits.check_locations(&frame, msg.subject)?;
        Ok(vec![Outbound {
            subject: subjects::locations(&frame.rsu_id),
            body: frame.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }
}

/// Trajectories as binary protobuf in key-value, one key per object, a frame at a time.
pub struct Assembler;

impl Stage for Assembler {
    const STATEFUL: bool = true;
    const NAME: &'static str = crate::assembler::STAGE;

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let frame: LocationsFrame = decode_input(msg.body, "LocationsFrame")?;
        let config = svc.config()?;
        Limits::from_config(Self::NAME, entries(&config))?.check_locations(&frame, msg.subject)?;
        let cfg = AssemblerConfig::from_config(entries(&config))?;
        let keys: Vec<String> = frame.locations.iter().map(|l| key_of(&frame.rsu_id, l)).collect();
        let stored = svc.get_many(buckets::TRAJECTORIES, &keys)?;
        let (writes, out) = assemble(&frame, &keys, &stored, &cfg)?;
        svc.set_many(buckets::TRAJECTORIES, writes)?;
        Ok(vec![Outbound {
            subject: subjects::trajectories(&out.rsu_id),
            body: out.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }
}

/// Reads only the map tile(s) the frame's trajectories are in, never the whole map.
pub struct MapMatcher;

impl Stage for MapMatcher {
    const NAME: &'static str = crate::map_matcher::STAGE;

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let frame: TrajectoryFrame = decode_input(msg.body, "TrajectoryFrame")?;
        Limits::from_config(Self::NAME, entries(&svc.config()?))?.check_trajectories(&frame, msg.subject)?;
        let mut tiles = MapTiles::restore(svc, LaneIndex::new, MATCH_REACH_M);
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

impl Stage for Predictor {
    const NAME: &'static str = crate::predictor::STAGE;

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let frame: MatchedTrajectoryFrame = decode_input(msg.body, "MatchedTrajectoryFrame")?;
        let config = svc.config()?;
        Limits::from_config(Self::NAME, entries(&config))?.check_matched(&frame, msg.subject)?;
        let cfg = PredictorConfig::from_config(entries(&config))?;
        let mut maps = MapTiles::restore(svc, LaneMap::new, ROUTE_REACH_M);
        let mut paths = Vec::new();
        for t in &frame.trajectories {
            let Some(last) = t.points.last() else { continue };
            paths.extend(predict(maps.at(svc, last.latitude, last.longitude)?, t, &cfg));
        }
        maps.keep(svc);
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

impl Stage for CollisionDetector {
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
        let own = rsus.iter().position(|rsu| *rsu == frame.rsu_id).expect("intersection_of lists the RSU itself");
        let now = frame.reference_time_us;
        update_paths(&mut states[own], frame.paths, now, &cfg);
        let risks = detect(&current_paths(&states, now, &cfg), now, &cfg);
        svc.set_many(buckets::PATHS, vec![(keys[own].clone(), states[own].encode_to_vec())])?;
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

impl Stage for DenmSender {
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
        svc.set_many(buckets::WARNINGS, vec![(key.clone(), state.encode_to_vec())])?;
        svc.set_many(buckets::SEQUENCES, vec![(key, crate::denm_sender::encode_sequence(state.next_sequence))])?;
        let mut out = Vec::with_capacity(denms.len() + 1);
        for d in &denms {
            out.push(Outbound { subject: subjects::denm_outbox(&frame.rsu_id), body: encode(d)? });
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

/// The platform services for one invocation: config and blobs read (and map tiles prepared) once,
/// key-value state read through a cache (ahead of the stages with [`Services::prefetch`]) and
/// written back once, at [`Cached::flush`]. So a batch of messages costs one state read per
/// message with keys not seen yet and one write in all, and a stage sees its own writes of
/// earlier messages of the batch.
pub struct Cached<V> {
    inner: V,
    /// Keys to read along with the next read that goes to the store.
    wanted: Vec<(String, String)>,
    config: Option<Vec<(String, String)>>,
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
    fn config(&mut self) -> Result<Vec<(String, String)>, StageError> {
        if self.config.is_none() {
            self.config = Some(self.inner.config()?);
        }
        Ok(self.config.clone().unwrap_or_default())
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

/// What one delivery (a message or a batch) produced.
#[derive(Debug, Default)]
pub struct Handled {
    /// To publish, in order: outputs and dead letters of every message, each with its message id
    /// (`<input frame>:<stage>:<n>`, the same when the input is delivered again).
    pub outbound: Vec<(String, Outbound)>,
    /// (subject, reason) of each message that became a dead letter, for the log.
    pub rejected: Vec<(String, StageError)>,
    /// Messages skipped because their effects were already committed (a redelivery).
    pub already_applied: usize,
}

/// How a platform publishes one delivery's outputs: returns once all of them are stored (the
/// messaging provider awaits JetStream's acks), or fails so the delivery is retried.
pub type Publish<'a> = &'a mut dyn FnMut(&[(String, Outbound)]) -> Result<(), StageError>;

/// Handles one delivery with `run` (a stage's [`run`] or [`Fused::run`]): a single message, or a
/// [`crate::proto::MessageBatch`] on [`subjects::BATCH`] whose messages are handled one after the
/// other. The order of effects makes a redelivered message harmless:
///
/// 1. compute every message's outputs on state read through a [`Cached`] view (nothing written);
/// 2. `publish` them, each with a message id derived from its input, so JetStream drops the
///    copies a redelivery publishes again;
/// 3. commit the state in one write, together with an "applied" marker per input subject
///    holding the ids of the last inputs applied ([`crate::stage::frame_id`] of subject and bytes);
/// 4. return, after which the provider acknowledges the input.
///
/// A crash before 3 leaves the state as it was: the redelivered input is computed again and its
/// outputs are duplicates that JetStream drops. A crash between 3 and 4 leaves the marker: a
/// stateful stage that finds its input's id there skips it (its outputs were published before
/// the commit); so does an identical message resent by the RSU. An unavailable service fails the
/// delivery before anything was written.
pub fn handle<V: Services>(
    svc: V,
    name: &str,
    stateful: bool,
    run: fn(&mut Cached<V>, &str, &[u8], u64) -> Outcome,
    subject: &str,
    body: &[u8],
    publish: Publish<'_>,
) -> Result<Handled, StageError> {
    let batch = if subject == subjects::BATCH {
        match crate::proto::MessageBatch::decode(body) {
            Ok(batch) => batch.messages,
            Err(e) => {
                let reason = StageError::new(format!("not a protobuf MessageBatch: {e}"));
                let letter = dead_letter(name, &reason, subject, body, crate::time::now_us());
                let id = crate::stage::dead_letter_id(name, subject, body);
                let handled = Handled {
                    outbound: vec![(id, letter)],
                    rejected: vec![(subject.to_string(), reason)],
                    ..Default::default()
                };
                publish(&handled.outbound)?;
                return Ok(handled);
            }
        }
    } else {
        vec![crate::proto::BatchedMessage { subject: subject.to_string(), body: body.to_vec(), msg_id: String::new() }]
    };
    let ids: Vec<String> = batch.iter().map(|m| crate::stage::frame_id(&m.subject, &m.body)).collect();
    let marker = |m: &crate::proto::BatchedMessage| format!("{name}/{}", m.subject);
    // Inputs found applied: the computation starts over without them (rare: only after a crash
    // between commit and acknowledgement), so no state they changed is applied twice.
    let mut skip = vec![false; batch.len()];
    let mut cached = Cached::new(svc);
    'attempt: loop {
        cached.discard();
        if stateful {
            // Read with the stage's own first read: no extra round trip.
            for m in &batch {
                cached.want(buckets::APPLIED, marker(m));
            }
        }
        let mut handled = Handled { already_applied: skip.iter().filter(|s| **s).count(), ..Default::default() };
        for (i, msg) in batch.iter().enumerate() {
            if skip[i] {
                continue;
            }
            let outcome = run(&mut cached, &msg.subject, &msg.body, crate::time::now_us());
            if stateful {
                let stored = match cached.known(buckets::APPLIED, &marker(msg)) {
                    Some(stored) => stored.map(<[u8]>::to_vec),
                    // The stage read nothing (refused its input first): read the marker now.
                    None => cached.get_many(buckets::APPLIED, &[marker(msg)])?.remove(0),
                };
                let applied = Applied::parse(stored.as_deref());
                if applied.contains(&ids[i]) {
                    skip[i] = true;
                    continue 'attempt;
                }
                cached.set_many(buckets::APPLIED, vec![(marker(msg), applied.with(&ids[i]))])?;
            }
            let outputs = match outcome {
                Outcome::Processed(out) => out,
                Outcome::DeadLettered { letter, reason } => {
                    handled.rejected.push((msg.subject.clone(), reason));
                    vec![letter]
                }
                Outcome::Retry(reason) => return Err(reason),
            };
            handled.outbound.extend(output_ids(&ids[i], name, outputs));
        }
        if !handled.outbound.is_empty() {
            publish(&handled.outbound)?;
        }
        cached.flush()?;
        return Ok(handled);
    }
}

/// Each output's message id: the input's id, the stage, the output's subject and its place among
/// that input's outputs on the same subject. Not its place among all outputs: an input handled
/// again against newer state (redelivered after its applied marker rolled off) may add or drop a
/// DENM, and its `FrameDone` must still get the id it had, so the stream drops the copy.
fn output_ids(input_id: &str, stage: &str, outputs: Vec<Outbound>) -> Vec<(String, Outbound)> {
    let mut per_subject: HashMap<String, usize> = HashMap::new();
    outputs
        .into_iter()
        .map(|out| {
            let n = per_subject.entry(out.subject.clone()).or_default();
            let id = format!("{input_id}:{stage}:{}#{n}", out.subject);
            *n += 1;
            (id, out)
        })
        .collect()
}

/// The ids of the last inputs a stateful stage applied from one subject (newest last): enough to
/// recognise any message of a redelivered batch, whose messages are the newest of their subject.
struct Applied(Vec<String>);

impl Applied {
    const KEEP: usize = 64;

    fn parse(stored: Option<&[u8]>) -> Self {
        let text = stored.and_then(|b| std::str::from_utf8(b).ok()).unwrap_or("");
        Self(text.split(',').filter(|s| !s.is_empty()).map(String::from).collect())
    }

    fn contains(&self, id: &str) -> bool {
        self.0.iter().any(|a| a == id)
    }

    fn with(mut self, id: &str) -> Vec<u8> {
        self.0.push(id.to_string());
        let from = self.0.len().saturating_sub(Self::KEEP);
        self.0[from..].join(",").into_bytes()
    }
}

/// One stage of the chain [`Fused`] runs: its name and its [`run`].
pub type Step<V> = (&'static str, fn(&mut V, &str, &[u8], u64) -> Outcome);

/// The stages in pipeline order.
pub fn chain<V: Services>() -> [Step<V>; 7] {
    [
        (Decoder::NAME, run::<Decoder, V>),
        (Collector::NAME, run::<Collector, V>),
        (Assembler::NAME, run::<Assembler, V>),
        (MapMatcher::NAME, run::<MapMatcher, V>),
        (Predictor::NAME, run::<Predictor, V>),
        (CollisionDetector::NAME, run::<CollisionDetector, V>),
        (DenmSender::NAME, run::<DenmSender, V>),
    ]
}

/// Reads the state the assembler, detector and DENM sender will need for this frame of located
/// objects in one call (a miss here only costs the stage its own read).
fn prefetch_state<V: Services>(svc: &mut V, locations: &[u8]) -> Result<(), StageError> {
    let Ok(frame) = LocationsFrame::decode(locations) else { return Ok(()) };
    let config = svc.config()?;
    let mut keys: Vec<(&str, String)> =
        frame.locations.iter().map(|l| (buckets::TRAJECTORIES, key_of(&frame.rsu_id, l))).collect();
    let (intersection, rsus) = intersection_of(&frame.rsu_id, entries(&config));
    keys.extend(rsus.iter().map(|rsu| (buckets::PATHS, crate::collision::state_key(&intersection, rsu))));
    keys.push((buckets::WARNINGS, crate::denm_sender::state_key(&frame.rsu_id)));
    keys.push((buckets::SEQUENCES, crate::denm_sender::state_key(&frame.rsu_id)));
    svc.prefetch(&keys)
}

/// All seven stages in one invocation: a CPM in, the DENMs and the `FrameDone` out. Each stage
/// still stamps its trace entry and dead-letters bad input under its own name; the messages
/// between stages are handed over in memory instead of through the broker.
pub struct Fused;

impl Fused {
    /// Like [`run`] for the whole chain, starting with the decoder on `subject`.
    pub fn run<V: Services>(svc: &mut V, subject: &str, body: &[u8], received_at_us: u64) -> Outcome {
        let chain = chain::<V>();
        let mut input = Outbound { subject: subject.to_string(), body: body.to_vec() };
        let mut received_at_us = received_at_us;
        for (i, (name, stage)) in chain.iter().enumerate() {
            let mut out = match stage(svc, &input.subject, &input.body, received_at_us) {
                Outcome::Processed(out) => out,
                other => return other,
            };
            if i + 1 == chain.len() {
                return Outcome::Processed(out);
            }
            // Every stage but the last has exactly one output: the next stage's input.
            input = match out.pop() {
                Some(next) if out.is_empty() => next,
                _ => unreachable!("stage {name} has one output"),
            };
            if *name == Collector::NAME {
                if let Err(e) = prefetch_state(svc, &input.body) {
                    return Outcome::Retry(e);
                }
            }
            received_at_us = crate::time::now_us();
        }
        unreachable!("the chain is not empty")
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::time::now_us;

    #[test]
    fn an_outputs_message_id_does_not_depend_on_the_other_outputs() {
        let done = Outbound { subject: "cits.outbox.done.r1".into(), body: vec![1] };
        let denm = Outbound { subject: "cits.outbox.denm.r1".into(), body: vec![2] };
        let alone = output_ids("f1", "pipeline", vec![done.clone()]);
        let after_two_denms = output_ids("f1", "pipeline", vec![denm.clone(), denm, done]);
        assert_eq!(alone[0].0, after_two_denms[2].0, "the FrameDone keeps its id");
        assert_ne!(after_two_denms[0].0, after_two_denms[1].0, "two DENMs of one frame differ");
        assert_ne!(output_ids("f2", "pipeline", alone.into_iter().map(|o| o.1).collect())[0].0, after_two_denms[2].0);
    }

    /// Services on plain maps, as a test double for the platform.
    struct InMemory {
        config: Vec<(String, String)>,
        kv: HashMap<String, Vec<u8>>,
        blobs: HashMap<String, Vec<u8>>,
        down: bool,
        fail_next_set: bool,
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
    fn sample_sent(ago_ms: u64) -> etsi_its::cpm::SimpleCpm {
        let mut cpm = etsi_its::cpm::fixtures::sample();
        cpm.reference_time_its_ms = crate::time::unix_us_to_its_ms(crate::time::now_us() - ago_ms * 1000);
        cpm
    }

    fn live_sample() -> Vec<u8> {
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
    struct Counting {
        store: InMemory,
        gets: usize,
        sets: usize,
        blob_reads: usize,
    }

    impl Services for Counting {
        fn config(&mut self) -> Result<Vec<(String, String)>, StageError> {
            self.store.config()
        }
        fn get_many(&mut self, bucket: &str, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, StageError> {
            self.gets += 1;
            self.store.get_many(bucket, keys)
        }
        fn set_many(&mut self, bucket: &str, items: Vec<(String, Vec<u8>)>) -> Result<(), StageError> {
            self.sets += 1;
            self.store.set_many(bucket, items)
        }
        fn read_blob(&mut self, container: &str, object: &str) -> Result<Option<Vec<u8>>, StageError> {
            self.blob_reads += 1;
            self.store.read_blob(container, object)
        }
    }

    /// Five CPMs of one RSU as a provider batch, the same objects moving on.
    fn cpm_batch() -> crate::proto::MessageBatch {
        let mut cpm = sample_sent(1000);
        let messages = (0..5)
            .map(|_| {
                cpm.reference_time_its_ms += 100;
                for o in &mut cpm.objects {
                    o.x_cm += 50;
                }
                crate::proto::BatchedMessage {
                    subject: "cits.cpm.r1".into(),
                    body: etsi_its::cpm::encode(&cpm.to_cpm()).unwrap(),
                    msg_id: String::new(),
                }
            })
            .collect();
        crate::proto::MessageBatch { messages }
    }

    /// One delivery through the fused chain; what it published is appended to `published`.
    fn deliver<V: Services>(
        svc: V,
        subject: &str,
        body: &[u8],
        published: &mut Vec<(String, Outbound)>,
    ) -> Result<Handled, StageError> {
        handle(svc, "pipeline", true, Fused::run, subject, body, &mut |out: &[(String, Outbound)]| {
            published.extend_from_slice(out);
            Ok(())
        })
    }

    /// Each message delivered on its own, in order.
    fn deliver_each(
        store: &mut InMemory,
        messages: &[crate::proto::BatchedMessage],
        published: &mut Vec<(String, Outbound)>,
    ) {
        for m in messages {
            deliver(&mut *store, &m.subject, &m.body, published).unwrap();
        }
    }

    fn done(out: &[(String, Outbound)]) -> Vec<(FrameDone, Vec<String>)> {
        out.iter().map(|(_, o)| o).filter(|o| o.subject == "cits.outbox.done.r1").map(stages_of).collect()
    }

    #[test]
    fn a_batch_gives_what_its_messages_give_one_by_one_with_one_write_back() {
        let batch = cpm_batch();
        let mut batched = Counting::default();
        let out = deliver(&mut batched, subjects::BATCH, &batch.encode_to_vec(), &mut Vec::new()).unwrap();
        let mut single = Counting::default();
        let mut singles = Vec::new();
        for m in &batch.messages {
            deliver(&mut single, &m.subject, &m.body, &mut singles).unwrap();
        }
        let ids = |out: &[(String, Outbound)]| -> Vec<String> { out.iter().map(|(id, _)| id.clone()).collect() };
        assert_eq!(ids(&out.outbound), ids(&singles), "message ids depend on the input only");
        assert_eq!(done(&out.outbound).len(), 5);
        assert_eq!(done(&out.outbound), done(&singles));
        assert_eq!(batched.store.kv, single.store.kv, "same state in the store");
        // All state read ahead in one call and written back in one, one tile read.
        assert_eq!((batched.gets, batched.sets), (1, 1));
        assert_eq!(batched.blob_reads, 1);
        assert_eq!((single.gets, single.sets), (5, 5), "one read and one write per message delivered alone");
    }

    #[test]
    fn prepared_tiles_are_kept_for_the_rest_of_the_delivery() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static BUILDS: AtomicUsize = AtomicUsize::new(0);
        fn build(_: &LaneGraph) -> usize {
            BUILDS.fetch_add(1, Ordering::SeqCst)
        }
        let message = |svc: &mut Cached<InMemory>| {
            let mut tiles = MapTiles::restore(svc, build, MATCH_REACH_M);
            tiles.at(svc, 47.8101, 13.0518).unwrap();
            tiles.keep(svc);
        };
        let mut delivery = Cached::new(InMemory::default());
        for _ in 0..3 {
            message(&mut delivery);
        }
        assert_eq!(BUILDS.load(Ordering::SeqCst), 1);
        // A service with no place to keep them prepares them for each message.
        let mut plain = InMemory::default();
        for _ in 0..2 {
            let mut tiles = MapTiles::restore(&mut plain, build, MATCH_REACH_M);
            tiles.at(&mut plain, 47.8101, 13.0518).unwrap();
            tiles.keep(&mut plain);
        }
        assert_eq!(BUILDS.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn an_unavailable_store_fails_the_whole_batch_before_any_write() {
        let batch = cpm_batch();
        let mut down = Counting { store: InMemory { down: true, ..Default::default() }, ..Default::default() };
        let mut published = Vec::new();
        let err = deliver(&mut down, subjects::BATCH, &batch.encode_to_vec(), &mut published).unwrap_err();
        assert!(err.unavailable);
        assert_eq!(down.sets, 0);
        assert!(published.is_empty(), "nothing published for a delivery that will be retried");
        // A broken envelope is a dead letter, not a retry.
        let out = deliver(&mut down, subjects::BATCH, &[0xff, 0xff], &mut published).unwrap();
        assert_eq!(out.outbound[0].1.subject, "cits.dlq.pipeline");
        assert_eq!(published.len(), 1);
    }

    #[test]
    fn a_failed_publish_commits_no_state() {
        let batch = cpm_batch();
        let mut store = Counting::default();
        let m = &batch.messages[0];
        let err =
            handle(&mut store, "pipeline", true, Fused::run, &m.subject, &m.body, &mut |_: &[(String, Outbound)]| {
                Err(StageError::unavailable("JetStream unavailable"))
            })
            .unwrap_err();
        assert!(err.unavailable);
        assert_eq!(store.sets, 0, "state is committed only after the outputs are stored");
    }

    #[test]
    fn a_redelivery_after_the_commit_is_skipped_and_publishes_nothing() {
        let batch = cpm_batch();
        let mut store = InMemory::default();
        deliver_each(&mut store, &batch.messages, &mut Vec::new());
        let committed = store.kv.clone();
        // The provider died before acknowledging the last message: it comes again.
        let last = batch.messages.last().unwrap();
        let mut again = Vec::new();
        let handled = deliver(&mut store, &last.subject, &last.body, &mut again).unwrap();
        assert_eq!(handled.already_applied, 1);
        assert!(again.is_empty(), "its outputs were published before the commit");
        assert_eq!(store.kv, committed, "no state applied twice");
        // A batch whose first messages were applied goes on with the rest, as if delivered anew.
        let mut fresh = InMemory::default();
        let mut reference = Vec::new();
        deliver(&mut fresh, subjects::BATCH, &batch.encode_to_vec(), &mut reference).unwrap();
        let mut partial = InMemory::default();
        let mut published = Vec::new();
        deliver_each(&mut partial, &batch.messages[..2], &mut published);
        let handled = deliver(&mut partial, subjects::BATCH, &batch.encode_to_vec(), &mut published).unwrap();
        assert_eq!(handled.already_applied, 2);
        assert_eq!(partial.kv, fresh.kv);
        assert_eq!(done(&published), done(&reference));
    }

    #[test]
    fn a_redelivery_before_the_commit_publishes_the_same_ids_and_applies_state_once() {
        let batch = cpm_batch();
        let mut reference = InMemory::default();
        let mut expected = Vec::new();
        deliver_each(&mut reference, &batch.messages, &mut expected);
        // The last message's outputs are published, then the store fails before the commit.
        let mut store = InMemory::default();
        let mut published = Vec::new();
        let (last, first) = batch.messages.split_last().unwrap();
        deliver_each(&mut store, first, &mut published);
        store.fail_next_set = true;
        assert!(deliver(&mut store, &last.subject, &last.body, &mut published).is_err());
        deliver(&mut store, &last.subject, &last.body, &mut published).unwrap();
        assert_eq!(store.kv, reference.kv, "state as if delivered once");
        // JetStream keeps the first of each message id: what it stores equals one clean run.
        let mut seen = std::collections::HashSet::new();
        let stored: Vec<(String, Outbound)> = published.into_iter().filter(|(id, _)| seen.insert(id.clone())).collect();
        assert_eq!(
            stored.iter().map(|(id, _)| id).collect::<Vec<_>>(),
            expected.iter().map(|(id, _)| id).collect::<Vec<_>>()
        );
        assert_eq!(done(&stored), done(&expected));
    }

    /// Found by fuzzing (fuzz/, target `fused`: a recorded CPM mutated until the decoder refused
    /// it). A message refused before its stage read any state left the applied marker of its
    /// subject unread, and `handle` wrote it as if it had been empty: the ids of the inputs applied
    /// before were lost, so one of them redelivered after a crash would be applied twice.
    #[test]
    fn a_message_refused_before_any_read_keeps_the_applied_marker() {
        const REFUSED: &[u8] = &[
            0x02, 0x0e, 0x00, 0x00, 0x03, 0xe9, 0x02, 0x26, 0xfd, 0x0d, 0xdf, 0xf6, 0x91, 0x21, 0x38, 0x43, 0x98, 0x8a,
            0xef, 0x87, 0xff, 0xff, 0xff, 0x08, 0xed, 0xdd, 0x0f, 0x92, 0x04, 0x00, 0x00, 0x43, 0x00, 0x45, 0x00, 0x18,
            0x0d, 0xa0, 0x30, 0x00, 0x0b, 0xec, 0x21, 0x15, 0x50, 0x13, 0x7e, 0xb5, 0x00, 0x4e, 0x7b, 0x69, 0xfa, 0x12,
            0x57, 0xe1, 0x51, 0xbf, 0x00, 0x01, 0x00, 0xb6, 0x5a, 0x03, 0x00, 0x00, 0x3e, 0xc1, 0xfe, 0x7d, 0x01, 0x37,
            0xda, 0x84, 0x04, 0xe8, 0x27, 0xbf, 0xa0, 0x9e, 0xfe, 0x07, 0x0b, 0xf0, 0x00, 0x10, 0x24, 0x6c, 0xb4, 0x06,
            0x00, 0x02, 0x7d, 0xe9, 0x02, 0x26, 0xfd, 0x0e, 0x00, 0x32, 0x91, 0x21, 0x38, 0x43, 0x98, 0x8a, 0xef, 0x87,
            0xff, 0xff, 0xff, 0x08, 0xed, 0xdd, 0x0f, 0x92, 0x04, 0x00, 0x00, 0x23, 0x00, 0x46, 0x90, 0x20, 0x11, 0xa0,
            0x30, 0x05, 0x3b, 0xec, 0x20, 0x72, 0x30, 0x1d, 0x80, 0x11, 0x80, 0x76, 0x80, 0x3d, 0xf9, 0xed, 0x4f, 0xe2,
            0xac, 0x3f, 0x00, 0x00, 0x80, 0xb5, 0x5a, 0x03, 0x00, 0x55, 0x3e, 0xc2, 0x09, 0xff, 0x01, 0xd8, 0x09, 0x78,
            0x07, 0x67, 0x72, 0xff, 0xa1, 0x86, 0xfe, 0x16, 0xd7, 0xf0, 0x00, 0x08, 0x0b, 0x59, 0xa0, 0x30, 0x05, 0x63,
            0xec, 0x20, 0x2f, 0x90, 0x1d, 0x81, 0x0a, 0x00, 0x76, 0x82, 0x33, 0xf9, 0xf6, 0x6f, 0xe3, 0x12, 0x7f, 0x00,
            0x00, 0x82, 0x46, 0xdb, 0x40, 0x60, 0x0a, 0xd7, 0xd8, 0x42, 0x71, 0xe0, 0x3b, 0x06, 0x24, 0x00, 0xec, 0xfa,
            0x5f, 0xf3, 0xe9, 0xff, 0xc4, 0x6e, 0x7e, 0x00, 0x84, 0x16, 0xfa, 0x02, 0x70, 0x24, 0x50, 0x09, 0xd0, 0x18,
            0xbf, 0x3f, 0x9c, 0xfc, 0x62, 0x77, 0xe0, 0x00, 0x20, 0x41, 0xb2, 0x00,
        ];
        let good = &cpm_batch().messages[0];
        let mut store = InMemory::default();
        deliver(&mut store, &good.subject, &good.body, &mut Vec::new()).unwrap();
        let refused = deliver(&mut store, &good.subject, REFUSED, &mut Vec::new()).unwrap();
        assert_eq!(refused.rejected[0].1.reason, "invalid UPER CPM: CPM: 131 trailing byte(s) after the encoding");
        for body in [good.body.as_slice(), REFUSED] {
            let again = deliver(&mut store, &good.subject, body, &mut Vec::new()).unwrap();
            assert_eq!(again.already_applied, 1, "a redelivery is recognised");
            assert!(again.outbound.is_empty(), "its outputs were published before the commit");
        }
    }

    /// The reason `S` dead-letters `body` on `subject` with, received now.
    fn refused<S: Stage>(svc: &mut InMemory, subject: &str, body: &[u8]) -> String {
        match run::<S, _>(svc, subject, body, now_us()) {
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
        assert!(matches!(run::<Decoder, _>(&mut svc, "cits.cpm.r1", &live_sample(), now_us()), Outcome::Processed(_)));
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
        assert!(matches!(run::<Decoder, _>(&mut svc, "cits.cpm.r1", &crowd, now_us()), Outcome::Processed(_)));
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
        let Outcome::Processed(mut decoded) = run::<Decoder, _>(&mut svc, "cits.cpm.r1", &live_sample(), now_us())
        else {
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
        match run::<Assembler, _>(&mut svc, "cits.locations.r1", &[0xff, 0xff], 1) {
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
        let outcome = run::<Assembler, _>(&mut svc, "cits.locations.r1", &frame_with_object.encode_to_vec(), 1);
        assert!(matches!(outcome, Outcome::Retry(_)), "{outcome:?}");
    }

    /// Blob reads cut short (as when nats-server restarted mid-read).
    struct ShortReads(InMemory);

    impl Services for ShortReads {
        fn config(&mut self) -> Result<Vec<(String, String)>, StageError> {
            self.0.config()
        }
        fn get_many(&mut self, bucket: &str, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, StageError> {
            self.0.get_many(bucket, keys)
        }
        fn set_many(&mut self, bucket: &str, items: Vec<(String, Vec<u8>)>) -> Result<(), StageError> {
            self.0.set_many(bucket, items)
        }
        fn read_blob(&mut self, _container: &str, _object: &str) -> Result<Option<Vec<u8>>, StageError> {
            // A length-delimited field whose announced length the bytes do not reach.
            Ok(Some(vec![0x0a, 0x40, 0x01]))
        }
    }

    #[test]
    fn a_map_tile_read_short_is_a_retry_not_the_frames_dead_letter() {
        let outcome = Fused::run(&mut ShortReads(InMemory::default()), "cits.cpm.r1", &live_sample(), now_us());
        match outcome {
            Outcome::Retry(e) => assert!(e.unavailable && e.reason.contains("map tile"), "{e}"),
            other => panic!("expected a retry, got {other:?}"),
        }
    }

    /// The trace without its clock readings.
    fn stages_of(done: &Outbound) -> (FrameDone, Vec<String>) {
        let mut done = FrameDone::decode(done.body.as_slice()).unwrap();
        let stages = done.trace.drain(..).map(|t| t.stage).collect();
        (done, stages)
    }

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
        assert_eq!(fused_stages, chain::<InMemory>().map(|(n, _)| n.to_string()));
        assert_eq!(fused_stages, staged_stages);
        assert_eq!(fused_svc.kv, staged_svc.kv, "same state written");
        assert!(fused_svc.kv.keys().any(|k| k.starts_with("trajectories:")), "{:?}", fused_svc.kv.keys());
    }
}

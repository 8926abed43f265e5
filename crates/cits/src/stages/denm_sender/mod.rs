//! DENM sender logic: collision risks → DENMs (EN 302 637-3) with a lifecycle per risk.
//!
//! Each ongoing risk (object pair) owns one ActionID (RSU station id + sequence number): a new
//! risk gets a new DENM, a persisting risk an update with the same ActionID only when it changed
//! noticeably or the repetition interval passed (no duplicates), and a risk that disappeared a
//! termination (isCancellation). The active warnings are the stage's key-value state.
//!
//! Two stages in one lifecycle (the detector's policy, `collision::policy`): an *information*
//! DENM is sent with informationQuality 1 (the lowest, TS 102 894-2: "lowest quality"), a
//! *warning* with 2–7 by its probability. An information whose risk becomes a warning is updated
//! under the same ActionID at once; a warning stays one while its risk is still reported, even as
//! information (hysteresis), and is terminated once the risk is gone (the car seen to yield takes
//! the probability below the information bar).

use etsi_its::denm::{DenmVersion, RelevanceDistance, SimpleDenm};

use crate::config::{Key, Kind};
use crate::message::StageError;
use crate::proto::{ActiveWarning, ActiveWarnings, CollisionRisk, CollisionRiskFrame, RiskStage, TravelMode};
use crate::shared::geo::{distance, wgs84_to_offset, Wgs84};
use crate::shared::time::unix_us_to_its_ms;

mod handler;
mod limits;

pub use handler::DenmSender;

pub const STAGE: &str = "denm_sender";

/// CauseCodeType collisionRisk and its sub-causes (EN 302 637-3 / TS 102 894-2).
pub const CAUSE_COLLISION_RISK: u8 = 97;
pub const SUB_CAUSE_CROSSING: u8 = 2;
pub const SUB_CAUSE_VRU: u8 = 4;
/// StationType roadSideUnit.
pub const STATION_TYPE_RSU: u8 = 15;
/// The informationQuality of an information DENM; warnings have more.
pub const INFORMATION_QUALITY_INFORMATION: u8 = 1;

/// Whether a DENM this stage sent is a warning (not an information, not a termination).
pub fn is_warning(d: &SimpleDenm) -> bool {
    d.termination.is_none() && d.information_quality > INFORMATION_QUALITY_INFORMATION
}

#[derive(Debug, Clone, PartialEq)]
pub struct SenderConfig {
    /// The RSU's station id: originator of the DENMs' ActionIDs.
    pub station_id: u32,
    /// A persisting risk is re-sent at least this often.
    pub repetition_us: u64,
    /// ... and sooner when its conflict point moved this far,
    pub moved_m: f64,
    /// ... or its time to collision changed by this much beyond the elapsed time.
    pub ttc_change_s: f64,
    /// A risk reported within this distance and expected-time of an active warning is that
    /// warning (the same conflict seen by the other camera, or after a track break).
    pub same_conflict_m: f64,
    pub same_conflict_us: u64,
    /// A warning ends when its risk has not been reported for this long (no flapping).
    pub absent_grace_us: u64,
    /// The DENM release the RSU is sent (`denm_version`, or `denm_version.<rsu>` for this RSU).
    pub denm_version: DenmVersion,
}

/// The DENM sender's keys ([`SenderConfig::from_config`]).
pub const KEYS: &[Key] = &[
    Key {
        name: "station_id",
        kind: Kind::Count,
        default: "1001",
        doc: "the RSU's station id: originator of the DENMs' ActionIDs",
    },
    Key { name: "station_id.<rsu>", kind: Kind::Count, default: "", doc: "RSU `<rsu>`'s own (wins over `station_id`)" },
    Key {
        name: "denm_version",
        kind: Kind::Text,
        default: "1.3.1",
        doc: "`1.3.1` (EN 302 637-3 V1.3.1) or `2.2.1` (TS 103 831 V2.2.1): identical octets for these DENMs",
    },
    Key {
        name: "denm_version.<rsu>",
        kind: Kind::Text,
        default: "",
        doc: "RSU `<rsu>`'s own (wins over `denm_version`)",
    },
    Key {
        name: "repetition_ms",
        kind: Kind::Millis,
        default: "1000",
        doc: "a persisting risk is sent again at least this often",
    },
    Key {
        name: "absent_grace_ms",
        kind: Kind::Millis,
        default: "500",
        doc: "a warning ends when its risk has not been reported for this long",
    },
];

impl Default for SenderConfig {
    fn default() -> Self {
        Self {
            station_id: 1001,
            repetition_us: 1_000_000,
            moved_m: 2.0,
            ttc_change_s: 0.5,
            same_conflict_m: 6.0,
            same_conflict_us: 1_500_000,
            absent_grace_us: 500_000,
            denm_version: DenmVersion::default(),
        }
    }
}

impl SenderConfig {
    /// Reads `station_id` and `denm_version` (each also as `<key>.<rsu>` for this RSU, which
    /// wins), `repetition_ms`, `absent_grace_ms`; others keep defaults.
    pub fn from_config<'a>(
        rsu: &str,
        entries: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, crate::message::StageError> {
        let mut cfg = Self::default();
        let (mut own_station, mut own_version) = (None, None);
        for e in crate::config::entries(STAGE, entries) {
            match e.key {
                "station_id" => cfg.station_id = station_id(&e)?,
                "denm_version" => cfg.denm_version = denm_version(&e)?,
                "repetition_ms" => cfg.repetition_us = e.millis_as_us()?,
                "absent_grace_ms" => cfg.absent_grace_us = e.millis_as_us()?,
                k if k.strip_prefix("station_id.") == Some(rsu) => own_station = Some(station_id(&e)?),
                k if k.strip_prefix("denm_version.") == Some(rsu) => own_version = Some(denm_version(&e)?),
                _ => {}
            }
        }
        cfg.station_id = own_station.unwrap_or(cfg.station_id);
        cfg.denm_version = own_version.unwrap_or(cfg.denm_version);
        Ok(cfg)
    }
}

/// StationID is 0..4294967295 in the DENM's ActionID.
fn station_id(e: &crate::config::Entry<'_>) -> Result<u32, crate::message::StageError> {
    u32::try_from(e.positive_u64()?)
        .map_err(|_| crate::message::StageError::new(format!("{STAGE} config `{}` exceeds a StationID", e.key)))
}

fn denm_version(e: &crate::config::Entry<'_>) -> Result<DenmVersion, crate::message::StageError> {
    e.value.parse().map_err(|err| crate::message::StageError::new(format!("{STAGE} config `{}`: {err}", e.key)))
}

/// A DENM as sent: UPER, EN 302 637-3 V1.3.1 or TS 103 831 V2.2.1.
pub fn encode(d: &SimpleDenm, version: DenmVersion) -> Result<Vec<u8>, crate::message::StageError> {
    version.encode(d).map_err(|e| {
        crate::message::StageError::new(format!("DENM for ActionID {}/{}: {e}", d.station_id, d.sequence_number))
    })
}

/// Key-value key of an RSU's active warnings.
pub fn state_key(rsu: &str) -> String {
    rsu.to_string()
}

/// The stored next ActionID sequence number (decimal text), 0 when none is stored yet.
pub fn decode_sequence(stored: Option<&[u8]>) -> Result<u32, StageError> {
    let Some(bytes) = stored else { return Ok(0) };
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .filter(|n| *n < 65_536)
        .ok_or_else(|| StageError::unavailable(format!("stored DENM sequence {bytes:?} is not a number below 65536")))
}

pub fn encode_sequence(next: u32) -> Vec<u8> {
    next.to_string().into_bytes()
}

/// The key of a risk: its object pair (the detector orders the pair).
pub fn risk_key(r: &CollisionRisk) -> String {
    let id = |o: &Option<crate::proto::ObjectRef>| {
        o.as_ref().map(|o| format!("{}/{}/{}", o.station_id, o.object_id, o.generation)).unwrap_or_default()
    };
    format!("{}-{}", id(&r.first), id(&r.second))
}

fn is_vru(o: &Option<crate::proto::ObjectRef>) -> bool {
    o.as_ref().is_some_and(|o| o.mode == TravelMode::Bicycle as i32 || o.mode == TravelMode::Pedestrian as i32)
}

fn denm(cfg: &SenderConfig, w: &ActiveWarning, now_us: u64, terminate: bool) -> SimpleDenm {
    let r = w.risk.unwrap_or_default();
    SimpleDenm {
        station_id: cfg.station_id,
        originating_station_id: cfg.station_id,
        sequence_number: w.sequence_number as u16,
        detection_time_its_ms: w.detection_time_its_ms,
        reference_time_its_ms: unix_us_to_its_ms(now_us),
        event_lat_e7: (r.conflict_latitude * 1e7).round() as i32,
        event_lon_e7: (r.conflict_longitude * 1e7).round() as i32,
        relevance_distance: Some(RelevanceDistance::LessThan50m),
        // Valid until shortly after the expected collision.
        validity_duration_s: (r.time_to_collision_s.max(0.0).ceil() as u32).saturating_add(2).min(86_400),
        termination: terminate.then_some(etsi_its::denm::Termination::IsCancellation),
        station_type: STATION_TYPE_RSU,
        cause: CAUSE_COLLISION_RISK,
        sub_cause: if is_vru(&r.first) || is_vru(&r.second) { SUB_CAUSE_VRU } else { SUB_CAUSE_CROSSING },
        // Information: 1 (lowest). Warning: 2 .. 7 (highest) from the risk's probability (a
        // certain risk may come out a rounding error short of 1.0: PROBABILITY_SLACK).
        information_quality: if r.stage == RiskStage::Information as i32 {
            INFORMATION_QUALITY_INFORMATION
        } else {
            2 + ((r.probability + crate::stages::collision_detector::PROBABILITY_SLACK).clamp(0.0, 1.0) * 5.0).floor()
                as u8
        },
    }
}

/// The risk an active warning last announced.
fn announced(w: &ActiveWarning) -> &CollisionRisk {
    // Invariant: a warning is made active with the risk it announces, and warnings read back
    // without one are dropped before anything else (start of [`step_covering`]).
    w.risk.as_ref().expect("active warnings keep their risk")
}

/// Distance (m) between two risks' conflict points.
fn conflict_distance_m(a: &CollisionRisk, b: &CollisionRisk) -> f64 {
    let (dx, dy) = wgs84_to_offset(
        Wgs84 { lat: a.conflict_latitude, lon: a.conflict_longitude },
        Wgs84 { lat: b.conflict_latitude, lon: b.conflict_longitude },
    );
    distance(dx, dy)
}

fn changed(cfg: &SenderConfig, w: &ActiveWarning, new: &CollisionRisk, now_us: u64) -> bool {
    let old = announced(w);
    let elapsed_s = now_us.saturating_sub(w.last_sent_us) as f64 / 1e6;
    now_us.saturating_sub(w.last_sent_us) >= cfg.repetition_us
        || old.stage != new.stage
        || conflict_distance_m(old, new) >= cfg.moved_m
        || (old.time_to_collision_s - elapsed_s - new.time_to_collision_s).abs() >= cfg.ttc_change_s
}

/// `key` is `risk_key(r)`, computed once per risk by the caller.
fn same_conflict(cfg: &SenderConfig, w: &ActiveWarning, r: &CollisionRisk, key: &str) -> bool {
    let old = announced(w);
    w.risk_key == key
        || (conflict_distance_m(old, r) <= cfg.same_conflict_m
            && old.expected_at_us.abs_diff(r.expected_at_us) <= cfg.same_conflict_us)
}

/// Applies one frame of current risks to the active warnings; returns the DENMs to send.
pub fn step(
    state: &mut ActiveWarnings,
    frame: &CollisionRiskFrame,
    now_us: u64,
    cfg: &SenderConfig,
) -> Vec<SimpleDenm> {
    step_covering(state, frame, now_us, cfg).0
}

/// [`step`], and per risk of the frame (in its order) the sequence number of the warning that
/// stands for it: its own, or one it was taken to be the same conflict as (another camera's view,
/// a track break, another vehicle at risk with the same road user a few metres away).
pub fn step_covering(
    state: &mut ActiveWarnings,
    frame: &CollisionRiskFrame,
    now_us: u64,
    cfg: &SenderConfig,
) -> (Vec<SimpleDenm>, Vec<u16>) {
    // The state is read back from key-value: a warning without its risk (this code never writes
    // one) can be neither matched nor terminated at a place, so it is dropped.
    state.warnings.retain(|w| w.risk.is_some());
    // Warnings last seen later than this frame by more than the grace are of another time (the
    // RSU's clock went back, a recording replayed again soon after it ended): ended, and never
    // matched with this frame's risks — whether a store still held them must not matter.
    let (of_another_time, current): (Vec<ActiveWarning>, Vec<ActiveWarning>) =
        state.warnings.drain(..).partition(|w| w.last_seen_us > now_us.saturating_add(cfg.absent_grace_us));
    state.warnings = current;
    let mut out: Vec<SimpleDenm> = of_another_time.iter().map(|w| denm(cfg, w, now_us, true)).collect();
    let mut covering = vec![0u16; frame.risks.len()];
    // Most imminent first: it decides what an active warning now describes.
    let mut order: Vec<usize> = (0..frame.risks.len()).collect();
    order.sort_by_key(|&k| frame.risks[k].expected_at_us);
    let mut seen_this_frame: Vec<usize> = Vec::new();
    for k in order {
        let risk = &frame.risks[k];
        let key = risk_key(risk);
        let matched = state.warnings.iter().position(|w| same_conflict(cfg, w, risk, &key));
        covering[k] = matched.map_or(state.next_sequence, |i| state.warnings[i].sequence_number) as u16;
        match matched {
            Some(i) if seen_this_frame.contains(&i) => {} // a duplicate of a risk already handled
            Some(i) => {
                seen_this_frame.push(i);
                let w = &mut state.warnings[i];
                w.last_seen_us = now_us;
                // A warning stays one while its risk is reported at all (hysteresis).
                let mut risk = *risk;
                if announced(w).stage == RiskStage::Warning as i32 {
                    risk.stage = RiskStage::Warning as i32;
                }
                if changed(cfg, w, &risk, now_us) {
                    w.risk = Some(risk);
                    w.risk_key = key;
                    w.last_sent_us = now_us;
                    out.push(denm(cfg, w, now_us, false));
                }
            }
            None => {
                let w = ActiveWarning {
                    risk_key: key,
                    sequence_number: state.next_sequence,
                    detection_time_its_ms: unix_us_to_its_ms(now_us),
                    risk: Some(*risk),
                    last_sent_us: now_us,
                    last_seen_us: now_us,
                };
                state.next_sequence = (state.next_sequence + 1) % 65_536;
                out.push(denm(cfg, &w, now_us, false));
                seen_this_frame.push(state.warnings.len());
                state.warnings.push(w);
            }
        }
    }
    // Risks not reported for a while are gone: terminate their warnings.
    let (ended, active): (Vec<ActiveWarning>, Vec<ActiveWarning>) =
        state.warnings.drain(..).partition(|w| now_us.saturating_sub(w.last_seen_us) > cfg.absent_grace_us);
    out.extend(ended.iter().map(|w| denm(cfg, w, now_us, true)));
    state.warnings = active;
    (out, covering)
}

#[cfg(test)]
mod tests;

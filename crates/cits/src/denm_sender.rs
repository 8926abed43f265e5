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

use crate::geo::{distance, wgs84_to_offset, Wgs84};
use crate::proto::{ActiveWarning, ActiveWarnings, CollisionRisk, CollisionRiskFrame, RiskStage, TravelMode};
use crate::stage::StageError;
use crate::time::unix_us_to_its_ms;

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
    ) -> Result<Self, crate::stage::StageError> {
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
fn station_id(e: &crate::config::Entry<'_>) -> Result<u32, crate::stage::StageError> {
    u32::try_from(e.positive_u64()?)
        .map_err(|_| crate::stage::StageError::new(format!("{STAGE} config `{}` exceeds a StationID", e.key)))
}

fn denm_version(e: &crate::config::Entry<'_>) -> Result<DenmVersion, crate::stage::StageError> {
    e.value.parse().map_err(|err| crate::stage::StageError::new(format!("{STAGE} config `{}`: {err}", e.key)))
}

/// A DENM as sent: UPER, EN 302 637-3 V1.3.1 or TS 103 831 V2.2.1.
pub fn encode(d: &SimpleDenm, version: DenmVersion) -> Result<Vec<u8>, crate::stage::StageError> {
    version.encode(d).map_err(|e| {
        crate::stage::StageError::new(format!("DENM for ActionID {}/{}: {e}", d.station_id, d.sequence_number))
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
            2 + ((r.probability + crate::collision::PROBABILITY_SLACK).clamp(0.0, 1.0) * 5.0).floor() as u8
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
mod tests {
    use super::*;
    use crate::geo::offset_to_wgs84;
    use crate::proto::ObjectRef;
    use etsi_its::denm::Termination;

    const SPOT: Wgs84 = Wgs84 { lat: 47.8101, lon: 13.0518 };

    fn risk(car: u32, bike: u32, east_m: f64, ttc: f64) -> CollisionRisk {
        let p = offset_to_wgs84(SPOT, east_m, 0.0);
        let object = |object_id, mode: TravelMode| {
            Some(ObjectRef { station_id: 1001, object_id, mode: mode as i32, ..Default::default() })
        };
        CollisionRisk {
            first: object(car, TravelMode::Car),
            second: object(bike, TravelMode::Bicycle),
            conflict_latitude: p.lat,
            conflict_longitude: p.lon,
            time_to_collision_s: ttc,
            probability: 0.6,
            expected_at_us: 0,
            ..Default::default()
        }
    }

    #[test]
    fn an_information_becomes_a_warning_at_once_and_stays_one_until_its_risk_is_gone() {
        let cfg = SenderConfig::default();
        let mut state = ActiveWarnings::default();
        let staged = |stage: RiskStage| CollisionRisk { stage: stage as i32, ..risk(1, 2, 0.0, 2.5) };
        let sent = step(&mut state, &frame(vec![staged(RiskStage::Information)]), 1_000_000, &cfg);
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].information_quality, INFORMATION_QUALITY_INFORMATION);
        assert!(!is_warning(&sent[0]));
        // 100 ms later the same risk is a warning: an update under the same ActionID now, not at
        // the repetition interval.
        let sent = step(&mut state, &frame(vec![staged(RiskStage::Warning)]), 1_100_000, &cfg);
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].sequence_number, 0);
        assert!(is_warning(&sent[0]), "{:?}", sent[0]);
        // Reported as information again: still a warning on its repetitions (hysteresis).
        let sent = step(&mut state, &frame(vec![staged(RiskStage::Information)]), 2_200_000, &cfg);
        assert_eq!(sent.len(), 1);
        assert!(is_warning(&sent[0]), "{:?}", sent[0]);
        // Gone (the car seen to yield took it below the information bar): terminated.
        let sent = step(&mut state, &frame(vec![]), 2_800_000, &cfg);
        assert_eq!((sent.len(), sent[0].termination), (1, Some(Termination::IsCancellation)));
        assert!(!is_warning(&sent[0]));
    }

    fn frame(risks: Vec<CollisionRisk>) -> CollisionRiskFrame {
        CollisionRiskFrame { rsu_id: "rsu1".into(), risks, ..Default::default() }
    }

    #[test]
    fn the_rsu_station_id_comes_from_config() {
        let config = [("station_id", "7"), ("station_id.rsu-b", "2002"), ("repetition_ms", "500")];
        let a = SenderConfig::from_config("rsu-a", config).unwrap();
        let b = SenderConfig::from_config("rsu-b", config).unwrap();
        assert_eq!((a.station_id, b.station_id, a.repetition_us), (7, 2002, 500_000));
        assert!(SenderConfig::from_config("rsu-a", [("station_id", "99999999999")]).is_err());
    }

    #[test]
    fn the_denm_release_is_configured_per_rsu() {
        let config = [("denm_version.rsu-b", "2.2.1")];
        assert_eq!(SenderConfig::from_config("rsu-a", config).unwrap().denm_version, DenmVersion::V1_3_1);
        assert_eq!(SenderConfig::from_config("rsu-b", config).unwrap().denm_version, DenmVersion::V2_2_1);
        let all = [("denm_version", "2.2.1"), ("denm_version.rsu-b", "1.3.1")];
        assert_eq!(SenderConfig::from_config("rsu-a", all).unwrap().denm_version, DenmVersion::V2_2_1);
        assert_eq!(SenderConfig::from_config("rsu-b", all).unwrap().denm_version, DenmVersion::V1_3_1);
        let err = SenderConfig::from_config("rsu-a", [("denm_version", "3")]).unwrap_err();
        assert!(err.reason.contains("denm_version") && err.reason.contains("TS 103 831"), "{err}");
    }

    #[test]
    fn a_certain_risk_a_rounding_error_short_of_one_is_graded_highest() {
        let cfg = SenderConfig::default();
        for (k, (probability, quality)) in
            [(1.0, 7), (1.0 - 1e-15, 7), (0.99, 6), (0.8 - 1e-15, 6), (0.79, 5)].into_iter().enumerate()
        {
            let mut state = ActiveWarnings::default();
            let risk = CollisionRisk { probability, ..risk(1, 2, 0.0, 2.0) };
            let sent = step(&mut state, &frame(vec![risk]), 1_700_000_000_000_000 + k as u64, &cfg);
            assert_eq!(sent[0].information_quality, quality, "p {probability}");
        }
    }

    #[test]
    fn a_warning_of_a_later_time_is_ended_and_the_same_risk_now_is_a_new_warning() {
        let cfg = SenderConfig::default();
        let mut state = ActiveWarnings::default();
        let t0 = 1_700_000_000_000_000;
        assert_eq!(step(&mut state, &frame(vec![risk(1, 2, 0.0, 2.0)]), t0, &cfg)[0].sequence_number, 0);
        // The same conflict 150 s earlier (the recording again, or the clock went back).
        let sent = step(&mut state, &frame(vec![risk(1, 2, 0.0, 2.0)]), t0 - 150_000_000, &cfg);
        let seen: Vec<(u16, bool)> = sent.iter().map(|d| (d.sequence_number, d.termination.is_some())).collect();
        assert_eq!(seen, [(0, true), (1, false)]);
        // A frame a little older than the warning (within the grace) is no other time.
        assert!(step(&mut state, &frame(vec![risk(1, 2, 0.0, 2.0)]), t0 - 150_000_000 - 100_000, &cfg).is_empty());
    }

    #[test]
    fn a_risk_is_announced_updated_only_when_needed_and_terminated() {
        let cfg = SenderConfig::default();
        let mut state = ActiveWarnings::default();
        let t0 = 1_700_000_000_000_000;
        let sent = step(&mut state, &frame(vec![risk(1, 2, 0.0, 2.0)]), t0, &cfg);
        assert_eq!(sent.len(), 1);
        let d = &sent[0];
        assert_eq!((d.station_id, d.sequence_number, d.termination), (1001, 0, None));
        assert_eq!((d.cause, d.sub_cause, d.station_type), (97, SUB_CAUSE_VRU, STATION_TYPE_RSU));
        assert_eq!(d.validity_duration_s, 4);
        assert_eq!(d.information_quality, 5, "a warning 0.6 likely");
        assert_eq!(d.detection_time_its_ms, unix_us_to_its_ms(t0));

        // 125 ms later, as expected (TTC down by the elapsed time): no duplicate.
        assert!(step(&mut state, &frame(vec![risk(1, 2, 0.3, 1.875)]), t0 + 125_000, &cfg).is_empty());
        // The conflict point jumps 3 m: an update under the same ActionID.
        let sent = step(&mut state, &frame(vec![risk(1, 2, 3.0, 1.75)]), t0 + 250_000, &cfg);
        assert_eq!(sent.len(), 1);
        assert_eq!((sent[0].sequence_number, sent[0].termination), (0, None));
        assert_eq!(sent[0].detection_time_its_ms, unix_us_to_its_ms(t0));
        // Unchanged but a second since the last DENM: repeated.
        assert_eq!(step(&mut state, &frame(vec![risk(1, 2, 3.0, 0.75)]), t0 + 1_250_000, &cfg).len(), 1);
        // Missing for one frame: kept (no flapping); gone for longer than the grace: terminated.
        assert!(step(&mut state, &frame(vec![]), t0 + 1_375_000, &cfg).is_empty());
        let sent = step(&mut state, &frame(vec![]), t0 + 1_875_000, &cfg);
        assert_eq!(
            (sent.len(), sent[0].sequence_number, sent[0].termination),
            (1, 0, Some(Termination::IsCancellation))
        );
        assert!(state.warnings.is_empty());
        assert!(step(&mut state, &frame(vec![]), t0 + 2_000_000, &cfg).is_empty());
    }

    #[test]
    fn the_same_conflict_from_the_other_camera_is_the_same_warning() {
        let cfg = SenderConfig::default();
        let mut state = ActiveWarnings::default();
        // Objects 1/2 (camera 1) and 51/52 (camera 2) are the same car and cyclist.
        let sent = step(&mut state, &frame(vec![risk(1, 2, 0.0, 2.0), risk(51, 52, 1.0, 2.0)]), 1, &cfg);
        assert_eq!(sent.len(), 1);
        // After a track break the cyclist is object 9: still the same warning.
        assert!(step(&mut state, &frame(vec![risk(1, 9, 0.5, 2.0)]), 125_001, &cfg).is_empty());
        assert_eq!(state.warnings.len(), 1);
    }

    #[test]
    fn a_warning_stands_for_the_risks_it_takes_for_the_same_conflict() {
        let cfg = SenderConfig::default();
        let mut state = ActiveWarnings::default();
        // Cars 1 and 3 at risk with cyclist 2, their conflict points 3 m apart: one warning, which
        // names the more imminent risk (the frame lists it second).
        let later = CollisionRisk { expected_at_us: 2_500_000, ..risk(3, 2, 3.0, 2.5) };
        let sooner = CollisionRisk { expected_at_us: 2_000_000, ..risk(1, 2, 0.0, 2.0) };
        let (sent, covering) = step_covering(&mut state, &frame(vec![later, sooner]), 1, &cfg);
        assert_eq!((sent.len(), covering), (1, vec![0, 0]));
        assert_eq!(state.warnings[0].risk_key, risk_key(&sooner));
        // A risk far from it gets the next warning.
        let (sent, covering) = step_covering(&mut state, &frame(vec![risk(4, 5, 40.0, 2.0)]), 125_001, &cfg);
        assert_eq!((sent.len(), covering), (1, vec![1]));
    }

    #[test]
    fn each_risk_gets_its_own_action_id_and_sequence_numbers_wrap() {
        let cfg = SenderConfig::default();
        let mut state = ActiveWarnings { next_sequence: 65_535, ..Default::default() };
        let sent = step(&mut state, &frame(vec![risk(1, 2, 0.0, 2.0), risk(3, 4, 10.0, 1.0)]), 1, &cfg);
        let seqs: Vec<u16> = sent.iter().map(|d| d.sequence_number).collect();
        assert_eq!(seqs, vec![65_535, 0]);
        assert_eq!(state.next_sequence, 1);
    }

    #[test]
    fn denms_encode_as_en_302_637_3() {
        let cfg = SenderConfig::default();
        let mut state = ActiveWarnings::default();
        for d in step(&mut state, &frame(vec![risk(1, 2, 0.0, 2.0)]), 1_700_000_000_000_000, &cfg) {
            let bytes = etsi_its::denm::encode(&d.to_denm()).unwrap();
            let back = SimpleDenm::from_denm(&etsi_its::denm::decode(&bytes).unwrap()).unwrap();
            assert_eq!(back, d);
        }
    }

    /// Found by fuzzing (fuzz/, targets `stage_denm_sender` and `state`): a risk 1.15e10 s ahead
    /// (finite, so within the limits; or a stored warning's) overflowed the DENM's validity
    /// duration, `u32::MAX + 2`: a panic with overflow checks, a validity of 1 s without.
    #[test]
    fn a_far_collision_gets_the_longest_validity() {
        use prost::Message as _;
        const FRAME: &[u8] = &[
            0x0a, 0x04, 0x72, 0x73, 0x75, 0x31, 0x1a, 0x41, 0x0a, 0x08, 0x08, 0xe9, 0x07, 0x10, 0xa8, 0x01, 0x20, 0x02,
            0x12, 0x08, 0x08, 0xe9, 0x07, 0x10, 0xab, 0x01, 0x20, 0x01, 0x19, 0xb7, 0xfe, 0xe6, 0x6a, 0xad, 0xe7, 0x47,
            0x40, 0x21, 0xa3, 0x32, 0xd1, 0x91, 0x8a, 0x1a, 0x2a, 0x40, 0x29, 0x54, 0x45, 0x95, 0xa7, 0x7e, 0x1a, 0x2a,
            0x40, 0x29, 0x93, 0x18, 0x04, 0x56, 0x0e, 0x2d, 0x05, 0x42, 0x31, 0x9e, 0xd8, 0xf0, 0xe5, 0xca, 0xc7, 0x9e,
            0x03,
        ];
        let frame = CollisionRiskFrame::decode(FRAME).unwrap();
        assert!(frame.risks[0].time_to_collision_s > 1e10);
        let (cfg, mut state) = (SenderConfig::default(), ActiveWarnings::default());
        let sent = step(&mut state, &frame, 0, &cfg);
        assert_eq!(sent[0].validity_duration_s, 86_400);
        // Its termination too.
        let ended = step(&mut state, &CollisionRiskFrame::default(), 1_000_000, &cfg);
        assert_eq!((ended[0].validity_duration_s, ended[0].termination), (86_400, Some(Termination::IsCancellation)));
    }

    /// Found by fuzzing (fuzz/, target `state`): stored warnings come back from key-value, and
    /// one without its risk (these bytes, made by the fuzzer) panicked on "active warnings keep
    /// their risk" as soon as a frame had a risk to compare with it.
    #[test]
    fn a_stored_warning_without_its_risk_is_dropped() {
        const STORED: &[u8] = &[
            0x0a, 0x6b, 0x0a, 0x11, 0x31, 0x30, 0x30, 0x31, 0x2f, 0x30, 0x2f, 0x30, 0x2d, 0x31, 0x30, 0x30, 0x31, 0x2f,
            0x33, 0x2f, 0x30, 0x18, 0xa8, 0xb5, 0x8e, 0x11, 0xfa, 0x9b, 0x22, 0x3d, 0x0a, 0x05, 0x08, 0xe9, 0x07, 0x20,
            0x02, 0x12, 0x07, 0x08, 0xe9, 0x07, 0x10, 0x03, 0x20, 0x01, 0x19, 0x9c, 0x4d, 0x4a, 0x37, 0xb1, 0xe7, 0x47,
            0x40, 0x21, 0x84, 0xd5, 0x1c, 0x1b, 0x7e, 0x1a, 0x2a, 0x40, 0x29, 0xe1, 0x7a, 0x14, 0xae, 0x47, 0xe1, 0xca,
            0x3f, 0x31, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f, 0x38, 0xd0, 0x92, 0xa7, 0xc9, 0xaa, 0xbc, 0xfa,
            0x02, 0x28, 0x80, 0xaa, 0x9a, 0xc9, 0xaa, 0xbc, 0xfa, 0x02, 0x30, 0xc8, 0xfa, 0xa1, 0xc9, 0xaa, 0xbc, 0xfa,
            0x02, 0x10, 0x01,
        ];
        let mut state: ActiveWarnings = crate::stage::decode_state_or_empty(Some(STORED));
        assert!(state.warnings[0].risk.is_none());
        let sent = step(&mut state, &frame(vec![risk(1, 2, 0.0, 2.0)]), 1, &SenderConfig::default());
        assert_eq!((sent.len(), sent[0].termination), (1, None), "the new risk's warning");
        assert!(state.warnings.iter().all(|w| w.risk.is_some()));
    }
}

//! Scoring DENMs against the simulator's ground truth: which conflicts were warned and how early,
//! which warnings were true, borderline or clearly false, and why (`--explain`).

use anyhow::Context as _;
use cits::shared::geo::{wgs84_to_offset, Wgs84};
use etsi_its::denm::SimpleDenm;

use super::EmittedDenm;
use crate::sim::{Kind, Truth, TruthEncounter};

/// Ground-truth classes by post-encroachment time (PET): below this a pair is a conflict that
/// must be warned; from `CLEARLY_SAFE_PET_S` on (or paths that never come within reach) a
/// warning is clearly false; in between borderline.
pub const CONFLICT_PET_S: f64 = 1.5;
pub const CLEARLY_SAFE_PET_S: f64 = 3.0;
/// Warnings for pairs at least this far apart in time are counted on their own (the warning
/// decision's target: at most 10 per 10 min).
pub const PET_TWO_S: f64 = 2.0;
/// Conflicts this soon after the cameras start cannot have been tracked long enough to warn.
const SETTLE_S: f64 = 5.0;
/// A DENM without its risk (as received over the air) is attributed by place and time: to the
/// most critical encounter within this distance of its event position, at most
/// `WARN_WINDOW_S` after it.
const MATCH_RADIUS_M: f64 = 10.0;
const WARN_WINDOW_S: f64 = 6.0;
/// A DENM's objects were measured this long before its frame's reference time, at most.
const TRACK_SLACK_MS: i64 = 1_500;

/// How the DENMs compare with the ground truth's encounters.
#[derive(Debug, Default, Clone)]
pub struct Score {
    /// Conflicts to warn: encounters with true PET < 1.5 s (planted or made by the traffic).
    pub planted: usize,
    pub warned: usize,
    /// Per warned conflict, the first DENM about its pair before the conflict, s.
    pub lead_times_s: Vec<f64>,
    pub denms: usize,
    /// ActionIDs (warnings) in all, and by the most critical pair they announced.
    pub warnings: usize,
    pub true_warnings: usize,
    pub borderline: usize,
    /// Warnings (ActionIDs) whose pair's true PET is 2 s or more (clearly false ones included).
    pub pet_two_plus: usize,
    pub clearly_false: usize,
    /// Same as `clearly_false` (the name the end-to-end tests use).
    pub false_warnings: usize,
    /// Sequence numbers of the clearly false ActionIDs.
    pub false_action_ids: Vec<u16>,
    /// Road user pairs (vehicle, VRU) and times of conflicts no warning came before.
    pub missed: Vec<([u32; 2], i64)>,
    /// Traffic observed, minutes.
    pub minutes: f64,
    /// One line per missed conflict and per warning that was not true (`--explain`).
    pub explained: Vec<String>,
    /// The information stage: the same counts over every DENM, information or warning.
    pub information: Information,
}

/// How the information stage (any DENM, information or warning) compares with the truth.
#[derive(Debug, Default, Clone)]
pub struct Information {
    pub warned: usize,
    pub lead_times_s: Vec<f64>,
    pub clearly_false: usize,
}

impl Score {
    pub fn per_10_min(&self, n: usize) -> f64 {
        n as f64 * 10.0 / self.minutes.max(f64::MIN_POSITIVE)
    }

    pub fn precision(&self) -> f64 {
        self.true_warnings as f64 / self.warnings.max(1) as f64
    }

    /// Adds another recording's score.
    pub fn add(&mut self, o: &Score) {
        self.planted += o.planted;
        self.warned += o.warned;
        self.lead_times_s.extend(&o.lead_times_s);
        self.denms += o.denms;
        self.warnings += o.warnings;
        self.true_warnings += o.true_warnings;
        self.borderline += o.borderline;
        self.pet_two_plus += o.pet_two_plus;
        self.clearly_false += o.clearly_false;
        self.false_warnings += o.false_warnings;
        self.missed.extend(&o.missed);
        self.minutes += o.minutes;
        self.explained.extend(o.explained.iter().cloned());
        self.information.warned += o.information.warned;
        self.information.lead_times_s.extend(&o.information.lead_times_s);
        self.information.clearly_false += o.information.clearly_false;
    }

    /// Median and minimum lead time, s.
    pub fn lead(&self) -> (f64, f64) {
        let min = self.lead_times_s.iter().copied().min_by(f64::total_cmp);
        (median(self.lead_times_s.clone()).unwrap_or(f64::NAN), min.unwrap_or(f64::NAN))
    }
}

/// The median (the upper one of an even count), None of nothing; sorted by `total_cmp`.
pub(super) fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

/// The road user a tracked object of a risk is, per the truth's tracker ids, at `at_ms` (or per
/// its CAM's station id).
pub fn road_user(truth: &Truth, o: &cits::proto::ObjectRef, at_ms: i64) -> Option<u32> {
    use cits::proto::TravelMode;
    let kind = match TravelMode::try_from(o.mode).unwrap_or_default() {
        TravelMode::Car => Some(Kind::Car),
        TravelMode::Bicycle => Some(Kind::Bicycle),
        TravelMode::Pedestrian => Some(Kind::Pedestrian),
        TravelMode::Unknown => None,
    };
    let kind_of = |user: u32| truth.road_users.iter().find(|u| u.id == user).map(|u| u.kind);
    if o.sensor_id == cits::stages::collector::SELF_REPORTED {
        // A road user known from its own CAM: the simulator numbers CAM stations after the users.
        let user = o.station_id.checked_sub(crate::sim::CAM_STATION_BASE)?;
        return kind_of(user).filter(|k| kind.is_none_or(|kind| kind == *k)).map(|_| user);
    }
    truth
        .tracks
        .iter()
        .filter(|t| (o.sensor_id == 0 || u32::from(t.0) == o.sensor_id) && u32::from(t.1) == o.object_id)
        .filter(|t| t.3 <= at_ms && t.4 + TRACK_SLACK_MS >= at_ms)
        .filter(|t| kind.is_none() || kind_of(t.2) == kind)
        .max_by_key(|t| t.3)
        .map(|t| t.2)
}

/// The encounter a DENM announces: by its risk's road users when known, else by place and time.
fn attribute<'a>(truth: &'a Truth, d: &EmittedDenm) -> Option<&'a TruthEncounter> {
    let at_ms = (d.at_us / 1000) as i64;
    if let Some(r) = &d.risk {
        let (a, b) = (road_user(truth, r.first.as_ref()?, at_ms)?, road_user(truth, r.second.as_ref()?, at_ms)?);
        return truth.encounters.iter().find(|e| e.users == [a, b] || e.users == [b, a]);
    }
    let event = Wgs84 { lat: d.denm.event_lat_e7 as f64 / 1e7, lon: d.denm.event_lon_e7 as f64 / 1e7 };
    truth
        .encounters
        .iter()
        .filter(|e| {
            let (dx, dy) = wgs84_to_offset(event, Wgs84 { lat: e.lat, lon: e.lon });
            let ahead_s = (e.time_unix_us - d.at_us as i64) as f64 / 1e6;
            dx.hypot(dy) <= MATCH_RADIUS_M && (0.0..=WARN_WINDOW_S).contains(&ahead_s)
        })
        .min_by(|a, b| a.pet_s.total_cmp(&b.pet_s))
}

/// Euro NCAP's pass line for a warning: this long before the conflict at least.
pub const MIN_LEAD_S: f64 = 1.7;

/// How long before an encounter a camera first tracked each of its road users — no warning can
/// come earlier than the shorter of the two: "seen 3.1 / 1.2 s before".
fn seen_text(truth: &Truth, e: &TruthEncounter) -> String {
    let seen_s = |user: u32| {
        let first_ms = truth.tracks.iter().filter(|t| t.2 == user && t.3 * 1000 <= e.time_unix_us).map(|t| t.3).min();
        first_ms.map_or("never".to_string(), |ms| format!("{:.1}", (e.time_unix_us - ms * 1000) as f64 / 1e6))
    };
    format!("seen {} / {} s before", seen_s(e.users[0]), seen_s(e.users[1]))
}

/// An encounter as the explanations name it: its road users, true PET and planted kind.
fn encounter_text(truth: &Truth, e: &TruthEncounter) -> String {
    format!(
        "{} (PET {:.2} s{})",
        pair_text(truth, e.users, e.time_unix_us),
        e.pet_s,
        e.planted.as_ref().map_or(String::new(), |k| format!(", planted {k}"))
    )
}

/// Two road users as the truth describes them, at a time.
fn pair_text(truth: &Truth, users: [u32; 2], at_us: i64) -> String {
    let describe = |id: u32| {
        truth.road_users.iter().find(|u| u.id == id).map_or(format!("#{id}"), |u| format!("#{id} {}", u.description))
    };
    format!("{} × {} at {}", describe(users[0]), describe(users[1]), cits_client::watch::format_time_us(at_us as u64))
}

/// Scores DENMs against a ground truth (a [`Truth`] as JSON).
pub fn score(denms: &[EmittedDenm], truth: &serde_json::Value) -> anyhow::Result<Score> {
    let truth: Truth = serde_json::from_value(truth.clone()).context("not a ground-truth file of this simulator")?;
    Ok(score_truth(denms, &truth))
}

pub fn score_truth(denms: &[EmittedDenm], truth: &Truth) -> Score {
    let all = score_stage(denms, truth, |d| d.termination.is_none());
    Score {
        information: Information {
            warned: all.warned,
            lead_times_s: all.lead_times_s,
            clearly_false: all.clearly_false,
        },
        ..score_stage(denms, truth, cits::stages::denm_sender::is_warning)
    }
}

/// [`score_truth`] of the DENMs that are `counted` (warnings, or information too).
fn score_stage(denms: &[EmittedDenm], truth: &Truth, counted: fn(&SimpleDenm) -> bool) -> Score {
    let start_us = truth.parameters.start_unix_ms as i64 * 1000;
    let duration_s = f64::from(truth.parameters.duration_s);
    let warnings: Vec<(&EmittedDenm, Option<&TruthEncounter>)> =
        denms.iter().filter(|d| counted(&d.denm)).map(|d| (d, attribute(truth, d))).collect();
    let sent = denms.iter().filter(|d| d.sent).count();
    let mut s = Score { denms: sent, minutes: duration_s / 60.0, ..Default::default() };
    // Recall and lead time over the conflicts the cameras could have warned of (the truth also
    // lists encounters just after the end, to judge the last warnings by).
    for e in &truth.encounters {
        let since_start_s = (e.time_unix_us - start_us) as f64 / 1e6;
        if e.pet_s >= CONFLICT_PET_S || since_start_s < SETTLE_S || since_start_s > duration_s {
            continue;
        }
        s.planted += 1;
        let first = warnings
            .iter()
            .filter(|(d, a)| a.is_some_and(|a| std::ptr::eq(a, e)) && d.at_us as i64 <= e.time_unix_us)
            .map(|(d, _)| d.at_us)
            .min();
        match first {
            Some(at) => {
                s.warned += 1;
                let lead_s = (e.time_unix_us - at as i64) as f64 / 1e6;
                s.lead_times_s.push(lead_s);
                if lead_s < MIN_LEAD_S {
                    s.explained.push(format!(
                        "short   {}: lead {lead_s:.2} s, {}",
                        encounter_text(truth, e),
                        seen_text(truth, e)
                    ));
                }
            }
            None => {
                s.missed.push((e.users, e.time_unix_us));
                let late = warnings
                    .iter()
                    .filter(|(_, a)| a.is_some_and(|a| std::ptr::eq(a, e)))
                    .map(|(d, _)| (d.at_us as i64 - e.time_unix_us) as f64 / 1e6)
                    .next();
                s.explained.push(format!(
                    "missed  {}{}, {}",
                    encounter_text(truth, e),
                    late.map_or(String::new(), |s| format!(", first warned {s:.2} s after")),
                    seen_text(truth, e),
                ));
            }
        }
    }
    // Each ActionID by the most critical encounter any of its DENMs announced.
    let mut by_action: std::collections::BTreeMap<u16, f64> = std::collections::BTreeMap::new();
    for (d, a) in &warnings {
        let pet = a.map_or(f64::INFINITY, |a| a.pet_s);
        let best = by_action.entry(d.denm.sequence_number).or_insert(f64::INFINITY);
        *best = best.min(pet);
    }
    for (seq, pet) in by_action {
        s.warnings += 1;
        s.pet_two_plus += usize::from(pet >= PET_TWO_S);
        let class = if pet < CONFLICT_PET_S {
            s.true_warnings += 1;
            continue;
        } else if pet < CLEARLY_SAFE_PET_S {
            s.borderline += 1;
            "border "
        } else {
            s.false_action_ids.push(seq);
            "false  "
        };
        let Some((d, a)) = warnings.iter().find(|(d, _)| d.denm.sequence_number == seq) else { continue };
        let risk = d.risk.unwrap_or_default();
        let at_ms = (d.at_us / 1000) as i64;
        let users = match (a, &risk.first, &risk.second) {
            (Some(a), _, _) => pair_text(truth, a.users, d.at_us as i64),
            (None, Some(x), Some(y)) => match (road_user(truth, x, at_ms), road_user(truth, y, at_ms)) {
                (Some(x), Some(y)) => {
                    format!("{} (paths never within reach)", pair_text(truth, [x, y], d.at_us as i64))
                }
                _ => format!("unresolved objects {}/{} × {}/{}", x.sensor_id, x.object_id, y.sensor_id, y.object_id),
            },
            _ => "a DENM without its risk".to_string(),
        };
        // Which of the two the pipeline knew only from its own CAM or VAM (not the cameras).
        let self_reported: Vec<String> = [&risk.first, &risk.second]
            .into_iter()
            .flatten()
            .filter(|o| o.sensor_id == cits::stages::collector::SELF_REPORTED)
            .map(|o| road_user(truth, o, at_ms).map_or(format!("station {}", o.station_id), |u| format!("#{u}")))
            .collect();
        let users = if self_reported.is_empty() {
            users
        } else {
            format!("{users}, known from its own report: {}", self_reported.join(", "))
        };
        s.explained.push(format!(
            "{class} {users} (PET {pet:.2} s): at {} ttc {:.2} s p {:.2}",
            cits_client::watch::format_time_us(d.at_us),
            risk.time_to_collision_s,
            risk.probability
        ));
    }
    s.clearly_false = s.false_action_ids.len();
    s.false_warnings = s.clearly_false;
    s
}

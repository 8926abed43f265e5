//! Euro NCAP's test shapes through the native pipeline: how long before contact the first
//! warning came, against when the car's turn began — the table `cits evaluate --ncap` prints.
//!
//! Pass lines (the warnings issue's targets, on NCAP's own 1.7 s warning line): a turn that
//! begins at least [`EARLY_TURN_S`] before contact is warned at least [`TARGET_LEAD_S`] ahead;
//! every contact at least [`super::MIN_LEAD_S`] ahead; a negative (true PET ≥ 3 s) is warned at
//! most once in 20 runs.

use cits::proto::LaneGraph;

use super::{median, on_all_cores, run_scored, MIN_LEAD_S};
use crate::sim::ncap::{cases, film_case, Case, Outcome, Shape, Unfit, CONTACT_S};
use crate::sim::{Conditions, Kind};

/// A turn that begins this long before contact leaves time to warn [`TARGET_LEAD_S`] ahead.
pub const EARLY_TURN_S: f64 = 2.5;
pub const TARGET_LEAD_S: f64 = 2.0;

/// One case filmed with one seed's camera noise, and what the pipeline made of it.
#[derive(Debug, Clone)]
pub struct Run {
    pub case: Case,
    pub seed: u64,
    /// How long before contact the car's turn began (None: it goes straight).
    pub turn_before_contact_s: Option<f64>,
    /// The pair's true PET (None: their paths never came within reach).
    pub pet_s: Option<f64>,
    /// The first warning's lead before contact (None: no warning before it).
    pub lead_s: Option<f64>,
    /// Any warning at all (negatives).
    pub warned: bool,
}

impl Run {
    /// Whether a positive run meets the pass line for when its turn began.
    pub fn passes(&self) -> bool {
        let needed = match self.turn_before_contact_s {
            Some(t) if t >= EARLY_TURN_S => TARGET_LEAD_S,
            None => TARGET_LEAD_S,
            Some(_) => MIN_LEAD_S,
        };
        self.lead_s.is_some_and(|l| l >= needed)
    }
}

/// A case the map's junction cannot host ([`Unfit`]), skipped, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    pub case: Case,
    pub reason: String,
}

/// What [`evaluate_cases`] ran and what it skipped.
#[derive(Debug, Clone, Default)]
pub struct Evaluated {
    pub runs: Vec<Run>,
    /// Once per case (whatever the seeds), in the order the cases were given.
    pub skipped: Vec<Skipped>,
}

/// Films and runs every case of `shapes` × `outcomes` on `graph` with each seed (on all cores);
/// fails where a case cannot be filmed (see [`evaluate_cases`] to skip those).
pub fn evaluate(
    graph: &LaneGraph,
    shapes: &[Shape],
    outcomes: &[Outcome],
    seeds: &[u64],
    config: &[(String, String)],
    conditions: Conditions,
) -> anyhow::Result<Vec<Run>> {
    let evaluated = evaluate_cases(graph, &cases(graph, shapes, outcomes)?, seeds, config, conditions)?;
    if let Some(s) = evaluated.skipped.first() {
        anyhow::bail!("{}", s.reason);
    }
    Ok(evaluated.runs)
}

/// Films and runs each of `cases` with each seed (on all cores); a case the junction cannot
/// host is skipped with its reason, any other failure fails the whole.
pub fn evaluate_cases(
    graph: &LaneGraph,
    cases: &[Case],
    seeds: &[u64],
    config: &[(String, String)],
    conditions: Conditions,
) -> anyhow::Result<Evaluated> {
    let jobs: Vec<(usize, u64)> = (0..cases.len()).flat_map(|c| seeds.iter().map(move |s| (c, *s))).collect();
    let done = on_all_cores(&jobs, |(c, seed)| match run_case(graph, &cases[c], seed, config, conditions) {
        Ok(run) => Ok((c, Ok(run))),
        Err(e) => match e.downcast_ref::<Unfit>() {
            Some(unfit) => Ok((c, Err(Skipped { case: unfit.case, reason: unfit.reason.clone() }))),
            None => Err(e),
        },
    })?;
    let mut evaluated = Evaluated::default();
    let mut skipped: std::collections::BTreeMap<usize, Skipped> = std::collections::BTreeMap::new();
    for (c, result) in done {
        match result {
            Ok(run) => evaluated.runs.push(run),
            Err(s) => {
                skipped.entry(c).or_insert(s);
            }
        }
    }
    evaluated.skipped = skipped.into_values().collect();
    evaluated.runs.sort_by(|a, b| {
        (a.case.shape, a.case.outcome, a.case.approach, a.seed)
            .cmp(&(b.case.shape, b.case.outcome, b.case.approach, b.seed))
            .then(a.case.car_kmh.total_cmp(&b.case.car_kmh))
    });
    Ok(evaluated)
}

/// One case with one seed through the native pipeline.
pub fn run_case(
    graph: &LaneGraph,
    case: &Case,
    seed: u64,
    config: &[(String, String)],
    conditions: Conditions,
) -> anyhow::Result<Run> {
    let filmed = film_case(graph, case, seed, conditions)?;
    let truth = crate::sim::truth(&filmed.sim);
    let denms = run_scored(graph, &filmed.sim.records, config)?;
    let car = truth.road_users.iter().find(|u| u.kind == Kind::Car).map(|u| u.id);
    let vru = truth.road_users.iter().find(|u| u.kind != Kind::Car).map(|u| u.id);
    let encounter = truth.encounters.iter().find(|e| Some(e.users[0]) == car && Some(e.users[1]) == vru);
    let start_us = truth.parameters.start_unix_ms as i64 * 1000;
    // Contact: when the second of the two enters their shared area (as planned where the paths
    // never come within reach).
    let contact_us = encounter.map_or(start_us + (CONTACT_S * 1e6) as i64, |e| e.time_unix_us);
    let warnings: Vec<i64> = denms.iter().filter(|d| d.denm.termination.is_none()).map(|d| d.at_us as i64).collect();
    let first_before = warnings.iter().copied().filter(|&at| at <= contact_us).min();
    Ok(Run {
        case: *case,
        seed,
        turn_before_contact_s: filmed.turn_onset_s.map(|t| (contact_us - start_us) as f64 / 1e6 - t),
        pet_s: encounter.map(|e| e.pet_s),
        lead_s: first_before.map(|at| (contact_us - at) as f64 / 1e6),
        warned: !warnings.is_empty(),
    })
}

/// The case's name in tables and traces, e.g. "CBTA right hook 10 km/h contact from 1100".
pub fn label(case: &Case) -> String {
    format!("{} {} km/h {} from {}", case.shape.name(), case.car_kmh, case.outcome.name(), case.approach)
}

/// [`super::trace`] of the car and the VRU in each case whose [`label`] contains `filter`.
pub fn trace(
    graph: &LaneGraph,
    filter: &str,
    seed: u64,
    config: &[(String, String)],
    conditions: Conditions,
) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    for case in cases(graph, &Shape::ALL, &Outcome::ALL)?.iter().filter(|c| label(c).contains(filter)) {
        let filmed = match film_case(graph, case, seed, conditions) {
            Ok(filmed) => filmed,
            Err(e) if e.downcast_ref::<Unfit>().is_some() => {
                out.push(format!("== {}: skipped, {e}", label(case)));
                continue;
            }
            Err(e) => return Err(e),
        };
        let truth = crate::sim::truth(&filmed.sim);
        let user = |vru: bool| truth.road_users.iter().find(|u| (u.kind != Kind::Car) == vru).map(|u| u.id);
        let (Some(car), Some(vru)) = (user(false), user(true)) else { continue };
        out.push(format!("== {} (seed {seed}, turn begins {:?} s into the film)", label(case), filmed.turn_onset_s));
        out.extend(super::trace_recording(graph, &filmed.sim, config, [car, vru])?);
    }
    Ok(out)
}

fn range_text(v: &[f64]) -> String {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if v.is_empty() {
        "-".into()
    } else {
        format!("{lo:.1}-{hi:.1}")
    }
}

/// The NCAP table: positives per shape and speed, then the negatives, then the totals against
/// the pass lines.
pub fn table(runs: &[Run]) -> String {
    let mut out = String::new();
    let positives: Vec<&Run> = runs.iter().filter(|r| r.case.outcome == Outcome::Contact).collect();
    out.push_str(&format!(
        "{:<22} {:>6} {:>5} {:>11} {:>8} {:>13} {:>8} {:>6}\n",
        "shape (contact)", "km/h", "runs", "turn at -s", "warned", "lead med/min", "≥2.0 s", "pass"
    ));
    let mut groups: Vec<(Shape, u32)> = positives.iter().map(|r| (r.case.shape, r.case.car_kmh as u32)).collect();
    groups.sort();
    groups.dedup();
    for (shape, kmh) in groups {
        let g: Vec<&&Run> =
            positives.iter().filter(|r| r.case.shape == shape && r.case.car_kmh as u32 == kmh).collect();
        let leads: Vec<f64> = g.iter().filter_map(|r| r.lead_s).collect();
        let onsets: Vec<f64> = g.iter().filter_map(|r| r.turn_before_contact_s).collect();
        let lead = median(leads.clone())
            .map_or("-".into(), |m| format!("{m:.2}/{:.2}", leads.iter().copied().fold(f64::INFINITY, f64::min)));
        out.push_str(&format!(
            "{:<22} {:>6} {:>5} {:>11} {:>8} {:>13} {:>8} {:>6}\n",
            shape.name(),
            kmh,
            g.len(),
            range_text(&onsets),
            format!("{}/{}", leads.len(), g.len()),
            lead,
            format!("{}/{}", leads.iter().filter(|l| **l >= TARGET_LEAD_S).count(), g.len()),
            format!("{}/{}", g.iter().filter(|r| r.passes()).count(), g.len()),
        ));
    }
    let negatives: Vec<&Run> = runs.iter().filter(|r| r.case.outcome != Outcome::Contact).collect();
    if !negatives.is_empty() {
        out.push_str(&format!(
            "\n{:<22} {:<30} {:>5} {:>10} {:>7}\n",
            "shape (negative)", "outcome", "runs", "PET min", "warned"
        ));
        let mut groups: Vec<(Shape, Outcome)> = negatives.iter().map(|r| (r.case.shape, r.case.outcome)).collect();
        groups.sort();
        groups.dedup();
        for (shape, outcome) in groups {
            let g: Vec<&&Run> =
                negatives.iter().filter(|r| r.case.shape == shape && r.case.outcome == outcome).collect();
            let pet = g.iter().map(|r| r.pet_s.unwrap_or(f64::INFINITY)).fold(f64::INFINITY, f64::min);
            out.push_str(&format!(
                "{:<22} {:<30} {:>5} {:>10} {:>7}\n",
                shape.name(),
                outcome.name(),
                g.len(),
                if pet.is_finite() { format!("{pet:.2} s") } else { "apart".into() },
                format!("{}/{}", g.iter().filter(|r| r.warned).count(), g.len()),
            ));
        }
    }
    out.push('\n');
    out.push_str(&summary(runs));
    out
}

/// The totals against the pass lines, one line each.
pub fn summary(runs: &[Run]) -> String {
    let positives: Vec<&Run> = runs.iter().filter(|r| r.case.outcome == Outcome::Contact).collect();
    let early: Vec<&&Run> =
        positives.iter().filter(|r| r.turn_before_contact_s.is_none_or(|t| t >= EARLY_TURN_S)).collect();
    let hooks: Vec<&&Run> = positives.iter().filter(|r| r.case.shape == Shape::RightHook).collect();
    let leads: Vec<f64> = positives.iter().filter_map(|r| r.lead_s).collect();
    let negatives: Vec<&Run> = runs.iter().filter(|r| r.case.outcome != Outcome::Contact).collect();
    let false_alarms = negatives.iter().filter(|r| r.warned).count();
    format!(
        "contacts warned: {}/{}, median lead {}\n\
         turn begun ≥ {EARLY_TURN_S} s before contact (or straight): warned ≥ {TARGET_LEAD_S} s ahead in {}/{}\n\
         every contact warned ≥ {MIN_LEAD_S} s ahead: {}/{}\n\
         right hooks warned ≥ {TARGET_LEAD_S} s ahead: {}/{}\n\
         negatives warned: {}/{} ({:.1} in 20; target ≤ 1)\n",
        leads.len(),
        positives.len(),
        median(leads.clone()).map_or("-".into(), |m| format!("{m:.2} s")),
        early.iter().filter(|r| r.lead_s.is_some_and(|l| l >= TARGET_LEAD_S)).count(),
        early.len(),
        positives.iter().filter(|r| r.lead_s.is_some_and(|l| l >= MIN_LEAD_S)).count(),
        positives.len(),
        hooks.iter().filter(|r| r.lead_s.is_some_and(|l| l >= TARGET_LEAD_S)).count(),
        hooks.len(),
        false_alarms,
        negatives.len(),
        20.0 * false_alarms as f64 / negatives.len().max(1) as f64,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph() -> LaneGraph {
        let osm = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/map/weiser-gabelsberger.osm");
        crate::sim::load_map(&osm).unwrap()
    }

    /// On the test T-junction (the stem north, no arm across from it) no cyclist comes
    /// oncoming to a car turning left out of the stem: that case is skipped (once, whatever
    /// the seeds), with the reason, and the others run.
    #[test]
    fn a_case_the_junction_cannot_film_is_skipped_with_its_reason() {
        let osm = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/map/test/t-junction.osm");
        let graph = crate::map::load(&osm, None).unwrap();
        let fits = cases(&graph, &[Shape::RightHook], &[Outcome::Contact]).unwrap();
        let fit = *fits.iter().find(|c| c.car_kmh == 10.0).expect("a right hook fits the T");
        let left = cases(&graph, &[Shape::LeftAcrossCyclist], &[Outcome::Contact]).unwrap();
        assert!(left.iter().all(|c| c.approach != 101), "{left:?}");
        let unfit = Case { shape: Shape::LeftAcrossCyclist, car_kmh: 10.0, outcome: Outcome::Contact, approach: 101 };
        let evaluated = evaluate_cases(&graph, &[unfit, fit], &[1, 2], &[], Conditions::NOMINAL).unwrap();
        let ran: Vec<(Case, u64)> = evaluated.runs.iter().map(|r| (r.case, r.seed)).collect();
        assert_eq!(ran, [(fit, 1), (fit, 2)]);
        let reason = "no VRU route for CBTA left, oncoming from lanelet 101".to_string();
        assert_eq!(evaluated.skipped, [Skipped { case: unfit, reason }]);
    }

    /// The short NCAP set `make test` runs: the right hook from every arm at NCAP's three speeds,
    /// contact and the VRU 3–4 s later, one seed. The bars are where the model stands now (see
    /// docs/warnings/ncap.md): every right hook warned before contact, none of the safe passes —
    /// raise them as the model improves; the target is every right hook ≥ 2 s ahead.
    #[test]
    fn every_ncap_right_hook_is_warned_and_no_safe_pass_is() {
        let runs = evaluate(
            &graph(),
            &[Shape::RightHook],
            &[Outcome::Contact, Outcome::VruLater],
            &[1],
            &[],
            Conditions::NOMINAL,
        )
        .unwrap();
        let (contacts, later): (Vec<&Run>, Vec<&Run>) = runs.iter().partition(|r| r.case.outcome == Outcome::Contact);
        assert_eq!(contacts.len(), 12, "four arms × three speeds");
        for r in &contacts {
            assert!(r.pet_s.is_some_and(|p| p < 0.5), "a contact: {r:?}");
            assert!(r.lead_s.is_some(), "right hook not warned before contact: {r:?}");
        }
        // At 10 km/h the turn begins 2.1–2.6 s before contact and is warned ahead of it.
        for r in contacts.iter().filter(|r| r.case.car_kmh == 10.0) {
            assert!(r.lead_s.is_some_and(|l| l >= 0.4), "{r:?}");
        }
        for r in &later {
            assert!(r.pet_s.is_none_or(|p| p >= 3.0), "a safe pass: {r:?}");
            assert!(!r.warned, "a safe pass warned: {r:?}");
        }
    }
}

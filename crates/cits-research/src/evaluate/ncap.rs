//! Euro NCAP's test shapes through the native pipeline: how long before contact the first
//! warning came, against when the car's turn began — the table `cits evaluate --ncap` prints.
//!
//! Pass lines (the warning decision issue's targets): a right hook by a car whose CAM signals
//! its turn is warned at least [`TARGET_LEAD_S`] ahead; a turn that begins at least
//! [`EARLY_TURN_S`] before contact gets the information at least [`INFORMATION_LEAD_S`] and the
//! warning at least [`super::MIN_LEAD_S`] (NCAP's line) ahead; an unsignalled right hook whose
//! turn begins at least [`LAST_POINT_TURN_S`] before contact is warned at least
//! [`LAST_POINT_S`] (R151's last point) ahead; straight crossings are warned at least
//! [`TARGET_LEAD_S`] ahead; a negative (true PET ≥ 3 s) is warned at most once and informed at
//! most three times in 20 runs. Each share with its 95 % (Wilson) interval.

use cits::proto::LaneGraph;

use super::{median, on_all_cores, run_scored, MIN_LEAD_S};
use crate::sim::ncap::{cases, film_case, Case, Outcome, Shape, Unfit, CONTACT_S};
use crate::sim::{Conditions, Kind};

/// A turn that begins this long before contact leaves time to warn [`TARGET_LEAD_S`] ahead.
pub const EARLY_TURN_S: f64 = 2.5;
pub const TARGET_LEAD_S: f64 = 2.0;
pub const INFORMATION_LEAD_S: f64 = 2.5;
/// R151's last point of information (reaction and braking before the collision point), and the
/// turn onset from which a warning there is within reach of an unsignalled turn's evidence.
pub const LAST_POINT_S: f64 = 1.4;
pub const LAST_POINT_TURN_S: f64 = 2.1;

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
    /// The first DENM's (information or warning) lead, and whether any came.
    pub information_lead_s: Option<f64>,
    pub informed: bool,
    /// The car's CAM indicated its turn.
    pub signalled: bool,
    /// When (s into the film) the contact came: the second of the two entering their shared area
    /// (as planned where the paths never come within reach).
    pub contact_s: f64,
    /// A yielding car's: when (s into the film) its yield first showed (0.5 m/s slower).
    pub yield_shows_s: Option<f64>,
}

impl Run {
    /// Whether a positive run meets every pass line it falls under ([`pass_lines`]); a late,
    /// unsignalled turn at least a warning before contact.
    pub fn passes(&self) -> bool {
        let at_least = |l: Option<f64>, s: f64| l.is_some_and(|l| l >= s);
        let turn = self.turn_before_contact_s;
        let hook = self.case.shape == Shape::RightHook;
        let mut pass = self.lead_s.is_some();
        if hook && self.signalled {
            pass &= at_least(self.lead_s, TARGET_LEAD_S);
        }
        if hook && !self.signalled && turn.is_some_and(|t| t >= LAST_POINT_TURN_S) {
            pass &= at_least(self.lead_s, LAST_POINT_S);
        }
        if turn.is_some_and(|t| t >= EARLY_TURN_S) {
            pass &= at_least(self.information_lead_s, INFORMATION_LEAD_S) && at_least(self.lead_s, MIN_LEAD_S);
        }
        if turn.is_none() {
            pass &= at_least(self.lead_s, TARGET_LEAD_S);
        }
        pass
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
    let times = |counted: fn(&etsi_its::denm::SimpleDenm) -> bool| -> Vec<i64> {
        denms.iter().filter(|d| counted(&d.denm)).map(|d| d.at_us as i64).collect()
    };
    let (warnings, notices) = (times(cits::stages::denm_sender::is_warning), times(|d| d.termination.is_none()));
    let lead =
        |v: &[i64]| v.iter().copied().filter(|&at| at <= contact_us).min().map(|at| (contact_us - at) as f64 / 1e6);
    Ok(Run {
        case: *case,
        seed,
        turn_before_contact_s: filmed.turn_onset_s.map(|t| (contact_us - start_us) as f64 / 1e6 - t),
        pet_s: encounter.map(|e| e.pet_s),
        lead_s: lead(&warnings),
        warned: !warnings.is_empty(),
        information_lead_s: lead(&notices),
        informed: !notices.is_empty(),
        signalled: car.is_some_and(|c| filmed.sim.signalled.contains(&c)),
        contact_s: (contact_us - start_us) as f64 / 1e6,
        yield_shows_s: filmed.yield_shows_s,
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
        "{:<22} {:>6} {:>5} {:>11} {:>9} {:>9} {:>8} {:>13} {:>8} {:>6}\n",
        "shape (contact)",
        "km/h",
        "runs",
        "turn at -s",
        "signalled",
        "info med",
        "warned",
        "lead med/min",
        "≥2.0 s",
        "pass"
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
        let info = median(g.iter().filter_map(|r| r.information_lead_s).collect());
        out.push_str(&format!(
            "{:<22} {:>6} {:>5} {:>11} {:>9} {:>9} {:>8} {:>13} {:>8} {:>6}\n",
            shape.name(),
            kmh,
            g.len(),
            range_text(&onsets),
            format!("{}/{}", g.iter().filter(|r| r.signalled).count(), g.len()),
            info.map_or("-".into(), |m| format!("{m:.2}")),
            format!("{}/{}", leads.len(), g.len()),
            lead,
            format!("{}/{}", leads.iter().filter(|l| **l >= TARGET_LEAD_S).count(), g.len()),
            format!("{}/{}", g.iter().filter(|r| r.passes()).count(), g.len()),
        ));
    }
    let negatives: Vec<&Run> = runs.iter().filter(|r| r.case.outcome != Outcome::Contact).collect();
    if !negatives.is_empty() {
        out.push_str(&format!(
            "\n{:<22} {:<30} {:>5} {:>10} {:>7} {:>9} {:>16}\n",
            "shape (negative)", "outcome", "runs", "PET min", "warned", "informed", "yield shows -s"
        ));
        let mut groups: Vec<(Shape, Outcome)> = negatives.iter().map(|r| (r.case.shape, r.case.outcome)).collect();
        groups.sort();
        groups.dedup();
        for (shape, outcome) in groups {
            let g: Vec<&&Run> =
                negatives.iter().filter(|r| r.case.shape == shape && r.case.outcome == outcome).collect();
            let pet = g.iter().map(|r| r.pet_s.unwrap_or(f64::INFINITY)).fold(f64::INFINITY, f64::min);
            let shows: Vec<f64> = g.iter().filter_map(|r| yield_shows_before_contact(r, &positives)).collect();
            out.push_str(&format!(
                "{:<22} {:<30} {:>5} {:>10} {:>7} {:>9} {:>16}\n",
                shape.name(),
                outcome.name(),
                g.len(),
                if pet.is_finite() { format!("{pet:.2} s") } else { "apart".into() },
                format!("{}/{}", g.iter().filter(|r| r.warned).count(), g.len()),
                format!("{}/{}", g.iter().filter(|r| r.informed).count(), g.len()),
                if shows.is_empty() { "-".into() } else { range_text(&shows) },
            ));
        }
        if negatives.iter().any(|r| r.yield_shows_s.is_some()) {
            out.push_str(
                "(yield shows -s: how long before the contact it avoids a yielding car is first 0.5 m/s slower than it \
                 came, the contact as in the same case's contact runs)\n",
            );
        }
    }
    out.push('\n');
    out.push_str(&summary(runs));
    out
}

/// How long before the contact it avoids a yielding run's yield shows: the contact of the
/// same case's contact runs (the car's path and speed are theirs until it brakes), the median
/// over their seeds.
pub fn yield_shows_before_contact(run: &Run, positives: &[&Run]) -> Option<f64> {
    let shows = run.yield_shows_s?;
    let same = |r: &&&Run| {
        r.case.shape == run.case.shape && r.case.car_kmh == run.case.car_kmh && r.case.approach == run.case.approach
    };
    let contact = median(positives.iter().filter(same).map(|r| r.contact_s).collect())?;
    Some(contact - shows)
}

/// A share `hits` of `n` with its 95 % Wilson interval, e.g. "11/12 (65-99 %)".
pub fn share_ci(hits: usize, n: usize) -> String {
    if n == 0 {
        return "0/0".into();
    }
    let (k, n_f, z) = (hits as f64, n as f64, 1.96);
    let p = k / n_f;
    let centre = (p + z * z / (2.0 * n_f)) / (1.0 + z * z / n_f);
    let half = z * (p * (1.0 - p) / n_f + z * z / (4.0 * n_f * n_f)).sqrt() / (1.0 + z * z / n_f);
    format!("{hits}/{n} ({:.0}-{:.0} %)", 100.0 * (centre - half).max(0.0), 100.0 * (centre + half).min(1.0))
}

/// One pass line: its runs and how many pass.
pub struct PassLine {
    pub name: String,
    pub runs: usize,
    pub passed: usize,
}

/// The pass lines of the module's doc over `runs`.
pub fn pass_lines(runs: &[Run]) -> Vec<PassLine> {
    let positives: Vec<&Run> = runs.iter().filter(|r| r.case.outcome == Outcome::Contact).collect();
    let negatives: Vec<&Run> = runs.iter().filter(|r| r.case.outcome != Outcome::Contact).collect();
    let at_least = |l: Option<f64>, s: f64| l.is_some_and(|l| l >= s);
    let line = |name: String, of: Vec<&&Run>, pass: &dyn Fn(&Run) -> bool| PassLine {
        name,
        runs: of.len(),
        passed: of.iter().filter(|r| pass(r)).count(),
    };
    let hooks = |signalled: bool| -> Vec<&&Run> {
        positives.iter().filter(|r| r.case.shape == Shape::RightHook && r.signalled == signalled).collect()
    };
    vec![
        line(format!("signalled right hooks warned ≥ {TARGET_LEAD_S} s ahead"), hooks(true), &|r| {
            at_least(r.lead_s, TARGET_LEAD_S)
        }),
        line(
            format!("unsignalled right hooks, turn ≥ {LAST_POINT_TURN_S} s before contact: warned ≥ {LAST_POINT_S} s"),
            hooks(false).into_iter().filter(|r| r.turn_before_contact_s.is_some_and(|t| t >= LAST_POINT_TURN_S)).collect(),
            &|r| at_least(r.lead_s, LAST_POINT_S),
        ),
        line(
            format!(
                "turns begun ≥ {EARLY_TURN_S} s before contact: information ≥ {INFORMATION_LEAD_S} s, warning ≥ {MIN_LEAD_S} s"
            ),
            positives.iter().filter(|r| r.turn_before_contact_s.is_some_and(|t| t >= EARLY_TURN_S)).collect(),
            &|r| at_least(r.information_lead_s, INFORMATION_LEAD_S) && at_least(r.lead_s, MIN_LEAD_S),
        ),
        line(
            format!("straight crossings (cyclists, pedestrians) warned ≥ {TARGET_LEAD_S} s ahead"),
            positives.iter().filter(|r| !r.case.shape.turns()).collect(),
            &|r| at_least(r.lead_s, TARGET_LEAD_S),
        ),
        line("negatives without a warning (target ≥ 19 in 20)".into(), negatives.iter().collect(), &|r| !r.warned),
        line("negatives without an information (target ≥ 17 in 20)".into(), negatives.iter().collect(), &|r| {
            !r.informed
        }),
    ]
}

/// The totals against the pass lines, one line each.
pub fn summary(runs: &[Run]) -> String {
    let positives: Vec<&Run> = runs.iter().filter(|r| r.case.outcome == Outcome::Contact).collect();
    let leads: Vec<f64> = positives.iter().filter_map(|r| r.lead_s).collect();
    let negatives = runs.iter().filter(|r| r.case.outcome != Outcome::Contact).count().max(1) as f64;
    let mut out = format!(
        "contacts warned: {}, median lead {}\n",
        share_ci(leads.len(), positives.len()),
        median(leads.clone()).map_or("-".into(), |m| format!("{m:.2} s")),
    );
    for l in pass_lines(runs) {
        out.push_str(&format!("{}: {}\n", l.name, share_ci(l.passed, l.runs)));
    }
    let warned = runs.iter().filter(|r| r.case.outcome != Outcome::Contact && r.warned).count() as f64;
    let informed = runs.iter().filter(|r| r.case.outcome != Outcome::Contact && r.informed).count() as f64;
    out.push_str(&format!(
        "negatives: warning {:.1} in 20 (target ≤ 1), information {:.1} in 20 (target ≤ 3)\n",
        20.0 * warned / negatives,
        20.0 * informed / negatives
    ));
    // Which yields a rule that sees only the past could spare: those whose braking shows (and
    // has been measured for YIELD_MEASURED_S) before the line their contact twin is due a
    // warning by. Until then the two are one film.
    let yields: Vec<(&Run, f64)> =
        runs.iter().filter_map(|r| yield_shows_before_contact(r, &positives).map(|s| (r, s))).collect();
    if !yields.is_empty() {
        let separable: Vec<&(&Run, f64)> =
            yields.iter().filter(|(r, shows)| *shows >= warning_line(r.case.shape) + YIELD_MEASURED_S).collect();
        out.push_str(&format!(
            "yields that show {YIELD_MEASURED_S} s before their contact twin's warning line: {}/{} (of them warned: {}); \
             the others look like their twin until after the line: a floor of {:.1} warnings in 20 negatives\n",
            separable.len(),
            yields.len(),
            separable.iter().filter(|(r, _)| r.warned).count(),
            20.0 * (yields.len() - separable.len()) as f64 / negatives,
        ));
    }
    out
}

/// How long a speed must be measured before a yield's braking tells from noise, s.
const YIELD_MEASURED_S: f64 = 0.5;

/// The lead a contact of `shape` is due a warning by: NCAP's 1.7 s for a turn across a
/// pedestrian or an oncoming cyclist, 2 s for the right hook and straight crossings.
fn warning_line(shape: Shape) -> f64 {
    match shape {
        Shape::LeftAcrossCyclist | Shape::TurnAcrossPedestrian { .. } => MIN_LEAD_S,
        Shape::RightHook | Shape::CrossingCyclist { .. } | Shape::CrossingPedestrian { .. } => TARGET_LEAD_S,
    }
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
        let graph = cits_map::load(&osm, None).unwrap();
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
    /// contact and the VRU 3–4 s later, one seed, each car sending CAMs (three in four drivers
    /// indicate, [`crate::sim::SIGNAL_P`]). Every right hook whose car signals is warned at least
    /// 2 s before contact (its indicator escalates the information); every one is warned before
    /// contact; a safe pass gets neither a warning nor an information. One signalled hook is
    /// still warned late (1.6 s): its cyclist, riding by the kerb, is taken to turn right as
    /// well at 0.4-0.6, and the risk stays below the information bar the signal escalates
    /// (the issue on warnings keeps it open). The yielding negative is
    /// not here: in our films the yielding car shows its braking only ~1.7 s before the contact
    /// it avoids, after the line a signalled hook is warned at (docs/warnings.md).
    #[test]
    fn signalled_right_hooks_are_warned_two_seconds_ahead_and_safe_passes_not_at_all() {
        let cams = Conditions::named("cams-100").unwrap();
        let runs =
            evaluate(&graph(), &[Shape::RightHook], &[Outcome::Contact, Outcome::VruLater], &[1], &[], cams).unwrap();
        let (contacts, later): (Vec<&Run>, Vec<&Run>) = runs.iter().partition(|r| r.case.outcome == Outcome::Contact);
        assert_eq!(contacts.len(), 12, "four arms × three speeds");
        assert!(contacts.iter().filter(|r| r.signalled).count() >= 6, "most drivers indicate: {contacts:?}");
        for r in &contacts {
            assert!(r.pet_s.is_some_and(|p| p < 0.5), "a contact: {r:?}");
            assert!(r.lead_s.is_some(), "right hook not warned before contact: {r:?}");
        }
        let late: Vec<&&Run> =
            contacts.iter().filter(|r| r.signalled && !r.lead_s.is_some_and(|l| l >= TARGET_LEAD_S)).collect();
        assert!(late.len() <= 1, "signalled, warned late: {late:?}");
        for r in &later {
            assert!(r.pet_s.is_none_or(|p| p >= 3.0), "a safe pass: {r:?}");
            assert!(!r.warned && !r.informed, "a safe pass warned or informed: {r:?}");
        }
    }
}

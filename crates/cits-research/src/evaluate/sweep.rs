//! Sweeping the warning policy: logged risk frames replayed under each policy of a grid, and the
//! calibration of predicted route probabilities against the routes taken.

use std::collections::HashMap;

use cits::proto::{ActiveWarnings, CollisionRiskFrame, LaneGraph, PredictedPath};
use cits::stages::collision_detector::DetectorConfig;
use cits::stages::denm_sender::{step_covering, SenderConfig};

use super::pipeline::emitted;
use super::{on_all_cores, road_user, score_truth, EmittedDenm, NativePipeline, Score};
use crate::sim::{Params, Truth};

/// The DENMs the sender makes of logged risk frames when the detector stages them by `policy`
/// ([`DetectorConfig::stage`]; risks it leaves out are not reported), held for `frames` consecutive frames by the
/// same two tracked objects — what a run with that policy would send.
pub fn replay_policy(risks: &[(u64, CollisionRiskFrame)], policy: &DetectorConfig, frames: u32) -> Vec<EmittedDenm> {
    type Pair = (u32, u32, u32, u32);
    let pair = |r: &cits::proto::CollisionRisk| -> Pair {
        let (a, b) = (r.first.unwrap_or_default(), r.second.unwrap_or_default());
        (a.sensor_id, a.object_id, b.sensor_id, b.object_id)
    };
    let sender = SenderConfig::default();
    let mut warnings = ActiveWarnings::default();
    let mut on_air = HashMap::new();
    let mut held: HashMap<Pair, u32> = HashMap::new();
    let mut out = Vec::new();
    for (now, frame) in risks {
        let qualifying: Vec<cits::proto::CollisionRisk> = frame
            .risks
            .iter()
            .filter_map(|r| {
                let stage = policy.stage(r.probability, r.time_to_collision_s, r.signalled)?;
                Some(cits::proto::CollisionRisk { stage: stage as i32, ..*r })
            })
            .collect();
        // Consecutive frames each pair has qualified in, this one included.
        let mut now_held: HashMap<Pair, u32> = HashMap::new();
        for r in &qualifying {
            let k = pair(r);
            let n = held.get(&k).copied().unwrap_or(0) + 1;
            now_held.insert(k, n);
        }
        held = now_held;
        let kept = CollisionRiskFrame {
            risks: qualifying.into_iter().filter(|r| held[&pair(r)] >= frames).collect(),
            ..frame.clone()
        };
        let stepped = step_covering(&mut warnings, &kept, *now, &sender);
        out.extend(emitted(*now, &warnings, &mut on_air, &kept, stepped));
    }
    out
}

/// Per bin of predicted route probability (tenths): routes predicted, and how many of them the
/// road user then took. Only vehicles with more than one route count (one route is certain; a
/// pedestrian's "stops at the kerb" lies along the route she takes either way).
pub type Calibration = [(usize, usize); 10];

/// Whether the road user took `route`: every lanelet of it is on the user's true route.
fn calibration(paths: &[PredictedPath], truth: &Truth) -> Calibration {
    let mut bins = [(0usize, 0usize); 10];
    for p in paths.iter().filter(|p| p.mode != cits::proto::TravelMode::Pedestrian as i32) {
        let alternatives = paths
            .iter()
            .filter(|q| {
                q.observed_at_us == p.observed_at_us && q.object_id == p.object_id && q.sensor_id == p.sensor_id
            })
            .count();
        if alternatives < 2 {
            continue;
        }
        let Some(user) =
            road_user(truth, &cits::stages::collision_detector::object(p), (p.observed_at_us / 1000) as i64)
        else {
            continue;
        };
        let Some(u) = truth.road_users.iter().find(|u| u.id == user) else { continue };
        let bin = ((p.probability * 10.0) as usize).min(9);
        bins[bin].0 += 1;
        bins[bin].1 += usize::from(p.lanelet_sequence.iter().all(|l| u.route.contains(l)));
    }
    bins
}

/// What sweeping the warning policy gives: per policy (thresholds, frames held) the summed
/// score over the seeds, and the calibration of route probabilities.
/// A warning policy of the sweep (and the frames a risk is held) with its score.
pub type PolicyScore = (DetectorConfig, u32, Score);

pub fn sweep(
    graph: &LaneGraph,
    seeds: &[u64],
    params: &Params,
    config: &[(String, String)],
    grid: &[(DetectorConfig, u32)],
) -> anyhow::Result<(Vec<PolicyScore>, Calibration)> {
    // Each seed on its own thread (all cores): simulate, log every risk, replay the grid.
    let per_seed = |seed: u64| -> anyhow::Result<(Vec<Score>, Calibration)> {
        let sim = crate::sim::simulate(graph, &Params { seed, ..*params })?;
        let truth = crate::sim::truth(&sim);
        let mut pipeline = NativePipeline::logging_all_risks(graph, config)?;
        for r in &sim.records {
            pipeline.process(cits_client::demo::RSU_ID, &r.cpm, r.timestamp_ms * 1000)?;
        }
        let log = pipeline.log.take().unwrap_or_default();
        let scores = grid
            .iter()
            .map(|(policy, frames)| score_truth(&replay_policy(&log.risks, policy, *frames), &truth))
            .collect();
        Ok((scores, calibration(&log.paths, &truth)))
    };
    let results = on_all_cores(seeds, per_seed)?;
    let mut scores: Vec<Score> = vec![Score::default(); grid.len()];
    let mut bins = [(0usize, 0usize); 10];
    for (seed_scores, seed_bins) in results {
        for (total, s) in scores.iter_mut().zip(&seed_scores) {
            total.add(s);
        }
        for (b, (n, hit)) in bins.iter_mut().zip(seed_bins) {
            b.0 += n;
            b.1 += hit;
        }
    }
    Ok((grid.iter().zip(scores).map(|((policy, frames), s)| (policy.clone(), *frames, s)).collect(), bins))
}

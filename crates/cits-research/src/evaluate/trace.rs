//! Tracing two road users through the pipeline, frame by frame: their predicted routes and the
//! risk between them, for finding out why a warning was false or late.

use std::collections::HashMap;

use cits::proto::{LaneGraph, PredictedPath};
use cits::shared::geo::{wgs84_to_offset, Wgs84};

use super::{road_user, NativePipeline};
use crate::sim::Params;

/// What the pipeline made of two road users, frame by frame, in one simulated recording: each
/// one's predicted routes (turns and probabilities, speed ahead) and the risk between them with
/// its probability and TTC — whether or not the policy would warn. For finding out why a
/// warning was false or late.
pub fn trace(
    graph: &LaneGraph,
    seed: u64,
    params: &Params,
    config: &[(String, String)],
    users: [u32; 2],
) -> anyhow::Result<Vec<String>> {
    trace_recording(graph, &crate::sim::simulate(graph, &Params { seed, ..*params })?, config, users)
}

/// [`trace`] of a recording already simulated (e.g. one NCAP case).
pub fn trace_recording(
    graph: &LaneGraph,
    sim: &crate::sim::Simulation,
    config: &[(String, String)],
    users: [u32; 2],
) -> anyhow::Result<Vec<String>> {
    let truth = crate::sim::truth(sim);
    let policy = NativePipeline::configured(graph, config)?.detector().clone();
    let mut pipeline = NativePipeline::logging_all_risks(graph, config)?;
    let turn: HashMap<i64, &str> = graph.lanelets.iter().map(|l| (l.id, l.turn().name())).collect();
    let mut out = Vec::new();
    for r in &sim.records {
        let seen = pipeline.log.as_ref().map_or(0, |l| l.paths.len());
        pipeline.process(cits_client::demo::RSU_ID, &r.cpm, r.timestamp_ms * 1000)?;
        let Some(log) = &pipeline.log else { continue };
        let Some((now, frame)) = log.risks.last() else { continue };
        let at_ms = (*now / 1000) as i64;
        let user_of = |p: &PredictedPath| road_user(&truth, &cits::stages::collision_detector::object(p), at_ms);
        let mut lines = Vec::new();
        for p in log.paths[seen..].iter().filter(|p| user_of(p).is_some_and(|u| users.contains(&u))) {
            let turns: Vec<String> = p
                .lanelet_sequence
                .iter()
                .map(|l| match turn.get(l).copied().unwrap_or("") {
                    "" => l.to_string(),
                    t => format!("{l}:{t}"),
                })
                .collect();
            let origin = Wgs84 { lat: p.positions[0].latitude, lon: p.positions[0].longitude };
            let ahead = p.positions.last().map_or(0.0, |q| {
                let (x, y) = wgs84_to_offset(origin, Wgs84 { lat: q.latitude, lon: q.longitude });
                x.hypot(y)
            });
            // Speed at the start of the prediction: its first step.
            let speed = match (p.positions.first(), p.positions.get(1)) {
                (Some(a), Some(b)) if b.at_us > a.at_us => {
                    let (x, y) = wgs84_to_offset(
                        Wgs84 { lat: a.latitude, lon: a.longitude },
                        Wgs84 { lat: b.latitude, lon: b.longitude },
                    );
                    x.hypot(y) / ((b.at_us - a.at_us) as f64 / 1e6)
                }
                _ => 0.0,
            };
            lines.push(format!(
                "  #{} sensor {} obj {}/{} rank {} p {:.2} route [{}] {:.1} m/s, {:.1} m in the horizon",
                user_of(p).unwrap_or(0),
                p.sensor_id,
                p.object_id,
                p.generation,
                p.rank,
                p.probability,
                turns.join(" "),
                speed,
                ahead
            ));
        }
        for risk in &frame.risks {
            let (Some(a), Some(b)) = (&risk.first, &risk.second) else { continue };
            let pair = [road_user(&truth, a, at_ms), road_user(&truth, b, at_ms)];
            if pair.iter().all(|u| u.is_some_and(|u| users.contains(&u))) && pair[0] != pair[1] {
                let stage = policy.stage(risk.probability, risk.time_to_collision_s, risk.signalled);
                lines.push(format!(
                    "  risk p {:.2} ttc {:.2} s{}{}",
                    risk.probability,
                    risk.time_to_collision_s,
                    if risk.signalled { " signalled" } else { "" },
                    match stage {
                        Some(cits::proto::RiskStage::Warning) => " (a warning by the policy)",
                        Some(cits::proto::RiskStage::Information) => " (an information by the policy)",
                        None => "",
                    }
                ));
            }
        }
        if !lines.is_empty() {
            out.push(cits_client::watch::format_time_us(*now));
            out.extend(lines);
        }
    }
    Ok(out)
}

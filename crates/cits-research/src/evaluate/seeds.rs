//! Seed lists and running seeds: parsing `1-10`, `3`, `1,4,7-9`, spreading seeds over all cores,
//! and the score of each simulated seed.

use cits::proto::LaneGraph;

use super::{run_scored, score_truth, Score};
use crate::sim::Params;

/// Parses a seed list: `1-10`, `3`, `1,4,7-9`.
pub fn parse_seeds(text: &str) -> anyhow::Result<Vec<u64>> {
    let mut seeds = Vec::new();
    for part in text.split(',').map(str::trim) {
        let (from, to) = part.split_once('-').unwrap_or((part, part));
        let (from, to): (u64, u64) = (from.trim().parse()?, to.trim().parse()?);
        anyhow::ensure!(from <= to, "seed range {part} runs backwards");
        seeds.extend(from..=to);
    }
    Ok(seeds)
}

/// `work` for every seed, the seeds spread over all cores (each seed is independent: simulate,
/// run, score); results in no particular order.
pub(super) fn on_all_cores<I: Copy + Send + Sync, T: Send>(
    seeds: &[I],
    work: impl Fn(I) -> anyhow::Result<T> + Sync,
) -> anyhow::Result<Vec<T>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(seeds.len().max(1));
    let work = &work;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let chunk: Vec<I> = seeds.iter().copied().skip(t).step_by(threads).collect();
                scope.spawn(move || chunk.into_iter().map(work).collect::<anyhow::Result<Vec<T>>>())
            })
            .collect();
        let per_thread = handles
            .into_iter()
            .map(|h| h.join().expect("evaluation thread panicked"))
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(per_thread.into_iter().flatten().collect())
    })
}

/// Simulates each seed with `params` (its seed replaced) and scores the native pipeline's
/// DENMs; seeds run on all cores.
pub fn evaluate_seeds(
    graph: &LaneGraph,
    seeds: &[u64],
    params: &Params,
    config: &[(String, String)],
) -> anyhow::Result<Vec<(u64, Score)>> {
    let mut rows = on_all_cores(seeds, |seed| {
        let sim = crate::sim::simulate(graph, &Params { seed, ..*params })?;
        let denms = run_scored(graph, &sim.records, config)?;
        Ok((seed, score_truth(&denms, &crate::sim::truth(&sim))))
    })?;
    rows.sort_by_key(|r| r.0);
    Ok(rows)
}

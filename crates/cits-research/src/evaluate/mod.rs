//! The whole warning pipeline run natively, in process, on a recording — the same stage functions
//! the actors wrap — and its DENMs scored against the simulator's planted conflicts.
//!
//! It tells whether the stage logic warns in time before any Wasm or broker is involved, and is
//! the native reference for the platform's measurements.
//!
//! By concern: `pipeline` (the native pipeline), `score` (against the truth), `seeds` (seed
//! lists, all cores), `sweep` (the warning policy's grid), `trace` (two road users, frame by
//! frame), `table` (Markdown); per map in [`maps`], Euro NCAP's shapes in [`ncap`].

pub mod maps;
pub mod ncap;
mod pipeline;
mod score;
mod seeds;
mod sweep;
mod table;
#[cfg(test)]
mod tests;
mod trace;

pub use pipeline::{floor_fixture, run, run_scored, EmittedDenm, Log, NativePipeline};
use score::median;
pub use score::{road_user, score, score_truth, Score, CLEARLY_SAFE_PET_S, CONFLICT_PET_S, MIN_LEAD_S};
use seeds::on_all_cores;
pub use seeds::{evaluate_seeds, parse_seeds};
pub use sweep::{replay_policy, sweep, Calibration, PolicyScore};
pub use table::table;
pub use trace::{trace, trace_recording};

//! The collision detector as a pipeline stage: its input decoded and checked against the limits, its config read, its
//! domain logic called, its state read and written through [`Services`].

use super::{current_paths, decode_stored, detect, encode_stored, intersection_of, update_paths, DetectorConfig};
use crate::config::Declared;
use crate::limits::Limits;
use crate::message::{Outbound, StageError};
use crate::pipeline::{buckets, entries, process_frame, FrameStage, Handler, Inbound, Services};
use crate::proto::{CollisionRiskFrame, PredictedPathFrame, RsuPaths};
use crate::subjects;

/// Each RSU's current paths are one key-value entry of its intersection; a frame rewrites its own
/// RSU's entry and tests the paths of all RSUs there, so objects seen by different RSUs meet.
pub struct CollisionDetector;

impl Handler for CollisionDetector {
    const INPUT_IS_FRAME: bool = true;
    const STATEFUL: bool = true;
    const NAME: &'static str = super::STAGE;
    const CONFIG: Declared = &[super::KEYS, crate::limits::KEYS];

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        process_frame::<Self, V>(svc, msg)
    }
}

impl FrameStage for CollisionDetector {
    type Input = PredictedPathFrame;
    type Output = CollisionRiskFrame;

    fn next_frame<V: Services>(
        svc: &mut V,
        frame: &mut Self::Input,
        subject: &str,
    ) -> Result<Self::Output, StageError> {
        let config = svc.config()?;
        let limits = Limits::from_config(Self::NAME, entries(&config))?;
        limits.check_predicted(frame, subject)?;
        let cfg = DetectorConfig {
            max_pairs: limits.max_pairs_per_frame,
            max_paths: limits.max_paths_per_frame,
            ..DetectorConfig::from_config(entries(&config))?
        };
        let (intersection, rsus) = intersection_of(&frame.rsu_id, entries(&config));
        let keys: Vec<String> = rsus.iter().map(|rsu| super::state_key(&intersection, rsu)).collect();
        // Paths expire within the TTL anyway: lost state is rebuilt by the next frames.
        let mut states: Vec<RsuPaths> =
            svc.get_many(buckets::PATHS, &keys)?.iter().map(|v| decode_stored(v.as_deref())).collect();
        // Invariant: `intersection_of` lists the RSU it is asked about (alone, or with the RSUs
        // configured at its intersection, its own entry among them).
        let own = rsus.iter().position(|rsu| *rsu == frame.rsu_id).expect("intersection_of lists the RSU itself");
        let now = frame.reference_time_us;
        // The paths are taken once nothing but an unavailable store can refuse the frame.
        update_paths(&mut states[own], std::mem::take(&mut frame.paths), now, &cfg);
        let risks = detect(&current_paths(&states, now, &cfg), now, &cfg);
        svc.set_many(buckets::PATHS, vec![(keys[own].clone(), encode_stored(&mut states[own]))])?;
        Ok(CollisionRiskFrame {
            rsu_id: std::mem::take(&mut frame.rsu_id),
            reference_time_us: now,
            risks,
            frame_id: std::mem::take(&mut frame.frame_id),
            trace: std::mem::take(&mut frame.trace),
        })
    }

    fn subject(frame: &Self::Output) -> String {
        subjects::risks(&frame.rsu_id)
    }
}

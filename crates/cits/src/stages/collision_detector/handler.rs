//! The collision detector as a pipeline stage: its input decoded and checked against the limits, its config read, its
//! domain logic called, its state read and written through [`Services`].

use super::{current_paths, detect, intersection_of, update_paths, DetectorConfig};
use crate::config::Declared;
use crate::limits::Limits;
use crate::message::{decode_input, decode_state_or_empty, Outbound, StageError, Traced as _};
use crate::pipeline::{buckets, entries, Handler, Inbound, Services};
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
        let frame: PredictedPathFrame = decode_input(msg.body, "PredictedPathFrame")?;
        let config = svc.config()?;
        let limits = Limits::from_config(Self::NAME, entries(&config))?;
        limits.check_predicted(&frame, msg.subject)?;
        let cfg = DetectorConfig {
            max_pairs: limits.max_pairs_per_frame,
            max_paths: limits.max_paths_per_frame,
            ..DetectorConfig::from_config(entries(&config))?
        };
        let (intersection, rsus) = intersection_of(&frame.rsu_id, entries(&config));
        let keys: Vec<String> = rsus.iter().map(|rsu| super::state_key(&intersection, rsu)).collect();
        // Paths expire within the TTL anyway: lost state is rebuilt by the next frames.
        let mut states: Vec<RsuPaths> =
            svc.get_many(buckets::PATHS, &keys)?.iter().map(|v| decode_state_or_empty(v.as_deref())).collect();
        // Invariant: `intersection_of` lists the RSU it is asked about (alone, or with the RSUs
        // configured at its intersection, its own entry among them).
        let own = rsus.iter().position(|rsu| *rsu == frame.rsu_id).expect("intersection_of lists the RSU itself");
        let now = frame.reference_time_us;
        update_paths(&mut states[own], frame.paths, now, &cfg);
        let risks = detect(&current_paths(&states, now, &cfg), now, &cfg);
        svc.set_many(buckets::PATHS, vec![(keys[own].clone(), crate::shared::encode::encode(&states[own]))])?;
        let out = CollisionRiskFrame {
            rsu_id: frame.rsu_id,
            reference_time_us: now,
            risks,
            frame_id: frame.frame_id,
            trace: frame.trace,
        };
        Ok(vec![Outbound {
            subject: subjects::risks(&out.rsu_id),
            body: out.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }
}

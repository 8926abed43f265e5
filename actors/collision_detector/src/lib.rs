//! Collision detector actor: the Wasm shim around [`cits::collision`]. Each RSU's current paths
//! are one key-value entry of its intersection; a frame rewrites its own RSU's entry and tests
//! the paths of all RSUs there, so objects seen by different RSUs meet.

use cits::collision::{current_paths, detect, intersection_of, state_key, update_paths, DetectorConfig};
use cits::proto::{CollisionRiskFrame, PredictedPathFrame, RsuPaths};
use cits::stage::{decode_input, decode_state_or_empty, Traced as _};
use cits_actor::{kv, Config, Inbound, Outbound, Stage, StageError};
use prost::Message as _;

/// Key-value bucket of the paths (a Redis key prefix with our provider).
const BUCKET: &str = "paths";

struct CollisionDetector;

impl Stage for CollisionDetector {
    const NAME: &'static str = cits::collision::STAGE;

    fn process(msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let frame: PredictedPathFrame = decode_input(msg.body, "PredictedPathFrame")?;
        let config = Config::load()?;
        let cfg = DetectorConfig::from_config(config.entries())?;
        let (intersection, rsus) = intersection_of(&frame.rsu_id, config.entries());
        let keys: Vec<String> = rsus.iter().map(|rsu| state_key(&intersection, rsu)).collect();
        // Paths expire within the TTL anyway: lost state is rebuilt by the next frames.
        let mut states: Vec<RsuPaths> =
            kv::get_many(BUCKET, &keys)?.iter().map(|v| decode_state_or_empty(v.as_deref())).collect();
        let own = rsus.iter().position(|rsu| *rsu == frame.rsu_id).expect("intersection_of lists the RSU itself");
        let now = frame.reference_time_us;
        update_paths(&mut states[own], frame.paths, now, &cfg);
        let risks = detect(&current_paths(&states, now, &cfg), now, &cfg);
        kv::set_many(BUCKET, vec![(keys[own].clone(), states[own].encode_to_vec())])?;
        let out = CollisionRiskFrame { rsu_id: frame.rsu_id, reference_time_us: now, risks, trace: frame.trace };
        Ok(vec![Outbound {
            subject: cits::subjects::risks(&out.rsu_id),
            body: out.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }
}

cits_actor::export_stage!(CollisionDetector);

//! Predictor actor: the Wasm shim around [`cits::predictor`]; the lane graph comes from the route
//! tiles under the frame's trajectories (blobstore), horizon and step from named config.

use cits::map_matcher::route_tile_object;
use cits::predictor::{predict, LaneMap, PredictorConfig};
use cits::proto::{MatchedTrajectoryFrame, PredictedPathFrame};
use cits::stage::{decode_input, Traced as _};
use cits_actor::{Config, Inbound, MapTiles, Outbound, Stage, StageError};

struct Predictor;

impl Stage for Predictor {
    const NAME: &'static str = cits::predictor::STAGE;

    fn process(msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let frame: MatchedTrajectoryFrame = decode_input(msg.body, "MatchedTrajectoryFrame")?;
        let cfg = PredictorConfig::from_config(Config::load()?.entries())?;
        let mut maps = MapTiles::new(route_tile_object, LaneMap::new);
        let mut paths = Vec::new();
        for t in &frame.trajectories {
            let Some(last) = t.points.last() else { continue };
            paths.extend(predict(maps.at(last.latitude, last.longitude)?, t, &cfg));
        }
        // Sent even without paths: the detector's state and the DENM sender's terminations
        // advance with every frame.
        let out = PredictedPathFrame {
            rsu_id: frame.rsu_id.clone(),
            reference_time_us: frame.reference_time_us,
            paths,
            trace: frame.trace,
        };
        Ok(vec![Outbound {
            subject: cits::subjects::predicted(&out.rsu_id),
            body: out.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }
}

cits_actor::export_stage!(Predictor);

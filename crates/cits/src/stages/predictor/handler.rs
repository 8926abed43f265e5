//! The predictor as a pipeline stage: its input decoded and checked against the limits, its config read, its
//! domain logic called, its state read and written through [`Services`].

use super::{learn_and_predict, LaneMap, PredictorConfig};
use crate::config::Declared;
use crate::limits::Limits;
use crate::message::{decode_input, decode_state_or_empty, Outbound, StageError, Traced as _};
use crate::pipeline::{buckets, entries, Handler, Inbound, MapTiles, Services};
use crate::proto::{MatchedTrajectoryFrame, PredictedPathFrame, TurnPriors};
use crate::stages::map_matcher::ROUTE_REACH_M;
use crate::subjects;

/// The lane graph comes from the map tile(s) under the frame's trajectories.
pub struct Predictor;

impl Handler for Predictor {
    const INPUT_IS_FRAME: bool = true;
    const NAME: &'static str = super::STAGE;
    const CONFIG: Declared = &[super::KEYS, crate::pipeline::tiles::KEYS, crate::limits::KEYS];

    fn process<V: Services>(svc: &mut V, msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let frame: MatchedTrajectoryFrame = decode_input(msg.body, "MatchedTrajectoryFrame")?;
        let config = svc.config()?;
        Limits::from_config(Self::NAME, entries(&config))?.check_matched(&frame, msg.subject)?;
        let cfg = PredictorConfig::from_config(entries(&config))?;
        let mut maps = MapTiles::restore(svc, Self::NAME, LaneMap::new, ROUTE_REACH_M)?;
        let key = frame.rsu_id.clone();
        let stored = svc.get_many(buckets::TURN_PRIORS, std::slice::from_ref(&key))?;
        let mut priors: TurnPriors = decode_state_or_empty(stored[0].as_deref());
        let (mut paths, mut learned) = (Vec::new(), false);
        for t in &frame.trajectories {
            let Some(last) = t.points.last() else { continue };
            let (predicted, counted) =
                learn_and_predict(maps.at(svc, last.latitude, last.longitude)?, t, &cfg, &mut priors);
            paths.extend(predicted);
            learned |= counted;
        }
        maps.keep(svc);
        // A frame handled twice counts no track twice (the priors remember what they counted).
        if learned {
            svc.set_many(buckets::TURN_PRIORS, vec![(key, crate::shared::encode::encode(&priors))])?;
        }
        // Sent even without paths: the detector's state and the DENM sender's terminations
        // advance with every frame.
        let out = PredictedPathFrame {
            rsu_id: frame.rsu_id.clone(),
            reference_time_us: frame.reference_time_us,
            paths,
            frame_id: frame.frame_id,
            trace: frame.trace,
        };
        Ok(vec![Outbound {
            subject: subjects::predicted(&out.rsu_id),
            body: out.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }
}

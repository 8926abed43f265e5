//! The predictor as a pipeline stage: its input decoded and checked against the limits, its config read, its
//! domain logic called, its state read and written through [`Services`].

use super::{learn_and_predict, LaneMap, PredictorConfig};
use crate::config::Declared;
use crate::limits::Limits;
use crate::message::{decode_state_or_empty, Outbound, StageError};
use crate::pipeline::{buckets, entries, process_frame, FrameStage, Handler, Inbound, MapTiles, Services};
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
        process_frame::<Self, V>(svc, msg)
    }
}

impl FrameStage for Predictor {
    type Input = MatchedTrajectoryFrame;
    type Output = PredictedPathFrame;

    fn next_frame<V: Services>(
        svc: &mut V,
        frame: &mut Self::Input,
        subject: &str,
    ) -> Result<Self::Output, StageError> {
        let config = svc.config()?;
        Limits::from_config(Self::NAME, entries(&config))?.check_matched(frame, subject)?;
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
        Ok(PredictedPathFrame {
            rsu_id: frame.rsu_id.clone(),
            reference_time_us: frame.reference_time_us,
            paths,
            frame_id: std::mem::take(&mut frame.frame_id),
            trace: std::mem::take(&mut frame.trace),
        })
    }

    fn subject(frame: &Self::Output) -> String {
        subjects::predicted(&frame.rsu_id)
    }
}

//! Map matcher actor: the Wasm shim around [`cits::map_matcher`]; reads only the map tiles the
//! frame's trajectories are in (never the whole map) from the blobstore.

use cits::map_matcher::{tile_object, LaneIndex};
use cits::proto::{MatchedTrajectoryFrame, TrajectoryFrame};
use cits::stage::{decode_input, Traced as _};
use cits_actor::{Inbound, MapTiles, Outbound, Stage, StageError};

struct MapMatcher;

impl Stage for MapMatcher {
    const NAME: &'static str = cits::map_matcher::STAGE;

    fn process(msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let frame: TrajectoryFrame = decode_input(msg.body, "TrajectoryFrame")?;
        let mut tiles = MapTiles::new(tile_object, LaneIndex::new);
        let mut matched = Vec::with_capacity(frame.trajectories.len());
        for t in &frame.trajectories {
            let Some(last) = t.points.last() else { continue };
            matched.push(tiles.at(last.latitude, last.longitude)?.match_trajectory(t));
        }
        let out = MatchedTrajectoryFrame {
            rsu_id: frame.rsu_id.clone(),
            reference_time_us: frame.reference_time_us,
            trajectories: matched,
            trace: frame.trace,
        };
        Ok(vec![Outbound {
            subject: cits::subjects::matched(&out.rsu_id),
            body: out.stamp_and_encode(Self::NAME, msg.received_at_us),
        }])
    }
}

cits_actor::export_stage!(MapMatcher);

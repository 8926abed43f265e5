//! Map matcher actor: the Wasm shim around [`cits::map_matcher`]; reads only the map tiles the
//! frame's trajectories are in (never the whole map) from the blobstore.

use std::collections::HashMap;

use cits::geo::Wgs84;
use cits::map_matcher::{tile_object, tile_of, LaneIndex};
use cits::proto::{LaneGraph, MatchedTrajectoryFrame, TrajectoryFrame};
use cits::stage::{decode_input, Traced as _};
use cits_actor::{blob, Inbound, Outbound, Stage, StageError};

/// Blobstore container of the map (written by `cits map`).
const MAP_CONTAINER: &str = "cits-map";

struct MapMatcher;

impl Stage for MapMatcher {
    const NAME: &'static str = cits::map_matcher::STAGE;

    fn process(msg: Inbound<'_>) -> Result<Vec<Outbound>, StageError> {
        let frame: TrajectoryFrame = decode_input(msg.body, "TrajectoryFrame")?;
        // Tiles read in this invocation; an off-map tile is an empty index (points stay unmatched).
        let mut tiles: HashMap<(i64, i64), LaneIndex> = HashMap::new();
        let mut matched = Vec::with_capacity(frame.trajectories.len());
        for t in &frame.trajectories {
            let Some(last) = t.points.last() else { continue };
            let tile = tile_of(Wgs84 { lat: last.latitude, lon: last.longitude });
            if !tiles.contains_key(&tile) {
                let graph = match blob::read(MAP_CONTAINER, &tile_object(tile))? {
                    Some(bytes) => decode_input::<LaneGraph>(&bytes, "LaneGraph map tile")?,
                    None => LaneGraph::default(),
                };
                tiles.insert(tile, LaneIndex::new(&graph));
            }
            matched.push(tiles[&tile].match_trajectory(t));
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

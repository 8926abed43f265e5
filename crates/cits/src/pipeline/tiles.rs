//! Street geometry for the map matcher and the predictor, read from the blobstore per tile.

use super::Services;
use crate::map_matcher::{tile_object, TileCache};
use crate::proto::LaneGraph;
use crate::stage::{decode_input, StageError};

/// Street geometry from the blobstore: the map tile under a position, read and prepared (`build`)
/// at most once per delivery, and reused for every position within `reach_m` of its lanelets'
/// edge (see [`TileCache`]); a tile the map has no blob for is prepared from an empty graph.
pub struct MapTiles<T> {
    cache: TileCache<T>,
}

impl<T: 'static> MapTiles<T> {
    /// Blobstore container of the map (written by `cits map`).
    pub const CONTAINER: &'static str = "cits-map";

    /// The tiles an earlier message of this delivery prepared, or none yet.
    pub fn restore<V: Services>(svc: &mut V, build: fn(&LaneGraph) -> T, reach_m: f64) -> Self {
        let kept = svc.kept().and_then(|k| k.0.remove(&std::any::TypeId::of::<Self>()));
        match kept.and_then(|b| b.downcast::<Self>().ok()) {
            Some(tiles) => *tiles,
            None => Self { cache: TileCache::new(build, reach_m) },
        }
    }

    /// Leaves the prepared tiles to the next message of the delivery.
    pub fn keep<V: Services>(self, svc: &mut V) {
        if let Some(kept) = svc.kept() {
            kept.0.insert(std::any::TypeId::of::<Self>(), Box::new(self));
        }
    }

    pub fn at<V: Services>(&mut self, svc: &mut V, latitude: f64, longitude: f64) -> Result<&T, StageError> {
        self.cache.at(crate::geo::Wgs84 { lat: latitude, lon: longitude }, |tile| {
            let object = tile_object(tile);
            match svc.read_blob(Self::CONTAINER, &object)? {
                // The map is ours, not the frame's: a tile that does not decode was read short
                // (seen when nats-server restarted mid-read) or the map is broken. Either way the
                // frame is good and waits for a whole read.
                Some(bytes) => decode_input::<LaneGraph>(&bytes, "LaneGraph map tile")
                    .map_err(|e| StageError::unavailable(format!("map tile {object} (read cut short?): {e}"))),
                None => Ok(LaneGraph::default()),
            }
        })
    }
}

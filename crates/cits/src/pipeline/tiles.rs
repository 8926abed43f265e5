//! Street geometry for the map matcher and the predictor: map tiles from the blobstore, each kept
//! as a copy in the key-value store so that a frame reads them with its state.

use prost::Message as _;

use super::{buckets, entries, Services};
use crate::config::{Key, Kind};
use crate::message::{decode_input, StageError};
use crate::proto::{LaneGraph, MapTileCopy};
use crate::shared::geo::Wgs84;
use crate::stages::map_matcher::{covering_tiles, tile_object, TileCache, ROUTE_REACH_M};

/// Config key: seconds a tile's copy in the key-value store is used before the blobstore is read
/// again, so a changed map is in use this long after `cits map` wrote it at the latest.
pub const MAP_REFRESH_KEY: &str = "map_refresh_s";
pub const DEFAULT_MAP_REFRESH_S: u64 = 30;

/// The keys of the stages that read map tiles (map matcher, predictor).
pub const KEYS: &[Key] = &[Key {
    name: MAP_REFRESH_KEY,
    kind: Kind::Seconds,
    default: "30",
    doc: "how long a map tile's copy in Redis serves before the blobstore is read again",
}];

/// Street geometry: the map tile under a position, read and prepared (`build`) at most once per
/// delivery, and reused for every position within `reach_m` of its lanelets' edge (see
/// [`TileCache`]); a tile the map has no blob for is prepared from an empty graph.
///
/// A tile is read from its copy in bucket [`buckets::MAP_TILES`] (one key-value read, which the
/// fused chain makes together with the frame's state: [`MapTiles::plan`]); from the blobstore
/// only when there is no copy or it is older than [`MAP_REFRESH_KEY`], and the copy is then
/// written with the delivery's state. Reading the blobstore costs a component two calls to the
/// provider per tile, the most expensive part of a frame before the copies.
pub struct MapTiles<T> {
    cache: TileCache<T>,
    refresh_us: u64,
}

impl<T: 'static> MapTiles<T> {
    /// Blobstore container of the map (written by `cits map`).
    pub const CONTAINER: &'static str = "cits-map";

    /// The tiles an earlier message of this delivery prepared, or none yet; either way preferring
    /// the tiles the delivery planned for its latest frame. `stage` names the stage in config
    /// errors.
    pub fn restore<V: Services>(
        svc: &mut V,
        stage: &str,
        build: fn(&LaneGraph) -> T,
        reach_m: f64,
    ) -> Result<Self, StageError> {
        let (kept, planned) = match svc.kept() {
            Some(k) => (
                k.0.remove(&std::any::TypeId::of::<Self>()),
                k.0.get(&std::any::TypeId::of::<Planned>())
                    .and_then(|p| p.downcast_ref::<Planned>())
                    .map(|p| p.0.clone()),
            ),
            None => (None, None),
        };
        let mut tiles = match kept.and_then(|b| b.downcast::<Self>().ok()) {
            Some(tiles) => *tiles,
            None => {
                let mut refresh_s = DEFAULT_MAP_REFRESH_S;
                for e in crate::config::entries(stage, entries(&svc.config()?)) {
                    if e.key == MAP_REFRESH_KEY {
                        refresh_s = e.positive_u64()?;
                    }
                }
                Self { cache: TileCache::new(build, reach_m), refresh_us: refresh_s.saturating_mul(1_000_000) }
            }
        };
        tiles.cache.plan(planned.unwrap_or_default());
        Ok(tiles)
    }

    /// Leaves the prepared tiles to the next message of the delivery.
    pub fn keep<V: Services>(self, svc: &mut V) {
        if let Some(kept) = svc.kept() {
            kept.0.insert(std::any::TypeId::of::<Self>(), Box::new(self));
        }
    }

    /// Plans the tiles the stages of this delivery will read for objects at `points` (few: see
    /// [`covering_tiles`]; planned for the predictor, which looks farthest, so they serve the map
    /// matcher too) and returns their key-value reads, for [`Services::prefetch`]. Without a plan
    /// the stages would take the tile under whichever point comes first, which need not be one
    /// read ahead.
    pub fn plan<V: Services>(svc: &mut V, points: impl IntoIterator<Item = Wgs84>) -> Vec<(&'static str, String)> {
        let tiles = covering_tiles(points, ROUTE_REACH_M);
        let reads = tiles.iter().map(|t| (buckets::MAP_TILES, tile_object(*t))).collect();
        if let Some(kept) = svc.kept() {
            kept.0.insert(std::any::TypeId::of::<Planned>(), Box::new(Planned(tiles)));
        }
        reads
    }

    pub fn at<V: Services>(&mut self, svc: &mut V, latitude: f64, longitude: f64) -> Result<&T, StageError> {
        let refresh_us = self.refresh_us;
        self.cache.at(crate::shared::geo::Wgs84 { lat: latitude, lon: longitude }, |tile| {
            let object = tile_object(tile);
            match read_tile(svc, &object, refresh_us)? {
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

/// The tiles [`MapTiles::plan`] chose for a delivery's latest frame.
struct Planned(Vec<(i64, i64)>);

/// A tile's bytes (None: the map has none) from its copy, or from the blobstore when the copy is
/// missing, unreadable or older than `refresh_us`; a blob read is copied with the state's write.
fn read_tile<V: Services>(svc: &mut V, object: &str, refresh_us: u64) -> Result<Option<Vec<u8>>, StageError> {
    let now = crate::shared::time::now_us();
    let stored = svc.get_many(buckets::MAP_TILES, &[object.to_string()])?.pop().flatten();
    if let Some(copy) = stored.and_then(|bytes| MapTileCopy::decode(bytes.as_slice()).ok()) {
        // Either way: a copy written by a host whose clock runs ahead must not live for ever.
        if now.abs_diff(copy.read_at_us) < refresh_us {
            return Ok(copy.tile);
        }
    }
    let tile = svc.read_blob(MapTiles::<()>::CONTAINER, object)?;
    let copy = MapTileCopy { read_at_us: now, tile: tile.clone() };
    svc.set_many(buckets::MAP_TILES, vec![(object.to_string(), crate::shared::encode::encode(&copy))])?;
    Ok(tile)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::{InMemory, Recording};
    use crate::pipeline::{flat_key, Cached};
    use crate::proto::Lanelet;

    const AT: (f64, f64) = (47.8101, 13.0518);

    fn object() -> String {
        tile_object(crate::stages::map_matcher::tile_of(Wgs84 { lat: AT.0, lon: AT.1 }))
    }

    /// Where the tile's copy is in the store.
    fn copy_key() -> String {
        flat_key(buckets::MAP_TILES, &object())
    }

    /// A tile of `lanelets` lanelets, encoded.
    fn tile(lanelets: usize) -> Vec<u8> {
        LaneGraph { lanelets: vec![Lanelet::default(); lanelets], ..Default::default() }.encode_to_vec()
    }

    /// A map whose tile under `AT` has `lanelets` lanelets.
    fn map_with(lanelets: usize) -> InMemory {
        let mut store = InMemory::default();
        store.put_blob(MapTiles::<()>::CONTAINER, &object(), tile(lanelets));
        store
    }

    fn lanelets(graph: &LaneGraph) -> usize {
        graph.lanelets.len()
    }

    /// One delivery that looks up the tile under `AT`: its lanelet count.
    fn deliver(svc: &mut Recording<InMemory>) -> Result<usize, StageError> {
        let mut delivery = Cached::new(&mut *svc);
        let mut tiles = MapTiles::restore(&mut delivery, "map_matcher", lanelets, 10.0)?;
        let count = *tiles.at(&mut delivery, AT.0, AT.1)?;
        delivery.flush()?;
        Ok(count)
    }

    fn copy(svc: &Recording<InMemory>) -> MapTileCopy {
        let stored = &svc.inner.kv[&copy_key()];
        MapTileCopy::decode(stored.as_slice()).unwrap()
    }

    fn store_copy(svc: &mut Recording<InMemory>, age_s: u64, lanelets: usize) {
        let copy =
            MapTileCopy { read_at_us: crate::shared::time::now_us() - age_s * 1_000_000, tile: Some(tile(lanelets)) };
        svc.inner.kv.insert(copy_key(), copy.encode_to_vec());
    }

    #[test]
    fn the_declared_refresh_is_the_one_read() {
        assert_eq!((KEYS[0].name, KEYS[0].default), (MAP_REFRESH_KEY, DEFAULT_MAP_REFRESH_S.to_string().as_str()));
    }

    #[test]
    fn a_tile_is_read_from_the_blobstore_once_and_then_from_its_copy() {
        let mut svc = Recording::new(map_with(3));
        assert_eq!(deliver(&mut svc).unwrap(), 3);
        assert_eq!((svc.blob_reads, svc.gets, svc.sets), (1, 1, 1), "copied with the delivery's write");
        assert_eq!(copy(&svc).tile.as_deref().map(LaneGraph::decode).unwrap().unwrap().lanelets.len(), 3);
        for _ in 0..3 {
            assert_eq!(deliver(&mut svc).unwrap(), 3);
        }
        assert_eq!((svc.blob_reads, svc.gets, svc.sets), (1, 4, 1), "one key-value read each, nothing written");
    }

    #[test]
    fn a_copy_older_than_map_refresh_s_gives_way_to_the_blobstore() {
        // The map changed (3 lanelets now) since the copy (1 lanelet) was made.
        let mut svc = Recording::new(map_with(3));
        store_copy(&mut svc, 20, 1);
        assert_eq!(deliver(&mut svc).unwrap(), 1, "a 20 s old copy is fresh for the default 30 s");
        assert_eq!(svc.blob_reads, 0);
        store_copy(&mut svc, 31, 1);
        assert_eq!(deliver(&mut svc).unwrap(), 3, "a 31 s old copy is not");
        assert_eq!(svc.blob_reads, 1);
        assert!(crate::shared::time::now_us() - copy(&svc).read_at_us < 1_000_000, "and is replaced");
        // A shorter refresh in the stage's config; a copy from a clock far ahead is stale too.
        svc.inner.config.push((MAP_REFRESH_KEY.into(), "5".into()));
        store_copy(&mut svc, 10, 1);
        assert_eq!(deliver(&mut svc).unwrap(), 3);
        let ahead = MapTileCopy { read_at_us: crate::shared::time::now_us() + 3_600_000_000, tile: None };
        svc.inner.kv.insert(copy_key(), ahead.encode_to_vec());
        assert_eq!(deliver(&mut svc).unwrap(), 3);
        assert_eq!(svc.blob_reads, 3);
    }

    #[test]
    fn a_tile_the_map_lacks_is_remembered_as_missing() {
        let mut svc = Recording::new(InMemory::default());
        assert_eq!(deliver(&mut svc).unwrap(), 0);
        assert_eq!(deliver(&mut svc).unwrap(), 0);
        assert_eq!(svc.blob_reads, 1);
        assert_eq!(copy(&svc).tile, None);
    }

    #[test]
    fn an_unreadable_copy_is_read_again_and_a_bad_refresh_is_an_error() {
        let mut svc = Recording::new(map_with(2));
        svc.inner.kv.insert(copy_key(), vec![0xff, 0xff, 0xff]);
        assert_eq!(deliver(&mut svc).unwrap(), 2);
        assert_eq!(svc.blob_reads, 1);
        svc.inner.config.push((MAP_REFRESH_KEY.into(), "0".into()));
        let err = deliver(&mut svc).unwrap_err();
        assert!(!err.unavailable && err.to_string().contains("map_matcher config `map_refresh_s`"), "{err}");
    }
}

use super::*;
use crate::proto::Lanelet;

#[test]
fn a_tile_holds_the_lanelets_near_it_and_matches_like_the_whole_map() {
    let origin = Wgs84 { lat: 47.8101, lon: 13.0518 };
    let line = |id: i64, from: (f64, f64), to: (f64, f64)| {
        let (a, b) = (offset_to_wgs84(origin, from.0, from.1), offset_to_wgs84(origin, to.0, to.1));
        Lanelet { id, mode: TravelMode::Car as i32, centerline: vec![a.lon, a.lat, b.lon, b.lat], ..Default::default() }
    };
    // Sampled every metre like the real map's centerlines.
    let sampled = |id, x: f64| {
        let mut l = line(id, (x, -200.0), (x, 200.0));
        l.centerline = (0..=400)
            .flat_map(|k| {
                let p = offset_to_wgs84(origin, x, -200.0 + k as f64);
                [p.lon, p.lat]
            })
            .collect();
        l
    };
    let graph = LaneGraph {
        origin_latitude: origin.lat,
        origin_longitude: origin.lon,
        lanelets: vec![sampled(1, 0.0), sampled(2, 400.0)],
        ..Default::default()
    };
    let p = offset_to_wgs84(origin, 0.5, 10.0);
    let tile = tile_graph(&graph, tile_of(p), TILE_MARGIN_M);
    assert_eq!(tile.lanelets.iter().map(|l| l.id).collect::<Vec<_>>(), vec![1]);
    let whole = LaneIndex::new(&graph).match_point(p, Some(0.0), TravelMode::Car, None).unwrap();
    let part = LaneIndex::new(&tile).match_point(p, Some(0.0), TravelMode::Car, None).unwrap();
    assert_eq!(whole, part);
    assert_eq!(tile_object((-3, 95621)), "tile_-3_95621.pb");
}

/// Our intersection's centre, and four points 40 m off each way: it lies near a tile corner,
/// so they fall into four grid tiles.
fn around_our_intersection() -> (Wgs84, Vec<Wgs84>) {
    let centre = Wgs84 { lat: 47.8101, lon: 13.0518 };
    let around =
        [(-40.0, -40.0), (40.0, -40.0), (-40.0, 40.0), (40.0, 40.0)].map(|(e, n)| offset_to_wgs84(centre, e, n)).into();
    (centre, around)
}

#[test]
fn one_loaded_tile_serves_every_point_it_holds_the_reach_of() {
    let (centre, around) = around_our_intersection();
    let grid: std::collections::BTreeSet<_> = around.iter().map(|p| tile_of(*p)).collect();
    assert_eq!(grid.len(), 4, "test premise: four grid tiles");
    let mut loads = Vec::new();
    let mut cache = TileCache::new(|g: &LaneGraph| g.lanelets.len(), ROUTE_REACH_M);
    for p in &around {
        cache
            .at(*p, |tile| {
                loads.push(tile);
                Ok::<_, ()>(LaneGraph::default())
            })
            .unwrap();
    }
    assert_eq!(loads, vec![tile_of(around[0])], "one read for the whole frame");
    // A point beyond the tile's margin less the reach needs a tile of its own.
    let far = offset_to_wgs84(centre, 400.0, 0.0);
    cache
        .at(far, |tile| {
            loads.push(tile);
            Ok::<_, ()>(LaneGraph::default())
        })
        .unwrap();
    assert_eq!(loads.len(), 2);
    assert_eq!(loads[1], tile_of(far));
}

#[test]
fn planned_tiles_serve_points_whatever_their_order() {
    let (centre, around) = around_our_intersection();
    let planned = covering_tiles(around.iter().copied(), ROUTE_REACH_M);
    assert_eq!(planned, vec![tile_of(around[0])], "one tile serves the frame");
    let far = offset_to_wgs84(centre, 400.0, 0.0);
    assert_eq!(covering_tiles([around[3], far, around[0]], ROUTE_REACH_M), vec![tile_of(around[3]), tile_of(far)]);
    // Unplanned, the points in reverse order load the tile under the last corner; planned,
    // the one read ahead, for a matcher (shorter reach) too.
    for reach_m in [ROUTE_REACH_M, MATCH_REACH_M] {
        for plan in [false, true] {
            let mut loads = Vec::new();
            let mut cache = TileCache::new(|g: &LaneGraph| g.lanelets.len(), reach_m);
            if plan {
                cache.plan(planned.clone());
            }
            for p in around.iter().rev() {
                cache
                    .at(*p, |tile| {
                        loads.push(tile);
                        Ok::<_, ()>(LaneGraph::default())
                    })
                    .unwrap();
            }
            let want = if plan { planned.clone() } else { vec![tile_of(around[3])] };
            assert_eq!(loads, want, "reach {reach_m} m, planned: {plan}");
        }
    }
}

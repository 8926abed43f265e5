//! `cits intersection add`: what a new intersection needs before its RSU's CPMs can be served —
//! its map tiles in the blobstore (merged with the tiles already there, so intersections share
//! one container), its cameras' calibration, and the config that registers the RSU and groups
//! it into an intersection for the collision detector.

use std::path::Path;

use anyhow::Context as _;
use cits::proto::LaneGraph;
use cits::stages::collector::object_frame::{ObjectFrame, ObjectFrames};
use cits::stages::map_matcher::{tile_graph, tile_object, tiles_of, TILE_MARGIN_M};
use prost::Message as _;

use super::site::Site;

/// Writes `graph`'s tiles into `dir` (a blobstore-fs container folder), each merged with the
/// lanelets of other intersections a tile there already holds; the tiles written.
pub fn write_tiles(graph: &LaneGraph, dir: &Path) -> anyhow::Result<usize> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let tiles = tiles_of(graph, TILE_MARGIN_M);
    for &tile in &tiles {
        let path = dir.join(tile_object(tile));
        let mut tiled = tile_graph(graph, tile, TILE_MARGIN_M);
        if let Ok(bytes) = std::fs::read(&path) {
            let old = LaneGraph::decode(bytes.as_slice()).with_context(|| format!("{} is no tile", path.display()))?;
            let ours: std::collections::HashSet<i64> = tiled.lanelets.iter().map(|l| l.id).collect();
            tiled.lanelets.extend(old.lanelets.into_iter().filter(|l| !ours.contains(&l.id)));
            tiled.lanelets.sort_by_key(|l| l.id);
        }
        std::fs::write(&path, tiled.encode_to_vec()).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(tiles.len())
}

/// The config entries the intersection's RSU needs, as YAML properties: the cameras'
/// calibration (`sensor.<station>.<id>: "lat,lon,heading"`, collector / fused pipeline; used
/// when the RSU sends objects in its cameras' frames), the detector's grouping
/// (`intersection.<rsu>`) and the registry entries (`rsu.<rsu>` and `object_frame.<rsu>`, which
/// `cits rsu add` also writes on a running lattice).
pub fn config_yaml(site: &Site, rsu: &str, station: u32, frame: ObjectFrame, intersection: &str) -> String {
    let mut out = String::from(match frame {
        ObjectFrame::Sensor => {
            "# sensor calibration (collector, fused pipeline): the RSU sends objects in these frames\n"
        }
        ObjectFrame::Enu => {
            "# sensor calibration (collector, fused pipeline): unused while the RSU sends the standard's frame\n"
        }
    });
    for (id, pose) in &site.sensors {
        let (lat, lon, heading) =
            (trimmed(pose.origin.lat, 7), trimmed(pose.origin.lon, 7), trimmed(pose.x_axis_heading_deg, 1));
        out.push_str(&format!("sensor.{station}.{id}: \"{lat},{lon},{heading}\"\n"));
    }
    out.push_str(&format!(
        "# collision detector: the RSUs of one intersection\nintersection.{rsu}: \"{intersection}\"\n"
    ));
    out.push_str(&format!(
        "# RSU registry (cits-rsus; `cits rsu add {rsu} --station {station} --object-frame {frame}`): its stations, and\n\
         # its objects {}\nrsu.{rsu}: \"{station}\"\n{}: \"{frame}\"\n",
        frame.describe(),
        ObjectFrames::key(rsu)
    ));
    out
}

/// `x` to `decimals` places without trailing zeros (47.81028, not 47.8102800).
fn trimmed(x: f64, decimals: usize) -> String {
    let text = format!("{x:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_of_two_intersections_share_a_container() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/map/weiser-gabelsberger.osm");
        let graph = super::super::load(&path, None).unwrap();
        let (north, south) = {
            let mut a = graph.clone();
            let mut b = graph.clone();
            a.lanelets.retain(|l| l.id / 1000 == 1);
            b.lanelets.retain(|l| l.id / 1000 == 3);
            (a, b)
        };
        let dir = std::env::temp_dir().join(format!("cits-intersection-test-{}", std::process::id()));
        write_tiles(&north, &dir).unwrap();
        write_tiles(&south, &dir).unwrap();
        let mut ids = std::collections::BTreeSet::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let tile = LaneGraph::decode(std::fs::read(entry.unwrap().path()).unwrap().as_slice()).unwrap();
            ids.extend(tile.lanelets.iter().map(|l| l.id / 1000));
        }
        assert_eq!(ids.into_iter().collect::<Vec<_>>(), [1, 3], "both intersections' lanelets kept");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn numbers_keep_their_precision_without_trailing_zeros() {
        assert_eq!(
            (trimmed(47.81028, 7), trimmed(225.0, 1), trimmed(0.000_321_56, 7)),
            ("47.81028".into(), "225".into(), "0.0003216".into())
        );
    }

    #[test]
    fn config_names_each_camera_and_the_rsu() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/map/weiser-gabelsberger.osm");
        let site = Site::of(&super::super::load(&path, None).unwrap()).unwrap();
        let yaml = config_yaml(&site, "rsu1", 1001, ObjectFrame::Sensor, "weiser-gabelsberger");
        // Our RSU: exactly the calibration the manifests carry.
        assert!(yaml.contains("sensor.1001.1: \"47.81028,13.05203,225\""), "{yaml}");
        assert!(yaml.contains("sensor.1001.2: \"47.80992,13.05157,45\""), "{yaml}");
        assert!(yaml.contains("intersection.rsu1: \"weiser-gabelsberger\"") && yaml.contains("rsu.rsu1: \"1001\""));
        assert!(yaml.contains("object_frame.rsu1: \"sensor\""), "{yaml}");
        // What the registry entries say is what the collector reads.
        let entries: Vec<(&str, &str)> = yaml
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once(": "))
            .map(|(k, v)| (k, v.trim_matches('"')))
            .collect();
        let frames = ObjectFrames::from_config("collector", entries.iter().copied()).unwrap();
        assert_eq!(frames.of("rsu1"), ObjectFrame::Sensor);
        let standard = config_yaml(&site, "rsu7", 7, ObjectFrame::Enu, "weiser-gabelsberger");
        assert!(standard.contains("object_frame.rsu7: \"enu\"") && standard.contains("unused"), "{standard}");
    }
}

//! `cits map`: the Lanelet2 map as the actors' blobs, and `cits intersection`: one junction of
//! it prepared for a new RSU.

use std::path::PathBuf;

use anyhow::Context as _;
use cits::stages::collector::object_frame::ObjectFrame;
use cits_map as map;
use clap::Subcommand;

#[derive(clap::Args)]
pub struct MapArgs {
    #[arg(long, alias = "map", default_value = "data/map/weiser-gabelsberger.osm")]
    osm: PathBuf,
    /// Only this junction of the map and the lanes round it: `K` (0 = the junction with most
    /// connectors, as `--junctions` lists them) or `LAT,LON` (the junction nearest).
    #[arg(long)]
    junction: Option<map::junction::Choice>,
    /// List the map's junctions: centre, box radius, connectors, approaches, exits, crosswalks, arms.
    #[arg(long)]
    junctions: bool,
    /// Blobstore-fs root: the blobs go to <root>/cits-map/.
    #[arg(long)]
    blobstore_root: Option<PathBuf>,
    /// Print a per-lanelet JSON summary (used by the lanelet2 cross-check).
    #[arg(long)]
    json: bool,
}

pub fn run(args: MapArgs) -> anyhow::Result<()> {
    let MapArgs { osm, junction, junctions, blobstore_root, json } = args;
    let graph = map::load(&osm, junction)?;
    let name = &graph.name;
    if junctions {
        print!("{}", map::junction::describe_all(&graph));
    }
    if json {
        println!("{}", map::summary_json(&graph));
    }
    if let Some(root) = blobstore_root {
        let dir = root.join(map::CONTAINER);
        map::write_blobs(&graph, &dir)?;
        eprintln!("map {name}: {} lanelets → {}", graph.lanelets.len(), dir.display());
    }
    Ok(())
}

#[derive(clap::Args)]
pub struct IntersectionArgs {
    #[command(subcommand)]
    command: IntersectionCommand,
}

#[derive(Subcommand)]
enum IntersectionCommand {
    /// Write the junction's map tiles into the blobstore (merged with the tiles there), and the
    /// config its RSU needs (camera calibration, detector grouping, registry) as YAML properties.
    Add {
        #[arg(long, alias = "osm")]
        map: PathBuf,
        /// Which junction of the map (`K` or `LAT,LON`, see `cits map --junctions`).
        #[arg(long)]
        junction: Option<map::junction::Choice>,
        /// The RSU's name (MQTT topic cits/cpm/<rsu>) and its CPMs' station id.
        #[arg(long)]
        rsu: String,
        #[arg(long)]
        station: u32,
        /// The frame the RSU's CPMs give objects in (required: the two cannot be told apart
        /// from the messages): `enu`, east/north of the CPM's reference position as TS 103 324
        /// and TR 103 562 say; `sensor`, each object in its camera's frame, placed by the
        /// calibration this command writes (the research RSU and our recordings).
        #[arg(long)]
        object_frame: ObjectFrame,
        /// Blobstore-fs root: the tiles go to <root>/cits-map/.
        #[arg(long, default_value = ".state/blobstore")]
        blobstore_root: PathBuf,
        /// Also write the config YAML to this file (it is always printed).
        #[arg(long)]
        config_out: Option<PathBuf>,
    },
}

pub fn run_intersection(args: IntersectionArgs) -> anyhow::Result<()> {
    let IntersectionCommand::Add { map: osm, junction, rsu, station, object_frame, blobstore_root, config_out } =
        args.command;
    let graph = map::load(&osm, junction)?;
    let site = map::site::Site::of(&graph)?;
    let dir = blobstore_root.join(map::CONTAINER);
    let tiles = map::intersection::write_tiles(&graph, &dir)?;
    let name = match junction {
        Some(choice) => format!("{}-{choice}", graph.name),
        None => graph.name.clone(),
    };
    let yaml = map::intersection::config_yaml(&site, &rsu, station, object_frame, &name);
    if let Some(path) = config_out {
        std::fs::write(&path, &yaml).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let arms: Vec<&str> = site.junction.arms.iter().map(|a| a.name.as_str()).collect();
    eprintln!(
        "intersection {name}: centre {:.7},{:.7}, arms {}; {} lanelets in {tiles} tiles → {}",
        site.centre.lat,
        site.centre.lon,
        arms.join(", "),
        graph.lanelets.len(),
        dir.display()
    );
    print!("{yaml}");
    Ok(())
}

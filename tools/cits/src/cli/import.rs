//! `cits import`: a trajectory dataset as an intersection's RSU would have filmed it — a CPM
//! recording and its ground truth.

use std::path::PathBuf;

use cits_map as map;
use cits_research::import::{self, Format};
use cits_research::sim::Conditions;
use clap::builder::{PossibleValuesParser, TypedValueParser as _};

#[derive(clap::Args)]
pub struct ImportArgs {
    /// The dataset's format: interaction, levelx or sind (units and frames: docs/warnings/real.md).
    #[arg(long)]
    pub format: Format,
    /// The dataset's recording folder, or one of its track files.
    #[arg(long)]
    pub tracks: PathBuf,
    /// Which recording of the folder (INTERACTION: NNN of vehicle_tracks_NNN.csv, default 0;
    /// levelX: NN of NN_tracks.csv, needed where the folder has several).
    #[arg(long)]
    pub recording_id: Option<u32>,
    /// The intersection's Lanelet2 map (lat/lon), as `cits intersection add` takes it.
    #[arg(long, alias = "osm")]
    pub map: PathBuf,
    /// One junction of the map (`K` or `LAT,LON`, see `cits map --junctions`).
    #[arg(long)]
    pub junction: Option<map::junction::Choice>,
    /// The RSU's name and its CPMs' station id (as given to `cits intersection add`).
    #[arg(long, default_value = "rsu1")]
    pub rsu: String,
    #[arg(long)]
    pub station: Option<u32>,
    /// Write PREFIX.rec.b64 and PREFIX.truth.json.
    #[arg(long)]
    pub out: PathBuf,
    /// Seed of the cameras' noise, dropouts and latency.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// What the sensors and the network make of the road users: nominal, noise-x2,
    /// dropouts-10, latency-300ms or one-camera.
    #[arg(
        long,
        default_value = "nominal",
        value_parser = PossibleValuesParser::new(Conditions::NAMED.map(|(name, _)| name))
            .try_map(|name| Conditions::named(&name)),
        hide_possible_values = true
    )]
    pub condition: Conditions,
}

pub fn run(args: ImportArgs) -> anyhow::Result<()> {
    let graph = map::load(&args.map, args.junction)?;
    let site = map::site::Site::of(&graph)?;
    if let Some(station) = args.station.filter(|s| *s != site.station_id) {
        // The recording's CPMs carry the station the pipeline's calibration is keyed by.
        anyhow::bail!("--station {station}: the recordings' RSU is station {}; register it so (`cits intersection add … --station {}`)", site.station_id, site.station_id);
    }
    let imported = import::import(&graph, args.format, &args.tracks, args.recording_id, args.seed, args.condition)?;
    let (rec, truth) = import::write(&imported, &args.out)?;
    print!("{}", import::report(&imported));
    let cams: Vec<String> = site
        .sensors
        .iter()
        .map(|(id, p)| {
            format!("camera {id} at {:.7},{:.7} looking {:.0}°", p.origin.lat, p.origin.lon, p.x_axis_heading_deg)
        })
        .collect();
    println!(
        "RSU {} (station {}) at {:.7},{:.7}: {}",
        args.rsu,
        site.station_id,
        site.centre.lat,
        site.centre.lon,
        cams.join("; ")
    );
    println!("wrote {} and {}", rec.display(), truth.display());
    Ok(())
}

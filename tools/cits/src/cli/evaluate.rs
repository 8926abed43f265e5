//! `cits evaluate`: run recordings through the whole pipeline natively and score the DENMs
//! against the simulator's ground truth: one recording, simulated seeds, several maps, Euro
//! NCAP's test shapes, a sweep of the warning policy, or a trace of one pair.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use cits_client::recording;
use cits_client::watch;
use cits_map as map;
use cits_native as native;
use cits_research::evaluate;
use cits_research::sim::{self, Conditions};
use clap::builder::{PossibleValuesParser, TypedValueParser as _};

#[derive(clap::Args)]
pub struct EvaluateArgs {
    #[arg(long, default_value = "data/short.rec.b64")]
    file: PathBuf,
    #[arg(long, default_value = "data/short.truth.json")]
    truth: PathBuf,
    #[arg(long, alias = "map", default_value = "data/map/weiser-gabelsberger.osm")]
    osm: PathBuf,
    /// One junction of the map (`K` or `LAT,LON`, see `cits map --junctions`): simulated
    /// with cameras placed from its geometry unless a calibrated RSU stands there.
    #[arg(long)]
    junction: Option<map::junction::Choice>,
    /// Also list each false warning (first DENM of its ActionID and the risk it announced).
    #[arg(long)]
    list_false: bool,
    /// Instead of --file: simulate these seeds (e.g. `1-10`, `11-20`, `3,5`) and print one
    /// table with totals.
    #[arg(long)]
    seeds: Option<String>,
    /// With --seeds: length of each recording.
    #[arg(long, default_value_t = 207)]
    duration_s: u32,
    /// With --seeds: background traffic relative to the default.
    #[arg(long, default_value_t = 1.0)]
    density: f64,
    /// With --seeds: sweep the warning policy (the decision rule's harm ratio × information bar
    /// × frames a pair's risk is held before it is warned) and write sweep.csv and calibration.csv to this
    /// directory (plots: tools/plot_warnings.py).
    #[arg(long)]
    sweep: Option<PathBuf>,
    /// With --seeds: stage config entries instead of the defaults (`KEY=VALUE`, the keys the
    /// manifests give the predictor, detector and DENM sender), e.g. a candidate policy.
    #[arg(long = "set")]
    set: Vec<String>,
    /// With --seeds: one line per missed conflict and per borderline or clearly false
    /// warning (road users, true PET, the risk's TTC and probability).
    #[arg(long)]
    explain: bool,
    /// With one seed: frame by frame, what the pipeline predicted for these two road users
    /// (truth ids `A,B`) and the risk between them, warned or not. With --ncap: of the car
    /// and the VRU in each case whose name contains this text (e.g. `right hook 10 km/h contact`).
    #[arg(long)]
    trace: Option<String>,
    /// With --seeds: film Euro NCAP's turning and crossing test shapes (and their negatives)
    /// on the map, each alone, instead of simulated traffic; print the NCAP table.
    #[arg(long)]
    ncap: bool,
    /// With --seeds: instead of --osm, these maps (`FILE` or `FILE@K` / `FILE@LAT,LON` for
    /// one junction of it, see `cits map --junctions`): one row per map — traffic over the
    /// seeds, and Euro NCAP's contact cases where their shapes fit (first seed).
    #[arg(long, num_args = 1..)]
    maps: Vec<evaluate::maps::MapJunction>,
    /// With --seeds: what the sensors and the network make of the traffic — nominal,
    /// noise-x2, dropouts-10, latency-300ms or one-camera (robustness rows) — or how many cars
    /// send CAMs with their turn signals: cams-30, cams-100, or how many cyclists and
    /// pedestrians send VAMs: vams-30, vams-100 (nominal: none).
    // Names and values are the simulator's (sim::Conditions::NAMED); the doc line above lists
    // them, as the help always has, so the list clap would add is hidden.
    #[arg(
        long,
        default_value = "nominal",
        value_parser = PossibleValuesParser::new(Conditions::NAMED.map(|(name, _)| name))
            .try_map(|name| Conditions::named(&name)),
        hide_possible_values = true
    )]
    condition: Conditions,
    /// Instead of --file or --seeds: a trajectory dataset's recording (its folder or a track
    /// file, see `cits import`), filmed by the RSU of the --osm map's junction and scored
    /// against its real tracks; `--explain`, `--trace A,B`, `--set` and `--condition` apply.
    #[arg(long)]
    tracks: Option<PathBuf>,
    /// With --tracks: the dataset's format (interaction, levelx, sind).
    #[arg(long, requires = "tracks")]
    format: Option<cits_research::import::Format>,
    /// With --tracks: which recording of the folder (see `cits import`).
    #[arg(long, requires = "tracks")]
    recording_id: Option<u32>,
}

/// Which evaluation runs follows from the options given, first match first (`--seeds` with
/// `--maps`, with `--ncap`, `--sweep` or `--trace`; `--seeds` alone; else `--file`).
pub fn run(args: EvaluateArgs) -> anyhow::Result<()> {
    match args {
        EvaluateArgs {
            tracks: Some(path),
            format,
            recording_id,
            osm,
            junction,
            seeds,
            set,
            explain,
            trace,
            condition,
            ..
        } => {
            let format = format.context("--tracks needs --format interaction|levelx|sind")?;
            let seed = match seeds {
                Some(s) => s.trim().parse().context("with --tracks, --seeds is the one seed of the cameras' noise")?,
                None => 1,
            };
            evaluate_tracks(&path, format, recording_id, &osm, junction, seed, &set, explain, trace, condition)?;
        }
        EvaluateArgs { seeds: Some(seeds), maps, duration_s, density, set, .. } if !maps.is_empty() => {
            let params = sim::Params { density, ..sim::Params::new(0, duration_s) };
            let config = native::entries_set(&set)?;
            let started = std::time::Instant::now();
            let rows = evaluate::maps::evaluate_maps(&maps, &evaluate::parse_seeds(&seeds)?, &params, &config)?;
            print!("{}", evaluate::maps::table(&rows));
            println!("({} maps evaluated in {:.1} s)", rows.len(), started.elapsed().as_secs_f64());
        }
        EvaluateArgs {
            seeds: Some(seeds),
            osm,
            junction,
            set,
            ncap: true,
            condition: conditions,
            trace: Some(filter),
            ..
        } => {
            let graph = map::load(&osm, junction)?;
            let config = native::entries_set(&set)?;
            let seed: u64 = seeds.trim().parse().context("--trace takes one seed")?;
            for line in evaluate::ncap::trace(&graph, &filter, seed, &config, conditions)? {
                println!("{line}");
            }
        }
        EvaluateArgs { seeds: Some(seeds), osm, junction, set, ncap: true, condition: conditions, .. } => {
            use sim::ncap::{Outcome, Shape};
            let graph = map::load(&osm, junction)?;
            let config = native::entries_set(&set)?;
            let started = std::time::Instant::now();
            let runs = evaluate::ncap::evaluate(
                &graph,
                &Shape::ALL,
                &Outcome::ALL,
                &evaluate::parse_seeds(&seeds)?,
                &config,
                conditions,
            )?;
            print!("{}", evaluate::ncap::table(&runs));
            println!("({} runs filmed and evaluated in {:.1} s)", runs.len(), started.elapsed().as_secs_f64());
        }
        EvaluateArgs { seeds: Some(seeds), osm, junction, duration_s, density, sweep: Some(dir), set, .. } => {
            sweep(&seeds, &osm, junction, duration_s, density, &set, &dir)?;
        }
        EvaluateArgs { seeds: Some(seeds), osm, junction, duration_s, density, set, trace: Some(pair), .. } => {
            let graph = map::load(&osm, junction)?;
            let params = sim::Params { density, ..sim::Params::new(0, duration_s) };
            let seed: u64 = seeds.trim().parse().context("--trace takes one seed")?;
            let users: Vec<u32> =
                pair.split(',').map(|u| u.trim().trim_start_matches('#').parse()).collect::<Result<_, _>>()?;
            let [a, b] = users[..] else { anyhow::bail!("--trace takes two road users, e.g. 15,20") };
            let config = native::entries_set(&set)?;
            for line in evaluate::trace(&graph, seed, &params, &config, [a, b])? {
                println!("{line}");
            }
        }
        EvaluateArgs {
            seeds: Some(seeds),
            osm,
            junction,
            duration_s,
            density,
            explain,
            set,
            condition: conditions,
            ..
        } => {
            let graph = map::load(&osm, junction)?;
            let params = sim::Params { density, conditions, ..sim::Params::new(0, duration_s) };
            let started = std::time::Instant::now();
            let config = native::entries_set(&set)?;
            let rows = evaluate::evaluate_seeds(&graph, &evaluate::parse_seeds(&seeds)?, &params, &config)?;
            let rows: Vec<(String, evaluate::Score)> =
                rows.into_iter().map(|(seed, s)| (format!("seed {seed}"), s)).collect();
            print_scored(&rows, explain);
            println!("({} recordings simulated and evaluated in {:.1} s)", rows.len(), started.elapsed().as_secs_f64());
        }
        EvaluateArgs { file, truth, osm, junction, list_false, explain, .. } => {
            score_file(&file, &truth, &osm, junction, list_false, explain)?;
        }
    }
    Ok(())
}

/// `--seeds … --sweep DIR`: the warning policy swept over a grid, written as CSV.
fn sweep(
    seeds: &str,
    osm: &Path,
    junction: Option<map::junction::Choice>,
    duration_s: u32,
    density: f64,
    set: &[String],
    dir: &Path,
) -> anyhow::Result<()> {
    let graph = map::load(osm, junction)?;
    let params = sim::Params { density, ..sim::Params::new(0, duration_s) };
    let config = native::entries_set(set)?;
    let configured = evaluate::NativePipeline::configured(&graph, &config)?.detector().clone();
    // The decision rule's calibrated constants: harm over false-warning cost, where avoiding
    // harm begins and is complete, and the information bar; each with the risk held 1-2 frames.
    let mut grid = Vec::new();
    for harm_ratio in [1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0] {
        for full_avoid_s in [2.0, 2.3, 2.6, 3.0] {
            for no_avoid_s in [0.0, 0.5, 1.0] {
                for info in [0.3, 0.5] {
                    for frames in [1, 2] {
                        let policy = cits::stages::collision_detector::DetectorConfig {
                            harm_ratio,
                            full_avoid_s,
                            no_avoid_s,
                            info_min_probability: info,
                            ..configured.clone()
                        };
                        grid.push((policy, frames));
                    }
                }
            }
        }
    }
    let (rows, bins) = evaluate::sweep(&graph, &evaluate::parse_seeds(seeds)?, &params, &config, &grid)?;
    std::fs::create_dir_all(dir)?;
    let mut csv = String::from("harm_ratio,full_avoid_s,no_avoid_s,info_min_probability,frames,conflicts,warned,lead_median_s,lead_min_s,clearly_false_per_10min,borderline_per_10min,precision\n");
    for (policy, frames, s) in &rows {
        let (median, min) = s.lead();
        csv.push_str(&format!(
            "{},{},{},{},{frames},{},{},{median:.3},{min:.3},{:.2},{:.2},{:.3}\n",
            policy.harm_ratio,
            policy.full_avoid_s,
            policy.no_avoid_s,
            policy.info_min_probability,
            s.planted,
            s.warned,
            s.per_10_min(s.clearly_false),
            s.per_10_min(s.borderline),
            s.precision()
        ));
    }
    std::fs::write(dir.join("sweep.csv"), &csv)?;
    let mut cal = String::from("bin_low,bin_high,routes,taken\n");
    for (i, (n, hit)) in bins.iter().enumerate() {
        cal.push_str(&format!("{:.1},{:.1},{n},{hit}\n", i as f64 / 10.0, (i + 1) as f64 / 10.0));
    }
    std::fs::write(dir.join("calibration.csv"), cal)?;
    print!("{csv}");
    Ok(())
}

/// `--tracks`: a dataset filmed by the junction's RSU, its DENMs scored against its real tracks
/// in the same table as simulated seeds.
#[allow(clippy::too_many_arguments)]
fn evaluate_tracks(
    path: &Path,
    format: cits_research::import::Format,
    recording_id: Option<u32>,
    osm: &Path,
    junction: Option<map::junction::Choice>,
    seed: u64,
    set: &[String],
    explain: bool,
    trace: Option<String>,
    conditions: Conditions,
) -> anyhow::Result<()> {
    let graph = map::load(osm, junction)?;
    let config = native::entries_set(set)?;
    let started = std::time::Instant::now();
    let imported = cits_research::import::import(&graph, format, path, recording_id, seed, conditions)?;
    print!("{}", cits_research::import::report(&imported));
    if let Some(pair) = trace {
        let users: Vec<u32> =
            pair.split(',').map(|u| u.trim().trim_start_matches('#').parse()).collect::<Result<_, _>>()?;
        let [a, b] = users[..] else { anyhow::bail!("--trace takes two road users, e.g. 15,20") };
        for line in evaluate::trace_recording(&graph, &imported.sim, &config, [a, b])? {
            println!("{line}");
        }
        return Ok(());
    }
    let denms = evaluate::run_scored(&graph, &imported.sim.records, &config)?;
    let s = evaluate::score_truth(&denms, &imported.truth);
    let name = path.file_name().map_or("recording".into(), |n| n.to_string_lossy().to_string());
    print_scored(&[(name, s)], explain);
    println!("(filmed and evaluated in {:.1} s)", started.elapsed().as_secs_f64());
    Ok(())
}

/// The table, the missed conflicts and with `explain` why each miss and each warning that was
/// not true.
fn print_scored(rows: &[(String, evaluate::Score)], explain: bool) {
    print!("{}", evaluate::table(rows));
    for (name, s) in rows {
        for (users, at) in &s.missed {
            println!(
                "{name}: conflict of road users {} and {} at {} not warned",
                users[0],
                users[1],
                watch::format_time_us(*at as u64)
            );
        }
    }
    if explain {
        for (name, s) in rows {
            for line in &s.explained {
                println!("{name}: {line}");
            }
        }
    }
}

/// `--file`: one recording scored against its ground truth (with the map loaded as `cits
/// simulate` and `cits import` load it, so the same junction's cameras).
fn score_file(
    file: &Path,
    truth: &Path,
    osm: &Path,
    junction: Option<map::junction::Choice>,
    list_false: bool,
    explain: bool,
) -> anyhow::Result<()> {
    let graph = map::load(osm, junction)?;
    let records = recording::read_file(file)?;
    let truth = sim::read_truth(truth)?;
    let started = std::time::Instant::now();
    let denms = evaluate::run_scored(&graph, &records, &[])?;
    let elapsed = started.elapsed();
    let s = evaluate::score_truth(&denms, &truth);
    let mut lead = s.lead_times_s.clone();
    lead.sort_by(f64::total_cmp);
    let median = lead.get(lead.len() / 2).copied().unwrap_or(f64::NAN);
    println!(
    "{} CPMs in {:.1} ms ({:.1} µs/CPM): {} DENMs, {} warnings; conflicts (PET < 1.5 s) warned {}/{}, median lead time {:.2} s; clearly false {}, borderline {}",
    records.len(),
    elapsed.as_secs_f64() * 1e3,
    elapsed.as_secs_f64() * 1e6 / records.len().max(1) as f64,
    s.denms,
    s.warnings,
    s.warned,
    s.planted,
    median,
    s.clearly_false,
    s.borderline,
);
    if truth.source.is_some() || explain {
        // Recorded traffic: the same table as simulated seeds.
        let name = file.file_name().map_or("recording".into(), |n| n.to_string_lossy().to_string());
        print_scored(&[(name, s.clone())], explain);
    }
    if list_false {
        for seq in &s.false_action_ids {
            let Some(d) = denms.iter().find(|d| d.denm.sequence_number == *seq) else { continue };
            let describe = |o: &Option<cits::proto::ObjectRef>| {
                o.as_ref().map_or("-".to_string(), |o| {
                    let mode = cits::proto::TravelMode::try_from(o.mode).unwrap_or_default();
                    format!("{}/{} {}", o.station_id, o.object_id, mode.as_str_name())
                })
            };
            let r = d.risk.unwrap_or_default();
            // Who the objects really were.
            let users = [&r.first, &r.second].map(|o| {
                o.as_ref()
                    .and_then(|o| evaluate::road_user(&truth, o, (d.at_us / 1000) as i64))
                    .and_then(|id| truth.road_users.iter().find(|u| u.id == id))
                    .map_or("?".to_string(), |u| format!("{} ({})", u.id, u.description))
            });
            println!(
                "false ActionID {seq}: {}  {} × {}  ttc {:.2} s  p {:.2}  at {:.7},{:.7}  [{} × {}]",
                watch::format_time_us(d.at_us),
                describe(&r.first),
                describe(&r.second),
                r.time_to_collision_s,
                r.probability,
                r.conflict_latitude,
                r.conflict_longitude,
                users[0],
                users[1]
            );
        }
    }
    Ok(())
}

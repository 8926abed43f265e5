//! The importer on the committed fixtures (crates/cits-research/tests/fixtures/tracks/): each format's
//! files give the truth's classes and PETs and the planted crossing is warned by the native
//! pipeline; malformed copies give errors naming file, row and column. The fixtures are
//! planted conflicts of the simulator written out in each format ([`write_fixtures`]).

use std::path::{Path, PathBuf};

use cits::shared::geo::Wgs84;

use super::projection::{LocalGrid, Utm};
use super::*;
use crate::sim::{Kind, Params, TruthUser};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tracks")
}

/// Each fixture: format, folder, map, the planted pair's kinds and true PET (s, from the
/// simulator's truth when written).
struct Fixture {
    format: Format,
    dir: &'static str,
    map: &'static str,
    kinds: [(Kind, usize); 3],
}

const FIXTURES: [Fixture; 3] = [
    Fixture {
        format: Format::Interaction,
        dir: "interaction",
        map: "data/map/public/sind-tianjin.osm",
        kinds: [(Kind::Car, 1), (Kind::Bicycle, 1), (Kind::Pedestrian, 1)],
    },
    Fixture {
        format: Format::Levelx,
        dir: "levelx",
        map: "data/map/weiser-gabelsberger.osm",
        kinds: [(Kind::Car, 2), (Kind::Bicycle, 1), (Kind::Pedestrian, 0)],
    },
    Fixture {
        format: Format::Sind,
        dir: "sind",
        map: "data/map/public/sind-tianjin.osm",
        kinds: [(Kind::Car, 1), (Kind::Bicycle, 0), (Kind::Pedestrian, 2)],
    },
];

/// The planted pair's PET as the simulator's truth had it, written by [`write_fixtures`].
fn planted_pet(dir: &Path) -> f64 {
    let text = std::fs::read_to_string(dir.join("planted_pet_s.txt")).expect("fixture has planted_pet_s.txt");
    text.trim().parse().expect("a number")
}

fn graph(map: &str) -> cits::proto::LaneGraph {
    cits_map::load(&repo().join(map), None).expect("map loads")
}

#[test]
fn fixtures_import_with_their_classes_pets_and_a_warned_crossing() {
    for f in &FIXTURES {
        let dir = fixtures().join(f.dir);
        let graph = graph(f.map);
        let imported = import(&graph, f.format, &dir, None, 1, Conditions::NOMINAL).unwrap();
        let truth = &imported.truth;
        for (kind, n) in f.kinds {
            assert_eq!(truth.road_users.iter().filter(|u| u.kind == kind).count(), n, "{}: {kind:?}", f.dir);
        }
        // The planted pair: the one conflict, its PET as the simulator's truth had it (the
        // fixture's 10 Hz or 25 Hz samples, linear between, against the simulator's motion).
        let conflicts: Vec<_> = truth.encounters.iter().filter(|e| e.pet_s < crate::evaluate::CONFLICT_PET_S).collect();
        assert_eq!(conflicts.len(), 1, "{}: {:?}", f.dir, truth.encounters);
        let expected = planted_pet(&dir);
        assert!((conflicts[0].pet_s - expected).abs() <= 0.15, "{}: PET {} vs {expected}", f.dir, conflicts[0].pet_s);
        let denms = crate::evaluate::run_scored(&graph, &imported.sim.records, &[]).unwrap();
        let s = crate::evaluate::score_truth(&denms, truth);
        assert_eq!((s.planted, s.warned), (1, 1), "{}: {:?}", f.dir, s.explained);
        assert_eq!(s.clearly_false, 0, "{}: {:?}", f.dir, s.explained);
        // What import writes reads back as the same truth.
        let out = std::env::temp_dir().join(format!("cits-import-{}-{}", std::process::id(), f.dir));
        let (rec, truth_file) = write(&imported, &out.join("x")).unwrap();
        assert_eq!(crate::sim::read_truth(&truth_file).unwrap(), imported.truth);
        assert_eq!(cits_client::recording::read_file(&rec).unwrap().len(), imported.sim.records.len());
        std::fs::remove_dir_all(&out).ok();
    }
}

#[test]
fn interaction_pedestrian_bicycle_is_split_by_speed_and_said_so() {
    let dir = fixtures().join("interaction");
    let imported = import(&graph(FIXTURES[0].map), Format::Interaction, &dir, None, 1, Conditions::NOMINAL).unwrap();
    let source = imported.truth.source.as_ref().unwrap();
    assert_eq!(source.classes["pedestrian/bicycle"].get("bicycle"), Some(&1));
    assert_eq!(source.classes["pedestrian/bicycle"].get("pedestrian"), Some(&1));
    assert_eq!(source.class_rules.len(), 2);
    assert!(report(&imported).contains("85th-percentile speed"));
}

/// A copy of a fixture folder with one file changed by `edit`.
fn broken(dir: &str, file: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let from = fixtures().join(dir);
    let to = std::env::temp_dir().join(format!("cits-broken-{}-{dir}-{file}", std::process::id()));
    std::fs::create_dir_all(&to).unwrap();
    for e in std::fs::read_dir(&from).unwrap() {
        let e = e.unwrap();
        let text = std::fs::read_to_string(e.path()).unwrap();
        let name = e.file_name().to_string_lossy().to_string();
        std::fs::write(to.join(&name), if name == file { edit(&text) } else { text }).unwrap();
    }
    to
}

fn error_of(format: Format, dir: &Path) -> String {
    let e = read(format, dir, None).expect_err("malformed input is refused");
    std::fs::remove_dir_all(dir).ok();
    format!("{e:#}")
}

#[test]
fn malformed_files_are_refused_naming_file_row_and_column() {
    // A missing column.
    let dir = broken("interaction", "vehicle_tracks_000.csv", |t| t.replacen("vx,", "speed_x,", 1));
    let e = error_of(Format::Interaction, &dir);
    assert!(e.contains("vehicle_tracks_000.csv: row 1: no column `vx`"), "{e}");
    // A non-number: row 3 is the file's third line.
    let dir = broken("sind", "Ped_smoothed_tracks.csv", |t| {
        let mut lines: Vec<String> = t.lines().map(String::from).collect();
        let mut f: Vec<String> = lines[2].split(',').map(String::from).collect();
        f[4] = "abc".into();
        lines[2] = f.join(",");
        lines.join("\n")
    });
    let e = error_of(Format::Sind, &dir);
    assert!(e.contains("Ped_smoothed_tracks.csv: row 3, column `x`: `abc` is not a number"), "{e}");
    // Time going backwards: rows 2 and 3 of a track swapped.
    let dir = broken("levelx", "01_tracks.csv", |t| {
        let mut lines: Vec<&str> = t.lines().collect();
        lines.swap(2, 3);
        lines.join("\n")
    });
    let e = error_of(Format::Levelx, &dir);
    assert!(e.contains("01_tracks.csv: row 4, column `frame`: time goes backwards in track"), "{e}");
    // A track the meta file does not list.
    let dir = broken("levelx", "01_tracksMeta.csv", |t| t.lines().take(2).collect::<Vec<_>>().join("\n"));
    let e = error_of(Format::Levelx, &dir);
    assert!(e.contains("column `trackId`: track 1 is not in"), "{e}");
    // A missing file.
    let e = format!("{:#}", read(Format::Sind, &fixtures().join("nowhere"), None).unwrap_err());
    assert!(e.contains("Veh_smoothed_tracks.csv: no such file"), "{e}");
}

/// The real INTERACTION recording (DR_USA_Intersection_EP0, 000) where it has been put
/// (CITS_INTERACTION_DIR: vehicle_tracks_000.csv, pedestrian_tracks_000.csv and
/// I_5_INTERACTION_USA.osm; docs/warnings/real.md says where to get them).
#[test]
fn interaction_ep0_000_imports_when_present() {
    let Some(dir) = std::env::var_os("CITS_INTERACTION_DIR").map(PathBuf::from) else {
        eprintln!("skipped: set CITS_INTERACTION_DIR to a folder with INTERACTION's vehicle_tracks_000.csv, pedestrian_tracks_000.csv and I_5_INTERACTION_USA.osm (docs/warnings/real.md)");
        return;
    };
    let graph =
        cits_map::load(&dir.join("I_5_INTERACTION_USA.osm"), Some(cits_map::junction::Choice::Index(0))).unwrap();
    let imported = import(&graph, Format::Interaction, &dir, Some(0), 1, Conditions::NOMINAL).unwrap();
    let classes = &imported.truth.source.as_ref().unwrap().classes;
    assert_eq!(classes["car"]["car"], 74);
    assert_eq!(classes["pedestrian/bicycle"].values().sum::<usize>(), 23);
    assert_eq!(imported.truth.parameters.duration_s, 301);
    // The cameras film most of the cars.
    let filmed: std::collections::BTreeSet<u32> = imported.truth.tracks.iter().map(|t| t.2).collect();
    assert!(filmed.len() > 60, "{}", filmed.len());
}

// ------------------------------------------------------------------------------ the fixtures

/// A simulated planted conflict of `kind` (and the next road user of `extra`, if any) as
/// recorded tracks: (user, samples every `step_ms`, t from 0) and the pair's truth PET.
fn planted(
    graph: &cits::proto::LaneGraph,
    kind: &str,
    extra: Option<Kind>,
    step_ms: i64,
) -> (Vec<(TruthUser, Vec<(i64, Wgs84)>)>, f64) {
    for seed in 1..50 {
        let sim = crate::sim::simulate(graph, &Params::new(seed, 60)).unwrap();
        let truth = crate::sim::truth(&sim);
        let Some(c) = truth.conflicts.iter().find(|c| c.kind == kind) else { continue };
        let Some(e) = truth.encounters.iter().find(|e| e.planted.as_deref() == Some(kind)) else { continue };
        let mut users: Vec<&TruthUser> =
            c.users.iter().map(|u| truth.road_users.iter().find(|t| t.id == u.id).unwrap()).collect();
        let (from, to) = (
            users.iter().map(|u| u.trajectory[0].0).min().unwrap(),
            users.iter().map(|u| u.trajectory.last().unwrap().0).max().unwrap(),
        );
        if let Some(k) = extra {
            // Someone else around at the time, far from the pair's conflict.
            let Some(other) = truth.road_users.iter().find(|u| {
                u.kind == k
                    && u.trajectory.len() > 50
                    && u.trajectory[0].0 >= from
                    && u.trajectory[0].0 < to
                    && !truth.encounters.iter().any(|e| e.users.contains(&u.id) && e.pet_s < 3.0)
            }) else {
                continue;
            };
            users.push(other);
        }
        let out = users
            .into_iter()
            .map(|u| {
                let (t0, t1) = (u.trajectory[0].0, u.trajectory.last().unwrap().0);
                let at = |t: i64| {
                    let i = u.trajectory.partition_point(|p| p.0 <= t).clamp(1, u.trajectory.len() - 1);
                    let (a, b) = (u.trajectory[i - 1], u.trajectory[i]);
                    let f = (t - a.0) as f64 / (b.0 - a.0) as f64;
                    Wgs84 { lat: a.1 + f * (b.1 - a.1), lon: a.2 + f * (b.2 - a.2) }
                };
                let first = (t0 - from + step_ms - 1) / step_ms * step_ms;
                let samples = (0..)
                    .map(|k| first + k * step_ms)
                    .take_while(|t| from + t <= t1)
                    .map(|t| (t, at(from + t)))
                    .collect();
                (u.clone(), samples)
            })
            .collect();
        return (out, e.pet_s);
    }
    panic!("no planted {kind} in 50 seeds");
}

/// Velocity (m/s) on a grid by central differences of the grid positions.
fn grid_track(grid: LocalGrid, samples: &[(i64, Wgs84)]) -> Vec<(i64, f64, f64, f64, f64)> {
    let xy: Vec<(f64, f64)> = samples.iter().map(|s| grid.to_local(s.1)).collect();
    (0..samples.len())
        .map(|i| {
            let (a, b) = (i.saturating_sub(1), (i + 1).min(samples.len() - 1));
            let dt = (samples[b].0 - samples[a].0) as f64 / 1e3;
            let v = if dt > 0.0 { ((xy[b].0 - xy[a].0) / dt, (xy[b].1 - xy[a].1) / dt) } else { (0.0, 0.0) };
            (samples[i].0, xy[i].0, xy[i].1, v.0, v.1)
        })
        .collect()
}

fn write_file(dir: &Path, name: &str, text: String) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(name), text).unwrap();
}

/// Writes the fixtures: `cargo test -p cits-research --lib import::tests::write_fixtures -- --ignored`.
#[test]
#[ignore = "writes crates/cits-research/tests/fixtures/tracks"]
fn write_fixtures() {
    let zero = LocalGrid::projector(Wgs84 { lat: 0.0, lon: 0.0 });
    let r3 = |x: f64| (x * 1e3).round() / 1e3;

    // INTERACTION on the SinD Tianjin map (the same UtmProjector frame): a car turning across a
    // pedestrian on the far crosswalk, and a cyclist riding by — both in the pedestrian/bicycle file.
    let (users, pet) = planted(&graph(FIXTURES[0].map), "turning_car_vs_far_side_pedestrian", Some(Kind::Bicycle), 100);
    let dir = fixtures().join("interaction");
    let mut veh = String::from("track_id,frame_id,timestamp_ms,agent_type,x,y,vx,vy,psi_rad,length,width\n");
    let mut ped = String::from("track_id,frame_id,timestamp_ms,agent_type,x,y,vx,vy\n");
    for (n, (u, samples)) in users.iter().enumerate() {
        for (t, x, y, vx, vy) in grid_track(zero, samples) {
            let frame = t / 100 + 1;
            let (x, y, vx, vy) = (r3(x), r3(y), r3(vx), r3(vy));
            if u.kind == Kind::Car {
                let psi = r3(vy.atan2(vx));
                veh.push_str(&format!("{},{frame},{},car,{x},{y},{vx},{vy},{psi},4.5,1.8\n", n + 1, t + 100));
            } else {
                ped.push_str(&format!("P{},{frame},{},pedestrian/bicycle,{x},{y},{vx},{vy}\n", n + 1, t + 100));
            }
        }
    }
    write_file(&dir, "vehicle_tracks_000.csv", veh);
    write_file(&dir, "pedestrian_tracks_000.csv", ped);
    write_file(&dir, "planted_pet_s.txt", format!("{pet}\n"));

    // levelX on our map (UTM zone 33, origin a few hundred metres off): a car turning right
    // across a cyclist going straight, and another car; 25 Hz.
    let (users, pet) = planted(&graph(FIXTURES[1].map), "right_turn_car_vs_straight_cyclist", Some(Kind::Car), 40);
    let dir = fixtures().join("levelx");
    let utm = Utm { zone: 33, north: true };
    let grid = LocalGrid { utm, origin: (354_000.0, 5_297_000.0) };
    write_file(
        &dir,
        "01_recordingMeta.csv",
        "recordingId,locationId,frameRate,speedLimit,weekday,startTime,duration,numTracks,numVehicles,numVRUs,latLocation,lonLocation,xUtmOrigin,yUtmOrigin,orthoPxToMeter\n\
         1,1,25.0,13.89,monday,8,60.0,3,2,1,47.8101,13.0518,354000.0,5297000.0,0.01\n"
            .to_string(),
    );
    let mut meta = String::from("recordingId,trackId,initialFrame,finalFrame,numFrames,width,length,class\n");
    let mut tracks = String::from("recordingId,trackId,frame,trackLifetime,xCenter,yCenter,heading,width,length,xVelocity,yVelocity,xAcceleration,yAcceleration,lonVelocity,latVelocity,lonAcceleration,latAcceleration\n");
    for (n, (u, samples)) in users.iter().enumerate() {
        let rows = grid_track(grid, samples);
        let (first, last) = (rows[0].0 / 40, rows.last().unwrap().0 / 40);
        let (class, w, l) = if u.kind == Kind::Car { ("car", 1.8, 4.5) } else { ("bicycle", 0.0, 0.0) };
        meta.push_str(&format!("1,{n},{first},{last},{},{w},{l},{class}\n", last - first + 1));
        for (k, (t, x, y, vx, vy)) in rows.into_iter().enumerate() {
            let heading = r3(vy.atan2(vx).to_degrees().rem_euclid(360.0));
            let speed = r3(vx.hypot(vy));
            tracks.push_str(&format!(
                "1,{n},{},{k},{},{},{heading},{w},{l},{},{},0.0,0.0,{speed},0.0,0.0,0.0\n",
                t / 40,
                r3(x),
                r3(y),
                r3(vx),
                r3(vy)
            ));
        }
    }
    write_file(&dir, "01_tracksMeta.csv", meta);
    write_file(&dir, "01_tracks.csv", tracks);
    write_file(&dir, "planted_pet_s.txt", format!("{pet}\n"));

    // SinD on its Tianjin map: a car turning across a pedestrian stepping out, another
    // pedestrian walking by; 10 Hz here (SinD's own files are about 30 Hz).
    let (users, pet) =
        planted(&graph(FIXTURES[2].map), "turning_car_vs_near_side_pedestrian", Some(Kind::Pedestrian), 100);
    let dir = fixtures().join("sind");
    let mut veh = String::from("track_id,frame_id,timestamp_ms,agent_type,x,y,vx,vy,yaw_rad,heading_rad,length,width,ax,ay,v_lon,v_lat,a_lon,a_lat\n");
    let mut ped = String::from("track_id,frame_id,timestamp_ms,agent_type,x,y,vx,vy,ax,ay\n");
    for (n, (u, samples)) in users.iter().enumerate() {
        for (t, x, y, vx, vy) in grid_track(zero, samples) {
            let frame = t / 100;
            let (x, y, vx, vy) = (r3(x), r3(y), r3(vx), r3(vy));
            if u.kind == Kind::Car {
                let yaw = r3(vy.atan2(vx));
                veh.push_str(&format!(
                    "{n},{frame},{t},car,{x},{y},{vx},{vy},{yaw},{yaw},4.5,1.8,0,0,{},0,0,0\n",
                    r3(vx.hypot(vy))
                ));
            } else {
                ped.push_str(&format!("P{n},{frame},{t},pedestrian,{x},{y},{vx},{vy},0,0\n"));
            }
        }
    }
    write_file(&dir, "Veh_smoothed_tracks.csv", veh);
    write_file(&dir, "Ped_smoothed_tracks.csv", ped);
    write_file(&dir, "planted_pet_s.txt", format!("{pet}\n"));
}

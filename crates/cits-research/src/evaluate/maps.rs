//! The warning figures per map: simulated traffic at one junction of each map, and Euro NCAP's
//! contact cases wherever their shapes fit the junction — the check that the pipeline works on
//! intersections it was not built on (public maps are test maps, never tuned on).

use std::path::PathBuf;

use anyhow::Context as _;
use cits::proto::LaneGraph;

use super::ncap::Skipped;
use super::{evaluate_seeds, Score};
use crate::sim::ncap::{Outcome, Shape};
use crate::sim::{Conditions, Params};
use cits_map::junction::Choice;
use cits_map::site::Site;

/// One map of `--maps`: a file and, optionally, which of its junctions (`FILE@K`, `FILE@LAT,LON`).
#[derive(Debug, Clone)]
pub struct MapJunction {
    pub osm: PathBuf,
    pub junction: Option<Choice>,
}

impl std::str::FromStr for MapJunction {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> anyhow::Result<Self> {
        Ok(match s.split_once('@') {
            Some((osm, junction)) => MapJunction { osm: osm.into(), junction: Some(junction.parse()?) },
            None => MapJunction { osm: s.into(), junction: None },
        })
    }
}

/// What one map's junction scored.
pub struct MapRow {
    pub name: String,
    /// Arm names, clockwise.
    pub arms: Vec<String>,
    pub routes: (usize, usize, usize),
    pub traffic: Score,
    /// NCAP contact cases warned before contact, of those the junction offers (first seed).
    pub ncap_contacts: (usize, usize),
    /// NCAP contact cases the junction offers but cannot film (e.g. no VRU route for the
    /// shape from that approach): skipped, not counted in `ncap_contacts`.
    pub ncap_skipped: Vec<Skipped>,
}

fn name_of(m: &MapJunction) -> String {
    let stem = m.osm.file_stem().and_then(|s| s.to_str()).unwrap_or("map");
    m.junction.map_or_else(|| stem.to_string(), |choice| format!("{stem}@{choice}"))
}

/// Simulates `seeds` at each map's junction and films NCAP's contact cases there (first seed).
pub fn evaluate_maps(
    maps: &[MapJunction],
    seeds: &[u64],
    params: &Params,
    config: &[(String, String)],
) -> anyhow::Result<Vec<MapRow>> {
    let mut rows = Vec::new();
    for m in maps {
        let name = name_of(m);
        let graph = cits_map::load(&m.osm, m.junction)?;
        let row = evaluate_map(&graph, name.clone(), seeds, params, config).with_context(|| format!("map {name}"))?;
        rows.push(row);
    }
    Ok(rows)
}

fn evaluate_map(
    graph: &LaneGraph,
    name: String,
    seeds: &[u64],
    params: &Params,
    config: &[(String, String)],
) -> anyhow::Result<MapRow> {
    let site = Site::of(graph)?;
    let routes = crate::sim::route_counts(graph)?;
    let mut traffic = Score::default();
    for (_, s) in evaluate_seeds(graph, seeds, params, config)? {
        traffic.add(&s);
    }
    let first = seeds.first().copied().unwrap_or(1);
    let cases = crate::sim::ncap::cases(graph, &Shape::ALL, &[Outcome::Contact])?;
    let ncap = super::ncap::evaluate_cases(graph, &cases, &[first], config, Conditions::NOMINAL)?;
    let warned = ncap.runs.iter().filter(|r| r.lead_s.is_some()).count();
    Ok(MapRow {
        name,
        arms: site.junction.arms.iter().map(|a| a.name.clone()).collect(),
        routes,
        traffic,
        ncap_contacts: (warned, ncap.runs.len()),
        ncap_skipped: ncap.skipped,
    })
}

/// The per-map table (Markdown).
pub fn table(rows: &[MapRow]) -> String {
    let mut out = String::from(
        "| map (junction) | arms | routes car/bicycle/pedestrian | min | conflicts (PET < 1.5 s) | recall | lead median s | lead min s | clearly false /10 min | NCAP contacts warned |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let s = &r.traffic;
        let (median, min) = s.lead();
        let lead = |x: f64| if x.is_nan() { "-".to_string() } else { format!("{x:.2}") };
        let (median, min) = (lead(median), lead(min));
        let recall = if s.planted == 0 {
            "-".to_string()
        } else {
            format!("{:.0} %", 100.0 * s.warned as f64 / s.planted as f64)
        };
        let ncap = match (r.ncap_contacts, r.ncap_skipped.len()) {
            ((_, 0), 0) => "no shape fits".to_string(),
            ((warned, filmed), 0) => format!("{warned}/{filmed}"),
            ((warned, filmed), skipped) => format!("{warned}/{filmed}, {skipped} skipped"),
        };
        out.push_str(&format!(
            "| {} | {} ({}) | {}/{}/{} | {:.1} | {} | {recall} | {median} | {min} | {:.1} ({}) | {ncap} |\n",
            r.name,
            r.arms.len(),
            r.arms.join(", "),
            r.routes.0,
            r.routes.1,
            r.routes.2,
            s.minutes,
            s.planted,
            s.per_10_min(s.clearly_false),
            s.clearly_false,
        ));
    }
    // Cases a junction cannot film: which, where and why (none on our map).
    let skipped: usize = rows.iter().map(|r| r.ncap_skipped.len()).sum();
    if skipped > 0 {
        let maps = rows.iter().filter(|r| !r.ncap_skipped.is_empty()).count();
        out.push_str(&format!("\nNCAP contact cases skipped: {skipped} (on {maps} of {} maps)\n", rows.len()));
        for r in rows {
            for s in &r.ncap_skipped {
                out.push_str(&format!("- {}: {}: {}\n", r.name, super::ncap::label(&s.case), s.reason));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_public_junction_evaluated_has_routes_and_cameras_facing_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/map/public");
        let used = [
            ("lanelet2-mapping-example.osm", 0),
            ("lanelet2-mapping-example.osm", 2),
            ("lanelet2-mapping-example.osm", 3),
            ("sind-tianjin.osm", 0),
            ("sind-chongqing.osm", 0),
            ("sind-xian.osm", 0),
        ];
        for (file, k) in used {
            let graph = cits_map::load(&root.join(file), Some(Choice::Index(k))).unwrap();
            let site = Site::of(&graph).unwrap();
            assert!(site.junction.arms.len() >= 3, "{file}@{k}");
            let (cars, bicycles, _) = crate::sim::route_counts(&graph).unwrap();
            assert!(cars >= 4 && bicycles >= 2, "{file}@{k}: {cars} car and {bicycles} bicycle routes");
            for (_, pose) in &site.sensors {
                let (e, n) = cits::shared::geo::wgs84_to_offset(pose.origin, site.centre);
                let towards = cits::shared::geo::heading_deg(e, n);
                let off = cits::shared::geo::heading_difference_deg(towards, pose.x_axis_heading_deg);
                assert!(off.abs() < 0.5, "{file}@{k}: camera looks {off:.1}° away from the centre");
                assert!(e.hypot(n) >= 20.0, "{file}@{k}: camera inside the box");
            }
        }
    }

    #[test]
    fn the_table_counts_and_lists_skipped_ncap_cases() {
        use crate::sim::ncap::Case;
        let row = |name: &str, ncap_contacts, ncap_skipped| MapRow {
            name: name.into(),
            arms: vec!["north".into(), "east".into(), "west".into()],
            routes: (6, 4, 0),
            traffic: Score::default(),
            ncap_contacts,
            ncap_skipped,
        };
        let case = Case { shape: Shape::LeftAcrossCyclist, car_kmh: 15.0, outcome: Outcome::Contact, approach: 101 };
        let reason = "no VRU route for CBTA left, oncoming from lanelet 101".to_string();
        let rows = [row("ours", (12, 12), vec![]), row("tee@0", (5, 6), vec![Skipped { case, reason }])];
        let text = table(&rows);
        assert!(text.contains("| 12/12 |\n") && text.contains("| 5/6, 1 skipped |\n"), "{text}");
        assert!(text.contains("NCAP contact cases skipped: 1 (on 1 of 2 maps)"), "{text}");
        assert!(
            text.contains("- tee@0: CBTA left, oncoming 15 km/h contact from 101: no VRU route for CBTA left"),
            "{text}"
        );
        // Nothing skipped: the table as before, no list.
        assert!(!table(&rows[..1]).contains("skipped"));
    }

    #[test]
    fn map_arguments_name_a_junction_by_index_or_position() {
        let m: MapJunction = "data/map/public/sind-xian.osm@0".parse().unwrap();
        assert_eq!((name_of(&m), m.junction), ("sind-xian@0".to_string(), Some(Choice::Index(0))));
        let m: MapJunction = "a.osm@49.0052,8.4156".parse().unwrap();
        assert!(matches!(m.junction, Some(Choice::Near(w)) if (w.lat - 49.0052).abs() < 1e-9));
        assert_eq!(name_of(&"x/ours.osm".parse::<MapJunction>().unwrap()), "ours");
    }
}

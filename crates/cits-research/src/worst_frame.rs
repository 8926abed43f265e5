//! `cits worst-frame`: what the largest CPM an RSU may send costs the pipeline per frame.
//!
//! A hostile (or broken) RSU sends the most perceived objects a CPM may carry, half of them
//! vulnerable road users and half vehicles, crowded on the approaches and crosswalks of the
//! intersection so that nearly every pair's predicted paths meet. Its CPMs go at 8 Hz through
//! the fused pipeline in this process — `cits::pipeline::handle` with `Fused`, the code the
//! fused actor runs — and each frame is timed. The pipeline's trace gives each stage's share.

use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use cits::message::Outbound;
use cits::pipeline::InProcess;
use cits::pipeline::{handle, Fused};
use cits::proto::{FrameDone, LaneGraph, TravelMode};
use cits::shared::geo::{offset_to_wgs84, wgs84_to_offset, Wgs84};
use etsi_its::cpm::{ObjectKind, SimpleObject};
use prost::Message as _;

use cits_client::demo::CENTER;

/// The intersection of the hostile RSUs.
pub const INTERSECTION: &str = "worst-frame";
/// Station id of the first hostile RSU; the next ones count up.
const FIRST_STATION_ID: u32 = 9001;
/// 8 Hz, as the cameras send.
const PERIOD_MS: u64 = 125;
/// Camera latency, as in the recordings.
const MEASUREMENT_DELTA_MS: i16 = -40;
/// Road users crowd the last metres before the junction: the first this far from the end of its
/// approach, the next ones this much further back.
const FIRST_BEFORE_END_M: f64 = 1.0;
const SPACING_M: f64 = 0.3;
/// Each road user runs up to its place again and again, every this many seconds (jumping back, as
/// a hostile RSU may report): so all stay on the approaches, where every route branches and
/// paths are most numerous. A longer cycle keeps tracks whole for longer (the map matcher's
/// worst case: it matches every point of every trajectory).
pub const CYCLE_S: f64 = 2.0;

pub struct Options {
    /// Perceived objects per CPM.
    pub objects: usize,
    /// RSUs at the intersection, each sending such CPMs: the detector tests the paths of all.
    pub rsus: usize,
    /// How long each road user runs before it jumps back (see [`CYCLE_S`]).
    pub cycle_s: f64,
    /// Frames sent first, untimed: trajectories and paths build up as they would on a busy day.
    pub warmup: usize,
    /// Frames timed.
    pub frames: usize,
}

/// Per-frame measurements of the timed frames.
#[derive(Debug, Default)]
pub struct Report {
    /// Wall-clock time of each frame's whole delivery (µs).
    pub frame_us: Vec<u64>,
    /// Time in each stage per frame (µs), in pipeline order.
    pub stage_us: Vec<(String, Vec<u64>)>,
    pub risks: Vec<u32>,
    pub denms: Vec<u32>,
    /// Paths in the collision detector's state after each frame, and the vehicle ↔ vulnerable
    /// road user pairs among them (what the detector has to consider).
    pub paths: Vec<usize>,
    pub pairs: Vec<usize>,
}

/// A road user of the hostile CPMs: running up a lanelet to `end_m` at a constant speed, every
/// `cycle_s` from `cycle_s` × speed further back.
struct RoadUser {
    kind: ObjectKind,
    /// The lanelet's centerline, metres east/north of the reference position.
    line: Vec<(f64, f64)>,
    end_m: f64,
    speed_mps: f64,
    cycle_s: f64,
    /// Where in its cycle it is at the start (s).
    phase_s: f64,
}

impl RoadUser {
    /// Position and velocity (east, north) after `t_s`.
    fn at(&self, t_s: f64) -> ((f64, f64), (f64, f64)) {
        let into_cycle = (t_s + self.phase_s).rem_euclid(self.cycle_s);
        let mut s = (self.end_m - self.speed_mps * (self.cycle_s - into_cycle)).max(0.0);
        let segments = self.line.len() - 1;
        for (i, w) in self.line.windows(2).enumerate() {
            let d = (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1);
            if s <= d || i + 1 == segments {
                let dir = if d > 0.0 { ((w[1].0 - w[0].0) / d, (w[1].1 - w[0].1) / d) } else { (0.0, 0.0) };
                let p = (w[0].0 + dir.0 * s, w[0].1 + dir.1 * s);
                return (p, (dir.0 * self.speed_mps, dir.1 * self.speed_mps));
            }
            s -= d;
        }
        (self.line[0], (0.0, 0.0))
    }
}

/// `objects` road users, alternately a vehicle and a vulnerable road user (cyclists and
/// pedestrians in turn), spread over the approaches of their mode (crosswalks for pedestrians),
/// each a little behind the previous one on the same lanelet.
fn road_users(graph: &LaneGraph, objects: usize, cycle_s: f64) -> anyhow::Result<Vec<RoadUser>> {
    let origin = Wgs84 { lat: graph.origin_latitude, lon: graph.origin_longitude };
    let lanes = |mode: TravelMode, role: &str| -> Vec<Vec<(f64, f64)>> {
        graph
            .lanelets
            .iter()
            .filter(|l| l.mode == mode as i32 && l.role == role)
            .map(|l| {
                cits::stages::map_matcher::local_centerline(origin, l)
                    .into_iter()
                    .map(|(e, n)| wgs84_to_offset(CENTER, offset_to_wgs84(origin, e, n)))
                    .collect::<Vec<_>>()
            })
            .filter(|line| line.len() >= 2)
            .collect()
    };
    let kinds = [
        (ObjectKind::Car, lanes(TravelMode::Car, "approach"), 5.0),
        (ObjectKind::Bicycle, lanes(TravelMode::Bicycle, "approach"), 4.0),
        (ObjectKind::Pedestrian, lanes(TravelMode::Pedestrian, "crosswalk"), 1.2),
    ];
    if let Some((kind, _, _)) = kinds.iter().find(|(_, lanes, _)| lanes.is_empty()) {
        bail!("the map has no lanelets for {kind:?}");
    }
    let mut placed = vec![0usize; kinds.iter().map(|(_, lanes, _)| lanes.len()).sum()];
    let mut users = Vec::with_capacity(objects);
    for k in 0..objects {
        // Even: a vehicle; odd: a cyclist or a pedestrian.
        let which = if k % 2 == 0 { 0 } else { 1 + (k / 2) % 2 };
        let (kind, lanes, speed_mps) = &kinds[which];
        let nth = k / if which == 0 { 2 } else { 4 };
        let lane = nth % lanes.len();
        let slot: usize = kinds[..which].iter().map(|(_, l, _)| l.len()).sum::<usize>() + lane;
        let line = lanes[lane].clone();
        let length: f64 = line.windows(2).map(|w| (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1)).sum();
        let before_end = FIRST_BEFORE_END_M + SPACING_M * placed[slot] as f64;
        placed[slot] += 1;
        let phase_s = (k as f64 * 0.37).rem_euclid(cycle_s);
        let end_m = (length - before_end).max(0.0);
        users.push(RoadUser { kind: *kind, line, end_m, speed_mps: *speed_mps, cycle_s, phase_s });
    }
    Ok(users)
}

/// The hostile CPM at `t_s` into the run, stamped `reference_unix_ms`.
fn cpm(station_id: u32, users: &[RoadUser], t_s: f64, reference_unix_ms: u64) -> Vec<u8> {
    let measured_s = t_s + f64::from(MEASUREMENT_DELTA_MS) / 1000.0;
    let objects = users
        .iter()
        .enumerate()
        .map(|(k, u)| {
            let ((x, y), (vx, vy)) = u.at(measured_s.max(0.0));
            SimpleObject {
                object_id: k as u16,
                measurement_delta_ms: MEASUREMENT_DELTA_MS,
                x_cm: (x * 100.0).round() as i32,
                y_cm: (y * 100.0).round() as i32,
                x_conf_cm: 20,
                y_conf_cm: 20,
                velocity: Some(((vx * 100.0).round() as i16, (vy * 100.0).round() as i16)),
                yaw_decideg: None,
                class: u.kind,
                class_confidence_pct: 90,
                // Positions east/north of the reference position: no calibration involved.
                sensor_id: None,
            }
        })
        .collect();
    cits_client::demo::cpm_at_center(station_id, reference_unix_ms, Vec::new(), objects)
}

/// Hostile RSU `r` (0-based) and its station id.
fn rsu(r: usize) -> (String, u32) {
    (format!("worst-frame-{}", r + 1), FIRST_STATION_ID + r as u32)
}

/// `config` (the fused actor's) with the hostile RSUs registered and at one intersection.
pub fn config(mut config: Vec<(String, String)>, rsus: usize) -> Vec<(String, String)> {
    for (name, station) in (0..rsus).map(rsu) {
        config.push((format!("rsu.{name}"), station.to_string()));
        config.push((format!("intersection.{name}"), INTERSECTION.to_string()));
    }
    config
}

/// Sends `warmup + frames` hostile CPMs per RSU at 8 Hz, live (each stamped with its send time),
/// through the fused pipeline on `svc` and times the last `frames` of each. A frame that is
/// dead-lettered or retried is an error: the measurement would not be of the work a frame costs.
/// `svc` must have the [`config`] of the RSUs.
pub fn run(graph: &LaneGraph, mut svc: InProcess, opts: &Options) -> anyhow::Result<Report> {
    if opts.cycle_s.is_nan() || opts.cycle_s <= 0.0 {
        bail!("the cycle must be a positive number of seconds");
    }
    let users = road_users(graph, opts.objects, opts.cycle_s)?;
    let mut report = Report::default();
    let start_ms = cits::shared::time::now_us() / 1000;
    let started = Instant::now();
    for i in 0..opts.warmup + opts.frames {
        let due = Duration::from_millis(i as u64 * PERIOD_MS);
        if let Some(wait) = due.checked_sub(started.elapsed()) {
            std::thread::sleep(wait);
        }
        for r in 0..opts.rsus {
            let (name, station_id) = rsu(r);
            // Each RSU sees the crowd at another moment of its cycle.
            let t_s = due.as_secs_f64() + r as f64 * 0.5;
            let body = cpm(station_id, &users, t_s, start_ms + i as u64 * PERIOD_MS);
            let subject = cits::subjects::CPM_PREFIX.to_string() + &name;
            let mut published: Vec<Outbound> = Vec::new();
            let began = Instant::now();
            let mut publish = |out: &[(String, Outbound)]| {
                published.extend(out.iter().map(|(_, o)| o.clone()));
                Ok(())
            };
            let handled = handle::<Fused, _>(&mut svc, &subject, &body, &mut publish)
                .map_err(|e| anyhow::anyhow!("frame {i} of {name} not handled: {e}"))?;
            let took = began.elapsed();
            if let Some((_, reason)) = handled.rejected.first() {
                bail!("frame {i} of {name} was dead-lettered: {reason}");
            }
            if i < opts.warmup {
                continue;
            }
            let done_subject = cits::subjects::done_outbox(&name);
            let done = published.iter().find(|o| o.subject == done_subject).context("no FrameDone")?;
            let done = FrameDone::decode(done.body.as_slice())?;
            report.frame_us.push(took.as_micros() as u64);
            let (paths, pairs) = detector_load(&mut svc, opts.rsus)?;
            report.paths.push(paths);
            report.pairs.push(pairs);
            report.risks.push(done.risks);
            report.denms.push(done.denms);
            for (k, t) in done.trace.iter().enumerate() {
                if report.stage_us.len() <= k {
                    report.stage_us.push((t.stage.clone(), Vec::new()));
                }
                report.stage_us[k].1.push(t.sent_at_us.saturating_sub(t.received_at_us));
            }
        }
    }
    Ok(report)
}

/// Paths the detector holds for the intersection and the vehicle ↔ VRU pairs among them.
fn detector_load(svc: &mut InProcess, rsus: usize) -> anyhow::Result<(usize, usize)> {
    use cits::pipeline::{buckets, Services as _};
    let keys: Vec<String> =
        (0..rsus).map(|r| cits::stages::collision_detector::state_key(INTERSECTION, &rsu(r).0)).collect();
    let is_vru = |m: i32| m == TravelMode::Bicycle as i32 || m == TravelMode::Pedestrian as i32;
    let mut modes = Vec::new();
    for stored in svc.get_many(buckets::PATHS, &keys)? {
        let state = cits::stages::collision_detector::decode_stored(stored.as_deref());
        modes.extend(state.objects.iter().flat_map(|o| o.paths.iter().map(|p| p.mode)));
    }
    let vrus = modes.iter().filter(|m| is_vru(**m)).count();
    Ok((modes.len(), vrus * (modes.len() - vrus)))
}

fn ms(us: u64) -> String {
    format!("{:.2} ms", us as f64 / 1000.0)
}

fn median_max<T: Copy + Ord>(values: &[T]) -> Option<(T, T)> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    Some((*sorted.get(sorted.len() / 2)?, *sorted.last()?))
}

impl Report {
    pub fn text(&self, opts: &Options) -> String {
        let mut out = format!(
            "{} frames of {} objects from {} RSU(s) of one intersection (after {} warm-up frames each), fused pipeline in process:\n",
            self.frame_us.len(),
            opts.objects,
            opts.rsus,
            opts.warmup
        );
        if let Some((median, max)) = median_max(&self.frame_us) {
            out += &format!("  per frame      median {}  max {}\n", ms(median), ms(max));
        }
        for (stage, us) in &self.stage_us {
            if let Some((median, max)) = median_max(us) {
                out += &format!("  {stage:<19} median {}  max {}\n", ms(median), ms(max));
            }
        }
        if let (Some((r, rmax)), Some((d, dmax))) = (median_max(&self.risks), median_max(&self.denms)) {
            out += &format!("  risks per frame median {r} max {rmax}, DENMs per frame median {d} max {dmax}\n");
        }
        if let (Some((p, pmax)), Some((q, qmax))) = (median_max(&self.paths), median_max(&self.pairs)) {
            out += &format!("  detector: paths median {p} max {pmax}, vehicle-VRU path pairs median {q} max {qmax}\n");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use etsi_its::cpm::SimpleCpm;

    fn graph() -> LaneGraph {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let xml = std::fs::read_to_string(root.join("data/map/weiser-gabelsberger.osm")).unwrap();
        cits_map::lane_graph_from_osm(&xml, "map").unwrap()
    }

    #[test]
    fn hostile_cpms_carry_every_object_crowded_round_the_junction() {
        let users = road_users(&graph(), 128, CYCLE_S).unwrap();
        let cpm =
            SimpleCpm::from_cpm(&etsi_its::cpm::decode(&cpm(9001, &users, 1.0, 1_700_000_000_000)).unwrap()).unwrap();
        assert_eq!(cpm.objects.len(), 128);
        let vrus = cpm.objects.iter().filter(|o| matches!(o.class, ObjectKind::Bicycle | ObjectKind::Pedestrian));
        assert_eq!(vrus.count(), 64);
        for o in &cpm.objects {
            let d = f64::from(o.x_cm).hypot(f64::from(o.y_cm)) / 100.0;
            assert!(d < 60.0, "object {} {d} m from the reference", o.object_id);
        }
    }
}

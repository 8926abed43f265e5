//! Recorded road users (a trajectory dataset's tracks, [`crate::import`]) on the simulator's
//! stage: each track becomes a mover that plays its samples back instead of following a route,
//! so the same cameras film it ([`super::film`]) and the same truth scores it
//! ([`super::truth`]) as simulated traffic.

use std::sync::Arc;

use anyhow::bail;
use cits::proto::{LaneGraph, Turn};
use cits::shared::geo::{wgs84_to_offset, Wgs84};

use super::routes::{build_route, dist, Kind, Through, P};
use super::traffic::{LanePosition, Mover, World};
use super::{film, Params, Simulation};
use cits_map::site::Site;

/// One sample of a recorded road user: time (ms from the recording's start), position and
/// velocity east/north (m/s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecordedSample {
    pub t_ms: i64,
    pub at: Wgs84,
    pub velocity: (f64, f64),
}

/// A recorded road user: what the truth calls it and its samples in time order.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedUser {
    pub kind: Kind,
    pub description: String,
    pub samples: Vec<RecordedSample>,
}

/// A track played back in the site's frame (metres east/north of its centre).
#[derive(Debug)]
pub(super) struct Playback {
    /// Sample times, s from the recording's start.
    t: Vec<f64>,
    states: Vec<(P, P)>,
    pub(super) description: String,
}

/// The route's polyline keeps a point only this far from the last one kept: a parked car's
/// thousands of samples are one point, and the truth's occupancy test stays cheap.
const PATH_STEP_M: f64 = 0.5;

impl Playback {
    pub(super) fn start_s(&self) -> f64 {
        self.t[0]
    }

    pub(super) fn end_s(&self) -> f64 {
        // Invariant: a playback has at least one sample (checked in `film_recorded`).
        self.t[self.t.len() - 1]
    }

    /// Position and velocity at `time_s`, linear between samples; None outside the track.
    pub(super) fn state(&self, time_s: f64) -> Option<(P, P)> {
        if time_s < self.start_s() || time_s > self.end_s() {
            return None;
        }
        let i = self.t.partition_point(|&t| t <= time_s);
        if i >= self.t.len() {
            return self.states.last().copied();
        }
        let (t0, t1) = (self.t[i - 1], self.t[i]);
        let f = if t1 > t0 { (time_s - t0) / (t1 - t0) } else { 0.0 };
        let ((p0, v0), (p1, v1)) = (self.states[i - 1], self.states[i]);
        let lerp = |a: P, b: P| (a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1));
        Some((lerp(p0, p1), lerp(v0, v1)))
    }

    /// The way it went, thinned to [`PATH_STEP_M`] (at least two points).
    fn path(&self) -> Vec<P> {
        let mut path: Vec<P> = Vec::new();
        for &(p, _) in &self.states {
            if path.last().is_none_or(|&last| dist(last, p) >= PATH_STEP_M) {
                path.push(p);
            }
        }
        if let (Some(&last), Some(&(end, _))) = (path.last(), self.states.last()) {
            if dist(last, end) > 1e-3 {
                path.push(end);
            }
        }
        if path.len() == 1 {
            // Standing still all along: a short segment where it stood.
            path.push((path[0].0 + 0.01, path[0].1));
        }
        path
    }
}

/// The RSU of the graph's junction films recorded road users: the recording and the truth as for
/// simulated traffic. Time 0 is the recording's start; `params.duration_s` how long the cameras
/// run.
pub fn film_recorded(graph: &LaneGraph, users: &[RecordedUser], params: &Params) -> anyhow::Result<Simulation> {
    let site = Site::of(graph)?;
    let mut routes = Vec::new();
    let mut movers = Vec::new();
    for u in users {
        if u.samples.is_empty() {
            bail!("{} has no samples", u.description);
        }
        let playback = Playback {
            t: u.samples.iter().map(|s| s.t_ms as f64 / 1e3).collect(),
            states: u.samples.iter().map(|s| (wgs84_to_offset(site.centre, s.at), s.velocity)).collect(),
            description: u.description.clone(),
        };
        let through = Through { arm: 0, arm_name: "recorded", exit_arm: 0, turn: Turn::None, core: (0, 0) };
        routes.push(build_route(u.kind, &through, &[(-1, playback.path())], None));
        movers.push(Mover {
            kind: u.kind,
            route: routes.len() - 1,
            entry_s: playback.start_s(),
            cruise_mps: 0.0,
            turn_mps: None,
            t: vec![0.0, 0.0],
            v: vec![0.0, 0.0],
            step: 1.0,
            stop: None,
            lane_position: LanePosition::default(),
            recorded: Some(Arc::new(playback)),
        });
    }
    // Nothing is planted, nobody hidden on purpose: what the cameras miss, they miss by range,
    // field of view, dropouts and occlusions.
    let world = World { routes, crossings: Vec::new(), lane_keeping: false, site };
    let mut sim = film(world, (movers, Vec::new(), Vec::new()), params, &graph.name)?;
    for u in &mut sim.users {
        if let Some(p) = &u.mover.recorded {
            u.description = p.description.clone();
            u.route = Vec::new();
        }
    }
    Ok(sim)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use cits::shared::geo::offset_to_wgs84;

    use super::*;

    /// A straight track at constant velocity, sampled at 10 Hz, in metres from the site's centre.
    fn straight(site: &Site, kind: Kind, from: P, v: P, secs: f64) -> RecordedUser {
        let samples = (0..=(secs * 10.0) as i64)
            .map(|k| {
                let t = k as f64 / 10.0;
                let at = offset_to_wgs84(site.centre, from.0 + v.0 * t, from.1 + v.1 * t);
                RecordedSample { t_ms: k * 100, at, velocity: v }
            })
            .collect();
        RecordedUser { kind, description: format!("{kind:?}"), samples }
    }

    #[test]
    fn recorded_tracks_get_the_simulated_truths_pet() {
        let graph =
            cits_map::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/map/weiser-gabelsberger.osm"), None)
                .unwrap();
        let site = Site::of(&graph).unwrap();
        // As in safety.rs: a car eastwards at 10 m/s through the centre leaves the pedestrian's
        // path at 5.34 s; the pedestrian northwards at 1 m/s reaches the car's at 8.0 s.
        let users = [
            straight(&site, Kind::Car, (-50.0, 0.0), (10.0, 0.0), 10.0),
            straight(&site, Kind::Pedestrian, (0.0, -9.4), (0.0, 1.0), 20.0),
        ];
        let sim = film_recorded(&graph, &users, &Params::new(1, 20)).unwrap();
        let truth = super::super::truth(&sim);
        assert_eq!(truth.encounters.len(), 1, "{:?}", truth.encounters);
        let e = &truth.encounters[0];
        assert!((e.pet_s - (8.0 - 5.34)).abs() <= 0.1 + 1e-9, "{e:?}");
        assert_eq!(truth.road_users[1].description, "Pedestrian");
        // Both filmed by the site's cameras.
        let filmed: std::collections::BTreeSet<u32> = truth.tracks.iter().map(|t| t.2).collect();
        assert_eq!(filmed.len(), 2);
    }
}

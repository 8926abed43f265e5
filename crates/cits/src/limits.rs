// Over 600 lines: half of it is the tests of every limit; the checks share one Limits value.
//! Plausibility limits: what every stage checks its input against before working on it.
//!
//! A stage trusts nothing it receives, not even a frame of the stage before it (in the
//! seven-actor deployment anything on the lattice may publish on its subject): the counts that
//! bound its work, the numbers it computes with (finite, in range), the order it relies on (each
//! object's times increasing) and that a frame is about the RSU and station it claims. A message
//! that fails is a dead letter with the reason, e.g. "too many objects: 200 > 128".
//!
//! The limits are named config entries `limits.*` (wasi:config), the same for every stage; the
//! defaults are production values. What each stage checks of its input is in its folder
//! (`stages/<stage>/limits.rs`); the checks' tests are here, sharing their builders.

use crate::config::{Entry, Key, Kind};
use crate::message::StageError;

/// How far a perceived object's measurement may lie from its CPM's reference time: the range of
/// ETSI's `DeltaTimeMilliSecondSigned` (-2048..2047 ms).
pub const MAX_MEASUREMENT_DELTA_US: u64 = 2_048_000;

#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Perceived objects in one CPM (and so in every frame made of it): TS 103 324 allows 128.
    pub max_objects_per_cpm: usize,
    /// How far a CPM's reference time may lie ahead of the time it was received: clock skew
    /// between a GNSS-synchronised RSU and the cloud, never more.
    pub max_future_us: u64,
    /// How far it may lie behind: queueing in a healthy deployment (and a restart) stays well
    /// below; older is a wrong clock, a replayed recording or a backlog not worth warning from
    /// (a warning is about the next 3 s).
    pub max_age_us: u64,
    /// Distance of a perceived object from the sensor (or reference position) that reported it:
    /// beyond any roadside sensor's reach (long-range radar, ~250 m).
    pub max_sensor_range_m: f64,
    /// Speed no road user reaches (70 m/s = 252 km/h).
    pub max_speed_mps: f64,
    /// Points of one trajectory (the assembler keeps at most its `max_points`, 100 by default):
    /// bounds the map matcher's and predictor's work per object.
    pub max_points_per_trajectory: usize,
    /// Predicted paths in one frame: every object with up to 8 alternative routes.
    pub max_paths_per_frame: usize,
    /// Predicted positions of one path (the predictor's horizon / step: 12 by default).
    pub max_positions_per_path: usize,
    /// Path pairs the collision detector tests per frame (the most urgent first, see
    /// [`crate::stages::collision_detector::pairs_to_test`]); so also the most risks in one frame.
    pub max_pairs_per_frame: usize,
}

/// The `limits.*` keys every stage reads (each checks the ones about its input).
pub const KEYS: &[Key] = &[
    Key {
        name: "limits.max_objects_per_cpm",
        kind: Kind::Count,
        default: "128",
        doc: "perceived objects in one CPM and every frame made of it (TS 103 324 allows 128)",
    },
    Key {
        name: "limits.max_future_ms",
        kind: Kind::Millis,
        default: "2000",
        doc: "how far a message's reference time may lie ahead of its reception (clock skew)",
    },
    Key {
        name: "limits.max_age_ms",
        kind: Kind::Millis,
        default: "60000",
        doc: "how far it may lie behind (queueing; older is a wrong clock or a stale backlog)",
    },
    Key {
        name: "limits.max_sensor_range_m",
        kind: Kind::Positive,
        default: "250",
        doc: "an object's distance from its sensor (manifests: 100)",
    },
    Key { name: "limits.max_speed_mps", kind: Kind::Positive, default: "70", doc: "a speed no road user reaches" },
    Key {
        name: "limits.max_points_per_trajectory",
        kind: Kind::Count,
        default: "200",
        doc: "points of one trajectory",
    },
    Key {
        name: "limits.max_paths_per_frame",
        kind: Kind::Count,
        default: "1024",
        doc: "predicted paths in one frame (and kept per RSU by the detector)",
    },
    Key {
        name: "limits.max_positions_per_path",
        kind: Kind::Count,
        default: "120",
        doc: "predicted positions of one path",
    },
    Key {
        name: "limits.max_pairs_per_frame",
        kind: Kind::Count,
        default: "4096",
        doc: "path pairs the detector tests per frame, the most urgent first",
    },
];

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_objects_per_cpm: 128,
            max_future_us: 2_000_000,
            max_age_us: 60_000_000,
            max_sensor_range_m: 250.0,
            max_speed_mps: 70.0,
            max_points_per_trajectory: 200,
            max_paths_per_frame: 1024,
            max_positions_per_path: 120,
            max_pairs_per_frame: 4096,
        }
    }
}

impl Limits {
    /// Reads the `limits.*` entries of a stage's config; others are left alone.
    pub fn from_config<'a>(
        stage: &'a str,
        entries: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, StageError> {
        let mut l = Self::default();
        let count = |e: &Entry<'_>| e.positive_u64().map(|v| v as usize);
        for e in crate::config::entries(stage, entries) {
            match e.key {
                "limits.max_objects_per_cpm" => l.max_objects_per_cpm = count(&e)?,
                "limits.max_future_ms" => l.max_future_us = e.millis_as_us()?,
                "limits.max_age_ms" => l.max_age_us = e.millis_as_us()?,
                "limits.max_sensor_range_m" => l.max_sensor_range_m = e.positive_f64()?,
                "limits.max_speed_mps" => l.max_speed_mps = e.positive_f64()?,
                "limits.max_points_per_trajectory" => l.max_points_per_trajectory = count(&e)?,
                "limits.max_paths_per_frame" => l.max_paths_per_frame = count(&e)?,
                "limits.max_positions_per_path" => l.max_positions_per_path = count(&e)?,
                "limits.max_pairs_per_frame" => l.max_pairs_per_frame = count(&e)?,
                _ => {}
            }
        }
        Ok(l)
    }

    /// Each object's track: not too long, in time order, on earth, its other fields sane.
    pub(crate) fn check_tracks<T: Track>(&self, rsu: &str, subject: &str, tracks: &[T]) -> Result<(), StageError> {
        check_rsu(rsu, subject)?;
        self.objects(tracks.len())?;
        for t in tracks {
            let what = || t.name();
            let points = t.points();
            self.count(&what(), "points", points.len(), self.max_points_per_trajectory)?;
            increasing(what, points.clone().map(|(time, _, _)| time))?;
            points.into_iter().try_for_each(|(_, lat, lon)| position(what, lat, lon))?;
            t.check_points(self, &what)?;
        }
        Ok(())
    }

    pub(crate) fn objects(&self, n: usize) -> Result<(), StageError> {
        if n > self.max_objects_per_cpm {
            return Err(StageError::new(format!("too many objects: {n} > {}", self.max_objects_per_cpm)));
        }
        Ok(())
    }

    pub(crate) fn count(&self, what: &str, of: &str, n: usize, max: usize) -> Result<(), StageError> {
        if n > max {
            return Err(StageError::new(format!("{what}: too many {of}: {n} > {max}")));
        }
        Ok(())
    }

    pub(crate) fn speed(&self, what: impl Fn() -> String, speed_mps: Option<f64>) -> Result<(), StageError> {
        match speed_mps {
            Some(v) if !(v.is_finite() && v >= 0.0) => {
                Err(StageError::new(format!("{}: speed {v} m/s is not a speed", what())))
            }
            Some(v) if v > self.max_speed_mps => {
                Err(StageError::new(format!("{}: speed {} m/s (limit {} m/s)", what(), round1(v), self.max_speed_mps)))
            }
            _ => Ok(()),
        }
    }
}

/// A frame's RSU must be a subject token (outputs are published on `cits.<kind>.<rsu>`) and the
/// one of the subject it came on (state is kept per RSU: a frame must not write another's).
pub fn check_rsu(rsu: &str, subject: &str) -> Result<(), StageError> {
    if rsu.is_empty() || rsu.contains(['.', '*', '>', ' ']) {
        return Err(StageError::new(format!("frame has no valid RSU id (`{rsu}`)")));
    }
    // Subjects of internal frames end in the RSU; a fused chain's in-memory hand-over does too.
    match subject.rsplit_once('.') {
        Some((_, token)) if token == rsu => Ok(()),
        _ => Err(StageError::new(format!("RSU mismatch: frame of RSU {rsu} on subject {subject}"))),
    }
}

/// A trajectory as the map matcher and the predictor get it: plain or matched to lanes.
pub(crate) trait Track {
    fn name(&self) -> String;
    /// (time, latitude, longitude) of each point.
    fn points(&self) -> impl ExactSizeIterator<Item = (u64, f64, f64)> + Clone;
    /// What the points of this kind of trajectory carry besides.
    fn check_points(&self, limits: &Limits, what: &dyn Fn() -> String) -> Result<(), StageError>;
}

impl Track for crate::proto::Trajectory {
    fn name(&self) -> String {
        format!("trajectory {}/{}/{}", self.station_id, self.sensor_id, self.object_id)
    }
    fn points(&self) -> impl ExactSizeIterator<Item = (u64, f64, f64)> + Clone {
        self.points.iter().map(|p| (p.measured_at_us, p.latitude, p.longitude))
    }
    fn check_points(&self, limits: &Limits, what: &dyn Fn() -> String) -> Result<(), StageError> {
        self.points.iter().try_for_each(|p| {
            limits.speed(what, p.speed_mps)?;
            heading(what, p.heading_deg)
        })
    }
}

impl Track for crate::proto::MatchedTrajectory {
    fn name(&self) -> String {
        format!("trajectory {}/{}/{}", self.station_id, self.sensor_id, self.object_id)
    }
    fn points(&self) -> impl ExactSizeIterator<Item = (u64, f64, f64)> + Clone {
        self.points.iter().map(|p| (p.measured_at_us, p.latitude, p.longitude))
    }
    fn check_points(&self, limits: &Limits, what: &dyn Fn() -> String) -> Result<(), StageError> {
        self.points.iter().try_for_each(|p| {
            limits.speed(what, p.speed_mps)?;
            finite(what, "station along the lane", p.station_m)?;
            finite(what, "offset from the lane", p.offset_m)
        })
    }
}

pub(crate) fn position(what: impl Fn() -> String, lat: f64, lon: f64) -> Result<(), StageError> {
    if !((-90.0..=90.0).contains(&lat) && (-180.0..=180.0).contains(&lon)) {
        return Err(StageError::new(format!("{}: ({lat}, {lon}) is not a WGS84 position", what())));
    }
    Ok(())
}

pub(crate) fn heading(what: impl Fn() -> String, heading_deg: Option<f64>) -> Result<(), StageError> {
    match heading_deg {
        Some(h) if !h.is_finite() => Err(StageError::new(format!("{}: heading {h}° is not an angle", what()))),
        _ => Ok(()),
    }
}

pub(crate) fn finite(what: impl Fn() -> String, quantity: &str, value: f64) -> Result<(), StageError> {
    if !value.is_finite() {
        return Err(StageError::new(format!("{}: {quantity} {value} is not a number", what())));
    }
    Ok(())
}

pub(crate) fn probability(what: impl Fn() -> String, p: f64) -> Result<(), StageError> {
    if !(0.0..=1.0).contains(&p) {
        return Err(StageError::new(format!("{}: probability {p} is not between 0 and 1", what())));
    }
    Ok(())
}

/// Times of one object's points (or positions) must strictly increase.
pub(crate) fn increasing(what: impl Fn() -> String, times: impl Iterator<Item = u64>) -> Result<(), StageError> {
    let mut previous: Option<u64> = None;
    for t in times {
        if let Some(p) = previous.filter(|p| t <= *p) {
            return Err(StageError::new(format!("{}: times not increasing ({t} µs after {p} µs)", what())));
        }
        previous = Some(t);
    }
    Ok(())
}

/// Microseconds as seconds for a reason: `3600`, `2.5`.
pub(crate) fn seconds(us: u64) -> String {
    round1(us as f64 / 1e6).to_string()
}

pub(crate) fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::{
        CollisionRisk, CollisionRiskFrame, Cpm, LocationsContainer, LocationsFrame, MatchedPoint, MatchedTrajectory,
        MatchedTrajectoryFrame, ObjectRef, PerceivedObject, PredictedPath, PredictedPathFrame, PredictedPosition,
        Trajectory, TrajectoryFrame, TrajectoryPoint,
    };

    const NOW_US: u64 = 1_800_000_000_000_000;

    fn reason(r: Result<(), StageError>) -> String {
        r.expect_err("a dead letter").reason
    }

    fn object(id: u32, x_m: f64, y_m: f64) -> PerceivedObject {
        PerceivedObject { object_id: id, x_cm: (x_m * 100.0) as i32, y_cm: (y_m * 100.0) as i32, ..Default::default() }
    }

    fn cpm(objects: Vec<PerceivedObject>) -> Cpm {
        Cpm { station_id: 1001, reference_time_us: NOW_US, objects, ..Default::default() }
    }

    #[test]
    fn the_declared_keys_are_the_ones_read_with_their_defaults() {
        let read = |entries: &[(&str, &str)]| Limits::from_config("decoder", entries.iter().copied());
        assert_eq!(read(&crate::config::declared_defaults(KEYS)).unwrap(), Limits::default());
        assert_eq!(crate::config::keys_read_without_refusal(KEYS, read), Vec::<&str>::new());
    }

    #[test]
    fn defaults_are_the_production_values() {
        let l = Limits::default();
        assert_eq!(l.max_objects_per_cpm, 128);
        assert_eq!((l.max_future_us, l.max_age_us), (2_000_000, 60_000_000));
        assert_eq!((l.max_sensor_range_m, l.max_speed_mps), (250.0, 70.0));
        // The assembler's trajectories stay within what the next stages accept.
        assert!(crate::stages::assembler::AssemblerConfig::default().max_points <= l.max_points_per_trajectory);
        let p = crate::stages::predictor::PredictorConfig::default();
        assert!((p.horizon_us / p.step_us) as usize <= l.max_positions_per_path);
        assert!(l.max_objects_per_cpm * p.max_alternatives <= l.max_paths_per_frame);
    }

    #[test]
    fn config_sets_every_limit_and_refuses_nonsense() {
        let l = Limits::from_config(
            "decoder",
            [
                ("limits.max_objects_per_cpm", "64"),
                ("limits.max_future_ms", "500"),
                ("limits.max_age_ms", "10000"),
                ("limits.max_sensor_range_m", "80.5"),
                ("limits.max_speed_mps", "50"),
                ("limits.max_points_per_trajectory", "100"),
                ("limits.max_paths_per_frame", "256"),
                ("limits.max_positions_per_path", "12"),
                ("limits.max_pairs_per_frame", "1000"),
                ("sensor.1001.1", "47.8,13.0,0"),
            ],
        )
        .unwrap();
        assert_eq!(
            l,
            Limits {
                max_objects_per_cpm: 64,
                max_future_us: 500_000,
                max_age_us: 10_000_000,
                max_sensor_range_m: 80.5,
                max_speed_mps: 50.0,
                max_points_per_trajectory: 100,
                max_paths_per_frame: 256,
                max_positions_per_path: 12,
                max_pairs_per_frame: 1000,
            }
        );
        for (key, value) in
            [("limits.max_objects_per_cpm", "0"), ("limits.max_speed_mps", "NaN"), ("limits.max_age_ms", "-1")]
        {
            let err = Limits::from_config("decoder", [(key, value)]).unwrap_err();
            assert!(err.reason.starts_with(&format!("decoder config `{key}`")), "{err}");
        }
    }

    #[test]
    fn too_many_objects() {
        let l = Limits::default();
        let objects = |n| (0..n).map(|i| object(i, 1.0, 1.0)).collect::<Vec<_>>();
        l.check_cpm(&cpm(objects(128))).unwrap();
        assert_eq!(reason(l.check_cpm(&cpm(objects(200)))), "too many objects: 200 > 128");
        let frame = LocationsFrame {
            rsu_id: "r1".into(),
            locations: vec![LocationsContainer::default(); 129],
            ..Default::default()
        };
        assert_eq!(reason(l.check_locations(&frame, "cits.locations.r1")), "too many objects: 129 > 128");
    }

    #[test]
    fn reference_time_far_from_the_receive_time() {
        let l = Limits::default();
        l.check_reference_time(NOW_US + 1_900_000, NOW_US).unwrap();
        l.check_reference_time(NOW_US - 59_000_000, NOW_US).unwrap();
        assert_eq!(
            reason(l.check_reference_time(NOW_US + 3_600_000_000, NOW_US)),
            "reference time 3600 s in the future (limit 2 s)"
        );
        assert_eq!(
            reason(l.check_reference_time(NOW_US - 2_500_000 - 60_000_000, NOW_US)),
            "reference time 62.5 s in the past (limit 60 s)"
        );
        // A recording of 2022 replayed as it is.
        let recorded = crate::shared::time::its_ms_to_unix_us(591_619_380_000);
        assert!(reason(l.check_reference_time(recorded, NOW_US)).contains("s in the past"));
    }

    #[test]
    fn objects_beyond_the_sensors_range() {
        let l = Limits::default();
        l.check_cpm(&cpm(vec![object(7, 150.0, -190.0)])).unwrap(); // 241.8 m
        assert_eq!(
            reason(l.check_cpm(&cpm(vec![object(1, 3.0, 4.0), object(7, 1310.71, 0.0)]))),
            "object 7: 1310.7 m from the sensor (limit 250 m)"
        );
    }

    #[test]
    fn speeds_no_road_user_reaches() {
        let l = Limits::default();
        let moving =
            |vx, vy| PerceivedObject { velocity_x_cm_s: Some(vx), velocity_y_cm_s: Some(vy), ..object(7, 1.0, 1.0) };
        l.check_cpm(&cpm(vec![moving(4200, -5500)])).unwrap(); // 69.2 m/s
        assert_eq!(reason(l.check_cpm(&cpm(vec![moving(16382, 0)]))), "object 7: speed 163.8 m/s (limit 70 m/s)");
        let located = |speed| LocationsFrame {
            rsu_id: "r1".into(),
            locations: vec![LocationsContainer { object_id: 7, speed_mps: Some(speed), ..Default::default() }],
            ..Default::default()
        };
        assert!(reason(l.check_locations(&located(71.0), "cits.locations.r1")).contains("speed 71 m/s (limit 70 m/s)"));
        assert!(reason(l.check_locations(&located(f64::NAN), "cits.locations.r1")).contains("is not a speed"));
        assert!(reason(l.check_locations(&located(-1.0), "cits.locations.r1")).contains("is not a speed"));
    }

    fn locations(l: LocationsContainer) -> LocationsFrame {
        LocationsFrame {
            rsu_id: "r1".into(),
            station_id: 1001,
            reference_time_us: NOW_US,
            locations: vec![LocationsContainer {
                station_id: 1001,
                sensor_id: 1,
                object_id: 7,
                measured_at_us: NOW_US - 40_000,
                latitude: 47.81,
                longitude: 13.05,
                ..l
            }],
            ..Default::default()
        }
    }

    #[test]
    fn located_objects_must_be_of_the_frame_finite_and_measured_near_its_time() {
        let l = Limits::default();
        let check = |f: &LocationsFrame| l.check_locations(f, "cits.locations.r1");
        check(&locations(Default::default())).unwrap();
        let mut other_station = locations(Default::default());
        other_station.locations[0].station_id = 1002;
        assert_eq!(reason(check(&other_station)), "station mismatch: object 1002/1/7 in a frame of station 1001");
        let mut nan = locations(Default::default());
        nan.locations[0].latitude = f64::NAN;
        assert_eq!(reason(check(&nan)), "object 1001/1/7: (NaN, 13.05) is not a WGS84 position");
        let mut off_earth = locations(Default::default());
        off_earth.locations[0].longitude = 181.0;
        assert!(reason(check(&off_earth)).contains("is not a WGS84 position"));
        let mut heading = locations(Default::default());
        heading.locations[0].heading_deg = Some(f64::INFINITY);
        assert_eq!(reason(check(&heading)), "object 1001/1/7: heading inf° is not an angle");
        let mut late = locations(Default::default());
        late.locations[0].measured_at_us = NOW_US - 3_000_000;
        assert_eq!(reason(check(&late)), "object 1001/1/7: measured 3 s from the frame's reference time (limit 2 s)");
    }

    #[test]
    fn a_frame_is_of_the_rsu_of_its_subject() {
        let l = Limits::default();
        let frame = locations(Default::default());
        assert_eq!(
            reason(l.check_locations(&frame, "cits.locations.r2")),
            "RSU mismatch: frame of RSU r1 on subject cits.locations.r2"
        );
        for rsu in ["", "a.b", "*", ">"] {
            let bad = LocationsFrame { rsu_id: rsu.into(), ..frame.clone() };
            assert!(reason(l.check_locations(&bad, "cits.locations.r1")).contains("no valid RSU id"), "{rsu}");
        }
    }

    fn trajectory(times_ms: &[u64]) -> Trajectory {
        Trajectory {
            station_id: 1001,
            sensor_id: 1,
            object_id: 7,
            points: times_ms
                .iter()
                .map(|t| TrajectoryPoint {
                    measured_at_us: t * 1000,
                    latitude: 47.81,
                    longitude: 13.05,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn trajectories_are_bounded_finite_and_in_time_order() {
        let l = Limits::default();
        let frame =
            |t: Trajectory| TrajectoryFrame { rsu_id: "r1".into(), trajectories: vec![t], ..Default::default() };
        let check = |t: Trajectory| l.check_trajectories(&frame(t), "cits.trajectories.r1");
        check(trajectory(&[1000, 1125, 1250])).unwrap();
        assert_eq!(
            reason(check(trajectory(&[1000, 1250, 1125]))),
            "trajectory 1001/1/7: times not increasing (1125000 µs after 1250000 µs)"
        );
        assert!(reason(check(trajectory(&[1000, 1000]))).contains("times not increasing"));
        let long: Vec<u64> = (0..201).map(|i| i * 125).collect();
        assert_eq!(reason(check(trajectory(&long))), "trajectory 1001/1/7: too many points: 201 > 200");
        let mut nan = trajectory(&[1000]);
        nan.points[0].longitude = f64::NAN;
        assert!(reason(check(nan)).contains("is not a WGS84 position"));
        let mut fast = trajectory(&[1000]);
        fast.points[0].speed_mps = Some(90.0);
        assert!(reason(check(fast)).contains("speed 90 m/s"));
        let many =
            TrajectoryFrame { rsu_id: "r1".into(), trajectories: vec![trajectory(&[1]); 129], ..Default::default() };
        assert_eq!(reason(l.check_trajectories(&many, "cits.trajectories.r1")), "too many objects: 129 > 128");
    }

    #[test]
    fn matched_trajectories_are_bounded_finite_and_in_time_order() {
        let l = Limits::default();
        let matched = |times_ms: &[u64], station_m: f64| MatchedTrajectoryFrame {
            rsu_id: "r1".into(),
            trajectories: vec![MatchedTrajectory {
                station_id: 1001,
                object_id: 7,
                points: times_ms
                    .iter()
                    .map(|t| MatchedPoint {
                        measured_at_us: t * 1000,
                        latitude: 47.81,
                        longitude: 13.05,
                        station_m,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let check = |f: MatchedTrajectoryFrame| l.check_matched(&f, "cits.matched.r1");
        check(matched(&[1000, 1125], 3.0)).unwrap();
        assert!(reason(check(matched(&[1125, 1000], 3.0))).contains("times not increasing"));
        assert_eq!(
            reason(check(matched(&[1000], f64::NAN))),
            "trajectory 1001/0/7: station along the lane NaN is not a number"
        );
        let long: Vec<u64> = (0..201).collect();
        assert!(reason(check(matched(&long, 1.0))).contains("too many points: 201 > 200"));
        let mut backwards = matched(&[1000], 3.0);
        backwards.trajectories[0].points[0].speed_mps = Some(-1.0);
        assert!(reason(check(backwards)).contains("speed -1 m/s is not a speed"));
    }

    fn path(times_ms: &[u64], probability: f64) -> PredictedPath {
        PredictedPath {
            station_id: 1001,
            object_id: 7,
            probability,
            positions: times_ms
                .iter()
                .map(|t| PredictedPosition { at_us: t * 1000, latitude: 47.81, longitude: 13.05, lanelet_id: 0 })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn predicted_paths_are_bounded_probable_and_in_time_order() {
        let l = Limits::default();
        let frame = |paths| PredictedPathFrame { rsu_id: "r1".into(), paths, ..Default::default() };
        let check = |paths| l.check_predicted(&frame(paths), "cits.predicted.r1");
        check(vec![path(&[250, 500, 750], 0.55)]).unwrap();
        assert_eq!(
            reason(check(vec![path(&[250, 500], 1.5)])),
            "path 1001/0/7 #0: probability 1.5 is not between 0 and 1"
        );
        assert!(reason(check(vec![path(&[250, 500], f64::NAN)])).contains("probability NaN"));
        assert!(reason(check(vec![path(&[500, 250], 0.5)])).contains("times not increasing"));
        let long: Vec<u64> = (1..=121).collect();
        assert_eq!(reason(check(vec![path(&long, 0.5)])), "path 1001/0/7 #0: too many positions: 121 > 120");
        assert_eq!(reason(check(vec![path(&[250], 0.5); 1025])), "frame: too many paths: 1025 > 1024");
        // Where it came from: before its first prediction, in order.
        let with_past = |past: &[u64]| PredictedPath { past: path(past, 1.0).positions, ..path(&[250, 500], 0.5) };
        check(vec![with_past(&[0, 125])]).unwrap();
        assert!(reason(check(vec![with_past(&[0, 250])])).contains("times not increasing (250000 µs after 250000 µs)"));
        assert!(reason(check(vec![with_past(&[125, 0])])).contains("times not increasing"));
        assert_eq!(reason(check(vec![with_past(&long)])), "path 1001/0/7 #0: too many past positions: 121 > 120");
    }

    #[test]
    fn risks_are_bounded_and_make_sense() {
        let l = Limits::default();
        let object = Some(ObjectRef::default());
        let risk = CollisionRisk {
            first: object,
            second: object,
            conflict_latitude: 47.81,
            conflict_longitude: 13.05,
            time_to_collision_s: 1.5,
            probability: 0.6,
            ..Default::default()
        };
        let frame = |risks| CollisionRiskFrame { rsu_id: "r1".into(), risks, ..Default::default() };
        let check = |risks| l.check_risks(&frame(risks), "cits.risks.r1");
        check(vec![risk]).unwrap();
        assert_eq!(reason(check(vec![risk; 4097])), "frame: too many risks: 4097 > 4096");
        assert_eq!(
            reason(check(vec![CollisionRisk { second: None, ..risk }])),
            "risk #0: lacks one of its two road users"
        );
        assert_eq!(
            reason(check(vec![risk, CollisionRisk { time_to_collision_s: f64::NAN, ..risk }])),
            "risk #1: time to collision NaN s is not a duration"
        );
        assert!(reason(check(vec![CollisionRisk { time_to_collision_s: -1.0, ..risk }])).contains("not a duration"));
        assert!(reason(check(vec![CollisionRisk { conflict_latitude: 95.0, ..risk }])).contains("not a WGS84 position"));
        assert!(reason(check(vec![CollisionRisk { probability: -0.1, ..risk }])).contains("not between 0 and 1"));
    }
}

use super::*;

/// A location `north_m` metres north of a fixed point.
fn loc(object_id: u32, t_ms: u64, north_m: f64) -> LocationsContainer {
    LocationsContainer {
        station_id: 1001,
        sensor_id: 1,
        object_id,
        measured_at_us: t_ms * 1000,
        latitude: 47.81 + north_m / 111_200.0,
        longitude: 13.05,
        ..Default::default()
    }
}

fn times(t: &Trajectory) -> Vec<u64> {
    t.points.iter().map(|p| p.measured_at_us / 1000).collect()
}

fn run(locations: Vec<LocationsContainer>, cfg: &AssemblerConfig) -> Trajectory {
    let mut t = None;
    for l in &locations {
        t = Some(merge(t, l, cfg));
    }
    t.unwrap()
}

#[test]
fn out_of_order_points_are_inserted_in_place() {
    let t = run(
        vec![loc(7, 1000, 1.0), loc(7, 1250, 3.0), loc(7, 1125, 2.0), loc(7, 1375, 4.0)],
        &AssemblerConfig::default(),
    );
    assert_eq!(times(&t), vec![1000, 1125, 1250, 1375]);
    assert_eq!(t.points[1].latitude, loc(7, 1125, 2.0).latitude);
    assert_eq!(t.generation, 1000, "the track's start");
}

#[test]
fn reused_id_after_the_window_starts_a_new_generation() {
    let cfg = AssemblerConfig::default();
    let t = run(vec![loc(7, 1000, 1.0), loc(7, 1125, 1.0), loc(7, 7000, 9.0)], &cfg);
    assert_eq!((t.generation, times(&t)), (7000, vec![7000]));
    // The same, whether or not the earlier track's state still existed.
    assert_eq!(run(vec![loc(7, 7000, 9.0)], &cfg).generation, 7000);
    // Within the window the track continues (its point 4.9 s back is beyond `keep`).
    let t = run(vec![loc(7, 1000, 1.0), loc(7, 5900, 1.0)], &cfg);
    assert_eq!((t.generation, times(&t)), (1000, vec![5900]));
}

#[test]
fn a_jump_no_road_user_can_make_is_a_reused_id() {
    let cfg = AssemblerConfig::default();
    // 0.5 s later 30 m away: 60 m/s.
    let t = run(vec![loc(7, 1000, 0.0), loc(7, 1500, 30.0)], &cfg);
    assert_eq!((t.generation, times(&t)), (1500, vec![1500]));
    // 8 m in 0.5 s (16 m/s) is a fast car, the same track.
    let t = run(vec![loc(7, 1000, 0.0), loc(7, 1500, 8.0)], &cfg);
    assert_eq!((t.generation, t.points.len()), (1000, 2));
}

#[test]
fn old_points_are_trimmed() {
    let cfg = AssemblerConfig { keep_us: 1_000_000, max_points: 5, ..Default::default() };
    let t = run((0..40).map(|i| loc(1, 1000 + i * 125, 0.0)).collect(), &cfg);
    assert_eq!(t.points.len(), 5);
    assert_eq!(*times(&t).last().unwrap(), 1000 + 39 * 125);
    let cfg = AssemblerConfig { keep_us: 500_000, ..Default::default() };
    let t = run((0..40).map(|i| loc(1, 1000 + i * 125, 0.0)).collect(), &cfg);
    assert_eq!(times(&t).first().copied(), Some(1000 + 35 * 125));
}

#[test]
fn a_frame_reads_and_writes_each_object_once() {
    let frame = LocationsFrame {
        rsu_id: "rsu1".into(),
        locations: vec![loc(1, 1000, 1.0), loc(2, 1000, 2.0), loc(1, 1060, 1.5)],
        ..Default::default()
    };
    let keys: Vec<String> = frame.locations.iter().map(|l| key_of(&frame.rsu_id, l)).collect();
    let stored_1 = run(vec![loc(1, 875, 0.5)], &AssemblerConfig::default()).encode_to_vec();
    let (writes, out) =
        assemble(&frame, &keys, &[Some(stored_1.clone()), None, Some(stored_1)], &AssemblerConfig::default()).unwrap();
    assert_eq!(writes.len(), 2);
    let by_object = |id| out.trajectories.iter().find(|t| t.object_id == id).unwrap();
    assert_eq!(times(by_object(1)), vec![875, 1000, 1060]);
    assert_eq!(times(by_object(2)), vec![1000]);
    assert_eq!(out.rsu_id, "rsu1");
    let written = Trajectory::decode(writes.iter().find(|(k, _)| k == "rsu1/1001/1/1").unwrap().1.as_slice()).unwrap();
    assert_eq!(written, *by_object(1));
}

#[test]
fn corrupt_state_is_an_error_not_a_panic() {
    let frame = LocationsFrame { locations: vec![loc(1, 1000, 1.0)], ..Default::default() };
    let err =
        assemble(&frame, &["1001/1/1".into()], &[Some(vec![0xff, 0xff])], &AssemblerConfig::default()).unwrap_err();
    assert!(err.reason.contains("1001/1/1"), "{err}");
}

#[test]
fn config_is_read_and_checked() {
    let cfg = AssemblerConfig::from_config([("window_ms", "3000"), ("max_points", "20"), ("other", "x")]).unwrap();
    assert_eq!((cfg.window_us, cfg.max_points), (3_000_000, 20));
    assert!(AssemblerConfig::from_config([("keep_ms", "0")]).is_err());
    let short = AssemblerConfig::from_config([("keep_ms", "3999")]).unwrap_err();
    assert!(short.reason.contains("at least 4000"), "{short}");
    assert_eq!(AssemblerConfig::from_config([("keep_ms", "4000")]).unwrap().keep_us, 4_000_000);
}

#[test]
fn the_declared_keys_are_the_ones_read_with_their_defaults() {
    let read = |entries: &[(&str, &str)]| AssemblerConfig::from_config(entries.iter().copied());
    assert_eq!(read(&crate::config::declared_defaults(KEYS)).unwrap(), AssemblerConfig::default());
    assert_eq!(crate::config::keys_read_without_refusal(KEYS, read), Vec::<&str>::new());
}

//! Tests of a run: pairing frames with CPMs, latency statistics, CPU time, labels.

use super::*;

fn trace(stages: &[(&str, u64, u64)]) -> Vec<StageTrace> {
    stages.iter().map(|(s, r, t)| StageTrace { stage: s.to_string(), received_at_us: *r, sent_at_us: *t }).collect()
}

#[test]
fn end_to_end_starts_at_the_publish_and_ends_at_the_last_send() {
    let r = Row::new(0, 0, 1_000, 9_000, &trace(&[("decoder", 1_500, 1_700), ("collector", 2_000, 2_600)]));
    assert_eq!(r.end_to_end_us(), Some(1_600));
    assert_eq!(r.ingress_us(), Some(500));
}

#[test]
fn percentiles_come_from_the_histogram() {
    let s = Latency::of(&(1..=100).collect::<Vec<_>>()).unwrap();
    assert_eq!(s.count, 100);
    assert_eq!((s.min_ms, s.p50_ms, s.p95_ms, s.p99_ms, s.max_ms), (0.001, 0.050, 0.095, 0.099, 0.100));
    assert!((s.mean_ms - 0.0505).abs() < 1e-9);
    // Three significant digits: 123,456 µs is within 0.1 %.
    let big = Latency::of(&[123_456]).unwrap();
    assert!((big.p50_ms - 123.456).abs() < 0.124, "{big:?}");
    assert!(Latency::of(&[]).is_none());
}

fn done(rsu: &str, reference_time_us: u64, sent_at_us: u64) -> (u64, FrameDone) {
    let frame = FrameDone {
        rsu_id: rsu.into(),
        reference_time_us,
        trace: trace(&[("decoder", sent_at_us - 50, sent_at_us - 40), ("denm_sender", sent_at_us - 10, sent_at_us)]),
        ..Default::default()
    };
    (sent_at_us + 5, frame)
}

#[test]
fn frames_of_several_rsus_pair_with_their_own_rsus_cpms_and_count_together() {
    let sent: Vec<CpmFacts> = (0..3u64)
        .map(|i| CpmFacts { station_id: 1001, reference_time_us: 1_000_000 + i * 100_000, objects: 4 })
        .collect();
    let rsus = vec!["b-1".to_string(), "b-2".to_string()];
    // Record by record, each once per RSU: b-1 at 10_000 + 1000 i, b-2 100 µs later.
    let published: Vec<u64> = (0..3).flat_map(|i| [10_000 + 1_000 * i, 10_100 + 1_000 * i]).collect();
    let frames = vec![
        done("b-2", 1_000_000, 10_100 + 200),
        done("b-1", 1_000_000, 10_000 + 100),
        done("b-1", 1_100_000, 11_000 + 300),
        done("other", 1_100_000, 20_000), // not of this run
        done("b-2", 1_100_000, 11_100 + 400),
        done("b-1", 1_200_000, 12_000 + 500),
        done("b-2", 1_200_000, 12_100 + 600),
        done("b-2", 1_200_000, 30_000), // a second frame for the same CPM: none left to pair
    ];
    let rows = pair(&sent, &rsus, &published, &frames);
    let got: Vec<(usize, usize, Option<u64>)> = rows.iter().map(|r| (r.index, r.rsu, r.end_to_end_us())).collect();
    assert_eq!(
        got,
        [
            (0, 1, Some(200)),
            (0, 0, Some(100)),
            (1, 0, Some(300)),
            (1, 1, Some(400)),
            (2, 0, Some(500)),
            (2, 1, Some(600))
        ]
    );
    let tally = Tally {
        system: "native".into(),
        factor: 1.0,
        rsus: Some(2),
        seconds: Some(60.0),
        cpms_in: 6,
        object_updates: 24,
        replay_s: 2.0,
        first_publish_us: 10_000,
        cpu_s: vec![("stages".into(), 0.048), ("nats".into(), 0.024)],
        dead_letters: 0,
        denms: 0,
    };
    let r = summarize(tally, &rows);
    assert_eq!((r.rsus, r.cpms_in, r.frames_out), (Some(2), 6, 6));
    let e2e = r.end_to_end.as_ref().unwrap();
    assert_eq!((e2e.count, e2e.min_ms, e2e.p50_ms, e2e.max_ms), (6, 0.1, 0.3, 0.6));
    assert!((r.cpu_ms_per_object_update - 3.0).abs() < 1e-9);
    assert!((r.pipeline_cpu_ms_per_object_update - 2.0).abs() < 1e-9);
    assert_eq!(
        r.parts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["decoder", "hop decoder → denm_sender", "denm_sender"]
    );
    assert!(sustained(&r));
    // What `report` reads back is what `run` wrote.
    let back: RunResult = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(back, r);
}

#[test]
fn the_first_seconds_of_a_recording() {
    let records = cits_client::demo::recording();
    let first = first_seconds(&records, 10.0);
    assert!(!first.is_empty() && first.len() < records.len());
    assert!(first.iter().all(|r| r.timestamp_ms < records[0].timestamp_ms + 10_000));
    assert!(records[first.len()].timestamp_ms >= records[0].timestamp_ms + 10_000);
    assert_eq!(first_seconds(&records, 1e6).len(), records.len());
}

#[test]
fn a_many_intersections_run_replays_as_numbered_rsus() {
    assert_eq!(run_label("native", 1.0, None), "native-1x");
    assert_eq!(run_label("native", 1.0, Some(4)), "native-1x-4rsus");
}

#[test]
fn cpu_time_of_this_process_grows_with_work() {
    let me = std::process::id();
    let before = cpu::sample(&[me]);
    let start = Instant::now();
    let mut x = 0u64;
    // Until 0.2 s of CPU are counted, or 5 s have passed: on a loaded machine 300 ms of wall
    // time held less than 0.1 s of this thread's CPU, and the test failed for the load.
    let mut spent = 0.0;
    while spent < 0.2 && start.elapsed() < Duration::from_secs(5) {
        for _ in 0..1_000_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        spent = cpu::between(&before, &cpu::sample(&[me]));
    }
    assert!(x != 1);
    assert!(spent >= 0.2, "{spent} s of CPU counted in 5 s of spinning");
}

#[test]
fn cpu_time_of_descendants_counts_per_process() {
    // A child that works and exits: counted while it runs, under this process.
    let me = std::process::id();
    let mut child = std::process::Command::new("sh")
        .args(["-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; sleep 5"])
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let sample = cpu::sample(&[me]);
    child.kill().ok();
    child.wait().ok();
    assert!(sample.contains_key(&me) && sample.contains_key(&child.id()), "{sample:?}");
    assert!(sample[&child.id()] > 0.0, "{sample:?}");
}

#[test]
fn cpu_groups_parse() {
    let g: CpuGroup = "host=12,34".parse().unwrap();
    assert_eq!((g.label.as_str(), g.pids), ("host", vec![12, 34]));
    assert!("host".parse::<CpuGroup>().is_err());
    assert!("host=x".parse::<CpuGroup>().is_err());
}

#[test]
fn a_denm_at_the_rsu_pairs_with_its_rsus_cpm_of_the_same_reference_time() {
    use etsi_its::denm::{fixtures, DenmVersion};
    // Two CPMs per RSU; the second RSU published each 1 ms after the first.
    let sent: Vec<CpmFacts> = [1_700_000_000_000_000u64, 1_700_000_000_100_000]
        .iter()
        .map(|&t| CpmFacts { station_id: 1001, reference_time_us: t, objects: 1 })
        .collect();
    let rsus = vec!["a".to_string(), "b".to_string()];
    let published = [10_000, 11_000, 20_000, 21_000];
    let denm = |rsu: &str, reference_us: u64, received_us: u64, version: DenmVersion| {
        let mut d = fixtures::sample();
        d.reference_time_its_ms = cits::shared::time::unix_us_to_its_ms(reference_us);
        cits_client::denms::Received { rsu: rsu.into(), uper: version.encode(&d).unwrap(), received_us }
    };
    let received = [
        denm("b", 1_700_000_000_100_000, 29_000, DenmVersion::V1_3_1),
        denm("a", 1_700_000_000_000_000, 15_000, DenmVersion::V2_2_1),
        // A reference time no CPM had, an RSU not in the run, bytes that are no DENM.
        denm("a", 1_700_000_000_050_000, 40_000, DenmVersion::V1_3_1),
        denm("c", 1_700_000_000_000_000, 40_000, DenmVersion::V1_3_1),
        cits_client::denms::Received { rsu: "a".into(), uper: vec![1, 2, 3], received_us: 40_000 },
    ];
    let (latencies, counted) = rsu_denm_latencies(&sent, &rsus, &published, &received);
    assert_eq!(latencies, vec![8_000, 5_000]);
    assert_eq!(counted, DenmsAtRsu { received: 5, unmatched: 3 });
}

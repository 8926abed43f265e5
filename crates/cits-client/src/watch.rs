//! Observes the pipeline's output: location frames and dead letters on NATS, DENMs on MQTT.

use cits::proto::{CollisionRisk, DeadLetter, LocationsFrame, ObjectClass};
use cits::shared::geo::{wgs84_to_offset, Wgs84};
use etsi_its::denm::SimpleDenm;
use prost::Message as _;

/// One line per object location, with the frame's latency through the pipeline.
pub fn format_frame(frame: &LocationsFrame) -> String {
    let latency = pipeline_latency_us(&frame.trace)
        .map(|us| format!("{:.2} ms", us as f64 / 1000.0))
        .unwrap_or_else(|| "-".into());
    let mut out = String::new();
    for l in &frame.locations {
        let class = ObjectClass::try_from(l.classification).unwrap_or(ObjectClass::Unknown);
        let class = class.short_name();
        let motion = match (l.speed_mps, l.heading_deg) {
            (Some(v), Some(h)) => format!("{v:5.1} m/s {h:5.1}°"),
            _ => "      -          ".to_string(),
        };
        out.push_str(&format!(
            "{rsu} station {st} sensor {se} object {id:3} {class:<10} {lat:.7},{lon:.7}  {motion}  t={t}  pipeline {latency}\n",
            rsu = frame.rsu_id,
            st = l.station_id,
            se = l.sensor_id,
            id = l.object_id,
            lat = l.latitude,
            lon = l.longitude,
            t = format_time_us(l.measured_at_us),
        ));
    }
    if frame.locations.is_empty() {
        out.push_str(&format!("{} station {} (no objects)  pipeline {latency}\n", frame.rsu_id, frame.station_id));
    }
    out
}

/// One line per DENM: ActionID, new/update/termination, cause, event position, and the time to
/// collision of the risk it announces (the nearest conflict point among `risks`, the RSU's
/// latest detector output — the DENM itself carries no time to collision).
pub fn format_denm(
    rsu: &str,
    uper: &[u8],
    risks: &[CollisionRisk],
    announced: &mut std::collections::HashSet<(u32, u16)>,
) -> String {
    let denm = match etsi_its::denm::decode(uper)
        .map_err(|e| e.to_string())
        .and_then(|d| SimpleDenm::from_denm(&d).map_err(|e| e.to_string()))
    {
        Ok(d) => d,
        Err(e) => return format!("{rsu} UNDECODABLE DENM ({} bytes): {e}", uper.len()),
    };
    let id = (denm.originating_station_id, denm.sequence_number);
    let kind = match (denm.termination.is_some(), announced.insert(id)) {
        (true, _) => "TERMINATED",
        (false, true) => "NEW",
        (false, false) => "update",
    };
    let event = Wgs84 { lat: f64::from(denm.event_lat_e7) / 1e7, lon: f64::from(denm.event_lon_e7) / 1e7 };
    let ttc = risks
        .iter()
        .map(|r| {
            let (dx, dy) = wgs84_to_offset(event, Wgs84 { lat: r.conflict_latitude, lon: r.conflict_longitude });
            (dx.hypot(dy), r.time_to_collision_s)
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .filter(|(d, _)| *d < 1.0)
        .map(|(_, ttc)| format!("time to collision {ttc:.2} s"))
        .unwrap_or_else(|| "time to collision -".into());
    let sub = match denm.sub_cause {
        4 => "vulnerable road user",
        2 => "crossing",
        _ => "other",
    };
    // The stage (docs/warnings/decision.md): an information has the lowest information quality.
    let stage = match denm.termination {
        Some(_) => "",
        None if cits::stages::denm_sender::is_warning(&denm) => ", WARNING",
        None => ", information",
    };
    format!(
        "{rsu} DENM {kind:<10} ActionID {}/{:<5} cause {}/{} (collision risk, {sub}{stage}) at {:.7},{:.7}  {ttc}  valid {} s",
        denm.originating_station_id,
        denm.sequence_number,
        denm.cause,
        denm.sub_cause,
        event.lat,
        event.lon,
        denm.validity_duration_s,
    )
}

pub fn format_dead_letter(body: &[u8]) -> String {
    match DeadLetter::decode(body) {
        Ok(d) => format!("DEAD LETTER {} from {} ({} bytes): {}", d.stage, d.source_subject, d.payload.len(), d.reason),
        Err(e) => format!("DEAD LETTER (undecodable: {e})"),
    }
}

/// Any stage frame read for its trace only: every frame message carries it as field 15.
#[derive(Clone, PartialEq, prost::Message)]
struct TraceOnly {
    #[prost(message, repeated, tag = "15")]
    trace: Vec<cits::proto::StageTrace>,
}

/// The per-stage trace of any stage frame (LocationsFrame, TrajectoryFrame, ...).
pub fn trace_of(frame: &[u8]) -> Result<Vec<cits::proto::StageTrace>, prost::DecodeError> {
    TraceOnly::decode(frame).map(|f| f.trace)
}

/// First stage's receive to last stage's send.
pub fn pipeline_latency_us(trace: &[cits::proto::StageTrace]) -> Option<u64> {
    let first = trace.first()?;
    let last = trace.last()?;
    last.sent_at_us.checked_sub(first.received_at_us)
}

pub fn format_time_us(us: u64) -> String {
    let secs = us / 1_000_000;
    let (h, m, s) = ((secs / 3600) % 24, (secs / 60) % 60, secs % 60);
    format!("{h:02}:{m:02}:{s:02}.{:03}Z", (us / 1000) % 1000)
}

/// Latency statistics (µs) in the research's format.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    pub count: usize,
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub std: f64,
    pub p50: u64,
    pub p95: u64,
    pub p99: u64,
}

pub fn stats(samples: &[u64]) -> Option<Stats> {
    if samples.is_empty() {
        return None;
    }
    let mut v = samples.to_vec();
    v.sort_unstable();
    let n = v.len();
    let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
    let var = v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n as f64;
    // Nearest-rank percentiles.
    let pct = |p: f64| v[((p / 100.0 * n as f64).ceil() as usize).clamp(1, n) - 1];
    Some(Stats {
        count: n,
        min: v[0],
        max: v[n - 1],
        mean,
        std: var.sqrt(),
        p50: pct(50.0),
        p95: pct(95.0),
        p99: pct(99.0),
    })
}

/// Whether latency grew over a run (samples in arrival order, µs): a backlog.
#[derive(Debug, Clone, PartialEq)]
pub struct Trend {
    /// Least-squares slope, ms of latency per 1,000 messages.
    pub ms_per_1000: f64,
    /// Median of the first and of the last tenth of the run, ms.
    pub first_p50_ms: f64,
    pub last_p50_ms: f64,
}

impl Trend {
    /// The pipeline fell behind: the end of the run waited much longer than its start (more than
    /// twice as long, and by more than 50 ms, so jitter on a fast pipeline does not count).
    pub fn growing(&self) -> bool {
        self.last_p50_ms > 2.0 * self.first_p50_ms && self.last_p50_ms - self.first_p50_ms > 50.0
    }
}

pub fn trend(samples: &[u64]) -> Option<Trend> {
    let n = samples.len();
    if n < 20 {
        return None;
    }
    let ys: Vec<f64> = samples.iter().map(|&us| us as f64 / 1000.0).collect();
    let (_, slope) =
        cits::shared::fit::line_fit(&ys.iter().enumerate().map(|(i, &y)| (i as f64, y)).collect::<Vec<_>>())?;
    let median = |part: &[f64]| {
        let mut v = part.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let tenth = n / 10;
    Some(Trend {
        ms_per_1000: slope * 1000.0,
        first_p50_ms: median(&ys[..tenth]),
        last_p50_ms: median(&ys[n - tenth..]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_backlog_is_a_latency_that_keeps_growing() {
        // Steady 25 ms with jitter: no backlog.
        let steady: Vec<u64> = (0..1000).map(|i| 25_000 + (i * 7919 % 10) * 1000).collect();
        let t = trend(&steady).unwrap();
        assert!(!t.growing() && t.ms_per_1000.abs() < 1.0, "{t:?}");
        // 10 ms more per 100 messages: 25 ms → ~10 s.
        let falling_behind: Vec<u64> = (0..1000).map(|i| 25_000 + i * 10_000).collect();
        let t = trend(&falling_behind).unwrap();
        assert!(t.growing() && (t.ms_per_1000 - 10_000.0).abs() < 1.0, "{t:?}");
        assert!(trend(&steady[..10]).is_none());
    }

    #[test]
    fn nearest_rank_percentiles() {
        let s = stats(&(1..=100).collect::<Vec<_>>()).unwrap();
        assert_eq!((s.min, s.p50, s.p95, s.p99, s.max), (1, 50, 95, 99, 100));
        assert!((s.mean - 50.5).abs() < 1e-9);
        assert!(stats(&[]).is_none());
    }

    #[test]
    fn the_trace_is_read_from_any_stage_frame() {
        use prost::Message as _;
        let trace = vec![cits::proto::StageTrace { stage: "assembler".into(), received_at_us: 1, sent_at_us: 2 }];
        let frame = cits::proto::TrajectoryFrame { rsu_id: "r".into(), trace: trace.clone(), ..Default::default() };
        assert_eq!(trace_of(&frame.encode_to_vec()).unwrap(), trace);
        let frame = cits::proto::MatchedTrajectoryFrame { trace: trace.clone(), ..Default::default() };
        assert_eq!(trace_of(&frame.encode_to_vec()).unwrap(), trace);
    }

    #[test]
    fn time_of_day_formatting() {
        assert_eq!(format_time_us(1_664_534_580_125_000), "10:43:00.125Z");
    }
}

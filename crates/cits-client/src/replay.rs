//! Publishes a recording over MQTT as RSUs would: topic `cits/cpm/<rsu>` (a recorded CAM on
//! `cits/cam/<rsu>`), original pacing divided by a speed factor, several RSUs at once.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use rumqttc::{AsyncClient, Event, MqttOptions, Outgoing, Packet, QoS};

use etsi_its::format::Wire;

use crate::recording::Record;

pub struct ReplayOptions {
    pub mqtt_host: String,
    pub mqtt_port: u16,
    pub rsus: Vec<String>,
    /// 1.0 = real time; 4.0 = four times as fast; 0 = as fast as possible.
    pub speed: f64,
    pub qos: u8,
    pub progress: bool,
    /// The lattice's auth directory: each RSU connects with its own token (None: anonymous).
    pub auth: Option<std::path::PathBuf>,
    /// The format the CPMs go out in (the recordings hold TS 103 324 UPER): as other RSUs and
    /// bridges send them.
    pub wire: Wire,
    /// MQTT over TLS, the listener checked against this CA (see [`crate::tls`]); None: plain.
    pub mqtt_ca: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ReplaySummary {
    pub messages: u64,
    pub bytes: u64,
    pub elapsed: Duration,
    /// Wall clock (µs since the Unix epoch) when each message was handed to the MQTT client, in
    /// publish order (record by record, each record once per RSU): where end-to-end latency starts.
    pub published_at_us: Vec<u64>,
    /// The records as sent (see [`live`]): what the pipeline got, to compare its output with;
    /// in TS 103 324 UPER whatever [`ReplayOptions::wire`] put on the wire.
    pub records: Vec<Record>,
    /// How far every time in them was moved from the recording's (ms).
    pub shift_ms: i64,
}

impl ReplaySummary {
    pub fn rate(&self) -> f64 {
        self.messages as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// How long a QoS 1 replay keeps reconnecting after its connection was lost.
const RECONNECT_FOR: Duration = Duration::from_secs(60);

fn qos(level: u8) -> anyhow::Result<QoS> {
    Ok(match level {
        0 => QoS::AtMostOnce,
        1 => QoS::AtLeastOnce,
        _ => bail!("QoS {level} is not supported by the NATS MQTT bridge for publishing; use 0 or 1"),
    })
}

/// A recording moved in time: every record's arrival time and every CPM's reference time moved
/// by `shift_ms`.
#[derive(Debug, Clone, PartialEq)]
pub struct Live {
    pub records: Vec<Record>,
    pub shift_ms: i64,
}

/// `records` as if made now, for a replay at `speed` (as [`ReplayOptions::speed`]) that starts at
/// `now_unix_ms`: the pipeline refuses a CPM whose reference time is far from its clock, and the
/// recordings were made in 2022. All times move by the same amount, so the CPMs keep their
/// spacing and the pipeline sees the recorded tracks, speeds and conflicts. At the recorded pace
/// the first CPM is stamped `now` and each is sent at its (new) reference time. A faster replay
/// sends the recording in less time than it spans, so not every CPM can be live: then the last
/// one is, and each earlier one is older than live by what the replay has gained on the
/// recording when it is sent — up to the span × (1 − 1/speed), never from the future. A CAM's
/// generation time moves alike; records that are neither are kept as they are.
pub fn live(records: &[Record], speed: f64, now_unix_ms: u64) -> Live {
    live_as(records, speed, now_unix_ms, None)
}

/// As [`live`], every CPM also re-encoded as sent by `station` (when given and not its own): one
/// recording replayed as another RSU's, all else as recorded.
pub fn live_as(records: &[Record], speed: f64, now_unix_ms: u64, station: Option<u32>) -> Live {
    let (Some(first), Some(last)) = (records.first(), records.last()) else {
        return Live { records: Vec::new(), shift_ms: 0 };
    };
    let span_ms = last.timestamp_ms.saturating_sub(first.timestamp_ms) as f64;
    let gained_ms = if speed <= 0.0 { span_ms } else { span_ms * (1.0 - 1.0 / speed).max(0.0) };
    let shift_ms = now_unix_ms as i64 - first.timestamp_ms as i64 - gained_ms.round() as i64;
    let records = records
        .iter()
        .map(|r| Record {
            timestamp_ms: r.timestamp_ms.saturating_add_signed(shift_ms),
            cpm: shifted_cpm(&r.cpm, shift_ms, station)
                .or_else(|| shifted_cam(&r.cpm, shift_ms))
                .or_else(|| shifted_vam(&r.cpm, shift_ms))
                .unwrap_or_else(|| r.cpm.clone()),
        })
        .collect();
    Live { records, shift_ms }
}

/// The UPER CAM with its generation time (TimestampIts mod 65536) moved by `shift_ms`; None when
/// the bytes are no CAM.
fn shifted_cam(uper: &[u8], shift_ms: i64) -> Option<Vec<u8>> {
    let mut cam = etsi_its::cam::decode(uper).ok()?;
    shift_delta_time(&mut cam.cam.generation_delta_time.0, shift_ms);
    etsi_its::cam::encode(&cam).ok()
}

/// Moves a `generationDeltaTime` (TimestampIts mod 65536) by `shift_ms`.
fn shift_delta_time(time: &mut u16, shift_ms: i64) {
    *time = (i64::from(*time) + shift_ms).rem_euclid(65_536) as u16;
}

/// The UPER VAM with its generation time moved by `shift_ms`, as [`shifted_cam`].
fn shifted_vam(uper: &[u8], shift_ms: i64) -> Option<Vec<u8>> {
    let mut vam = etsi_its::vam::decode(uper).ok()?;
    shift_delta_time(&mut vam.vam.generation_delta_time.0, shift_ms);
    etsi_its::vam::encode(&vam).ok()
}

/// One CPM as if made now (the recorded CPM's time moved to the current time).
pub fn made_now(record: &Record) -> Vec<u8> {
    live(std::slice::from_ref(record), 1.0, cits::shared::time::now_us() / 1000).records.remove(0).cpm
}

/// The UPER CPM with its reference time moved by `shift_ms` (and sent by `station`, if given), all
/// else as it was; None when the bytes are no CPM.
fn shifted_cpm(uper: &[u8], shift_ms: i64, station: Option<u32>) -> Option<Vec<u8>> {
    let mut cpm = etsi_its::cpm::decode(uper).ok()?;
    let time = &mut cpm.payload.management_container.reference_time;
    time.0 = time.0.checked_add_signed(shift_ms)?.min(etsi_its::cpm::TIMESTAMP_ITS_MAX);
    if let Some(station) = station {
        cpm.header.station_id = etsi_its::cpm::StationId(station);
    }
    etsi_its::cpm::encode(&cpm).ok()
}

/// `records` with every CPM in `wire`'s format; records that are no CPM are kept as they are.
pub fn on_the_wire(records: &[Record], wire: Wire) -> anyhow::Result<Vec<Record>> {
    if wire == Wire::CpmV2Uper {
        return Ok(records.to_vec());
    }
    records
        .iter()
        .map(|r| {
            let Ok(pdu) = etsi_its::cpm::decode(&r.cpm) else { return Ok(r.clone()) };
            let cpm = etsi_its::cpm::SimpleCpm::from_cpm(&pdu)?;
            Ok(Record { timestamp_ms: r.timestamp_ms, cpm: wire.encode(&cpm).context(wire.name())? })
        })
        .collect()
}

/// Replays `records` as if made now (see [`live`]) and returns once every message has left (QoS 0)
/// or been acknowledged (QoS 1).
pub async fn replay(records: &[Record], opts: &ReplayOptions) -> anyhow::Result<ReplaySummary> {
    replay_as_stations(records, opts, &[]).await
}

/// As [`replay`], RSU `opts.rsus[k]` sending every CPM as station `stations[k]` (see [`live_as`]):
/// one recording as several RSUs of their own. No stations: every RSU sends the CPMs as recorded.
/// The summary's records are the first RSU's as sent.
pub async fn replay_as_stations(
    records: &[Record],
    opts: &ReplayOptions,
    stations: &[u32],
) -> anyhow::Result<ReplaySummary> {
    if !stations.is_empty() && stations.len() != opts.rsus.len() {
        bail!("{} stations for {} RSUs", stations.len(), opts.rsus.len());
    }
    // Every RSU's CPMs are encoded before the first is sent: none waits for an encoder.
    let now_ms = cits::shared::time::now_us() / 1000;
    let mut lives: Vec<Live> = if stations.is_empty() {
        vec![live(records, opts.speed, now_ms)]
    } else {
        stations.iter().map(|s| live_as(records, opts.speed, now_ms, Some(*s))).collect()
    };
    let wired: Vec<Vec<Record>> =
        lives.iter().map(|l| on_the_wire(&l.records, opts.wire)).collect::<anyhow::Result<_>>()?;
    let per_rsu: Vec<&[Record]> = (0..opts.rsus.len()).map(|k| wired[k.min(wired.len() - 1)].as_slice()).collect();
    let summary = send(&per_rsu, opts).await?;
    let first = lives.swap_remove(0);
    Ok(ReplaySummary { shift_ms: first.shift_ms, records: first.records, ..summary })
}

/// Replays `records` byte for byte, at the times they were recorded (which the pipeline refuses
/// if they are far from now).
pub async fn replay_as_recorded(records: &[Record], opts: &ReplayOptions) -> anyhow::Result<ReplaySummary> {
    let wired = on_the_wire(records, opts.wire)?;
    let summary = send(&vec![wired.as_slice(); opts.rsus.len()], opts).await?;
    Ok(ReplaySummary { records: records.to_vec(), ..summary })
}

/// Sends `per_rsu[k]` as RSU `opts.rsus[k]`, record by record (all RSUs' i-th record at the time
/// of the first RSU's).
async fn send(per_rsu: &[&[Record]], opts: &ReplayOptions) -> anyhow::Result<ReplaySummary> {
    if opts.rsus.is_empty() {
        bail!("no RSU given");
    }
    let records = per_rsu[0];
    let qos = qos(opts.qos)?;
    // One MQTT connection per RSU, with that RSU's credentials, as the RSUs themselves connect.
    let mut clients = Vec::with_capacity(opts.rsus.len());
    let mut connections = Vec::with_capacity(opts.rsus.len());
    for (rsu, own) in opts.rsus.iter().zip(per_rsu) {
        let client_id = format!("cits-replay-{rsu}-{}", std::process::id());
        let mut mqtt = MqttOptions::new(client_id, &opts.mqtt_host, opts.mqtt_port);
        mqtt.set_keep_alive(Duration::from_secs(30));
        mqtt.set_max_packet_size(1 << 20, 1 << 20);
        // A persistent session: after a lost connection (a restarted server) the client reconnects
        // and sends again every QoS 1 message not yet acknowledged, as an RSU must.
        mqtt.set_clean_session(false);
        // Packet ids are reused after `inflight` publishes. rumqttc's default (100) is reached by
        // a few seconds of a cluster electing a leader; what it then sends again in the kept
        // session holds every id, each new publish collides, and rumqttc keeps only the last
        // colliding one (the others never go, the replay waits for them forever).
        mqtt.set_inflight(INFLIGHT);
        crate::auth::apply_rsu_credentials(opts.auth.as_deref(), rsu, &mut mqtt)?;
        if let Some(ca) = &opts.mqtt_ca {
            mqtt.set_transport(crate::tls::mqtt_transport(ca)?);
        }
        let (client, eventloop) = AsyncClient::new(mqtt, 1024);
        clients.push(client);
        connections.push(tokio::spawn(drive(eventloop, own.len() as u64, qos)));
    }
    let started = Instant::now();
    let first_ts = records.first().map(|r| r.timestamp_ms).unwrap_or(0);
    let mut bytes = 0u64;
    let mut published_at_us = Vec::with_capacity(records.len() * opts.rsus.len());
    let total = records.len();
    for (i, record) in records.iter().enumerate() {
        if opts.speed > 0.0 {
            let offset_ms = record.timestamp_ms.saturating_sub(first_ts) as f64 / opts.speed;
            let due = started + Duration::from_secs_f64(offset_ms / 1000.0);
            tokio::time::sleep_until(due.into()).await;
        }
        for ((rsu, client), own) in opts.rsus.iter().zip(&clients).zip(per_rsu) {
            let cpm = &own[i].cpm;
            published_at_us.push(cits::shared::time::now_us());
            // The MQTT topic of its NATS subject (`cits/cam/<rsu>` for `cits.cam.<rsu>`, ...).
            let topic = crate::recording::subject_of(rsu, cpm).replace('.', "/");
            client.publish(topic, qos, false, cpm.clone()).await.context("MQTT client closed")?;
            bytes += cpm.len() as u64;
        }
        if opts.progress && ((i + 1) % 50 == 0 || i + 1 == total) {
            progress_bar(i + 1, total, started.elapsed());
        }
        if connections.iter().any(|c| c.is_finished()) {
            break; // a connection failed (or is done early): its error is reported below
        }
    }
    let mut sent = 0;
    for connection in connections {
        sent += connection.await.context("MQTT task panicked")??;
    }
    let elapsed = started.elapsed();
    for client in clients {
        client.disconnect().await.ok();
    }
    if opts.progress {
        eprintln!();
    }
    Ok(ReplaySummary { messages: sent, bytes, elapsed, published_at_us, records: Vec::new(), shift_ms: 0 })
}

/// Publishes in flight per connection before the client waits for acknowledgements: longer than
/// any outage it rides out at the highest replay rate (16 RSUs' CPMs at 16x: 160 a second each).
const INFLIGHT: u16 = 4096;

/// Drives one RSU's connection until its `expected` messages left (QoS 0) or were acknowledged
/// (QoS 1); returns how many.
async fn drive(mut eventloop: rumqttc::EventLoop, expected: u64, qos: QoS) -> anyhow::Result<u64> {
    let mut done = 0u64;
    let mut connected = false;
    let mut lost_since: Option<Instant> = None;
    // What was not acknowledged when the connection went: rumqttc keeps it to send again in the
    // same session, and drops it when the server answers without the session (a cluster server
    // that could not keep it). An RSU must not lose it either way.
    let mut unacknowledged: VecDeque<rumqttc::Request> = VecDeque::new();
    while done < expected {
        match eventloop.poll().await {
            Ok(Event::Incoming(Packet::ConnAck(ack))) => {
                connected = true;
                if lost_since.take().is_some() {
                    let held = std::mem::take(&mut unacknowledged);
                    if ack.session_present {
                        eprintln!("replay: MQTT connection back (session kept; {done} of {expected} acknowledged)");
                    } else {
                        // Sent again in a new session: QoS 1 allows the copy the server may have
                        // stored, and the pipeline drops it by its frame id.
                        eprintln!(
                            "replay: MQTT connection back without its session: {} unacknowledged sent again \
                             ({done} of {expected} acknowledged)",
                            held.len()
                        );
                        eventloop.pending = held;
                    }
                }
            }
            Ok(Event::Outgoing(Outgoing::Publish(_))) if qos == QoS::AtMostOnce => done += 1,
            Ok(Event::Incoming(Packet::PubAck(_))) => done += 1,
            Ok(_) => {}
            // QoS 1: reconnect and resend what is unacknowledged, for up to a minute.
            Err(e) if connected && qos == QoS::AtLeastOnce => {
                if !eventloop.pending.is_empty() {
                    unacknowledged.clone_from(&eventloop.pending);
                }
                let since = *lost_since.get_or_insert_with(|| {
                    eprintln!("replay: MQTT connection lost ({e}), reconnecting");
                    Instant::now()
                });
                if since.elapsed() > RECONNECT_FOR {
                    return Err(anyhow::Error::new(e).context("MQTT connection lost for a minute"));
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => {
                let what = if connected { "MQTT connection lost" } else { "cannot connect to MQTT" };
                return Err(anyhow::Error::new(e).context(what));
            }
        }
    }
    Ok(done)
}

fn progress_bar(done: usize, total: usize, elapsed: Duration) {
    let width = 40;
    let filled = done * width / total.max(1);
    eprint!(
        "\r[{}{}] {done}/{total} CPMs  {:.1} s",
        "#".repeat(filled),
        ".".repeat(width - filled),
        elapsed.as_secs_f64()
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use etsi_its::cpm::SimpleCpm;

    fn cpm_of(r: &Record) -> SimpleCpm {
        SimpleCpm::from_cpm(&etsi_its::cpm::decode(&r.cpm).unwrap()).unwrap()
    }

    /// The demo recording: 30 s, 480 CPMs, each stamped with its arrival time.
    fn demo() -> Vec<Record> {
        crate::demo::recording()
    }

    #[test]
    fn at_the_recorded_pace_the_first_cpm_is_made_now_and_the_spacing_is_kept() {
        let records = demo();
        let now_ms = 1_800_000_000_000;
        let live = live(&records, 1.0, now_ms);
        assert_eq!(live.records[0].timestamp_ms, now_ms);
        assert_eq!(
            cpm_of(&live.records[0]).reference_time_its_ms,
            cits::shared::time::unix_us_to_its_ms(now_ms * 1000)
        );
        for (before, after) in records.iter().zip(&live.records) {
            assert_eq!(after.timestamp_ms as i64 - before.timestamp_ms as i64, live.shift_ms);
            let (b, mut a) = (cpm_of(before), cpm_of(after));
            assert_eq!(a.reference_time_its_ms as i64 - b.reference_time_its_ms as i64, live.shift_ms);
            // Nothing else changed.
            a.reference_time_its_ms = b.reference_time_its_ms;
            assert_eq!(a, b);
        }
    }

    #[test]
    fn a_faster_replay_sends_the_last_cpm_live_and_none_from_the_future() {
        let records = demo();
        let span_ms = records.last().unwrap().timestamp_ms - records[0].timestamp_ms;
        let now_ms = 1_800_000_000_000;
        for speed in [2.0, 4.0, 16.0, 0.0] {
            let live = live(&records, speed, now_ms);
            // When each record is sent, and how old its CPM is then.
            let sent_at = |i: usize| {
                let offset = (records[i].timestamp_ms - records[0].timestamp_ms) as f64;
                now_ms as f64 + if speed > 0.0 { offset / speed } else { 0.0 }
            };
            let age = |i: usize| sent_at(i) - live.records[i].timestamp_ms as f64;
            assert!((age(records.len() - 1)).abs() <= 1.0, "{speed}x: last CPM {} ms old", age(records.len() - 1));
            let gained = if speed > 0.0 { span_ms as f64 * (1.0 - 1.0 / speed) } else { span_ms as f64 };
            assert!((age(0) - gained).abs() <= 1.0, "{speed}x: first CPM {} ms old", age(0));
            assert!((0..records.len()).all(|i| age(i) >= -1.0), "{speed}x: a CPM from the future");
        }
    }

    #[test]
    fn a_recording_replayed_as_another_station_differs_only_in_the_station() {
        let records = demo();
        let now_ms = records[0].timestamp_ms;
        let as_1005 = live_as(&records, 1.0, now_ms, Some(1005));
        assert_eq!(as_1005.shift_ms, 0);
        for (before, after) in records.iter().zip(&as_1005.records) {
            assert_eq!(after.timestamp_ms, before.timestamp_ms);
            let (b, a) = (etsi_its::cpm::decode(&before.cpm).unwrap(), etsi_its::cpm::decode(&after.cpm).unwrap());
            assert_eq!((b.header.station_id.0, a.header.station_id.0), (crate::demo::STATION_ID, 1005));
            let mut restored = a.clone();
            restored.header.station_id = b.header.station_id.clone();
            assert_eq!(restored, b);
            // What the pipeline's decoder (and its RSU registry) reads.
            let wrapper = cits::stages::decoder::decode("cits.cpm.bench-1", &after.cpm, 0).unwrap();
            let Some(cits::proto::cits_message_wrapper::Message::Cpm(cpm)) = wrapper.message else { panic!("no CPM") };
            assert_eq!(cpm.station_id, 1005);
        }
        // As its own station: byte for byte.
        assert_eq!(live_as(&records, 1.0, now_ms, Some(crate::demo::STATION_ID)).records, records);
    }

    #[test]
    fn records_that_are_no_cpm_are_sent_as_they_are() {
        let garbage = Record { timestamp_ms: 1_664_534_580_000, cpm: b"not a CPM".to_vec() };
        let live = live(std::slice::from_ref(&garbage), 1.0, 1_800_000_000_000);
        assert_eq!(live.records[0].cpm, garbage.cpm);
        assert_eq!(live.records[0].timestamp_ms, 1_800_000_000_000);
    }

    #[test]
    fn a_cpm_made_now_is_within_the_decoders_window() {
        let cpm = SimpleCpm::from_cpm(&etsi_its::cpm::decode(&made_now(&demo()[40])).unwrap()).unwrap();
        let age_us = cits::shared::time::now_us() as i64
            - cits::shared::time::its_ms_to_unix_us(cpm.reference_time_its_ms) as i64;
        assert!((0..5_000_000).contains(&age_us), "{age_us} µs");
    }
}

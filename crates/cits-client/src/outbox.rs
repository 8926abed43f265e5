//! What the pipeline's streams hold: the FrameDones it finished (stream `CITS_DONE`, one per frame:
//! the outbox keeps each message id once), the DENMs it sent (`CITS_DENM`, what RSUs are sent) and
//! the dead letters (`CITS_DLQ`). A watcher on core NATS or MQTT misses what is published while
//! it is cut off (a server of a cluster killed); the streams do not. `cits demo` and `cits watch`
//! count from them: [`follow`] reads a stream from a sequence on through reconnects, server
//! restarts and leader changes, [`Tally`] counts what it read, [`backlog`] tells whether the
//! pipeline still has frames to work off.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::Duration;

use anyhow::Context as _;
use async_nats::jetstream;
use futures::{StreamExt as _, TryStreamExt as _};
use prost::Message as _;

/// Messages stored in `stream` per subject matching `filter`, keyed by the subject's part after
/// `prefix` (e.g. the stage of `cits.dlq.<stage>`).
pub async fn per_subject(
    js: &jetstream::Context,
    stream: &str,
    filter: &str,
    prefix: &str,
) -> anyhow::Result<BTreeMap<String, u64>> {
    let stream = js.get_stream(stream).await.with_context(|| format!("cannot open stream {stream}"))?;
    let info = stream.info_with_subjects(filter).await.context("cannot read the stream's subjects")?;
    let mut counts = BTreeMap::new();
    futures::pin_mut!(info);
    while let Some((subject, count)) = info.try_next().await? {
        *counts.entry(subject.trim_start_matches(prefix).to_string()).or_insert(0) += count as u64;
    }
    Ok(counts)
}

/// The streams a [`Tally`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outbox {
    /// `CITS_DONE`: one FrameDone per frame the DENM sender finished, with the frame's trace.
    Done,
    /// `CITS_DENM`: the DENMs, as RSUs are sent them.
    Denm,
    /// `CITS_DLQ`: dead letters of every stage.
    DeadLetters,
}

impl Outbox {
    pub const ALL: [Outbox; 3] = [Outbox::Done, Outbox::Denm, Outbox::DeadLetters];

    pub fn stream(self) -> &'static str {
        match self {
            Outbox::Done => "CITS_DONE",
            Outbox::Denm => "CITS_DENM",
            Outbox::DeadLetters => cits_jetstream::DEAD_LETTERS.name,
        }
    }
}

/// The last sequence `stream` holds or held (0 if it never held any): a follower started after
/// it reads what comes from now on.
pub async fn last_sequence(js: &jetstream::Context, stream: &str) -> anyhow::Result<u64> {
    let mut s = js.get_stream(stream).await.with_context(|| format!("cannot open stream {stream}"))?;
    Ok(s.info().await.with_context(|| format!("cannot read stream {stream}"))?.state.last_sequence)
}

/// Every message `stream` stores from sequence `from` on, in stream order and each once, sent to
/// the receiver until it is dropped. Read by an ephemeral consumer (no acknowledgements, memory,
/// one replica) made anew just after the last message read whenever it fails: a consumer sequence
/// that skips (the server lost its consumer), heartbeats missing (its server died or the
/// connection was cut; the client reconnects), a pull refused (a leader changing). What fails is
/// said once per outage on stderr, prefixed by `stream`.
pub fn follow(
    js: jetstream::Context,
    stream: &'static str,
    from: u64,
) -> tokio::sync::mpsc::Receiver<jetstream::Message> {
    let (tx, rx) = tokio::sync::mpsc::channel(1024);
    tokio::spawn(async move {
        let mut next = from.max(1);
        let mut failing = false;
        while !tx.is_closed() {
            let messages = async {
                let s = js.get_stream(stream).await?;
                let consumer = s
                    .create_consumer(jetstream::consumer::pull::Config {
                        deliver_policy: jetstream::consumer::DeliverPolicy::ByStartSequence { start_sequence: next },
                        ack_policy: jetstream::consumer::AckPolicy::None,
                        inactive_threshold: Duration::from_secs(30),
                        num_replicas: 1,
                        memory_storage: true,
                        ..Default::default()
                    })
                    .await?;
                let messages = consumer
                    .stream()
                    .max_messages_per_batch(500)
                    .expires(Duration::from_secs(10))
                    .heartbeat(Duration::from_secs(2))
                    .messages()
                    .await?;
                Ok::<_, async_nats::Error>(messages)
            };
            let mut messages = match tokio::time::timeout(Duration::from_secs(10), messages).await {
                Ok(Ok(m)) => m,
                failed => {
                    if !std::mem::replace(&mut failing, true) {
                        let e = match failed {
                            Ok(Err(e)) => e.to_string(),
                            _ => "no answer within 10 s".to_string(),
                        };
                        eprintln!("{stream}: cannot read ({e}); trying again until it can");
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            };
            if std::mem::replace(&mut failing, false) {
                eprintln!("{stream}: reading again from sequence {next}");
            }
            let mut consumer_sequence = 0;
            loop {
                let m = tokio::select! {
                    m = messages.next() => m,
                    _ = tx.closed() => return,
                };
                let m = match m {
                    Some(Ok(m)) => m,
                    Some(Err(e)) => {
                        failing = true;
                        eprintln!("{stream}: {e}; reading again from sequence {next}");
                        break;
                    }
                    None => break,
                };
                let Ok(info) = m.info() else { continue };
                // A consumer sequence that skips: the consumer lost messages (made anew on a
                // server that came back): read again from the last one taken.
                if info.consumer_sequence != consumer_sequence + 1 {
                    break;
                }
                consumer_sequence = info.consumer_sequence;
                if info.stream_sequence < next {
                    continue;
                }
                next = info.stream_sequence + 1;
                if tx.send(m).await.is_err() {
                    return;
                }
            }
        }
    });
    rx
}

/// Frames the stage inputs still hold for their stages: not yet delivered or delivered and not
/// yet acknowledged (a frame whose provider or host died waits here for its redelivery), summed
/// over every stage-input consumer.
pub async fn backlog(js: &jetstream::Context) -> anyhow::Result<u64> {
    let mut waiting = 0;
    for spec in cits_jetstream::STREAMS.iter().filter(|s| s.role == cits_jetstream::Role::StageInput) {
        let stream = js.get_stream(spec.name).await.with_context(|| format!("cannot open stream {}", spec.name))?;
        let mut consumers = stream.consumers();
        while let Some(info) = consumers.try_next().await.with_context(|| format!("consumers of {}", spec.name))? {
            waiting += info.num_pending + info.num_ack_pending as u64;
        }
    }
    Ok(waiting)
}

/// What the streams stored since a follower started: frames done (by frame id, once), DENMs and
/// dead letters per RSU, and the finished frames' traces in stream order.
#[derive(Debug, Default)]
pub struct Tally {
    /// Only these RSUs' (all when None).
    rsus: Option<BTreeSet<String>>,
    /// The last stream sequence read of each outbox.
    pub read_to: BTreeMap<Outbox, u64>,
    frame_ids: HashSet<String>,
    /// FrameDones stored again for a frame already counted (never, by the outbox's message ids).
    pub duplicates: u64,
    /// Complete traces of the frames done, in the order they were stored.
    pub traces: Vec<Vec<cits::proto::StageTrace>>,
    pub denms: BTreeMap<String, u64>,
    /// Dead letters per RSU (the last token of the subject the failed input came from).
    pub dead_letters: BTreeMap<String, u64>,
    /// Messages that could not be decoded.
    pub undecodable: u64,
}

/// What a message added to a [`Tally`].
#[derive(Debug, PartialEq)]
pub enum Added {
    Nothing,
    Frame,
    Denm,
    DeadLetter(cits::proto::DeadLetter),
}

impl Tally {
    /// Counting `rsus`' messages only (all RSUs' when None).
    pub fn new(rsus: Option<&[String]>) -> Self {
        Self { rsus: rsus.map(|r| r.iter().cloned().collect()), ..Default::default() }
    }

    fn counts(&self, rsu: &str) -> bool {
        self.rsus.as_ref().is_none_or(|r| r.contains(rsu))
    }

    /// Frames done (counted once each).
    pub fn frames(&self) -> u64 {
        self.frame_ids.len() as u64
    }

    pub fn denms(&self) -> u64 {
        self.denms.values().sum()
    }

    /// DENMs stored for `rsus`.
    pub fn denms_of(&self, rsus: &[String]) -> u64 {
        rsus.iter().filter_map(|r| self.denms.get(r)).sum()
    }

    pub fn dead_letters(&self) -> u64 {
        self.dead_letters.values().sum()
    }

    /// Each frame done, its latency from the decoder's receipt to the DENM sender's send (µs).
    pub fn latencies_us(&self) -> Vec<u64> {
        self.traces.iter().filter_map(|t| crate::watch::pipeline_latency_us(t)).collect()
    }

    /// Counts message `sequence` of `outbox`, stored under `subject`.
    pub fn add(&mut self, outbox: Outbox, sequence: u64, subject: &str, payload: &[u8]) -> Added {
        let read = self.read_to.entry(outbox).or_default();
        *read = (*read).max(sequence);
        let rsu = subject.rsplit('.').next().unwrap_or_default();
        match outbox {
            Outbox::Done => {
                let Ok(done) = cits::proto::FrameDone::decode(payload) else {
                    self.undecodable += 1;
                    return Added::Nothing;
                };
                if !self.counts(&done.rsu_id) {
                    return Added::Nothing;
                }
                if !self.frame_ids.insert(done.frame_id) {
                    self.duplicates += 1;
                    return Added::Nothing;
                }
                self.traces.push(done.trace);
                Added::Frame
            }
            Outbox::Denm => {
                if !self.counts(rsu) {
                    return Added::Nothing;
                }
                *self.denms.entry(rsu.to_string()).or_default() += 1;
                Added::Denm
            }
            Outbox::DeadLetters => {
                let Ok(letter) = cits::proto::DeadLetter::decode(payload) else {
                    self.undecodable += 1;
                    return Added::Nothing;
                };
                let rsu = letter.source_subject.rsplit('.').next().unwrap_or_default().to_string();
                if !self.counts(&rsu) {
                    return Added::Nothing;
                }
                *self.dead_letters.entry(rsu).or_default() += 1;
                Added::DeadLetter(letter)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(rsu: &str, frame: &str) -> Vec<u8> {
        let trace = vec![
            cits::proto::StageTrace { stage: "decoder".into(), received_at_us: 10, sent_at_us: 20 },
            cits::proto::StageTrace { stage: "denm_sender".into(), received_at_us: 30, sent_at_us: 50 },
        ];
        cits::proto::FrameDone { rsu_id: rsu.into(), frame_id: frame.into(), trace, ..Default::default() }
            .encode_to_vec()
    }

    #[test]
    fn a_tally_counts_its_rsus_frames_once_each() {
        let mut t = Tally::new(Some(&["rsu1".to_string(), "rsu2".to_string()]));
        assert_eq!(t.add(Outbox::Done, 7, "cits.outbox.done.rsu1", &done("rsu1", "a")), Added::Frame);
        assert_eq!(t.add(Outbox::Done, 8, "cits.outbox.done.rsu2", &done("rsu2", "b")), Added::Frame);
        // The probe's, another RSU's: not this replay's.
        assert_eq!(t.add(Outbox::Done, 9, "cits.outbox.done.probe", &done("probe", "c")), Added::Nothing);
        // Stored again past the duplicate window: one frame still.
        assert_eq!(t.add(Outbox::Done, 10, "cits.outbox.done.rsu1", &done("rsu1", "a")), Added::Nothing);
        assert_eq!((t.frames(), t.duplicates), (2, 1));
        assert_eq!(t.latencies_us(), vec![40, 40]);
        assert_eq!(t.add(Outbox::Denm, 3, "cits.outbox.denm.rsu1", b"uper"), Added::Denm);
        assert_eq!(t.add(Outbox::Denm, 4, "cits.outbox.denm.rsu3", b"uper"), Added::Nothing);
        assert_eq!((t.denms(), t.denms_of(&["rsu2".into()])), (1, 0));
        let letter = cits::proto::DeadLetter {
            stage: "decoder".into(),
            source_subject: "cits.cpm.3.rsu2".into(),
            ..Default::default()
        };
        assert!(matches!(
            t.add(Outbox::DeadLetters, 5, "cits.dlq.decoder", &letter.encode_to_vec()),
            Added::DeadLetter(_)
        ));
        assert_eq!(t.dead_letters(), 1);
        assert_eq!(t.read_to, BTreeMap::from([(Outbox::Done, 10), (Outbox::Denm, 4), (Outbox::DeadLetters, 5)]));
    }

    /// nats-server (`NATS_SERVER`, which `make test-unit` sets) with JetStream on `port`, its
    /// store in `dir`.
    fn nats_server(port: u16, dir: &std::path::Path) -> std::process::Child {
        let bin = std::env::var("NATS_SERVER").expect("NATS_SERVER: the nats-server binary (make test-unit sets it)");
        std::process::Command::new(bin)
            .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
            .arg(dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("nats-server starts")
    }

    /// Stores FrameDones `frames` for rsu1 (retrying while the server is not back).
    async fn store(js: &jetstream::Context, frames: std::ops::Range<u32>) {
        let messages: Vec<_> = frames
            .map(|i| (format!("f{i}"), cits::subjects::done_outbox("rsu1"), done("rsu1", &format!("f{i}"))))
            .collect();
        for _ in 0..100 {
            if cits_jetstream::publish_all(js, messages.clone()).await.is_ok() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        panic!("FrameDones not stored");
    }

    /// What `cits demo` counts from: a follower started after what the stream held reads what is
    /// stored from then on, once each, in order — across a server killed and started again (the
    /// client reconnects, the follower's consumer is made anew). And the stage inputs' backlog.
    #[tokio::test]
    async fn a_follower_reads_on_through_a_server_restart() {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let dir = std::env::temp_dir().join(format!("cits-outbox-follow-{}-{port}", std::process::id()));
        let mut server = nats_server(port, &dir);
        let client = loop {
            match async_nats::connect(format!("127.0.0.1:{port}")).await {
                Ok(c) => break c,
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        };
        let js = jetstream::new(client);
        let limits = cits_jetstream::Limits { max_bytes: 8 << 20, ..Default::default() };
        cits_jetstream::ensure_streams(&js, &limits).await.unwrap();
        store(&js, 0..3).await;
        let before = last_sequence(&js, "CITS_DONE").await.unwrap();
        assert_eq!(before, 3);
        let mut follower = follow(js.clone(), "CITS_DONE", before + 1);
        store(&js, 3..6).await;
        let _ = server.kill();
        let _ = server.wait();
        let mut server = nats_server(port, &dir);
        store(&js, 6..9).await;
        let mut tally = Tally::new(Some(&["rsu1".to_string()]));
        while tally.frames() < 6 {
            let m = tokio::time::timeout(Duration::from_secs(30), follower.recv()).await.unwrap().unwrap();
            let seq = m.info().unwrap().stream_sequence;
            tally.add(Outbox::Done, seq, m.subject.as_str(), &m.payload);
        }
        assert_eq!((tally.frames(), tally.duplicates, tally.read_to[&Outbox::Done]), (6, 0, 9));
        assert!(tokio::time::timeout(Duration::from_secs(1), follower.recv()).await.is_err(), "nothing more");

        // A frame waiting in a stage input for its stage: backlog, until taken.
        assert_eq!(backlog(&js).await.unwrap(), 0);
        js.publish("cits.decoded.rsu1", "frame".into()).await.unwrap().await.unwrap();
        let spec = cits_jetstream::ConsumerSpec { durable: "collector".into(), ack_wait: Duration::from_secs(10) };
        let stream = cits_jetstream::stage_input("cits.decoded.*").unwrap();
        let s = js.get_stream(stream.name).await.unwrap();
        for p in 0..cits_jetstream::PARTITIONS {
            s.create_consumer(spec.config(stream, p)).await.unwrap();
        }
        assert_eq!(backlog(&js).await.unwrap(), 1);
        let _ = server.kill();
        let _ = server.wait();
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_tally_of_all_rsus() {
        let mut t = Tally::new(None);
        t.add(Outbox::Done, 1, "cits.outbox.done.x", &done("x", "a"));
        t.add(Outbox::Denm, 1, "cits.outbox.denm.y", b"");
        assert_eq!((t.frames(), t.denms()), (1, 1));
    }
}

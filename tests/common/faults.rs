//! Fault injection during a replay, and the accounting afterwards (tests/fault_injection.rs,
//! tests/chaos.rs): which faults, what went in, what came out of JetStream.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use cits_client::replay::replay;
use prost::Message as _;

use crate::Lattice;

/// A hard failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// kill -9 of the messaging provider under host `n` (the host or wadm starts it again).
    KillProvider(u8),
    /// Host `n` and everything it started die at once; with `restart`, it comes back.
    CrashHost { host: u8, restart: bool },
    /// kill -9 of Redis, started again on its AOF.
    RestartRedis,
    /// kill -9 of nats-server, started again on its JetStream store.
    RestartNats,
    /// kill -9 of server `n` (from 1) of a NATS cluster, started again on its store.
    RestartNatsNode(u8),
    /// The sites' link to the hub is cut: its connections dropped, new ones refused.
    CutSiteLink,
    /// The sites' link is back.
    RestoreSiteLink,
}

impl Fault {
    pub fn inject(self, lattice: &Lattice) {
        match self {
            Fault::KillProvider(n) => {
                let pids = lattice.host_children(n, "messaging_nats").unwrap();
                assert!(!pids.is_empty(), "no messaging provider process under host {n}");
                for pid in pids {
                    Lattice::kill9(pid);
                }
            }
            Fault::CrashHost { host, restart } => {
                lattice.crash_host(host).unwrap();
                if restart {
                    std::thread::sleep(Duration::from_secs(1));
                    lattice.step(&["host-up", &host.to_string()]).unwrap();
                }
            }
            Fault::RestartRedis => lattice.step(&["crash-restart", "redis"]).unwrap(),
            Fault::RestartNats => lattice.step(&["crash-restart", "nats"]).unwrap(),
            Fault::RestartNatsNode(n) => lattice.step(&["crash-restart", "nats", &n.to_string()]).unwrap(),
            Fault::CutSiteLink => lattice.site_link.as_ref().expect("a topology with sites").cut(),
            Fault::RestoreSiteLink => lattice.site_link.as_ref().expect("a topology with sites").restore(),
        }
    }
}

/// What a run put in and got out.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub faults: usize,
    pub cpms_in: usize,
    pub frames_out: usize,
    pub lost: usize,
    pub duplicated: usize,
    pub out_of_order: Vec<String>,
    /// Where the lost frames were, per RSU: index ranges in its sending order (a tail not yet
    /// out means a stalled partition, scattered ones dead letters or real loss).
    pub lost_at: Vec<String>,
    /// Where the duplicated frames were: per RSU, index ranges in sending order.
    pub duplicated_at: Vec<String>,
    /// RSUs whose DENMs (from JetStream, what RSUs are sent) equal the in-process pipeline's.
    pub denms_equal: bool,
    /// DENMs JetStream holds for the RSUs after this replay (earlier replays' included).
    pub denms: usize,
    /// The longest a DENM of this replay was due and not yet out: from its CPM handed to the
    /// RSU's MQTT client to the DENM stored where the RSU is sent it (its site's stream, else
    /// the hub's outbox). None when no DENM came out.
    pub longest_denm_wait: Option<Duration>,
}

impl Outcome {
    pub fn clean(&self) -> bool {
        self.lost == 0 && self.duplicated == 0 && self.out_of_order.is_empty() && self.denms_equal
    }
}

/// Replays `recording` at `speed` as `rsus` over MQTT (QoS 1), injects `faults` at the given
/// times after the start, waits until every frame came out (or `patience` passed) and accounts.
///
/// `history` holds what was replayed on this lattice before (as sent), and this replay is added
/// to it: the pipeline learns (turn priors) and numbers its DENMs across replays, so its DENMs
/// are held against the in-process pipeline given the same history — equal whatever the faults
/// and however long each message took.
pub async fn replay_with_faults(
    lattice: &Lattice,
    history: &mut Vec<cits_client::recording::Record>,
    recording: &str,
    speed: f64,
    rsus: &[&str],
    faults: &[(Duration, Fault)],
    patience: Duration,
) -> Outcome {
    let records = cits_client::recording::read_file(&lattice.repo.join(recording)).unwrap();
    let options = lattice.replay_options(rsus, speed, 1);
    let replaying = {
        let records = records.clone();
        tokio::spawn(async move { replay(&records, &options).await })
    };
    let started = tokio::time::Instant::now();
    for (at, fault) in faults {
        tokio::time::sleep_until(started + *at).await;
        eprintln!("fault at {:.1} s: {fault:?}", started.elapsed().as_secs_f64());
        tokio::task::block_in_place(|| fault.inject(lattice));
    }
    // The replay ends when every CPM was acknowledged; a client that stopped sending would
    // otherwise hold the test forever.
    let summary = tokio::time::timeout(patience, replaying)
        .await
        .unwrap_or_else(|_| panic!("the replay did not end within {patience:?} after its faults"))
        .unwrap()
        .unwrap();
    assert_eq!(summary.messages as usize, records.len() * rsus.len(), "every CPM acknowledged by the MQTT listener");
    // As sent (made now): their frame ids and the in-process DENMs are of these bytes.
    let records = summary.records;
    history.extend(records.iter().cloned());
    // When each of this replay's frames was handed to the MQTT client (record by record, once
    // per RSU in `rsus`' order).
    let sent_at_us: HashMap<String, u64> = records
        .iter()
        .enumerate()
        .flat_map(|(r, record)| rsus.iter().enumerate().map(move |(j, rsu)| (r, j, record, format!("cits.cpm.{rsu}"))))
        .map(|(r, j, record, subject)| {
            (cits::message::frame_id(&subject, &record.cpm), summary.published_at_us[r * rsus.len() + j])
        })
        .collect();

    // What must come out: per RSU, one frame per CPM in sending order, and the in-process DENMs.
    let expected: BTreeMap<String, Vec<String>> = rsus
        .iter()
        .map(|rsu| {
            let subject = format!("cits.cpm.{rsu}");
            (rsu.to_string(), records.iter().map(|r| cits::message::frame_id(&subject, &r.cpm)).collect())
        })
        .collect();
    let xml = std::fs::read_to_string(lattice.repo.join("data/map/weiser-gabelsberger.osm")).unwrap();
    let graph = cits_map::lane_graph_from_osm(&xml, "map").unwrap();
    let native: Vec<Vec<u8>> = cits_research::evaluate::run(&graph, history)
        .unwrap()
        .iter()
        .map(|d| cits::stages::denm_sender::encode(&d.denm, Default::default()).unwrap())
        .collect();

    // Until the last frame of each RSU is out (redeliveries after the ack wait included), then a
    // little longer so that a late duplicate would show.
    let deadline = tokio::time::Instant::now() + patience;
    loop {
        let done = frames_done(lattice).await;
        let complete =
            rsus.iter().all(|rsu| done.get(*rsu).is_some_and(|f| f.contains(expected[*rsu].last().unwrap())));
        if complete || tokio::time::Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    tokio::time::sleep(Duration::from_secs(3)).await;

    let done = frames_done(lattice).await;
    let denms = lattice.stream_messages("CITS_DENM").await.unwrap();
    // What a site's RSUs are sent is what its leaf node holds: the hub's, once sourced.
    let topology = lattice.supervisor().settings.topology().into_owned();
    let mut site_denms = HashMap::new();
    for (k, site) in topology.sites.iter().enumerate() {
        // A site that runs its pipeline makes them there (the hub sources them to watch).
        let stream = match site.pipeline {
            cits_ops::lattice::topology::Placement::Hub => cits_jetstream::site::DENMS,
            cits_ops::lattice::topology::Placement::Edge => "CITS_DENM",
        };
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        let held = loop {
            let held = lattice.site_stream_messages(k, stream).await.unwrap();
            let of_site = |m: &&async_nats::jetstream::Message| {
                topology.site_of_rsu(m.subject.as_str().rsplit('.').next().unwrap_or("")).is_some_and(|(s, _)| s == k)
            };
            if held.len() >= denms.iter().filter(of_site).count() || tokio::time::Instant::now() > deadline {
                break held;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        };
        site_denms.insert(k, held);
    }
    let mut outcome = Outcome {
        faults: faults.len(),
        cpms_in: records.len() * rsus.len(),
        frames_out: 0,
        lost: 0,
        duplicated: 0,
        out_of_order: Vec::new(),
        lost_at: Vec::new(),
        duplicated_at: Vec::new(),
        denms_equal: true,
        denms: 0,
        longest_denm_wait: None,
    };
    for rsu in rsus {
        let want = &expected[*rsu];
        // This replay's frames (the stream holds the earlier replays' too).
        let this_replay: HashSet<&String> = want.iter().collect();
        let got: Vec<String> =
            done.get(*rsu).into_iter().flatten().filter(|id| this_replay.contains(id)).cloned().collect();
        outcome.frames_out += got.len();
        let got_set: HashSet<&String> = got.iter().collect();
        let missing: Vec<usize> = (0..want.len()).filter(|&i| !got_set.contains(&want[i])).collect();
        outcome.lost += missing.len();
        if !missing.is_empty() {
            outcome.lost_at.push(format!("{rsu}: {} of {}", index_ranges(&missing), want.len()));
        }
        let mut seen = HashSet::new();
        let repeated: HashSet<&String> = got.iter().filter(|id| !seen.insert(*id)).collect();
        outcome.duplicated += got.len() - seen.len();
        let twice: Vec<usize> = (0..want.len()).filter(|&i| repeated.contains(&want[i])).collect();
        if !twice.is_empty() {
            outcome.duplicated_at.push(format!("{rsu}: {} of {}", index_ranges(&twice), want.len()));
        }
        let mut unique = HashSet::new();
        let order: Vec<&String> = got.iter().filter(|id| unique.insert(*id)).collect();
        let want_order: Vec<&String> = want.iter().filter(|id| got_set.contains(id)).collect();
        if order != want_order {
            outcome.out_of_order.push(rsu.to_string());
        }
        let subject = cits::subjects::denm_outbox(rsu);
        let held = topology.site_of_rsu(rsu).map_or(&denms, |(k, _)| &site_denms[&k]);
        let sent: Vec<Vec<u8>> =
            held.iter().filter(|m| m.subject.as_str() == subject).map(|m| m.payload.to_vec()).collect();
        outcome.denms += sent.len();
        let waits = held.iter().filter(|m| m.subject.as_str() == subject).filter_map(|m| denm_wait(m, &sent_at_us));
        outcome.longest_denm_wait = outcome.longest_denm_wait.into_iter().chain(waits).max();
        if sent != native {
            eprintln!("{rsu}: {} DENMs sent, {} in process", sent.len(), native.len());
            // Where they part, decoded: which warning changed tells which state did.
            let at = sent.iter().zip(native.iter()).take_while(|(a, b)| a == b).count();
            for (side, list) in [("sent", &sent), ("in process", &native)] {
                for (i, bytes) in list.iter().enumerate().skip(at).take(3) {
                    let denm = etsi_its::denm::decode(bytes).map(|d| etsi_its::denm::SimpleDenm::from_denm(&d));
                    eprintln!("{rsu}: {side} #{i}: {denm:?}");
                }
            }
            outcome.denms_equal = false;
        }
    }
    outcome
}

/// How long DENM `m` was due before it was stored: from the CPM it answers (its message id
/// starts with the CPM's frame id) handed to the MQTT client, if that CPM is in `sent_at_us`.
fn denm_wait(m: &async_nats::jetstream::Message, sent_at_us: &HashMap<String, u64>) -> Option<Duration> {
    let id = m.headers.as_ref()?.get(async_nats::header::NATS_MESSAGE_ID)?.as_str().to_string();
    let sent = *sent_at_us.get(id.split(':').next()?)?;
    let stored = (m.info().ok()?.published.unix_timestamp_nanos() / 1000) as u64;
    Some(Duration::from_micros(stored.saturating_sub(sent)))
}

/// Frame ids of the `FrameDone`s stored in JetStream, per RSU, in stream order.
/// A frame stored twice is reported with both copies' stream sequence, time and message id.
async fn frames_done(lattice: &Lattice) -> BTreeMap<String, Vec<String>> {
    let mut by_rsu: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut copies: HashMap<String, Vec<String>> = HashMap::new();
    for m in lattice.stream_messages("CITS_DONE").await.unwrap() {
        let done = cits::proto::FrameDone::decode(m.payload.as_ref()).unwrap();
        let id = m.headers.as_ref().and_then(|h| h.get(async_nats::header::NATS_MESSAGE_ID));
        let id = id.map(|v| v.to_string()).unwrap_or_default();
        let (seq, at) = m.info().map(|i| (i.stream_sequence, i.published.to_string())).unwrap_or_default();
        copies.entry(done.frame_id.clone()).or_default().push(format!("seq {seq} at {at} id {id}"));
        by_rsu.entry(done.rsu_id).or_default().push(done.frame_id);
    }
    for (frame, stored) in copies.iter().filter(|(_, c)| c.len() > 1).take(5) {
        eprintln!("frame {frame} stored {} times: {}", stored.len(), stored.join("; "));
    }
    by_rsu
}

/// `3, 17-20, 31` for sorted indices.
fn index_ranges(indices: &[usize]) -> String {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for &i in indices {
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == i => *end = i,
            _ => ranges.push((i, i)),
        }
    }
    ranges.iter().map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") }).collect::<Vec<_>>().join(", ")
}

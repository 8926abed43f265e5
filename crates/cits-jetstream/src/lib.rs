//! Where the pipeline's messages are kept: one JetStream stream per subject family, declared in
//! [`STREAMS`] (the one place), created idempotently by the messaging provider when it starts and
//! by `cits streams` when the lattice comes up.
//!
//! - Stage inputs (`cits.cpm.*` … `cits.risks.*`) are **partitioned by RSU**: the stream stores
//!   `cits.<kind>.<rsu>` as `cits.<kind>.<p>.<rsu>` with `p = partition(N, rsu)` (FNV-1a mod
//!   [`PARTITIONS`], a NATS subject transform), and each stage consumes every partition with its
//!   own durable pull consumer that has at most one unacknowledged message. So one RSU's frames
//!   are handled in order and never two at once, by whichever provider copy (host) pulls them,
//!   while other RSUs' partitions proceed in parallel. A stage input is a **work queue**: a message
//!   is gone once its stage acknowledged it (a lattice that runs for days holds only its backlog),
//!   and a partition has exactly one consumer — whoever serves a stage takes the deployment's
//!   durable name (`cits stage --durable` too).
//! - Outputs for the outside world (`cits.outbox.denm.*`, `cits.outbox.done.*`) are stored once
//!   per message id and then **republished** on `cits.denm.<rsu>` (MQTT `cits/denm/<rsu>`) and
//!   `cits.done.<rsu>`: a DENM redelivered after a crash is dropped by JetStream's duplicate
//!   window before any RSU sees it.
//! - Dead letters (`cits.dlq.<stage>`) are kept for inspection.
//!
//! Every publish carries `Nats-Msg-Id`, see [`publish_all`].
//!
//! How a stage's input reaches it is here too, so the messaging provider and the native baseline
//! deliver alike: [`handler`] (a handler link's keys), [`durable`] (the pull loops, read-ahead
//! batches, acknowledgement after the effect) and [`dispatch`] (attempts, retries, dead letters).
//! Only the [`dispatch::Target`] differs: a component over wRPC, or the stage in-process.

use std::time::Duration;

use anyhow::Context as _;
use async_nats::jetstream::{self, consumer, stream};
use async_nats::HeaderMap;

pub mod dispatch;
pub mod durable;
pub mod handler;
pub mod mqtt;
pub mod site;

/// Partitions of every stage-input stream: how many RSUs a stage serves in parallel (RSUs that
/// hash to the same partition share its order). Fixed when a stream is created.
pub const PARTITIONS: u32 = 8;

/// How a stream is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A stage input, partitioned by RSU (the subject's last token).
    StageInput,
    /// Stored, then republished on this subject pattern for core NATS and MQTT subscribers.
    Outbox { republish: &'static str },
    /// Kept for inspection.
    Kept,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamSpec {
    pub name: &'static str,
    /// The subjects it captures: `cits.<kind>.*` (stage inputs, outboxes) or `cits.dlq.>`; a
    /// stage subscribes to this one.
    pub subjects: &'static str,
    /// More `cits.<kind>.*` families a stage input captures beside [`Self::subjects`], partitioned
    /// alike and delivered to the same subscription in one order per RSU.
    pub also: &'static [&'static str],
    pub role: Role,
}

/// Dead letters of every stage (`cits.dlq.<stage>`), kept for inspection.
pub const DEAD_LETTERS: StreamSpec =
    StreamSpec { name: "CITS_DLQ", subjects: "cits.dlq.>", also: &[], role: Role::Kept };

const fn input_stream(name: &'static str, subjects: &'static str) -> StreamSpec {
    StreamSpec { name, subjects, also: &[], role: Role::StageInput }
}

/// Every stream of the pipeline.
pub const STREAMS: &[StreamSpec] = &[
    // What RSUs send: their CPMs and the vehicles' CAMs and VRUs' VAMs they hear, in one stream,
    // so one RSU's messages of all kinds are handled in order and never two at once (the fused
    // pipeline's state is per RSU).
    StreamSpec {
        name: "CITS_CPM",
        subjects: "cits.cpm.*",
        also: &["cits.cam.*", "cits.vam.*"],
        role: Role::StageInput,
    },
    input_stream("CITS_DECODED", "cits.decoded.*"),
    input_stream("CITS_LOCATIONS", "cits.locations.*"),
    input_stream("CITS_TRAJECTORIES", "cits.trajectories.*"),
    input_stream("CITS_MATCHED", "cits.matched.*"),
    input_stream("CITS_PREDICTED", "cits.predicted.*"),
    input_stream("CITS_RISKS", "cits.risks.*"),
    StreamSpec {
        name: "CITS_DENM",
        subjects: "cits.outbox.denm.*",
        also: &[],
        role: Role::Outbox { republish: "cits.denm" },
    },
    StreamSpec {
        name: "CITS_DONE",
        subjects: "cits.outbox.done.*",
        also: &[],
        role: Role::Outbox { republish: "cits.done" },
    },
    DEAD_LETTERS,
];

/// Retention of every stream: messages go when older than `max_age` or when the stream exceeds
/// `max_bytes` (oldest first), and a stage input's once its stage acknowledged them; never
/// because a consumer is missing.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    pub max_age: Duration,
    pub max_bytes: i64,
    /// How long a message id is remembered to drop a duplicate publish.
    pub duplicate_window: Duration,
    /// Servers of a cluster that keep each stream (1 on a single server, 3 in a cluster: a
    /// majority goes on when one is lost).
    pub replicas: usize,
    /// The ingress stream also sources what the MQTT listener acknowledged (a cluster: see
    /// [`mqtt`]).
    pub source_mqtt: bool,
    /// The ingress stream also sources what these sites' leaf nodes took from their RSUs (an
    /// edge hub: see [`site`]).
    pub ingress_sites: Vec<String>,
    /// The outboxes and dead letters also source these sites' own (sites that run their
    /// pipeline, watched from the hub: see [`site`]).
    pub watched_sites: Vec<String>,
}

impl Limits {
    /// Whether the ingress stream sources others (and so keeps what it sourced, see
    /// [`StreamSpec::retention`]).
    pub fn sourced_ingress(&self) -> bool {
        self.source_mqtt || !self.ingress_sites.is_empty()
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_age: Duration::from_secs(24 * 3600),
            max_bytes: 1 << 30,
            duplicate_window: Duration::from_secs(120),
            replicas: 1,
            source_mqtt: false,
            ingress_sites: Vec::new(),
            watched_sites: Vec::new(),
        }
    }
}

impl StreamSpec {
    /// The subject family without its wildcard: `cits.cpm`.
    pub(crate) fn prefix(&self) -> &'static str {
        self.subjects.trim_end_matches(".*").trim_end_matches(".>")
    }

    pub fn config(&self, limits: &Limits) -> stream::Config {
        let (subject_transform, republish) = match self.role {
            // `cits.<kind>.<rsu>` → `cits.<kind>.<p>.<rsu>`, p from the RSU alone (for every kind
            // a stream of several captures: `cits.*.*` covers them all and no other).
            Role::StageInput if self.also.is_empty() => (
                Some(stream::SubjectTransform {
                    source: self.subjects.to_string(),
                    destination: format!("{}.{{{{partition({PARTITIONS},1)}}}}.{{{{wildcard(1)}}}}", self.prefix()),
                }),
                None,
            ),
            Role::StageInput => (
                Some(stream::SubjectTransform {
                    source: "cits.*.*".to_string(),
                    destination: format!(
                        "cits.{{{{wildcard(1)}}}}.{{{{partition({PARTITIONS},2)}}}}.{{{{wildcard(2)}}}}"
                    ),
                }),
                None,
            ),
            Role::Outbox { republish } => (
                None,
                Some(stream::Republish {
                    source: self.subjects.to_string(),
                    destination: format!("{republish}.{{{{wildcard(1)}}}}"),
                    headers_only: false,
                }),
            ),
            Role::Kept => (None, None),
        };
        stream::Config {
            name: self.name.to_string(),
            subjects: self.families().into_iter().map(String::from).collect(),
            storage: stream::StorageType::File,
            retention: self.retention(limits.sourced_ingress()),
            discard: stream::DiscardPolicy::Old,
            max_age: limits.max_age,
            max_bytes: limits.max_bytes,
            duplicate_window: limits.duplicate_window,
            num_replicas: limits.replicas.max(1),
            subject_transform,
            republish,
            // The messaging provider reads a partition's backlog ahead with batched direct gets.
            allow_direct: true,
            sources: self.sources(limits),
            ..Default::default()
        }
    }

    /// Whether RSUs publish to it (the first stage's input).
    fn is_ingress(&self) -> bool {
        self.name == STREAMS[0].name
    }

    /// What it sources beside its own capture: the ingress, the MQTT listener's store and each
    /// site's ingress; an outbox or the dead letters, the same stream of each watched site.
    fn sources(&self, limits: &Limits) -> Option<Vec<stream::Source>> {
        let sources: Vec<stream::Source> = match self.role {
            Role::StageInput if self.is_ingress() => {
                let families = self.families();
                let mqtt = limits.source_mqtt.then(|| mqtt::ingress_source(&families));
                let sites = limits.ingress_sites.iter().map(|s| site::hub_ingress_source(s, &families));
                mqtt.into_iter().chain(sites).collect()
            }
            Role::StageInput => Vec::new(),
            Role::Outbox { .. } | Role::Kept => {
                limits.watched_sites.iter().map(|s| site::watched(self.name, s)).collect()
            }
        };
        (!sources.is_empty()).then_some(sources)
    }

    /// The sites this stream's sources name (what `ensure_streams` found it made with).
    fn sites_in(&self, config: &stream::Config, limits: &mut Limits) {
        let list = if self.is_ingress() { &mut limits.ingress_sites } else { &mut limits.watched_sites };
        for found in site::sourced_sites(config) {
            if !list.contains(&found) {
                list.push(found);
            }
        }
    }

    /// Every subject family it captures: `cits.cpm.*`, then [`Self::also`].
    pub(crate) fn families(&self) -> Vec<&'static str> {
        std::iter::once(self.subjects).chain(self.also.iter().copied()).collect()
    }

    /// Stage inputs keep what is not yet processed (work queue); outboxes and dead letters keep
    /// everything within the limits, for RSUs that reconnect and for inspection. An ingress that
    /// sources others (the MQTT listener's store, sites) keeps everything too: where its sourcing
    /// resumes after a leader change or a cut link is the last sourced message it still holds (in
    /// a work queue, none: the server then resumes by time and skips what was stored but not yet
    /// sourced).
    pub fn retention(&self, sourced: bool) -> stream::RetentionPolicy {
        match self.role {
            Role::StageInput if sourced && self.is_ingress() => stream::RetentionPolicy::Limits,
            Role::StageInput => stream::RetentionPolicy::WorkQueue,
            Role::Outbox { .. } | Role::Kept => stream::RetentionPolicy::Limits,
        }
    }

    /// The filter of partition `p`: `cits.cpm.<p>.*` (`cits.*.<p>.*` for a stream of several
    /// kinds: it holds no other).
    pub fn partition_filter(&self, p: u32) -> String {
        if self.also.is_empty() {
            format!("{}.{p}.*", self.prefix())
        } else {
            format!("cits.*.{p}.*")
        }
    }
}

/// The stage-input stream that holds `subscription` (e.g. `cits.cpm.*`), if any.
pub fn stage_input(subscription: &str) -> Option<&'static StreamSpec> {
    STREAMS.iter().find(|s| s.role == Role::StageInput && s.subjects == subscription)
}

/// The subject a message was published on, from the subject a partitioned stream stored it under
/// (`cits.cpm.3.rsu1` → `cits.cpm.rsu1`).
pub fn published_subject(stored: &str) -> String {
    let mut tokens: Vec<&str> = stored.split('.').collect();
    if tokens.len() == 4 && tokens[2].parse::<u32>().is_ok() {
        tokens.remove(2);
    }
    tokens.join(".")
}

/// Creates every stream that does not exist yet. An existing stream is left as it is, except an
/// empty one of an earlier retention (stage inputs before they were work queues), which is made
/// anew: the server cannot change a stream's retention to or from work queue.
pub async fn ensure_streams(js: &jetstream::Context, limits: &Limits) -> anyhow::Result<()> {
    if limits.source_mqtt {
        ensure_mqtt_store(js, limits).await?;
    }
    for spec in STREAMS {
        let stream = create_stream(js, spec, limits).await?;
        let info = stream.cached_info();
        // Whoever made it with sources (a cluster's or an edge hub's `cits lattice up`) decided:
        // a provider that makes the streams with the defaults keeps them.
        let mut found =
            Limits { source_mqtt: limits.source_mqtt || mqtt::sources_store(&info.config), ..limits.clone() };
        spec.sites_in(&info.config, &mut found);
        let limits = &found;
        let wanted = spec.retention(limits.sourced_ingress());
        let source_names = |sources: Option<&Vec<stream::Source>>| -> Vec<String> {
            let mut names: Vec<String> = sources
                .into_iter()
                .flatten()
                .map(|s| format!("{} {:?}", s.name, s.external.as_ref().map(|e| &e.api_prefix)))
                .collect();
            names.sort();
            names
        };
        let to_source = source_names(spec.sources(limits).as_ref()) != source_names(info.config.sources.as_ref());
        if info.config.retention == wanted && to_source {
            js.update_stream(spec.config(limits))
                .await
                .map_err(|e| anyhow::anyhow!("cannot make {} source what it should: {e}", spec.name))?;
        }
        if delete_if_retention_differs(js, info, wanted, "let its stage work them off with the previous version")
            .await?
        {
            create_stream(js, spec, limits).await?;
        }
    }
    Ok(())
}

/// `<prefix><family>` (e.g. `cits.cpm.*`) into the family's partitioned subjects
/// (`cits.cpm.<p>.<rsu>`, the partition from the RSU as a stage input's own capture computes it),
/// for every family: how a stage input sources what others stored.
pub(crate) fn partition_transforms(prefix: &str, families: &[&str]) -> Vec<stream::SubjectTransform> {
    families
        .iter()
        .map(|family| stream::SubjectTransform {
            source: format!("{prefix}{family}"),
            destination: format!(
                "{}.{{{{partition({PARTITIONS},1)}}}}.{{{{wildcard(1)}}}}",
                family.trim_end_matches(".*")
            ),
        })
        .collect()
}

/// The MQTT listener's store with limits retention ([`mqtt::store_config`]), before any MQTT
/// client made it with interest retention; made anew if the listener made it and it is empty.
async fn ensure_mqtt_store(js: &jetstream::Context, limits: &Limits) -> anyhow::Result<()> {
    let config = mqtt::store_config(limits);
    let store =
        js.get_or_create_stream(config.clone()).await.map_err(|e| anyhow::anyhow!("stream {}: {e}", mqtt::STORE))?;
    let advice = "let the MQTT listener's subscribers take them, before RSUs connect";
    if delete_if_retention_differs(js, store.cached_info(), config.retention, advice).await? {
        js.create_stream(config).await.map_err(|e| anyhow::anyhow!("stream {}: {e}", mqtt::STORE))?;
    }
    Ok(())
}

/// Deletes a stream found with another retention than `wanted` (the server cannot change a
/// stream's retention), so that the caller makes it anew; refuses while it holds messages
/// (`advice`: how to let them go first). Whether it deleted it.
async fn delete_if_retention_differs(
    js: &jetstream::Context,
    info: &stream::Info,
    wanted: stream::RetentionPolicy,
    advice: &str,
) -> anyhow::Result<bool> {
    let name = &info.config.name;
    if info.config.retention == wanted {
        return Ok(false);
    }
    anyhow::ensure!(
        info.state.messages == 0,
        "stream {name} has {:?} retention where {wanted:?} is needed, and holds {} messages: {advice}, then \
         delete the stream (`nats stream rm {name}`)",
        info.config.retention,
        info.state.messages,
    );
    js.delete_stream(name).await.map_err(|e| anyhow::anyhow!("deleting stream {name}: {e}"))?;
    Ok(true)
}

/// `spec`'s stream as it is on the server, created if it does not exist.
async fn create_stream(js: &jetstream::Context, spec: &StreamSpec, limits: &Limits) -> anyhow::Result<stream::Stream> {
    js.get_or_create_stream(spec.config(limits)).await.map_err(|e| anyhow::anyhow!("{e}")).with_context(|| {
        // The server reserves every stream's max_bytes up front against its file store limit
        // (max_file_store, by default 75 % of the free disk), so this fails on a nearly full disk
        // even though the streams hold little yet.
        format!(
            "cannot create JetStream stream {} (reserving {} MiB; {} streams need {} MiB of the server's \
             file store: free disk space, raise the server's jetstream max_file_store, or create the \
             streams smaller with `cits streams --max-bytes`)",
            spec.name,
            limits.max_bytes >> 20,
            STREAMS.len(),
            (limits.max_bytes >> 20) * STREAMS.len() as i64
        )
    })
}

/// Drops every message the stage inputs hold, so a deployment starts without what was published
/// while it was not running (their consumers move past the purged messages); returns how many.
/// For benchmarks: a stage loses whatever it had not taken yet.
pub async fn purge_stage_inputs(js: &jetstream::Context) -> anyhow::Result<u64> {
    let mut purged = 0;
    for spec in STREAMS.iter().filter(|s| s.role == Role::StageInput) {
        let stream = js.get_stream(spec.name).await.map_err(|e| anyhow::anyhow!("stream {}: {e}", spec.name))?;
        purged += stream.purge().await.map_err(|e| anyhow::anyhow!("purging {}: {e}", spec.name))?.purged;
    }
    Ok(purged)
}

/// How a stage consumes one partition.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerSpec {
    /// Durable name prefix (the partition number is appended): consumers with the same name are
    /// one position in the stream, whichever deployment or provider copy pulls from them.
    pub durable: String,
    /// Redelivery of an unacknowledged message (its puller died): longer than an invocation can
    /// run, and kept from expiring while one runs by progress acknowledgements.
    pub ack_wait: Duration,
}

impl ConsumerSpec {
    pub fn name(&self, partition: u32) -> String {
        format!("{}-{partition}", self.durable)
    }

    /// One unacknowledged message at a time: the partition's order and the "never two at once"
    /// hold across every puller, redeliveries included. Deliveries are unlimited here: the
    /// provider counts attempts and dead-letters (JetStream's MaxDeliver only raises an advisory).
    pub fn config(&self, spec: &StreamSpec, partition: u32) -> consumer::pull::Config {
        consumer::pull::Config {
            durable_name: Some(self.name(partition)),
            filter_subject: spec.partition_filter(partition),
            ack_policy: consumer::AckPolicy::Explicit,
            deliver_policy: consumer::DeliverPolicy::All,
            ack_wait: self.ack_wait,
            max_ack_pending: 1,
            max_deliver: -1,
            ..Default::default()
        }
    }
}

/// Publishes `(message id, subject, body)` to JetStream, all sent before any acknowledgement is
/// awaited (one connection: the server stores them in this order), and returns once every one is
/// stored — or was already stored under its id (a duplicate, dropped). Fails on the first that
/// could not be stored: the caller publishes all of them again with the same ids.
pub async fn publish_all(js: &jetstream::Context, messages: Vec<(String, String, Vec<u8>)>) -> anyhow::Result<()> {
    let mut acks = Vec::with_capacity(messages.len());
    for (id, subject, body) in messages {
        let mut headers = HeaderMap::new();
        headers.insert("Nats-Msg-Id", id.as_str());
        let ack = js
            .publish_with_headers(subject.clone(), headers, body.into())
            .await
            .map_err(|e| anyhow::anyhow!("publish to {subject} failed: {e}"))?;
        acks.push((subject, ack));
    }
    for (subject, ack) in acks {
        ack.await.map_err(|e| anyhow::anyhow!("{subject} not stored: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_inputs_are_partitioned_by_their_last_token() {
        let decoded = stage_input("cits.decoded.*").unwrap();
        let cfg = decoded.config(&Limits::default());
        let t = cfg.subject_transform.unwrap();
        assert_eq!(t.source, "cits.decoded.*");
        assert_eq!(t.destination, "cits.decoded.{{partition(8,1)}}.{{wildcard(1)}}");
        assert_eq!(decoded.partition_filter(3), "cits.decoded.3.*");
        // CPMs, CAMs and VAMs: one stream, one partition per RSU for all.
        let cpm = stage_input("cits.cpm.*").unwrap();
        let cfg = cpm.config(&Limits::default());
        assert_eq!(cfg.subjects, vec!["cits.cpm.*", "cits.cam.*", "cits.vam.*"]);
        let t = cfg.subject_transform.unwrap();
        assert_eq!(t.source, "cits.*.*");
        assert_eq!(t.destination, "cits.{{wildcard(1)}}.{{partition(8,2)}}.{{wildcard(2)}}");
        assert_eq!(cpm.partition_filter(3), "cits.*.3.*");
        assert_eq!(published_subject("cits.cam.3.rsu1"), "cits.cam.rsu1");
        assert_eq!(published_subject("cits.vam.3.rsu1"), "cits.vam.rsu1");
        assert_eq!(published_subject("cits.cpm.3.rsu1"), "cits.cpm.rsu1");
        assert_eq!(published_subject("cits.cpm.rsu1"), "cits.cpm.rsu1");
        assert!(stage_input("cits.denm.*").is_none());
    }

    #[test]
    fn stage_inputs_are_work_queues_and_outputs_are_kept() {
        for spec in STREAMS {
            let retention = spec.config(&Limits::default()).retention;
            match spec.role {
                Role::StageInput => assert_eq!(retention, stream::RetentionPolicy::WorkQueue, "{}", spec.name),
                _ => assert_eq!(retention, stream::RetentionPolicy::Limits, "{}", spec.name),
            }
            // In a cluster the ingress keeps what it sourced: the resume point of its sourcing.
            let clustered = spec.config(&Limits { source_mqtt: true, ..Default::default() });
            assert_eq!(
                clustered.retention == stream::RetentionPolicy::Limits,
                spec.role != Role::StageInput || spec.is_ingress()
            );
            assert_eq!(clustered.sources.is_some(), spec.is_ingress(), "{}", spec.name);
        }
    }

    #[test]
    fn outboxes_republish_to_what_rsus_and_monitors_subscribe() {
        let denm = STREAMS.iter().find(|s| s.name == "CITS_DENM").unwrap().config(&Limits::default());
        let r = denm.republish.unwrap();
        assert_eq!((r.source.as_str(), r.destination.as_str()), ("cits.outbox.denm.*", "cits.denm.{{wildcard(1)}}"));
    }

    #[test]
    fn streams_never_overlap() {
        let prefixes = |s: &StreamSpec| {
            std::iter::once(s.subjects)
                .chain(s.also.iter().copied())
                .map(|p| p.trim_end_matches(".*").trim_end_matches(".>"))
        };
        let all: Vec<(&str, &str)> = STREAMS.iter().flat_map(|s| prefixes(s).map(move |p| (s.name, p))).collect();
        for (i, (a_name, a)) in all.iter().enumerate() {
            for (b_name, b) in &all[i + 1..] {
                assert_ne!(a, b, "{a_name} and {b_name}");
                assert!(!a.starts_with(&format!("{b}.")) && !b.starts_with(&format!("{a}.")), "{a} and {b}");
            }
        }
    }

    #[test]
    fn a_partition_consumer_has_one_message_in_flight() {
        let spec = ConsumerSpec { durable: "decoder".into(), ack_wait: Duration::from_secs(10) };
        let cfg = spec.config(stage_input("cits.cpm.*").unwrap(), 5);
        assert_eq!(cfg.durable_name.as_deref(), Some("decoder-5"));
        assert_eq!(cfg.filter_subject, "cits.*.5.*");
        assert_eq!(cfg.max_ack_pending, 1);
    }
}

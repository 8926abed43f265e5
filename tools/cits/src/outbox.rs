//! What the pipeline's streams hold, counted per subject: the FrameDones it finished (stream
//! `CITS_DONE`, one per frame: the outbox keeps each message id once) and the dead letters
//! (`CITS_DLQ`). A watcher on core NATS misses what is published while it is cut off; the
//! streams do not.

use std::collections::BTreeMap;

use anyhow::Context as _;
use async_nats::jetstream;
use futures::TryStreamExt as _;

/// Messages stored in `stream` per subject matching `filter`, keyed by the subject's part after
/// `prefix` (e.g. the RSU of `cits.outbox.done.<rsu>`).
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

/// FrameDones stored per RSU.
pub async fn frames_done(js: &jetstream::Context) -> anyhow::Result<BTreeMap<String, u64>> {
    let stream = cits_jetstream::STREAMS.iter().find(|s| s.name == "CITS_DONE").context("no CITS_DONE stream")?;
    per_subject(js, stream.name, stream.subjects, &cits::subjects::done_outbox("")).await
}

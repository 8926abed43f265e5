//! Dead letters kept in JetStream: every stage's `cits.dlq.<stage>` lands in one stream, so they
//! are counted and can be inspected or replayed after the fact.

use std::collections::BTreeMap;

use anyhow::Context as _;
use async_nats::jetstream;

pub const STREAM: &str = cits_jetstream::DEAD_LETTERS.name;
pub const SUBJECTS: &str = cits_jetstream::DEAD_LETTERS.subjects;

/// Creates the pipeline's streams if needed and returns the number of dead letters per stage.
pub async fn ensure_and_count(client: &async_nats::Client) -> anyhow::Result<BTreeMap<String, u64>> {
    let js = jetstream::new(client.clone());
    cits_jetstream::ensure_streams(&js, &cits_jetstream::Limits::default()).await?;
    count(&js).await
}

/// The number of dead letters stored per stage (the stream must exist).
pub async fn count(js: &jetstream::Context) -> anyhow::Result<BTreeMap<String, u64>> {
    crate::outbox::per_subject(js, STREAM, SUBJECTS, "cits.dlq.").await.context("dead letters")
}

//! Dead letters kept in JetStream: every stage's `cits.dlq.<stage>` lands in one stream, so they
//! are counted and can be inspected or replayed after the fact.

use std::collections::BTreeMap;

use anyhow::Context as _;
use async_nats::jetstream::{self, stream};

pub const STREAM: &str = "CITS_DLQ";
pub const SUBJECTS: &str = "cits.dlq.>";

/// Creates the stream if needed and returns the number of dead letters per stage.
pub async fn ensure_and_count(client: &async_nats::Client) -> anyhow::Result<BTreeMap<String, u64>> {
    let js = jetstream::new(client.clone());
    let stream = js
        .get_or_create_stream(stream::Config {
            name: STREAM.to_string(),
            subjects: vec![SUBJECTS.to_string()],
            max_age: std::time::Duration::from_secs(7 * 24 * 3600),
            max_bytes: 1 << 30,
            ..Default::default()
        })
        .await
        .context("cannot create the dead-letter stream")?;
    let info = stream.info_with_subjects(SUBJECTS).await.context("cannot read the dead-letter stream")?;
    let mut counts = BTreeMap::new();
    futures::pin_mut!(info);
    use futures::TryStreamExt as _;
    while let Some((subject, count)) = info.try_next().await? {
        let stage = subject.trim_start_matches("cits.dlq.").to_string();
        *counts.entry(stage).or_insert(0) += count as u64;
    }
    Ok(counts)
}

//! RSU sites at the edge: a leaf node per site with a JetStream domain of its own (its name), its
//! RSUs on its MQTT listener, linked to the hub (domain [`HUB_DOMAIN`]) over a network that drops.
//!
//! Nothing of the pipeline crosses that link as a core message ([`LINK_DENIED`] in the leaf
//! node's config): a core message published while the link is down is gone. What crosses is
//! stored on one side and **sourced** by the other, which resumes after the last message it holds
//! once the link is back, in order:
//!
//! - the leaf keeps what its RSUs send in [`INGRESS`] (as they sent it), and the hub's ingress
//!   stream sources it from every site ([`hub_ingress_source`]) into its RSU partitions;
//! - the leaf keeps its RSUs' DENMs in [`DENMS`], sourced from the hub's DENM outbox (only its own
//!   RSUs'), and republishes each on `cits.denm.<rsu>` for the RSU's MQTT subscription.

use async_nats::jetstream::stream;

/// The hub's JetStream domain (a site's is its name).
pub const HUB_DOMAIN: &str = "hub";

/// Subjects a site's leaf node neither sends to the hub nor takes from it: the pipeline's
/// (`cits.>`: RSU messages, stage inputs, outboxes and their republished copies) and the MQTT
/// listeners' internals (`$MQTT.>`: each domain has its own sessions and stores).
pub const LINK_DENIED: [&str; 2] = ["cits.>", "$MQTT.>"];

/// On a leaf node: what the site's RSUs send (CPMs, CAMs, VAMs), until the hub sourced it.
pub const INGRESS: &str = "CITS_SITE_INGRESS";

/// On a leaf node: the DENMs for the site's RSUs, sourced from the hub.
pub const DENMS: &str = "CITS_SITE_DENM";

/// The leaf node's ingress: every family the hub's ingress captures, stored as published, kept
/// within `limits` (not a work queue: where the hub's sourcing resumes is read from it).
pub fn ingress_config(limits: &crate::Limits) -> stream::Config {
    stream::Config {
        name: INGRESS.to_string(),
        subjects: crate::STREAMS[0].families().into_iter().map(String::from).collect(),
        storage: stream::StorageType::File,
        retention: stream::RetentionPolicy::Limits,
        discard: stream::DiscardPolicy::Old,
        max_age: limits.max_age,
        max_bytes: limits.max_bytes,
        duplicate_window: limits.duplicate_window,
        ..Default::default()
    }
}

/// The leaf node's DENMs: the hub's DENM outbox for `rsus` only, republished on `cits.denm.<rsu>`
/// as the hub's outbox does for its own RSUs.
pub fn denms_config(rsus: &[String], limits: &crate::Limits) -> stream::Config {
    let outbox = crate::STREAMS.iter().find(|s| s.name == "CITS_DENM").expect("the DENM outbox");
    let crate::Role::Outbox { republish } = outbox.role else { unreachable!("CITS_DENM is an outbox") };
    let filters = rsus
        .iter()
        .map(|rsu| {
            let subject = format!("{}.{rsu}", outbox.prefix());
            stream::SubjectTransform { source: subject.clone(), destination: subject }
        })
        .collect();
    stream::Config {
        name: DENMS.to_string(),
        storage: stream::StorageType::File,
        retention: stream::RetentionPolicy::Limits,
        discard: stream::DiscardPolicy::Old,
        max_age: limits.max_age,
        max_bytes: limits.max_bytes,
        sources: Some(vec![stream::Source {
            name: outbox.name.to_string(),
            external: in_domain(HUB_DOMAIN),
            subject_transforms: filters,
            ..Default::default()
        }]),
        republish: Some(stream::Republish {
            source: outbox.subjects.to_string(),
            destination: format!("{republish}.{{{{wildcard(1)}}}}"),
            headers_only: false,
        }),
        ..Default::default()
    }
}

/// The source of the hub's ingress for `site`: its leaf node's [`INGRESS`], each family into the
/// partitioned subjects the hub's own capture uses.
pub fn hub_ingress_source(site: &str, families: &[&str]) -> stream::Source {
    stream::Source {
        name: INGRESS.to_string(),
        external: in_domain(site),
        subject_transforms: crate::partition_transforms("", families),
        ..Default::default()
    }
}

/// The source of the hub's stream `name` (an outbox, the dead letters) for a site that runs its
/// pipeline: the site's stream of that name, kept and republished at the hub too (the dashboard,
/// the tools and the operator watch every site from there).
pub fn watched(name: &str, site: &str) -> stream::Source {
    stream::Source { name: name.to_string(), external: in_domain(site), ..Default::default() }
}

/// The sites a stream sources from (by their API prefix).
pub fn sourced_sites(config: &stream::Config) -> Vec<String> {
    config
        .sources
        .iter()
        .flatten()
        .filter_map(|s| s.external.as_ref())
        .filter_map(|e| e.api_prefix.strip_prefix("$JS.")?.strip_suffix(".API").map(String::from))
        .collect()
}

/// Where a source in JetStream domain `domain` is reached (its API prefix, across the link).
fn in_domain(domain: &str) -> Option<stream::External> {
    Some(stream::External { api_prefix: format!("$JS.{domain}.API"), delivery_prefix: None })
}

/// Makes a site's streams on its leaf node (`js`: a connection to it) unless they exist: its
/// ingress, and its DENMs for `rsus`.
pub async fn ensure(
    js: &async_nats::jetstream::Context,
    rsus: &[String],
    limits: &crate::Limits,
) -> anyhow::Result<()> {
    for config in [ingress_config(limits), denms_config(rsus, limits)] {
        let name = config.name.clone();
        js.get_or_create_stream(config).await.map_err(|e| anyhow::anyhow!("stream {name} on the site: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hub_sources_a_sites_ingress_into_its_rsu_partitions() {
        let source = hub_ingress_source("site-1", &["cits.cpm.*", "cits.vam.*"]);
        assert_eq!(source.name, INGRESS);
        assert_eq!(source.external.as_ref().unwrap().api_prefix, "$JS.site-1.API");
        let pairs: Vec<(&str, &str)> =
            source.subject_transforms.iter().map(|t| (t.source.as_str(), t.destination.as_str())).collect();
        assert_eq!(
            pairs,
            [
                ("cits.cpm.*", "cits.cpm.{{partition(8,1)}}.{{wildcard(1)}}"),
                ("cits.vam.*", "cits.vam.{{partition(8,1)}}.{{wildcard(1)}}"),
            ]
        );
        let hub = crate::Limits { ingress_sites: vec!["site-1".into(), "b".into()], ..Default::default() };
        assert_eq!(sourced_sites(&crate::STREAMS[0].config(&hub)), ["site-1", "b"]);
        let outbox = crate::STREAMS.iter().find(|s| s.name == "CITS_DENM").unwrap();
        assert!(outbox.config(&hub).sources.is_none(), "an ingress site's DENMs are made at the hub");
    }

    #[test]
    fn the_hub_watches_a_site_that_runs_its_pipeline_through_its_outboxes_and_dead_letters() {
        let hub = crate::Limits { watched_sites: vec!["site-2".into()], ..Default::default() };
        for spec in crate::STREAMS {
            let sources = spec.config(&hub).sources.unwrap_or_default();
            match spec.role {
                crate::Role::StageInput => assert!(sources.is_empty(), "{}: the site's input stays there", spec.name),
                _ => {
                    assert_eq!(sources.len(), 1, "{}", spec.name);
                    assert_eq!(sources[0].name, spec.name);
                    assert_eq!(sources[0].external.as_ref().unwrap().api_prefix, "$JS.site-2.API");
                }
            }
        }
    }

    #[test]
    fn a_site_takes_only_its_own_rsus_denms_and_republishes_them_for_mqtt() {
        let config = denms_config(&["rsu1".into(), "rsu7".into()], &crate::Limits::default());
        assert!(config.subjects.is_empty(), "nothing published on the site lands here but what it sources");
        let source = &config.sources.as_ref().unwrap()[0];
        let api = source.external.as_ref().map(|e| e.api_prefix.as_str());
        assert_eq!((source.name.as_str(), api), ("CITS_DENM", Some("$JS.hub.API")));
        let filters: Vec<&str> = source.subject_transforms.iter().map(|t| t.source.as_str()).collect();
        assert_eq!(filters, ["cits.outbox.denm.rsu1", "cits.outbox.denm.rsu7"]);
        let republish = config.republish.unwrap();
        assert_eq!(
            (republish.source.as_str(), republish.destination.as_str()),
            ("cits.outbox.denm.*", "cits.denm.{{wildcard(1)}}")
        );
        assert_eq!(ingress_config(&crate::Limits::default()).subjects, ["cits.cpm.*", "cits.cam.*", "cits.vam.*"]);
    }
}

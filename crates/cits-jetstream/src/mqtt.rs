//! RSUs that publish over MQTT with QoS 1, in a NATS cluster.
//!
//! nats-server's MQTT listener handles a QoS 1 PUBLISH in two steps: a core NATS publish on the
//! topic's subject (`cits/cpm/rsu1` → `cits.cpm.rsu1`), which a stream captures only if its
//! leader is there to take it, then a store into its own stream `$MQTT_msgs` (as
//! `$MQTT.msgs.cits.cpm.rsu1`), and only after that store the PUBACK. On one server the capture
//! cannot miss; in a cluster, while the ingress stream elects a new leader (seconds after a server
//! died), the core publish goes nowhere although the RSU got its PUBACK. So in a cluster the
//! ingress stream also **sources** what the listener stored ([`ingress_source`]), and keeps it
//! stored until sourced: `$MQTT_msgs` is made by us beforehand with limits retention
//! ([`store_config`]; the listener's own default, interest retention, drops a message nobody
//! consumes at that moment, e.g. while the sourcing consumer is being re-made by a new leader).
//!
//! Each such CPM then arrives twice: the core copy (when it was captured) and the sourced one.
//! The stage keeps the sourced copy, the only one that never misses, in the listener's order, and
//! acknowledges the core copy unhandled ([`captured_twice`]). QoS 0 publishes and NATS clients
//! are captured once, from the core publish, as on one server.

use async_nats::jetstream::stream;
use async_nats::HeaderMap;

/// The listener's stream, as named by nats-server.
pub const STORE: &str = "$MQTT_msgs";

/// The subjects the listener stores QoS ≥ 1 publishes under: `$MQTT.msgs.<subject>`.
const STORE_PREFIX: &str = "$MQTT.msgs.";

/// Header the listener sets on what an MQTT client published: the QoS, `0`–`2`.
const QOS_HEADER: &str = "Nmqtt-Pub";

/// Header a stream sets on a message it sourced from another.
const SOURCED_HEADER: &str = "Nats-Stream-Source";

/// `$MQTT_msgs` as the listener makes it, but with limits retention: a stored publish stays (up
/// to `limits`) whether or not the sourcing consumer exists at that moment. The listener uses the
/// stream it finds; MQTT subscribers' consumers on it work alike.
pub fn store_config(limits: &crate::Limits) -> stream::Config {
    stream::Config {
        name: STORE.to_string(),
        subjects: vec![format!("{STORE_PREFIX}>")],
        storage: stream::StorageType::File,
        retention: stream::RetentionPolicy::Limits,
        discard: stream::DiscardPolicy::Old,
        max_age: limits.max_age,
        max_bytes: limits.max_bytes,
        num_replicas: limits.replicas.max(1),
        ..Default::default()
    }
}

/// The source of an ingress stream capturing `families` (`cits.cpm.*`, …): the listener's stored
/// publishes on exactly those subjects (not the DENMs it stores for QoS 1 subscribers), each
/// transformed into its family's partitioned subject (`cits.cpm.<p>.<rsu>`, the partition from
/// the RSU as the core capture computes it).
pub fn ingress_source(families: &[&str]) -> stream::Source {
    stream::Source {
        name: STORE.to_string(),
        subject_transforms: crate::partition_transforms(STORE_PREFIX, families),
        ..Default::default()
    }
}

/// Whether an ingress stream sources the listener's store (see [`ingress_source`]).
pub fn sources_store(config: &stream::Config) -> bool {
    config.sources.as_ref().is_some_and(|s| s.iter().any(|s| s.name == STORE))
}

/// Whether a message of an ingress stream that sources the listener's store is the core copy of
/// a QoS ≥ 1 MQTT publish: its sourced copy comes too (or came), so this one is not handled.
pub fn captured_twice(headers: Option<&HeaderMap>) -> bool {
    let Some(headers) = headers else { return false };
    let qos = headers.get(QOS_HEADER).and_then(|q| q.as_str().parse::<u8>().ok()).unwrap_or(0);
    qos >= 1 && headers.get(SOURCED_HEADER).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_takes_only_what_rsus_send_and_partitions_it_like_the_core_capture() {
        let source = ingress_source(&["cits.cpm.*", "cits.cam.*"]);
        assert_eq!(source.name, "$MQTT_msgs");
        let pairs: Vec<(&str, &str)> =
            source.subject_transforms.iter().map(|t| (t.source.as_str(), t.destination.as_str())).collect();
        assert_eq!(
            pairs,
            [
                ("$MQTT.msgs.cits.cpm.*", "cits.cpm.{{partition(8,1)}}.{{wildcard(1)}}"),
                ("$MQTT.msgs.cits.cam.*", "cits.cam.{{partition(8,1)}}.{{wildcard(1)}}"),
            ]
        );
    }

    #[test]
    fn only_the_core_copy_of_a_qos1_publish_is_skipped() {
        let mut mqtt = HeaderMap::new();
        mqtt.insert(QOS_HEADER, "1");
        assert!(captured_twice(Some(&mqtt)));
        let mut sourced = mqtt.clone();
        sourced.insert(SOURCED_HEADER, "$MQTT_msgs 12 > >");
        assert!(!captured_twice(Some(&sourced)));
        let mut qos0 = HeaderMap::new();
        qos0.insert(QOS_HEADER, "0");
        assert!(!captured_twice(Some(&qos0)), "QoS 0 is never stored by the listener");
        assert!(!captured_twice(None), "a NATS client's publish");
    }
}

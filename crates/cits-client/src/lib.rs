//! A running pipeline reached from outside, as RSUs and operators reach it: CPM recordings
//! ([`recording`], [`demo`]) published over MQTT ([`replay`]), DENMs received ([`denms`]), the
//! pipeline's output and streams observed ([`watch`], [`outbox`], [`dlq`]), with the lattice's
//! credentials ([`auth`], [`tls`]). What the operations, benchmark and research crates share.

pub mod auth;
pub mod demo;
pub mod denms;
pub mod dlq;
pub mod http;
pub mod outbox;
pub mod recording;
pub mod replay;
pub mod tls;
pub mod watch;

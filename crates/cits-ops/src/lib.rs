//! Operations: the local lattice and its supervisor ([`lattice`]: NATS, Redis, wadm, the
//! wasmCloud hosts, secrets, policy, topologies, deployment) and RSU administration ([`rsu`]).
//! Behind `cits lattice`, `cits auth`, `cits rsu`, `make run` and the end-to-end tests.

pub mod lattice;
pub mod rsu;

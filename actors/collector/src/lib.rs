//! Collector actor: the Wasm shim around [`cits::pipeline::Collector`] (see `cits::collector` for the logic).

cits_actor::export_stage!(cits::pipeline::Collector);

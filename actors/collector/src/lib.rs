//! Collector actor: the Wasm shim around [`cits::stages::Collector`] (see `cits::stages::collector` for the logic).

cits_actor::export_stage!(cits::stages::Collector);

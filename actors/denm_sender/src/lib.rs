//! Denm sender actor: the Wasm shim around [`cits::pipeline::DenmSender`] (see `cits::denm_sender` for the logic).

cits_actor::export_stage!(cits::pipeline::DenmSender);

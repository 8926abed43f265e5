//! Denm sender actor: the Wasm shim around [`cits::stages::DenmSender`] (see `cits::stages::denm_sender` for the logic).

cits_actor::export_stage!(cits::stages::DenmSender);

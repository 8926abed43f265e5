//! Decoder actor: the Wasm shim around [`cits::stages::Decoder`] (see `cits::stages::decoder` for the logic).

cits_actor::export_stage!(cits::stages::Decoder);

//! Decoder actor: the Wasm shim around [`cits::pipeline::Decoder`] (see `cits::decoder` for the logic).

cits_actor::export_stage!(cits::pipeline::Decoder);

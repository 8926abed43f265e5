//! Assembler actor: the Wasm shim around [`cits::pipeline::Assembler`] (see `cits::assembler` for the logic).

cits_actor::export_stage!(cits::pipeline::Assembler);

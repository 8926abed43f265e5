//! Assembler actor: the Wasm shim around [`cits::stages::Assembler`] (see `cits::stages::assembler` for the logic).

cits_actor::export_stage!(cits::stages::Assembler);

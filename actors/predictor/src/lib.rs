//! Predictor actor: the Wasm shim around [`cits::stages::Predictor`] (see `cits::stages::predictor` for the logic).

cits_actor::export_stage!(cits::stages::Predictor);

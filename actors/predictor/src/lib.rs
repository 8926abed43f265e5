//! Predictor actor: the Wasm shim around [`cits::pipeline::Predictor`] (see `cits::predictor` for the logic).

cits_actor::export_stage!(cits::pipeline::Predictor);

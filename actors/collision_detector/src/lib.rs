//! Collision detector actor: the Wasm shim around [`cits::pipeline::CollisionDetector`] (see `cits::collision` for the logic).

cits_actor::export_stage!(cits::pipeline::CollisionDetector);

//! Collision detector actor: the Wasm shim around [`cits::stages::CollisionDetector`] (see `cits::stages::collision_detector` for the logic).

cits_actor::export_stage!(cits::stages::CollisionDetector);

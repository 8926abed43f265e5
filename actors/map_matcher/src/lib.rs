//! Map matcher actor: the Wasm shim around [`cits::stages::MapMatcher`] (see `cits::stages::map_matcher` for the logic).

cits_actor::export_stage!(cits::stages::MapMatcher);

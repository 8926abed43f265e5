//! Map matcher actor: the Wasm shim around [`cits::pipeline::MapMatcher`] (see `cits::map_matcher` for the logic).

cits_actor::export_stage!(cits::pipeline::MapMatcher);

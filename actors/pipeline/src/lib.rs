//! Pipeline actor: all seven stages ([`cits::pipeline::Fused`]) in one invocation. The stages
//! hand their messages over in memory, so a CPM costs one invocation instead of seven and the
//! broker sees only the CPM in and the DENMs and `FrameDone` out.

cits_actor::export_stage!(cits::pipeline::Fused);

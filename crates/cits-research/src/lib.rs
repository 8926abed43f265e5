//! Research: the traffic simulator and the NCAP films ([`sim`]), trajectory datasets filmed as
//! an RSU would ([`import`]), the whole pipeline run in process and its DENMs scored
//! ([`evaluate`]), and what the largest CPM costs ([`worst_frame`]). Behind `cits simulate`,
//! `cits import`, `cits evaluate` and `cits worst-frame`.

pub mod evaluate;
pub mod import;
pub mod sim;
pub mod worst_frame;

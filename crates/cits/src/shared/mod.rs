//! What the stages share below their domain: geometry and frames ([`geo`]), fits ([`fit`]),
//! comparisons of finite numbers ([`finite`]), clocks and the ETSI time base ([`time`]), lane
//! centerlines in WKB ([`wkb`]) and encoding without a call per byte ([`encode`]).

pub mod encode;
pub mod finite;
pub mod fit;
pub mod geo;
pub mod time;
pub mod wkb;

//! What a simulation is asked for: its seed and length, the scenarios planted, the traffic
//! density and the conditions the sensors and the network add.

use anyhow::Context as _;

use super::{Scenarios, DROPOUT_P};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub seed: u64,
    pub duration_s: u32,
    pub scenarios: Scenarios,
    /// Background arrivals relative to the default rates.
    pub density: f64,
    pub conditions: Conditions,
}

impl Params {
    /// A recording of `duration_s` with the whole scenario library and default traffic.
    pub fn new(seed: u64, duration_s: u32) -> Self {
        Self { seed, duration_s, scenarios: Scenarios::Library, density: 1.0, conditions: Conditions::NOMINAL }
    }
}

/// What the sensors and the network make of the road users: the cameras' nominal figures, or
/// worse (the robustness rows of `cits evaluate --condition`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Conditions {
    /// Measurement noise (position, velocity, yaw) relative to [`POSITION_SIGMA_M`] and friends.
    pub noise: f64,
    /// A visible object is missing from a CPM with this probability.
    pub dropout_p: f64,
    /// Added to every CPM's delivery, µs.
    pub extra_latency_us: f64,
    /// Only the first camera reports.
    pub one_camera: bool,
    /// Share of cars that send CAMs (with their turn signals) the RSU hears.
    pub cam_share: f64,
    /// Share of cyclists and pedestrians whose device sends VAMs the RSU hears.
    pub vam_share: f64,
}

impl Conditions {
    pub const NOMINAL: Conditions = Conditions {
        noise: 1.0,
        dropout_p: DROPOUT_P,
        extra_latency_us: 0.0,
        one_camera: false,
        cam_share: 0.0,
        vam_share: 0.0,
    };
    /// The named conditions `cits evaluate --condition` takes.
    pub const NAMED: [(&'static str, Conditions); 9] = [
        ("nominal", Conditions::NOMINAL),
        ("noise-x2", Conditions { noise: 2.0, ..Conditions::NOMINAL }),
        ("dropouts-10", Conditions { dropout_p: 0.10, ..Conditions::NOMINAL }),
        ("latency-300ms", Conditions { extra_latency_us: 300_000.0, ..Conditions::NOMINAL }),
        ("one-camera", Conditions { one_camera: true, ..Conditions::NOMINAL }),
        ("cams-30", Conditions { cam_share: 0.3, ..Conditions::NOMINAL }),
        ("cams-100", Conditions { cam_share: 1.0, ..Conditions::NOMINAL }),
        ("vams-30", Conditions { vam_share: 0.3, ..Conditions::NOMINAL }),
        ("vams-100", Conditions { vam_share: 1.0, ..Conditions::NOMINAL }),
    ];

    pub fn named(name: &str) -> anyhow::Result<Conditions> {
        Self::NAMED.iter().find(|(n, _)| *n == name).map(|(_, c)| *c).with_context(|| {
            let names: Vec<&str> = Self::NAMED.iter().map(|(n, _)| *n).collect();
            format!("unknown condition `{name}` (one of {})", names.join(", "))
        })
    }
}

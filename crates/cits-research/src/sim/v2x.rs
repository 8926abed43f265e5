//! What connected road users send themselves: a car's CAMs (EN 302 637-2) and a VRU device's
//! VAMs (TS 103 300-2/-3), with their own GNSS noise, on the same air as the cameras' CPMs.

use anyhow::Context as _;
use cits::shared::geo::offset_to_wgs84;

use super::routes::Kind;
use super::{Air, Rng, RoadUser, World, LATENCY_US, START_UNIX_MS};

/// CAMs (of the cars that send them, [`Conditions::cam_share`]): 10 Hz, the low-frequency
/// container with the turn signals every fifth (EN 302 637-2 allows 1–10 Hz and 2 Hz).
pub const CAM_PERIOD_US: i64 = 100_000;
const CAM_LOW_FREQUENCY_EVERY: i64 = 5;
/// A CAM's or VAM's station id: this plus the road user's number (the RSU's camera ids are its own).
pub const CAM_STATION_BASE: u32 = 100_000;
/// GNSS error of a car's CAM position (1σ per axis, m), its speed (m/s) and heading (degrees).
pub const CAM_POSITION_SIGMA_M: f64 = 0.7;
const CAM_SPEED_SIGMA_MPS: f64 = 0.1;
const CAM_HEADING_SIGMA_DEG: f64 = 1.0;
/// Share of turns drivers indicate (a quarter go unsignalled: Ponziani, SAE 2012-01-0261), and
/// how long before the turn begins they set the indicator (s).
pub const SIGNAL_P: f64 = 0.75;
const SIGNAL_LEAD_S: (f64, f64) = (1.5, 4.0);
/// ETSI StationType passengerCar.
const STATION_TYPE_CAR: u8 = 5;

/// VAMs (of the VRUs whose device sends them, [`Conditions::vam_share`]) as TS 103 300-2's VRU
/// basic service triggers them: checked every 100 ms (T_CheckVamGen), sent when 5 s have passed
/// (T_GenVamMax) or the VRU has moved 4 m, turned 4° or changed its speed by 0.5 m/s since its
/// last VAM.
const VAM_CHECK_US: i64 = 100_000;
const VAM_MAX_PERIOD_US: i64 = 5_000_000;
const VAM_MOVED_M: f64 = 4.0;
const VAM_TURNED_DEG: f64 = 4.0;
const VAM_SPEED_CHANGE_MPS: f64 = 0.5;
/// GNSS error of a handheld or bicycle-mounted device (1σ per axis, m: 3.4 m at 95 %), its speed
/// (m/s) and heading (degrees).
pub const VAM_POSITION_SIGMA_M: f64 = 1.4;
const VAM_SPEED_SIGMA_MPS: f64 = 0.2;
const VAM_HEADING_SIGMA_DEG: f64 = 3.0;
/// The path a VAM predicts: the device's own motion (speed and turn rate) carried on, at these
/// times ahead (s). It knows no route, so it tells a turn only once the VRU is in it.
const VAM_PATH_S: [f64; 3] = [1.0, 2.0, 3.0];
/// ETSI StationType pedestrian and cyclist.
pub(super) const STATION_TYPE_PEDESTRIAN: u8 = 1;
pub(super) const STATION_TYPE_CYCLIST: u8 = 2;

/// A car's CAMs while the cameras run, at [`CAM_PERIOD_US`], with GNSS noise; drivers who
/// indicate ([`SIGNAL_P`]) set the indicator [`SIGNAL_LEAD_S`] before the turn begins and
/// cancel it once out of the turn. Whether the driver indicated.
pub(super) fn cams(
    user: &RoadUser,
    world: &World,
    duration_us: i64,
    rng: &mut Rng,
    air: &mut Air,
) -> anyhow::Result<bool> {
    use cits::proto::Turn;
    use etsi_its::cam::{SimpleCam, TurnSignals};
    let route = &world.routes[user.mover.route];
    let signalled = route
        .turn_span
        .filter(|_| matches!(route.turn, Turn::Left | Turn::Right) && rng.chance(SIGNAL_P))
        .map(|(from, to)| {
            (user.mover.time_at(from) - rng.range(SIGNAL_LEAD_S.0, SIGNAL_LEAD_S.1), user.mover.time_at(to))
        });
    let first = (user.entry_us.max(0) + CAM_PERIOD_US - 1) / CAM_PERIOD_US;
    for tick in first..=(user.exit_us.min(duration_us) / CAM_PERIOD_US) {
        let t_us = tick * CAM_PERIOD_US;
        let t_s = t_us as f64 / 1e6;
        let Some(m) = Motion::at(user, world, t_s) else { continue };
        let at = offset_to_wgs84(
            world.site.centre,
            m.p.0 + CAM_POSITION_SIGMA_M * rng.gauss(),
            m.p.1 + CAM_POSITION_SIGMA_M * rng.gauss(),
        );
        let speed = (m.speed + CAM_SPEED_SIGMA_MPS * rng.gauss()).max(0.0);
        let heading = m.heading_deg.map(|h| h + CAM_HEADING_SIGMA_DEG * rng.gauss());
        let yaw_rate = m.yaw_rate_deg_s;
        let indicating = signalled.is_some_and(|(on, off)| (on..=off).contains(&t_s));
        let generated_unix_us = START_UNIX_MS * 1000 + t_us as u64;
        let cam = SimpleCam {
            station_id: CAM_STATION_BASE + user.id,
            station_type: STATION_TYPE_CAR,
            generation_delta_time_ms: (cits::shared::time::unix_us_to_its_ms(generated_unix_us) % 65_536) as u16,
            lat_e7: (at.lat * 1e7).round() as i32,
            lon_e7: (at.lon * 1e7).round() as i32,
            heading_decideg: heading.map(|h| ((h * 10.0).round() as i32).rem_euclid(3600) as u16),
            speed_cm_s: Some((speed * 100.0).round() as u16),
            yaw_rate_centideg_s: yaw_rate.map(|y| (y * 100.0).round().clamp(-32_766.0, 32_766.0) as i16),
            longitudinal_acceleration_dm_s2: None,
            turn_signals: (tick % CAM_LOW_FREQUENCY_EVERY == 0).then_some(TurnSignals {
                left: indicating && route.turn == Turn::Left,
                right: indicating && route.turn == Turn::Right,
            }),
        };
        let bytes = etsi_its::cam::encode(&cam.to_cam()).context("simulated CAM does not encode")?;
        air.send(generated_unix_us + rng.range(LATENCY_US.0, LATENCY_US.1) as u64, bytes);
    }
    Ok(signalled.is_some())
}

/// Where a road user is and how it moves at a time, as its own sensors tell it: position (m
/// from the site's centre), speed (m/s), heading (clockwise from north, none when standing) and
/// yaw rate (degrees/s, counter-clockwise positive as ETSI's).
struct Motion {
    p: (f64, f64),
    speed: f64,
    heading_deg: Option<f64>,
    yaw_rate_deg_s: Option<f64>,
}

impl Motion {
    fn at(user: &RoadUser, world: &World, t_s: f64) -> Option<Motion> {
        let heading_at = |t_s: f64| {
            let (_, v, _) = user.mover.state(&world.routes, t_s)?;
            (v.0.hypot(v.1) > 0.1).then(|| v.0.atan2(v.1).to_degrees())
        };
        let (p, v, _) = user.mover.state(&world.routes, t_s)?;
        let yaw_rate_deg_s = match (heading_at(t_s - 0.05), heading_at(t_s + 0.05)) {
            (Some(a), Some(b)) => Some(-cits::shared::geo::heading_difference_deg(b, a) / 0.1),
            _ => None,
        };
        let speed = v.0.hypot(v.1);
        Some(Motion { p, speed, heading_deg: (speed > 0.1).then(|| v.0.atan2(v.1).to_degrees()), yaw_rate_deg_s })
    }
}

/// A VRU's VAMs while the cameras run, as its device triggers them (see [`VAM_CHECK_US`]), with
/// GNSS noise and the path its motion carried on predicts.
pub(super) fn vams(
    user: &RoadUser,
    world: &World,
    duration_us: i64,
    rng: &mut Rng,
    air: &mut Air,
) -> anyhow::Result<()> {
    use etsi_its::vam::{PathPoint, SimpleVam};
    let e7 = |v: f64| (v * 1e7).round() as i32;
    let first = (user.entry_us.max(0) + VAM_CHECK_US - 1) / VAM_CHECK_US;
    // (time µs, position, speed, heading) of the last VAM sent.
    let mut last: Option<(i64, (f64, f64), f64, Option<f64>)> = None;
    for tick in first..=(user.exit_us.min(duration_us) / VAM_CHECK_US) {
        let t_us = tick * VAM_CHECK_US;
        let t_s = t_us as f64 / 1e6;
        let Some(m) = Motion::at(user, world, t_s) else { continue };
        let due = last.is_none_or(|(t, p, speed, heading)| {
            let turned = match (heading, m.heading_deg) {
                (Some(a), Some(b)) => cits::shared::geo::heading_difference_deg(b, a).abs() > VAM_TURNED_DEG,
                _ => false,
            };
            t_us - t >= VAM_MAX_PERIOD_US
                || (m.p.0 - p.0).hypot(m.p.1 - p.1) > VAM_MOVED_M
                || (m.speed - speed).abs() > VAM_SPEED_CHANGE_MPS
                || turned
        });
        if !due {
            continue;
        }
        last = Some((t_us, m.p, m.speed, m.heading_deg));
        let fix = (m.p.0 + VAM_POSITION_SIGMA_M * rng.gauss(), m.p.1 + VAM_POSITION_SIGMA_M * rng.gauss());
        let at = offset_to_wgs84(world.site.centre, fix.0, fix.1);
        let speed = (m.speed + VAM_SPEED_SIGMA_MPS * rng.gauss()).max(0.0);
        let heading = m.heading_deg.map(|h| h + VAM_HEADING_SIGMA_DEG * rng.gauss());
        // Its motion carried on: at its speed, turning at its yaw rate (clockwise heading).
        let path_prediction = match heading {
            Some(h) if speed > VAM_SPEED_CHANGE_MPS => VAM_PATH_S
                .iter()
                .scan((fix, h, 0.0), |(p, h, t0), &t| {
                    let dt = t - *t0;
                    *h -= m.yaw_rate_deg_s.unwrap_or(0.0) * dt / 2.0;
                    let (s, c) = h.to_radians().sin_cos();
                    *p = (p.0 + speed * dt * s, p.1 + speed * dt * c);
                    *h -= m.yaw_rate_deg_s.unwrap_or(0.0) * dt / 2.0;
                    *t0 = t;
                    let q = offset_to_wgs84(world.site.centre, p.0, p.1);
                    Some(PathPoint { lat_e7: e7(q.lat), lon_e7: e7(q.lon), delta_time_10ms: Some((t * 100.0) as u16) })
                })
                .collect(),
            _ => Vec::new(),
        };
        let generated_unix_us = START_UNIX_MS * 1000 + t_us as u64;
        let vam = SimpleVam {
            station_id: CAM_STATION_BASE + user.id,
            station_type: if user.kind == Kind::Bicycle { STATION_TYPE_CYCLIST } else { STATION_TYPE_PEDESTRIAN },
            generation_delta_time_ms: (cits::shared::time::unix_us_to_its_ms(generated_unix_us) % 65_536) as u16,
            lat_e7: e7(at.lat),
            lon_e7: e7(at.lon),
            heading_decideg: heading.map(|h| ((h * 10.0).round() as i32).rem_euclid(3600) as u16),
            speed_cm_s: Some((speed * 100.0).round() as u16),
            yaw_rate_centideg_s: m.yaw_rate_deg_s.map(|y| (y * 100.0).round().clamp(-32_766.0, 32_766.0) as i16),
            heading_change: None,
            path_prediction,
        };
        let bytes = etsi_its::vam::encode(&vam.to_vam()).context("simulated VAM does not encode")?;
        air.send(generated_unix_us + rng.range(LATENCY_US.0, LATENCY_US.1) as u64, bytes);
    }
    Ok(())
}

//! Turn signals: what a vehicle's own CAM says its indicators show (EN 302 637-2
//! `exteriorLights`). No camera sees them, and they come seconds before any braking or steering:
//! drivers indicate most turns and seldom indicate going straight. So an indicator weighs for its
//! side's turn, and a fresh report of both off weighs against turning.
//!
//! A VRU's VAM may announce a turn as well (its heading change indication, or a predicted path
//! that bends): no field study gives how often such announcements come true, so one weighs as a
//! driver's indicator does. A VAM that announces nothing (or a straight path, which a device
//! extrapolating its motion sends as well) says nothing.

use crate::proto::{IntentCue, Turn, TurnSignal};

/// Share of turns drivers indicate: a field study of 12,000 turning vehicles found a quarter of
/// turns unsignalled (Ponziani, SAE 2012-01-0261).
const P_SIGNAL_WHEN_TURNING: f64 = 0.75;
/// Share of turns indicated to the wrong side.
const P_WRONG_SIDE: f64 = 0.01;
/// Share of drivers going straight with an indicator on (left on after a lane change).
const P_SIGNAL_WHEN_STRAIGHT: f64 = 0.03;
/// A signal state reported longer ago than this says nothing of now (CAMs report it every
/// 500 ms).
pub const SIGNAL_FRESH_US: u64 = 1_500_000;

/// Likelihood ratios turning left : going straight and turning right : going straight from the
/// newest turn-signal state and announced turn the road user reported; 1 each without a fresh
/// report (or with hazard lights, which say nothing of a turn).
pub(crate) fn signal_likelihoods(cue: Option<&IntentCue>, at_us: u64) -> [f64; 2] {
    let Some(cue) = cue.filter(|c| c.reported_at_us.saturating_add(SIGNAL_FRESH_US) >= at_us) else {
        return [1.0, 1.0];
    };
    let own = P_SIGNAL_WHEN_TURNING / P_SIGNAL_WHEN_STRAIGHT;
    let other = P_WRONG_SIDE / P_SIGNAL_WHEN_STRAIGHT;
    let off = (1.0 - P_SIGNAL_WHEN_TURNING - P_WRONG_SIDE) / (1.0 - 2.0 * P_SIGNAL_WHEN_STRAIGHT);
    let [left, right] = match TurnSignal::try_from(cue.turn_signal).unwrap_or(TurnSignal::Unknown) {
        TurnSignal::Left => [own, other],
        TurnSignal::Right => [other, own],
        TurnSignal::Off => [off, off],
        TurnSignal::Both | TurnSignal::Unknown => [1.0, 1.0],
    };
    let [announced_left, announced_right] = match Turn::try_from(cue.announced_turn).unwrap_or(Turn::None) {
        Turn::Left => [own, other],
        Turn::Right => [other, own],
        _ => [1.0, 1.0],
    };
    [left * announced_left, right * announced_right]
}

/// The turn a fresh report announces (its indicator or announced turn to one side), if any: what
/// escalates an information on a path that turns there to a warning.
pub(crate) fn signalled_turn(cue: Option<&IntentCue>, at_us: u64) -> Option<Turn> {
    match signal_likelihoods(cue, at_us) {
        [left, right] if left > 1.0 && left > right => Some(Turn::Left),
        [left, right] if right > 1.0 && right > left => Some(Turn::Right),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cue(signal: TurnSignal, at_ms: u64) -> IntentCue {
        IntentCue { station_id: 1, reported_at_us: at_ms * 1000, turn_signal: signal as i32, ..Default::default() }
    }

    #[test]
    fn a_turn_a_vru_announces_weighs_as_an_indicator_and_a_straight_path_not() {
        let announcing = |turn: Turn| IntentCue { announced_turn: turn as i32, ..cue(TurnSignal::Unknown, 1000) };
        let indicating = signal_likelihoods(Some(&cue(TurnSignal::Left, 1000)), 1_500_000);
        assert_eq!(signal_likelihoods(Some(&announcing(Turn::Left)), 1_500_000), indicating);
        let [left, right] = signal_likelihoods(Some(&announcing(Turn::Right)), 1_500_000);
        assert!(right > 20.0 && left < 0.5, "{left} {right}");
        assert_eq!(signal_likelihoods(Some(&announcing(Turn::Straight)), 1_500_000), [1.0, 1.0]);
        assert_eq!(signal_likelihoods(Some(&announcing(Turn::Right)), 2_600_000), [1.0, 1.0]);
    }

    #[test]
    fn an_indicator_weighs_for_its_side_and_none_against_turning() {
        let [left, right] = signal_likelihoods(Some(&cue(TurnSignal::Right, 1000)), 1_500_000);
        assert!(right > 20.0 && left < 0.5, "{left} {right}");
        let [left, right] = signal_likelihoods(Some(&cue(TurnSignal::Left, 1000)), 1_500_000);
        assert!(left > 20.0 && right < 0.5, "{left} {right}");
        let [left, right] = signal_likelihoods(Some(&cue(TurnSignal::Off, 1000)), 1_500_000);
        assert!(left < 0.3 && right < 0.3, "{left} {right}");
    }

    #[test]
    fn old_unknown_or_hazard_signals_say_nothing() {
        assert_eq!(signal_likelihoods(None, 0), [1.0, 1.0]);
        assert_eq!(signal_likelihoods(Some(&cue(TurnSignal::Right, 1000)), 2_600_000), [1.0, 1.0]);
        assert_eq!(signal_likelihoods(Some(&cue(TurnSignal::Both, 1000)), 1_000_000), [1.0, 1.0]);
        assert_eq!(signal_likelihoods(Some(&cue(TurnSignal::Unknown, 1000)), 1_000_000), [1.0, 1.0]);
    }
}

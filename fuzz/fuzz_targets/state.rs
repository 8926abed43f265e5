//! The stateful stages (assembler, collision detector, DENM sender) reading back arbitrary stored
//! values (trajectories, paths, active warnings, ActionID sequences, applied markers) with an
//! input frame: see `cits_fuzz::StateInput` for the layout.
#![no_main]

use cits::pipeline::Handled;
use cits::stages::{Assembler, CollisionDetector, DenmSender};
use cits_fuzz::{check_handled, deliver, input_subject, platform, StateInput};

libfuzzer_sys::fuzz_target!(init: cits_fuzz::init(), |data: &[u8]| {
    let Some(input) = StateInput::parse(data) else { return };
    let mut svc = platform(input.stored);
    let subject = input_subject(input.stage);
    let (result, check): (_, fn(&str, &str, &[u8], &Handled)) = match input.stage {
        cits::stages::assembler::STAGE => {
            (deliver::<Assembler>(&mut svc, &subject, input.frame), check_handled::<Assembler>)
        }
        cits::stages::collision_detector::STAGE => {
            (deliver::<CollisionDetector>(&mut svc, &subject, input.frame), check_handled::<CollisionDetector>)
        }
        _ => (deliver::<DenmSender>(&mut svc, &subject, input.frame), check_handled::<DenmSender>),
    };
    match result {
        Ok(handled) => check(input.stage, &subject, input.frame, &handled),
        // By design: an ActionID sequence that is no number is not skipped (an ActionID must never
        // be given twice), the delivery fails until an operator repairs it.
        Err(e) if e.unavailable && e.reason.starts_with("stored DENM sequence") => {}
        Err(e) => panic!("{}: stored state made the delivery fail as if a service were down: {e}", input.stage),
    }
});

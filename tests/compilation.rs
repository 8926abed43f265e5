//! How the host comes by the components' machine code: a component it never compiled starts on
//! baseline code (Winch, quick to compile) and switches to Cranelift's optimised code once that
//! is compiled in the background; only the optimised code is kept in the compilation cache, from
//! which the host loads a component it starts again instead of compiling at all.

use std::path::Path;
use std::time::Duration;

use cits_tests::{wait_for, Lattice};

const SEVEN: usize = 7;

fn host_log(lattice: &Lattice) -> String {
    std::fs::read_to_string(lattice.state.join("logs/host-1.log")).unwrap_or_default()
}

fn lines_with(log: &str, text: &str) -> usize {
    log.lines().filter(|l| l.contains(text)).count()
}

fn cached_code(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|entries| entries.flatten().filter(|e| e.path().extension().is_some_and(|x| x == "cwasm")).count())
        .unwrap_or(0)
}

#[test]
fn components_start_on_baseline_code_then_run_optimised_code_kept_for_the_next_start() {
    // Deployed on a fresh state (empty cache); a probe CPM went through all seven stages.
    let lattice = Lattice::start("tiered");
    let log = host_log(&lattice);
    assert_eq!(lines_with(&log, "started on baseline code"), SEVEN, "each stage starts on Winch's code:\n{log}");

    let optimised =
        wait_for(Duration::from_secs(120), || lines_with(&host_log(&lattice), "optimised code in use") == SEVEN);
    assert!(optimised, "Cranelift's code did not replace the baseline code:\n{}", host_log(&lattice));
    let cache = lattice.state.join("compiled");
    // Only the optimised code is kept (an entry per component), written once compiled.
    assert!(wait_for(Duration::from_secs(10), || cached_code(&cache) == SEVEN), "cache holds {}", cached_code(&cache));
    // And the invocations after the switch run it.
    assert!(lattice.probe(Duration::from_secs(30)), "no probe through the optimised code");

    // Deployed again (the host loads every component anew): all seven come from the cache.
    lattice.step(&["undeploy"]).unwrap();
    lattice.step(&["deploy"]).unwrap();
    assert!(wait_for(Duration::from_secs(60), || lattice.probe(Duration::from_secs(5))), "no probe after the redeploy");
    let log = host_log(&lattice);
    assert_eq!(lines_with(&log, "component started"), 2 * SEVEN, "{log}");
    assert_eq!(lines_with(&log, "started on baseline code"), SEVEN, "a component was compiled again:\n{log}");
    assert_eq!(cached_code(&cache), SEVEN);
}

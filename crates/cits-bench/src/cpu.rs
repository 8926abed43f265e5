//! CPU time (user + system) and resident memory of processes and all their descendants.

use std::collections::HashMap;

use sysinfo::{Pid, Process, ProcessRefreshKind, ProcessesToUpdate, System};

/// CPU seconds of `roots` and their descendants, per process id (so a process that exits
/// between two samples is noticed rather than subtracted).
pub fn sample(roots: &[u32]) -> HashMap<u32, f64> {
    each(roots, ProcessRefreshKind::nothing().with_cpu(), |p| p.accumulated_cpu_time() as f64 / 1000.0)
}

/// Resident memory of `roots` and their descendants, MiB.
pub fn resident_mib(roots: &[u32]) -> f64 {
    each(roots, ProcessRefreshKind::nothing().with_memory(), |p| p.memory() as f64 / 1_048_576.0).values().sum()
}

fn each(roots: &[u32], refresh: ProcessRefreshKind, value: impl Fn(&Process) -> f64) -> HashMap<u32, f64> {
    let mut system = System::new();
    system.refresh_processes_specifics(ProcessesToUpdate::All, true, refresh);
    // Processes only: a thread's time and memory are already in its process's.
    let mut children: HashMap<Pid, Vec<Pid>> = HashMap::new();
    for (pid, p) in system.processes() {
        if let (Some(parent), None) = (p.parent(), p.thread_kind()) {
            children.entry(parent).or_default().push(*pid);
        }
    }
    let mut out = HashMap::new();
    let mut queue: Vec<Pid> = roots.iter().map(|p| Pid::from_u32(*p)).collect();
    while let Some(pid) = queue.pop() {
        let Some(p) = system.process(pid) else { continue };
        if out.insert(pid.as_u32(), value(p)).is_none() {
            queue.extend(children.get(&pid).into_iter().flatten());
        }
    }
    out
}

/// CPU seconds spent between two samples.
pub fn between(before: &HashMap<u32, f64>, after: &HashMap<u32, f64>) -> f64 {
    after.iter().map(|(pid, s)| s - before.get(pid).copied().unwrap_or(0.0)).sum()
}

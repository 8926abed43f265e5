//! The lattice's processes: each started in a session (and so a process group) of its own, its
//! PID in `<state>/pids/<name>.pid` and its output in `<state>/logs/<name>.log`, so that another
//! process (`make stop`, a test's drop) stops it by PID, with what it started (a host's providers).
//!
//! Exits are awaited on a pidfd (Linux 5.3+), which works for processes this program did not start
//! and reports an unreaped child (a zombie) as exited.

use std::os::fd::{FromRawFd as _, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{bail, Context as _};
use tokio::io::unix::AsyncFd;

use super::log;

/// Where the processes' PID files and logs are.
#[derive(Debug, Clone)]
pub struct Processes {
    pub pids: PathBuf,
    pub logs: PathBuf,
}

/// A program with its arguments and environment, as a service of the lattice runs it.
pub struct Program {
    pub path: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

impl Program {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into(), args: Vec::new(), env: Vec::new() }
    }

    pub fn args<S: Into<String>>(mut self, args: impl IntoIterator<Item = S>) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    pub fn envs<K: Into<String>, V: Into<String>>(mut self, vars: impl IntoIterator<Item = (K, V)>) -> Self {
        self.env.extend(vars.into_iter().map(|(k, v)| (k.into(), v.into())));
        self
    }
}

impl Processes {
    fn pid_file(&self, name: &str) -> PathBuf {
        self.pids.join(format!("{name}.pid"))
    }

    pub fn log_file(&self, name: &str) -> PathBuf {
        self.logs.join(format!("{name}.log"))
    }

    /// The PID service `name` was started with, if its file is there.
    pub fn pid(&self, name: &str) -> Option<i32> {
        std::fs::read_to_string(self.pid_file(name)).ok()?.trim().parse().ok()
    }

    /// The PID of service `name` if it runs.
    pub fn running(&self, name: &str) -> Option<i32> {
        self.pid(name).filter(|&pid| alive(pid))
    }

    /// Names with a PID file starting with `prefix` (`host-`, `native-`), in name order.
    pub fn named(&self, prefix: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.pids)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.strip_suffix(".pid").map(String::from))
            .filter(|n| n.starts_with(prefix))
            .collect();
        names.sort();
        names
    }

    /// Starts `program` as service `name` unless it runs; its PID either way.
    pub fn start(&self, name: &str, program: Program) -> anyhow::Result<Started> {
        if let Some(pid) = self.running(name) {
            log(format!("{name} already running (pid {pid})"));
            return Ok(Started { pid, new: false });
        }
        std::fs::create_dir_all(&self.pids)?;
        std::fs::create_dir_all(&self.logs)?;
        let log_file = self.log_file(name);
        let out = std::fs::File::create(&log_file).with_context(|| format!("cannot write {}", log_file.display()))?;
        let mut command = tokio::process::Command::new(&program.path);
        command
            .args(&program.args)
            .envs(program.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out)
            // It outlives this program: `down` stops it by PID.
            .kill_on_drop(false);
        // A session of its own: Ctrl-C in `make run` reaches us, not the service, and a kill of
        // the group takes what the service started with it.
        // SAFETY: setsid is async-signal-safe and touches no memory of the parent.
        unsafe {
            command.pre_exec(|| if libc::setsid() < 0 { Err(std::io::Error::last_os_error()) } else { Ok(()) });
        }
        let child = command.spawn().with_context(|| format!("cannot start {name} ({})", program.path.display()))?;
        let pid = child.id().context("started process has no PID")? as i32;
        std::fs::write(self.pid_file(name), format!("{pid}\n"))?;
        log(format!("{name} started (pid {pid})"));
        Ok(Started { pid, new: true })
    }

    /// Stops service `name`: SIGTERM, SIGKILL after `grace`, then whatever is left of its group.
    pub async fn stop(&self, name: &str, grace: Duration) -> anyhow::Result<()> {
        let Some(pid) = self.pid(name) else { return Ok(()) };
        if alive(pid) {
            signal(pid, libc::SIGTERM);
            if !exited(pid, grace).await? {
                log(format!("{name} (pid {pid}) ignored SIGTERM for {grace:?}, killing"));
                signal(pid, libc::SIGKILL);
                exited(pid, Duration::from_secs(5)).await?;
            }
            log(format!("{name} stopped (pid {pid})"));
        }
        signal(-pid, libc::SIGKILL);
        let _ = std::fs::remove_file(self.pid_file(name));
        Ok(())
    }

    /// `kill -9` of service `name` (fault injection), returning once it is gone.
    pub async fn kill(&self, name: &str) -> anyhow::Result<()> {
        if let Some(pid) = self.pid(name) {
            signal(pid, libc::SIGKILL);
            if !exited(pid, Duration::from_secs(10)).await? {
                bail!("{name} (pid {pid}) survived SIGKILL for 10 s");
            }
            let _ = std::fs::remove_file(self.pid_file(name));
        }
        Ok(())
    }

    /// The last lines of service `name`'s log, for an error message.
    pub fn log_tail(&self, name: &str, lines: usize) -> String {
        let text = std::fs::read_to_string(self.log_file(name)).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(lines).collect();
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    }
}

/// A service's PID, and whether this call started it.
#[derive(Debug, Clone, Copy)]
pub struct Started {
    pub pid: i32,
    pub new: bool,
}

/// Services started by one step, stopped again (group and all) if the step does not finish:
/// an error, a panic or Ctrl-C leaves nothing half started behind.
pub struct StartGuard {
    processes: Processes,
    started: Vec<(String, i32)>,
}

impl StartGuard {
    pub fn new(processes: &Processes) -> Self {
        Self { processes: processes.clone(), started: Vec::new() }
    }

    pub fn start(&mut self, name: &str, program: Program) -> anyhow::Result<Started> {
        let started = self.processes.start(name, program)?;
        if started.new {
            self.started.push((name.to_string(), started.pid));
        }
        Ok(started)
    }

    /// The step finished: what it started stays up.
    pub fn keep(mut self) {
        self.started.clear();
    }
}

impl Drop for StartGuard {
    fn drop(&mut self) {
        for (name, pid) in self.started.drain(..).rev() {
            signal(-pid, libc::SIGKILL);
            let _ = std::fs::remove_file(self.processes.pid_file(&name));
            log(format!("{name} killed (pid {pid}): the step did not finish"));
        }
    }
}

/// Whether `pid` runs: it exists and is not a zombie (a killed service stays one until its
/// parent reaps it, and its parent may never do so).
pub fn alive(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
    // The state follows the parenthesised command name, which may itself contain ") ".
    stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z'))
}

fn signal(pid: i32, signal: i32) {
    // SAFETY: kill(2) takes plain integers; a stale PID or group gets ESRCH, which is ignored.
    unsafe {
        libc::kill(pid, signal);
    }
}

/// Waits until `pid` has exited, at most `limit`; whether it did.
pub async fn exited(pid: i32, limit: Duration) -> anyhow::Result<bool> {
    // SAFETY: pidfd_open takes a PID and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        // ESRCH: no such process (reaped already).
        return Ok(true);
    }
    // SAFETY: the descriptor was just opened, is owned by the OwnedFd alone and stays open
    // while registered (the AsyncFd owns it).
    let fd =
        unsafe { AsyncFd::register(OwnedFd::from_raw_fd(fd as i32)) }.map_err(|e| anyhow::anyhow!("pidfd: {e}"))?;
    if !alive(pid) {
        return Ok(true);
    }
    match tokio::time::timeout(limit, fd.readable()).await {
        Ok(ready) => ready.map(|_| true).map_err(Into::into),
        Err(_) => Ok(!alive(pid)),
    }
}

/// Runs `check` until it holds, at most `limit`: early out if process `pid` (service `name`)
/// exits. Between tries it backs off from 10 ms to 250 ms — the process gives no event for
/// "listening now", so its protocol is asked again.
pub async fn ready<F, Fut>(
    processes: &Processes,
    name: &str,
    pid: i32,
    limit: Duration,
    mut check: F,
) -> anyhow::Result<()>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<()>>,
{
    let give_up = tokio::time::Instant::now() + limit;
    let mut pause = Duration::from_millis(10);
    // Resolves only if the process exits (it is never polled again after that).
    let died = async {
        if !exited(pid, limit).await.unwrap_or(false) {
            std::future::pending::<()>().await;
        }
    };
    tokio::pin!(died);
    let exit_error = || {
        anyhow::anyhow!("{name} exited; log {}:\n{}", processes.log_file(name).display(), processes.log_tail(name, 30))
    };
    loop {
        let last = tokio::select! {
            () = &mut died => return Err(exit_error()),
            outcome = check() => match outcome {
                Ok(()) => return Ok(()),
                Err(e) => e,
            },
        };
        if tokio::time::Instant::now() + pause > give_up {
            bail!(
                "{name} not ready within {limit:?} ({last:#}); log {}:\n{}",
                processes.log_file(name).display(),
                processes.log_tail(name, 30)
            );
        }
        tokio::select! {
            () = &mut died => return Err(exit_error()),
            _ = tokio::time::sleep(pause) => {}
        }
        pause = (pause * 2).min(Duration::from_millis(250));
    }
}

/// The path as given if absolute, else from the current directory.
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_free_pid_is_not() {
        assert!(alive(std::process::id() as i32));
        assert!(!alive(i32::MAX));
    }

    #[tokio::test]
    async fn a_service_is_started_in_its_own_group_and_stopped_by_pid() {
        let dir = std::env::temp_dir().join(format!("cits-process-{}", std::process::id()));
        let processes = Processes { pids: dir.join("pids"), logs: dir.join("logs") };
        let started = processes.start("sleeper", Program::new("sleep").args(["30"])).unwrap();
        assert!(started.new);
        assert_eq!(processes.running("sleeper"), Some(started.pid));
        assert!(!processes.start("sleeper", Program::new("sleep").args(["30"])).unwrap().new);
        let group = std::fs::read_to_string(format!("/proc/{}/stat", started.pid)).unwrap();
        let pgrp: i32 = group.rsplit_once(") ").unwrap().1.split(' ').nth(2).unwrap().parse().unwrap();
        assert_eq!(pgrp, started.pid);
        processes.stop("sleeper", Duration::from_secs(5)).await.unwrap();
        assert_eq!(processes.running("sleeper"), None);
        assert_eq!(processes.pid("sleeper"), None);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[tokio::test]
    async fn readiness_fails_early_when_the_process_exits() {
        let dir = std::env::temp_dir().join(format!("cits-process-exit-{}", std::process::id()));
        let processes = Processes { pids: dir.join("pids"), logs: dir.join("logs") };
        let started = processes.start("quitter", Program::new("sh").args(["-c", "echo bye; exit 3"])).unwrap();
        let t0 = std::time::Instant::now();
        let err =
            ready(&processes, "quitter", started.pid, Duration::from_secs(30), || async { anyhow::bail!("never") })
                .await
                .unwrap_err();
        assert!(t0.elapsed() < Duration::from_secs(10));
        assert!(format!("{err}").contains("bye"), "{err}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_unfinished_step_kills_what_it_started() {
        let dir = std::env::temp_dir().join(format!("cits-process-guard-{}", std::process::id()));
        let processes = Processes { pids: dir.join("pids"), logs: dir.join("logs") };
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let pid = rt.block_on(async {
            let mut guard = StartGuard::new(&processes);
            guard.start("sleeper", Program::new("sleep").args(["30"])).unwrap().pid
        });
        assert!(rt.block_on(exited(pid, Duration::from_secs(5))).unwrap());
        assert_eq!(processes.pid("sleeper"), None);
        std::fs::remove_dir_all(dir).unwrap();
    }
}

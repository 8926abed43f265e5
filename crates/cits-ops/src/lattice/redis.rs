//! The lattice's Redis: the pipeline's state, behind ACL users, with AOF fsync'd before every
//! reply — a killed Redis, or an OS crash, loses nothing it acknowledged. Not `everysec`: while
//! its background fsync runs Redis postpones even the write to the file (up to 2 s) but still
//! replies, so a `kill -9` lost acknowledged state commits (seen in `make chaos`: DENM sequence
//! numbers given twice). Costs ~0.1 ms per commit here. Ready when the pipeline's user gets a PONG.

use std::path::Path;
use std::time::Duration;

use anyhow::Context as _;

use super::process::{self, Program, StartGuard};
use super::settings::Settings;

/// The pipeline's Redis user (all keys) and the dashboard's (reads tracks, paths and warnings).
pub const PIPELINE_USER: &str = "cits";
pub const DASHBOARD_USER: &str = "dashboard";

/// The ACL file. The default user is off: every client logs in as the pipeline's user or, only
/// reading the state the dashboard shows, as the dashboard's. It keeps all permissions all the
/// same: Redis 7.0 replays the AOF as the default user and re-checks each EXEC against it, so
/// without them every MULTI … EXEC (the stages' state commits) is dropped when a restarted Redis
/// loads its AOF (redis/redis#14541, fixed only in later Redis).
pub fn acl(pipeline_password: &str, dashboard_password: &str) -> String {
    format!(
        "user default off ~* &* +@all\nuser {PIPELINE_USER} on >{pipeline_password} ~* &* +@all\n\
         user {DASHBOARD_USER} on >{dashboard_password} ~trajectories:* ~paths:* ~warnings:* ~turn-priors:* \
         resetchannels -@all +get +mget +scan +ping\n"
    )
}

/// One Redis of the lattice: the hub's, or a site's that runs its pipeline (same users and
/// passwords, a store of its own).
pub struct Instance {
    /// Its process name (PID file, log) and data folder under the state dir.
    pub name: String,
    pub port: u16,
}

impl Instance {
    /// The hub's (`REDIS_PORT`).
    pub fn hub(settings: &Settings) -> Self {
        Self { name: "redis".into(), port: settings.redis_port }
    }

    /// Site `k`'s, on its leaf node's share of the ports (`REDIS_PORT` plus its server index).
    pub fn site(settings: &Settings, k: usize) -> Self {
        let topology = settings.topology();
        Self { name: format!("redis-{}", topology.sites[k].name), port: settings.server(topology.leaf_server(k)).redis }
    }

    /// The one that keeps the state of `rsu`'s pipeline: its site's when the site runs it.
    pub fn of_rsu(settings: &Settings, rsu: &str) -> Self {
        match settings.topology().pipeline_site(rsu) {
            Some(k) => Self::site(settings, k),
            None => Self::hub(settings),
        }
    }

    /// `redis://user:password@127.0.0.1:port/` as `user` with its password file in the auth dir.
    pub fn url(&self, settings: &Settings, user: &str) -> anyhow::Result<String> {
        let file = match user {
            PIPELINE_USER => "redis.password",
            _ => "redis-dashboard.password",
        };
        let password = read_secret(&settings.auth().join(file))?;
        Ok(format!("redis://{user}:{password}@127.0.0.1:{}/", self.port))
    }

    /// The endpoint the manifests read from a named config: no password in it.
    pub fn url_without_password(&self) -> String {
        format!("redis://{PIPELINE_USER}@127.0.0.1:{}/", self.port)
    }
}

/// The hub's Redis as `user` (see [`Instance::url`]).
pub fn url(settings: &Settings, user: &str) -> anyhow::Result<String> {
    Instance::hub(settings).url(settings, user)
}

pub fn read_secret(path: &Path) -> anyhow::Result<String> {
    Ok(std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?.trim().to_string())
}

pub async fn start(
    settings: &Settings,
    guard: &mut StartGuard,
    processes: &process::Processes,
    redis: &Instance,
) -> anyhow::Result<()> {
    let data = settings.state.join(&redis.name);
    std::fs::create_dir_all(&data)?;
    let program = Program::new(&settings.binaries.redis_server).args([
        "--port".to_string(),
        redis.port.to_string(),
        "--bind".into(),
        "127.0.0.1".into(),
        "--dir".into(),
        data.display().to_string(),
        "--save".into(),
        "".into(),
        "--appendonly".into(),
        "yes".into(),
        "--appendfsync".into(),
        settings.redis_appendfsync.clone(),
        "--protected-mode".into(),
        "yes".into(),
        "--aclfile".into(),
        settings.auth().join("redis.acl").display().to_string(),
    ]);
    let started = guard.start(&redis.name, program.envs(settings.common_env()))?;
    let url = redis.url(settings, PIPELINE_USER)?;
    process::ready(processes, &redis.name, started.pid, Duration::from_secs(20), || ping(&url)).await
}

async fn ping(url: &str) -> anyhow::Result<()> {
    let mut connection = redis::Client::open(url)?.get_multiplexed_async_connection().await?;
    let pong: String = redis::cmd("PING").query_async(&mut connection).await?;
    anyhow::ensure!(pong == "PONG", "PING answered {pong}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acl_turns_the_default_user_off_keeping_its_rights_and_limits_the_dashboard() {
        let acl = acl("p1", "d2");
        let lines: Vec<&str> = acl.lines().collect();
        assert_eq!(lines[0], "user default off ~* &* +@all");
        assert_eq!(lines[1], "user cits on >p1 ~* &* +@all");
        assert!(lines[2].starts_with("user dashboard on >d2 ~trajectories:* "));
        assert!(lines[2].ends_with("-@all +get +mget +scan +ping"));
    }
}

//! Credentials of a lattice, made once per state dir: the NATS authority with a user per lattice
//! part (crates/cits-nats-auth), the Redis users' passwords and ACL, the dashboard operator's
//! password. Files mode 0600 in `<state>/auth`, never in the repository.

use std::io::Write as _;
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::Path;

use rand::distr::{Alphanumeric, SampleString as _};

use super::redis;
use super::settings::Settings;

pub fn init(settings: &Settings) -> anyhow::Result<()> {
    let dir = settings.auth();
    std::fs::create_dir_all(&dir)?;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
    crate::rsu::init(&dir, &settings.lattice)?;
    let pipeline = password(&dir.join("redis.password"))?;
    let dashboard = password(&dir.join("redis-dashboard.password"))?;
    // The operator's login on the dashboard page (changes to the application).
    password(&dir.join("dashboard.password"))?;
    write_private(&dir.join("redis.acl"), &redis::acl(&pipeline, &dashboard))
}

/// The password in `file`, made (32 random letters and digits) if there is none.
fn password(file: &Path) -> anyhow::Result<String> {
    match redis::read_secret(file) {
        Ok(existing) if !existing.is_empty() => Ok(existing),
        _ => {
            let fresh = Alphanumeric.sample_string(&mut rand::rng(), 32);
            write_private(file, &fresh)?;
            Ok(fresh)
        }
    }
}

fn write_private(file: &Path, text: &str) -> anyhow::Result<()> {
    let mut out = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(file)?;
    out.write_all(text.as_bytes())?;
    Ok(())
}

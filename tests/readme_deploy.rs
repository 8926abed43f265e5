//! README "Deploying by hand", line by line as written, on a lattice as `make run` leaves it
//! (both versions of the application stored, the seven actors deployed): each `wash app deploy`
//! deploys the version it names and the pipeline flows after it, with the Redis password coming
//! from the secrets backend — and no link, named config, secret reference or log of the lattice
//! shows it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use cits_tests::{env_path, wait_for, Lattice};

/// The commands of README's "Deploying by hand" block, comments stripped, without the `make`
/// lines (the fixture is what `make run` starts).
fn readme_commands(repo: &Path) -> Vec<String> {
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    let section = readme.split("## Deploying by hand").nth(1).expect("README has \"Deploying by hand\"");
    let block = section.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("a sh block");
    block
        .lines()
        .map(|l| l.split(" #").next().unwrap().trim().to_string())
        .filter(|l| !l.is_empty() && !l.starts_with("make "))
        .collect()
}

/// The version a `wash app deploy` line deploys: a file's annotation, or the version named.
fn deployed_by(repo: &Path, line: &str) -> Option<String> {
    let args: Vec<&str> = line.strip_prefix("wash app deploy ")?.split_whitespace().collect();
    match args.as_slice() {
        [file] => Some(cits_manifest::load(&repo.join(file)).unwrap().version().to_string()),
        [_app, version] => Some(version.to_string()),
        _ => panic!("unexpected deploy line {line}"),
    }
}

/// Runs `line` in bash in `dir` after the `export` lines before it, as a shell would.
fn run(dir: &Path, exports: &[String], line: &str, env: &[(&str, String)]) -> String {
    let script = format!("set -euo pipefail\n{}\n{line}\n", exports.join("\n"));
    let out = Command::new("bash").arg("-c").arg(&script).current_dir(dir).envs(env.iter().cloned()).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "README line `{line}` failed:\n{text}");
    text
}

/// The application's deployed version, once wadm reports it deployed.
fn deployed_version(lattice: &Lattice) -> Option<String> {
    let apps: serde_json::Value = serde_json::from_str(&lattice.wash(&["app", "list", "-o", "json"]).ok()?).ok()?;
    let app = apps.as_array().or(apps["applications"].as_array())?.iter().find(|a| a["name"] == "cits-pipeline")?;
    let status = app["detailed_status"]["info"]["type"].as_str().or(app["status"].as_str())?;
    (status.eq_ignore_ascii_case("deployed")).then(|| app["deployed_version"].as_str().map(String::from))?
}

#[tokio::test(flavor = "multi_thread")]
async fn readme_deploy_commands_work_verbatim_and_no_password_shows() {
    let lattice = Lattice::start_like_make_run("readme");
    let repo = lattice.repo.clone();
    let dir = lattice.scratch();
    // The clone's layout where the commands expect it: the manifests (wash resolves their
    // artefacts from the real folder) and the tools on PATH.
    std::os::unix::fs::symlink(repo.join("wadm"), dir.join("wadm")).unwrap();
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env_path("CITS_TOOL"), bin.join("cits")).unwrap();
    std::os::unix::fs::symlink(env_path("WASH"), bin.join("wash")).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    // Where this lattice listens (`make run`'s are the tools' defaults).
    let env = [
        ("PATH", path),
        ("WASMCLOUD_CTL_HOST", "127.0.0.1".to_string()),
        ("WASMCLOUD_CTL_PORT", lattice.nats_port.to_string()),
        ("CITS_NATS", format!("127.0.0.1:{}", lattice.nats_port)),
        ("WASH_CONTEXT_DIR", lattice.state.join("wash/contexts").display().to_string()),
    ];

    let commands = readme_commands(&repo);
    let deploys: Vec<String> = commands.iter().filter_map(|l| deployed_by(&repo, l)).collect();
    assert!(deploys.len() >= 3, "README deploys both manifests and switches back: {commands:?}");
    assert_ne!(deploys[0], deploys[1], "{commands:?}");
    let mut exports = Vec::new();
    let mut inventory_shown = false;
    for line in &commands {
        if line.starts_with("export ") {
            exports.push(line.clone());
            continue;
        }
        let out = run(&dir, &exports, line, &env);
        if line.starts_with("wash get inventory") {
            inventory_shown = out.contains("cits-keyvalue-redis") && out.contains("cits-messaging-nats");
        }
        if let Some(version) = deployed_by(&repo, line) {
            assert!(
                wait_for(Duration::from_secs(60), || deployed_version(&lattice).as_deref() == Some(version.as_str())),
                "`{line}` did not deploy {version}: {:?}",
                lattice.wash(&["app", "list", "-o", "json"])
            );
            // The stages reach Redis with the password from the secrets backend. A probe CPM
            // sent while the previous deployment's consumers are still being removed may wait
            // for them (seen once in a full `make test-e2e`: none out within 30 s): probe again.
            assert!(
                wait_for(Duration::from_secs(60), || lattice.probe(Duration::from_secs(5))),
                "pipeline not flowing after `{line}`"
            );
        }
    }
    assert!(inventory_shown, "`wash get inventory` did not list the providers");

    // The password is nowhere an operator (or a log reader) can see it.
    let password = std::fs::read_to_string(lattice.auth_dir().join("redis.password")).unwrap();
    let password = password.trim();
    assert!(password.len() >= 16);
    let links = lattice.wash(&["get", "links", "-o", "json"]).unwrap();
    assert!(links.contains("cits-keyvalue-redis"), "{links}");
    assert!(!links.contains(password), "wash get links shows the Redis password");
    let nats = lattice.nats().await;
    let configs = async_nats::jetstream::new(nats).get_key_value("CONFIGDATA_default").await.unwrap();
    let mut names = Vec::new();
    let mut keys = configs.keys().await.unwrap();
    while let Some(key) = futures::StreamExt::next(&mut keys).await {
        names.push(key.unwrap());
    }
    for expected in [cits_manifest::LATTICE_REDIS, cits_manifest::LATTICE_BLOBSTORE, "cits-rsus"] {
        assert!(names.iter().any(|n| n == expected), "{expected} not in {names:?}");
    }
    let secret_refs: Vec<&String> = names.iter().filter(|n| n.starts_with("SECRET_")).collect();
    assert!(!secret_refs.is_empty(), "no secret reference stored: {names:?}");
    // `wash config get` for configs, `wash secrets get` for secret references (wash refuses
    // the one for the other).
    let show = |name: &str| {
        let kind = if name.starts_with("SECRET_") { "secrets" } else { "config" };
        match lattice.wash(&[kind, "get", name]) {
            Ok(shown) => shown,
            // Deleted since it was listed (the switches remove the other version's configs).
            Err(e) if e.to_string().contains("No configuration found") => String::new(),
            Err(e) => panic!("{e:#}"),
        }
    };
    for name in &names {
        assert!(!show(name).contains(password), "wash config/secrets get {name} shows the Redis password");
    }
    let redis = show(cits_manifest::LATTICE_REDIS);
    assert!(redis.contains(&format!("127.0.0.1:{}", lattice.redis_port)), "{redis}");
    let secret = show(secret_refs[0]);
    assert!(secret.contains(cits_manifest::REDIS_PASSWORD_SECRET), "{secret}");
    for log in logs(&lattice.state.join("logs")) {
        let text = String::from_utf8_lossy(&std::fs::read(&log).unwrap()).into_owned();
        assert!(!text.contains(password), "{} shows the Redis password", log.display());
    }
}

fn logs(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect()
}

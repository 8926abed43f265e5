//! `cits-sign`: signs the pipeline's Wasm components and packs its capability providers into
//! signed provider archives, with the claims and key files `wash build` and `wash par create`
//! make, on the `wascap` and `provider-archive` crates the host itself is built with. `make run`
//! needs no `wash` this way (compiling it took 15 of a fresh machine's first 52 minutes).
//!
//! Keys live in one directory (`WASH_KEYS`, as wash keeps them): the account `user_account.nk`
//! issues everything (the hosts and the policy service trust it), each component and provider
//! has its own subject key, `<file stem>_module.nk` / `<file stem>_service.nk`. A key that is
//! missing is made and saved (mode 0600), so a fresh machine signs at once and later builds keep
//! their identities.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};
use clap::{Args, Parser, Subcommand};
use nkeys::{KeyPair, KeyPairType};

/// Tag `wash build` gives every WASI P2 component (the host reads it as "a component").
const EXPERIMENTAL_TAG: &str = "wasmcloud.com/experimental";

#[derive(Parser)]
#[command(about = "Sign components and pack providers for the wasmCloud lattice")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Embeds signed claims in a component: `<wasm>` → `<stem>_s.wasm` beside it.
    Component(ComponentArgs),
    /// Packs a provider binary (and its WIT) into a signed provider archive.
    Provider(ProviderArgs),
}

#[derive(Args)]
struct Identity {
    /// The name in the claims.
    #[arg(long)]
    name: String,
    /// Version (semver) in the claims.
    #[arg(long)]
    version: String,
    /// Revision in the claims.
    #[arg(long, default_value_t = 0)]
    revision: i32,
    /// Directory of the signing keys (made where missing).
    #[arg(long, env = "WASH_KEYS")]
    keys: PathBuf,
}

#[derive(Args)]
struct ComponentArgs {
    /// The unsigned component.
    wasm: PathBuf,
    #[command(flatten)]
    identity: Identity,
    /// Where the signed component goes (default: `<stem>_s.wasm` beside the input).
    #[arg(long)]
    destination: Option<PathBuf>,
}

#[derive(Args)]
struct ProviderArgs {
    /// The provider's native binary (for this machine's architecture).
    binary: PathBuf,
    #[command(flatten)]
    identity: Identity,
    /// The vendor in the claims.
    #[arg(long)]
    vendor: String,
    /// The provider's WIT package directory, carried in the archive.
    #[arg(long)]
    wit_dir: Option<PathBuf>,
    /// The archive to write (uncompressed `.par`).
    #[arg(long)]
    destination: PathBuf,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Component(args) => {
            let out = sign_component(&args)?;
            println!("signed {}", out.display());
        }
        Command::Provider(args) => {
            pack_provider(&args).await?;
            println!("packed {}", args.destination.display());
        }
    }
    Ok(())
}

fn file_stem(path: &Path) -> anyhow::Result<&str> {
    path.file_stem().and_then(|s| s.to_str()).with_context(|| format!("{} has no file name", path.display()))
}

/// The key `<name>.nk` in `dir`, made and saved when missing.
fn key(dir: &Path, name: &str, kind: KeyPairType) -> anyhow::Result<KeyPair> {
    let path = dir.join(format!("{name}.nk"));
    match std::fs::read_to_string(&path) {
        Ok(seed) => KeyPair::from_seed(seed.trim()).with_context(|| format!("{} holds no nkey seed", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let pair = KeyPair::new(kind);
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            write_private(&path, pair.seed()?.as_bytes())?;
            Ok(pair)
        }
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

fn write_private(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(bytes)?;
    Ok(())
}

fn account(identity: &Identity) -> anyhow::Result<KeyPair> {
    key(&identity.keys, "user_account", KeyPairType::Account)
}

fn sign_component(args: &ComponentArgs) -> anyhow::Result<PathBuf> {
    let stem = file_stem(&args.wasm)?;
    let destination = args.destination.clone().unwrap_or_else(|| args.wasm.with_file_name(format!("{stem}_s.wasm")));
    let id = &args.identity;
    let bytes = std::fs::read(&args.wasm).with_context(|| format!("cannot read {}", args.wasm.display()))?;
    if !bytes.starts_with(b"\0asm") {
        bail!("{} is not WebAssembly", args.wasm.display());
    }
    let subject = key(&id.keys, &format!("{stem}_module"), KeyPairType::Module)?;
    let signed = wascap::wasm::sign_buffer_with_claims(
        id.name.clone(),
        &bytes,
        &subject,
        &account(id)?,
        None,
        None,
        vec![EXPERIMENTAL_TAG.to_string()],
        false,
        Some(id.revision),
        Some(id.version.clone()),
        None,
    )
    .map_err(|e| anyhow::anyhow!("cannot sign {}: {e}", args.wasm.display()))?;
    std::fs::write(&destination, signed).with_context(|| format!("cannot write {}", destination.display()))?;
    Ok(destination)
}

async fn pack_provider(args: &ProviderArgs) -> anyhow::Result<()> {
    let id = &args.identity;
    let binary = std::fs::read(&args.binary).with_context(|| format!("cannot read {}", args.binary.display()))?;
    let subject = key(&id.keys, &format!("{}_service", file_stem(&args.binary)?), KeyPairType::Service)?;
    let mut par =
        provider_archive::ProviderArchive::new(&id.name, &args.vendor, Some(id.revision), Some(id.version.clone()));
    if let Some(dir) = &args.wit_dir {
        let mut resolve = wit_parser::Resolve::default();
        let (package, _) =
            resolve.push_dir(dir).with_context(|| format!("cannot read the WIT package in {}", dir.display()))?;
        let encoded = wit_component::encode(&resolve, package).context("cannot encode the WIT package")?;
        par.add_wit_world(&encoded).map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let target = format!("{}-{}", std::env::consts::ARCH, std::env::consts::OS);
    par.add_library(&target, &binary).map_err(|e| anyhow::anyhow!("{e}"))?;
    par.write(&args.destination, &account(id)?, &subject, false)
        .await
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", args.destination.display()))
}

#[cfg(test)]
mod tests;

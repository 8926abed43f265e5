//! `cits auth` and `cits rsu`: the lattice's NATS authority and the RSUs it admits.

use std::path::PathBuf;

use cits::stages::collector::object_frame::ObjectFrame;
use clap::Subcommand;

#[derive(clap::Args)]
pub struct AuthArgs {
    #[command(subcommand)]
    command: AuthCommand,
}

#[derive(Subcommand)]
enum AuthCommand {
    /// Create the authority's keys, the server's resolver config and the lattice parts' users
    /// (host, wadm, operator, policy) in DIR; existing keys are kept.
    Init {
        #[arg(long, env = "CITS_AUTH")]
        dir: PathBuf,
        #[arg(long, env = "WASMCLOUD_LATTICE", default_value = "default")]
        lattice: String,
    },
}

pub fn run_auth(args: AuthArgs) -> anyhow::Result<()> {
    let AuthCommand::Init { dir, lattice } = args.command;
    let authority = cits_ops::rsu::init(&dir, &lattice)?;
    eprintln!("NATS authority in {} (server config: {})", dir.display(), authority.resolver_config_path().display());
    Ok(())
}

#[derive(clap::Args)]
pub struct RsuArgs {
    #[command(subcommand)]
    command: RsuCommand,
}

#[derive(Subcommand)]
enum RsuCommand {
    /// Issue RSU credentials (printed: MQTT user and password) and register its station id(s).
    Add {
        rsu: String,
        /// Station id(s) of the RSU's CPMs (repeatable).
        #[arg(long = "station", required = true)]
        stations: Vec<u32>,
        /// The frame its CPMs give objects in: `enu`, east/north of the CPM's reference position
        /// as TS 103 324 and TR 103 562 say; or `sensor`, each object in the frame of the camera
        /// that measured it, placed by that camera's calibration (`sensor.<station>.<id>`).
        #[arg(long, default_value = "enu")]
        object_frame: ObjectFrame,
        #[command(flatten)]
        on: RsuLattice,
    },
    /// Revoke an RSU's credentials (its connections are dropped) and unregister it.
    Remove {
        rsu: String,
        #[command(flatten)]
        on: RsuLattice,
    },
    /// List registered RSUs: stations, object frame and key.
    List {
        #[command(flatten)]
        on: RsuLattice,
    },
}

/// A running lattice's RSU administration: its authority, NATS (as operator) and server PID.
#[derive(clap::Args)]
struct RsuLattice {
    /// The lattice's auth directory (`<state>/auth`).
    #[arg(long, env = "CITS_AUTH")]
    auth: PathBuf,
    #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
    nats: String,
    #[arg(long, env = "WASMCLOUD_LATTICE", default_value = "default")]
    lattice: String,
    /// nats-server's PID file (`<state>/pids/nats.pid`; a cluster's, comma separated), to
    /// reload the servers after a revocation.
    #[arg(long, env = "CITS_NATS_PID_FILE", value_delimiter = ',')]
    nats_pid_file: Vec<PathBuf>,
}

impl RsuLattice {
    fn lattice(&self) -> cits_ops::rsu::Lattice<'_> {
        cits_ops::rsu::Lattice {
            nats: &self.nats,
            auth: &self.auth,
            lattice: &self.lattice,
            nats_pid_files: &self.nats_pid_file,
        }
    }
}

pub async fn run(args: RsuArgs) -> anyhow::Result<()> {
    match args.command {
        RsuCommand::Add { rsu, stations, object_frame, on } => {
            let token = cits_ops::rsu::add(&on.auth, &rsu, &stations, object_frame, &on.lattice()).await?;
            println!(
                "RSU {rsu} added (stations {stations:?}; objects {}). MQTT: user {rsu}, password: the token in {}",
                object_frame.describe(),
                token.display()
            );
        }
        RsuCommand::Remove { rsu, on } => {
            cits_ops::rsu::remove(&on.auth, &rsu, &on.lattice()).await?;
            println!("RSU {rsu} removed: credentials revoked, server reloaded, unregistered");
        }
        RsuCommand::List { on } => {
            for r in cits_ops::rsu::list(&on.auth, &on.lattice()).await? {
                println!("{}\tstations {}\tobject frame {}\t{}", r.rsu, r.stations, r.frame, r.key);
            }
        }
    }
    Ok(())
}

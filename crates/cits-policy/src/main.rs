//! `cits-policy`: the lattice's policy service. wasmCloud hosts started with
//! `--policy-topic <topic>` ask it on that NATS subject before they start a component or a
//! provider (or first invoke a component) and refuse whatever it does not permit — or whatever it
//! does not answer in time: a host without its policy service starts nothing (fails closed).
//!
//!   cits-policy serve --nats 127.0.0.1:4222 --creds policy.creds --topic wasmcloud.policy.default \
//!       --allow-issuer A…            (repeatable; the project's signing account key)
//!   cits-policy public-key <seed file>  (the public key of a wash key, for --allow-issuer)

use std::path::PathBuf;

use anyhow::Context as _;
use cits_policy::Policy;
use clap::{Parser, Subcommand};
use futures::StreamExt as _;
use tracing::{info, warn};

#[derive(Parser)]
#[command(name = "cits-policy", about = "Signature policy service for the wasmCloud lattice")]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Answer the hosts' policy requests until stopped.
    Serve {
        #[arg(long, env = "CITS_NATS", default_value = "127.0.0.1:4222")]
        nats: String,
        /// NATS credentials file (JWT + seed) of the policy service's own user.
        #[arg(long, env = "CITS_NATS_CREDS")]
        creds: Option<PathBuf>,
        /// The subject hosts send policy requests to (their --policy-topic).
        #[arg(long, default_value = "wasmcloud.policy.default")]
        topic: String,
        /// Public key (`A…`) of an issuer whose signed components and providers may run.
        #[arg(long = "allow-issuer", required = true)]
        allow_issuers: Vec<String>,
    },
    /// Print the public key of an nkey seed file (e.g. wash's `user_account.nk`).
    PublicKey { seed_file: PathBuf },
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        .init();
    match Args::parse().command {
        Command::PublicKey { seed_file } => {
            let seed =
                std::fs::read_to_string(&seed_file).with_context(|| format!("cannot read {}", seed_file.display()))?;
            let key = nkeys::KeyPair::from_seed(seed.trim()).context("not an nkey seed")?;
            println!("{}", key.public_key());
            Ok(())
        }
        Command::Serve { nats, creds, topic, allow_issuers } => serve(&nats, creds, &topic, allow_issuers).await,
    }
}

async fn serve(nats: &str, creds: Option<PathBuf>, topic: &str, allow_issuers: Vec<String>) -> anyhow::Result<()> {
    for issuer in &allow_issuers {
        // A typo here would refuse everything; say so at start instead of at the first deploy.
        anyhow::ensure!(
            issuer.starts_with('A') && nkeys::KeyPair::from_public_key(issuer).is_ok(),
            "--allow-issuer {issuer:?} is not an account public key (A…)"
        );
    }
    let mut options = async_nats::ConnectOptions::new().name("cits-policy").retry_on_initial_connect();
    if let Some(creds) = &creds {
        options = options
            .credentials_file(creds)
            .await
            .with_context(|| format!("cannot read NATS credentials {}", creds.display()))?;
    }
    let client = options.connect(nats).await.with_context(|| format!("cannot connect to NATS at {nats}"))?;
    let mut requests = client.subscribe(topic.to_string()).await?;
    client.flush().await?;
    info!(topic, issuers = ?allow_issuers, "policy service ready");
    let policy = Policy::new(allow_issuers);

    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    loop {
        let request = tokio::select! {
            r = requests.next() => match r { Some(r) => r, None => anyhow::bail!("subscription to {topic} ended") },
            _ = tokio::signal::ctrl_c() => return Ok(()),
            _ = terminate.recv() => return Ok(()),
        };
        let decision = policy.decide(&request.payload);
        if decision.permitted {
            info!(request_id = decision.request_id, "permitted");
        } else {
            warn!(request_id = decision.request_id, reason = decision.message.as_deref().unwrap_or(""), "refused");
        }
        let Some(reply) = request.reply else {
            warn!("policy request without a reply subject ignored");
            continue;
        };
        let answer = serde_json::to_vec(&decision).expect("a decision serialises");
        if let Err(e) = client.publish(reply, answer.into()).await {
            warn!(error = %e, "cannot answer a policy request (the host will time out and refuse)");
        }
    }
}

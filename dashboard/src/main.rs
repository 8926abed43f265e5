//! `cits-dashboard`: the operator's web dashboard (see README.md in this folder).

mod app;
mod hub;
mod intersection;
mod lattice;
mod pipeline;
mod servers;
mod web;

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use clap::Parser;

#[derive(Parser, Debug)]
#[command(about = "The C-ITS platform's web dashboard: lattice, application, scale and link, pipeline, intersection")]
struct Args {
    /// Address the page is served on.
    #[arg(long, default_value = "127.0.0.1:8480", env = "CITS_DASHBOARD_LISTEN")]
    listen: String,
    #[arg(long, default_value = "127.0.0.1:4222")]
    nats: String,
    #[arg(long, default_value = "default")]
    lattice: String,
    /// The wadm application shown and changed.
    #[arg(long, default_value = "cits-pipeline")]
    app: String,
    /// NATS credentials of the dashboard user (read-only: control queries, wadm reads, pipeline
    /// subjects, stream and consumer info).
    #[arg(long)]
    creds: Option<PathBuf>,
    /// NATS credentials used for the operator's changes (wadm model put and deploy), only after
    /// the operator logged in on the page.
    #[arg(long)]
    admin_creds: Option<PathBuf>,
    /// File with the operator's dashboard password.
    #[arg(long)]
    password_file: PathBuf,
    /// Redis with the pipeline's state, as a read-only user: redis://user:password@host:port/
    #[arg(long, env = "CITS_DASHBOARD_REDIS", hide_env_values = true)]
    redis: String,
    /// The map's lane graph (`cits map` writes it to <blobstore>/cits-map/lane-graph.pb).
    #[arg(long)]
    lane_graph: PathBuf,
    /// The page's files.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/web"))]
    web: PathBuf,
    /// node_modules with the page's libraries (`npm ci` in dashboard/).
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/node_modules"))]
    vendor: PathBuf,
    /// A NATS server's monitoring endpoint, `role=host:port` (role `hub`, or `site <name>` for a
    /// site's leaf node); repeatable: the Lattice page shows every server and its leaf links.
    #[arg(long)]
    nats_monitor: Vec<servers::Monitor>,
}

async fn connect(addr: &str, creds: Option<&PathBuf>, name: &str) -> anyhow::Result<async_nats::Client> {
    let mut options = async_nats::ConnectOptions::new().name(name).retry_on_initial_connect();
    if let Some(creds) = creds {
        options = options.credentials_file(creds).await.with_context(|| format!("cannot read {}", creds.display()))?;
    }
    options.connect(addr).await.with_context(|| format!("cannot connect to NATS at {addr}"))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .init();
    let args = Args::parse();
    let password = std::fs::read_to_string(&args.password_file)
        .with_context(|| format!("cannot read the operator password {}", args.password_file.display()))?
        .trim()
        .to_string();
    anyhow::ensure!(password.len() >= 12, "the operator password in {} is too short", args.password_file.display());
    let graph = intersection::load_map(&args.lane_graph)?;
    let (map, projection) = intersection::map_view(&graph);

    let nats = connect(&args.nats, args.creds.as_ref(), "cits-dashboard").await?;
    let admin_nats = connect(&args.nats, args.admin_creds.as_ref(), "cits-dashboard-operator").await?;
    let wadm = wadm_client::Client::from_nats_client(&args.lattice, None, nats.clone());
    let admin = wadm_client::Client::from_nats_client(&args.lattice, None, admin_nats);
    let ctl = wasmcloud_control_interface::ClientBuilder::new(nats.clone())
        .lattice(&args.lattice)
        .timeout(std::time::Duration::from_secs(2))
        .auction_timeout(std::time::Duration::from_millis(1000))
        .build();
    let redis = redis::Client::open(args.redis.as_str()).context("bad Redis URL")?;

    let hub = hub::Hub::new();
    hub.publish("map", &map);
    let (poke_app, poked) = tokio::sync::mpsc::channel(4);
    tokio::spawn(
        lattice::LatticeWatch {
            ctl: ctl.clone(),
            nats: nats.clone(),
            lattice: args.lattice.clone(),
            wadm: wadm_client::Client::from_nats_client(&args.lattice, None, nats.clone()),
            app: args.app.clone(),
            monitors: args.nats_monitor.clone(),
        }
        .run(hub.clone()),
    );
    tokio::spawn(
        app::AppWatch {
            wadm: wadm_client::Client::from_nats_client(&args.lattice, None, nats.clone()),
            nats: nats.clone(),
            lattice: args.lattice.clone(),
            app: args.app.clone(),
        }
        .run(hub.clone(), poked),
    );
    tokio::spawn(pipeline::PipelineWatch { nats: nats.clone(), ctl }.run(hub.clone()));
    tokio::spawn(intersection::IntersectionWatch { redis, nats: nats.clone(), projection }.run(hub.clone()));

    let shared = Arc::new(web::Shared {
        hub,
        nats,
        wadm,
        admin,
        app: args.app.clone(),
        password,
        web_dir: args.web.clone(),
        vendor_dir: args.vendor.clone(),
        sessions: Default::default(),
        plans: Default::default(),
        poke_app,
    });
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let addr = listener.local_addr()?;
    println!("dashboard ready at http://{addr}/");
    axum::serve(listener, web::router(shared))
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}

//! HTTP: the page and its files, the update stream (server-sent events), and the operator's
//! changes. Reads need no login (the dashboard's NATS and Redis users can only read); a change
//! needs the operator's login, which gives the browser a session cookie and nothing else — the
//! NATS credentials that change the model stay in this process.

use std::collections::HashMap;
use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::Stream;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::app::{self, ChangeRequest, Plan};
use crate::hub::{Hub, Update};

const SESSION_COOKIE: &str = "cits_session";
const SESSION_TTL: Duration = Duration::from_secs(8 * 3600);

pub struct Shared {
    pub hub: Hub,
    pub nats: async_nats::Client,
    /// wadm as the dashboard user (reads).
    pub wadm: wadm_client::Client,
    /// wadm as the operator (puts and deploys); only behind a login.
    pub admin: wadm_client::Client,
    pub app: String,
    pub password: String,
    pub web_dir: PathBuf,
    pub vendor_dir: PathBuf,
    pub sessions: Mutex<HashMap<String, Instant>>,
    /// Plans shown to the operator, applied only as shown.
    pub plans: Mutex<HashMap<String, Plan>>,
    /// Tells the app watch to refresh now (after a change).
    pub poke_app: tokio::sync::mpsc::Sender<()>,
}

type AppState = Arc<Shared>;

/// The UI libraries from the npm registry (`npm ci` in dashboard/), served as they are shipped:
/// (path on the page, path under `node_modules`).
const VENDOR: [(&str, &str); 2] = [
    ("/vendor/uPlot.iife.min.js", "uplot/dist/uPlot.iife.min.js"),
    ("/vendor/uPlot.min.css", "uplot/dist/uPlot.min.css"),
];

/// The page and its files (tower-http: content types, ranges, no path leaving the folder), never
/// cached so a rebuilt page shows at once.
fn files<S: Clone + Send + Sync + 'static>(web_dir: &std::path::Path, vendor_dir: &std::path::Path) -> Router<S> {
    let mut files = Router::new()
        .route_service("/", ServeFile::new(web_dir.join("index.html")))
        .nest_service("/assets", ServeDir::new(web_dir));
    for (page, shipped) in VENDOR {
        files = files.route_service(page, ServeFile::new(vendor_dir.join(shipped)));
    }
    files.layer(SetResponseHeaderLayer::overriding(header::CACHE_CONTROL, HeaderValue::from_static("no-cache")))
}

pub fn router(state: AppState) -> Router {
    Router::new()
        .merge(files(&state.web_dir, &state.vendor_dir))
        .route("/api/stream", get(stream))
        .route("/api/snapshot/{topic}", get(snapshot))
        .route("/api/dead-letters/{seq}", get(dead_letter))
        .route("/api/session", get(session))
        .route("/api/login", post(login))
        .route("/api/logout", post(logout))
        .route("/api/plan", post(plan))
        .route("/api/plan/deploy", post(plan_deploy))
        .route("/api/apply", post(apply))
        .with_state(state)
}

fn error(status: StatusCode, message: impl std::fmt::Display) -> Response {
    (status, Json(json!({ "error": message.to_string() }))).into_response()
}

fn to_event(u: &Update) -> Event {
    Event::default().event(u.topic).data(&*u.json)
}

/// Every snapshot, then every update; a page that falls behind gets the snapshots again.
async fn stream(State(s): State<AppState>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let (now, rx) = s.hub.subscribe();
    let hub = s.hub.clone();
    let pending: std::collections::VecDeque<Update> = now.into();
    let events = futures::stream::unfold((pending, rx, hub), |(mut pending, mut rx, hub)| async move {
        loop {
            if let Some(u) = pending.pop_front() {
                return Some((Ok(to_event(&u)), (pending, rx, hub)));
            }
            match rx.recv().await {
                Ok(u) => return Some((Ok(to_event(&u)), (pending, rx, hub))),
                Err(RecvError::Lagged(_)) => pending.extend(hub.snapshots()),
                Err(RecvError::Closed) => return None,
            }
        }
    });
    Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(10)))
}

async fn snapshot(State(s): State<AppState>, Path(topic): Path<String>) -> Response {
    match s.hub.snapshot(&topic) {
        Some(json) => ([(header::CONTENT_TYPE, "application/json")], json.to_string()).into_response(),
        None => error(StatusCode::NOT_FOUND, format!("no {topic} yet")),
    }
}

async fn dead_letter(State(s): State<AppState>, Path(seq): Path<u64>) -> Response {
    match crate::pipeline::dead_letter_detail(&s.nats, seq).await {
        Ok(d) => Json(d).into_response(),
        Err(e) => error(StatusCode::NOT_FOUND, format!("{e:#}")),
    }
}

fn session_token(headers: &HeaderMap) -> Option<String> {
    let cookies = headers.get(header::COOKIE)?.to_str().ok()?;
    cookies
        .split(';')
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == SESSION_COOKIE)
        .map(|(_, v)| v.to_string())
}

fn logged_in(s: &Shared, headers: &HeaderMap) -> bool {
    let Some(token) = session_token(headers) else { return false };
    let mut sessions = s.sessions.lock().expect("sessions");
    sessions.retain(|_, started| started.elapsed() < SESSION_TTL);
    sessions.contains_key(&token)
}

/// A request from the logged-in operator: handlers that change anything take this, and a request
/// without the operator's session is refused before they run.
pub struct Operator;

impl FromRequestParts<AppState> for Operator {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, s: &AppState) -> Result<Self, Self::Rejection> {
        if logged_in(s, &parts.headers) {
            Ok(Operator)
        } else {
            Err(error(StatusCode::UNAUTHORIZED, "log in as the operator to change the application"))
        }
    }
}

async fn session(State(s): State<AppState>, headers: HeaderMap) -> Response {
    Json(json!({ "operator": logged_in(&s, &headers) })).into_response()
}

#[derive(Deserialize)]
struct Login {
    password: String,
}

/// Equal without telling by its timing how much of the password was right, nor how long it is:
/// the SHA-256 digests (always 32 bytes) compared in constant time (`subtle`).
fn same(a: &str, b: &str) -> bool {
    use sha2::{Digest as _, Sha256};
    use subtle::ConstantTimeEq as _;
    Sha256::digest(a.as_bytes()).ct_eq(&Sha256::digest(b.as_bytes())).into()
}

/// 32 bytes from the operating system's CSPRNG (`getrandom`), as hex: session ids, plan ids.
pub fn random_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

async fn login(State(s): State<AppState>, Json(body): Json<Login>) -> Response {
    if !same(body.password.trim(), &s.password) {
        // Guessing costs a second a try.
        tokio::time::sleep(Duration::from_secs(1)).await;
        return error(StatusCode::UNAUTHORIZED, "wrong password");
    }
    let token = match random_token() {
        Ok(t) => t,
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, e),
    };
    s.sessions.lock().expect("sessions").insert(token.clone(), Instant::now());
    let cookie =
        format!("{SESSION_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}", SESSION_TTL.as_secs());
    ([(header::SET_COOKIE, cookie)], Json(json!({ "operator": true }))).into_response()
}

async fn logout(State(s): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(token) = session_token(&headers) {
        s.sessions.lock().expect("sessions").remove(&token);
    }
    let cookie = format!("{SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0");
    ([(header::SET_COOKIE, cookie)], Json(json!({ "operator": false }))).into_response()
}

fn store_plan(s: &Shared, plan: Plan) -> Response {
    let id = match random_token() {
        Ok(t) => t,
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, e),
    };
    let body = json!({
        "plan_id": id,
        "base_version": plan.base_version,
        "version": plan.version,
        "summary": plan.summary,
        "diff": plan.diff,
    });
    let mut plans = s.plans.lock().expect("plans");
    // A page shows one plan at a time; old ones are not applied.
    if plans.len() > 32 {
        plans.clear();
    }
    plans.insert(id, plan);
    Json(body).into_response()
}

/// The change the operator asks for, as a diff against the deployed model; nothing is changed.
async fn plan(State(s): State<AppState>, _: Operator, Json(req): Json<ChangeRequest>) -> Response {
    let base = match app::model(&s.wadm, &s.app, None).await {
        Ok(m) => m,
        Err(e) => return error(StatusCode::BAD_GATEWAY, format!("{e:#}")),
    };
    match app::plan(&base, &req, cits::shared::time::now_ms(), "operator (dashboard)") {
        Ok(p) => store_plan(&s, p),
        Err(e) => error(StatusCode::BAD_REQUEST, format!("{e:#}")),
    }
}

#[derive(Deserialize)]
struct DeployRequest {
    version: String,
}

/// Deploying another stored version (the seven-actor or the fused deployment, or an earlier
/// change): the diff from the deployed one.
async fn plan_deploy(State(s): State<AppState>, _: Operator, Json(req): Json<DeployRequest>) -> Response {
    match app::deploy_plan(&s.wadm, &s.app, &req.version).await {
        Ok(p) => store_plan(&s, p),
        Err(e) => error(StatusCode::BAD_REQUEST, format!("{e:#}")),
    }
}

#[derive(Deserialize)]
struct ApplyRequest {
    plan_id: String,
}

async fn apply(State(s): State<AppState>, _: Operator, Json(req): Json<ApplyRequest>) -> Response {
    let Some(plan) = s.plans.lock().expect("plans").remove(&req.plan_id) else {
        return error(StatusCode::NOT_FOUND, "that plan is gone (applied or replaced); plan the change again");
    };
    let applied_at_ms = cits::shared::time::now_ms();
    // A stored version is deployed as it is; a change is put as a new version first.
    let result = if plan.stored {
        app::deploy_version(&s.admin, &s.app, &plan.version).await.map(|()| plan.version.clone())
    } else {
        app::apply(&s.admin, &plan).await
    };
    let _ = s.poke_app.try_send(());
    match result {
        Ok(version) => {
            tracing::info!("operator deployed {} {version}: {}", s.app, plan.summary);
            Json(json!({ "version": version, "summary": plan.summary, "applied_at_ms": applied_at_ms })).into_response()
        }
        Err(e) => error(StatusCode::BAD_GATEWAY, format!("{e:#}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let mut h = HeaderMap::new();
        h.insert(header::COOKIE, "a=1; cits_session=abc; b=2".parse().unwrap());
        assert_eq!(session_token(&h).as_deref(), Some("abc"));
        assert!(same("secret", "secret"));
        assert!(!same("secret", "secreT"));
        assert!(!same("secret", "secret2"));
        assert!(!same("", "secret"));
    }

    #[tokio::test]
    async fn the_page_its_files_and_the_libraries_are_served_and_nothing_else() {
        use tower::ServiceExt as _;
        let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
        let vendor = std::env::temp_dir().join(format!("cits-dashboard-vendor-{}", std::process::id()));
        std::fs::create_dir_all(vendor.join("uplot/dist")).unwrap();
        std::fs::write(vendor.join("uplot/dist/uPlot.iife.min.js"), "var uPlot;").unwrap();
        let get = |path: &str| {
            let files = files::<()>(&web, &vendor);
            let request = axum::http::Request::get(path).body(axum::body::Body::empty()).unwrap();
            async move { files.oneshot(request).await.unwrap() }
        };
        for (path, kind) in [
            ("/", "text/html"),
            ("/assets/app.js", "text/javascript"),
            ("/assets/style.css", "text/css"),
            ("/vendor/uPlot.iife.min.js", "text/javascript"),
        ] {
            let response = get(path).await;
            assert_eq!(response.status(), StatusCode::OK, "{path}");
            assert!(response.headers()[header::CONTENT_TYPE].to_str().unwrap().starts_with(kind), "{path}");
            assert_eq!(response.headers()[header::CACHE_CONTROL], "no-cache", "{path}");
        }
        for path in ["/assets/../Cargo.toml", "/assets/%2e%2e/Cargo.toml", "/assets/nope.js", "/vendor/other.js"] {
            assert_eq!(get(path).await.status(), StatusCode::NOT_FOUND, "{path}");
        }
        std::fs::remove_dir_all(&vendor).unwrap();
    }

    #[test]
    fn tokens_are_fresh_hex_of_32_bytes() {
        let (a, b) = (random_token().unwrap(), random_token().unwrap());
        assert_eq!(a.len(), 64);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}

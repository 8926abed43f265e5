//! Plain HTTP/1.0 GET of a JSON document on this machine's loopback (a NATS server's monitoring
//! endpoint, the dashboard's API): no client library for two requests.

use std::time::Duration;

use anyhow::Context as _;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

/// GET `path` at `addr` (`host:port`) as JSON; an answer other than 200 is an error; `limit` at
/// most.
pub async fn get_json(addr: &str, path: &str, limit: Duration) -> anyhow::Result<serde_json::Value> {
    let fetch = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await.with_context(|| format!("connect {addr}"))?;
        stream.write_all(format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").as_bytes()).await?;
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await?;
        let at = response.windows(4).position(|w| w == b"\r\n\r\n").context("no HTTP body")?;
        anyhow::ensure!(
            response.starts_with(b"HTTP/1.1 200") || response.starts_with(b"HTTP/1.0 200"),
            "GET {path} at {addr}: not 200"
        );
        Ok(serde_json::from_slice(&response[at + 4..])?)
    };
    tokio::time::timeout(limit, fetch)
        .await
        .with_context(|| format!("GET {path} at {addr}: no answer within {limit:?}"))?
}

//! Servers of the tests' own, without a lattice: a bare nats-server and a redis-server.

use std::process::Command;
use std::time::Duration;

use super::{env_path, free_port, wait_for};

/// Whether something accepts TCP connections on loopback `port` within 5 s.
fn listening(port: u16) -> bool {
    wait_for(Duration::from_secs(5), || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok())
}

/// A bare nats-server of our own on a free port (no JetStream, no auth), killed on drop: for
/// tests of the NATS transport itself.
pub struct NatsServer {
    pub port: u16,
    child: std::process::Child,
}

impl NatsServer {
    pub fn start() -> Self {
        let port = free_port();
        let child = Command::new(env_path("NATS_SERVER"))
            .args(["-a", "127.0.0.1", "-p", &port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("nats-server starts");
        // Owned from here: killed and waited for on drop, also when it never comes up.
        let server = Self { port, child };
        assert!(listening(port), "nats-server on port {port} did not come up");
        server
    }

    pub async fn connect(&self) -> async_nats::Client {
        async_nats::connect(format!("127.0.0.1:{}", self.port)).await.expect("nats-server accepts connections")
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A redis-server of our own on a free port (no persistence), killed on drop.
pub struct RedisServer {
    pub port: u16,
    child: Option<std::process::Child>,
}

impl RedisServer {
    pub fn start() -> Self {
        let mut server = Self { port: free_port(), child: None };
        server.restart();
        server
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// (Re)starts the server on the same port and waits until it accepts connections.
    pub fn restart(&mut self) {
        self.stop();
        let child = Command::new(env_path("REDIS_SERVER"))
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server starts");
        self.child = Some(child);
        assert!(listening(self.port), "redis-server did not listen on {}", self.port);
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

//! A network link the test controls: TCP from local ports to target ports on loopback, which the
//! test cuts (every open connection dropped, new ones refused) and restores — the link fails,
//! not the processes at its ends (a site's leaf node and the hub, tests/edge.rs, tests/chaos.rs).

use std::io::{Read as _, Write as _};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub struct Link {
    /// The local port of each target, in the targets' order.
    pub ports: Vec<u16>,
    state: Arc<State>,
}

#[derive(Default)]
struct State {
    cut: AtomicBool,
    closed: AtomicBool,
    /// Both ends of every open connection (clones), to drop them when the link is cut.
    open: Mutex<Vec<TcpStream>>,
}

impl Link {
    /// A link to each of `targets` (ports on loopback), up.
    pub fn start(targets: &[u16]) -> Self {
        let state = Arc::new(State::default());
        let mut ports = Vec::new();
        for &target in targets {
            let listener = TcpListener::bind(("127.0.0.1", super::free_port())).expect("a link port");
            ports.push(listener.local_addr().unwrap().port());
            listener.set_nonblocking(true).unwrap();
            let state = Arc::clone(&state);
            std::thread::spawn(move || accept(listener, target, state));
        }
        Self { ports, state }
    }

    /// Drops every connection across the link and refuses new ones until [`Link::restore`].
    pub fn cut(&self) {
        self.state.cut.store(true, Ordering::SeqCst);
        for stream in self.state.open.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    pub fn restore(&self) {
        self.state.cut.store(false, Ordering::SeqCst);
    }

    pub fn is_cut(&self) -> bool {
        self.state.cut.load(Ordering::SeqCst)
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.state.closed.store(true, Ordering::SeqCst);
        self.cut();
    }
}

fn accept(listener: TcpListener, target: u16, state: Arc<State>) {
    while !state.closed.load(Ordering::SeqCst) {
        let client = match listener.accept() {
            Ok((client, _)) => client,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
            Err(_) => continue,
        };
        // A cut link: the peer's connection attempt fails at once.
        if state.cut.load(Ordering::SeqCst) {
            let _ = client.shutdown(Shutdown::Both);
            continue;
        }
        let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else {
            let _ = client.shutdown(Shutdown::Both);
            continue;
        };
        let _ = client.set_nonblocking(false);
        let (Ok(c2), Ok(s2)) = (client.try_clone(), server.try_clone()) else { continue };
        state.open.lock().unwrap().extend([c2, s2]);
        let (Ok(c3), Ok(s3)) = (client.try_clone(), server.try_clone()) else { continue };
        std::thread::spawn(move || pipe(client, server));
        std::thread::spawn(move || pipe(s3, c3));
    }
}

/// Copies `from` to `to` until either side ends, then ends both.
fn pipe(mut from: TcpStream, mut to: TcpStream) {
    let mut buf = [0u8; 16 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        }
    }
    let _ = from.shutdown(Shutdown::Both);
    let _ = to.shutdown(Shutdown::Both);
}

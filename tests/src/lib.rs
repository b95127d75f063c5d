//! End-to-end tests of the workspace live in `tests/` of this package: they start the mock store on
//! 127.0.0.1 and drive it through the client crates over real HTTP. This library holds what they
//! share with the fleet worker (`src/bin/fleet_worker.rs`), which the fleet tests run as several
//! operating-system processes: a Redis server of their own.
#![forbid(unsafe_code)]

pub mod fairness;

/// The workspace's README, whose Rust example runs as a doctest of this package against the
/// embedded mock store (`cargo test -p store-admin-tests --doc`): no README block is `ignore`.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct WorkspaceReadme;

/// The mock store of `config`, which limits each token to `per_minute` requests a minute (the
/// service's leaky bucket, answering 429 past it), started on 127.0.0.1.
pub async fn rate_limited_mock(
    config: store_admin_mock::MockConfig,
    per_minute: u32,
) -> store_admin_mock::MockServer {
    let faults = store_admin_mock::FaultConfig {
        rate_limit: Some(store_admin_mock::RateLimitFault {
            per_minute,
            operations: vec![],
        }),
        ..store_admin_mock::FaultConfig::default()
    };
    store_admin_mock::MockServer::start(config.faults(faults))
        .await
        .expect("the mock starts")
}

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `redis-server` of a test's own on a free port of 127.0.0.1, without persistence, stopped
/// when dropped. It needs the `redis-server` program (Debian: `apt-get install -y redis-server`;
/// `.ci/run` installs it).
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
    _dir: tempfile::TempDir,
}

impl RedisServer {
    /// Starts a server and waits until it answers `PING`.
    pub fn start() -> RedisServer {
        let port = {
            let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
            listener.local_addr().expect("its address").port()
        };
        let dir = tempfile::tempdir().expect("a working directory");
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string()])
            .args(["--bind", "127.0.0.1"])
            .args(["--save", ""])
            .args(["--appendonly", "no"])
            .arg("--dir")
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server runs (apt-get install -y redis-server)");
        let server = RedisServer {
            child: Some(child),
            port,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !server.answers() {
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }

    /// `redis://127.0.0.1:<port>/0`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// Whether it answers `PING` now.
    pub fn answers(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
        let mut reply = [0u8; 7];
        stream.write_all(b"PING\r\n").is_ok()
            && stream.read_exact(&mut reply).is_ok()
            && &reply == b"+PONG\r\n"
    }

    /// Stops the server (SIGKILL: no goodbye to its clients).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

//! Several `store-admin --all` processes paging one mock store whose rate limit nobody told them
//! (no `--rate-limit`), for the rate-limit tests (`tests/rate_limit.rs`) and the figure
//! (`benches/rate_limit.rs`).

use std::process::Stdio;
use std::time::{Duration, Instant};

use store_admin_mock::MockConfig;
use store_admin_tests::RedisServer;

use super::store_admin_process;

const TOKEN: &str = "rate-limit-fleet-token";

/// What one run did.
#[derive(Debug)]
pub struct Run {
    /// Processes that paged the store together.
    pub processes: usize,
    /// Requests the store answered (the list's pages).
    pub requests: u64,
    /// The 429 answers among them.
    pub too_many: u64,
    /// From the first process started to the last one finished.
    pub elapsed: Duration,
    /// The least time the store's bucket allows for the requests: it starts full (`per_minute`)
    /// and frees one request every 60 s / `per_minute`.
    pub floor: Duration,
}

impl Run {
    /// The floor time over the time taken: 1.0 is as fast as the store allows.
    pub fn ratio(&self) -> f64 {
        self.floor.as_secs_f64() / self.elapsed.as_secs_f64()
    }
}

/// Starts `processes` × `store-admin products list --all --per-page 1` against a mock of
/// `products` products limited to `per_minute` requests a minute, sharing the rate budget through
/// `redis` if given; checks that every process wrote every product and exited 0.
pub async fn run(
    processes: usize,
    products: usize,
    per_minute: u32,
    redis: Option<&RedisServer>,
) -> Run {
    let server = store_admin_tests::rate_limited_mock(
        MockConfig::new().products(products).token_all_scopes(TOKEN),
        per_minute,
    )
    .await;
    let started = Instant::now();
    let children: Vec<_> = (0..processes)
        .map(|_| {
            let mut command = store_admin_process();
            command
                .env("STORE_ADMIN_TOKEN", TOKEN)
                .args(["--base-url", server.base_url()])
                .args(["products", "list", "--all", "--per-page", "1", "-o", "json"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            if let Some(redis) = redis {
                command.env("STORE_ADMIN_RATE_LIMIT_STORE", redis.url());
            }
            command.spawn().expect("store-admin starts")
        })
        .collect();
    for child in children {
        let output = tokio::task::spawn_blocking(move || child.wait_with_output())
            .await
            .expect("joined")
            .expect("store-admin ran");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "store-admin failed ({}): {stderr}",
            output.status
        );
        let rows: serde_json::Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout} {stderr}"));
        assert_eq!(
            rows.as_array().map(Vec::len),
            Some(products),
            "every product, once: {stderr}"
        );
    }
    let elapsed = started.elapsed();
    let counts = server.request_counts()["list_products"];
    let beyond_burst = counts.total.saturating_sub(u64::from(per_minute));
    Run {
        processes,
        requests: counts.total,
        too_many: counts.too_many_requests,
        elapsed,
        floor: Duration::from_secs(60) * u32::try_from(beyond_burst).unwrap_or(u32::MAX)
            / per_minute,
    }
}

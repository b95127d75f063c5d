//! Many processes, one store: tokens and the rate budget shared through a real Redis (started by
//! each test on a free port of 127.0.0.1, without persistence), against the mock store over real
//! HTTP. Every process is an operating-system process: the fleet worker
//! (`src/bin/fleet_worker.rs`).

use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use chrono::Utc;
use store_admin::credentials::{AccessToken, RedisTokenStores, RefreshToken, TokenSet, TokenStore};
use store_admin_mock::{MockConfig, MockServer};
use store_admin_tests::RedisServer;

const CLIENT_ID: &str = "fleet-app";
const CLIENT_SECRET: &str = "fleet-client-secret-value";
const REFRESH: &str = "fleet-installed-refresh-token";
const STALE_ACCESS: &str = "fleet-stale-access-token";
const SCOPES: [&str; 2] = ["orders.read_write", "offline_access"];
const MERCHANT: &str = "1305";
const TOKEN: &str = "fleet-static-token";

async fn mock(config: MockConfig) -> MockServer {
    MockServer::start(
        config
            .oauth_client(CLIENT_ID, CLIENT_SECRET)
            .oauth_refresh_token(REFRESH, SCOPES),
    )
    .await
    .expect("mock starts")
}

/// A mock whose store allows `per_minute` requests a minute to each token.
async fn rate_limited_mock(per_minute: u32) -> MockServer {
    store_admin_tests::rate_limited_mock(MockConfig::new().token_all_scopes(TOKEN), per_minute)
        .await
}

/// Saves the installed pair, its access token already expired, as the merchant's tokens.
async fn install_expired_tokens(redis: &RedisServer) {
    let stores = RedisTokenStores::connect(&redis.url())
        .await
        .expect("Redis reachable");
    let tokens = TokenSet {
        access: AccessToken::new(STALE_ACCESS),
        refresh: Some(RefreshToken::new(REFRESH)),
        expires_at: Utc::now() - chrono::Duration::seconds(60),
        scope: SCOPES.join(" "),
    };
    stores
        .store(MERCHANT)
        .install(&tokens)
        .await
        .expect("saved");
}

fn worker(mode: &str, server: &MockServer, redis: &RedisServer, env: &[(&str, String)]) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_fleet_worker"));
    command
        .env("FLEET_MODE", mode)
        .env("FLEET_BASE_URL", server.base_url())
        .env("FLEET_TOKEN_URL", server.token_url())
        .env("FLEET_REDIS_URL", redis.url())
        .env("FLEET_MERCHANT", MERCHANT)
        .env("FLEET_CLIENT_ID", CLIENT_ID)
        .env("FLEET_CLIENT_SECRET", CLIENT_SECRET)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, value) in env {
        command.env(name, value);
    }
    command.spawn().expect("the fleet worker starts")
}

/// Waits for a worker (off the runtime's threads) and reads its summary line.
async fn finish(child: Child) -> (serde_json::Value, String) {
    let output: Output = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .expect("joined")
        .expect("the worker ran");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "worker failed: {stdout}\n{stderr}");
    let summary = stdout
        .lines()
        .last()
        .and_then(|line| serde_json::from_str(line).ok())
        .unwrap_or_else(|| panic!("no summary: {stdout}\n{stderr}"));
    (summary, stderr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_processes_on_an_expired_token_cause_exactly_one_refresh() {
    let redis = RedisServer::start();
    let server = mock(MockConfig::new()).await;
    install_expired_tokens(&redis).await;
    let workers: Vec<Child> = (0..8)
        .map(|_| worker("calls", &server, &redis, &[("FLEET_CALLS", "25".into())]))
        .collect();
    for child in workers {
        let (summary, stderr) = finish(child).await;
        assert_eq!(summary["ok"], 25, "{summary} {stderr}");
        assert_eq!(
            summary["errors"],
            serde_json::json!({}),
            "{summary} {stderr}"
        );
    }
    // One refresh reached the token endpoint (so none answered invalid_grant: every call worked).
    assert_eq!(server.token_refreshes(), 1);
    assert_eq!(server.requests_received("list_order_statuses"), 8 * 25);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lock_holder_killed_before_its_token_call_lets_the_next_process_refresh() {
    let redis = RedisServer::start();
    let server = mock(MockConfig::new()).await;
    install_expired_tokens(&redis).await;
    let ttl = ("FLEET_LOCK_TTL_MS", "1500".to_string());
    let mut holder = worker("hold-lock", &server, &redis, std::slice::from_ref(&ttl));
    // Wait until it holds the lock.
    let mut stdout = holder.stdout.take().expect("stdout");
    let locked = tokio::task::spawn_blocking(move || {
        use std::io::Read;
        let mut line = [0u8; 6];
        stdout.read_exact(&mut line).map(|()| line)
    })
    .await
    .expect("joined")
    .expect("the holder speaks");
    assert_eq!(&locked, b"locked");
    holder.kill().expect("SIGKILL");
    let _ = holder.wait();
    let started = std::time::Instant::now();
    let next = worker(
        "calls",
        &server,
        &redis,
        &[ttl, ("FLEET_CALLS", "3".into())],
    );
    let (summary, stderr) = finish(next).await;
    assert_eq!(summary["ok"], 3, "{summary} {stderr}");
    assert!(
        started.elapsed() >= Duration::from_millis(500),
        "the dead holder's lock was respected until it expired"
    );
    assert_eq!(
        server.token_refreshes(),
        1,
        "refreshed once, with the saved pair"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_pair_makes_every_process_say_reinstall_without_a_retry_storm() {
    let redis = RedisServer::start();
    let server = mock(MockConfig::new()).await;
    install_expired_tokens(&redis).await;
    // A holder killed after the token endpoint answered but before it saved: the saved refresh
    // token is spent, and the pair that replaced it is lost.
    let spent = reqwest::Client::new()
        .post(server.token_url())
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!(
            "grant_type=refresh_token&refresh_token={REFRESH}&client_id={CLIENT_ID}&client_secret={CLIENT_SECRET}"
        ))
        .send()
        .await
        .expect("sent");
    assert_eq!(spent.status().as_u16(), 200);
    let workers: Vec<Child> = (0..4)
        .map(|_| worker("calls", &server, &redis, &[("FLEET_CALLS", "5".into())]))
        .collect();
    for child in workers {
        let (summary, stderr) = finish(child).await;
        assert_eq!(summary["ok"], 0, "{summary}");
        assert_eq!(
            summary["errors"],
            serde_json::json!({ "reinstall_required": 5 }),
            "{summary} {stderr}"
        );
    }
    // The direct refresh, then exactly one invalid_grant: the others read the revoked mark.
    assert_eq!(server.token_refreshes(), 2);
    assert_eq!(server.requests_received("list_order_statuses"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_processes_exporting_together_stay_within_the_plan() {
    let redis = RedisServer::start();
    let server = rate_limited_mock(120).await;
    const SECONDS: u64 = 12;
    let env = [
        ("FLEET_TOKEN", TOKEN.to_string()),
        ("FLEET_PER_MINUTE", "120".into()),
        ("FLEET_SECONDS", SECONDS.to_string()),
    ];
    let workers: Vec<Child> = (0..4)
        .map(|_| worker("export", &server, &redis, &env))
        .collect();
    let mut ok = 0;
    for child in workers {
        let (summary, stderr) = finish(child).await;
        assert_eq!(
            summary["errors"],
            serde_json::json!({}),
            "a 429 or worse: {summary} {stderr}"
        );
        ok += summary["ok"].as_u64().expect("a count");
    }
    // The bucket starts full (120) and leaks 2 a second.
    let allowed = 120 + 2 * SECONDS;
    eprintln!("4 processes: {ok} calls in {SECONDS} s, {allowed} allowed, no 429");
    assert!(
        ok as f64 >= 0.9 * allowed as f64,
        "{ok} calls of {allowed} allowed"
    );
    assert!(ok <= allowed + 4, "{ok} calls of {allowed} allowed");
}

/// Nobody tells the fleet the store's rate: the store is at 60 a minute, half the Plus plan each
/// process starts at. The first answers announce it (`X-RateLimit-Limit: 60`) and reveal the
/// backlog of the others' requests; what one process learns, the others read from Redis.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_processes_learn_the_stores_rate_together() {
    let redis = RedisServer::start();
    let server = rate_limited_mock(60).await;
    const SECONDS: u64 = 12;
    let env = [
        ("FLEET_TOKEN", TOKEN.to_string()),
        ("FLEET_SECONDS", SECONDS.to_string()),
    ];
    let workers: Vec<Child> = (0..4)
        .map(|_| worker("export", &server, &redis, &env))
        .collect();
    let mut ok = 0;
    for child in workers {
        let (summary, stderr) = finish(child).await;
        assert_eq!(
            summary["errors"],
            serde_json::json!({}),
            "a 429 or worse: {summary} {stderr}"
        );
        ok += summary["ok"].as_u64().expect("a count");
    }
    let counts = server.request_counts();
    assert_eq!(counts["list_order_statuses"].too_many_requests, 0);
    // The bucket starts full (60) and leaks 1 a second; the fleet keeps 5 % under the rate.
    let allowed = 60 + SECONDS;
    eprintln!("4 processes, rate learned: {ok} calls in {SECONDS} s, {allowed} allowed, no 429");
    assert!(ok <= allowed, "{ok} calls of {allowed} allowed");
    // Not stuck below the store's rate (say, at a share of it, or one request per Retry-After).
    assert!(ok >= 60 + SECONDS / 2, "{ok} calls of {allowed} allowed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_go_on_through_the_local_fallback_when_redis_stops() {
    let mut redis = RedisServer::start();
    let server = mock(MockConfig::new().token_all_scopes(TOKEN)).await;
    let env = [
        ("FLEET_TOKEN", TOKEN.to_string()),
        ("FLEET_PER_MINUTE", "600".into()),
        ("FLEET_SECONDS", "6".into()),
    ];
    let child = worker("export", &server, &redis, &env);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let before = server.requests_received("list_order_statuses");
    redis.stop();
    let (summary, stderr) = finish(child).await;
    let after = server.requests_received("list_order_statuses");
    assert_eq!(
        summary["errors"],
        serde_json::json!({}),
        "{summary} {stderr}"
    );
    assert!(
        after > before,
        "calls went on after Redis stopped ({before} -> {after})"
    );
    let lines = stderr
        .lines()
        .filter(|line| line.contains("Redis cannot be reached"))
        .count();
    assert_eq!(lines, 1, "one log line for the fallback: {stderr}");
}

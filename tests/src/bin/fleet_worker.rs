//! One process of a fleet, for the multi-process tests (`tests/fleet.rs`): it calls the mock
//! store with tokens and a rate budget shared through Redis, then prints one JSON line with what
//! happened. Configured by environment variables (all set by the tests):
//!
//! - `FLEET_MODE`: `calls` (make `FLEET_CALLS` calls with the merchant's OAuth tokens),
//!   `hold-lock` (take the merchant's refresh lock, print `locked`, and wait to be killed), or
//!   `export` (call for `FLEET_SECONDS` seconds with `FLEET_TOKEN` through the shared rate
//!   limiter of `FLEET_PER_MINUTE` requests a minute at most, or without it the rate the fleet
//!   learns from the store, no retries, so a 429 shows);
//! - `FLEET_BASE_URL`, `FLEET_TOKEN_URL`, `FLEET_REDIS_URL`, `FLEET_MERCHANT`,
//!   `FLEET_CLIENT_ID`, `FLEET_CLIENT_SECRET`, `FLEET_LOCK_TTL_MS`;
//! - `FLEET_STOP_REDIS_AFTER`: in `export` mode, the test stops Redis meanwhile; nothing to do.
//!
//! Logs (warnings and up) go to standard error.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use secrecy::SecretString;
use store_admin::credentials::{AuthError, Credentials, RedisTokenStores, TokenStore};
use store_admin::prelude::*;
use store_admin::ratelimit::{Plan, RedisRateLimiters};
use store_admin::retry::RetryPolicy;
use store_admin::{Error, StoreAdmin};

fn var(name: &str) -> String {
    std::env::var(name).unwrap_or_default()
}

fn number(name: &str, default: u64) -> u64 {
    var(name).parse().unwrap_or(default)
}

/// What a failed call was, for the summary.
fn kind(error: &Error) -> String {
    match error {
        Error::Auth(AuthError::ReinstallRequired { .. }) => "reinstall_required".into(),
        Error::Auth(other) => format!("auth: {other}"),
        Error::Api(api) => format!("http_{}", api.status.as_u16()),
        Error::Transport { kind, .. } => format!("transport: {kind}"),
        other => format!("other: {other}"),
    }
}

async fn tokens_store() -> Arc<dyn TokenStore> {
    let stores = RedisTokenStores::connect(&var("FLEET_REDIS_URL"))
        .await
        .expect("Redis reachable")
        .with_lock_ttl(Duration::from_millis(number("FLEET_LOCK_TTL_MS", 30_000)));
    Arc::new(stores.store(&var("FLEET_MERCHANT")))
}

async fn calls() -> serde_json::Value {
    let credentials = Credentials::OAuth {
        client_id: var("FLEET_CLIENT_ID"),
        client_secret: SecretString::from(var("FLEET_CLIENT_SECRET")),
        token_url: var("FLEET_TOKEN_URL").parse().expect("token URL"),
        store: tokens_store().await,
    };
    let admin = StoreAdmin::builder()
        .with_base_url(var("FLEET_BASE_URL"))
        .with_credentials(credentials)
        .with_retry_policy(RetryPolicy::default().with_base_delay(Duration::from_millis(20)))
        .build()
        .expect("client");
    let mut ok = 0;
    let mut errors: BTreeMap<String, u64> = BTreeMap::new();
    for _ in 0..number("FLEET_CALLS", 25) {
        match admin.list_order_statuses().call().await {
            Ok(_) => ok += 1,
            Err(error) => *errors.entry(kind(&error)).or_default() += 1,
        }
    }
    serde_json::json!({ "ok": ok, "errors": errors })
}

async fn hold_lock() -> serde_json::Value {
    let store = tokens_store().await;
    let _lock = store.lock().await.expect("the lock");
    println!("locked");
    tokio::time::sleep(Duration::from_secs(3600)).await;
    serde_json::json!({})
}

async fn export() -> serde_json::Value {
    let redis = var("FLEET_REDIS_URL");
    let limits = match std::env::var("FLEET_PER_MINUTE") {
        Ok(n) => {
            let per_minute = n.parse().expect("FLEET_PER_MINUTE is a positive number");
            RedisRateLimiters::connect_per_minute(&redis, per_minute).await
        }
        Err(_) => RedisRateLimiters::connect_learning(&redis, Plan::Plus).await,
    }
    .expect("Redis reachable")
    .with_fallback_share(0.25);
    let admin = StoreAdmin::builder()
        .with_base_url(var("FLEET_BASE_URL"))
        .with_token(var("FLEET_TOKEN"))
        .with_rate_limiter(limits.limiter(&var("FLEET_MERCHANT")))
        .with_retry_policy(RetryPolicy::no_retries())
        .build()
        .expect("client");
    let until = Instant::now() + Duration::from_secs(number("FLEET_SECONDS", 10));
    let mut ok = 0;
    let mut errors: BTreeMap<String, u64> = BTreeMap::new();
    while Instant::now() < until {
        let call = admin.list_order_statuses().send();
        // A call still waiting for the bucket when the time is up does not count.
        match tokio::time::timeout(until.saturating_duration_since(Instant::now()), call).await {
            Ok(Ok(_)) => ok += 1,
            Ok(Err(error)) => *errors.entry(kind(&Error::from(error))).or_default() += 1,
            Err(_) => break,
        }
    }
    serde_json::json!({ "ok": ok, "errors": errors })
}

#[tokio::main]
async fn main() {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::new("warn"))
        .init();
    let summary = match var("FLEET_MODE").as_str() {
        "calls" => calls().await,
        "hold-lock" => hold_lock().await,
        "export" => export().await,
        other => serde_json::json!({ "error": format!("unknown FLEET_MODE {other:?}") }),
    };
    println!("{summary}");
}

//! `cargo bench -p store-admin-tests --bench fleet`: what sharing the rate budget and the tokens
//! through Redis costs per call, against the same work in the process, in one run. It starts its
//! own `redis-server` on a free port of 127.0.0.1 and the mock store.
//!
//! - limiter: one `acquire` of a bucket that never runs dry, local (`RateLimit`) vs Redis (one
//!   GCRA script call);
//! - token store: one `load`, in memory vs a file vs Redis (a refresh reads the store once);
//! - call: one `list_order_statuses` through `StoreAdmin` against the mock with the local limiter
//!   vs the Redis one. Target: the Redis path adds under 1 ms a call on loopback.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use criterion::{Criterion, criterion_group};
use store_admin::StoreAdmin;
use store_admin::credentials::{
    AccessToken, FileTokenStore, InMemoryTokenStore, RedisTokenStores, RefreshToken, TokenSet,
    TokenStore,
};
use store_admin::prelude::*;
use store_admin::ratelimit::{RateLimit, RateLimiter, RedisRateLimiters};
use store_admin_mock::{MockConfig, MockServer};
use store_admin_tests::RedisServer;

const TOKEN: &str = "fleet-bench-token";

fn tokens() -> TokenSet {
    TokenSet {
        access: AccessToken::new("bench-access"),
        refresh: Some(RefreshToken::new("bench-refresh")),
        expires_at: Utc::now() + chrono::Duration::days(1),
        scope: "orders.read".into(),
    }
}

/// Mean seconds per iteration of `group/name` in this run, from criterion's estimates.
fn mean_seconds(group: &str, name: &str) -> Option<f64> {
    let dir = std::env::var("CARGO_TARGET_DIR")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../target").to_string());
    let path = format!("{dir}/criterion/{group}/{name}/new/estimates.json");
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    value
        .pointer("/mean/point_estimate")?
        .as_f64()
        .map(|ns| ns / 1e9)
}

fn fleet(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let redis = RedisServer::start();
    let url = redis.url();
    let unlimited = NonZeroU32::MAX;

    let local = RateLimit::per_minute(unlimited);
    let shared = rt.block_on(async {
        RedisRateLimiters::connect_per_minute(&url, unlimited)
            .await
            .expect("Redis")
    });
    let redis_limiter = shared.limiter("bench");
    let mut group = c.benchmark_group("limiter");
    group.measurement_time(Duration::from_secs(3));
    group.bench_function("local", |b| {
        b.to_async(&rt).iter(|| RateLimiter::acquire(&local))
    });
    group.bench_function("redis", |b| {
        b.to_async(&rt).iter(|| redis_limiter.acquire())
    });
    group.finish();

    let memory = InMemoryTokenStore::with_tokens(tokens());
    let dir = tempfile::tempdir().expect("a directory");
    let file = FileTokenStore::new(dir.path().join("tokens.json"));
    let in_redis = rt.block_on(async {
        RedisTokenStores::connect(&url)
            .await
            .expect("Redis")
            .store("bench")
    });
    rt.block_on(async {
        file.install(&tokens()).await.expect("saved");
        in_redis.install(&tokens()).await.expect("saved");
    });
    let mut group = c.benchmark_group("token_store");
    group.measurement_time(Duration::from_secs(3));
    group.bench_function("memory", |b| b.to_async(&rt).iter(|| memory.load()));
    group.bench_function("file", |b| b.to_async(&rt).iter(|| file.load()));
    group.bench_function("redis", |b| b.to_async(&rt).iter(|| in_redis.load()));
    group.finish();

    let server = rt
        .block_on(MockServer::start(MockConfig::new().token_all_scopes(TOKEN)))
        .expect("mock");
    let client = |limiter: Arc<dyn RateLimiter>| {
        StoreAdmin::builder()
            .with_base_url(server.base_url())
            .with_token(TOKEN)
            .with_rate_limiter(limiter)
            .build()
            .expect("client")
    };
    let with_local = client(Arc::new(RateLimit::per_minute(unlimited)));
    let with_redis = client(shared.limiter("bench-calls"));
    let mut group = c.benchmark_group("call");
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("local_limiter", |b| {
        b.to_async(&rt)
            .iter(|| async { with_local.list_order_statuses().send().await.expect("sent") })
    });
    group.bench_function("redis_limiter", |b| {
        b.to_async(&rt)
            .iter(|| async { with_redis.list_order_statuses().send().await.expect("sent") })
    });
    group.finish();
}

criterion_group!(benches, fleet);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    println!("\n== Redis against the process (same run) ==");
    let us = |s: f64| s * 1e6;
    for (group, local, remote, what) in [
        ("limiter", "local", "redis", "acquire"),
        ("token_store", "memory", "redis", "token store load"),
        (
            "call",
            "local_limiter",
            "redis_limiter",
            "call through StoreAdmin",
        ),
    ] {
        match (mean_seconds(group, local), mean_seconds(group, remote)) {
            (Some(l), Some(r)) => println!(
                "{what}: local {:.1} us, Redis {:.1} us: Redis adds {:.1} us a call (ratio {:.2}; target: under 1000 us)",
                us(l),
                us(r),
                us(r - l),
                r / l
            ),
            _ => println!("{what}: estimates not found (run without a filter)"),
        }
    }
    if let Some(file) = mean_seconds("token_store", "file") {
        println!("token store load from a file: {:.1} us", us(file));
    }
}

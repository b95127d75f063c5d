//! The Redis token store and rate limiter on their own, against a real `redis-server` started on
//! a free port of 127.0.0.1 (the fleet tests drive them from several processes).

use std::num::NonZeroU32;
use std::time::{Duration, Instant};

use chrono::Utc;
use store_admin::credentials::{
    AccessToken, RedisTokenStores, RefreshToken, Revision, StoredTokens, TokenSet, TokenStore,
};
use store_admin::ratelimit::{RateLimiter, RedisRateLimiters};
use store_admin_tests::RedisServer;

fn tokens(access: &str) -> TokenSet {
    TokenSet {
        access: AccessToken::new(access),
        refresh: Some(RefreshToken::new("refresh")),
        expires_at: Utc::now() + chrono::Duration::minutes(5),
        scope: "orders.read".into(),
    }
}

#[tokio::test]
async fn a_save_over_a_revision_that_moved_on_is_refused() {
    let redis = RedisServer::start();
    let stores = RedisTokenStores::connect(&redis.url())
        .await
        .expect("Redis");
    let store = stores.store("42");
    assert_eq!(store.load().await.expect("loads").revision, Revision(0));
    assert_eq!(
        store.install(&tokens("a")).await.expect("saved"),
        Revision(1)
    );
    // A slow holder read revision 1; meanwhile another process saved revision 2.
    let newer = StoredTokens::Active(tokens("b"));
    assert_eq!(
        store.save(&newer, Some(Revision(1))).await.expect("saved"),
        Some(Revision(2))
    );
    let late = StoredTokens::Active(tokens("late"));
    assert_eq!(
        store.save(&late, Some(Revision(1))).await.expect("ran"),
        None
    );
    let kept = store.load().await.expect("loads");
    assert_eq!(kept.revision, Revision(2));
    assert_eq!(kept.tokens().expect("tokens").access.expose_secret(), "b");
    // Another merchant's key is another store.
    assert!(
        stores
            .store("43")
            .load_tokens()
            .await
            .expect("loads")
            .is_none()
    );
    store.remove().await.expect("removed");
    let removed = store.load().await.expect("loads");
    assert_eq!(
        (removed.revision, removed.value.is_none()),
        (Revision(3), true)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_lock_is_renewed_past_its_ttl_and_released_when_dropped() {
    let redis = RedisServer::start();
    let ttl = Duration::from_millis(300);
    let stores = RedisTokenStores::connect(&redis.url())
        .await
        .expect("Redis")
        .with_lock_ttl(ttl);
    let holder = stores.store("7").lock().await.expect("locked");
    tokio::time::sleep(ttl * 3).await;
    // Still held (renewed): another taker gives up after twice the TTL.
    let refused = stores.store("7").lock().await;
    assert!(refused.is_err(), "the lock was still held");
    drop(holder);
    let started = Instant::now();
    let _next = tokio::time::timeout(Duration::from_secs(2), stores.store("7").lock())
        .await
        .expect("handed over")
        .expect("locked");
    assert!(started.elapsed() < ttl, "released on drop, not by expiry");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shared_bucket_lets_a_burst_through_then_leaks_at_the_plan_rate() {
    let redis = RedisServer::start();
    let per_minute = NonZeroU32::new(60).expect("60");
    // Two processes' worth of limiters on one bucket.
    let first = RedisRateLimiters::connect_per_minute(&redis.url(), per_minute)
        .await
        .expect("Redis")
        .limiter("9");
    let second = RedisRateLimiters::connect_per_minute(&redis.url(), per_minute)
        .await
        .expect("Redis")
        .limiter("9");
    let started = Instant::now();
    for i in 0..60 {
        if i % 2 == 0 {
            first.acquire().await;
        } else {
            second.acquire().await;
        }
    }
    assert!(started.elapsed() < Duration::from_millis(900), "the burst");
    second.acquire().await;
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(3),
        "the 61st waited one leak interval: {waited:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pause_one_process_reads_holds_every_process_back() {
    let redis = RedisServer::start();
    let per_minute = NonZeroU32::new(600).expect("600");
    let first = RedisRateLimiters::connect_per_minute(&redis.url(), per_minute)
        .await
        .expect("Redis")
        .limiter("11");
    let second = RedisRateLimiters::connect_per_minute(&redis.url(), per_minute)
        .await
        .expect("Redis")
        .limiter("11");
    let mut headers = http::HeaderMap::new();
    headers.insert("x-ratelimit-remaining", "0".parse().expect("value"));
    headers.insert("retry-after", "1".parse().expect("value"));
    first.observe(&headers);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    second.acquire().await;
    assert!(
        started.elapsed() >= Duration::from_millis(700),
        "waited for the server's Retry-After: {:?}",
        started.elapsed()
    );
}

//! A rate limit is never fatal, and nobody has to know the store's: `store-admin` learns it from
//! the store's answers (`X-RateLimit-Limit`, `-Remaining`, `-Reset`), alone and as a fleet of
//! processes sharing a Redis (`--rate-limit-store`), with no `--rate-limit` flag. The mock store
//! is at 60 requests a minute, half the Plus plan's rate the client starts at, so a client that
//! kept to its starting rate, or to its own share of the store, would meet 429s.
//!
//! The figures (larger runs, the time against the store's floor) are in `benches/rate_limit.rs`.

use store_admin_tests::RedisServer;

use crate::common::fleet;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_process_learns_the_stores_rate_and_meets_no_429() {
    // 80 pages: the bucket's 60, then 20 at the store's pace.
    let run = fleet::run(1, 80, 60, None).await;
    eprintln!("{run:?} ratio {:.2}", run.ratio());
    assert_eq!(run.requests, 80, "one request a page, none repeated");
    assert_eq!(run.too_many, 0, "no 429: {run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_processes_share_the_learned_rate_through_redis_and_meet_no_429() {
    let redis = RedisServer::start();
    // 4 × 20 pages: the bucket's 60, then 20 at the store's pace.
    let run = fleet::run(4, 20, 60, Some(&redis)).await;
    eprintln!("{run:?} ratio {:.2}", run.ratio());
    assert_eq!(run.requests, 80, "one request a page, none repeated");
    assert_eq!(run.too_many, 0, "no 429: {run:?}");
}

//! `cargo bench -p store-admin-cli --bench rate_limit`: the rate-limit figures of issue 25. The
//! mock store allows 60 requests a minute; `store-admin products list --all --per-page 1` runs
//! with no `--rate-limit` flag, once alone and as 4 processes sharing a Redis
//! (`--rate-limit-store`, a `redis-server` of its own on 127.0.0.1). Printed per run: the pages
//! requested, the 429s (target 0), the time taken, the store's floor time for those pages (its
//! bucket starts full and frees one request a second) and their ratio (target at least 0.90).
//! It takes about four minutes. The figures are bound by the store's rate, not by the processor:
//! `--profile dev` reuses the test build instead of building the workspace optimized.

#[path = "../tests/common/mod.rs"]
mod common;

use common::fleet;
use store_admin_tests::RedisServer;

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let redis = RedisServer::start();
    println!("processes  pages  429s  seconds  floor  floor/time");
    for (processes, products, shared) in [(1, 150, false), (4, 40, true)] {
        let run = rt.block_on(fleet::run(
            processes,
            products,
            60,
            shared.then_some(&redis),
        ));
        println!(
            "{:>9}  {:>5}  {:>4}  {:>7.1}  {:>5.1}  {:>10.3}",
            run.processes,
            run.requests,
            run.too_many,
            run.elapsed.as_secs_f64(),
            run.floor.as_secs_f64(),
            run.ratio()
        );
    }
}

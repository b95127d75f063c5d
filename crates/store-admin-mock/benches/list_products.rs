//! Requests per second for `GET /products/quantities?per_page=60&page=2` (a list page of 60 products)
//! over loopback, one request at a time and 32 at a time. Criterion reports the throughput in
//! elements (requests) per second.
//!
//! - `sequential`, `concurrent_32`: the same page again and again, as a client polling or paging
//!   the same data does; after the first request the mock answers from its response cache.
//! - `uncached_sequential`, `uncached_concurrent_32`: every request carries a query parameter never
//!   seen before, so every one is filtered, paged and rendered (the cache's worst case).
//!
//! With `COMPARE_URL` set to another server's base URL (Prism mocking the same document:
//! `benches/vs-prism.sh` does it all), the same request is measured against it too, in the same run,
//! and the ratios mock/other are printed for each concurrency level.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use criterion::{Criterion, Throughput};
use store_admin_mock::{MockConfig, MockServer};

const TOKEN: &str = "bench-token";
const GROUP: &str = "list_products_page_of_60";
const PAGE: &str = "/products/quantities?per_page=60&page=2";
const CONCURRENCY: usize = 32;

fn list_products(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let server = runtime
        .block_on(MockServer::start(
            MockConfig::new()
                .seed(1)
                .products(1000)
                .token_all_scopes(TOKEN),
        ))
        .expect("mock starts");
    let url = format!("{}{PAGE}", server.base_url());
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(64)
        .build()
        .expect("client");
    let fetch = |client: reqwest::Client, url: String| async move {
        let response = client
            .get(&url)
            .bearer_auth(TOKEN)
            .send()
            .await
            .expect("sent");
        assert!(
            response.status().is_success(),
            "{url}: {}",
            response.status()
        );
        response.bytes().await.expect("body").len()
    };
    let unique = AtomicU64::new(0);
    let fresh_url = || format!("{url}&nocache={}", unique.fetch_add(1, Ordering::Relaxed));

    let mut group = c.benchmark_group(GROUP);
    let mut targets = vec![("", url.clone())];
    if let Ok(other) = std::env::var("COMPARE_URL") {
        targets.push((
            "compare_url_",
            format!("{}{PAGE}", other.trim_end_matches('/')),
        ));
    }
    for (prefix, target) in &targets {
        group.throughput(Throughput::Elements(1));
        group.bench_function(format!("{prefix}sequential"), |b| {
            b.to_async(&runtime)
                .iter(|| fetch(client.clone(), target.clone()));
        });
        group.throughput(Throughput::Elements(CONCURRENCY as u64));
        group.bench_function(format!("{prefix}concurrent_{CONCURRENCY}"), |b| {
            b.to_async(&runtime).iter(|| {
                let requests: Vec<_> = (0..CONCURRENCY)
                    .map(|_| fetch(client.clone(), target.clone()))
                    .collect();
                futures::future::join_all(requests)
            });
        });
    }
    group.throughput(Throughput::Elements(1));
    group.bench_function("uncached_sequential", |b| {
        b.to_async(&runtime)
            .iter(|| fetch(client.clone(), fresh_url()));
    });
    group.throughput(Throughput::Elements(CONCURRENCY as u64));
    group.bench_function(format!("uncached_concurrent_{CONCURRENCY}"), |b| {
        b.to_async(&runtime).iter(|| {
            let requests: Vec<_> = (0..CONCURRENCY)
                .map(|_| fetch(client.clone(), fresh_url()))
                .collect();
            futures::future::join_all(requests)
        });
    });
    group.finish();

    // The floor: a small unpaged list, to tell the HTTP round trip from the page's own cost.
    let small = format!("{}/orders/statuses", server.base_url());
    let mut group = c.benchmark_group("baseline");
    group.throughput(Throughput::Elements(1));
    group.bench_function("order_statuses_sequential", |b| {
        b.to_async(&runtime)
            .iter(|| fetch(client.clone(), small.clone()));
    });
    let orders = format!("{}/orders?per_page=60", server.base_url());
    group.bench_function("orders_page_of_60_uncached_sequential", |b| {
        b.to_async(&runtime).iter(|| {
            let url = format!(
                "{orders}&nocache={}",
                unique.fetch_add(1, Ordering::Relaxed)
            );
            fetch(client.clone(), url)
        });
    });
    group.finish();
    drop(server);
}

/// Where criterion writes its results (the same search as criterion's own).
fn criterion_dir() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return Some(PathBuf::from(home));
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return Some(PathBuf::from(target).join("criterion"));
    }
    let cargo = std::env::var_os("CARGO")?;
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
        .ok()?;
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).ok()?;
    Some(PathBuf::from(metadata["target_directory"].as_str()?).join("criterion"))
}

/// Requests per second of one benchmark of this run, from the estimate criterion prints (the
/// slope of its linear sampling, else the mean).
fn requests_per_second(dir: &std::path::Path, bench: &str, requests: f64) -> Option<f64> {
    let path = dir.join(GROUP).join(bench).join("new/estimates.json");
    let estimates: serde_json::Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    let nanos = estimates["slope"]["point_estimate"]
        .as_f64()
        .or_else(|| estimates["mean"]["point_estimate"].as_f64())?;
    Some(requests / (nanos * 1e-9))
}

/// Prints `mock / other` for each concurrency level measured in this run.
fn print_ratios() {
    if std::env::var_os("COMPARE_URL").is_none() {
        return;
    }
    let Some(dir) = criterion_dir() else {
        println!("ratio: criterion's output directory was not found");
        return;
    };
    let concurrent = format!("concurrent_{CONCURRENCY}");
    for (level, requests) in [
        ("sequential", 1.0),
        (concurrent.as_str(), CONCURRENCY as f64),
    ] {
        let other = requests_per_second(&dir, &format!("compare_url_{level}"), requests);
        for (label, mine) in [
            ("cached", requests_per_second(&dir, level, requests)),
            (
                "uncached",
                requests_per_second(&dir, &format!("uncached_{level}"), requests),
            ),
        ] {
            if let (Some(mine), Some(other)) = (mine, other) {
                println!(
                    "ratio {level} ({label}): mock {mine:.0} req/s, COMPARE_URL {other:.0} req/s, mock/COMPARE_URL = {:.1}x",
                    mine / other
                );
            }
        }
    }
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    list_products(&mut criterion);
    criterion.final_summary();
    print_ratios();
}

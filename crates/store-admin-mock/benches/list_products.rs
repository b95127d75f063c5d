//! Requests per second for `GET /products/quantities?per_page=60` over loopback, one request at a
//! time and 32 at a time. Criterion reports the throughput in elements (requests) per second.
//!
//! With `COMPARE_URL` set to another server's base URL (for example Prism mocking the same document:
//! `prism mock openapi/store-admin.yaml` then `COMPARE_URL=http://127.0.0.1:4010`), the same request
//! is measured against it too, in the same run.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use store_admin_mock::{MockConfig, MockServer};

const TOKEN: &str = "bench-token";

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
    let url = format!(
        "{}/products/quantities?per_page=60&page=2",
        server.base_url()
    );
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
        assert!(response.status().is_success());
        response.bytes().await.expect("body").len()
    };

    let mut group = c.benchmark_group("list_products_page_of_60");
    group.throughput(Throughput::Elements(1));
    group.bench_function("sequential", |b| {
        b.to_async(&runtime)
            .iter(|| fetch(client.clone(), url.clone()));
    });
    group.throughput(Throughput::Elements(32));
    group.bench_function("concurrent_32", |b| {
        b.to_async(&runtime).iter(|| {
            let requests: Vec<_> = (0..32)
                .map(|_| fetch(client.clone(), url.clone()))
                .collect();
            futures::future::join_all(requests)
        });
    });
    if let Ok(other) = std::env::var("COMPARE_URL") {
        let other = format!(
            "{}/products/quantities?per_page=60&page=2",
            other.trim_end_matches('/')
        );
        group.throughput(Throughput::Elements(1));
        group.bench_function("compare_url_sequential", |b| {
            b.to_async(&runtime)
                .iter(|| fetch(client.clone(), other.clone()));
        });
        group.throughput(Throughput::Elements(32));
        group.bench_function("compare_url_concurrent_32", |b| {
            b.to_async(&runtime).iter(|| {
                let requests: Vec<_> = (0..32)
                    .map(|_| fetch(client.clone(), other.clone()))
                    .collect();
                futures::future::join_all(requests)
            });
        });
    }
    group.finish();

    // The floor: a small unpaged list, to tell the HTTP round trip from the page's own cost.
    let small = format!("{}/orders/statuses", server.base_url());
    let mut group = c.benchmark_group("baseline");
    group.throughput(Throughput::Elements(1));
    group.bench_function("order_statuses_sequential", |b| {
        b.to_async(&runtime)
            .iter(|| fetch(client.clone(), small.clone()));
    });
    group.finish();
    drop(server);
}

criterion_group!(benches, list_products);
criterion_main!(benches);

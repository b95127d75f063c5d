//! `cargo bench -p store-admin-tests --bench token_stores`: token store operations per second,
//! plain and sealed (`TokenKeys`, XChaCha20-Poly1305), on the file store and the Redis store, in
//! one run. It starts its own `redis-server` on a free port of 127.0.0.1.
//!
//! - load: one `load` (what every call's token lookup does when the store is shared);
//! - save: one `load` then a compare-and-set `save` (what a refresh writes), the file store
//!   syncing its file each time.
//!
//! The closing lines print operations per second and the sealed/plain ratio of each.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use criterion::{Criterion, criterion_group};
use store_admin::credentials::{
    AccessToken, FileTokenStores, RedisTokenStores, RefreshToken, StoredTokens, TokenKeys,
    TokenSet, TokenStore,
};
use store_admin_tests::RedisServer;

const KEYS: &str = "bench:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

fn tokens() -> TokenSet {
    TokenSet {
        access: AccessToken::new("bench-access-token-0123456789abcdef0123456789abcdef"),
        refresh: Some(RefreshToken::new(
            "bench-refresh-token-0123456789abcdef0123456789abcdef",
        )),
        expires_at: Utc::now() + chrono::Duration::days(1),
        scope: "orders.read_write products.read offline_access".into(),
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

async fn save(store: &dyn TokenStore, value: &StoredTokens) {
    let revision = store.load().await.expect("loads").revision;
    store
        .save(value, Some(revision))
        .await
        .expect("saves")
        .expect("no other writer");
}

fn token_stores(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let redis = RedisServer::start();
    let keys = Arc::new(TokenKeys::parse(KEYS).expect("keys"));
    let dir = tempfile::tempdir().expect("a directory");
    let files = FileTokenStores::new(dir.path());
    let sealed_files = FileTokenStores::new(dir.path()).with_keys(keys.clone());
    let (in_redis, sealed_redis) = rt.block_on(async {
        let stores = RedisTokenStores::connect(&redis.url())
            .await
            .expect("Redis");
        (stores.clone(), stores.with_keys(keys.clone()))
    });
    let stores: Vec<(&str, Box<dyn TokenStore>)> = vec![
        ("file_plain", Box::new(files.store("plain"))),
        ("file_sealed", Box::new(sealed_files.store("sealed"))),
        ("redis_plain", Box::new(in_redis.store("plain"))),
        ("redis_sealed", Box::new(sealed_redis.store("sealed"))),
    ];
    rt.block_on(async {
        for (_, store) in &stores {
            store.install(&tokens()).await.expect("saved");
        }
    });
    let value = StoredTokens::Active(tokens());
    let mut group = c.benchmark_group("token_store_load");
    group.measurement_time(Duration::from_secs(3));
    for (name, store) in &stores {
        group.bench_function(*name, |b| b.to_async(&rt).iter(|| store.load()));
    }
    group.finish();
    let mut group = c.benchmark_group("token_store_save");
    group.measurement_time(Duration::from_secs(3));
    for (name, store) in &stores {
        group.bench_function(*name, |b| {
            b.to_async(&rt).iter(|| save(store.as_ref(), &value))
        });
    }
    group.finish();
}

criterion_group!(benches, token_stores);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    println!("\n== Token stores, plain and sealed (same run) ==");
    for group in ["token_store_load", "token_store_save"] {
        for backend in ["file", "redis"] {
            let plain = mean_seconds(group, &format!("{backend}_plain"));
            let sealed = mean_seconds(group, &format!("{backend}_sealed"));
            match (plain, sealed) {
                (Some(plain), Some(sealed)) => println!(
                    "{group} {backend}: plain {:.0} ops/s ({:.1} us), sealed {:.0} ops/s ({:.1} us): \
                     sealed/plain time ratio {:.2}",
                    1.0 / plain,
                    plain * 1e6,
                    1.0 / sealed,
                    sealed * 1e6,
                    sealed / plain
                ),
                _ => println!("{group} {backend}: estimates not found (run without a filter)"),
            }
        }
    }
}

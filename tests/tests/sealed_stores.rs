//! Tokens sealed at rest (`TokenKeys`) in the file store (real files) and the Redis store (a
//! real `redis-server` of the test's own): round trips, key rotation, and records that do not
//! open (tampered, moved to another store's slot, a key missing) refused for their store only.

use std::path::Path;
use std::sync::Arc;

use chrono::Utc;
use store_admin::credentials::{
    AccessToken, FileTokenStores, HealthState, RedisTokenStores, RefreshToken, StoredTokens,
    TokenKeys, TokenSet, TokenStore, TokenStores, health_report,
};
use store_admin_tests::RedisServer;

const KEY_A: &str = "key-a:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
const KEY_B: &str = "key-b:HxwdHhscGRoYFxYVFBMSERAPDg0MCwoJCAcGBQQDAgE=";

const ACCESS: &str = "sealed-access-token-7f3a9c";
const REFRESH: &str = "sealed-refresh-token-0b1e44";

fn keys(text: &str) -> Arc<TokenKeys> {
    Arc::new(TokenKeys::parse(text).expect("keys"))
}

fn tokens(tag: &str) -> TokenSet {
    TokenSet {
        access: AccessToken::new(format!("{ACCESS}-{tag}")),
        refresh: Some(RefreshToken::new(format!("{REFRESH}-{tag}"))),
        expires_at: Utc::now() + chrono::Duration::days(10),
        scope: "orders.read_write offline_access".into(),
    }
}

async fn access_of(store: &dyn TokenStore) -> String {
    store
        .load_tokens()
        .await
        .expect("loads")
        .expect("tokens")
        .access
        .expose_secret()
        .to_owned()
}

/// The key id a stored record says it was sealed with (`None`: plain).
fn sealed_with(text: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(text).expect("JSON");
    value["sealed"]["key"].as_str().map(str::to_owned)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).expect("the token file")
}

fn assert_no_plaintext(text: &str) {
    for secret in [ACCESS, REFRESH, "orders.read_write"] {
        assert!(
            !text.contains(secret),
            "{secret} in the stored record: {text}"
        );
    }
}

/// One store of a report, by merchant.
async fn states(stores: &dyn TokenStores) -> Vec<(String, HealthState, Option<String>)> {
    let report = health_report(stores, Utc::now(), std::time::Duration::from_secs(3600))
        .await
        .expect("a report of every store");
    let mut states: Vec<_> = report
        .into_iter()
        .map(|store| (store.merchant, store.state, store.error))
        .collect();
    states.sort_by(|a, b| a.0.cmp(&b.0));
    states
}

#[tokio::test]
async fn file_records_are_sealed_rotate_and_refuse_tampering_for_their_store_only() {
    let dir = tempfile::tempdir().unwrap();
    let a = FileTokenStores::new(dir.path()).with_keys(keys(KEY_A));
    let shop1 = a.store("shop-1");
    shop1.install(&tokens("1")).await.expect("saved");
    let text = read(shop1.path());
    assert_no_plaintext(&text);
    assert_eq!(sealed_with(&text).as_deref(), Some("key-a"));
    assert_eq!(access_of(&shop1).await, format!("{ACCESS}-1"));

    // Rotation: [B, A] reads A's record; the next save writes it with B; [B] alone reads it.
    let ba = FileTokenStores::new(dir.path()).with_keys(keys(&format!("{KEY_B}\n{KEY_A}")));
    let rotated = ba.store("shop-1");
    assert_eq!(access_of(&rotated).await, format!("{ACCESS}-1"));
    let read_at = rotated.load().await.unwrap().revision;
    rotated
        .save(&StoredTokens::Active(tokens("2")), Some(read_at))
        .await
        .expect("saved")
        .expect("not raced");
    assert_eq!(sealed_with(&read(rotated.path())).as_deref(), Some("key-b"));
    let b = FileTokenStores::new(dir.path()).with_keys(keys(KEY_B));
    assert_eq!(access_of(&b.store("shop-1")).await, format!("{ACCESS}-2"));
    // A alone no longer opens it, and says which key it needs.
    let error = a.store("shop-1").load().await.unwrap_err().to_string();
    assert!(
        error.contains("`shop-1`") && error.contains("key `key-b`"),
        "{error}"
    );
    assert!(
        !error.contains("HxwdH") && !error.contains(ACCESS),
        "{error}"
    );

    // Three more stores: one tampered, one holding another store's record, one intact.
    for shop in ["shop-2", "shop-3", "shop-4"] {
        b.store(shop).install(&tokens(shop)).await.expect("saved");
    }
    let tampered_path = b.store("shop-2").path().to_owned();
    let mut record: serde_json::Value = serde_json::from_str(&read(&tampered_path)).unwrap();
    let data = record["sealed"]["data"].as_str().unwrap().to_owned();
    let flipped = if data.starts_with('A') { "B" } else { "A" };
    record["sealed"]["data"] = format!("{flipped}{}", &data[1..]).into();
    std::fs::write(&tampered_path, record.to_string()).unwrap();
    std::fs::copy(b.store("shop-4").path(), b.store("shop-3").path()).unwrap();

    let tampered = b.store("shop-2").load().await.unwrap_err().to_string();
    assert!(
        tampered.contains("`shop-2` do not open with key `key-b`"),
        "{tampered}"
    );
    let moved = b.store("shop-3").load().await.unwrap_err().to_string();
    assert!(moved.contains("`shop-3` do not open"), "{moved}");
    assert_eq!(
        access_of(&b.store("shop-4")).await,
        format!("{ACCESS}-shop-4")
    );
    assert_eq!(access_of(&b.store("shop-1")).await, format!("{ACCESS}-2"));
    let report = states(&b).await;
    let shown: Vec<_> = report.iter().map(|(m, s, _)| (m.as_str(), *s)).collect();
    assert_eq!(
        shown,
        [
            ("shop-1", HealthState::Healthy),
            ("shop-2", HealthState::Unreadable),
            ("shop-3", HealthState::Unreadable),
            ("shop-4", HealthState::Healthy),
        ]
    );

    // An installation replaces a record that does not open; removing it works too.
    b.store("shop-2")
        .install(&tokens("again"))
        .await
        .expect("replaced");
    assert_eq!(
        access_of(&b.store("shop-2")).await,
        format!("{ACCESS}-again")
    );
    b.store("shop-3").remove().await.expect("removed");
    assert!(b.store("shop-3").load().await.unwrap().value.is_none());

    // Without keys a sealed record says that keys are needed.
    let plain = FileTokenStores::new(dir.path());
    let error = plain.store("shop-1").load().await.unwrap_err().to_string();
    assert!(error.contains("are encrypted (key `key-b`)"), "{error}");
    assert!(error.contains("STORE_ADMIN_TOKEN_KEYS"), "{error}");
}

#[tokio::test]
async fn a_plain_file_record_is_read_with_keys_and_sealed_by_the_next_save() {
    let dir = tempfile::tempdir().unwrap();
    let plain = FileTokenStores::new(dir.path()).store("shop");
    plain.install(&tokens("old")).await.unwrap();
    assert!(read(plain.path()).contains(ACCESS), "plain JSON before");
    let sealed = FileTokenStores::new(dir.path())
        .with_keys(keys(KEY_A))
        .store("shop");
    let snapshot = sealed.load().await.expect("a plain record is read");
    assert_eq!(
        snapshot.tokens().unwrap().access.expose_secret(),
        format!("{ACCESS}-old")
    );
    sealed
        .save(
            &StoredTokens::Active(tokens("new")),
            Some(snapshot.revision),
        )
        .await
        .unwrap()
        .expect("saved");
    let text = read(sealed.path());
    assert_no_plaintext(&text);
    assert_eq!(sealed_with(&text).as_deref(), Some("key-a"));
    // The health recorded at the installation survived the migration.
    assert!(sealed.load().await.unwrap().health.installed_at.is_some());
}

fn redis_get(redis: &RedisServer, key: &str) -> String {
    let client = redis::Client::open(redis.url()).unwrap();
    let mut conn = client.get_connection().unwrap();
    redis::cmd("HGET")
        .arg(key)
        .arg("record")
        .query::<String>(&mut conn)
        .expect("a record")
}

fn redis_set(redis: &RedisServer, key: &str, record: &str) {
    let client = redis::Client::open(redis.url()).unwrap();
    let mut conn = client.get_connection().unwrap();
    redis::cmd("HSET")
        .arg(key)
        .arg("record")
        .arg(record)
        .query::<()>(&mut conn)
        .unwrap();
}

/// Every field of a Redis hash, as text.
fn redis_hash(redis: &RedisServer, key: &str) -> String {
    let client = redis::Client::open(redis.url()).unwrap();
    let mut conn = client.get_connection().unwrap();
    let fields: Vec<String> = redis::cmd("HGETALL").arg(key).query(&mut conn).unwrap();
    fields.join("\n")
}

#[tokio::test]
async fn redis_records_are_sealed_rotate_and_refuse_tampering_for_their_store_only() {
    let redis = RedisServer::start();
    let connect = || async {
        RedisTokenStores::connect(&redis.url())
            .await
            .expect("Redis")
    };
    let a = connect().await.with_keys(keys(KEY_A));
    a.store("shop-1")
        .install(&tokens("1"))
        .await
        .expect("saved");
    let hash = redis_hash(&redis, "store-admin:tokens:shop-1");
    assert_no_plaintext(&hash);
    let record = redis_get(&redis, "store-admin:tokens:shop-1");
    assert_eq!(sealed_with(&record).as_deref(), Some("key-a"));
    assert_eq!(access_of(&a.store("shop-1")).await, format!("{ACCESS}-1"));

    // Rotation.
    let ba = connect().await.with_keys(keys(&format!("{KEY_B},{KEY_A}")));
    let rotated = ba.store("shop-1");
    let read_at = rotated.load().await.unwrap().revision;
    assert_eq!(access_of(&rotated).await, format!("{ACCESS}-1"));
    rotated
        .save(&StoredTokens::Active(tokens("2")), Some(read_at))
        .await
        .unwrap()
        .expect("not raced");
    let record = redis_get(&redis, "store-admin:tokens:shop-1");
    assert_eq!(sealed_with(&record).as_deref(), Some("key-b"));
    let b = connect().await.with_keys(keys(KEY_B));
    assert_eq!(access_of(&b.store("shop-1")).await, format!("{ACCESS}-2"));
    let error = a.store("shop-1").load().await.unwrap_err().to_string();
    assert!(
        error.contains("key `key-b`, which the token keys (key-a)"),
        "{error}"
    );

    // Tampered, moved, intact.
    for shop in ["shop-2", "shop-3", "shop-4"] {
        b.store(shop).install(&tokens(shop)).await.expect("saved");
    }
    let mut record: serde_json::Value =
        serde_json::from_str(&redis_get(&redis, "store-admin:tokens:shop-2")).unwrap();
    let data = record["sealed"]["data"].as_str().unwrap().to_owned();
    let flipped = if data.ends_with("A=") { "B=" } else { "A=" };
    record["sealed"]["data"] = format!("{}{flipped}", &data[..data.len() - 2]).into();
    redis_set(&redis, "store-admin:tokens:shop-2", &record.to_string());
    let shop4 = redis_get(&redis, "store-admin:tokens:shop-4");
    redis_set(&redis, "store-admin:tokens:shop-3", &shop4);

    let tampered = b.store("shop-2").load().await.unwrap_err().to_string();
    assert!(
        tampered.contains("`shop-2` do not open with key `key-b`"),
        "{tampered}"
    );
    let moved = b.store("shop-3").load().await.unwrap_err().to_string();
    assert!(moved.contains("`shop-3` do not open"), "{moved}");
    assert_eq!(
        access_of(&b.store("shop-4")).await,
        format!("{ACCESS}-shop-4")
    );
    let report = states(&b).await;
    let shown: Vec<_> = report.iter().map(|(m, s, _)| (m.as_str(), *s)).collect();
    assert_eq!(
        shown,
        [
            ("shop-1", HealthState::Healthy),
            ("shop-2", HealthState::Unreadable),
            ("shop-3", HealthState::Unreadable),
            ("shop-4", HealthState::Healthy),
        ]
    );
    for (_, _, error) in &report {
        if let Some(error) = error {
            assert!(
                !error.contains(ACCESS) && !error.contains("HxwdH"),
                "{error}"
            );
        }
    }

    // A plain store finds a sealed record and says keys are needed; an installation with keys
    // replaces a record that does not open.
    let plain = connect().await;
    let error = plain.store("shop-4").load().await.unwrap_err().to_string();
    assert!(error.contains("are encrypted (key `key-b`)"), "{error}");
    b.store("shop-2")
        .install(&tokens("again"))
        .await
        .expect("replaced");
    assert_eq!(
        access_of(&b.store("shop-2")).await,
        format!("{ACCESS}-again")
    );
}

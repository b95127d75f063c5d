//! Installing an app in many merchant stores, over real HTTP against the mock store: the
//! callback of an install started from the app store (the platform's own state, a single-use
//! code, the merchant learned from the user information), and the health of each store's token
//! chain (refreshed a day ahead of expiry, `invalid_grant` and `app.uninstalled` marked
//! "reinstall needed", listed for the file and Redis stores).

use std::sync::Arc;

use chrono::Utc;
use secrecy::SecretString;
use store_admin::credentials::{
    AccessToken, FileTokenStores, HealthState, InMemoryTokenStores, InstallCallback, InstallError,
    InstallOutcome, RedisTokenStores, RefreshToken, TokenSet, TokenStore, TokenStores,
};
use store_admin::prelude::*;
use store_admin::{AuthError, Error, Merchants, OAuthApp, StoreAdmin};
use store_admin_mock::{MockConfig, MockServer};
use store_admin_tests::RedisServer;
use url::Url;

const CLIENT_ID: &str = "install-app";
const CLIENT_SECRET: &str = "install-app-secret-value";
const REFRESH: &str = "install-installed-refresh-token";

async fn mock() -> MockServer {
    MockServer::start(
        MockConfig::new()
            .products(10)
            .oauth_client(CLIENT_ID, CLIENT_SECRET)
            .oauth_refresh_token(REFRESH, ["orders.read_write", "offline_access"]),
    )
    .await
    .expect("mock starts")
}

fn app(server: &MockServer) -> OAuthApp {
    OAuthApp::new(CLIENT_ID, SecretString::from(CLIENT_SECRET))
        .with_token_url(Url::parse(&server.token_url()).expect("URL"))
}

fn merchants(server: &MockServer, stores: Arc<dyn TokenStores>) -> Merchants {
    Merchants::with_template(
        app(server),
        stores,
        StoreAdmin::builder().with_base_url(server.base_url()),
    )
    .expect("merchants")
}

/// Installs from the app store an axum app serving the callback would receive: the URI the
/// browser is sent to.
fn callback_uri(location: &str) -> http::Uri {
    location.parse().expect("a URI")
}

#[tokio::test]
async fn an_app_store_install_is_stored_for_the_merchant_the_tokens_belong_to_once() {
    let server = mock().await;
    let redirect = Url::parse("http://127.0.0.1:9/oauth/callback").unwrap();
    let stores = Arc::new(InMemoryTokenStores::new());
    let callback = InstallCallback::new(app(&server), redirect.clone(), stores.clone());

    let mut installed = Vec::new();
    for merchant in [501, 502] {
        let location = server
            .install_from_app_store(redirect.as_str(), merchant)
            .expect("install");
        match callback.handle(&callback_uri(&location)).await {
            InstallOutcome::Installed {
                merchant: m, scope, ..
            } => {
                assert_eq!(m, merchant.to_string());
                assert!(scope.split(' ').any(|s| s == "offline_access"), "{scope}");
                installed.push(location);
            }
            other => panic!("{other:?}"),
        }
    }
    // The page reloaded: refused before any request (the mock counts no new exchange).
    let exchanges = server.token_rejections();
    let again = callback.handle(&callback_uri(&installed[0])).await;
    assert!(
        matches!(again, InstallOutcome::Failed(InstallError::CodeAlreadyUsed)),
        "{again:?}"
    );
    assert_eq!(again.status(), http::StatusCode::BAD_REQUEST);
    assert_eq!(server.token_rejections(), exchanges);
    // Another process (another callback) presenting a used code: the service's invalid_grant
    // (which also revokes what the code gave, as the service does: merchant 503 here).
    let third = server
        .install_from_app_store(redirect.as_str(), 503)
        .expect("install");
    assert!(matches!(
        callback.handle(&callback_uri(&third)).await,
        InstallOutcome::Installed { .. }
    ));
    let other = InstallCallback::new(app(&server), redirect.clone(), stores.clone());
    let reused = other.handle(&callback_uri(&third)).await;
    assert!(
        matches!(
            reused,
            InstallOutcome::Failed(InstallError::CodeRejected { .. })
        ),
        "{reused:?}"
    );
    assert_eq!(server.token_rejections(), exchanges + 1);
    // No code, and a refusal.
    let none = callback
        .handle(&callback_uri("http://127.0.0.1:9/oauth/callback?state=x"))
        .await;
    assert!(
        matches!(none, InstallOutcome::Failed(InstallError::NoCode)),
        "{none:?}"
    );
    let denied = callback
        .handle(&callback_uri(
            "http://127.0.0.1:9/oauth/callback?error=access_denied",
        ))
        .await;
    assert_eq!(denied.status(), http::StatusCode::FORBIDDEN);

    // Each merchant's client calls its store with its own tokens.
    let fleet = merchants(&server, stores.clone());
    for merchant in ["501", "502"] {
        fleet
            .store(merchant)
            .unwrap()
            .list_orders()
            .call_full()
            .await
            .expect("the installed tokens work");
    }
    let mut known = stores.merchants().await.unwrap();
    known.sort();
    assert_eq!(known, ["501", "502", "503"]);
    let health = fleet.health().await.unwrap();
    assert!(
        health.iter().all(|s| s.state == HealthState::Healthy),
        "{health:?}"
    );
    assert!(
        !format!("{health:?} {callback:?}").contains("mock-at-"),
        "no token shown"
    );
}

/// The same callback served by axum (the `axum` feature's handler), the browser following the
/// mock's redirect to it over real HTTP.
#[tokio::test]
async fn the_axum_callback_answers_the_browser() {
    let server = mock().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let redirect = Url::parse(&format!(
        "http://{}/oauth/callback",
        listener.local_addr().unwrap()
    ))
    .unwrap();
    let stores = Arc::new(InMemoryTokenStores::new());
    let callback = Arc::new(InstallCallback::new(
        app(&server),
        redirect.clone(),
        stores.clone(),
    ));
    let router = axum::Router::new()
        .route(
            "/oauth/callback",
            axum::routing::get(store_admin::credentials::axum_callback),
        )
        .with_state(callback);
    tokio::spawn(async move { axum::serve(listener, router).await });
    let location = server
        .install_from_app_store(redirect.as_str(), 777)
        .unwrap();
    let page = reqwest::get(&location).await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("store 777"));
    let again = reqwest::get(&location).await.unwrap();
    assert_eq!(again.status(), 400);
    assert!(
        stores
            .for_merchant("777")
            .load_tokens()
            .await
            .unwrap()
            .is_some()
    );
}

fn tokens(access: &str, refresh: &str, expires_in: chrono::Duration) -> TokenSet {
    TokenSet {
        access: AccessToken::new(access),
        refresh: Some(RefreshToken::new(refresh)),
        expires_at: Utc::now() + expires_in,
        scope: "orders.read_write offline_access".into(),
    }
}

/// Checks the chain's health over `stores` (file or Redis) against the mock: a token a few
/// hours from expiry is refreshed on its next call (ahead of expiry) and the refresh recorded; a
/// spent refresh token marks the store "reinstall needed", and so does `app.uninstalled`; every
/// store is listed with its state, never a token.
async fn token_chain_health(server: &MockServer, stores: Arc<dyn TokenStores>) {
    let fleet = merchants(server, stores.clone());
    // Merchant 1: valid for 3 more hours, with the mock's live refresh token: refreshed ahead.
    let ahead = tokens("stale-but-valid", REFRESH, chrono::Duration::hours(3));
    stores.for_merchant("1").install(&ahead).await.unwrap();
    // Merchant 2: expired, with a refresh token the mock never issued: invalid_grant.
    let spent = tokens("expired", "never-issued", chrono::Duration::hours(-1));
    stores.for_merchant("2").install(&spent).await.unwrap();
    // Merchant 3: healthy, then uninstalled.
    let healthy = tokens("healthy", "r3", chrono::Duration::days(10));
    stores.for_merchant("3").install(&healthy).await.unwrap();

    let before = fleet.health().await.unwrap();
    let state = |report: &[store_admin::credentials::StoreHealth], m: &str| {
        report.iter().find(|s| s.merchant == m).map(|s| s.state)
    };
    assert_eq!(state(&before, "1"), Some(HealthState::RefreshDue));
    assert_eq!(state(&before, "2"), Some(HealthState::Expired));
    assert_eq!(state(&before, "3"), Some(HealthState::Healthy));

    fleet
        .store("1")
        .unwrap()
        .list_orders()
        .call_full()
        .await
        .expect("called");
    assert_eq!(
        server.token_refreshes(),
        1,
        "refreshed ahead of expiry, once"
    );
    fleet
        .store("1")
        .unwrap()
        .list_orders()
        .call_full()
        .await
        .expect("called");
    assert_eq!(server.token_refreshes(), 1, "the new pair lasts 14 days");
    let error: Error = fleet
        .store("2")
        .unwrap()
        .list_orders()
        .call()
        .await
        .expect_err("spent");
    assert!(
        matches!(error, Error::Auth(AuthError::ReinstallRequired { .. })),
        "{error:?}"
    );
    fleet.uninstall("3").await.unwrap();

    let after = fleet.health().await.unwrap();
    assert_eq!(state(&after, "1"), Some(HealthState::Healthy));
    let one = after.iter().find(|s| s.merchant == "1").unwrap();
    assert!(one.health.last_refresh.is_some() && one.health.installed_at.is_some());
    assert!(one.expires_at.unwrap() > Utc::now() + chrono::Duration::days(13));
    let attention = fleet.needing_attention().await.unwrap();
    let listed: Vec<(&str, HealthState, &str)> = attention
        .iter()
        .map(|s| {
            (
                s.merchant.as_str(),
                s.state,
                s.health
                    .last_failure
                    .as_ref()
                    .map_or("", |f| f.reason.as_str()),
            )
        })
        .collect();
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert_eq!(listed[0].0, "2");
    assert_eq!(listed[0].1, HealthState::ReinstallNeeded);
    assert!(listed[0].2.starts_with("invalid_grant"), "{listed:?}");
    assert_eq!(
        listed[1],
        ("3", HealthState::ReinstallNeeded, "app.uninstalled")
    );
    let shown = format!("{after:?}");
    for secret in [
        "stale-but-valid",
        "never-issued",
        "healthy",
        "mock-at-",
        "mock-rt-",
        REFRESH,
    ] {
        assert!(!shown.contains(secret), "{shown}");
    }
}

#[tokio::test]
async fn the_file_stores_keep_and_list_each_store_s_health() {
    let server = mock().await;
    let dir = tempfile::tempdir().unwrap();
    token_chain_health(
        &server,
        Arc::new(FileTokenStores::new(dir.path().join("tokens"))),
    )
    .await;
}

#[tokio::test]
async fn the_in_memory_stores_keep_and_list_each_store_s_health() {
    let server = mock().await;
    token_chain_health(&server, Arc::new(InMemoryTokenStores::new())).await;
}

#[tokio::test]
async fn the_redis_stores_keep_and_list_each_store_s_health() {
    let redis = RedisServer::start();
    let server = mock().await;
    let stores = RedisTokenStores::connect(&redis.url())
        .await
        .expect("Redis")
        .with_prefix("install-test");
    // A refresh lock is a key of its own (a string): held all along, it is not listed as a store.
    let held = stores.store("lock-only").lock().await.unwrap();
    token_chain_health(&server, Arc::new(stores)).await;
    drop(held);
}

/// A refresh ahead of expiry that fails (the token endpoint answers 503) is recorded, and the
/// still-valid token is used: the call succeeds.
#[tokio::test]
async fn a_failed_refresh_ahead_of_expiry_is_recorded_and_the_token_still_used() {
    let server = MockServer::start(
        MockConfig::new()
            .products(10)
            .oauth_client(CLIENT_ID, CLIENT_SECRET)
            .oauth_access_token("valid-for-hours", ["orders.read_write"]),
    )
    .await
    .unwrap();
    let stores = Arc::new(InMemoryTokenStores::new());
    // The token endpoint is unreachable: port 9 of the loopback.
    let fleet = Merchants::with_template(
        OAuthApp::new(CLIENT_ID, SecretString::from(CLIENT_SECRET))
            .with_token_url(Url::parse("http://127.0.0.1:9/oauth2/token").unwrap()),
        stores.clone(),
        StoreAdmin::builder().with_base_url(server.base_url()),
    )
    .unwrap();
    let soon = tokens("valid-for-hours", "r", chrono::Duration::hours(2));
    stores.for_merchant("9").install(&soon).await.unwrap();
    fleet
        .store("9")
        .unwrap()
        .list_orders()
        .call_full()
        .await
        .expect("the valid token is used");
    let health = fleet.needing_attention().await.unwrap();
    assert_eq!(health.len(), 1, "{health:?}");
    assert_eq!(health[0].state, HealthState::RefreshFailing);
    let failure = health[0].health.last_failure.as_ref().unwrap();
    assert!(failure.reason.starts_with("refresh failed"), "{failure:?}");
}

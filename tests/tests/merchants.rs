//! One process serving many merchant stores: `Merchants` against the mock store over real HTTP,
//! installations arriving as `app.store.authorize` deliveries and leaving as `app.uninstalled`.

use std::sync::Arc;

use secrecy::SecretString;
use store_admin::credentials::{AuthError, FileTokenStores, TokenStore};
use store_admin::merchants::Installation;
use store_admin::prelude::*;
use store_admin::webhooks::parse_event;
use store_admin::{Error, Merchants, OAuthApp, StoreAdmin};
use store_admin_mock::{MockConfig, MockServer};

const CLIENT_ID: &str = "merchants-app";
const CLIENT_SECRET: &str = "merchants-client-secret-value";
const ACCESS: &str = "merchants-installed-access-token";

fn delivery(event: &str, merchant: i64, data: serde_json::Value) -> Vec<u8> {
    serde_json::json!({
        "event": event,
        "merchant": merchant,
        "created_at": "2024-05-01 10:00:00",
        "data": data,
    })
    .to_string()
    .into_bytes()
}

#[tokio::test]
async fn deliveries_install_and_uninstall_each_merchants_tokens() {
    let server = MockServer::start(
        MockConfig::new()
            .oauth_client(CLIENT_ID, CLIENT_SECRET)
            .oauth_access_token(ACCESS, ["orders.read_write"]),
    )
    .await
    .expect("mock starts");
    let dir = tempfile::tempdir().expect("a directory");
    let stores = FileTokenStores::new(dir.path().join("tokens"));
    let app = OAuthApp::new(CLIENT_ID, SecretString::from(CLIENT_SECRET))
        .with_token_url(server.token_url().parse().expect("URL"));
    let merchants = Merchants::with_template(
        app,
        Arc::new(stores.clone()),
        StoreAdmin::builder().with_base_url(server.base_url()),
    )
    .expect("merchants");

    // Not installed yet: nothing to call with.
    let error: Error = merchants
        .store("1305")
        .expect("client")
        .list_order_statuses()
        .send()
        .await
        .expect_err("no tokens")
        .into();
    assert!(
        matches!(error, Error::Auth(AuthError::NoTokens)),
        "{error:?}"
    );

    let expires = chrono::Utc::now().timestamp() + 14 * 24 * 3600;
    let authorize = parse_event(&delivery(
        "app.store.authorize",
        1305,
        serde_json::json!({
            "access_token": ACCESS,
            "refresh_token": "merchants-installed-refresh-token",
            "expires": expires,
            "scope": "orders.read_write offline_access",
            "token_type": "bearer",
        }),
    ))
    .expect("a delivery");
    assert_eq!(
        merchants.handle_event(&authorize).await.expect("installed"),
        Installation::Authorized
    );
    let statuses = merchants
        .store("1305")
        .expect("client")
        .list_order_statuses()
        .send()
        .await
        .expect("installed tokens work");
    assert!(!statuses.data.is_empty());
    // Saved for every process, owner-only; another merchant has nothing.
    let saved = stores.store("1305").load_tokens().await.expect("loads");
    assert_eq!(
        saved.expect("saved").access.expose_secret(),
        ACCESS,
        "the delivery's tokens were saved"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(stores.store("1305").path())
            .expect("the token file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert!(
        stores
            .store("77")
            .load_tokens()
            .await
            .expect("loads")
            .is_none()
    );
    let other: Error = merchants
        .store("77")
        .expect("client")
        .list_order_statuses()
        .send()
        .await
        .expect_err("merchant 77 never installed the app")
        .into();
    assert!(
        matches!(other, Error::Auth(AuthError::NoTokens)),
        "{other:?}"
    );

    // Unrelated events change nothing; a resent delivery is harmless.
    let created =
        parse_event(&delivery("order.created", 1305, serde_json::json!({}))).expect("a delivery");
    assert_eq!(
        merchants.handle_event(&created).await.expect("ignored"),
        Installation::Ignored
    );
    merchants.handle_event(&authorize).await.expect("again");

    let uninstalled =
        parse_event(&delivery("app.uninstalled", 1305, serde_json::json!({}))).expect("a delivery");
    assert_eq!(
        merchants.handle_event(&uninstalled).await.expect("removed"),
        Installation::Uninstalled
    );
    assert!(
        stores
            .store("1305")
            .load_tokens()
            .await
            .expect("loads")
            .is_none()
    );
    let error: Error = merchants
        .store("1305")
        .expect("client")
        .list_order_statuses()
        .send()
        .await
        .expect_err("uninstalled")
        .into();
    assert!(
        matches!(error, Error::Auth(AuthError::NoTokens)),
        "{error:?}"
    );
}

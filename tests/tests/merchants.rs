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
        .call()
        .await
        .expect_err("no tokens");
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
        .call_full()
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
        .call()
        .await
        .expect_err("merchant 77 never installed the app");
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
        merchants.handle_event(&uninstalled).await.expect("revoked"),
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
        .call()
        .await
        .expect_err("uninstalled");
    assert!(
        matches!(error, Error::Auth(AuthError::ReinstallRequired { .. })),
        "{error:?}"
    );
    // The uninstalled store is listed as needing the merchant, with why; never a token.
    let attention = merchants.needing_attention().await.expect("listed");
    assert_eq!(attention.len(), 1, "{attention:?}");
    assert_eq!(attention[0].merchant, "1305");
    assert_eq!(
        attention[0].state,
        store_admin::credentials::HealthState::ReinstallNeeded
    );
    assert_eq!(
        attention[0]
            .health
            .last_failure
            .as_ref()
            .map(|f| f.reason.as_str()),
        Some("app.uninstalled")
    );
    // A new installation brings the store back.
    merchants
        .handle_event(&authorize)
        .await
        .expect("installed again");
    assert!(
        merchants
            .needing_attention()
            .await
            .expect("listed")
            .is_empty()
    );
}

/// The mock's own `app.store.authorize` delivery (sent when the merchant approves the app at the
/// authorize endpoint), verified by a receiver over real HTTP, installs the merchant's tokens.
#[tokio::test]
async fn the_mock_s_app_store_authorize_delivery_installs_the_merchant_s_tokens() {
    use axum::body::Bytes;
    use axum::http::{HeaderMap, StatusCode};
    use store_admin::credentials::InMemoryTokenStores;
    use store_admin::webhooks::verify_and_parse;

    const HOOK_SECRET: &str = "merchants-hook-secret";
    let server = MockServer::start(
        MockConfig::new()
            .products(5)
            .merchant_id(4242)
            .token_all_scopes("merchants-hook-admin")
            .oauth_client(CLIENT_ID, CLIENT_SECRET),
    )
    .await
    .expect("mock starts");
    let app = OAuthApp::new(CLIENT_ID, SecretString::from(CLIENT_SECRET))
        .with_token_url(server.token_url().parse().expect("URL"));
    let merchants = Arc::new(
        Merchants::with_template(
            app,
            Arc::new(InMemoryTokenStores::new()),
            StoreAdmin::builder().with_base_url(server.base_url()),
        )
        .expect("merchants"),
    );
    let (outcomes, mut received) = tokio::sync::mpsc::unbounded_channel();
    let handler = {
        let merchants = Arc::clone(&merchants);
        move |headers: HeaderMap, body: Bytes| {
            let merchants = Arc::clone(&merchants);
            let outcomes = outcomes.clone();
            async move {
                let Ok(event) = verify_and_parse(&headers, &body, &SecretString::from(HOOK_SECRET))
                else {
                    return StatusCode::UNAUTHORIZED;
                };
                let outcome = merchants.handle_event(&event).await;
                let answer = if outcome.is_ok() {
                    StatusCode::OK
                } else {
                    StatusCode::INTERNAL_SERVER_ERROR
                };
                let _ = outcomes.send((event.merchant, outcome.map_err(|e| e.to_string())));
                answer
            }
        }
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hook = format!("http://{}/hook", listener.local_addr().unwrap());
    let router = axum::Router::new().route("/hook", axum::routing::post(handler));
    tokio::spawn(async move { axum::serve(listener, router).await });

    let admin = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token("merchants-hook-admin")
        .build()
        .unwrap();
    admin
        .subscribe_webhook()
        .body(
            store_admin::types::SubscribeWebhookRequest::builder()
                .name("installations")
                .event("app.store.authorize".to_string())
                .url(hook)
                .security_strategy(store_admin::types::SecurityStrategy(Some(
                    store_admin::types::SecurityStrategyInner::Signature,
                )))
                .secret(Some(HOOK_SECRET.to_string())),
        )
        .call_full()
        .await
        .expect("subscribed");
    // The merchant approves the app.
    let approval = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(server.authorize_url())
        .query(&[
            ("response_type", "code"),
            ("client_id", CLIENT_ID),
            ("redirect_uri", "http://127.0.0.1:9/callback"),
            ("scope", "orders.read offline_access"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(approval.status(), 302);
    let (merchant, outcome) =
        tokio::time::timeout(std::time::Duration::from_secs(20), received.recv())
            .await
            .expect("delivered in time")
            .expect("a delivery");
    assert_eq!(merchant, 4242);
    assert_eq!(outcome, Ok(Installation::Authorized));
    let client = merchants.store("4242").expect("client");
    client
        .list_orders()
        .call_full()
        .await
        .expect("the delivered tokens work");
    // They carry the scopes asked for, and nothing more.
    let error: Error = client
        .list_products()
        .call()
        .await
        .expect_err("no products scope");
    assert_eq!(error.status().map(|s| s.as_u16()), Some(401), "{error:?}");
    assert_eq!(server.token_refreshes(), 0);
}

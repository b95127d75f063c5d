//! `StoreAdmin` with OAuth credentials against the mock store's token endpoint (`POST /oauth2/token`)
//! and API, over real HTTP on 127.0.0.1: single-flight refresh, transparent replay after a token is
//! rejected mid-life, the new pair handed to the token store, the reinstall error of a reused
//! refresh token, and no refresh for a missing scope.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use secrecy::SecretString;
use store_admin::credentials::{
    AccessToken, InMemoryTokenStore, RefreshToken, StoredTokens, TokenSet, TokenStore,
};
use store_admin::prelude::*;
use store_admin::retry::RetryPolicy;
use store_admin::{Credentials, Error, StoreAdmin};
use store_admin_mock::{MockConfig, MockServer};
use url::Url;

const CLIENT_ID: &str = "e2e-app";
const CLIENT_SECRET: &str = "e2e-client-secret-value";
const REFRESH: &str = "e2e-installed-refresh-token";
const LIVE_ACCESS: &str = "e2e-live-access-token";
const STALE_ACCESS: &str = "e2e-stale-access-token";
/// Seconds left to a token in the middle of its life: more than the day ahead of expiry when it
/// is refreshed anyway.
const MID_LIFE: i64 = 2 * 86_400;
const SCOPES: [&str; 3] = ["orders.read_write", "shipping.read_write", "offline_access"];

async fn mock(config: MockConfig) -> MockServer {
    MockServer::start(
        config
            .products(20)
            .oauth_client(CLIENT_ID, CLIENT_SECRET)
            .oauth_refresh_token(REFRESH, SCOPES),
    )
    .await
    .expect("mock starts")
}

/// Tokens as an installation left them: `access`, the installed refresh token, expiring in
/// `expires_in_secs` (negative: already expired).
fn installed(access: &str, expires_in_secs: i64) -> TokenSet {
    TokenSet {
        access: AccessToken::new(access),
        refresh: Some(RefreshToken::new(REFRESH)),
        expires_at: Utc::now() + chrono::Duration::seconds(expires_in_secs),
        scope: SCOPES.join(" "),
    }
}

fn admin(server: &MockServer, store: Arc<InMemoryTokenStore>) -> StoreAdmin {
    let token_url = Url::parse(&server.token_url()).expect("token URL");
    StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_credentials(Credentials::OAuth {
            client_id: CLIENT_ID.to_owned(),
            client_secret: SecretString::from(CLIENT_SECRET),
            token_url,
            store,
        })
        .with_retry_policy(
            RetryPolicy::default()
                .with_base_delay(Duration::from_millis(5))
                .with_max_delay(Duration::from_millis(50)),
        )
        .build()
        .expect("client builds")
}

async fn stored(store: &InMemoryTokenStore) -> TokenSet {
    store
        .load_tokens()
        .await
        .expect("store loads")
        .expect("store holds tokens")
}

/// Sends `GET /orders?per_page=1` with `access` directly, outside the client (another operation
/// than the client's calls, so as not to count among them).
async fn status_with(server: &MockServer, access: &str) -> u16 {
    reqwest::Client::new()
        .get(format!("{}/orders?per_page=1", server.base_url()))
        .bearer_auth(access)
        .send()
        .await
        .expect("sent")
        .status()
        .as_u16()
}

/// Exchanges `refresh` at the mock's token endpoint directly (another process doing it).
async fn refresh_directly(server: &MockServer, refresh: &str) -> (u16, serde_json::Value) {
    let response = reqwest::Client::new()
        .post(server.token_url())
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!(
            "grant_type=refresh_token&refresh_token={refresh}&client_id={CLIENT_ID}&client_secret={CLIENT_SECRET}"
        ))
        .send()
        .await
        .expect("sent");
    let status = response.status().as_u16();
    (status, response.json().await.expect("JSON"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_access_token_with_a_hundred_concurrent_calls_causes_exactly_one_refresh() {
    let server = mock(MockConfig::new()).await;
    let store = Arc::new(InMemoryTokenStore::with_tokens(installed(
        STALE_ACCESS,
        -3600,
    )));
    let admin = admin(&server, store.clone());

    let calls: Vec<_> = (0..100)
        .map(|_| {
            let admin = admin.clone();
            tokio::spawn(async move { admin.list_order_statuses().call_full().await })
        })
        .collect();
    let mut succeeded = 0;
    for call in calls {
        let response = call.await.expect("task").expect("call succeeds");
        assert!(!response.data.is_empty());
        succeeded += 1;
    }
    assert_eq!(succeeded, 100);
    assert_eq!(
        server.token_refreshes(),
        1,
        "one refresh for the whole wave"
    );
    assert_eq!(server.requests_received("list_order_statuses"), 100);
    assert_eq!(
        status_with(&server, STALE_ACCESS).await,
        401,
        "the mock never knew the stale token"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_rejected_mid_life_is_refreshed_once_replayed_once_and_saved_to_the_store() {
    let server = mock(MockConfig::new().oauth_access_token(LIVE_ACCESS, SCOPES)).await;
    let store = Arc::new(InMemoryTokenStore::with_tokens(installed(
        LIVE_ACCESS,
        MID_LIFE,
    )));
    let admin = admin(&server, store.clone());
    admin
        .list_order_statuses()
        .call_full()
        .await
        .expect("first call");
    assert_eq!(
        server.token_refreshes(),
        0,
        "a valid token is not refreshed"
    );
    assert_eq!(server.requests_received("list_order_statuses"), 1);

    // The service rejects the token before its expiry: the next call gets 401 invalid token.
    assert_eq!(server.expire_access_tokens(), 1);
    let statuses = admin
        .list_order_statuses()
        .call_full()
        .await
        .expect("refreshed and replayed transparently");
    assert!(!statuses.data.is_empty());
    assert_eq!(server.token_refreshes(), 1);
    assert_eq!(
        server.requests_received("list_order_statuses"),
        3,
        "the rejected attempt and one replay"
    );

    // The new pair went to the token store, and it is the pair the mock issued.
    let saved = stored(&store).await;
    let new_access = saved.access.expose_secret().to_owned();
    let new_refresh = saved
        .refresh
        .as_ref()
        .expect("a refresh token")
        .expose_secret()
        .to_owned();
    assert_ne!(new_access, LIVE_ACCESS);
    assert_ne!(new_refresh, REFRESH, "the spent refresh token was replaced");
    assert!(!saved.is_expired(Utc::now(), Duration::from_secs(60)));
    assert_eq!(status_with(&server, &new_access).await, 200);

    // Later calls use the new token without refreshing again.
    admin
        .list_order_statuses()
        .call_full()
        .await
        .expect("later call");
    assert_eq!(server.token_refreshes(), 1);
    assert_eq!(server.requests_received("list_order_statuses"), 4);
    // The stored refresh token is the live one: the token endpoint accepts it.
    let (status, _) = refresh_directly(&server, &new_refresh).await;
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_calls_rejected_mid_life_share_one_refresh() {
    let server = mock(MockConfig::new().oauth_access_token(LIVE_ACCESS, SCOPES)).await;
    let store = Arc::new(InMemoryTokenStore::with_tokens(installed(
        LIVE_ACCESS,
        MID_LIFE,
    )));
    let admin = admin(&server, store.clone());
    admin
        .list_order_statuses()
        .call_full()
        .await
        .expect("first call");
    server.expire_access_tokens();

    let calls: Vec<_> = (0..100)
        .map(|_| {
            let admin = admin.clone();
            tokio::spawn(async move { admin.list_order_statuses().call_full().await })
        })
        .collect();
    for call in calls {
        call.await.expect("task").expect("call succeeds");
    }
    assert_eq!(server.token_refreshes(), 1);
    let sent = server.requests_received("list_order_statuses") - 1;
    assert!(
        (100..=200).contains(&sent),
        "each call sent at most one replay ({sent} requests)"
    );
}

#[tokio::test]
async fn a_reused_refresh_token_says_the_merchant_must_reinstall_without_leaking_secrets() {
    let server = mock(MockConfig::new()).await;
    // Another process shared the installed refresh token and spent it first.
    let (status, other) = refresh_directly(&server, REFRESH).await;
    assert_eq!(status, 200);
    let other_access = other["access_token"].as_str().expect("access").to_owned();
    let other_refresh = other["refresh_token"].as_str().expect("refresh").to_owned();

    let store = Arc::new(InMemoryTokenStore::with_tokens(installed(
        STALE_ACCESS,
        -60,
    )));
    let admin = admin(&server, store.clone());
    let error: Error = admin
        .list_order_statuses()
        .call()
        .await
        .expect_err("no usable token");
    assert!(matches!(error, Error::Auth(_)), "{error:?}");
    let display = error.to_string();
    let debug = format!("{error:?}");
    assert!(display.contains("invalid_grant"), "{display}");
    assert!(display.contains("reinstall"), "{display}");
    for secret in [
        CLIENT_SECRET,
        REFRESH,
        STALE_ACCESS,
        &other_access,
        &other_refresh,
    ] {
        assert!(
            !display.contains(secret),
            "Display leaks a secret: {display}"
        );
        assert!(!debug.contains(secret), "Debug leaks a secret: {debug}");
    }
    assert_eq!(server.token_refreshes(), 2);
    assert_eq!(
        server.requests_received("list_order_statuses"),
        0,
        "nothing is sent without a token"
    );
    // The reuse revoked the other process's pair too, as the service does.
    assert_eq!(status_with(&server, &other_access).await, 401);
    let (status, body) = refresh_directly(&server, &other_refresh).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_grant"))
    );
    // The store marks the tokens revoked, so that no other process presents the spent refresh
    // token again (each says ReinstallRequired without calling the token endpoint).
    assert!(matches!(
        store.load().await.expect("store loads").value,
        Some(StoredTokens::Revoked)
    ));
}

#[tokio::test]
async fn a_token_without_the_scope_gets_401_and_no_refresh_is_attempted() {
    let server = mock(MockConfig::new().oauth_access_token(LIVE_ACCESS, ["products.read"])).await;
    let store = Arc::new(InMemoryTokenStore::with_tokens(installed(
        LIVE_ACCESS,
        MID_LIFE,
    )));
    let admin = admin(&server, store);
    let error: Error = admin.list_orders().call().await.expect_err("missing scope");
    let api = error.api().expect("the service's answer");
    assert_eq!(api.status.as_u16(), 401);
    assert_eq!(
        api.message.as_deref(),
        Some("The access token should have access to one of those scopes: orders.read")
    );
    assert!(error.to_string().contains("orders.read"), "{error}");
    assert_eq!(server.token_refreshes(), 0, "refreshing cannot add a scope");
    assert_eq!(server.requests_received("list_orders"), 1, "not replayed");
}

#[tokio::test]
async fn the_authorization_code_flow_gives_tokens_the_client_then_uses_and_refreshes() {
    use store_admin::credentials::{AuthorizationRequest, RedirectError};
    let server = mock(MockConfig::new()).await;
    let redirect = Url::parse("http://127.0.0.1:1/callback").unwrap();
    let request = AuthorizationRequest::new(
        &Url::parse(&server.authorize_url()).unwrap(),
        CLIENT_ID,
        &redirect,
        ["offline_access"],
    );
    // The mock approves at once: its answer is the redirect a browser would follow.
    let answer = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(request.url().clone())
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 302);
    let location = Url::parse(answer.headers()["location"].to_str().unwrap()).unwrap();
    assert_eq!(location.path(), "/callback");
    let query = location.query().unwrap().to_owned();
    assert_eq!(
        request.code_from_redirect(&query.replace("state=", "state=x")),
        Err(RedirectError::StateMismatch)
    );
    let code = request.code_from_redirect(&query).unwrap();
    let tokens = request
        .exchange(
            &reqwest::Client::new(),
            CLIENT_ID,
            &SecretString::from(CLIENT_SECRET),
            &Url::parse(&server.token_url()).unwrap(),
            &code,
        )
        .await
        .expect("the code is exchanged");
    assert!(tokens.refresh.is_some());
    assert!(tokens.has_scope("orders.read") && tokens.has_scope("offline_access"));
    assert!(!tokens.is_expired(Utc::now(), Duration::from_secs(3600)));

    // The client uses them, and refreshes them once they are rejected.
    let store = Arc::new(InMemoryTokenStore::with_tokens(tokens.clone()));
    let admin = admin(&server, store.clone());
    admin
        .list_orders()
        .call_full()
        .await
        .expect("the new token works");
    server.expire_access_tokens();
    admin
        .list_orders()
        .call_full()
        .await
        .expect("refreshed and replayed");
    assert_eq!(server.token_refreshes(), 1);
    assert!(
        !stored(&store).await.access.ct_eq(&tokens.access),
        "the refreshed pair is saved"
    );
    assert_eq!(server.token_rejections(), 0);
}

/// The service strips `-` from the `state` it echoes (so does the mock): a base64url state would
/// fail about 29 % of logins. Two hundred logins through the real authorize redirect and token
/// exchange all succeed.
#[tokio::test]
async fn two_hundred_logins_through_the_authorize_redirect_never_fail_on_the_state() {
    use store_admin::credentials::AuthorizationRequest;
    let server = mock(MockConfig::new()).await;
    let redirect = Url::parse("http://127.0.0.1:1/callback").unwrap();
    let authorize = Url::parse(&server.authorize_url()).unwrap();
    let token_url = Url::parse(&server.token_url()).unwrap();
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let http = reqwest::Client::new();
    let secret = SecretString::from(CLIENT_SECRET);
    let mut failures = Vec::new();
    for login in 0..200 {
        let request =
            AuthorizationRequest::new(&authorize, CLIENT_ID, &redirect, ["offline_access"]);
        let answer = browser.get(request.url().clone()).send().await.unwrap();
        assert_eq!(answer.status(), 302);
        let location = Url::parse(answer.headers()["location"].to_str().unwrap()).unwrap();
        let query = location.query().unwrap_or_default().to_owned();
        let code = match request.code_from_redirect(&query) {
            Ok(code) => code,
            Err(error) => {
                failures.push(format!("login {login}: {error}"));
                continue;
            }
        };
        if let Err(error) = request
            .exchange(&http, CLIENT_ID, &secret, &token_url, &code)
            .await
        {
            failures.push(format!("login {login}: exchange: {error}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(server.token_rejections(), 0);
}

#[tokio::test]
async fn a_token_rejected_mid_life_whose_refresh_token_is_spent_ends_with_reinstall_required() {
    let server = mock(MockConfig::new().oauth_access_token(LIVE_ACCESS, SCOPES)).await;
    // Another process spent the installed refresh token without telling the store.
    let (status, _) = refresh_directly(&server, REFRESH).await;
    assert_eq!(status, 200);
    server.expire_access_tokens();
    let store = Arc::new(InMemoryTokenStore::with_tokens(installed(
        LIVE_ACCESS,
        MID_LIFE,
    )));
    let admin = admin(&server, store.clone());
    let error: Error = admin
        .list_order_statuses()
        .call()
        .await
        .expect_err("the token is refused and cannot be refreshed");
    assert!(
        matches!(
            error,
            Error::Auth(store_admin::credentials::AuthError::ReinstallRequired { .. })
        ),
        "the reason, not the 401: {error:?}"
    );
    assert_eq!(
        server.requests_received("list_order_statuses"),
        1,
        "no replay"
    );
    assert!(matches!(
        store.load().await.expect("store loads").value,
        Some(StoredTokens::Revoked)
    ));
}

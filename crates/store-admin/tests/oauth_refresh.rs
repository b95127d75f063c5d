//! The OAuth refresh exchange and the authenticator against a real HTTP server on 127.0.0.1.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Form;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use chrono::Utc;
use secrecy::SecretString;
use store_admin::credentials::{
    AccessToken, AuthError, Authenticator, Credentials, InMemoryTokenStore, OAuthError,
    RefreshToken, TokenSet, TokenStore, refresh_token_set,
};
use url::Url;

const SAMPLE: &str = include_str!("fixtures/oauth_token.200.json");
const CLIENT_SECRET: &str = "client-secret-value";

/// What the fake token endpoint answers.
#[derive(Clone, Copy)]
enum Answer {
    Sample,
    InvalidGrant,
    InvalidClient,
    HtmlError,
    GarbageTokenJson,
}

#[derive(Clone)]
struct Server {
    answer: Answer,
    calls: Arc<AtomicUsize>,
    forms: Arc<Mutex<Vec<HashMap<String, String>>>>,
    content_types: Arc<Mutex<Vec<String>>>,
    /// When set, each request waits for a permit before answering.
    gate: Option<Arc<tokio::sync::Semaphore>>,
}

async fn token_endpoint(
    State(server): State<Server>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    server.calls.fetch_add(1, Ordering::SeqCst);
    server.forms.lock().unwrap().push(form);
    server.content_types.lock().unwrap().push(
        headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned(),
    );
    if let Some(gate) = &server.gate {
        gate.acquire().await.unwrap().forget();
    }
    let json = [(header::CONTENT_TYPE, "application/json")];
    match server.answer {
        Answer::Sample => (StatusCode::OK, json, SAMPLE).into_response(),
        Answer::InvalidGrant => (
            StatusCode::BAD_REQUEST,
            json,
            r#"{"error":"invalid_grant","error_description":"The refresh token is invalid."}"#,
        )
            .into_response(),
        Answer::InvalidClient => (
            StatusCode::UNAUTHORIZED,
            json,
            r#"{"error":"invalid_client"}"#,
        )
            .into_response(),
        Answer::HtmlError => (
            StatusCode::BAD_GATEWAY,
            [(header::CONTENT_TYPE, "text/html")],
            "<html>bad gateway</html>",
        )
            .into_response(),
        Answer::GarbageTokenJson => (
            StatusCode::OK,
            json,
            r#"{"access_token":"LEAKED-ACCESS","token_type":7}"#,
        )
            .into_response(),
    }
}

async fn serve(answer: Answer) -> (Url, Server) {
    serve_with_gate(answer, None).await
}

async fn serve_with_gate(
    answer: Answer,
    gate: Option<Arc<tokio::sync::Semaphore>>,
) -> (Url, Server) {
    let server = Server {
        answer,
        calls: Arc::default(),
        forms: Arc::default(),
        content_types: Arc::default(),
        gate,
    };
    let app = axum::Router::new()
        .route("/oauth2/token", post(token_endpoint))
        .with_state(server.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (
        Url::parse(&format!("http://{addr}/oauth2/token")).unwrap(),
        server,
    )
}

async fn exchange(url: &Url) -> Result<TokenSet, OAuthError> {
    refresh_token_set(
        &reqwest::Client::new(),
        "client-id",
        &SecretString::from(CLIENT_SECRET),
        url,
        &RefreshToken::new("old-refresh"),
    )
    .await
}

#[tokio::test]
async fn refresh_posts_a_form_and_decodes_the_sample_response() {
    let (url, server) = serve(Answer::Sample).await;
    let tokens = exchange(&url).await.unwrap();
    assert_eq!(tokens.access.expose_secret(), "KGsnBcNN...");
    assert_eq!(tokens.refresh.unwrap().expose_secret(), "fWcceFWF...");
    // The sample's `expires` (2021) is in the past: a just-issued token gets the default
    // 14-day lifetime instead of being treated as already expired.
    let lifetime = tokens.expires_at - Utc::now();
    assert!(lifetime > chrono::Duration::days(13) && lifetime <= chrono::Duration::days(14));
    assert_eq!(tokens.scope, "offline_access orders.read_write");

    let forms = server.forms.lock().unwrap();
    assert_eq!(forms.len(), 1);
    let form = &forms[0];
    assert_eq!(form["grant_type"], "refresh_token");
    assert_eq!(form["refresh_token"], "old-refresh");
    assert_eq!(form["client_id"], "client-id");
    assert_eq!(form["client_secret"], CLIENT_SECRET);
    assert_eq!(
        server.content_types.lock().unwrap()[0],
        "application/x-www-form-urlencoded"
    );
}

#[tokio::test]
async fn invalid_grant_says_the_merchant_must_reinstall() {
    let (url, _server) = serve(Answer::InvalidGrant).await;
    let err = exchange(&url).await.unwrap_err();
    assert!(matches!(err, OAuthError::InvalidGrant { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("reinstall"), "{text}");
    assert!(text.contains("The refresh token is invalid."), "{text}");
    assert!(!text.contains("old-refresh") && !text.contains(CLIENT_SECRET));
}

#[tokio::test]
async fn invalid_client_is_its_own_error() {
    let (url, _server) = serve(Answer::InvalidClient).await;
    let err = exchange(&url).await.unwrap_err();
    assert!(
        matches!(&err, OAuthError::InvalidClient { code, .. } if code == "invalid_client"),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_non_json_error_reports_the_status_not_a_panic() {
    let (url, _server) = serve(Answer::HtmlError).await;
    let err = exchange(&url).await.unwrap_err();
    assert!(
        matches!(err, OAuthError::UnexpectedResponse { status: 502, .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_malformed_token_response_never_shows_its_body() {
    let (url, _server) = serve(Answer::GarbageTokenJson).await;
    let err = exchange(&url).await.unwrap_err();
    assert!(
        matches!(err, OAuthError::UnexpectedResponse { status: 200, .. }),
        "{err:?}"
    );
    for text in [err.to_string(), format!("{err:?}")] {
        assert!(!text.contains("LEAKED-ACCESS"), "{text}");
    }
    assert!(
        err.to_string().contains("token_type"),
        "names the field: {err}"
    );
}

#[tokio::test]
async fn an_unreachable_endpoint_is_a_transport_error() {
    // Bind then drop a listener: the port is closed.
    let addr = {
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        l.local_addr().unwrap()
    };
    let url = Url::parse(&format!("http://{addr}/oauth2/token")).unwrap();
    let err = exchange(&url).await.unwrap_err();
    assert!(matches!(err, OAuthError::Transport(_)), "{err:?}");
}

fn expired_tokens() -> TokenSet {
    TokenSet {
        access: AccessToken::new("expired-access"),
        refresh: Some(RefreshToken::new("old-refresh")),
        expires_at: Utc::now() - chrono::Duration::hours(1),
        scope: "orders.read".into(),
    }
}

fn valid_tokens(access: &str) -> TokenSet {
    TokenSet {
        access: AccessToken::new(access),
        refresh: Some(RefreshToken::new("old-refresh")),
        // Beyond the day ahead of expiry when a token is refreshed anyway.
        expires_at: Utc::now() + chrono::Duration::days(2),
        scope: "orders.read".into(),
    }
}

fn authenticator(url: Url, store: Arc<InMemoryTokenStore>) -> Arc<Authenticator> {
    let creds = Credentials::oauth("client-id", SecretString::from(CLIENT_SECRET), store)
        .with_token_url(url);
    Arc::new(Authenticator::new(creds, reqwest::Client::new()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn hundred_callers_with_an_expired_token_cause_one_token_request() {
    let (url, server) = serve(Answer::Sample).await;
    let store = Arc::new(InMemoryTokenStore::with_tokens(expired_tokens()));
    let auth = authenticator(url, Arc::clone(&store));
    let barrier = Arc::new(tokio::sync::Barrier::new(100));
    let tasks: Vec<_> = (0..100)
        .map(|_| {
            let auth = Arc::clone(&auth);
            let barrier = Arc::clone(&barrier);
            tokio::spawn(async move {
                barrier.wait().await;
                auth.token().await
            })
        })
        .collect();
    for t in tasks {
        let lease = t.await.unwrap().unwrap();
        assert_eq!(lease.token.expose_secret(), "KGsnBcNN...");
    }
    assert_eq!(server.calls.load(Ordering::SeqCst), 1);
    let saved = store.load_tokens().await.unwrap().unwrap();
    assert_eq!(saved.access.expose_secret(), "KGsnBcNN...");
    assert_eq!(saved.refresh.unwrap().expose_secret(), "fWcceFWF...");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn hundred_callers_reporting_the_same_rejected_token_cause_one_refresh() {
    let (url, server) = serve(Answer::Sample).await;
    let store = Arc::new(InMemoryTokenStore::with_tokens(valid_tokens(
        "revoked-early",
    )));
    let auth = authenticator(url, store);
    let lease = auth.token().await.unwrap();
    assert_eq!(lease.token.expose_secret(), "revoked-early");
    let tasks: Vec<_> = (0..100)
        .map(|_| {
            let auth = Arc::clone(&auth);
            let lease = lease.clone();
            tokio::spawn(async move { auth.rejected(&lease).await })
        })
        .collect();
    for t in tasks {
        assert_eq!(
            t.await.unwrap().unwrap().token.expose_secret(),
            "KGsnBcNN..."
        );
    }
    assert_eq!(server.calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_token_refreshed_by_another_process_is_reused_not_refreshed_again() {
    let (url, server) = serve(Answer::Sample).await;
    let store = Arc::new(InMemoryTokenStore::with_tokens(valid_tokens("first")));
    let auth = authenticator(url, Arc::clone(&store));
    let lease = auth.token().await.unwrap();
    // Another process refreshes and saves a new pair.
    store
        .install(&valid_tokens("from-other-process"))
        .await
        .unwrap();
    let renewed = auth.rejected(&lease).await.unwrap();
    assert_eq!(renewed.token.expose_secret(), "from-other-process");
    assert_eq!(server.calls.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn invalid_grant_reaches_every_waiting_caller_from_one_request() {
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let (url, server) = serve_with_gate(Answer::InvalidGrant, Some(Arc::clone(&gate))).await;
    let store = Arc::new(InMemoryTokenStore::with_tokens(expired_tokens()));
    let auth = authenticator(url, store);
    let tasks: Vec<_> = (0..30)
        .map(|_| {
            let auth = Arc::clone(&auth);
            tokio::spawn(async move { auth.token().await })
        })
        .collect();
    // One caller is refreshing (held at the server), the 29 others wait for it.
    while auth.waiting() < 29 || server.calls.load(Ordering::SeqCst) < 1 {
        tokio::task::yield_now().await;
    }
    gate.add_permits(1);
    for t in tasks {
        let err = t.await.unwrap().unwrap_err();
        assert!(
            matches!(err, AuthError::ReinstallRequired { .. }),
            "{err:?}"
        );
    }
    assert_eq!(server.calls.load(Ordering::SeqCst), 1);
}

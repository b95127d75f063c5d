//! Secrets go to the origin they were meant for: a token endpoint that redirects (307, 308, 302;
//! to another port, another host name, another path) never gets the request sent on, for the
//! refresh (the function and the client's runtime) and the install callback; a redirect during a
//! call is followed only under the base URL, and a refused one is not retried; the token
//! endpoint's answer is bounded. Real HTTP on 127.0.0.1.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use secrecy::SecretString;
use store_admin::credentials::{
    AccessToken, AuthError, Credentials, InMemoryTokenStore, InMemoryTokenStores, InstallCallback,
    InstallError, InstallOutcome, MAX_TOKEN_RESPONSE_BYTES, OAuthError, RefreshToken, TokenSet,
    TokenStores, refresh_token_set,
};
use store_admin::prelude::*;
use store_admin::retry::{RetryPolicy, TransportFailure};
use store_admin::{Error, OAuthApp};
use url::Url;

const CLIENT_SECRET: &str = "redirect-test-client-secret";
const REFRESH: &str = "redirect-test-refresh-token";
const CODE: &str = "redirect-test-authorization-code";
const SAMPLE: &str = include_str!("fixtures/oauth_token.200.json");

/// One request a server received: method, path, the `Authorization` header and the body.
#[derive(Debug, Clone)]
struct Seen {
    method: Method,
    path: String,
    authorization: Option<String>,
    content_length: Option<String>,
    body: String,
}

/// What a server does: the token endpoint (`/oauth2/token`) answers `token`; every other path
/// records the request and answers a token response (so a followed redirect would succeed, and
/// the test see it).
#[derive(Clone)]
struct Host {
    seen: Arc<Mutex<Vec<Seen>>>,
    token: Arc<Mutex<Option<(StatusCode, String)>>>,
}

impl Host {
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// The requests that reached any path but `/oauth2/token`.
    fn elsewhere(&self) -> Vec<Seen> {
        self.seen()
            .into_iter()
            .filter(|s| s.path != "/oauth2/token")
            .collect()
    }
}

async fn handle(
    State(host): State<Host>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    host.seen.lock().unwrap().push(Seen {
        method,
        path: uri.path().to_owned(),
        authorization: headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        content_length: headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let json = [(header::CONTENT_TYPE, "application/json")];
    let redirect = host.token.lock().unwrap().clone();
    match (uri.path(), redirect) {
        ("/oauth2/token", Some((status, location))) => {
            (status, [(header::LOCATION, location)]).into_response()
        }
        ("/oauth2/user/info", _) => (
            StatusCode::OK,
            json,
            r#"{"data":{"merchant":{"id":42}}}"#.to_owned(),
        )
            .into_response(),
        _ => (StatusCode::OK, json, SAMPLE.to_owned()).into_response(),
    }
}

/// A host on a port of its own: its base (`http://127.0.0.1:PORT`) and what it received.
async fn host() -> (String, Host) {
    let host = Host {
        seen: Arc::default(),
        token: Arc::default(),
    };
    let app = Router::new().fallback(handle).with_state(host.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), host)
}

/// The redirects a token endpoint answers: status, and where to (`{other}` another host's
/// base, `{self_port}` this host's port).
fn redirects(endpoint: &str, other: &str) -> Vec<(StatusCode, String)> {
    let port = Url::parse(endpoint).unwrap().port().unwrap();
    vec![
        (StatusCode::TEMPORARY_REDIRECT, format!("{other}/stolen")),
        (StatusCode::PERMANENT_REDIRECT, format!("{other}/stolen")),
        (StatusCode::FOUND, format!("{other}/stolen")),
        (StatusCode::SEE_OTHER, format!("{other}/stolen")),
        // Another host name for the same server.
        (
            StatusCode::TEMPORARY_REDIRECT,
            format!("http://localhost:{port}/oauth2/token"),
        ),
        (
            StatusCode::FOUND,
            format!("http://localhost:{port}/oauth2/token"),
        ),
        // Another path of the same origin.
        (StatusCode::TEMPORARY_REDIRECT, "/oauth2/elsewhere".into()),
        (StatusCode::FOUND, "/oauth2/elsewhere".into()),
    ]
}

/// The clients a caller may hand the library: one that follows no redirect, and reqwest's
/// default (which follows up to 10).
fn clients() -> Vec<(&'static str, reqwest::Client)> {
    vec![
        (
            "no redirects",
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
        ),
        ("reqwest's default", reqwest::Client::new()),
    ]
}

/// No secret in `text`.
fn assert_no_secret(text: &str) {
    for secret in [CLIENT_SECRET, REFRESH, CODE] {
        assert!(!text.contains(secret), "a secret shows: {text}");
    }
}

/// What the redirect's targets received: nothing at all with a client that follows no redirect;
/// with one that follows redirects, at most a `GET` without a body (a 302 or 303 followed by the
/// client itself), never a secret.
fn assert_target_got_nothing(client: &str, endpoint: &Host, other: &Host) {
    let mut reached = endpoint.elsewhere();
    reached.extend(other.seen());
    // The same server under another host name: a second request to the token endpoint.
    let token_requests = endpoint
        .seen()
        .iter()
        .filter(|s| s.path == "/oauth2/token")
        .count();
    if client == "no redirects" {
        assert!(reached.is_empty(), "{client}: {reached:?}");
        assert_eq!(token_requests, 1, "{client}: {:?}", endpoint.seen());
        return;
    }
    for seen in reached.iter().chain(
        endpoint
            .seen()
            .iter()
            .filter(|s| s.path == "/oauth2/token")
            .skip(1),
    ) {
        assert_eq!(seen.method, Method::GET, "{client}: {seen:?}");
        assert!(seen.body.is_empty(), "{client}: {seen:?}");
        assert!(seen.authorization.is_none(), "{client}: {seen:?}");
        assert_no_secret(&format!("{seen:?}"));
    }
}

fn reset(endpoint: &Host, other: &Host) {
    endpoint.seen.lock().unwrap().clear();
    other.seen.lock().unwrap().clear();
}

/// The origin and path the error must name for `location` answered by `endpoint`.
fn target_of(endpoint: &str, location: &str) -> String {
    let url = Url::parse(endpoint).unwrap().join(location).unwrap();
    format!("{}{}", url.origin().ascii_serialization(), url.path())
}

#[tokio::test]
async fn a_refresh_never_follows_the_token_endpoint_s_redirect() {
    let (base, endpoint) = host().await;
    let (other_base, other) = host().await;
    let token_url = Url::parse(&format!("{base}/oauth2/token")).unwrap();
    for (client_name, client) in clients() {
        for (status, location) in redirects(&base, &other_base) {
            reset(&endpoint, &other);
            *endpoint.token.lock().unwrap() = Some((status, location.clone()));
            let error = refresh_token_set(
                &client,
                "client-id",
                &SecretString::from(CLIENT_SECRET),
                &token_url,
                &RefreshToken::new(REFRESH),
            )
            .await
            .expect_err("a redirect is refused");
            let case = format!("{client_name}, {status} to {location}");
            let OAuthError::Redirected { target, .. } = &error else {
                panic!("{case}: {error:?}");
            };
            let text = error.to_string();
            assert!(text.contains("redirected"), "{case}: {text}");
            assert_no_secret(&text);
            assert_no_secret(&format!("{error:?}"));
            // The target is named when the redirect was seen; a client that followed a 302
            // itself names where it ended, the same place.
            assert_eq!(*target, target_of(&base, &location), "{case}: {text}");
            assert_target_got_nothing(client_name, &endpoint, &other);
            // The first request did carry the secrets to the token endpoint, in its body.
            let first = &endpoint.seen()[0];
            assert!(first.body.contains(CLIENT_SECRET), "{case}: {first:?}");
            // Sent with its length, not chunked, though reqwest cannot copy it.
            assert_eq!(
                first.content_length.as_deref(),
                Some(first.body.len().to_string().as_str()),
                "{case}: {first:?}"
            );
        }
    }
}

fn expired() -> TokenSet {
    TokenSet {
        access: AccessToken::new("expired-access"),
        refresh: Some(RefreshToken::new(REFRESH)),
        expires_at: Utc::now() - chrono::Duration::hours(1),
        scope: "orders.read".into(),
    }
}

#[tokio::test]
async fn the_client_s_refresh_never_follows_the_token_endpoint_s_redirect() {
    let (api_base, api) = host().await;
    let (base, endpoint) = host().await;
    let (other_base, other) = host().await;
    let token_url = Url::parse(&format!("{base}/oauth2/token")).unwrap();
    for (status, location) in redirects(&base, &other_base) {
        reset(&endpoint, &other);
        api.seen.lock().unwrap().clear();
        *endpoint.token.lock().unwrap() = Some((status, location.clone()));
        let store = Arc::new(InMemoryTokenStore::with_tokens(expired()));
        let admin = StoreAdmin::builder()
            .with_base_url(format!("{api_base}/admin/v2"))
            .with_credentials(
                Credentials::oauth("client-id", SecretString::from(CLIENT_SECRET), store)
                    .with_token_url(token_url.clone()),
            )
            .without_rate_limit()
            .build()
            .unwrap();
        let error = admin
            .list_order_statuses()
            .call()
            .await
            .expect_err("no token");
        let case = format!("{status} to {location}");
        let Error::Auth(AuthError::TokenEndpoint {
            error: OAuthError::Redirected { target, .. },
            ..
        }) = &error
        else {
            panic!("{case}: {error:?}");
        };
        assert_eq!(*target, target_of(&base, &location), "{case}");
        assert_no_secret(&error.to_string());
        assert_target_got_nothing("no redirects", &endpoint, &other);
        assert!(api.seen().is_empty(), "{case}: {:?}", api.seen());
    }
}

#[tokio::test]
async fn an_installation_never_follows_the_token_endpoint_s_redirect() {
    let (base, endpoint) = host().await;
    let (other_base, other) = host().await;
    let token_url = Url::parse(&format!("{base}/oauth2/token")).unwrap();
    let callback_uri: axum::http::Uri = format!("/oauth/callback?code={CODE}&state=s")
        .parse()
        .unwrap();
    for client_name in ["the default", "reqwest's default"] {
        for (status, location) in redirects(&base, &other_base) {
            reset(&endpoint, &other);
            *endpoint.token.lock().unwrap() = Some((status, location.clone()));
            let mut app = OAuthApp::new("client-id", SecretString::from(CLIENT_SECRET));
            app.token_url = token_url.clone();
            let stores = Arc::new(InMemoryTokenStores::new());
            let mut callback = InstallCallback::new(
                app,
                Url::parse("https://app.example/oauth/callback").unwrap(),
                stores.clone(),
            );
            if client_name == "reqwest's default" {
                callback = callback.with_http(reqwest::Client::new());
            }
            let outcome = callback.handle(&callback_uri).await;
            let case = format!("{client_name}, {status} to {location}");
            let InstallOutcome::Failed(InstallError::TokenEndpoint(OAuthError::Redirected {
                target,
                ..
            })) = &outcome
            else {
                panic!("{case}: {outcome:?}");
            };
            assert_eq!(*target, target_of(&base, &location), "{case}");
            let page = outcome.clone().into_response();
            assert_eq!(page.status(), StatusCode::BAD_GATEWAY);
            assert!(
                page.body().contains("redirected"),
                "{case}: {}",
                page.body()
            );
            assert_no_secret(page.body());
            assert_no_secret(&format!("{outcome:?}"));
            let followed = if client_name == "the default" {
                "no redirects"
            } else {
                client_name
            };
            assert_target_got_nothing(followed, &endpoint, &other);
            let stored = stores.for_merchant("42").load().await.unwrap();
            assert!(stored.value.is_none(), "{case}: nothing is installed");
        }
    }
}

#[tokio::test]
async fn the_user_information_is_not_asked_of_a_redirect_s_target() {
    let (base, endpoint) = host().await;
    let (other_base, other) = host().await;
    // A token endpoint that answers; user information that redirects elsewhere.
    let redirecting = Router::new()
        .fallback(move || {
            let other_base = other_base.clone();
            async move {
                (
                    StatusCode::TEMPORARY_REDIRECT,
                    [(header::LOCATION, format!("{other_base}/oauth2/user/info"))],
                )
            }
        })
        .into_make_service();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let accounts = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, redirecting).await });
    let mut app = OAuthApp::new("client-id", SecretString::from(CLIENT_SECRET));
    app.token_url = Url::parse(&format!("{base}/oauth2/token")).unwrap();
    let callback = InstallCallback::new(
        app,
        Url::parse("https://app.example/oauth/callback").unwrap(),
        Arc::new(InMemoryTokenStores::new()),
    )
    .with_accounts_url(&Url::parse(&accounts).unwrap());
    let outcome = callback
        .handle(&format!("/cb?code={CODE}").parse().unwrap())
        .await;
    let InstallOutcome::Failed(InstallError::UserInfo { detail, .. }) = &outcome else {
        panic!("{outcome:?}");
    };
    assert!(
        detail.contains("redirected to http://127.0.0.1:"),
        "{detail}"
    );
    assert!(other.seen().is_empty(), "{:?}", other.seen());
    assert_eq!(endpoint.seen().len(), 1);
}

#[tokio::test]
async fn the_token_endpoint_s_answer_is_bounded() {
    // An answer past the bound, with and without a content-length.
    let big = "x".repeat(usize::try_from(MAX_TOKEN_RESPONSE_BYTES).unwrap() + 1);
    for chunked in [false, true] {
        let big = big.clone();
        let app = Router::new().fallback(move || {
            let big = big.clone();
            async move {
                if chunked {
                    let stream = futures::stream::iter(
                        big.into_bytes()
                            .chunks(64 * 1024)
                            .map(|c| Ok::<_, std::io::Error>(Bytes::copy_from_slice(c)))
                            .collect::<Vec<_>>(),
                    );
                    (StatusCode::OK, axum::body::Body::from_stream(stream)).into_response()
                } else {
                    (StatusCode::OK, big).into_response()
                }
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = Url::parse(&format!(
            "http://{}/oauth2/token",
            listener.local_addr().unwrap()
        ))
        .unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        let error = refresh_token_set(
            &reqwest::Client::new(),
            "client-id",
            &SecretString::from(CLIENT_SECRET),
            &url,
            &RefreshToken::new(REFRESH),
        )
        .await
        .expect_err("too large");
        assert!(
            matches!(error, OAuthError::TooLarge { status: 200, limit } if limit == MAX_TOKEN_RESPONSE_BYTES),
            "chunked {chunked}: {error:?}"
        );
        assert!(error.to_string().contains("larger than 1048576 bytes"));
    }
}

/// A server that answers every request with `status` and `Location: location` (relative to its
/// own base, `{base}`), counting the requests per path.
async fn redirecting_api(status: StatusCode, location: &'static str) -> (String, Host) {
    let host = Host {
        seen: Arc::default(),
        token: Arc::default(),
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let target = location.replace("{base}", &base);
    let app = Router::new()
        .fallback({
            let host = host.clone();
            move |method: Method, uri: Uri| {
                let host = host.clone();
                let target = target.clone();
                async move {
                    host.seen.lock().unwrap().push(Seen {
                        method,
                        path: uri.path().to_owned(),
                        authorization: None,
                        content_length: None,
                        body: String::new(),
                    });
                    if uri.path().starts_with("/admin/v2/orders/statuses") {
                        return (status, [(header::LOCATION, target)]).into_response();
                    }
                    (
                        StatusCode::OK,
                        [(header::CONTENT_TYPE, "application/json")],
                        r#"{"status":200,"success":true,"data":[]}"#,
                    )
                        .into_response()
                }
            }
        })
        .with_state(());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (base, host)
}

#[tokio::test]
async fn a_call_follows_a_redirect_only_under_the_base_url_and_never_retries_a_refused_one() {
    let (other_base, other) = host().await;
    let other_target: &'static str = Box::leak(format!("{other_base}/admin/v2/x").into_boxed_str());
    let cases: [(&'static str, bool); 5] = [
        ("/__admin/x", false),
        ("/admin/v2/../../__admin/x", false),
        ("/admin/v2/%2e%2e/__admin/x", false),
        (other_target, false),
        ("/admin/v2/orders/elsewhere", true),
    ];
    for (location, followed) in cases {
        other.seen.lock().unwrap().clear();
        let (base, api) = redirecting_api(StatusCode::FOUND, location).await;
        let admin = StoreAdmin::builder()
            .with_base_url(format!("{base}/admin/v2"))
            .with_token("redirect-test-access-token")
            .with_retry_policy(RetryPolicy::default().with_max_attempts(5))
            .without_rate_limit()
            .build()
            .unwrap();
        let result = admin.list_order_statuses().call().await;
        let paths: Vec<String> = api.seen().into_iter().map(|s| s.path).collect();
        if followed {
            assert!(result.is_ok(), "{location}: {result:?}");
            assert_eq!(
                paths,
                ["/admin/v2/orders/statuses", "/admin/v2/orders/elsewhere"],
                "{location}"
            );
            continue;
        }
        let error = result.expect_err("refused");
        let Error::Transport { source, .. } = &error else {
            panic!("{location}: {error:?}");
        };
        assert_eq!(source.failure(), TransportFailure::Redirected, "{location}");
        let refused = store_admin::redirect::refusal(&error).expect("the refusal");
        assert!(
            refused.to_string().contains("refused"),
            "{location}: {refused}"
        );
        assert!(
            !refused.to_string().contains("redirect-test-access-token"),
            "{refused}"
        );
        assert_eq!(
            paths,
            ["/admin/v2/orders/statuses"],
            "{location}: one attempt, nothing sent to the target"
        );
        assert!(other.seen().is_empty(), "{location}: {:?}", other.seen());
    }
}

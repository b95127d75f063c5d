//! The OAuth token endpoint (`POST /oauth2/token`) and the access tokens it issues.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use store_admin_mock::{MockConfig, MockServer};

use crate::common::{call, client, start_with};

const CLIENT_ID: &str = "app-client";
const CLIENT_SECRET: &str = "app-secret";
const REFRESH: &str = "initial-refresh-token";

fn config() -> MockConfig {
    MockConfig::new()
        .products(10)
        .oauth_client(CLIENT_ID, CLIENT_SECRET)
        .oauth_refresh_token(REFRESH, ["orders.read_write", "offline_access"])
}

/// A form-encoded POST of `pairs` to the token endpoint.
fn token_post(server: &MockServer, pairs: &[(&str, &str)]) -> reqwest::RequestBuilder {
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    client()
        .post(server.token_url())
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
}

async fn refresh(server: &MockServer, refresh_token: &str, secret: &str) -> (StatusCode, Value) {
    let response = token_post(
        server,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
            ("client_id", CLIENT_ID),
            ("client_secret", secret),
        ],
    )
    .send()
    .await
    .expect("token request sent");
    let status = response.status();
    assert_eq!(
        response.headers()["cache-control"],
        "no-store",
        "token responses are never cached"
    );
    (status, response.json().await.expect("JSON body"))
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

#[tokio::test]
async fn refresh_answers_the_service_token_response_and_the_api_accepts_the_new_token() {
    let server = start_with(config()).await;
    let (status, body) = refresh(&server, REFRESH, CLIENT_SECRET).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["token_type"], "bearer");
    assert_eq!(body["scope"], "orders.read_write offline_access");
    let expires = body["expires"].as_u64().expect("expires is unix seconds");
    let fourteen_days = 14 * 24 * 3600;
    assert!((now() + fourteen_days - 5..=now() + fourteen_days + 5).contains(&expires));
    let access = body["access_token"].as_str().unwrap();
    let new_refresh = body["refresh_token"].as_str().unwrap();
    assert_ne!(new_refresh, REFRESH);
    assert_eq!(server.token_refreshes(), 1);

    let (status, _) = call(&server, Method::GET, "/orders", Some(access), None).await;
    assert_eq!(status, StatusCode::OK);
    // The new refresh token works once more, and gives yet another pair.
    let (status, again) = refresh(&server, new_refresh, CLIENT_SECRET).await;
    assert_eq!(status, StatusCode::OK);
    assert_ne!(again["access_token"], body["access_token"]);
}

#[tokio::test]
async fn issued_tokens_carry_only_their_scopes() {
    let server = start_with(config()).await;
    let (_, body) = refresh(&server, REFRESH, CLIENT_SECRET).await;
    let access = body["access_token"].as_str().unwrap();
    let (status, body) = call(
        &server,
        Method::GET,
        "/products/quantities",
        Some(access),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        body["error"]["message"],
        "The access token should have access to one of those scopes: products.read"
    );
}

#[tokio::test]
async fn reusing_a_refresh_token_is_invalid_grant_and_revokes_both_tokens() {
    let server = start_with(config()).await;
    let (_, first) = refresh(&server, REFRESH, CLIENT_SECRET).await;
    let (status, body) = refresh(&server, REFRESH, CLIENT_SECRET).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"], "invalid_grant");
    assert!(body["error_description"].is_string());
    assert!(body.get("success").is_none(), "the bare OAuth body");

    // The pair issued by the first use is revoked too.
    let access = first["access_token"].as_str().unwrap();
    let (status, body) = call(&server, Method::GET, "/orders", Some(access), None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["error"]["message"], "The access token is invalid");
    let (status, body) = refresh(
        &server,
        first["refresh_token"].as_str().unwrap(),
        CLIENT_SECRET,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"], "invalid_grant");
    assert_eq!(server.token_refreshes(), 3);
}

#[tokio::test]
async fn unknown_refresh_token_is_invalid_grant() {
    let server = start_with(config()).await;
    let (status, body) = refresh(&server, "never-issued", CLIENT_SECRET).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"], "invalid_grant");
}

#[tokio::test]
async fn wrong_client_secret_is_401_invalid_client_and_spends_nothing() {
    let server = start_with(config()).await;
    let (status, body) = refresh(&server, REFRESH, "wrong-secret").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["error"], "invalid_client");
    // The refresh token was not spent.
    let (status, _) = refresh(&server, REFRESH, CLIENT_SECRET).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn without_a_configured_client_every_token_request_is_invalid_client() {
    let server = start_with(MockConfig::new().products(5)).await;
    let (status, body) = refresh(&server, REFRESH, CLIENT_SECRET).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["error"], "invalid_client");
}

#[tokio::test]
async fn client_credentials_may_come_in_basic_auth() {
    let server = start_with(config()).await;
    let response = token_post(
        &server,
        &[("grant_type", "refresh_token"), ("refresh_token", REFRESH)],
    )
    .basic_auth(CLIENT_ID, Some(CLIENT_SECRET))
    .send()
    .await
    .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn other_grants_and_missing_parameters_are_400() {
    let server = start_with(config()).await;
    let send = |form: Vec<(&'static str, &'static str)>| {
        let request = token_post(&server, &form);
        async move {
            let response = request.send().await.unwrap();
            let status = response.status();
            (status, response.json::<Value>().await.unwrap())
        }
    };
    let (status, body) = send(vec![
        ("grant_type", "password"),
        ("client_id", CLIENT_ID),
        ("client_secret", CLIENT_SECRET),
    ])
    .await;
    assert_eq!(
        (status, &body["error"]),
        (StatusCode::BAD_REQUEST, &json!("unsupported_grant_type"))
    );
    let (status, body) = send(vec![
        ("grant_type", "refresh_token"),
        ("client_id", CLIENT_ID),
        ("client_secret", CLIENT_SECRET),
    ])
    .await;
    assert_eq!(
        (status, &body["error"]),
        (StatusCode::BAD_REQUEST, &json!("invalid_request"))
    );
}

#[tokio::test]
async fn expired_access_tokens_get_the_invalid_token_401_and_refresh_still_works() {
    let server =
        start_with(config().oauth_access_token("configured-access", ["orders.read"])).await;
    let (status, _) = call(
        &server,
        Method::GET,
        "/orders",
        Some("configured-access"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, issued) = refresh(&server, REFRESH, CLIENT_SECRET).await;
    let issued_access = issued["access_token"].as_str().unwrap();

    assert_eq!(server.expire_access_tokens(), 2);
    for token in ["configured-access", issued_access] {
        let (status, body) = call(&server, Method::GET, "/orders", Some(token), None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(body["error"]["message"], "The access token is invalid");
    }
    let (status, fresh) = refresh(
        &server,
        issued["refresh_token"].as_str().unwrap(),
        CLIENT_SECRET,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = call(
        &server,
        Method::GET,
        "/orders",
        fresh["access_token"].as_str(),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_zero_lifetime_issues_tokens_that_are_already_expired() {
    let server = start_with(config().oauth_access_token_lifetime(Duration::ZERO)).await;
    let (status, body) = refresh(&server, REFRESH, CLIENT_SECRET).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body["expires"].as_u64().unwrap() <= now());
    let (status, body) = call(
        &server,
        Method::GET,
        "/orders",
        body["access_token"].as_str(),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["error"]["message"], "The access token is invalid");
}

#[tokio::test]
async fn admin_route_expires_access_tokens_and_reports_refreshes() {
    let server =
        start_with(config().oauth_access_token("configured-access", ["orders.read"])).await;
    let admin = format!("http://{}/__admin/oauth", server.addr());
    let expired: Value = client()
        .post(format!("{admin}/expire-access-tokens"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(expired["expired"], 1);
    let (status, _) = call(
        &server,
        Method::GET,
        "/orders",
        Some("configured-access"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    refresh(&server, REFRESH, CLIENT_SECRET).await;
    let report: Value = client()
        .get(&admin)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(report["refreshes"], 1);
}

// ---------------------------------------------------------------------------------------------
// The authorization-code flow: GET /oauth2/auth approves at once, the code is exchanged once.

const REDIRECT: &str = "http://127.0.0.1:45678/callback";

/// A client that does not follow redirects (the test reads each `Location`).
fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// `GET /oauth2/auth` with `pairs`; the status and the `Location`, parsed.
async fn authorize(server: &MockServer, pairs: &[(&str, &str)]) -> (StatusCode, Option<url::Url>) {
    let mut url = url::Url::parse(&server.authorize_url()).unwrap();
    url.query_pairs_mut().extend_pairs(pairs);
    let response = no_redirects().get(url).send().await.unwrap();
    let location = response
        .headers()
        .get("location")
        .map(|l| url::Url::parse(l.to_str().unwrap()).unwrap());
    (response.status(), location)
}

fn query(url: &url::Url, name: &str) -> Option<String> {
    url.query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// The PKCE S256 challenge of `verifier`.
fn challenge(verifier: &str) -> String {
    use base64::Engine;
    use sha2::Digest;
    base64::prelude::BASE64_URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()))
}

const VERIFIER: &str = "a-pkce-verifier-of-at-least-forty-three-characters-long";

async fn approved_code(server: &MockServer, scope: &str) -> String {
    let challenge = challenge(VERIFIER);
    let (status, location) = authorize(
        server,
        &[
            ("response_type", "code"),
            ("client_id", CLIENT_ID),
            ("redirect_uri", REDIRECT),
            ("scope", scope),
            ("state", "st4te"),
            ("code_challenge", &challenge),
            ("code_challenge_method", "S256"),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::FOUND);
    let location = location.expect("a Location");
    assert_eq!(
        location.as_str().split('?').next(),
        Some(REDIRECT),
        "redirects to the redirect_uri"
    );
    assert_eq!(query(&location, "state").as_deref(), Some("st4te"));
    query(&location, "code").expect("a code")
}

async fn exchange(server: &MockServer, pairs: &[(&str, &str)]) -> (StatusCode, Value) {
    let mut form = vec![
        ("grant_type", "authorization_code"),
        ("client_id", CLIENT_ID),
        ("client_secret", CLIENT_SECRET),
    ];
    form.extend_from_slice(pairs);
    let response = token_post(server, &form).send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

async fn admin_oauth(server: &MockServer) -> Value {
    client()
        .get(format!("http://{}/__admin/oauth", server.addr()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn authorize_approves_at_once_and_the_code_gives_tokens_once() {
    let server = start_with(config()).await;
    let code = approved_code(&server, "offline_access").await;
    let (status, body) = exchange(
        &server,
        &[
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", VERIFIER),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let access = body["access_token"].as_str().unwrap().to_owned();
    assert!(
        body["refresh_token"].is_string(),
        "offline_access gives one"
    );
    let scope = body["scope"].as_str().unwrap();
    assert!(scope.contains("orders.read_write") && scope.contains("products.read_write"));
    assert!(scope.split(' ').any(|s| s == "offline_access"));
    let (status, _) = call(&server, Method::GET, "/orders", Some(&access), None).await;
    assert_eq!(status, StatusCode::OK);

    // The code again: invalid_grant, counted, and what it gave is revoked.
    let (status, body) = exchange(
        &server,
        &[
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", VERIFIER),
        ],
    )
    .await;
    assert_eq!(
        (status, &body["error"]),
        (StatusCode::BAD_REQUEST, &json!("invalid_grant"))
    );
    let (status, _) = call(&server, Method::GET, "/orders", Some(&access), None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let report = admin_oauth(&server).await;
    assert_eq!(report["authorizations"], 1);
    assert_eq!(report["code_exchanges"], 2);
    assert_eq!(report["rejected"], 1);
    assert_eq!(report["refreshes"], 0);
    assert_eq!(server.token_rejections(), 1);
}

#[tokio::test]
async fn the_grant_is_the_scopes_asked_for_and_no_refresh_token_without_offline_access() {
    let server = start_with(config()).await;
    let code = approved_code(&server, "orders.read").await;
    let (status, body) = exchange(
        &server,
        &[
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", VERIFIER),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["scope"], "orders.read");
    assert!(body.get("refresh_token").is_none());
    let access = body["access_token"].as_str();
    assert_eq!(
        call(&server, Method::GET, "/orders", access, None).await.0,
        StatusCode::OK
    );
    let (status, body) = call(&server, Method::GET, "/products", access, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("products.read")
    );
}

#[tokio::test]
async fn a_code_needs_its_verifier_redirect_uri_and_client() {
    let server = start_with(config()).await;
    for (pairs, why) in [
        (
            vec![
                ("redirect_uri", REDIRECT),
                ("code_verifier", "another-verifier"),
            ],
            "wrong verifier",
        ),
        (vec![("redirect_uri", REDIRECT)], "no verifier"),
        (
            vec![
                ("redirect_uri", "http://127.0.0.1:1/other"),
                ("code_verifier", VERIFIER),
            ],
            "another redirect_uri",
        ),
    ] {
        let code = approved_code(&server, "offline_access").await;
        let mut pairs = pairs;
        pairs.push(("code", &code));
        let (status, body) = exchange(&server, &pairs).await;
        assert_eq!(
            (status, &body["error"]),
            (StatusCode::BAD_REQUEST, &json!("invalid_grant")),
            "{why}"
        );
    }
    let (status, body) = exchange(
        &server,
        &[("code", "mock-ac-unknown"), ("redirect_uri", REDIRECT)],
    )
    .await;
    assert_eq!(
        (status, &body["error"]),
        (StatusCode::BAD_REQUEST, &json!("invalid_grant"))
    );
    assert_eq!(admin_oauth(&server).await["rejected"], 4);
    // A wrong client secret is invalid_client, not a rejection of the grant.
    let code = approved_code(&server, "offline_access").await;
    let response = token_post(
        &server,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", CLIENT_ID),
            ("client_secret", "wrong"),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", VERIFIER),
        ],
    )
    .send()
    .await
    .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(admin_oauth(&server).await["rejected"], 4);
}

#[tokio::test]
async fn authorize_refuses_without_redirecting_an_unknown_client_or_a_foreign_redirect_uri() {
    let server = start_with(config()).await;
    for (client_id, redirect) in [
        ("someone-else", REDIRECT),
        (CLIENT_ID, "https://attacker.example/callback"),
        (CLIENT_ID, "not a url"),
    ] {
        let (status, location) = authorize(
            &server,
            &[
                ("response_type", "code"),
                ("client_id", client_id),
                ("redirect_uri", redirect),
                ("state", "s"),
            ],
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{client_id} {redirect}");
        assert!(location.is_none());
    }
    // Without a configured client, nobody is approved.
    let bare = start_with(MockConfig::new().products(1)).await;
    let (status, _) = authorize(
        &bare,
        &[
            ("response_type", "code"),
            ("client_id", CLIENT_ID),
            ("redirect_uri", REDIRECT),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn authorize_redirects_other_errors_with_the_state() {
    let server = start_with(config()).await;
    for (pairs, error) in [
        (
            vec![("response_type", "token")],
            "unsupported_response_type",
        ),
        (
            vec![
                ("response_type", "code"),
                ("scope", "orders.read nonsense.read"),
            ],
            "invalid_scope",
        ),
        (
            vec![
                ("response_type", "code"),
                ("code_challenge", "abc"),
                ("code_challenge_method", "plain"),
            ],
            "invalid_request",
        ),
    ] {
        let mut pairs = pairs;
        pairs.extend([
            ("client_id", CLIENT_ID),
            ("redirect_uri", "http://localhost:9/cb?keep=1"),
            ("state", "xyz"),
        ]);
        let (status, location) = authorize(&server, &pairs).await;
        assert_eq!(status, StatusCode::FOUND);
        let location = location.unwrap();
        assert_eq!(query(&location, "error").as_deref(), Some(error));
        assert_eq!(query(&location, "state").as_deref(), Some("xyz"));
        assert_eq!(query(&location, "keep").as_deref(), Some("1"));
        assert!(query(&location, "code").is_none());
    }
    assert_eq!(admin_oauth(&server).await["authorizations"], 0);
}

#[tokio::test]
async fn rejected_counts_every_invalid_grant_of_the_refresh_grant() {
    let server = start_with(config()).await;
    let (status, _) = refresh(&server, REFRESH, CLIENT_SECRET).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(admin_oauth(&server).await["rejected"], 0);
    // Reused, then unknown: two invalid_grant answers.
    assert_eq!(
        refresh(&server, REFRESH, CLIENT_SECRET).await.0,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        refresh(&server, "never-issued", CLIENT_SECRET).await.0,
        StatusCode::BAD_REQUEST
    );
    // A wrong client is not a rejected grant.
    assert_eq!(
        refresh(&server, REFRESH, "wrong").await.0,
        StatusCode::UNAUTHORIZED
    );
    let report = admin_oauth(&server).await;
    assert_eq!(report["rejected"], 2);
    assert_eq!(report["refreshes"], 4);
}

/// The service strips `-` from the `state` it sends back to the app; the mock does the same, on
/// an approval and on a refusal, so that a client comparing states byte for byte fails here as
/// it would against the service.
#[tokio::test]
async fn the_state_comes_back_without_its_hyphens() {
    let server = start_with(config()).await;
    let (status, location) = authorize(
        &server,
        &[
            ("response_type", "code"),
            ("client_id", CLIENT_ID),
            ("redirect_uri", REDIRECT),
            ("state", "a-b-c-123"),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::FOUND);
    let location = location.expect("a Location");
    assert_eq!(query(&location, "state").as_deref(), Some("abc123"));
    assert!(query(&location, "code").is_some());
    let (_, refused) = authorize(
        &server,
        &[
            ("response_type", "token"),
            ("client_id", CLIENT_ID),
            ("redirect_uri", REDIRECT),
            ("state", "-x-"),
        ],
    )
    .await;
    assert_eq!(query(&refused.unwrap(), "state").as_deref(), Some("x"));
}

/// An install started from the app store: the browser arrives at the app's callback with a code
/// and the service's own state (no hyphens); the code gives the installation's tokens once, and
/// a used code stays `invalid_grant` ("already used") even after other authorizations; the user
/// information of the access token names the installing merchant.
#[tokio::test]
async fn an_app_store_install_sends_a_single_use_code_to_the_callback() {
    let server = start_with(config()).await;
    let root = format!("http://{}", server.addr());
    let answer: Value = client()
        .post(format!("{root}/__admin/oauth/install"))
        .json(&json!({ "redirect_uri": REDIRECT, "merchant": 4242 }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["merchant"], 4242);
    let location = reqwest::Url::parse(answer["location"].as_str().unwrap()).unwrap();
    assert_eq!(location.as_str().split('?').next(), Some(REDIRECT));
    let state = query(&location, "state").expect("the service's own state");
    assert!(!state.is_empty() && !state.contains('-'), "{state}");
    let code = query(&location, "code").expect("a code");
    let (status, body) = exchange(&server, &[("code", &code), ("redirect_uri", REDIRECT)]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let access = body["access_token"].as_str().unwrap().to_owned();
    assert!(body["refresh_token"].is_string());
    let info: Value = client()
        .get(format!("{root}/oauth2/user/info"))
        .bearer_auth(&access)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(info["data"]["merchant"]["id"], 4242, "{info}");

    // Another authorization, then the used code again: still told apart, still refused.
    approved_code(&server, "offline_access").await;
    let (status, body) = exchange(&server, &[("code", &code), ("redirect_uri", REDIRECT)]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"], "invalid_grant");
    assert!(
        body["error_description"]
            .as_str()
            .unwrap()
            .contains("already used"),
        "{body}"
    );
    // The server's own store for a token of its own authorize flow.
    let code = approved_code(&server, "offline_access").await;
    let (_, body) = exchange(
        &server,
        &[
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", VERIFIER),
        ],
    )
    .await;
    let own = server.merchant_id();
    let info: Value = client()
        .get(format!("{root}/oauth2/user/info"))
        .bearer_auth(body["access_token"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(info["data"]["merchant"]["id"], own, "{info}");
    // A redirect URI that is not a loopback URL is refused.
    assert!(
        server
            .install_from_app_store("https://app.example/cb", 1)
            .is_err()
    );
}

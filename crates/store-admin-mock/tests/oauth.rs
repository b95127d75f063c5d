//! The OAuth token endpoint (`POST /oauth2/token`) and the access tokens it issues.

mod common;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{call, client, start_with};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use store_admin_mock::{MockConfig, MockServer};

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

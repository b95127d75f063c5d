//! Helpers shared by the integration tests: a started mock, an authenticated client, JSON calls.
#![allow(dead_code)]

use reqwest::{Client, Method, StatusCode};
use secrecy::ExposeSecret;
use serde_json::Value;
use store_admin_mock::{MockConfig, MockServer};

pub const ADMIN: &str = "admin-token";

/// A mock with 120 products and one all-scopes token, [`ADMIN`].
pub async fn start() -> MockServer {
    start_with(
        MockConfig::new()
            .seed(42)
            .products(120)
            .token_all_scopes(ADMIN),
    )
    .await
}

pub async fn start_with(config: MockConfig) -> MockServer {
    MockServer::start(config).await.expect("mock starts")
}

/// One HTTP client for the whole test binary: building one loads the system's root certificates,
/// which was a fifth of the conformance tests' time (`perf record`) when every call built its own.
/// It keeps no idle connection, so no connection outlives the test (and the runtime) that opened
/// it, as when each call had a client of its own.
pub fn client() -> Client {
    static CLIENT: std::sync::LazyLock<Client> = std::sync::LazyLock::new(|| {
        Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .expect("client")
    });
    CLIENT.clone()
}

/// Sends `method path` with `token` and an optional JSON body; returns status and parsed body.
pub async fn call(
    server: &MockServer,
    method: Method,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = client().request(method, format!("{}{path}", server.base_url()));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("request sent");
    let status = response.status();
    let bytes = response.bytes().await.expect("body read");
    let value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
    (status, value)
}

pub async fn get(server: &MockServer, path: &str) -> (StatusCode, Value) {
    call(server, Method::GET, path, Some(ADMIN), None).await
}

/// The id of the store's order status whose `slug` is `slug` (`completed`, `canceled`).
pub fn status_id(statuses: &Value, slug: &str) -> Value {
    statuses["data"]
        .as_array()
        .expect("statuses")
        .iter()
        .find(|s| s["slug"] == slug)
        .map(|s| s["id"].clone())
        .unwrap_or_else(|| panic!("the store has no status {slug}"))
}

pub async fn post(server: &MockServer, path: &str, body: Value) -> (StatusCode, Value) {
    call(server, Method::POST, path, Some(ADMIN), Some(body)).await
}

pub async fn put(server: &MockServer, path: &str, body: Value) -> (StatusCode, Value) {
    call(server, Method::PUT, path, Some(ADMIN), Some(body)).await
}

pub async fn delete(server: &MockServer, path: &str) -> (StatusCode, Value) {
    call(server, Method::DELETE, path, Some(ADMIN), None).await
}

/// Follows `pagination.links.next` from `path` to the end; returns every item.
pub async fn all_pages(server: &MockServer, path: &str) -> Vec<Value> {
    let mut items = Vec::new();
    let mut url = format!("{}{path}", server.base_url());
    for _ in 0..10_000 {
        let response = client()
            .get(&url)
            .bearer_auth(ADMIN)
            .send()
            .await
            .expect("sent");
        assert_eq!(response.status(), StatusCode::OK);
        let body: Value = response.json().await.expect("json");
        items.extend(body["data"].as_array().cloned().unwrap_or_default());
        match body["pagination"]["links"]["next"].as_str() {
            Some(next) => url = next.to_owned(),
            None => return items,
        }
    }
    panic!("pagination never ended");
}

pub fn token_of(server: &MockServer, index: usize) -> String {
    server.tokens()[index].secret().expose_secret().to_owned()
}

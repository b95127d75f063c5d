//! Bearer tokens, scopes and the 401 envelope.

use reqwest::{Method, StatusCode};
use serde_json::json;
use store_admin_client::OPERATIONS;
use store_admin_mock::MockConfig;

use crate::common;
use crate::common::{ADMIN, call, start_with};

async fn server() -> store_admin_mock::MockServer {
    start_with(
        MockConfig::new()
            .products(20)
            .token_all_scopes(ADMIN)
            .token("products-reader", ["products.read"])
            .token("orders-writer", ["orders.read_write"]),
    )
    .await
}

#[tokio::test]
async fn missing_token_gets_401_invalid_token_envelope() {
    let server = server().await;
    let (status, body) = call(&server, Method::GET, "/orders", None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        body,
        json!({"status": 401, "success": false, "error": {"code": "Unauthorized", "message": "The access token is invalid"}})
    );
}

#[tokio::test]
async fn unknown_token_gets_401_invalid_token() {
    let server = server().await;
    let (status, body) = call(&server, Method::GET, "/orders", Some("not-a-token"), None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["error"]["message"], "The access token is invalid");
}

#[tokio::test]
async fn non_bearer_scheme_is_an_invalid_token() {
    let server = server().await;
    let response = common::client()
        .get(format!("{}/orders", server.base_url()))
        .header("Authorization", format!("Basic {ADMIN}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn token_without_scope_gets_401_naming_the_operation_read_scope() {
    let server = server().await;
    let (status, body) = call(
        &server,
        Method::GET,
        "/orders",
        Some("products-reader"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["error"]["code"], "Unauthorized");
    assert_eq!(
        body["error"]["message"],
        "The access token should have access to one of those scopes: orders.read"
    );
}

#[tokio::test]
async fn read_write_scope_grants_the_read_operations() {
    let server = server().await;
    let (status, _) = call(&server, Method::GET, "/orders", Some("orders-writer"), None).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = call(
        &server,
        Method::GET,
        "/orders/statuses",
        Some("orders-writer"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn read_scope_does_not_grant_writes() {
    let server = server().await;
    let (status, body) = call(
        &server,
        Method::POST,
        "/products/1/options",
        Some("products-reader"),
        Some(json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        body["error"]["message"],
        "The access token should have access to one of those scopes: products.read_write"
    );
}

#[tokio::test]
async fn default_config_accepts_the_sandbox_token_with_every_scope() {
    let server = start_with(MockConfig::new().products(5)).await;
    let (status, _) = call(
        &server,
        Method::GET,
        "/webhooks",
        Some(store_admin_mock::DEFAULT_TOKEN),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn token_debug_output_hides_the_secret() {
    let server = server().await;
    let shown = format!("{:?}", server.tokens());
    assert!(!shown.contains(ADMIN), "{shown}");
    assert!(shown.contains("REDACTED"));
}

#[tokio::test]
async fn every_documented_operation_is_routed_and_implemented() {
    assert!(!OPERATIONS.is_empty());
    let server = server().await;
    for op in OPERATIONS {
        let path: String = op
            .path
            .split('/')
            .map(|segment| {
                if segment.starts_with('{') {
                    "1"
                } else {
                    segment
                }
            })
            .collect::<Vec<_>>()
            .join("/");
        let method = Method::from_bytes(op.method.as_bytes()).unwrap();
        let (status, body) = call(&server, method, &path, None, None).await;
        assert_eq!(
            status,
            StatusCode::UNAUTHORIZED,
            "{} {} answered {status}: {body}",
            op.method,
            path
        );
    }
}

#[tokio::test]
async fn unknown_path_gets_enveloped_404() {
    let server = server().await;
    let (status, body) = call(&server, Method::GET, "/no/such/thing", Some(ADMIN), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"]["code"], 404);
    assert_eq!(body["success"], false);
}

/// The accounts host's `GET /oauth2/user/info` (a path item with servers of its own) is served
/// at the mock's root, where a client pointed at the mock for both hosts calls it, with the same
/// token check; no other operation is served outside `/admin/v2`.
#[tokio::test]
async fn the_accounts_hosts_user_info_is_served_at_the_root_and_nothing_else_is() {
    let server = common::start().await;
    let root = format!("http://{}", server.addr());
    let info = common::client()
        .get(format!("{root}/oauth2/user/info"))
        .bearer_auth(common::ADMIN)
        .send()
        .await
        .expect("the mock answers");
    assert_eq!(info.status(), reqwest::StatusCode::OK);
    let body: serde_json::Value = info.json().await.expect("JSON");
    assert!(body["data"]["merchant"]["id"].is_number(), "{body}");

    let anonymous = common::client()
        .get(format!("{root}/oauth2/user/info"))
        .send()
        .await
        .expect("the mock answers");
    assert_eq!(anonymous.status(), reqwest::StatusCode::UNAUTHORIZED);

    let brands = common::client()
        .get(format!("{root}/brands"))
        .bearer_auth(common::ADMIN)
        .send()
        .await
        .expect("the mock answers");
    assert_eq!(brands.status(), reqwest::StatusCode::NOT_FOUND);
    let body: serde_json::Value = brands.json().await.expect("the error envelope");
    assert_eq!(body["success"], false, "{body}");
}

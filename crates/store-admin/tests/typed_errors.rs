//! Every failure of a call reaches the caller as a typed [`Error`] through the generated builders,
//! against real HTTP servers on 127.0.0.1: the mock store, and a bare server for bodies the mock
//! never sends. Nothing is rewritten on the way: no invented headers, no re-parsed strings.

use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use axum::response::IntoResponse;
use secrecy::SecretString;
use store_admin::credentials::{AuthError, InMemoryTokenStore};
use store_admin::prelude::*;
use store_admin::retry::{RetryBudget, RetryPolicy};
use store_admin::{Credentials, Error, StoreAdmin, TransportKind};
use store_admin_mock::{ErrorFault, FaultConfig, MockConfig, MockServer};

const TOKEN: &str = "typed-errors-token";

async fn mock(config: MockConfig) -> MockServer {
    MockServer::start(config.token_all_scopes(TOKEN))
        .await
        .expect("mock starts")
}

fn quick_retries() -> RetryPolicy {
    RetryPolicy::default()
        .with_base_delay(Duration::from_millis(1))
        .with_max_delay(Duration::from_millis(5))
}

fn admin(base_url: &str) -> StoreAdmin {
    StoreAdmin::builder()
        .with_base_url(base_url)
        .with_token(TOKEN)
        .with_retry_policy(quick_retries())
        .build()
        .expect("client builds")
}

/// A server on 127.0.0.1 answering every request with `status` and `body` (not the envelope).
async fn bare_server(status: u16, body: &'static str) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binds");
    let addr = listener.local_addr().expect("address");
    let app = axum::Router::new().fallback(move || async move {
        (
            StatusCode::from_u16(status).expect("status"),
            [("content-type", "text/html")],
            body,
        )
            .into_response()
    });
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/admin/v2")
}

#[tokio::test]
async fn an_error_envelope_names_the_operation_through_the_generated_builder() {
    let server = mock(MockConfig::new()).await;
    let error: Error = admin(server.base_url())
        .get_shipment()
        .shipment_id(987_654_i64)
        .call()
        .await
        .expect_err("no such shipment");
    let api = error.api().expect("an API error");
    assert_eq!(api.operation, Some("get_shipment"));
    assert_eq!(api.status.as_u16(), 404);
    assert!(api.message.is_some() && api.raw_body.is_none(), "{api:?}");
    assert!(error.is_not_found());
    assert_eq!(
        error.api().and_then(|api| api.hint()).as_deref(),
        Some("the record does not exist")
    );
}

#[tokio::test]
async fn a_body_that_is_not_the_envelope_keeps_its_status_and_raw_text() {
    let base = bare_server(502, "<html><h1>502 Bad Gateway</h1></html>").await;
    let admin = StoreAdmin::builder()
        .with_base_url(&base)
        .with_token(TOKEN)
        .with_retry_policy(RetryPolicy::no_retries())
        .build()
        .expect("client builds");
    let error: Error = admin.list_order_statuses().call().await.expect_err("502");
    let api = error.api().expect("an API error, not a decode error");
    assert_eq!(api.status.as_u16(), 502);
    assert_eq!(api.operation, Some("list_order_statuses"));
    assert_eq!(api.code, None);
    assert_eq!(api.message, None);
    assert_eq!(
        api.raw_body.as_deref(),
        Some("<html><h1>502 Bad Gateway</h1></html>")
    );
    assert!(error.is_retryable());
}

#[tokio::test]
async fn a_raw_error_response_carries_only_the_headers_the_server_sent() {
    let server = mock(MockConfig::new()).await;
    let admin = admin(server.base_url());
    let url = format!("{}/shipments/987654", server.base_url());
    let request = reqwest::Request::new(reqwest::Method::GET, url.parse().expect("URL"));
    let response = admin
        .send_raw(request, "get_shipment")
        .await
        .expect("an answer");
    assert_eq!(response.status.as_u16(), 404);
    for (name, _) in &response.headers {
        assert!(
            !name.as_str().starts_with("x-store-admin"),
            "a header the server did not send: {name}"
        );
    }
    let error = response.error_for_status().expect_err("404");
    assert_eq!(
        error.api().and_then(|api| api.operation),
        Some("get_shipment")
    );
}

#[tokio::test]
async fn no_stored_tokens_is_a_typed_auth_error_and_nothing_is_sent() {
    let server = mock(MockConfig::new()).await;
    let credentials = Credentials::oauth(
        "client",
        SecretString::from("client-secret"),
        Arc::new(InMemoryTokenStore::new()),
    )
    .with_token_url(server.token_url().parse().expect("URL"));
    let admin = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_credentials(credentials)
        .build()
        .expect("client builds");
    let error: Error = admin
        .list_order_statuses()
        .call()
        .await
        .expect_err("no tokens");
    assert!(
        matches!(error, Error::Auth(AuthError::NoTokens)),
        "{error:?}"
    );
    assert_eq!(server.requests_received("list_order_statuses"), 0);
}

#[tokio::test]
async fn a_builders_own_send_gets_the_runtimes_error_as_a_message_and_call_gets_it_typed() {
    let server = mock(MockConfig::new()).await;
    let admin = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(TOKEN)
        .build()
        .expect("client builds");
    // progenitor's own error type: the runtime's 404 reaches it as `Error::Custom`, the message.
    let raw = admin
        .get_shipment()
        .shipment_id(987_654_321_i64)
        .send()
        .await
        .expect_err("404");
    let progenitor_client::Error::Custom(message) = &raw else {
        panic!("not progenitor's Custom: {raw:?}");
    };
    assert!(message.contains("get_shipment"), "{message}");
    assert!(message.contains("404"), "{message}");
    // The same call through `call()` and `call_full()`: the typed error, as the runtime raised it.
    let typed = admin
        .get_shipment()
        .shipment_id(987_654_321_i64)
        .call()
        .await
        .expect_err("404");
    assert!(typed.is_not_found(), "{typed:?}");
    assert_eq!(typed.operation(), Some("get_shipment"));
    assert_eq!(
        typed.to_string(),
        *message,
        "the same error, the same words"
    );
    let full = admin
        .get_shipment()
        .shipment_id(987_654_321_i64)
        .call_full()
        .await
        .expect_err("404");
    assert!(full.is_not_found(), "{full:?}");
    // A success through `call_full()` keeps its status and headers.
    let statuses = admin.list_order_statuses().call_full().await.expect("200");
    assert_eq!(statuses.status().as_u16(), 200);
    assert!(statuses.headers().contains_key("content-type"));
    assert!(!statuses.into_inner().data.is_empty());
}

#[tokio::test]
async fn a_transport_failure_names_the_operation_and_its_kind() {
    // A port that was free a moment ago: nothing listens there.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
        listener.local_addr().expect("address").port()
    };
    let admin = StoreAdmin::builder()
        .with_base_url(format!("http://127.0.0.1:{port}/admin/v2"))
        .with_token(TOKEN)
        .with_retry_policy(RetryPolicy::no_retries())
        .build()
        .expect("client builds");
    let error: Error = admin
        .list_order_statuses()
        .call()
        .await
        .expect_err("refused");
    match &error {
        Error::Transport {
            operation, kind, ..
        } => {
            assert_eq!(*operation, Some("list_order_statuses"));
            assert_eq!(*kind, TransportKind::Connect);
        }
        other => panic!("not a transport error: {other:?}"),
    }
    assert!(
        error
            .to_string()
            .starts_with("list_order_statuses: could not connect")
    );
}

#[tokio::test]
async fn clients_sharing_a_retry_budget_stop_retrying_together() {
    let server = mock(MockConfig::new().faults(FaultConfig {
        errors: Some(ErrorFault {
            rate: 1.0,
            statuses: vec![503],
            times: None,
            operations: vec![],
        }),
        ..FaultConfig::default()
    }))
    .await;
    // Room for two retries (5 tokens each), shared by both clients.
    let budget = Arc::new(RetryBudget::new(10));
    let build = || {
        StoreAdmin::builder()
            .with_base_url(server.base_url())
            .with_token(TOKEN)
            .with_retry_policy(quick_retries())
            .with_retry_budget(Arc::clone(&budget))
            .build()
            .expect("client builds")
    };
    let (first, second) = (build(), build());
    let error: Error = first.list_order_statuses().call().await.expect_err("503");
    assert_eq!(error.status().map(|s| s.as_u16()), Some(503));
    assert_eq!(server.requests_received("list_order_statuses"), 3);
    assert_eq!(budget.available(), 0);
    // The other client finds the budget spent: one attempt, no retry.
    let error: Error = second.list_order_statuses().call().await.expect_err("503");
    assert_eq!(error.status().map(|s| s.as_u16()), Some(503));
    assert_eq!(server.requests_received("list_order_statuses"), 4);
}

#[tokio::test]
async fn a_status_the_document_does_not_list_keeps_its_body() {
    let base = bare_server(203, "a body in no documented shape").await;
    let error: Error = admin(&base)
        .list_webhooks()
        .call()
        .await
        .expect_err("203 is not listed for list_webhooks");
    let api = error.api().expect("an API error");
    assert_eq!(api.status.as_u16(), 203);
    assert_eq!(api.operation, Some("list_webhooks"));
    assert_eq!(
        api.raw_body.as_deref(),
        Some("a body in no documented shape"),
        "{api:?}"
    );
}

#[tokio::test]
async fn a_file_download_streams_the_body_the_runtime_read() {
    const WORKBOOK: &str = "PK\u{3}\u{4} the custom URLs workbook";
    let base = bare_server(200, WORKBOOK).await;
    let response = admin(&base)
        .export_custom_urls()
        .call_full()
        .await
        .expect("the file");
    assert_eq!(response.status().as_u16(), 200);
    let chunks: Vec<bytes::Bytes> =
        futures::TryStreamExt::try_collect(response.into_inner().into_inner())
            .await
            .expect("streams");
    assert_eq!(chunks.concat(), WORKBOOK.as_bytes());
}

/// `call()` answers the typed body, and every failure as the same typed [`Error`] as `send()`
/// then `Error::from`: the operation and the envelope of an error answer, the operation and the
/// JSON path of a body that does not match the document, a raw body's status.
#[tokio::test]
async fn call_answers_the_typed_body_or_the_typed_error() {
    let server = mock(MockConfig::new()).await;
    let admin = admin(server.base_url());

    let statuses = admin.list_order_statuses().call().await.expect("statuses");
    assert!(!statuses.data.is_empty(), "the typed body: {statuses:?}");

    let missing = admin
        .get_shipment()
        .shipment_id(987_654_i64)
        .call()
        .await
        .expect_err("no such shipment");
    let api = missing.api().expect("an API error");
    assert_eq!(
        (api.operation, api.status.as_u16()),
        (Some("get_shipment"), 404)
    );
    assert!(api.message.is_some(), "the service's envelope: {api:?}");

    // A success whose body does not match the document: the JSON path of the mismatch.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binds");
    let addr = listener.local_addr().expect("address");
    let app = axum::Router::new().fallback(|| async {
        (
            [("content-type", "application/json")],
            r#"{"status": 200, "success": true, "data": [{"id": 1, "name": {"no": "text"}}]}"#,
        )
    });
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let bad = self::admin(&format!("http://{addr}/admin/v2"))
        .list_order_statuses()
        .call()
        .await
        .expect_err("a body that is not the document's");
    match &bad {
        Error::Decode {
            operation, path, ..
        } => {
            assert_eq!(*operation, Some("list_order_statuses"));
            assert!(path.starts_with("data[0]"), "the JSON path: {path}");
        }
        other => panic!("expected a decode error, got {other:?}"),
    }

    // The hand-written operations answer the same way.
    let base = bare_server(502, "<html>Bad Gateway</html>").await;
    let admin = StoreAdmin::builder()
        .with_base_url(&base)
        .with_accounts_url(base.trim_end_matches("/admin/v2"))
        .with_token(TOKEN)
        .with_retry_policy(RetryPolicy::no_retries())
        .build()
        .expect("client builds");
    let upstream = admin.get_user_info().call().await.expect_err("a 502");
    let api = upstream.api().expect("an API error");
    assert_eq!(
        (api.operation, api.status.as_u16()),
        (Some("get_user_info"), 502)
    );
    assert!(
        api.raw_body
            .as_deref()
            .is_some_and(|b| b.contains("Bad Gateway")),
        "{api:?}"
    );
}

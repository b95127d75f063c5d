//! The classes of error a service branches on, each a predicate of [`Error`], against real HTTP
//! servers on 127.0.0.1: the mock store's 404 and 422, a port nothing listens on, and a server that
//! never answers. A 422's field errors are read by name, and `Display` says the status once.

use std::time::Duration;

use store_admin::prelude::*;
use store_admin::retry::RetryPolicy;
use store_admin::{Error, StoreAdmin, types};
use store_admin_mock::{MockConfig, MockServer};

async fn mock() -> (MockServer, StoreAdmin) {
    let server = MockServer::start(MockConfig::new())
        .await
        .expect("mock starts");
    let admin = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(store_admin_mock::DEFAULT_TOKEN)
        .build()
        .expect("client builds");
    (server, admin)
}

/// Which predicates hold, by name, to compare in one assertion.
fn classes(error: &Error) -> Vec<&'static str> {
    [
        ("not_found", error.is_not_found()),
        ("validation", error.is_validation()),
        ("rate_limited", error.is_rate_limited()),
        ("unauthorized", error.is_unauthorized()),
        ("forbidden", error.is_forbidden()),
        ("conflict", error.is_conflict()),
        ("transport", error.is_transport()),
        ("timeout", error.is_timeout()),
    ]
    .into_iter()
    .filter_map(|(name, holds)| holds.then_some(name))
    .collect()
}

#[tokio::test]
async fn a_404_is_not_found_only_and_says_its_status_once() {
    let (_server, admin) = mock().await;
    let error = admin
        .get_shipment()
        .shipment_id(987_654_i64)
        .call()
        .await
        .expect_err("no such shipment");
    assert_eq!(classes(&error), ["not_found"]);
    assert!(error.fields().is_empty());
    assert!(error.field_errors("id").is_empty());
    let shown = error.to_string();
    assert!(
        shown.starts_with("get_shipment: HTTP 404 Not Found: "),
        "{shown}"
    );
    assert!(!shown.contains("[404]"), "{shown}");
    // The code as sent is still there for whoever wants it.
    assert_eq!(error.api().and_then(|api| api.code.as_deref()), Some("404"));
}

#[tokio::test]
async fn a_422_is_a_validation_error_with_its_fields_by_name() {
    let (_server, admin) = mock().await;
    // The request types are `#[non_exhaustive]`: built with their builders.
    let locale: types::LocaleInput = types::LocaleInput::builder()
        .iso_code("zzz")
        .try_into()
        .expect("three letters");
    let body = types::AddLanguagesRequest::builder().locales(vec![locale]);
    let error = admin
        .add_languages()
        .body(body)
        .call()
        .await
        .expect_err("no such language");
    assert_eq!(classes(&error), ["validation"]);
    let messages = error.field_errors("locales.0.iso_code");
    assert_eq!(messages.len(), 1, "{:?}", error.fields());
    assert!(messages[0].contains("locales.0.iso_code"), "{messages:?}");
    assert_eq!(
        error.fields().keys().collect::<Vec<_>>(),
        ["locales.0.iso_code"]
    );
    assert_eq!(
        error.validation_errors(),
        Some(error.fields()),
        "the older name answers the same map"
    );
    let shown = error.to_string();
    assert!(
        shown.starts_with(&format!(
            "add_languages: HTTP 422 Unprocessable Entity; locales.0.iso_code: {}",
            messages[0]
        )),
        "{shown}"
    );
    // The generic code and the message key say nothing the status and the fields do not.
    assert!(!shown.contains("[error]"), "{shown}");
    assert!(!shown.contains("alert.invalid_fields"), "{shown}");
    let api = error.api().expect("an API error");
    assert_eq!(api.code.as_deref(), Some("error"));
    assert_eq!(api.message.as_deref(), Some("alert.invalid_fields"));
}

#[tokio::test]
async fn nothing_listening_is_a_transport_error_but_not_a_timeout() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
        listener.local_addr().expect("address").port()
    };
    let admin = StoreAdmin::builder()
        .with_base_url(format!("http://127.0.0.1:{port}/admin/v2"))
        .with_token("a-token")
        .with_retry_policy(RetryPolicy::no_retries())
        .build()
        .expect("client builds");
    let error = admin
        .list_order_statuses()
        .call()
        .await
        .expect_err("refused");
    assert_eq!(classes(&error), ["transport"]);
    assert!(error.fields().is_empty());
}

#[tokio::test]
async fn a_server_that_never_answers_is_a_timeout() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binds");
    let addr = listener.local_addr().expect("address");
    let app = axum::Router::new().fallback(std::future::pending::<&'static str>);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let admin = StoreAdmin::builder()
        .with_base_url(format!("http://{addr}/admin/v2"))
        .with_token("a-token")
        .with_attempt_timeout(Duration::from_millis(50))
        .with_retry_policy(RetryPolicy::no_retries())
        .build()
        .expect("client builds");
    let error = admin
        .list_order_statuses()
        .call()
        .await
        .expect_err("no answer");
    assert_eq!(classes(&error), ["transport", "timeout"]);
}

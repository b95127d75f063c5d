//! A success body that does not match the document fails the call naming the operation and the
//! JSON path: through the generated builders (`admin.list_webhooks().call()`), for each kind of
//! bad body, served over real HTTP on 127.0.0.1 by a server that writes exactly the bytes given.

use std::time::Duration;

use store_admin::prelude::*;
use store_admin::retry::RetryPolicy;
use store_admin::{Error, TransportKind};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Serves every request on a fresh port with `200`, `body` and a `Content-Length` of
/// `declared_length` (the body's own length unless the connection is to be cut short); returns
/// the base URL.
async fn serve(body: &'static [u8], declared_length: Option<usize>) -> String {
    serve_status("200 OK", body, declared_length).await
}

/// As [`serve`], with the status line's `status` (`"203 Non-Authoritative Information"`).
async fn serve_status(
    status: &'static str,
    body: &'static [u8],
    declared_length: Option<usize>,
) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buffer = [0u8; 4096];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buffer).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buffer[..n]),
                    }
                }
                let length = declared_length.unwrap_or(body.len());
                let head = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {length}\r\nconnection: close\r\n\r\n"
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(body).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    format!("http://{address}/admin/v2")
}

async fn list_webhooks(body: &'static [u8], declared_length: Option<usize>) -> Error {
    let admin = StoreAdmin::builder()
        .with_base_url(serve(body, declared_length).await)
        .with_token("token")
        .with_retry_policy(RetryPolicy::no_retries())
        .with_attempt_timeout(Duration::from_secs(5))
        .build()
        .expect("client");
    admin
        .list_webhooks()
        .call()
        .await
        .expect_err("the body does not match")
}

/// The `Error::Decode` of a call: (operation, path, message), and its `Display`.
fn decode_parts(error: &Error) -> (Option<&'static str>, String, String, String) {
    match error {
        Error::Decode {
            operation,
            path,
            message,
            ..
        } => (*operation, path.clone(), message.clone(), error.to_string()),
        other => panic!("not a decode error: {other:?}"),
    }
}

#[tokio::test]
async fn a_wrong_type_deep_in_a_list_item_names_the_operation_and_the_path() {
    let error = list_webhooks(
        br#"{"status":200,"success":true,"data":[{"id":1,"event":"order.created","url":"https://example.test/h","headers":{"x":"y"}},{"id":2,"event":"order.created","url":"https://example.test/h","headers":"oops"}]}"#,
        None,
    )
    .await;
    let (operation, path, message, display) = decode_parts(&error);
    assert_eq!(operation, Some("list_webhooks"));
    assert_eq!(path, "data[1].headers");
    assert!(
        message.starts_with("invalid type: string \"oops\", expected a map"),
        "{message}"
    );
    assert!(
        display.starts_with(
            "list_webhooks: the response body does not match the API document at `data[1].headers`: invalid type: string \"oops\""
        ),
        "{display}"
    );
    assert_eq!(error.operation(), Some("list_webhooks"));
}

#[tokio::test]
async fn a_missing_required_field_names_the_record_that_lacks_it() {
    let error = list_webhooks(
        br#"{"status":200,"success":true,"data":[{"id":1,"event":"order.created"}]}"#,
        None,
    )
    .await;
    let (operation, path, message, display) = decode_parts(&error);
    assert_eq!(operation, Some("list_webhooks"));
    assert_eq!(path, "data[0]");
    assert!(message.starts_with("missing field `url`"), "{message}");
    assert!(
        display.contains("list_webhooks") && display.contains("`data[0]`"),
        "{display}"
    );
}

#[tokio::test]
async fn a_body_that_is_not_json_names_the_whole_body() {
    let error = list_webhooks(b"<html><body>Bad gateway</body></html>", None).await;
    let (operation, path, message, display) = decode_parts(&error);
    assert_eq!(operation, Some("list_webhooks"));
    assert_eq!(path, ".");
    assert!(
        message.starts_with("expected value at line 1 column 1"),
        "{message}"
    );
    assert!(display.contains("(body starts with: <html>"), "{display}");
}

#[tokio::test]
async fn an_empty_body_names_the_whole_body() {
    let error = list_webhooks(b"", None).await;
    let (operation, path, message, _) = decode_parts(&error);
    assert_eq!(operation, Some("list_webhooks"));
    assert_eq!(path, ".");
    assert_eq!(message, "EOF while parsing a value at line 1 column 0");
}

#[tokio::test]
async fn a_body_cut_short_names_where_it_stopped() {
    let error = list_webhooks(
        br#"{"status":200,"success":true,"data":[{"id":1,"event":"order.cre"#,
        None,
    )
    .await;
    let (operation, path, message, _) = decode_parts(&error);
    assert_eq!(operation, Some("list_webhooks"));
    assert_eq!(path, "data[0].event");
    assert!(
        message.starts_with("EOF while parsing a string"),
        "{message}"
    );
}

/// A connection closed before the announced length is no decode error: the body never arrived.
#[tokio::test]
async fn a_connection_cut_mid_body_is_a_transport_error() {
    let error = list_webhooks(
        br#"{"status":200,"success":true,"data":[{"id":1,"#,
        Some(4096),
    )
    .await;
    match &error {
        Error::Transport { kind, .. } => assert_eq!(*kind, TransportKind::Body),
        other => panic!("not a transport error: {other:?}"),
    }
}

#[tokio::test]
async fn the_raw_generated_client_hands_back_the_body_to_locate_the_failure_in() {
    let base = serve(
        br#"{"status":200,"success":true,"data":[{"id":"x"}]}"#,
        None,
    )
    .await;
    let client = store_admin::Client::new(&base, store_admin_client::Inner::new());
    let error = client.list_webhooks().send().await.expect_err("bad id");
    let progenitor_client::Error::InvalidResponsePayload(body, _) = error else {
        panic!("not InvalidResponsePayload: {error:?}");
    };
    let decode = store_admin_client::DecodeError::locate::<store_admin::types::WebhookList>(
        "list_webhooks",
        &body,
    );
    assert_eq!(
        (decode.operation(), decode.path()),
        ("list_webhooks", "data[0].id")
    );
}

/// `call()` decodes the answer of the one status the operation documents itself, from the bytes
/// the runtime read; a success of another status still goes to the generated code, which refuses
/// it as a status the document does not list (and does not decode its body as the record).
#[tokio::test]
async fn a_success_of_a_status_the_document_does_not_list_is_not_read_as_the_record() {
    let body: &'static [u8] = br#"{"data": [], "status": 200, "success": true}"#;
    let admin = |base_url: String| {
        StoreAdmin::builder()
            .with_base_url(base_url)
            .with_token("token")
            .with_retry_policy(RetryPolicy::no_retries())
            .build()
            .expect("client")
    };
    let listed = admin(serve(body, None).await)
        .list_webhooks()
        .call()
        .await
        .expect("a 200 is read");
    assert!(listed.data.is_empty());
    let error = admin(serve_status("203 Non-Authoritative Information", body, None).await)
        .list_webhooks()
        .call()
        .await
        .expect_err("a 203 is not documented");
    let Error::Api(api) = &error else {
        panic!("not an API error: {error:?}");
    };
    assert_eq!(api.status.as_u16(), 203);
    assert_eq!(api.operation, Some("list_webhooks"));
    assert!(error.to_string().contains("does not list"), "{error}");
}

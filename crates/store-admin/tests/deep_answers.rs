//! No answer crashes a process (issue 37): an answer nested past the client's bound
//! (`store_admin_client::MAX_DEPTH`), 70, 1,000 or 100,000 levels deep, fails the call with a
//! decode error naming the depth and the bound, on a tokio worker's 2 MiB stack, whether it is a
//! success, an error answer, or a webhook delivery. Served over real HTTP on 127.0.0.1.

use std::time::Duration;

use secrecy::SecretString;
use store_admin::Error;
use store_admin::prelude::*;
use store_admin::retry::RetryPolicy;
use store_admin::webhooks::{WebhookError, parse_event, signed_headers, verify_and_parse};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const BOUND: usize = store_admin_client::MAX_DEPTH;

fn too_deep() -> String {
    format!("nested deeper than {BOUND} levels")
}

/// `{"status":200,"success":true,"data": [[[...1...]]]}`, `depth` levels in all.
fn nested(depth: usize) -> String {
    let inner = depth - 1;
    format!(
        "{{\"status\":200,\"success\":true,\"data\":{}1{}}}",
        "[".repeat(inner),
        "]".repeat(inner)
    )
}

/// Serves every request with `status` and `body`; the base URL.
async fn serve(status: u16, body: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    let body: &'static [u8] = Box::leak(body.into_bytes().into_boxed_slice());
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
                let head = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(body).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    format!("http://{address}/admin/v2")
}

async fn client(status: u16, body: String) -> StoreAdmin {
    StoreAdmin::builder()
        .with_base_url(serve(status, body).await)
        .with_token("token")
        .with_retry_policy(RetryPolicy::no_retries())
        .with_attempt_timeout(Duration::from_secs(5))
        .build()
        .expect("client")
}

/// A success nested past the bound is a decode error at the root, through `call()` and through
/// the builder's own `send()` (progenitor's error, the message only), on worker threads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_success_nested_past_the_bound_is_a_decode_error_naming_the_depth() {
    for depth in [BOUND + 1, 70, 1_000, 100_000] {
        let admin = client(200, nested(depth)).await;
        let error = tokio::spawn(async move { admin.list_order_statuses().call().await })
            .await
            .expect("the worker does not crash")
            .expect_err("too deep");
        match &error {
            Error::Decode {
                operation,
                path,
                message,
                ..
            } => {
                assert_eq!(*operation, Some("list_order_statuses"));
                assert_eq!(path, ".");
                assert!(message.contains(&too_deep()), "{message}");
                assert!(
                    message.contains(&format!("level {}", BOUND + 1)),
                    "{message}"
                );
            }
            other => panic!("{depth}: not a decode error: {other:?}"),
        }
        let admin = client(200, nested(depth)).await;
        let raw = tokio::spawn(async move { admin.list_order_statuses().send().await })
            .await
            .expect("the worker does not crash")
            .expect_err("too deep");
        assert!(raw.to_string().contains(&too_deep()), "{raw}");
    }
    // At the bound it is read (and fails for what it is, not for its depth).
    let admin = client(200, nested(BOUND)).await;
    let error = tokio::spawn(async move { admin.list_order_statuses().call().await })
        .await
        .expect("the worker does not crash")
        .expect_err("not a list of statuses");
    assert!(!error.to_string().contains(&too_deep()), "{error}");
}

/// An error answer nested past the bound is kept raw, never read: the call fails with its status.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_answer_nested_1000_deep_keeps_its_status() {
    let admin = client(422, nested(1_000)).await;
    let error = tokio::spawn(async move { admin.list_order_statuses().call().await })
        .await
        .expect("the worker does not crash")
        .expect_err("422");
    match error {
        Error::Api(api) => {
            assert_eq!(api.status.as_u16(), 422);
            assert!(api.raw_body.is_some());
        }
        other => panic!("not an API error: {other:?}"),
    }
}

/// A webhook delivery nested past the bound is refused before it is read, on a 2 MiB thread.
#[test]
fn a_webhook_delivery_nested_1000_deep_is_refused() {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let secret = SecretString::from("a-long-webhook-secret-from-the-partner-portal");
            for depth in [BOUND + 1, 1_000, 100_000] {
                let body = format!(
                    "{{\"event\":\"order.created\",\"merchant\":1,\"created_at\":\"2022-12-31 12:31:25\",\"data\":{}1{}}}",
                    "[".repeat(depth - 1),
                    "]".repeat(depth - 1)
                );
                let headers = signed_headers(&secret, body.as_bytes());
                for result in [
                    parse_event(body.as_bytes()),
                    verify_and_parse(&headers, body.as_bytes(), &secret),
                ] {
                    match result {
                        Err(WebhookError::Decode { path, message }) => {
                            assert_eq!(path, ".");
                            assert!(message.contains(&too_deep()), "{message}");
                        }
                        other => panic!("{depth}: {other:?}"),
                    }
                }
            }
            // Within the bound, a delivery parses.
            let body = br#"{"event":"order.created","merchant":1,"created_at":"2022-12-31 12:31:25","data":{"a":[[[1]]]}}"#;
            assert!(parse_event(body).is_ok());
        })
        .expect("a thread")
        .join()
        .expect("no panic");
}

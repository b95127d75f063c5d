//! The mock stays bounded under abuse: oversized bodies, oversized fields, full collections,
//! slow or silent connections, path segments that are not text, and the admin routes behind
//! their token. Every refusal is the service's error envelope.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use store_admin_mock::{Limits, MockConfig, MockServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common;
use crate::common::{ADMIN, call, post, start_with};

const MIB: usize = 1024 * 1024;

async fn server_with(limits: Limits) -> MockServer {
    start_with(
        MockConfig::new()
            .products(10)
            .token_all_scopes(ADMIN)
            .admin_token("admin-secret")
            .oauth_client("app", "app-secret")
            .limits(limits),
    )
    .await
}

fn root(server: &MockServer) -> String {
    format!("http://{}", server.addr())
}

fn assert_envelope(status: StatusCode, body: &Value, expected: u16) {
    assert_eq!(status.as_u16(), expected, "{body}");
    assert_eq!(body["status"], expected, "{body}");
    assert_eq!(body["success"], false, "{body}");
    assert!(body["error"]["message"].is_string(), "{body}");
}

async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().await.expect("sent");
    let status = response.status();
    let bytes = response.bytes().await.expect("body");
    let value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
    (status, value)
}

#[tokio::test]
async fn bodies_over_one_mebibyte_get_413_in_the_envelope_on_every_route() {
    let server = server_with(Limits::default()).await;
    let big = vec![b'a'; MIB + 1];
    let client = common::client();
    let routes = [
        (Method::POST, format!("{}/categories", server.base_url())),
        (Method::POST, format!("{}/shipments", server.base_url())),
        (Method::PUT, format!("{}/webhooks/1", server.base_url())),
        (Method::POST, format!("{}/oauth2/token", root(&server))),
        (Method::PUT, format!("{}/__admin/faults", root(&server))),
        (
            Method::POST,
            format!("{}/__admin/events/test", root(&server)),
        ),
    ];
    for (method, url) in &routes {
        // Announced by Content-Length.
        let (status, body) = send(
            client
                .request(method.clone(), url)
                .bearer_auth(if url.contains("__admin") {
                    "admin-secret"
                } else {
                    ADMIN
                })
                .body(big.clone()),
        )
        .await;
        assert_envelope(status, &body, 413);
        // Streamed without a length (chunked): refused when it runs over.
        let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
            (0..17).map(|_| Ok(vec![b' '; 64 * 1024])).collect();
        let stream = futures::stream::iter(chunks);
        let (status, body) = send(
            client
                .request(method.clone(), url)
                .bearer_auth(if url.contains("__admin") {
                    "admin-secret"
                } else {
                    ADMIN
                })
                .body(reqwest::Body::wrap_stream(stream)),
        )
        .await;
        assert_envelope(status, &body, 413);
    }
    // Just under the limit is read (and judged on its content).
    let mut fine = b"{\"name\": \"x\"".to_vec();
    fine.resize(MIB - 1, b' ');
    fine.push(b'}');
    let (status, _) = send(
        client
            .post(format!("{}/categories", server.base_url()))
            .bearer_auth(ADMIN)
            .body(fine),
    )
    .await;
    assert_ne!(status.as_u16(), 413);
}

#[tokio::test]
async fn a_field_over_ten_kibibytes_is_422_on_that_field() {
    let server = server_with(Limits::default()).await;
    let long = "x".repeat(10 * 1024 + 1);
    let (status, body) = post(&server, "/categories", json!({ "name": long })).await;
    assert_envelope(status, &body, 422);
    assert!(body["error"]["fields"]["name"].is_array(), "{body}");
    let (status, body) = post(
        &server,
        "/shipments",
        json!({ "packages": [{ "name": "x".repeat(20_000) }] }),
    )
    .await;
    assert_envelope(status, &body, 422);
    assert!(
        body["error"]["fields"]["packages.0.name"].is_array(),
        "{body}"
    );
}

#[tokio::test]
async fn a_full_collection_refuses_new_records_with_422() {
    let server = server_with(Limits {
        collection_records: 14,
        ..Limits::default()
    })
    .await;
    // The seed holds 10 categories: four more fit, the fifth does not.
    let mut statuses = Vec::new();
    for i in 0..5 {
        let (status, body) = post(&server, "/categories", json!({ "name": format!("c{i}") })).await;
        statuses.push(status.as_u16());
        if status.as_u16() == 422 {
            assert!(body["error"]["fields"]["body"].is_array(), "{body}");
        }
    }
    assert_eq!(statuses, [201, 201, 201, 201, 422]);
    // Webhooks too (an override).
    let server = server_with(Limits {
        collection_records: 2,
        ..Limits::default()
    })
    .await;
    let (status, body) = post(
        &server,
        "/webhooks/subscribe",
        json!({"name": "n", "event": "order.created", "url": "https://hooks.example/full"}),
    )
    .await;
    assert_envelope(status, &body, 422);
}

/// Reads until the peer closes (true) or `within` passes (false).
async fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buffer = [0u8; 1024];
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        match tokio::time::timeout(left, stream.read(&mut buffer)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
            Err(_) => return false,
        }
    }
}

#[tokio::test]
async fn slow_and_silent_connections_are_closed_after_the_header_timeout() {
    let server = server_with(Limits {
        header_read_timeout: Duration::from_secs(1),
        ..Limits::default()
    })
    .await;
    let started = Instant::now();
    let mut connections = Vec::new();
    for i in 0..50 {
        let mut stream = TcpStream::connect(server.addr()).await.expect("connects");
        if i % 2 == 0 {
            // Half a request head, never finished.
            stream
                .write_all(b"GET /admin/v2/orders HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                .await
                .expect("writes");
        }
        connections.push(stream);
    }
    for stream in &mut connections {
        assert!(
            closed_within(stream, Duration::from_secs(5)).await,
            "a connection stayed open"
        );
    }
    assert!(started.elapsed() < Duration::from_secs(8));
    // A prompt client is served as ever.
    let (status, _) = common::get(&server, "/orders/statuses").await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn path_segments_that_are_not_text_get_an_enveloped_404() {
    let server = server_with(Limits::default()).await;
    for path in [
        "/orders/%FF%FE",
        "/shipments/%C3%28/tracking",
        "/%FF/x",
        "/orders/%00",
    ] {
        let (status, body) = call(&server, Method::GET, path, Some(ADMIN), None).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {body}");
        assert_envelope(status, &body, 404);
    }
    let (status, body) = call(
        &server,
        Method::POST,
        "/shipments/%FF/cancel",
        Some(ADMIN),
        None,
    )
    .await;
    assert_envelope(status, &body, 404);
}

#[tokio::test]
async fn admin_routes_need_the_admin_token_when_one_is_configured() {
    let server = server_with(Limits::default()).await;
    let client = common::client();
    for path in ["/__admin/faults", "/__admin/deliveries", "/__admin/oauth"] {
        let url = format!("{}{path}", root(&server));
        let (status, body) = send(client.get(&url)).await;
        assert_envelope(status, &body, 401);
        let (status, body) = send(client.get(&url).bearer_auth(ADMIN)).await;
        assert_envelope(status, &body, 401);
        let (status, _) = send(client.get(&url).bearer_auth("admin-secret")).await;
        assert_eq!(status, StatusCode::OK, "{path}");
    }
    let (status, body) = send(client.post(format!("{}/__admin/events/test", root(&server)))).await;
    assert_envelope(status, &body, 401);
    // Without an admin token they are open.
    let open = start_with(MockConfig::new().products(5).token_all_scopes(ADMIN)).await;
    let (status, _) = send(client.get(format!("{}/__admin/faults", root(&open)))).await;
    assert_eq!(status, StatusCode::OK);
}

fn rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_stays_under_200_mb_after_a_thousand_one_mebibyte_requests() {
    let server = server_with(Limits::default()).await;
    let client = common::client();
    // Valid JSON just under the limit: one big array of short strings (a record that big is
    // refused), and an oversized raw body for the token endpoint and the API.
    let mut array = String::from("{\"name\": \"n\", \"items\": [");
    while array.len() < MIB - 64 {
        array.push_str("\"abcdefghij\",");
    }
    array.push_str("\"z\"]}");
    let array = bytes::Bytes::from(array);
    let raw = bytes::Bytes::from(vec![b'x'; MIB]);
    let targets = [
        format!("{}/categories", server.base_url()),
        format!("{}/shipments", server.base_url()),
        format!("{}/webhooks/subscribe", server.base_url()),
        format!("{}/oauth2/token", root(&server)),
    ];
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..1000 {
        let client = client.clone();
        let url = targets[i % targets.len()].clone();
        let body = if i % 2 == 0 {
            array.clone()
        } else {
            raw.clone()
        };
        tasks.spawn(async move {
            let response = client.post(url).bearer_auth(ADMIN).body(body).send().await;
            response.map(|r| r.status().as_u16()).unwrap_or(0)
        });
        if tasks.len() >= 16 {
            let status = tasks.join_next().await.and_then(Result::ok).unwrap_or(0);
            assert!(matches!(status, 400..=499), "status {status}");
        }
    }
    while let Some(status) = tasks.join_next().await {
        let status = status.unwrap_or(0);
        assert!(matches!(status, 400..=499), "status {status}");
    }
    if let Some(rss) = rss_bytes() {
        eprintln!("RSS after 1,000 requests of 1 MiB: {} MB", rss / 1_000_000);
        assert!(rss < 200_000_000, "RSS {rss} bytes");
    }
    // The store did not grow by those bodies.
    let (status, body) = common::get(&server, "/webhooks").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        body["pagination"]["total"].as_u64().unwrap_or(0) < 10,
        "{body}"
    );
}

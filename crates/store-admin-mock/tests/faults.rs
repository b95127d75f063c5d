//! Each fault kind, observed by a plain reqwest client.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use store_admin_mock::{
    ChanceFault, ErrorFault, FaultConfig, LatencyFault, MockConfig, RateLimitFault, SlowBodyFault,
};

use crate::common::{ADMIN, client, start_with};

fn config(faults: FaultConfig) -> MockConfig {
    MockConfig::new()
        .seed(9)
        .products(30)
        .token_all_scopes(ADMIN)
        .token_all_scopes("second")
        .faults(faults)
}

async fn get(server: &store_admin_mock::MockServer, path: &str, token: &str) -> reqwest::Response {
    client()
        .get(format!("{}{path}", server.base_url()))
        .bearer_auth(token)
        .send()
        .await
        .expect("answered")
}

#[tokio::test]
async fn latency_makes_a_short_client_timeout_expire() {
    let faults = FaultConfig {
        latency: Some(LatencyFault {
            millis: 3_000,
            operations: vec!["list_orders".into()],
        }),
        ..FaultConfig::default()
    };
    let server = start_with(config(faults)).await;
    let impatient = reqwest::Client::builder()
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let error = impatient
        .get(format!("{}/orders", server.base_url()))
        .bearer_auth(ADMIN)
        .send()
        .await
        .expect_err("the added latency outlasts the timeout");
    assert!(error.is_timeout(), "{error:?}");
    // Other operations are not delayed by a fault limited to list_orders.
    let response = impatient
        .get(format!("{}/orders/statuses", server.base_url()))
        .bearer_auth(ADMIN)
        .send()
        .await
        .expect("not delayed");
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn rate_limit_answers_429_with_retry_after_and_headers_per_token() {
    let faults = FaultConfig {
        rate_limit: Some(RateLimitFault {
            per_minute: 3,
            operations: Vec::new(),
        }),
        ..FaultConfig::default()
    };
    let server = start_with(config(faults)).await;
    let mut remaining = Vec::new();
    for _ in 0..3 {
        let response = get(&server, "/orders/statuses", ADMIN).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["x-ratelimit-limit"], "3");
        assert!(response.headers().contains_key("x-ratelimit-reset"));
        remaining.push(
            response.headers()["x-ratelimit-remaining"]
                .to_str()
                .unwrap()
                .to_owned(),
        );
    }
    assert_eq!(remaining, ["2", "1", "0"]);
    let limited = get(&server, "/orders/statuses", ADMIN).await;
    assert_eq!(limited.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry_after: u64 = limited.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    assert_eq!(limited.headers()["x-ratelimit-remaining"], "0");
    let body: Value = limited.json().await.unwrap();
    assert_eq!(body["status"], 429);
    assert_eq!(body["success"], false);
    // Another token has its own bucket.
    assert_eq!(
        get(&server, "/orders/statuses", "second").await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn server_errors_are_injected_a_limited_number_of_times_on_chosen_operations() {
    let faults = FaultConfig {
        errors: Some(ErrorFault {
            rate: 1.0,
            statuses: vec![503],
            times: Some(2),
            operations: vec!["list_orders".into()],
        }),
        ..FaultConfig::default()
    };
    let server = start_with(config(faults)).await;
    assert_eq!(
        get(&server, "/orders/statuses", ADMIN).await.status(),
        StatusCode::OK
    );
    for _ in 0..2 {
        let response = get(&server, "/orders", ADMIN).await;
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["status"], 503);
        assert_eq!(body["success"], false);
    }
    assert_eq!(
        get(&server, "/orders", ADMIN).await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn dropped_connection_is_a_transport_error_without_any_response() {
    let faults = FaultConfig {
        drop_connection: Some(ChanceFault::always()),
        ..FaultConfig::default()
    };
    let server = start_with(config(faults)).await;
    let error = client()
        .get(format!("{}/orders", server.base_url()))
        .bearer_auth(ADMIN)
        .send()
        .await
        .expect_err("no response arrives");
    assert!(!error.is_status() && !error.is_timeout(), "{error:?}");
    server.set_faults(FaultConfig::none()).unwrap();
    assert_eq!(
        get(&server, "/orders", ADMIN).await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn truncated_body_announces_more_bytes_than_it_sends() {
    let faults = FaultConfig {
        truncate_body: Some(ChanceFault::always()),
        ..FaultConfig::default()
    };
    let server = start_with(config(faults)).await;
    let response = get(&server, "/orders/statuses", ADMIN).await;
    assert_eq!(response.status(), StatusCode::OK);
    let announced: usize = response.headers()["content-length"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(announced > 100);
    let error = response.bytes().await.expect_err("the body stops early");
    assert!(error.is_body() || error.is_decode(), "{error:?}");
}

#[tokio::test]
async fn slow_body_arrives_whole_in_several_chunks() {
    let server = start_with(config(FaultConfig::default())).await;
    let normal = get(&server, "/orders/statuses", ADMIN)
        .await
        .bytes()
        .await
        .unwrap();
    server
        .set_faults(FaultConfig {
            slow_body: Some(SlowBodyFault {
                chunk_bytes: 256,
                delay_millis: 20,
                rate: 1.0,
                operations: Vec::new(),
            }),
            ..FaultConfig::default()
        })
        .unwrap();
    let mut response = get(&server, "/orders/statuses", ADMIN).await;
    let mut chunks = 0;
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.unwrap() {
        chunks += 1;
        body.extend_from_slice(&chunk);
    }
    assert_eq!(body, normal.to_vec());
    assert!(
        chunks >= normal.len() / 256,
        "{chunks} chunks for {} bytes",
        normal.len()
    );
}

async fn statuses_under(seed: u64) -> Vec<u16> {
    let faults = FaultConfig {
        errors: Some(ErrorFault {
            rate: 0.5,
            statuses: vec![500, 502, 503],
            times: None,
            operations: Vec::new(),
        }),
        ..FaultConfig::default()
    };
    let server = start_with(config(faults).seed(seed)).await;
    let mut statuses = Vec::new();
    for _ in 0..24 {
        statuses.push(
            get(&server, "/orders/statuses", ADMIN)
                .await
                .status()
                .as_u16(),
        );
    }
    statuses
}

#[tokio::test]
async fn faults_are_the_same_under_the_same_seed() {
    let first = statuses_under(5).await;
    assert_eq!(first, statuses_under(5).await);
    assert!(
        first.contains(&200) && first.iter().any(|s| *s >= 500),
        "{first:?}"
    );
    assert_ne!(first, statuses_under(6).await);
}

#[tokio::test]
async fn admin_route_reads_and_replaces_faults_at_run_time() {
    let server = start_with(config(FaultConfig::default())).await;
    let admin = server.faults_url();
    let current: Value = client()
        .get(&admin)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(current, json!({}));
    let response = client()
        .put(&admin)
        .json(&json!({"errors": {"rate": 1.0, "statuses": [502]}}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        get(&server, "/orders", ADMIN).await.status(),
        StatusCode::BAD_GATEWAY
    );
    let bad = client()
        .put(&admin)
        .json(&json!({"errors": {"rate": 7.0}}))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body: Value = bad.json().await.unwrap();
    assert!(body["error"]["fields"]["errors.rate"].is_array(), "{body}");
    let cleared = client().delete(&admin).send().await.unwrap();
    assert_eq!(cleared.status(), StatusCode::OK);
    assert_eq!(
        get(&server, "/orders", ADMIN).await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn admin_requests_counts_answers_and_429s_per_operation_id() {
    let faults = FaultConfig {
        rate_limit: Some(RateLimitFault {
            per_minute: 3,
            operations: vec!["list_orders".into()],
        }),
        drop_connection: Some(ChanceFault {
            rate: 1.0,
            times: Some(1),
            operations: vec!["list_order_statuses".into()],
        }),
        ..FaultConfig::default()
    };
    let server = start_with(config(faults).admin_token("the-admin-secret")).await;
    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(get(&server, "/orders", ADMIN).await.status().as_u16());
    }
    assert_eq!(statuses, [200, 200, 200, 429, 429]);
    // The first call's connection is dropped (no answer), the second is answered.
    assert!(
        client()
            .get(format!("{}/orders/statuses", server.base_url()))
            .bearer_auth(ADMIN)
            .send()
            .await
            .is_err()
    );
    assert_eq!(
        get(&server, "/orders/statuses", ADMIN).await.status(),
        StatusCode::OK
    );
    // A refused token is an answer too.
    assert_eq!(
        get(&server, "/products", "not-a-token").await.status(),
        StatusCode::UNAUTHORIZED
    );

    let url = format!("http://{}/__admin/requests", server.addr());
    let unguarded = client().get(&url).send().await.unwrap();
    assert_eq!(unguarded.status(), StatusCode::UNAUTHORIZED);
    let counts: Value = client()
        .get(&url)
        .bearer_auth("the-admin-secret")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(counts["list_orders"], json!({"total": 5, "429": 2}));
    assert_eq!(counts["list_order_statuses"], json!({"total": 1, "429": 0}));
    assert_eq!(counts["list_products"], json!({"total": 1, "429": 0}));
    assert_eq!(counts["get_order"], json!({"total": 0, "429": 0}));
    let map = counts.as_object().unwrap();
    assert_eq!(map.len(), server.request_counts().len(), "every operation");
    assert_eq!(server.request_counts()["list_orders"].too_many_requests, 2);
    // Received counts the dropped request, answered does not.
    assert_eq!(server.requests_received("list_order_statuses"), 2);
}

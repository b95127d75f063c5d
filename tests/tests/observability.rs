//! What a service team plugs in: the metrics (the `metrics` feature) count durations, retries,
//! 429s and skipped records per operation and store; an error names the answer's request id and
//! date. (The spans are checked in `observability_spans.rs`, a process of their own: a
//! subscriber set for one test thread meets the callsites other tests' threads register.)

use std::collections::BTreeMap;
use std::time::Duration;

use futures::TryStreamExt;
use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use store_admin::prelude::*;
use store_admin::retry::RetryPolicy;
use store_admin::{PageOptions, Paginate, Skipped, StoreAdmin};
use store_admin_mock::{CorruptRecordsFault, ErrorFault, FaultConfig, MockConfig, MockServer};

const TOKEN: &str = "observability-secret-token";

async fn mock(faults: FaultConfig) -> MockServer {
    MockServer::start(
        MockConfig::new()
            .products(30)
            .token_all_scopes(TOKEN)
            .faults(faults),
    )
    .await
    .expect("mock")
}

fn admin(server: &MockServer) -> StoreAdmin {
    StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(TOKEN)
        .with_store_label("1234509876")
        .with_retry_policy(RetryPolicy::default().with_base_delay(Duration::from_millis(5)))
        .build()
        .expect("client")
}

fn retry_once(operation: &str) -> FaultConfig {
    FaultConfig {
        errors: Some(ErrorFault {
            rate: 1.0,
            statuses: vec![503],
            times: Some(1),
            operations: vec![operation.into()],
        }),
        ..FaultConfig::default()
    }
}

#[test]
fn metrics_count_calls_retries_and_skipped_records_per_operation_and_store() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let skipped = metrics::with_local_recorder(&recorder, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut faults = retry_once("list_orders");
            faults.corrupt_records = Some(CorruptRecordsFault {
                every: 10,
                operations: vec!["list_product_quantities".into()],
            });
            let server = mock(faults).await;
            let admin = admin(&server);
            admin.list_orders().call_full().await.expect("answered");
            let skipped = Skipped::new();
            let rows: Vec<_> = admin
                .list_product_quantities()
                .items(PageOptions::default().skip_undecodable(&skipped))
                .try_collect()
                .await
                .expect("lenient");
            assert!(!rows.is_empty());
            assert!(!skipped.is_empty());
            let missing = admin
                .get_order()
                .order_id(999_999_999_i64)
                .call_full()
                .await;
            assert!(missing.is_err());
            skipped.len()
        })
    });
    let mut seen: BTreeMap<String, f64> = BTreeMap::new();
    for (key, _, _, value) in snapshotter.snapshot().into_vec() {
        let key = key.key();
        let mut labels: Vec<String> = key
            .labels()
            .map(|l| format!("{}={}", l.key(), l.value()))
            .collect();
        labels.sort();
        let amount = match value {
            DebugValue::Counter(n) => n as f64,
            DebugValue::Histogram(values) => values.len() as f64,
            DebugValue::Gauge(g) => g.into_inner(),
        };
        seen.insert(format!("{} {}", key.name(), labels.join(",")), amount);
    }
    let expect = [
        (
            "http.client.request.duration http.response.status_code=200,operation=list_orders,store=1234509876",
            1.0,
        ),
        (
            "http.client.request.duration http.response.status_code=404,operation=get_order,store=1234509876",
            1.0,
        ),
        (
            "store_admin.retries operation=list_orders,store=1234509876",
            1.0,
        ),
        (
            "store_admin.records.skipped operation=list_product_quantities",
            skipped as f64,
        ),
    ];
    for (name, amount) in expect {
        assert_eq!(seen.get(name), Some(&amount), "{name} in {seen:#?}");
    }
}

/// An error carries what a support ticket needs: the answer's request id and date.
#[tokio::test]
async fn an_error_names_the_answers_request_id_and_date() {
    use axum::http::{HeaderMap, StatusCode};
    let app = axum::Router::new().fallback(|| async {
        let mut headers = HeaderMap::new();
        headers.insert("cf-ray", "8c1d2e3f4a5b6c7d-JED".parse().unwrap());
        headers.insert("date", "Thu, 26 Nov 2026 08:00:00 GMT".parse().unwrap());
        headers.insert("content-type", "application/json".parse().unwrap());
        (
            StatusCode::NOT_FOUND,
            headers,
            r#"{"status":404,"success":false,"error":{"code":404,"message":"not here"}}"#,
        )
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/admin/v2", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let admin = StoreAdmin::builder()
        .with_base_url(base)
        .with_token(TOKEN)
        .build()
        .unwrap();
    let error = admin
        .get_order()
        .order_id(1_i64)
        .call()
        .await
        .expect_err("404");
    let api = error.api().expect("an API error");
    assert_eq!(
        api.request_ids,
        [("cf-ray".to_owned(), "8c1d2e3f4a5b6c7d-JED".to_owned())]
    );
    assert_eq!(api.date.as_deref(), Some("Thu, 26 Nov 2026 08:00:00 GMT"));
    let text = error.to_string();
    assert!(text.contains("get_order"), "{text}");
    assert!(text.contains("cf-ray 8c1d2e3f4a5b6c7d-JED"), "{text}");
}

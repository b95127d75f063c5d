//! `StoreAdmin` against the mock store over real HTTP on 127.0.0.1, with the mock's fault injection.

use std::collections::HashSet;
use std::time::Duration;

use futures::TryStreamExt;
use store_admin::prelude::*;
use store_admin::retry::RetryPolicy;
use store_admin::types;
use store_admin::{Error, PageOptions, Paginate, StoreAdmin, TransportKind};
use store_admin_mock::{
    ChanceFault, ErrorFault, FaultConfig, LatencyFault, MockConfig, MockServer, RateLimitFault,
};

const TOKEN: &str = "e2e-token";

async fn mock(config: MockConfig) -> MockServer {
    MockServer::start(config.token_all_scopes(TOKEN))
        .await
        .expect("mock starts")
}

/// A small store (20 products) with these faults.
async fn faulty(faults: FaultConfig) -> MockServer {
    mock(MockConfig::new().products(20).faults(faults)).await
}

fn admin(server: &MockServer) -> StoreAdmin {
    StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(TOKEN)
        .with_retry_policy(
            RetryPolicy::default()
                .with_base_delay(Duration::from_millis(5))
                .with_max_delay(Duration::from_millis(50)),
        )
        .build()
        .expect("client builds")
}

#[tokio::test]
async fn typed_call_with_filters_decodes_a_page() {
    let server = mock(MockConfig::new().products(200)).await;
    let admin = admin(&server);
    let page = admin
        .list_product_quantities()
        .per_page(7u64)
        .call_full()
        .await
        .expect("lists");
    assert_eq!(page.status().as_u16(), 200);
    assert_eq!(page.data.len(), 7);
    let pagination = page.pagination.as_ref().expect("the mock pages its lists");
    assert_eq!(pagination.per_page, 7);
    assert!(
        pagination.total >= 200,
        "every product has at least one row"
    );
}

#[tokio::test]
async fn every_item_of_a_list_is_yielded_exactly_once_with_concurrent_pages() {
    let server = mock(MockConfig::new().products(300)).await;
    let admin = admin(&server);
    let first = admin
        .list_product_quantities()
        .per_page(60u64)
        .call_full()
        .await
        .expect("lists");
    let total = first
        .pagination
        .as_ref()
        .expect("the mock pages its lists")
        .total as usize;

    let rows: Vec<types::ProductQuantity> = admin
        .list_product_quantities()
        .items(PageOptions::default().per_page(60).concurrency(4))
        .try_collect()
        .await
        .expect("every page");
    assert_eq!(rows.len(), total);
    let keys: HashSet<(i64, String)> = rows
        .iter()
        .map(|r| (r.id, format!("{:?}", r.sku_id)))
        .collect();
    assert_eq!(keys.len(), total, "no row repeated");
}

#[tokio::test]
async fn filters_are_carried_to_every_page() {
    let server = mock(MockConfig::new().products(300)).await;
    let admin = admin(&server);
    let all: Vec<types::ProductQuantity> = admin
        .list_product_quantities()
        .items(PageOptions::default().per_page(60))
        .try_collect()
        .await
        .expect("all");
    let keyword = all[0]
        .name
        .split_whitespace()
        .next()
        .expect("a word")
        .to_string();
    let expected = all
        .iter()
        .filter(|r| {
            r.name.contains(&keyword) || r.sku.as_deref().is_some_and(|s| s.contains(&keyword))
        })
        .count();
    let filtered: Vec<types::ProductQuantity> = admin
        .list_product_quantities()
        .keyword(keyword.clone())
        .items(PageOptions::default().per_page(5).concurrency(2))
        .try_collect()
        .await
        .expect("filtered");
    assert!(!filtered.is_empty());
    assert_eq!(
        filtered.len(),
        expected,
        "keyword {keyword:?} kept on every page"
    );
}

#[tokio::test]
async fn export_under_ten_percent_faults_yields_every_item_exactly_once() {
    let server = mock(MockConfig::new().products(400).seed(7)).await;
    let admin = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(TOKEN)
        .with_retry_policy(
            RetryPolicy::default()
                .with_max_attempts(8)
                .with_base_delay(Duration::from_millis(2))
                .with_max_delay(Duration::from_millis(20)),
        )
        .build()
        .expect("builds");
    let clean: Vec<types::ProductQuantity> = admin
        .list_product_quantities()
        .items(PageOptions::default().per_page(20))
        .try_collect()
        .await
        .expect("clean export");

    server
        .set_faults(FaultConfig {
            errors: Some(ErrorFault {
                rate: 0.05,
                statuses: vec![500, 502, 503],
                times: None,
                operations: vec![],
            }),
            drop_connection: Some(ChanceFault {
                rate: 0.03,
                times: None,
                operations: vec![],
            }),
            truncate_body: Some(ChanceFault {
                rate: 0.02,
                times: None,
                operations: vec![],
            }),
            ..FaultConfig::default()
        })
        .expect("valid faults");
    let faulty: Vec<types::ProductQuantity> = admin
        .list_product_quantities()
        .items(PageOptions::default().per_page(20).concurrency(4))
        .try_collect()
        .await
        .expect("export survives the faults");
    assert_eq!(
        faulty, clean,
        "same items, same order, none lost or repeated"
    );
}

#[tokio::test]
async fn retries_429_after_retry_after_and_succeeds() {
    // 60 a minute with a bucket of 60: the 61st request in a burst gets 429 with Retry-After 1.
    let server = faulty(FaultConfig {
        rate_limit: Some(RateLimitFault {
            per_minute: 60,
            operations: vec![],
        }),
        ..FaultConfig::default()
    })
    .await;
    let admin = admin(&server);
    for _ in 0..60 {
        admin
            .list_order_statuses()
            .call_full()
            .await
            .expect("within the bucket");
    }
    let started = std::time::Instant::now();
    let statuses = admin
        .list_order_statuses()
        .call_full()
        .await
        .expect("retried after Retry-After");
    assert!(!statuses.data.is_empty());
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "waited for Retry-After"
    );
}

#[tokio::test]
async fn a_burst_of_5xx_is_retried() {
    let server = faulty(FaultConfig {
        errors: Some(ErrorFault {
            rate: 1.0,
            statuses: vec![503, 502],
            times: Some(2),
            operations: vec![],
        }),
        ..FaultConfig::default()
    })
    .await;
    let admin = admin(&server);
    let statuses = admin
        .list_order_statuses()
        .call_full()
        .await
        .expect("third attempt succeeds");
    assert!(!statuses.data.is_empty());
    assert_eq!(
        server.requests_received("list_order_statuses"),
        3,
        "two 5xx, then the answer"
    );
}

#[tokio::test]
async fn exhausted_retries_return_the_last_5xx_with_its_status() {
    let server = faulty(FaultConfig {
        errors: Some(ErrorFault {
            rate: 1.0,
            statuses: vec![503],
            times: None,
            operations: vec![],
        }),
        ..FaultConfig::default()
    })
    .await;
    let admin = admin(&server);
    let err: Error = admin
        .list_order_statuses()
        .call()
        .await
        .expect_err("always 503");
    assert_eq!(
        server.requests_received("list_order_statuses"),
        3,
        "the policy's 3 attempts"
    );
    assert_eq!(err.status().map(|s| s.as_u16()), Some(503));
    assert!(err.is_retryable());
    assert!(err.to_string().contains("list_order_statuses"), "{err}");
}

#[tokio::test]
async fn dropped_connection_is_retried_for_get() {
    let server = faulty(FaultConfig {
        drop_connection: Some(ChanceFault {
            rate: 1.0,
            times: Some(1),
            operations: vec![],
        }),
        ..FaultConfig::default()
    })
    .await;
    let admin = admin(&server);
    admin
        .list_order_statuses()
        .call_full()
        .await
        .expect("second attempt succeeds");
}

#[tokio::test]
async fn dropped_connection_is_not_retried_for_post() {
    let server = faulty(FaultConfig {
        drop_connection: Some(ChanceFault {
            rate: 1.0,
            times: Some(1),
            operations: vec!["create_category".into()],
        }),
        ..FaultConfig::default()
    })
    .await;
    let admin = admin(&server);
    let body = types::CreateCategoryRequest::builder().name("Not twice");
    let err: Error = admin
        .create_category()
        .body(body)
        .call()
        .await
        .expect_err("not retried");
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    // The request may have been processed: it was sent once, never repeated.
    assert_eq!(server.requests_received("create_category"), 1);
}

#[tokio::test]
async fn truncated_body_is_retried() {
    let server = faulty(FaultConfig {
        truncate_body: Some(ChanceFault {
            rate: 1.0,
            times: Some(1),
            operations: vec![],
        }),
        ..FaultConfig::default()
    })
    .await;
    let admin = admin(&server);
    let statuses = admin
        .list_order_statuses()
        .call_full()
        .await
        .expect("second attempt whole");
    assert!(!statuses.data.is_empty());
}

#[tokio::test]
async fn a_slow_service_times_out_with_a_clear_error() {
    let server = faulty(FaultConfig {
        latency: Some(LatencyFault {
            millis: 2_000,
            operations: vec![],
        }),
        ..FaultConfig::default()
    })
    .await;
    let admin = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(TOKEN)
        .with_attempt_timeout(Duration::from_millis(100))
        .with_retry_policy(
            RetryPolicy::default()
                .with_max_attempts(2)
                .with_base_delay(Duration::from_millis(1)),
        )
        .build()
        .expect("builds");
    let err: Error = admin
        .list_order_statuses()
        .call()
        .await
        .expect_err("times out");
    assert!(
        matches!(
            err,
            Error::Transport {
                kind: TransportKind::Timeout,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("timed out (no whole response within 100 ms)"),
        "{err}"
    );
}

#[tokio::test]
async fn validation_errors_name_their_fields() {
    let server = mock(MockConfig::new().products(20)).await;
    let admin = admin(&server);
    let body = types::AddLanguagesRequest::builder().locales(vec![
        types::LocaleInput::builder()
            // Three letters (the document's maxLength) but no language the store offers: the
            // client sends it, the store rejects it.
            .iso_code("zzz")
            .try_into()
            .expect("valid builder"),
    ]);
    let err: Error = admin
        .add_languages()
        .body(body)
        .call()
        .await
        .expect_err("422");
    assert_eq!(err.status().map(|s| s.as_u16()), Some(422));
    let fields = err.validation_errors().expect("field errors");
    assert!(
        fields.keys().any(|k| k.starts_with("locales.0")),
        "{fields:?}"
    );
    assert!(err.to_string().contains("locales.0"), "{err}");
}

#[tokio::test]
async fn not_found_is_matchable() {
    let server = mock(MockConfig::new().products(20)).await;
    let admin = admin(&server);
    let err: Error = admin
        .cancel_shipment()
        .shipment_id(987_654_321_i64)
        .call()
        .await
        .expect_err("404");
    assert!(err.is_not_found(), "{err:?}");
    assert!(!err.is_retryable());
}

#[tokio::test]
async fn missing_scope_names_the_scope_the_operation_needs() {
    let server = MockServer::start(
        MockConfig::new()
            .products(20)
            .token("orders-only", ["orders.read"]),
    )
    .await
    .expect("starts");
    let admin = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token("orders-only")
        .build()
        .expect("builds");
    let err: Error = admin.list_webhooks().call().await.expect_err("401");
    assert!(err.is_unauthorized());
    let text = err.to_string();
    assert!(text.contains("webhooks.read"), "{text}");
    assert!(
        !text.contains("orders-only"),
        "the token never appears: {text}"
    );
}

#[tokio::test]
async fn secrets_never_appear_in_debug_output() {
    let server = mock(MockConfig::new().products(20)).await;
    let admin = admin(&server);
    let debug = format!("{admin:?}");
    assert!(!debug.contains(TOKEN), "{debug}");
    let err: Error = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token("wrong-secret-token")
        .build()
        .expect("builds")
        .list_orders()
        .call()
        .await
        .expect_err("401");
    assert!(!format!("{err:?}").contains("wrong-secret-token"));
    assert!(!err.to_string().contains("wrong-secret-token"));
}

/// Sends `requests` calls in a row through a client with `limit` and no retries, against a store
/// allowing 60 a minute (a bucket of 60, then one a second): a single 429 fails the job.
async fn bulk_job_meets_no_429(limit: store_admin::ratelimit::RateLimit, requests: usize) {
    let server = faulty(FaultConfig {
        rate_limit: Some(RateLimitFault {
            per_minute: 60,
            operations: vec![],
        }),
        ..FaultConfig::default()
    })
    .await;
    let admin = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(TOKEN)
        .with_retry_policy(RetryPolicy::no_retries())
        .with_rate_limit(limit)
        .build()
        .expect("builds");
    for i in 0..requests {
        admin
            .list_order_statuses()
            .call_full()
            .await
            .unwrap_or_else(|e| panic!("request {i} met {}", e));
    }
}

#[tokio::test]
async fn client_side_rate_limit_keeps_a_bulk_job_clear_of_429() {
    // The client is sized to the store's plan.
    let limit = store_admin::ratelimit::RateLimit::per_minute(
        std::num::NonZeroU32::new(60).expect("non zero"),
    );
    bulk_job_meets_no_429(limit, 63).await;
}

#[tokio::test]
async fn remaining_zero_from_the_server_pauses_the_client_until_a_slot_leaks() {
    // The client believes in a much larger plan; the server's X-RateLimit-Remaining keeps it in step.
    let limit = store_admin::ratelimit::RateLimit::plan(store_admin::ratelimit::Plan::Special);
    bulk_job_meets_no_429(limit, 62).await;
}

mod tracing_capture {
    use std::sync::{Arc, Mutex};

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing_subscriber::layer::{Context, Layer};

    /// Every span and event field, as `name=value` text, with the span's name.
    #[derive(Clone, Default)]
    pub struct Captured(pub Arc<Mutex<Vec<String>>>);

    struct Fields<'a>(&'a mut Vec<String>, &'a str);

    impl Visit for Fields<'_> {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            self.0
                .push(format!("{}:{}={:?}", self.1, field.name(), value));
        }
    }

    impl<S: tracing::Subscriber> Layer<S> for Captured {
        fn on_new_span(&self, attrs: &Attributes<'_>, _: &Id, _: Context<'_, S>) {
            let mut out = self.0.lock().expect("lock");
            let name = attrs.metadata().name();
            attrs.record(&mut Fields(&mut out, name));
        }
        fn on_record(&self, _: &Id, values: &Record<'_>, _: Context<'_, S>) {
            let mut out = self.0.lock().expect("lock");
            values.record(&mut Fields(&mut out, "record"));
        }
        fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
            let mut out = self.0.lock().expect("lock");
            event.record(&mut Fields(&mut out, "event"));
        }
    }
}

#[tokio::test]
async fn each_call_has_a_span_with_operation_method_path_status_and_attempt_but_no_secret() {
    use tracing_subscriber::layer::SubscriberExt;

    let captured = tracing_capture::Captured::default();
    let subscriber = tracing_subscriber::registry().with(captured.clone());
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = faulty(FaultConfig {
        errors: Some(ErrorFault {
            rate: 1.0,
            statuses: vec![503],
            times: Some(1),
            operations: vec![],
        }),
        ..FaultConfig::default()
    })
    .await;
    let admin = admin(&server);
    admin
        .get_shipment()
        .shipment_id(1_i64)
        .call_full()
        .await
        .ok();

    let lines = captured.0.lock().expect("lock").clone();
    let text = lines.join("\n");
    assert!(
        text.contains("store_admin.call:operation_id=\"get_shipment\""),
        "{text}"
    );
    assert!(
        text.contains("store_admin.call:http.request.method=GET"),
        "{text}"
    );
    assert!(
        text.contains("store_admin.call:url.template=/shipments/{shipment_id}"),
        "{text}"
    );
    assert!(
        text.contains("event:attempt=1\nevent:status=503"),
        "one event for the first attempt, with its status: {text}"
    );
    assert!(
        text.contains("event:attempt=2\nevent:status=404"),
        "one event for the retry, attempt 2: {text}"
    );
    assert_eq!(
        text.matches("record:http.response.status_code=").count(),
        1,
        "the span records the final status once: {text}"
    );
    assert!(
        text.contains("record:http.response.status_code=404"),
        "the final status: {text}"
    );
    assert!(
        text.contains("record:http.request.resend_count=1"),
        "one resend: {text}"
    );
    assert!(
        !text.contains("record:attempt"),
        "no repeated span field: {text}"
    );
    assert!(
        !text.contains(TOKEN),
        "no secret in any span or event: {text}"
    );
}

/// A subscriber that records the caller's spans but not this crate's: the call's status goes to
/// the call's own span (here not recorded at all), never to the caller's span, whatever fields
/// that has.
#[tokio::test]
async fn a_call_whose_span_is_filtered_out_records_nothing_in_the_callers_span() {
    use tracing::Instrument;
    use tracing_subscriber::layer::{Layer, SubscriberExt};

    let captured = tracing_capture::Captured::default();
    let only_the_callers =
        tracing_subscriber::filter::filter_fn(|meta| !meta.target().starts_with("store_admin"));
    let subscriber =
        tracing_subscriber::registry().with(captured.clone().with_filter(only_the_callers));
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = MockServer::start(MockConfig::new().token_all_scopes(TOKEN))
        .await
        .expect("mock");
    let admin = admin(&server);
    let job = tracing::info_span!("job", status = tracing::field::Empty);
    let answer = async { admin.get_shipment().shipment_id(1_i64).call_full().await }
        .instrument(job.clone())
        .await;
    assert!(answer.is_err(), "shipment 1 is not seeded: a 404");
    job.record("status", "done");

    let lines = captured.0.lock().expect("lock").clone();
    let text = lines.join("\n");
    assert!(
        !text.contains("store_admin.call"),
        "the call's span is filtered out: {text}"
    );
    assert_eq!(
        text.matches("record:status=").collect::<Vec<_>>(),
        ["record:status="],
        "only the caller records its own span's status: {text}"
    );
    assert!(text.contains("record:status=\"done\""), "{text}");
}

#[tokio::test]
async fn a_raw_request_gets_the_same_auth_retries_and_errors() {
    let server = faulty(FaultConfig {
        errors: Some(ErrorFault {
            rate: 1.0,
            statuses: vec![502],
            times: Some(1),
            operations: vec![],
        }),
        ..FaultConfig::default()
    })
    .await;
    let admin = admin(&server);
    let http = reqwest::Client::new();
    let request = http
        .get(format!("{}/orders/statuses", server.base_url()))
        .build()
        .expect("request");
    let response = admin
        .send_raw(request, "list_order_statuses")
        .await
        .expect("sent")
        .error_for_status();
    let response = response.expect("the 502 was retried and the token sent");
    let body: types::OrderStatusList = serde_json::from_slice(&response.body).expect("decodes");
    assert!(!body.data.is_empty());

    let request = http
        .get(format!("{}/shipments/987654321", server.base_url()))
        .build()
        .expect("request");
    let err = admin
        .send_raw(request, "get_shipment")
        .await
        .expect("sent")
        .error_for_status()
        .expect_err("404");
    assert!(err.is_not_found(), "{err:?}");
    assert_eq!(err.operation(), Some("get_shipment"));
}

/// The largest answer read is a bound a caller can rely on: past it the call fails at once, with
/// a kind of its own, and is not retried (the answer would be as large again).
#[tokio::test]
async fn an_answer_larger_than_the_bound_fails_once_and_names_the_bound() {
    let server = mock(MockConfig::new().products(20)).await;
    let small = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(TOKEN)
        .with_max_response_bytes(1024)
        .build()
        .expect("client builds");
    let error = small
        .list_products()
        .per_page(20u64)
        .call()
        .await
        .expect_err("20 products are more than 1 KiB");
    match &error {
        Error::Transport { kind, .. } => assert_eq!(*kind, TransportKind::TooLarge, "{error}"),
        other => panic!("not a transport error: {other:?}"),
    }
    let message = error.to_string();
    assert!(message.contains("larger than 1024 bytes"), "{message}");
    assert!(message.contains("with_max_response_bytes"), "{message}");
    assert_eq!(server.requests_received("list_products"), 1, "not retried");
    // The same call within the default bound.
    let page = admin(&server)
        .list_products()
        .per_page(20u64)
        .call_full()
        .await
        .expect("within 64 MiB");
    assert_eq!(page.data.len(), 20);
}

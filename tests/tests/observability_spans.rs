//! A call's span follows OpenTelemetry's HTTP client conventions (`otel.name`,
//! `http.request.method`, `url.template`, `server.address`, `http.response.status_code`,
//! `error.type`, `http.request.resend_count`) and never holds the token or the URL's values.
//! A process of its own: the subscriber is set for this test's thread alone.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use store_admin::StoreAdmin;
use store_admin::prelude::*;
use store_admin::retry::RetryPolicy;
use store_admin_mock::{ErrorFault, FaultConfig, MockConfig, MockServer};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

const TOKEN: &str = "observability-secret-token";

/// A span's fields by name, as recorded.
type SpanFields = BTreeMap<String, String>;

/// The fields of every `store_admin.call` span (with its id), in the order the spans opened.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<Vec<(u64, SpanFields)>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let text = format!("{value:?}");
        self.0
            .insert(field.name().to_owned(), text.trim_matches('"').to_owned());
    }
}

impl<S: tracing::Subscriber> Layer<S> for Spans {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        if attrs.metadata().name() != "store_admin.call" {
            return;
        }
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        self.0.lock().unwrap().push((id.into_u64(), fields));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        // The latest span of that id (the registry reuses the ids of closed spans).
        let mut spans = self.0.lock().unwrap();
        if let Some((_, fields)) = spans.iter_mut().rev().find(|(at, _)| *at == id.into_u64()) {
            values.record(&mut Fields(fields));
        }
    }

    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let text = format!("{fields:?}");
        assert!(!text.contains(TOKEN), "an event holds the token: {text}");
    }
}

#[tokio::test]
async fn a_calls_span_follows_the_http_client_conventions_and_holds_no_token() {
    let spans = Spans::default();
    let subscriber = tracing_subscriber::registry().with(spans.clone());
    let _guard = tracing::subscriber::set_default(subscriber);
    let faults = FaultConfig {
        errors: Some(ErrorFault {
            rate: 1.0,
            statuses: vec![503],
            times: Some(1),
            operations: vec!["list_orders".into()],
        }),
        ..FaultConfig::default()
    };
    let server = MockServer::start(
        MockConfig::new()
            .products(5)
            .token_all_scopes(TOKEN)
            .faults(faults),
    )
    .await
    .expect("mock");
    let admin = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(TOKEN)
        .with_store_label("1234509876")
        .with_retry_policy(RetryPolicy::default().with_base_delay(Duration::from_millis(5)))
        .build()
        .expect("client");
    admin
        .list_orders()
        .send()
        .await
        .expect("answered after a retry");
    let missing = admin.get_order().order_id(999_999_999_i64).send().await;
    assert!(missing.is_err());
    let unreachable = StoreAdmin::builder()
        .with_base_url("http://127.0.0.1:9/admin/v2")
        .with_token(TOKEN)
        .with_retry_policy(RetryPolicy::default().with_max_attempts(1))
        .build()
        .unwrap();
    assert!(unreachable.list_orders().send().await.is_err());

    let all: Vec<BTreeMap<String, String>> = spans
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|(_, f)| f.clone())
        .collect();
    assert_eq!(all.len(), 3, "{all:#?}");
    let port = url::Url::parse(server.base_url())
        .unwrap()
        .port()
        .unwrap()
        .to_string();
    let list = &all[0];
    assert_eq!(list["otel.kind"], "client");
    assert_eq!(list["otel.name"], "GET /orders");
    assert_eq!(list["http.request.method"], "GET");
    assert_eq!(list["url.template"], "/orders");
    assert_eq!(list["server.address"], "127.0.0.1");
    assert_eq!(list["server.port"], port);
    assert_eq!(list["store_admin.store"], "1234509876");
    assert_eq!(list["http.response.status_code"], "200");
    assert_eq!(
        list["http.request.resend_count"], "1",
        "one retry: {list:?}"
    );
    assert!(!list.contains_key("error.type"), "{list:?}");
    let get = &all[1];
    assert_eq!(get["otel.name"], "GET /orders/{order_id}");
    assert_eq!(get["http.response.status_code"], "404");
    assert_eq!(get["error.type"], "404");
    assert!(!get.contains_key("http.request.resend_count"));
    let failed = &all[2];
    assert_eq!(failed["error.type"], "connect", "{failed:?}");
    assert!(!failed.contains_key("store_admin.store"));
    for span in &all {
        let text = format!("{span:?}");
        assert!(!text.contains(TOKEN), "{text}");
        assert!(
            !text.contains("999999999"),
            "no URL with its values: {text}"
        );
    }
}

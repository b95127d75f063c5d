//! Drift counted in the client (issue 42): a rewriting server in front of the mock store (over HTTP
//! on 127.0.0.1) sends the mock's own answers with every record's `id` as a string and a field the
//! document does not declare, holding a value that must not reach the report. A client built
//! `with_drift_counting` reports both, per operation and JSON path, with the JSON type seen; one
//! built without reports nothing.

use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode, header};
use futures::StreamExt;
use serde_json::Value;
use store_admin::StoreAdmin;
use store_admin::drift::{JsonType, habits};
use store_admin::pagination::PageOptions;
use store_admin::prelude::*;
use store_admin_mock::{MockConfig, MockServer};

const TOKEN: &str = "drift-token";
const HIDDEN: &str = "hunter2-do-not-report";

/// Each record of `data` (one, or a list) gets its `id` as a string and `loyalty_tier`.
fn rewrite(body: &mut Value) {
    let records: Vec<&mut Value> = match body.get_mut("data") {
        Some(Value::Array(items)) => items.iter_mut().collect(),
        Some(record @ Value::Object(_)) => vec![record],
        _ => Vec::new(),
    };
    for record in records {
        if let Some(id) = record.get("id").and_then(Value::as_i64) {
            record["id"] = Value::String(id.to_string());
        }
        record["loyalty_tier"] = Value::String(HIDDEN.to_owned());
    }
}

/// The mock store, and a server in front of it that rewrites its answers; the front's base URL.
async fn rewriting_front() -> (MockServer, String) {
    let mock = MockServer::start(MockConfig::new().token_all_scopes(TOKEN))
        .await
        .expect("mock starts");
    let upstream = mock.base_url().trim_end_matches("/admin/v2").to_owned();
    let http = reqwest::Client::new();
    let app = axum::Router::new().fallback(move |request: Request| {
        let (http, upstream) = (http.clone(), upstream.clone());
        async move {
            let url = format!("{upstream}{}", request.uri());
            let (parts, body) = request.into_parts();
            let body = axum::body::to_bytes(body, usize::MAX)
                .await
                .expect("the request's body");
            let mut forward = http.request(parts.method, url).body(body);
            for name in [header::AUTHORIZATION, header::CONTENT_TYPE] {
                if let Some(value) = parts.headers.get(&name) {
                    forward = forward.header(name, value.clone());
                }
            }
            let answer = forward.send().await.expect("the mock answers");
            let status = StatusCode::from_u16(answer.status().as_u16()).expect("status");
            let mut headers = HeaderMap::new();
            if let Some(kind) = answer.headers().get(header::CONTENT_TYPE) {
                headers.insert(header::CONTENT_TYPE, kind.clone());
            }
            let bytes = answer.bytes().await.expect("the mock answers");
            // A file (the custom URLs export) passes as it is; a JSON answer is rewritten.
            let body = match serde_json::from_slice::<Value>(&bytes) {
                Ok(mut body) => {
                    rewrite(&mut body);
                    body.to_string().into_bytes()
                }
                Err(_) => bytes.to_vec(),
            };
            (status, headers, body)
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!(
        "http://{}/admin/v2",
        listener.local_addr().expect("address")
    );
    tokio::spawn(async move { axum::serve(listener, app).await.expect("serves") });
    (mock, base)
}

fn client(base: &str, drift: bool) -> StoreAdmin {
    let builder = StoreAdmin::builder().with_base_url(base).with_token(TOKEN);
    let builder = if drift {
        builder.with_drift_counting()
    } else {
        builder
    };
    builder.build().expect("client builds")
}

#[tokio::test]
async fn a_client_counts_the_habits_and_undeclared_fields_of_its_answers_and_never_a_value() {
    let (_mock, base) = rewriting_front().await;
    let admin = client(&base, true);
    let page = admin.list_orders().call().await.expect("orders decode");
    let first = page.data.first().expect("the mock has orders").id;
    admin
        .get_order()
        .order_id(first)
        .call()
        .await
        .expect("the order decodes");

    let report = admin.drift();
    let list = &report.operations["list_orders"];
    assert_eq!((list.calls, list.decoded, list.failed), (1, 1, 0));
    let ids = &list.habits[habits::NUMBER_AS_STRING].paths["data[].id"];
    assert_eq!(ids.count, page.data.len() as u64);
    assert_eq!(ids.types, [JsonType::String]);
    let tier = &list.unknown_fields["data[].loyalty_tier"];
    assert_eq!(tier.count, page.data.len() as u64);
    assert_eq!(tier.types, [JsonType::String]);
    assert!(tier.first_seen.is_some() && tier.last_seen >= tier.first_seen);

    let get = &report.operations["get_order"];
    assert_eq!((get.calls, get.decoded), (1, 1));
    assert_eq!(get.habits[habits::NUMBER_AS_STRING].first_path, "data.id");
    assert_eq!(get.unknown_fields["data.loyalty_tier"].count, 1);

    // Paths, types and counts only.
    let text = serde_json::to_string(&report).expect("the report serialises");
    assert!(!text.contains(HIDDEN), "a value reached the report: {text}");
    // It reads back, and two reports merge.
    let mut merged: store_admin::drift::DriftReport =
        serde_json::from_str(&text).expect("reads back");
    merged.merge(&report);
    assert_eq!(merged.operations["get_order"].calls, 2);
}

#[tokio::test]
async fn the_pages_of_a_stream_count_and_a_client_without_counting_reports_nothing() {
    let (_mock, base) = rewriting_front().await;
    let counting = client(&base, true);
    let options = PageOptions {
        per_page: std::num::NonZeroU64::new(10).expect("not zero"),
        concurrency: 1,
        ..PageOptions::default()
    };
    let pages = counting
        .list_orders()
        .pages(options)
        .take(3)
        .collect::<Vec<_>>()
        .await;
    let records: usize = pages
        .into_iter()
        .map(|page| page.expect("a page decodes").items.len())
        .sum();
    assert_eq!(records, 30, "the mock has more than 30 orders");
    let list = &counting.drift().operations["list_orders"];
    assert_eq!(list.calls, 3, "one count a page");
    assert_eq!(list.unknown_fields["data[].loyalty_tier"].count, 30);

    let quiet = client(&base, false);
    quiet.list_orders().call().await.expect("orders decode");
    assert!(quiet.drift().is_empty());
}

#[tokio::test]
async fn call_full_counts_a_json_answer_as_its_type_and_skips_a_file() {
    let (_mock, base) = rewriting_front().await;
    let admin = client(&base, true);
    let answer = admin
        .list_customers()
        .call_full()
        .await
        .expect("customers decode");
    let rows = answer.into_inner().data.len() as u64;
    assert!(rows > 0, "the mock has customers");
    let file = admin
        .export_custom_urls()
        .call_full()
        .await
        .expect("the export answers a file");
    assert_eq!(file.status().as_u16(), 200);

    let report = admin.drift();
    let list = &report.operations["list_customers"];
    assert_eq!((list.calls, list.decoded, list.failed), (1, 1, 0));
    assert_eq!(list.unknown_fields["data[].loyalty_tier"].count, rows);
    assert_eq!(
        list.habits[habits::NUMBER_AS_STRING].paths["data[].id"].count,
        rows
    );
    assert!(
        !report.operations.contains_key("export_custom_urls"),
        "a file is not counted as a JSON answer: {:?}",
        report.operations.keys().collect::<Vec<_>>()
    );
}

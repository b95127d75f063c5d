//! The drift check (`MockConfig::proxy`, `store-admin-mock --proxy`) against a local store whose
//! answers are altered as a drifting service's would be: the store is a second mock, seen through
//! a small rewriting server on 127.0.0.1 that renames a field of the order statuses (`name` to
//! `title`) and sends their ids as strings; the other answers pass unaltered.

use std::net::SocketAddr;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use reqwest::StatusCode;
use serde_json::Value;
use store_admin_client::drift::JsonType;
use store_admin_mock::{MockConfig, MockServer};

use crate::common::{ADMIN, start, start_with};

/// Forwards to `upstream` and rewrites the answers of two lists.
async fn altering(State(upstream): State<String>, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    let query = request
        .uri()
        .query()
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    let mut forwarded = reqwest::Client::new().get(format!("{upstream}{path}{query}"));
    if let Some(auth) = request.headers().get("authorization") {
        forwarded = forwarded.header("authorization", auth);
    }
    let answer = forwarded.send().await.expect("the store answers");
    let status = answer.status();
    let mut body: Value = answer.json().await.expect("JSON");
    if path.ends_with("/orders/statuses") {
        for status in body["data"].as_array_mut().into_iter().flatten() {
            let object = status.as_object_mut().expect("a record");
            let name = object.remove("name").expect("a name");
            object.insert("title".into(), name);
            let id = object["id"].to_string();
            object.insert("id".into(), Value::String(id));
        }
    }
    Response::builder()
        .status(status.as_u16())
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .expect("a response")
}

/// The altering server in front of `store`; its base URL.
async fn altered(store: &MockServer) -> String {
    let upstream = store.base_url().trim_end_matches("/admin/v2").to_owned();
    let app = axum::Router::new().fallback(altering).with_state(upstream);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/admin/v2")
}

async fn get(server: &MockServer, path: &str, token: &str) -> (StatusCode, Value) {
    let answer = reqwest::Client::new()
        .get(format!("{}{path}", server.base_url()))
        .bearer_auth(token)
        .send()
        .await
        .expect("the drift check answers");
    let status = answer.status();
    (status, answer.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn the_drift_check_reports_a_renamed_field_and_a_number_sent_as_a_string() {
    let store = start().await;
    let front = altered(&store).await;
    // A drift proxy's admin routes need the admin token (issue 37).
    let drift = start_with(
        MockConfig::new()
            .proxy(front.parse().unwrap())
            .admin_token("drift-admin"),
    )
    .await;

    // The answer comes back as the store sent it (altered), whatever the document says.
    let (status, body) = get(&drift, "/orders/statuses", ADMIN).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body["data"][0]["title"].is_string(), "{body}");
    assert!(body["data"][0]["id"].is_string(), "{body}");
    // An unaltered operation, twice.
    for _ in 0..2 {
        let (status, _) = get(&drift, "/countries", ADMIN).await;
        assert_eq!(status, StatusCode::OK);
    }
    // The token is the caller's, checked by the store behind: a wrong one is its 401.
    let (status, _) = get(&drift, "/countries", "not-a-token").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let report = drift.drift();
    let statuses = &report["list_order_statuses"];
    assert_eq!(statuses.drift.calls, 1);
    assert_eq!(statuses.drift.failed, 1, "`name` is required: {statuses:?}");
    assert!(
        statuses.errors[0].contains("data[0]") && statuses.errors[0].contains("name"),
        "the error names the path and the missing field: {:?}",
        statuses.errors
    );
    // What was read before the decoding stopped (the first record's end, where `name` is
    // missing) is counted: the first record's undeclared field and its id sent as a string.
    let title = &statuses.drift.unknown_fields["data[].title"];
    assert_eq!(
        (title.count, &title.types[..]),
        (1, &[JsonType::String][..]),
        "{statuses:?}"
    );
    let habit = &statuses.drift.habits["a number sent as a string"];
    assert_eq!(habit.first_path, "data[].id");
    let countries = &report["list_countries"].drift;
    assert_eq!(
        (countries.calls, countries.decoded, countries.failed),
        (3, 3, 0)
    );
    assert!(countries.unknown_fields.is_empty(), "{countries:?}");
    assert!(countries.habits.is_empty(), "{countries:?}");
    // The counts alone are the client's report, and merge with a client's.
    let counts = drift.drift_report();
    assert_eq!(counts.operations["list_order_statuses"], statuses.drift);
    let mut merged = counts.clone();
    merged.merge(&counts);
    assert_eq!(merged.operations["list_countries"].calls, 6);

    // The same report over HTTP.
    let admin: Value = reqwest::Client::new()
        .get(format!(
            "{}/__admin/drift",
            drift.base_url().trim_end_matches("/admin/v2")
        ))
        .bearer_auth("drift-admin")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        admin["list_order_statuses"]["unknown_fields"]["data[].title"]["count"],
        1
    );
    // The JSON reads back as the client's report (the errors beside it are not in its way).
    let read: store_admin_client::drift::DriftReport =
        serde_json::from_value(admin).expect("the client's report");
    assert_eq!(read, counts);
}

#[tokio::test]
async fn the_drift_check_follows_no_redirect_so_the_token_stays_with_its_origin() {
    // A store that redirects every call elsewhere: the redirect is handed back, not followed.
    let app = axum::Router::new().fallback(|| async {
        Response::builder()
            .status(302)
            .header("location", "http://127.0.0.1:9/steal")
            .body(Body::empty())
            .unwrap()
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let drift =
        start_with(MockConfig::new().proxy(format!("http://{addr}/admin/v2").parse().unwrap()))
            .await;
    let answer = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(format!("{}/countries", drift.base_url()))
        .bearer_auth(ADMIN)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 302);
    assert_eq!(drift.drift()["list_countries"].drift.calls, 1);
}

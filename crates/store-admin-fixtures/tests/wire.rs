//! Each generated fixture client, called once against a tiny axum server on 127.0.0.1.

use axum::extract::{Path, RawQuery};
use axum::http::StatusCode;
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use serde_json::{Value, json};
use store_admin_fixtures::{
    accepted_202, array_query, created_201, deprecated, integer_or_string, nullable, shared_error,
};

/// Serves `router` on an ephemeral loopback port; returns its base URL.
async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("local address");
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}")
}

/// Answers with the raw query string as the only item, so the test sees the wire form.
async fn echo_query(RawQuery(query): RawQuery) -> Json<Value> {
    Json(json!({ "data": [query.unwrap_or_default()] }))
}

#[tokio::test]
async fn array_query_is_sent_as_repeated_percent_encoded_brackets() {
    let base = serve(Router::new().route("/items", get(echo_query))).await;
    let client = array_query::Client::new(&base);
    let response = client
        .list_items()
        .tags(vec!["a".to_owned(), "b".to_owned()])
        .send()
        .await
        .expect("list_items succeeds");
    assert_eq!(response.into_inner().data, ["tags%5B%5D=a&tags%5B%5D=b"]);
}

#[tokio::test]
async fn integer_or_string_field_decodes_both_variants() {
    let things = json!({ "data": [
        { "id": 1, "code": 404 },
        { "id": 2, "code": "validation_failed" },
    ]});
    let base = serve(Router::new().route("/things", get(move || async { Json(things) }))).await;
    let client = integer_or_string::Client::new(&base);
    let things = client
        .list_things()
        .send()
        .await
        .expect("list_things succeeds");
    let codes: Vec<_> = things
        .into_inner()
        .data
        .into_iter()
        .map(|t| t.code)
        .collect();
    assert_eq!(
        codes,
        [
            integer_or_string::types::ThingCode::Integer(404),
            integer_or_string::types::ThingCode::String("validation_failed".to_owned()),
        ]
    );
}

#[tokio::test]
async fn nullable_string_and_nullable_ref_decode_null_and_values() {
    let profiles = json!({ "data": [
        { "nickname": null, "address": null },
        { "nickname": "sam", "address": { "city": "Riyadh" } },
    ]});
    let base = serve(Router::new().route("/profiles", get(move || async { Json(profiles) }))).await;
    let client = nullable::Client::new(&base);
    let profiles = client
        .list_profiles()
        .send()
        .await
        .expect("list_profiles succeeds");
    let profiles = profiles.into_inner().data;
    assert_eq!(profiles[0].nickname, None);
    assert_eq!(profiles[0].address, None);
    assert_eq!(profiles[1].nickname.as_deref(), Some("sam"));
    assert_eq!(
        profiles[1].address.as_ref().map(|a| a.city.as_str()),
        Some("Riyadh")
    );
}

#[tokio::test]
// The xtask marks the method `#[deprecated]` (a compiler warning for callers); calling it here on
// purpose shows it still works.
#[allow(deprecated)]
async fn deprecated_operation_is_still_generated_and_callable() {
    let base = serve(Router::new().route(
        "/legacy/items",
        get(|| async { Json(json!({ "data": ["old"] })) }),
    ))
    .await;
    let client = deprecated::Client::new(&base);
    let items = client
        .list_legacy_items()
        .send()
        .await
        .expect("list_legacy_items succeeds");
    assert_eq!(items.into_inner().data, ["old"]);
}

#[tokio::test]
async fn delete_answered_202_decodes_its_body() {
    async fn unsubscribe(RawQuery(query): RawQuery) -> (StatusCode, Json<Value>) {
        let message = format!("removed {}", query.unwrap_or_default());
        let body =
            json!({ "status": 202, "success": true, "data": { "message": message, "code": 202 } });
        (StatusCode::ACCEPTED, Json(body))
    }
    let base = serve(Router::new().route("/webhooks/unsubscribe", delete(unsubscribe))).await;
    let client = accepted_202::Client::new(&base);
    let response = client
        .unsubscribe_webhook()
        .id(7)
        .send()
        .await
        .expect("unsubscribe_webhook succeeds");
    assert_eq!(response.status().as_u16(), 202);
    let body = response.into_inner();
    assert_eq!(body.data.code, 202);
    assert_eq!(body.data.message, "removed id=7");
}

#[tokio::test]
async fn post_answered_201_sends_the_json_body_and_decodes_the_created_record() {
    /// Echoes the raw request body in `status`, so the test sees what went over the wire.
    async fn create(body: String) -> (StatusCode, Json<Value>) {
        let request: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        let created = json!({ "id": 41, "name": request["name"], "status": body });
        (StatusCode::CREATED, Json(created))
    }
    let base = serve(Router::new().route("/categories", post(create))).await;
    let client = created_201::Client::new(&base);
    let response = client
        .create_category()
        .body(created_201::types::CategoryCreate {
            name: "Shoes".to_owned(),
            status: None,
        })
        .send()
        .await
        .expect("create_category succeeds");
    assert_eq!(response.status().as_u16(), 201);
    let category = response.into_inner();
    assert_eq!(category.id, 41);
    assert_eq!(category.name, "Shoes");
    assert_eq!(category.status.as_deref(), Some(r#"{"name":"Shoes"}"#));
}

#[tokio::test]
async fn error_statuses_401_404_422_decode_into_the_shared_error_type() {
    async fn widget(Path(id): Path<u16>) -> (StatusCode, Json<Value>) {
        let (code, error) = match id {
            401 => (json!("Unauthorized"), json!("The access token is invalid")),
            404 => (json!(404), json!("record not found")),
            _ => (json!("validation_failed"), json!("alert.invalid_fields")),
        };
        let mut body =
            json!({ "status": id, "success": false, "error": { "code": code, "message": error } });
        if id == 422 {
            body["error"]["fields"] = json!({ "name": ["The name is required."] });
        }
        let status = StatusCode::from_u16(id).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, Json(body))
    }
    let base = serve(Router::new().route("/widgets/{id}", get(widget))).await;
    let client = shared_error::Client::new(&base);
    use shared_error::types::ErrorDetailCode;
    for (status, code) in [
        (401, ErrorDetailCode::String("Unauthorized".to_owned())),
        (404, ErrorDetailCode::Integer(404)),
        (422, ErrorDetailCode::String("validation_failed".to_owned())),
    ] {
        let error = client
            .get_widget()
            .widget_id(i64::from(status))
            .send()
            .await
            .expect_err("an error status is an error");
        let shared_error::Error::ErrorResponse(response) = error else {
            panic!("{status}: expected the shared error body, got {error:?}");
        };
        assert_eq!(response.status().as_u16(), status);
        let body = response.into_inner();
        assert_eq!(body.status, i64::from(status));
        assert!(!body.success);
        // `error` is optional in an error envelope (the service documents answers without it).
        let detail = body.error.expect("the error object");
        assert_eq!(detail.code, code);
        let fields = detail.fields.get("name").cloned().unwrap_or_default();
        assert_eq!(fields.len(), usize::from(status == 422));
    }
}

//! A CRUD round trip through plain HTTP on every collection of the document that has the five
//! operations (create, details, list, update, delete), with no line written for any group: the
//! collections are found by walking the document's paths, the bodies generated from its schemas.
//!
//! Set `STORE_ADMIN_MOCK_DOCUMENT=/path/to/openapi.yaml` to run it on another document (the
//! merged whole API, say); by default it walks the embedded `openapi/store-admin.yaml`.

use std::collections::BTreeMap;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use store_admin_mock::{MockConfig, MockServer};

use crate::common;
use crate::common::{ADMIN, call, delete, get, post, put, start};

struct Op {
    id: String,
    path: String,
}

fn document_path() -> String {
    std::env::var("STORE_ADMIN_MOCK_DOCUMENT").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../openapi/store-admin.yaml"
        )
        .to_owned()
    })
}

/// `(collection path, method) -> operation` for paths `P` and `P/{id}`.
fn crud_groups(doc: &Value) -> BTreeMap<String, BTreeMap<&'static str, Op>> {
    let mut groups: BTreeMap<String, BTreeMap<&'static str, Op>> = BTreeMap::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        let trimmed = path.trim_end_matches('/');
        let (collection, is_item) = match trimmed.rsplit_once('/') {
            Some((parent, last)) if last.starts_with('{') => (parent.to_owned(), true),
            _ => (trimmed.to_owned(), false),
        };
        for (method, op) in item.as_object().into_iter().flatten() {
            let role = match (method.as_str(), is_item) {
                ("post", false) => "create",
                ("get", false) => "list",
                ("get", true) => "details",
                ("put" | "patch", true) => "update",
                ("delete", true) => "delete",
                _ => continue,
            };
            let Some(id) = op["operationId"].as_str() else {
                continue;
            };
            groups.entry(collection.clone()).or_default().insert(
                role,
                Op {
                    id: id.to_owned(),
                    path: path.clone(),
                },
            );
        }
    }
    groups.retain(|_, ops| ops.len() == 5);
    groups
}

/// A concrete path: each parameter filled by `fill`.
fn concrete(template: &str, fill: &mut dyn FnMut(&str) -> String) -> String {
    template
        .split('/')
        .map(
            |segment| match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(name) => fill(name),
                None => segment.to_owned(),
            },
        )
        .collect::<Vec<_>>()
        .join("/")
}

fn id_text(value: &Value) -> Option<String> {
    match value {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// The id of the first record of the list at `path` (for a parent of a sub-collection).
async fn first_id(server: &MockServer, doc: &Value, parent_template: &str) -> Option<String> {
    let list = doc["paths"][parent_template]["get"].as_object()?;
    let _ = list;
    let (status, body) = call(server, Method::GET, parent_template, Some(ADMIN), None).await;
    (status == StatusCode::OK)
        .then(|| body["data"].get(0).and_then(|r| id_text(&r["id"])))
        .flatten()
}

async fn round_trip(
    server: &MockServer,
    doc: &Value,
    collection: &str,
    ops: &BTreeMap<&str, Op>,
) -> Result<(), String> {
    // Parents of a sub-collection: the first record of each parent list.
    let mut parents: BTreeMap<String, String> = BTreeMap::new();
    let segments: Vec<&str> = collection.split('/').collect();
    for (at, segment) in segments.iter().enumerate() {
        if let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            let parent = segments[..at].join("/");
            let id = first_id(server, doc, &parent)
                .await
                .ok_or_else(|| format!("no record in {parent} to be the parent"))?;
            parents.insert(name.to_owned(), id);
        }
    }
    let create = &ops["create"];
    let body = server
        .sample_body(&create.id)
        .unwrap_or(Value::Object(Default::default()));
    let path = concrete(&create.path, &mut |name| parents[name].clone());
    let (status, created) =
        call(server, Method::POST, &path, Some(ADMIN), Some(body.clone())).await;
    if !status.is_success() {
        return Err(format!("create {path}: {status} {created} (body {body})"));
    }
    let id = id_text(&created["data"]["id"])
        .ok_or_else(|| format!("create answered no id: {created}"))?;
    let item = |template: &str| {
        let mut own = None;
        concrete(template, &mut |name| {
            parents.get(name).cloned().unwrap_or_else(|| {
                own = Some(());
                id.clone()
            })
        })
    };
    let details = item(&ops["details"].path);
    let (status, read) = call(server, Method::GET, &details, Some(ADMIN), None).await;
    if status != StatusCode::OK || id_text(&read["data"]["id"]).as_deref() != Some(id.as_str()) {
        return Err(format!("details {details}: {status} {read}"));
    }
    let list = concrete(&ops["list"].path, &mut |name| parents[name].clone());
    let (status, listed) = call(server, Method::GET, &list, Some(ADMIN), None).await;
    let shown = listed["data"].as_array().is_some_and(|rows| {
        rows.iter()
            .any(|r| id_text(&r["id"]).as_deref() == Some(id.as_str()))
    });
    if status != StatusCode::OK || !shown {
        return Err(format!(
            "list {list}: {status}, the new record {id} is not on the first page"
        ));
    }
    let update = item(&ops["update"].path);
    let method = if doc["paths"][&ops["update"].path].get("put").is_some() {
        Method::PUT
    } else {
        Method::PATCH
    };
    let body = server
        .sample_body(&ops["update"].id)
        .unwrap_or(Value::Object(Default::default()));
    let (status, updated) = call(server, method, &update, Some(ADMIN), Some(body.clone())).await;
    if !status.is_success() {
        return Err(format!("update {update}: {status} {updated} (body {body})"));
    }
    let delete = item(&ops["delete"].path);
    let (status, deleted) = call(server, Method::DELETE, &delete, Some(ADMIN), None).await;
    if !status.is_success() {
        return Err(format!("delete {delete}: {status} {deleted}"));
    }
    let (status, gone) = call(server, Method::GET, &details, Some(ADMIN), None).await;
    if status != StatusCode::NOT_FOUND || gone["error"]["code"] != 404 {
        return Err(format!("details after delete {details}: {status} {gone}"));
    }
    Ok(())
}

#[tokio::test]
async fn every_crud_group_of_the_document_round_trips_over_http() {
    let path = document_path();
    let text = std::fs::read_to_string(&path).expect("the document is readable");
    let doc: Value = store_admin_mock::read_yaml(&text).expect("the document is YAML");
    let groups = crud_groups(&doc);
    let server = MockServer::start(
        MockConfig::new()
            .document(&path)
            .products(40)
            .token_all_scopes(ADMIN),
    )
    .await
    .expect("mock starts");
    let mut failures = Vec::new();
    for (collection, ops) in &groups {
        if let Err(error) = round_trip(&server, &doc, collection, ops).await {
            failures.push(format!("{collection}: {error}"));
        }
    }
    eprintln!("{} CRUD groups walked in {path}", groups.len());
    assert!(
        failures.is_empty(),
        "{} of {} groups failed:\n{}",
        failures.len(),
        groups.len(),
        failures.join("\n")
    );
}

/// The blacklist names customers of `/customers`: a customer created a moment ago can be banned
/// and un-banned, both show on the record, un-banning never deletes the customer, and an unknown
/// customer is 404 (schemathesis' stateful phase banned a customer it had just created).
#[tokio::test]
async fn a_new_customer_is_banned_and_unbanned_and_stays_a_customer() {
    let server = start().await;
    let (status, created) = post(
        &server,
        "/customers",
        json!({ "first_name": "Huda", "last_name": "Saleh", "email": "huda@example.com" }),
    )
    .await;
    assert!(status.is_success(), "{status} {created}");
    let id = created["data"]["id"].to_string();

    let (status, banned) = put(
        &server,
        &format!("/customers/blacklist/{id}"),
        json!({ "reason": "chargebacks" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{banned}");
    assert_eq!(banned["data"]["code"], 200, "{banned}");
    let (_, record) = get(&server, &format!("/customers/{id}")).await;
    assert_eq!(record["data"]["is_blocked"], true, "{record}");
    assert_eq!(record["data"]["block_reason"], "chargebacks", "{record}");

    let (status, body) = delete(&server, &format!("/customers/blacklist/{id}")).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let (status, record) = get(&server, &format!("/customers/{id}")).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "un-banning kept the customer: {record}"
    );
    assert_eq!(record["data"]["is_blocked"], false, "{record}");

    let (status, body) = put(
        &server,
        "/customers/blacklist/1",
        json!({ "reason": "chargebacks" }),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, body) = put(&server, &format!("/customers/blacklist/{id}"), json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
}

/// A body field the document does not declare is ignored by default, as the service ignores it
/// (the record does not keep it), and refused with 422 naming it under `--strict-fields`.
#[tokio::test]
async fn an_unknown_body_field_is_ignored_or_refused_by_strict_fields() {
    let body = json!({ "first_name": "Huda", "frist_name": "a typo" });
    let lenient = start().await;
    let (status, created) = post(&lenient, "/customers", body.clone()).await;
    assert!(status.is_success(), "{status} {created}");
    assert!(created["data"].get("frist_name").is_none(), "{created}");

    let strict = common::start_with(
        MockConfig::new()
            .products(10)
            .token_all_scopes(common::ADMIN)
            .strict_fields(true),
    )
    .await;
    let (status, refused) = post(&strict, "/customers", body).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    let fields = refused["error"]["fields"].as_object().expect("fields");
    assert_eq!(
        fields.keys().collect::<Vec<_>>(),
        ["frist_name"],
        "{refused}"
    );
    let (status, created) = post(&strict, "/customers", json!({ "first_name": "Huda" })).await;
    assert!(status.is_success(), "{status} {created}");
}

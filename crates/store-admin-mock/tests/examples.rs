//! The service's documented request examples (`tests/fixtures/examples/`, the rows of its
//! `MANIFEST.tsv` whose status is `request`, copied from the documentation's examples) are
//! accepted by the mock as the service accepts them: each passes the body check of the operation
//! of its method and path, and each one whose path names records the lists show is sent over HTTP
//! and answered with a success (the reference ids it names, a country of the tax example, exist).
//! Every one: no example is excused, neither for the document (a field typed otherwise than the
//! example sends it) nor for the seed (a record the example names that the store lacks).

use std::collections::BTreeMap;

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::common;
use crate::common::{ADMIN, get, start};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/examples");
const DOCUMENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../openapi/store-admin.yaml"
);

struct Example {
    file: String,
    method: String,
    /// The path as the documentation writes it (its own parameter names).
    path: String,
    multipart: bool,
    body: Value,
}

fn examples() -> Vec<Example> {
    let manifest =
        std::fs::read_to_string(format!("{FIXTURES}/MANIFEST.tsv")).expect("the manifest");
    manifest
        .lines()
        .skip(1)
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('\t').collect();
            (cells.get(3) == Some(&"request")).then(|| {
                let file = cells[0].to_owned();
                let text = std::fs::read_to_string(format!("{FIXTURES}/{file}"))
                    .unwrap_or_else(|e| panic!("{file}: {e}"));
                Example {
                    body: serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}")),
                    method: cells[1].to_owned(),
                    path: cells[2].to_owned(),
                    multipart: cells.get(9).is_some_and(|c| c.contains("multipart")),
                    file,
                }
            })
        })
        .collect()
}

/// A path with its parameters blanked (`/products/{}/options`), to match the document's.
fn key(path: &str) -> String {
    path.trim_end_matches('/')
        .split('/')
        .map(|s| if s.starts_with('{') { "{}" } else { s })
        .collect::<Vec<_>>()
        .join("/")
}

/// The document's `(operationId, path template)` of `method path`.
fn operation(doc: &Value, method: &str, path: &str) -> Option<(String, String)> {
    let wanted = key(path);
    doc["paths"]
        .as_object()?
        .iter()
        .find_map(|(template, item)| {
            (key(template) == wanted)
                .then(|| item.get(method.to_ascii_lowercase()))
                .flatten()
                .and_then(|op| op["operationId"].as_str())
                .map(|id| (id.to_owned(), template.clone()))
        })
}

#[tokio::test]
async fn every_documented_request_example_passes_the_body_check() {
    let doc: Value =
        store_admin_mock::read_yaml(&std::fs::read_to_string(DOCUMENT).expect("document"))
            .expect("YAML");
    let server = start().await;
    let all = examples();
    assert!(all.len() >= 40, "the request examples are there");
    let mut failures: Vec<String> = Vec::new();
    for example in all.iter().filter(|e| !e.multipart) {
        let Some((id, _)) = operation(&doc, &example.method, &example.path) else {
            failures.push(format!(
                "{}: no operation {} {}",
                example.file, example.method, example.path
            ));
            continue;
        };
        let errors = server
            .body_errors(&id, &example.body)
            .expect("a known operation");
        if !errors.is_empty() {
            failures.push(format!("{} ({id}): {errors:?}", example.file));
        }
    }
    assert!(
        failures.is_empty(),
        "refused examples:\n{}",
        failures.join("\n")
    );
}

/// The ids of the first page of every list without path parameters, by its path.
async fn listed_ids(
    server: &store_admin_mock::MockServer,
    doc: &Value,
) -> BTreeMap<String, Vec<String>> {
    let mut ids = BTreeMap::new();
    for (template, item) in doc["paths"].as_object().expect("paths") {
        if template.contains('{') || item.get("get").is_none() {
            continue;
        }
        let (status, body) = get(server, template).await;
        if status != StatusCode::OK {
            continue;
        }
        let listed: Vec<String> = body["data"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| match &r["id"] {
                Value::Number(n) => Some(n.to_string()),
                Value::String(s) => Some(s.clone()),
                _ => None,
            })
            .collect();
        if !listed.is_empty() {
            ids.insert(template.trim_end_matches('/').to_owned(), listed);
        }
    }
    ids
}

#[tokio::test]
async fn documented_request_examples_are_answered_with_a_success() {
    let doc: Value =
        store_admin_mock::read_yaml(&std::fs::read_to_string(DOCUMENT).expect("document"))
            .expect("YAML");
    let server = start().await;
    let ids = listed_ids(&server, &doc).await;
    let mut sent = 0;
    let mut failures: Vec<String> = Vec::new();
    for example in examples().iter().filter(|e| !e.multipart) {
        let Some((id, template)) = operation(&doc, &example.method, &example.path) else {
            continue;
        };
        // The path's parameters: the first record the list above each shows.
        let segments: Vec<&str> = template.split('/').collect();
        let mut path = Vec::new();
        let mut resolved = true;
        for (at, segment) in segments.iter().enumerate() {
            if segment.starts_with('{') {
                match ids.get(&segments[..at].join("/")).and_then(|l| l.first()) {
                    Some(id) => path.push(id.clone()),
                    None => {
                        resolved = false;
                        break;
                    }
                }
            } else {
                path.push((*segment).to_owned());
            }
        }
        if !resolved {
            continue;
        }
        let method = Method::from_bytes(example.method.as_bytes()).expect("a method");
        let (status, body) = common::call(
            &server,
            method,
            &path.join("/"),
            Some(ADMIN),
            Some(example.body.clone()),
        )
        .await;
        sent += 1;
        if !status.is_success() {
            failures.push(format!(
                "{} ({id}) {}: {status} {body}",
                example.file,
                path.join("/")
            ));
        }
    }
    assert!(
        sent >= 15,
        "most examples name records the lists show: {sent} sent"
    );
    assert!(
        failures.is_empty(),
        "refused examples:\n{}",
        failures.join("\n")
    );
}

/// The ids the mock seeds because the examples name them (`src/seed/data/documented_ids.json`)
/// are every `<thing>_id` the request examples hold: the file cannot fall behind the fixtures.
#[test]
fn the_seeded_documented_ids_are_those_of_the_examples() {
    fn walk(value: &Value, out: &mut std::collections::BTreeSet<(String, i64)>) {
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    if k.ends_with("_id") && k != "parent_id" {
                        let id = match v {
                            Value::Number(n) => n.as_i64(),
                            Value::String(s)
                                if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) =>
                            {
                                s.parse().ok()
                            }
                            _ => None,
                        };
                        if let Some(id) = id {
                            out.insert((k.clone(), id));
                        }
                    }
                    walk(v, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut wanted = std::collections::BTreeSet::new();
    for example in examples() {
        walk(&example.body, &mut wanted);
    }
    let seeded: Vec<(String, i64)> =
        serde_json::from_str(include_str!("../src/seed/data/documented_ids.json"))
            .expect("the seeded ids");
    let seeded: std::collections::BTreeSet<(String, i64)> = seeded.into_iter().collect();
    assert_eq!(wanted, seeded);
}

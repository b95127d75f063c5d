//! The sandbox behaves like the store: every group of the document (every collection path with
//! a list, a details, a create, an update or a delete) is walked over HTTP — create (with the
//! documented request example where the documentation has one), details, list, update, details
//! again, delete, details (404) — and what a create or an update sent is what the answers show,
//! and the create's answer, the details and the list agree with one another. Then one test for
//! each class of behaviour: numeric strings and `0`/`1` booleans accepted, the documented
//! reference data and ids, lists and details as views of one collection, child collections that
//! hold only their parent's children, and multipart uploads checked like JSON bodies.

use std::collections::BTreeMap;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use store_admin_mock::MockServer;

use crate::common;
use crate::common::{ADMIN, call, get, post, put, start};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/examples");
const DOCUMENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../openapi/store-admin.yaml"
);

pub(crate) fn document() -> Value {
    store_admin_mock::read_yaml(&std::fs::read_to_string(DOCUMENT).expect("document"))
        .expect("YAML")
}

pub(crate) fn id_text(value: &Value) -> Option<String> {
    match value {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// A path with its parameters blanked.
fn key(path: &str) -> String {
    path.trim_end_matches('/')
        .split('/')
        .map(|s| if s.starts_with('{') { "{}" } else { s })
        .collect::<Vec<_>>()
        .join("/")
}

/// The documented request example of `method path`, if the documentation has one.
pub(crate) fn documented_body(method: &str, path: &str) -> Option<Value> {
    let manifest = std::fs::read_to_string(format!("{FIXTURES}/MANIFEST.tsv")).ok()?;
    manifest.lines().skip(1).find_map(|line| {
        let cells: Vec<&str> = line.split('\t').collect();
        (cells.get(3) == Some(&"request")
            && cells[1].eq_ignore_ascii_case(method)
            && key(cells[2]) == key(path)
            && !cells.get(9).is_some_and(|c| c.contains("multipart")))
        .then(|| std::fs::read_to_string(format!("{FIXTURES}/{}", cells[0])).ok())
        .flatten()
        .and_then(|text| serde_json::from_str(&text).ok())
    })
}

/// Whether `read` shows `sent`: the same value, or the same one in the answer's type (`"10"` as
/// `10`, `1` as `true`), or held by the object the answer declares (`10` as `{"amount": 10}`, a
/// date as `{"date": ...}`); objects field by field (fields the answer does not show are not
/// compared), arrays item by item.
pub(crate) fn shows(sent: &Value, read: &Value) -> bool {
    let number = |v: &Value| match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    let boolean = |v: &Value| match v {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => n
            .as_f64()
            .filter(|x| *x == 0.0 || *x == 1.0)
            .map(|x| x == 1.0),
        Value::String(s) => match s.as_str() {
            "1" | "true" | "on" | "yes" => Some(true),
            "0" | "false" | "off" | "no" => Some(false),
            _ => None,
        },
        _ => None,
    };
    match (sent, read) {
        (a, b) if a == b => true,
        // A `null` sent for a field the answer does not declare nullable is not shown.
        (Value::Null, _) => false,
        // An object sent with the id of a record names that record: the read shows the record.
        (Value::Object(a), Value::Object(b))
            if a.get("id").is_some_and(|id| !id.is_null())
                && id_text(&a["id"]).is_some()
                && id_text(&a["id"]) == b.get("id").and_then(id_text) =>
        {
            true
        }
        (Value::Object(a), Value::Object(b)) => {
            a.iter().all(|(k, v)| b.get(k).is_none_or(|r| shows(v, r)))
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| shows(x, y))
        }
        (scalar, Value::Object(b)) if !scalar.is_object() && !scalar.is_array() => {
            // Held by the object's holder field; an object without one is another shape the
            // document gives the answer (a request's `location` text, an answer's coordinates).
            ["amount", "value", "date", "name", "code", "id"]
                .iter()
                .find_map(|k| b.get(*k))
                .is_none_or(|inner| shows(scalar, inner))
        }
        // An object a view shows by one of its fields (a route's `strategy` listed as its type).
        (Value::Object(a), scalar) if !scalar.is_array() => [
            "type", "slug", "name", "value", "amount", "date", "id", "code",
        ]
        .iter()
        .filter_map(|k| a.get(*k))
        .any(|field| shows(field, scalar)),
        // One value where the answer declares a list is a list of one (Laravel's array cast).
        (single, Value::Array(b)) if !single.is_array() && b.len() == 1 => shows(single, &b[0]),
        // The document's request and answer shapes differ (an object of days sent, a list of
        // days answered): not comparable.
        (Value::Object(_), Value::Array(_)) | (Value::Array(_), Value::Object(_)) => true,
        (a, Value::Bool(b)) => boolean(a) == Some(*b),
        // A boolean sent where the answer declares `0`/`1` (Laravel's boolean cast reversed).
        (Value::Bool(a), b @ Value::Number(_)) => boolean(b) == Some(*a),
        (a, b @ Value::Number(_)) | (a @ Value::Number(_), b) => {
            number(a).is_some() && number(a) == number(b)
        }
        _ => false,
    }
}

/// The fields two answers of one record both show with the same JSON type, and differ in.
fn disagreements(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                if let Some(w) = y.get(k) {
                    disagreements(v, w, &format!("{path}.{k}"), out);
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                disagreements(v, w, &format!("{path}.{i}"), out);
            }
        }
        (Value::String(_), Value::String(_))
        | (Value::Number(_), Value::Number(_))
        | (Value::Bool(_), Value::Bool(_))
            if a != b =>
        {
            out.push(format!("{path}: {a} vs {b}"));
        }
        _ => {}
    }
}

/// `(collection key) -> role -> (operationId, method, template)`.
pub(crate) type Groups = BTreeMap<String, BTreeMap<&'static str, (String, String, String)>>;

pub(crate) fn groups(doc: &Value) -> Groups {
    let mut groups: Groups = BTreeMap::new();
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
            groups.entry(key(&collection)).or_default().insert(
                role,
                (id.to_owned(), method.to_ascii_uppercase(), path.clone()),
            );
        }
    }
    // A group is a collection that has records of its own to read back: a details, or a list
    // beside a create.
    groups.retain(|_, ops| {
        ops.contains_key("details") || (ops.contains_key("list") && ops.contains_key("create"))
    });
    groups
}

/// The first id of the list at `path` (every parameter resolved), if any.
pub(crate) async fn first_id(server: &MockServer, path: &str) -> Option<String> {
    let (status, body) = get(server, path).await;
    (status == StatusCode::OK)
        .then(|| body["data"].get(0).and_then(|r| id_text(&r["id"])))
        .flatten()
}

/// Fills a template's parameters: those of parents from the lists above them, the record's own
/// (the last) with `own`.
pub(crate) async fn concrete(
    server: &MockServer,
    template: &str,
    own: Option<&str>,
    parents: &mut BTreeMap<String, String>,
) -> Option<String> {
    let segments: Vec<&str> = template.trim_end_matches('/').split('/').collect();
    let mut out = Vec::new();
    for (at, segment) in segments.iter().enumerate() {
        let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) else {
            out.push((*segment).to_owned());
            continue;
        };
        if at == segments.len() - 1
            && let Some(own) = own
        {
            out.push(own.to_owned());
            continue;
        }
        let value = match parents.get(name) {
            Some(value) => value.clone(),
            None => {
                let value = Box::pin(first_id(server, &out.join("/"))).await?;
                parents.insert(name.to_owned(), value.clone());
                value
            }
        };
        out.push(value);
    }
    Some(out.join("/"))
}

/// The record `id` on the list (all of its pages).
pub(crate) async fn listed(server: &MockServer, list: &str, id: &str) -> Option<Value> {
    common::all_pages(server, list)
        .await
        .into_iter()
        .find(|r| id_text(&r["id"]).as_deref() == Some(id))
}

/// The mock's index (`GET /`).
async fn index(server: &MockServer) -> Value {
    let root = server.base_url().trim_end_matches("/admin/v2").to_owned();
    reqwest::get(format!("{root}/"))
        .await
        .expect("index")
        .json()
        .await
        .expect("json")
}

/// A record of the collection `details` (an operation id) reads, found on a list that shows the
/// same records under another path (`/products/variants/{variant}` and
/// `/products/{product_id}/variants`): the value of the details' own parameter (`sku` for
/// `/products/sku/{sku}`, else the record's `id`).
async fn listed_elsewhere(
    server: &MockServer,
    details: &str,
    template: &str,
    parents: &mut BTreeMap<String, String>,
) -> Option<String> {
    let index = index(server).await;
    let operations = index["operations"].as_array()?;
    let records = operations.iter().find(|o| o["operation_id"] == details)?["records"].clone();
    let param = template
        .trim_end_matches('/')
        .rsplit('/')
        .next()?
        .trim_matches(|c| c == '{' || c == '}')
        .to_owned();
    // The same collection, or one named by the same noun under a parent (an override serves
    // `/products/variants/{variant}` from the variants a product's list shows).
    let noun = |path: &Value| {
        path.as_str()
            .and_then(|p| p.trim_end_matches('/').rsplit('/').next())
            .map(str::to_owned)
    };
    let first = |path: &Value| {
        path.as_str()
            .and_then(|p| p.trim_start_matches('/').split('/').next())
            .map(str::to_owned)
    };
    let same = |o: &Value| {
        o["records"] == records
            || (noun(&o["path"]) == noun(&records) && first(&o["path"]) == first(&records))
    };
    // The parameter names the record's `id` (`option_id`, `variant` of `variants`) or a field of
    // its own (`sku`, `slug`).
    let by_id = param.ends_with("id")
        || noun(&records).is_some_and(|noun| noun.starts_with(param.as_str()));
    for list in operations
        .iter()
        .filter(|o| o["action"] == "List" && same(o))
    {
        let template = list["path"].as_str()?;
        // A list under one parent (a product's variants): the first parents, until one has a
        // record (not every product has variants).
        let parent = template
            .split('/')
            .find_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')));
        let candidates = match parent {
            Some(name) => {
                let above = template.split(&format!("/{{{name}}}")).next()?;
                let (_, body) = get(server, &format!("{above}?per_page=30")).await;
                body["data"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|r| id_text(&r["id"]).map(|id| (name, id)))
                    .collect()
            }
            None => Vec::new(),
        };
        let tries = if candidates.is_empty() {
            vec![None]
        } else {
            candidates.into_iter().map(Some).collect()
        };
        for candidate in tries {
            if let Some((name, id)) = candidate {
                parents.insert(name.to_owned(), id);
            }
            let path = concrete(server, template, None, parents).await?;
            let (_, body) = get(server, &path).await;
            let found = body["data"].as_array().into_iter().flatten().find_map(|r| {
                id_text(&r[param.as_str()])
                    .or_else(|| id_text(&r[param.trim_end_matches("_id")]))
                    .or_else(|| by_id.then(|| id_text(&r["id"])).flatten())
            });
            if found.is_some() {
                return found;
            }
        }
    }
    None
}

/// Whether the mock lists `op` among the operations whose 422 for valid data depends on the
/// store (`GET /`'s `state_dependent_operations`).
async fn state_dependent(server: &MockServer, op: &str) -> bool {
    index(server).await["state_dependent_operations"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|o| o["operation_id"] == op)
}

pub(crate) enum Walk {
    Done,
    /// The group cannot be walked over HTTP alone (no record to start from), with why.
    Skipped(String),
}

pub(crate) async fn walk(
    server: &MockServer,
    doc: &Value,
    ops: &BTreeMap<&'static str, (String, String, String)>,
) -> Result<Walk, String> {
    let mut parents = BTreeMap::new();
    let mut sent: Option<Value> = None;
    let mut created: Option<Value> = None;
    let mut id = if let Some((op, method, template)) = ops.get("create") {
        if doc["paths"][template]["post"]["requestBody"]["content"]
            .get("multipart/form-data")
            .is_some()
        {
            return Ok(Walk::Skipped(
                "a multipart create (multipart_uploads_are_checked_like_json_bodies)".into(),
            ));
        }
        let documented = documented_body(method, template);
        let sample = documented.is_none();
        let body = documented
            .or_else(|| server.sample_body(op))
            .unwrap_or_else(|| json!({}));
        let Some(mut path) = concrete(server, template, None, &mut parents).await else {
            return Ok(Walk::Skipped("no parent record".into()));
        };
        // Required query parameters (`POST /products/tags?tag_name=`): sent, and expected back.
        let mut body = body;
        let required: Vec<String> = doc["paths"][template]["post"]["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["in"] == "query" && p["required"] == true)
            .filter_map(|p| p["name"].as_str().map(str::to_owned))
            .collect();
        for (i, name) in required.iter().enumerate() {
            path.push_str(if i == 0 { "?" } else { "&" });
            path.push_str(&format!("{name}=Sent"));
        }
        let (status, answer) =
            call(server, Method::POST, &path, Some(ADMIN), Some(body.clone())).await;
        if !required.is_empty() && status.is_success() {
            let sent = answer["data"]
                .as_object()
                .into_iter()
                .flatten()
                .any(|(_, v)| v == "Sent");
            if !sent {
                return Err(format!(
                    "create {path} answered {answer}: the query's value is not kept"
                ));
            }
            body = json!({});
        }
        if sample && status == StatusCode::UNPROCESSABLE_ENTITY && state_dependent(server, op).await
        {
            return Ok(Walk::Skipped(format!(
                "a generated body {op} refuses by the store's state"
            )));
        }
        if !status.is_success() {
            return Err(format!("create {path}: {status} {answer} (sent {body})"));
        }
        // A create that adds to a list (`{"locales": [..]}`, an order's lines) answers the list:
        // the new record is the one that shows what was sent.
        let (record, body) = match &answer["data"] {
            Value::Array(records) => {
                let wrapped = match body.as_object() {
                    Some(map) if map.len() == 1 => match map.values().next() {
                        Some(Value::Array(items)) if items.len() == 1 => items[0].clone(),
                        _ => body.clone(),
                    },
                    _ => body.clone(),
                };
                let found = records
                    .iter()
                    .rev()
                    .find(|r| id_text(&r["id"]).is_some() && shows(&wrapped, r));
                match found {
                    Some(record) => (record.clone(), wrapped),
                    None => {
                        return Err(format!(
                            "create {path} answered {answer}: no record shows {wrapped}"
                        ));
                    }
                }
            }
            record => (record.clone(), body),
        };
        let Some(id) = id_text(&record["id"]) else {
            return Ok(Walk::Skipped(format!(
                "create answers no record id: {answer}"
            )));
        };
        if !shows(&body, &record) {
            return Err(format!("create {path} answered {record} for {body}"));
        }
        sent = Some(body);
        created = Some(record);
        id
    } else {
        let Some((_, _, template)) = ops.get("details") else {
            return Ok(Walk::Skipped("no create and no details".into()));
        };
        let list = template
            .trim_end_matches('/')
            .rsplit_once('/')
            .map(|(p, _)| p.to_owned());
        let Some(list) = list else {
            return Ok(Walk::Skipped("no list".into()));
        };
        let Some(path) = concrete(server, &format!("{list}/{{x}}"), Some("x"), &mut parents).await
        else {
            return Ok(Walk::Skipped("no parent record".into()));
        };
        let list_path = path.trim_end_matches("/x").to_owned();
        let (op, _, template) = &ops["details"];
        match first_id(server, &list_path).await {
            Some(id) => id,
            None => match listed_elsewhere(server, op, template, &mut parents).await {
                Some(id) => id,
                None => return Ok(Walk::Skipped(format!("no record listed at {list_path}"))),
            },
        }
    };
    let mut details_path = None;
    let mut read = None;
    if let Some((_, _, template)) = ops.get("details") {
        let path = concrete(server, template, Some(&id), &mut parents)
            .await
            .ok_or("no parent")?;
        let (status, answer) = get(server, &path).await;
        if status != StatusCode::OK {
            return Err(format!("details {path}: {status} {answer}"));
        }
        if let Some(sent) = &sent
            && !shows(sent, &answer["data"])
        {
            return Err(format!("details {path} show {} for {sent}", answer["data"]));
        }
        let mut differ = Vec::new();
        if let Some(created) = &created {
            disagreements(created, &answer["data"], "data", &mut differ);
        }
        if !differ.is_empty() {
            return Err(format!(
                "the create's answer and the details differ: {differ:?}"
            ));
        }
        details_path = Some(path);
        read = Some(answer["data"].clone());
    }
    if let Some((_, method, template)) = ops.get("list") {
        let mut path = concrete(server, template, None, &mut parents)
            .await
            .ok_or("no parent")?;
        // A list filtered by a required query (`/orders/items?order_id=`): the record's own.
        let required = doc["paths"][template][method.to_ascii_lowercase()]["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["in"] == "query" && p["required"] == true)
            .filter_map(|p| p["name"].as_str());
        for (i, name) in required.enumerate() {
            let value = [&created, &sent]
                .into_iter()
                .flatten()
                .find_map(|r| id_text(&r[name]))
                .ok_or_else(|| format!("list {path} needs {name}, which the record lacks"))?;
            path.push_str(if i == 0 { "?" } else { "&" });
            path.push_str(&format!("{name}={value}"));
        }
        let Some(row) = listed(server, &path, &id).await else {
            return Err(format!("list {path} does not show {id}"));
        };
        if let Some(sent) = &sent
            && !shows(sent, &row)
        {
            return Err(format!("list {path} shows {row} for {sent}"));
        }
        let mut differ = Vec::new();
        if let Some(read) = read.as_ref().or(created.as_ref()) {
            disagreements(read, &row, "data", &mut differ);
        }
        if !differ.is_empty() {
            return Err(format!("the list and the details differ: {differ:?}"));
        }
    }
    if let Some((op, method, template)) = ops.get("update") {
        let mut body = documented_body(method, template)
            .or_else(|| server.sample_body(op))
            .unwrap_or_else(|| json!({}));
        // A generated amount knows nothing of the record: an action on a record's money (a
        // transaction's refund) asks for at most what the record holds, as a caller would.
        let held = read
            .as_ref()
            .or(created.as_ref())
            .and_then(|r| r.pointer("/total/amount").or_else(|| r.get("total")))
            .and_then(|t| {
                t.as_f64()
                    .or_else(|| t.as_str().and_then(|s| s.parse().ok()))
            });
        if let (Some(held), Some(asked)) = (held, body.get("amount").and_then(Value::as_f64))
            && asked > held
            && held > 0.0
        {
            body["amount"] = json!(held);
        }
        let path = concrete(server, template, Some(&id), &mut parents)
            .await
            .ok_or("no parent")?;
        let method = Method::from_bytes(method.as_bytes()).expect("method");
        let (status, answer) = call(server, method, &path, Some(ADMIN), Some(body.clone())).await;
        if !status.is_success() {
            return Err(format!("update {path}: {status} {answer} (sent {body})"));
        }
        // An update of the key the record is addressed by (a product's `sku`) moves it.
        let own = template
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .trim_matches(|c| c == '{' || c == '}');
        if own != "id"
            && let Some(moved) = id_text(&body[own])
        {
            id = moved;
            if let Some((_, _, details)) = ops.get("details") {
                details_path = concrete(server, details, Some(&id), &mut parents).await;
            }
        }
        if let Some(details) = &details_path {
            let (status, again) = get(server, details).await;
            if status != StatusCode::OK || !shows(&body, &again["data"]) {
                return Err(format!(
                    "details after update {details}: {status} {again} for {body}"
                ));
            }
        }
    }
    if let Some((_, _, template)) = ops.get("delete") {
        let path = concrete(server, template, Some(&id), &mut parents)
            .await
            .ok_or("no parent")?;
        let (status, answer) = call(server, Method::DELETE, &path, Some(ADMIN), None).await;
        if !status.is_success() {
            return Err(format!("delete {path}: {status} {answer}"));
        }
        if let Some(details) = &details_path {
            let (status, gone) = get(server, details).await;
            if status != StatusCode::NOT_FOUND {
                return Err(format!("details after delete {details}: {status} {gone}"));
            }
        }
    }
    Ok(Walk::Done)
}

#[tokio::test]
async fn every_group_keeps_what_was_sent_and_answers_it_the_same_everywhere() {
    let doc = document();
    let server = start().await;
    let groups = groups(&doc);
    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    let mut done = 0;
    for (group, ops) in &groups {
        match walk(&server, &doc, ops).await {
            Ok(Walk::Done) => done += 1,
            Ok(Walk::Skipped(why)) => skipped.push(format!("{group}: {why}")),
            Err(error) => failures.push(format!("{group}: {error}")),
        }
    }
    eprintln!("{done} groups walked; skipped:\n{}", skipped.join("\n"));
    assert!(
        failures.is_empty(),
        "{} of {} groups failed:\n{}",
        failures.len(),
        groups.len(),
        failures.join("\n")
    );
    assert!(
        done >= 33,
        "most groups are walked: {done} of {}",
        groups.len()
    );
}

/// Activating currencies changes the store's own currencies and never invents one: `USD` (listed,
/// disabled) is enabled by `status: "1"`, and an unknown code is a 422 naming its entry.
#[tokio::test]
async fn activating_a_currency_changes_the_stores_currencies_only() {
    let server = start().await;
    let status = |list: &Value, code: &str| {
        list["data"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["code"] == code)
            .map(|c| c["status"].clone())
    };
    let (_, before) = get(&server, "/currencies").await;
    assert_eq!(status(&before, "USD"), Some(json!("disabled")), "{before}");
    let (code, answer) = post(
        &server,
        "/currencies",
        json!({"currencies": [{"code": "usd", "status": "1"}]}),
    )
    .await;
    assert_eq!(code, StatusCode::OK, "{answer}");
    assert_eq!(status(&answer, "USD"), Some(json!("enabled")), "{answer}");
    let (_, after) = get(&server, "/currencies").await;
    assert_eq!(status(&after, "USD"), Some(json!("enabled")), "{after}");
    assert_eq!(
        before["data"].as_array().map(Vec::len),
        after["data"].as_array().map(Vec::len),
        "no currency was added"
    );
    let (code, refused) = post(
        &server,
        "/currencies",
        json!({"currencies": [{"code": "SAR"}, {"code": "A533633", "status": true}]}),
    )
    .await;
    assert_eq!(code, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert!(
        refused["error"]["fields"]["currencies.1.code"].is_array(),
        "{refused}"
    );
}

/// Laravel's `integer`, `numeric` and `boolean` rules: a customer's groups as numeric strings, a
/// coupon's amount as a string and its flags as `"1"`, `0` and `"on"` are accepted, and the
/// answers show them in the answers' types.
#[tokio::test]
async fn numeric_strings_and_zero_one_booleans_are_accepted() {
    let server = start().await;
    let (status, created) = post(
        &server,
        "/customers",
        json!({"first_name": "Ahmed", "last_name": "Ali", "groups": ["123", "456"]}),
    )
    .await;
    assert!(
        status.is_success(),
        "numeric string ids: {status} {created}"
    );

    let (status, coupon) = post(
        &server,
        "/coupons",
        json!({
            "code": "SAVE10", "type": "fixed", "amount": "10", "free_shipping": "1",
            "expiry_date": "2030-01-31", "exclude_sale_products": 0, "is_apply_with_offer": "on",
        }),
    )
    .await;
    assert!(status.is_success(), "{status} {coupon}");
    assert_eq!(coupon["data"]["free_shipping"], true, "{coupon}");
    assert_eq!(coupon["data"]["is_apply_with_offer"], true, "{coupon}");

    let (status, refused) = post(
        &server,
        "/coupons",
        json!({
            "type": "fixed", "amount": "ten", "free_shipping": "maybe",
            "expiry_date": "2030-01-31", "exclude_sale_products": 0,
        }),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    let fields = &refused["error"]["fields"];
    assert!(fields["free_shipping"].is_array(), "{refused}");
}

/// A coupon, a customer, a product and a tag read back what their create sent, in the format it
/// was sent, from the create's answer, the details and the list alike, and the same on every
/// read; nothing optional is invented.
#[tokio::test]
async fn what_a_create_sent_is_what_every_read_shows() {
    let server = start().await;
    let (status, created) = post(
        &server,
        "/coupons",
        json!({"code": "TEN", "type": "fixed", "amount": 10, "free_shipping": false,
               "expiry_date": "2030-01-31", "exclude_sale_products": false}),
    )
    .await;
    assert!(status.is_success(), "{status} {created}");
    let id = created["data"]["id"].to_string();
    let (_, details) = get(&server, &format!("/coupons/{id}")).await;
    let (_, again) = get(&server, &format!("/coupons/{id}")).await;
    let row = listed(&server, "/coupons", &id).await.expect("listed");
    for read in [&created["data"], &details["data"], &again["data"], &row] {
        assert_eq!(read["amount"]["amount"], 10, "{read}");
        assert_eq!(read["code"], "TEN", "{read}");
        assert_eq!(read["expiry_date"], "2030-01-31", "{read}");
    }
    assert_eq!(details, again, "a record is stored, not generated per read");

    let (status, customer) = post(
        &server,
        "/customers",
        json!({"first_name": "Sara", "last_name": "Ali", "birthday": "1990-05-01"}),
    )
    .await;
    assert!(status.is_success(), "{status} {customer}");
    let id = customer["data"]["id"].to_string();
    let (_, details) = get(&server, &format!("/customers/{id}")).await;
    assert_eq!(
        details["data"]["birthday"]["date"], "1990-05-01",
        "{details}"
    );
    assert_eq!(details["data"]["first_name"], "Sara", "{details}");

    let (status, product) = post(
        &server,
        "/products",
        json!({"name": "T-Shirt", "price": 96.33, "product_type": "product"}),
    )
    .await;
    assert!(status.is_success(), "{status} {product}");
    let id = product["data"]["id"].to_string();
    let (_, details) = get(&server, &format!("/products/{id}")).await;
    assert_eq!(details["data"]["type"], "product", "{details}");
    assert_eq!(details["data"]["name"], "T-Shirt", "{details}");

    let (status, tag) = call(
        &server,
        Method::POST,
        "/products/tags?tag_name=X",
        Some(ADMIN),
        None,
    )
    .await;
    assert!(status.is_success(), "{status} {tag}");
    assert_eq!(tag["data"]["name"], "X", "{tag}");
}

/// Countries, cities, districts and currencies are the documentation's: Saudi Arabia is
/// `1473353380` (`SA`, `+966`) with Riyadh and Jeddah, the store's currency is `SAR`; and the
/// documented tax example, naming country `773200552`, is accepted.
#[tokio::test]
async fn reference_data_is_the_documented_one() {
    let server = start().await;
    let countries = common::all_pages(&server, "/countries").await;
    let saudi = countries
        .iter()
        .find(|c| c["id"] == 1_473_353_380_i64)
        .expect("Saudi Arabia");
    assert_eq!(saudi["code"], "SA");
    assert_eq!(saudi["mobile_code"], "+966");
    assert_eq!(saudi["name_en"], "Saudi Arabia");
    for country in &countries {
        let code = country["code"].as_str().unwrap_or_default();
        assert!(
            code.len() == 2 && code.chars().all(|c| c.is_ascii_uppercase()),
            "{country}"
        );
    }
    let (status, details) = get(&server, "/countries/1473353380").await;
    assert_eq!(status, StatusCode::OK, "{details}");
    let cities = common::all_pages(&server, "/countries/1473353380/cities").await;
    let names: Vec<&str> = cities.iter().filter_map(|c| c["name"].as_str()).collect();
    assert!(
        names.contains(&"Riyadh") && names.contains(&"Jeddah"),
        "{names:?}"
    );
    let (status, districts) = get(&server, "/cities/1473353380/districts").await;
    assert_eq!(status, StatusCode::OK, "{districts}");
    assert!(
        districts["data"].as_array().is_some_and(|d| !d.is_empty()),
        "{districts}"
    );
    let (_, currencies) = get(&server, "/currencies").await;
    let codes: Vec<&str> = currencies["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["code"].as_str())
        .collect();
    assert!(
        codes.contains(&"SAR") && codes.contains(&"KWD"),
        "{codes:?}"
    );
    let (status, tax) = post(
        &server,
        "/taxes",
        json!({"tax": "15", "country_id": 773200552}),
    )
    .await;
    assert!(
        status.is_success(),
        "the documented tax example: {status} {tax}"
    );
    let (status, refused) = post(&server, "/taxes", json!({"tax": "15", "country_id": 5})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
}

/// A list and a details are views of one collection: every id the first page of every list
/// without path parameters shows is found by the details below it.
#[tokio::test]
async fn every_listed_record_is_found_by_its_details() {
    let doc = document();
    let server = start().await;
    let mut failures = Vec::new();
    let mut checked = 0;
    for (template, item) in doc["paths"].as_object().expect("paths") {
        if template.contains('{') || item.get("get").is_none() {
            continue;
        }
        let list = template.trim_end_matches('/');
        let Some(details) = doc["paths"]
            .as_object()
            .expect("paths")
            .iter()
            .find_map(|(t, i)| {
                let (parent, last) = t.trim_end_matches('/').rsplit_once('/')?;
                (parent == list && last.starts_with('{') && i.get("get").is_some()).then_some(t)
            })
        else {
            continue;
        };
        let query = item["get"]["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|p| p["required"] == true);
        if query {
            continue;
        }
        let (status, body) = get(&server, list).await;
        if status != StatusCode::OK {
            continue;
        }
        for row in body["data"].as_array().into_iter().flatten() {
            let Some(id) = id_text(&row["id"]) else {
                continue;
            };
            let path = format!("{list}/{id}");
            let (status, found) = get(&server, &path).await;
            checked += 1;
            if status != StatusCode::OK {
                failures.push(format!(
                    "{path} (listed by {list}, details {details}): {status} {found}"
                ));
            }
        }
    }
    assert!(checked > 100, "{checked} records checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Child collections hold their parent's children only: a product's variants are found by the
/// variant details and shown by the quantities list, two orders' lines and two entities'
/// settings do not mix, and each setting a list shows is found by its slug.
#[tokio::test]
async fn child_collections_hold_only_their_parents_children() {
    let server = start().await;
    let (_, products) = get(&server, "/products?per_page=5").await;
    let quantities = common::all_pages(&server, "/products/quantities?per_page=60").await;
    let quantity_ids: Vec<String> = quantities
        .iter()
        .filter_map(|q| id_text(&q["sku_id"]))
        .collect();
    let mut variants_seen = 0;
    for product in products["data"].as_array().expect("products") {
        let id = id_text(&product["id"]).expect("id");
        let variants = common::all_pages(&server, &format!("/products/{id}/variants")).await;
        for variant in &variants {
            let variant_id = id_text(&variant["id"]).expect("variant id");
            let (status, found) = get(&server, &format!("/products/variants/{variant_id}")).await;
            assert_eq!(
                status,
                StatusCode::OK,
                "variant {variant_id} of {id}: {found}"
            );
            assert!(
                quantity_ids.contains(&variant_id),
                "variant {variant_id} has a quantity row"
            );
            variants_seen += 1;
        }
    }
    assert!(variants_seen > 0, "the products have variants");

    let (_, orders) = get(&server, "/orders/items").await;
    let _ = orders;
    let order_ids: Vec<String> = common::all_pages(&server, "/orders?per_page=60")
        .await
        .iter()
        .filter_map(|o| id_text(&o["id"]))
        .collect();
    let mut by_order: Vec<Vec<String>> = Vec::new();
    for order in order_ids.iter().take(12) {
        let (status, lines) = get(&server, &format!("/orders/items?order_id={order}")).await;
        assert_eq!(status, StatusCode::OK, "{lines}");
        let ids: Vec<String> = lines["data"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|l| id_text(&l["id"]))
            .collect();
        by_order.push(ids);
    }
    for (i, a) in by_order.iter().enumerate() {
        for b in &by_order[i + 1..] {
            assert!(
                a.iter().all(|id| !b.contains(id)),
                "two orders share lines: {a:?} {b:?}"
            );
        }
    }

    let mut slugs: Vec<Vec<String>> = Vec::new();
    for entity in ["products", "orders"] {
        let (status, settings) = get(&server, &format!("/settings?entity={entity}")).await;
        assert_eq!(status, StatusCode::OK, "{settings}");
        let listed: Vec<String> = settings["data"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s["slug"].as_str().map(str::to_owned))
            .collect();
        assert!(!listed.is_empty(), "{entity} has settings");
        for slug in &listed {
            let (status, found) = get(&server, &format!("/settings/fields/{slug}")).await;
            assert_eq!(status, StatusCode::OK, "setting {slug}: {found}");
        }
        slugs.push(listed);
    }
    assert!(slugs[0].iter().all(|s| !slugs[1].contains(s)), "{slugs:?}");
}

/// Multipart uploads get the checks JSON bodies get: a missing file, a text where a file is
/// declared, an empty name and a value outside its `enum` are 422s naming the field.
#[tokio::test]
async fn multipart_uploads_are_checked_like_json_bodies() {
    use reqwest::multipart::{Form, Part};
    let server = start().await;
    let file = || Part::bytes(b"a,b\n1,2\n".to_vec()).file_name("data.csv");
    let send = |path: &'static str, form: Form| {
        let url = format!("{}{path}", server.base_url());
        async move {
            let response = reqwest::Client::new()
                .post(url)
                .bearer_auth(ADMIN)
                .multipart(form)
                .send()
                .await
                .expect("answer");
            let status = response.status();
            (
                status,
                response.json::<Value>().await.unwrap_or(Value::Null),
            )
        }
    };
    for path in [
        "/customers/import",
        "/custom-urls/import",
        "/orders/statuses/bulk",
    ] {
        let (status, body) = send(path, Form::new().text("note", "no file")).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{path}: {body}");
        assert!(body["error"]["fields"]["file"].is_array(), "{path}: {body}");
        let (status, body) = send(path, Form::new().text("file", "not a file")).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{path}: a text is no file: {body}"
        );
        let (status, body) = send(path, Form::new().part("file", file())).await;
        assert!(status.is_success(), "{path}: {status} {body}");
    }
    let (status, body) = send(
        "/products/import",
        Form::new().part("file", file()).text("type", "everything"),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["error"]["fields"]["type"].is_array(), "{body}");
    let (status, body) = send(
        "/products/import",
        Form::new().part("file", file()).text("type", "products"),
    )
    .await;
    assert!(status.is_success(), "{status} {body}");
    let logo = || Part::bytes(vec![0x89, b'P', b'N', b'G']).file_name("logo.png");
    let (status, body) = send("/brands", Form::new().text("name", "").part("logo", logo())).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["error"]["fields"]["name"].is_array(), "{body}");
    let (status, body) = send("/brands", Form::new().text("name", "Acme")).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["error"]["fields"]["logo"].is_array(), "{body}");
    let (status, brand) = send(
        "/brands",
        Form::new().text("name", "Acme").part("logo", logo()),
    )
    .await;
    assert!(status.is_success(), "{status} {brand}");
    for invented in ["description", "banner"] {
        assert!(
            brand["data"].get(invented).is_none(),
            "{invented} was not sent: {brand}"
        );
    }
    let _ = put;
}

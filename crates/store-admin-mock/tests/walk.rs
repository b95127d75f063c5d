//! A walk of every group of the document (issue 40, item 6): for each of its tags, over HTTP,
//! every operation of the group on records of the store. First each collection's cycle (create
//! with the documented request example where there is one, details, list, update, details,
//! delete, 404: `sandbox::walk`), then every other operation of the group: creates of child
//! records (an option's values, a product's images and files, an order's items, drafts), then
//! reads, then updates and actions (status changes, stock updates, refunds, cancellations), then
//! deletions. Each must answer a success; a record a create answered is found by its own details
//! or in its parent's; an update reads back; a deletion leaves a 404; a list's count is the
//! records its pages hold; and the effects of [`EFFECTS`] (a status change adds an entry to the
//! order's history...) are what the reads show after.
//!
//! Everything is read from the document (tags, paths, methods, parameters, bodies); what it
//! cannot say is in the tables below, each row with its reason. The test prints, per group,
//! whether the whole cycle holds, and asserts that every group holds but those of
//! [`KNOWN_GAPS`], each with its exact failure. `WALK_DEBUG=1` prints every call and its answer:
//! `WALK_DEBUG=1 cargo nextest run -p store-admin-mock --test integration walk:: --no-capture`.

use std::collections::BTreeMap;

use reqwest::multipart::{Form, Part};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use store_admin_mock::MockServer;

use crate::common::{self, ADMIN, call, get, start};
use crate::sandbox::{self, Walk, id_text, shows};

/// Where a path parameter's value comes from when it is not the id of a record listed just above
/// it (nor of a record this group's walk created, nor of `/<thing>s` for a `<thing>_id`):
/// `(operation id or "*", parameter, list, JSON pointer into the listed record, and a field the
/// record must have with its value, `!value` for any other)`.
type Source = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Option<(&'static str, &'static str)>,
);
const PARAM_SOURCES: &[Source] = &[
    // A product is addressed by its SKU in `/products/sku/{sku}`.
    ("*", "sku", "/products?per_page=60", "/sku", None),
    // A language by its code (`/languages/{locale}`).
    ("*", "locale", "/languages", "/code", None),
    // A setting by its slug, of the settings of one entity.
    ("*", "slug", "/settings?entity=store", "/slug", None),
    // A variant of the products' variants, as the quantities list shows them.
    (
        "*",
        "variant",
        "/products/quantities?per_page=60",
        "/sku_id",
        None,
    ),
    (
        "*",
        "variant_id",
        "/products/quantities?per_page=60",
        "/sku_id",
        None,
    ),
    // A product's option, as the product's details show it.
    (
        "*",
        "option_id",
        "/products?per_page=60",
        "/options/0/id",
        None,
    ),
    // The cities of Saudi Arabia (the documented country).
    ("*", "city_id", "/countries/1473353380/cities", "/id", None),
    // A shipping rule: the document lists none (the seeded ones, `MockServer::shipping_rule_ids`).
    ("*", "rule_id", "", "", None),
    // Only a delivered shipment may be returned (the service's 422 otherwise).
    (
        "return_shipment",
        "shipment_id",
        "/shipments?per_page=60",
        "/id",
        Some(("status", "delivered")),
    ),
    // An order's shipment is cancelled unless delivered (the service's 422).
    (
        "cancel_order_shipment",
        "order_id",
        "/shipments?per_page=60",
        "/order_id",
        Some(("status", "!delivered")),
    ),
];

/// Fields of a generated body that must name what the store holds, as a JSON merge patch whose
/// strings `@LIST#POINTER` are the first listed record's field: `(operation id, patch, why)`.
const BODY_PATCHES: &[(&str, &str, &str)] = &[
    (
        "activate_currencies",
        r#"{"currencies": [{"code": "USD", "status": true}]}"#,
        "a generated code is no currency of the store",
    ),
    (
        "subscribe_webhook",
        r#"{"event": "order.created", "url": "https://hooks.example/walk", "rule": null, "headers": null}"#,
        "a generated rule and generated header names are not valid ones",
    ),
    (
        "create_shipment",
        r#"{"courier_id": "@/shipping/companies#/id", "order_id": "@/orders#/id"}"#,
        "a shipment's courier is a shipping company of the store, and its order one of its orders",
    ),
    (
        "update_order",
        r#"{"courier_id": "@/shipping/companies#/id", "employees": ["@/users#/id"]}"#,
        "an order's courier is a shipping company of the store, its employees the store's",
    ),
    (
        "update_webhook",
        r#"{"rule": null, "headers": null}"#,
        "a generated rule and generated header names are not valid ones",
    ),
    (
        "create_order",
        r#"{"courier_id": "@/shipping/companies#/id", "branch_id": null, "products": [{"identifier_type": "id", "identifier": "@/products?per_page=60#/id", "quantity": 2}]}"#,
        "an order's products and courier are the store's",
    ),
];

/// Optional query parameters an operation needs one of: `(operation id, parameter, why)`; the
/// value is the one this walk knows for the parameter (the record it created).
const QUERIES: &[(&str, &str, &str)] = &[(
    "unsubscribe_webhooks",
    "id",
    "a webhook is unsubscribed by its id or its url (one of two optional parameters)",
)];

/// Operations the walk does not call, with why.
const NOT_DRIVEN: &[(&str, &str)] = &[
    (
        "import_products",
        "a multipart upload of a spreadsheet (sandbox::multipart_uploads_are_checked_like_json_bodies)",
    ),
    (
        "import_customers",
        "a multipart upload of a spreadsheet (sandbox::multipart_uploads_are_checked_like_json_bodies)",
    ),
    (
        "import_custom_urls",
        "a multipart upload of a spreadsheet (sandbox::multipart_uploads_are_checked_like_json_bodies)",
    ),
    (
        "change_bulk_order_statuses",
        "a multipart upload of a spreadsheet (sandbox::multipart_uploads_are_checked_like_json_bodies)",
    ),
    (
        "get_user_info",
        "served on the accounts host, not below /admin/v2 (oauth.rs)",
    ),
];

/// What an operation does that a read shows after it: `(operation id, read, effect)`.
const EFFECTS: &[(&str, &str, Effect)] = &[
    // A status change writes an entry of the order's history (issue 40).
    (
        "change_order_status",
        "/orders/{order_id}/histories",
        Effect::Grows(1),
    ),
    (
        "create_order_history",
        "/orders/{order_id}/histories",
        Effect::Grows(1),
    ),
];

#[derive(Clone, Copy, Debug)]
enum Effect {
    /// The read's `data` list holds this many more records.
    Grows(usize),
}

/// The groups whose cycle does not hold yet, with the exact failure the walk reports.
const KNOWN_GAPS: &[(&str, &str)] = &[];

struct Op {
    id: String,
    method: String,
    path: String,
}

/// The document's operations by tag.
fn tags(doc: &Value) -> BTreeMap<String, Vec<Op>> {
    let mut tags: BTreeMap<String, Vec<Op>> = BTreeMap::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in ["get", "post", "put", "patch", "delete"] {
            let Some(op) = item.get(method) else { continue };
            let tag = op["tags"][0].as_str().unwrap_or("untagged").to_owned();
            tags.entry(tag).or_default().push(Op {
                id: op["operationId"].as_str().unwrap_or_default().to_owned(),
                method: method.to_ascii_uppercase(),
                path: path.clone(),
            });
        }
    }
    tags
}

/// The parameter a template ends with (`/brands/{brand_id}`: `brand_id`).
fn trailing_param(template: &str) -> Option<&str> {
    template
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .and_then(|s| s.strip_prefix('{'))
        .and_then(|s| s.strip_suffix('}'))
}

fn params(template: &str) -> Vec<&str> {
    template
        .split('/')
        .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .collect()
}

/// Whether the document has `GET template`.
fn has_get(doc: &Value, template: &str) -> bool {
    doc["paths"][template].get("get").is_some()
}

/// Whether a `POST` creates a record of its group: its path names no record, or ends with the
/// record it adds to, or its last segment names the group's records (as in
/// `/products/images/{image_id}`).
fn creates(op: &Op, group: &[Op]) -> bool {
    let last = op
        .path
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default();
    op.method == "POST"
        && (params(&op.path).is_empty()
            || trailing_param(&op.path).is_some()
            || group
                .iter()
                .any(|o| o.path.contains(&format!("/{last}/{{"))))
}

/// A value of a form's text field, from its schema (a body generated for a form has none).
fn form_value(property: &Value) -> Option<Value> {
    if let Some(first) = property["enum"].get(0) {
        return Some(first.clone());
    }
    match (property["type"].as_str(), property["format"].as_str()) {
        (Some("string"), Some("uri")) => Some(json!("https://cdn.example/walk.png")),
        (Some("string"), _) => Some(json!("Walk")),
        (Some("integer" | "number"), _) => Some(json!(1)),
        (Some("boolean"), _) => Some(json!(true)),
        _ => None,
    }
}

/// A JSON merge patch (RFC 7396): `null` removes a field.
fn merge(target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = json!({});
    }
    let map = target.as_object_mut().expect("an object");
    for (key, value) in patch {
        if value.is_null() {
            map.remove(key);
        } else {
            merge(map.entry(key.clone()).or_insert(Value::Null), value);
        }
    }
}

/// The ids of every object in `value`.
fn ids_in(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            out.extend(map.get("id").and_then(id_text));
            map.values().for_each(|v| ids_in(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| ids_in(v, out)),
        _ => {}
    }
}

/// An object of `value` with an id not in `old` that shows `sent`: a record a create added.
fn new_record(value: &Value, old: &[String], sent: &Value) -> Option<String> {
    match value {
        Value::Object(map) => map
            .get("id")
            .and_then(id_text)
            .filter(|id| !old.contains(id) && shows(sent, value))
            .or_else(|| map.values().find_map(|v| new_record(v, old, sent))),
        Value::Array(items) => items.iter().find_map(|v| new_record(v, old, sent)),
        _ => None,
    }
}

/// Whether `value` holds `id` as the `id` of some object in it.
fn holds_id(value: &Value, id: &str) -> bool {
    match value {
        Value::Object(map) => {
            map.get("id").and_then(id_text).as_deref() == Some(id)
                || map.values().any(|v| holds_id(v, id))
        }
        Value::Array(items) => items.iter().any(|v| holds_id(v, id)),
        _ => false,
    }
}

/// A group's walk: the values found for path parameters, and the failure if any.
struct GroupWalk<'a> {
    server: &'a MockServer,
    doc: &'a Value,
    known: BTreeMap<String, String>,
    notes: Vec<String>,
}

impl GroupWalk<'_> {
    /// A value for `param` of `op`: one this walk created, a listed record's field from
    /// [`PARAM_SOURCES`], or the first record listed above it.
    async fn param(&mut self, op: &Op, param: &str, above: &str) -> Result<String, String> {
        let own_source = PARAM_SOURCES
            .iter()
            .find(|(o, p, ..)| *o == op.id && *p == param);
        if let (Some(value), None) = (self.known.get(param), own_source) {
            return Ok(value.clone());
        }
        let source = own_source.or_else(|| {
            PARAM_SOURCES
                .iter()
                .find(|(o, p, ..)| *o == "*" && *p == param)
        });
        let value = match source {
            Some((_, _, "", ..)) => self.server.shipping_rule_ids().first().map(i64::to_string),
            Some((_, _, list, pointer, filter)) => {
                let (status, body) = get(self.server, list).await;
                if status != StatusCode::OK {
                    return Err(format!("{list}: {status}"));
                }
                body["data"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|r| {
                        filter.is_none_or(|(f, v)| match v.strip_prefix('!') {
                            Some(not) => r[f] != not,
                            None => r[f] == v,
                        })
                    })
                    .find_map(|r| r.pointer(pointer).and_then(id_text))
            }
            None => match sandbox::first_id(self.server, above).await {
                Some(id) => Some(id),
                None => match param.strip_suffix("_id") {
                    Some(thing) => sandbox::first_id(self.server, &format!("/{thing}s")).await,
                    None => None,
                },
            },
        };
        let value = value.ok_or_else(|| format!("no record for {{{param}}} of {}", op.path))?;
        // An operation's own choice (a delivered shipment) is not the group's record.
        if !PARAM_SOURCES
            .iter()
            .any(|(o, p, ..)| *o == op.id && *p == param)
        {
            self.known.insert(param.to_owned(), value.clone());
        }
        Ok(value)
    }

    async fn path(&mut self, op: &Op, template: &str) -> Result<String, String> {
        let mut out = Vec::new();
        for segment in template.trim_end_matches('/').split('/') {
            match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(name) => {
                    let above = out.join("/");
                    out.push(self.param(op, name, &above).await?);
                }
                None => out.push(segment.to_owned()),
            }
        }
        Ok(out.join("/"))
    }

    /// The required query parameters of `op`: a value this walk knows for it, the first record
    /// of `/<thing>s` for a `<thing>_id`, else one from its schema.
    async fn query(&mut self, op: &Op) -> String {
        let mut pairs = Vec::new();
        let parameters = self.doc["paths"][&op.path][op.method.to_ascii_lowercase()]["parameters"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for p in parameters {
            let p = match p.get("$ref").and_then(Value::as_str) {
                Some(r) => {
                    self.doc["components"]["parameters"][r.rsplit('/').next().unwrap_or("")].clone()
                }
                None => p,
            };
            if p["in"] != "query" || p["required"] != true {
                continue;
            }
            let name = p["name"].as_str().unwrap_or_default().to_owned();
            let value = match self.known.get(&name) {
                Some(v) => Some(v.clone()),
                None => match name.strip_suffix("_id") {
                    Some(thing) => sandbox::first_id(self.server, &format!("/{thing}s")).await,
                    None => None,
                },
            };
            let value = value.unwrap_or_else(|| {
                let schema = match p["schema"].get("$ref").and_then(Value::as_str) {
                    Some(r) => {
                        &self.doc["components"]["schemas"][r.rsplit('/').next().unwrap_or("")]
                    }
                    None => &p["schema"],
                };
                let end = ["end", "to", "until"].iter().any(|w| name.contains(w));
                match (
                    schema["enum"].get(0),
                    schema["type"].as_str(),
                    schema["format"].as_str(),
                ) {
                    (Some(first), ..) => id_text(first).unwrap_or_default(),
                    (_, _, Some("date")) if end => "2030-12-31".into(),
                    (_, _, Some("date")) => "2020-01-01".into(),
                    (_, Some("integer" | "number"), _) => "1".into(),
                    (_, Some("boolean"), _) => "true".into(),
                    _ => "x".into(),
                }
            });
            pairs.push(format!("{name}={value}"));
        }
        for (_, name, _) in QUERIES.iter().filter(|(o, ..)| *o == op.id) {
            if let Some(value) = self.known.get(*name) {
                pairs.push(format!("{name}={value}"));
            }
        }
        if pairs.is_empty() {
            String::new()
        } else {
            format!("?{}", pairs.join("&"))
        }
    }

    /// A body for `op`: the documented request example, else one generated from its schema,
    /// its top-level `<thing>_id` fields naming records this walk knows or the store lists, and
    /// the patch of [`BODY_PATCHES`] applied. `Some(true)` in the second place for a form.
    async fn body(&mut self, op: &Op) -> (Option<Value>, bool) {
        let request = &self.doc["paths"][&op.path][op.method.to_ascii_lowercase()]["requestBody"];
        if !request.is_object() {
            return (None, false);
        }
        let form = request["content"].get("application/json").is_none()
            && request["content"].get("multipart/form-data").is_some();
        let mut body = sandbox::documented_body(&op.method, &op.path)
            .or_else(|| self.server.sample_body(&op.id))
            .unwrap_or_else(|| json!({}));
        if let Some(map) = body.as_object_mut() {
            for (name, value) in map.iter_mut() {
                if !name.ends_with("_id") || !(value.is_i64() || value.is_string()) {
                    continue;
                }
                let known = match self.known.get(name) {
                    Some(v) => Some(v.clone()),
                    None => {
                        let thing = name.trim_end_matches("_id");
                        sandbox::first_id(self.server, &format!("/{thing}s")).await
                    }
                };
                if let Some(known) = known {
                    *value = known
                        .parse::<i64>()
                        .map_or_else(|_| json!(known), |n| json!(n));
                }
            }
        }
        if let Some((_, patch, _)) = BODY_PATCHES.iter().find(|(o, ..)| *o == op.id) {
            let mut patch: Value = serde_json::from_str(patch).expect("a patch");
            self.resolve(&mut patch).await;
            merge(&mut body, &patch);
        }
        (Some(body), form)
    }

    /// Replaces every string `@LIST#POINTER` of `value` by the first listed record's field.
    async fn resolve(&mut self, value: &mut Value) {
        match value {
            Value::String(text) if text.starts_with('@') => {
                let (list, pointer) = text[1..].split_once('#').expect("@LIST#POINTER");
                let (_, body) = get(self.server, list).await;
                let found = body["data"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find_map(|r| r.pointer(pointer).cloned())
                    .unwrap_or(Value::Null);
                *value = found;
            }
            Value::Array(items) => {
                for item in items {
                    Box::pin(self.resolve(item)).await;
                }
            }
            Value::Object(map) => {
                for item in map.values_mut() {
                    Box::pin(self.resolve(item)).await;
                }
            }
            _ => {}
        }
    }

    /// Sends `op` (a form: its text fields from `body`, a small file for each of the form
    /// schema's files).
    async fn send(
        &self,
        op: &Op,
        target: &str,
        body: Option<Value>,
        form: bool,
    ) -> (StatusCode, Value) {
        let method = Method::from_bytes(op.method.as_bytes()).expect("method");
        if !form {
            return call(self.server, method, target, Some(ADMIN), body).await;
        }
        let schema = &self.doc["paths"][&op.path][op.method.to_ascii_lowercase()]["requestBody"]["content"]
            ["multipart/form-data"]["schema"];
        let schema = match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => &self.doc["components"]["schemas"][r.rsplit('/').next().unwrap_or("")],
            None => schema,
        };
        let mut parts = Form::new();
        for (name, property) in schema["properties"].as_object().into_iter().flatten() {
            if property["format"] == "binary" {
                let file = Part::bytes(b"\x89PNG\r\n\x1a\nwalk".to_vec())
                    .file_name("walk.png")
                    .mime_str("image/png")
                    .expect("mime");
                parts = parts.part(name.clone(), file);
            } else if let Some(value) = body
                .as_ref()
                .and_then(|b| b.get(name))
                .cloned()
                .or_else(|| form_value(property))
            {
                let value = &value;
                let text = match value {
                    Value::String(s) => s.clone(),
                    Value::Bool(b) => if *b { "1" } else { "0" }.to_owned(),
                    Value::Null | Value::Object(_) | Value::Array(_) => continue,
                    other => other.to_string(),
                };
                parts = parts.text(name.clone(), text);
            }
        }
        let response = common::client()
            .request(method, format!("{}{target}", self.server.base_url()))
            .bearer_auth(ADMIN)
            .multipart(parts)
            .send()
            .await
            .expect("sent");
        let status = response.status();
        let bytes = response.bytes().await.expect("body read");
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    /// The `data` list of `read` (resolved), its length.
    async fn count(&mut self, op: &Op, read: &str) -> Result<usize, String> {
        let path = self.path(op, read).await?;
        let (status, body) = get(self.server, &path).await;
        if status != StatusCode::OK {
            return Err(format!("{path}: {status}"));
        }
        Ok(body["data"].as_array().map_or(0, Vec::len))
    }

    /// Calls `op` and checks what the reads show after it.
    async fn drive(&mut self, op: &Op, group: &[Op], own: &[&str]) -> Result<(), String> {
        let effects: Vec<(&str, Effect)> = EFFECTS
            .iter()
            .filter(|(o, ..)| *o == op.id)
            .map(|(_, read, effect)| (*read, *effect))
            .collect();
        let path = self.path(op, &op.path).await?;
        let query = self.query(op).await;
        let (body, form) = self.body(op).await;
        let mut before = Vec::new();
        for (read, _) in &effects {
            before.push(self.count(op, read).await?);
        }
        let target = format!("{path}{query}");
        // The record a create adds to (its path, or the record it names), read before.
        let parent = if op.method != "POST" {
            None
        } else if has_get(self.doc, &op.path) && trailing_param(&op.path).is_some() {
            Some(path.clone())
        } else {
            let template = op.path.trim_end_matches('/');
            match template.rfind('}').map(|at| &template[..=at]) {
                Some(t) if has_get(self.doc, t) => Some(self.path(op, t).await?),
                _ => None,
            }
        };
        let mut old = Vec::new();
        if let Some(parent) = &parent {
            ids_in(&get(self.server, parent).await.1, &mut old);
        }
        let listed_before =
            if op.method == "POST" && params(&op.path).is_empty() && has_get(self.doc, &op.path) {
                let (status, list) = get(self.server, &target).await;
                (status == StatusCode::OK)
                    .then(|| list["pagination"]["total"].as_u64())
                    .flatten()
            } else {
                None
            };
        let (status, answer) = self.send(op, &target, body.clone(), form).await;
        if std::env::var_os("WALK_DEBUG").is_some() {
            eprintln!(
                "  {} {target} {} -> {status} {answer}",
                op.method,
                body.clone().unwrap_or_default()
            );
        }
        if !status.is_success() {
            return Err(format!(
                "{} {} {target}: {status} {answer} (sent {})",
                op.id,
                op.method,
                body.unwrap_or(Value::Null)
            ));
        }
        for ((read, effect), before) in effects.iter().zip(before) {
            let after = self.count(op, read).await?;
            match effect {
                Effect::Grows(by) if after != before + by => {
                    return Err(format!(
                        "{}: {read} holds {after} records after, {before} before",
                        op.id
                    ));
                }
                Effect::Grows(_) => {}
            }
        }
        let in_path: Vec<String> = params(&op.path)
            .iter()
            .filter_map(|p| self.known.get(*p).cloned())
            .collect();
        match op.method.as_str() {
            "POST" => {
                // A create of a record of this group: its path names no record, or ends with
                // the record it adds to, or its last segment names the group's records (as in
                // `/products/images/{image_id}`); its id is no record the path or the body named.
                let creates = creates(op, group);
                let sent = body.clone().unwrap_or_else(|| json!({}));
                let answered = id_text(&answer["data"]["id"]).filter(|id| !old.contains(id));
                // A child the answer or the parent's read shows (an option's new value).
                let child = match (&answered, &parent) {
                    (Some(_), _) | (None, None) => None,
                    (None, Some(parent)) => {
                        let mut path_ids = in_path.clone();
                        path_ids.extend(old.iter().cloned());
                        match new_record(&answer["data"], &path_ids, &sent) {
                            Some(id) => Some(id),
                            None => {
                                let read = get(self.server, parent).await.1;
                                new_record(&read["data"], &path_ids, &sent)
                            }
                        }
                    }
                };
                let Some(id) = answered.or(child) else {
                    // A create that answers a message: the list of its path holds one more.
                    if creates
                        && params(&op.path).is_empty()
                        && has_get(self.doc, &op.path)
                        && let Some(before) = listed_before
                    {
                        let (_, after) = get(self.server, &target).await;
                        let after = after["pagination"]["total"].as_u64().unwrap_or(0);
                        if after != before + 1 {
                            return Err(format!(
                                "{}: {target} counts {after} after a create, {before} before",
                                op.id
                            ));
                        }
                    }
                    return Ok(());
                };
                let named = body
                    .as_ref()
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .any(|(k, v)| k.ends_with("id") && id_text(v).as_deref() == Some(id.as_str()));
                if !creates || named || in_path.contains(&id) {
                    return Ok(());
                }
                let mine: Vec<&str> = own
                    .iter()
                    .copied()
                    .filter(|p| !params(&op.path).contains(p) && p.ends_with("id"))
                    .collect();
                let Some(param) = mine.first() else {
                    return Ok(());
                };
                for p in &mine {
                    self.known.insert((*p).to_owned(), id.clone());
                }
                // Found by its own details, or in its parent's answer.
                let details = group
                    .iter()
                    .find(|o| o.method == "GET" && trailing_param(&o.path) == Some(param))
                    .map(|o| o.path.clone());
                if let Some(details) = details {
                    let path = self.path(op, &details).await?;
                    let (status, read) = get(self.server, &path).await;
                    if status != StatusCode::OK {
                        return Err(format!(
                            "{}: the new record {path} is {status} {read}",
                            op.id
                        ));
                    }
                    if !shows(&sent, &read["data"]) {
                        return Err(format!(
                            "{}: {path} shows {} for {sent}",
                            op.id, read["data"]
                        ));
                    }
                    return Ok(());
                }
                match &parent {
                    Some(parent) => {
                        let (status, read) = get(self.server, parent).await;
                        if status != StatusCode::OK || !holds_id(&read["data"], &id) {
                            return Err(format!(
                                "{}: the new record {id} is not in its parent {parent}: {status}",
                                op.id
                            ));
                        }
                    }
                    None => self
                        .notes
                        .push(format!("{}: no read of the new record {id}", op.id)),
                }
            }
            "PUT" | "PATCH"
                if trailing_param(&op.path).is_some() && has_get(self.doc, &op.path) =>
            {
                let (status, read) = get(self.server, &path).await;
                let sent = body.unwrap_or(Value::Null);
                if status != StatusCode::OK || !shows(&sent, &read["data"]) {
                    return Err(format!(
                        "{}: {path} reads {status} {} after {sent}",
                        op.id, read["data"]
                    ));
                }
            }
            "DELETE" if trailing_param(&op.path).is_some() && has_get(self.doc, &op.path) => {
                let (status, read) = get(self.server, &path).await;
                if status != StatusCode::NOT_FOUND {
                    return Err(format!("{}: {path} reads {status} {read} after", op.id));
                }
                if let Some(param) = trailing_param(&op.path) {
                    self.known.remove(param);
                }
            }
            "GET" if answer["data"].is_array() && answer["pagination"].is_object() => {
                // A list's count is the records its pages hold.
                let total = answer["pagination"]["total"].as_u64().unwrap_or(0);
                if total <= 300 {
                    let records = common::all_pages(self.server, &target).await;
                    if records.len() as u64 != total {
                        return Err(format!(
                            "{}: {target} counts {total} and its pages hold {}",
                            op.id,
                            records.len()
                        ));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// A group's walk: `Ok(notes)` when the whole cycle holds, else `(short, detail)`.
async fn walk_group(
    server: &MockServer,
    doc: &Value,
    cycles: &sandbox::Groups,
    ops: &[Op],
) -> Result<Vec<String>, (String, String)> {
    let mut notes = Vec::new();
    let mut covered: Vec<&str> = Vec::new();
    // The collections' cycles (every operation of a cycle of this group).
    for (collection, roles) in cycles {
        if !roles
            .values()
            .all(|(id, ..)| ops.iter().any(|o| &o.id == id))
        {
            continue;
        }
        match sandbox::walk(server, doc, roles).await {
            Ok(Walk::Done) => covered.extend(roles.values().map(|(id, ..)| id.as_str())),
            Ok(Walk::Skipped(why)) => notes.push(format!("{collection}: {why}")),
            Err(error) => {
                let short = error.split(':').next().unwrap_or_default().to_owned();
                return Err((format!("cycle {collection}: {short}"), error));
            }
        }
    }
    let own: Vec<&str> = ops.iter().filter_map(|o| trailing_param(&o.path)).collect();
    let mut rest: Vec<&Op> = ops
        .iter()
        .filter(|o| !covered.contains(&o.id.as_str()))
        .filter(|o| {
            let skip = NOT_DRIVEN.iter().find(|(id, _)| *id == o.id);
            if let Some((_, why)) = skip {
                notes.push(format!("{}: {why}", o.id));
            }
            skip.is_none()
        })
        .collect();
    // Creates first (then what they created is the record the rest work on), reads, updates,
    // actions on a record (a cancellation, a return), deletions last.
    rest.sort_by_key(|o| match o.method.as_str() {
        "POST" if creates(o, ops) && trailing_param(&o.path).is_none() => 0,
        "POST" if trailing_param(&o.path).is_some() => 1,
        "GET" => 2,
        "PUT" | "PATCH" => 3,
        "DELETE" => 5,
        _ => 4,
    });
    let mut walk = GroupWalk {
        server,
        doc,
        known: BTreeMap::new(),
        notes,
    };
    for op in rest {
        if let Err(error) = walk.drive(op, ops, &own).await {
            if error.starts_with("no record") {
                return Err((error.clone(), error));
            }
            let short = error
                .split(": ")
                .next()
                .unwrap_or_default()
                .split(' ')
                .take(3)
                .collect::<Vec<_>>()
                .join(" ");
            let status = error
                .split(": ")
                .nth(1)
                .and_then(|s| s.split(' ').next())
                .filter(|s| s.len() == 3 && s.parse::<u16>().is_ok())
                .map(|s| format!(": {s}"))
                .unwrap_or_default();
            return Err((format!("{short}{status}"), error));
        }
    }
    Ok(walk.notes)
}

#[tokio::test]
async fn every_group_of_the_document_holds_its_whole_cycle() {
    let doc = sandbox::document();
    let server = start().await;
    let cycles = sandbox::groups(&doc);
    let tags = tags(&doc);
    let mut holds = Vec::new();
    let mut failing: BTreeMap<String, (String, String)> = BTreeMap::new();
    for (tag, ops) in &tags {
        match walk_group(&server, &doc, &cycles, ops).await {
            Ok(notes) => {
                eprintln!("HOLDS  {tag}");
                for note in notes {
                    eprintln!("         ({note})");
                }
                holds.push(tag.clone());
            }
            Err((short, detail)) => {
                eprintln!("FAILS  {tag}: {short}\n         {detail}");
                failing.insert(tag.clone(), (short, detail));
            }
        }
    }
    eprintln!(
        "{} of {} groups hold their whole cycle",
        holds.len(),
        tags.len()
    );
    let unexpected: Vec<String> = failing
        .iter()
        .filter(|(tag, (short, _))| {
            !KNOWN_GAPS
                .iter()
                .any(|(t, failure)| t == tag && failure == short)
        })
        .map(|(tag, (short, detail))| format!("{tag}: {short}\n    {detail}"))
        .collect();
    let healed: Vec<&str> = KNOWN_GAPS
        .iter()
        .filter(|(t, _)| !failing.contains_key(*t))
        .map(|(t, _)| *t)
        .collect();
    assert!(
        unexpected.is_empty(),
        "groups whose cycle does not hold (or fails otherwise than KNOWN_GAPS says):\n{}",
        unexpected.join("\n")
    );
    assert!(
        healed.is_empty(),
        "groups of KNOWN_GAPS that now hold: remove them from it: {healed:?}"
    );
    assert_eq!(tags.len(), 53, "the document's groups");
}

//! The drift check: `store-admin-mock --proxy URL` ([`MockConfig::proxy`]) forwards every call
//! below `/admin/v2` to a real store's base URL, with the caller's own headers (its token
//! included) to that origin only (no redirect is followed), hands the answer back as it came, and
//! checks it against the document:
//!
//! - it decodes through the generated types (`store_admin_client::decoders`), which read the
//!   service's habits as the client does; or the first mismatch, with its JSON path;
//! - which habits of the service's serialisation it needed (a number as a string, `0`/`1` for a
//!   boolean, `[]` for an object, one value for a list, ...), found by walking the answer beside
//!   the document's schema, with the JSON path of the first place each was seen;
//! - the fields the document does not declare, by JSON path (array indexes as `[]`).
//!
//! The report, per operation, is `GET /__admin/drift` ([`MockServer::drift`], and the admin routes
//! need the admin token in this mode); the binary prints it when it stops.
//!
//! It is bounded and keeps no value of a body:
//!
//! - an answer is read in pieces and refused (502) past [`MockConfig::proxy_answer_limit`] (64 MiB
//!   by default, as the client), and one nested deeper than the client's bound is not walked;
//! - the report has one entry per operation of the document and one for the paths it does not
//!   have; each keeps at most [`ERRORS_KEPT`] errors and [`PATHS_KEPT`] undeclared fields, and
//!   counts the ones it dropped;
//! - an error's text has each value replaced by its type (`invalid type: string <string>`);
//! - a key name that looks like data (very long, high entropy, numeric, not a name's characters)
//!   is folded into `<key>` in every path, and the keys of a map into `<key>` always.
//!
//! A path with a dot segment (`..`, `%2e%2e`) is refused (400) before anything is forwarded
//! (`http.rs`): the caller's token never reaches the store outside its base path.
//!
//! [`MockConfig::proxy`]: crate::MockConfig::proxy
//! [`MockConfig::proxy_answer_limit`]: crate::MockConfig::proxy_answer_limit
//! [`MockServer::drift`]: crate::MockServer::drift

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;

use crate::document::Document;
// The habits' names and the rule for keys that are data: the client's own (its drift count
// reports in the same words).
use store_admin_client::drift::{habits, looks_like_data};

/// What the drift check saw of one operation.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct OperationDrift {
    /// Calls forwarded.
    pub calls: u64,
    /// Answers that decode through the generated types.
    pub decoded: u64,
    /// Answers that do not, with the first few errors (JSON path and what was found).
    pub failed: u64,
    /// The first errors of the answers that do not decode, each value in them replaced by its
    /// type (at most [`ERRORS_KEPT`]).
    pub errors: Vec<String>,
    /// Errors not kept, past the first [`ERRORS_KEPT`].
    pub errors_dropped: u64,
    /// The habits of the service's serialisation the answers needed: how many answers needed
    /// each, and the JSON path where it was first seen.
    pub habits: BTreeMap<String, Habit>,
    /// Fields the document does not declare: how many answers had each (by JSON path, at most
    /// [`PATHS_KEPT`]).
    pub unknown_fields: BTreeMap<String, u64>,
    /// Undeclared fields not kept: one per answer and path past the first [`PATHS_KEPT`] paths.
    pub unknown_fields_dropped: u64,
}

/// One habit of the service's serialisation, as the drift check counts it.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Habit {
    /// Answers that needed it.
    pub answers: u64,
    /// Where it was first seen.
    pub first_path: String,
}

/// The forwarding side and the report.
pub(crate) struct Proxy {
    base: url::Url,
    client: reqwest::Client,
    answer_limit: u64,
    report: Mutex<BTreeMap<String, OperationDrift>>,
}

/// The headers not passed on either way: the connection's own, and the length (the body is
/// passed whole).
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

/// Most errors kept per operation.
pub const ERRORS_KEPT: usize = 5;

/// Most undeclared fields (paths) kept per operation, and looked at per answer.
pub const PATHS_KEPT: usize = 256;

/// The largest answer the drift check reads by default: 64 MiB, the client's default bound.
pub const DEFAULT_PROXY_ANSWER_BYTES: u64 = 64 << 20;

/// The report's entry for every path the document does not have.
const NOT_IN_THE_DOCUMENT: &str = "(not in the document)";

impl Proxy {
    pub fn new(base: url::Url, answer_limit: u64) -> Result<Self, reqwest::Error> {
        Ok(Proxy {
            base,
            answer_limit,
            client: reqwest::Client::builder()
                // The caller's token goes to this origin only.
                .redirect(reqwest::redirect::Policy::none())
                .connect_timeout(Duration::from_secs(10))
                .timeout(Duration::from_secs(120))
                .build()?,
            report: Mutex::new(BTreeMap::new()),
        })
    }

    /// The report so far, per operation.
    pub fn report(&self) -> BTreeMap<String, OperationDrift> {
        self.report
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Forwards `request` (whose path below `/admin/v2` is `path`) and checks its answer as one
    /// of `operation` (its `operationId`, with its success schema), if the document has it.
    pub async fn forward(
        &self,
        doc: &Document,
        operation: Option<(&str, Option<&Value>)>,
        path: &str,
        request: Request,
        body_limit: usize,
    ) -> Response {
        let (parts, body) = request.into_parts();
        let mut url = self.base.clone();
        let joined = format!("{}{}", self.base.path().trim_end_matches('/'), path);
        url.set_path(&joined);
        url.set_query(parts.uri.query());
        let body = match axum::body::to_bytes(body, body_limit).await {
            Ok(body) => body,
            Err(_) => {
                return (
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "the request body is too large",
                )
                    .into_response();
            }
        };
        let mut headers = HeaderMap::new();
        for (name, value) in &parts.headers {
            if !HOP_BY_HOP.contains(&name.as_str()) {
                headers.append(name.clone(), value.clone());
            }
        }
        let sent = self
            .client
            .request(parts.method, url)
            .headers(headers)
            .body(body)
            .send()
            .await;
        let mut answer = match sent {
            Ok(answer) => answer,
            Err(error) => {
                tracing::warn!(error = %error.without_url(), "the proxied store did not answer");
                return (
                    StatusCode::BAD_GATEWAY,
                    "the store behind the drift check did not answer",
                )
                    .into_response();
            }
        };
        let status = answer.status();
        let answer_headers = answer.headers().clone();
        let (id, schema) = match operation {
            Some((id, schema)) => (id.to_owned(), schema),
            None => (NOT_IN_THE_DOCUMENT.to_owned(), None),
        };
        let bytes = match store_admin_client::read_body(&mut answer, self.answer_limit).await {
            Ok(bytes) => bytes,
            Err(store_admin_client::BodyError::TooLarge { limit }) => {
                let refused = format!("the store's answer is larger than {limit} bytes");
                self.refused(&id, status, &refused);
                return (StatusCode::BAD_GATEWAY, refused).into_response();
            }
            Err(store_admin_client::BodyError::Http(_)) => {
                return (StatusCode::BAD_GATEWAY, "the store's answer was cut off").into_response();
            }
        };
        let json = answer_headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("json"));
        self.check(doc, &id, schema, status, json, &bytes, path);
        let mut response = Response::new(Body::from(bytes));
        *response.status_mut() = status;
        for (name, value) in &answer_headers {
            if !HOP_BY_HOP.contains(&name.as_str()) {
                response
                    .headers_mut()
                    .append(HeaderName::from(name), value.clone());
            }
        }
        response
    }

    /// An answer refused unread (too large): a failed call of `id`.
    fn refused(&self, id: &str, status: StatusCode, why: &str) {
        let mut report = self.report.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = report.entry(id.to_owned()).or_default();
        entry.calls += 1;
        entry.failed += 1;
        keep_error(entry, format!("{}: {why}", status.as_u16()));
    }

    #[allow(clippy::too_many_arguments)]
    fn check(
        &self,
        doc: &Document,
        id: &str,
        schema: Option<&Value>,
        status: StatusCode,
        json: bool,
        bytes: &[u8],
        path: &str,
    ) {
        let decoder = store_admin_client::decoders::find(id);
        // The decoders refuse a body nested past the bound themselves; the walk is not run on one.
        let shallow = store_admin_client::check_depth(bytes).is_ok();
        let decoded = match decoder {
            Some(decoder) if status.is_success() => (decoder.success)(bytes),
            Some(decoder) => (decoder.error)(bytes),
            None => Err(format!("{} is not in the document", fold_path(path))),
        };
        let mut findings = Findings::default();
        if json
            && shallow
            && status.is_success()
            && let (Some(schema), Ok(value)) = (schema, serde_json::from_slice::<Value>(bytes))
        {
            walk(doc, schema, &value, "", &mut findings, 0);
        }
        let mut report = self.report.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = report.entry(id.to_owned()).or_default();
        entry.calls += 1;
        match decoded {
            Ok(()) => entry.decoded += 1,
            Err(error) => {
                entry.failed += 1;
                keep_error(
                    entry,
                    format!("{}: {}", status.as_u16(), without_values(&error)),
                );
            }
        }
        for (habit, path) in findings.habits {
            let seen = entry
                .habits
                .entry(habit.to_owned())
                .or_insert_with(|| Habit {
                    answers: 0,
                    first_path: path,
                });
            seen.answers += 1;
        }
        entry.unknown_fields_dropped += findings.unknown_dropped;
        for path in findings.unknown {
            if let Some(count) = entry.unknown_fields.get_mut(&path) {
                *count += 1;
            } else if entry.unknown_fields.len() < PATHS_KEPT {
                entry.unknown_fields.insert(path, 1);
            } else {
                entry.unknown_fields_dropped += 1;
            }
        }
    }
}

/// Keeps `error` in the entry's first [`ERRORS_KEPT`], or counts it dropped.
fn keep_error(entry: &mut OperationDrift, error: String) {
    if entry.errors.len() < ERRORS_KEPT {
        entry.errors.push(error);
    } else {
        entry.errors_dropped += 1;
    }
}

/// `text` (a decoder's error) with every value in it replaced by its type: a quoted string by
/// `<string>`, a value in backquotes by `<value>`. The names after `expected` (the document's)
/// and a missing field's name stay.
pub(crate) fn without_values(text: &str) -> String {
    let (path, message) = match text.split_once(": ") {
        Some((path, message)) if !path.contains(' ') => (Some(path), message),
        _ => (None, text),
    };
    let mut out = String::with_capacity(text.len().min(1024));
    if let Some(path) = path {
        out.push_str(&fold_path(path));
        out.push_str(": ");
    }
    let bytes = message.as_bytes();
    let mut at = 0;
    let mut kept = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                out.push_str(&message[kept..at]);
                let mut end = at + 1;
                while end < bytes.len() && bytes[end] != b'"' {
                    end += if bytes[end] == b'\\' { 2 } else { 1 };
                }
                out.push_str("<string>");
                at = (end + 1).min(bytes.len());
                kept = at;
            }
            b'`' => {
                let before = &message[..at];
                let end = message[at + 1..]
                    .find('`')
                    .map_or(bytes.len(), |e| at + 1 + e + 1);
                let names_the_document = before.contains("expected")
                    || before.ends_with("missing field ")
                    || before.ends_with("duplicate field ");
                if !names_the_document {
                    out.push_str(&message[kept..at]);
                    out.push_str("<value>");
                    kept = end;
                }
                at = end;
            }
            _ => at += 1,
        }
    }
    out.push_str(&message[kept.min(message.len())..]);
    out
}

/// A JSON path (`data[3].meta.x`, or a URL path `/orders/123`) with each key that looks like data
/// folded into `<key>`.
pub(crate) fn fold_path(path: &str) -> String {
    let separator = if path.starts_with('/') { '/' } else { '.' };
    path.split(separator)
        .map(|segment| {
            let (name, index) = match segment.find('[') {
                Some(at) => segment.split_at(at),
                None => (segment, ""),
            };
            if looks_like_data(name) {
                format!("<key>{index}")
            } else {
                segment.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(&separator.to_string())
}

/// What walking one answer beside its schema found.
#[derive(Debug, Default)]
struct Findings {
    /// Each habit once, with the first path it was seen at.
    habits: BTreeMap<&'static str, String>,
    /// Undeclared fields, by path (indexes as `[]`), at most [`PATHS_KEPT`].
    unknown: std::collections::BTreeSet<String>,
    /// Undeclared fields past those.
    unknown_dropped: u64,
    /// Places where neither the schema nor a habit explains the value.
    mismatches: usize,
}

impl Findings {
    fn habit(&mut self, habit: &'static str, path: &str) {
        self.habits
            .entry(habit)
            .or_insert_with(|| display(path).to_owned());
    }

    fn unknown(&mut self, path: String) {
        if self.unknown.len() < PATHS_KEPT || self.unknown.contains(&path) {
            self.unknown.insert(path);
        } else {
            self.unknown_dropped += 1;
        }
    }

    fn weight(&self) -> usize {
        self.mismatches * 100 + self.habits.len() * 10 + self.unknown.len()
    }

    fn merge(&mut self, other: Findings) {
        for (habit, path) in other.habits {
            self.habits.entry(habit).or_insert(path);
        }
        self.unknown_dropped += other.unknown_dropped;
        for path in other.unknown {
            self.unknown(path);
        }
        self.mismatches += other.mismatches;
    }
}

fn display(path: &str) -> &str {
    if path.is_empty() { "." } else { path }
}

/// How deep the walk goes (a document's schemas are not that deep; a hostile answer may be).
const MAX_DEPTH: usize = 64;

/// Walks `value` beside `schema`, noting habits and unknown fields.
fn walk(
    doc: &Document,
    schema: &Value,
    value: &Value,
    path: &str,
    out: &mut Findings,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let view = doc.view(schema);
    if !view.any_of.is_empty() {
        // The branch that explains the value best.
        let best = view
            .any_of
            .iter()
            .map(|branch| {
                let mut found = Findings::default();
                walk(doc, branch, value, path, &mut found, depth + 1);
                found
            })
            .min_by_key(Findings::weight);
        if let Some(best) = best {
            out.merge(best);
        }
        return;
    }
    let kind = view.kind();
    match (kind, value) {
        (None, _) => {}
        (Some(_), Value::Null) => {
            if !view.nullable {
                out.habit(habits::NULL_FOR_VALUE, path);
            }
        }
        (Some("integer" | "number"), Value::Number(_)) => {}
        (Some("integer" | "number"), Value::String(text)) => {
            if text.trim().parse::<f64>().is_ok() {
                out.habit(habits::NUMBER_AS_STRING, path);
            } else {
                out.mismatches += 1;
            }
        }
        (Some("integer" | "number"), Value::Bool(_)) => out.habit(habits::NUMBER_AS_BOOLEAN, path),
        (Some("string"), Value::String(_)) => {}
        (Some("string"), Value::Number(_)) => out.habit(habits::STRING_AS_NUMBER, path),
        (Some("boolean"), Value::Bool(_)) => {}
        (Some("boolean"), Value::Number(n)) if n.as_u64().is_some_and(|n| n <= 1) => {
            out.habit(habits::BOOLEAN_AS_NUMBER_OR_WORD, path);
        }
        (Some("boolean"), Value::String(word))
            if matches!(
                word.to_ascii_lowercase().as_str(),
                "0" | "1" | "on" | "off" | "yes" | "no" | "true" | "false"
            ) =>
        {
            out.habit(habits::BOOLEAN_AS_NUMBER_OR_WORD, path);
        }
        (Some("array"), Value::Array(items)) => {
            if let Some(item) = view.items {
                for item_value in items {
                    walk(doc, item, item_value, &format!("{path}[]"), out, depth + 1);
                }
            }
        }
        (Some("array"), Value::Object(map))
            if !map.is_empty() && map.keys().all(|k| k.parse::<usize>().is_ok()) =>
        {
            out.habit(habits::INDEX_KEYED_OBJECT_FOR_LIST, path);
            if let Some(item) = view.items {
                for item_value in map.values() {
                    walk(doc, item, item_value, &format!("{path}[]"), out, depth + 1);
                }
            }
        }
        (Some("array"), one) => {
            out.habit(habits::ONE_VALUE_FOR_LIST, path);
            if let Some(item) = view.items {
                walk(doc, item, one, &format!("{path}[]"), out, depth + 1);
            }
        }
        (Some("object"), Value::Object(map)) => {
            for (key, field) in map {
                let in_path = |key: &str| {
                    if path.is_empty() {
                        key.to_owned()
                    } else {
                        format!("{path}.{key}")
                    }
                };
                match view.property(key) {
                    Some(property) => walk(doc, property, field, &in_path(key), out, depth + 1),
                    None => match view.additional {
                        Some(Value::Bool(false)) | None if !view.properties.is_empty() => {
                            let key = if looks_like_data(key) { "<key>" } else { key };
                            out.unknown(in_path(key));
                        }
                        // A map's keys are data.
                        Some(additional @ Value::Object(_)) => {
                            walk(doc, additional, field, &in_path("<key>"), out, depth + 1);
                        }
                        _ => {}
                    },
                }
            }
        }
        (Some("object"), Value::Array(items)) if items.is_empty() => {
            out.habit(habits::EMPTY_ARRAY_FOR_OBJECT, path);
        }
        (Some("object"), Value::Array(items)) if items.len() == 1 => {
            out.habit(habits::ONE_ITEM_ARRAY_FOR_OBJECT, path);
            walk(doc, schema, &items[0], path, out, depth + 1);
        }
        (Some("object"), Value::Number(_) | Value::String(_)) => {
            out.habit(habits::ID_FOR_RECORD, path);
        }
        _ => out.mismatches += 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DOCUMENT: &str = r#"
openapi: 3.0.3
info: { title: t, version: "1" }
paths:
  /records/{id}:
    get:
      operationId: get_record
      parameters:
        - { name: id, in: path, required: true, schema: { type: integer } }
      responses:
        '200':
          description: the record
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Record' }
components:
  schemas:
    Record:
      type: object
      required: [id]
      properties:
        id: { type: integer }
        name: { type: string }
        active: { type: boolean }
        price: { type: number }
        owner: { $ref: '#/components/schemas/Owner' }
        tags: { type: array, items: { type: string } }
        meta: { type: object, additionalProperties: { type: string } }
        note: { type: string, nullable: true }
        either:
          anyOf:
            - { type: integer }
            - { type: string }
    Owner:
      type: object
      properties:
        id: { type: integer }
"#;

    fn findings(value: Value) -> Findings {
        let doc = Document::parse(DOCUMENT).expect("a document");
        let schema = json!({"$ref": "#/components/schemas/Record"});
        let mut out = Findings::default();
        walk(&doc, &schema, &value, "", &mut out, 0);
        out
    }

    #[test]
    fn a_well_typed_answer_needs_no_habit_and_has_no_unknown_field() {
        let out = findings(json!({
            "id": 1, "name": "x", "active": true, "price": 1.5, "owner": {"id": 2},
            "tags": ["a"], "meta": {"k": "v"}, "note": null, "either": "s"
        }));
        assert!(out.habits.is_empty(), "{out:?}");
        assert!(out.unknown.is_empty(), "{out:?}");
        assert_eq!(out.mismatches, 0);
    }

    #[test]
    fn each_habit_is_named_with_the_path_it_was_first_seen_at() {
        let out = findings(json!({
            "id": "12", "name": 7, "active": "on", "price": true, "owner": 5,
            "tags": "one", "meta": [], "either": 3
        }));
        let expected = [
            (habits::NUMBER_AS_STRING, "id"),
            (habits::STRING_AS_NUMBER, "name"),
            (habits::BOOLEAN_AS_NUMBER_OR_WORD, "active"),
            (habits::NUMBER_AS_BOOLEAN, "price"),
            (habits::ID_FOR_RECORD, "owner"),
            (habits::ONE_VALUE_FOR_LIST, "tags"),
            (habits::EMPTY_ARRAY_FOR_OBJECT, "meta"),
        ];
        for (habit, path) in expected {
            assert_eq!(
                out.habits.get(habit).map(String::as_str),
                Some(path),
                "{habit}"
            );
        }
        assert_eq!(out.habits.len(), expected.len(), "{out:?}");
        let out = findings(json!({"id": 1, "name": null, "tags": {"0": "a", "1": "b"},
                                  "owner": [{"id": 1, "extra": 1}]}));
        assert_eq!(out.habits[habits::NULL_FOR_VALUE], "name");
        assert_eq!(out.habits[habits::INDEX_KEYED_OBJECT_FOR_LIST], "tags");
        assert_eq!(out.habits[habits::ONE_ITEM_ARRAY_FOR_OBJECT], "owner");
        assert!(out.unknown.contains("owner.extra"), "{out:?}");
    }

    #[test]
    fn an_error_keeps_no_value_only_its_type_and_the_documents_names() {
        let cases = [
            (
                r#"data[0].id: invalid type: string "SECRET \"quoted\" x", expected u64 at line 1 column 20"#,
                "data[0].id: invalid type: string <string>, expected u64 at line 1 column 20",
            ),
            (
                "data.status: unknown variant `s3cr3t`, expected one of `pending`, `done`",
                "data.status: unknown variant <value>, expected one of `pending`, `done`",
            ),
            (
                "data.n: invalid value: integer `123456`, expected u8",
                "data.n: invalid value: integer <value>, expected u8",
            ),
            (
                r#"data.price: invalid number in a string: "12x""#,
                "data.price: invalid number in a string: <string>",
            ),
            (
                "data[0]: missing field `name`",
                "data[0]: missing field `name`",
            ),
            (
                "data.meta.123456789.x: invalid type: map, expected a string",
                "data.meta.<key>.x: invalid type: map, expected a string",
            ),
            (r#"unterminated "abc"#, "unterminated <string>"),
            ("cut `abc", "cut <value>"),
        ];
        for (error, expected) in cases {
            assert_eq!(without_values(error), expected, "{error}");
        }
    }

    #[test]
    fn keys_that_look_like_data_are_folded() {
        for key in [
            "123456",
            "0",
            "k".repeat(41).as_str(),
            "a1b2c3d4e5f6g7h8",
            "9f86d081884c7d659a2feaa0c55ad015",
            "Ahmed Ali",
            "مفتاح",
            "x.y",
            "QmFzZTY0UmFuZG9tVG9rZW5YWQ",
        ] {
            assert!(looks_like_data(key), "{key}");
        }
        for key in [
            "id",
            "name",
            "shipping_address",
            "address_line_2",
            "customer_shipping_address_id",
            "updated_at",
            "x-request-id",
            "sku",
        ] {
            assert!(!looks_like_data(key), "{key}");
        }
        assert_eq!(fold_path("/orders/123/items"), "/orders/<key>/items");
        assert_eq!(fold_path("data[3].meta"), "data[3].meta");
    }

    #[test]
    fn the_unknown_fields_of_one_answer_are_capped_and_counted() {
        let mut record = serde_json::Map::new();
        record.insert("id".into(), json!(1));
        for i in 0..(PATHS_KEPT + 100) {
            record.insert(format!("field_{i}"), json!(1));
            record.insert(format!("{i}"), json!(1));
        }
        let out = findings(Value::Object(record));
        assert_eq!(out.unknown.len(), PATHS_KEPT);
        assert!(
            out.unknown.contains("<key>"),
            "numeric keys folded into one"
        );
        assert_eq!(out.unknown_dropped, 100 + 1);
    }

    #[test]
    fn undeclared_fields_are_listed_by_path_and_a_hostile_depth_stops() {
        let out = findings(json!({"id": 1, "renamed": 1, "owner": {"id": 1, "x": {}}}));
        let unknown: Vec<&str> = out.unknown.iter().map(String::as_str).collect();
        assert_eq!(unknown, ["owner.x", "renamed"]);
        // A value nested far deeper than any schema (serde_json reads at most 128 levels of an
        // answer; a value built by hand may hold more): the walk ends at its bound.
        let mut deep = json!(1);
        for _ in 0..500 {
            deep = json!([deep]);
        }
        let doc = Document::parse(DOCUMENT).expect("a document");
        let schema = json!({"type": "array", "items": {"$ref": "#/components/schemas/Record"}});
        let mut out = Findings::default();
        walk(&doc, &schema, &deep, "", &mut out, 0);
    }
}

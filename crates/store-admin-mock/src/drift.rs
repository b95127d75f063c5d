//! The drift check: `store-admin-mock --proxy URL` ([`MockConfig::proxy`]) forwards every call
//! below `/admin/v2` to a real store's base URL, with the caller's own headers (its token
//! included) to that origin only (no redirect is followed), hands the answer back as it came, and
//! checks it against the document:
//!
//! - it decodes through the generated types (`store_admin_client::decoders`), which read the
//!   service's habits as the client does; or the first mismatch, with its JSON path;
//! - which habits of the service's serialisation it needed (a number as a string, `0`/`1` for a
//!   boolean, `[]` for an object, one value for a list, ...) and the fields the document does not
//!   declare, by JSON path (array indexes as `[]`), with counts, the JSON types seen and the first
//!   and last time: found as the client's drift count finds them
//!   (`store_admin_client::drift::observe`, a second decode through the generated types that
//!   keeps the path), so that the client's reports and this one say the same of the same answer.
//!
//! The report, per operation, is `GET /__admin/drift` ([`MockServer::drift`], and the admin routes
//! need the admin token in this mode); the binary prints it when it stops. It is the client's
//! report (`store_admin_client::drift::DriftReport`, what `StoreAdmin::drift` answers) with the
//! first errors beside each operation: it reads back as one, and the two merge
//! ([`MockServer::drift_report`]).
//!
//! It is bounded and keeps no value of a body:
//!
//! - an answer is read in pieces and refused (502) past [`MockConfig::proxy_answer_limit`] (64 MiB
//!   by default, as the client), and one nested deeper than the client's bound is not walked;
//! - the report has one entry per operation of the document and one for the paths it does not
//!   have; each keeps at most [`ERRORS_KEPT`] errors (and counts the ones it dropped) and
//!   [`PATHS_KEPT`] paths of undeclared fields and of each habit;
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
//! [`MockServer::drift_report`]: crate::MockServer::drift_report

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

// The rule for keys that are data and the report: the client's own (its drift count reports in
// the same words and format).
pub use store_admin_client::drift::PATHS_KEPT;
use store_admin_client::drift::{DriftReport, Findings, looks_like_data};

/// What the drift check saw of one operation: the client's drift count of its answers (the
/// same fields, flattened: `calls`, `decoded`, `failed`, `habits`, `unknown_fields`), and the
/// first errors of the answers that do not decode.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct OperationDrift {
    /// The count, as the client's drift count keeps it.
    #[serde(flatten)]
    pub drift: store_admin_client::drift::OperationDrift,
    /// The first errors of the answers that do not decode (JSON path and what was found), each
    /// value in them replaced by its type (at most [`ERRORS_KEPT`]).
    pub errors: Vec<String>,
    /// Errors not kept, past the first [`ERRORS_KEPT`].
    pub errors_dropped: u64,
}

/// The forwarding side and the report.
pub(crate) struct Proxy {
    base: url::Url,
    client: reqwest::Client,
    answer_limit: u64,
    report: Mutex<Kept>,
}

/// The report: the counts, and the first errors of each operation (with how many were dropped).
#[derive(Default)]
struct Kept {
    counts: DriftReport,
    errors: BTreeMap<String, (Vec<String>, u64)>,
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
            report: Mutex::new(Kept::default()),
        })
    }

    /// The report so far, per operation.
    pub fn report(&self) -> BTreeMap<String, OperationDrift> {
        let kept = self.report.lock().unwrap_or_else(PoisonError::into_inner);
        kept.counts
            .operations
            .iter()
            .map(|(id, drift)| {
                let (errors, errors_dropped) = kept.errors.get(id).cloned().unwrap_or_default();
                let entry = OperationDrift {
                    drift: drift.clone(),
                    errors,
                    errors_dropped,
                };
                (id.clone(), entry)
            })
            .collect()
    }

    /// The counts alone, as the client's drift count reports them.
    pub fn counts(&self) -> DriftReport {
        self.report
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .counts
            .clone()
    }

    /// Forwards `request` (whose path below `/admin/v2` is `path`) and checks its answer as one
    /// of `operation` (its `operationId`), if the document has it.
    pub async fn forward(
        &self,
        operation: Option<&str>,
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
        let id = operation.unwrap_or(NOT_IN_THE_DOCUMENT).to_owned();
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
        self.check(&id, status, json, &bytes, path);
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
        let mut kept = self.report.lock().unwrap_or_else(PoisonError::into_inner);
        kept.counts.record(id, None, chrono::Utc::now());
        let error = format!("{}: {why}", status.as_u16());
        keep_error(kept.errors.entry(id.to_owned()).or_default(), error);
    }

    fn check(&self, id: &str, status: StatusCode, json: bool, bytes: &[u8], path: &str) {
        let decoder = store_admin_client::decoders::find(id);
        let decoded = match decoder {
            Some(decoder) if status.is_success() => (decoder.success)(bytes),
            Some(decoder) => (decoder.error)(bytes),
            None => Err(format!("{} is not in the document", fold_path(path))),
        };
        // What the answer needed and had, as the client's count finds it, up to where its
        // decoding stopped (a body nested past the client's bound is refused unread, as the
        // decoders refuse it).
        let findings = match status.is_success() && json {
            true => store_admin_client::decoders::drift(id, bytes)
                .map(|(findings, _)| findings)
                .unwrap_or_default(),
            false => Findings::default(),
        };
        let mut kept = self.report.lock().unwrap_or_else(PoisonError::into_inner);
        kept.counts
            .record_answer(id, &findings, decoded.is_ok(), chrono::Utc::now());
        if let Err(error) = decoded {
            let error = format!("{}: {}", status.as_u16(), without_values(&error));
            keep_error(kept.errors.entry(id.to_owned()).or_default(), error);
        }
    }
}

/// Keeps `error` in an operation's first [`ERRORS_KEPT`], or counts it dropped.
fn keep_error((errors, dropped): &mut (Vec<String>, u64), error: String) {
    if errors.len() < ERRORS_KEPT {
        errors.push(error);
    } else {
        *dropped += 1;
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

#[cfg(test)]
mod tests {
    use super::*;

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
}

//! `store-admin api METHOD PATH`: any request, through the same runtime as the typed commands.
//!
//! The request is built here and handed to the generated client's hooks (`ClientHooks::pre` and
//! `exec`), which `store-admin` routes through its interceptor: the token, the rate limiter, the
//! retry policy and the timeouts apply exactly as to a typed call.

use progenitor_client::ClientInfo;
use serde_json::{Map, Value};
use std::path::PathBuf;

use clap::Args;
use store_admin::{Client, OPERATIONS, OperationMeta, StoreAdmin};

use crate::body;
use crate::error::CliError;
use crate::output::Printer;

/// The `operationId` the runtime sees for `api` requests.
const OPERATION_ID: &str = "api";

/// Runs `api`.
pub async fn run(admin: &StoreAdmin, printer: &Printer, args: ApiArgs) -> Result<(), CliError> {
    let client: &Client = admin.client();
    let url = url_for(client.baseurl(), &args.path)?;
    let mut fields = Map::new();
    for text in &args.fields {
        let (key, value) = body::key_value(text, "--field")?;
        let value = serde_json::from_str::<Value>(&value).unwrap_or(Value::String(value));
        fields.insert(key, value);
    }
    for text in &args.raw_fields {
        let (key, value) = body::key_value(text, "--raw-field")?;
        fields.insert(key, Value::String(value));
    }
    let in_query = matches!(
        args.method,
        http::Method::GET | http::Method::DELETE | http::Method::HEAD
    );
    let mut builder = client
        .client()
        .request(args.method.clone(), url)
        .header(reqwest::header::ACCEPT, "application/json");
    if in_query {
        if args.body.is_some() {
            return Err(CliError::usage(format!(
                "--body is not sent with {}: use --field for query parameters",
                args.method
            )));
        }
        let query: Vec<(String, String)> = fields
            .into_iter()
            .map(|(k, v)| {
                let text = match v {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                (k, text)
            })
            .collect();
        builder = builder.query(&query);
    } else {
        let mut object = body::body_object(args.body.as_deref())?;
        object.extend(fields);
        if !object.is_empty() || args.body.is_some() {
            builder = builder.json(&Value::Object(object));
        }
    }
    let request = builder
        .build()
        .map_err(|e| CliError::usage(format!("cannot build the request: {e}")))?;
    // Through the same hooks as the typed calls: token, rate limit, retries, timeouts, tracing.
    let operation = operation_for(&args.method, &args.path)
        .map(|op| op.operation_id)
        .unwrap_or(OPERATION_ID);
    let response = admin
        .send_raw(request, operation)
        .await
        .map_err(CliError::Service)?;
    if args.include {
        crate::note!("{}", response.status);
        for (name, value) in &response.headers {
            crate::note!("{name}: {}", value.to_str().unwrap_or("<binary>"));
        }
        crate::note!();
    }
    let bytes = response.error_for_status().map_err(CliError::Service)?.body;
    if bytes.is_empty() {
        return Ok(());
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(value) => printer.document(&value),
        Err(_) => {
            use std::io::{IsTerminal, Write};
            let mut out = std::io::stdout().lock();
            if out.is_terminal() {
                // Not JSON: on a terminal, shown as text with its control characters escaped.
                let text = crate::output::terminal_safe(&String::from_utf8_lossy(&bytes), true);
                writeln!(out, "{text}")?;
            } else {
                out.write_all(&bytes)?;
            }
            out.flush()?;
            Ok(())
        }
    }
}

/// The full URL of `path` below `base`: a path (`/orders`, `orders?page=2`), or a full URL under
/// the base. Either is parsed as a URL and normalised first (dot segments, their percent-encoded
/// forms `%2e%2e`, backslashes), then compared with the base as URL parts (scheme, host, port,
/// then the path segment by segment), never as text: `/../../oauth2/token` and
/// `https://store.example.evil.com` are not under `https://store.example/admin/v2`, and the
/// bearer token is never sent outside the base URL.
fn url_for(base: &str, path: &str) -> Result<String, CliError> {
    let base_url = url::Url::parse(base)
        .map_err(|e| CliError::usage(format!("the base URL {base:?} is not a URL ({e})")))?;
    let shown = crate::output::terminal_safe(path, false);
    let joined = if path.contains("://") {
        path.to_string()
    } else if path.starts_with('/') {
        format!("{}{path}", base.trim_end_matches('/'))
    } else {
        format!("{}/{path}", base.trim_end_matches('/'))
    };
    let full = url::Url::parse(&joined)
        .map_err(|e| CliError::usage(format!("{shown:?} is not a path or URL ({e})")))?;
    let same_origin = full.scheme() == base_url.scheme()
        && full.host() == base_url.host()
        && full.port_or_known_default() == base_url.port_or_known_default()
        && full.username().is_empty()
        && full.password().is_none();
    let segments = |u: &url::Url| -> Vec<String> {
        u.path_segments()
            .map(|s| s.filter(|s| !s.is_empty()).map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let (prefix, rest) = (segments(&base_url), segments(&full));
    // A segment that still decodes to a dot segment or a slash would be read by the server as one.
    let hidden = rest.iter().any(|segment| {
        let decoded = percent_decoded(segment).to_ascii_lowercase();
        decoded == "." || decoded == ".." || decoded.contains(['/', '\\'])
    });
    if same_origin && !hidden && rest.starts_with(&prefix) {
        return Ok(full.to_string());
    }
    Err(CliError::usage(format!(
        "{shown:?} is not under the base URL {base} (it resolves to {}): the token is only sent \
         below that URL; give a path such as /orders",
        crate::output::terminal_safe(full.as_str(), false)
    )))
}

/// A path segment with its percent escapes decoded (lossily), to see what a server reads.
fn percent_decoded(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && segment.is_char_boundary(i + 3)
            && let Ok(byte) = u8::from_str_radix(&segment[i + 1..i + 3], 16)
        {
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The document's operation at `method path` (path templates match any segment), for the scope
/// hint of a 401.
fn operation_for(method: &http::Method, path: &str) -> Option<&'static OperationMeta> {
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    OPERATIONS.iter().find(|op| {
        let template: Vec<&str> = op.path.split('/').filter(|s| !s.is_empty()).collect();
        op.method == method.as_str()
            && template.len() == segments.len()
            && template
                .iter()
                .zip(&segments)
                .all(|(t, s)| (t.starts_with('{') && t.ends_with('}')) || t == s)
    })
}

/// `api METHOD PATH`
#[derive(Args)]
#[command(after_help = "Examples:\n  \
    store-admin --sandbox api GET /orders -f per_page=5\n  \
    store-admin --sandbox api POST /languages --body langs.json\n  \
    store-admin --sandbox api DELETE /webhooks/unsubscribe -f id=7")]
pub struct ApiArgs {
    /// The HTTP method.
    #[arg(value_parser = crate::global::parse_method)]
    pub method: http::Method,
    /// The path below the base URL, e.g. `/orders?per_page=5` or `/shipments/12`.
    pub path: String,
    /// A field `key=value`: a query parameter for GET and DELETE, else a JSON body field; the
    /// value is read as JSON when it parses (numbers, true, false, null, arrays), else as text.
    #[arg(long = "field", short = 'f', value_name = "KEY=VALUE")]
    pub fields: Vec<String>,
    /// A field `key=value` whose value is always text.
    #[arg(long = "raw-field", short = 'F', value_name = "KEY=VALUE")]
    pub raw_fields: Vec<String>,
    /// The request body as a JSON file (`-` for standard input); --field values override its
    /// fields. Any JSON object is sent as it is.
    #[arg(long, value_name = "FILE|-")]
    pub body: Option<PathBuf>,
    /// Print the response status line and headers on standard error.
    #[arg(long, short = 'i')]
    pub include: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_joined_below_the_base_url() {
        let base = "http://127.0.0.1:1/admin/v2";
        assert_eq!(url_for(base, "/orders").unwrap(), format!("{base}/orders"));
        assert_eq!(
            url_for(base, "orders?page=2").unwrap(),
            format!("{base}/orders?page=2")
        );
        assert_eq!(
            url_for(base, &format!("{base}/x")).unwrap(),
            format!("{base}/x")
        );
        assert!(url_for(base, "https://elsewhere.example/x").is_err());
    }

    #[test]
    fn paths_are_normalised_before_they_are_checked_against_the_base() {
        let base = "http://127.0.0.1:1/admin/v2";
        assert_eq!(
            url_for(base, "/orders/./1/../2").unwrap(),
            format!("{base}/orders/2")
        );
        for escape in [
            "/../../oauth2/token",
            "../v1/orders",
            "/%2e%2e/%2E%2E/oauth2/token",
            "/.%2e/x",
            "/orders/%2e%2e%2f%2e%2e/oauth2/token",
            "/..\\..\\oauth2\\token",
        ] {
            assert!(url_for(base, escape).is_err(), "{escape} must be refused");
        }
    }

    #[test]
    fn full_urls_are_compared_as_url_parts_not_text() {
        let base = "https://store.example/admin/v2";
        for foreign in [
            "https://store.example.evil.com/admin/v2/orders",
            "https://store.example:8443/admin/v2/orders",
            "http://store.example/admin/v2/orders",
            "https://store.example/admin/v22/orders",
            "https://store.example/other",
            "https://user@store.example/admin/v2/orders",
        ] {
            assert!(url_for(base, foreign).is_err(), "{foreign} must be refused");
        }
        assert_eq!(
            url_for(base, "https://store.example:443/admin/v2/orders?page=2").unwrap(),
            "https://store.example/admin/v2/orders?page=2"
        );
    }

    #[test]
    fn operation_for_matches_path_templates() {
        let op = operation_for(&http::Method::GET, "/shipments/12?x=1").unwrap();
        assert_eq!(op.operation_id, "get_shipment");
        let op = operation_for(&http::Method::POST, "/shipments/12/cancel").unwrap();
        assert_eq!(op.operation_id, "cancel_shipment");
        assert!(operation_for(&http::Method::GET, "/nowhere").is_none());
    }
}

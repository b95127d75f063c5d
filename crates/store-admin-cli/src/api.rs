//! `store-admin api METHOD PATH`: any request, through the same runtime as the typed commands.
//!
//! The request is built here and handed to the generated client's hooks (`ClientHooks::pre` and
//! `exec`), which `store-admin` routes through its interceptor: the token, the rate limiter, the
//! retry policy and the timeouts apply exactly as to a typed call.

use progenitor_client::ClientInfo;
use serde_json::{Map, Value};
use store_admin::{Client, OPERATIONS, OperationMeta, StoreAdmin};

use crate::body;
use crate::cli::ApiArgs;
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
        .header(reqwest::header::ACCEPT, "application/json")
        .header("api-version", <Client as ClientInfo<_>>::api_version());
    if in_query {
        if args.body.body.is_some() {
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
        let mut object = body::base_object(&args.body)?;
        object.extend(fields);
        if !object.is_empty() || args.body.body.is_some() {
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
        eprintln!("{}", response.status);
        for (name, value) in &response.headers {
            eprintln!("{name}: {}", value.to_str().unwrap_or("<binary>"));
        }
        eprintln!();
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

/// The full URL of `path` below `base`: a path starting with `/`, or a full URL under the base.
/// A full URL is compared with the base as URL parts (scheme, host, port, then the path segment by
/// segment), never as text: `https://store.example.evil.com` is not under `https://store.example`,
/// and the bearer token is never sent to another origin.
fn url_for(base: &str, path: &str) -> Result<String, CliError> {
    if path.contains("://") {
        let base_url = url::Url::parse(base)
            .map_err(|e| CliError::usage(format!("the base URL {base:?} is not a URL ({e})")))?;
        let full = url::Url::parse(path)
            .map_err(|e| CliError::usage(format!("{path:?} is not a URL ({e})")))?;
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
        if same_origin && rest.starts_with(&prefix) {
            return Ok(full.to_string());
        }
        return Err(CliError::usage(format!(
            "{path:?} is not under the base URL {base}: the token is only sent to that origin and \
             path; give a path such as /orders"
        )));
    }
    let path = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("/{path}")
    };
    Ok(format!("{}{path}", base.trim_end_matches('/')))
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

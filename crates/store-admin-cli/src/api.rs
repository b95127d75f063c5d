//! `store-admin api METHOD PATH`: any request, through the same runtime as the typed commands.
//!
//! The request is built here and handed to the generated client's hooks (`ClientHooks::pre` and
//! `exec`), which `store-admin` routes through its interceptor: the token, the rate limiter, the
//! retry policy and the timeouts apply exactly as to a typed call.

use std::collections::BTreeMap;
use std::time::SystemTime;

use progenitor_client::{ClientHooks, ClientInfo, OperationInfo};
use serde_json::{Map, Value};
use store_admin::{ApiError, Client, OPERATIONS, OperationMeta, StoreAdmin};

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
    let mut request = builder
        .build()
        .map_err(|e| CliError::usage(format!("cannot build the request: {e}")))?;
    let info = OperationInfo {
        operation_id: OPERATION_ID,
    };
    client
        .pre::<()>(&mut request, &info)
        .await
        .map_err(|e| CliError::Service(store_admin::Error::Auth(strip_auth(&e.to_string()))))?;
    let response = client.exec(request, &info).await.map_err(|source| {
        CliError::Service(store_admin::Error::Transport {
            operation: None,
            kind: transport_kind(&source),
            source,
        })
    })?;
    let status = response.status();
    let headers = response.headers().clone();
    if args.include {
        eprintln!("{:?} {}", response.version(), status);
        for (name, value) in &headers {
            eprintln!("{name}: {}", value.to_str().unwrap_or("<binary>"));
        }
        eprintln!();
    }
    let bytes = response.bytes().await.map_err(|source| {
        CliError::Service(store_admin::Error::Transport {
            operation: None,
            kind: store_admin::TransportKind::Body,
            source,
        })
    })?;
    if status.is_client_error() || status.is_server_error() {
        let mut error = api_error(status, &headers, &bytes);
        error.operation = operation_for(&args.method, &args.path).map(|op| op.operation_id);
        return Err(CliError::Service(store_admin::Error::Api(Box::new(error))));
    }
    if bytes.is_empty() {
        return Ok(());
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(value) => printer.document(&value),
        Err(_) => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            out.write_all(&bytes)?;
            out.flush()?;
            Ok(())
        }
    }
}

/// The full URL of `path` below `base`: a path starting with `/`, or a full URL under the base.
fn url_for(base: &str, path: &str) -> Result<String, CliError> {
    if path.starts_with("http://") || path.starts_with("https://") {
        if path.starts_with(base) {
            return Ok(path.to_string());
        }
        return Err(CliError::usage(format!(
            "{path:?} is not under the base URL {base}: give a path such as /orders"
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

fn strip_auth(message: &str) -> String {
    message
        .split_once("store-admin auth: ")
        .map(|(_, rest)| rest.to_string())
        .unwrap_or_else(|| message.to_string())
}

fn transport_kind(error: &reqwest::Error) -> store_admin::TransportKind {
    if error.is_timeout() {
        store_admin::TransportKind::Timeout
    } else if error.is_connect() {
        store_admin::TransportKind::Connect
    } else if error.is_body() || error.is_decode() {
        store_admin::TransportKind::Body
    } else {
        store_admin::TransportKind::Other
    }
}

/// The service's error envelope (or the raw body) as the ergonomics crate's [`ApiError`].
fn api_error(status: http::StatusCode, headers: &http::HeaderMap, bytes: &[u8]) -> ApiError {
    let now = SystemTime::now();
    let retry_after = store_admin::retry::retry_after(headers, now)
        .or_else(|| store_admin::retry::rate_limit_reset(headers, now));
    let envelope = serde_json::from_slice::<store_admin::types::ErrorResponse>(bytes).ok();
    // The runtime wraps bodies that are not the envelope in one carrying the raw text.
    let raw = headers.contains_key("x-store-admin-raw-error-body");
    match envelope {
        Some(envelope) if !raw => ApiError {
            operation: None,
            status,
            code: envelope.error.code.map(|c| c.to_string()),
            message: Some(envelope.error.message),
            fields: envelope
                .error
                .fields
                .into_iter()
                .collect::<BTreeMap<_, _>>(),
            raw_body: None,
            retry_after,
        },
        Some(envelope) => ApiError {
            operation: None,
            status,
            code: None,
            message: None,
            fields: BTreeMap::new(),
            raw_body: Some(envelope.error.message),
            retry_after,
        },
        None => ApiError {
            operation: None,
            status,
            code: None,
            message: None,
            fields: BTreeMap::new(),
            raw_body: Some(String::from_utf8_lossy(bytes).chars().take(2048).collect()),
            retry_after,
        },
    }
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
    fn operation_for_matches_path_templates() {
        let op = operation_for(&http::Method::GET, "/shipments/12?x=1").unwrap();
        assert_eq!(op.operation_id, "get_shipment");
        let op = operation_for(&http::Method::POST, "/shipments/12/cancel").unwrap();
        assert_eq!(op.operation_id, "cancel_shipment");
        assert!(operation_for(&http::Method::GET, "/nowhere").is_none());
    }
}

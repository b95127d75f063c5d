//! `webhooks verify` (is this delivery authentic?) and `webhooks listen` (a verifying receiver).
//! Both check the raw bytes with the ergonomics crate's [`store_admin::webhooks::verify`] before
//! anything parses them; neither ever prints the secret or the expected signature.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use secrecy::SecretString;
use serde_json::{Value, json};
use store_admin::webhooks::{self, WebhookError, WebhookEvent};
use tokio::sync::Notify;

use crate::body::{header_line, read_input};
use crate::cli::{Format, ListenArgs, VerifyArgs};
use crate::error::CliError;
use crate::output::redact;

/// Runs `webhooks verify`: prints the verdict; a delivery that is not authentic is an error
/// ([`CliError::Rejected`], exit code 1).
/// The webhook receiver tools: they join the generated `webhooks` group and run without a client.
#[derive(clap::Subcommand)]
pub enum ReceiverCommand {
    /// Check the signature of a delivery (headers and raw body) with the webhook's secret.
    Verify(VerifyArgs),
    /// Run a receiver that verifies each delivery and prints its event.
    Listen(ListenArgs),
}

/// Runs `webhooks verify|listen`.
pub async fn run(format: Format, command: ReceiverCommand) -> Result<(), CliError> {
    match command {
        ReceiverCommand::Verify(args) => verify(format, args),
        ReceiverCommand::Listen(args) => listen(format, args).await,
    }
}

/// `webhooks verify`: exit 0 for an authentic delivery, 1 (with the reason) otherwise.
pub fn verify(format: Format, args: VerifyArgs) -> Result<(), CliError> {
    let (headers, body) = match &args.request {
        Some(path) => split_request(&read_input(path)?)?,
        None => {
            let mut lines = Vec::new();
            if let Some(path) = &args.headers {
                let text = String::from_utf8(read_input(path)?).map_err(|_| {
                    CliError::usage(format!("{} is not UTF-8 text", path.display()))
                })?;
                lines.extend(text.lines().map(str::to_owned));
            }
            lines.extend(args.header.iter().cloned());
            let headers = header_map(&lines)?;
            let body = match &args.body {
                Some(path) => read_input(path)?,
                None => return Err(CliError::usage("give the raw body with --body FILE|-")),
            };
            (headers, body)
        }
    };
    let verdict = match webhooks::verify(&headers, &body, &args.secret) {
        Ok(strategy) => Ok((strategy, webhooks::parse_event(&body))),
        Err(error) => Err(explain(&error, &headers, &body, &args.secret)),
    };
    let mut out = std::io::stdout().lock();
    match verdict {
        Ok((strategy, event)) => {
            match format {
                Format::Json | Format::Ndjson => {
                    let mut report = json!({"valid": true, "strategy": strategy.as_str()});
                    match &event {
                        Ok(event) => report["event"] = event_json(event),
                        Err(e) => report["body_error"] = json!(e.to_string()),
                    }
                    let text = if format == Format::Json {
                        serde_json::to_string_pretty(&report).unwrap_or_default()
                    } else {
                        report.to_string()
                    };
                    writeln!(out, "{text}")?;
                }
                Format::Table | Format::Csv => {
                    write!(out, "valid: the {strategy} strategy checks out")?;
                    match &event {
                        Ok(event) => writeln!(
                            out,
                            "; event {} from merchant {} at {}",
                            event.event, event.merchant, event.created_at
                        )?,
                        Err(e) => {
                            writeln!(out, "; but the body is not a webhook event envelope: {e}")?
                        }
                    }
                }
            }
            out.flush()?;
            Ok(())
        }
        Err(reason) => {
            match format {
                Format::Json | Format::Ndjson => {
                    let report = json!({"valid": false, "reason": reason});
                    writeln!(out, "{report}")?;
                }
                Format::Table | Format::Csv => writeln!(out, "invalid: {reason}")?,
            }
            out.flush()?;
            Err(CliError::Rejected(reason))
        }
    }
}

/// Why a delivery failed, with a hint when the body file merely has a trailing newline the
/// delivery did not.
fn explain(
    error: &WebhookError,
    headers: &HeaderMap,
    body: &[u8],
    secret: &SecretString,
) -> String {
    let mut reason = error.to_string();
    if matches!(error, WebhookError::SignatureMismatch) {
        let trimmed = body.trim_ascii_end();
        if trimmed.len() != body.len() && webhooks::verify(headers, trimmed, secret).is_ok() {
            reason.push_str(
                "; it is valid without the whitespace at the end of the body: the body file has \
                 a trailing newline the delivery did not have (save the raw bytes)",
            );
        }
    }
    reason
}

/// Splits a raw HTTP request (`POST /path HTTP/1.1`, headers, a blank line, the body).
fn split_request(bytes: &[u8]) -> Result<(HeaderMap, Vec<u8>), CliError> {
    let (head, body) = find_subslice(bytes, b"\r\n\r\n")
        .map(|at| (&bytes[..at], &bytes[at + 4..]))
        .or_else(|| find_subslice(bytes, b"\n\n").map(|at| (&bytes[..at], &bytes[at + 2..])))
        .ok_or_else(|| {
            CliError::usage("--request: no blank line between the headers and the body")
        })?;
    let head = std::str::from_utf8(head)
        .map_err(|_| CliError::usage("--request: the headers are not UTF-8 text"))?;
    let lines: Vec<String> = head.lines().map(str::to_owned).collect();
    Ok((header_map(&lines)?, body.to_vec()))
}

fn find_subslice(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// Headers from `Name: value` lines; empty lines and a request line (`POST /x HTTP/1.1`) are skipped.
fn header_map(lines: &[String]) -> Result<HeaderMap, CliError> {
    let mut headers = HeaderMap::new();
    for line in lines {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || is_request_line(line) {
            continue;
        }
        let (name, value) = header_line(line, "header")?;
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| CliError::usage(format!("{name:?} is not a header name")))?;
        let value = HeaderValue::from_str(&value)
            .map_err(|_| CliError::usage(format!("the value of {name} is not a header value")))?;
        headers.append(name, value);
    }
    Ok(headers)
}

fn is_request_line(line: &str) -> bool {
    line.contains(" HTTP/") && !line.contains(':')
        || line.starts_with("HTTP/")
        || line.split_once(' ').is_some_and(|(method, rest)| {
            matches!(method, "GET" | "POST" | "PUT" | "PATCH" | "DELETE") && rest.starts_with('/')
        })
}

/// An event as redacted JSON (the `app.store.authorize` data carries tokens).
fn event_json(event: &WebhookEvent) -> Value {
    let mut value = serde_json::to_value(event).unwrap_or(Value::Null);
    redact(&mut value);
    value
}

struct Receiver {
    secret: SecretString,
    format: Format,
    received: AtomicU64,
    max_events: Option<u64>,
    csv_header_written: AtomicBool,
    done: Notify,
    out: std::sync::Mutex<()>,
}

/// Runs `webhooks listen` until Ctrl-C or `--max-events`.
/// `webhooks listen`: a receiver that verifies each delivery and prints its event.
pub async fn listen(format: Format, args: ListenArgs) -> Result<(), CliError> {
    let address = SocketAddr::new(args.bind, args.port);
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| CliError::other(format!("cannot listen on {address}: {e}")))?;
    let local = listener
        .local_addr()
        .map_err(|e| CliError::other(format!("cannot read the listening address: {e}")))?;
    let receiver = Arc::new(Receiver {
        secret: args.secret,
        format,
        received: AtomicU64::new(0),
        max_events: args.max_events.map(|n| n.get()),
        csv_header_written: AtomicBool::new(false),
        done: Notify::new(),
        out: std::sync::Mutex::new(()),
    });
    eprintln!(
        "listening on http://{local}/ (any path); each delivery is verified with the webhook \
         secret; Ctrl-C stops"
    );
    let app = axum::Router::new()
        .fallback(receive)
        .with_state(receiver.clone());
    let stop = {
        let receiver = receiver.clone();
        async move {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = receiver.done.notified() => {}
            }
        }
    };
    axum::serve(listener, app)
        .with_graceful_shutdown(stop)
        .await
        .map_err(|e| CliError::other(format!("the receiver failed: {e}")))?;
    Ok(())
}

async fn receive(
    State(receiver): State<Arc<Receiver>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if method != Method::POST {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            axum::Json(json!({"error": "deliveries are POSTed"})),
        )
            .into_response();
    }
    let event = match webhooks::verify_and_parse(&headers, &body, &receiver.secret) {
        Ok(event) => event,
        Err(error) => {
            let status = match error {
                WebhookError::Decode { .. } => StatusCode::BAD_REQUEST,
                _ => StatusCode::UNAUTHORIZED,
            };
            eprintln!("rejected a delivery to {}: {error}", uri.path());
            return (status, axum::Json(json!({"error": error.to_string()}))).into_response();
        }
    };
    if let Err(e) = print_event(&receiver, &event) {
        eprintln!("cannot print the event: {e}");
    }
    let count = receiver.received.fetch_add(1, Ordering::SeqCst) + 1;
    if receiver.max_events.is_some_and(|max| count >= max) {
        receiver.done.notify_one();
    }
    (StatusCode::OK, axum::Json(json!({"received": true}))).into_response()
}

fn print_event(receiver: &Receiver, event: &WebhookEvent) -> std::io::Result<()> {
    let value = event_json(event);
    let _guard = receiver
        .out
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut out = std::io::stdout().lock();
    match receiver.format {
        Format::Json => writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&value).unwrap_or_default()
        )?,
        Format::Ndjson => writeln!(out, "{value}")?,
        Format::Table => {
            let data = value.get("data").map(Value::to_string).unwrap_or_default();
            let data: String = if data.chars().count() > 100 {
                data.chars().take(99).chain(['…']).collect()
            } else {
                data
            };
            writeln!(
                out,
                "{}  {}  merchant {}  {data}",
                event.created_at, event.event, event.merchant
            )?
        }
        Format::Csv => {
            let mut writer = csv::WriterBuilder::new().from_writer(Vec::new());
            if !receiver.csv_header_written.swap(true, Ordering::SeqCst) {
                let _ = writer.write_record(["event", "merchant", "created_at", "data"]);
            }
            let data = value.get("data").map(Value::to_string).unwrap_or_default();
            let _ = writer.write_record([
                event.event.to_string(),
                event.merchant.to_string(),
                event.created_at.clone(),
                data,
            ]);
            out.write_all(&writer.into_inner().unwrap_or_default())?;
        }
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raw_request_splits_into_headers_and_the_exact_body() {
        let raw = b"POST /hooks HTTP/1.1\r\nX-Salla-Security-Strategy: Signature\r\nX-Salla-Signature: ab\r\n\r\n{\"a\":1}\n";
        let (headers, body) = split_request(raw).unwrap();
        assert_eq!(headers["x-salla-security-strategy"], "Signature");
        assert_eq!(headers["x-salla-signature"], "ab");
        assert_eq!(body, b"{\"a\":1}\n");
    }

    #[test]
    fn header_lines_skip_request_lines_and_blank_lines() {
        let lines = vec![
            "POST / HTTP/1.1".to_string(),
            String::new(),
            "Authorization: secret-value".to_string(),
        ];
        let headers = header_map(&lines).unwrap();
        assert_eq!(headers.len(), 1);
        assert!(header_map(&["no colon here".to_string()]).is_err());
    }
}

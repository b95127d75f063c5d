//! `webhooks verify` (is this delivery authentic?) and `webhooks listen` (a verifying receiver).
//! Both check the raw bytes with the ergonomics crate's [`store_admin::webhooks::verify`] before
//! anything parses them; neither ever prints the secret or the expected signature.

use std::io::Write;
use std::net::SocketAddr;
use std::num::NonZeroU64;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use clap::Args;
use secrecy::SecretString;
use serde_json::{Value, json};
use store_admin::inbox::{Deduplicator, Inbox, MemoryDeduplicator, Outcome, Security};
use store_admin::webhooks::{self, WebhookError, WebhookEvent};
use tokio::sync::Notify;

use crate::body::{header_line, read_input_for};
use crate::error::CliError;
use crate::global::{Format, positive_seconds};
use crate::output::{csv_text, redact, terminal_safe};

/// The environment variable holding a webhook's secret.
pub const SECRET_ENV: &str = "STORE_ADMIN_WEBHOOK_SECRET";

/// Where a webhook's secret comes from: `--secret-file PATH` (its first line) or the variable
/// `STORE_ADMIN_WEBHOOK_SECRET`. `--secret VALUE` is refused (exit 2) like every other secret on a
/// command line, where `ps` shows it to every user; its value is never repeated.
#[derive(clap::Args, Clone, Debug)]
pub struct SecretArg {
    /// A file whose first line is the webhook's secret. Or set STORE_ADMIN_WEBHOOK_SECRET: the
    /// secret itself is never given on the command line.
    #[arg(long, value_name = "PATH")]
    pub secret_file: Option<std::path::PathBuf>,
    /// Refused: give --secret-file or STORE_ADMIN_WEBHOOK_SECRET.
    #[arg(long = "secret", hide = true, value_name = "SECRET", value_parser = secret_on_command_line)]
    pub refused: Option<SecretOnCommandLine>,
}

/// A `--secret VALUE` was given (the value itself is dropped at once).
#[derive(Clone, Copy, Debug)]
pub struct SecretOnCommandLine;

fn secret_on_command_line(_: &str) -> Result<SecretOnCommandLine, String> {
    Ok(SecretOnCommandLine)
}

impl SecretArg {
    /// The secret, if one is given; `--secret VALUE` is a usage error.
    pub fn secret(&self) -> Result<Option<SecretString>, CliError> {
        if self.refused.is_some() {
            return Err(CliError::usage(format!(
                "--secret: a secret on the command line is visible to other users (ps); give it \
                 with --secret-file PATH or in {SECRET_ENV}"
            )));
        }
        if let Some(path) = &self.secret_file {
            let text = std::fs::read_to_string(path)
                .map_err(|e| CliError::usage(format!("--secret-file {}: {e}", path.display())))?;
            crate::config::warn_if_readable_by_others(path);
            return crate::config::first_line(&text, &format!("--secret-file {}", path.display()))
                .map(Some);
        }
        match std::env::var(SECRET_ENV) {
            Ok(secret) if !secret.trim().is_empty() => {
                Ok(Some(SecretString::from(secret.trim().to_string())))
            }
            _ => Ok(None),
        }
    }

    /// The secret, which the command cannot go without.
    pub fn required(&self) -> Result<SecretString, CliError> {
        self.secret()?.ok_or_else(|| {
            CliError::usage(format!(
                "the webhook's secret is needed: give --secret-file PATH or set {SECRET_ENV}"
            ))
        })
    }
}

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
    let secret = args.secret.required()?;
    let (headers, body) = match &args.request {
        Some(path) => split_request(&read_input_for(path, "--request")?)?,
        None => {
            let mut lines = Vec::new();
            if let Some(path) = &args.headers {
                let text = String::from_utf8(read_input_for(path, "--headers")?).map_err(|_| {
                    CliError::usage(format!("{} is not UTF-8 text", path.display()))
                })?;
                lines.extend(text.lines().map(str::to_owned));
            }
            lines.extend(args.header.iter().cloned());
            let headers = header_map(&lines)?;
            let body = match &args.body {
                Some(path) => read_input_for(path, "--body")?,
                None => return Err(CliError::usage("give the raw body with --body FILE|-")),
            };
            (headers, body)
        }
    };
    let verdict = match webhooks::verify(&headers, &body, &secret) {
        Ok(strategy) => Ok((strategy, webhooks::parse_event(&body))),
        Err(error) => Err(explain(&error, &headers, &body, &secret)),
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
                    writeln!(out, "{}", report_text(&report, format))?;
                }
                Format::Table | Format::Wide | Format::Csv => {
                    // The event's text is the sender's data: escaped like every table's.
                    let line = match &event {
                        Ok(event) => format!(
                            "valid: the {strategy} strategy checks out; event {} from merchant {} \
                             at {}",
                            event.event, event.merchant, event.created_at
                        ),
                        Err(e) => format!(
                            "valid: the {strategy} strategy checks out; but the body is not a \
                             webhook event envelope: {e}"
                        ),
                    };
                    writeln!(out, "{}", terminal_safe(&line, false))?;
                }
            }
            out.flush()?;
            Ok(())
        }
        Err(reason) => {
            match format {
                Format::Json | Format::Ndjson => {
                    let report = json!({"valid": false, "reason": reason});
                    writeln!(out, "{}", report_text(&report, format))?;
                }
                Format::Table | Format::Wide | Format::Csv => {
                    writeln!(out, "invalid: {}", terminal_safe(&reason, false))?;
                }
            }
            out.flush()?;
            Err(CliError::Rejected(reason))
        }
    }
}

/// `webhooks verify`'s report in `format`, the same way whether the delivery is valid or not:
/// pretty-printed JSON, or one NDJSON line.
fn report_text(report: &Value, format: Format) -> String {
    if format == Format::Json {
        serde_json::to_string_pretty(report).unwrap_or_default()
    } else {
        report.to_string()
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

/// What `webhooks listen` shares between its connections: how to read a delivery, and the
/// library's [`Inbox`]es that verify it, hand its event to [`print_event`] once however often it
/// is delivered, and say what to answer.
struct Listener {
    body_timeout: std::time::Duration,
    /// The inboxes of the two strategies, sharing one deduplicator: a delivery is verified by
    /// the strategy it names, with the one secret, as `webhooks verify` does.
    signature: Inbox,
    token: Inbox,
    /// `--save DIR`: where each handled delivery's body is written.
    save: Option<Saver>,
}

/// `webhooks listen --save DIR`: writes each delivery the listener handles (verified, not a
/// duplicate), byte for byte, as `DIR/<event>.<run>-<n>.json` (the directory made private to the
/// user, each file created new, never overwritten), for `store-admin drift --deliveries DIR`.
/// `app.store.authorize` is never written: its data carries the store's tokens.
struct Saver {
    dir: PathBuf,
    /// The run's start (milliseconds since the epoch): names of two runs do not meet.
    run: i64,
    written: AtomicU64,
}

/// The event that carries the store's tokens, never written to a file.
const TOKENS_EVENT: &str = "app.store.authorize";

impl Saver {
    /// Makes `dir` (private to the user on Unix) if it is not there; refuses a path that is
    /// not a directory.
    fn new(dir: PathBuf) -> Result<Self, CliError> {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        let shown = terminal_safe(&dir.display().to_string(), false);
        builder
            .create(&dir)
            .map_err(|e| CliError::usage(format!("--save {shown}: {e}")))?;
        if !std::fs::metadata(&dir).is_ok_and(|m| m.is_dir()) {
            return Err(CliError::usage(format!("--save {shown}: not a directory")));
        }
        Ok(Self {
            dir,
            run: chrono::Utc::now().timestamp_millis(),
            written: AtomicU64::new(0),
        })
    }

    /// Writes one handled delivery's body.
    async fn save(&self, body: Bytes) {
        #[derive(serde::Deserialize)]
        struct NameOnly {
            event: String,
        }
        let event = serde_json::from_slice::<NameOnly>(&body)
            .map(|n| n.event)
            .unwrap_or_default();
        if event == TOKENS_EVENT {
            crate::note!(
                "--save: an {TOKENS_EVENT} delivery is not written (it carries the store's tokens)"
            );
            return;
        }
        // The name keeps the event's letters, digits, dots, dashes and underscores only.
        let mut name: String = event
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
            .take(100)
            .collect();
        if name.trim_matches('.').is_empty() {
            name = "delivery".to_owned();
        }
        let n = self.written.fetch_add(1, Ordering::SeqCst) + 1;
        let path = self.dir.join(format!("{name}.{}-{n}.json", self.run));
        let written = tokio::task::spawn_blocking(move || {
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            let mut file = options.open(&path)?;
            file.write_all(&body)?;
            file.sync_data()
        })
        .await;
        match written {
            Ok(Ok(())) => {}
            Ok(Err(e)) => crate::note!("--save: cannot write a delivery: {e}"),
            Err(e) => crate::note!("--save: cannot write a delivery: {e}"),
        }
    }
}

/// The printing side: the event handler of the inboxes.
struct Printer {
    format: Format,
    received: AtomicU64,
    max_events: Option<u64>,
    csv_header_written: AtomicBool,
    done: Notify,
    out: std::sync::Mutex<()>,
}

/// The prefix of `webhooks listen`'s keys in a shared Redis: apart from an app's own inbox
/// (`store-admin:webhook:`), so that a listener never hides a delivery from the app.
const LISTEN_KEY_PREFIX: &str = "store-admin-listen:webhook:";

/// The environment variable naming the Redis that listeners share (a URL with a password is
/// given here, never on the command line).
pub const LISTEN_REDIS_ENV: &str = "STORE_ADMIN_WEBHOOK_REDIS";

/// The deduplicator of `webhooks listen`: this process's memory, or the Redis of `--redis` (or
/// [`LISTEN_REDIS_ENV`]) that several listeners share.
async fn deduplicator(args: &ListenArgs) -> Result<Arc<dyn Deduplicator>, CliError> {
    let from_flag = args.redis.is_some();
    let text = match &args.redis {
        Some(text) => Some(text.clone()),
        None => std::env::var(LISTEN_REDIS_ENV)
            .ok()
            .filter(|t| !t.trim().is_empty()),
    };
    let Some(text) = text else {
        return Ok(Arc::new(MemoryDeduplicator::new()));
    };
    let source = if from_flag {
        "--redis"
    } else {
        LISTEN_REDIS_ENV
    };
    let location = crate::global::parse_redis_location(text.trim())
        .map_err(|e| CliError::usage(format!("{source}: {e}")))?;
    if from_flag && location.has_password() {
        return Err(CliError::usage(format!(
            "--redis: a password on the command line is visible to other users (ps); give the \
             URL in {LISTEN_REDIS_ENV} instead"
        )));
    }
    redis_deduplicator(&location).await
}

#[cfg(feature = "redis")]
async fn redis_deduplicator(
    location: &crate::global::StoreLocation,
) -> Result<Arc<dyn Deduplicator>, CliError> {
    let crate::global::StoreLocation::Redis(url) = location else {
        return Err(CliError::usage("--redis: give redis://HOST:PORT/DB"));
    };
    let dedup = store_admin::inbox::RedisDeduplicator::connect(url.as_str())
        .await
        .map_err(|e| {
            CliError::Unavailable(format!(
                "cannot reach the Redis of the listeners {}: {e}",
                location.display()
            ))
        })?;
    Ok(Arc::new(dedup))
}

#[cfg(not(feature = "redis"))]
async fn redis_deduplicator(
    _location: &crate::global::StoreLocation,
) -> Result<Arc<dyn Deduplicator>, CliError> {
    Err(CliError::usage(
        "--redis: this store-admin was built without the `redis` feature",
    ))
}

/// Runs `webhooks listen` until Ctrl-C or `--max-events`.
/// `webhooks listen`: a receiver that verifies each delivery and prints its event, once.
pub async fn listen(format: Format, args: ListenArgs) -> Result<(), CliError> {
    let secret = args.secret.required()?;
    let body_timeout = std::time::Duration::try_from_secs_f64(args.body_timeout)
        .map_err(|_| CliError::usage("--body-timeout: give a positive number of seconds"))?;
    let header_timeout = std::time::Duration::try_from_secs_f64(args.header_timeout)
        .map_err(|_| CliError::usage("--header-timeout: give a positive number of seconds"))?;
    let dedup = deduplicator(&args).await?;
    let save = args.save.clone().map(Saver::new).transpose()?;
    // The drift report's file is written when the listener stops: checked writable first.
    let drift = match &args.drift {
        Some(path) => {
            write_drift(path, &store_admin::drift::DriftReport::default())?;
            Some((path.clone(), store_admin::drift::DriftCount::new()))
        }
        None => None,
    };
    let shared =
        args.redis.is_some() || std::env::var_os(LISTEN_REDIS_ENV).is_some_and(|v| !v.is_empty());
    let printer = Arc::new(Printer {
        format,
        received: AtomicU64::new(0),
        max_events: args.max_events.map(|n| n.get()),
        csv_header_written: AtomicBool::new(false),
        done: Notify::new(),
        out: std::sync::Mutex::new(()),
    });
    let inbox = |security: Security| {
        let printer = printer.clone();
        let inbox = Inbox::builder(security, move |event: WebhookEvent| {
            let printer = printer.clone();
            async move {
                if let Err(e) = print_event(&printer, &event) {
                    crate::note!("cannot print the event: {e}");
                }
                let count = printer.received.fetch_add(1, Ordering::SeqCst) + 1;
                if printer.max_events.is_some_and(|max| count >= max) {
                    printer.done.notify_one();
                }
                Ok::<(), store_admin::inbox::HandlerError>(())
            }
        })
        .deduplicator(dedup.clone())
        .max_body_bytes(DELIVERY_LIMIT)
        .key_prefix(LISTEN_KEY_PREFIX);
        match &drift {
            Some((_, count)) => inbox.count_drift(count.clone()).build(),
            None => inbox.build(),
        }
    };
    let listener = Arc::new(Listener {
        body_timeout,
        signature: inbox(Security::Signature(secret.clone())),
        token: inbox(Security::Token(secret)),
        save,
    });
    let address = SocketAddr::new(args.bind, args.port);
    let socket = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| CliError::other(format!("cannot listen on {address}: {e}")))?;
    let local = socket
        .local_addr()
        .map_err(|e| CliError::other(format!("cannot read the listening address: {e}")))?;
    crate::note!(
        "listening on http://{local}/ (any path); each delivery is verified with the webhook \
         secret and printed once{}; Ctrl-C stops",
        if shared {
            " among the listeners sharing its Redis"
        } else {
            ""
        }
    );
    let app = axum::Router::new().fallback(receive).with_state(listener);
    let stop = {
        let printer = printer.clone();
        async move {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = printer.done.notified() => {}
            }
        }
    };
    serve(socket, app, stop, header_timeout).await;
    if let Some((path, count)) = drift {
        let report = count.report();
        write_drift(&path, &report)?;
        let deliveries: u64 = report.operations.values().map(|o| o.calls).sum();
        crate::note!(
            "the drift of {deliveries} deliveries is in {}",
            terminal_safe(&path.display().to_string(), false)
        );
    }
    Ok(())
}

/// Writes a drift report to `path` as JSON.
fn write_drift(
    path: &std::path::Path,
    report: &store_admin::drift::DriftReport,
) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(report)
        .map_err(|e| CliError::other(format!("the drift report: {e}")))?;
    std::fs::write(path, format!("{text}\n")).map_err(|e| {
        CliError::usage(format!(
            "--drift {}: {e}",
            terminal_safe(&path.display().to_string(), false)
        ))
    })
}

/// Serves `app` until `stop`. A connection must send the first byte of a request within
/// `header_timeout` of opening and its whole request head within `header_timeout` (hyper's header
/// read timeout), or it is closed: half-open or idle connections cannot pile up. Connections
/// still open when `stop` comes get 5 seconds to finish.
async fn serve(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    stop: impl std::future::Future<Output = ()>,
    header_timeout: std::time::Duration,
) {
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    use hyper_util::server::conn::auto;
    use hyper_util::server::graceful::GracefulShutdown;
    use hyper_util::service::TowerToHyperService;

    let graceful = GracefulShutdown::new();
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let mut stop = std::pin::pin!(stop);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut stop => break,
        };
        let Ok((stream, _peer)) = accepted else {
            // Out of file descriptors and the like: wait a little rather than spin.
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            continue;
        };
        let service = TowerToHyperService::new(app.clone());
        let builder = builder.clone();
        let watcher = graceful.watcher();
        tokio::spawn(async move {
            // The first byte must come in time: hyper's own timeout starts once it reads.
            let mut first = [0u8; 1];
            match tokio::time::timeout(header_timeout, stream.peek(&mut first)).await {
                Ok(Ok(n)) if n > 0 => {}
                _ => return,
            }
            let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
            let _ = watcher.watch(connection.into_owned()).await;
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(std::time::Duration::from_secs(5)) => {}
    }
}

/// The largest delivery `webhooks listen` reads.
const DELIVERY_LIMIT: usize = 2 * 1024 * 1024;

/// Reads a delivery's body within `deadline` and [`DELIVERY_LIMIT`]: a body that trickles is
/// answered 408, a larger one 413, and the connection is not held.
async fn read_delivery(
    body: axum::body::Body,
    deadline: std::time::Duration,
) -> Result<Bytes, Response> {
    use http_body_util::BodyExt;
    let limited = http_body_util::Limited::new(body, DELIVERY_LIMIT);
    match tokio::time::timeout(deadline, limited.collect()).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(error))
            if error
                .downcast_ref::<http_body_util::LengthLimitError>()
                .is_some() =>
        {
            Err((
                StatusCode::PAYLOAD_TOO_LARGE,
                axum::Json(
                    json!({"error": format!("a delivery is at most {DELIVERY_LIMIT} bytes")}),
                ),
            )
                .into_response())
        }
        Ok(Err(_)) => Err((
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"error": "the body could not be read"})),
        )
            .into_response()),
        Err(_) => {
            let mut response = (
                StatusCode::REQUEST_TIMEOUT,
                axum::Json(json!({"error": "the body did not arrive in time"})),
            )
                .into_response();
            response.headers_mut().insert(
                axum::http::header::CONNECTION,
                HeaderValue::from_static("close"),
            );
            Err(response)
        }
    }
}

async fn receive(
    State(listener): State<Arc<Listener>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: axum::body::Body,
) -> Response {
    if method != Method::POST {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            axum::Json(json!({"error": "deliveries are POSTed"})),
        )
            .into_response();
    }
    let body = match read_delivery(body, listener.body_timeout).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    // The strategy the delivery names picks the inbox; a missing or unknown one is refused by
    // the signature inbox with the reason.
    let named = headers
        .get(webhooks::STRATEGY_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim);
    let inbox = match named {
        Some(name) if name.eq_ignore_ascii_case("token") => &listener.token,
        _ => &listener.signature,
    };
    let outcome = inbox.receive(&headers, &body).await;
    let status = outcome.status();
    let answer = match &outcome {
        Outcome::Handled => {
            if let Some(saver) = &listener.save {
                saver.save(body.clone()).await;
            }
            json!({"received": true})
        }
        Outcome::Duplicate => {
            crate::note!(
                "a delivery to {} was received before: acknowledged, not printed again",
                terminal_safe(uri.path(), false)
            );
            json!({"received": true, "duplicate": true})
        }
        Outcome::Rejected(error) => {
            crate::note!(
                "rejected a delivery to {}: {}",
                terminal_safe(uri.path(), false),
                terminal_safe(&error.to_string(), false)
            );
            json!({"error": error.to_string()})
        }
        Outcome::TooLarge { limit } => {
            json!({"error": format!("a delivery is at most {limit} bytes")})
        }
        other => {
            crate::note!(
                "a delivery to {} was not handled ({}): {other:?}",
                terminal_safe(uri.path(), false),
                other.name()
            );
            json!({"error": other.name()})
        }
    };
    (status, axum::Json(answer)).into_response()
}

fn print_event(receiver: &Printer, event: &WebhookEvent) -> std::io::Result<()> {
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
        Format::Table | Format::Wide => {
            let data = value.get("data").map(Value::to_string).unwrap_or_default();
            let data: String = if data.chars().count() > 100 {
                data.chars().take(99).chain(['…']).collect()
            } else {
                data
            };
            let line = format!(
                "{}  {}  merchant {}  {data}",
                event.created_at, event.event, event.merchant
            );
            writeln!(out, "{}", terminal_safe(&line, false))?;
        }
        Format::Csv => {
            let mut writer = csv::WriterBuilder::new().from_writer(Vec::new());
            if !receiver.csv_header_written.swap(true, Ordering::SeqCst) {
                let _ = writer.write_record(["event", "merchant", "created_at", "data"]);
            }
            let data = value.get("data").map(Value::to_string).unwrap_or_default();
            let _ = writer.write_record([
                csv_text(event.event.as_ref()),
                csv_text(&event.merchant.to_string()),
                csv_text(&event.created_at),
                csv_text(&data),
            ]);
            out.write_all(&writer.into_inner().unwrap_or_default())?;
        }
    }
    out.flush()
}

/// `webhooks verify`
#[derive(Args)]
#[non_exhaustive]
pub struct VerifyArgs {
    /// The webhook's secret: --secret-file PATH or STORE_ADMIN_WEBHOOK_SECRET.
    #[command(flatten)]
    pub secret: SecretArg,
    /// A file of the delivery's headers, one `Name: value` a line (a request line is skipped).
    #[arg(long, value_name = "FILE", conflicts_with = "request")]
    pub headers: Option<PathBuf>,
    /// A header of the delivery, `Name: value` (repeatable).
    #[arg(
        long = "header",
        short = 'H',
        value_name = "NAME: VALUE",
        conflicts_with = "request"
    )]
    pub header: Vec<String>,
    /// The delivery's raw body, byte for byte (`-` for standard input).
    #[arg(long, value_name = "FILE|-", required_unless_present = "request")]
    pub body: Option<PathBuf>,
    /// The whole delivery as received: headers, a blank line, the raw body (`-` for standard input).
    #[arg(long, value_name = "FILE|-", conflicts_with = "body")]
    pub request: Option<PathBuf>,
}

/// `webhooks listen`
#[derive(Args)]
#[non_exhaustive]
pub struct ListenArgs {
    /// The port to listen on (0 picks a free one, printed on standard error).
    #[arg(long, default_value_t = 8787)]
    pub port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// The webhook's secret: --secret-file PATH or STORE_ADMIN_WEBHOOK_SECRET.
    #[command(flatten)]
    pub secret: SecretArg,
    /// Seconds a connection has to send a whole request head (slower or idle connections are
    /// closed).
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = positive_seconds)]
    pub header_timeout: f64,
    /// Seconds a delivery has to send its whole body (a body that trickles is refused with 408).
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0, value_parser = positive_seconds)]
    pub body_timeout: f64,
    /// Stop after this many valid deliveries (each printed once).
    #[arg(long, value_name = "N")]
    pub max_events: Option<NonZeroU64>,
    /// A Redis the listeners share (`redis://HOST:PORT/DB`): a delivery is printed once among
    /// all of them, however often it is delivered. Without it, once by this process. A URL with
    /// a password goes in STORE_ADMIN_WEBHOOK_REDIS, never on the command line.
    #[arg(long, value_name = "redis://...")]
    pub redis: Option<String>,
    /// Write the drift of the verified deliveries to FILE when the listener stops: per event
    /// (`webhook:order.created`), each habit of the service's serialisation they needed and each
    /// field the document does not declare, by JSON path, with counts and JSON types, never a
    /// value (the client's drift report; `cargo xtask drift apply` reads it).
    #[arg(long, value_name = "FILE")]
    pub drift: Option<PathBuf>,
    /// Write each delivery handled (verified, not a duplicate) to DIR, byte for byte, one file
    /// each (`<event>.<run>-<n>.json`, private to the user), for `store-admin drift --deliveries
    /// DIR`. `app.store.authorize` is never written: it carries the store's tokens.
    #[arg(long, value_name = "DIR")]
    pub save: Option<PathBuf>,
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

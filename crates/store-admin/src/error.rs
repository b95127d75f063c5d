//! One error type a service can match on.
//!
//! Every call made through [`StoreAdmin`](crate::StoreAdmin) fails with [`Error`]: the service's
//! answer ([`Error::Api`], with its status, code, message and field errors, or the raw body when it
//! was not the error envelope), a transport failure, a body that did not decode (with the JSON path
//! that failed), an invalid argument, or an authentication failure. `Display` says what happened and
//! what to do; no variant ever carries a secret.

use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, SystemTime};

use futures::FutureExt;
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;
use store_admin_client::types;
use store_admin_client::{OperationMeta, ResponseValue};

use crate::credentials::AuthError;
use crate::ratelimit::RateLimitHeaders;
use crate::retry::TransportFailure;

/// How much of a body that is not the error envelope is kept in an [`ApiError`].
pub const RAW_BODY_LIMIT: usize = 2048;

/// The error of every call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The service answered with an error status.
    #[error(transparent)]
    Api(Box<ApiError>),
    /// The service could not be reached, or the connection failed before a whole response arrived.
    #[error("{operation}: {kind} ({source}){hint}", operation = op_name(.operation), hint = transport_hint(.kind, .source))]
    Transport {
        /// The operation (`operationId`), when known.
        operation: Option<&'static str>,
        /// What failed.
        kind: TransportKind,
        /// The underlying error.
        #[source]
        source: TransportError,
    },
    /// A success response whose body does not match the document.
    #[error(
        "{operation}: the response body does not match the API document at `{path}`: {message} \
         (body starts with: {snippet})",
        operation = op_name(.operation)
    )]
    Decode {
        /// The operation (`operationId`), when known.
        operation: Option<&'static str>,
        /// The JSON path that failed, e.g. `data[3].price`.
        path: String,
        /// What the decoder expected.
        message: String,
        /// The start of the body.
        snippet: String,
    },
    /// A record of a list that does not match the document: the operation, the page, the
    /// record's index and the JSON path (a list fails there unless it skips such records:
    /// [`PageOptions::skip_undecodable`](crate::PageOptions::skip_undecodable)).
    #[error(transparent)]
    Record(Box<UndecodableRecord>),
    /// An argument was rejected before anything was sent.
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// No valid access token could be obtained; match on the [`AuthError`] to know why (the
    /// merchant must reinstall the app, no refresh token, the token endpoint or store failed).
    #[error("authentication failed: {0}")]
    Auth(#[source] AuthError),
    /// A pagination object contradicted itself (a page beyond `totalPages` answered with items, a
    /// page count that changed, ...). Stopping is safer than looping or dropping items.
    #[error("{operation}: inconsistent pagination: {detail}", operation = op_name(.operation))]
    Pagination {
        /// The operation (`operationId`), when known.
        operation: Option<&'static str>,
        /// What was inconsistent.
        detail: String,
    },
}

fn op_name(operation: &Option<&'static str>) -> &'static str {
    operation.unwrap_or("request")
}

/// Why an attempt got no whole response: reqwest's error, or the attempt's time limit.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// Connecting, sending or reading failed (reqwest's error, classified by
    /// [`TransportFailure::classify`]).
    #[error(transparent)]
    Http(#[from] reqwest::Error),
    /// No whole response, headers and body, arrived within the attempt's time limit
    /// ([`StoreAdminBuilder::with_attempt_timeout`](crate::StoreAdminBuilder::with_attempt_timeout),
    /// or what was left of the operation's).
    #[error("no whole response within {} ms", .0.as_millis())]
    TimedOut(Duration),
    /// The response's body is larger than the client reads
    /// ([`StoreAdminBuilder::with_max_response_bytes`](crate::StoreAdminBuilder::with_max_response_bytes)).
    #[error("the response is larger than {limit} bytes, the most this client reads")]
    TooLarge {
        /// The bound, in bytes.
        limit: u64,
    },
    /// Nothing was sent: the client's rate limiter, keeping to the rate the store announced
    /// (`X-RateLimit-*`, `Retry-After`), would have made the request wait past the call's
    /// deadline. The store's rate is the cause, not the network or a slow service.
    #[error(
        "not sent: the store's announced rate{} would make this request wait {} s, past the {} s \
         left of the call's time limit",
        per_minute.map(|n| format!(" ({n:.1} a minute)")).unwrap_or_default(),
        wait.as_secs_f64().ceil(),
        left.as_secs_f64().floor()
    )]
    RateLimitWait {
        /// How long the limiter would have waited.
        wait: Duration,
        /// What was left of the call's time limit.
        left: Duration,
        /// The rate kept to, in requests a minute, when the limiter knows it.
        per_minute: Option<f64>,
    },
}

impl TransportError {
    /// What failed, for the retry decision and [`Error::Transport`]'s kind.
    pub fn failure(&self) -> TransportFailure {
        match self {
            TransportError::Http(error) => TransportFailure::classify(error),
            TransportError::TimedOut(_) => TransportFailure::TimedOut,
            TransportError::TooLarge { .. } => TransportFailure::TooLarge,
            TransportError::RateLimitWait { .. } => TransportFailure::TimedOut,
        }
    }

    /// The HTTP status reqwest's error carries, if any.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            TransportError::Http(error) => error.status(),
            TransportError::TimedOut(_)
            | TransportError::TooLarge { .. }
            | TransportError::RateLimitWait { .. } => None,
        }
    }
}

/// What to do about a transport error: its kind's hint, or for a wait the store's rate imposes,
/// how to let the call wait for it.
fn transport_hint(kind: &TransportKind, source: &TransportError) -> &'static str {
    match source {
        TransportError::RateLimitWait { .. } => {
            "; give the call more time to wait for the store (StoreAdminBuilder::\
             with_operation_timeout, the CLI's --operation-timeout), or retry later"
        }
        _ => kind.hint(),
    }
}

/// What failed in a transport error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportKind {
    /// The connection could not be made: nothing reached the service.
    Connect,
    /// The attempt timed out.
    Timeout,
    /// The connection broke while the response was read (dropped or truncated).
    Body,
    /// The response's body is larger than the client reads.
    TooLarge,
    /// Anything else.
    Other,
}

impl From<TransportFailure> for TransportKind {
    /// The kind a caller sees of the one classification of a transport failure
    /// ([`TransportFailure::classify`]).
    fn from(failure: TransportFailure) -> Self {
        match failure {
            TransportFailure::ConnectFailed => Self::Connect,
            TransportFailure::TimedOut => Self::Timeout,
            TransportFailure::BodyTruncated => Self::Body,
            TransportFailure::TooLarge => Self::TooLarge,
            TransportFailure::ConnectionReset
            | TransportFailure::Redirected
            | TransportFailure::Other => Self::Other,
        }
    }
}

impl TransportKind {
    /// A short name (`connect`, `timeout`, `body`, `too_large`, `other`): the `error.type` of a
    /// call's span, and the metrics' label.
    pub fn name(self) -> &'static str {
        match self {
            Self::Connect => "connect",
            Self::Timeout => "timeout",
            Self::Body => "body",
            Self::TooLarge => "too_large",
            Self::Other => "other",
        }
    }

    fn hint(self) -> &'static str {
        match self {
            Self::Connect => "; check the base URL and that the service is reachable",
            Self::Timeout => "; the service is slow: raise the timeout or retry later",
            Self::Body => "; the connection broke mid-response: retry",
            Self::TooLarge => {
                "; raise the bound (StoreAdminBuilder::with_max_response_bytes, the CLI's \
                 --max-response-size) if the answer is expected to be that large"
            }
            Self::Other => "",
        }
    }
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Connect => "could not connect",
            Self::Timeout => "timed out",
            Self::Body => "the response was cut off",
            Self::TooLarge => "the response was too large",
            Self::Other => "transport error",
        })
    }
}

/// An error answer of the service.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ApiError {
    /// The operation (`operationId`), when known.
    pub operation: Option<&'static str>,
    /// The HTTP status.
    pub status: StatusCode,
    /// The service's error code (`validation_failed`, `Unauthorized`, `404`...), when the body was
    /// the envelope.
    pub code: Option<String>,
    /// The service's message, when the body was the envelope.
    pub message: Option<String>,
    /// Validation errors by field path, each with its messages.
    pub fields: BTreeMap<String, Vec<String>>,
    /// The body, truncated to [`RAW_BODY_LIMIT`] bytes, when it was not the envelope.
    pub raw_body: Option<String>,
    /// How long the service asked us to wait (`Retry-After`, else `X-RateLimit-Reset`).
    pub retry_after: Option<Duration>,
    /// What identifies the answer for the service's support: its request identifiers
    /// (`cf-ray`, `x-request-id`, ...: [`REQUEST_ID_HEADERS`]) as `(header, value)`.
    pub request_ids: Vec<(String, String)>,
    /// The answer's `Date` header, as sent.
    pub date: Option<String>,
    /// The attempts the client made, this answer's included (1: it was not retried); 0 when not
    /// known (an answer read by hand, [`RawResponse::error_for_status`](crate::RawResponse::error_for_status)).
    pub attempts: u32,
    /// The request is not idempotent (a `POST`) and was not retried after this server error:
    /// the service may have applied it before it failed.
    pub maybe_applied: bool,
}

/// The headers an answer may identify itself by, read into [`ApiError::request_ids`].
pub const REQUEST_ID_HEADERS: [&str; 5] = [
    "cf-ray",
    "x-request-id",
    "x-correlation-id",
    "x-amz-cf-id",
    "x-trace-id",
];

/// The longest header value kept in an error.
const HEADER_VALUE_LIMIT: usize = 128;

/// A header's value as printable text (visible ASCII only: a value from the service is data,
/// never terminal control), shortened.
fn header_text(headers: &HeaderMap, name: &str) -> Option<String> {
    let value = headers.get(name)?.to_str().ok()?.trim();
    (!value.is_empty()).then(|| truncate(value, HEADER_VALUE_LIMIT))
}

/// The request identifiers and the date of an answer's `headers`.
fn identifiers(headers: &HeaderMap) -> (Vec<(String, String)>, Option<String>) {
    let ids = REQUEST_ID_HEADERS
        .iter()
        .filter_map(|name| Some(((*name).to_owned(), header_text(headers, name)?)))
        .collect();
    (ids, header_text(headers, "date"))
}

impl ApiError {
    /// The scopes of which any one grants the operation, from the document.
    pub fn required_scopes(&self) -> &'static [&'static str] {
        self.operation
            .and_then(OperationMeta::find)
            .map(|op| op.scopes)
            .unwrap_or(&[])
    }

    /// What to do about the error, for people: check the token and its scopes (401, naming the
    /// operation's scopes), the record does not exist (404), fix the fields (422), wait (429),
    /// try again later (5xx). `None` when there is nothing to add. `Display` ends with it; the command
    /// line prints it on its own line.
    pub fn hint(&self) -> Option<String> {
        Some(match self.status.as_u16() {
            401 => {
                let scopes = self.required_scopes();
                if scopes.is_empty() {
                    "check the access token".to_string()
                } else {
                    format!(
                        "check the access token and that it has one of the scopes: {}",
                        scopes.join(", ")
                    )
                }
            }
            403 => {
                "the store refused the request (blocked after many errors, or not allowed)".into()
            }
            404 => "the record does not exist".into(),
            405 | 406 => {
                "the request is not accepted at this path: check the method and path".into()
            }
            422 => "fix the fields named above".into(),
            // The client has already retried these as its policy allows.
            429 => match self.retry_after {
                Some(wait) => format!(
                    "rate limited even after retries: retry in {}s, and stay under the store's plan",
                    wait.as_secs().max(1)
                ),
                None => "rate limited even after retries: stay under the store's plan".into(),
            },
            s if s >= 500 && self.maybe_applied => {
                "the service failed, and the request was not retried because it may have been \
                 applied before the failure: check whether it was (get or list the record) \
                 before sending it again"
                    .into()
            }
            s if s >= 500 => match self.attempts {
                0 => "the service failed even after retries: try again later".into(),
                1 => "the service failed (1 attempt: no retry fitted in the call's time limit or \
                      retry budget): try again later"
                    .into(),
                n => format!("the service failed {n} times (every attempt): try again later"),
            },
            _ => return None,
        })
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: HTTP {}", op_name(&self.operation), self.status)?;
        if let Some(code) = self.informative_code() {
            write!(f, " [{code}]")?;
        }
        if let Some(message) = self.informative_message() {
            write!(f, ": {message}")?;
        }
        for (field, messages) in &self.fields {
            write!(f, "; {field}: {}", messages.join(" / "))?;
        }
        if let Some(raw) = &self.raw_body {
            write!(f, ": body was not the error envelope: {raw:?}")?;
        }
        if let Some(hint) = self.hint() {
            write!(f, " ({hint})")?;
        }
        if !self.request_ids.is_empty() {
            let ids: Vec<String> = self
                .request_ids
                .iter()
                .map(|(name, value)| format!("{name} {value}"))
                .collect();
            write!(f, " [{}", ids.join(", "))?;
            if let Some(date) = &self.date {
                write!(f, ", {date}")?;
            }
            f.write_str("]")?;
        }
        Ok(())
    }
}

impl std::error::Error for ApiError {}

impl ApiError {
    /// The service's error code when it says more than the status: `None` for a code that is
    /// the status again (`404` on a 404, `Unauthorized` or `unauthorized` on a 401,
    /// `validation_failed` on a 422, `too_many_requests` on a 429) or the generic `error`.
    /// `Display` shows only this one; [`code`](Self::code) keeps the code as sent.
    pub fn informative_code(&self) -> Option<&str> {
        let code = self.code.as_deref()?;
        let said = normalise(code);
        let reason = self.status.canonical_reason().map(normalise);
        let usual = match self.status.as_u16() {
            422 => Some("validation failed"),
            _ => None,
        };
        let repeats = said.is_empty()
            || said == "error"
            || said == self.status.as_str()
            || reason.as_deref() == Some(said.as_str())
            || usual == Some(said.as_str());
        (!repeats).then_some(code)
    }

    /// The service's message when it says more than the field errors: `None` for a translation
    /// key (`alert.invalid_fields`) beside field errors, which say it in full. `Display` shows
    /// only this one; [`message`](Self::message) keeps the message as sent.
    pub fn informative_message(&self) -> Option<&str> {
        let message = self.message.as_deref()?;
        let is_key = message.contains('.')
            && message.split('.').all(|part| {
                !part.is_empty() && part.chars().all(|c| c.is_ascii_lowercase() || c == '_')
            });
        (!is_key || self.fields.is_empty()).then_some(message)
    }
}

/// A code or reason as words, to compare: lower case, `_` and `-` as spaces.
fn normalise(text: &str) -> String {
    text.trim()
        .chars()
        .map(|c| match c {
            '_' | '-' => ' ',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// What [`Error::fields`] answers for an error without field errors.
static NO_FIELDS: BTreeMap<String, Vec<String>> = BTreeMap::new();

impl Error {
    /// The HTTP status of an error answer.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Error::Api(api) => Some(api.status),
            Error::Transport { source, .. } => source.status(),
            _ => None,
        }
    }

    /// The service's answer, when the error is one.
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            Error::Api(api) => Some(api),
            _ => None,
        }
    }

    /// The record does not exist (404).
    pub fn is_not_found(&self) -> bool {
        self.status() == Some(StatusCode::NOT_FOUND)
    }

    /// The token is missing, invalid, expired or lacks the operation's scope (401).
    #[doc(alias = "is_unauthorised")]
    pub fn is_unauthorized(&self) -> bool {
        self.status() == Some(StatusCode::UNAUTHORIZED)
    }

    /// The store's rate limit is spent (429).
    pub fn is_rate_limited(&self) -> bool {
        self.status() == Some(StatusCode::TOO_MANY_REQUESTS)
    }

    /// Whether sending the same request again later may succeed: 408, 429, 5xx, timeouts and
    /// broken connections. (The client already retried these as its retry policy allows.)
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Api(api) => crate::retry::is_retryable_status(api.status),
            Error::Transport { .. } => true,
            _ => false,
        }
    }

    /// The field errors of a validation failure (422), by field path.
    pub fn validation_errors(&self) -> Option<&BTreeMap<String, Vec<String>>> {
        match self {
            Error::Api(api) if !api.fields.is_empty() => Some(&api.fields),
            _ => None,
        }
    }

    /// The service refused the request's values (422, `validation_failed`): [`fields`](Self::fields)
    /// says which, by name.
    pub fn is_validation(&self) -> bool {
        self.status() == Some(StatusCode::UNPROCESSABLE_ENTITY)
    }

    /// The store refused the request (403): blocked after many errors, or not allowed. (A token
    /// without the operation's scope is a 401: [`is_unauthorized`](Self::is_unauthorized).)
    pub fn is_forbidden(&self) -> bool {
        self.status() == Some(StatusCode::FORBIDDEN)
    }

    /// The request conflicts with the record's state (409).
    pub fn is_conflict(&self) -> bool {
        self.status() == Some(StatusCode::CONFLICT)
    }

    /// No whole answer came back: the connection could not be made, broke, timed out or the
    /// answer was too large ([`Error::Transport`]; its `kind` says which). Whether the service
    /// acted on the request is not known, unless the kind is [`TransportKind::Connect`].
    pub fn is_transport(&self) -> bool {
        matches!(self, Error::Transport { .. })
    }

    /// No whole answer came back within the attempt's time limit (after the retries the policy
    /// allows): an [`Error::Transport`] of kind [`TransportKind::Timeout`]. The service may
    /// still have acted on the request.
    pub fn is_timeout(&self) -> bool {
        matches!(
            self,
            Error::Transport {
                kind: TransportKind::Timeout,
                ..
            }
        )
    }

    /// The field errors of the service's answer (the envelope's `error.fields` of a 422), by
    /// field name or path (`name`, `locales.0.iso_code`), each with its messages; empty when the
    /// error has none.
    ///
    /// ```
    /// # fn show(error: &store_admin::Error) {
    /// if error.is_validation() {
    ///     for (field, messages) in error.fields() {
    ///         eprintln!("{field}: {}", messages.join("; "));
    ///     }
    /// }
    /// # }
    /// ```
    pub fn fields(&self) -> &BTreeMap<String, Vec<String>> {
        match self {
            Error::Api(api) => &api.fields,
            _ => &NO_FIELDS,
        }
    }

    /// The messages of one field of the service's answer (`error.field_errors("name")`); empty
    /// when that field has none.
    pub fn field_errors(&self, field: &str) -> &[String] {
        self.fields().get(field).map_or(&[], Vec::as_slice)
    }

    /// The operation (`operationId`) that failed, when known.
    pub fn operation(&self) -> Option<&'static str> {
        match self {
            Error::Api(api) => api.operation,
            Error::Transport { operation, .. }
            | Error::Decode { operation, .. }
            | Error::Pagination { operation, .. } => *operation,
            Error::Record(record) => Some(record.operation),
            Error::InvalidRequest(_) | Error::Auth(_) => None,
        }
    }

    /// Converts the generated client's error, decoding a success body that failed again as `T` to
    /// name the JSON path that failed (only then: a body that decodes pays nothing for it). An
    /// error of [`StoreAdmin`](crate::StoreAdmin)'s interceptor reaches the generated code as
    /// progenitor's `Error::Custom` with its message only; [`call`](crate::Call::call) and the
    /// pagination stream take it back whole (see `crate::runtime::handoff`), and this
    /// conversion, which has only the message, makes it an [`Error::InvalidRequest`].
    pub(crate) fn from_progenitor<T: DeserializeOwned>(
        error: progenitor_client::Error<types::ErrorResponse>,
        operation: Option<&'static str>,
    ) -> Self {
        use progenitor_client::Error as P;
        match error {
            P::InvalidRequest(message) | P::Custom(message) => Error::InvalidRequest(message),
            P::CommunicationError(source)
            | P::InvalidUpgrade(source)
            | P::ResponseBodyError(source) => {
                let source = TransportError::Http(source);
                Error::Transport {
                    operation,
                    kind: source.failure().into(),
                    source,
                }
            }
            P::ErrorResponse(value) => Error::Api(Box::new(api_error(value, operation))),
            P::InvalidResponsePayload(bytes, serde_error) => {
                decode_error::<T>(&bytes, serde_error, operation)
            }
            P::UnexpectedResponse(response) => {
                let status = response.status();
                let (request_ids, date) = identifiers(response.headers());
                let retry_after =
                    RateLimitHeaders::parse(response.headers(), SystemTime::now()).retry_after;
                // The runtime hands the generated code a response whose body it has read whole: it
                // is there at once. (Without the runtime, a body still on the wire is not waited for.)
                let body = response.bytes().now_or_never().and_then(Result::ok);
                Error::Api(Box::new(ApiError {
                    operation,
                    status,
                    code: None,
                    message: Some(
                        "a status the API document does not list for this operation".into(),
                    ),
                    fields: BTreeMap::new(),
                    raw_body: body
                        .filter(|body| !body.is_empty())
                        .map(|body| truncate(&String::from_utf8_lossy(&body), RAW_BODY_LIMIT)),
                    retry_after,
                    request_ids,
                    date,
                    attempts: 0,
                    maybe_applied: false,
                }))
            }
        }
    }
}

impl From<progenitor_client::Error<types::ErrorResponse>> for Error {
    fn from(error: progenitor_client::Error<types::ErrorResponse>) -> Self {
        Error::from_progenitor::<serde_json::Value>(error, None)
    }
}

fn api_error(
    value: ResponseValue<types::ErrorResponse>,
    operation: Option<&'static str>,
) -> ApiError {
    let status = value.status();
    let headers = value.headers().clone();
    from_envelope(status, &headers, value.into_inner(), operation)
}

fn from_envelope(
    status: StatusCode,
    headers: &HeaderMap,
    envelope: types::ErrorResponse,
    operation: Option<&'static str>,
) -> ApiError {
    let (request_ids, date) = identifiers(headers);
    // The detail is the `error` object; an answer without one (Laravel's form) says its message
    // and its fields' messages at the top.
    let (code, message, fields) = match envelope.error {
        Some(detail) => (
            detail.code.map(|code| code.to_string()),
            Some(detail.message),
            detail.fields,
        ),
        None => (None, envelope.message, envelope.errors),
    };
    ApiError {
        operation,
        status,
        code,
        message,
        fields: fields.into_iter().collect(),
        raw_body: None,
        retry_after: RateLimitHeaders::parse(headers, SystemTime::now()).wait(),
        request_ids,
        date,
        attempts: 0,
        maybe_applied: false,
    }
}

impl ApiError {
    /// The error of an error response read in full: the service's envelope when the body is
    /// one, else the raw body, truncated to [`RAW_BODY_LIMIT`] bytes.
    pub fn from_response(
        status: StatusCode,
        headers: &HeaderMap,
        body: &[u8],
        operation: Option<&'static str>,
    ) -> ApiError {
        // A body nested past the bound is kept raw, never read by serde (see `check_depth`).
        let decoded = store_admin_client::check_depth(body).map_err(|_| ());
        match decoded
            .and_then(|()| serde_json::from_slice::<types::ErrorResponse>(body).map_err(|_| ()))
        {
            Ok(envelope) => from_envelope(status, headers, envelope, operation),
            Err(_) => {
                let (request_ids, date) = identifiers(headers);
                ApiError {
                    operation,
                    status,
                    code: None,
                    message: None,
                    fields: BTreeMap::new(),
                    raw_body: Some(truncate(&String::from_utf8_lossy(body), RAW_BODY_LIMIT)),
                    retry_after: RateLimitHeaders::parse(headers, SystemTime::now()).wait(),
                    request_ids,
                    date,
                    attempts: 0,
                    maybe_applied: false,
                }
            }
        }
    }
}

/// Decodes a success body read by hand as `T`, naming the JSON path that failed.
pub(crate) fn decode_body<T: DeserializeOwned>(
    bytes: &[u8],
    operation: Option<&'static str>,
) -> Result<T, Error> {
    check_depth(bytes, operation)?;
    serde_json::from_slice(bytes).map_err(|e| decode_error::<T>(bytes, e, operation))
}

/// Refuses a body nested deeper than [`store_admin_client::MAX_DEPTH`] before serde reads it (its
/// buffering recurses per level, and a deep answer would overflow a worker's stack): an
/// [`Error::Decode`] at the root naming the depth and the bound. The runtime checks every answer
/// it hands the generated code; the hand-written decodes and the path finder check again.
pub(crate) fn check_depth(bytes: &[u8], operation: Option<&'static str>) -> Result<(), Error> {
    store_admin_client::check_depth(bytes).map_err(|too_deep| Error::Decode {
        operation,
        path: ".".to_owned(),
        message: too_deep.to_string(),
        snippet: truncate(
            &String::from_utf8_lossy(&bytes[..bytes.len().min(256)]),
            200,
        ),
    })
}

fn decode_error<T: DeserializeOwned>(
    bytes: &[u8],
    serde_error: serde_json::Error,
    operation: Option<&'static str>,
) -> Error {
    if let Err(too_deep) = check_depth(bytes, operation) {
        return too_deep;
    }
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    let (path, message) = match serde_path_to_error::deserialize::<_, T>(de) {
        Err(e) => (e.path().to_string(), e.inner().to_string()),
        Ok(_) => (".".to_string(), serde_error.to_string()),
    };
    Error::Decode {
        operation,
        path,
        message,
        snippet: truncate(&String::from_utf8_lossy(bytes), 200),
    }
}

/// Cuts `text` to at most `limit` bytes on a character boundary, marking the cut.
pub(crate) fn truncate(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_string();
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// A record of a list that does not match the API document.
///
/// Every text in it is safe to print: the record is shortened to [`RECORD_SNIPPET_LIMIT`](crate::pagination::undecodable::RECORD_SNIPPET_LIMIT)
/// characters, the values of secret properties (and of custom `headers`) are `[redacted]`, and
/// control and bidirectional characters are written as visible escapes (`\u{1b}`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{operation}: record {index} of page {page} does not match the API document at `{path}`: \
     {message} (record: {record})"
)]
pub struct UndecodableRecord {
    /// The list operation (`operationId`).
    pub operation: &'static str,
    /// The page number, from 1.
    pub page: u64,
    /// The record's index in its page, from 0.
    pub index: usize,
    /// The JSON path that failed, from the page's body: `data[3].id` (`data[3]` for the record as
    /// a whole).
    pub path: String,
    /// What the decoder expected.
    pub message: String,
    /// The record as JSON, shortened, secrets redacted, control characters escaped.
    pub record: String,
}

#[cfg(test)]
mod display_tests {
    use super::*;

    fn api(status: u16, code: Option<&str>, message: &str, fields: &[(&str, &str)]) -> ApiError {
        ApiError {
            operation: Some("op"),
            status: StatusCode::from_u16(status).expect("a status"),
            code: code.map(str::to_owned),
            message: Some(message.to_owned()),
            fields: fields
                .iter()
                .map(|(field, text)| ((*field).to_owned(), vec![(*text).to_owned()]))
                .collect(),
            raw_body: None,
            retry_after: None,
            request_ids: Vec::new(),
            date: None,
            attempts: 0,
            maybe_applied: false,
        }
    }

    #[test]
    fn a_code_that_repeats_the_status_is_not_shown() {
        for (status, code) in [
            (404, "404"),
            (401, "Unauthorized"),
            (422, "validation_failed"),
            (422, "error"),
            (429, "too_many_requests"),
            (400, "bad_request"),
            (410, "gone"),
        ] {
            let error = api(status, Some(code), "m", &[]);
            assert_eq!(error.informative_code(), None, "{status} {code}");
            assert!(!error.to_string().contains('['), "{error}");
        }
    }

    #[test]
    fn a_code_that_says_more_is_shown_once() {
        let error = api(403, Some("store_blocked"), "Too many errors", &[]);
        assert_eq!(error.informative_code(), Some("store_blocked"));
        assert!(
            error
                .to_string()
                .starts_with("op: HTTP 403 Forbidden [store_blocked]: Too many errors"),
            "{error}"
        );
    }

    #[test]
    fn a_message_key_is_dropped_only_beside_field_errors() {
        let with_fields = api(
            422,
            Some("error"),
            "alert.invalid_fields",
            &[("name", "required")],
        );
        assert_eq!(
            with_fields.to_string(),
            "op: HTTP 422 Unprocessable Entity; name: required (fix the fields named above)"
        );
        let alone = api(422, Some("error"), "alert.invalid_fields", &[]);
        assert!(
            alone.to_string().contains(": alert.invalid_fields"),
            "{alone}"
        );
        let words = api(422, None, "The name is required.", &[("name", "required")]);
        assert!(
            words.to_string().contains(": The name is required.;"),
            "{words}"
        );
    }
}

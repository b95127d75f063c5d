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

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;
use store_admin_client::types;
use store_admin_client::{OperationMeta, ResponseValue};

/// How much of a body that is not the error envelope is kept in an [`ApiError`].
pub const RAW_BODY_LIMIT: usize = 2048;

/// Marks a response whose error body was not the service's envelope; set by the interceptor, which
/// then hands the generated code an envelope that carries the raw body as its message.
pub(crate) const RAW_BODY_HEADER: &str = "x-store-admin-raw-error-body";

/// The error of every call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The service answered with an error status.
    #[error(transparent)]
    Api(Box<ApiError>),
    /// The service could not be reached, or the connection failed before a whole response arrived.
    #[error("{operation}: {kind} ({source}){hint}", operation = op_name(.operation), hint = kind.hint())]
    Transport {
        /// The operation (`operationId`), when known.
        operation: Option<&'static str>,
        /// What failed.
        kind: TransportKind,
        /// The underlying error.
        #[source]
        source: reqwest::Error,
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
    /// An argument was rejected before anything was sent.
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// No valid access token could be obtained (see the message).
    #[error("authentication failed: {0}")]
    Auth(String),
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
    /// Anything else.
    Other,
}

impl TransportKind {
    pub(crate) fn classify(e: &reqwest::Error) -> Self {
        if e.is_timeout() {
            Self::Timeout
        } else if e.is_connect() {
            Self::Connect
        } else if e.is_body() || e.is_decode() {
            Self::Body
        } else {
            Self::Other
        }
    }

    fn hint(self) -> &'static str {
        match self {
            Self::Connect => "; check the base URL and that the service is reachable",
            Self::Timeout => "; the service is slow: raise the timeout or retry later",
            Self::Body => "; the connection broke mid-response: retry",
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
            Self::Other => "transport error",
        })
    }
}

/// An error answer of the service.
#[derive(Debug, Clone)]
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
}

impl ApiError {
    /// The scopes of which any one grants the operation, from the document.
    pub fn required_scopes(&self) -> &'static [&'static str] {
        self.operation
            .and_then(OperationMeta::find)
            .map(|op| op.scopes)
            .unwrap_or(&[])
    }

    fn hint(&self) -> String {
        match self.status.as_u16() {
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
            422 => "fix the fields named above".into(),
            429 => match self.retry_after {
                Some(wait) => format!("rate limited: retry in {}s", wait.as_secs().max(1)),
                None => "rate limited: slow down".into(),
            },
            s if s >= 500 => "the service failed: retry later".into(),
            _ => String::new(),
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: HTTP {}", op_name(&self.operation), self.status)?;
        if let Some(code) = &self.code {
            write!(f, " [{code}]")?;
        }
        if let Some(message) = &self.message {
            write!(f, ": {message}")?;
        }
        for (field, messages) in &self.fields {
            write!(f, "; {field}: {}", messages.join(" / "))?;
        }
        if let Some(raw) = &self.raw_body {
            write!(f, ": body was not the error envelope: {raw:?}")?;
        }
        let hint = self.hint();
        if !hint.is_empty() {
            write!(f, " ({hint})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ApiError {}

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

    /// The operation (`operationId`) that failed, when known.
    pub fn operation(&self) -> Option<&'static str> {
        match self {
            Error::Api(api) => api.operation,
            Error::Transport { operation, .. }
            | Error::Decode { operation, .. }
            | Error::Pagination { operation, .. } => *operation,
            Error::InvalidRequest(_) | Error::Auth(_) => None,
        }
    }

    /// Converts the generated client's error, decoding a success body that failed again as `T` to
    /// name the JSON path that failed.
    pub(crate) fn from_progenitor<T: DeserializeOwned>(
        error: progenitor_client::Error<types::ErrorResponse>,
        operation: Option<&'static str>,
    ) -> Self {
        use progenitor_client::Error as P;
        match error {
            P::InvalidRequest(message) => Error::InvalidRequest(message),
            P::Custom(message) => match message.strip_prefix(AUTH_PREFIX) {
                Some(rest) => Error::Auth(rest.to_string()),
                None => Error::InvalidRequest(message),
            },
            P::CommunicationError(source)
            | P::InvalidUpgrade(source)
            | P::ResponseBodyError(source) => Error::Transport {
                operation,
                kind: TransportKind::classify(&source),
                source,
            },
            P::ErrorResponse(value) => Error::Api(Box::new(api_error(value, operation))),
            P::InvalidResponsePayload(bytes, serde_error) => {
                match store_admin_client::DecodeError::from_payload_error(serde_error) {
                    // The generated builders name the operation and the path themselves.
                    Ok(decode) => Error::Decode {
                        operation: Some(decode.operation()),
                        path: decode.path().to_owned(),
                        message: decode.inner().to_string(),
                        snippet: truncate(&String::from_utf8_lossy(&bytes), 200),
                    },
                    Err(serde_error) => decode_error::<T>(&bytes, serde_error, operation),
                }
            }
            P::UnexpectedResponse(response) => Error::Api(Box::new(ApiError {
                operation,
                status: response.status(),
                code: None,
                message: Some("a status the API document does not list for this operation".into()),
                fields: BTreeMap::new(),
                raw_body: None,
                retry_after: crate::retry::retry_after(response.headers(), SystemTime::now()),
            })),
        }
    }
}

/// Prefix of the `Custom` errors the interceptor raises for authentication failures.
pub(crate) const AUTH_PREFIX: &str = "store-admin auth: ";

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
    let headers: HeaderMap = value.headers().clone();
    let operation = operation.or_else(|| {
        headers
            .get(crate::client::OPERATION_HEADER)
            .and_then(|v| v.to_str().ok())
            .and_then(OperationMeta::find)
            .map(|meta| meta.operation_id)
    });
    let envelope = value.into_inner();
    let retry_after = crate::retry::retry_after(&headers, SystemTime::now())
        .or_else(|| crate::retry::rate_limit_reset(&headers, SystemTime::now()));
    if headers.contains_key(RAW_BODY_HEADER) {
        return ApiError {
            operation,
            status,
            code: None,
            message: None,
            fields: BTreeMap::new(),
            raw_body: Some(envelope.error.message),
            retry_after,
        };
    }
    ApiError {
        operation,
        status,
        code: envelope.error.code.map(|code| code.to_string()),
        message: Some(envelope.error.message),
        fields: envelope.error.fields.into_iter().collect(),
        raw_body: None,
        retry_after,
    }
}

/// The [`ApiError`] of an error response read by hand: the envelope when the body is one (the
/// interceptor marks bodies it had to wrap), else the raw body, truncated.
pub(crate) fn api_error_from_body(
    status: StatusCode,
    headers: &HeaderMap,
    body: &[u8],
    operation: Option<&'static str>,
) -> ApiError {
    match serde_json::from_slice::<types::ErrorResponse>(body) {
        Ok(envelope) => api_error(
            ResponseValue::new(envelope, status, headers.clone()),
            operation,
        ),
        Err(_) => ApiError {
            operation,
            status,
            code: None,
            message: None,
            fields: BTreeMap::new(),
            raw_body: Some(truncate(&String::from_utf8_lossy(body), RAW_BODY_LIMIT)),
            retry_after: crate::retry::retry_after(headers, SystemTime::now())
                .or_else(|| crate::retry::rate_limit_reset(headers, SystemTime::now())),
        },
    }
}

/// Decodes a success body read by hand as `T`, naming the JSON path that failed.
pub(crate) fn decode_body<T: DeserializeOwned>(
    bytes: &[u8],
    operation: Option<&'static str>,
) -> Result<T, Error> {
    serde_json::from_slice(bytes).map_err(|e| decode_error::<T>(bytes, e, operation))
}

fn decode_error<T: DeserializeOwned>(
    bytes: &[u8],
    serde_error: serde_json::Error,
    operation: Option<&'static str>,
) -> Error {
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

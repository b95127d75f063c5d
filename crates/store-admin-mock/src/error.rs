//! The service's error envelope: `{"status":N,"success":false,"error":{"code":...,"message":...,"fields":{...}}}`.

use std::collections::BTreeMap;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;

/// Message of the live service for a missing, unknown or expired token.
pub const INVALID_TOKEN_MESSAGE: &str = "The access token is invalid";
/// Prefix of the live service's message for a token without the operation's scope.
pub const MISSING_SCOPE_PREFIX: &str =
    "The access token should have access to one of those scopes: ";
/// Message of the live service for a record that does not exist.
pub const NOT_FOUND_MESSAGE: &str = "The content you are trying to access is no longer available";
/// Message of the live service for a validation failure.
pub const INVALID_FIELDS_MESSAGE: &str = "alert.invalid_fields";

/// An error answer of the mock, rendered in the shared envelope.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// HTTP status, repeated as `status` in the body.
    pub status: StatusCode,
    /// `error.code`: a string such as `"error"` or `"Unauthorized"`, or an integer such as `404`.
    pub code: Value,
    /// `error.message`.
    pub message: String,
    /// `error.fields`: field name to messages (422 only).
    pub fields: Option<BTreeMap<String, Vec<String>>>,
}

#[derive(Serialize)]
struct Envelope<'a> {
    status: u16,
    success: bool,
    error: Body<'a>,
}

#[derive(Serialize)]
struct Body<'a> {
    code: &'a Value,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    fields: Option<&'a BTreeMap<String, Vec<String>>>,
}

impl ApiError {
    /// A plain error with a string code.
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> Self {
        Self {
            status,
            code: Value::from(code),
            message: message.into(),
            fields: None,
        }
    }

    /// 401 for a missing or unknown token.
    pub fn invalid_token() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "Unauthorized",
            INVALID_TOKEN_MESSAGE,
        )
    }

    /// 401 for a token that lacks every one of `scopes` (the operation's scopes, as the document
    /// lists them). Like the service, the message names only the first one, e.g.
    /// `The access token should have access to one of those scopes: orders.read` for an operation
    /// that `orders.read` and `orders.read_write` both grant.
    pub fn missing_scope(scopes: &[String]) -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "Unauthorized",
            format!(
                "{MISSING_SCOPE_PREFIX}{}",
                scopes.first().map(String::as_str).unwrap_or_default()
            ),
        )
    }

    /// 413 for a request body over the limit.
    pub fn too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!("The request body may not be larger than {limit} bytes."),
        )
    }

    /// 404 for an unknown record (integer code, as the service answers).
    pub fn not_found() -> Self {
        Self {
            status: StatusCode::NOT_FOUND,
            code: Value::from(404),
            message: NOT_FOUND_MESSAGE.to_owned(),
            fields: None,
        }
    }

    /// 422 with one message per failing field.
    pub fn validation(fields: BTreeMap<String, Vec<String>>) -> Self {
        Self {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            code: Value::from("error"),
            message: INVALID_FIELDS_MESSAGE.to_owned(),
            fields: Some(fields),
        }
    }

    /// 422 for one field.
    pub fn field(name: &str, message: impl Into<String>) -> Self {
        let mut fields = BTreeMap::new();
        fields.insert(name.to_owned(), vec![message.into()]);
        Self::validation(fields)
    }

    /// 422 with a message and the field it is about (e.g. returning an undelivered shipment).
    pub fn unprocessable(field: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        let mut fields = BTreeMap::new();
        fields.insert(field.to_owned(), vec![message.clone()]);
        Self {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            code: Value::from("error"),
            message,
            fields: Some(fields),
        }
    }

    /// 400 for a body that is not JSON or not an object.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// 429 once the rate limit is spent.
    pub fn too_many_requests() -> Self {
        Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_requests",
            "Too Many Attempts.",
        )
    }

    /// An injected server error (500, 502 or 503).
    pub fn server(status: StatusCode) -> Self {
        let code = match status.as_u16() {
            502 => "bad_gateway",
            503 => "service_unavailable",
            _ => "server_error",
        };
        Self::new(
            status,
            code,
            status.canonical_reason().unwrap_or("Server Error"),
        )
    }

    /// The JSON body of this error.
    pub fn body(&self) -> Vec<u8> {
        let envelope = Envelope {
            status: self.status.as_u16(),
            success: false,
            error: Body {
                code: &self.code,
                message: &self.message,
                fields: self.fields.as_ref(),
            },
        };
        serde_json::to_vec(&envelope).unwrap_or_default()
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status.as_u16(), self.message)
    }
}

impl std::error::Error for ApiError {}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, self.body()).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        response
    }
}

/// Collects field errors of one request and turns them into a 422.
#[derive(Debug, Default)]
pub struct FieldErrors(BTreeMap<String, Vec<String>>);

impl FieldErrors {
    /// An empty collection.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `message` against `field`.
    pub fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.0.entry(field.into()).or_default().push(message.into());
    }

    /// Records that `field` is required.
    pub fn required(&mut self, field: &str) {
        self.add(field, format!("The {field} field is required."));
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The 422 of what was recorded.
    pub fn into_error(self) -> ApiError {
        ApiError::validation(self.0)
    }

    /// Adds every error of `other`.
    pub fn extend(&mut self, other: FieldErrors) {
        for (field, messages) in other.0 {
            for message in messages {
                self.add(field.clone(), message);
            }
        }
    }

    /// The messages recorded, by field.
    pub fn into_map(self) -> BTreeMap<String, Vec<String>> {
        self.0
    }

    /// `Err(422)` if anything was recorded.
    pub fn finish(self) -> Result<(), ApiError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ApiError::validation(self.0))
        }
    }
}

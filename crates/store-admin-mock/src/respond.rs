//! Response helpers shared by the HTTP layer, the engine and the overrides: JSON answers, the
//! success envelope, and what an operation's handler returns.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde::Serialize;
use serde_json::{Value, json};

use crate::error::ApiError;

/// What a handler (generic or override) answers.
pub(crate) enum Reply {
    /// `data` of the success envelope, with the operation's documented status; shaped by the
    /// operation's response schema.
    Data(Value),
    /// `data` with another status (an override that answers 201 where the document says 200...).
    DataWithStatus(StatusCode, Value),
    /// Records of a list: the engine filters, sorts, pages and shapes them.
    Records(Vec<Value>),
    /// Records of a list shared with a cache.
    SharedRecords(std::sync::Arc<Vec<Value>>),
    /// A finished response.
    Response(Response),
}

/// The result of a handler.
pub(crate) type Handled = Result<Reply, ApiError>;

/// `{"status": status, "success": true, "data": data}`.
pub(crate) fn envelope(status: StatusCode, data: Value) -> Value {
    json!({ "status": status.as_u16(), "success": true, "data": data })
}

/// `{"message": ..., "code": 202}`: the answer of a deletion.
pub(crate) fn deleted_message() -> Value {
    json!({ "message": "The Object has been removed successfully", "code": 202 })
}

pub(crate) fn json_response<T: Serialize>(status: StatusCode, body: &T) -> Response {
    json_bytes_response(status, serde_json::to_vec(body).unwrap_or_default())
}

/// A response of `status` whose body is JSON already rendered.
pub(crate) fn json_bytes_response(status: StatusCode, body: impl Into<Body>) -> Response {
    let mut response = Response::new(body.into());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

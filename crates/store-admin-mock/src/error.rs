//! The service's error envelope: `{"status":N,"success":false,"error":{"code":...,"message":...,"fields":{...}}}`.
//!
//! Messages are [`Text`]s, in Arabic and English: an error is rendered in the language its request
//! asks for ([`ApiError::respond`], [`Lang::of`]), Arabic by default, as the service does.

use std::collections::BTreeMap;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;

pub use crate::language::{Lang, Text};

/// Message of the live service for a missing, unknown or expired token.
pub const INVALID_TOKEN_MESSAGE: &str = "The access token is invalid";
/// Prefix of the live service's message for a token without the operation's scope.
pub const MISSING_SCOPE_PREFIX: &str =
    "The access token should have access to one of those scopes: ";
/// Message of the live service for a record that does not exist, in English.
pub const NOT_FOUND_MESSAGE: &str = "The content you are trying to access is no longer available";
/// The same in Arabic, the service's default language (as its documented examples give it).
pub const NOT_FOUND_MESSAGE_AR: &str = "المحتوى الذي تحاول الوصول اليه غير متوفر";
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
    pub message: Text,
    /// `error.fields`: field name to messages (422 only).
    pub fields: Option<BTreeMap<String, Vec<Text>>>,
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
    fields: Option<BTreeMap<&'a str, Vec<&'a str>>>,
}

impl ApiError {
    /// A plain error with a string code.
    pub fn new(status: StatusCode, code: &str, message: Text) -> Self {
        Self {
            status,
            code: Value::from(code),
            message,
            fields: None,
        }
    }

    /// 401 for a missing or unknown token (in English whatever the language, as the service's
    /// token guard answers).
    pub fn invalid_token() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "Unauthorized",
            Text::same(INVALID_TOKEN_MESSAGE),
        )
    }

    /// 401 for a token that lacks every one of `scopes` (the operation's scopes, as the document
    /// lists them). Like the service, the message names only the first one, e.g.
    /// `The access token should have access to one of those scopes: orders.read` for an operation
    /// that `orders.read` and `orders.read_write` both grant. In English whatever the language,
    /// as the service's token guard answers.
    pub fn missing_scope(scopes: &[String]) -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "Unauthorized",
            Text::same(format!(
                "{MISSING_SCOPE_PREFIX}{}",
                scopes.first().map(String::as_str).unwrap_or_default()
            )),
        )
    }

    /// 413 for a request body over the limit.
    pub fn too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            Text::new(
                format!("The request body may not be larger than {limit} bytes."),
                format!("يجب ألا يتجاوز حجم محتوى الطلب {limit} بايت."),
            ),
        )
    }

    /// 404 for an unknown record (integer code, as the service answers).
    pub fn not_found() -> Self {
        Self {
            status: StatusCode::NOT_FOUND,
            code: Value::from(404),
            message: Text::new(NOT_FOUND_MESSAGE, NOT_FOUND_MESSAGE_AR),
            fields: None,
        }
    }

    /// 422 with one message per failing field.
    pub fn validation(fields: BTreeMap<String, Vec<Text>>) -> Self {
        Self {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            code: Value::from("error"),
            message: Text::same(INVALID_FIELDS_MESSAGE),
            fields: Some(fields),
        }
    }

    /// 422 for one field.
    pub fn field(name: &str, message: Text) -> Self {
        let mut fields = BTreeMap::new();
        fields.insert(name.to_owned(), vec![message]);
        Self::validation(fields)
    }

    /// 422 with a message and the field it is about (e.g. returning an undelivered shipment).
    pub fn unprocessable(field: &str, message: Text) -> Self {
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
    pub fn bad_request(message: Text) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// 429 once the rate limit is spent.
    pub fn too_many_requests() -> Self {
        Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_requests",
            Text::new("Too Many Attempts.", "عدد كبير جدًا من المحاولات."),
        )
    }

    /// An injected server error (500, 502 or 503).
    pub fn server(status: StatusCode) -> Self {
        let (code, ar) = match status.as_u16() {
            502 => ("bad_gateway", "بوابة غير صالحة"),
            503 => ("service_unavailable", "الخدمة غير متاحة مؤقتًا"),
            _ => ("server_error", "حصل خطأ غير متوقع يرجى إعادة المُحاولة لاحقاً"),
        };
        Self::new(
            status,
            code,
            Text::new(status.canonical_reason().unwrap_or("Server Error"), ar),
        )
    }

    /// The JSON body of this error, its messages in `lang`.
    pub fn body(&self, lang: Lang) -> Vec<u8> {
        let envelope = Envelope {
            status: self.status.as_u16(),
            success: false,
            error: Body {
                code: &self.code,
                message: self.message.get(lang),
                fields: self.fields.as_ref().map(|fields| {
                    fields
                        .iter()
                        .map(|(name, messages)| {
                            (
                                name.as_str(),
                                messages.iter().map(|m| m.get(lang)).collect(),
                            )
                        })
                        .collect()
                }),
            },
        };
        serde_json::to_vec(&envelope).unwrap_or_default()
    }

    /// The answer, its messages in `lang` (the request's: [`Lang::of`] its headers).
    pub fn respond(self, lang: Lang) -> Response {
        let mut response = (self.status, self.body(lang)).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        response
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status.as_u16(), self.message)
    }
}

impl std::error::Error for ApiError {}

/// Collects field errors of one request and turns them into a 422.
#[derive(Debug, Default)]
pub struct FieldErrors(BTreeMap<String, Vec<Text>>);

impl FieldErrors {
    /// An empty collection.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `message` against `field`.
    pub fn add(&mut self, field: impl Into<String>, message: Text) {
        self.0.entry(field.into()).or_default().push(message);
    }

    /// Records that `field` is required.
    pub fn required(&mut self, field: &str) {
        self.add(field, required(field));
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

    /// The messages recorded, by field, in `lang`.
    pub fn into_map(self, lang: Lang) -> BTreeMap<String, Vec<String>> {
        self.0
            .into_iter()
            .map(|(field, messages)| {
                let messages = messages.iter().map(|m| m.get(lang).to_owned()).collect();
                (field, messages)
            })
            .collect()
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

/// `The {field} field is required.` (Laravel's `required`, in both languages).
pub fn required(field: &str) -> Text {
    Text::new(
        format!("The {field} field is required."),
        format!("حقل {field} مطلوب."),
    )
}

/// `The collection is full: it holds at most {cap} records.` (the mock's own bound).
pub fn collection_full(cap: usize) -> Text {
    Text::new(
        format!("The collection is full: it holds at most {cap} records."),
        format!("المجموعة ممتلئة: تتسع لـ {cap} سجل على الأكثر."),
    )
}

/// `The selected {field} is invalid.` (Laravel's `in` and `exists`, in both languages).
pub fn selected_invalid(field: &str) -> Text {
    Text::new(
        format!("The selected {field} is invalid."),
        format!("قيمة {field} المختارة غير صالحة."),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(error: &ApiError, lang: Lang) -> Value {
        serde_json::from_slice(&error.body(lang)).expect("JSON")
    }

    #[test]
    fn an_error_is_rendered_in_the_language_asked_for() {
        let not_found = ApiError::not_found();
        assert_eq!(
            rendered(&not_found, Lang::English)["error"]["message"],
            NOT_FOUND_MESSAGE
        );
        assert_eq!(
            rendered(&not_found, Lang::Arabic)["error"]["message"],
            NOT_FOUND_MESSAGE_AR
        );
        let mut errors = FieldErrors::new();
        errors.required("name");
        let invalid = errors.into_error();
        let en = rendered(&invalid, Lang::English);
        let ar = rendered(&invalid, Lang::Arabic);
        assert_eq!(
            en["error"]["fields"]["name"][0],
            "The name field is required."
        );
        assert_eq!(ar["error"]["fields"]["name"][0], "حقل name مطلوب.");
        // The message is a key, the same in both.
        assert_eq!(en["error"]["message"], "alert.invalid_fields");
        assert_eq!(ar["error"]["message"], "alert.invalid_fields");
        // The token guard answers in English whatever the language.
        let token = ApiError::invalid_token();
        assert_eq!(
            rendered(&token, Lang::Arabic)["error"]["message"],
            INVALID_TOKEN_MESSAGE
        );
    }
}

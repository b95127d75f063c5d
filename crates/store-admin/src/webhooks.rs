//! Receiving webhooks: verify a delivery on its raw bytes, then parse it into a typed envelope;
//! and build webhook rules without hand-writing their syntax.
//!
//! Needs no HTTP client: give it the request's headers and raw body from any server framework.
//!
//! ```
//! use secrecy::SecretString;
//! use store_admin::webhooks::{signed_headers, verify_and_parse, EventName};
//!
//! let secret = SecretString::from("webhook-secret");
//! let body = br#"{"event":"order.created","merchant":1234509876,"created_at":"2022-12-31 12:31:25","data":{"id":1}}"#;
//! let headers = signed_headers(&secret, body); // what the service sends
//! let event = verify_and_parse(&headers, body, &secret).unwrap();
//! assert_eq!(event.event, EventName::OrderCreated);
//! ```
//!
//! Deliveries are resent up to 3 times when the receiver does not answer 200/201 within about
//! 30 s, so the same event can arrive more than once: handle them idempotently.

use std::fmt;

use chrono::{DateTime, FixedOffset, NaiveDateTime};
use hmac::{Hmac, Mac};
use http::{HeaderMap, HeaderValue};
use secrecy::{ExposeSecret, SecretString};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::values::{TimestampError, parse_local_timestamp, parse_naive_timestamp};

/// The header naming the security strategy of a delivery.
pub const STRATEGY_HEADER: &str = "x-salla-security-strategy";
/// The header carrying the hex HMAC-SHA256 signature (Signature strategy).
pub const SIGNATURE_HEADER: &str = "x-salla-signature";

type HmacSha256 = Hmac<Sha256>;

/// How a delivery proved that it comes from the service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// `X-Salla-Signature` holds the hex HMAC-SHA256 of the raw body, keyed with the secret.
    Signature,
    /// `Authorization` holds the secret itself.
    Token,
}

impl Strategy {
    /// The header value naming this strategy (`Signature` or `Token`).
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Signature => "Signature",
            Strategy::Token => "Token",
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a delivery was rejected or could not be read. No variant ever carries the secret, the
/// expected signature or the received token.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WebhookError {
    /// The secret to verify with is empty: anyone could forge a signature with it.
    #[error("the webhook secret is empty; configure the secret set on the webhook")]
    EmptySecret,
    /// No `X-Salla-Security-Strategy` header.
    #[error(
        "missing X-Salla-Security-Strategy header: the delivery is unauthenticated (strategy `none`) or not from the service"
    )]
    MissingStrategy,
    /// The strategy header names neither `Signature` nor `Token`.
    #[error("unsupported X-Salla-Security-Strategy {0:?}: expected `Signature` or `Token`")]
    UnknownStrategy(String),
    /// Signature strategy without an `X-Salla-Signature` header.
    #[error("missing X-Salla-Signature header for the Signature strategy")]
    MissingSignature,
    /// The signature header is not hex, or not 32 bytes of it.
    #[error(
        "malformed X-Salla-Signature: expected 64 hex digits of HMAC-SHA256, got {length} characters that are not"
    )]
    MalformedSignature {
        /// Length of the header value, in bytes.
        length: usize,
    },
    /// The signature does not match the body and the secret.
    #[error(
        "webhook signature mismatch: the body was altered, or it was signed with another secret"
    )]
    SignatureMismatch,
    /// Token strategy without an `Authorization` header.
    #[error("missing Authorization header for the Token strategy")]
    MissingToken,
    /// The `Authorization` header does not hold the secret.
    #[error("webhook token mismatch: the Authorization header does not hold the webhook's secret")]
    TokenMismatch,
    /// The body is not the expected JSON; `path` says where (`.` for the document itself).
    #[error("cannot decode webhook payload at `{path}`: {message}")]
    Decode {
        /// JSON path of the failure, e.g. `merchant` or `data.items[0].price`.
        path: String,
        /// What was wrong there.
        message: String,
    },
    /// A header value cannot be built (used by the test helpers).
    #[error("the secret cannot be sent as a header value (it contains control characters)")]
    InvalidHeaderValue,
}

/// Checks that a delivery comes from the service, on the raw body, before anything parses it.
///
/// Reads `X-Salla-Security-Strategy` (header names and the strategy value are case-insensitive):
/// - `Signature`: `X-Salla-Signature` must be the hex HMAC-SHA256 of `raw_body` keyed with
///   `secret`; compared in constant time ([`Mac::verify_slice`]).
/// - `Token`: `Authorization` must equal `secret` (a `Bearer ` prefix is tolerated); compared in
///   constant time ([`subtle`]).
///
/// Deliveries with strategy `none` carry no security headers and fail with
/// [`WebhookError::MissingStrategy`]; a receiver that chose no security calls [`parse_event`] alone.
pub fn verify(
    headers: &HeaderMap,
    raw_body: &[u8],
    secret: &SecretString,
) -> Result<Strategy, WebhookError> {
    let key = secret.expose_secret().as_bytes();
    if key.is_empty() {
        return Err(WebhookError::EmptySecret);
    }
    let strategy = headers
        .get(STRATEGY_HEADER)
        .ok_or(WebhookError::MissingStrategy)?;
    let strategy = strategy.to_str().map_err(|_| {
        WebhookError::UnknownStrategy(String::from_utf8_lossy(strategy.as_bytes()).into())
    })?;
    match strategy.trim() {
        s if s.eq_ignore_ascii_case("signature") => {
            verify_signature(headers, raw_body, key).map(|()| Strategy::Signature)
        }
        s if s.eq_ignore_ascii_case("token") => {
            verify_token(headers, key).map(|()| Strategy::Token)
        }
        other => Err(WebhookError::UnknownStrategy(
            other.chars().take(64).collect(),
        )),
    }
}

fn verify_signature(headers: &HeaderMap, raw_body: &[u8], key: &[u8]) -> Result<(), WebhookError> {
    let given = headers
        .get(SIGNATURE_HEADER)
        .ok_or(WebhookError::MissingSignature)?
        .as_bytes();
    let trimmed = given.trim_ascii();
    let malformed = || WebhookError::MalformedSignature {
        length: given.len(),
    };
    if trimmed.len() != 64 {
        return Err(malformed());
    }
    let signature = hex::decode(trimmed).map_err(|_| malformed())?;
    let mut mac = new_mac(key);
    mac.update(raw_body);
    mac.verify_slice(&signature)
        .map_err(|_| WebhookError::SignatureMismatch)
}

fn verify_token(headers: &HeaderMap, key: &[u8]) -> Result<(), WebhookError> {
    let given = headers
        .get(http::header::AUTHORIZATION)
        .ok_or(WebhookError::MissingToken)?
        .as_bytes()
        .trim_ascii();
    let bare = match given.get(..7) {
        Some(prefix) if prefix.eq_ignore_ascii_case(b"bearer ") => given[7..].trim_ascii_start(),
        _ => given,
    };
    let matches = given.ct_eq(key) | bare.ct_eq(key);
    if bool::from(matches) {
        Ok(())
    } else {
        Err(WebhookError::TokenMismatch)
    }
}

fn new_mac(key: &[u8]) -> HmacSha256 {
    // HMAC is defined for keys of every length (long keys are hashed, short ones padded), so this
    // constructor cannot fail; the `Result` only exists for fixed-key-size MACs.
    <HmacSha256 as Mac>::new_from_slice(key).expect("HMAC-SHA256 accepts keys of any length")
}

/// The hex HMAC-SHA256 of `body` keyed with `secret`: what the service puts in
/// `X-Salla-Signature`. For tests and for forwarding signed payloads.
pub fn sign(secret: &SecretString, body: &[u8]) -> String {
    let mut mac = new_mac(secret.expose_secret().as_bytes());
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

/// The headers of a Signature-strategy delivery of `body`: strategy, signature and JSON content
/// type. For tests.
pub fn signed_headers(secret: &SecretString, body: &[u8]) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(STRATEGY_HEADER, HeaderValue::from_static("Signature"));
    headers.insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if let Ok(value) = HeaderValue::from_str(&sign(secret, body)) {
        headers.insert(SIGNATURE_HEADER, value);
    }
    headers
}

/// The headers of a Token-strategy delivery: strategy and `Authorization: <secret>` (marked
/// sensitive). For tests.
pub fn token_headers(secret: &SecretString) -> Result<HeaderMap, WebhookError> {
    let mut value = HeaderValue::from_str(secret.expose_secret())
        .map_err(|_| WebhookError::InvalidHeaderValue)?;
    value.set_sensitive(true);
    let mut headers = HeaderMap::new();
    headers.insert(STRATEGY_HEADER, HeaderValue::from_static("Token"));
    headers.insert(http::header::AUTHORIZATION, value);
    headers.insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Ok(headers)
}

/// The name of a webhook event (`WebhookEventName` in the document, which lists the known names
/// once). New names appear over time; unknown ones are kept as [`EventName::Other`], so a new
/// event never breaks a receiver.
pub use crate::generated_values::WebhookEventName as EventName;

/// One webhook delivery: `{"event": ..., "merchant": ..., "created_at": ..., "data": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebhookEvent {
    /// What happened.
    pub event: EventName,
    /// The store (merchant) id. Read from a JSON integer or a string of digits.
    #[serde(deserialize_with = "integer_or_string")]
    pub merchant: i64,
    /// When, as the service wrote it (`2022-12-31 12:31:25`, store-local time without a zone).
    pub created_at: String,
    /// The event's payload, whose shape depends on the event. See [`WebhookEvent::data_as`].
    #[serde(default)]
    pub data: serde_json::Value,
}

impl WebhookEvent {
    /// `created_at` as a zone-less date-time.
    pub fn created_at_naive(&self) -> Result<NaiveDateTime, TimestampError> {
        parse_naive_timestamp(&self.created_at)
    }

    /// `created_at` read in the given zone (the store's zone, e.g. `Asia/Riyadh`).
    pub fn created_at_in(&self, timezone: &str) -> Result<DateTime<FixedOffset>, TimestampError> {
        parse_local_timestamp(&self.created_at, timezone)
    }

    /// Decodes `data` into a type of your choosing; errors name the JSON path (under `data`).
    pub fn data_as<T: DeserializeOwned>(&self) -> Result<T, WebhookError> {
        serde_path_to_error::deserialize(&self.data).map_err(|e| decode_error(e, "data"))
    }
}

fn integer_or_string<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Int(i64),
        Text(String),
    }
    match Raw::deserialize(deserializer)? {
        Raw::Int(i) => Ok(i),
        Raw::Text(s) => s.trim().parse().map_err(|_| {
            serde::de::Error::custom(format!("expected an integer merchant id, got {s:?}"))
        }),
    }
}

fn decode_error<E: fmt::Display>(e: serde_path_to_error::Error<E>, prefix: &str) -> WebhookError {
    let inner = e.path().to_string();
    let path = match (prefix.is_empty(), inner.as_str()) {
        (true, p) => p.to_owned(),
        (false, ".") => prefix.to_owned(),
        (false, p) if p.starts_with('[') => format!("{prefix}{p}"),
        (false, p) => format!("{prefix}.{p}"),
    };
    WebhookError::Decode {
        path,
        message: e.into_inner().to_string(),
    }
}

/// Parses a delivery's body. Call [`verify`] first (or use [`verify_and_parse`]).
pub fn parse_event(raw_body: &[u8]) -> Result<WebhookEvent, WebhookError> {
    let mut de = serde_json::Deserializer::from_slice(raw_body);
    let event: WebhookEvent =
        serde_path_to_error::deserialize(&mut de).map_err(|e| decode_error(e, ""))?;
    de.end().map_err(|e| WebhookError::Decode {
        path: ".".into(),
        message: e.to_string(),
    })?;
    Ok(event)
}

/// [`verify`], then [`parse_event`]: nothing is parsed unless the delivery is authentic.
pub fn verify_and_parse(
    headers: &HeaderMap,
    raw_body: &[u8],
    secret: &SecretString,
) -> Result<WebhookEvent, WebhookError> {
    verify(headers, raw_body, secret)?;
    parse_event(raw_body)
}

/// The `data` of `app.store.authorize` (easy-mode OAuth): the store's new tokens.
///
/// Debug output hides both tokens.
#[derive(Debug, Clone, Deserialize)]
pub struct AppStoreAuthorize {
    /// The access token.
    pub access_token: crate::credentials::AccessToken,
    /// The refresh token (single use).
    pub refresh_token: crate::credentials::RefreshToken,
    /// When the access token expires, as UTC epoch seconds.
    pub expires: i64,
    /// The granted scopes, space-separated.
    #[serde(default)]
    pub scope: String,
    /// `bearer`.
    #[serde(default)]
    pub token_type: String,
}

impl AppStoreAuthorize {
    /// The tokens as a [`TokenSet`](crate::credentials::TokenSet). An `expires` that is not a valid
    /// time is an error.
    pub fn into_token_set(self) -> Result<crate::credentials::TokenSet, WebhookError> {
        let expires_at =
            DateTime::from_timestamp(self.expires, 0).ok_or_else(|| WebhookError::Decode {
                path: "data.expires".into(),
                message: format!("{} is not a valid epoch time", self.expires),
            })?;
        Ok(crate::credentials::TokenSet {
            access: self.access_token,
            refresh: Some(self.refresh_token),
            expires_at,
            scope: self.scope,
        })
    }
}

open_enum! {
    /// The order attributes a webhook rule on an order event may test, as the service documents
    /// them (the rule syntax is `Webhook.rule` in `openapi/store-admin.yaml`).
    pub enum OrderRuleAttribute {
        /// The order id.
        Id => "id",
        /// The reference number shown to the store owner.
        ReferenceId => "reference_id",
        /// The order total.
        Total => "total",
        /// The subtotal.
        SubTotal => "sub_total",
        /// The payment method (e.g. `mada`).
        PaymentMethod => "payment_method",
        /// The status id.
        StatusId => "status_id",
        /// The branch id.
        BranchId => "branch_id",
        /// The coupon code.
        CouponCode => "coupon_code",
        /// The shipping company id.
        ShipmentCompanyId => "shipment_company_id",
    }
}

impl From<OrderRuleAttribute> for String {
    fn from(value: OrderRuleAttribute) -> Self {
        value.as_str().to_owned()
    }
}

/// Why a rule cannot be rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RuleError {
    /// A string value contains a backtick, which would end the quoted string early.
    #[error("rule value for `{attribute}` contains a backtick, which the rule syntax cannot quote")]
    BacktickInValue {
        /// The attribute compared with that value.
        attribute: String,
    },
    /// The attribute name is empty or has characters other than letters, digits, `_` and `.`.
    #[error("invalid rule attribute name {0:?}: use letters, digits, `_` and `.`")]
    InvalidAttribute(String),
    /// A number is NaN or infinite.
    #[error("rule value for `{attribute}` is not a finite number")]
    NonFiniteNumber {
        /// The attribute compared with that value.
        attribute: String,
    },
    /// `AND` and `OR` are mixed: the service documents no precedence and no parentheses, so
    /// such a rule would be ambiguous.
    #[error(
        "a rule cannot mix AND and OR: the service documents no precedence or grouping; split it into separate webhooks"
    )]
    MixedConnectives,
}

/// A comparison operator of the rule syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `>`
    Gt,
    /// `<`
    Lt,
}

impl Operator {
    /// The operator as written in a rule.
    pub fn as_str(self) -> &'static str {
        match self {
            Operator::Eq => "=",
            Operator::Ne => "!=",
            Operator::Gt => ">",
            Operator::Lt => "<",
        }
    }
}

/// A number in a rule: written bare (`50`, `12.5`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RuleNumber {
    /// An integer.
    Int(i64),
    /// An exact decimal.
    Decimal(rust_decimal::Decimal),
    /// A float (must be finite).
    Float(f64),
}

impl RuleNumber {
    fn render(self, attribute: &str) -> Result<String, RuleError> {
        match self {
            RuleNumber::Int(i) => Ok(i.to_string()),
            RuleNumber::Decimal(d) => Ok(d.to_string()),
            RuleNumber::Float(f) if f.is_finite() => Ok(f.to_string()),
            RuleNumber::Float(_) => Err(RuleError::NonFiniteNumber {
                attribute: attribute.to_owned(),
            }),
        }
    }
}

macro_rules! rule_number_from {
    ($($t:ty => $arm:ident),+) => {$(
        impl From<$t> for RuleNumber {
            fn from(v: $t) -> Self {
                RuleNumber::$arm(v.into())
            }
        }
        impl From<$t> for RuleValue {
            fn from(v: $t) -> Self {
                RuleValue::Number(RuleNumber::from(v))
            }
        }
    )+};
}

rule_number_from!(i64 => Int, i32 => Int, u32 => Int, i16 => Int, u16 => Int, u8 => Int,
    rust_decimal::Decimal => Decimal, f64 => Float, f32 => Float);

impl From<crate::values::Money> for RuleNumber {
    fn from(v: crate::values::Money) -> Self {
        RuleNumber::Decimal(v.0)
    }
}

impl From<crate::values::Money> for RuleValue {
    fn from(v: crate::values::Money) -> Self {
        RuleValue::Number(v.into())
    }
}

/// A value in a rule: a bare number or a string in backticks.
#[derive(Debug, Clone, PartialEq)]
pub enum RuleValue {
    /// Written bare.
    Number(RuleNumber),
    /// Written in backticks; must not contain one.
    Text(String),
}

impl From<&str> for RuleValue {
    fn from(v: &str) -> Self {
        RuleValue::Text(v.to_owned())
    }
}

impl From<String> for RuleValue {
    fn from(v: String) -> Self {
        RuleValue::Text(v)
    }
}

/// `AND` or `OR`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Connective {
    /// `AND`
    And,
    /// `OR`
    Or,
}

#[derive(Debug, Clone, PartialEq)]
struct Condition {
    attribute: String,
    operator: Operator,
    value: RuleValue,
}

impl Condition {
    fn render(&self, out: &mut String) -> Result<(), RuleError> {
        let valid_name = !self.attribute.is_empty()
            && self
                .attribute
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        if !valid_name {
            return Err(RuleError::InvalidAttribute(self.attribute.clone()));
        }
        let value = match &self.value {
            RuleValue::Number(n) => n.render(&self.attribute)?,
            RuleValue::Text(t) if t.contains('`') => {
                return Err(RuleError::BacktickInValue {
                    attribute: self.attribute.clone(),
                });
            }
            RuleValue::Text(t) => format!("`{t}`"),
        };
        out.push_str(&self.attribute);
        out.push(' ');
        out.push_str(self.operator.as_str());
        out.push(' ');
        out.push_str(&value);
        Ok(())
    }
}

/// A webhook rule (version-2 webhooks): comparisons joined by `AND` or by `OR`.
///
/// ```
/// use store_admin::webhooks::{OrderRuleAttribute, Rule};
///
/// let rule = Rule::attr("status").eq("active").or(Rule::attr("applied_to").eq("first_order"));
/// assert_eq!(rule.render().unwrap(), "status = `active` OR applied_to = `first_order`");
///
/// let rule = Rule::attr(OrderRuleAttribute::PaymentMethod).eq("mada")
///     .or(Rule::attr(OrderRuleAttribute::Total).lt(50));
/// assert_eq!(rule.render().unwrap(), "payment_method = `mada` OR total < 50");
///
/// assert!(Rule::attr("coupon_code").eq("a`b").render().is_err());
/// ```
///
/// Building never fails; [`Rule::render`] checks everything and refuses, rather than emit, a rule
/// the service could read another way: a string containing a backtick, an attribute name that is
/// not a plain identifier, a non-finite number, or `AND` mixed with `OR` (no precedence or
/// grouping is documented).
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    first: Condition,
    rest: Vec<(Connective, Condition)>,
}

/// The left-hand side of a comparison, from [`Rule::attr`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleAttribute(String);

impl RuleAttribute {
    fn compare(self, operator: Operator, value: RuleValue) -> Rule {
        Rule {
            first: Condition {
                attribute: self.0,
                operator,
                value,
            },
            rest: Vec::new(),
        }
    }

    /// `attribute = value` (a string is written in backticks, a number bare).
    pub fn eq(self, value: impl Into<RuleValue>) -> Rule {
        self.compare(Operator::Eq, value.into())
    }

    /// `attribute != value`.
    pub fn ne(self, value: impl Into<RuleValue>) -> Rule {
        self.compare(Operator::Ne, value.into())
    }

    /// `attribute > number`.
    pub fn gt(self, value: impl Into<RuleNumber>) -> Rule {
        self.compare(Operator::Gt, RuleValue::Number(value.into()))
    }

    /// `attribute < number`.
    pub fn lt(self, value: impl Into<RuleNumber>) -> Rule {
        self.compare(Operator::Lt, RuleValue::Number(value.into()))
    }
}

impl Rule {
    /// Starts a comparison on an attribute (a name, or an [`OrderRuleAttribute`]).
    pub fn attr(name: impl Into<String>) -> RuleAttribute {
        RuleAttribute(name.into())
    }

    fn join(mut self, connective: Connective, other: Rule) -> Rule {
        self.rest.push((connective, other.first));
        self.rest.extend(other.rest);
        self
    }

    /// `self AND other`.
    pub fn and(self, other: Rule) -> Rule {
        self.join(Connective::And, other)
    }

    /// `self OR other`.
    pub fn or(self, other: Rule) -> Rule {
        self.join(Connective::Or, other)
    }

    /// The rule in the service's syntax, or why it cannot be written unambiguously.
    pub fn render(&self) -> Result<String, RuleError> {
        let mut connectives = self.rest.iter().map(|(c, _)| *c);
        if let Some(first) = connectives.next()
            && connectives.any(|c| c != first)
        {
            return Err(RuleError::MixedConnectives);
        }
        let mut out = String::new();
        self.first.render(&mut out)?;
        for (connective, condition) in &self.rest {
            out.push_str(match connective {
                Connective::And => " AND ",
                Connective::Or => " OR ",
            });
            condition.render(&mut out)?;
        }
        Ok(out)
    }
}

impl TryFrom<&Rule> for String {
    type Error = RuleError;

    fn try_from(rule: &Rule) -> Result<Self, Self::Error> {
        rule.render()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "s3cr3t-webhook-key";
    const BODY: &[u8] = br#"{"event":"order.created","merchant":1234509876,"created_at":"2022-12-31 12:31:25","data":{"id":7}}"#;

    fn secret() -> SecretString {
        SecretString::from(SECRET)
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn assert_no_secret(err: &WebhookError, also: &str) {
        for text in [err.to_string(), format!("{err:?}")] {
            assert!(!text.contains(SECRET), "secret leaked: {text}");
            assert!(!text.contains(also), "expected value leaked: {text}");
        }
    }

    #[test]
    fn sign_matches_a_known_hmac_sha256_vector() {
        // RFC 4231 test case 2.
        let key = SecretString::from("Jefe");
        assert_eq!(
            sign(&key, b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn signature_strategy_accepts_the_right_signature() {
        let h = signed_headers(&secret(), BODY);
        assert_eq!(verify(&h, BODY, &secret()).unwrap(), Strategy::Signature);
    }

    #[test]
    fn signature_strategy_accepts_uppercase_hex_and_any_header_case() {
        let sig = sign(&secret(), BODY).to_uppercase();
        let mut h = HeaderMap::new();
        h.insert(
            http::HeaderName::from_bytes(b"X-SALLA-SECURITY-STRATEGY").unwrap(),
            HeaderValue::from_static("signature"),
        );
        h.insert(
            http::HeaderName::from_bytes(b"X-Salla-Signature").unwrap(),
            HeaderValue::from_str(&sig).unwrap(),
        );
        assert_eq!(verify(&h, BODY, &secret()).unwrap(), Strategy::Signature);
    }

    #[test]
    fn signature_strategy_rejects_an_altered_body() {
        let h = signed_headers(&secret(), BODY);
        let mut altered = BODY.to_vec();
        altered[10] ^= 1;
        let err = verify(&h, &altered, &secret()).unwrap_err();
        assert!(matches!(err, WebhookError::SignatureMismatch));
        assert_no_secret(&err, &sign(&secret(), &altered));
    }

    #[test]
    fn signature_strategy_rejects_another_secret() {
        let h = signed_headers(&SecretString::from("other"), BODY);
        let err = verify(&h, BODY, &secret()).unwrap_err();
        assert!(matches!(err, WebhookError::SignatureMismatch));
        assert_no_secret(&err, &sign(&secret(), BODY));
    }

    #[test]
    fn signature_strategy_rejects_bad_hex_distinctly() {
        let bad = "zz".repeat(32);
        let h = headers(&[(STRATEGY_HEADER, "Signature"), (SIGNATURE_HEADER, &bad)]);
        let err = verify(&h, BODY, &secret()).unwrap_err();
        assert!(
            matches!(err, WebhookError::MalformedSignature { length: 64 }),
            "{err:?}"
        );
        let h = headers(&[(STRATEGY_HEADER, "Signature"), (SIGNATURE_HEADER, "abcd")]);
        let err = verify(&h, BODY, &secret()).unwrap_err();
        assert!(matches!(
            err,
            WebhookError::MalformedSignature { length: 4 }
        ));
        assert_no_secret(&err, &sign(&secret(), BODY));
    }

    #[test]
    fn signature_strategy_without_signature_header_is_missing_signature() {
        let h = headers(&[(STRATEGY_HEADER, "Signature")]);
        assert!(matches!(
            verify(&h, BODY, &secret()),
            Err(WebhookError::MissingSignature)
        ));
    }

    #[test]
    fn token_strategy_accepts_the_secret_in_authorization() {
        let h = token_headers(&secret()).unwrap();
        assert_eq!(verify(&h, BODY, &secret()).unwrap(), Strategy::Token);
        let h = headers(&[(STRATEGY_HEADER, "TOKEN"), ("Authorization", SECRET)]);
        assert_eq!(verify(&h, BODY, &secret()).unwrap(), Strategy::Token);
    }

    #[test]
    fn token_strategy_tolerates_a_bearer_prefix() {
        let value = format!("Bearer {SECRET}");
        let h = headers(&[(STRATEGY_HEADER, "Token"), ("authorization", &value)]);
        assert_eq!(verify(&h, BODY, &secret()).unwrap(), Strategy::Token);
    }

    #[test]
    fn token_strategy_rejects_a_wrong_token_without_showing_either() {
        let h = headers(&[(STRATEGY_HEADER, "Token"), ("authorization", "guess")]);
        let err = verify(&h, BODY, &secret()).unwrap_err();
        assert!(matches!(err, WebhookError::TokenMismatch));
        assert_no_secret(&err, "guess");
        let prefix = &SECRET[..SECRET.len() - 1];
        let h = headers(&[(STRATEGY_HEADER, "Token"), ("authorization", prefix)]);
        assert!(matches!(
            verify(&h, BODY, &secret()),
            Err(WebhookError::TokenMismatch)
        ));
    }

    #[test]
    fn token_strategy_without_authorization_is_missing_token() {
        let h = headers(&[(STRATEGY_HEADER, "Token")]);
        assert!(matches!(
            verify(&h, BODY, &secret()),
            Err(WebhookError::MissingToken)
        ));
    }

    #[test]
    fn missing_strategy_header_is_its_own_error() {
        let mut h = signed_headers(&secret(), BODY);
        h.remove(STRATEGY_HEADER);
        assert!(matches!(
            verify(&h, BODY, &secret()),
            Err(WebhookError::MissingStrategy)
        ));
    }

    #[test]
    fn unknown_strategy_is_named_in_the_error() {
        let h = headers(&[(STRATEGY_HEADER, "Magic")]);
        let err = verify(&h, BODY, &secret()).unwrap_err();
        assert!(matches!(&err, WebhookError::UnknownStrategy(s) if s == "Magic"));
        assert!(err.to_string().contains("Magic"));
        let long = "x".repeat(500);
        let h = headers(&[(STRATEGY_HEADER, &long)]);
        let err = verify(&h, BODY, &secret()).unwrap_err();
        assert!(matches!(&err, WebhookError::UnknownStrategy(s) if s.len() == 64));
    }

    #[test]
    fn empty_secret_is_refused() {
        let empty = SecretString::from("");
        let h = signed_headers(&empty, BODY);
        assert!(matches!(
            verify(&h, BODY, &empty),
            Err(WebhookError::EmptySecret)
        ));
    }

    #[test]
    fn verify_and_parse_does_not_parse_an_unverified_body() {
        // Invalid JSON with a bad signature: the error is about the signature, proving that
        // verification came first.
        let h = headers(&[
            (STRATEGY_HEADER, "Signature"),
            (SIGNATURE_HEADER, &"00".repeat(32)),
        ]);
        assert!(matches!(
            verify_and_parse(&h, b"not json", &secret()),
            Err(WebhookError::SignatureMismatch)
        ));
    }

    #[test]
    fn verify_and_parse_returns_the_typed_event() {
        let h = signed_headers(&secret(), BODY);
        let e = verify_and_parse(&h, BODY, &secret()).unwrap();
        assert_eq!(e.event, EventName::OrderCreated);
        assert_eq!(e.merchant, 1_234_509_876);
        assert_eq!(e.data["id"], 7);
        assert_eq!(
            e.created_at_naive().unwrap().to_string(),
            "2022-12-31 12:31:25"
        );
        assert_eq!(
            e.created_at_in("Asia/Riyadh").unwrap().to_rfc3339(),
            "2022-12-31T12:31:25+03:00"
        );
    }

    #[test]
    fn parse_event_keeps_unknown_event_names() {
        let e = parse_event(
            br#"{"event":"brand.teleported","merchant":"42","created_at":"x","data":null}"#,
        )
        .unwrap();
        assert_eq!(e.event, EventName::Other("brand.teleported".into()));
        assert!(!e.event.is_known());
        assert_eq!(e.merchant, 42);
        assert!(e.created_at_naive().is_err());
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(json["event"], "brand.teleported");
    }

    #[test]
    fn event_names_are_the_documents_list_with_the_app_events() {
        for name in [
            "app.store.authorize",
            "app.installed",
            "app.uninstalled",
            "app.updated",
            "app.subscription.renewed",
            "order.created",
            "shipment.updated",
        ] {
            assert!(EventName::from(name).is_known(), "{name}");
        }
        assert_eq!(EventName::AppStoreAuthorize.as_str(), "app.store.authorize");
        assert!(!EventName::from("brand.new.event").is_known());
    }

    #[test]
    fn event_names_round_trip_as_plain_strings() {
        for name in EventName::KNOWN {
            let json = serde_json::to_string(name).unwrap();
            assert_eq!(json, format!("\"{name}\""));
            assert_eq!(&serde_json::from_str::<EventName>(&json).unwrap(), name);
        }
        assert!(EventName::from("shipment.cancelled").is_known());
        assert!(EventName::from("order.shipment.return.cancelled").is_known());
    }

    #[test]
    fn parse_event_names_the_path_of_a_decode_failure() {
        let err = parse_event(
            br#"{"event":"test","merchant":"abc","created_at":"2022-12-31 12:31:25","data":{}}"#,
        )
        .unwrap_err();
        match err {
            WebhookError::Decode { path, message } => {
                assert_eq!(path, "merchant");
                assert!(message.contains("abc"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
        let err =
            parse_event(br#"{"event":7,"merchant":1,"created_at":"","data":{}}"#).unwrap_err();
        assert!(
            matches!(&err, WebhookError::Decode { path, .. } if path == "event"),
            "{err:?}"
        );
    }

    #[test]
    fn parse_event_rejects_missing_fields_and_trailing_garbage() {
        let err = parse_event(br#"{"event":"test","merchant":1,"data":{}}"#).unwrap_err();
        assert!(err.to_string().contains("created_at"), "{err}");
        let err = parse_event(br#"{"event":"test","merchant":1,"created_at":"","data":{}} x"#)
            .unwrap_err();
        assert!(matches!(err, WebhookError::Decode { .. }));
        assert!(matches!(parse_event(b""), Err(WebhookError::Decode { .. })));
    }

    #[test]
    fn data_as_prefixes_the_path_with_data() {
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Order {
            id: i64,
            items: Vec<Item>,
        }
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Item {
            quantity: u32,
        }
        let e = parse_event(
            br#"{"event":"order.created","merchant":1,"created_at":"","data":{"id":1,"items":[{"quantity":"two"}]}}"#,
        )
        .unwrap();
        let err = e.data_as::<Order>().unwrap_err();
        assert!(
            matches!(&err, WebhookError::Decode { path, .. } if path == "data.items[0].quantity"),
            "{err:?}"
        );
    }

    #[test]
    fn rule_renders_the_documented_example() {
        let rule = Rule::attr("status")
            .eq("active")
            .or(Rule::attr("applied_to").eq("first_order"));
        assert_eq!(
            rule.render().unwrap(),
            "status = `active` OR applied_to = `first_order`"
        );
    }

    #[test]
    fn rule_writes_numbers_bare_and_strings_in_backticks() {
        let rule = Rule::attr(OrderRuleAttribute::Total)
            .gt(100)
            .and(Rule::attr(OrderRuleAttribute::SubTotal).lt(12.5))
            .and(Rule::attr(OrderRuleAttribute::CouponCode).ne("SALE"))
            .and(Rule::attr(OrderRuleAttribute::BranchId).eq(3))
            .and(
                Rule::attr(OrderRuleAttribute::Total)
                    .lt("99.90".parse::<crate::values::Money>().unwrap()),
            );
        assert_eq!(
            rule.render().unwrap(),
            "total > 100 AND sub_total < 12.5 AND coupon_code != `SALE` AND branch_id = 3 AND total < 99.90"
        );
    }

    #[test]
    fn rule_single_comparison_and_string_conversion() {
        let rule = Rule::attr("payment_method").eq("mada");
        assert_eq!(String::try_from(&rule).unwrap(), "payment_method = `mada`");
        // A numeric-looking string stays a string.
        assert_eq!(
            Rule::attr("status_id").eq("5").render().unwrap(),
            "status_id = `5`"
        );
    }

    #[test]
    fn rule_rejects_a_backtick_in_a_string() {
        let rule = Rule::attr("name")
            .eq("ok")
            .or(Rule::attr("coupon_code").eq("x` OR id > `0"));
        assert_eq!(
            rule.render(),
            Err(RuleError::BacktickInValue {
                attribute: "coupon_code".into()
            })
        );
    }

    #[test]
    fn rule_rejects_mixed_and_or() {
        let rule = Rule::attr("a")
            .eq(1)
            .and(Rule::attr("b").eq(2))
            .or(Rule::attr("c").eq(3));
        assert_eq!(rule.render(), Err(RuleError::MixedConnectives));
    }

    #[test]
    fn rule_rejects_bad_attribute_names_and_non_finite_numbers() {
        for name in ["", "total OR id", "a=b", "x`"] {
            assert_eq!(
                Rule::attr(name).eq(1).render(),
                Err(RuleError::InvalidAttribute(name.into()))
            );
        }
        assert_eq!(
            Rule::attr("total").gt(f64::NAN).render(),
            Err(RuleError::NonFiniteNumber {
                attribute: "total".into()
            })
        );
    }

    #[test]
    fn order_rule_attributes_are_the_documented_nine() {
        let names: Vec<&str> = OrderRuleAttribute::KNOWN
            .iter()
            .map(|a| a.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "id",
                "reference_id",
                "total",
                "sub_total",
                "payment_method",
                "status_id",
                "branch_id",
                "coupon_code",
                "shipment_company_id"
            ]
        );
    }
}

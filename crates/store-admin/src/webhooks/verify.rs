//! Verifying a delivery: its security strategy, the signature or token, and signing (for tests and
//! the mock).

use std::fmt;

use hmac::{Hmac, Mac};
use http::HeaderValue;
use secrecy::ExposeSecret;

/// The headers of a delivery, as `http` 1.x has them (what every server framework gives);
/// also `store_admin::http::HeaderMap`.
pub use http::HeaderMap;
/// A webhook secret; also `store_admin::SecretString`.
pub use secrecy::SecretString;
use sha2::Sha256;
use subtle::ConstantTimeEq;

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
/// [`WebhookError::MissingStrategy`]; a receiver that chose no security calls [`parse_event`](super::parse_event) alone.
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

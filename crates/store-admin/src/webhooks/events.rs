//! A delivery's envelope and the `data` of the events that carry tokens.

use std::fmt;

use chrono::{DateTime, FixedOffset, NaiveDateTime};
use http::HeaderMap;
use secrecy::SecretString;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};

use super::verify::{WebhookError, verify};
use crate::values::{TimestampError, parse_local_timestamp, parse_naive_timestamp};

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

/// Parses a delivery's body. Call [`verify`] first (or use [`verify_and_parse`]). A body nested
/// deeper than [`store_admin_client::MAX_DEPTH`] is refused before it is read (it could
/// overflow the stack of the thread that decodes it, in [`WebhookEvent::data_as`] too).
pub fn parse_event(raw_body: &[u8]) -> Result<WebhookEvent, WebhookError> {
    store_admin_client::check_depth(raw_body).map_err(|too_deep| WebhookError::Decode {
        path: ".".into(),
        message: too_deep.to_string(),
    })?;
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

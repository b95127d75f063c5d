//! A delivery's envelope and the `data` of the events that carry tokens.

use std::fmt;

use chrono::{DateTime, FixedOffset, NaiveDateTime};
use http::HeaderMap;
use secrecy::SecretString;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};

use store_admin_client::drift::observe;
use store_admin_client::lenient;
use store_admin_client::types;

use super::verify::{WebhookError, verify};
use crate::values::{
    TimestampError, in_time_zone, parse_local_timestamp, parse_naive_timestamp,
    parse_zoned_timestamp,
};

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
    /// `created_at` as a zone-less date-time: the store-local time as written. Besides the
    /// zone-less form (`2022-12-31 12:31:25`), the service sends JavaScript's `Date.toString()`
    /// (`Mon Nov 10 2025 17:18:13 GMT+0300`) and ISO 8601 with an offset or `Z`: their time as
    /// written, the offset dropped.
    pub fn created_at_naive(&self) -> Result<NaiveDateTime, TimestampError> {
        match parse_zoned_timestamp(&self.created_at) {
            Some(zoned) => Ok(zoned.naive_local()),
            None => parse_naive_timestamp(&self.created_at),
        }
    }

    /// `created_at` read in the given zone (the store's zone, e.g. `Asia/Riyadh`). A form that
    /// carries its own offset (see [`created_at_naive`](Self::created_at_naive)) is that instant,
    /// as it reads in `timezone`.
    pub fn created_at_in(&self, timezone: &str) -> Result<DateTime<FixedOffset>, TimestampError> {
        match parse_zoned_timestamp(&self.created_at) {
            Some(zoned) => in_time_zone(zoned, timezone),
            None => parse_local_timestamp(&self.created_at, timezone),
        }
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

/// [`parse_event`], and counts the delivery in `drift` (see [`crate::drift`]): the habits its
/// decoding as its typed event needed and the fields the document does not declare, under the
/// operation `webhook:<event name>` (an unknown event's name when it reads as one, else
/// `webhook:<other>`; `webhook:<undecodable>` when even the name does not decode). Paths, JSON types
/// and counts only, never a value. A delivery that is resent counts each time it is parsed.
pub fn parse_event_counting(
    raw_body: &[u8],
    drift: &crate::drift::DriftCount,
) -> Result<WebhookEvent, WebhookError> {
    let parsed = parse_event(raw_body);
    match &parsed {
        Ok(event) => count_delivery(drift, &event.event, raw_body),
        Err(_) => {
            /// The name of a delivery whose envelope does not decode, when it has one.
            #[derive(Deserialize)]
            struct NameOnly {
                event: EventName,
            }
            let operation = match serde_json::from_slice::<NameOnly>(raw_body) {
                Ok(only) => format!("webhook:{}", report_name(&only.event)),
                Err(_) => "webhook:<undecodable>".to_owned(),
            };
            drift.record(&operation, None);
        }
    }
    parsed
}

/// [`verify`], then [`parse_event_counting`]: an unverified delivery is neither parsed nor counted.
pub fn verify_and_parse_counting(
    headers: &HeaderMap,
    raw_body: &[u8],
    secret: &SecretString,
    drift: &crate::drift::DriftCount,
) -> Result<WebhookEvent, WebhookError> {
    verify(headers, raw_body, secret)?;
    parse_event_counting(raw_body, drift)
}

/// Counts one delivery of `event` (its envelope decoded) in `drift`.
fn count_delivery(drift: &crate::drift::DriftCount, event: &EventName, raw_body: &[u8]) {
    let operation = format!("webhook:{}", report_name(event));
    let findings = match EventKind::of(event) {
        EventKind::AppStoreAuthorize => observe::<Delivery<AppStoreAuthorize>>(raw_body),
        EventKind::App => observe::<Delivery<types::AppEventData>>(raw_body),
        EventKind::AppSettingsUpdated => {
            observe::<Delivery<types::AppSettingsUpdatedEventData>>(raw_body)
        }
        EventKind::AppSubscription => {
            observe::<Delivery<types::AppSubscriptionEventData>>(raw_body)
        }
        EventKind::AppFeedback => observe::<Delivery<types::AppFeedbackEventData>>(raw_body),
        EventKind::Communication => observe::<Delivery<types::CommunicationEventData>>(raw_body),
        EventKind::OrderShipmentCreating => {
            observe::<Delivery<types::OrderShipmentCreatingEventData>>(raw_body)
        }
        EventKind::OrderShipmentCancelled => {
            observe::<Delivery<types::OrderShipmentCancelledEventData>>(raw_body)
        }
        EventKind::OrderShipmentReturnCreating => {
            observe::<Delivery<types::OrderShipmentReturnCreatingEventData>>(raw_body)
        }
        EventKind::Untyped => observe::<Delivery<serde_json::Value>>(raw_body),
    };
    drift.record(&operation, findings.ok().as_ref());
}

/// An event's name as a drift report keys it: a known name as it is; an unknown one when it reads
/// as an event name (dot-separated lower-case words, none of which looks like data), else
/// `<other>`, so that no value of a hostile delivery reaches the report.
fn report_name(event: &EventName) -> &str {
    let name = event.as_str();
    if event.is_known() {
        return name;
    }
    let reads_as_a_name = name.len() <= 64
        && name.split('.').all(|word| {
            !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                && !store_admin_client::drift::looks_like_data(word)
        });
    if reads_as_a_name { name } else { "<other>" }
}

/// A delivery decoded with its `data` as `T`, for the drift count (the envelope as
/// [`WebhookEvent`] reads it, its merchant id through the lenient decoding, which notes a string).
#[derive(Deserialize)]
#[allow(dead_code)]
struct Delivery<T> {
    event: String,
    #[serde(deserialize_with = "lenient::As::<lenient::Num>::deserialize")]
    merchant: i64,
    created_at: String,
    #[serde(default = "Option::default")]
    data: Option<T>,
}

/// Which typed `data` an event has: the document's `x-webhook-events`
/// ([`EventName::data_schema`]), and the hand-written `app.store.authorize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EventKind {
    AppStoreAuthorize,
    App,
    AppSettingsUpdated,
    AppSubscription,
    AppFeedback,
    Communication,
    OrderShipmentCreating,
    OrderShipmentCancelled,
    OrderShipmentReturnCreating,
    Untyped,
}

impl EventKind {
    fn of(event: &EventName) -> Self {
        if *event == EventName::AppStoreAuthorize {
            return EventKind::AppStoreAuthorize;
        }
        match event.data_schema() {
            Some("AppEventData") => EventKind::App,
            Some("AppSettingsUpdatedEventData") => EventKind::AppSettingsUpdated,
            Some("AppSubscriptionEventData") => EventKind::AppSubscription,
            Some("AppFeedbackEventData") => EventKind::AppFeedback,
            Some("CommunicationEventData") => EventKind::Communication,
            Some("OrderShipmentCreatingEventData") => EventKind::OrderShipmentCreating,
            Some("OrderShipmentCancelledEventData") => EventKind::OrderShipmentCancelled,
            Some("OrderShipmentReturnCreatingEventData") => EventKind::OrderShipmentReturnCreating,
            _ => EventKind::Untyped,
        }
    }
}

impl EventName {
    /// The document's schema that types this event's `data` (the schema whose `x-webhook-events`
    /// names it: `AppSubscriptionEventData` for `app.subscription.started`), if any.
    /// `app.store.authorize` has none: its data holds tokens, typed by the hand-written
    /// [`AppStoreAuthorize`], which keeps them out of `Debug`.
    pub fn data_schema(&self) -> Option<&'static str> {
        let name = self.as_str();
        crate::generated_values::WEBHOOK_EVENT_DATA
            .binary_search_by(|(event, _)| (*event).cmp(name))
            .ok()
            .map(|at| crate::generated_values::WEBHOOK_EVENT_DATA[at].1)
    }
}

/// The `data` of a delivery, typed by its event ([`WebhookEvent::typed_data`]). The document's
/// schemas type the events that their `x-webhook-events` name ([`EventName::data_schema`]); the
/// others stay JSON ([`EventData::Untyped`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum EventData {
    /// `app.store.authorize`: the store's new tokens.
    AppStoreAuthorize(AppStoreAuthorize),
    /// `app.installed`, `app.updated`, `app.uninstalled`: nothing (`{}`).
    App(types::AppEventData),
    /// `app.settings.updated`: the app's settings for the store.
    AppSettingsUpdated(types::AppSettingsUpdatedEventData),
    /// `app.subscription.*` and `app.trial.*`: a plan's or an addon's subscription.
    AppSubscription(types::AppSubscriptionEventData),
    /// `app.feedback.created`: a merchant's review of the app.
    AppFeedback(types::AppFeedbackEventData),
    /// `communication.sms.send`, `communication.email.send`, `communication.whatsapp.send`: a
    /// message to deliver.
    Communication(types::CommunicationEventData),
    /// `order.shipment.creating`: a shipment a shipping app is asked to rate.
    OrderShipmentCreating(types::OrderShipmentCreatingEventData),
    /// `order.shipment.cancelled`, `order.shipment.return.cancelled`.
    OrderShipmentCancelled(types::OrderShipmentCancelledEventData),
    /// `order.shipment.return.creating`: the return of a shipment.
    OrderShipmentReturnCreating(types::OrderShipmentReturnCreatingEventData),
    /// An event whose `data` the document does not type: the JSON as it came.
    Untyped(serde_json::Value),
}

impl WebhookEvent {
    /// `data` decoded as the type of its event ([`EventData`]), through the same lenient decoding
    /// as the client's answers; errors name the JSON path (under `data`). An event whose data the
    /// document does not type is [`EventData::Untyped`].
    pub fn typed_data(&self) -> Result<EventData, WebhookError> {
        Ok(match EventKind::of(&self.event) {
            EventKind::AppStoreAuthorize => EventData::AppStoreAuthorize(self.data_as()?),
            EventKind::App => EventData::App(self.data_as()?),
            EventKind::AppSettingsUpdated => EventData::AppSettingsUpdated(self.data_as()?),
            EventKind::AppSubscription => EventData::AppSubscription(self.data_as()?),
            EventKind::AppFeedback => EventData::AppFeedback(self.data_as()?),
            EventKind::Communication => EventData::Communication(self.data_as()?),
            EventKind::OrderShipmentCreating => EventData::OrderShipmentCreating(self.data_as()?),
            EventKind::OrderShipmentCancelled => EventData::OrderShipmentCancelled(self.data_as()?),
            EventKind::OrderShipmentReturnCreating => {
                EventData::OrderShipmentReturnCreating(self.data_as()?)
            }
            EventKind::Untyped => EventData::Untyped(self.data.clone()),
        })
    }
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

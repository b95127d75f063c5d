//! Webhooks: subscribing (the same URL and event again updates or restores that webhook),
//! updating (a signature strategy needs a secret), unsubscribing by id or by URL (every webhook on
//! it). Deliveries of events to them, signed or tokened, are [`crate::delivery`]'s.

use serde_json::{Map, Value, json};

use crate::engine::Call;
use crate::error::{ApiError, FieldErrors, Text, collection_full};
use crate::respond::{Handled, Reply, deleted_message};
use crate::rules::Rule;
use crate::seed::tables::keys::WEBHOOKS;
use crate::store::{id_text_value, object_mut};

/// The service's message for a URL it does not take (as its documented example gives it).
fn invalid_url() -> Text {
    Text::new(
        "The url must be a valid, working link (not localhost or .test).",
        "لابد أن يكون الرابط صالح وفعّال (لا يحتوي على localhost أو test.)",
    )
}

/// The service's message for an event it does not know.
fn invalid_event() -> Text {
    Text::new("The event field is invalid.", "حقل event غير صالحٍ")
}

fn valid_url(url: &str) -> bool {
    reqwest::Url::parse(url)
        .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
}

/// Whether `event` may be subscribed to (see [`crate::events::event_names`]).
fn known_event(call: &Call<'_>, event: &str) -> bool {
    crate::events::event_names(call.engine)
        .iter()
        .any(|e| e == event)
}

/// Applies the webhook fields of `body` to `webhook`, recording what is invalid.
fn apply(
    call: &Call<'_>,
    body: &Map<String, Value>,
    webhook: &mut Value,
    errors: &mut FieldErrors,
) {
    let map = object_mut(webhook);
    for field in ["name", "event", "url"] {
        if let Some(value) = body.get(field).and_then(Value::as_str) {
            map.insert(field.into(), Value::from(value));
        }
    }
    if let Some(event) = body.get("event").and_then(Value::as_str)
        && !known_event(call, event)
    {
        errors.add("event", invalid_event());
    }
    if let Some(url) = body.get("url").and_then(Value::as_str)
        && !valid_url(url)
    {
        errors.add("url", invalid_url());
    }
    if let Some(version) = body
        .get("version")
        .and_then(|v| v.as_i64().or_else(|| v.as_str()?.parse().ok()))
    {
        if (1..=2).contains(&version) {
            map.insert("version".into(), Value::from(version));
        } else {
            errors.add(
                "version",
                Text::new(
                    "The version must be 1 or 2.",
                    "يجب أن تكون قيمة version إما 1 أو 2.",
                ),
            );
        }
    }
    match body.get("rule") {
        None => {}
        Some(Value::Null) => {
            map.insert("rule".into(), Value::Null);
        }
        Some(Value::String(rule)) => match Rule::parse(rule) {
            Ok(None) => {
                map.insert("rule".into(), Value::Null);
            }
            Ok(Some(_)) => {
                map.insert("rule".into(), Value::from(rule.clone()));
            }
            // The parser's reason, in English in both languages.
            Err(error) => errors.add(
                "rule",
                Text::new(error.to_string(), format!("القاعدة غير صالحة: {error}")),
            ),
        },
        Some(_) => errors.add(
            "rule",
            Text::new("The rule must be a string.", "يجب أن يكون rule نصًا."),
        ),
    }
    if let Some(Value::Array(items)) = body.get("headers") {
        let mut headers = Map::new();
        for (i, item) in items.iter().enumerate() {
            let key = item
                .get("key")
                .and_then(Value::as_str)
                .map(str::trim)
                .unwrap_or_default();
            let value = item.get("value").and_then(Value::as_str);
            let valid_name =
                !key.is_empty() && axum::http::HeaderName::from_bytes(key.as_bytes()).is_ok();
            match (
                valid_name,
                value.filter(|v| axum::http::HeaderValue::from_str(v).is_ok()),
            ) {
                (true, Some(value)) => {
                    headers.insert(key.to_owned(), Value::from(value));
                }
                (false, _) => errors.add(
                    format!("headers.{i}.key"),
                    Text::new("The header key is invalid.", "مفتاح الترويسة غير صالح."),
                ),
                _ => errors.add(
                    format!("headers.{i}.value"),
                    Text::new("The header value is invalid.", "قيمة الترويسة غير صالحة."),
                ),
            }
        }
        map.insert("headers".into(), Value::Object(headers));
    }
    let security = map
        .entry("security")
        .or_insert_with(|| json!({ "strategy": "", "secret": Value::Null }));
    let security = object_mut(security);
    match body.get("security_strategy") {
        None => {}
        Some(Value::Null) => {
            security.insert("strategy".into(), Value::from(""));
            security.insert("secret".into(), Value::Null);
        }
        Some(Value::String(s)) if s == "signature" || s == "token" => {
            security.insert("strategy".into(), Value::from(s.clone()));
        }
        Some(Value::String(s)) if s.is_empty() || s == "none" => {
            security.insert("strategy".into(), Value::from(""));
            security.insert("secret".into(), Value::Null);
        }
        Some(_) => errors.add(
            "security_strategy",
            Text::new(
                "The security strategy must be signature, token or null.",
                "يجب أن تكون قيمة security strategy إما signature أو token أو null.",
            ),
        ),
    }
    if let Some(secret) = body.get("secret").and_then(Value::as_str) {
        security.insert("secret".into(), Value::from(secret));
    }
    if security.get("strategy").and_then(Value::as_str) == Some("signature")
        && security.get("secret").is_none_or(Value::is_null)
    {
        errors.add(
            "secret",
            Text::new(
                "The secret field is required when security strategy is signature.",
                "حقل secret مطلوب في حال ما إذا كان security strategy يساوي signature.",
            ),
        );
    }
}

fn new_webhook() -> Value {
    json!({
        "id": 0, "name": "", "event": "", "version": 2, "rule": Value::Null, "url": "",
        "headers": {}, "type": "manual", "security": { "strategy": "", "secret": Value::Null },
    })
}

/// `POST /webhooks/subscribe`: the same URL and event again updates (or restores) that webhook.
pub(super) fn subscribe_webhook(call: &Call<'_>) -> Handled {
    let body = call.body_object();
    let mut errors = FieldErrors::new();
    for field in ["name", "event", "url"] {
        if body
            .get(field)
            .and_then(Value::as_str)
            .is_some_and(|v| v.trim().is_empty())
        {
            errors.required(field);
        }
    }
    let mut store = call.state.write();
    let existing = store
        .records(WEBHOOKS)
        .iter()
        .find(|w| w.get("url") == body.get("url") && w.get("event") == body.get("event"))
        .cloned();
    let is_new = existing.is_none();
    let mut webhook = existing.unwrap_or_else(new_webhook);
    apply(call, &body, &mut webhook, &mut errors);
    errors.finish()?;
    if is_new {
        let cap = call.state.limits.collection_records;
        if store.records(WEBHOOKS).len() >= cap {
            return Err(ApiError::unprocessable("body", collection_full(cap)));
        }
        let id = store.new_id();
        object_mut(&mut webhook).insert("id".into(), Value::from(id));
    }
    store.insert(WEBHOOKS, webhook.clone());
    Ok(Reply::Data(webhook))
}

/// `PUT /webhooks/{id}`.
pub(super) fn update_webhook(call: &Call<'_>) -> Handled {
    let id = call.last_param().unwrap_or_default().trim().to_owned();
    let body = call.body_object();
    let mut store = call.state.write();
    let mut webhook = store
        .get(WEBHOOKS, &id)
        .cloned()
        .ok_or_else(ApiError::not_found)?;
    let mut errors = FieldErrors::new();
    apply(call, &body, &mut webhook, &mut errors);
    errors.finish()?;
    store.insert(WEBHOOKS, webhook.clone());
    Ok(Reply::Data(webhook))
}

/// `DELETE /webhooks/unsubscribe?id=...` or `?url=...` (every webhook on that URL).
pub(super) fn unsubscribe_webhooks(call: &Call<'_>) -> Handled {
    let query = &call.query;
    let id = query.one("id").map(|raw| raw.trim().to_owned());
    let url = query.one("url").map(str::to_owned);
    if let Some(raw) = &id
        && raw.parse::<i64>().is_err()
    {
        return Err(ApiError::field(
            "id",
            Text::new(
                "The id must be an integer.",
                "يجب أن يكون حقل id عددًا صحيحًا",
            ),
        ));
    }
    if id.is_none() && url.is_none() {
        return Err(ApiError::field(
            "id",
            Text::new(
                "The id field is required when url is not present.",
                "حقل id مطلوب إذا لم يتوفر url.",
            ),
        ));
    }
    let mut store = call.state.write();
    let removed = store.records_mut(WEBHOOKS).retain(|w| {
        let same_id = id.is_some() && w.get("id").and_then(id_text_value) == id;
        let same_url = url.is_some() && w.get("url").and_then(Value::as_str) == url.as_deref();
        !(same_id || same_url)
    });
    if removed == 0 {
        return Err(ApiError::not_found());
    }
    Ok(Reply::Data(deleted_message()))
}

//! Webhooks: list, events, subscribe, update, unsubscribe.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use store_admin_client::types;

use super::{envelope, opt_int, opt_str, path_id};
use crate::app::{Shared, json_object, required_json_object, respond};
use crate::error::{ApiError, FieldErrors};
use crate::model::Webhook;
use crate::paging::{PageRequest, QueryPairs, list_envelope, paginate};
use crate::rules::Rule;

const INVALID_URL: &str = "لابد أن يكون الرابط صالح وفعّال (لا يحتوي على localhost أو test.)";
const INVALID_EVENT: &str = "حقل event غير صالحٍ";

pub(super) async fn list_webhooks(
    State(state): State<Shared>,
    RawQuery(raw): RawQuery,
) -> Response {
    let query = QueryPairs::parse(raw.as_deref());
    let page = match PageRequest::from_query(&query) {
        Ok(page) => page,
        Err(error) => return error.into_response(),
    };
    let store = state.read();
    let url = format!("{}/webhooks", state.base_url);
    let (hooks, pagination) = paginate(&store.webhooks, page, &url, &query);
    let data: Vec<Value> = hooks.iter().map(Webhook::to_json).collect();
    respond::<types::WebhookList>(StatusCode::OK, list_envelope(data, &pagination))
}

pub(super) async fn list_webhook_events(State(state): State<Shared>) -> Response {
    let store = state.read();
    let data: Vec<Value> = store
        .events
        .iter()
        .map(|e| json!({ "id": e.id, "label": e.label, "event": e.event }))
        .collect();
    respond::<types::WebhookEventList>(StatusCode::OK, envelope(StatusCode::OK, Value::Array(data)))
}

/// The webhook fields of a subscribe or update body, each `None` when absent.
#[derive(Default)]
struct WebhookInput {
    name: Option<String>,
    event: Option<String>,
    url: Option<String>,
    version: Option<i64>,
    rule: Option<Option<String>>,
    headers: Option<Vec<(String, String)>>,
    strategy: Option<Option<String>>,
    secret: Option<String>,
}

fn valid_url(url: &str) -> bool {
    reqwest::Url::parse(url)
        .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
}

fn parse_input(
    body: &Map<String, Value>,
    known_events: &[String],
    errors: &mut FieldErrors,
) -> WebhookInput {
    let mut input = WebhookInput {
        name: opt_str(body, "name", errors),
        event: opt_str(body, "event", errors),
        url: opt_str(body, "url", errors),
        version: opt_int(body, "version", errors),
        secret: opt_str(body, "secret", errors),
        ..WebhookInput::default()
    };
    if let Some(event) = &input.event
        && !known_events.iter().any(|e| e == event)
    {
        errors.add("event", INVALID_EVENT);
    }
    if let Some(url) = &input.url
        && !valid_url(url)
    {
        errors.add("url", INVALID_URL);
    }
    if let Some(version) = input.version
        && !(1..=2).contains(&version)
    {
        errors.add("version", "The version must be 1 or 2.");
    }
    match body.get("rule") {
        None => {}
        Some(Value::Null) => input.rule = Some(None),
        Some(Value::String(rule)) => match Rule::parse(rule) {
            Ok(None) => input.rule = Some(None),
            Ok(Some(_)) => input.rule = Some(Some(rule.clone())),
            Err(error) => errors.add("rule", error.to_string()),
        },
        Some(_) => errors.add("rule", "The rule must be a string."),
    }
    match body.get("headers") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            let mut headers = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let key = item
                    .get("key")
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .unwrap_or_default();
                let value = item.get("value").and_then(Value::as_str);
                let valid_name =
                    !key.is_empty() && axum::http::HeaderName::from_bytes(key.as_bytes()).is_ok();
                let valid_value =
                    value.is_some_and(|v| axum::http::HeaderValue::from_str(v).is_ok());
                match (valid_name, valid_value, value) {
                    (true, true, Some(value)) => headers.push((key.to_owned(), value.to_owned())),
                    (false, _, _) => {
                        errors.add(format!("headers.{i}.key"), "The header key is invalid.")
                    }
                    _ => errors.add(format!("headers.{i}.value"), "The header value is invalid."),
                }
            }
            input.headers = Some(headers);
        }
        Some(_) => errors.add("headers", "The headers must be an array of {key, value}."),
    }
    match body.get("security_strategy") {
        None => {}
        Some(Value::Null) => input.strategy = Some(None),
        Some(Value::String(s)) if s == "signature" || s == "token" => {
            input.strategy = Some(Some(s.clone()))
        }
        Some(Value::String(s)) if s.is_empty() || s == "none" => input.strategy = Some(None),
        Some(_) => errors.add(
            "security_strategy",
            "The security strategy must be signature, token or null.",
        ),
    }
    input
}

fn apply(webhook: &mut Webhook, input: WebhookInput) {
    if let Some(name) = input.name {
        webhook.name = name;
    }
    if let Some(event) = input.event {
        webhook.event = event;
    }
    if let Some(url) = input.url {
        webhook.url = url;
    }
    if let Some(version) = input.version {
        webhook.version = version;
    }
    if let Some(rule) = input.rule {
        webhook.rule = rule;
    }
    if let Some(headers) = input.headers {
        webhook.headers = headers;
    }
    if let Some(strategy) = input.strategy {
        webhook.strategy = strategy;
        if webhook.strategy.is_none() {
            webhook.secret = None;
        }
    }
    if let Some(secret) = input.secret {
        webhook.secret = Some(secret.into());
    }
}

fn check_secret(webhook: &Webhook, errors: &mut FieldErrors) {
    if webhook.strategy.as_deref() == Some("signature") && webhook.secret.is_none() {
        errors.add(
            "secret",
            "The secret field is required when security strategy is signature.",
        );
    }
}

pub(super) async fn subscribe_webhook(State(state): State<Shared>, body: Bytes) -> Response {
    let body = match json_object(&body) {
        Ok(body) => body,
        Err(error) => return error.into_response(),
    };
    let mut store = state.write();
    let known: Vec<String> = store.events.iter().map(|e| e.event.clone()).collect();
    let mut errors = FieldErrors::new();
    let input = parse_input(&body, &known, &mut errors);
    for (field, value) in [
        ("name", &input.name),
        ("event", &input.event),
        ("url", &input.url),
    ] {
        if value.as_ref().is_none_or(|v| v.trim().is_empty())
            && body.get(field).is_none_or(Value::is_string)
        {
            errors.required(field);
        }
    }
    // The same URL and event again updates (or restores) that webhook.
    let existing = store
        .webhooks
        .iter()
        .position(|w| Some(&w.url) == input.url.as_ref() && Some(&w.event) == input.event.as_ref());
    let mut webhook = match existing.and_then(|i| store.webhooks.get(i)) {
        Some(webhook) => webhook.clone(),
        None => Webhook {
            id: 0,
            name: String::new(),
            event: String::new(),
            version: 2,
            rule: None,
            url: String::new(),
            headers: Vec::new(),
            strategy: None,
            secret: None,
        },
    };
    apply(&mut webhook, input);
    check_secret(&webhook, &mut errors);
    if let Err(error) = errors.finish() {
        return error.into_response();
    }
    match existing {
        Some(index) => {
            if let Some(slot) = store.webhooks.get_mut(index) {
                *slot = webhook.clone();
            }
        }
        None => {
            webhook.id = store.new_id();
            store.webhooks.push(webhook.clone());
        }
    }
    drop(store);
    respond::<types::WebhookResponse>(StatusCode::OK, envelope(StatusCode::OK, webhook.to_json()))
}

pub(super) async fn update_webhook(
    State(state): State<Shared>,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let id = match path_id(&id) {
        Ok(id) => id,
        Err(error) => return error.into_response(),
    };
    let body = match required_json_object(&body) {
        Ok(body) => body,
        Err(error) => return error.into_response(),
    };
    let mut store = state.write();
    let known: Vec<String> = store.events.iter().map(|e| e.event.clone()).collect();
    let Some(index) = store.webhooks.iter().position(|w| w.id == id) else {
        return ApiError::not_found().into_response();
    };
    let mut errors = FieldErrors::new();
    let input = parse_input(&body, &known, &mut errors);
    let Some(mut webhook) = store.webhooks.get(index).cloned() else {
        return ApiError::not_found().into_response();
    };
    apply(&mut webhook, input);
    check_secret(&webhook, &mut errors);
    if let Err(error) = errors.finish() {
        return error.into_response();
    }
    if let Some(slot) = store.webhooks.get_mut(index) {
        *slot = webhook.clone();
    }
    drop(store);
    respond::<types::WebhookResponse>(StatusCode::OK, envelope(StatusCode::OK, webhook.to_json()))
}

pub(super) async fn unsubscribe_webhooks(
    State(state): State<Shared>,
    RawQuery(raw): RawQuery,
) -> Response {
    let query = QueryPairs::parse(raw.as_deref());
    let mut errors = FieldErrors::new();
    let id = match query.one("id") {
        None => None,
        Some(raw) => match raw.trim().parse::<i64>() {
            Ok(id) => Some(id),
            Err(_) => {
                errors.add("id", "يجب أن يكون حقل id عددًا صحيحًا");
                None
            }
        },
    };
    let url = query.one("url").map(str::to_owned);
    if id.is_none() && url.is_none() && query.one("id").is_none() {
        errors.add("id", "The id field is required when url is not present.");
    }
    if let Err(error) = errors.finish() {
        return error.into_response();
    }
    let mut store = state.write();
    let before = store.webhooks.len();
    store
        .webhooks
        .retain(|w| Some(w.id) != id && Some(&w.url) != url.as_ref());
    if store.webhooks.len() == before {
        return ApiError::not_found().into_response();
    }
    drop(store);
    let data = json!({ "message": "The Object has been removed successfully", "code": 202 });
    respond::<types::MessageResponse>(StatusCode::ACCEPTED, envelope(StatusCode::ACCEPTED, data))
}

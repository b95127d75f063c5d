//! The HTTP face of the mock: the operations of the document under `/admin/v2` (routed by the
//! engine), the OAuth token endpoint, the admin routes, and the layer every request crosses:
//! body size limit, request counting, injected faults, the bearer token's scopes, and the cache
//! of GET answers. Every refusal is the service's error envelope, its messages in the language
//! the request asks for (`Accept-Language`, Arabic by default: [`Lang::of`]).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{FromRef, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::Response;
use axum::routing::{get, post};
use http_body_util::BodyExt;
use secrecy::ExposeSecret;
use serde_json::{Value, json};

use crate::auth::constant_time_eq;
use crate::document::API_PREFIX;
use crate::engine::Engine;
use crate::engine::router::Found;
use crate::error::{ApiError, Lang, Text};
use crate::faults::{self, FaultConfig};
use crate::oauth::{AUTHORIZE_PATH, Authorization, TOKEN_PATH, found};
use crate::respond::{json_bytes_response, json_response};
use crate::state::Shared;

/// A handle on the connection a request arrived on, used to drop it without an answer.
#[derive(Clone)]
pub(crate) struct ConnectionKill(pub Arc<tokio::sync::Notify>);

/// Reads a whole request body within `limits.body_read_timeout`, refusing one over
/// `limits.body_bytes` with 413 in the envelope, and one that trickles with 408 (the handler
/// adds `Connection: close`, see [`body_error`]).
pub(crate) async fn read_body(
    body: Body,
    headers: &HeaderMap,
    limits: &crate::config::Limits,
) -> Result<Bytes, ApiError> {
    match tokio::time::timeout(
        limits.body_read_timeout,
        read_body_within(body, headers, limits.body_bytes),
    )
    .await
    {
        Ok(result) => result,
        Err(_) => {
            let seconds = limits.body_read_timeout.as_secs_f64();
            Err(ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                "request_timeout",
                Text::new(
                    format!("The request body did not arrive within {seconds} seconds."),
                    format!("لم يصل محتوى الطلب خلال {seconds} ثانية."),
                ),
            ))
        }
    }
}

/// A body that could not be read, as a response: a 408 or 413 closes the connection (the rest of
/// the body is not read, so the connection cannot carry another request).
fn body_error(error: ApiError, lang: Lang) -> Response {
    let mut response = error.respond(lang);
    if matches!(
        response.status(),
        StatusCode::REQUEST_TIMEOUT | StatusCode::PAYLOAD_TOO_LARGE
    ) {
        response.headers_mut().insert(
            header::CONNECTION,
            axum::http::HeaderValue::from_static("close"),
        );
    }
    response
}

async fn read_body_within(
    body: Body,
    headers: &HeaderMap,
    limit: usize,
) -> Result<Bytes, ApiError> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return Err(ApiError::too_large(limit));
    }
    match http_body_util::Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(error)
            if error
                .downcast_ref::<http_body_util::LengthLimitError>()
                .is_some() =>
        {
            Err(ApiError::too_large(limit))
        }
        Err(_) => Err(ApiError::bad_request(Text::new(
            "The request body could not be read.",
            "تعذرت قراءة محتوى الطلب.",
        ))),
    }
}

/// The fields of a `multipart/form-data` body (parsed by multer, the parser axum uses), `None`
/// when a part's headers cannot be read (the form is then not checked), or what keeps the body
/// from being a form at all.
async fn read_form(
    headers: &HeaderMap,
    bytes: Bytes,
) -> Result<Option<Vec<crate::engine::FormField>>, Text> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    // Another media type (JSON, say): the service reads such a body as it can, unchecked here.
    let Ok(boundary) = multer::parse_boundary(content_type) else {
        return Ok(None);
    };
    let stream = futures::stream::once(async move { Ok::<Bytes, std::io::Error>(bytes) });
    let mut multipart = multer::Multipart::new(stream, boundary);
    let mut fields = Vec::new();
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            // A part whose headers this parser cannot read (bytes outside HTTP's header grammar
            // in a field name): the form is taken as the service would, unchecked.
            Err(
                multer::Error::ReadHeaderFailed(_)
                | multer::Error::DecodeHeaderName { .. }
                | multer::Error::DecodeHeaderValue { .. },
            ) => return Ok(None),
            Err(error) => return Err(malformed_form(&error)),
        };
        let Some(name) = field.name().map(str::to_owned) else {
            continue;
        };
        let file = field.file_name().is_some();
        let content = field
            .bytes()
            .await
            .map_err(|error| malformed_form(&error))?;
        let text = (!file)
            .then(|| String::from_utf8(content.to_vec()).ok())
            .flatten();
        let content = file.then_some(content);
        fields.push(crate::engine::FormField {
            name,
            text,
            file,
            content,
        });
    }
    Ok(Some(fields))
}

/// `The multipart body is malformed: ...` (the parser's reason in English in both languages).
fn malformed_form(error: &multer::Error) -> Text {
    Text::new(
        format!("The multipart body is malformed: {error}"),
        format!("محتوى الطلب متعدد الأجزاء غير سليم: {error}"),
    )
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// What the handlers reach: the running mock's state, and the engine (the document made
/// executable), each taken by the handlers that need it (`State<Shared>`, `State<Arc<Engine>>`).
#[derive(Clone)]
struct App {
    state: Shared,
    engine: Arc<Engine>,
}

impl FromRef<App> for Shared {
    fn from_ref(app: &App) -> Shared {
        app.state.clone()
    }
}

impl FromRef<App> for Arc<Engine> {
    fn from_ref(app: &App) -> Arc<Engine> {
        app.engine.clone()
    }
}

/// Builds the whole application.
pub(crate) fn router(state: Shared, engine: Arc<Engine>) -> Router {
    let app = App { state, engine };
    let admin: Router<App> = Router::new()
        .route(
            "/faults",
            get(get_faults).put(put_faults).delete(delete_faults),
        )
        .route("/deliveries", get(get_deliveries))
        .route("/events/{event}", post(post_event))
        .route("/oauth", get(get_oauth))
        .route("/requests", get(get_requests).delete(delete_requests))
        .route("/journal", get(get_journal).delete(delete_journal))
        .route("/drift", get(get_drift))
        .route(
            "/oauth/expire-access-tokens",
            post(post_expire_access_tokens),
        )
        .route("/oauth/install", post(post_app_store_install))
        .fallback(
            |headers: HeaderMap| async move { ApiError::not_found().respond(Lang::of(&headers)) },
        )
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            admin_guard,
        ));
    Router::new()
        .nest("/__admin", admin)
        .route(TOKEN_PATH, post(token_endpoint))
        .route(AUTHORIZE_PATH, get(authorize_endpoint))
        .route("/", get(index))
        .fallback(api)
        .method_not_allowed_fallback(|headers: HeaderMap| async move {
            method_not_allowed().respond(Lang::of(&headers))
        })
        .with_state(app)
}

fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        Text::new("The method is not allowed.", "طريقة الطلب غير مسموح بها."),
    )
}

/// `/__admin/*` needs `Authorization: Bearer <admin token>` when one is configured; a drift proxy
/// (`--proxy`) needs one configured: without it, its admin routes answer 401 to anyone (its report
/// describes a real store's answers).
async fn admin_guard(
    State(state): State<Shared>,
    request: Request,
    next: axum::middleware::Next,
) -> Response {
    match &state.admin_token {
        Some(expected) => {
            let presented = bearer(request.headers()).unwrap_or_default();
            if !constant_time_eq(expected.expose_secret(), presented) {
                return ApiError::invalid_token().respond(Lang::of(request.headers()));
            }
        }
        None if state.proxy.is_some() => {
            return ApiError::new(
                StatusCode::UNAUTHORIZED,
                "admin_token_required",
                Text::new(
                    "The drift proxy's admin routes need an admin token (--admin-token).",
                    "مسارات الإدارة في وكيل فحص الانحراف تتطلب رمز إدارة (--admin-token).",
                ),
            )
            .respond(Lang::of(request.headers()));
        }
        None => {}
    }
    next.run(request).await
}

/// Whether `path` (as it came, percent-encoded) has a dot segment, `.` or `..`, also written
/// `%2e`: a server that resolves it would read another path than the one routed.
pub(crate) fn has_dot_segment(path: &str) -> bool {
    path.split('/').any(|segment| {
        let decoded = segment.replace("%2e", ".").replace("%2E", ".");
        decoded == "." || decoded == ".."
    })
}

/// Every API operation: routed from the document, then the shared gate.
async fn api(
    State(state): State<Shared>,
    State(engine): State<Arc<Engine>>,
    request: Request,
) -> Response {
    let lang = Lang::of(request.headers());
    // A dot segment is refused before anything is routed or forwarded (the drift proxy's base
    // URL would resolve it: `/admin/v2/../../__admin/x` would leave the proxied base path).
    if has_dot_segment(request.uri().path()) {
        return ApiError::bad_request(Text::new(
            "The path has a dot segment (. or ..).",
            "المسار يحتوي على مقطع نقطة (. أو ..).",
        ))
        .respond(lang);
    }
    // Below `/admin/v2`, every operation; at the root, those of another host (the accounts
    // host's `/oauth2/user/info`), as a client pointed at the mock for both hosts calls them.
    let (path, root) = match request.uri().path().strip_prefix(API_PREFIX) {
        Some(path) => (path.to_owned(), false),
        None => (request.uri().path().to_owned(), true),
    };
    let (index, params) = match engine.router.find(request.method(), &path) {
        Found::Operation { index, params }
            if !root
                || engine
                    .doc
                    .operations
                    .get(index)
                    .is_some_and(|op| op.other_host) =>
        {
            (index, params)
        }
        _ if root => return ApiError::not_found().respond(lang),
        Found::Operation { index, params } => (index, params),
        Found::MethodNotAllowed(methods) => {
            let allow: Vec<&str> = methods.iter().map(Method::as_str).collect();
            let mut response = method_not_allowed().respond(lang);
            if let Ok(value) = axum::http::HeaderValue::from_str(&allow.join(", ")) {
                response.headers_mut().insert(header::ALLOW, value);
            }
            return response;
        }
        Found::Nothing => {
            if let Some(proxy) = state.proxy.as_ref().filter(|_| !root) {
                return proxy
                    .forward(None, &path, request, state.limits.body_bytes)
                    .await;
            }
            return ApiError::not_found().respond(lang);
        }
    };
    if let Some(counter) = state.requests.get(index) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
    if let Some(proxy) = &state.proxy {
        let op = &state.doc.operations[index];
        return proxy
            .forward(Some(&op.id), &path, request, state.limits.body_bytes)
            .await;
    }
    state.journal.record(
        request.method(),
        request.uri(),
        request.headers(),
        &engine.doc.operations[index].id,
    );
    let user_info = engine.doc.operations[index].id == USER_INFO;
    let token = user_info.then(|| bearer(request.headers()).map(str::to_owned));
    let response = operation(&state, &engine, index, params, request, lang).await;
    state.count_answer(index, response.status());
    match token {
        Some(token) if response.status() == StatusCode::OK => {
            user_info_of(&state, token.as_deref(), response, lang).await
        }
        _ => response,
    }
}

/// The accounts host's user information.
const USER_INFO: &str = "get_user_info";

/// The user information answered for `token`, its store being the one the token acts for: the
/// merchant of its installation (an install from the app store), else the server's merchant (the
/// `merchant` of its webhook deliveries). Done after the cache, which keys answers by URL alone.
async fn user_info_of(
    state: &Shared,
    token: Option<&str>,
    response: Response,
    lang: Lang,
) -> Response {
    let merchant = token
        .and_then(|token| state.oauth.merchant_of(token))
        .unwrap_or_else(|| state.read().merchant_id);
    let (parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return unreadable_own_response().respond(lang);
    };
    let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    if let Some(data) = value.get_mut("data").and_then(Value::as_object_mut) {
        match data.get_mut("merchant").and_then(Value::as_object_mut) {
            Some(store) => {
                store.insert("id".into(), json!(merchant));
            }
            None => {
                data.insert("merchant".into(), json!({ "id": merchant }));
            }
        }
    }
    let mut response = json_response(StatusCode::OK, &value);
    for (name, value) in &parts.headers {
        if name != header::CONTENT_LENGTH {
            response.headers_mut().insert(name, value.clone());
        }
    }
    response
}

/// The mock's own failure: a response it made could not be read back.
fn unreadable_own_response() -> ApiError {
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "mock_error",
        Text::new(
            "the mock could not read its own response",
            "تعذر على الخادم التجريبي قراءة رده",
        ),
    )
}

/// One operation's request after routing: faults, then the authorized call. `lang` is the
/// language of its error messages.
async fn operation(
    state: &Shared,
    engine: &Engine,
    index: usize,
    params: Vec<(String, String)>,
    request: Request,
    lang: Lang,
) -> Response {
    if state.faults.is_idle() {
        return authorized(state, engine, index, params, request, lang).await;
    }
    let operation_id = engine.doc.operations[index].id.clone();
    let decision = state.faults.decide(&operation_id);
    if let Some(latency) = decision.latency {
        tokio::time::sleep(latency).await;
    }
    let rate = decision.rate_limit.as_ref().map(|(limiter, per_minute)| {
        let key = bearer(request.headers()).unwrap_or("anonymous");
        faults::check_rate_limit(limiter, *per_minute, key)
    });
    if let Some(outcome) = &rate
        && outcome.retry_after.is_some()
    {
        let mut response = faults::too_many_requests().respond(lang);
        outcome.apply(&mut response);
        return response;
    }
    if decision.drop {
        if let Some(kill) = request.extensions().get::<ConnectionKill>() {
            kill.0.notify_one();
            // The connection task drops this future with the connection.
            return std::future::pending().await;
        }
        return Response::new(Body::from_stream(futures::stream::iter([Err::<Bytes, _>(
            std::io::Error::other("connection dropped by fault injection"),
        )])));
    }
    let mut response = match decision.error {
        Some(status) => ApiError::server(status).respond(lang),
        None => authorized(state, engine, index, params, request, lang).await,
    };
    if let Some(outcome) = &rate {
        outcome.apply(&mut response);
    }
    if !decision.list.is_none() && response.status() == StatusCode::OK {
        let (mut parts, body) = response.into_parts();
        let bytes = axum::body::to_bytes(body, usize::MAX)
            .await
            .unwrap_or_default();
        let bytes = decision.list.apply(bytes);
        parts.headers.remove(axum::http::header::CONTENT_LENGTH);
        response = Response::from_parts(parts, Body::from(bytes));
    }
    if decision.truncate || decision.slow.is_some() {
        let (parts, body) = response.into_parts();
        let bytes = axum::body::to_bytes(body, usize::MAX)
            .await
            .unwrap_or_default();
        let response = Response::from_parts(parts, Body::empty());
        return match decision.slow {
            _ if decision.truncate => faults::truncate(response, bytes),
            Some((chunk, delay)) => faults::slow(response, bytes, chunk, delay),
            None => response,
        };
    }
    response
}

/// Checks the bearer token against the operation's scopes, serves a GET from the cache when it
/// can, reads the body within its limit and runs the engine.
async fn authorized(
    state: &Shared,
    engine: &Engine,
    index: usize,
    params: Vec<(String, String)>,
    request: Request,
    lang: Lang,
) -> Response {
    let op = &engine.doc.operations[index];
    if op.secured
        && let Err(error) = state.authorize(bearer(request.headers()), &op.scopes)
    {
        return error.respond(lang);
    }
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_owned();
    let query = parts.uri.query().map(str::to_owned);
    let is_get = parts.method == Method::GET;
    let cache_key = parts
        .uri
        .path_and_query()
        .map_or_else(String::new, |p| p.as_str().to_owned());
    if is_get && let Some(body) = state.cached(&cache_key) {
        return json_bytes_response(StatusCode::OK, body);
    }
    let bytes = match read_body(body, &parts.headers, &state.limits).await {
        Ok(bytes) => bytes,
        Err(error) => return body_error(error, lang),
    };
    let form = match op.body.as_ref() {
        Some(body) if body.multipart && !bytes.iter().all(u8::is_ascii_whitespace) => {
            Some(read_form(&parts.headers, bytes.clone()).await)
        }
        _ => None,
    };
    let generation = state.generation();
    let response = engine.handle(
        state,
        index,
        params,
        &path,
        query.as_deref(),
        bytes,
        form,
        lang,
    );
    if !is_get || response.status() != StatusCode::OK || state.generation() != generation {
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return unreadable_own_response().respond(lang);
    };
    state.remember(cache_key, generation, bytes.clone());
    Response::from_parts(parts, Body::from(bytes))
}

async fn index(State(state): State<Shared>, State(engine): State<Arc<Engine>>) -> Response {
    let doc = &engine.doc;
    let operations: Vec<Value> = doc
        .operations
        .iter()
        .zip(&engine.plans)
        .map(|(op, plan)| {
            json!({
                "operation_id": op.id, "method": op.method.as_str(), "path": op.path,
                "action": format!("{:?}", plan.action), "collection": plan.collection,
                "records": plan.collection.as_deref().map(|c| engine.real_key(c)),
                "override": engine.overridden(&op.id),
            })
        })
        .collect();
    let shipping_rule_ids: Vec<Value> = state
        .read()
        .records(crate::seed::tables::keys::SHIPPING_RULES)
        .iter()
        .filter_map(|r| r.get("id").cloned())
        .collect();
    let state_rules: Vec<Value> = engine
        .state_rules()
        .into_iter()
        .map(|(op, why)| json!({ "operation_id": op, "why": why }))
        .collect();
    json_response(
        StatusCode::OK,
        &json!({
            "base_url": state.base_url,
            "operations": operations,
            "shipping_rule_ids": shipping_rule_ids,
            "state_dependent_operations": state_rules,
            "oauth_token_url": TOKEN_PATH,
            "oauth_authorize_url": AUTHORIZE_PATH,
            "admin": {
                "faults": "/__admin/faults",
                "deliveries": "/__admin/deliveries",
                "events": "/__admin/events/{event}",
                "oauth": "/__admin/oauth",
                "requests": "/__admin/requests",
                "journal": "/__admin/journal",
                "expire_access_tokens": "/__admin/oauth/expire-access-tokens",
                "app_store_install": "/__admin/oauth/install",
                "token_required": state.admin_token.is_some(),
            },
        }),
    )
}

async fn get_faults(State(state): State<Shared>) -> Response {
    json_response(StatusCode::OK, &state.faults.config())
}

async fn put_faults(State(state): State<Shared>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let lang = Lang::of(&parts.headers);
    let body = match read_body(body, &parts.headers, &state.limits).await {
        Ok(body) => body,
        Err(error) => return body_error(error, lang),
    };
    // A wrong key or value changes nothing: the faults stay as they were, and the 422 names it
    // (in English: the admin routes are the mock's own, not the service's).
    let config = match FaultConfig::from_json(&body) {
        Ok(config) => config,
        Err(error) => {
            return ApiError::field(&error.field, Text::same(error.message)).respond(lang);
        }
    };
    match state.faults.set(config) {
        Ok(()) => json_response(StatusCode::OK, &state.faults.config()),
        Err(error) => ApiError::field(&error.field, Text::same(error.message)).respond(lang),
    }
}

async fn delete_faults(State(state): State<Shared>) -> Response {
    // Setting the empty configuration cannot fail validation.
    let _ = state.faults.set(FaultConfig::default());
    json_response(StatusCode::OK, &state.faults.config())
}

/// `GET /__admin/deliveries`: the delivery attempts. The tokens an `app.store.authorize` body
/// carries (`access_token`, `refresh_token`) are redacted unless `?reveal=tokens`: a log that is
/// printed or shared must not hand out an installation's tokens.
async fn get_deliveries(State(state): State<Shared>, request: Request) -> Response {
    let reveal = request.uri().query().is_some_and(|q| {
        form_urlencoded::parse(q.as_bytes()).any(|(k, v)| k == "reveal" && v == "tokens")
    });
    let mut attempts = state.dispatcher.attempts();
    if !reveal {
        for attempt in &mut attempts {
            if attempt.event == "app.store.authorize" {
                attempt.body = redact_tokens(&attempt.body);
            }
        }
    }
    json_response(StatusCode::OK, &attempts)
}

/// What an `app.store.authorize` delivery is shown as: its tokens `[redacted]`.
fn redact_tokens(body: &str) -> String {
    fn walk(value: &mut Value) {
        match value {
            Value::Object(map) => {
                for (key, inner) in map.iter_mut() {
                    if matches!(key.as_str(), "access_token" | "refresh_token") && inner.is_string()
                    {
                        *inner = Value::String("[redacted]".into());
                    } else {
                        walk(inner);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    match serde_json::from_str::<Value>(body) {
        Ok(mut value) => {
            walk(&mut value);
            value.to_string()
        }
        Err(_) => "[redacted: not JSON]".to_string(),
    }
}

async fn post_event(
    State(state): State<Shared>,
    State(engine): State<Arc<Engine>>,
    axum::extract::Path(event): axum::extract::Path<String>,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    let lang = Lang::of(&parts.headers);
    let body = match read_body(body, &parts.headers, &state.limits).await {
        Ok(body) => body,
        Err(error) => return body_error(error, lang),
    };
    let data = if body.iter().all(u8::is_ascii_whitespace) {
        json!({})
    } else {
        match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Object(map)) => Value::Object(map),
            _ => {
                return ApiError::bad_request(not_an_object()).respond(lang);
            }
        }
    };
    let known = crate::events::event_names(&engine);
    if event != "app.store.authorize" && !known.contains(&event) {
        let message = format!(
            "{event:?} is not an event of the document (the webhooks' events: {})",
            known.join(", ")
        );
        return ApiError::field("event", Text::same(message)).respond(lang);
    }
    state.emit(&event, &data);
    json_response(
        StatusCode::ACCEPTED,
        &json!({ "event": event, "data": data }),
    )
}

/// `The request body must be a JSON object.`
pub(crate) fn not_an_object() -> Text {
    Text::new(
        "The request body must be a JSON object.",
        "يجب أن يكون محتوى الطلب كائن JSON.",
    )
}

async fn token_endpoint(State(state): State<Shared>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    match read_body(body, &parts.headers, &state.limits).await {
        Ok(body) => state.oauth.token_request(&parts.headers, &body),
        Err(error) => body_error(error, Lang::of(&parts.headers)),
    }
}

/// `GET /oauth2/auth`: approves at once (see [`crate::oauth`]) and tells the webhooks
/// subscribed to `app.store.authorize` the installation's tokens.
async fn authorize_endpoint(State(state): State<Shared>, request: Request) -> Response {
    match state.oauth.authorize(request.uri().query().unwrap_or("")) {
        Authorization::Approved { location, event } => {
            state.emit("app.store.authorize", &event);
            found(&location)
        }
        Authorization::Refused(response) => response,
    }
}

async fn get_oauth(State(state): State<Shared>) -> Response {
    json_response(
        StatusCode::OK,
        &json!({
            "token_path": TOKEN_PATH,
            "authorize_path": AUTHORIZE_PATH,
            "refreshes": state.oauth.refreshes(),
            "rejected": state.oauth.rejected(),
            "authorizations": state.oauth.authorizations(),
            "code_exchanges": state.oauth.code_exchanges(),
        }),
    )
}

/// `GET /__admin/requests`: per `operationId`, the requests answered and the 429s among them.
async fn get_requests(State(state): State<Shared>) -> Response {
    json_response(StatusCode::OK, &state.request_counts())
}

/// `GET /__admin/journal`: the last requests the operations received, with their headers (the
/// token redacted), oldest first.
async fn get_drift(State(state): State<Shared>) -> Response {
    let report = state
        .proxy
        .as_ref()
        .map(crate::drift::Proxy::report)
        .unwrap_or_default();
    axum::response::IntoResponse::into_response(axum::Json(report))
}

async fn get_journal(State(state): State<Shared>) -> Response {
    json_response(StatusCode::OK, &state.journal.entries())
}

/// `DELETE /__admin/journal`: forgets them.
async fn delete_journal(State(state): State<Shared>) -> Response {
    state.journal.clear();
    json_response(StatusCode::OK, &state.journal.entries())
}

/// The body of `POST /__admin/oauth/install`.
#[derive(serde::Deserialize)]
struct AppStoreInstall {
    redirect_uri: String,
    #[serde(default)]
    merchant: Option<i64>,
}

/// `POST /__admin/oauth/install` `{"redirect_uri": ..., "merchant": ...}`: an installation started
/// from the app store (see `MockServer::install_from_app_store`); answers the callback URL the
/// merchant's browser is sent to, as `location`.
async fn post_app_store_install(State(state): State<Shared>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let lang = Lang::of(&parts.headers);
    let body = match read_body(body, &parts.headers, &state.limits).await {
        Ok(body) => body,
        Err(error) => return body_error(error, lang),
    };
    let install: AppStoreInstall = match serde_json::from_slice(&body) {
        Ok(install) => install,
        Err(error) => {
            return ApiError::field("redirect_uri", Text::same(error.to_string())).respond(lang);
        }
    };
    let merchant = install.merchant.unwrap_or_else(|| state.read().merchant_id);
    match state
        .oauth
        .install_from_app_store(&install.redirect_uri, merchant)
    {
        Ok(location) => json_response(
            StatusCode::OK,
            &json!({ "location": location, "merchant": merchant }),
        ),
        Err(message) => ApiError::field("redirect_uri", Text::same(message)).respond(lang),
    }
}

/// `DELETE /__admin/requests`: every count back to zero (between the phases of a test run).
async fn delete_requests(State(state): State<Shared>) -> Response {
    for counters in [&state.requests, &state.answered, &state.throttled] {
        for counter in counters.iter() {
            counter.store(0, Ordering::Relaxed);
        }
    }
    json_response(StatusCode::OK, &state.request_counts())
}

async fn post_expire_access_tokens(State(state): State<Shared>) -> Response {
    let expired = state.oauth.expire_access_tokens();
    json_response(StatusCode::OK, &json!({ "expired": expired }))
}

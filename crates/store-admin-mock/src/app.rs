//! Shared state, the router built from the document's operation table, and the auth and fault
//! middleware.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodFilter, MethodRouter, get};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use store_admin_client::{OPERATIONS, OperationMeta};

use crate::config::MockToken;
use crate::delivery::Dispatcher;
use crate::error::ApiError;
use crate::faults::{self, FaultConfig, FaultInjector};
use crate::oauth::{OAuth, TOKEN_PATH};
use crate::routes;
use crate::store::Store;
use crate::validate::BodySchemas;

/// The path prefix of every API operation.
pub const API_PREFIX: &str = "/admin/v2";

/// Everything a request handler can reach.
pub(crate) struct AppState {
    store: RwLock<Store>,
    /// Moves on each time the store is locked for writing (see [`AppState::write`]).
    generation: AtomicU64,
    /// Rendered 200 answers of GET operations, by path and query, with the generation they were
    /// rendered at: a list page is served again without filtering or serializing anything.
    responses: RwLock<HashMap<String, CachedResponse>>,
    pub tokens: Vec<MockToken>,
    pub oauth: OAuth,
    /// Requests received per operation, indexed like [`OPERATIONS`].
    pub requests: Box<[AtomicU64]>,
    /// The document's request body schemas, indexed like [`OPERATIONS`].
    pub bodies: BodySchemas,
    pub faults: FaultInjector,
    pub dispatcher: Arc<Dispatcher>,
    /// `http://127.0.0.1:PORT/admin/v2`.
    pub base_url: String,
}

impl AppState {
    pub fn new(
        store: Store,
        tokens: Vec<MockToken>,
        oauth: OAuth,
        faults: FaultInjector,
        dispatcher: Arc<Dispatcher>,
        base_url: String,
    ) -> Self {
        Self {
            store: RwLock::new(store),
            generation: AtomicU64::new(0),
            responses: RwLock::new(HashMap::new()),
            tokens,
            oauth,
            requests: OPERATIONS.iter().map(|_| AtomicU64::new(0)).collect(),
            bodies: BodySchemas::from_document(),
            faults,
            dispatcher,
            base_url,
        }
    }

    pub fn read(&self) -> RwLockReadGuard<'_, Store> {
        self.store.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// The store for a change. Every write moves the store's generation on, which invalidates
    /// the cached GET responses.
    pub fn write(&self) -> RwLockWriteGuard<'_, Store> {
        let guard = self.store.write().unwrap_or_else(PoisonError::into_inner);
        self.generation.fetch_add(1, Ordering::AcqRel);
        guard
    }

    /// Whether the bearer token `presented` may call an operation needing one of `required`:
    /// the configured tokens first, then the OAuth access tokens the token endpoint issued.
    pub fn authorize(&self, presented: Option<&str>, required: &[&str]) -> Result<(), ApiError> {
        let Some(presented) = presented else {
            return Err(ApiError::invalid_token());
        };
        if let Some(token) = self.tokens.iter().find(|t| t.matches(presented)) {
            return if token.grants_any(required) {
                Ok(())
            } else {
                Err(ApiError::missing_scope(required))
            };
        }
        self.oauth
            .check(presented, required)
            .unwrap_or_else(|| Err(ApiError::invalid_token()))
    }

    /// Delivers `event` to every webhook subscribed to it.
    pub fn emit(&self, event: &str, data: &Value) {
        let webhooks = self.read().webhooks.clone();
        self.dispatcher.dispatch(&webhooks, event, data);
    }
}

pub(crate) type Shared = Arc<AppState>;

/// A JSON response of `status` with `body`, after checking that `body` decodes as the document's
/// type `T` (the generated model type of the operation's response) and re-encoding it from `T`.
/// A mismatch is the mock's own bug: it answers 500 saying so, and tests catch it.
pub(crate) fn respond<T: DeserializeOwned + Serialize>(
    status: StatusCode,
    body: Value,
) -> Response {
    match serde_json::from_value::<T>(body) {
        Ok(typed) => json_response(status, &typed),
        Err(error) => {
            let message = format!(
                "the mock built a response that does not match the document's {}: {error}",
                std::any::type_name::<T>()
            );
            tracing::error!("{message}");
            ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "mock_error", message).into_response()
        }
    }
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

/// Parses a JSON request body into an object; an empty body is an empty object.
pub(crate) fn json_object(body: &Bytes) -> Result<serde_json::Map<String, Value>, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(serde_json::Map::new());
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ApiError::bad_request(
            "The request body must be a JSON object.",
        )),
        Err(error) => Err(ApiError::bad_request(format!(
            "The request body is not valid JSON: {error}"
        ))),
    }
}

/// Like [`json_object`], for an operation whose document marks the body `required`: an empty
/// body is a 400 rather than an empty object.
pub(crate) fn required_json_object(
    body: &Bytes,
) -> Result<serde_json::Map<String, Value>, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request("The request body is required."));
    }
    json_object(body)
}

#[derive(Clone)]
struct OpContext {
    state: Shared,
    op: &'static OperationMeta,
    /// The operation's index in [`OPERATIONS`] (and in [`AppState::requests`]).
    index: usize,
}

fn bearer(request: &Request) -> Option<&str> {
    let value = request
        .headers()
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .trim();
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// A rendered answer of a GET operation.
pub(crate) struct CachedResponse {
    generation: u64,
    body: Bytes,
}

/// Most cached responses kept at once (the cache is emptied when it is full).
const RESPONSE_CACHE_SIZE: usize = 4096;

impl AppState {
    fn cached(&self, key: &str) -> Option<Response> {
        let responses = self
            .responses
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        let cached = responses.get(key)?;
        (cached.generation == self.generation.load(Ordering::Acquire))
            .then(|| json_bytes_response(StatusCode::OK, cached.body.clone()))
    }

    fn remember(&self, key: String, generation: u64, body: Bytes) {
        let mut responses = self
            .responses
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if responses.len() >= RESPONSE_CACHE_SIZE {
            responses.clear();
        }
        responses.insert(key, CachedResponse { generation, body });
    }
}

/// Runs a GET handler through the response cache. A response is kept only if no write lock was
/// taken while it was rendered (the generation did not move), so it is exactly what the handler
/// would render again until the next write.
async fn cached_get(ctx: &OpContext, request: Request, next: Next) -> Response {
    let key = request
        .uri()
        .path_and_query()
        .map_or_else(String::new, |p| p.as_str().to_owned());
    if let Some(response) = ctx.state.cached(&key) {
        return response;
    }
    let before = ctx.state.generation.load(Ordering::Acquire);
    let response = next.run(request).await;
    if response.status() != StatusCode::OK || ctx.state.generation.load(Ordering::Acquire) != before
    {
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "mock_error",
            "the mock could not read its own response",
        )
        .into_response();
    };
    ctx.state.remember(key, before, bytes.clone());
    Response::from_parts(parts, Body::from(bytes))
}

/// Largest request body the mock reads (as axum's default limit).
const BODY_LIMIT: usize = 2 * 1024 * 1024;

/// Checks the bearer token of `request` against the operation's scopes and its JSON body against
/// the document's schema, then runs the handler.
async fn authorized(ctx: &OpContext, request: Request, next: Next) -> Response {
    if let Err(error) = ctx.state.authorize(bearer(&request), ctx.op.scopes) {
        return error.into_response();
    }
    if ctx.op.method == "GET" {
        return cached_get(ctx, request, next).await;
    }
    if !ctx.state.bodies.has(ctx.index) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, BODY_LIMIT).await else {
        return ApiError::bad_request("The request body is too large or could not be read.")
            .into_response();
    };
    if let Err(error) = ctx.state.bodies.check(ctx.index, &bytes) {
        return error.into_response();
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// A handle on the connection a request arrived on, used to drop it without an answer.
#[derive(Clone)]
pub(crate) struct ConnectionKill(pub Arc<tokio::sync::Notify>);

/// The one middleware of every operation: counts the request, injects the faults in force (when
/// there are none, this is a single atomic load), then checks auth and runs the handler.
async fn gate(State(ctx): State<OpContext>, request: Request, next: Next) -> Response {
    if let Some(counter) = ctx.state.requests.get(ctx.index) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
    if ctx.state.faults.is_idle() {
        return authorized(&ctx, request, next).await;
    }
    let decision = ctx.state.faults.decide(ctx.op.operation_id);
    if let Some(latency) = decision.latency {
        tokio::time::sleep(latency).await;
    }
    let rate = decision.rate_limit.as_ref().map(|(limiter, per_minute)| {
        let key = bearer(&request).unwrap_or("anonymous");
        faults::check_rate_limit(limiter, *per_minute, key)
    });
    if let Some(outcome) = &rate
        && outcome.retry_after.is_some()
    {
        let mut response = faults::too_many_requests().into_response();
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
        Some(status) => ApiError::server(status).into_response(),
        None => authorized(&ctx, request, next).await,
    };
    if let Some(outcome) = &rate {
        outcome.apply(&mut response);
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

fn method_filter(method: &str) -> Option<MethodFilter> {
    Method::from_bytes(method.as_bytes())
        .ok()
        .and_then(|m| MethodFilter::try_from(m).ok())
}

/// Builds the whole application: every operation of [`OPERATIONS`] under `/admin/v2`, the admin
/// routes under `/__admin`, and enveloped 404/405 answers.
pub(crate) fn router(state: Shared) -> Router {
    let mut api: Router<Shared> = Router::new();
    for (index, op) in OPERATIONS.iter().enumerate() {
        let Some(filter) = method_filter(op.method) else {
            continue;
        };
        let method_router: MethodRouter<Shared> = routes::handler(op.operation_id, filter);
        let ctx = OpContext {
            state: state.clone(),
            op,
            index,
        };
        let method_router = method_router.layer(from_fn_with_state(ctx, gate));
        api = api.route(op.path, method_router);
    }
    let admin: Router<Shared> = Router::new()
        .route(
            "/faults",
            get(get_faults).put(put_faults).delete(delete_faults),
        )
        .route("/deliveries", get(get_deliveries))
        .route("/events/{event}", axum::routing::post(post_event))
        .route("/oauth", get(get_oauth))
        .route(
            "/oauth/expire-access-tokens",
            axum::routing::post(post_expire_access_tokens),
        );
    Router::new()
        .nest(API_PREFIX, api)
        .nest("/__admin", admin)
        .route(TOKEN_PATH, axum::routing::post(token_endpoint))
        .route("/", get(index))
        .fallback(|| async { ApiError::not_found() })
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                "The method is not allowed.",
            )
        })
        .with_state(state)
}

async fn index(State(state): State<Shared>) -> Response {
    let operations: Vec<Value> = OPERATIONS
        .iter()
        .map(|op| serde_json::json!({"operation_id": op.operation_id, "method": op.method, "path": op.path}))
        .collect();
    let shipping_rule_ids: Vec<i64> = state.read().shipping_rules.iter().map(|r| r.id).collect();
    json_response(
        StatusCode::OK,
        &serde_json::json!({
            "base_url": state.base_url,
            "operations": operations,
            "shipping_rule_ids": shipping_rule_ids,
            "oauth_token_url": TOKEN_PATH,
            "admin": {
                "faults": "/__admin/faults",
                "deliveries": "/__admin/deliveries",
                "events": "/__admin/events/{event}",
                "oauth": "/__admin/oauth",
                "expire_access_tokens": "/__admin/oauth/expire-access-tokens",
            },
        }),
    )
}

async fn get_faults(State(state): State<Shared>) -> Response {
    json_response(StatusCode::OK, &state.faults.config())
}

async fn put_faults(State(state): State<Shared>, body: Bytes) -> Response {
    let config: FaultConfig = match serde_json::from_slice(&body) {
        Ok(config) => config,
        Err(error) => return ApiError::field("faults", error.to_string()).into_response(),
    };
    match state.faults.set(config) {
        Ok(()) => json_response(StatusCode::OK, &state.faults.config()),
        Err(error) => ApiError::field(&error.field, error.message).into_response(),
    }
}

async fn delete_faults(State(state): State<Shared>) -> Response {
    // Setting the empty configuration cannot fail validation.
    let _ = state.faults.set(FaultConfig::default());
    json_response(StatusCode::OK, &state.faults.config())
}

async fn get_deliveries(State(state): State<Shared>) -> Response {
    json_response(StatusCode::OK, &state.dispatcher.attempts())
}

async fn post_event(
    State(state): State<Shared>,
    axum::extract::Path(event): axum::extract::Path<String>,
    body: Bytes,
) -> Response {
    let data = match json_object(&body) {
        Ok(map) => Value::Object(map),
        Err(error) => return error.into_response(),
    };
    state.emit(&event, &data);
    json_response(
        StatusCode::ACCEPTED,
        &serde_json::json!({ "event": event, "data": data }),
    )
}

async fn token_endpoint(
    State(state): State<Shared>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Response {
    state.oauth.token_request(&headers, &body)
}

async fn get_oauth(State(state): State<Shared>) -> Response {
    json_response(
        StatusCode::OK,
        &serde_json::json!({ "token_path": TOKEN_PATH, "refreshes": state.oauth.refreshes() }),
    )
}

async fn post_expire_access_tokens(State(state): State<Shared>) -> Response {
    let expired = state.oauth.expire_access_tokens();
    json_response(StatusCode::OK, &serde_json::json!({ "expired": expired }))
}

//! Fault injection: latency, a per-token leaky-bucket rate limit, server errors, dropped connections,
//! truncated bodies, slow bodies, and list answers that lie (undecodable records, a false
//! `totalPages`), each optionally limited to some operation ids.
//!
//! Decisions are drawn from one seeded RNG behind a mutex, in request arrival order, so a run that
//! sends the same requests in the same order sees the same faults.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::error::ApiError;

/// Every fault the mock can inject. Each is off when absent; `operations` (operation ids of the
/// document) limits a fault to those operations, an empty list meaning every operation.
///
/// It is also the JSON body of `GET`/`PUT /__admin/faults`:
///
/// ```json
/// {"latency": {"millis": 50},
///  "rate_limit": {"per_minute": 120},
///  "errors": {"rate": 0.1, "statuses": [500, 502, 503], "operations": ["listProductQuantities"]},
///  "drop_connection": {"rate": 0.05},
///  "truncate_body": {"rate": 0.05, "times": 1},
///  "slow_body": {"chunk_bytes": 64, "delay_millis": 20},
///  "corrupt_records": {"every": 100, "operations": ["list_orders"]},
///  "total_pages": {"claim": 1000000000000000}}
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FaultConfig {
    /// Added latency before the request is handled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencyFault>,
    /// A leaky-bucket rate limit per bearer token, answering 429 when spent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<RateLimitFault>,
    /// A share of requests answered with a server error instead of being handled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<ErrorFault>,
    /// A share of requests whose connection is closed without any response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drop_connection: Option<ChanceFault>,
    /// A share of responses whose body stops halfway (Content-Length announces the whole body).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncate_body: Option<ChanceFault>,
    /// A share of responses whose body is sent in small chunks with a pause between them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slow_body: Option<SlowBodyFault>,
    /// Every `every`-th record of a list answer made undecodable (by its position in the whole
    /// list, so the same records whatever the order pages are asked in).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corrupt_records: Option<CorruptRecordsFault>,
    /// List answers whose `pagination.totalPages` claims this many pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_pages: Option<TotalPagesFault>,
}

/// Added latency.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LatencyFault {
    /// Milliseconds to wait before handling each request.
    pub millis: u64,
    /// Operation ids this applies to (empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operations: Vec<String>,
}

/// A leaky-bucket rate limit per token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateLimitFault {
    /// Requests per minute, which is also the bucket's size (the service's Plus plan: 120).
    #[serde(default = "default_per_minute")]
    pub per_minute: u32,
    /// Operation ids this applies to (empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operations: Vec<String>,
}

impl Default for RateLimitFault {
    fn default() -> Self {
        Self {
            per_minute: default_per_minute(),
            operations: Vec::new(),
        }
    }
}

fn default_per_minute() -> u32 {
    120
}

/// Injected server errors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorFault {
    /// Share of matching requests answered with an error, from 0.0 to 1.0.
    pub rate: f64,
    /// Statuses to pick from, uniformly (default 500, 502, 503).
    #[serde(default = "default_statuses")]
    pub statuses: Vec<u16>,
    /// Inject at most this many times (then stop), counted from the last configuration change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u64>,
    /// Operation ids this applies to (empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operations: Vec<String>,
}

fn default_statuses() -> Vec<u16> {
    vec![500, 502, 503]
}

/// A fault that hits a share of matching requests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChanceFault {
    /// Share of matching requests hit, from 0.0 to 1.0.
    pub rate: f64,
    /// Inject at most this many times (then stop), counted from the last configuration change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u64>,
    /// Operation ids this applies to (empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operations: Vec<String>,
}

impl ChanceFault {
    /// Hits every matching request.
    pub fn always() -> Self {
        Self {
            rate: 1.0,
            times: None,
            operations: Vec::new(),
        }
    }
}

/// A body sent slowly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlowBodyFault {
    /// Bytes per chunk.
    pub chunk_bytes: usize,
    /// Pause before each chunk after the first.
    pub delay_millis: u64,
    /// Share of matching responses sent slowly (default 1.0).
    #[serde(default = "one")]
    pub rate: f64,
    /// Operation ids this applies to (empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operations: Vec<String>,
}

fn one() -> f64 {
    1.0
}

/// Undecodable records in list answers: the record at every `every`-th position of the list
/// (from 1) gets an `id` that is an object (`{"corrupt": ...}`), which no client reads as an id;
/// a record without an `id` is replaced by a string.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorruptRecordsFault {
    /// One record in this many (1: every record).
    pub every: u64,
    /// Operation ids this applies to (empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operations: Vec<String>,
}

/// A `pagination.totalPages` that lies: every list answer claims `claim` pages, whatever its
/// records (which end where the collection does, with a short or empty page).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TotalPagesFault {
    /// The page count every list answer claims.
    pub claim: u64,
    /// Operation ids this applies to (empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operations: Vec<String>,
}

/// A fault configuration that makes no sense.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid fault configuration: {field}: {message}")]
pub struct FaultConfigError {
    /// The offending field, e.g. `errors.rate`.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

fn bad(field: &str, message: &str) -> FaultConfigError {
    FaultConfigError {
        field: field.to_owned(),
        message: message.to_owned(),
    }
}

fn check_rate(field: &str, rate: f64) -> Result<(), FaultConfigError> {
    if (0.0..=1.0).contains(&rate) {
        Ok(())
    } else {
        Err(bad(field, "must be between 0.0 and 1.0"))
    }
}

impl FaultConfig {
    /// A configuration from its JSON (the body of `PUT /__admin/faults`, `--faults`), checked
    /// ([`FaultConfig::validate`]). An unknown key or a wrong value is named by its path
    /// (`errors.rat`), with the keys that are known.
    pub fn from_json(bytes: &[u8]) -> Result<Self, FaultConfigError> {
        let mut deserializer = serde_json::Deserializer::from_slice(bytes);
        let config: FaultConfig =
            serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
                let path = error.path().to_string();
                let text = error.into_inner().to_string();
                let message = match text.rfind(" at line ") {
                    Some(at) => text[..at].to_owned(),
                    None => text,
                };
                let unknown = message
                    .strip_prefix("unknown field `")
                    .and_then(|rest| rest.split('`').next())
                    .map(str::to_owned);
                let field = match (unknown, path.as_str()) {
                    (Some(key), "." | "") => key,
                    (Some(key), path) if !path.ends_with(key.as_str()) => format!("{path}.{key}"),
                    (_, "." | "") => "faults".to_owned(),
                    (_, path) => path.to_owned(),
                };
                FaultConfigError { field, message }
            })?;
        deserializer
            .end()
            .map_err(|e| bad("faults", &format!("more after the JSON object: {e}")))?;
        config.validate()?;
        Ok(config)
    }

    /// No faults at all.
    pub fn none() -> Self {
        Self::default()
    }

    /// Checks rates, statuses and sizes.
    pub fn validate(&self) -> Result<(), FaultConfigError> {
        if let Some(limit) = &self.rate_limit
            && limit.per_minute == 0
        {
            return Err(bad("rate_limit.per_minute", "must be at least 1"));
        }
        if let Some(errors) = &self.errors {
            check_rate("errors.rate", errors.rate)?;
            if errors.statuses.is_empty() {
                return Err(bad("errors.statuses", "must name at least one status"));
            }
            if errors.statuses.iter().any(|s| !(500..=599).contains(s)) {
                return Err(bad("errors.statuses", "must be 5xx statuses"));
            }
        }
        if let Some(drop) = &self.drop_connection {
            check_rate("drop_connection.rate", drop.rate)?;
        }
        if let Some(truncate) = &self.truncate_body {
            check_rate("truncate_body.rate", truncate.rate)?;
        }
        if self.corrupt_records.as_ref().is_some_and(|c| c.every == 0) {
            return Err(bad("corrupt_records.every", "must be at least 1"));
        }
        if let Some(slow) = &self.slow_body {
            check_rate("slow_body.rate", slow.rate)?;
            if slow.chunk_bytes == 0 {
                return Err(bad("slow_body.chunk_bytes", "must be at least 1"));
            }
        }
        Ok(())
    }
}

fn applies(operations: &[String], operation_id: &str) -> bool {
    operations.is_empty() || operations.iter().any(|o| o == operation_id)
}

type Limiter =
    RateLimiter<String, DefaultKeyedStateStore<String>, DefaultClock, StateInformationMiddleware>;

struct Runtime {
    config: Arc<FaultConfig>,
    limiter: Option<Arc<Limiter>>,
    used: HashMap<&'static str, u64>,
    rng: StdRng,
}

/// What the fault layer decided for one request.
#[derive(Debug, Default)]
pub(crate) struct Decision {
    pub latency: Option<Duration>,
    pub rate_limit: Option<(Arc<Limiter>, u32)>,
    pub error: Option<StatusCode>,
    pub drop: bool,
    pub truncate: bool,
    pub slow: Option<(usize, Duration)>,
    /// A list answer's rewrite: undecodable records, a false page count.
    pub list: ListLie,
}

/// How a list answer lies ([`CorruptRecordsFault`], [`TotalPagesFault`]).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct ListLie {
    pub corrupt_every: Option<u64>,
    pub total_pages: Option<u64>,
}

impl ListLie {
    pub fn is_none(&self) -> bool {
        self.corrupt_every.is_none() && self.total_pages.is_none()
    }

    /// Rewrites a list answer's JSON body (one that has `data` and `pagination`); any other body
    /// is returned as it is.
    pub fn apply(&self, body: Bytes) -> Bytes {
        let Ok(serde_json::Value::Object(mut answer)) = serde_json::from_slice(&body) else {
            return body;
        };
        let Some(serde_json::Value::Object(pagination)) = answer.get_mut("pagination") else {
            return body;
        };
        let number = |p: &serde_json::Map<String, serde_json::Value>, key: &str| {
            p.get(key).and_then(serde_json::Value::as_u64).unwrap_or(0)
        };
        let first = number(pagination, "currentPage")
            .saturating_sub(1)
            .saturating_mul(number(pagination, "perPage"));
        if let Some(claim) = self.total_pages {
            pagination.insert("totalPages".into(), claim.into());
        }
        if let (Some(every), Some(serde_json::Value::Array(records))) =
            (self.corrupt_every, answer.get_mut("data"))
        {
            for (index, record) in records.iter_mut().enumerate() {
                let position = first.saturating_add(index as u64 + 1);
                if position % every.max(1) != 0 {
                    continue;
                }
                let corrupt = serde_json::json!({"corrupt": format!("record {position}")});
                match record {
                    serde_json::Value::Object(fields) if fields.contains_key("id") => {
                        fields.insert("id".into(), corrupt);
                    }
                    other => {
                        *other = serde_json::Value::String(format!("corrupt record {position}"))
                    }
                }
            }
        }
        serde_json::to_vec(&answer).map(Bytes::from).unwrap_or(body)
    }
}

/// The run-time fault state of one server.
pub(crate) struct FaultInjector {
    runtime: Mutex<Runtime>,
    snapshot: RwLock<Arc<FaultConfig>>,
    idle: AtomicBool,
}

fn build_limiter(config: &FaultConfig) -> Option<Arc<Limiter>> {
    let limit = config.rate_limit.as_ref()?;
    let per_minute = NonZeroU32::new(limit.per_minute)?;
    Some(Arc::new(
        RateLimiter::keyed(Quota::per_minute(per_minute)).with_middleware(),
    ))
}

impl FaultInjector {
    pub fn new(config: FaultConfig, seed: u64) -> Self {
        let config = Arc::new(config);
        Self {
            runtime: Mutex::new(Runtime {
                limiter: build_limiter(&config),
                config: config.clone(),
                used: HashMap::new(),
                rng: StdRng::seed_from_u64(seed ^ 0x6661_756c_7473),
            }),
            idle: AtomicBool::new(*config == FaultConfig::default()),
            snapshot: RwLock::new(config),
        }
    }

    pub fn config(&self) -> FaultConfig {
        self.snapshot
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .clone()
    }

    pub fn set(&self, config: FaultConfig) -> Result<(), FaultConfigError> {
        config.validate()?;
        let config = Arc::new(config);
        let mut runtime = self.runtime.lock().unwrap_or_else(PoisonError::into_inner);
        if runtime.config.rate_limit != config.rate_limit {
            runtime.limiter = build_limiter(&config);
        }
        runtime.config = config.clone();
        runtime.used.clear();
        self.idle
            .store(*config == FaultConfig::default(), Ordering::Release);
        *self
            .snapshot
            .write()
            .unwrap_or_else(PoisonError::into_inner) = config;
        Ok(())
    }

    /// Whether no fault is configured (one atomic load: this is on every request's path).
    pub fn is_idle(&self) -> bool {
        self.idle.load(Ordering::Acquire)
    }

    /// Draws every decision for one request, in a fixed order, under one lock.
    pub fn decide(&self, operation_id: &str) -> Decision {
        let mut guard = self.runtime.lock().unwrap_or_else(PoisonError::into_inner);
        let runtime = &mut *guard;
        let config = runtime.config.clone();
        let mut decision = Decision::default();
        if let Some(latency) = &config.latency
            && applies(&latency.operations, operation_id)
        {
            decision.latency = Some(Duration::from_millis(latency.millis));
        }
        if let (Some(limit), Some(limiter)) = (&config.rate_limit, &runtime.limiter)
            && applies(&limit.operations, operation_id)
        {
            decision.rate_limit = Some((limiter.clone(), limit.per_minute));
        }
        if let Some(drop) = &config.drop_connection
            && applies(&drop.operations, operation_id)
        {
            decision.drop = draw(runtime, "drop", drop.rate, drop.times);
        }
        if let Some(errors) = &config.errors
            && applies(&errors.operations, operation_id)
            && !decision.drop
            && draw(runtime, "errors", errors.rate, errors.times)
        {
            let index = runtime.rng.random_range(0..errors.statuses.len());
            let status = errors.statuses.get(index).copied().unwrap_or(500);
            decision.error =
                Some(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR));
        }
        if let Some(truncate) = &config.truncate_body
            && applies(&truncate.operations, operation_id)
        {
            decision.truncate = draw(runtime, "truncate", truncate.rate, truncate.times);
        }
        if let Some(slow) = &config.slow_body
            && applies(&slow.operations, operation_id)
            && draw(runtime, "slow", slow.rate, None)
        {
            decision.slow = Some((slow.chunk_bytes, Duration::from_millis(slow.delay_millis)));
        }
        if let Some(corrupt) = &config.corrupt_records
            && applies(&corrupt.operations, operation_id)
        {
            decision.list.corrupt_every = Some(corrupt.every);
        }
        if let Some(total) = &config.total_pages
            && applies(&total.operations, operation_id)
        {
            decision.list.total_pages = Some(total.claim);
        }
        decision
    }
}

fn draw(runtime: &mut Runtime, kind: &'static str, rate: f64, times: Option<u64>) -> bool {
    let roll: f64 = runtime.rng.random();
    let hit = rate >= 1.0 || roll < rate;
    if !hit {
        return false;
    }
    let used = runtime.used.entry(kind).or_insert(0);
    if times.is_some_and(|max| *used >= max) {
        return false;
    }
    *used += 1;
    true
}

/// The outcome of the rate limit for one request: headers to add, and whether it is refused.
pub(crate) struct RateOutcome {
    pub limit: u32,
    pub remaining: u32,
    pub reset_epoch: u64,
    pub retry_after: Option<u64>,
}

pub(crate) fn check_rate_limit(limiter: &Limiter, per_minute: u32, key: &str) -> RateOutcome {
    let now_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let cell = 60.0 / f64::from(per_minute.max(1));
    match limiter.check_key(&key.to_owned()) {
        Ok(snapshot) => {
            let remaining = snapshot.remaining_burst_capacity();
            let empty_for = f64::from(per_minute.saturating_sub(remaining)) * cell;
            RateOutcome {
                limit: per_minute,
                remaining,
                reset_epoch: now_epoch + empty_for.ceil() as u64,
                retry_after: None,
            }
        }
        Err(not_until) => {
            let wait = not_until.wait_time_from(limiter.clock().now());
            let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let secs = secs.max(1);
            RateOutcome {
                limit: per_minute,
                remaining: 0,
                reset_epoch: now_epoch + secs,
                retry_after: Some(secs),
            }
        }
    }
}

impl RateOutcome {
    pub fn apply(&self, response: &mut Response) {
        let headers = response.headers_mut();
        headers.insert("x-ratelimit-limit", HeaderValue::from(self.limit));
        headers.insert("x-ratelimit-remaining", HeaderValue::from(self.remaining));
        headers.insert("x-ratelimit-reset", HeaderValue::from(self.reset_epoch));
        if let Some(retry_after) = self.retry_after {
            headers.insert("retry-after", HeaderValue::from(retry_after));
        }
    }
}

/// A response whose body stops halfway through the announced Content-Length.
pub(crate) fn truncate(response: Response, bytes: Bytes) -> Response {
    let (mut parts, _) = response.into_parts();
    let full = bytes.len();
    let half = bytes.slice(..full / 2);
    parts.headers.insert(
        axum::http::header::CONTENT_LENGTH,
        HeaderValue::from(full.max(1)),
    );
    // The pause lets hyper flush the head and the first half before the error aborts the connection.
    let rest = futures::stream::once(async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        Err::<Bytes, _>(std::io::Error::other("body truncated by fault injection"))
    });
    let stream = futures::stream::StreamExt::chain(futures::stream::iter([Ok(half)]), rest);
    Response::from_parts(parts, Body::from_stream(stream))
}

/// A response whose body comes in `chunk` byte pieces, `delay` apart.
pub(crate) fn slow(response: Response, bytes: Bytes, chunk: usize, delay: Duration) -> Response {
    let (mut parts, _) = response.into_parts();
    parts.headers.insert(
        axum::http::header::CONTENT_LENGTH,
        HeaderValue::from(bytes.len()),
    );
    let stream = futures::stream::unfold((bytes, true), move |(rest, first)| async move {
        if rest.is_empty() {
            return None;
        }
        if !first {
            tokio::time::sleep(delay).await;
        }
        let mut rest = rest;
        let piece = rest.split_to(chunk.min(rest.len()));
        Some((Ok::<_, std::io::Error>(piece), (rest, false)))
    });
    Response::from_parts(parts, Body::from_stream(stream))
}

/// The 429 answer.
pub(crate) fn too_many_requests() -> ApiError {
    ApiError::too_many_requests()
}

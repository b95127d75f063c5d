//! [`RedisRateLimiter`]: one store's leaky bucket in Redis, shared by every process calling it.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use http::{HeaderMap, StatusCode};
use redis::aio::ConnectionManager;
use tokio::time::Instant;

use super::learn::{self, Answer, Bounds, Known, Rate};
use super::{Plan, RateLimit, RateLimitHeaders, RateLimiter, RateLimiters};

/// The bucket's clock: milliseconds of Redis's own clock since 2023-11-14, so that every process
/// reads one clock and the numbers keep microseconds within Lua's 14 significant digits; and the
/// bucket's level now (`KEYS[1]`: the level when last counted, drained one request per
/// `interval` ms since).
const NOW: &str = r"
local t = redis.call('TIME')
local now = (tonumber(t[1]) - 1700000000) * 1000 + tonumber(t[2]) / 1000
local function level_now(interval)
  local state = redis.call('HMGET', KEYS[1], 'level', 'at')
  local level = tonumber(state[1]) or 0
  local at = tonumber(state[2]) or now
  if now > at then
    level = math.max(0, level - (now - at) / interval)
  end
  return level
end
";

/// The leaky bucket, counted in requests: `KEYS[1]` holds the bucket's level (`level`, in
/// requests) when it was last counted (`at`), draining one request per interval since; `KEYS[2]`
/// a pause the server asked for; `KEYS[3]` the rate the fleet learned from the store
/// (`"<interval ms> <burst>"`). Counting requests rather than a scheduling time keeps the count
/// right when the rate changes: requests sent before the store's rate was known still count one
/// each. `ARGV[1]` is the interval (ms) and `ARGV[2]` the burst this process keeps to; `ARGV[3]`
/// is `1` when this process learned them itself, else the fleet's learned rate applies if there
/// is one, within the ceiling `ARGV[4]` (ms, `0` for none) and `ARGV[5]` (burst). `ARGV[6]`, if
/// not empty, is how many requests the store's last answer to this process says are still in its
/// bucket: the level is at least that. Answers 0 when the request may go (and counts it), else
/// how many ms to wait.
const ACQUIRE_SCRIPT: &str = r"
local pause = tonumber(redis.call('GET', KEYS[2]))
if pause and pause > now then
  return math.ceil(pause - now)
end
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
if ARGV[3] ~= '1' then
  local learned = redis.call('GET', KEYS[3])
  if learned then
    local i, b = string.match(learned, '^([%d%.]+) (%d+)$')
    if i then
      interval = math.max(tonumber(i), tonumber(ARGV[4]))
      burst = math.min(tonumber(b), tonumber(ARGV[5]))
    end
  end
end
local level = level_now(interval)
if ARGV[6] ~= '' then
  level = math.max(level, tonumber(ARGV[6]))
end
if level + 1 > burst then
  return math.max(1, math.ceil((level + 1 - burst) * interval))
end
level = level + 1
redis.call('HSET', KEYS[1], 'level', level, 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(level * interval) + 1000)
return 0
";

/// Keeps the shared bucket in step with the server: at least `ARGV[1]` requests in it (if not
/// empty: the store's backlog, [`learn::backlog`]), draining one per `ARGV[4]` ms; no request
/// for `ARGV[2]` ms (if not empty); and the fleet's learned rate becomes `ARGV[3]` (if not
/// empty) for an hour. Only ever makes the bucket stricter.
const OBSERVE_SCRIPT: &str = r"
if ARGV[1] ~= '' then
  local interval = tonumber(ARGV[4])
  local floor = tonumber(ARGV[1])
  local level = level_now(interval)
  if floor > level then
    redis.call('HSET', KEYS[1], 'level', floor, 'at', now)
    redis.call('PEXPIRE', KEYS[1], math.ceil(floor * interval) + 1000)
  end
end
if ARGV[2] ~= '' then
  local wait = tonumber(ARGV[2])
  local current = tonumber(redis.call('GET', KEYS[2])) or 0
  if now + wait > current then
    redis.call('SET', KEYS[2], now + wait, 'PX', math.ceil(wait) + 1000)
  end
end
if ARGV[3] ~= '' then
  redis.call('SET', KEYS[3], ARGV[3], 'PX', 3600000)
end
return 0
";

/// How long the limiter keeps to its local fallback after Redis failed, before asking it again.
const RETRY_REDIS_AFTER: Duration = Duration::from_secs(5);

/// One merchant store's leaky bucket (GCRA) in Redis, so that every process calling the store
/// together stays within its rate: each request is counted by one script call
/// (`store-admin:rate:{merchant}`), on Redis's clock. Kept in step with `X-RateLimit-Remaining`,
/// `X-RateLimit-Reset` and `Retry-After` like the local [`RateLimit`].
///
/// It learns the store's rate as the local limiter does ([`learn`]): from `X-RateLimit-Limit`, and
/// from a 429's `Retry-After`. What one process learns is written to Redis
/// (`store-admin:rate:{merchant}:learned`, for an hour), so a process that has not heard from the
/// store yet keeps to the fleet's rate from its first request, and the backlog an answer reveals
/// (requests of other processes, or sent before the rate was known) fills the shared bucket.
///
/// If Redis cannot be reached, requests go through a local [`RateLimit`] at a share of the plan
/// (by default a quarter: set it to one over the number of processes), logged once; Redis is
/// asked again every 5 s, never in a loop.
pub struct RedisRateLimiter {
    conn: ConnectionManager,
    key: String,
    pause_key: String,
    learned_key: String,
    bounds: Bounds,
    heard: Mutex<Heard>,
    max_pause: Duration,
    fallback: RateLimit,
    redis_down_until: Mutex<Option<Instant>>,
    falling_back: AtomicBool,
}

impl std::fmt::Debug for RedisRateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisRateLimiter")
            .field("key", &self.key)
            .field("known", &self.known())
            .field("falling_back", &self.falling_back.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// What this process heard from the store.
#[derive(Debug, Clone, Copy)]
struct Heard {
    /// The store's rate as far as this process knows.
    known: Known,
    /// When the store's bucket drains, by its last answer to this process ([`learn::backlog`]).
    drains_at: Option<Instant>,
}

/// A rate in the Lua scripts' terms: the interval in milliseconds and the burst.
fn lua_rate(rate: Rate) -> (f64, u32) {
    (rate.interval.as_secs_f64() * 1000.0, rate.burst.get())
}

impl RedisRateLimiter {
    fn script(&self, body: &str) -> redis::Script {
        redis::Script::new(&format!("{NOW}{body}"))
    }

    /// What this process knows of the store's rate now.
    pub fn known(&self) -> Known {
        self.heard().known
    }

    fn heard(&self) -> Heard {
        *self.heard.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether Redis is to be asked now (it did not fail in the last few seconds).
    fn redis_usable(&self) -> bool {
        let down = self
            .redis_down_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        down.is_none_or(|until| Instant::now() >= until)
    }

    fn redis_failed(&self, error: &redis::RedisError) {
        *self
            .redis_down_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(Instant::now() + RETRY_REDIS_AFTER);
        if !self.falling_back.swap(true, Ordering::AcqRel) {
            tracing::warn!(
                %error,
                key = %self.key,
                per_minute = self.fallback.capacity().get(),
                "Redis cannot be reached: rate limiting in this process alone, at its share of the plan"
            );
        }
    }

    fn redis_answered(&self) {
        if self.falling_back.swap(false, Ordering::AcqRel) {
            tracing::info!(key = %self.key, "Redis answers again: the shared rate limit applies");
        }
    }
}

#[async_trait]
impl RateLimiter for RedisRateLimiter {
    async fn acquire(&self) {
        let script = self.script(ACQUIRE_SCRIPT);
        loop {
            let Heard { known, drains_at } = self.heard();
            let Some(rate) = known.rate() else {
                // The store sends no rate-limit headers and refused nothing: nothing to keep to.
                return;
            };
            if !self.redis_usable() {
                self.fallback.acquire().await;
                return;
            }
            let (interval_ms, burst) = lua_rate(rate);
            let (ceiling_ms, ceiling_burst) = self.bounds.ceiling.map_or((0.0, u32::MAX), lua_rate);
            // The requests still in the store's bucket by its last answer to this process.
            let floor = drains_at
                .map(|at| at.saturating_duration_since(Instant::now()))
                .filter(|left| !left.is_zero())
                .map(|left| format!("{:.3}", left.as_secs_f64() / rate.interval.as_secs_f64()))
                .unwrap_or_default();
            let mut conn = self.conn.clone();
            let answer: redis::RedisResult<i64> = script
                .key(&self.key)
                .key(&self.pause_key)
                .key(&self.learned_key)
                .arg(interval_ms)
                .arg(burst)
                .arg(if matches!(known, Known::Learned(_)) {
                    "1"
                } else {
                    "0"
                })
                .arg(ceiling_ms)
                .arg(ceiling_burst)
                .arg(floor)
                .invoke_async(&mut conn)
                .await;
            match answer {
                Ok(0) => {
                    self.redis_answered();
                    return;
                }
                Ok(wait_ms) => {
                    self.redis_answered();
                    let wait = Duration::from_millis(wait_ms.unsigned_abs()).min(self.max_pause);
                    tokio::time::sleep(wait).await;
                }
                Err(error) => {
                    self.redis_failed(&error);
                    self.fallback.acquire().await;
                    return;
                }
            }
        }
    }

    fn observe(&self, headers: &HeaderMap) {
        self.observe_answer(StatusCode::OK, headers, false);
    }

    fn observe_answer(&self, status: StatusCode, headers: &HeaderMap, own_bucket: bool) {
        if own_bucket {
            return;
        }
        // The local fallback always follows the server, so it is right the moment Redis fails.
        self.fallback.observe_answer(status, headers, own_bucket);
        let answer = Answer {
            too_many: status == StatusCode::TOO_MANY_REQUESTS,
            own_bucket,
            headers: RateLimitHeaders::parse(headers, SystemTime::now()),
        };
        let now = Instant::now();
        let (learned, rate, backlog) = {
            let mut heard = self.heard.lock().unwrap_or_else(PoisonError::into_inner);
            let known = learn::learn(heard.known, &self.bounds, &answer);
            let learned = (known != heard.known)
                .then_some(known)
                .and_then(Known::rate);
            heard.known = known;
            let Some(rate) = known.rate() else { return };
            // Never more than a full bucket: a longer wait is the pause.
            let backlog =
                learn::backlog(rate, &answer).map(|b| b.min(rate.interval * rate.burst.get()));
            if let Some(backlog) = backlog {
                heard.drains_at = Some(now + backlog);
            }
            (learned, rate, backlog)
        };
        let read = &answer.headers;
        // A Redis round trip only when the fleet must hear at once: a rate just learned, a bucket
        // nearly spent, a refusal or a pause. Otherwise the backlog rides on this process's next
        // acquire, and each call costs one trip, not two.
        let nearly_spent = read.remaining.is_some_and(|r| r < rate.burst.get() / 4 + 1);
        let pause = read.retry_after.map(|d| d.min(self.max_pause));
        if learned.is_none() && !nearly_spent && !answer.too_many && pause.is_none() {
            return;
        }
        if !self.redis_usable() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let script = self.script(OBSERVE_SCRIPT);
        let (mut conn, key, pause_key, learned_key) = (
            self.conn.clone(),
            self.key.clone(),
            self.pause_key.clone(),
            self.learned_key.clone(),
        );
        let ms = |d: Duration| format!("{:.3}", d.as_secs_f64() * 1000.0);
        let (interval_ms, _) = lua_rate(rate);
        let floor = backlog
            .map(|b| format!("{:.3}", b.as_secs_f64() / rate.interval.as_secs_f64()))
            .unwrap_or_default();
        let pause = pause.map(ms).unwrap_or_default();
        let learned = learned
            .map(|rate| {
                let (interval_ms, burst) = lua_rate(rate);
                format!("{interval_ms:.3} {burst}")
            })
            .unwrap_or_default();
        runtime.spawn(async move {
            let done: redis::RedisResult<i64> = script
                .key(&key)
                .key(&pause_key)
                .key(&learned_key)
                .arg(floor)
                .arg(pause)
                .arg(learned)
                .arg(interval_ms)
                .invoke_async(&mut conn)
                .await;
            if let Err(error) = done {
                tracing::debug!(%error, "the shared rate limit could not follow the server's headers");
            }
        });
    }
}

/// [`RedisRateLimiter`]s of many merchant stores over one Redis connection, every bucket starting
/// at the same rate: a ceiling ([`RedisRateLimiters::connect_per_minute`]), or where learning
/// starts ([`RedisRateLimiters::connect_learning`]).
pub struct RedisRateLimiters {
    conn: ConnectionManager,
    prefix: String,
    per_minute: NonZeroU32,
    ceiling: bool,
    fallback_share: f64,
    limiters: Mutex<HashMap<String, Arc<RedisRateLimiter>>>,
}

impl std::fmt::Debug for RedisRateLimiters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisRateLimiters")
            .field("prefix", &self.prefix)
            .field("per_minute", &self.per_minute)
            .field("ceiling", &self.ceiling)
            .field("fallback_share", &self.fallback_share)
            .finish_non_exhaustive()
    }
}

impl RedisRateLimiters {
    /// Buckets of `plan` in the Redis at `url` (`redis://127.0.0.1:6379/0`), as a ceiling (see
    /// [`RedisRateLimiters::connect_per_minute`]).
    pub async fn connect(url: &str, plan: Plan) -> Result<Self, redis::RedisError> {
        Self::connect_per_minute(url, plan.per_minute()).await
    }

    /// Buckets of `n` requests a minute in the Redis at `url`. A configured rate is a ceiling:
    /// the store's headers can lower it, never raise it (as [`RateLimit::per_minute`]).
    pub async fn connect_per_minute(url: &str, n: NonZeroU32) -> Result<Self, redis::RedisError> {
        Self::connect_with(url, n, true).await
    }

    /// Buckets that start at `plan`'s rate and learn the store's own from its answers, up or down
    /// (as [`RateLimit::learning`]): what a fleet uses when nobody knows the store's plan.
    pub async fn connect_learning(url: &str, plan: Plan) -> Result<Self, redis::RedisError> {
        Self::connect_with(url, plan.per_minute(), false).await
    }

    async fn connect_with(
        url: &str,
        n: NonZeroU32,
        ceiling: bool,
    ) -> Result<Self, redis::RedisError> {
        Ok(RedisRateLimiters {
            conn: crate::credentials::connect_redis(url).await?,
            prefix: "store-admin".into(),
            per_minute: n,
            ceiling,
            fallback_share: 0.25,
            limiters: Mutex::new(HashMap::new()),
        })
    }

    /// The share of the plan one process uses while Redis cannot be reached (default 0.25; give
    /// one over the number of processes). Values are clamped into `(0, 1]`.
    pub fn with_fallback_share(mut self, share: f64) -> Self {
        self.fallback_share = if share.is_finite() {
            share.clamp(f64::MIN_POSITIVE, 1.0)
        } else {
            0.25
        };
        self
    }

    /// The key prefix (default `store-admin`).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The limiter of `merchant` (one per merchant for the life of this value).
    pub fn limiter(&self, merchant: &str) -> Arc<RedisRateLimiter> {
        let mut limiters = self.limiters.lock().unwrap_or_else(PoisonError::into_inner);
        limiters
            .entry(merchant.to_owned())
            .or_insert_with(|| {
                let n = self.per_minute.get();
                let share = (f64::from(n) * self.fallback_share).floor() as u32;
                let key = format!("{}:rate:{merchant}", self.prefix);
                let start = Rate::per_minute(self.per_minute);
                Arc::new(RedisRateLimiter {
                    conn: self.conn.clone(),
                    pause_key: format!("{key}:pause"),
                    learned_key: format!("{key}:learned"),
                    key,
                    bounds: Bounds {
                        start,
                        ceiling: self.ceiling.then_some(start),
                    },
                    heard: Mutex::new(Heard {
                        known: Known::Assumed(start),
                        drains_at: None,
                    }),
                    max_pause: Duration::from_secs(60),
                    fallback: RateLimit::per_minute(
                        NonZeroU32::new(share).unwrap_or(NonZeroU32::MIN),
                    ),
                    redis_down_until: Mutex::new(None),
                    falling_back: AtomicBool::new(false),
                })
            })
            .clone()
    }
}

impl RateLimiters for RedisRateLimiters {
    fn for_merchant(&self, merchant: &str) -> Arc<dyn RateLimiter> {
        self.limiter(merchant)
    }
}

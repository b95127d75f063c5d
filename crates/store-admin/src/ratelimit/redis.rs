//! [`RedisRateLimiter`]: one store's leaky bucket in Redis, shared by every process calling it.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use http::HeaderMap;
use redis::aio::ConnectionManager;
use tokio::time::Instant;

use super::{Plan, RateLimit, RateLimitHeaders, RateLimiter, RateLimiters};

/// The bucket's clock: milliseconds of Redis's own clock since 2023-11-14, so that every process
/// reads one clock and the numbers keep microseconds within Lua's 14 significant digits.
const NOW: &str = r"
local t = redis.call('TIME')
local now = (tonumber(t[1]) - 1700000000) * 1000 + tonumber(t[2]) / 1000
";

/// GCRA (the leaky bucket as a virtual scheduling time, after go-redis/redis_rate): `KEYS[1]`
/// holds the theoretical arrival time (TAT) of the next request, `KEYS[2]` a pause the server
/// asked for. `ARGV[1]` is the emission interval (ms), `ARGV[2]` the burst. Answers 0 when the
/// request may go (and counts it), else how many ms to wait.
const ACQUIRE_SCRIPT: &str = r"
local pause = tonumber(redis.call('GET', KEYS[2]))
if pause and pause > now then
  return math.ceil(pause - now)
end
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local new_tat = tat + interval
local allow_at = new_tat - interval * burst
if allow_at > now then
  return math.max(1, math.ceil(allow_at - now))
end
redis.call('SET', KEYS[1], new_tat, 'PX', math.ceil(new_tat - now) + 1000)
return 0
";

/// Keeps the bucket in step with the server: at most `ARGV[3]` (if not empty) more requests
/// from now, and no request for `ARGV[4]` ms (if not empty). Only ever makes the bucket stricter.
const OBSERVE_SCRIPT: &str = r"
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
if ARGV[3] ~= '' then
  local floor_tat = now + (burst - tonumber(ARGV[3])) * interval
  local tat = tonumber(redis.call('GET', KEYS[1])) or now
  if floor_tat > tat then
    redis.call('SET', KEYS[1], floor_tat, 'PX', math.ceil(floor_tat - now) + 1000)
  end
end
if ARGV[4] ~= '' then
  local wait = tonumber(ARGV[4])
  local current = tonumber(redis.call('GET', KEYS[2])) or 0
  if now + wait > current then
    redis.call('SET', KEYS[2], now + wait, 'PX', math.ceil(wait) + 1000)
  end
end
return 0
";

/// How long the limiter keeps to its local fallback after Redis failed, before asking it again.
const RETRY_REDIS_AFTER: Duration = Duration::from_secs(5);

/// One merchant store's leaky bucket (GCRA) in Redis, so that every process calling the store
/// together stays within its plan: each request is counted by one script call
/// (`store-admin:rate:{merchant}`), on Redis's clock. Kept in step with `X-RateLimit-Remaining`,
/// `X-RateLimit-Reset` and `Retry-After` like the local [`RateLimit`].
///
/// If Redis cannot be reached, requests go through a local [`RateLimit`] at a share of the plan
/// (by default a quarter: set it to one over the number of processes), logged once; Redis is
/// asked again every 5 s, never in a loop.
pub struct RedisRateLimiter {
    conn: ConnectionManager,
    key: String,
    pause_key: String,
    interval_ms: f64,
    burst: u32,
    max_pause: Duration,
    fallback: RateLimit,
    redis_down_until: Mutex<Option<Instant>>,
    falling_back: AtomicBool,
}

impl std::fmt::Debug for RedisRateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisRateLimiter")
            .field("key", &self.key)
            .field("interval_ms", &self.interval_ms)
            .field("burst", &self.burst)
            .field("falling_back", &self.falling_back.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl RedisRateLimiter {
    fn script(&self, body: &str) -> redis::Script {
        redis::Script::new(&format!("{NOW}{body}"))
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
            if !self.redis_usable() {
                self.fallback.acquire().await;
                return;
            }
            let mut conn = self.conn.clone();
            let answer: redis::RedisResult<i64> = script
                .key(&self.key)
                .key(&self.pause_key)
                .arg(self.interval_ms)
                .arg(self.burst)
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
        // The local fallback always follows the server, so it is right the moment Redis fails.
        self.fallback.observe(headers);
        let read = RateLimitHeaders::parse(headers, SystemTime::now());
        // A Redis round trip only when the server says the bucket is nearly spent or asks for a
        // pause: the shared bucket is right otherwise, and each call costs one trip, not two.
        let remaining = read.remaining.filter(|r| *r < self.burst / 4 + 1);
        let pause = read.retry_after.map(|d| d.min(self.max_pause));
        if (remaining.is_none() && pause.is_none()) || !self.redis_usable() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let script = self.script(OBSERVE_SCRIPT);
        let (mut conn, key, pause_key) =
            (self.conn.clone(), self.key.clone(), self.pause_key.clone());
        let (interval_ms, burst) = (self.interval_ms, self.burst);
        runtime.spawn(async move {
            let done: redis::RedisResult<i64> = script
                .key(&key)
                .key(&pause_key)
                .arg(interval_ms)
                .arg(burst)
                .arg(remaining.map(|r| r.to_string()).unwrap_or_default())
                .arg(pause.map(|p| p.as_millis().to_string()).unwrap_or_default())
                .invoke_async(&mut conn)
                .await;
            if let Err(error) = done {
                tracing::debug!(%error, "the shared rate limit could not follow the server's headers");
            }
        });
    }
}

/// [`RedisRateLimiter`]s of many merchant stores over one Redis connection, every bucket sized
/// to the same plan.
pub struct RedisRateLimiters {
    conn: ConnectionManager,
    prefix: String,
    per_minute: NonZeroU32,
    fallback_share: f64,
    limiters: Mutex<HashMap<String, Arc<RedisRateLimiter>>>,
}

impl std::fmt::Debug for RedisRateLimiters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisRateLimiters")
            .field("prefix", &self.prefix)
            .field("per_minute", &self.per_minute)
            .field("fallback_share", &self.fallback_share)
            .finish_non_exhaustive()
    }
}

impl RedisRateLimiters {
    /// Buckets of `plan` in the Redis at `url` (`redis://127.0.0.1:6379/0`).
    pub async fn connect(url: &str, plan: Plan) -> Result<Self, redis::RedisError> {
        Self::connect_per_minute(url, plan.per_minute()).await
    }

    /// Buckets of `n` requests a minute in the Redis at `url`.
    pub async fn connect_per_minute(url: &str, n: NonZeroU32) -> Result<Self, redis::RedisError> {
        Ok(RedisRateLimiters {
            conn: crate::credentials::connect_redis(url).await?,
            prefix: "store-admin".into(),
            per_minute: n,
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
                Arc::new(RedisRateLimiter {
                    conn: self.conn.clone(),
                    pause_key: format!("{key}:pause"),
                    key,
                    interval_ms: 60_000.0 / f64::from(n),
                    burst: n,
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

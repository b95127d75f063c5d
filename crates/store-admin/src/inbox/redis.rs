//! The deliveries seen, shared by every replica through Redis.

use std::time::Duration;

use async_trait::async_trait;
use redis::aio::ConnectionManager;

use super::dedup::{Claim, DedupError, Deduplicator, token};

/// The value of a handled delivery's key (a claim's value is `claim:` and its token).
const HANDLED: &str = "handled";

/// Claims a key unless it is handled or claimed: `handled`, `in_progress` or `claimed`.
const CLAIM: &str = r"
local held = redis.call('GET', KEYS[1])
if held == ARGV[3] then return 'handled' end
if held then return 'in_progress' end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 'claimed'
";

/// Deletes a claim if the token still holds it.
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
";

/// A [`Deduplicator`] on Redis, shared by every replica of a service: a key per delivery (the
/// [`super::Inbox`]'s prefix and the body's hash) holding a claim while a replica handles it
/// (with a lease, so a crashed replica's claim lapses), then `handled` for the time to remember.
#[derive(Clone)]
pub struct RedisDeduplicator {
    conn: ConnectionManager,
}

impl std::fmt::Debug for RedisDeduplicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisDeduplicator").finish_non_exhaustive()
    }
}

fn unavailable(error: redis::RedisError) -> DedupError {
    DedupError(error.to_string())
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis())
        .unwrap_or(u64::MAX)
        .max(1)
}

impl RedisDeduplicator {
    /// Connects to Redis at `url` (`redis://host:port/db`), with short timeouts.
    pub async fn connect(url: &str) -> Result<Self, DedupError> {
        let conn = crate::credentials::connect_redis(url)
            .await
            .map_err(unavailable)?;
        Ok(Self { conn })
    }
}

#[async_trait]
impl Deduplicator for RedisDeduplicator {
    async fn claim(&self, key: &str, lease: Duration) -> Result<Claim, DedupError> {
        let token = token();
        let answer: String = redis::Script::new(CLAIM)
            .key(key)
            .arg(format!("claim:{token}"))
            .arg(millis(lease))
            .arg(HANDLED)
            .invoke_async(&mut self.conn.clone())
            .await
            .map_err(unavailable)?;
        Ok(match answer.as_str() {
            "handled" => Claim::Handled,
            "in_progress" => Claim::InProgress,
            _ => Claim::Claimed(token),
        })
    }

    async fn complete(&self, key: &str, ttl: Duration) -> Result<(), DedupError> {
        redis::cmd("SET")
            .arg(key)
            .arg(HANDLED)
            .arg("PX")
            .arg(millis(ttl))
            .query_async::<()>(&mut self.conn.clone())
            .await
            .map_err(unavailable)
    }

    async fn release(&self, key: &str, token: &str) -> Result<(), DedupError> {
        redis::Script::new(RELEASE)
            .key(key)
            .arg(format!("claim:{token}"))
            .invoke_async::<i64>(&mut self.conn.clone())
            .await
            .map(drop)
            .map_err(unavailable)
    }

    async fn handled(&self, key: &str) -> Result<bool, DedupError> {
        let held: Option<String> = redis::cmd("GET")
            .arg(key)
            .query_async(&mut self.conn.clone())
            .await
            .map_err(unavailable)?;
        Ok(held.as_deref() == Some(HANDLED))
    }
}

//! [`RedisTokenStore`]: tokens per merchant store in Redis, for processes on many hosts.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use redis::aio::ConnectionManager;

use super::sealing::Sealing;
use super::store::Record;
use super::{
    Revision, Snapshot, StoredTokens, TokenHealth, TokenKeys, TokenStore, TokenStoreError,
    TokenStoreLock, TokenStores,
};

/// Saves `ARGV[2]` (empty: removes the tokens and their health) under `KEYS[1]` with the health
/// `ARGV[3]` (empty: the health saved is kept) if its revision is still `ARGV[1]` (empty:
/// whatever it is); answers the new revision, or -1 when it had moved on.
const SAVE_SCRIPT: &str = r"
local current = tonumber(redis.call('HGET', KEYS[1], 'revision')) or 0
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= current then
  return -1
end
local next = current + 1
if ARGV[2] == '' then
  redis.call('HSET', KEYS[1], 'revision', next)
  redis.call('HDEL', KEYS[1], 'record', 'health')
else
  redis.call('HSET', KEYS[1], 'revision', next, 'record', ARGV[2])
  if ARGV[3] ~= '' then
    redis.call('HSET', KEYS[1], 'health', ARGV[3])
  end
end
return next
";

/// Extends the lock `KEYS[1]` to `ARGV[2]` ms if `ARGV[1]` still holds it.
const RENEW_SCRIPT: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
";

/// Deletes the lock `KEYS[1]` if `ARGV[1]` still holds it.
const RELEASE_SCRIPT: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
";

/// The default time to live of a refresh lock.
pub const DEFAULT_LOCK_TTL: Duration = Duration::from_secs(30);

/// Connects to Redis at `url` (`redis://host:port/db`), with short timeouts: a token store or a
/// rate limiter that cannot reach Redis must fail fast, not hang the call.
pub(crate) async fn connect(url: &str) -> Result<ConnectionManager, redis::RedisError> {
    let client = redis::Client::open(url)?;
    let config = redis::aio::ConnectionManagerConfig::new()
        .set_connection_timeout(Some(Duration::from_millis(500)))
        .set_response_timeout(Some(Duration::from_millis(500)))
        .set_number_of_retries(1)
        .set_max_delay(Duration::from_millis(200));
    client.get_connection_manager_with_config(config).await
}

/// The token stores of many merchant stores in one Redis: `store-admin:tokens:{merchant}` (a
/// hash of the revision and the tokens' JSON) and its refresh lock
/// `store-admin:tokens:{merchant}:lock`, over one shared connection. With
/// [`RedisTokenStores::with_keys`] each record is sealed (see [`TokenKeys`]).
#[derive(Clone)]
pub struct RedisTokenStores {
    conn: ConnectionManager,
    prefix: String,
    lock_ttl: Duration,
    keys: Option<Arc<TokenKeys>>,
}

impl std::fmt::Debug for RedisTokenStores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTokenStores")
            .field("prefix", &self.prefix)
            .field("lock_ttl", &self.lock_ttl)
            .field("keys", &self.keys)
            .finish_non_exhaustive()
    }
}

impl RedisTokenStores {
    /// Connects to Redis at `url` (`redis://127.0.0.1:6379/0`).
    pub async fn connect(url: &str) -> Result<Self, TokenStoreError> {
        let conn = connect(url)
            .await
            .map_err(|e| TokenStoreError::with_source("cannot connect to Redis", e))?;
        Ok(RedisTokenStores {
            conn,
            prefix: "store-admin".into(),
            lock_ttl: DEFAULT_LOCK_TTL,
            keys: None,
        })
    }

    /// Seals every store's record with `keys`, bound to its merchant's id: a record copied to
    /// another merchant's key does not open there. A plain record is still read, and sealed by
    /// the next save.
    pub fn with_keys(mut self, keys: Arc<TokenKeys>) -> Self {
        self.keys = Some(keys);
        self
    }

    /// The refresh lock's time to live (default 30 s): how long a lock outlives a holder that
    /// died. The holder renews it every third of it while the refresh runs.
    pub fn with_lock_ttl(mut self, ttl: Duration) -> Self {
        self.lock_ttl = ttl.max(Duration::from_millis(100));
        self
    }

    /// The key prefix (default `store-admin`).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The store of `merchant`.
    pub fn store(&self, merchant: &str) -> RedisTokenStore {
        let key = format!("{}:tokens:{merchant}", self.prefix);
        RedisTokenStore {
            conn: self.conn.clone(),
            lock_key: format!("{key}:lock"),
            key,
            lock_ttl: self.lock_ttl,
            sealing: Sealing::new(self.keys.clone(), merchant),
        }
    }
}

#[async_trait]
impl TokenStores for RedisTokenStores {
    fn for_merchant(&self, merchant: &str) -> Arc<dyn TokenStore> {
        Arc::new(self.store(merchant))
    }

    /// The merchants of the hashes `{prefix}:tokens:*` (`SCAN ... TYPE hash`, which leaves the
    /// refresh locks, strings, out).
    async fn merchants(&self) -> Result<Vec<String>, TokenStoreError> {
        let head = format!("{}:tokens:", self.prefix);
        let pattern = format!("{}*", redis_glob_escape(&head));
        let mut conn = self.conn.clone();
        let mut cursor: u64 = 0;
        let mut merchants = Vec::new();
        loop {
            let (next, keys): (u64, Vec<Vec<u8>>) = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(&pattern)
                .arg("COUNT")
                .arg(500)
                .arg("TYPE")
                .arg("hash")
                .query_async(&mut conn)
                .await
                .map_err(|e| redis_error("cannot list the token stores in Redis", e))?;
            for key in keys {
                if let Some(merchant) = String::from_utf8(key)
                    .ok()
                    .and_then(|key| key.strip_prefix(&head).map(str::to_owned))
                {
                    merchants.push(merchant);
                }
            }
            if next == 0 {
                return Ok(merchants);
            }
            cursor = next;
        }
    }
}

/// `text` with the characters special to a Redis glob (`*?[]\`) escaped.
fn redis_glob_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// One merchant store's tokens in Redis (see [`RedisTokenStores`]).
///
/// - Saved atomically with a revision; a save is compare-and-set in one script.
/// - [`TokenStore::lock`] is a lock across hosts: `SET NX PX` with a random value, renewed while
///   the refresh runs, released by a compare-and-delete script; the lock of a holder that died
///   expires after its time to live.
#[derive(Clone)]
pub struct RedisTokenStore {
    conn: ConnectionManager,
    key: String,
    lock_key: String,
    lock_ttl: Duration,
    sealing: Sealing,
}

impl std::fmt::Debug for RedisTokenStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTokenStore")
            .field("key", &self.key)
            .field("lock_ttl", &self.lock_ttl)
            .field("sealing", &self.sealing)
            .finish_non_exhaustive()
    }
}

fn redis_error(message: &str, error: redis::RedisError) -> TokenStoreError {
    TokenStoreError::with_source(message.to_owned(), error)
}

impl RedisTokenStore {
    async fn write(
        &self,
        record: Option<String>,
        health: Option<&TokenHealth>,
        expected: Option<Revision>,
    ) -> Result<Option<Revision>, TokenStoreError> {
        let mut conn = self.conn.clone();
        // A struct of strings and timestamps always serializes; `{}` (not empty) replaces.
        let health = health
            .map(|h| serde_json::to_string(h).unwrap_or_else(|_| "{}".into()))
            .unwrap_or_default();
        let answer: i64 = redis::Script::new(SAVE_SCRIPT)
            .key(&self.key)
            .arg(expected.map(|r| r.0.to_string()).unwrap_or_default())
            .arg(record.unwrap_or_default())
            .arg(health)
            .invoke_async(&mut conn)
            .await
            .map_err(|e| redis_error("cannot save the tokens to Redis", e))?;
        Ok(u64::try_from(answer).ok().map(Revision))
    }
}

#[async_trait]
impl TokenStore for RedisTokenStore {
    async fn load(&self) -> Result<Snapshot, TokenStoreError> {
        let mut conn = self.conn.clone();
        let (revision, record, health): (Option<u64>, Option<Vec<u8>>, Option<Vec<u8>>) =
            redis::cmd("HMGET")
                .arg(&self.key)
                .arg("revision")
                .arg("record")
                .arg("health")
                .query_async(&mut conn)
                .await
                .map_err(|e| redis_error("cannot load the tokens from Redis", e))?;
        let revision = Revision(revision.unwrap_or(0));
        // Unreadable health is no reason to refuse the tokens: it reads as nothing recorded.
        let health = health
            .and_then(|text| serde_json::from_slice::<TokenHealth>(&text).ok())
            .unwrap_or_default();
        match record {
            Some(text) => Ok(Snapshot {
                revision,
                health,
                ..self.sealing.decode(&text)?.snapshot()
            }),
            None => Ok(Snapshot {
                revision,
                value: None,
                health,
            }),
        }
    }

    async fn save(
        &self,
        value: &StoredTokens,
        expected: Option<Revision>,
    ) -> Result<Option<Revision>, TokenStoreError> {
        // The record's own revision is not read back: the hash's `revision` field is the one.
        let record = Record::new(Revision(0), Some(value), &TokenHealth::default());
        let record = self.sealing.encode(&record);
        self.write(Some(record), None, expected).await
    }

    async fn save_with_health(
        &self,
        value: &StoredTokens,
        health: &TokenHealth,
        expected: Option<Revision>,
    ) -> Result<Option<Revision>, TokenStoreError> {
        // The health is a field of its own (a plain save keeps it), not part of the record.
        let record = Record::new(Revision(0), Some(value), &TokenHealth::default());
        let record = self.sealing.encode(&record);
        self.write(Some(record), Some(health), expected).await
    }

    async fn remove(&self) -> Result<(), TokenStoreError> {
        self.write(None, None, None).await.map(|_| ())
    }

    async fn lock(&self) -> Result<TokenStoreLock, TokenStoreError> {
        let token = format!("{:032x}", rand::random::<u128>());
        let ttl_ms = u64::try_from(self.lock_ttl.as_millis()).unwrap_or(u64::MAX);
        let mut conn = self.conn.clone();
        // A holder keeps the lock for at most the refresh (shorter than its time to live): give
        // up after two of them, and say so, rather than wait forever.
        let give_up = tokio::time::Instant::now() + self.lock_ttl * 2;
        loop {
            let acquired: Option<String> = redis::cmd("SET")
                .arg(&self.lock_key)
                .arg(&token)
                .arg("NX")
                .arg("PX")
                .arg(ttl_ms)
                .query_async(&mut conn)
                .await
                .map_err(|e| redis_error("cannot take the refresh lock in Redis", e))?;
            if acquired.is_some() {
                break;
            }
            if tokio::time::Instant::now() >= give_up {
                return Err(TokenStoreError::new(
                    "another process has held the refresh lock for too long",
                ));
            }
            let pause = 20 + rand::random::<u64>() % 30;
            tokio::time::sleep(Duration::from_millis(pause)).await;
        }
        let lost = Arc::new(AtomicBool::new(false));
        let renewer = {
            let (mut conn, key, token, lost) = (
                self.conn.clone(),
                self.lock_key.clone(),
                token.clone(),
                lost.clone(),
            );
            let every = self.lock_ttl / 3;
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(every).await;
                    let renewed: redis::RedisResult<i64> = redis::Script::new(RENEW_SCRIPT)
                        .key(&key)
                        .arg(&token)
                        .arg(ttl_ms)
                        .invoke_async(&mut conn)
                        .await;
                    if !matches!(renewed, Ok(1)) {
                        lost.store(true, Ordering::Release);
                        tracing::warn!(
                            key = %key,
                            "the refresh lock could not be renewed; a save over a newer pair will be refused"
                        );
                        return;
                    }
                }
            })
        };
        Ok(TokenStoreLock::new(RedisLock {
            conn: self.conn.clone(),
            key: self.lock_key.clone(),
            token,
            renewer,
        }))
    }

    fn lock_ttl(&self) -> Option<Duration> {
        Some(self.lock_ttl)
    }
}

/// A held Redis lock: renewed until dropped, then released if still ours.
struct RedisLock {
    conn: ConnectionManager,
    key: String,
    token: String,
    renewer: tokio::task::JoinHandle<()>,
}

impl Drop for RedisLock {
    fn drop(&mut self) {
        self.renewer.abort();
        let (mut conn, key, token) = (
            self.conn.clone(),
            std::mem::take(&mut self.key),
            std::mem::take(&mut self.token),
        );
        // Without a runtime the lock simply expires.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let released: redis::RedisResult<i64> = redis::Script::new(RELEASE_SCRIPT)
                    .key(&key)
                    .arg(&token)
                    .invoke_async(&mut conn)
                    .await;
                if let Err(error) = released {
                    tracing::warn!(%error, key = %key, "the refresh lock could not be released; it will expire");
                }
            });
        }
    }
}

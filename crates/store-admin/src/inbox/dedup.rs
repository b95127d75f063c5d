//! Remembering deliveries: which ones were handled, and which one a replica handles now.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use async_trait::async_trait;

/// What [`Deduplicator::claim`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// The caller handles the delivery now; the token gives the claim up or completes it.
    Claimed(String),
    /// Handled before: acknowledge, do not handle again.
    Handled,
    /// Another caller holds a claim that has not expired.
    InProgress,
}

/// The deduplicator could not be asked (Redis unreachable, say).
#[derive(Debug, thiserror::Error)]
#[error("webhook deduplicator unavailable: {0}")]
pub struct DedupError(pub String);

/// Where an [`super::Inbox`] remembers deliveries. Every replica of a service shares one, so that
/// a delivery is handled once by all of them.
#[async_trait]
pub trait Deduplicator: Send + Sync + 'static {
    /// Claims `key` for `lease` (after which a crashed claimant's claim lapses), unless it was
    /// handled or is claimed.
    async fn claim(&self, key: &str, lease: Duration) -> Result<Claim, DedupError>;
    /// Marks `key` handled for `ttl`.
    async fn complete(&self, key: &str, ttl: Duration) -> Result<(), DedupError>;
    /// Gives up the claim `token` holds on `key` (the handler failed): the next delivery claims it.
    async fn release(&self, key: &str, token: &str) -> Result<(), DedupError>;
    /// Whether `key` was handled (and is still remembered).
    async fn handled(&self, key: &str) -> Result<bool, DedupError>;
}

/// One deduplicator shared by several inboxes (say, one per security strategy): a delivery is
/// handled once among all of them.
#[async_trait]
impl<D: Deduplicator + ?Sized> Deduplicator for std::sync::Arc<D> {
    async fn claim(&self, key: &str, lease: Duration) -> Result<Claim, DedupError> {
        (**self).claim(key, lease).await
    }
    async fn complete(&self, key: &str, ttl: Duration) -> Result<(), DedupError> {
        (**self).complete(key, ttl).await
    }
    async fn release(&self, key: &str, token: &str) -> Result<(), DedupError> {
        (**self).release(key, token).await
    }
    async fn handled(&self, key: &str) -> Result<bool, DedupError> {
        (**self).handled(key).await
    }
}

enum Entry {
    Claimed { token: String, until: Instant },
    Handled { until: Instant },
}

impl Entry {
    fn until(&self) -> Instant {
        match self {
            Entry::Claimed { until, .. } | Entry::Handled { until } => *until,
        }
    }
}

/// A [`Deduplicator`] in this process's memory: for a service of one replica, and tests.
#[derive(Default)]
pub struct MemoryDeduplicator {
    entries: Mutex<HashMap<String, Entry>>,
}

impl std::fmt::Debug for MemoryDeduplicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let len = self
            .entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        f.debug_struct("MemoryDeduplicator")
            .field("entries", &len)
            .finish()
    }
}

impl MemoryDeduplicator {
    /// An empty one.
    pub fn new() -> Self {
        Self::default()
    }
}

/// A fresh claim token.
pub(super) fn token() -> String {
    use rand::Rng;
    let mut rng = rand::rng();
    (0..20)
        .map(|_| char::from(rng.sample(rand::distr::Alphanumeric)))
        .collect()
}

#[async_trait]
impl Deduplicator for MemoryDeduplicator {
    async fn claim(&self, key: &str, lease: Duration) -> Result<Claim, DedupError> {
        let now = Instant::now();
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() > 4096 {
            entries.retain(|_, entry| entry.until() > now);
        }
        match entries.get(key) {
            Some(Entry::Handled { until }) if *until > now => return Ok(Claim::Handled),
            Some(Entry::Claimed { until, .. }) if *until > now => return Ok(Claim::InProgress),
            _ => {}
        }
        let token = token();
        entries.insert(
            key.to_owned(),
            Entry::Claimed {
                token: token.clone(),
                until: now + lease,
            },
        );
        Ok(Claim::Claimed(token))
    }

    async fn complete(&self, key: &str, ttl: Duration) -> Result<(), DedupError> {
        let until = Instant::now() + ttl;
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key.to_owned(), Entry::Handled { until });
        Ok(())
    }

    async fn release(&self, key: &str, token: &str) -> Result<(), DedupError> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if matches!(entries.get(key), Some(Entry::Claimed { token: held, .. }) if held == token) {
            entries.remove(key);
        }
        Ok(())
    }

    async fn handled(&self, key: &str) -> Result<bool, DedupError> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(matches!(entries.get(key), Some(Entry::Handled { until }) if *until > Instant::now()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_claim_is_exclusive_until_released_completed_or_lapsed() {
        let dedup = MemoryDeduplicator::new();
        let lease = Duration::from_millis(50);
        let Claim::Claimed(token) = dedup.claim("k", lease).await.unwrap() else {
            panic!("the first claim is granted");
        };
        assert_eq!(dedup.claim("k", lease).await.unwrap(), Claim::InProgress);
        dedup.release("k", "another token").await.unwrap();
        assert_eq!(
            dedup.claim("k", lease).await.unwrap(),
            Claim::InProgress,
            "only the holder's token releases a claim"
        );
        dedup.release("k", &token).await.unwrap();
        let Claim::Claimed(_) = dedup.claim("k", lease).await.unwrap() else {
            panic!("a released claim can be taken again");
        };
        tokio::time::sleep(lease * 2).await;
        let Claim::Claimed(_) = dedup.claim("k", lease).await.unwrap() else {
            panic!("a lapsed claim (a crashed replica) can be taken again");
        };
        assert!(!dedup.handled("k").await.unwrap());
        dedup.complete("k", Duration::from_secs(60)).await.unwrap();
        assert_eq!(dedup.claim("k", lease).await.unwrap(), Claim::Handled);
        assert!(dedup.handled("k").await.unwrap());
    }
}

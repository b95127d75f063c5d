//! Where a store's tokens are kept between refreshes and between processes.
//!
//! A [`TokenStore`] keeps one merchant store's tokens at a [`Revision`] that goes up with every
//! write, so that a write can be made conditional on what was read (compare-and-set): a refresher
//! whose lock lapsed cannot overwrite a newer pair. [`TokenStores`] hands out the store of each
//! merchant of a fleet. Implementations: [`InMemoryTokenStore`] (one process), the file store
//! (one host) and the Redis store (many hosts).

use std::collections::HashMap;
use std::error::Error as StdError;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{AccessToken, RefreshToken, TokenHealth, TokenSet};

/// A failure of a [`TokenStore`]. Its message never holds a token.
#[derive(Debug, Clone, thiserror::Error)]
#[error("token store: {message}")]
pub struct TokenStoreError {
    message: String,
    #[source]
    source: Option<Arc<dyn StdError + Send + Sync>>,
}

impl TokenStoreError {
    /// An error with a message (which must not contain a token).
    pub fn new(message: impl Into<String>) -> Self {
        TokenStoreError {
            message: message.into(),
            source: None,
        }
    }

    /// An error with a message and its cause.
    pub fn with_source(
        message: impl Into<String>,
        source: impl StdError + Send + Sync + 'static,
    ) -> Self {
        TokenStoreError {
            message: message.into(),
            source: Some(Arc::new(source)),
        }
    }
}

/// Held while a [`TokenStore`] is locked for a refresh; dropping it releases the lock.
pub struct TokenStoreLock(#[allow(dead_code)] Option<Box<dyn Send + Sync>>);

impl TokenStoreLock {
    /// A lock that guards nothing: for stores used by one process only.
    pub fn none() -> Self {
        TokenStoreLock(None)
    }

    /// A lock released when `guard` is dropped (e.g. a file lock or a database advisory lock).
    pub fn new(guard: impl Send + Sync + 'static) -> Self {
        TokenStoreLock(Some(Box::new(guard)))
    }
}

impl fmt::Debug for TokenStoreLock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TokenStoreLock")
    }
}

/// The number of writes a [`TokenStore`] has seen for one merchant store: 0 before the first,
/// one more with every save or removal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Revision(pub u64);

/// What a [`TokenStore`] holds for one merchant store.
#[derive(Debug, Clone)]
pub enum StoredTokens {
    /// Tokens to use (and refresh).
    Active(TokenSet),
    /// The refresh token was refused with `invalid_grant`: the tokens are revoked, and only a new
    /// installation of the app replaces them. Kept so that no other process presents the spent
    /// refresh token again.
    Revoked,
}

/// A [`TokenStore`]'s content at one revision.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The revision read.
    pub revision: Revision,
    /// What was saved; `None` before the first save and after a removal.
    pub value: Option<StoredTokens>,
    /// The token chain's installation, last refresh and last failure (empty for a store that
    /// does not keep them).
    pub health: TokenHealth,
}

impl Snapshot {
    /// The active tokens, if any.
    pub fn tokens(&self) -> Option<&TokenSet> {
        match &self.value {
            Some(StoredTokens::Active(tokens)) => Some(tokens),
            _ => None,
        }
    }
}

/// Where one merchant store's tokens are kept between refreshes (and between processes).
///
/// Implementations persist the secrets themselves (see [`StoredTokens`]); what they write is the
/// only place a token leaves the process, and their errors never hold one.
#[async_trait]
pub trait TokenStore: Send + Sync {
    /// What is saved, with its revision.
    async fn load(&self) -> Result<Snapshot, TokenStoreError>;

    /// Saves `value` if the saved revision is still `expected` (compare-and-set; `None` saves
    /// whatever is there). The new revision, or `None` when the revision had moved on and
    /// nothing was written.
    async fn save(
        &self,
        value: &StoredTokens,
        expected: Option<Revision>,
    ) -> Result<Option<Revision>, TokenStoreError>;

    /// Forgets the tokens (the app was uninstalled); the revision still goes up.
    async fn remove(&self) -> Result<(), TokenStoreError>;

    /// [`TokenStore::save`], recording `health` with the tokens (a plain `save` keeps the
    /// health recorded). The default ignores `health`: a store that keeps it overrides this.
    async fn save_with_health(
        &self,
        value: &StoredTokens,
        health: &TokenHealth,
        expected: Option<Revision>,
    ) -> Result<Option<Revision>, TokenStoreError> {
        let _ = health;
        self.save(value, expected).await
    }

    /// Excludes other processes from refreshing this store's tokens until the returned guard is
    /// dropped. The default guards nothing, which is right for a store only one process uses;
    /// a store shared between processes must override it.
    async fn lock(&self) -> Result<TokenStoreLock, TokenStoreError> {
        Ok(TokenStoreLock::none())
    }

    /// How long a lock outlives a holder that stopped renewing it (it died), if it expires at
    /// all. A refresh under the lock keeps its token request well within it.
    fn lock_ttl(&self) -> Option<Duration> {
        None
    }

    /// The active tokens, if any (a shorthand for [`TokenStore::load`]).
    async fn load_tokens(&self) -> Result<Option<TokenSet>, TokenStoreError> {
        Ok(self.load().await?.tokens().cloned())
    }

    /// Saves tokens received from the service (an installation), over whatever was saved, with
    /// a fresh health record.
    async fn install(&self, tokens: &TokenSet) -> Result<Revision, TokenStoreError> {
        let health = TokenHealth::installed(Utc::now());
        self.save_with_health(&StoredTokens::Active(tokens.clone()), &health, None)
            .await?
            .ok_or_else(|| TokenStoreError::new("an unconditional save was refused"))
    }
}

/// The token stores of many merchant stores, one [`TokenStore`] each, keyed by the merchant's
/// id (the `merchant` of webhook deliveries).
#[async_trait]
pub trait TokenStores: Send + Sync {
    /// The token store of `merchant`.
    fn for_merchant(&self, merchant: &str) -> Arc<dyn TokenStore>;

    /// Every merchant that has (or had) tokens here, in no particular order: what
    /// [`health_report`](super::health_report) goes through. The default says the stores
    /// cannot be listed.
    async fn merchants(&self) -> Result<Vec<String>, TokenStoreError> {
        Err(TokenStoreError::new(
            "these token stores cannot list their merchants",
        ))
    }
}

/// A [`TokenStore`] in memory: tokens live as long as the process.
#[derive(Debug, Default)]
pub struct InMemoryTokenStore {
    saved: Mutex<Snapshot>,
}

impl InMemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        InMemoryTokenStore::default()
    }

    /// A store holding `tokens` (at revision 1).
    pub fn with_tokens(tokens: TokenSet) -> Self {
        InMemoryTokenStore {
            saved: Mutex::new(Snapshot {
                revision: Revision(1),
                value: Some(StoredTokens::Active(tokens)),
                health: TokenHealth::default(),
            }),
        }
    }
}

#[async_trait]
impl TokenStore for InMemoryTokenStore {
    async fn load(&self) -> Result<Snapshot, TokenStoreError> {
        Ok(self
            .saved
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone())
    }

    async fn save(
        &self,
        value: &StoredTokens,
        expected: Option<Revision>,
    ) -> Result<Option<Revision>, TokenStoreError> {
        let mut saved = self.saved.lock().unwrap_or_else(PoisonError::into_inner);
        if expected.is_some_and(|expected| expected != saved.revision) {
            return Ok(None);
        }
        saved.revision = Revision(saved.revision.0 + 1);
        saved.value = Some(value.clone());
        Ok(Some(saved.revision))
    }

    async fn remove(&self) -> Result<(), TokenStoreError> {
        let mut saved = self.saved.lock().unwrap_or_else(PoisonError::into_inner);
        saved.revision = Revision(saved.revision.0 + 1);
        saved.value = None;
        saved.health = TokenHealth::default();
        Ok(())
    }

    async fn save_with_health(
        &self,
        value: &StoredTokens,
        health: &TokenHealth,
        expected: Option<Revision>,
    ) -> Result<Option<Revision>, TokenStoreError> {
        let mut saved = self.saved.lock().unwrap_or_else(PoisonError::into_inner);
        if expected.is_some_and(|expected| expected != saved.revision) {
            return Ok(None);
        }
        saved.revision = Revision(saved.revision.0 + 1);
        saved.value = Some(value.clone());
        saved.health = health.clone();
        Ok(Some(saved.revision))
    }
}

/// [`InMemoryTokenStore`]s by merchant, for one process.
#[derive(Debug, Default)]
pub struct InMemoryTokenStores {
    stores: Mutex<HashMap<String, Arc<InMemoryTokenStore>>>,
}

impl InMemoryTokenStores {
    /// No merchant yet.
    pub fn new() -> Self {
        InMemoryTokenStores::default()
    }
}

#[async_trait]
impl TokenStores for InMemoryTokenStores {
    fn for_merchant(&self, merchant: &str) -> Arc<dyn TokenStore> {
        let mut stores = self.stores.lock().unwrap_or_else(PoisonError::into_inner);
        stores.entry(merchant.to_owned()).or_default().clone()
    }

    /// The merchants whose store was ever written (a store only looked up is not listed).
    async fn merchants(&self) -> Result<Vec<String>, TokenStoreError> {
        let stores = self.stores.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(stores
            .iter()
            .filter(|(_, store)| {
                let saved = store.saved.lock().unwrap_or_else(PoisonError::into_inner);
                saved.revision > Revision(0)
            })
            .map(|(merchant, _)| merchant.clone())
            .collect())
    }
}

/// How tokens are written by the stores that persist them (file, Redis): JSON, the secrets in
/// clear, so whatever holds it must be protected as the secrets themselves.
#[derive(Serialize, Deserialize)]
pub(crate) struct Record {
    pub(crate) revision: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tokens: Option<RecordTokens>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    revoked: bool,
    #[serde(default, skip_serializing_if = "TokenHealth::is_empty")]
    pub(crate) health: TokenHealth,
}

#[derive(Serialize, Deserialize)]
struct RecordTokens {
    access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refresh_token: Option<String>,
    expires_at: DateTime<Utc>,
    #[serde(default)]
    scope: String,
}

impl Record {
    pub(crate) fn new(
        revision: Revision,
        value: Option<&StoredTokens>,
        health: &TokenHealth,
    ) -> Record {
        let (tokens, revoked) = match value {
            Some(StoredTokens::Active(tokens)) => (
                Some(RecordTokens {
                    access_token: tokens.access.expose_secret().to_owned(),
                    refresh_token: tokens
                        .refresh
                        .as_ref()
                        .map(|r| r.expose_secret().to_owned()),
                    expires_at: tokens.expires_at,
                    scope: tokens.scope.clone(),
                }),
                false,
            ),
            Some(StoredTokens::Revoked) => (None, true),
            None => (None, false),
        };
        Record {
            revision: revision.0,
            tokens,
            revoked,
            health: health.clone(),
        }
    }

    pub(crate) fn snapshot(self) -> Snapshot {
        let value = match (self.tokens, self.revoked) {
            (_, true) => Some(StoredTokens::Revoked),
            (Some(t), false) => Some(StoredTokens::Active(TokenSet {
                access: AccessToken::new(t.access_token),
                refresh: t.refresh_token.map(RefreshToken::new),
                expires_at: t.expires_at,
                scope: t.scope,
            })),
            (None, false) => None,
        };
        Snapshot {
            revision: Revision(self.revision),
            value,
            health: self.health,
        }
    }

    /// The JSON text (holds the secrets).
    pub(crate) fn encode(&self) -> String {
        // A struct of strings, numbers and a timestamp always serializes.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads the JSON text; the error names where it failed, never what it read.
    pub(crate) fn decode(text: &[u8]) -> Result<Record, TokenStoreError> {
        serde_json::from_slice(text).map_err(|e| {
            TokenStoreError::new(format!(
                "the saved tokens are not readable ({:?} error at line {} column {})",
                e.classify(),
                e.line(),
                e.column()
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;

    fn tokens(access: &str) -> TokenSet {
        TokenSet {
            access: AccessToken::new(access),
            refresh: Some(RefreshToken::new("r")),
            expires_at: Utc::now() + chrono::Duration::seconds(10),
            scope: "orders.read_write offline_access".into(),
        }
    }

    #[tokio::test]
    async fn in_memory_store_saves_and_loads() {
        let store = InMemoryTokenStore::new();
        assert!(store.load_tokens().await.unwrap().is_none());
        assert_eq!(store.install(&tokens("a")).await.unwrap(), Revision(1));
        let loaded = store.load_tokens().await.unwrap().unwrap();
        assert_eq!(loaded.access.expose_secret(), "a");
        let _lock = store.lock().await.unwrap();
    }

    #[tokio::test]
    async fn a_save_over_a_revision_that_moved_on_writes_nothing() {
        let store = InMemoryTokenStore::with_tokens(tokens("a"));
        let read = store.load().await.unwrap().revision;
        let first = StoredTokens::Active(tokens("b"));
        assert_eq!(
            store.save(&first, Some(read)).await.unwrap(),
            Some(Revision(2))
        );
        let late = StoredTokens::Active(tokens("c"));
        assert_eq!(store.save(&late, Some(read)).await.unwrap(), None);
        let kept = store.load_tokens().await.unwrap().unwrap();
        assert_eq!(kept.access.expose_secret(), "b");
        store.remove().await.unwrap();
        let removed = store.load().await.unwrap();
        assert_eq!(removed.revision, Revision(3));
        assert!(removed.value.is_none());
    }

    #[test]
    fn records_round_trip_and_never_show_their_text_in_errors() {
        let health = TokenHealth::installed(Utc::now()).failed(Utc::now(), "HTTP 503");
        let record = Record::new(
            Revision(7),
            Some(&StoredTokens::Active(tokens("secret-a"))),
            &health,
        );
        let text = record.encode();
        let back = Record::decode(text.as_bytes()).unwrap().snapshot();
        assert_eq!(back.revision, Revision(7));
        assert_eq!(back.tokens().unwrap().access.expose_secret(), "secret-a");
        assert_eq!(back.health, health);
        let revoked = Record::new(
            Revision(8),
            Some(&StoredTokens::Revoked),
            &TokenHealth::default(),
        )
        .encode();
        assert!(matches!(
            Record::decode(revoked.as_bytes()).unwrap().snapshot().value,
            Some(StoredTokens::Revoked)
        ));
        let broken = text.replace("\"revision\":7", "\"revision\":\"secret-a\"");
        let error = Record::decode(broken.as_bytes()).err().unwrap().to_string();
        assert!(!error.contains("secret-a"), "{error}");
    }
}

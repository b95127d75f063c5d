//! Shared state of one running mock: the document, the store, the tokens, the OAuth grants, faults,
//! webhook deliveries and the response cache. Everything the HTTP layer, the engine and the
//! overrides reach; it depends on none of them (the engine, which serves requests with this state,
//! is handed to the HTTP layer beside it).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use axum::body::Bytes;
use secrecy::SecretString;
use serde_json::Value;

use crate::auth::MockToken;
use crate::config::Limits;
use crate::delivery::{Dispatcher, Webhook};
use crate::document::Document;
use crate::error::ApiError;
use crate::faults::FaultInjector;
use crate::oauth::OAuth;
use crate::store::Store;

/// The collection of registered webhooks (read by event deliveries).
pub(crate) const WEBHOOKS: &str = "/webhooks";

/// Derived lists by name, with the store generation they were built at.
type Views = HashMap<&'static str, (u64, Arc<Vec<Value>>)>;

/// Everything a request handler can reach.
pub(crate) struct AppState {
    store: RwLock<Store>,
    /// Moves on each time the store is locked for writing (see [`AppState::write`]).
    generation: AtomicU64,
    /// Rendered 200 answers of GET operations, by path and query, with the generation they were
    /// rendered at: a list page is served again without filtering or serializing anything.
    responses: RwLock<ResponseCache>,
    /// Derived lists (the quantities rows of the products), by name, with their generation.
    views: RwLock<Views>,
    /// The document (its operations index the counters below).
    pub doc: Arc<Document>,
    pub tokens: Vec<MockToken>,
    pub admin_token: Option<SecretString>,
    pub oauth: OAuth,
    /// Requests received per operation, indexed like the document's operations.
    pub requests: Box<[AtomicU64]>,
    /// Requests answered per operation (a dropped connection is not an answer).
    pub answered: Box<[AtomicU64]>,
    /// Of those, the 429 answers.
    pub throttled: Box<[AtomicU64]>,
    /// The last requests the operations received, with their headers.
    pub journal: crate::journal::Journal,
    pub faults: FaultInjector,
    pub dispatcher: Arc<Dispatcher>,
    pub limits: Limits,
    /// Whether undeclared body fields are refused (see `MockConfig::strict_fields`).
    pub strict_fields: bool,
    pub seed: u64,
    /// The seed the store was first generated from (a restored snapshot's).
    pub first_seed: u64,
    /// `http://127.0.0.1:PORT/admin/v2`.
    pub base_url: String,
    /// The drift check's forwarding side, when the mock is a proxy ([`MockConfig::proxy`]).
    ///
    /// [`MockConfig::proxy`]: crate::MockConfig::proxy
    pub proxy: Option<crate::drift::Proxy>,
}

/// The cached GET responses by path and query, with their generation, and their bytes in all.
#[derive(Default)]
struct ResponseCache {
    answers: HashMap<String, (u64, Bytes)>,
    bytes: usize,
}

impl ResponseCache {
    /// Keeps `body`, emptying the cache first when it would hold too many answers or bytes.
    fn insert(&mut self, key: String, generation: u64, body: Bytes) {
        if self.answers.len() >= RESPONSE_CACHE_SIZE
            || self.bytes + body.len() > RESPONSE_CACHE_BYTES
        {
            self.answers.clear();
            self.bytes = 0;
        }
        self.bytes += body.len();
        if let Some((_, replaced)) = self.answers.insert(key, (generation, body)) {
            self.bytes -= replaced.len();
        }
    }
}

/// Most bytes of cached responses kept at once (the cache is emptied when it is full). A bound
/// in bytes keeps a client that never asks the same twice (a query parameter of its own on
/// every request) from holding 4,096 pages of 60 records (160 MB); the memory of a cache
/// emptied is reused by the answers after it, where fresh memory had to be zeroed by the
/// kernel first.
const RESPONSE_CACHE_BYTES: usize = 8 << 20;

/// Most cached responses kept at once (the cache is emptied when it is full).
const RESPONSE_CACHE_SIZE: usize = 4096;

/// The parts of an [`AppState`] that are not derived.
pub(crate) struct Parts {
    pub store: Store,
    pub doc: Arc<Document>,
    pub tokens: Vec<MockToken>,
    pub admin_token: Option<SecretString>,
    pub oauth: OAuth,
    pub faults: FaultInjector,
    pub dispatcher: Arc<Dispatcher>,
    pub limits: Limits,
    pub strict_fields: bool,
    pub seed: u64,
    /// The seed the store was first generated from (the restored snapshot's).
    pub first_seed: u64,
    pub base_url: String,
    pub proxy: Option<crate::drift::Proxy>,
}

impl AppState {
    pub fn new(parts: Parts) -> Self {
        let counters = || -> Box<[AtomicU64]> {
            parts
                .doc
                .operations
                .iter()
                .map(|_| AtomicU64::new(0))
                .collect()
        };
        Self {
            store: RwLock::new(parts.store),
            generation: AtomicU64::new(0),
            responses: RwLock::new(ResponseCache::default()),
            views: RwLock::new(HashMap::new()),
            requests: counters(),
            answered: counters(),
            throttled: counters(),
            journal: crate::journal::Journal::default(),
            doc: parts.doc,
            tokens: parts.tokens,
            admin_token: parts.admin_token,
            oauth: parts.oauth,
            faults: parts.faults,
            dispatcher: parts.dispatcher,
            limits: parts.limits,
            strict_fields: parts.strict_fields,
            seed: parts.seed,
            first_seed: parts.first_seed,
            base_url: parts.base_url,
            proxy: parts.proxy,
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

    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Whether the bearer token `presented` may call an operation needing one of `required`:
    /// the configured tokens first, then the OAuth access tokens the token endpoint issued.
    pub fn authorize(&self, presented: Option<&str>, required: &[String]) -> Result<(), ApiError> {
        let Some(presented) = presented else {
            return Err(ApiError::invalid_token());
        };
        if let Some(token) = self.tokens.iter().find(|t| t.matches(presented)) {
            return if token.grant().grants_any(required) {
                Ok(())
            } else {
                Err(ApiError::missing_scope(required))
            };
        }
        self.oauth
            .check(presented, required)
            .unwrap_or_else(|| Err(ApiError::invalid_token()))
    }

    /// Counts an answer of the operation `index` (and whether it was a 429).
    pub fn count_answer(&self, index: usize, status: axum::http::StatusCode) {
        if let Some(counter) = self.answered.get(index) {
            counter.fetch_add(1, Ordering::Relaxed);
        }
        if status == axum::http::StatusCode::TOO_MANY_REQUESTS
            && let Some(counter) = self.throttled.get(index)
        {
            counter.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The requests answered per operation, by `operationId`, every operation of the document.
    pub fn request_counts(&self) -> std::collections::BTreeMap<String, RequestCounts> {
        self.doc
            .operations
            .iter()
            .enumerate()
            .map(|(index, op)| {
                let load = |counters: &[AtomicU64]| {
                    counters
                        .get(index)
                        .map_or(0, |counter| counter.load(Ordering::Relaxed))
                };
                (
                    op.id.clone(),
                    RequestCounts {
                        total: load(&self.answered),
                        too_many_requests: load(&self.throttled),
                    },
                )
            })
            .collect()
    }

    /// Delivers `event` with `data` to every webhook subscribed to it.
    pub fn emit(&self, event: &str, data: &Value) {
        let webhooks: Vec<Webhook> = self
            .read()
            .records(WEBHOOKS)
            .iter()
            .filter_map(Webhook::from_record)
            .collect();
        self.dispatcher.dispatch(&webhooks, event, data);
    }

    /// The derived list `name`, built by `build` once per store generation.
    pub fn view(&self, name: &'static str, build: impl FnOnce() -> Vec<Value>) -> Arc<Vec<Value>> {
        let generation = self.generation();
        if let Some((at, rows)) = self
            .views
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
            && *at == generation
        {
            return rows.clone();
        }
        let rows = Arc::new(build());
        if self.generation() == generation {
            self.views
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(name, (generation, rows.clone()));
        }
        rows
    }

    /// The cached body of a GET answer, if nothing was written since it was rendered.
    pub fn cached(&self, key: &str) -> Option<Bytes> {
        let responses = self
            .responses
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        let (generation, body) = responses.answers.get(key)?;
        (*generation == self.generation()).then(|| body.clone())
    }

    pub fn remember(&self, key: String, generation: u64, body: Bytes) {
        let mut responses = self
            .responses
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        responses.insert(key, generation, body);
    }
}

pub(crate) type Shared = Arc<AppState>;

/// The requests one operation answered (`GET /__admin/requests`, [`MockServer::request_counts`]).
///
/// [`MockServer::request_counts`]: crate::MockServer::request_counts
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RequestCounts {
    /// Every answer, whatever its status (a connection dropped by a fault is not an answer).
    pub total: u64,
    /// The 429 answers among them.
    #[serde(rename = "429")]
    pub too_many_requests: u64,
}

#[cfg(test)]
mod cache_tests {
    use super::*;

    #[test]
    fn the_response_cache_is_bounded_in_bytes_and_in_answers() {
        let mut cache = ResponseCache::default();
        let page = Bytes::from(vec![b' '; 1 << 20]);
        for n in 0..20 {
            cache.insert(format!("/products?n={n}"), 0, page.clone());
            assert!(cache.bytes <= RESPONSE_CACHE_BYTES, "{} bytes", cache.bytes);
            assert_eq!(cache.bytes, cache.answers.len() << 20);
            assert!(cache.answers.contains_key(&format!("/products?n={n}")));
        }
        // The same key again replaces its answer and its bytes.
        cache.insert("/products?n=19".into(), 1, Bytes::from_static(b"[]"));
        assert_eq!(cache.bytes, ((cache.answers.len() - 1) << 20) + 2);

        let mut cache = ResponseCache::default();
        for n in 0..RESPONSE_CACHE_SIZE + 1 {
            cache.insert(n.to_string(), 0, Bytes::from_static(b"{}"));
        }
        assert_eq!(cache.answers.len(), 1, "emptied when full of answers");
    }
}

//! [`StoreAdminBuilder`]: a client's settings, and the [`Runtime`] and [`StoreAdmin`] it builds.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use store_admin_client::{Client, Inner};

use super::StoreAdmin;
use crate::credentials::{Authenticator, Credentials};
use crate::error::Error;
use crate::language::Language;
use crate::ratelimit::{Plan, RateLimit, RateLimiter};
use crate::retry::{RetryBudget, RetryPolicy};
use crate::runtime::{Runtime, TokenOrigin};

/// The live service's base URL.
pub const LIVE_BASE_URL: &str = "https://api.salla.dev/admin/v2";

/// The live accounts host, which serves the OAuth endpoints and `get_user_info`.
pub const LIVE_ACCOUNTS_URL: &str = "https://accounts.salla.sa";

/// Builds a [`StoreAdmin`]. Cloning it clones its settings (a template for many clients).
#[derive(Clone)]
pub struct StoreAdminBuilder {
    base_url: String,
    accounts_url: Option<String>,
    credentials: Option<Credentials>,
    user_agent: String,
    connect_timeout: Duration,
    attempt_timeout: Duration,
    operation_timeout: Duration,
    max_response_bytes: u64,
    retry: RetryPolicy,
    retry_budget: Option<Arc<RetryBudget>>,
    rate_limit: Option<Arc<dyn RateLimiter>>,
    without_rate_limit: bool,
    http: Option<reqwest::Client>,
    language: Option<Language>,
    store: Option<Arc<str>>,
    fair: Option<Arc<crate::fair::FairShare>>,
    drift: bool,
    drift_count: Option<crate::drift::DriftCount>,
}

impl Default for StoreAdminBuilder {
    fn default() -> Self {
        Self {
            base_url: LIVE_BASE_URL.to_string(),
            accounts_url: None,
            credentials: None,
            user_agent: concat!("store-admin-rust/", env!("CARGO_PKG_VERSION")).to_string(),
            connect_timeout: Duration::from_secs(10),
            attempt_timeout: Duration::from_secs(30),
            operation_timeout: Duration::from_secs(120),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            retry: RetryPolicy::default(),
            retry_budget: None,
            rate_limit: None,
            without_rate_limit: false,
            http: None,
            language: None,
            store: None,
            fair: None,
            drift: false,
            drift_count: None,
        }
    }
}

impl fmt::Debug for StoreAdminBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreAdminBuilder")
            .field("base_url", &self.base_url)
            .field("accounts_url", &self.accounts_url)
            .field("credentials", &self.credentials)
            .field("user_agent", &self.user_agent)
            .field("attempt_timeout", &self.attempt_timeout)
            .field("operation_timeout", &self.operation_timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("retry", &self.retry)
            .field("language", &self.language)
            .field("store", &self.store)
            .field("fair", &self.fair)
            .finish_non_exhaustive()
    }
}

/// The largest response body a client reads unless told otherwise: 64 MiB. A page of the service
/// is well under a megabyte; the bound keeps a misbehaving server or proxy from filling memory.
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 64 << 20;

impl StoreAdminBuilder {
    /// The base URL, ending in `/admin/v2` (default: the live service; the mock store's
    /// `base_url()` in tests).
    pub fn with_base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = base_url.into().trim_end_matches('/').to_string();
        self
    }

    /// The accounts host's base URL, where `get_user_info` goes and the only origin besides the
    /// base URL's that receives the access token. Default: the origin of the OAuth credentials'
    /// token URL (with its path up to `/oauth2/token`, so `http://127.0.0.1:8080/oauth2/token`
    /// gives `http://127.0.0.1:8080`); with a fixed token, [`LIVE_ACCOUNTS_URL`] when the base
    /// URL is the live service's and the base URL's origin otherwise (the mock store serves
    /// `get_user_info` at its root).
    pub fn with_accounts_url(mut self, accounts_url: impl Into<String>) -> Self {
        self.accounts_url = Some(accounts_url.into().trim_end_matches('/').to_string());
        self
    }

    /// How requests are authenticated (required).
    pub fn with_credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// A fixed bearer token (shorthand for [`Credentials::bearer`]).
    pub fn with_token(self, token: impl Into<String>) -> Self {
        self.with_credentials(Credentials::bearer(token))
    }

    /// The `User-Agent` header.
    pub fn with_user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    /// How long connecting may take (default 10 s; ignored with [`Self::with_http_client`]).
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How long one attempt may take, body included (default 30 s).
    pub fn with_attempt_timeout(mut self, timeout: Duration) -> Self {
        self.attempt_timeout = timeout;
        self
    }

    /// The largest response body read, in bytes (default [`DEFAULT_MAX_RESPONSE_BYTES`], 64
    /// MiB). A larger answer fails the call with [`Error::Transport`] of kind
    /// [`TransportKind::TooLarge`](crate::error::TransportKind::TooLarge), not retried, as soon
    /// as its `content-length` or the bytes read pass the bound; nothing past it is kept.
    pub fn with_max_response_bytes(mut self, bytes: u64) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    /// How long a whole call may take, retries included (default 120 s).
    pub fn with_operation_timeout(mut self, timeout: Duration) -> Self {
        self.operation_timeout = timeout;
        self
    }

    /// The retry policy (default: 3 attempts, full jitter from 200 ms, at most 20 s a wait).
    pub fn with_retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// The retry budget (default: one of its own, [`RetryBudget::default`]: 500 tokens, a retry
    /// costs 5, a retry after a time-out 10). Give every client of one service the same
    /// `Arc<RetryBudget>`, so that when the service fails, all of them together stop retrying.
    pub fn with_retry_budget(mut self, budget: Arc<RetryBudget>) -> Self {
        self.retry_budget = Some(budget);
        self
    }

    /// The client-side rate limit, so bulk jobs never meet a 429. Default: one of the client's
    /// own, [`RateLimit::learning`] from the Plus plan's 120 a minute (it follows the rate the
    /// store announces); [`RateLimit::per_minute`] or [`RateLimit::plan`] set a ceiling.
    pub fn with_rate_limit(self, rate_limit: RateLimit) -> Self {
        self.with_rate_limiter(Arc::new(rate_limit))
    }

    /// A rate limiter shared with other clients of the same store: an `Arc<RateLimit>` of this
    /// process, or a `RedisRateLimiter` (feature `redis`) shared by every process.
    pub fn with_rate_limiter(mut self, limiter: Arc<dyn RateLimiter>) -> Self {
        self.rate_limit = Some(limiter);
        self.without_rate_limit = false;
        self
    }

    /// No client-side rate limit at all (a 429 with `Retry-After` is still waited out).
    pub fn without_rate_limit(mut self) -> Self {
        self.rate_limit = None;
        self.without_rate_limit = true;
        self
    }

    /// The language every call asks for: `Accept-Language: <tag>` on every request, and
    /// `Content-Language: <tag>` on every request with a body. Default: none, and the service
    /// answers in its default, **Arabic** (validation messages included). One call or a few in
    /// another language: [`StoreAdmin::in_language`]. See [`language`](crate::language).
    ///
    /// ```
    /// use store_admin::{Language, StoreAdmin};
    ///
    /// # fn run() -> Result<(), store_admin::Error> {
    /// let admin = StoreAdmin::builder()
    ///     .with_token("<access token>")
    ///     .with_language(Language::ENGLISH) // or "en-US".parse()?
    ///     .build()?;
    /// assert_eq!(admin.language(), Some(&Language::ENGLISH));
    /// # Ok(()) }
    /// # run().unwrap();
    /// ```
    pub fn with_language(mut self, language: Language) -> Self {
        self.language = Some(language);
        self
    }

    /// Names the store this client calls (the merchant id, say) in its spans
    /// (`store_admin.store`) and, with the `metrics` feature, in its metrics' `store` label.
    /// [`crate::Merchants`] names each store's client so.
    pub fn with_store_label(mut self, store: impl Into<String>) -> Self {
        self.store = Some(Arc::from(store.into()));
        self
    }

    /// Counts drift: each habit of the service's serialisation that an answer needed and each
    /// field it had that the document does not declare, per operation and JSON path, never a
    /// value ([`StoreAdmin::drift`](crate::StoreAdmin::drift) answers the report; see
    /// [`crate::drift`]). Off by default, and then free.
    pub fn with_drift_counting(mut self) -> Self {
        self.drift = true;
        self
    }

    /// Counts drift as [`with_drift_counting`](Self::with_drift_counting) does, into `count`,
    /// which other clients or the service's webhook deliveries may share (see
    /// [`DriftCount`](crate::drift::DriftCount)).
    pub fn with_drift_count(mut self, count: crate::drift::DriftCount) -> Self {
        self.drift_count = Some(count);
        self
    }

    /// Shares `share`'s bound on the calls in flight with the clients of other stores, fairly:
    /// when it is reached, the stores' waiting calls are served in turn (see [`crate::fair`]).
    /// The client queues as its [store label](StoreAdminBuilder::with_store_label).
    pub fn with_fair_share(mut self, share: Arc<crate::fair::FairShare>) -> Self {
        self.fair = Some(share);
        self
    }

    /// Sends with this `reqwest::Client` (its own timeouts and proxies apply).
    pub fn with_http_client(mut self, http: reqwest::Client) -> Self {
        self.http = Some(http);
        self
    }

    fn http_client(&self) -> Result<reqwest::Client, Error> {
        reqwest::Client::builder()
            .user_agent(self.user_agent.as_str())
            .connect_timeout(self.connect_timeout)
            .redirect(crate::redirect::policy_for(&self.base_url))
            // The runtime retries. reqwest's own retries (of HTTP/2 and HTTP/3 refusals, which
            // this client does not speak) would copy every request's headers in case: none.
            .retry(reqwest::retry::never().max_retries_per_request(0))
            .build()
            .map_err(|e| Error::InvalidRequest(format!("HTTP client: {e}")))
    }

    /// This builder with its `reqwest::Client` made now, so that the clients built from its
    /// clones share one connection pool, and with `budget` unless it has a retry budget.
    pub(crate) fn shared(mut self, budget: Arc<RetryBudget>) -> Result<Self, Error> {
        if self.http.is_none() {
            self.http = Some(self.http_client()?);
        }
        self.retry_budget.get_or_insert(budget);
        Ok(self)
    }

    /// Builds the client.
    pub fn build(mut self) -> Result<StoreAdmin, Error> {
        let credentials = self.credentials.take().ok_or_else(|| {
            Error::InvalidRequest(
                "no credentials: call with_token(..) or with_credentials(..) on the builder".into(),
            )
        })?;
        let base = reqwest::Url::parse(&self.base_url).map_err(|e| {
            Error::InvalidRequest(format!("base URL {:?} is not a URL: {e}", self.base_url))
        })?;
        let accounts_url = self
            .accounts_url
            .take()
            .unwrap_or_else(|| accounts_url_for(&credentials, &base));
        let accounts = reqwest::Url::parse(&accounts_url).map_err(|e| {
            Error::InvalidRequest(format!("accounts URL {accounts_url:?} is not a URL: {e}"))
        })?;
        for url in [&base, &accounts] {
            if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
                return Err(Error::InvalidRequest(format!(
                    "{:?} is not an http(s) URL with a host",
                    url.as_str()
                )));
            }
        }
        let http = match self.http.take() {
            Some(http) => http,
            None => self.http_client()?,
        };
        let runtime = Arc::new(Runtime {
            base_url: self.base_url.clone(),
            accounts_url,
            token_origins: [TokenOrigin::of(&base), TokenOrigin::of(&accounts)],
            auth: Authenticator::new(credentials, http.clone()),
            rate_limit: match (self.rate_limit, self.without_rate_limit) {
                (_, true) => None,
                (Some(limiter), false) => Some(limiter),
                (None, false) => Some(Arc::new(RateLimit::learning(Plan::Plus))),
            },
            retry: self.retry,
            budget: self.retry_budget.unwrap_or_default(),
            attempt_timeout: self.attempt_timeout,
            operation_timeout: self.operation_timeout,
            max_response_bytes: self.max_response_bytes,
            language: self.language.clone(),
            fair: self.fair.clone().map(|share| {
                let store = self.store.clone().unwrap_or_else(|| Arc::from(""));
                (share, store)
            }),
            store: self.store.clone(),
            drift: match (&self.drift_count, self.drift) {
                (Some(count), _) => Some(count.0.clone()),
                (None, true) => Some(Arc::new(crate::drift::DriftCounter::default())),
                (None, false) => None,
            },
        });
        let inner = Inner::with_interceptor(runtime.clone());
        let client = Client::new_with_client(&self.base_url, http, inner);
        Ok(StoreAdmin {
            client,
            runtime,
            language: self.language,
        })
    }
}

/// The accounts host of `credentials`: the OAuth token URL up to `/oauth2/token` (its origin when
/// its path ends otherwise); for a fixed token, the live accounts host when `base` is the live
/// service, else `base`'s origin (a mock or staging host serves both), so that a token meant for
/// another host is never sent to the live one.
fn accounts_url_for(credentials: &Credentials, base: &reqwest::Url) -> String {
    match credentials {
        Credentials::OAuth { token_url, .. } => {
            let origin = token_url.origin().ascii_serialization();
            match token_url.path().strip_suffix("/oauth2/token") {
                Some(prefix) => format!("{origin}{prefix}"),
                None => origin,
            }
        }
        Credentials::Static { .. } => {
            let live = reqwest::Url::parse(LIVE_BASE_URL).map(|u| u.origin());
            if live.ok() == Some(base.origin()) {
                LIVE_ACCOUNTS_URL.to_string()
            } else {
                base.origin().ascii_serialization()
            }
        }
    }
}

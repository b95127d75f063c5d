//! [`StoreAdmin`]: the generated client with authentication, rate limiting, retries, timeouts and
//! tracing added to every call through one interception point.
//!
//! `StoreAdmin` dereferences to the generated [`Client`], so every operation of the document is
//! there with the generated builder interface (`admin.list_orders().per_page(60).send()`); nothing
//! is written twice. What the generated code sends passes through [`Runtime`], this crate's
//! implementation of [`store_admin_client::Interceptor`]. Per attempt, it waits for the
//! client-side rate limiter (every client has one: by default [`RateLimit::learning`] at the Plus
//! plan's 120 a minute, which learns the store's own rate from its answers), gets an access token (refreshing it if it expired; a failure ends the
//! call with [`Error::Auth`]) and sets the `Authorization` header (built once per token), sends and
//! reads the whole body within the attempt timeout (a timeout is [`TransportError::TimedOut`]),
//! lets the rate limiter read `X-RateLimit-*`, waits out a 429 that says how long to wait
//! (`Retry-After`) without counting an attempt while the operation's deadline allows (a rate
//! limit is never fatal: see [`retry`](crate::retry)), refreshes the token and
//! replays the request once on 401 `The access token is invalid` (a refresh that fails there ends
//! the call with [`Error::Auth`], unless the token is a static one), and asks the pure
//! [`retry::decide`](crate::retry::decide) (under the shared [`RetryBudget`]) whether to try again.
//!
//! A success goes back to the generated code to decode. Everything else (an error answer, a
//! transport failure, no token) ends the call with this crate's typed [`Error`], which reaches
//! the caller through the generated code unchanged (see [`Error::from`]).
//!
//! The access token goes to two origins only: the API's base URL and the accounts host
//! ([`StoreAdminBuilder::with_accounts_url`]); a request to any other origin is refused with
//! [`Error::InvalidRequest`] before anything is sent. A request whose body cannot be replayed (a
//! stream) is sent once, through the same authorization, rate limiter, timeout and tracing, and
//! is neither replayed after a token refresh nor retried.
//!
//! The language: by default no language header is sent, and the service answers in Arabic.
//! [`StoreAdminBuilder::with_language`] sets it for every call of a client, and
//! [`StoreAdmin::in_language`] for the calls made through a view of it (see
//! [`language`](crate::language)).

use std::fmt;
use std::future::Future;
use std::ops::Deref;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use futures::FutureExt;
use futures::future::Either;
use store_admin_client::{
    BodyError, BoxFuture, Client, Inner, Interceptor, OperationMeta, Refusal,
};
use tracing::Instrument;

use crate::call::keep_failure;
use crate::credentials::{Authenticator, Bearer, Credentials, Unauthorized, classify_unauthorized};
use crate::error::{ApiError, Error, TransportError};
use crate::language::Language;
use crate::ratelimit::{Plan, RateLimit, RateLimiter};
use crate::retry::{
    self, Outcome, RetryBudget, RetryDecision, RetryInput, RetryPolicy, TransportFailure,
};

/// The live service's base URL.
pub const LIVE_BASE_URL: &str = "https://api.salla.dev/admin/v2";

/// The live accounts host, which serves the OAuth endpoints and `get_user_info`.
pub const LIVE_ACCOUNTS_URL: &str = "https://accounts.salla.sa";

/// The client services use. Cheap to clone (the state is shared).
#[derive(Clone)]
pub struct StoreAdmin {
    client: Client,
    runtime: Arc<Runtime>,
    /// The language of this client's calls: the builder's, or a view's ([`StoreAdmin::in_language`]).
    language: Option<Language>,
}

impl fmt::Debug for StoreAdmin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreAdmin")
            .field("base_url", &self.runtime.base_url)
            .field("language", &self.language)
            .field("runtime", &self.runtime)
            .finish()
    }
}

impl Deref for StoreAdmin {
    type Target = Client;

    fn deref(&self) -> &Client {
        &self.client
    }
}

impl StoreAdmin {
    /// Starts a builder (base URL: the live service).
    pub fn builder() -> StoreAdminBuilder {
        StoreAdminBuilder::default()
    }

    /// The generated client (also reachable through `Deref`).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The authenticator: install tokens received from the `app.store.authorize` webhook, or read
    /// how many refreshes ran.
    pub fn authenticator(&self) -> &Authenticator {
        &self.runtime.auth
    }

    /// The base URL calls go to.
    pub fn base_url(&self) -> &str {
        &self.runtime.base_url
    }

    /// The accounts host's base URL, where `get_user_info` goes (see
    /// [`StoreAdminBuilder::with_accounts_url`]).
    pub fn accounts_url(&self) -> &str {
        &self.runtime.accounts_url
    }

    /// The language this client's calls ask for (`Accept-Language`, and `Content-Language` with a
    /// body); `None`: no header, the service answers in its default, Arabic.
    pub fn language(&self) -> Option<&Language> {
        self.language.as_ref()
    }

    /// A view of this client whose calls ask for `language` instead: the per-call override of
    /// [`StoreAdminBuilder::with_language`]. The view shares everything else with the client (the
    /// connection pool, the tokens and their refreshes, the rate limiter, the retry budget); only
    /// the language headers differ. Making one costs a few small allocations.
    ///
    /// ```no_run
    /// # use store_admin::{Error, Language, StoreAdmin};
    /// # use store_admin::prelude::*;
    /// # async fn run(admin: StoreAdmin) -> Result<(), Error> {
    /// // One call in English (its validation messages too):
    /// let statuses = admin.in_language(Language::ENGLISH).list_order_statuses().send().await?;
    /// // Several: keep the view.
    /// let english = admin.in_language("en-US".parse()?);
    /// let orders = english.list_orders().per_page(5).send().await?;
    /// # let _ = (statuses, orders);
    /// # Ok(()) }
    /// ```
    pub fn in_language(&self, language: Language) -> StoreAdmin {
        let interceptor = Arc::new(InLanguage {
            runtime: self.runtime.clone(),
            language: language.clone(),
        });
        let client = Client::new_with_client(
            &self.runtime.base_url,
            progenitor_client::ClientInfo::client(&self.client).clone(),
            Inner::with_interceptor(interceptor),
        );
        StoreAdmin {
            client,
            runtime: self.runtime.clone(),
            language: Some(language),
        }
    }

    /// Sends a request built by hand (any path, e.g. one the document does not describe) through
    /// the same authentication, rate limiting, retries, timeouts and tracing as every operation.
    /// `operation` names it in errors and traces (an `operationId` of the document gives the 401
    /// hint its scopes). Every status comes back as a [`RawResponse`]; see
    /// [`RawResponse::error_for_status`].
    ///
    /// The request must go to the API's origin or the accounts host's: the access token is never
    /// sent anywhere else, so a request to another origin fails with [`Error::InvalidRequest`]
    /// before anything is sent. A body that cannot be replayed (a stream) is sent once and never
    /// retried.
    pub async fn send_raw(
        &self,
        request: reqwest::Request,
        operation: &'static str,
    ) -> Result<RawResponse, Error> {
        let client = progenitor_client::ClientInfo::client(&self.client);
        let Answered { mut response, body } = self
            .runtime
            .call(client, request, operation, self.language.as_ref())
            .await?;
        Ok(RawResponse {
            operation,
            status: response.status(),
            headers: std::mem::take(response.headers_mut()),
            body,
        })
    }
}

/// A response to [`StoreAdmin::send_raw`], body read in full.
#[derive(Debug, Clone)]
pub struct RawResponse {
    operation: &'static str,
    /// The HTTP status.
    pub status: reqwest::StatusCode,
    /// The response headers.
    pub headers: reqwest::header::HeaderMap,
    /// The body.
    pub body: bytes::Bytes,
}

impl RawResponse {
    /// The response itself for a success, [`Error::Api`] (the service's envelope, or the raw
    /// body) for a 4xx or 5xx.
    pub fn error_for_status(self) -> Result<Self, Error> {
        if self.status.is_client_error() || self.status.is_server_error() {
            let operation = OperationMeta::find(self.operation).map(|op| op.operation_id);
            return Err(Error::Api(Box::new(ApiError::from_response(
                self.status,
                &self.headers,
                &self.body,
                operation,
            ))));
        }
        Ok(self)
    }
}

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

/// What every call passes through (see the module documentation).
pub struct Runtime {
    base_url: String,
    accounts_url: String,
    /// The origins that may receive the access token: the base URL's and the accounts host's.
    token_origins: [TokenOrigin; 2],
    auth: Authenticator,
    rate_limit: Option<Arc<dyn RateLimiter>>,
    retry: RetryPolicy,
    budget: Arc<RetryBudget>,
    attempt_timeout: Duration,
    operation_timeout: Duration,
    max_response_bytes: u64,
    /// The client's language ([`StoreAdminBuilder::with_language`]), for the calls made through
    /// the client itself (a view of it, [`InLanguage`], has its own).
    language: Option<Language>,
    /// The store the client calls, as spans and metrics name it
    /// ([`StoreAdminBuilder::with_store_label`]).
    store: Option<Arc<str>>,
    /// The bound on calls in flight this client shares fairly with other stores' clients, and
    /// the store it queues as ([`StoreAdminBuilder::with_fair_share`]).
    fair: Option<(Arc<crate::fair::FairShare>, Arc<str>)>,
}

/// The interception point of a view of the client in another language
/// ([`StoreAdmin::in_language`]): the client's runtime, with the view's language.
struct InLanguage {
    runtime: Arc<Runtime>,
    language: Language,
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("auth", &self.auth)
            .field("rate_limit", &self.rate_limit.is_some())
            .field("retry", &self.retry)
            .field("attempt_timeout", &self.attempt_timeout)
            .field("operation_timeout", &self.operation_timeout)
            .field("language", &self.language)
            .field("store", &self.store)
            .field("fair", &self.fair.as_ref().map(|(share, _)| share))
            .finish_non_exhaustive()
    }
}

/// An origin that may receive the access token: scheme, host and port, compared with a request's
/// URL without building its [`url::Origin`] (which allocates) on every call.
#[derive(Debug)]
struct TokenOrigin {
    scheme: String,
    host: String,
    port: Option<u16>,
}

impl TokenOrigin {
    /// `url`'s origin (`build` admits only http(s) URLs with a host).
    fn of(url: &reqwest::Url) -> Self {
        TokenOrigin {
            scheme: url.scheme().to_owned(),
            host: url.host_str().unwrap_or_default().to_owned(),
            port: url.port_or_known_default(),
        }
    }

    /// Whether `url` has this origin: the tuple origin of the URL standard, which `url` parses to
    /// its canonical form (host lower-cased, IDNA applied, default port elided), as
    /// [`url::Url::origin`] compares it.
    fn is_origin_of(&self, url: &reqwest::Url) -> bool {
        url.scheme() == self.scheme
            && url.host_str() == Some(self.host.as_str())
            && url.port_or_known_default() == self.port
    }
}

/// The documented path of an operation, for the call's span: looked up only when a subscriber
/// (or a `log` logger) records it, not on every call.
struct PathOf(&'static str);

impl fmt::Display for PathOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(OperationMeta::find(self.0).map_or("", |meta| meta.path))
    }
}

/// A call span's name as OpenTelemetry names an HTTP client span: the method and the path's
/// template (`GET /orders/{order_id}`).
struct SpanName<'a>(&'a reqwest::Method, &'static str);

impl fmt::Display for SpanName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.0, PathOf(self.1))
    }
}

/// The last answer to a call, whatever its status: reqwest's response (its status, headers, URL
/// and extensions; its body read) and the whole body.
struct Answered {
    response: reqwest::Response,
    body: bytes::Bytes,
}

/// One attempt's result, body read in full.
enum Attempt {
    Response(reqwest::Response, bytes::Bytes),
    Failed(TransportError, TransportFailure),
}

impl Runtime {
    /// Reads the answer to one attempt, `sent` (what `reqwest::Client::execute` returned for it),
    /// body in full, within `timeout`: connecting, sending and reading the whole body, so that a
    /// trickling body times out too. One timer per attempt (reqwest's own per-request timeout
    /// arms two). The request was handed to reqwest before: this future holds no copy of it.
    async fn send(
        sent: impl Future<Output = reqwest::Result<reqwest::Response>>,
        timeout: Duration,
        limit: u64,
    ) -> Attempt {
        let read = async {
            let mut response = sent.await.map_err(BodyError::Http)?;
            let body = store_admin_client::read_body(&mut response, limit).await?;
            Ok::<_, BodyError>((response, body))
        };
        let error = match tokio::time::timeout(timeout, read).await {
            Ok(Ok((response, body))) => return Attempt::Response(response, body),
            Ok(Err(BodyError::Http(error))) => TransportError::Http(error),
            Ok(Err(BodyError::TooLarge { limit })) => TransportError::TooLarge { limit },
            Err(_) => TransportError::TimedOut(timeout),
        };
        let class = error.failure();
        Attempt::Failed(error, class)
    }

    /// Refuses a URL whose origin may not receive the access token (the message names the origin
    /// only: a path or query may carry data that must not reach logs).
    fn check_origin(&self, url: &reqwest::Url) -> Result<(), String> {
        if self
            .token_origins
            .iter()
            .any(|origin| origin.is_origin_of(url))
        {
            Ok(())
        } else {
            Err(format!(
                "refusing to send the access token to {}: only the API's origin and the accounts \
                 host's receive it (with_base_url, with_accounts_url)",
                url.origin().ascii_serialization()
            ))
        }
    }

    /// One call, in its `store_admin.call` span: the last response whatever its status, or why
    /// there was none. A request to an origin that may not receive the access token fails with
    /// [`Error::InvalidRequest`] before anything is sent. `language` sets the request's language
    /// headers where it has none of its own ([`Language::apply`]).
    ///
    /// The checks are made before the future is: the future holds the request once, in `run`
    /// (an `async` block around `run` would hold it twice). A call's future is allocated on
    /// every call, and past 1 KiB an allocation costs much more (glibc's large bins).
    fn call<'a>(
        &'a self,
        client: &'a reqwest::Client,
        mut request: reqwest::Request,
        operation_id: &'static str,
        language: Option<&Language>,
    ) -> impl Future<Output = Result<Answered, Error>> + Send + 'a {
        if let Some(language) = language {
            let has_body = request.body().is_some();
            language.apply(request.headers_mut(), has_body);
        }
        if let Err(refused) = self.check_origin(request.url()) {
            return Either::Left(std::future::ready(Err(Error::InvalidRequest(refused))));
        }
        // OpenTelemetry's HTTP client conventions (the field values are computed only when a
        // subscriber records the span): never the URL itself, whose query may hold a secret.
        let span = tracing::info_span!(
            "store_admin.call",
            otel.kind = "client",
            otel.name = %SpanName(request.method(), operation_id),
            operation_id,
            "http.request.method" = %request.method(),
            "url.template" = %PathOf(operation_id),
            "server.address" = request.url().host_str(),
            "server.port" = request.url().port_or_known_default(),
            "store_admin.store" = self.store.as_deref(),
            "http.response.status_code" = tracing::field::Empty,
            "http.request.resend_count" = tracing::field::Empty,
            "error.type" = tracing::field::Empty,
        );
        // A span no subscriber records, and no `log` logger either (through tracing's `log`
        // feature, which logs a span's entering and leaving at TRACE), is not entered and left
        // at every poll of the call.
        if span.is_disabled() && log::max_level() < log::LevelFilter::Trace {
            return Either::Right(Either::Left(self.run(
                client,
                request,
                operation_id,
                tracing::Span::none(),
            )));
        }
        Either::Right(Either::Right(
            self.run(client, request, operation_id, span.clone())
                .instrument(span),
        ))
    }

    /// The call itself: the deadline, the retry loop and its budget over [`Runtime::attempt`]
    /// and [`Runtime::replay_after_401`]. An `async` block, not an `async fn`: an `async fn`'s
    /// future keeps its arguments twice, as they came and as its locals (rust-lang/rust#62958),
    /// and the request is most of it. `span` is the call's own, to record its status in: not the
    /// current span, which is the caller's when the call's own is not entered.
    #[expect(
        clippy::manual_async_fn,
        reason = "an `async fn` would hold its arguments twice"
    )]
    fn run<'a>(
        &'a self,
        client: &'a reqwest::Client,
        mut request: reqwest::Request,
        operation_id: &'static str,
        span: tracing::Span,
    ) -> impl Future<Output = Result<Answered, Error>> + Send + 'a {
        async move {
            let started = Instant::now();
            let deadline = started + self.operation_timeout;
            let mut attempt: u32 = 0;
            // The token for the next attempt when a refresh after a 401 already gave one.
            let mut refreshed = None;
            let mut replayed_after_refresh = false;
            loop {
                attempt += 1;
                let tried = self
                    .attempt(client, &mut request, refreshed.take(), attempt, deadline)
                    .await?;
                if !replayed_after_refresh && tried.is_invalid_token() {
                    replayed_after_refresh = true;
                    if let Some(fresh) = self.replay_after_401(&tried.bearer).await? {
                        refreshed = Some(fresh);
                        // The replay is the same attempt, with the new token.
                        attempt -= 1;
                        continue;
                    }
                }
                if let Some(wait) = rate_limited(&tried, deadline) {
                    // Not an attempt: the same one again once the store has room.
                    attempt -= 1;
                    #[cfg(feature = "metrics")]
                    crate::metrics::rate_limited(operation_id, self.store.as_deref());
                    self.wait_out_429(wait, &tried).await;
                    continue;
                }
                match self.retry_decision(&tried, request.method(), attempt, started) {
                    RetryDecision::RetryAfter(wait) if Instant::now() + wait < deadline => {
                        tracing::info!(attempt, wait_ms = wait.as_millis() as u64, "retrying");
                        #[cfg(feature = "metrics")]
                        crate::metrics::retried(operation_id, self.store.as_deref());
                        // Boxed, as every path that waits for more than the service: a call's
                        // future stays small (it is allocated once per call).
                        Box::pin(tokio::time::sleep(wait)).await;
                    }
                    stop => {
                        let store = self.store.as_deref();
                        return finish(
                            tried.outcome,
                            stop,
                            attempt,
                            operation_id,
                            store,
                            started,
                            &span,
                        );
                    }
                }
            }
        }
    }

    /// One attempt: waits for the rate limiter, authorises (once per attempt: a retry after a
    /// long wait gets a token still valid), sends and reads the whole answer within the attempt
    /// timeout (capped by the call's `deadline`), and lets the tracing, the rate limiter and the
    /// retry budget observe it. `refreshed` is the token a refresh after a 401 already gave.
    async fn attempt(
        &self,
        client: &reqwest::Client,
        request: &mut reqwest::Request,
        refreshed: Option<Arc<Bearer>>,
        attempt: u32,
        deadline: Instant,
    ) -> Result<Tried, Error> {
        if let Some(limit) = &self.rate_limit {
            #[cfg(feature = "metrics")]
            let waiting = Instant::now();
            if !limit.try_acquire() {
                limit.acquire().await;
            }
            #[cfg(feature = "metrics")]
            {
                let waited = waiting.elapsed();
                if waited > Duration::from_millis(1) {
                    crate::metrics::limiter_waited(self.store.as_deref(), waited);
                }
            }
        }
        let bearer = match refreshed {
            Some(bearer) => bearer,
            None => self.auth.bearer().await.map_err(Error::Auth)?,
        };
        let value = bearer.authorization.clone().map_err(Error::Auth)?;
        request
            .headers_mut()
            .insert(reqwest::header::AUTHORIZATION, value);
        let remaining = deadline.saturating_duration_since(Instant::now());
        let timeout = self
            .attempt_timeout
            .min(remaining)
            .max(Duration::from_millis(1));
        // The store's turn for a permit of the shared bound, held until the answer is read.
        let _turn = match &self.fair {
            // Boxed, as every path that waits for more than the service.
            Some((share, store)) => Some(Box::pin(share.acquire(store)).await),
            None => None,
        };
        let (to_send, replayable) = take_copy(request);
        let sent = client.execute(to_send);
        let attempt_started = Instant::now();
        // Boxed: awaited in place, the attempt's future would be counted twice in this one.
        let outcome = Box::pin(Self::send(sent, timeout, self.max_response_bytes)).await;
        self.observe(&outcome, attempt, attempt_started.elapsed());
        Ok(Tried {
            outcome,
            bearer,
            replayable,
        })
    }

    /// What every attempt's answer tells: one trace line per attempt (the span carries the
    /// operation, once), the rate limiter's `X-RateLimit-*`, the retry budget's successes.
    fn observe(&self, outcome: &Attempt, attempt: u32, elapsed: Duration) {
        let elapsed_ms = elapsed.as_millis() as u64;
        match outcome {
            Attempt::Response(response, _) => {
                tracing::info!(
                    attempt,
                    status = response.status().as_u16(),
                    elapsed_ms,
                    "attempt"
                );
                if let Some(limit) = &self.rate_limit {
                    let own_bucket = has_own_bucket(response.url());
                    limit.observe_answer(response.status(), response.headers(), own_bucket);
                }
                if response.status().is_success() {
                    self.budget.record_success();
                }
            }
            Attempt::Failed(e, class) => {
                tracing::info!(attempt, error = %e, failure = ?class, elapsed_ms, "attempt failed");
            }
        }
    }

    /// Waits out a 429's `Retry-After`. The store's rate limiter was told (in
    /// [`Runtime::observe`]): its next `acquire` waits, and lets concurrent requests go one
    /// interval apart, not together. Without one, or for an endpoint with a bucket of its own
    /// (which the limiter does not follow), this waits itself, and up to half as long again (at
    /// least a second) at random, so that concurrent requests spread over the wait.
    async fn wait_out_429(&self, wait: Duration, tried: &Tried) {
        tracing::info!(
            wait_ms = wait.as_millis() as u64,
            "rate limited: waiting, not counted as an attempt"
        );
        let own_bucket = matches!(&tried.outcome, Attempt::Response(response, _)
            if has_own_bucket(response.url()));
        if self.rate_limit.is_some() && !own_bucket {
            return;
        }
        let spread = wait
            .max(Duration::from_secs(1))
            .mul_f64(rand::random::<f64>() * 0.5);
        // Boxed, as every path that waits for more than the service.
        Box::pin(tokio::time::sleep(wait + spread)).await;
    }

    /// After a 401 `The access token is invalid`: the refreshed token to replay the request with
    /// once, or `None` when the token is a static one (the 401 and its hint say more than a
    /// refresh could). A refresh that fails ends the call with [`Error::Auth`]: why no token can
    /// be had (the merchant must reinstall, the token endpoint failed...) is the answer, not the
    /// 401.
    async fn replay_after_401(&self, rejected: &Bearer) -> Result<Option<Arc<Bearer>>, Error> {
        // Boxed, as every path that waits for more than the service: a call's future stays small.
        match Box::pin(self.auth.rejected_bearer(&rejected.lease)).await {
            Ok(fresh) => {
                tracing::info!("access token rejected; refreshed it, replaying once");
                #[cfg(feature = "metrics")]
                crate::metrics::refreshed(self.store.as_deref());
                Ok(Some(fresh))
            }
            Err(crate::credentials::AuthError::StaticTokenRejected) => Ok(None),
            Err(e) => {
                tracing::warn!(error = %e, "access token rejected and could not be refreshed");
                Err(Error::Auth(e))
            }
        }
    }

    /// Whether to try again after `tried`: never after a final status or with a body that cannot
    /// be replayed; otherwise the pure [`retry::decide`] under the shared budget.
    fn retry_decision(
        &self,
        tried: &Tried,
        method: &reqwest::Method,
        attempt: u32,
        started: Instant,
    ) -> RetryDecision {
        let outcome = match &tried.outcome {
            Attempt::Response(response, _) if retry::is_final_status(response.status()) => {
                return RetryDecision::Stop(retry::StopReason::Success);
            }
            _ if !tried.replayable => {
                return RetryDecision::Stop(retry::StopReason::NotReplayable);
            }
            Attempt::Response(response, _) => Outcome::Response {
                status: response.status(),
                headers: response.headers(),
            },
            Attempt::Failed(_, class) => Outcome::Transport(*class),
        };
        retry::decide_with_budget(
            &self.retry,
            &RetryInput {
                method,
                outcome,
                attempt,
                elapsed: started.elapsed(),
                jitter: rand::random::<f64>(),
                now: SystemTime::now(),
            },
            &self.budget,
        )
    }
}

/// One attempt's answer, the token it was sent with, and whether the request can be sent again.
struct Tried {
    outcome: Attempt,
    bearer: Arc<Bearer>,
    replayable: bool,
}

impl Tried {
    /// A 401 that says the token itself is invalid, to a request that can be replayed.
    fn is_invalid_token(&self) -> bool {
        matches!(&self.outcome, Attempt::Response(response, body)
            if response.status() == reqwest::StatusCode::UNAUTHORIZED
                && self.replayable
                && is_invalid_token(body))
    }
}

/// The wait a 429 of `tried` asks for ([`retry::rate_limit_wait`]), if the request can be sent
/// again and the wait ends before the call's `deadline`.
fn rate_limited(tried: &Tried, deadline: Instant) -> Option<Duration> {
    let Attempt::Response(response, _) = &tried.outcome else {
        return None;
    };
    if !tried.replayable {
        return None;
    }
    let wait = retry::rate_limit_wait(response.status(), response.headers(), SystemTime::now())?;
    (Instant::now() + wait < deadline).then_some(wait)
}

/// Whether `url` is one of the customers endpoints, which have a rate limit of their own (500
/// requests per 10 minutes) besides the store's: their `X-RateLimit-*` describe that bucket.
fn has_own_bucket(url: &reqwest::Url) -> bool {
    let path = url.path();
    // Asked of every answer: most paths do not hold the word, and one search says so.
    path.contains("customers") && path.split('/').any(|segment| segment == "customers")
}

/// The call's answer once the loop stops: the last response (its status recorded in the call's
/// `span`), or the transport failure that ended it.
fn finish(
    outcome: Attempt,
    stop: RetryDecision,
    attempt: u32,
    operation_id: &'static str,
    store: Option<&str>,
    started: Instant,
    span: &tracing::Span,
) -> Result<Answered, Error> {
    if let RetryDecision::Stop(reason) = stop
        && reason != retry::StopReason::Success
    {
        tracing::debug!(?reason, attempt, "not retrying");
    }
    if !span.is_disabled() && attempt > 1 {
        span.record("http.request.resend_count", attempt - 1);
    }
    #[cfg(not(feature = "metrics"))]
    let _ = (store, started);
    match outcome {
        Attempt::Response(response, body) => {
            let status = response.status();
            if !span.is_disabled() {
                span.record("http.response.status_code", status.as_u16());
                if status.is_client_error() || status.is_server_error() {
                    span.record("error.type", status.as_str());
                }
            }
            #[cfg(feature = "metrics")]
            crate::metrics::call_finished(
                operation_id,
                store,
                started.elapsed(),
                Some(status),
                None,
            );
            Ok(Answered { response, body })
        }
        Attempt::Failed(source, class) => {
            let kind = crate::TransportKind::from(class);
            if !span.is_disabled() {
                span.record("error.type", kind.name());
            }
            #[cfg(feature = "metrics")]
            crate::metrics::call_finished(operation_id, store, started.elapsed(), None, Some(kind));
            Err(Error::Transport {
                operation: Some(operation_id),
                kind,
                source,
            })
        }
    }
}

/// The request to hand reqwest for one attempt, and whether `request` is kept to send again. A
/// streaming body cannot be replayed: it is sent once (`request` is left spent), and neither
/// replayed after a token refresh nor retried. The copy is handed to reqwest at once: the call's
/// future does not hold it across the wait.
fn take_copy(request: &mut reqwest::Request) -> (reqwest::Request, bool) {
    match copy_to_send(request) {
        Some(copy) => (copy, true),
        None => {
            let spent = reqwest::Request::new(request.method().clone(), request.url().clone());
            (std::mem::replace(request, spent), false)
        }
    }
}

/// A copy of `request` to send, the original kept for a replay; `None` when its body is a stream
/// (it cannot be sent twice). What `reqwest::Request::try_clone` makes (method, URL, headers,
/// version, timeout), with fewer allocations on every attempt: `try_clone` sets the copy's
/// timeout through its extensions, which allocates them even when the request has none, and
/// gives the copy's headers no room for those reqwest adds to every request (`User-Agent`), so
/// that adding them grows the map again. A request with a body (bytes, shared, not copied) goes
/// through `try_clone`.
fn copy_to_send(request: &reqwest::Request) -> Option<reqwest::Request> {
    /// Room for the headers the `reqwest::Client` adds (its default headers).
    const ADDED_BY_REQWEST: usize = 2;
    if request.body().is_some() {
        return request.try_clone();
    }
    let mut copy = reqwest::Request::new(request.method().clone(), request.url().clone());
    let headers = copy.headers_mut();
    headers.reserve(request.headers().len() + ADDED_BY_REQWEST);
    // `extend` appends: a header sent several times keeps every value, in order.
    headers.extend(
        request
            .headers()
            .iter()
            .map(|(name, value)| (name.clone(), value.clone())),
    );
    *copy.version_mut() = request.version();
    // The one setting reqwest reads from a request's extensions: set only when there is one.
    if let Some(timeout) = request.timeout() {
        *copy.timeout_mut() = Some(*timeout);
    }
    Some(copy)
}

/// Whether a 401 body says the token itself is invalid (refreshing may help), not a missing scope.
fn is_invalid_token(body: &[u8]) -> bool {
    let Ok(envelope) = serde_json::from_slice::<serde_json::Value>(body) else {
        return false;
    };
    let message = envelope
        .pointer("/error/message")
        .and_then(|m| m.as_str())
        .unwrap_or_default();
    classify_unauthorized(message) == Unauthorized::InvalidToken
}

impl Interceptor for Runtime {
    /// A success goes to the generated code to decode; an error answer, a transport failure or
    /// an authentication failure ends the call with this crate's [`Error`], kept for the caller
    /// (see the `call` module).
    fn execute<'a>(
        &'a self,
        client: &'a reqwest::Client,
        request: reqwest::Request,
        operation: &'a progenitor_client::OperationInfo,
    ) -> BoxFuture<'a, Result<reqwest::Response, Refusal>> {
        intercept(self, client, request, operation, self.language.as_ref())
    }
}

/// One call through `runtime` in `language`, as the generated code expects it back.
fn intercept<'a>(
    runtime: &'a Runtime,
    client: &'a reqwest::Client,
    request: reqwest::Request,
    operation: &'a progenitor_client::OperationInfo,
    language: Option<&'a Language>,
) -> BoxFuture<'a, Result<reqwest::Response, Refusal>> {
    let operation_id = operation.operation_id;
    // `map`, not an `async` block: a block awaiting the moved-in call would hold it twice.
    Box::pin(
        runtime
            .call(client, request, operation_id, language)
            .map(move |result| answer(result, operation_id).map_err(keep_failure)),
    )
}

impl Interceptor for InLanguage {
    /// As [`Runtime`]'s, with the view's language.
    fn execute<'a>(
        &'a self,
        client: &'a reqwest::Client,
        request: reqwest::Request,
        operation: &'a progenitor_client::OperationInfo,
    ) -> BoxFuture<'a, Result<reqwest::Response, Refusal>> {
        intercept(
            &self.runtime,
            client,
            request,
            operation,
            Some(&self.language),
        )
    }
}

/// What the generated code gets back from a call: a success, to decode (reqwest's response, with
/// the body the runtime has read in place of the one it read); or this crate's [`Error`] (an error
/// answer, a transport failure, no token), to keep for the caller.
fn answer(
    result: Result<Answered, Error>,
    operation_id: &'static str,
) -> Result<reqwest::Response, Error> {
    let Answered { response, body } = result?;
    let status = response.status();
    if status.is_client_error() || status.is_server_error() {
        return Err(Error::Api(Box::new(ApiError::from_response(
            status,
            response.headers(),
            &body,
            Some(operation_id),
        ))));
    }
    Ok(with_body(response, body))
}

/// `response`, whose body the runtime has read, with `body` in its place: the same status,
/// version, headers, extensions and URL.
fn with_body(response: reqwest::Response, body: bytes::Bytes) -> reqwest::Response {
    use reqwest::ResponseBuilderExt;
    let url = response.url().clone();
    let (mut parts, _spent) = http::Response::from(response).into_parts();
    // reqwest keeps a response's URL in an extension only its builder extension can write: the
    // answer's extensions lent to a builder for it (one map, not a second one merged in).
    let mut carrier = http::Response::builder();
    if let Some(extensions) = carrier.extensions_mut() {
        std::mem::swap(extensions, &mut parts.extensions);
    }
    if let Ok(carrier) = carrier.url(url).body(()) {
        parts.extensions = carrier.into_parts().0.extensions;
    }
    reqwest::Response::from(http::Response::from_parts(parts, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_answer_handed_back_keeps_its_url_status_headers_and_extensions_with_the_body_read()
    {
        use reqwest::ResponseBuilderExt;
        #[derive(Clone, Debug, PartialEq)]
        struct Marker(u8);
        let url: reqwest::Url = "http://127.0.0.1:9/admin/v2/orders?page=2".parse().unwrap();
        let answer = http::Response::builder()
            .status(201)
            .version(http::Version::HTTP_11)
            .header("x-ratelimit-remaining", "7")
            .extension(Marker(3))
            .url(url.clone())
            .body("spent")
            .unwrap();
        let rebuilt = with_body(
            reqwest::Response::from(answer),
            bytes::Bytes::from_static(b"{\"id\":1}"),
        );
        assert_eq!(rebuilt.url(), &url);
        assert_eq!(rebuilt.status(), reqwest::StatusCode::CREATED);
        assert_eq!(rebuilt.version(), http::Version::HTTP_11);
        assert_eq!(rebuilt.headers()["x-ratelimit-remaining"], "7");
        assert_eq!(rebuilt.extensions().get::<Marker>(), Some(&Marker(3)));
        assert_eq!(rebuilt.bytes().await.unwrap(), &b"{\"id\":1}"[..]);
    }

    #[test]
    fn the_copy_sent_is_the_request_header_for_header() {
        let mut request = reqwest::Request::new(
            reqwest::Method::DELETE,
            "http://127.0.0.1:8080/admin/v2/orders/1?x=1&x=2"
                .parse()
                .unwrap(),
        );
        let headers = request.headers_mut();
        headers.insert(reqwest::header::ACCEPT, "application/json".parse().unwrap());
        headers.append("x-multi", "one".parse().unwrap());
        headers.append("x-multi", "two".parse().unwrap());
        *request.version_mut() = reqwest::Version::HTTP_11;
        *request.timeout_mut() = Some(Duration::from_secs(7));
        let copy = copy_to_send(&request).expect("no body: copied");
        assert_eq!(copy.method(), request.method());
        assert_eq!(copy.url(), request.url());
        assert_eq!(copy.version(), reqwest::Version::HTTP_11);
        assert_eq!(copy.timeout(), Some(&Duration::from_secs(7)));
        assert_eq!(copy.headers(), request.headers());
        let multi: Vec<_> = copy.headers().get_all("x-multi").iter().collect();
        assert_eq!(multi, ["one", "two"], "every value, in order");
        assert!(
            copy.headers().capacity() > copy.headers().len(),
            "room for User-Agent"
        );

        let mut with_body = reqwest::Request::new(reqwest::Method::POST, request.url().clone());
        *with_body.body_mut() = Some(reqwest::Body::from("{\"name\":\"x\"}"));
        let copy = copy_to_send(&with_body).expect("bytes: copied");
        assert_eq!(
            copy.body().and_then(reqwest::Body::as_bytes),
            Some(&b"{\"name\":\"x\"}"[..])
        );

        let stream = futures::stream::iter([Ok::<_, std::io::Error>(bytes::Bytes::from("x"))]);
        *with_body.body_mut() = Some(reqwest::Body::wrap_stream(stream));
        assert!(copy_to_send(&with_body).is_none(), "a stream is sent once");
    }

    #[test]
    fn a_token_origin_matches_what_url_origin_compares() {
        let origins = [
            "http://127.0.0.1:8080/admin/v2",
            "https://api.salla.dev/admin/v2",
            "https://accounts.salla.sa",
            "http://[::1]:9000/x",
        ];
        let requests = [
            "http://127.0.0.1:8080/admin/v2/orders?page=2",
            "http://127.0.0.1:8081/admin/v2/orders",
            "https://127.0.0.1:8080/admin/v2/orders",
            "http://localhost:8080/admin/v2/orders",
            "https://API.Salla.dev:443/admin/v2/products",
            "https://api.salla.dev:8443/admin/v2/products",
            "http://api.salla.dev/admin/v2/products",
            "https://api.salla.dev.evil.example/admin/v2",
            "https://accounts.salla.sa/oauth2/user/info",
            "https://user@accounts.salla.sa/oauth2/user/info",
            "http://[0:0:0:0:0:0:0:1]:9000/y",
            "data:text/plain,hello",
            "file:///etc/passwd",
        ];
        for origin in origins {
            let origin = reqwest::Url::parse(origin).unwrap();
            let token_origin = TokenOrigin::of(&origin);
            for request in requests {
                let request = reqwest::Url::parse(request).unwrap();
                assert_eq!(
                    token_origin.is_origin_of(&request),
                    origin.origin() == request.origin(),
                    "{origin} vs {request}"
                );
            }
        }
    }
}

//! Tokens, where they are kept, and refreshing them safely.
//!
//! The service's refresh tokens are **single use**: a refresh answers a new pair, and presenting an
//! old refresh token again (two refreshes racing) answers `invalid_grant`, revokes both tokens,
//! and the merchant must reinstall the app. So refreshes for one store must never overlap:
//!
//! - in one process, [`Refresher`] lets exactly one caller refresh while the others wait for, and
//!   then share, its result;
//! - across processes, the [`TokenStore`] is re-read under [`TokenStore::lock`] before refreshing,
//!   so a token another process just obtained is used instead of refreshing again;
//! - a refresh runs in its own task, so a caller that gives up (a time-out, a dropped request)
//!   cannot cancel it half way and lose the only valid refresh token.
//!
//! [`Authenticator`] puts these together for the client; [`refresh_token_set`] is the OAuth
//! exchange itself. No type here shows a secret in `Debug` or `Display`.

use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use oauth2::basic::{
    BasicErrorResponse, BasicErrorResponseType, BasicRevocationErrorResponse,
    BasicTokenIntrospectionResponse, BasicTokenType,
};
use oauth2::{
    AuthType, ClientId, ClientSecret, EndpointNotSet, EndpointSet, ExtraTokenFields,
    RequestTokenError, StandardRevocableToken, StandardTokenResponse, TokenResponse, TokenUrl,
};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Deserializer, Serialize};
use subtle::ConstantTimeEq;
use url::Url;

/// The service's token endpoint (authorization code exchange and refresh).
pub const DEFAULT_TOKEN_URL: &str = "https://accounts.salla.sa/oauth2/token";

/// How long an access token lasts when the token response does not say (14 days).
pub const DEFAULT_ACCESS_TOKEN_LIFETIME: Duration = Duration::from_secs(14 * 24 * 3600);

macro_rules! secret_newtype {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone)]
        pub struct $name(SecretString);

        impl $name {
            /// Wraps a secret value.
            pub fn new(value: impl Into<String>) -> Self {
                $name(SecretString::from(value.into()))
            }

            /// The secret itself. Only for putting it on the wire.
            pub fn expose_secret(&self) -> &str {
                self.0.expose_secret()
            }

            /// Constant-time equality of the secrets.
            pub fn ct_eq(&self, other: &Self) -> bool {
                bool::from(
                    self.expose_secret()
                        .as_bytes()
                        .ct_eq(other.expose_secret().as_bytes()),
                )
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(concat!(stringify!($name), "(***)"))
            }
        }

        impl From<SecretString> for $name {
            fn from(value: SecretString) -> Self {
                $name(value)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                String::deserialize(deserializer).map($name::new)
            }
        }
    };
}

secret_newtype! {
    /// An OAuth access token, sent as `Authorization: Bearer <token>`. `Debug` prints
    /// `AccessToken(***)`; there is no `Display` and no `Serialize`.
    AccessToken
}

secret_newtype! {
    /// An OAuth refresh token (single use). `Debug` prints `RefreshToken(***)`; there is no
    /// `Display` and no `Serialize`.
    RefreshToken
}

impl AccessToken {
    /// The `Authorization` header value `Bearer <token>`, marked sensitive (so `http` and
    /// `reqwest` never print it). Fails if the token holds characters a header cannot carry.
    pub fn bearer_header(&self) -> Result<http::HeaderValue, AuthError> {
        let mut value = http::HeaderValue::from_str(&format!("Bearer {}", self.expose_secret()))
            .map_err(|_| AuthError::InvalidTokenCharacters)?;
        value.set_sensitive(true);
        Ok(value)
    }
}

/// A store's current tokens.
#[derive(Clone, Debug)]
pub struct TokenSet {
    /// The access token.
    pub access: AccessToken,
    /// The refresh token; absent unless `offline_access` was granted.
    pub refresh: Option<RefreshToken>,
    /// When the access token stops working.
    pub expires_at: DateTime<Utc>,
    /// The granted scopes, space-separated, as the service sent them.
    pub scope: String,
}

impl TokenSet {
    /// Whether the access token has expired at `now`, or will within `leeway`.
    pub fn is_expired(&self, now: DateTime<Utc>, leeway: Duration) -> bool {
        let leeway = chrono::Duration::from_std(leeway).unwrap_or(chrono::Duration::MAX);
        match now.checked_add_signed(leeway) {
            Some(deadline) => deadline >= self.expires_at,
            None => true,
        }
    }

    /// The granted scopes.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scope.split_ascii_whitespace()
    }

    /// Whether `scope` was granted. `orders.read` is also satisfied by `orders.read_write`
    /// ([`store_admin_client::scope_grants`]).
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes()
            .any(|granted| store_admin_client::scope_grants(granted, scope))
    }

    /// Whether these tokens may call `operation` (one of its scopes is granted).
    pub fn grants(&self, operation: &store_admin_client::OperationMeta) -> bool {
        operation.granted_by(self.scopes())
    }
}

/// A failure of a [`TokenStore`].
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

/// Where one store's tokens are kept between refreshes (and between processes).
///
/// Implementations persist the secrets themselves: [`AccessToken::expose_secret`] gives the
/// text to store.
#[async_trait]
pub trait TokenStore: Send + Sync {
    /// The saved tokens, if any.
    async fn load(&self) -> Result<Option<TokenSet>, TokenStoreError>;

    /// Replaces the saved tokens.
    async fn save(&self, tokens: &TokenSet) -> Result<(), TokenStoreError>;

    /// Excludes other processes from refreshing this store's tokens until the returned guard is
    /// dropped. The default guards nothing, which is right for a store only one process uses;
    /// a store shared between processes must override it.
    async fn lock(&self) -> Result<TokenStoreLock, TokenStoreError> {
        Ok(TokenStoreLock::none())
    }
}

/// A [`TokenStore`] in memory: tokens live as long as the process.
#[derive(Debug, Default)]
pub struct InMemoryTokenStore {
    tokens: Mutex<Option<TokenSet>>,
}

impl InMemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        InMemoryTokenStore::default()
    }

    /// A store holding `tokens`.
    pub fn with_tokens(tokens: TokenSet) -> Self {
        InMemoryTokenStore {
            tokens: Mutex::new(Some(tokens)),
        }
    }
}

#[async_trait]
impl TokenStore for InMemoryTokenStore {
    async fn load(&self) -> Result<Option<TokenSet>, TokenStoreError> {
        Ok(self
            .tokens
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone())
    }

    async fn save(&self, tokens: &TokenSet) -> Result<(), TokenStoreError> {
        *self.tokens.lock().unwrap_or_else(PoisonError::into_inner) = Some(tokens.clone());
        Ok(())
    }
}

/// How the client authenticates.
#[derive(Clone)]
pub enum Credentials {
    /// A fixed access token (for scripts and tests); it is never refreshed.
    Static {
        /// The token.
        token: AccessToken,
    },
    /// OAuth tokens kept in a store and refreshed when they expire or are rejected.
    OAuth {
        /// The app's client id.
        client_id: String,
        /// The app's client secret.
        client_secret: SecretString,
        /// The token endpoint ([`DEFAULT_TOKEN_URL`] for the live service).
        token_url: Url,
        /// Where the store's tokens are kept.
        store: Arc<dyn TokenStore>,
    },
}

impl Credentials {
    /// A fixed bearer token.
    pub fn bearer(token: impl Into<String>) -> Self {
        Credentials::Static {
            token: AccessToken::new(token),
        }
    }

    /// OAuth credentials against the live token endpoint.
    pub fn oauth(
        client_id: impl Into<String>,
        client_secret: SecretString,
        store: Arc<dyn TokenStore>,
    ) -> Self {
        Credentials::OAuth {
            client_id: client_id.into(),
            client_secret,
            token_url: default_token_url(),
            store,
        }
    }

    /// Replaces the token endpoint of OAuth credentials (e.g. a mock server's); no effect on a
    /// static token.
    pub fn with_token_url(mut self, url: Url) -> Self {
        if let Credentials::OAuth { token_url, .. } = &mut self {
            *token_url = url;
        }
        self
    }
}

fn default_token_url() -> Url {
    // A constant that is known to parse; checked by a unit test.
    Url::parse(DEFAULT_TOKEN_URL).expect("DEFAULT_TOKEN_URL is a valid URL")
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Credentials::Static { token } => {
                f.debug_struct("Static").field("token", token).finish()
            }
            Credentials::OAuth {
                client_id,
                client_secret,
                token_url,
                store: _,
            } => f
                .debug_struct("OAuth")
                .field("client_id", client_id)
                .field("client_secret", client_secret)
                .field("token_url", &token_url.as_str())
                .finish_non_exhaustive(),
        }
    }
}

/// Why a refresh or token exchange failed. Never contains a token or the client secret.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// The refresh token was refused (`invalid_grant`): it was already used, expired or revoked.
    /// The service has revoked the store's tokens; only a new installation yields new ones.
    #[error(
        "the refresh token was rejected (invalid_grant): the store's tokens are revoked and the merchant must reinstall the app{}",
        describe(.description)
    )]
    InvalidGrant {
        /// The server's `error_description`, if any.
        description: Option<String>,
    },
    /// The client id or secret was refused (`invalid_client` / `unauthorized_client`).
    #[error("the OAuth client credentials were rejected ({code}){}", describe(.description))]
    InvalidClient {
        /// The HTTP status of the answer.
        status: u16,
        /// The OAuth error code.
        code: String,
        /// The server's `error_description`, if any.
        description: Option<String>,
    },
    /// Another OAuth error response.
    #[error("the token endpoint answered {code}{}", describe(.description))]
    Rejected {
        /// The HTTP status of the answer.
        status: u16,
        /// The OAuth error code.
        code: String,
        /// The server's `error_description`, if any.
        description: Option<String>,
    },
    /// The request did not get a response.
    #[error("token request failed: {0}")]
    Transport(Arc<reqwest::Error>),
    /// The response was not a token response nor an OAuth error (its body is not shown: it may
    /// hold tokens).
    #[error("unexpected token endpoint response (HTTP {status}): {detail}")]
    UnexpectedResponse {
        /// The HTTP status, when known.
        status: u16,
        /// What was wrong, e.g. the JSON path that failed to decode.
        detail: String,
    },
    /// The token endpoint URL was refused by the OAuth client.
    #[error("invalid token endpoint URL: {0}")]
    InvalidTokenUrl(String),
}

impl OAuthError {
    /// The token endpoint's HTTP status, when it answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            OAuthError::InvalidClient { status, .. }
            | OAuthError::Rejected { status, .. }
            | OAuthError::UnexpectedResponse { status, .. } => Some(*status).filter(|s| *s != 0),
            OAuthError::InvalidGrant { .. }
            | OAuthError::Transport(_)
            | OAuthError::InvalidTokenUrl(_) => None,
        }
    }
}

fn describe(description: &Option<String>) -> String {
    match description {
        Some(d) if !d.is_empty() => format!(": {d}"),
        _ => String::new(),
    }
}

/// Extra fields of the service's token response: `expires`, an absolute UTC epoch time.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct ServiceTokenFields {
    #[serde(default)]
    expires: Option<i64>,
}

impl ExtraTokenFields for ServiceTokenFields {}

type ServiceTokenResponse = StandardTokenResponse<ServiceTokenFields, BasicTokenType>;

type ServiceOAuthClient = oauth2::Client<
    BasicErrorResponse,
    ServiceTokenResponse,
    BasicTokenIntrospectionResponse,
    StandardRevocableToken,
    BasicRevocationErrorResponse,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointSet,
>;

/// A failure inside the HTTP adapter handed to `oauth2`.
#[derive(Debug, thiserror::Error)]
enum AdapterError {
    #[error(transparent)]
    Reqwest(#[from] reqwest::Error),
    #[error("cannot build the response: {0}")]
    Http(#[from] http::Error),
}

/// `oauth2`'s HTTP client interface over `reqwest` 0.13, remembering the last status seen.
struct ReqwestAdapter {
    http: reqwest::Client,
    last_status: Arc<Mutex<Option<u16>>>,
}

impl<'c> oauth2::AsyncHttpClient<'c> for ReqwestAdapter {
    type Error = AdapterError;
    type Future = std::pin::Pin<
        Box<dyn Future<Output = Result<oauth2::HttpResponse, AdapterError>> + Send + 'c>,
    >;

    fn call(&'c self, request: oauth2::HttpRequest) -> Self::Future {
        let http = self.http.clone();
        let last_status = Arc::clone(&self.last_status);
        Box::pin(async move {
            let request = reqwest::Request::try_from(request)?;
            let response = http.execute(request).await?;
            *last_status.lock().unwrap_or_else(PoisonError::into_inner) =
                Some(response.status().as_u16());
            let mut builder = http::Response::builder().status(response.status());
            for (name, value) in response.headers() {
                builder = builder.header(name, value);
            }
            let body = response.bytes().await?;
            Ok(builder.body(body.to_vec())?)
        })
    }
}

/// Exchanges a refresh token for a new token set at `token_url`.
///
/// A form-encoded POST (`grant_type=refresh_token`, `refresh_token`, `client_id`,
/// `client_secret` in the body) made with the [`oauth2`] crate's request and response types over
/// the given `reqwest` 0.13 client (`oauth2` 5 only ships an adapter for `reqwest` 0.12, so a
/// small adapter is used instead of its `reqwest` feature).
///
/// The expiry comes from the response's `expires` (epoch seconds; values below 10⁹ are read as
/// a lifetime in seconds; a time not in the future, which can only mean the clocks disagree, is
/// ignored), else from `expires_in`, else [`DEFAULT_ACCESS_TOKEN_LIFETIME`]. If the
/// response carries no new refresh token, the old one is kept (`offline_access` not granted means
/// there was none to begin with).
///
/// `invalid_grant` becomes [`OAuthError::InvalidGrant`]: the merchant must reinstall the app.
/// Never call this twice concurrently for one store: use [`Authenticator`] or [`Refresher`].
pub async fn refresh_token_set(
    http: &reqwest::Client,
    client_id: &str,
    client_secret: &SecretString,
    token_url: &Url,
    refresh_token: &RefreshToken,
) -> Result<TokenSet, OAuthError> {
    let client: ServiceOAuthClient = oauth2::Client::new(ClientId::new(client_id.to_owned()))
        .set_client_secret(ClientSecret::new(client_secret.expose_secret().to_owned()))
        .set_auth_type(AuthType::RequestBody)
        .set_token_uri(TokenUrl::from_url(token_url.clone()));
    let send = ReqwestAdapter {
        http: http.clone(),
        last_status: Arc::new(Mutex::new(None)),
    };
    let now = Utc::now();
    let result = client
        .exchange_refresh_token(&oauth2::RefreshToken::new(
            refresh_token.expose_secret().to_owned(),
        ))
        .request_async(&send)
        .await;
    let status = send
        .last_status
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .unwrap_or(0);
    let response = result.map_err(|e| map_oauth_error(e, status))?;
    Ok(token_set_from_response(&response, now, Some(refresh_token)))
}

fn map_oauth_error(
    error: RequestTokenError<AdapterError, BasicErrorResponse>,
    status: u16,
) -> OAuthError {
    match error {
        RequestTokenError::ServerResponse(response) => {
            let description = response.error_description().cloned();
            match response.error() {
                BasicErrorResponseType::InvalidGrant => OAuthError::InvalidGrant { description },
                BasicErrorResponseType::InvalidClient
                | BasicErrorResponseType::UnauthorizedClient => OAuthError::InvalidClient {
                    status,
                    code: response.error().as_ref().to_owned(),
                    description,
                },
                other => OAuthError::Rejected {
                    status,
                    code: other.as_ref().to_owned(),
                    description,
                },
            }
        }
        RequestTokenError::Request(AdapterError::Reqwest(e)) => {
            OAuthError::Transport(Arc::new(e.without_url()))
        }
        RequestTokenError::Request(AdapterError::Http(e)) => OAuthError::UnexpectedResponse {
            status,
            detail: e.to_string(),
        },
        // The body is deliberately dropped: a 200 body that failed to decode holds tokens.
        RequestTokenError::Parse(e, _body) => OAuthError::UnexpectedResponse {
            status,
            detail: format!(
                "not a token response nor an OAuth error (JSON path `{}`, {:?} error at line {} column {})",
                e.path(),
                e.inner().classify(),
                e.inner().line(),
                e.inner().column()
            ),
        },
        RequestTokenError::Other(message) => OAuthError::UnexpectedResponse {
            status,
            detail: message,
        },
    }
}

fn token_set_from_response(
    response: &ServiceTokenResponse,
    now: DateTime<Utc>,
    previous_refresh: Option<&RefreshToken>,
) -> TokenSet {
    let lifetime = |secs: i64| now.checked_add_signed(chrono::Duration::seconds(secs));
    let expires_at = match response.extra_fields().expires {
        Some(e) if e >= 1_000_000_000 => {
            let at = DateTime::from_timestamp(e, 0).filter(|at| *at > now);
            if at.is_none() {
                // A token issued just now cannot have expired already: the clocks disagree. Taking
                // the time literally would make every caller refresh again at once.
                tracing::warn!(
                    expires = e,
                    "token response `expires` is not in the future; using the default lifetime"
                );
            }
            at
        }
        Some(e) if e > 0 => lifetime(e),
        _ => None,
    }
    .or_else(|| {
        response
            .expires_in()
            .and_then(|d| chrono::Duration::from_std(d).ok())
            .and_then(|d| now.checked_add_signed(d))
    })
    .or_else(|| {
        chrono::Duration::from_std(DEFAULT_ACCESS_TOKEN_LIFETIME)
            .ok()
            .and_then(|d| now.checked_add_signed(d))
    })
    .unwrap_or(now);
    let scope = response
        .scopes()
        .map(|scopes| {
            scopes
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    TokenSet {
        access: AccessToken::new(response.access_token().secret().as_str()),
        refresh: response
            .refresh_token()
            .map(|r| RefreshToken::new(r.secret().as_str()))
            .or_else(|| previous_refresh.cloned()),
        expires_at,
        scope,
    }
}

/// A counter that goes up each time [`Refresher`] installs a new value. A caller remembers the
/// generation of the value it used, so that, when that value is refused, a newer one is
/// recognised as such and reused instead of refreshing again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Generation(pub u64);

impl Generation {
    /// Before any value exists.
    pub const NONE: Generation = Generation(0);
}

/// A value and the generation it was installed at.
#[derive(Debug, Clone)]
pub struct Versioned<T> {
    /// The generation.
    pub generation: Generation,
    /// The value.
    pub value: T,
}

/// The refresh task ended without a result: its function panicked, or the runtime is shutting
/// down. The previous value stays in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the refresh was aborted (it panicked or the runtime is shutting down)")]
pub struct RefreshAborted;

/// Counts a waiting caller until dropped (also when the caller is cancelled while waiting).
struct WaitingGuard<'a>(&'a AtomicU64);

impl<'a> WaitingGuard<'a> {
    fn enter(counter: &'a AtomicU64) -> Self {
        counter.fetch_add(1, Ordering::AcqRel);
        WaitingGuard(counter)
    }
}

impl Drop for WaitingGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

struct Slot<T, E> {
    generation: u64,
    value: Option<T>,
    /// The sequence number and error of the last failed refresh.
    failure: Option<(u64, E)>,
}

/// Single-flight refresh of a shared value (a token set).
///
/// When many callers find the value stale at once, exactly one runs the refresh function and the
/// others wait and receive its result, success or failure. A caller says which generation it saw
/// (see [`Generation`]); if a newer one was installed meanwhile, it gets that without any
/// refresh. A failure is shared with every caller that was already waiting when it happened;
/// callers arriving after it try again.
///
/// The refresh function runs in a spawned task holding the lock, so it completes and its result
/// is installed even if every caller is cancelled: a single-use refresh token is never spent
/// without its replacement being kept. Requires a Tokio runtime.
pub struct Refresher<T, E> {
    slot: Arc<tokio::sync::Mutex<Slot<T, E>>>,
    attempts: Arc<AtomicU64>,
    failures: Arc<AtomicU64>,
    waiting: Arc<AtomicU64>,
    latest: Arc<Mutex<Option<Versioned<T>>>>,
}

impl<T, E> fmt::Debug for Refresher<T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let generation = self
            .latest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map(|v| v.generation);
        f.debug_struct("Refresher")
            .field("generation", &generation)
            .field("attempts", &self.attempts.load(Ordering::Acquire))
            .finish_non_exhaustive()
    }
}

impl<T, E> Refresher<T, E>
where
    T: Clone + Send + 'static,
    E: Clone + Send + From<RefreshAborted> + 'static,
{
    /// A refresher holding `initial` (generation 1), or nothing (generation 0).
    pub fn new(initial: Option<T>) -> Self {
        let generation = u64::from(initial.is_some());
        let latest = initial.clone().map(|value| Versioned {
            generation: Generation(generation),
            value,
        });
        Refresher {
            slot: Arc::new(tokio::sync::Mutex::new(Slot {
                generation,
                value: initial,
                failure: None,
            })),
            attempts: Arc::new(AtomicU64::new(0)),
            failures: Arc::new(AtomicU64::new(0)),
            waiting: Arc::new(AtomicU64::new(0)),
            latest: Arc::new(Mutex::new(latest)),
        }
    }

    /// The current value, without waiting for a refresh in progress.
    pub fn current(&self) -> Option<Versioned<T>> {
        self.latest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// How many times a refresh function has been started.
    pub fn refresh_count(&self) -> u64 {
        self.attempts.load(Ordering::Acquire)
    }

    /// How many callers are waiting for the lock (for diagnostics and tests).
    pub fn waiting(&self) -> u64 {
        self.waiting.load(Ordering::Acquire)
    }

    /// Replaces the value from outside (e.g. tokens received by webhook), as a new generation.
    pub async fn install(&self, value: T) -> Versioned<T> {
        let mut slot = self.slot.lock().await;
        Self::store(&mut slot, &self.latest, value)
    }

    fn store(
        slot: &mut Slot<T, E>,
        latest: &Mutex<Option<Versioned<T>>>,
        value: T,
    ) -> Versioned<T> {
        slot.generation += 1;
        slot.value = Some(value.clone());
        slot.failure = None;
        let versioned = Versioned {
            generation: Generation(slot.generation),
            value,
        };
        *latest.lock().unwrap_or_else(PoisonError::into_inner) = Some(versioned.clone());
        versioned
    }

    /// Makes sure a value newer than `seen` exists: returns it if another caller already
    /// installed one, else runs `refresh` (given the current value) — in exactly one caller at a
    /// time — and installs its result.
    pub async fn refresh<F, Fut>(&self, seen: Generation, refresh: F) -> Result<Versioned<T>, E>
    where
        F: FnOnce(Option<T>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, E>> + Send + 'static,
    {
        let ticket = self.failures.load(Ordering::Acquire);
        let slot = {
            let _waiting = WaitingGuard::enter(&self.waiting);
            Arc::clone(&self.slot).lock_owned().await
        };
        if slot.generation > seen.0
            && let Some(value) = &slot.value
        {
            return Ok(Versioned {
                generation: Generation(slot.generation),
                value: value.clone(),
            });
        }
        if let Some((sequence, error)) = &slot.failure
            && *sequence > ticket
        {
            return Err(error.clone());
        }
        self.attempts.fetch_add(1, Ordering::AcqRel);
        let failures = Arc::clone(&self.failures);
        let latest = Arc::clone(&self.latest);
        let task = tokio::spawn(async move {
            let mut slot = slot;
            match refresh(slot.value.clone()).await {
                Ok(value) => Ok(Self::store(&mut slot, &latest, value)),
                Err(error) => {
                    let sequence = failures.fetch_add(1, Ordering::AcqRel) + 1;
                    slot.failure = Some((sequence, error.clone()));
                    Err(error)
                }
            }
        });
        match task.await {
            Ok(result) => result,
            Err(_) => Err(E::from(RefreshAborted)),
        }
    }
}

/// A token handed out by [`Authenticator`], with the generation it belongs to.
#[derive(Debug, Clone)]
pub struct TokenLease {
    /// The token's generation; give it back to [`Authenticator::rejected`] on a 401.
    pub generation: Generation,
    /// The token.
    pub token: AccessToken,
}

/// Why no usable access token could be had: the kind of [`Error::Auth`](crate::Error::Auth), to
/// match on.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// The refresh token was refused with `invalid_grant` (already used, expired or revoked):
    /// the service has revoked the store's tokens and only a new installation of the app by the
    /// merchant yields new ones. Retrying cannot help.
    #[error(
        "the refresh token was rejected (invalid_grant): the store's tokens are revoked and the merchant must reinstall the app{}",
        describe(.description)
    )]
    ReinstallRequired {
        /// The token endpoint's `error_description`, if any.
        description: Option<String>,
    },
    /// The token endpoint refused the exchange for another reason (client credentials, a bad
    /// request), answered something that is not a token response, or could not be reached.
    #[error("{error}")]
    TokenEndpoint {
        /// The endpoint's HTTP status; `None` when no response came.
        status: Option<u16>,
        /// What went wrong.
        #[source]
        error: OAuthError,
    },
    /// The token store failed.
    #[error(transparent)]
    Store(#[from] TokenStoreError),
    /// The store holds no tokens: the app must be installed (authorized) for this store first.
    #[error("no tokens stored for this store: install the app (authorize) first")]
    NoTokens,
    /// The token expired and there is no refresh token (`offline_access` was not granted).
    #[error(
        "the access token expired and there is no refresh token (request the offline_access scope)"
    )]
    NoRefreshToken,
    /// A static token was rejected; it cannot be refreshed.
    #[error("the static access token was rejected and cannot be refreshed")]
    StaticTokenRejected,
    /// The token contains characters an HTTP header cannot carry.
    #[error("the access token contains characters that cannot be sent in a header")]
    InvalidTokenCharacters,
    /// The refresh was aborted.
    #[error(transparent)]
    Aborted(#[from] RefreshAborted),
}

impl From<OAuthError> for AuthError {
    fn from(error: OAuthError) -> Self {
        match error {
            OAuthError::InvalidGrant { description } => {
                AuthError::ReinstallRequired { description }
            }
            error => AuthError::TokenEndpoint {
                status: error.status(),
                error,
            },
        }
    }
}

/// What a 401 from the service means, read from its error message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unauthorized {
    /// `The access token is invalid`: refresh and try again (see [`Authenticator::rejected`]).
    InvalidToken,
    /// `The access token should have access to one of those scopes: orders.read`: refreshing
    /// will not help; the app must ask for these scopes.
    MissingScope(Vec<String>),
    /// Any other message.
    Other,
}

/// Reads the message of a 401 error body (the service answers 401, not 403, for a missing scope).
pub fn classify_unauthorized(message: &str) -> Unauthorized {
    const SCOPE_MARKER: &str = "scopes:";
    let lower = message.to_ascii_lowercase();
    if let Some(at) = lower.find(SCOPE_MARKER) {
        let scopes = message[at + SCOPE_MARKER.len()..]
            .split([',', ' '])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        return Unauthorized::MissingScope(scopes);
    }
    if lower.contains("token is invalid")
        || lower.contains("invalid token")
        || lower.contains("token has expired")
    {
        return Unauthorized::InvalidToken;
    }
    Unauthorized::Other
}

/// Hands out access tokens for one store, refreshing them when they expire or are rejected,
/// never twice at once (see the module documentation).
pub struct Authenticator {
    credentials: Credentials,
    http: reqwest::Client,
    refresher: Refresher<TokenSet, AuthError>,
    leeway: Duration,
}

impl fmt::Debug for Authenticator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authenticator")
            .field("credentials", &self.credentials)
            .field("refresher", &self.refresher)
            .field("leeway", &self.leeway)
            .finish_non_exhaustive()
    }
}

impl Authenticator {
    /// An authenticator using `http` for token requests. Tokens are refreshed 60 s before they
    /// expire.
    pub fn new(credentials: Credentials, http: reqwest::Client) -> Self {
        let initial = match &credentials {
            Credentials::Static { token } => Some(TokenSet {
                access: token.clone(),
                refresh: None,
                expires_at: DateTime::<Utc>::MAX_UTC,
                scope: String::new(),
            }),
            Credentials::OAuth { .. } => None,
        };
        Authenticator {
            credentials,
            http,
            refresher: Refresher::new(initial),
            leeway: Duration::from_secs(60),
        }
    }

    /// Refresh this long before expiry (default 60 s).
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// How many refreshes (including the first load from the store) were started.
    pub fn refresh_count(&self) -> u64 {
        self.refresher.refresh_count()
    }

    /// How many callers are waiting for a refresh in progress (for diagnostics and tests).
    pub fn waiting(&self) -> u64 {
        self.refresher.waiting()
    }

    /// A token to send now: the current one if it is still valid, else a refreshed one.
    pub async fn token(&self) -> Result<TokenLease, AuthError> {
        let current = self.refresher.current();
        let seen = match &current {
            Some(v) if !v.value.is_expired(Utc::now(), self.leeway) => {
                return Ok(lease(v));
            }
            Some(v) => v.generation,
            None => Generation::NONE,
        };
        self.renew(seen).await
    }

    /// Reports that the service refused `lease` with 401 `The access token is invalid`; returns
    /// a newer token (refreshing at most once however many callers report the same lease).
    /// Do not call it for a missing scope (see [`classify_unauthorized`]).
    pub async fn rejected(&self, lease: &TokenLease) -> Result<TokenLease, AuthError> {
        if matches!(self.credentials, Credentials::Static { .. }) {
            return Err(AuthError::StaticTokenRejected);
        }
        self.renew(lease.generation).await
    }

    /// Installs tokens received another way (the `app.store.authorize` webhook): saved to the
    /// store and used from now on.
    pub async fn install(&self, tokens: TokenSet) -> Result<TokenLease, AuthError> {
        if let Credentials::OAuth { store, .. } = &self.credentials {
            store.save(&tokens).await?;
        }
        Ok(lease(&self.refresher.install(tokens).await))
    }

    async fn renew(&self, seen: Generation) -> Result<TokenLease, AuthError> {
        let Credentials::OAuth {
            client_id,
            client_secret,
            token_url,
            store,
        } = &self.credentials
        else {
            return self
                .refresher
                .current()
                .map(|v| lease(&v))
                .ok_or(AuthError::NoTokens);
        };
        let http = self.http.clone();
        let client_id = client_id.clone();
        let client_secret = client_secret.clone();
        let token_url = token_url.clone();
        let store = Arc::clone(store);
        let leeway = self.leeway;
        let versioned = self
            .refresher
            .refresh(seen, move |current: Option<TokenSet>| async move {
                let _lock = store.lock().await?;
                let stored = store.load().await?;
                // Another process (or an earlier run) may have refreshed already.
                if let Some(stored) = &stored {
                    let newer = match &current {
                        None => true,
                        Some(current) => !stored.access.ct_eq(&current.access),
                    };
                    if newer && !stored.is_expired(Utc::now(), leeway) {
                        return Ok(stored.clone());
                    }
                }
                let refresh = stored
                    .as_ref()
                    .or(current.as_ref())
                    .ok_or(AuthError::NoTokens)?
                    .refresh
                    .clone()
                    .ok_or(AuthError::NoRefreshToken)?;
                let fresh = refresh_token_set(&http, &client_id, &client_secret, &token_url, &refresh)
                    .await?;
                // The old refresh token is spent: losing the new pair would force a reinstall, so
                // a failed save is reported but the new tokens are still used by this process.
                if let Err(error) = store.save(&fresh).await {
                    tracing::error!(%error, "refreshed tokens could not be saved to the token store");
                }
                Ok(fresh)
            })
            .await?;
        Ok(lease(&versioned))
    }
}

fn lease(v: &Versioned<TokenSet>) -> TokenLease {
    TokenLease {
        generation: v.generation,
        token: v.value.access.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    fn tokens(access: &str, refresh: Option<&str>, expires_in_secs: i64) -> TokenSet {
        TokenSet {
            access: AccessToken::new(access),
            refresh: refresh.map(RefreshToken::new),
            expires_at: Utc::now() + chrono::Duration::seconds(expires_in_secs),
            scope: "orders.read_write offline_access".into(),
        }
    }

    #[test]
    fn secret_newtypes_debug_as_stars() {
        assert_eq!(format!("{:?}", AccessToken::new("abc")), "AccessToken(***)");
        assert_eq!(
            format!("{:?}", RefreshToken::new("abc")),
            "RefreshToken(***)"
        );
    }

    #[test]
    fn secret_newtypes_deserialize_from_strings() {
        let t: AccessToken = serde_json::from_str("\"tok\"").unwrap();
        assert_eq!(t.expose_secret(), "tok");
    }

    #[test]
    fn bearer_header_is_sensitive_and_well_formed() {
        let h = AccessToken::new("abc").bearer_header().unwrap();
        assert!(h.is_sensitive());
        assert_eq!(h.to_str().unwrap(), "Bearer abc");
        assert!(matches!(
            AccessToken::new("a\nb").bearer_header(),
            Err(AuthError::InvalidTokenCharacters)
        ));
    }

    #[test]
    fn token_set_expiry_honours_leeway() {
        let t = tokens("a", None, 100);
        let now = Utc::now();
        assert!(!t.is_expired(now, Duration::from_secs(10)));
        assert!(t.is_expired(now, Duration::from_secs(200)));
        assert!(t.is_expired(now, Duration::MAX));
        assert!(tokens("a", None, -1).is_expired(now, Duration::ZERO));
    }

    #[test]
    fn read_write_scope_satisfies_read() {
        let t = tokens("a", None, 100);
        assert!(t.has_scope("orders.read"));
        assert!(t.has_scope("orders.read_write"));
        assert!(t.has_scope("offline_access"));
        assert!(!t.has_scope("products.read"));
        assert_eq!(
            t.scopes().collect::<Vec<_>>(),
            ["orders.read_write", "offline_access"]
        );
    }

    #[test]
    fn default_token_url_parses() {
        assert_eq!(default_token_url().as_str(), DEFAULT_TOKEN_URL);
    }

    #[test]
    fn classify_unauthorized_reads_the_service_messages() {
        assert_eq!(
            classify_unauthorized("The access token is invalid"),
            Unauthorized::InvalidToken
        );
        assert_eq!(
            classify_unauthorized(
                "The access token should have access to one of those scopes: orders.read"
            ),
            Unauthorized::MissingScope(vec!["orders.read".into()])
        );
        assert_eq!(
            classify_unauthorized("should have access to one of those scopes: a.read, b.read"),
            Unauthorized::MissingScope(vec!["a.read".into(), "b.read".into()])
        );
        assert_eq!(classify_unauthorized("Unauthorized"), Unauthorized::Other);
    }

    #[test]
    fn token_set_from_response_reads_absolute_expires() {
        let response: ServiceTokenResponse =
            serde_json::from_str(include_str!("../tests/fixtures/oauth_token.200.json")).unwrap();
        // The sample's `expires` is 1634819484 (2021-10-21T12:31:24Z).
        let before = DateTime::from_timestamp(1_634_000_000, 0).unwrap();
        let t = token_set_from_response(&response, before, None);
        assert_eq!(t.expires_at.timestamp(), 1_634_819_484);
        assert_eq!(t.access.expose_secret(), "KGsnBcNN...");
        assert_eq!(t.refresh.unwrap().expose_secret(), "fWcceFWF...");
        assert_eq!(t.scope, "offline_access orders.read_write");
    }

    #[test]
    fn token_set_from_response_ignores_an_expires_in_the_past() {
        let response: ServiceTokenResponse =
            serde_json::from_str(include_str!("../tests/fixtures/oauth_token.200.json")).unwrap();
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let t = token_set_from_response(&response, now, None);
        assert_eq!(t.expires_at.timestamp(), 1_700_000_000 + 14 * 24 * 3600);
        assert!(!t.is_expired(now, Duration::from_secs(60)));
    }

    #[test]
    fn token_set_from_response_falls_back_to_expires_in_then_default() {
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let r: ServiceTokenResponse =
            serde_json::from_str(r#"{"access_token":"a","token_type":"Bearer","expires_in":3600}"#)
                .unwrap();
        let old = RefreshToken::new("old");
        let t = token_set_from_response(&r, now, Some(&old));
        assert_eq!(t.expires_at.timestamp(), 1_700_003_600);
        assert_eq!(
            t.refresh.unwrap().expose_secret(),
            "old",
            "kept when none is sent"
        );
        let r: ServiceTokenResponse =
            serde_json::from_str(r#"{"access_token":"a","token_type":"bearer","expires":1209600}"#)
                .unwrap();
        let t = token_set_from_response(&r, now, None);
        assert_eq!(
            t.expires_at.timestamp(),
            1_700_000_000 + 1_209_600,
            "small = lifetime"
        );
        let r: ServiceTokenResponse =
            serde_json::from_str(r#"{"access_token":"a","token_type":"bearer"}"#).unwrap();
        let t = token_set_from_response(&r, now, None);
        assert_eq!(t.expires_at.timestamp(), 1_700_000_000 + 14 * 24 * 3600);
        assert!(t.refresh.is_none());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn hundred_concurrent_callers_trigger_exactly_one_refresh() {
        let refresher = Arc::new(Refresher::<u32, AuthError>::new(Some(1)));
        let runs = Arc::new(AtomicUsize::new(0));
        let seen = refresher.current().unwrap().generation;
        let barrier = Arc::new(tokio::sync::Barrier::new(100));
        let tasks: Vec<_> = (0..100)
            .map(|_| {
                let refresher = Arc::clone(&refresher);
                let runs = Arc::clone(&runs);
                let barrier = Arc::clone(&barrier);
                tokio::spawn(async move {
                    barrier.wait().await;
                    refresher
                        .refresh(seen, move |old| async move {
                            runs.fetch_add(1, Ordering::SeqCst);
                            tokio::task::yield_now().await;
                            Ok(old.unwrap_or(0) + 1)
                        })
                        .await
                })
            })
            .collect();
        for task in tasks {
            let v = task.await.unwrap().unwrap();
            assert_eq!(v.value, 2);
            assert_eq!(v.generation, Generation(2));
        }
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        assert_eq!(refresher.refresh_count(), 1);
    }

    #[tokio::test]
    async fn a_caller_with_an_old_generation_gets_the_newer_value_without_refreshing() {
        let refresher = Refresher::<u32, AuthError>::new(Some(1));
        let first = refresher
            .refresh(Generation(1), |_| async { Ok(2) })
            .await
            .unwrap();
        assert_eq!(first.generation, Generation(2));
        let stale = refresher
            .refresh(Generation(1), |_| async { panic!("must not run") })
            .await
            .unwrap();
        assert_eq!(stale.value, 2);
        assert_eq!(refresher.refresh_count(), 1);
        let again = refresher
            .refresh(Generation(2), |old| async move { Ok(old.unwrap() + 1) })
            .await
            .unwrap();
        assert_eq!((again.generation, again.value), (Generation(3), 3));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_failed_refresh_is_shared_with_the_callers_waiting_for_it() {
        let refresher = Arc::new(Refresher::<u32, AuthError>::new(Some(1)));
        let runs = Arc::new(AtomicUsize::new(0));
        let (release, gate) = tokio::sync::oneshot::channel::<()>();
        // The first caller starts the refresh and holds it until released.
        let first = {
            let refresher = Arc::clone(&refresher);
            let runs = Arc::clone(&runs);
            tokio::spawn(async move {
                refresher
                    .refresh(Generation(1), move |_| async move {
                        runs.fetch_add(1, Ordering::SeqCst);
                        let _ = gate.await;
                        Err(AuthError::ReinstallRequired { description: None })
                    })
                    .await
            })
        };
        while refresher.refresh_count() == 0 {
            tokio::task::yield_now().await;
        }
        let waiters: Vec<_> = (0..20)
            .map(|_| {
                let refresher = Arc::clone(&refresher);
                let runs = Arc::clone(&runs);
                tokio::spawn(async move {
                    refresher
                        .refresh(Generation(1), move |_| async move {
                            runs.fetch_add(1, Ordering::SeqCst);
                            Ok(99)
                        })
                        .await
                })
            })
            .collect();
        while refresher.waiting() < 20 {
            tokio::task::yield_now().await;
        }
        release.send(()).unwrap();
        assert!(matches!(
            first.await.unwrap(),
            Err(AuthError::ReinstallRequired { .. })
        ));
        for w in waiters {
            assert!(matches!(
                w.await.unwrap(),
                Err(AuthError::ReinstallRequired { .. })
            ));
        }
        assert_eq!(
            runs.load(Ordering::SeqCst),
            1,
            "one refresh for the whole wave"
        );
        // A caller arriving after the failure tries again.
        let v = refresher
            .refresh(Generation(1), |_| async { Ok(7) })
            .await
            .unwrap();
        assert_eq!((v.generation, v.value), (Generation(2), 7));
        assert_eq!(refresher.waiting(), 0);
    }

    #[tokio::test]
    async fn a_cancelled_caller_does_not_cancel_the_refresh() {
        let refresher = Arc::new(Refresher::<u32, AuthError>::new(Some(1)));
        let (release, gate) = tokio::sync::oneshot::channel::<()>();
        let caller = {
            let refresher = Arc::clone(&refresher);
            tokio::spawn(async move {
                refresher
                    .refresh(Generation(1), move |_| async move {
                        let _ = gate.await;
                        Ok(2)
                    })
                    .await
            })
        };
        while refresher.refresh_count() == 0 {
            tokio::task::yield_now().await;
        }
        caller.abort();
        assert!(caller.await.unwrap_err().is_cancelled());
        release.send(()).unwrap();
        let v = refresher
            .refresh(Generation(1), |_| async { panic!("must not run") })
            .await
            .unwrap();
        assert_eq!((v.generation, v.value), (Generation(2), 2));
    }

    #[tokio::test]
    async fn a_panicking_refresh_is_an_error_and_releases_the_lock() {
        let refresher = Refresher::<u32, AuthError>::new(Some(1));
        let err = refresher
            .refresh(Generation(1), |_| async { panic!("boom") })
            .await
            .unwrap_err();
        assert!(matches!(err, AuthError::Aborted(RefreshAborted)));
        let v = refresher
            .refresh(Generation(1), |_| async { Ok(5) })
            .await
            .unwrap();
        assert_eq!(v.value, 5);
    }

    #[tokio::test]
    async fn in_memory_store_saves_and_loads() {
        let store = InMemoryTokenStore::new();
        assert!(store.load().await.unwrap().is_none());
        store.save(&tokens("a", Some("r"), 10)).await.unwrap();
        let loaded = store.load().await.unwrap().unwrap();
        assert_eq!(loaded.access.expose_secret(), "a");
        let _lock = store.lock().await.unwrap();
    }

    #[tokio::test]
    async fn static_credentials_hand_out_the_token_and_refuse_refresh() {
        let auth = Authenticator::new(Credentials::bearer("static-tok"), reqwest::Client::new());
        let lease = auth.token().await.unwrap();
        assert_eq!(lease.token.expose_secret(), "static-tok");
        assert!(matches!(
            auth.rejected(&lease).await,
            Err(AuthError::StaticTokenRejected)
        ));
    }

    #[tokio::test]
    async fn oauth_with_valid_stored_tokens_loads_once_without_a_token_request() {
        let store = Arc::new(InMemoryTokenStore::with_tokens(tokens(
            "stored",
            Some("r"),
            3600,
        )));
        // An unroutable token URL: any token request would fail the test.
        let creds = Credentials::oauth("id", SecretString::from("cs"), store)
            .with_token_url(Url::parse("http://127.0.0.1:9/token").unwrap());
        let auth = Authenticator::new(creds, reqwest::Client::new());
        for _ in 0..5 {
            assert_eq!(auth.token().await.unwrap().token.expose_secret(), "stored");
        }
        assert_eq!(auth.refresh_count(), 1, "one load from the store");
    }

    #[tokio::test]
    async fn oauth_with_an_empty_store_says_install_first() {
        let creds = Credentials::oauth(
            "id",
            SecretString::from("cs"),
            Arc::new(InMemoryTokenStore::new()),
        );
        let auth = Authenticator::new(creds, reqwest::Client::new());
        assert!(matches!(auth.token().await, Err(AuthError::NoTokens)));
    }

    #[tokio::test]
    async fn oauth_expired_without_refresh_token_is_a_clear_error() {
        let store = Arc::new(InMemoryTokenStore::with_tokens(tokens("old", None, -10)));
        let creds = Credentials::oauth("id", SecretString::from("cs"), store);
        let auth = Authenticator::new(creds, reqwest::Client::new());
        let err = auth.token().await.unwrap_err();
        assert!(matches!(err, AuthError::NoRefreshToken));
        assert!(err.to_string().contains("offline_access"));
    }

    #[tokio::test]
    async fn installed_tokens_are_saved_and_used() {
        let store = Arc::new(InMemoryTokenStore::new());
        let creds = Credentials::oauth("id", SecretString::from("cs"), store.clone());
        let auth = Authenticator::new(creds, reqwest::Client::new());
        auth.install(tokens("from-webhook", Some("r"), 3600))
            .await
            .unwrap();
        assert_eq!(
            auth.token().await.unwrap().token.expose_secret(),
            "from-webhook"
        );
        assert_eq!(
            store.load().await.unwrap().unwrap().access.expose_secret(),
            "from-webhook"
        );
    }
}

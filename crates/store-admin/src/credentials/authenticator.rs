//! Access tokens for one store, refreshed about a day before they expire (and when they are
//! rejected), never twice at once.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use chrono::{DateTime, Utc};

use super::oauth::{describe, refresh_token_set_within};
use super::{
    AccessToken, Credentials, Generation, OAuthError, RefreshAborted, Refresher, StoredTokens,
    TokenHealth, TokenSet, TokenStore, TokenStoreError, Versioned,
};

/// How long before its expiry a token is refreshed (a day): a refresh that fails then leaves a
/// day to notice (see [`health_report`](super::health_report)) while the token still works.
pub const DEFAULT_REFRESH_AHEAD: Duration = Duration::from_secs(24 * 3600);

/// After a refresh ahead of expiry (done or failed), the next one waits this long: a token endpoint
/// that is down is not asked on every call, and a token issued for less than the refresh-ahead
/// window is not refreshed on every call.
const AHEAD_PAUSE: Duration = Duration::from_secs(15 * 60);

/// A token handed out by [`Authenticator`], with the generation it belongs to.
#[derive(Debug, Clone)]
pub struct TokenLease {
    /// The token's generation; give it back to [`Authenticator::rejected`] on a 401.
    pub generation: Generation,
    /// The token.
    pub token: AccessToken,
}

/// The current token ready to send: its lease and its `Authorization` header, built once per
/// token rather than once per request, and until when it may be sent without refreshing.
pub(crate) struct Bearer {
    /// The token and its generation (give it back to [`Authenticator::rejected`] on a 401).
    pub(crate) lease: TokenLease,
    /// `Bearer <token>`, marked sensitive; an error when the token holds characters a header
    /// cannot carry.
    pub(crate) authorization: Result<http::HeaderValue, AuthError>,
    /// `expires_at` less the leeway: from then on the token is refreshed before it is sent.
    /// `None` when that instant cannot be represented (the token is then checked every time).
    usable_until: Option<SystemTime>,
    /// `expires_at` less the refresh-ahead window: from then on a refresh is tried first, and the
    /// token still used if it fails. `None` when that instant cannot be represented.
    due_from: Option<SystemTime>,
}

/// `expires_at` less `before`, as a system time.
fn before_expiry(expires_at: DateTime<Utc>, before: Duration) -> Option<SystemTime> {
    chrono::Duration::from_std(before)
        .ok()
        .and_then(|before| expires_at.checked_sub_signed(before))
        .and_then(|until| {
            let since_epoch = until.signed_duration_since(DateTime::UNIX_EPOCH);
            SystemTime::UNIX_EPOCH.checked_add(since_epoch.to_std().ok()?)
        })
}

impl Bearer {
    fn new(v: &Versioned<TokenSet>, leeway: Duration, ahead: Duration) -> Self {
        Bearer {
            lease: lease(v),
            authorization: v.value.access.bearer_header(),
            usable_until: before_expiry(v.value.expires_at, leeway),
            due_from: before_expiry(v.value.expires_at, ahead.max(leeway)),
        }
    }

    /// Whether a refresh ahead of expiry is due at `now`.
    fn is_due_at(&self, now: SystemTime) -> bool {
        self.due_from.is_none_or(|from| now >= from)
    }

    /// Whether the token may be sent at `now` without refreshing it first (the same rule as
    /// [`TokenSet::is_expired`] with the authenticator's leeway).
    fn is_usable_at(&self, now: SystemTime) -> bool {
        self.usable_until.is_some_and(|until| now < until)
    }
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
    ahead: Duration,
    token_timeout: Duration,
    /// The newest token handed out, ready to send: a call takes it without cloning the token set
    /// or formatting the header.
    ready: Mutex<Option<Arc<Bearer>>>,
    /// No refresh ahead of expiry before this instant (see [`AHEAD_PAUSE`]).
    ahead_after: Mutex<Option<std::time::Instant>>,
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
    /// An authenticator using `http` for token requests. Tokens are refreshed
    /// [`DEFAULT_REFRESH_AHEAD`] (a day) before they expire, the current one still used if
    /// that fails, and at the latest 60 s before.
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
            ahead: DEFAULT_REFRESH_AHEAD,
            token_timeout: Duration::from_secs(20),
            ready: Mutex::new(None),
            ahead_after: Mutex::new(None),
        }
    }

    /// Try a refresh this long before expiry (default [`DEFAULT_REFRESH_AHEAD`], a day; zero:
    /// only at the leeway). A failure then is recorded in the token store's health and the
    /// current token used; the next try waits 15 minutes.
    pub fn with_refresh_ahead(mut self, ahead: Duration) -> Self {
        self.ahead = ahead;
        self
    }

    /// How long a token request may take (default 20 s; never more than two fifths of the token
    /// store's lock time to live, see [`TokenStore::lock_ttl`]).
    pub fn with_token_timeout(mut self, timeout: Duration) -> Self {
        self.token_timeout = timeout;
        self
    }

    /// Never send a token this close to its expiry: refresh first, and fail if that fails
    /// (default 60 s).
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
        Ok(self.bearer().await?.lease.clone())
    }

    /// [`Self::token`] ready to send. The newest token, still valid, is taken as it is, without
    /// waiting; only a refresh (boxed: a call's future does not carry its size) waits. A token
    /// installed by a refresh whose caller went away (the refresh still ends, in its own task) is
    /// newer than the one kept: it is taken up here.
    pub(crate) async fn bearer(&self) -> Result<Arc<Bearer>, AuthError> {
        let ready = self
            .ready
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let now = SystemTime::now();
        let ready = match ready {
            Some(ready)
                if ready.is_usable_at(now)
                    && ready.lease.generation == self.refresher.generation() =>
            {
                ready
            }
            _ => Box::pin(self.current_or_renewed()).await?,
        };
        if ready.is_due_at(now) && ready.is_usable_at(now) && !self.ahead_paused() {
            return Box::pin(self.refresh_ahead(ready)).await;
        }
        Ok(ready)
    }

    fn ahead_paused(&self) -> bool {
        self.ahead_after
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some_and(|after| std::time::Instant::now() < after)
    }

    /// Refreshes `ready` ahead of its expiry. Revoked tokens (`invalid_grant`) are an error; any
    /// other failure is logged (and recorded in the store's health by the refresh) and `ready`,
    /// still valid, is used.
    async fn refresh_ahead(&self, ready: Arc<Bearer>) -> Result<Arc<Bearer>, AuthError> {
        if matches!(self.credentials, Credentials::Static { .. }) {
            return Ok(ready);
        }
        *self
            .ahead_after
            .lock()
            .unwrap_or_else(PoisonError::into_inner) =
            Some(std::time::Instant::now() + AHEAD_PAUSE);
        match self.renew(ready.lease.generation).await {
            Ok(renewed) => Ok(renewed),
            Err(error @ AuthError::ReinstallRequired { .. }) => Err(error),
            Err(error) => {
                tracing::warn!(
                    %error,
                    "refreshing the access token ahead of its expiry failed; it is used until it nearly expires"
                );
                Ok(ready)
            }
        }
    }

    async fn current_or_renewed(&self) -> Result<Arc<Bearer>, AuthError> {
        let current = self.refresher.current();
        let seen = match &current {
            Some(v) if !v.value.is_expired(Utc::now(), self.leeway) => {
                return Ok(self.remember(v));
            }
            Some(v) => v.generation,
            None => Generation::NONE,
        };
        self.renew(seen).await
    }

    /// `v` ready to send, kept as the token calls take unless a newer generation is kept already.
    fn remember(&self, v: &Versioned<TokenSet>) -> Arc<Bearer> {
        let bearer = Arc::new(Bearer::new(v, self.leeway, self.ahead));
        let mut ready = self.ready.lock().unwrap_or_else(PoisonError::into_inner);
        if ready
            .as_ref()
            .is_none_or(|kept| kept.lease.generation <= v.generation)
        {
            *ready = Some(Arc::clone(&bearer));
        }
        bearer
    }

    /// Reports that the service refused `lease` with 401 `The access token is invalid`; returns
    /// a newer token (refreshing at most once however many callers report the same lease).
    /// Do not call it for a missing scope (see [`classify_unauthorized`]).
    pub async fn rejected(&self, lease: &TokenLease) -> Result<TokenLease, AuthError> {
        Ok(self.rejected_bearer(lease).await?.lease.clone())
    }

    /// [`Self::rejected`], the newer token ready to send.
    pub(crate) async fn rejected_bearer(
        &self,
        lease: &TokenLease,
    ) -> Result<Arc<Bearer>, AuthError> {
        if matches!(self.credentials, Credentials::Static { .. }) {
            return Err(AuthError::StaticTokenRejected);
        }
        self.renew(lease.generation).await
    }

    /// Installs tokens received another way (the `app.store.authorize` webhook): saved to the
    /// store (over anything saved, a revoked mark included) and used from now on.
    pub async fn install(&self, tokens: TokenSet) -> Result<TokenLease, AuthError> {
        if let Credentials::OAuth { store, .. } = &self.credentials {
            store.install(&tokens).await?;
        }
        let installed = self.refresher.install(tokens).await;
        Ok(self.remember(&installed).lease.clone())
    }

    async fn renew(&self, seen: Generation) -> Result<Arc<Bearer>, AuthError> {
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
                .map(|v| self.remember(&v))
                .ok_or(AuthError::NoTokens);
        };
        let exchange = Exchange {
            http: self.http.clone(),
            client_id: client_id.clone(),
            client_secret: client_secret.clone(),
            token_url: token_url.clone(),
            // The token request ends well before the lock lapses, so a holder can never still
            // be refreshing when another process takes the lock over.
            timeout: match store.lock_ttl() {
                Some(ttl) => self.token_timeout.min(ttl * 2 / 5),
                None => self.token_timeout,
            },
        };
        let store = Arc::clone(store);
        let leeway = self.leeway;
        let ahead = self.ahead.max(leeway);
        let versioned = self
            .refresher
            .refresh(seen, move |current: Option<TokenSet>| {
                refresh_under_lock(store, exchange, current, leeway, ahead)
            })
            .await?;
        Ok(self.remember(&versioned))
    }
}

/// Whether `stored` replaces `current` (another process refreshed) and is usable now.
fn is_newer_and_valid(stored: &TokenSet, current: Option<&TokenSet>, leeway: Duration) -> bool {
    let newer = current.is_none_or(|current| !stored.access.ct_eq(&current.access));
    newer && !stored.is_expired(Utc::now(), leeway)
}

/// Records a failed refresh in the store's health (over the revision read, under the lock). A
/// failure to record is logged: the refresh's own error is what the caller must see.
async fn record_failure(
    store: &dyn TokenStore,
    value: &StoredTokens,
    health: &TokenHealth,
    revision: super::Revision,
    reason: String,
) {
    let health = health.failed(Utc::now(), reason);
    if let Err(error) = store.save_with_health(value, &health, Some(revision)).await {
        tracing::error!(%error, "a failed refresh could not be recorded in the token store");
    }
}

/// What a refresh needs to call the token endpoint.
struct Exchange {
    http: reqwest::Client,
    client_id: String,
    client_secret: secrecy::SecretString,
    token_url: url::Url,
    timeout: Duration,
}

/// The refresh of one store's tokens, under the store's lock (see the module documentation):
///
/// 1. take the lock (waiting for another process's refresh), then read the store (a first read
///    without the lock saves taking it when another process already saved usable tokens);
/// 2. tokens another process saved meanwhile, still valid, are used as they are: no refresh;
/// 3. revoked tokens end here with [`AuthError::ReinstallRequired`], without presenting the spent
///    refresh token again;
/// 4. else the refresh token is exchanged, and the new pair saved **before** anyone uses it, only
///    over the revision read (a holder whose lock lapsed cannot overwrite a newer pair);
/// 5. an `invalid_grant` is saved as revoked, so that every other process stops at step 3.
async fn refresh_under_lock(
    store: Arc<dyn TokenStore>,
    exchange: Exchange,
    current: Option<TokenSet>,
    leeway: Duration,
    ahead: Duration,
) -> Result<TokenSet, AuthError> {
    // Tokens another process saved are taken without the lock when they are usable as they are
    // and not due for a refresh themselves.
    if let Some(stored) = store.load().await?.tokens()
        && is_newer_and_valid(stored, current.as_ref(), ahead)
    {
        return Ok(stored.clone());
    }
    let _lock = store.lock().await?;
    let snapshot = store.load().await?;
    let base = match snapshot.value.clone() {
        Some(StoredTokens::Revoked) => {
            return Err(AuthError::ReinstallRequired {
                description: Some("the saved tokens were revoked earlier".into()),
            });
        }
        Some(StoredTokens::Active(stored)) => {
            // Another process refreshed it (a newer pair, usable): no refresh here. Taken even
            // when it is due too: one refresh at a time does not need two.
            if is_newer_and_valid(&stored, current.as_ref(), leeway) {
                return Ok(stored);
            }
            stored
        }
        None => current.ok_or(AuthError::NoTokens)?,
    };
    let stored = snapshot.tokens().is_some();
    let refresh = base.refresh.clone().ok_or(AuthError::NoRefreshToken)?;
    let fresh = refresh_token_set_within(
        &exchange.http,
        &exchange.client_id,
        &exchange.client_secret,
        &exchange.token_url,
        &refresh,
        exchange.timeout,
    )
    .await;
    let fresh = match fresh {
        Ok(fresh) => fresh,
        Err(OAuthError::InvalidGrant { description }) => {
            let health = snapshot.health.failed(
                Utc::now(),
                format!("invalid_grant{}", describe(&description)),
            );
            if let Err(error) = store
                .save_with_health(&StoredTokens::Revoked, &health, Some(snapshot.revision))
                .await
            {
                tracing::error!(%error, "the revoked tokens could not be marked in the token store");
            }
            return Err(AuthError::ReinstallRequired { description });
        }
        Err(error) => {
            if stored {
                record_failure(
                    store.as_ref(),
                    &StoredTokens::Active(base),
                    &snapshot.health,
                    snapshot.revision,
                    format!("refresh failed: {error}"),
                )
                .await;
            }
            return Err(error.into());
        }
    };
    match store
        .save_with_health(
            &StoredTokens::Active(fresh.clone()),
            &snapshot.health.refreshed(Utc::now()),
            Some(snapshot.revision),
        )
        .await
    {
        Ok(Some(_)) => Ok(fresh),
        Ok(None) => {
            // Another process saved a pair after this one read the store: its lock lapsed. Keep
            // the saved pair (newer) and use it if it is usable; this pair still works here.
            tracing::error!(
                "the token store moved on during this refresh (the lock lapsed); the newer saved pair is kept"
            );
            match store.load_tokens().await {
                Ok(Some(saved)) if !saved.is_expired(Utc::now(), leeway) => Ok(saved),
                _ => Ok(fresh),
            }
        }
        Err(error) => {
            // The old refresh token is spent: losing the new pair would force a reinstall, so
            // a failed save is reported but the new tokens are still used by this process.
            tracing::error!(%error, "refreshed tokens could not be saved to the token store");
            Ok(fresh)
        }
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
    use crate::credentials::*;

    fn tokens(access: &str, refresh: Option<&str>, expires_in_secs: i64) -> TokenSet {
        TokenSet {
            access: AccessToken::new(access),
            refresh: refresh.map(RefreshToken::new),
            expires_at: Utc::now() + chrono::Duration::seconds(expires_in_secs),
            scope: "orders.read_write offline_access".into(),
        }
    }

    /// OAuth credentials whose store holds `access` (valid for an hour, with a refresh token),
    /// and whose token URL is unroutable: any token request fails.
    fn offline_oauth(access: &str) -> Authenticator {
        let store = Arc::new(InMemoryTokenStore::with_tokens(tokens(
            access,
            Some("r"),
            2 * 86_400,
        )));
        let creds = Credentials::oauth("id", SecretString::from("cs"), store)
            .with_token_url(Url::parse("http://127.0.0.1:9/token").unwrap());
        Authenticator::new(creds, reqwest::Client::new())
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
        // Any token request would fail the test.
        let auth = offline_oauth("stored");
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
            store
                .load_tokens()
                .await
                .unwrap()
                .unwrap()
                .access
                .expose_secret(),
            "from-webhook"
        );
    }
    #[tokio::test]
    async fn the_token_ready_to_send_follows_installs_and_is_not_used_past_its_leeway() {
        // A refresh fails, and says so.
        let auth = offline_oauth("first");
        let header = |bearer: &Bearer| {
            let value = bearer.authorization.clone().expect("a header");
            assert!(value.is_sensitive());
            value.to_str().unwrap().to_owned()
        };
        let first = auth.bearer().await.unwrap();
        assert_eq!(header(&first), "Bearer first");
        assert!(
            Arc::ptr_eq(&first, &auth.bearer().await.unwrap()),
            "built once"
        );
        auth.install(tokens("second", Some("r"), 3600))
            .await
            .unwrap();
        assert_eq!(header(&auth.bearer().await.unwrap()), "Bearer second");
        // Valid for 30 s more, but the leeway is 60 s: refreshed first, never sent as it is.
        auth.install(tokens("third", Some("r"), 30)).await.unwrap();
        assert!(matches!(
            auth.bearer().await,
            Err(AuthError::TokenEndpoint { .. })
        ));
    }
    #[tokio::test]
    async fn a_token_installed_by_a_refresh_whose_caller_went_away_is_taken_up() {
        let auth = offline_oauth("first");
        assert_eq!(
            auth.bearer().await.unwrap().lease.token.expose_secret(),
            "first"
        );
        // What the refresh task installs when every caller was cancelled: nobody kept it ready.
        auth.refresher
            .install(tokens("refreshed", Some("r2"), 2 * 86_400))
            .await;
        let bearer = auth.bearer().await.unwrap();
        assert_eq!(bearer.lease.token.expose_secret(), "refreshed");
        assert_eq!(
            bearer.authorization.clone().unwrap().to_str().unwrap(),
            "Bearer refreshed"
        );
    }
    #[tokio::test]
    async fn a_token_a_header_cannot_carry_is_refused_when_sent_not_when_handed_out() {
        let auth = Authenticator::new(Credentials::bearer("bad\ntoken"), reqwest::Client::new());
        assert_eq!(
            auth.token().await.unwrap().token.expose_secret(),
            "bad\ntoken"
        );
        assert!(matches!(
            auth.bearer().await.unwrap().authorization,
            Err(AuthError::InvalidTokenCharacters)
        ));
    }
}

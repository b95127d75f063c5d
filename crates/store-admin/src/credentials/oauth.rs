//! The OAuth exchanges with the service's accounts host: the authorization-code flow
//! ([`AuthorizationRequest`]) and the refresh ([`refresh_token_set`]).

use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};
use oauth2::basic::{
    BasicErrorResponse, BasicErrorResponseType, BasicRevocationErrorResponse,
    BasicTokenIntrospectionResponse, BasicTokenType,
};
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointNotSet,
    EndpointSet, ExtraTokenFields, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl,
    RequestTokenError, Scope, StandardRevocableToken, StandardTokenResponse, TokenResponse,
    TokenUrl,
};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};
use url::Url;

use super::{AccessToken, RefreshToken, TokenSet};

/// The service's token endpoint (authorization code exchange and refresh).
pub const DEFAULT_TOKEN_URL: &str = "https://accounts.salla.sa/oauth2/token";

/// The service's authorize endpoint (where the merchant approves the app).
pub const DEFAULT_AUTHORIZE_URL: &str = "https://accounts.salla.sa/oauth2/auth";

/// How long an access token lasts when the token response does not say (14 days).
pub const DEFAULT_ACCESS_TOKEN_LIFETIME: Duration = Duration::from_secs(14 * 24 * 3600);

/// The most bytes of a token endpoint's answer (and of the user information's) that are read:
/// 1 MiB. A token response is a few hundred bytes; a larger answer fails with
/// [`OAuthError::TooLarge`] as soon as its `content-length` or the bytes read pass the bound.
pub const MAX_TOKEN_RESPONSE_BYTES: u64 = 1024 * 1024;

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
    /// The token endpoint answered with a redirect (or the HTTP client followed one): refused.
    /// A token request carries the app's client secret (and a code, a PKCE verifier or a refresh
    /// token) in its body, which is never sent again, to the redirect's target or anywhere else.
    #[error(
        "the token endpoint redirected the request{} to {target}: refused (a token request, which \
         carries the app's secrets, is only sent to the token URL; give the token URL the \
         redirect points to if it is the right one)",
        status_of(*.status)
    )]
    Redirected {
        /// The redirect's HTTP status (`307`, `302`, ...); `0` when the HTTP client followed the
        /// redirect itself and only its end was seen.
        status: u16,
        /// Where the redirect pointed: its origin and path (never its query).
        target: String,
    },
    /// The token endpoint's answer is larger than [`MAX_TOKEN_RESPONSE_BYTES`]: refused, and
    /// nothing past the bound was read.
    #[error("the token endpoint's answer (HTTP {status}) is larger than {limit} bytes: refused")]
    TooLarge {
        /// The HTTP status of the answer.
        status: u16,
        /// The bound, in bytes.
        limit: u64,
    },
}

impl OAuthError {
    /// The token endpoint's HTTP status, when it answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            OAuthError::InvalidClient { status, .. }
            | OAuthError::Rejected { status, .. }
            | OAuthError::UnexpectedResponse { status, .. }
            | OAuthError::Redirected { status, .. }
            | OAuthError::TooLarge { status, .. } => Some(*status).filter(|s| *s != 0),
            OAuthError::InvalidGrant { .. }
            | OAuthError::Transport(_)
            | OAuthError::InvalidTokenUrl(_) => None,
        }
    }
}

fn status_of(status: u16) -> String {
    match status {
        0 => String::new(),
        status => format!(" (HTTP {status})"),
    }
}

pub(super) fn describe(description: &Option<String>) -> String {
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

type ServiceOAuthClient<HasAuthUrl = EndpointNotSet, HasTokenUrl = EndpointSet> = oauth2::Client<
    BasicErrorResponse,
    ServiceTokenResponse,
    BasicTokenIntrospectionResponse,
    StandardRevocableToken,
    BasicRevocationErrorResponse,
    HasAuthUrl,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    HasTokenUrl,
>;

/// The client at `token_url`, its credentials sent in the request body (as the service wants).
fn token_client(
    client_id: &str,
    client_secret: &SecretString,
    token_url: &Url,
) -> ServiceOAuthClient {
    let client: ServiceOAuthClient<EndpointNotSet, EndpointNotSet> =
        oauth2::Client::new(ClientId::new(client_id.to_owned()));
    client
        .set_client_secret(ClientSecret::new(client_secret.expose_secret().to_owned()))
        .set_auth_type(AuthType::RequestBody)
        .set_token_uri(TokenUrl::from_url(token_url.clone()))
}

/// A failure inside the HTTP adapter handed to `oauth2`.
#[derive(Debug, thiserror::Error)]
enum AdapterError {
    #[error(transparent)]
    Reqwest(#[from] reqwest::Error),
    #[error("cannot build the response: {0}")]
    Http(#[from] http::Error),
    #[error("redirected to {target}")]
    Redirected { status: u16, target: String },
    #[error("larger than {limit} bytes")]
    TooLarge { limit: u64 },
}

impl From<Bounded> for AdapterError {
    fn from(error: Bounded) -> Self {
        match error {
            Bounded::TooLarge { limit } => AdapterError::TooLarge { limit },
            Bounded::Http(error) => AdapterError::Reqwest(error),
        }
    }
}

/// Why [`read_bounded`] read no whole body.
#[derive(Debug)]
pub(super) enum Bounded {
    /// The body is larger than the bound.
    TooLarge {
        /// The bound, in bytes.
        limit: u64,
    },
    /// Reading failed.
    Http(reqwest::Error),
}

/// The body of `response`, read chunk by chunk, refused as soon as its `content-length` or the
/// bytes read pass `limit`.
pub(super) async fn read_bounded(
    mut response: reqwest::Response,
    limit: u64,
) -> Result<Vec<u8>, Bounded> {
    if response
        .content_length()
        .is_some_and(|length| length > limit)
    {
        return Err(Bounded::TooLarge { limit });
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(Bounded::Http)? {
        if (body.len() as u64).saturating_add(chunk.len() as u64) > limit {
            return Err(Bounded::TooLarge { limit });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Where `response`, the answer to a request sent to `sent`, was redirected: a 3xx answer's
/// `Location`, or the URL the HTTP client ended at when it followed a redirect itself. Its origin
/// and path only (a query is the target's to choose, and is not repeated).
pub(super) fn redirected(sent: &Url, response: &reqwest::Response) -> Option<String> {
    let shown = |url: &Url| format!("{}{}", url.origin().ascii_serialization(), url.path());
    if response.status().is_redirection() {
        let target = response
            .headers()
            .get(http::header::LOCATION)
            .and_then(|location| location.to_str().ok())
            .and_then(|location| sent.join(location).ok())
            .map_or_else(
                || "an unnamed place (no Location)".to_owned(),
                |u| shown(&u),
            );
        return Some(target);
    }
    let ended = response.url();
    (ended.origin() != sent.origin() || ended.path() != sent.path()).then(|| shown(ended))
}

/// The request `request` to hand reqwest: its body made one that reqwest cannot copy, so that a
/// client that follows redirects cannot send it again (a 307 or 308 is handed back as it is; a
/// 301, 302 or 303 would be followed as a `GET` without it, which [`redirected`] then refuses).
fn unreplayable(request: oauth2::HttpRequest) -> Result<reqwest::Request, reqwest::Error> {
    let (parts, body) = request.into_parts();
    let body = reqwest::Body::wrap(http_body_util::Full::new(bytes::Bytes::from(body)));
    reqwest::Request::try_from(http::Request::from_parts(parts, body))
}

/// `oauth2`'s HTTP client interface over `reqwest` 0.13, remembering the last status seen.
struct ReqwestAdapter {
    http: reqwest::Client,
    last_status: Arc<Mutex<Option<u16>>>,
    timeout: Duration,
}

impl<'c> oauth2::AsyncHttpClient<'c> for ReqwestAdapter {
    type Error = AdapterError;
    type Future = std::pin::Pin<
        Box<dyn Future<Output = Result<oauth2::HttpResponse, AdapterError>> + Send + 'c>,
    >;

    fn call(&'c self, request: oauth2::HttpRequest) -> Self::Future {
        let http = self.http.clone();
        let last_status = Arc::clone(&self.last_status);
        let timeout = self.timeout;
        Box::pin(async move {
            let mut request = unreplayable(request)?;
            *request.timeout_mut() = Some(timeout);
            let sent = request.url().clone();
            let response = http.execute(request).await?;
            let status = response.status();
            *last_status.lock().unwrap_or_else(PoisonError::into_inner) = Some(status.as_u16());
            if let Some(target) = redirected(&sent, &response) {
                let status = if status.is_redirection() {
                    status.as_u16()
                } else {
                    0
                };
                return Err(AdapterError::Redirected { status, target });
            }
            let mut builder = http::Response::builder().status(status);
            for (name, value) in response.headers() {
                builder = builder.header(name, value);
            }
            let body = read_bounded(response, MAX_TOKEN_RESPONSE_BYTES).await?;
            Ok(builder.body(body)?)
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
/// Never call this twice concurrently for one store: use [`Authenticator`](super::Authenticator)
/// or [`Refresher`](super::Refresher).
pub async fn refresh_token_set(
    http: &reqwest::Client,
    client_id: &str,
    client_secret: &SecretString,
    token_url: &Url,
    refresh_token: &RefreshToken,
) -> Result<TokenSet, OAuthError> {
    refresh_token_set_within(
        http,
        client_id,
        client_secret,
        token_url,
        refresh_token,
        Duration::from_secs(30),
    )
    .await
}

/// [`refresh_token_set`] with the token request limited to `timeout`.
pub(super) async fn refresh_token_set_within(
    http: &reqwest::Client,
    client_id: &str,
    client_secret: &SecretString,
    token_url: &Url,
    refresh_token: &RefreshToken,
    timeout: Duration,
) -> Result<TokenSet, OAuthError> {
    let client = token_client(client_id, client_secret, token_url);
    let send = ReqwestAdapter {
        http: http.clone(),
        last_status: Arc::new(Mutex::new(None)),
        timeout,
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

/// Why the redirect of an authorization gives no code (see
/// [`AuthorizationRequest::code_from_redirect`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RedirectError {
    /// The redirect's `state` is not this authorization's: a forged redirect (cross-site request
    /// forgery) or one of another, older attempt. Nothing of it may be used.
    #[error(
        "the redirect's state does not match this authorization's (a forged or stale redirect): refused"
    )]
    StateMismatch,
    /// The authorization was refused (`error=access_denied`, ...).
    #[error("the authorization was refused ({code}){}", describe(.description))]
    Denied {
        /// The OAuth error code.
        code: String,
        /// The `error_description`, if any.
        description: Option<String>,
    },
    /// The redirect carries neither a code nor an error.
    #[error("the redirect carries no authorization code")]
    NoCode,
}

/// One authorization of the authorization-code flow (RFC 6749 §4.1) with PKCE (RFC 7636, S256):
/// the URL where the merchant approves the app, the check of the redirect that comes back, and
/// the exchange of its code for the store's tokens.
///
/// ```
/// # use store_admin::credentials::{AuthorizationRequest, RedirectError};
/// let authorize = url::Url::parse("https://accounts.salla.sa/oauth2/auth").unwrap();
/// let redirect = url::Url::parse("http://127.0.0.1:8912/callback").unwrap();
/// let request = AuthorizationRequest::new(&authorize, "client-id", &redirect, ["offline_access"]);
/// assert!(request.url().as_str().starts_with("https://accounts.salla.sa/oauth2/auth?"));
/// // The merchant approves; the browser comes back to the redirect URI with `code` and `state`.
/// assert_eq!(
///     request.code_from_redirect("code=abc&state=forged"),
///     Err(RedirectError::StateMismatch)
/// );
/// ```
///
/// `Debug` shows neither the state nor the PKCE verifier.
pub struct AuthorizationRequest {
    url: Url,
    redirect_uri: Url,
    state: CsrfToken,
    verifier: PkceCodeVerifier,
}

impl fmt::Debug for AuthorizationRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthorizationRequest")
            .field("authorize_origin", &self.url.origin().ascii_serialization())
            .field("redirect_uri", &self.redirect_uri.as_str())
            .finish_non_exhaustive()
    }
}

impl AuthorizationRequest {
    /// A new authorization of the app `client_id` at `authorize_url` (the service's is
    /// [`DEFAULT_AUTHORIZE_URL`]), coming back to `redirect_uri`, asking for `scopes` (ask for
    /// `offline_access` to get a refresh token). The state and the PKCE verifier are random.
    pub fn new<S: Into<String>>(
        authorize_url: &Url,
        client_id: &str,
        redirect_uri: &Url,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        let client: ServiceOAuthClient<EndpointSet, EndpointNotSet> =
            oauth2::Client::new(ClientId::new(client_id.to_owned()))
                .set_auth_uri(AuthUrl::from_url(authorize_url.clone()))
                .set_redirect_uri(RedirectUrl::from_url(redirect_uri.clone()));
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let (url, state) = client
            .authorize_url(random_state)
            .add_scopes(scopes.into_iter().map(|s| Scope::new(s.into())))
            .set_pkce_challenge(challenge)
            .url();
        AuthorizationRequest {
            url,
            redirect_uri: redirect_uri.clone(),
            state,
            verifier,
        }
    }

    /// The URL the merchant opens to approve the app.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// Where the service sends the browser back.
    pub fn redirect_uri(&self) -> &Url {
        &self.redirect_uri
    }

    /// The code of the redirect whose query string is `query`, once its `state` is checked
    /// (in constant time) to be this authorization's. The service strips `-` from `state` when it
    /// redirects: the comparison ignores hyphens (this authorization's state holds none).
    pub fn code_from_redirect(&self, query: &str) -> Result<String, RedirectError> {
        let mut state = None;
        let mut code = None;
        let mut error = None;
        let mut description = None;
        for (key, value) in url::form_urlencoded::parse(query.as_bytes()) {
            let slot = match key.as_ref() {
                "state" => &mut state,
                "code" => &mut code,
                "error" => &mut error,
                "error_description" => &mut description,
                _ => continue,
            };
            slot.get_or_insert(value.into_owned());
        }
        let matches = state.is_some_and(|state| same_state(&state, self.state.secret()));
        if !matches {
            return Err(RedirectError::StateMismatch);
        }
        if let Some(code) = error {
            return Err(RedirectError::Denied { code, description });
        }
        code.filter(|c| !c.is_empty()).ok_or(RedirectError::NoCode)
    }

    /// Exchanges `code` (from [`AuthorizationRequest::code_from_redirect`]) at `token_url` for
    /// the store's tokens: a form-encoded POST (`grant_type=authorization_code`, the code, the
    /// redirect URI, the PKCE verifier and the client's credentials in the body). The expiry is
    /// read as [`refresh_token_set`] reads it. A code is single use.
    pub async fn exchange(
        self,
        http: &reqwest::Client,
        client_id: &str,
        client_secret: &SecretString,
        token_url: &Url,
        code: &str,
    ) -> Result<TokenSet, OAuthError> {
        exchange_code(
            http,
            client_id,
            client_secret,
            token_url,
            &self.redirect_uri,
            code,
            Some(self.verifier),
        )
        .await
    }
}

/// Exchanges an authorization `code` the app did not ask for itself (an install started from the
/// platform's app store: no PKCE verifier) at `token_url`: a form-encoded POST
/// (`grant_type=authorization_code`, the code, `redirect_uri` as the app's callback is
/// registered, and the client's credentials in the body). The expiry is read as
/// [`refresh_token_set`] reads it. A code is single use: presented again, the service answers
/// [`OAuthError::InvalidGrant`].
pub async fn exchange_authorization_code(
    http: &reqwest::Client,
    client_id: &str,
    client_secret: &SecretString,
    token_url: &Url,
    redirect_uri: &Url,
    code: &str,
) -> Result<TokenSet, OAuthError> {
    exchange_code(
        http,
        client_id,
        client_secret,
        token_url,
        redirect_uri,
        code,
        None,
    )
    .await
}

async fn exchange_code(
    http: &reqwest::Client,
    client_id: &str,
    client_secret: &SecretString,
    token_url: &Url,
    redirect_uri: &Url,
    code: &str,
    verifier: Option<PkceCodeVerifier>,
) -> Result<TokenSet, OAuthError> {
    let client = token_client(client_id, client_secret, token_url)
        .set_redirect_uri(RedirectUrl::from_url(redirect_uri.clone()));
    let send = ReqwestAdapter {
        http: http.clone(),
        last_status: Arc::new(Mutex::new(None)),
        timeout: Duration::from_secs(30),
    };
    let now = Utc::now();
    let mut request = client.exchange_code(AuthorizationCode::new(code.to_owned()));
    if let Some(verifier) = verifier {
        request = request.set_pkce_verifier(verifier);
    }
    let result = request.request_async(&send).await;
    let status = send
        .last_status
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .unwrap_or(0);
    let response = result.map_err(|e| map_oauth_error(e, status))?;
    Ok(token_set_from_response(&response, now, None))
}

/// How many characters a state has: 32 of `[A-Za-z0-9]`, about 190 random bits.
const STATE_LENGTH: usize = 32;

/// A random `state` of [`STATE_LENGTH`] characters of `[A-Za-z0-9]` only (from the operating
/// system's generator, through `rand`'s thread generator). The service strips `-` from the state
/// it sends back: a base64url state (oauth2's `CsrfToken::new_random`) holds one in about 29 % of
/// logins, which would then fail.
fn random_state() -> CsrfToken {
    use rand::Rng;
    let state: String = rand::rng()
        .sample_iter(rand::distr::Alphanumeric)
        .take(STATE_LENGTH)
        .map(char::from)
        .collect();
    CsrfToken::new(state)
}

/// Whether the state a redirect carries is `expected`, hyphens removed from both (the service
/// strips them), compared in constant time (the lengths aside).
fn same_state(received: &str, expected: &str) -> bool {
    let strip = |s: &str| s.bytes().filter(|b| *b != b'-').collect::<Vec<u8>>();
    bool::from(subtle::ConstantTimeEq::ct_eq(
        strip(received).as_slice(),
        strip(expected).as_slice(),
    ))
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
        RequestTokenError::Request(AdapterError::Reqwest(e)) if e.is_redirect() => {
            // The HTTP client's own policy refused a redirect (the runtime's does), or it
            // followed too many: the refusal names the target, else the last URL reached.
            let target = match crate::redirect::refusal(&e) {
                Some(refused) => refused.target().to_owned(),
                None => e.url().map_or_else(
                    || "a place its HTTP client refused".to_owned(),
                    |url| format!("{}{}", url.origin().ascii_serialization(), url.path()),
                ),
            };
            OAuthError::Redirected { status, target }
        }
        RequestTokenError::Request(AdapterError::Reqwest(e)) => {
            OAuthError::Transport(Arc::new(e.without_url()))
        }
        RequestTokenError::Request(AdapterError::Redirected { status, target }) => {
            OAuthError::Redirected { status, target }
        }
        RequestTokenError::Request(AdapterError::TooLarge { limit }) => {
            OAuthError::TooLarge { status, limit }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::credentials::*;

    fn request() -> AuthorizationRequest {
        AuthorizationRequest::new(
            &Url::parse(DEFAULT_AUTHORIZE_URL).unwrap(),
            "the-client",
            &Url::parse("http://127.0.0.1:8912/callback").unwrap(),
            ["offline_access", "orders.read"],
        )
    }

    fn pairs(url: &Url) -> std::collections::HashMap<String, String> {
        url.query_pairs().into_owned().collect()
    }

    #[test]
    fn an_authorization_url_asks_for_a_code_with_a_random_state_and_a_pkce_challenge() {
        let request = request();
        let query = pairs(request.url());
        assert_eq!(
            request.url().as_str().split('?').next(),
            Some(DEFAULT_AUTHORIZE_URL)
        );
        assert_eq!(query["response_type"], "code");
        assert_eq!(query["client_id"], "the-client");
        assert_eq!(query["redirect_uri"], "http://127.0.0.1:8912/callback");
        assert_eq!(query["scope"], "offline_access orders.read");
        assert_eq!(query["code_challenge_method"], "S256");
        assert_eq!(query["code_challenge"].len(), 43, "SHA-256, base64url");
        assert!(query["state"].len() >= 22, "at least 128 random bits");
        assert!(
            query["state"].bytes().all(|b| b.is_ascii_alphanumeric()),
            "no `-` for the service to strip, nor `_`: {}",
            query["state"]
        );
        let other = pairs(
            AuthorizationRequest::new(
                &Url::parse(DEFAULT_AUTHORIZE_URL).unwrap(),
                "the-client",
                &Url::parse("http://127.0.0.1:8912/callback").unwrap(),
                ["offline_access"],
            )
            .url(),
        );
        assert_ne!(query["state"], other["state"]);
        assert_ne!(query["code_challenge"], other["code_challenge"]);
        let debug = format!("{request:?}");
        assert!(!debug.contains(&query["state"]), "{debug}");
    }

    #[test]
    fn a_redirect_gives_its_code_only_with_this_authorization_s_state() {
        let request = request();
        let state = pairs(request.url())["state"].clone();
        let encoded = |extra: &str| format!("state={state}{extra}");
        assert_eq!(
            request.code_from_redirect(&encoded("&code=c0de")),
            Ok("c0de".to_owned())
        );
        assert_eq!(
            request.code_from_redirect("code=c0de&state=other"),
            Err(RedirectError::StateMismatch)
        );
        assert_eq!(
            request.code_from_redirect("code=c0de"),
            Err(RedirectError::StateMismatch)
        );
        // An error answer counts only with the right state too.
        assert_eq!(
            request.code_from_redirect("error=access_denied&state=other"),
            Err(RedirectError::StateMismatch)
        );
        assert_eq!(
            request.code_from_redirect(&encoded(
                "&error=access_denied&error_description=The+merchant+said+no"
            )),
            Err(RedirectError::Denied {
                code: "access_denied".into(),
                description: Some("The merchant said no".into()),
            })
        );
        assert_eq!(
            request.code_from_redirect(&encoded("&code=")),
            Err(RedirectError::NoCode)
        );
    }

    #[test]
    fn states_are_alphanumeric_random_and_long_enough_for_128_bits() {
        let states: std::collections::HashSet<String> = (0..2_000)
            .map(|_| random_state().secret().clone())
            .collect();
        assert_eq!(states.len(), 2_000, "no state repeats");
        for state in &states {
            assert_eq!(state.len(), STATE_LENGTH);
            assert!(state.bytes().all(|b| b.is_ascii_alphanumeric()), "{state}");
        }
        // 62 symbols: log2(62) * 32 > 190 bits.
        assert!((STATE_LENGTH as f64) * 62f64.log2() >= 128.0);
    }

    #[test]
    fn a_state_echoed_with_its_hyphens_stripped_still_matches() {
        assert!(same_state("abcDEF123", "abc-DEF-123"));
        assert!(same_state("abc-DEF-123", "abcDEF123"));
        assert!(!same_state("abcDEF12", "abcDEF123"));
        assert!(!same_state("", "abc"));
        assert!(!same_state("abcdef123", "abcDEF123"), "case counts");
    }

    #[test]
    fn default_token_url_parses() {
        assert_eq!(default_token_url().as_str(), DEFAULT_TOKEN_URL);
    }
    #[test]
    fn token_set_from_response_reads_absolute_expires() {
        let response: ServiceTokenResponse =
            serde_json::from_str(include_str!("../../tests/fixtures/oauth_token.200.json"))
                .unwrap();
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
            serde_json::from_str(include_str!("../../tests/fixtures/oauth_token.200.json"))
                .unwrap();
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
}

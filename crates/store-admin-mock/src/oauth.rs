//! The OAuth 2.0 endpoints (outside `/admin/v2`): the authorize endpoint (`GET /oauth2/auth`), the
//! token endpoint (`POST /oauth2/token`) and the access tokens they issue, which the API then
//! accepts with their scopes.
//!
//! The authorize endpoint approves at once, as if the merchant had clicked "install": it answers
//! 302 to the `redirect_uri` (a loopback URL, RFC 8252) with a single-use `code` and the `state`
//! it was given, its hyphens stripped as the service strips them. The code is exchanged at the token endpoint (`grant_type=authorization_code`,
//! with the same `redirect_uri` and, when a PKCE `code_challenge` was sent, its `code_verifier`).
//!
//! The token endpoint behaves like the service's (the document's `oauth2` security scheme, and the
//! mock's README, "OAuth"): a form-encoded refresh (`grant_type=refresh_token`, `refresh_token`,
//! `client_id`, `client_secret`) answers
//! `{"token_type":"bearer","access_token":...,"expires":<unix seconds>,"refresh_token":...,"scope":...}`;
//! refresh tokens are single use, and presenting a spent one answers 400
//! `{"error":"invalid_grant",...}` (the bare OAuth body, not the envelope) and revokes every token
//! descended from the same installation; a wrong client answers 401 `{"error":"invalid_client"}`.
//! Expired or revoked access tokens get the API's 401 `The access token is invalid`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{PoisonError, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::prelude::{BASE64_STANDARD, BASE64_URL_SAFE_NO_PAD};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use secrecy::{ExposeSecret, SecretString};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::auth::{Grant, constant_time_eq};
use crate::config::OAuthConfig;
use crate::error::ApiError;

/// The path of the token endpoint.
pub const TOKEN_PATH: &str = "/oauth2/token";

/// The path of the authorize endpoint.
pub const AUTHORIZE_PATH: &str = "/oauth2/auth";

/// How long an authorization code may wait for its exchange.
const CODE_LIFETIME: Duration = Duration::from_secs(600);

/// Most authorization codes waiting for their exchange at once (the oldest are dropped first).
const PENDING_CODES: usize = 1_000;

struct AccessGrant {
    grant: Grant,
    expires_at: SystemTime,
    /// Set by [`OAuth::expire_access_tokens`]: the service rejects it before its time.
    expired: bool,
    revoked: bool,
    family: u64,
}

struct RefreshGrant {
    grant: Grant,
    used: bool,
    revoked: bool,
    family: u64,
}

/// An authorization code waiting for its exchange, with the pair it was approved with.
struct PendingCode {
    client_id: String,
    redirect_uri: String,
    /// The PKCE `code_challenge` (S256), if one was sent.
    challenge: Option<String>,
    issued_at: SystemTime,
    used: bool,
    family: u64,
    /// The token response the exchange answers.
    answer: serde_json::Value,
}

struct Tokens {
    access: HashMap<String, AccessGrant>,
    refresh: HashMap<String, RefreshGrant>,
    codes: HashMap<String, PendingCode>,
    rng: StdRng,
    families: u64,
    /// The merchant store of an installation (by family), when it is not the server's own
    /// (an install from the app store names its merchant).
    merchants: HashMap<u64, i64>,
}

impl Tokens {
    /// Forgets the codes past their lifetime, and the oldest beyond [`PENDING_CODES`], to make
    /// room for one more. A used code is kept until its lifetime ends, so that presenting it
    /// again is told apart (`invalid_grant`, "already used", and what it gave is revoked).
    fn prune_codes(&mut self, now: SystemTime) {
        self.codes
            .retain(|_, pending| now < pending.issued_at + CODE_LIFETIME);
        while self.codes.len() >= PENDING_CODES {
            let oldest = self
                .codes
                .iter()
                .min_by_key(|(_, pending)| pending.issued_at)
                .map(|(code, _)| code.clone());
            match oldest {
                Some(code) => self.codes.remove(&code),
                None => break,
            };
        }
    }

    /// Revokes every token of the installation `family`.
    fn revoke_family(&mut self, family: u64) {
        for refresh in self.refresh.values_mut() {
            if refresh.family == family {
                refresh.revoked = true;
            }
        }
        for access in self.access.values_mut() {
            if access.family == family {
                access.revoked = true;
            }
        }
    }
}

/// What the authorize endpoint decided.
pub(crate) enum Authorization {
    /// Approved: redirect to `location` (it carries the code and the state); `event` is the
    /// data of the `app.store.authorize` delivery (the installation's tokens).
    Approved {
        location: String,
        event: serde_json::Value,
    },
    /// Refused: the response to send (a redirect with `error`, or a 400 when the client or the
    /// redirect URI cannot be trusted with one).
    Refused(Response),
}

/// The run-time OAuth state of one server.
pub(crate) struct OAuth {
    client: Option<(String, SecretString)>,
    lifetime: Duration,
    tokens: RwLock<Tokens>,
    /// Whether any OAuth access token can exist (skips the lock on the API's hot path otherwise).
    enabled: bool,
    refreshes: AtomicU64,
    /// `invalid_grant` answers (spent, revoked or unknown refresh tokens and codes).
    rejected: AtomicU64,
    /// Approvals of the authorize endpoint.
    authorizations: AtomicU64,
    /// `grant_type=authorization_code` requests, whatever their outcome.
    code_exchanges: AtomicU64,
    /// Every scope of the document (the `scope` of a token granting them all).
    document_scopes: Vec<String>,
}

fn unix_seconds(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl OAuth {
    pub fn new(config: &OAuthConfig, seed: u64, document_scopes: Vec<String>) -> Self {
        let mut tokens = Tokens {
            access: HashMap::new(),
            refresh: HashMap::new(),
            codes: HashMap::new(),
            rng: StdRng::seed_from_u64(seed ^ 0x6f61_7574_6832),
            families: 0,
            merchants: HashMap::new(),
        };
        let far = SystemTime::now() + config.lifetime;
        for token in &config.refresh_tokens {
            tokens.families += 1;
            tokens.refresh.insert(
                token.secret().expose_secret().to_owned(),
                RefreshGrant {
                    grant: token.grant().clone(),
                    used: false,
                    revoked: false,
                    family: tokens.families,
                },
            );
        }
        for token in &config.access_tokens {
            tokens.families += 1;
            tokens.access.insert(
                token.secret().expose_secret().to_owned(),
                AccessGrant {
                    grant: token.grant().clone(),
                    expires_at: far,
                    expired: false,
                    revoked: false,
                    family: tokens.families,
                },
            );
        }
        Self {
            enabled: config.client.is_some() || !config.access_tokens.is_empty(),
            client: config.client.clone(),
            lifetime: config.lifetime,
            tokens: RwLock::new(tokens),
            refreshes: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            authorizations: AtomicU64::new(0),
            code_exchanges: AtomicU64::new(0),
            document_scopes,
        }
    }

    /// How many `grant_type=refresh_token` requests arrived, whatever their outcome.
    pub fn refreshes(&self) -> u64 {
        self.refreshes.load(Ordering::Acquire)
    }

    /// How many token requests were answered `invalid_grant`.
    pub fn rejected(&self) -> u64 {
        self.rejected.load(Ordering::Acquire)
    }

    /// How many authorizations the authorize endpoint approved.
    pub fn authorizations(&self) -> u64 {
        self.authorizations.load(Ordering::Acquire)
    }

    /// How many `grant_type=authorization_code` requests arrived, whatever their outcome.
    pub fn code_exchanges(&self) -> u64 {
        self.code_exchanges.load(Ordering::Acquire)
    }

    /// The 400 `invalid_grant` answer, counted.
    fn invalid_grant(&self, description: &str) -> Response {
        self.rejected.fetch_add(1, Ordering::AcqRel);
        oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", description)
    }

    /// Mints a new access token (and a refresh token when `offline`) of a new installation
    /// granting `grant`; returns the token response and the installation's family.
    fn issue(&self, tokens: &mut Tokens, grant: &Grant, offline: bool) -> (serde_json::Value, u64) {
        tokens.families += 1;
        let family = tokens.families;
        let access_token = format!("mock-at-{:032x}", tokens.rng.random::<u128>());
        let expires_at = SystemTime::now() + self.lifetime;
        tokens.access.insert(
            access_token.clone(),
            AccessGrant {
                grant: grant.clone(),
                expires_at,
                expired: false,
                revoked: false,
                family,
            },
        );
        let mut answer = json!({
            "token_type": "bearer",
            "access_token": access_token,
            "expires": unix_seconds(expires_at),
            "scope": grant.scope_text(&self.document_scopes),
        });
        if offline {
            let refresh_token = format!("mock-rt-{:032x}", tokens.rng.random::<u128>());
            tokens.refresh.insert(
                refresh_token.clone(),
                RefreshGrant {
                    grant: grant.clone(),
                    used: false,
                    revoked: false,
                    family,
                },
            );
            answer["refresh_token"] = json!(refresh_token);
        }
        (answer, family)
    }

    /// Handles `GET /oauth2/auth?response_type=code&client_id=..&redirect_uri=..&scope=..&state=..`
    /// (and optionally `code_challenge`, `code_challenge_method=S256`): approves at once.
    ///
    /// The grant is the requested scopes; a request naming no API scope (only `offline_access`,
    /// or none) gets every scope of the document, as the service grants the scopes set in the
    /// app's settings. A refresh token is issued only when `offline_access` is asked for.
    pub fn authorize(&self, query: &str) -> Authorization {
        let params: HashMap<String, String> = form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect();
        let client_id = params.get("client_id").map(String::as_str).unwrap_or("");
        if self
            .client
            .as_ref()
            .is_none_or(|(expected, _)| expected != client_id)
        {
            // RFC 6749 §4.1.2.1: never redirect for a client that cannot be identified.
            return Authorization::Refused(oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_client",
                "The client_id is not the app's.",
            ));
        }
        let Some(redirect) = params
            .get("redirect_uri")
            .and_then(|uri| loopback_redirect(uri))
        else {
            return Authorization::Refused(oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "The redirect_uri must be an http URL of a loopback address (127.0.0.1, [::1] or localhost).",
            ));
        };
        // The service strips `-` from the state it sends back (a state holding one is not
        // echoed as it was given): so does the mock.
        let state = params.get("state").map(|state| state.replace('-', ""));
        let refuse = |code: &str, description: &str| {
            let mut location = redirect.clone();
            {
                let mut query = location.query_pairs_mut();
                query.append_pair("error", code);
                query.append_pair("error_description", description);
                if let Some(state) = &state {
                    query.append_pair("state", state);
                }
            }
            Authorization::Refused(found(location.as_str()))
        };
        if params.get("response_type").map(String::as_str) != Some("code") {
            return refuse(
                "unsupported_response_type",
                "The mock store only serves response_type=code.",
            );
        }
        let challenge = params.get("code_challenge").cloned();
        if challenge.is_some()
            && params.get("code_challenge_method").map(String::as_str) != Some("S256")
        {
            return refuse("invalid_request", "code_challenge_method must be S256.");
        }
        let requested: Vec<String> = params
            .get("scope")
            .map(|s| {
                s.split([' ', ','])
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        if let Some(unknown) = requested.iter().find(|s| !self.document_scopes.contains(s)) {
            return refuse("invalid_scope", &format!("Unknown scope {unknown}."));
        }
        let offline = requested.iter().any(|s| s == OFFLINE_ACCESS);
        let mut scopes: Vec<String> = requested
            .iter()
            .filter(|s| *s != OFFLINE_ACCESS)
            .cloned()
            .collect();
        if scopes.is_empty() {
            scopes = self
                .document_scopes
                .iter()
                .filter(|s| *s != OFFLINE_ACCESS)
                .cloned()
                .collect();
        }
        if offline {
            scopes.push(OFFLINE_ACCESS.to_owned());
        }
        let grant = Grant {
            scopes,
            every: false,
        };
        let mut guard = self.tokens.write().unwrap_or_else(PoisonError::into_inner);
        let tokens = &mut *guard;
        let now = SystemTime::now();
        tokens.prune_codes(now);
        let (answer, family) = self.issue(tokens, &grant, offline);
        let code = format!("mock-ac-{:032x}", tokens.rng.random::<u128>());
        tokens.codes.insert(
            code.clone(),
            PendingCode {
                client_id: client_id.to_owned(),
                redirect_uri: params.get("redirect_uri").cloned().unwrap_or_default(),
                challenge,
                issued_at: now,
                used: false,
                family,
                answer: answer.clone(),
            },
        );
        drop(guard);
        self.authorizations.fetch_add(1, Ordering::AcqRel);
        let mut location = redirect;
        {
            let mut query = location.query_pairs_mut();
            query.append_pair("code", &code);
            if let Some(state) = &state {
                query.append_pair("state", state);
            }
        }
        Authorization::Approved {
            location: location.to_string(),
            event: answer,
        }
    }

    /// An installation started from the app store (the merchant clicked "install" there): the
    /// service redirects the merchant's browser straight to the app's callback `redirect_uri`
    /// with a single-use `code` and a `state` of its own (the app never ran the authorize
    /// step), without hyphens. The installation's tokens belong to `merchant` (the user info of
    /// its access token says so) and grant every scope of the document with `offline_access`,
    /// as the app's settings would. The code is exchanged as any other (no PKCE), once.
    /// Returns the callback URL the browser is sent to.
    pub fn install_from_app_store(
        &self,
        redirect_uri: &str,
        merchant: i64,
    ) -> Result<String, String> {
        let Some((client_id, _)) = &self.client else {
            return Err("no OAuth client is configured (MockConfig::oauth_client)".into());
        };
        let Some(mut location) = loopback_redirect(redirect_uri) else {
            return Err("the redirect_uri must be an http URL of a loopback address".into());
        };
        let grant = Grant {
            scopes: self.document_scopes.clone(),
            every: false,
        };
        let mut guard = self.tokens.write().unwrap_or_else(PoisonError::into_inner);
        let tokens = &mut *guard;
        tokens.prune_codes(SystemTime::now());
        let (answer, family) = self.issue(tokens, &grant, true);
        tokens.merchants.insert(family, merchant);
        let code = format!("mock-ac-{:032x}", tokens.rng.random::<u128>());
        // The platform's state: a UUID, its hyphens stripped as every echoed state's are.
        let state = format!("{:032x}", tokens.rng.random::<u128>());
        tokens.codes.insert(
            code.clone(),
            PendingCode {
                client_id: client_id.clone(),
                redirect_uri: redirect_uri.to_owned(),
                challenge: None,
                issued_at: SystemTime::now(),
                used: false,
                family,
                answer,
            },
        );
        drop(guard);
        self.authorizations.fetch_add(1, Ordering::AcqRel);
        location
            .query_pairs_mut()
            .append_pair("code", &code)
            .append_pair("state", &state);
        Ok(location.to_string())
    }

    /// The merchant store an OAuth access token of this server acts for, when its installation
    /// named one (an install from the app store); `None` for the server's own store.
    pub fn merchant_of(&self, access_token: &str) -> Option<i64> {
        if !self.enabled {
            return None;
        }
        let tokens = self.tokens.read().unwrap_or_else(PoisonError::into_inner);
        let family = tokens.access.get(access_token)?.family;
        tokens.merchants.get(&family).copied()
    }

    /// `grant_type=authorization_code`: the pair approved with `code`, once.
    fn exchange_code(&self, client_id: &str, form: &HashMap<String, String>) -> Response {
        let Some(code) = form.get("code").filter(|c| !c.is_empty()) else {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "The code parameter is required.",
            );
        };
        let mut guard = self.tokens.write().unwrap_or_else(PoisonError::into_inner);
        let tokens = &mut *guard;
        let Some(pending) = tokens.codes.get_mut(code.as_str()) else {
            return self.invalid_grant("The authorization code is invalid.");
        };
        if pending.used {
            // RFC 6749 §4.1.2: a code used twice revokes what it gave.
            let family = pending.family;
            tokens.revoke_family(family);
            return self.invalid_grant(
                "The authorization code was already used: the tokens it gave are revoked.",
            );
        }
        if SystemTime::now() >= pending.issued_at + CODE_LIFETIME {
            return self.invalid_grant("The authorization code has expired.");
        }
        if pending.client_id != client_id {
            return self.invalid_grant("The authorization code was issued to another client.");
        }
        if form.get("redirect_uri") != Some(&pending.redirect_uri) {
            return self.invalid_grant(
                "The redirect_uri does not match the one of the authorization request.",
            );
        }
        if let Some(challenge) = &pending.challenge {
            let verified = form.get("code_verifier").is_some_and(|verifier| {
                let digest = Sha256::digest(verifier.as_bytes());
                constant_time_eq(challenge, &BASE64_URL_SAFE_NO_PAD.encode(digest))
            });
            if !verified {
                return self.invalid_grant("The code_verifier does not match the code_challenge.");
            }
        }
        pending.used = true;
        let answer = pending.answer.clone();
        drop(guard);
        no_store((StatusCode::OK, answer.to_string()).into_response())
    }

    /// Makes every access token issued so far (or configured) expired: the API rejects them with
    /// 401 `The access token is invalid`, as the service does with a token revoked mid-life.
    /// Refresh tokens stay valid. Returns how many tokens were expired.
    pub fn expire_access_tokens(&self) -> usize {
        let mut tokens = self.tokens.write().unwrap_or_else(PoisonError::into_inner);
        let mut count = 0;
        for grant in tokens.access.values_mut() {
            if !grant.expired {
                grant.expired = true;
                count += 1;
            }
        }
        count
    }

    /// `None` when `presented` is not an OAuth access token of this server; else whether it may
    /// call an operation needing one of `required`.
    pub fn check(&self, presented: &str, required: &[String]) -> Option<Result<(), ApiError>> {
        if !self.enabled {
            return None;
        }
        let tokens = self.tokens.read().unwrap_or_else(PoisonError::into_inner);
        let grant = tokens.access.get(presented)?;
        if grant.expired || grant.revoked || SystemTime::now() >= grant.expires_at {
            return Some(Err(ApiError::invalid_token()));
        }
        if !grant.grant.grants_any(required) {
            return Some(Err(ApiError::missing_scope(required)));
        }
        Some(Ok(()))
    }

    fn client_matches(&self, id: &str, secret: &str) -> bool {
        self.client.as_ref().is_some_and(|(expected_id, expected)| {
            expected_id == id && constant_time_eq(expected.expose_secret(), secret)
        })
    }

    /// Handles one request to the token endpoint.
    pub fn token_request(&self, headers: &HeaderMap, body: &Bytes) -> Response {
        let form: HashMap<String, String> = form_urlencoded::parse(body).into_owned().collect();
        let grant_type = form.get("grant_type").map(String::as_str).unwrap_or("");
        match grant_type {
            "refresh_token" => self.refreshes.fetch_add(1, Ordering::AcqRel),
            "authorization_code" => self.code_exchanges.fetch_add(1, Ordering::AcqRel),
            _ => 0,
        };
        let (client_id, client_secret) = match basic_credentials(headers) {
            Some(pair) => pair,
            None => (
                form.get("client_id").cloned().unwrap_or_default(),
                form.get("client_secret").cloned().unwrap_or_default(),
            ),
        };
        if !self.client_matches(&client_id, &client_secret) {
            let mut response = oauth_error(
                StatusCode::UNAUTHORIZED,
                "invalid_client",
                "Client authentication failed.",
            );
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Basic realm=\"oauth2\""),
            );
            return response;
        }
        match grant_type {
            "refresh_token" => {}
            "authorization_code" => return self.exchange_code(&client_id, &form),
            "" => {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_request",
                    "The grant_type parameter is required.",
                );
            }
            _ => {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "unsupported_grant_type",
                    "The mock store serves the authorization_code and refresh_token grants.",
                );
            }
        }
        let Some(presented) = form.get("refresh_token").filter(|t| !t.is_empty()) else {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "The refresh_token parameter is required.",
            );
        };
        let mut guard = self.tokens.write().unwrap_or_else(PoisonError::into_inner);
        let tokens = &mut *guard;
        let (grant, family) = match tokens.refresh.get_mut(presented.as_str()) {
            None => return self.invalid_grant("The refresh token is invalid."),
            Some(grant) if grant.revoked => {
                return self.invalid_grant("The refresh token has been revoked.");
            }
            Some(grant) if grant.used => {
                let family = grant.family;
                tokens.revoke_family(family);
                return self.invalid_grant(
                    "The refresh token was already used: every token of this installation is revoked.",
                );
            }
            Some(grant) => {
                grant.used = true;
                (grant.grant.clone(), grant.family)
            }
        };
        let access_token = format!("mock-at-{:032x}", tokens.rng.random::<u128>());
        let refresh_token = format!("mock-rt-{:032x}", tokens.rng.random::<u128>());
        let expires_at = SystemTime::now() + self.lifetime;
        let scope = grant.scope_text(&self.document_scopes);
        tokens.access.insert(
            access_token.clone(),
            AccessGrant {
                grant: grant.clone(),
                expires_at,
                expired: false,
                revoked: false,
                family,
            },
        );
        tokens.refresh.insert(
            refresh_token.clone(),
            RefreshGrant {
                grant,
                used: false,
                revoked: false,
                family,
            },
        );
        drop(guard);
        let body = json!({
            "token_type": "bearer",
            "access_token": access_token,
            "expires": unix_seconds(expires_at),
            "refresh_token": refresh_token,
            "scope": scope,
        });
        no_store((StatusCode::OK, body.to_string()).into_response())
    }
}

/// The scope that asks for a refresh token.
const OFFLINE_ACCESS: &str = "offline_access";

/// `uri` if it is an http(s) URL of a loopback address without a fragment (RFC 8252 §7.3: any
/// port), where a native app listens for the redirect.
fn loopback_redirect(uri: &str) -> Option<reqwest::Url> {
    let url = reqwest::Url::parse(uri).ok()?;
    let loopback = match url.host()? {
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
        url::Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
    };
    (matches!(url.scheme(), "http" | "https") && loopback && url.fragment().is_none())
        .then_some(url)
}

/// A 302 to `location`, never cached.
pub(crate) fn found(location: &str) -> Response {
    let mut response = StatusCode::FOUND.into_response();
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// `Authorization: Basic base64(id:secret)`, if present and well formed.
fn basic_credentials(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = BASE64_STANDARD.decode(encoded.trim()).ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (id, secret) = text.split_once(':')?;
    // RFC 6749 §2.3.1: both parts are form-urlencoded before encoding.
    let unescape = |s: &str| {
        form_urlencoded::parse(format!("x={s}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    Some((unescape(id), unescape(secret)))
}

fn no_store(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    response
}

/// The bare OAuth error body `{"error": code, "error_description": ...}` (RFC 6749 §5.2).
fn oauth_error(status: StatusCode, code: &str, description: &str) -> Response {
    let body = json!({ "error": code, "error_description": description });
    no_store((status, body.to_string()).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_credentials_are_decoded() {
        let mut headers = HeaderMap::new();
        // base64("app:s%3Acret") — a secret with an escaped colon.
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Basic YXBwOnMlM0FjcmV0"),
        );
        assert_eq!(
            basic_credentials(&headers),
            Some(("app".to_owned(), "s:cret".to_owned()))
        );
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic *"));
        assert_eq!(basic_credentials(&headers), None);
    }
}

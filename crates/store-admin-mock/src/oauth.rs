//! The OAuth 2.0 token endpoint (`POST /oauth2/token`, outside `/admin/v2`) and the access tokens it
//! issues, which the API then accepts with their scopes.
//!
//! It behaves like the service's (FACTS.md): a form-encoded refresh (`grant_type=refresh_token`,
//! `refresh_token`, `client_id`, `client_secret`) answers
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
use base64::prelude::BASE64_STANDARD;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use secrecy::{ExposeSecret, SecretString};
use serde_json::json;

use crate::auth::{Grant, constant_time_eq};
use crate::config::OAuthConfig;
use crate::error::ApiError;

/// The path of the token endpoint.
pub const TOKEN_PATH: &str = "/oauth2/token";

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

struct Tokens {
    access: HashMap<String, AccessGrant>,
    refresh: HashMap<String, RefreshGrant>,
    rng: StdRng,
    families: u64,
}

/// The run-time OAuth state of one server.
pub(crate) struct OAuth {
    client: Option<(String, SecretString)>,
    lifetime: Duration,
    tokens: RwLock<Tokens>,
    /// Whether any OAuth access token can exist (skips the lock on the API's hot path otherwise).
    enabled: bool,
    refreshes: AtomicU64,
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
            rng: StdRng::seed_from_u64(seed ^ 0x6f61_7574_6832),
            families: 0,
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
            document_scopes,
        }
    }

    /// How many `grant_type=refresh_token` requests arrived, whatever their outcome.
    pub fn refreshes(&self) -> u64 {
        self.refreshes.load(Ordering::Acquire)
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
        if grant_type == "refresh_token" {
            self.refreshes.fetch_add(1, Ordering::AcqRel);
        }
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
                    "The mock store only serves the refresh_token grant.",
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
            None => {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "The refresh token is invalid.",
                );
            }
            Some(grant) if grant.revoked => {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "The refresh token has been revoked.",
                );
            }
            Some(grant) if grant.used => {
                let family = grant.family;
                for refresh in tokens.refresh.values_mut() {
                    if refresh.family == family {
                        refresh.revoked = true;
                    }
                }
                for access in tokens.access.values_mut() {
                    if access.family == family {
                        access.revoked = true;
                    }
                }
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
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

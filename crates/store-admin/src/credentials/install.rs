//! The OAuth callback of an app installed by many merchants: [`InstallCallback`].
//!
//! **Hazard.** An install started from the platform's app store sends the merchant's browser
//! straight to the app's callback with a single-use `code` and the platform's own `state`: the
//! app never ran the authorize step, so it has no state to compare and no PKCE verifier, and the
//! callback does not say which merchant installed. Storing the tokens under a merchant named by
//! the request would let anyone who can make a browser visit the callback file their tokens
//! under another merchant; exchanging a code twice (a reloaded page, a resent request) answers
//! `invalid_grant`, and a refresh token is single use.
//!
//! **Defences.**
//! - The merchant is learned from the tokens themselves (the accounts host's
//!   `GET /oauth2/user/info`, with or without its `data` envelope), never from the request: a
//!   forged callback can only install the forger's own store.
//! - A code is exchanged once per process: a code seen before is refused before any request (a
//!   bounded memory of the last codes, kept as SHA-256 digests); across processes the token
//!   endpoint refuses it (`invalid_grant`), and that is reported as such.
//! - The tokens go into the app's [`TokenStores`] for that merchant, over whatever was there (a
//!   reinstall replaces revoked tokens), with a fresh health record.
//! - Nothing the callback answers or logs holds a token, the code or the client secret.
//!
//! [`InstallCallback::handle`] works on an `http` 1.x request URI and returns an
//! [`InstallOutcome`] (with its HTTP answer, [`InstallOutcome::into_response`]); with the `axum`
//! feature, [`axum_callback`] is the same as an axum handler.

use std::collections::{HashSet, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;
use sha2::{Digest, Sha256};
use url::Url;

use super::oauth::{MAX_TOKEN_RESPONSE_BYTES, describe, read_bounded, redirected};
use super::{OAuthError, TokenSet, TokenStoreError, TokenStores, exchange_authorization_code};
use crate::merchants::OAuthApp;

/// How many used codes a callback remembers (digests, 32 bytes each).
const REMEMBERED_CODES: usize = 10_000;

/// The path of the user information on the accounts host.
const USER_INFO_PATH: &str = "/oauth2/user/info";

/// Why an installation's callback stored nothing. Never holds a token, the code or a secret.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    /// The callback carries neither a code nor an error.
    #[error("the callback carries no authorization code")]
    NoCode,
    /// This process has already exchanged this code (a reloaded page, a resent request).
    #[error("this authorization code was already used")]
    CodeAlreadyUsed,
    /// The token endpoint refused the code (`invalid_grant`: used elsewhere, expired, or issued
    /// for another redirect URI).
    #[error("the authorization code was refused (invalid_grant){}", describe(.description))]
    CodeRejected {
        /// The token endpoint's `error_description`, if any.
        description: Option<String>,
    },
    /// The token endpoint failed otherwise (client credentials, unreachable, a bad answer).
    #[error("the token exchange failed: {0}")]
    TokenEndpoint(#[source] OAuthError),
    /// The user information (which store the tokens belong to) could not be had.
    #[error("the user information could not be read: {detail}")]
    UserInfo {
        /// The HTTP status, when an answer came.
        status: Option<u16>,
        /// What went wrong.
        detail: String,
    },
    /// The token store failed.
    #[error(transparent)]
    Store(#[from] TokenStoreError),
}

/// What a callback did.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum InstallOutcome {
    /// The store's tokens were saved.
    Installed {
        /// The merchant (store) id, as the user information names it.
        merchant: String,
        /// The granted scopes, space-separated.
        scope: String,
        /// When the access token expires.
        expires_at: DateTime<Utc>,
    },
    /// The merchant refused the authorization (`error=access_denied`, ...).
    Denied {
        /// The OAuth error code.
        code: String,
        /// The `error_description`, if any.
        description: Option<String>,
    },
    /// Nothing was stored.
    Failed(InstallError),
}

impl InstallOutcome {
    /// The HTTP status of the answer: 200 installed; 403 denied; 400 for a callback without a
    /// code or with a code used already or refused; 502 when the accounts host failed; 500
    /// when the token store failed.
    pub fn status(&self) -> http::StatusCode {
        use http::StatusCode;
        match self {
            InstallOutcome::Installed { .. } => StatusCode::OK,
            InstallOutcome::Denied { .. } => StatusCode::FORBIDDEN,
            InstallOutcome::Failed(error) => match error {
                InstallError::NoCode
                | InstallError::CodeAlreadyUsed
                | InstallError::CodeRejected { .. } => StatusCode::BAD_REQUEST,
                InstallError::TokenEndpoint(_) | InstallError::UserInfo { .. } => {
                    StatusCode::BAD_GATEWAY
                }
                InstallError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
            },
        }
    }

    /// A plain-text answer for the merchant's browser (what happened; never a token).
    pub fn into_response(self) -> http::Response<String> {
        let status = self.status();
        let text = match &self {
            InstallOutcome::Installed { merchant, .. } => {
                format!("The app is installed for store {merchant}.\n")
            }
            InstallOutcome::Denied { code, description } => format!(
                "The installation was refused ({code}){}.\n",
                describe(description)
            ),
            InstallOutcome::Failed(error) => format!("The installation failed: {error}.\n"),
        };
        let mut response = http::Response::new(text);
        *response.status_mut() = status;
        let headers = response.headers_mut();
        headers.insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        headers.insert(
            http::header::CACHE_CONTROL,
            http::HeaderValue::from_static("no-store"),
        );
        response
    }
}

/// The codes a callback has exchanged, as digests, the oldest forgotten first.
#[derive(Default)]
struct UsedCodes {
    order: VecDeque<[u8; 32]>,
    seen: HashSet<[u8; 32]>,
}

impl UsedCodes {
    /// Remembers `code`; `false` if it was remembered already.
    fn first_use(&mut self, code: &str) -> bool {
        let digest: [u8; 32] = Sha256::digest(code.as_bytes()).into();
        if !self.seen.insert(digest) {
            return false;
        }
        self.order.push_back(digest);
        while self.order.len() > REMEMBERED_CODES {
            if let Some(old) = self.order.pop_front() {
                self.seen.remove(&old);
            }
        }
        true
    }
}

/// The OAuth callback of an app (see the module documentation): exchanges the code once, learns
/// the merchant from the user information, and saves the tokens in the app's [`TokenStores`].
///
/// ```no_run
/// # use std::sync::Arc;
/// # use store_admin::credentials::{FileTokenStores, InstallCallback, InstallOutcome};
/// # use store_admin::OAuthApp;
/// # async fn run(request: http::Request<()>) {
/// let app = OAuthApp::new("client-id", "client-secret".to_owned().into());
/// let callback = InstallCallback::new(
///     app,
///     url::Url::parse("https://app.example/oauth/callback").unwrap(),
///     Arc::new(FileTokenStores::new("/var/lib/app/tokens")),
/// );
/// match callback.handle(request.uri()).await {
///     InstallOutcome::Installed { merchant, .. } => println!("installed by {merchant}"),
///     other => eprintln!("{:?}", other.status()),
/// }
/// # }
/// ```
pub struct InstallCallback {
    app: OAuthApp,
    redirect_uri: Url,
    user_info_url: Url,
    tokens: Arc<dyn TokenStores>,
    http: reqwest::Client,
    used: Mutex<UsedCodes>,
}

impl fmt::Debug for InstallCallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InstallCallback")
            .field("app", &self.app)
            .field("redirect_uri", &self.redirect_uri.as_str())
            .field("user_info_url", &self.user_info_url.as_str())
            .finish_non_exhaustive()
    }
}

impl InstallCallback {
    /// The callback of `app`, registered with the platform as `redirect_uri` (the token
    /// exchange sends it again), saving into `tokens`. The user information is asked of the
    /// token endpoint's host (`https://accounts.salla.sa/oauth2/user/info` for the live one).
    pub fn new(app: OAuthApp, redirect_uri: Url, tokens: Arc<dyn TokenStores>) -> Self {
        let user_info_url = app
            .token_url
            .join(USER_INFO_PATH)
            .unwrap_or_else(|_| app.token_url.clone());
        InstallCallback {
            app,
            redirect_uri,
            user_info_url,
            tokens,
            http: no_redirects(),
            used: Mutex::new(UsedCodes::default()),
        }
    }

    /// Another HTTP client for the token exchange and the user information (a shared pool).
    ///
    /// Whatever its redirect policy, neither request is sent on to a redirect's target with its
    /// secrets: the token request's body is sent once (a 307 or 308 is not followed), and a
    /// redirect answered or followed fails the installation naming its target. A client that
    /// follows redirects may still send a 301, 302 or 303's target a `GET` without them: give
    /// one built with `.redirect(reqwest::redirect::Policy::none())`, as the default is.
    pub fn with_http(mut self, http: reqwest::Client) -> Self {
        self.http = http;
        self
    }

    /// Another accounts host (its base URL, e.g. `http://127.0.0.1:4010`) for the user
    /// information.
    pub fn with_accounts_url(mut self, accounts_url: &Url) -> Self {
        if let Ok(url) = accounts_url.join(USER_INFO_PATH) {
            self.user_info_url = url;
        }
        self
    }

    /// Handles the callback request whose URI is `uri` (`?code=...&state=...`, or `?error=...`).
    /// The `state` is not checked: an install from the app store carries the platform's own.
    pub async fn handle(&self, uri: &http::Uri) -> InstallOutcome {
        let mut code = None;
        let mut error = None;
        let mut description = None;
        let query = uri.query().unwrap_or_default();
        for (key, value) in url::form_urlencoded::parse(query.as_bytes()) {
            let slot = match key.as_ref() {
                "code" => &mut code,
                "error" => &mut error,
                "error_description" => &mut description,
                _ => continue,
            };
            slot.get_or_insert(value.into_owned());
        }
        if let Some(code) = error {
            return InstallOutcome::Denied { code, description };
        }
        match code.filter(|c| !c.is_empty()) {
            Some(code) => match self.install(&code).await {
                Ok(outcome) => outcome,
                Err(error) => {
                    tracing::warn!(%error, "an installation's callback failed");
                    InstallOutcome::Failed(error)
                }
            },
            None => InstallOutcome::Failed(InstallError::NoCode),
        }
    }

    /// [`Self::handle`], answered: the response to send back to the merchant's browser.
    pub async fn respond(&self, uri: &http::Uri) -> http::Response<String> {
        self.handle(uri).await.into_response()
    }

    async fn install(&self, code: &str) -> Result<InstallOutcome, InstallError> {
        let first = self
            .used
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .first_use(code);
        if !first {
            return Err(InstallError::CodeAlreadyUsed);
        }
        let tokens = exchange_authorization_code(
            &self.http,
            &self.app.client_id,
            &self.app.client_secret,
            &self.app.token_url,
            &self.redirect_uri,
            code,
        )
        .await
        .map_err(|error| match error {
            OAuthError::InvalidGrant { description } => InstallError::CodeRejected { description },
            error => InstallError::TokenEndpoint(error),
        })?;
        let merchant = self.merchant_of(&tokens).await?;
        self.tokens.for_merchant(&merchant).install(&tokens).await?;
        tracing::info!(merchant = %merchant, "the app was installed");
        Ok(InstallOutcome::Installed {
            merchant,
            scope: tokens.scope.clone(),
            expires_at: tokens.expires_at,
        })
    }

    /// The merchant the tokens act for, from the accounts host's user information.
    async fn merchant_of(&self, tokens: &TokenSet) -> Result<String, InstallError> {
        let failed =
            |status: Option<u16>, detail: String| InstallError::UserInfo { status, detail };
        let authorization = tokens
            .access
            .bearer_header()
            .map_err(|e| failed(None, e.to_string()))?;
        let sent = self.user_info_url.clone();
        let response = self
            .http
            .get(sent.clone())
            .header(http::header::AUTHORIZATION, authorization)
            .header(http::header::ACCEPT, "application/json")
            .timeout(Duration::from_secs(30))
            .send()
            .await
            .map_err(|e| failed(None, e.without_url().to_string()))?;
        let status = response.status().as_u16();
        if let Some(target) = redirected(&sent, &response) {
            return Err(failed(
                Some(status),
                format!(
                    "redirected to {target}: refused (the access token goes to the accounts host only)"
                ),
            ));
        }
        if !response.status().is_success() {
            return Err(failed(Some(status), format!("HTTP {status}")));
        }
        let body = read_bounded(response, MAX_TOKEN_RESPONSE_BYTES)
            .await
            .map_err(|e| match e {
                super::oauth::Bounded::TooLarge { limit } => {
                    failed(Some(status), format!("larger than {limit} bytes: refused"))
                }
                super::oauth::Bounded::Http(e) => failed(Some(status), e.without_url().to_string()),
            })?;
        let body: Value = serde_json::from_slice(&body)
            .map_err(|e| failed(Some(status), format!("not JSON: {e}")))?;
        merchant_of_user_info(&body).ok_or_else(|| {
            failed(
                Some(status),
                "no merchant id in it (`data.merchant.id` or `merchant.id`)".into(),
            )
        })
    }
}

/// An HTTP client that follows no redirect (the callback's default).
fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        // Building fails only when the TLS backend cannot start; the default client would fail
        // the same way. The token requests refuse a redirect whatever the client's policy.
        .unwrap_or_default()
}

/// The merchant (store) id of a user-information answer: `data.merchant.id` (the documented
/// envelope), `merchant.id` (the same without it), or `store` instead of `merchant` (an older
/// example), a number or a string of digits (the service is PHP).
pub fn merchant_of_user_info(body: &Value) -> Option<String> {
    let candidates = [
        "/data/merchant/id",
        "/merchant/id",
        "/data/store/id",
        "/store/id",
    ];
    candidates
        .iter()
        .find_map(|pointer| match body.pointer(pointer)? {
            Value::Number(n) if n.is_u64() || n.is_i64() => Some(n.to_string()),
            Value::String(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
                Some(s.clone())
            }
            _ => None,
        })
}

/// [`InstallCallback::respond`] as an axum handler: route the app's callback path to it with the
/// callback as the router's state.
///
/// ```no_run
/// # use std::sync::Arc;
/// # fn app(callback: store_admin::credentials::InstallCallback) -> axum::Router {
/// axum::Router::new()
///     .route("/oauth/callback", axum::routing::get(store_admin::credentials::axum_callback))
///     .with_state(Arc::new(callback))
/// # }
/// ```
#[cfg(feature = "axum")]
pub async fn axum_callback(
    axum::extract::State(callback): axum::extract::State<Arc<InstallCallback>>,
    uri: http::Uri,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    callback.respond(&uri).await.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_merchant_is_read_with_or_without_the_data_envelope() {
        let cases = [
            (
                json!({"status": 200, "success": true, "data": {"id": 1, "merchant": {"id": 7}}}),
                Some("7"),
            ),
            (json!({"id": 1, "merchant": {"id": "8"}}), Some("8")),
            (json!({"data": {"store": {"id": 9}}}), Some("9")),
            (json!({"data": {"merchant": {"id": "x"}}}), None),
            (json!({"data": {"merchant": {"id": 1.5}}}), None),
            (json!({"data": {}}), None),
            (json!([]), None),
        ];
        for (body, expected) in cases {
            assert_eq!(merchant_of_user_info(&body).as_deref(), expected, "{body}");
        }
    }

    #[test]
    fn a_code_is_remembered_once_and_the_oldest_are_forgotten() {
        let mut used = UsedCodes::default();
        assert!(used.first_use("a"));
        assert!(!used.first_use("a"));
        for i in 0..REMEMBERED_CODES {
            assert!(used.first_use(&format!("c{i}")));
        }
        assert!(
            used.first_use("a"),
            "forgotten after {REMEMBERED_CODES} others"
        );
        assert_eq!(used.order.len(), REMEMBERED_CODES);
    }

    #[test]
    fn outcomes_answer_plain_text_without_caching() {
        let response = InstallOutcome::Failed(InstallError::CodeAlreadyUsed).into_response();
        assert_eq!(response.status(), http::StatusCode::BAD_REQUEST);
        assert_eq!(response.headers()["cache-control"], "no-store");
        assert!(response.body().contains("already used"));
        let denied = InstallOutcome::Denied {
            code: "access_denied".into(),
            description: None,
        };
        assert_eq!(denied.status(), http::StatusCode::FORBIDDEN);
    }
}

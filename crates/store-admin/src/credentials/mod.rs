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
//!
//! One file per idea: the secret token types (`tokens.rs`), where tokens are kept (`store.rs`;
//! `file.rs` and `redis.rs` for the stores shared between processes, `sealing.rs` for their
//! records encrypted at rest),
//! the OAuth exchange (`oauth.rs`), single-flight refresh (`single_flight.rs`), the
//! authenticator that puts them together (`authenticator.rs`), the health of each store's token
//! chain (`health.rs`) and the callback that receives an installation's code (`install.rs`).

mod authenticator;
mod file;
mod health;
mod install;
mod oauth;
#[cfg(feature = "redis")]
mod redis;
mod sealing;
mod single_flight;
mod store;
mod tokens;

use std::fmt;
use std::sync::Arc;

use secrecy::SecretString;
use url::Url;

pub(crate) use authenticator::Bearer;
pub use authenticator::{
    AuthError, Authenticator, DEFAULT_REFRESH_AHEAD, TokenLease, Unauthorized,
    classify_unauthorized,
};
pub use file::{FileTokenStore, FileTokenStores};
pub use health::{HealthState, StoreHealth, TokenFailure, TokenHealth, health_report};
#[cfg(feature = "axum")]
pub use install::axum_callback;
pub use install::{InstallCallback, InstallError, InstallOutcome, merchant_of_user_info};
pub use oauth::{
    AuthorizationRequest, DEFAULT_ACCESS_TOKEN_LIFETIME, DEFAULT_AUTHORIZE_URL, DEFAULT_TOKEN_URL,
    MAX_TOKEN_RESPONSE_BYTES, OAuthError, RedirectError, exchange_authorization_code,
    refresh_token_set,
};
#[cfg(feature = "redis")]
pub(crate) use redis::connect as connect_redis;
#[cfg(feature = "redis")]
pub use redis::{DEFAULT_LOCK_TTL, RedisTokenStore, RedisTokenStores};
pub use sealing::{TOKEN_KEYS_ENV, TOKEN_KEYS_FILE_ENV, TokenKeys, TokenKeysError};
pub use single_flight::{Generation, RefreshAborted, Refresher, Versioned};
pub use store::{
    InMemoryTokenStore, InMemoryTokenStores, Revision, Snapshot, StoredTokens, TokenStore,
    TokenStoreError, TokenStoreLock, TokenStores,
};
pub use tokens::{AccessToken, RefreshToken, TokenSet};

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

pub(crate) fn default_token_url() -> Url {
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

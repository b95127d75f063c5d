//! [`Merchants`]: one process serving many merchant stores.
//!
//! An app installed by many merchants calls each one's store with that store's tokens and within
//! that store's rate limit. `Merchants` hands out a [`StoreAdmin`] per merchant; all of them share
//! one `reqwest::Client` (one connection pool), one retry budget, one [`TokenStores`] keyed by
//! merchant and, when given, one [`RateLimiters`] keyed by merchant. The webhook deliveries that
//! concern the app's installation keep the token stores current ([`Merchants::handle_event`]):
//! `app.store.authorize` saves the store's new tokens, `app.uninstalled` marks the store
//! "reinstall needed". [`Merchants::health`] and [`Merchants::needing_attention`] say how each
//! store's tokens are doing.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use secrecy::SecretString;
use url::Url;

use crate::credentials::{
    AuthError, Credentials, DEFAULT_REFRESH_AHEAD, StoreHealth, StoredTokens, TokenSet,
    TokenStores, health_report,
};
use crate::error::Error;
use crate::ratelimit::RateLimiters;
use crate::retry::RetryBudget;
use crate::webhooks::{AppStoreAuthorize, EventName, WebhookEvent};
use crate::{StoreAdmin, StoreAdminBuilder};

/// The app's OAuth client, the same for every merchant store.
#[derive(Clone)]
pub struct OAuthApp {
    /// The app's client id.
    pub client_id: String,
    /// The app's client secret.
    pub client_secret: SecretString,
    /// The token endpoint (default: the live service's).
    pub token_url: Url,
}

impl OAuthApp {
    /// The app `client_id` against the live token endpoint.
    pub fn new(client_id: impl Into<String>, client_secret: SecretString) -> Self {
        OAuthApp {
            client_id: client_id.into(),
            client_secret,
            token_url: crate::credentials::default_token_url(),
        }
    }

    /// Another token endpoint (a mock store's).
    pub fn with_token_url(mut self, token_url: Url) -> Self {
        self.token_url = token_url;
        self
    }
}

impl fmt::Debug for OAuthApp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthApp")
            .field("client_id", &self.client_id)
            .field("client_secret", &"***")
            .field("token_url", &self.token_url.as_str())
            .finish()
    }
}

/// What a delivery did to the app's installations (see [`Merchants::handle_event`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Installation {
    /// `app.store.authorize`: the merchant's new tokens were saved.
    Authorized,
    /// `app.uninstalled`: the merchant's tokens were revoked (the store needs a reinstall).
    Uninstalled,
    /// Any other event: nothing to do here.
    Ignored,
}

/// Clients for many merchant stores, sharing one connection pool, one retry budget, one token
/// store and one rate limiter keyed by merchant (see the module documentation).
pub struct Merchants {
    app: OAuthApp,
    template: StoreAdminBuilder,
    tokens: Arc<dyn TokenStores>,
    limits: Option<Arc<dyn RateLimiters>>,
    clients: Mutex<HashMap<String, StoreAdmin>>,
}

impl fmt::Debug for Merchants {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self
            .clients
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        f.debug_struct("Merchants")
            .field("app", &self.app)
            .field("template", &self.template)
            .field("rate_limited", &self.limits.is_some())
            .field("clients", &count)
            .finish_non_exhaustive()
    }
}

impl Merchants {
    /// Clients of `app` whose tokens live in `tokens`, against the live service. Set the base
    /// URL, timeouts and retry policy with [`Merchants::with_template`].
    pub fn new(app: OAuthApp, tokens: Arc<dyn TokenStores>) -> Result<Self, Error> {
        Merchants::with_template(app, tokens, StoreAdmin::builder())
    }

    /// Like [`Merchants::new`], every client built from `template` (base URL, user agent,
    /// timeouts, retry policy; its credentials and rate limit are replaced per merchant). One
    /// `reqwest::Client` and one retry budget are made for all of them unless the template
    /// brings its own.
    pub fn with_template(
        app: OAuthApp,
        tokens: Arc<dyn TokenStores>,
        template: StoreAdminBuilder,
    ) -> Result<Self, Error> {
        let template = template.shared(Arc::new(RetryBudget::default()))?;
        Ok(Merchants {
            app,
            template,
            tokens,
            limits: None,
            clients: Mutex::new(HashMap::new()),
        })
    }

    /// A rate limiter per merchant store (local, or shared by every process through Redis).
    pub fn with_rate_limiters(mut self, limits: Arc<dyn RateLimiters>) -> Self {
        self.limits = Some(limits);
        self
    }

    /// The client of `merchant` (made on first use, then the same one).
    pub fn store(&self, merchant: &str) -> Result<StoreAdmin, Error> {
        let mut clients = self.clients.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(client) = clients.get(merchant) {
            return Ok(client.clone());
        }
        let credentials = Credentials::OAuth {
            client_id: self.app.client_id.clone(),
            client_secret: self.app.client_secret.clone(),
            token_url: self.app.token_url.clone(),
            store: self.tokens.for_merchant(merchant),
        };
        let mut builder = self
            .template
            .clone()
            .with_credentials(credentials)
            .with_store_label(merchant);
        if let Some(limits) = &self.limits {
            builder = builder.with_rate_limiter(limits.for_merchant(merchant));
        }
        let client = builder.build()?;
        clients.insert(merchant.to_owned(), client.clone());
        Ok(client)
    }

    /// Saves `tokens` as the store's (received by `app.store.authorize`, or an authorization
    /// code exchange): every process uses them from now on.
    pub async fn install(&self, merchant: &str, tokens: TokenSet) -> Result<(), Error> {
        self.store(merchant)?
            .authenticator()
            .install(tokens)
            .await
            .map(|_| ())
            .map_err(Error::Auth)
    }

    /// Revokes the store's tokens (the app was uninstalled: they no longer work) and forgets
    /// its client. The store stays known, marked revoked with the failure `app.uninstalled`, so
    /// that [`Merchants::needing_attention`] lists it until the merchant installs the app again.
    pub async fn uninstall(&self, merchant: &str) -> Result<(), Error> {
        self.clients
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(merchant);
        let store = self.tokens.for_merchant(merchant);
        let store_error = |e| Error::Auth(AuthError::Store(e));
        let health = store
            .load()
            .await
            .map_err(store_error)?
            .health
            .failed(chrono::Utc::now(), "app.uninstalled");
        store
            .save_with_health(&StoredTokens::Revoked, &health, None)
            .await
            .map(|_| ())
            .map_err(store_error)
    }

    /// Every store the token stores know, with the health of its tokens (never a token): the
    /// expiry, the last refresh and the last failure, and a [`HealthState`](crate::credentials::HealthState).
    pub async fn health(&self) -> Result<Vec<StoreHealth>, Error> {
        health_report(
            self.tokens.as_ref(),
            chrono::Utc::now(),
            DEFAULT_REFRESH_AHEAD,
        )
        .await
        .map_err(|e| Error::Auth(AuthError::Store(e)))
    }

    /// The stores a person must look at: revoked or uninstalled (the merchant must reinstall
    /// the app), expired, or whose last refresh failed (see [`StoreHealth::needs_attention`]).
    pub async fn needing_attention(&self) -> Result<Vec<StoreHealth>, Error> {
        let mut report = self.health().await?;
        report.retain(StoreHealth::needs_attention);
        Ok(report)
    }

    /// Keeps the token stores current from a verified webhook delivery: `app.store.authorize`
    /// installs the tokens it carries, `app.uninstalled` revokes the store's. Deliveries are
    /// resent, so both are idempotent.
    pub async fn handle_event(&self, event: &WebhookEvent) -> Result<Installation, Error> {
        let merchant = event.merchant.to_string();
        match event.event {
            EventName::AppStoreAuthorize => {
                let tokens = event
                    .data_as::<AppStoreAuthorize>()
                    .and_then(AppStoreAuthorize::into_token_set)
                    .map_err(|e| Error::InvalidRequest(format!("app.store.authorize: {e}")))?;
                self.install(&merchant, tokens).await?;
                Ok(Installation::Authorized)
            }
            EventName::AppUninstalled => {
                self.uninstall(&merchant).await?;
                Ok(Installation::Uninstalled)
            }
            _ => Ok(Installation::Ignored),
        }
    }
}

//! Configuration of a [`MockServer`](crate::MockServer): seed, data size, tokens, faults, webhooks.

use std::fmt;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};

use crate::faults::FaultConfig;
use crate::oauth::OAuthConfig;

/// Every scope the service knows (FACTS.md): each resource with `.read` and `.read_write`, plus
/// `settings` and `offline_access`.
pub const ALL_SCOPES: &[&str] = &[
    "orders.read",
    "orders.read_write",
    "products.read",
    "products.read_write",
    "customers.read",
    "customers.read_write",
    "shipping.read",
    "shipping.read_write",
    "webhooks.read",
    "webhooks.read_write",
    "categories.read",
    "categories.read_write",
    "brands.read",
    "brands.read_write",
    "branches.read",
    "branches.read_write",
    "marketing.read",
    "marketing.read_write",
    "metadata.read",
    "metadata.read_write",
    "specialoffers.read",
    "specialoffers.read_write",
    "taxes.read",
    "taxes.read_write",
    "payments.read",
    "payments.read_write",
    "transactions.read",
    "transactions.read_write",
    "reviews.read",
    "reviews.read_write",
    "carts.read",
    "carts.read_write",
    "settings.read",
    "settings.read_write",
    "offline_access",
];

/// The token a mock accepts when its configuration names none.
pub const DEFAULT_TOKEN: &str = "sandbox-token";

/// One bearer token the mock accepts, with the scopes it grants.
#[derive(Clone)]
pub struct MockToken {
    token: SecretString,
    scopes: Vec<String>,
}

impl MockToken {
    /// A token granting `scopes`. A `.read_write` scope also grants the matching `.read` one.
    pub fn new<S: Into<String>>(
        token: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        Self {
            token: SecretString::from(token.into()),
            scopes: scopes.into_iter().map(Into::into).collect(),
        }
    }

    /// A token granting every scope of [`ALL_SCOPES`].
    pub fn all_scopes(token: impl Into<String>) -> Self {
        Self::new(token, ALL_SCOPES.iter().copied())
    }

    /// The token itself (send it as `Authorization: Bearer <token>`).
    pub fn secret(&self) -> &SecretString {
        &self.token
    }

    /// The scopes it was configured with.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether the token grants at least one of `required` (an empty list requires nothing).
    pub fn grants_any(&self, required: &[&str]) -> bool {
        scopes_grant_any(&self.scopes, required)
    }

    /// Whether the token grants `scope`, directly or through its `.read_write` sibling.
    pub fn grants(&self, scope: &str) -> bool {
        scopes_grant(&self.scopes, scope)
    }

    pub(crate) fn matches(&self, presented: &str) -> bool {
        constant_time_eq(self.token.expose_secret(), presented)
    }
}

/// Whether `held` grants `scope`, directly or through its `.read_write` sibling (the one rule:
/// [`store_admin_client::scope_grants`]).
pub(crate) fn scopes_grant(held: &[String], scope: &str) -> bool {
    held.iter()
        .any(|held| store_admin_client::scope_grants(held, scope))
}

/// Whether `held` grants at least one of `required` (an empty list requires nothing).
pub(crate) fn scopes_grant_any(held: &[String], required: &[&str]) -> bool {
    required.is_empty() || required.iter().any(|needed| scopes_grant(held, needed))
}

/// Equality of two secrets whose time does not depend on where they differ (length leaks).
pub(crate) fn constant_time_eq(expected: &str, presented: &str) -> bool {
    bool::from(subtle::ConstantTimeEq::ct_eq(
        expected.as_bytes(),
        presented.as_bytes(),
    ))
}

impl fmt::Debug for MockToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MockToken")
            .field("token", &"[REDACTED]")
            .field("scopes", &self.scopes)
            .finish()
    }
}

/// How the mock delivers webhook events.
#[derive(Debug, Clone, PartialEq)]
pub struct DeliveryConfig {
    /// Attempts per delivery, the first one included (the service makes 1 + 3 resends).
    pub max_attempts: u32,
    /// Pause between two attempts (the service waits about 5 minutes; the mock's default is 1 s).
    pub retry_delay: Duration,
    /// Timeout of one attempt (the service's is about 30 s).
    pub timeout: Duration,
}

impl Default for DeliveryConfig {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            retry_delay: Duration::from_secs(1),
            timeout: Duration::from_secs(30),
        }
    }
}

/// Configuration of a mock server, built with chained calls:
///
/// ```
/// use store_admin_mock::{FaultConfig, MockConfig};
/// let config = MockConfig::new()
///     .seed(7)
///     .products(50)
///     .token("reader", ["products.read"])
///     .faults(FaultConfig::default());
/// assert_eq!(config.product_count(), 50);
/// ```
#[derive(Debug, Clone)]
pub struct MockConfig {
    pub(crate) seed: u64,
    pub(crate) products: usize,
    pub(crate) tokens: Vec<MockToken>,
    pub(crate) faults: FaultConfig,
    pub(crate) delivery: DeliveryConfig,
    pub(crate) port: u16,
    pub(crate) merchant_id: Option<i64>,
    pub(crate) oauth: OAuthConfig,
}

impl Default for MockConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            products: 1000,
            tokens: Vec::new(),
            faults: FaultConfig::default(),
            delivery: DeliveryConfig::default(),
            port: 0,
            merchant_id: None,
            oauth: OAuthConfig::default(),
        }
    }
}

impl MockConfig {
    /// Seed 1, 1,000 products, no faults, and (unless tokens are added) [`DEFAULT_TOKEN`] with every scope.
    pub fn new() -> Self {
        Self::default()
    }

    /// The seed of the data generator and of the fault decisions.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// How many products to generate (default 1,000).
    pub fn products(mut self, count: usize) -> Self {
        self.products = count;
        self
    }

    /// Accepts `token` with `scopes`.
    pub fn token<S: Into<String>>(
        mut self,
        token: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.tokens.push(MockToken::new(token, scopes));
        self
    }

    /// Accepts `token` with every scope.
    pub fn token_all_scopes(mut self, token: impl Into<String>) -> Self {
        self.tokens.push(MockToken::all_scopes(token));
        self
    }

    /// The faults injected from the start (they can be changed at run time).
    pub fn faults(mut self, faults: FaultConfig) -> Self {
        self.faults = faults;
        self
    }

    /// Webhook delivery attempts and delays.
    pub fn delivery(mut self, delivery: DeliveryConfig) -> Self {
        self.delivery = delivery;
        self
    }

    /// The port to bind on 127.0.0.1 (default 0: an ephemeral port).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// The `merchant` id in webhook envelopes (default: derived from the seed).
    pub fn merchant_id(mut self, merchant_id: i64) -> Self {
        self.merchant_id = Some(merchant_id);
        self
    }

    /// Enables the OAuth token endpoint (`POST /oauth2/token`, see
    /// [`MockServer::token_url`](crate::MockServer::token_url)) for the app `client_id` /
    /// `client_secret`. Without it, every token request answers 401 `invalid_client`.
    pub fn oauth_client(
        mut self,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        self.oauth.client = Some((client_id.into(), SecretString::from(client_secret.into())));
        self
    }

    /// A refresh token the token endpoint accepts once (refresh tokens are single use), as if
    /// an installation had granted `scopes`; the tokens issued from it carry the same scopes.
    pub fn oauth_refresh_token<S: Into<String>>(
        mut self,
        refresh_token: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.oauth
            .refresh_tokens
            .push(MockToken::new(refresh_token, scopes));
        self
    }

    /// An OAuth access token valid from the start, with `scopes`. Unlike [`MockConfig::token`],
    /// it expires with [`MockServer::expire_access_tokens`](crate::MockServer::expire_access_tokens).
    pub fn oauth_access_token<S: Into<String>>(
        mut self,
        access_token: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.oauth
            .access_tokens
            .push(MockToken::new(access_token, scopes));
        self
    }

    /// How long access tokens issued by the token endpoint last (default 14 days, as the
    /// service's). `Duration::ZERO` issues tokens that are already expired: the API rejects them
    /// with 401 `The access token is invalid`.
    pub fn oauth_access_token_lifetime(mut self, lifetime: Duration) -> Self {
        self.oauth.lifetime = lifetime;
        self
    }

    /// The configured product count.
    pub fn product_count(&self) -> usize {
        self.products
    }

    pub(crate) fn effective_tokens(&self) -> Vec<MockToken> {
        if self.tokens.is_empty() {
            vec![MockToken::all_scopes(DEFAULT_TOKEN)]
        } else {
            self.tokens.clone()
        }
    }
}

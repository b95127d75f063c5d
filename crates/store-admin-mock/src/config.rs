//! Configuration of a [`MockServer`](crate::MockServer): seed, data size, tokens, faults, webhooks.

use std::fmt;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};

use crate::faults::FaultConfig;

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
        required.is_empty() || required.iter().any(|needed| self.grants(needed))
    }

    /// Whether the token grants `scope`, directly or through its `.read_write` sibling.
    pub fn grants(&self, scope: &str) -> bool {
        self.scopes.iter().any(|held| {
            held == scope
                || scope
                    .strip_suffix(".read")
                    .is_some_and(|base| held.strip_suffix(".read_write") == Some(base))
        })
    }

    pub(crate) fn matches(&self, presented: &str) -> bool {
        let expected = self.token.expose_secret().as_bytes();
        let presented = presented.as_bytes();
        // Length leaks, content does not: compare every byte.
        expected.len() == presented.len()
            && expected
                .iter()
                .zip(presented)
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }
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

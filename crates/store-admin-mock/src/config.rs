//! Configuration of a [`MockServer`](crate::MockServer): seed, data size, tokens, faults, webhooks.

use std::path::PathBuf;
use std::time::Duration;

use secrecy::SecretString;

use crate::auth::{DEFAULT_TOKEN, MockToken};
use crate::faults::FaultConfig;

/// How long issued access tokens last unless configured otherwise (the service's: 14 days).
pub const DEFAULT_ACCESS_TOKEN_LIFETIME: Duration = Duration::from_secs(14 * 24 * 3600);

/// The OAuth side of a [`MockConfig`]: the app's client, the refresh tokens and access tokens
/// valid at start, and the lifetime of issued access tokens.
#[derive(Clone)]
pub(crate) struct OAuthConfig {
    pub client: Option<(String, SecretString)>,
    pub refresh_tokens: Vec<MockToken>,
    pub access_tokens: Vec<MockToken>,
    pub lifetime: Duration,
}

impl Default for OAuthConfig {
    fn default() -> Self {
        Self {
            client: None,
            refresh_tokens: Vec::new(),
            access_tokens: Vec::new(),
            lifetime: DEFAULT_ACCESS_TOKEN_LIFETIME,
        }
    }
}

impl std::fmt::Debug for OAuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthConfig")
            .field("client_id", &self.client.as_ref().map(|(id, _)| id))
            .field("refresh_tokens", &self.refresh_tokens)
            .field("access_tokens", &self.access_tokens)
            .field("lifetime", &self.lifetime)
            .finish()
    }
}

/// The bounds that keep the mock's memory and connections in check under abuse.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Largest request body on any route (a larger one is a 413 in the error envelope).
    pub body_bytes: usize,
    /// Longest string in a JSON request body (a longer one is a 422 naming its field).
    pub field_bytes: usize,
    /// Largest JSON body an operation that stores a record accepts (422 above it).
    pub record_bytes: usize,
    /// Most records a collection holds: creating more is a 422.
    pub collection_records: usize,
    /// Time a connection has to send its request headers before it is closed (also how long an
    /// idle keep-alive connection stays open, as hyper counts it from the end of the last answer).
    pub header_read_timeout: Duration,
    /// Time a request has to send its whole body once its head is in: a body that trickles is
    /// answered 408 and its connection closed, so that slow clients cannot hold connections.
    pub body_read_timeout: Duration,
    /// How long a background job runs before its result appears: an export's file in the export
    /// logs, an import's rows in the store (the file read as CSV with a header line).
    pub background_job: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            body_bytes: 1024 * 1024,
            field_bytes: 10 * 1024,
            record_bytes: 64 * 1024,
            collection_records: 10_000,
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            background_job: Duration::from_secs(2),
        }
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
    pub(crate) document: Option<PathBuf>,
    pub(crate) admin_token: Option<SecretString>,
    pub(crate) limits: Limits,
    pub(crate) strict_fields: bool,
    pub(crate) proxy: Option<url::Url>,
    pub(crate) proxy_answer_limit: u64,
    pub(crate) restore: Option<crate::StoreSnapshot>,
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
            document: None,
            admin_token: None,
            limits: Limits::default(),
            strict_fields: false,
            proxy: None,
            proxy_answer_limit: crate::drift::DEFAULT_PROXY_ANSWER_BYTES,
            restore: None,
        }
    }
}

impl MockConfig {
    /// Starts from what `snapshot` holds (taken by [`crate::MockServer::snapshot`]) instead of a
    /// generated store: the records, and the ids given out, of the mock it was taken from. The
    /// seed and product count then only decide what is not the store (faults, OAuth codes).
    pub fn restore(mut self, snapshot: crate::StoreSnapshot) -> Self {
        self.restore = Some(snapshot);
        self
    }

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

    /// A refresh token the token endpoint accepts once, granting every scope of the document.
    pub fn oauth_refresh_token_all_scopes(mut self, refresh_token: impl Into<String>) -> Self {
        self.oauth
            .refresh_tokens
            .push(MockToken::all_scopes(refresh_token));
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

    /// Serves the OpenAPI document at `path` instead of the embedded `openapi/store-admin.yaml`:
    /// its operations, scopes, schemas and known values drive everything the mock does.
    pub fn document(mut self, path: impl Into<PathBuf>) -> Self {
        self.document = Some(path.into());
        self
    }

    /// Requires `Authorization: Bearer <token>` on the `/__admin/*` routes (faults, deliveries,
    /// events, OAuth expiry). Without it they are open, as a local test tool's are.
    pub fn admin_token(mut self, token: impl Into<String>) -> Self {
        self.admin_token = Some(SecretString::from(token.into()));
        self
    }

    /// The bounds under abuse (body size, field size, collection size, header timeout).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Refuses a JSON body field its operation's schema does not declare (422 naming it, "The
    /// field is not known."), where the schema lists its properties and says nothing of others.
    /// Off by default, as on the service, which ignores such fields and whose document leaves
    /// request objects open; on, a typo in a hand-built body fails a test instead of vanishing.
    pub fn strict_fields(mut self, strict: bool) -> Self {
        self.strict_fields = strict;
        self
    }

    /// The drift check: forward every call below `/admin/v2` to the real store at `base_url`
    /// (its base URL, ending in `/admin/v2`) instead of answering it, with the caller's headers
    /// (its token included) to that origin only, and check each answer against the document (it
    /// decodes through the generated types; which habits of the service it needed; the fields
    /// the document does not know). The report is [`MockServer::drift`](crate::MockServer::drift)
    /// and `GET /__admin/drift`.
    ///
    /// The admin routes (`/__admin/*`, the report among them) need an
    /// [`admin_token`](Self::admin_token) in this mode: without one they answer 401.
    pub fn proxy(mut self, base_url: url::Url) -> Self {
        self.proxy = Some(base_url);
        self
    }

    /// The largest answer of the store the drift check reads ([`proxy`](Self::proxy)), in bytes:
    /// it is read in pieces and refused (502) as soon as it passes the bound, as the client
    /// refuses one. Default [`DEFAULT_PROXY_ANSWER_BYTES`](crate::DEFAULT_PROXY_ANSWER_BYTES),
    /// 64 MiB, the client's default.
    pub fn proxy_answer_limit(mut self, bytes: u64) -> Self {
        self.proxy_answer_limit = bytes;
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

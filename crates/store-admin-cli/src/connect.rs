//! How a command connects: the sandbox or the service, the app's OAuth client, the token store
//! (files or Redis, per merchant store) and the rate limiter shared through Redis. `auth`'s
//! commands and every other command start here.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use secrecy::{ExposeSecret, SecretString};
use store_admin::credentials::{
    Credentials, DEFAULT_AUTHORIZE_URL, DEFAULT_TOKEN_URL, FileTokenStores, StoredTokens, TokenSet,
    TokenStore,
};
use store_admin::ratelimit::RateLimit;
use store_admin::retry::RetryPolicy;
use store_admin::{LIVE_BASE_URL, StoreAdmin, StoreAdminBuilder};
use store_admin_mock::{MockConfig, MockServer};
use url::Url;

use crate::error::CliError;
pub use crate::global::{DEFAULT_STORE, store_id};
use crate::global::{Global, StoreLocation, TokenOrigin, state_dir};

/// The token the sandbox accepts, and the one the CLI sends it (whatever `--token` says).
pub const SANDBOX_TOKEN: &str = store_admin_mock::DEFAULT_TOKEN;

/// The OAuth client the sandbox knows when none is given (not a secret: the sandbox runs in the
/// command's own process).
pub const SANDBOX_CLIENT_ID: &str = "sandbox-client";
/// The sandbox client's secret.
pub const SANDBOX_CLIENT_SECRET: &str = "sandbox-client-secret";

// ---------------------------------------------------------------------------------------------
// Settings

/// Whether the command talks to the embedded sandbox.
pub fn is_sandbox(global: &Global) -> bool {
    global.sandbox || global.sandbox_faults.is_some() || global.sandbox_scopes.is_some()
}

/// The token URL of the service (not the sandbox's).
pub(crate) fn service_token_url(global: &Global) -> Url {
    global
        .token_url
        .clone()
        .unwrap_or_else(|| Url::parse(DEFAULT_TOKEN_URL).expect("the live token URL parses"))
}

/// The authorize endpoint beside `token_url`: `.../oauth2/token` gives `.../oauth2/auth`.
pub(crate) fn authorize_url_beside(token_url: &Url) -> Result<Url, CliError> {
    if token_url.as_str() == DEFAULT_TOKEN_URL {
        return Ok(Url::parse(DEFAULT_AUTHORIZE_URL).expect("the live authorize URL parses"));
    }
    match token_url.path().strip_suffix("/token") {
        Some(prefix) => {
            let mut url = token_url.clone();
            url.set_path(&format!("{prefix}/auth"));
            url.set_query(None);
            Ok(url)
        }
        None => Err(CliError::usage(format!(
            "cannot tell the authorize endpoint from the token URL {token_url}: give --authorize-url"
        ))),
    }
}

/// The app's OAuth client.
pub struct App {
    /// The client id.
    pub client_id: String,
    /// The client secret.
    pub client_secret: SecretString,
}

/// The app's client: both halves from the options, the environment or the profile; in the
/// sandbox, the sandbox's for any half not given. `None` when neither half is given.
pub fn app(global: &Global, sandbox: bool) -> Result<Option<App>, CliError> {
    let secret = crate::config::client_secret(global)?;
    match (global.client_id.clone(), secret) {
        (Some(client_id), Some(client_secret)) => Ok(Some(App {
            client_id,
            client_secret,
        })),
        (id, secret) if sandbox => Ok(Some(App {
            client_id: id.unwrap_or_else(|| SANDBOX_CLIENT_ID.to_string()),
            client_secret: secret.unwrap_or_else(|| SecretString::from(SANDBOX_CLIENT_SECRET)),
        })),
        (None, None) => Ok(None),
        (Some(_), None) => Err(CliError::usage(
            "the app's client secret is missing: set STORE_ADMIN_CLIENT_SECRET, or give \
             --client-secret-file PATH (or the profile's client_secret_file or client_secret_env)",
        )),
        (None, Some(_)) => Err(CliError::usage(
            "the app's client id is missing: give --client-id ID (or STORE_ADMIN_CLIENT_ID, or \
             the profile's client_id)",
        )),
    }
}

pub(crate) fn need_app(global: &Global, sandbox: bool, what: &str) -> Result<App, CliError> {
    app(global, sandbox)?.ok_or_else(|| {
        CliError::usage(format!(
            "{what} needs the app's OAuth client: --client-id ID (or STORE_ADMIN_CLIENT_ID) and \
             the secret in STORE_ADMIN_CLIENT_SECRET or --client-secret-file PATH (or a profile's \
             client_id and client_secret_file); or try it on the sandbox with --sandbox"
        ))
    })
}

/// An HTTP client for the token endpoint. It follows no redirect: a token request carries the
/// app's secrets (and a code, a PKCE verifier or a refresh token), and goes to the token URL only;
/// a redirect fails the exchange, naming where it pointed.
pub(crate) fn http(global: &Global) -> Result<reqwest::Client, CliError> {
    reqwest::Client::builder()
        .user_agent(concat!("store-admin-cli/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::try_from_secs_f64(global.timeout).unwrap_or(Duration::from_secs(30)))
        .build()
        .map_err(|e| CliError::other(format!("cannot build the HTTP client: {e}")))
}

// ---------------------------------------------------------------------------------------------
// The token store

/// Whose tokens: the sandbox's, or those of the service behind a token URL.
#[derive(Clone, Copy)]
pub enum Namespace<'a> {
    /// The embedded sandbox.
    Sandbox,
    /// The service whose token endpoint this is.
    Service(&'a Url),
}

/// One store's token store, and where it is (for messages; never a secret).
pub struct Tokens {
    /// The token store.
    pub store: Arc<dyn TokenStore>,
    /// Where it is.
    pub location: String,
}

/// The folder of a service's token files: its accounts host (and port), so that the tokens of
/// one service are never read for another.
pub(crate) fn namespace_dir(namespace: Namespace<'_>) -> String {
    match namespace {
        Namespace::Sandbox => "sandbox".to_string(),
        Namespace::Service(url) => {
            let mut name: String = url
                .host_str()
                .unwrap_or("host")
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || matches!(c, '.' | '-') {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            if let Some(port) = url.port() {
                name.push_str(&format!("_{port}"));
            }
            name
        }
    }
}

/// Opens the token store of `global`'s store. `Ok(None)` when it is the default file store and
/// there is no state directory to keep it in.
pub async fn open_tokens(
    global: &Global,
    namespace: Namespace<'_>,
) -> Result<Option<Tokens>, CliError> {
    let store = store_id(global);
    match global.token_store.clone().unwrap_or(StoreLocation::File) {
        StoreLocation::File => {
            let Some(state) = state_dir() else {
                return Ok(None);
            };
            let dir = state
                .join("store-admin")
                .join("tokens")
                .join(namespace_dir(namespace));
            let mut stores = FileTokenStores::new(dir);
            if let Some(keys) = crate::config::token_keys(global)? {
                stores = stores.with_keys(keys);
            }
            let file = stores.store(&store);
            let location = file.path().display().to_string();
            if file.path().exists() {
                // The same warning as a --token-file's: tokens are secrets.
                crate::config::warn_if_readable_by_others(file.path());
            }
            Ok(Some(Tokens {
                store: Arc::new(file),
                location,
            }))
        }
        StoreLocation::Redis(url) => open_redis_tokens(global, &url, namespace, &store)
            .await
            .map(Some),
    }
}

#[cfg(feature = "redis")]
async fn open_redis_tokens(
    global: &Global,
    url: &Url,
    namespace: Namespace<'_>,
    store: &str,
) -> Result<Tokens, CliError> {
    let keys = crate::config::token_keys(global)?;
    let shown = StoreLocation::Redis(url.clone()).display();
    let mut stores = store_admin::credentials::RedisTokenStores::connect(url.as_str())
        .await
        .map_err(|e| {
            CliError::Unavailable(format!(
                "cannot reach the token store {shown}: {}",
                chain(&e)
            ))
        })?;
    let prefix = match namespace {
        Namespace::Sandbox => "store-admin-sandbox",
        Namespace::Service(_) => "store-admin",
    };
    stores = stores.with_prefix(prefix);
    if let Some(keys) = keys {
        stores = stores.with_keys(keys);
    }
    Ok(Tokens {
        store: Arc::new(stores.store(store)),
        location: format!("{shown} (key {prefix}:tokens:{store})"),
    })
}

#[cfg(not(feature = "redis"))]
async fn open_redis_tokens(
    _global: &Global,
    _url: &Url,
    _namespace: Namespace<'_>,
    _store: &str,
) -> Result<Tokens, CliError> {
    Err(CliError::usage(
        "--token-store redis://...: this store-admin was built without the `redis` feature",
    ))
}

/// An error and its causes, `: `-separated, each said once (an error whose message already
/// quotes its cause does not get it twice); none holds a secret.
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        if !said.is_empty() && !text.contains(&said) {
            text.push_str(&format!(": {said}"));
        }
        source = cause.source();
    }
    text
}

/// The token store for an `auth` command, which cannot go on without one.
pub(crate) async fn need_tokens(
    global: &Global,
    namespace: Namespace<'_>,
) -> Result<Tokens, CliError> {
    open_tokens(global, namespace).await?.ok_or_else(|| {
        CliError::usage(
            "no place to keep tokens: set XDG_STATE_HOME or HOME, or give --token-store \
             redis://HOST:PORT/DB",
        )
    })
}

/// A failing token store: a Redis store is unreachable (exit 4), a file store failing is 1.
pub(crate) fn store_error(tokens: &Tokens, error: impl std::error::Error) -> CliError {
    let text = format!("{} ({})", chain(&error), tokens.location);
    if tokens.location.starts_with("redis") {
        CliError::Unavailable(text)
    } else {
        CliError::other(text)
    }
}

// ---------------------------------------------------------------------------------------------
// Clients of ordinary commands

/// The sandbox for a command: a fresh embedded mock store. `configure` adds to its
/// configuration (an OAuth client, tokens it accepts).
pub async fn start_sandbox(
    global: &Global,
    configure: impl FnOnce(MockConfig) -> MockConfig,
) -> Result<MockServer, CliError> {
    let mut config = MockConfig::new().seed(global.sandbox_seed);
    config = match &global.sandbox_scopes {
        Some(scopes) => config.token(SANDBOX_TOKEN, scopes.iter().map(|s| s.trim().to_string())),
        None => config.token_all_scopes(SANDBOX_TOKEN),
    };
    if let Some(faults) = &global.sandbox_faults {
        config = config.faults(faults.clone());
    }
    MockServer::start(configure(config))
        .await
        .map_err(|e| CliError::other(format!("cannot start the sandbox: {e}")))
}

/// `config` accepting `tokens` as an installation's (the sandbox forgets what it issued when
/// the command ends; the token store remembers for it).
fn accepting(config: MockConfig, tokens: &TokenSet) -> MockConfig {
    let scopes: Vec<String> = tokens.scopes().map(str::to_owned).collect();
    let mut config = config;
    if !tokens.access.expose_secret().is_empty() {
        config = config.oauth_access_token(tokens.access.expose_secret(), scopes.clone());
    }
    if let Some(refresh) = &tokens.refresh {
        config = if scopes.is_empty() {
            config.oauth_refresh_token_all_scopes(refresh.expose_secret())
        } else {
            config.oauth_refresh_token(refresh.expose_secret(), scopes)
        };
    }
    config
}

/// The sandbox and the builder's credentials for it: the tokens `auth login --sandbox` saved for
/// the store when there are some (and no `--sandbox-scopes`), else the sandbox's own token; and
/// which of the two it is.
pub async fn sandbox_client(
    global: &Global,
    builder: StoreAdminBuilder,
) -> Result<(StoreAdminBuilder, MockServer, TokenOrigin), CliError> {
    sandbox_client_from(global, builder, None).await
}

/// [`sandbox_client`] whose sandbox starts from `restore` (the store a previous command kept)
/// when there is one, else from the seeded store.
pub async fn sandbox_client_from(
    global: &Global,
    builder: StoreAdminBuilder,
    restore: Option<store_admin_mock::StoreSnapshot>,
) -> Result<(StoreAdminBuilder, MockServer, TokenOrigin), CliError> {
    let mut stored = None;
    if global.sandbox_scopes.is_none()
        && let Some(tokens) = open_tokens(global, Namespace::Sandbox).await?
    {
        let snapshot = tokens
            .store
            .load()
            .await
            .map_err(|e| store_error(&tokens, e))?;
        if let Some(set) = snapshot.tokens().cloned() {
            stored = Some((tokens, set));
        }
    }
    let app = need_app(global, true, "the sandbox")?;
    let server = start_sandbox(global, |config| {
        let mut config = config.oauth_client(&app.client_id, app.client_secret.expose_secret());
        if let Some(snapshot) = restore {
            config = config.restore(snapshot);
        }
        match &stored {
            Some((_, set)) => accepting(config, set),
            None => config,
        }
    })
    .await?;
    let builder = builder.with_base_url(server.base_url());
    let origin = match &stored {
        Some((tokens, _)) => TokenOrigin::SandboxStored {
            store: store_id(global),
            location: tokens.location.clone(),
        },
        None => TokenOrigin::Sandbox,
    };
    let builder = match stored {
        Some((tokens, _)) => builder.with_credentials(Credentials::OAuth {
            client_id: app.client_id,
            client_secret: app.client_secret,
            token_url: sandbox_token_url(&server)?,
            store: tokens.store,
        }),
        None => builder.with_token(SANDBOX_TOKEN),
    };
    Ok((builder, server, origin))
}

pub(crate) fn sandbox_token_url(server: &MockServer) -> Result<Url, CliError> {
    Url::parse(&server.token_url())
        .map_err(|e| CliError::other(format!("the sandbox's token URL: {e}")))
}

/// The builder's credentials for the service: `--token`/`--token-file`/the profile's token,
/// else the tokens stored for the store (refreshed with the app's client when it is known); and
/// where they came from.
pub async fn service_client(
    global: &Global,
    builder: StoreAdminBuilder,
) -> Result<(StoreAdminBuilder, TokenOrigin), CliError> {
    let builder = builder.with_base_url(global.base_url.clone());
    if let Some(token) = crate::config::token(global)? {
        return Ok((
            builder.with_token(token.secret.expose_secret()),
            token.origin,
        ));
    }
    let store = store_id(global);
    let token_url = service_token_url(global);
    let no_token = || {
        CliError::usage(format!(
            "no access token: log in with `store-admin auth login` (store {store}), or pass \
             --token-file PATH, --token - (standard input) or --token, set STORE_ADMIN_TOKEN, or \
             use a --profile that names one (or try the embedded sandbox store with --sandbox)"
        ))
    };
    let Some(tokens) = open_tokens(global, Namespace::Service(&token_url)).await? else {
        return Err(no_token());
    };
    let snapshot = tokens
        .store
        .load()
        .await
        .map_err(|e| store_error(&tokens, e))?;
    let set = match snapshot.value {
        None => return Err(no_token()),
        Some(StoredTokens::Revoked) => {
            return Err(CliError::Refused(format!(
                "the tokens of store {store} were revoked (the service answered invalid_grant): \
                 the merchant must reinstall the app, or log in again with `store-admin auth login`"
            )));
        }
        Some(StoredTokens::Active(set)) => set,
    };
    check_token_origins(&store, &token_url, &global.base_url)?;
    let origin = TokenOrigin::Stored {
        store: store.clone(),
        location: tokens.location.clone(),
    };
    let builder = match app(global, false)? {
        Some(app) => builder.with_credentials(Credentials::OAuth {
            client_id: app.client_id,
            client_secret: app.client_secret,
            token_url,
            store: tokens.store,
        }),
        None if set.access.expose_secret().is_empty()
            || set.is_expired(Utc::now(), Duration::from_secs(60)) =>
        {
            return Err(CliError::usage(format!(
                "the stored access token of store {store} has expired: give the app's client id \
                 and secret to refresh it (--client-id ID and STORE_ADMIN_CLIENT_SECRET or \
                 --client-secret-file PATH)"
            )));
        }
        None => builder.with_token(set.access.expose_secret()),
    };
    Ok((builder, origin))
}

/// Tokens issued by the live service go to the live API only: a `--base-url` elsewhere (a mock,
/// a proxy) must come with that service's own `--token-url` (then its own stored tokens).
fn check_token_origins(store: &str, token_url: &Url, base_url: &str) -> Result<(), CliError> {
    let live_accounts = Url::parse(DEFAULT_TOKEN_URL).map(|u| u.origin());
    let live_api = Url::parse(LIVE_BASE_URL).map(|u| u.origin());
    let base = Url::parse(base_url).map(|u| u.origin());
    if live_accounts.as_ref().ok() == Some(&token_url.origin()) && base.ok() != live_api.ok() {
        return Err(CliError::usage(format!(
            "the stored tokens of store {store} were issued by the live service: refusing to send \
             them to {} (give that service's --token-url, or a --token for it)",
            Url::parse(base_url)
                .map(|u| u.origin().ascii_serialization())
                .unwrap_or_default()
        )));
    }
    Ok(())
}

/// `--rate-limit-store`: a limiter of the store's budget shared through Redis.
#[cfg(feature = "redis")]
pub async fn shared_rate_limiter(
    global: &Global,
    url: &Url,
) -> Result<Arc<dyn store_admin::ratelimit::RateLimiter>, CliError> {
    use store_admin::ratelimit::{Plan, RedisRateLimiters};
    // --rate-limit is a ceiling; without it the fleet learns the store's rate from its answers,
    // starting at the Plus plan's.
    let limiters = match global.rate_limit {
        Some(per_minute) => RedisRateLimiters::connect_per_minute(url.as_str(), per_minute).await,
        None => RedisRateLimiters::connect_learning(url.as_str(), Plan::Plus).await,
    };
    let mut limiters = limiters.map_err(|e| {
        CliError::Unavailable(format!(
            "cannot reach the rate-limit store {}: {}",
            StoreLocation::Redis(url.clone()).display(),
            chain(&e)
        ))
    })?;
    if is_sandbox(global) {
        limiters = limiters.with_prefix("store-admin-sandbox");
    }
    Ok(limiters.limiter(&store_id(global)))
}

/// Without the `redis` feature there is no shared rate limiter.
#[cfg(not(feature = "redis"))]
pub async fn shared_rate_limiter(
    _global: &Global,
    _url: &Url,
) -> Result<Arc<dyn store_admin::ratelimit::RateLimiter>, CliError> {
    Err(CliError::usage(
        "--rate-limit-store: this store-admin was built without the `redis` feature",
    ))
}

// ---------------------------------------------------------------------------------------------
// The client of a command

/// The embedded sandbox of a command, and where its store is kept between commands.
pub(crate) struct Sandbox {
    server: MockServer,
    kept: Option<crate::sandbox_store::Kept>,
}

/// A command's client, its sandbox if it has one, and where its token came from.
pub(crate) struct Connection {
    /// The client.
    pub(crate) admin: StoreAdmin,
    sandbox: Option<Sandbox>,
    token: TokenOrigin,
}

impl Connection {
    /// Ends the command: keeps its sandbox's store, and says where the token came from when
    /// the service refused it (401).
    pub(crate) fn finish(self, result: Result<(), CliError>) -> Result<(), CliError> {
        let token = self.token;
        keep(self.sandbox, result).map_err(|error| error.with_token(&token))
    }
}

/// Keeps what the command did to the sandbox's store (even when it failed part way: what it
/// changed was changed), then answers its result; a store that cannot be kept fails a command
/// that succeeded.
fn keep(sandbox: Option<Sandbox>, result: Result<(), CliError>) -> Result<(), CliError> {
    let saved = match &sandbox {
        Some(Sandbox {
            server,
            kept: Some(kept),
        }) => kept.save(server),
        _ => Ok(()),
    };
    match (result, saved) {
        (Err(error), Err(unsaved)) => {
            crate::note!(
                "error: {}",
                crate::output::terminal_safe(&unsaved.message(), true)
            );
            Err(error)
        }
        (Err(error), Ok(())) => Err(error),
        (Ok(()), saved) => saved,
    }
}

/// Builds the client: to the sandbox (started here, kept alive by the returned server), or to
/// `--base-url` with `--token`, else with the tokens stored for `--store` (see [`crate::auth`]).
pub(crate) async fn connect(global: &Global) -> Result<Connection, CliError> {
    let seconds = |flag: &str, value: f64| {
        Duration::try_from_secs_f64(value).map_err(|_| {
            CliError::usage(format!(
                "{flag} {value}: give a positive number of seconds below 1000000000"
            ))
        })
    };
    let attempt_timeout = seconds("--timeout", global.timeout)?;
    let operation_timeout = seconds("--operation-timeout", global.operation_timeout)?;
    let user_agent = concat!("store-admin-cli/", env!("CARGO_PKG_VERSION"));
    // The library's own HTTP client: its redirect policy (`store_admin::redirect`) follows a
    // redirect only on the base URL's origin and under its path, and the runtime never retries
    // one it refused.
    let mut builder = StoreAdmin::builder()
        .with_user_agent(user_agent)
        .with_connect_timeout(Duration::from_secs(10))
        .with_retry_policy(
            RetryPolicy::default().with_max_attempts(global.retries.saturating_add(1)),
        )
        .with_attempt_timeout(attempt_timeout)
        .with_operation_timeout(operation_timeout)
        .with_max_response_bytes(global.max_response_size);
    if let Some(language) = &global.language {
        builder = builder.with_language(language.clone());
    }
    // The sandbox has its own token (or the tokens `auth login --sandbox` saved). The user's
    // --token / STORE_ADMIN_TOKEN belongs to the service: it is neither needed there nor sent.
    let (mut builder, sandbox, token) = if is_sandbox(global) {
        let (kept, restore) = crate::sandbox_store::open(global).await?;
        let (builder, server, token) = sandbox_client_from(global, builder, restore).await?;
        (builder, Some(Sandbox { server, kept }), token)
    } else {
        let (builder, token) = service_client(global, builder).await?;
        (builder, None, token)
    };
    match &global.rate_limit_store {
        Some(StoreLocation::Redis(url)) => {
            builder = builder.with_rate_limiter(shared_rate_limiter(global, url).await?);
        }
        Some(StoreLocation::File) => {
            return Err(CliError::usage(
                "--rate-limit-store takes redis://HOST:PORT/DB",
            ));
        }
        None => {
            if let Some(per_minute) = global.rate_limit {
                builder = builder.with_rate_limit(RateLimit::per_minute(per_minute));
            }
        }
    }
    let admin = builder
        .build()
        .map_err(|e| CliError::usage(e.to_string()))?;
    Ok(Connection {
        admin,
        sandbox,
        token,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_authorize_endpoint_is_found_beside_the_token_endpoint() {
        let live = Url::parse(DEFAULT_TOKEN_URL).unwrap();
        assert_eq!(
            authorize_url_beside(&live).unwrap().as_str(),
            DEFAULT_AUTHORIZE_URL
        );
        let mock = Url::parse("http://127.0.0.1:4010/oauth2/token").unwrap();
        assert_eq!(
            authorize_url_beside(&mock).unwrap().as_str(),
            "http://127.0.0.1:4010/oauth2/auth"
        );
        assert!(authorize_url_beside(&Url::parse("https://x.test/exchange").unwrap()).is_err());
    }

    #[test]
    fn each_service_keeps_its_tokens_in_its_own_folder() {
        let live = Url::parse(DEFAULT_TOKEN_URL).unwrap();
        assert_eq!(
            namespace_dir(Namespace::Service(&live)),
            "accounts.salla.sa"
        );
        let mock = Url::parse("http://127.0.0.1:4010/oauth2/token").unwrap();
        assert_eq!(namespace_dir(Namespace::Service(&mock)), "127.0.0.1_4010");
        let v6 = Url::parse("http://[::1]:9/oauth2/token").unwrap();
        assert_eq!(namespace_dir(Namespace::Service(&v6)), "___1__9");
        assert_eq!(namespace_dir(Namespace::Sandbox), "sandbox");
    }

    #[test]
    fn live_tokens_go_to_the_live_api_only() {
        let live = Url::parse(DEFAULT_TOKEN_URL).unwrap();
        assert!(check_token_origins("s", &live, LIVE_BASE_URL).is_ok());
        let refused = check_token_origins("s", &live, "http://127.0.0.1:4010/admin/v2")
            .unwrap_err()
            .to_string();
        assert!(refused.contains("http://127.0.0.1:4010"), "{refused}");
        let mock = Url::parse("http://127.0.0.1:4010/oauth2/token").unwrap();
        assert!(check_token_origins("s", &mock, "http://127.0.0.1:4010/admin/v2").is_ok());
    }
}

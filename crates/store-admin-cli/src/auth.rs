//! `store-admin auth`: logging in to a merchant store with OAuth, and the stored tokens that the
//! other commands then use.
//!
//! - `auth login` runs the authorization-code flow (RFC 6749 §4.1, PKCE S256, RFC 8252's
//!   loopback redirect): it listens on `127.0.0.1` (a random port unless `--port`), prints the
//!   authorize URL (and on a desktop opens it), checks the `state` of the redirect that comes
//!   back, exchanges the code at the token URL and saves the pair in the token store.
//! - `auth status` says which store, scopes and expiry the stored tokens have; never a token.
//! - `auth logout` removes them; `auth import --refresh-token -` reads a refresh token from
//!   standard input, exchanges it for a fresh pair when the app's client is known, and saves it.
//!
//! Tokens are kept per merchant store (`--store`, default `default`) in the token store
//! (`--token-store`): `file` (one JSON file per store, mode 0600, under
//! `$XDG_STATE_HOME/store-admin/tokens/<accounts host>/`, so that tokens of one service are never
//! read for another) or Redis (`store-admin:tokens:{store}`, the keys a fleet of services shares).
//! The sandbox's tokens live apart (`tokens/sandbox/`, or the Redis prefix `store-admin-sandbox`).
//! With token keys (`--token-keys-file`, `STORE_ADMIN_TOKEN_KEYS`, a profile's `token_keys_file`
//! or `token_keys_env`: see `config::token_keys`) every record is encrypted at rest and bound to
//! its store; a record that does not decrypt is `unreadable` in `auth status --all`, and `auth
//! login`, `import` or `logout` replace or remove it.

use std::io::{BufRead, IsTerminal};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::extract::RawQuery;
use axum::http::StatusCode;
use axum::response::Html;
use chrono::{DateTime, Utc};
use clap::{Args, Subcommand};
use secrecy::{ExposeSecret, SecretString};
use serde::Serialize;
use store_admin::credentials::{
    AccessToken, AuthError, AuthorizationRequest, FileTokenStores, OAuthError, RedirectError,
    RefreshToken, StoredTokens, TokenSet,
};
use url::Url;

use crate::connect::{
    authorize_url_beside, chain, http, namespace_dir, need_app, need_tokens, sandbox_token_url,
    service_token_url, store_error,
};
use crate::error::CliError;
use crate::global::{Format, Global, StoreLocation, parse_oauth_url, state_dir};
use crate::output::terminal_safe;
// Where 0.1.0 had them: the connection plumbing now lives in `connect.rs`.
pub use crate::connect::{
    App, DEFAULT_STORE, Namespace, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, Tokens, app,
    is_sandbox, open_tokens, sandbox_client, service_client, shared_rate_limiter, start_sandbox,
    store_id,
};

/// The scopes `auth login` asks for by default: a refresh token; the app's settings at the
/// service give the rest.
pub const DEFAULT_SCOPES: &[&str] = &["offline_access"];

/// `auth`
#[derive(Args)]
#[command(
    after_help = "The tokens are kept per --store (default: the profile's, else `default`) \
    in --token-store: `file` (under $XDG_STATE_HOME/store-admin/tokens, mode 0600) or \
    redis://HOST:PORT/DB. Other commands then use them, refreshing them with the app's client \
    (--client-id, and the secret from STORE_ADMIN_CLIENT_SECRET or --client-secret-file). \
    With keys in STORE_ADMIN_TOKEN_KEYS or --token-keys-file (one `id:base64key` a line; make one \
    with `head -c 32 /dev/urandom | base64`), the tokens are encrypted at rest.\n\n\
    Examples:\n  \
    store-admin --sandbox auth login\n  \
    STORE_ADMIN_CLIENT_SECRET=... store-admin --client-id ID --store shop1 auth login\n  \
    store-admin --store shop1 auth status\n  \
    store-admin --store shop1 orders list\n  \
    store-admin --store shop1 auth import --refresh-token - < refresh-token.txt"
)]
pub struct AuthArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: AuthCommand,
}

/// The `auth` commands.
#[derive(Subcommand)]
pub enum AuthCommand {
    /// Log in to the store: the OAuth authorization-code flow through a browser, received on a
    /// loopback redirect; the tokens are saved in the token store.
    Login(LoginArgs),
    /// Which store is logged in, with which scopes, until when (never a token); with --all,
    /// every store of the token store with the health of its tokens.
    Status(StatusArgs),
    /// Remove the store's tokens from the token store.
    Logout,
    /// Save a refresh token read from standard input (exchanged for a fresh pair when the app's
    /// client id and secret are known).
    Import(ImportArgs),
}

/// `auth login`
#[derive(Args)]
pub struct LoginArgs {
    /// Scopes to ask for, comma-separated (`offline_access` gives a refresh token; the app's
    /// settings at the service give the API scopes) [default: offline_access].
    #[arg(long, value_name = "S,...", value_delimiter = ',')]
    pub scope: Vec<String>,
    /// Port of the loopback redirect on 127.0.0.1 (0: a random free one); give the port of the
    /// app's registered callback URL if it names one.
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Only print the authorize URL, never try to open a browser.
    #[arg(long)]
    pub no_browser: bool,
    /// Seconds to wait for the authorization.
    #[arg(long, value_name = "SECONDS", default_value_t = 300,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub wait: u64,
    /// The authorize endpoint [default: /oauth2/auth beside the token URL].
    #[arg(long, value_name = "URL", value_parser = parse_oauth_url)]
    pub authorize_url: Option<Url>,
}

/// `auth status`
#[derive(Args)]
pub struct StatusArgs {
    /// Every store the token store knows (not only --store), each with the health of its tokens:
    /// state, expiry, last refresh, last failure. Exit 1 when one needs attention (revoked or
    /// uninstalled: the merchant must reinstall the app; expired; its last refresh failed).
    #[arg(long)]
    pub all: bool,
}

/// `auth import`
#[derive(Args)]
pub struct ImportArgs {
    /// `-`: the refresh token is the first line of standard input (never give it on the command
    /// line, where other users see it).
    #[arg(long, value_name = "-")]
    pub refresh_token: SecretString,
}

// ---------------------------------------------------------------------------------------------
// The commands

/// Runs an `auth` command.
pub async fn run(global: &Global, format: Format, args: AuthArgs) -> Result<(), CliError> {
    match args.command {
        AuthCommand::Login(login_args) => login(global, format, login_args).await,
        AuthCommand::Status(StatusArgs { all: false }) => status(global, format).await,
        AuthCommand::Status(StatusArgs { all: true }) => status_all(global, format).await,
        AuthCommand::Logout => logout(global).await,
        AuthCommand::Import(import_args) => import(global, format, import_args).await,
    }
}

/// What `auth status` (and `login`, `import`) print. Never a token.
#[derive(Serialize)]
struct Status {
    store: String,
    logged_in: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    revoked: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    scopes: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expires_at: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expired: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    refresh_token: Option<bool>,
    sandbox: bool,
    token_store: String,
}

impl Status {
    fn of(store: &str, sandbox: bool, tokens: &Tokens, value: Option<&StoredTokens>) -> Status {
        let mut status = Status {
            store: store.to_string(),
            logged_in: false,
            revoked: false,
            scopes: None,
            expires_at: None,
            expired: None,
            refresh_token: None,
            sandbox,
            token_store: tokens.location.clone(),
        };
        match value {
            Some(StoredTokens::Active(set)) => {
                status.logged_in = true;
                status.scopes = Some(set.scopes().map(str::to_owned).collect());
                let pending = set.access.expose_secret().is_empty();
                if !pending {
                    status.expires_at = Some(set.expires_at);
                }
                status.expired = Some(pending || set.is_expired(Utc::now(), Duration::ZERO));
                status.refresh_token = Some(set.refresh.is_some());
            }
            Some(StoredTokens::Revoked) => status.revoked = true,
            None => {}
        }
        status
    }

    fn print(&self, format: Format) -> Result<(), CliError> {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        if matches!(format, Format::Json | Format::Ndjson) {
            let text = if format == Format::Json {
                serde_json::to_string_pretty(self)
            } else {
                serde_json::to_string(self)
            }
            .map_err(|e| CliError::other(format!("cannot print the status: {e}")))?;
            writeln!(out, "{text}")?;
            return Ok(());
        }
        let sandbox = if self.sandbox { " (sandbox)" } else { "" };
        writeln!(out, "store: {}{sandbox}", self.store)?;
        if self.revoked {
            writeln!(
                out,
                "logged in: no: the tokens were revoked (invalid_grant); the merchant must \
                 reinstall the app, or log in again with `store-admin auth login`"
            )?;
        } else if !self.logged_in {
            writeln!(out, "logged in: no (log in with `store-admin auth login`)")?;
        } else {
            writeln!(out, "logged in: yes")?;
            let scopes = self.scopes.as_deref().unwrap_or_default();
            writeln!(
                out,
                "scopes: {}",
                if scopes.is_empty() {
                    "(not known yet)".to_string()
                } else {
                    scopes.join(" ")
                }
            )?;
            match self.expires_at {
                Some(at) => writeln!(
                    out,
                    "access token expires: {} ({})",
                    at.format("%Y-%m-%d %H:%M:%S UTC"),
                    relative(at, Utc::now())
                )?,
                None => writeln!(
                    out,
                    "access token: none yet (the refresh token is exchanged on first use)"
                )?,
            }
            let refresh = if self.refresh_token == Some(true) {
                "yes"
            } else {
                "no (log in again when the access token expires)"
            };
            writeln!(out, "refresh token: {refresh}")?;
        }
        writeln!(out, "token store: {}", self.token_store)?;
        Ok(())
    }
}

/// `in 13 d 4 h`, `in 5 min`, `expired 2 h ago`.
fn relative(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let seconds = (at - now).num_seconds();
    let amount = seconds.unsigned_abs();
    let text = match amount {
        0..60 => format!("{amount} s"),
        60..3_600 => format!("{} min", amount / 60),
        3_600..86_400 => format!("{} h {} min", amount / 3_600, amount % 3_600 / 60),
        _ => format!("{} d {} h", amount / 86_400, amount % 86_400 / 3_600),
    };
    if seconds > 0 {
        format!("in {text}")
    } else {
        format!("expired {text} ago")
    }
}

fn namespace_of<'a>(global: &Global, token_url: &'a Url) -> Namespace<'a> {
    if is_sandbox(global) {
        Namespace::Sandbox
    } else {
        Namespace::Service(token_url)
    }
}

async fn status(global: &Global, format: Format) -> Result<(), CliError> {
    let token_url = service_token_url(global);
    let tokens = need_tokens(global, namespace_of(global, &token_url)).await?;
    let snapshot = tokens
        .store
        .load()
        .await
        .map_err(|e| store_error(&tokens, e))?;
    let status = Status::of(
        &store_id(global),
        is_sandbox(global),
        &tokens,
        snapshot.value.as_ref(),
    );
    status.print(format)?;
    if status.logged_in {
        Ok(())
    } else {
        Err(CliError::Quiet(crate::error::exit::FAILURE))
    }
}

/// One store of `auth status --all`. Never a token.
#[derive(Serialize)]
struct StoreHealthLine {
    store: String,
    state: &'static str,
    needs_attention: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    expires_at: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    installed_at: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_refresh: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_failure: Option<store_admin::credentials::TokenFailure>,
    /// Why the store's record could not be read (state `unreadable`).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// The token stores of every store of `global`'s token store, and where they are.
async fn all_token_stores(
    global: &Global,
    namespace: Namespace<'_>,
) -> Result<(Arc<dyn store_admin::credentials::TokenStores>, String), CliError> {
    match global.token_store.clone().unwrap_or(StoreLocation::File) {
        StoreLocation::File => {
            let dir = state_dir()
                .ok_or_else(|| {
                    CliError::usage(
                        "no place to keep tokens: set XDG_STATE_HOME or HOME, or give \
                         --token-store redis://HOST:PORT/DB",
                    )
                })?
                .join("store-admin")
                .join("tokens")
                .join(namespace_dir(namespace));
            let location = dir.display().to_string();
            let mut stores = FileTokenStores::new(dir);
            if let Some(keys) = crate::config::token_keys(global)? {
                stores = stores.with_keys(keys);
            }
            Ok((Arc::new(stores), location))
        }
        StoreLocation::Redis(url) => all_redis_token_stores(global, &url, namespace).await,
    }
}

#[cfg(feature = "redis")]
async fn all_redis_token_stores(
    global: &Global,
    url: &Url,
    namespace: Namespace<'_>,
) -> Result<(Arc<dyn store_admin::credentials::TokenStores>, String), CliError> {
    let keys = crate::config::token_keys(global)?;
    let shown = StoreLocation::Redis(url.clone()).display();
    let prefix = match namespace {
        Namespace::Sandbox => "store-admin-sandbox",
        Namespace::Service(_) => "store-admin",
    };
    let stores = store_admin::credentials::RedisTokenStores::connect(url.as_str())
        .await
        .map_err(|e| {
            CliError::Unavailable(format!(
                "cannot reach the token store {shown}: {}",
                chain(&e)
            ))
        })?
        .with_prefix(prefix);
    let stores = match keys {
        Some(keys) => stores.with_keys(keys),
        None => stores,
    };
    Ok((
        Arc::new(stores),
        format!("{shown} (keys {prefix}:tokens:*)"),
    ))
}

#[cfg(not(feature = "redis"))]
async fn all_redis_token_stores(
    _global: &Global,
    _url: &Url,
    _namespace: Namespace<'_>,
) -> Result<(Arc<dyn store_admin::credentials::TokenStores>, String), CliError> {
    Err(CliError::usage(
        "--token-store redis://...: this store-admin was built without the `redis` feature",
    ))
}

/// `auth status --all`: every store of the token store, with its health; never a token.
async fn status_all(global: &Global, format: Format) -> Result<(), CliError> {
    use std::io::Write;
    let token_url = service_token_url(global);
    let namespace = namespace_of(global, &token_url);
    let (stores, location) = all_token_stores(global, namespace).await?;
    let now = Utc::now();
    let report = store_admin::credentials::health_report(
        stores.as_ref(),
        now,
        store_admin::credentials::DEFAULT_REFRESH_AHEAD,
    )
    .await
    .map_err(|e| CliError::other(format!("{} ({location})", chain(&e))))?;
    let lines: Vec<StoreHealthLine> = report
        .iter()
        .map(|store| StoreHealthLine {
            store: store.merchant.clone(),
            state: store.state.as_str(),
            needs_attention: store.needs_attention(),
            expires_at: store.expires_at,
            installed_at: store.health.installed_at,
            last_refresh: store.health.last_refresh,
            last_failure: store.health.last_failure.clone(),
            error: store.error.clone(),
        })
        .collect();
    let mut out = std::io::stdout().lock();
    match format {
        Format::Json => writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&lines)
                .map_err(|e| CliError::other(format!("cannot print the status: {e}")))?
        )?,
        Format::Ndjson => {
            for line in &lines {
                writeln!(
                    out,
                    "{}",
                    serde_json::to_string(line)
                        .map_err(|e| CliError::other(format!("cannot print the status: {e}")))?
                )?;
            }
        }
        _ => {
            let at = |t: Option<DateTime<Utc>>| {
                t.map_or_else(
                    || "-".to_owned(),
                    |t| t.format("%Y-%m-%d %H:%M").to_string(),
                )
            };
            writeln!(out, "token store: {location}")?;
            if lines.is_empty() {
                writeln!(out, "no store has tokens here")?;
            }
            for line in &lines {
                let expires = match line.expires_at {
                    Some(t) => format!("{} ({})", at(Some(t)), relative(t, now)),
                    None => "-".to_owned(),
                };
                let failure = line.last_failure.as_ref().map_or_else(
                    || {
                        line.error.as_ref().map_or_else(
                            || "-".to_owned(),
                            |e| crate::output::terminal_safe(e, false),
                        )
                    },
                    |f| {
                        format!(
                            "{} {}",
                            at(Some(f.at)),
                            crate::output::terminal_safe(&f.reason, false)
                        )
                    },
                );
                writeln!(
                    out,
                    "{}\t{}{}\texpires {}\tlast refresh {}\tlast failure {}",
                    crate::output::terminal_safe(&line.store, false),
                    line.state,
                    if line.needs_attention {
                        " (needs attention)"
                    } else {
                        ""
                    },
                    expires,
                    at(line.last_refresh),
                    failure
                )?;
            }
        }
    }
    if lines.iter().any(|line| line.needs_attention) {
        Err(CliError::Quiet(crate::error::exit::FAILURE))
    } else {
        Ok(())
    }
}

async fn logout(global: &Global) -> Result<(), CliError> {
    let token_url = service_token_url(global);
    let tokens = need_tokens(global, namespace_of(global, &token_url)).await?;
    let store = store_id(global);
    let had = match tokens.store.load().await {
        Ok(snapshot) => snapshot.value.is_some(),
        // Unreadable tokens (a corrupt file): logging out is how to get rid of them. The store
        // cannot remove what it cannot read, so the file goes as a file.
        Err(error) if !tokens.location.starts_with("redis") => {
            crate::note!(
                "warning: the stored tokens could not be read ({}); removing the file",
                chain(&error)
            );
            std::fs::remove_file(&tokens.location)
                .map_err(|e| CliError::other(format!("cannot remove {}: {e}", tokens.location)))?;
            crate::output::write_stdout(
                format!(
                    "logged out of store {store}: its unreadable token file {} was removed\n",
                    tokens.location
                )
                .as_bytes(),
            )?;
            return Ok(());
        }
        Err(error) => return Err(store_error(&tokens, error)),
    };
    if !had {
        crate::output::write_stdout(
            format!("store {store} was not logged in ({})\n", tokens.location).as_bytes(),
        )?;
        return Ok(());
    }
    tokens
        .store
        .remove()
        .await
        .map_err(|e| store_error(&tokens, e))?;
    crate::output::write_stdout(
        format!(
            "logged out of store {store}: its tokens were removed from {} (the app stays \
             installed at the service)\n",
            tokens.location
        )
        .as_bytes(),
    )?;
    Ok(())
}

/// Saves `set` and prints the new status.
async fn save_and_report(
    global: &Global,
    format: Format,
    tokens: &Tokens,
    set: &TokenSet,
) -> Result<(), CliError> {
    tokens
        .store
        .install(set)
        .await
        .map_err(|e| store_error(tokens, e))?;
    let status = Status::of(
        &store_id(global),
        is_sandbox(global),
        tokens,
        Some(&StoredTokens::Active(set.clone())),
    );
    status.print(format)
}

/// A refusal of the token endpoint, told for what was presented (`what`: "authorization code",
/// "refresh token"), with the exit code of its kind.
fn exchange_error(what: &str, error: OAuthError) -> CliError {
    match error {
        OAuthError::InvalidGrant { description } => CliError::Refused(format!(
            "the token endpoint refused the {what} (invalid_grant: already used, expired or \
             revoked){}",
            description
                .filter(|d| !d.is_empty())
                .map(|d| format!(": {}", terminal_safe(&d, false)))
                .unwrap_or_default()
        )),
        error => CliError::Service(store_admin::Error::Auth(AuthError::from(error))),
    }
}

async fn login(global: &Global, format: Format, args: LoginArgs) -> Result<(), CliError> {
    let sandbox = is_sandbox(global);
    let app = need_app(global, sandbox, "auth login")?;
    let server = if sandbox {
        Some(
            start_sandbox(global, |config| {
                config.oauth_client(&app.client_id, app.client_secret.expose_secret())
            })
            .await?,
        )
    } else {
        None
    };
    let token_url = match &server {
        Some(server) => sandbox_token_url(server)?,
        None => service_token_url(global),
    };
    let authorize_url = match (&args.authorize_url, &server) {
        (Some(url), _) => url.clone(),
        (None, Some(_)) => authorize_url_beside(&token_url)?,
        (None, None) => match crate::config::profile_authorize_url(global)? {
            Some(url) => url,
            None => authorize_url_beside(&token_url)?,
        },
    };
    let namespace = if sandbox {
        Namespace::Sandbox
    } else {
        Namespace::Service(&token_url)
    };
    let tokens = need_tokens(global, namespace).await?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port))
        .await
        .map_err(|e| {
            CliError::usage(format!(
                "cannot listen for the redirect on 127.0.0.1:{}: {e}",
                args.port
            ))
        })?;
    let port = listener
        .local_addr()
        .map_err(|e| CliError::other(format!("the redirect listener: {e}")))?
        .port();
    let redirect = Url::parse(&format!("http://127.0.0.1:{port}/callback"))
        .map_err(|e| CliError::other(format!("the redirect URI: {e}")))?;
    let scopes: Vec<String> = if args.scope.is_empty() {
        DEFAULT_SCOPES.iter().map(|s| s.to_string()).collect()
    } else {
        args.scope
            .iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    };
    let request = Arc::new(AuthorizationRequest::new(
        &authorize_url,
        &app.client_id,
        &redirect,
        scopes,
    ));
    let store = store_id(global);
    crate::note!(
        "To log in to store {store}{}, open this URL in a browser and approve the app:\n\n  {}\n",
        if sandbox { " (sandbox)" } else { "" },
        request.url()
    );
    if !args.no_browser && desktop() && webbrowser::open(request.url().as_str()).is_ok() {
        crate::note!("(opened in your browser)");
    }
    crate::note!(
        "Waiting for the redirect to {redirect} (up to {} s; Ctrl-C gives up)...",
        args.wait
    );
    let code = receive_code(
        listener,
        Arc::clone(&request),
        Duration::from_secs(args.wait),
    )
    .await?;
    let request = Arc::try_unwrap(request).map_err(|_| {
        CliError::other("the redirect listener still holds the authorization request")
    })?;
    let set = request
        .exchange(
            &http(global)?,
            &app.client_id,
            &app.client_secret,
            &token_url,
            &code,
        )
        .await
        .map_err(|e| exchange_error("authorization code", e))?;
    crate::note!("Logged in to store {store}.");
    save_and_report(global, format, &tokens, &set).await
}

/// Whether a person at a desktop is likely to see a browser open.
fn desktop() -> bool {
    if !std::io::stderr().is_terminal() {
        return false;
    }
    if cfg!(any(target_os = "macos", target_os = "windows")) {
        return true;
    }
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()))
}

/// Serves `GET /callback` on `listener` until the first redirect arrives (or `wait` passes) and
/// returns its code, once its `state` is checked.
async fn receive_code(
    listener: tokio::net::TcpListener,
    request: Arc<AuthorizationRequest>,
    wait: Duration,
) -> Result<String, CliError> {
    type Outcome = Result<String, RedirectError>;
    let (sender, received) = tokio::sync::oneshot::channel::<Outcome>();
    let sender = Arc::new(Mutex::new(Some(sender)));
    let handler = {
        let request = Arc::clone(&request);
        move |RawQuery(query): RawQuery| {
            let request = Arc::clone(&request);
            let sender = Arc::clone(&sender);
            async move {
                let outcome = request.code_from_redirect(query.as_deref().unwrap_or(""));
                let page = match &outcome {
                    Ok(_) => (
                        StatusCode::OK,
                        "store-admin received the authorization. You can close this window.",
                    ),
                    Err(RedirectError::Denied { .. }) => (
                        StatusCode::OK,
                        "The authorization was refused. See the terminal.",
                    ),
                    Err(_) => (
                        StatusCode::BAD_REQUEST,
                        "This redirect does not belong to the login in progress: refused.",
                    ),
                };
                if let Some(sender) = sender.lock().unwrap_or_else(PoisonError::into_inner).take() {
                    let _ = sender.send(outcome);
                }
                (
                    page.0,
                    Html(format!(
                        "<!doctype html><title>store-admin</title><p>{}</p>",
                        page.1
                    )),
                )
            }
        }
    };
    let router = axum::Router::new().route("/callback", axum::routing::get(handler));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
    });
    let outcome = tokio::time::timeout(wait, received).await;
    let _ = stop.send(());
    // Lets the page reach the browser; a client holding its connection open is not waited for.
    let _ = tokio::time::timeout(Duration::from_secs(2), server).await;
    drop(request);
    match outcome {
        Err(_) => Err(CliError::other(format!(
            "no authorization arrived within {} s: run `store-admin auth login` again",
            wait.as_secs()
        ))),
        Ok(Err(_)) => Err(CliError::other(
            "the redirect listener stopped before an authorization arrived",
        )),
        Ok(Ok(Ok(code))) => Ok(code),
        Ok(Ok(Err(RedirectError::Denied { code, description }))) => {
            Err(CliError::Refused(format!(
                "the authorization was refused ({}){}",
                terminal_safe(&code, false),
                description
                    .map(|d| format!(": {}", terminal_safe(&d, false)))
                    .unwrap_or_default()
            )))
        }
        Ok(Ok(Err(error))) => Err(CliError::other(format!(
            "{error}; run `store-admin auth login` again"
        ))),
    }
}

async fn import(global: &Global, format: Format, args: ImportArgs) -> Result<(), CliError> {
    if args.refresh_token.expose_secret() != "-" {
        // The value is a secret on the command line: never repeated here.
        return Err(CliError::usage(
            "--refresh-token takes `-` and reads the token from standard input: a command line \
             is visible to other users (ps, shell history)",
        ));
    }
    if std::io::stdin().is_terminal() {
        crate::note!("Paste the refresh token and press Enter (or give it with `< FILE`):");
    }
    let refresh = read_stdin_secret("--refresh-token - (standard input)")?;
    let sandbox = is_sandbox(global);
    let server = if sandbox {
        let app = need_app(global, true, "auth import")?;
        Some(
            start_sandbox(global, |config| {
                config
                    .oauth_client(&app.client_id, app.client_secret.expose_secret())
                    .oauth_refresh_token_all_scopes(refresh.expose_secret())
            })
            .await?,
        )
    } else {
        None
    };
    let token_url = match &server {
        Some(server) => sandbox_token_url(server)?,
        None => service_token_url(global),
    };
    let tokens = need_tokens(global, namespace_of(global, &token_url)).await?;
    let Some(app) = app(global, sandbox)? else {
        // No client to exchange it with: saved as it is, exchanged on first use.
        let set = TokenSet {
            access: AccessToken::new(""),
            refresh: Some(RefreshToken::new(refresh.expose_secret())),
            expires_at: DateTime::<Utc>::UNIX_EPOCH,
            scope: String::new(),
        };
        crate::note!(
            "The refresh token is saved as it is: the first command exchanges it, which needs the \
             app's client id and secret (--client-id and STORE_ADMIN_CLIENT_SECRET)."
        );
        return save_and_report(global, format, &tokens, &set).await;
    };
    let set = store_admin::credentials::refresh_token_set(
        &http(global)?,
        &app.client_id,
        &app.client_secret,
        &token_url,
        &RefreshToken::new(refresh.expose_secret()),
    )
    .await
    .map_err(|e| exchange_error("refresh token", e))?;
    crate::note!(
        "The refresh token was exchanged for a new pair (it is single use: the one read is spent)."
    );
    save_and_report(global, format, &tokens, &set).await
}

/// The first line of standard input, trimmed, as a secret.
fn read_stdin_secret(source: &str) -> Result<SecretString, CliError> {
    crate::body::claim_stdin(source)?;
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| CliError::usage(format!("{source}: cannot read standard input: {e}")))?;
    let line = SecretString::from(line);
    crate::config::first_line(line.expose_secret(), source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_is_told_relative_to_now() {
        let now = Utc::now();
        assert_eq!(
            relative(now + chrono::Duration::seconds(90), now),
            "in 1 min"
        );
        assert_eq!(
            relative(now + chrono::Duration::hours(14 * 24 + 5), now),
            "in 14 d 5 h"
        );
        assert_eq!(
            relative(now - chrono::Duration::minutes(125), now),
            "expired 2 h 5 min ago"
        );
    }
}

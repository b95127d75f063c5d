//! The options every command takes (`Global`), the output format and the store's location, and the
//! parsers clap runs on their values (shared with the profile file, `config.rs`).

use std::num::{NonZeroU32, NonZeroU64};
use std::path::PathBuf;

use clap::builder::PossibleValuesParser;
use clap::{Args, ValueEnum};
use secrecy::SecretString;
use store_admin::{LIVE_BASE_URL, Language};
use store_admin_mock::FaultConfig;

/// How output is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Format {
    /// Pretty JSON: the record, or an array of records.
    Json,
    /// One compact JSON record per line (streams with --all).
    Ndjson,
    /// Aligned columns for people (the default on a terminal): the most important columns that
    /// fit the terminal's width.
    Table,
    /// A table with all its columns, no value cut, whatever the terminal's width.
    Wide,
    /// Comma-separated values with a header line (streams with --all).
    Csv,
}

/// Where the access token of a command came from, told with a 401 so that the right token gets
/// fixed (`the token came from --token-file PATH`). Never the token itself. It travels with the
/// token: [`Global::token_origin`], `config::Token`, then the connection of the command.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenOrigin {
    /// `--token TOKEN`.
    Flag,
    /// `--token -`: standard input.
    StandardInput,
    /// The variable `STORE_ADMIN_TOKEN`.
    Variable,
    /// `--token-file PATH`.
    File(PathBuf),
    /// A profile's `token_file`.
    ProfileFile(PathBuf),
    /// A profile's `token_env`: the variable's name.
    ProfileVariable(String),
    /// The OAuth tokens `auth login` stored for a store of the service.
    Stored {
        /// The merchant store (`--store`).
        store: String,
        /// Where the tokens are kept (a file, a Redis key; never a secret).
        location: String,
    },
    /// The OAuth tokens `auth login --sandbox` stored for a store of the sandbox.
    SandboxStored {
        /// The merchant store (`--store`).
        store: String,
        /// Where the tokens are kept.
        location: String,
    },
    /// The sandbox's own token.
    Sandbox,
}

impl std::fmt::Display for TokenOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TokenOrigin::Flag => f.write_str("--token"),
            TokenOrigin::StandardInput => f.write_str("--token - (standard input)"),
            TokenOrigin::Variable => f.write_str("the variable STORE_ADMIN_TOKEN"),
            TokenOrigin::File(path) => write!(f, "--token-file {}", path.display()),
            TokenOrigin::ProfileFile(path) => {
                write!(f, "the profile's token_file {}", path.display())
            }
            TokenOrigin::ProfileVariable(name) => write!(f, "the profile's token_env ${name}"),
            TokenOrigin::Stored { store, location } => {
                write!(f, "the stored OAuth tokens of store {store} ({location})")
            }
            TokenOrigin::SandboxStored { store, location } => write!(
                f,
                "the stored OAuth tokens of the sandbox's store {store} ({location})"
            ),
            TokenOrigin::Sandbox => f.write_str("the sandbox's own token"),
        }
    }
}

/// Options shared by every command.
#[derive(Args)]
#[command(next_help_heading = "Global options")]
pub struct Global {
    /// Base URL of the API, ending in /admin/v2.
    #[arg(long, env = "STORE_ADMIN_BASE_URL", hide_env_values = true, default_value = LIVE_BASE_URL,
          global = true, value_parser = parse_base_url)]
    pub base_url: String,

    /// Bearer access token (never echoed); `-` reads it from standard input. Not needed with
    /// --sandbox. Prefer --token-file or a profile: a command line is visible to `ps`.
    #[arg(long, env = "STORE_ADMIN_TOKEN", hide_env_values = true, global = true)]
    pub token: Option<SecretString>,

    /// A file whose first line is the access token.
    #[arg(long, value_name = "PATH", global = true, conflicts_with = "token")]
    pub token_file: Option<PathBuf>,

    /// Where `token` or `token_file` came from (the flag, `STORE_ADMIN_TOKEN`, a profile), as
    /// `config::apply` saw it; `None` when nobody told (then the flag is assumed).
    #[arg(skip)]
    pub token_origin: Option<TokenOrigin>,

    /// The environment variable the profile reads the token from (`token_env`) when it is not
    /// set: an error for a command that needs a token only (not for `completions`, `decode`,
    /// `webhooks verify`...).
    #[arg(skip)]
    pub token_env_unset: Option<String>,

    /// A profile of the configuration file ($XDG_CONFIG_HOME/store-admin/config.toml): base
    /// URL, where the token is, and defaults of these options.
    #[arg(
        long,
        env = "STORE_ADMIN_PROFILE",
        hide_env_values = true,
        value_name = "NAME",
        global = true
    )]
    pub profile: Option<String>,

    /// Output format [default: table on a terminal, json otherwise].
    ///
    /// Tables escape control characters. CSV cells beginning with =, +, -, @, tab or carriage
    /// return are prefixed with ' so that spreadsheets show them as text instead of running them
    /// as formulas (OWASP's advice against CSV injection).
    #[arg(long, short = 'o', value_enum, global = true)]
    pub output: Option<Format>,

    /// Retries of a failed call (429, 5xx, broken connections) after the first attempt.
    #[arg(long, default_value_t = 4, value_name = "N", global = true)]
    pub retries: u32,

    /// Client-side rate limit in requests per minute (Plus plan 120, Pro 360, Special 720), a
    /// ceiling [default: the rate the store announces, starting at 120].
    #[arg(long, value_name = "PER_MINUTE", global = true, value_parser = parse_rate_limit)]
    pub rate_limit: Option<NonZeroU32>,

    /// Pages fetched at once by --all.
    #[arg(long, default_value_t = 4, value_name = "N", global = true,
          value_parser = clap::value_parser!(u16).range(1..=32))]
    pub concurrency: u16,

    /// Timeout of one attempt, in seconds.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS", global = true,
          value_parser = positive_seconds)]
    pub timeout: f64,

    /// Timeout of a whole call, retries included, in seconds.
    #[arg(long, default_value_t = 120.0, value_name = "SECONDS", global = true,
          value_parser = positive_seconds)]
    pub operation_timeout: f64,

    /// The largest answer read, in bytes or with a unit (KiB, MiB, GiB); a larger one fails the
    /// command (exit 1) before it fills memory.
    #[arg(long, default_value = "64MiB", value_name = "SIZE", global = true,
          value_parser = parse_size)]
    pub max_response_size: u64,

    /// The language of the service's messages and of request bodies, e.g. en, ar, en-US
    /// [default: en for an English locale, else none: Arabic].
    ///
    /// Sent as Accept-Language on every request, and as Content-Language on those with a body.
    /// Without it, the profile's `language`; else en when the locale (LC_ALL, else LC_MESSAGES,
    /// else LANG) is English; else none is sent and the service answers in its default, Arabic.
    #[arg(long, env = "STORE_ADMIN_LANGUAGE", hide_env_values = true, value_name = "LANG", global = true,
          value_parser = parse_language)]
    pub language: Option<Language>,

    /// Talk to an embedded mock store with seeded data instead of the service (no token needed);
    /// its store is kept between commands (`store-admin sandbox reset` starts over).
    #[arg(long, global = true)]
    pub sandbox: bool,

    /// Faults the sandbox injects, as JSON, e.g. '{"errors":{"rate":0.1},"drop_connection":{"rate":0.05}}'
    /// (implies --sandbox).
    #[arg(long, value_name = "JSON", global = true, value_parser = parse_faults)]
    pub sandbox_faults: Option<FaultConfig>,

    /// Seed of the sandbox's data (the same seed gives the same store; a kept store keeps the
    /// seed it was made from until `store-admin sandbox reset`).
    #[arg(long, default_value_t = 1, value_name = "N", global = true)]
    pub sandbox_seed: u64,

    /// Scopes of the sandbox's token, comma-separated (default: every scope; implies --sandbox).
    #[arg(long, value_name = "S,...", value_delimiter = ',', global = true)]
    pub sandbox_scopes: Option<Vec<String>>,

    /// Log retries and calls on standard error (-vv for more).
    #[arg(long, short = 'v', action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,

    /// The merchant store whose tokens and rate budget are used [default: the profile's, else
    /// `default`].
    #[arg(long, env = "STORE_ADMIN_STORE", hide_env_values = true, value_name = "ID", global = true,
          value_parser = parse_store_id, help_heading = "Stores and OAuth")]
    pub store: Option<String>,

    /// Where OAuth tokens are kept: `file` (one file per store under $XDG_STATE_HOME/store-admin,
    /// mode 0600) or `redis://HOST:PORT/DB` (the keys `store-admin:tokens:{store}` a fleet of
    /// services shares) [default: file].
    #[arg(long, env = "STORE_ADMIN_TOKEN_STORE", hide_env_values = true, value_name = "file|redis://...",
          global = true, value_parser = parse_store_location, help_heading = "Stores and OAuth")]
    pub token_store: Option<StoreLocation>,

    /// A Redis holding the store's rate budget, shared by every process that calls the store
    /// (`redis://HOST:PORT/DB`); the budget is --rate-limit at most, else the rate the store
    /// announces, learned by the fleet (starting at the Plus plan's 120 a minute).
    #[arg(long, env = "STORE_ADMIN_RATE_LIMIT_STORE", hide_env_values = true, value_name = "redis://...",
          global = true, value_parser = parse_redis_location, help_heading = "Stores and OAuth")]
    pub rate_limit_store: Option<StoreLocation>,

    /// The app's OAuth client id (auth login and import, and refreshing stored tokens).
    #[arg(
        long,
        env = "STORE_ADMIN_CLIENT_ID",
        hide_env_values = true,
        value_name = "ID",
        global = true,
        help_heading = "Stores and OAuth"
    )]
    pub client_id: Option<String>,

    /// A file whose first line is the app's client secret. Or set STORE_ADMIN_CLIENT_SECRET: the
    /// secret itself is never given on the command line.
    #[arg(
        long,
        value_name = "PATH",
        global = true,
        help_heading = "Stores and OAuth"
    )]
    pub client_secret_file: Option<PathBuf>,

    /// The OAuth token endpoint [default: the live service's; the sandbox's with --sandbox].
    #[arg(long, env = "STORE_ADMIN_TOKEN_URL", hide_env_values = true, value_name = "URL", global = true,
          value_parser = parse_oauth_url, help_heading = "Stores and OAuth")]
    pub token_url: Option<url::Url>,

    /// The environment variable holding the client secret, from the profile's `client_secret_env`.
    #[arg(skip)]
    pub client_secret_env: Option<String>,

    /// A file of the keys that encrypt the stored tokens, one `id:base64key` a line (the first
    /// encrypts, all decrypt: put a new key first to rotate). Or set STORE_ADMIN_TOKEN_KEYS to
    /// the keys themselves: they are never given on the command line.
    #[arg(
        long,
        env = "STORE_ADMIN_TOKEN_KEYS_FILE",
        hide_env_values = true,
        value_name = "PATH",
        global = true,
        help_heading = "Stores and OAuth"
    )]
    pub token_keys_file: Option<PathBuf>,

    /// The environment variable holding the token keys, from the profile's `token_keys_env`.
    #[arg(skip)]
    pub token_keys_env: Option<String>,
}

/// Where tokens or the rate budget are kept (`--token-store`, `--rate-limit-store`).
#[derive(Clone, PartialEq, Eq)]
pub enum StoreLocation {
    /// One file per store under the XDG state directory.
    File,
    /// A Redis server (the URL may hold a password: it is never printed, see
    /// [`StoreLocation::display`]).
    Redis(url::Url),
}

impl StoreLocation {
    /// The location without any password, for messages.
    pub fn display(&self) -> String {
        match self {
            StoreLocation::File => "file".to_string(),
            StoreLocation::Redis(url) => {
                let mut shown = url.clone();
                if shown.password().is_some() {
                    let _ = shown.set_password(Some("***"));
                }
                shown.to_string()
            }
        }
    }

    /// Whether the URL carries a password (refused on the command line and in a profile).
    pub fn has_password(&self) -> bool {
        matches!(self, StoreLocation::Redis(url) if url.password().is_some())
    }
}

/// `--token-store`: `file` or a Redis URL.
pub(crate) fn parse_store_location(text: &str) -> Result<StoreLocation, String> {
    if text == "file" {
        return Ok(StoreLocation::File);
    }
    parse_redis_location(text).map_err(|e| format!("{e}, or `file`"))
}

/// `--rate-limit-store`: a Redis URL.
pub(crate) fn parse_redis_location(text: &str) -> Result<StoreLocation, String> {
    // The text may hold a password: the messages never quote it.
    let url =
        url::Url::parse(text).map_err(|e| format!("not a URL ({e}): give redis://HOST:PORT/DB"))?;
    if !matches!(url.scheme(), "redis" | "rediss") || url.host_str().is_none_or(str::is_empty) {
        return Err("give redis://HOST:PORT/DB".to_string());
    }
    Ok(StoreLocation::Redis(url))
}

/// `--language`: a language tag such as `en`, `ar` or `en-US` (nothing else reaches a header).
pub(crate) fn parse_language(text: &str) -> Result<Language, String> {
    Language::parse(text).map_err(|e| e.to_string())
}

/// `--store`: a merchant store's id or name (it names a file and a Redis key).
pub(crate) fn parse_store_id(text: &str) -> Result<String, String> {
    let ok = !text.is_empty()
        && text.len() <= 128
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '@' | '+'));
    if ok {
        Ok(text.to_string())
    } else {
        Err(format!(
            "{:?} is not a store id: 1 to 128 ASCII letters, digits, -, _, ., @ or +",
            crate::safe::terminal_safe(text, false)
        ))
    }
}

/// `--token-url` (and the authorize URL): https, or http on a loopback address (a mock store):
/// the client secret is sent there.
pub(crate) fn parse_oauth_url(text: &str) -> Result<url::Url, String> {
    let url = url::Url::parse(text).map_err(|e| format!("{text:?} is not a URL ({e})"))?;
    let loopback = match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => return Err(format!("{text:?} has no host")),
    };
    match url.scheme() {
        "https" => {}
        "http" if loopback => {}
        "http" => {
            return Err(format!(
                "{text:?}: the client secret and tokens go there, so it must be https (http only on \
                 127.0.0.1, [::1] or localhost)"
            ));
        }
        other => return Err(format!("{text:?}: an OAuth endpoint is https, not {other}")),
    }
    if !url.username().is_empty() || url.password().is_some() || url.fragment().is_some() {
        return Err(format!(
            "{text:?}: no user name, password or fragment in an OAuth endpoint"
        ));
    }
    Ok(url)
}

/// `--base-url`: an absolute http(s) URL with a host and no query or fragment (they would be
/// mangled by every path joined below it).
pub(crate) fn parse_base_url(text: &str) -> Result<String, String> {
    let url = url::Url::parse(text).map_err(|e| format!("{text:?} is not a URL ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "the base URL must be http or https, not {}: e.g. https://api.salla.dev/admin/v2",
            url.scheme()
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(format!("{text:?} has no host"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "{text:?}: a base URL takes no query string or fragment (give the path only, ending in /admin/v2)"
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("a base URL takes no user name or password: use --token".to_string());
    }
    Ok(text.trim_end_matches('/').to_string())
}

/// `--page`: a page number, from 1.
pub(crate) fn parse_page(text: &str) -> Result<NonZeroU64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err("pages are numbered from 1".to_string()),
        Ok(n) => NonZeroU64::new(n).ok_or_else(|| "pages are numbered from 1".to_string()),
        Err(_) => Err(format!("{text:?} is not a page number (1, 2, 3, ...)")),
    }
}

pub(crate) fn parse_faults(text: &str) -> Result<FaultConfig, String> {
    let faults: FaultConfig = serde_json::from_str(text).map_err(|e| {
        format!("not a fault configuration ({e}); e.g. '{{\"errors\":{{\"rate\":0.1}}}}'")
    })?;
    faults.validate().map_err(|e| e.to_string())?;
    Ok(faults)
}

pub(crate) fn parse_method(text: &str) -> Result<http::Method, String> {
    let upper = text.to_ascii_uppercase();
    match upper.as_str() {
        "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS" => {
            http::Method::from_bytes(upper.as_bytes()).map_err(|e| e.to_string())
        }
        _ => Err(format!(
            "{text:?} is not an HTTP method (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS)"
        )),
    }
}

pub(crate) fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() && s < 1e9 => Ok(s),
        Ok(s) if s >= 1e9 => Err("too long: give at most 999999999 seconds".to_string()),
        _ => Err("give a positive number of seconds, such as 30 or 2.5".to_string()),
    }
}

/// `--max-response-size`: bytes, or a whole number of KiB, MiB or GiB (`K`, `M`, `G`, `KB`, `MB`,
/// `GB` mean the same), from 1 KiB.
pub(crate) fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => {
            return Err(format!(
                "{unit:?} is not a unit: give bytes, KiB, MiB or GiB, such as 64MiB"
            ));
        }
    };
    let too_small = || "give a size of at least 1 KiB, such as 64MiB or 1048576".to_string();
    if number.is_empty() {
        return Err(too_small());
    }
    // All digits: a number that does not fit (or a multiple that does not) is too large, not small.
    let too_large = || format!("too large: give at most {} bytes", u64::MAX);
    let bytes = number
        .parse::<u64>()
        .ok()
        .ok_or_else(too_large)?
        .checked_mul(1 << shift)
        .ok_or_else(too_large)?;
    if bytes < 1024 {
        return Err(too_small());
    }
    Ok(bytes)
}

/// `--rate-limit`: a whole number of requests a minute, from 1.
pub(crate) fn parse_rate_limit(text: &str) -> Result<NonZeroU32, String> {
    match text.trim().parse::<u64>() {
        Ok(0) => Err(
            "the rate limit is requests a minute, from 1 (leave --rate-limit out to keep to the rate the store announces)"
                .to_string(),
        ),
        Ok(n) => u32::try_from(n)
            .ok()
            .and_then(NonZeroU32::new)
            .ok_or_else(|| format!("at most {} requests a minute", u32::MAX)),
        Err(_) => Err("give a whole number of requests a minute, such as 120".to_string()),
    }
}

/// A closed set of the document's values as clap's possible values (`generated_sets.rs`, which
/// the generator writes from the document).
pub fn enum_values(values: &'static [&'static str]) -> PossibleValuesParser {
    PossibleValuesParser::new(values)
}

/// The store used when neither `--store` nor the profile names one.
pub const DEFAULT_STORE: &str = "default";

/// The merchant store whose tokens and budget are used.
pub fn store_id(global: &Global) -> String {
    global
        .store
        .clone()
        .unwrap_or_else(|| DEFAULT_STORE.to_string())
}

/// `$XDG_STATE_HOME`, else `$HOME/.local/state`.
pub(crate) fn state_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_STATE_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|p| !p.is_empty())
                .map(|home| PathBuf::from(home).join(".local").join("state"))
        })
}

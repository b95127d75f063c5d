//! The configuration file and the token sources.
//!
//! `$XDG_CONFIG_HOME/store-admin/config.toml` (else `~/.config/store-admin/config.toml`; or the
//! file `STORE_ADMIN_CONFIG` names) holds named profiles; `--profile NAME` (or
//! `STORE_ADMIN_PROFILE`, or the file's `default_profile`) picks one. A profile gives defaults: a
//! flag on the command line or its environment variable always wins.
//!
//! ```toml
//! default_profile = "live"
//!
//! [profiles.live]
//! base_url = "https://api.salla.dev/admin/v2"
//! token_file = "/home/me/.config/store-admin/live.token"   # or: token_env = "LIVE_TOKEN"
//! output = "table"
//! rate_limit = 120
//! language = "en"
//!
//! [profiles.play]
//! sandbox = true
//! output = "ndjson"
//! ```
//!
//! Keys of a profile: `base_url`, `token_file`, `token_env`, `output` (`json`, `ndjson`, `table`,
//! `csv`), `retries`, `rate_limit`, `concurrency`, `timeout`, `operation_timeout`, `sandbox`,
//! `language` (`en`, `ar`, `en-US`...),
//! and for OAuth and shared stores `store`, `token_store`, `rate_limit_store`, `client_id`,
//! `client_secret_file`, `client_secret_env`, `token_url`, `authorize_url`, `token_keys_file`,
//! `token_keys_env` (the keys that encrypt the stored tokens: see [`token_keys`]).
//! A profile never holds a secret itself (a token, the client secret, a Redis password): it
//! names where to read it, so that the file can be shared or committed.
//!
//! The token comes from, in order: `--token TOKEN` or `STORE_ADMIN_TOKEN`, `--token -` (the first
//! line of standard input), `--token-file PATH`, the profile's `token_file` or `token_env`.
//!
//! The language comes from, in order: `--language LANG` or `STORE_ADMIN_LANGUAGE`, the profile's
//! `language`, then the user's locale ([`locale_language`]: `en` when `LC_ALL`, else
//! `LC_MESSAGES`, else `LANG` is English); else none is sent and the service answers in Arabic.

use std::collections::BTreeMap;
use std::io::Read;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};

use clap::ArgMatches;
use clap::parser::ValueSource;
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use store_admin::Language;

use crate::error::CliError;
use crate::global::{Format, Global, StoreLocation, TokenOrigin};

/// The configuration file. Each profile is read only when it is used: a mistake in one profile
/// does not keep the others (or `--sandbox`) from working.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The profile used when `--profile` is not given.
    pub default_profile: Option<String>,
    /// Named profiles, as written (see [`Config::profile`]).
    #[serde(default)]
    pub profiles: BTreeMap<String, toml::Table>,
}

impl Config {
    /// The profile `name`: `None` when there is none of that name, an error (naming the profile
    /// and the key, never quoting a value: it may be a secret) when it is not a valid profile.
    pub fn profile(&self, name: &str, path: &Path) -> Result<Option<Profile>, CliError> {
        let Some(table) = self.profiles.get(name) else {
            return Ok(None);
        };
        toml::Value::Table(table.clone())
            .try_into::<Profile>()
            .map(Some)
            .map_err(|e| {
                CliError::usage(format!(
                    "profile {name:?} of {} is not valid: {}",
                    path.display(),
                    e.message().trim()
                ))
            })
    }
}

/// Defaults for the global options.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// `--base-url`.
    pub base_url: Option<String>,
    /// A file holding the token (its first line).
    pub token_file: Option<PathBuf>,
    /// An environment variable holding the token.
    pub token_env: Option<String>,
    /// `--output`.
    pub output: Option<Format>,
    /// `--retries`.
    pub retries: Option<u32>,
    /// `--rate-limit`.
    pub rate_limit: Option<NonZeroU32>,
    /// `--language`.
    pub language: Option<String>,
    /// `--concurrency`.
    pub concurrency: Option<u16>,
    /// `--timeout`.
    pub timeout: Option<f64>,
    /// `--operation-timeout`.
    pub operation_timeout: Option<f64>,
    /// `--sandbox`.
    pub sandbox: Option<bool>,
    /// `--store`.
    pub store: Option<String>,
    /// `--token-store` (`file` or `redis://HOST:PORT/DB`, without a password).
    pub token_store: Option<String>,
    /// `--rate-limit-store` (`redis://HOST:PORT/DB`, without a password).
    pub rate_limit_store: Option<String>,
    /// `--client-id`.
    pub client_id: Option<String>,
    /// `--client-secret-file`.
    pub client_secret_file: Option<PathBuf>,
    /// An environment variable holding the client secret.
    pub client_secret_env: Option<String>,
    /// `--token-keys-file`: the keys that encrypt the stored tokens.
    pub token_keys_file: Option<PathBuf>,
    /// An environment variable holding the token keys themselves.
    pub token_keys_env: Option<String>,
    /// `--token-url`.
    pub token_url: Option<String>,
    /// `auth login --authorize-url`.
    pub authorize_url: Option<String>,
}

/// Where the configuration file is: `STORE_ADMIN_CONFIG`, else
/// `$XDG_CONFIG_HOME/store-admin/config.toml`, else `$HOME/.config/store-admin/config.toml`.
pub fn path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("STORE_ADMIN_CONFIG").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|p| !p.is_empty())
                .map(|home| PathBuf::from(home).join(".config"))
        })?;
    Some(base.join("store-admin").join("config.toml"))
}

/// Reads the configuration file; a missing file is an empty configuration.
pub fn load(path: &Path) -> Result<Config, CliError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
        Err(e) => {
            return Err(CliError::usage(format!(
                "cannot read {}: {e}",
                path.display()
            )));
        }
    };
    // The message names the key and the line, never the line's text: it may hold a secret.
    toml::from_str(&text).map_err(|e| {
        let line = e
            .span()
            .map(|span| text[..span.start.min(text.len())].lines().count().max(1))
            .map(|n| format!(" (line {n})"))
            .unwrap_or_default();
        CliError::usage(format!(
            "{} is not a valid configuration{line}: {}",
            path.display(),
            e.message().trim()
        ))
    })
}

/// The profile in use: `--profile` (or `STORE_ADMIN_PROFILE`), else the file's default, else
/// none.
pub fn profile(global: &Global) -> Result<Option<Profile>, CliError> {
    let Some(path) = path() else {
        return match &global.profile {
            Some(name) => Err(CliError::usage(format!(
                "--profile {name}: no configuration file (set XDG_CONFIG_HOME or HOME)"
            ))),
            None => Ok(None),
        };
    };
    let config = load(&path)?;
    let known = || {
        let names: Vec<&str> = config.profiles.keys().map(String::as_str).collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };
    if let Some(name) = &global.profile {
        return match config.profile(name, &path)? {
            Some(profile) => Ok(Some(profile)),
            None => Err(CliError::usage(format!(
                "no profile {name:?} in {} (profiles: {})",
                path.display(),
                known()
            ))),
        };
    }
    let Some(name) = config.default_profile.clone() else {
        return Ok(None);
    };
    // The default profile is not asked for: when it is missing or broken, a --sandbox command
    // goes on without it (with a warning), any other command stops with the reason.
    let problem = match config.profile(&name, &path) {
        Ok(Some(profile)) => return Ok(Some(profile)),
        Ok(None) => CliError::usage(format!(
            "default_profile {name:?} of {} names no profile (profiles: {}); fix it, or pick one \
             with --profile NAME",
            path.display(),
            known()
        )),
        Err(error) => error,
    };
    if sandbox_asked(global) {
        crate::note!("warning: {problem}; going on without a profile");
        return Ok(None);
    }
    Err(problem)
}

/// Whether the command line asks for the sandbox (which needs no profile).
fn sandbox_asked(global: &Global) -> bool {
    global.sandbox || global.sandbox_faults.is_some() || global.sandbox_scopes.is_some()
}

/// Whether the user set `id` on the command line or through its environment variable.
fn given(matches: &ArgMatches, id: &str) -> bool {
    matches!(
        matches.value_source(id),
        Some(ValueSource::CommandLine | ValueSource::EnvVariable)
    )
}

/// Lays the profile under the options the user did not give, refuses a secret given on the
/// command line (a Redis password in a URL), and without a language from either, takes it from
/// the user's locale ([`locale_language`]).
pub fn apply(global: &mut Global, matches: &ArgMatches) -> Result<(), CliError> {
    apply_profile(global, matches)?;
    if global.language.is_none() {
        global.language = locale_language(|name| std::env::var(name).ok());
    }
    Ok(())
}

/// The language of the user's locale: `en` when the first of `LC_ALL`, `LC_MESSAGES` and
/// `LANG` that is set (and not empty) names English (`en_US.UTF-8`, `en_GB`, `en`), else none
/// (`C`, `POSIX`, `ar_SA.UTF-8`, `fr_FR`...: the service's default, Arabic, is left alone).
/// `var` reads an environment variable.
pub fn locale_language(var: impl Fn(&str) -> Option<String>) -> Option<Language> {
    let locale = ["LC_ALL", "LC_MESSAGES", "LANG"]
        .into_iter()
        .find_map(|name| var(name).filter(|value| !value.is_empty()))?;
    // `language[_territory][.codeset][@modifier]`
    let language = locale
        .split(['_', '.', '@', '-'])
        .next()
        .unwrap_or_default();
    language
        .eq_ignore_ascii_case("en")
        .then_some(Language::ENGLISH)
}

/// The profile under the options the user did not give (see [`apply`]).
fn apply_profile(global: &mut Global, matches: &ArgMatches) -> Result<(), CliError> {
    for (id, flag, location) in [
        ("token_store", "--token-store", &global.token_store),
        (
            "rate_limit_store",
            "--rate-limit-store",
            &global.rate_limit_store,
        ),
    ] {
        if matches.value_source(id) == Some(ValueSource::CommandLine)
            && location.as_ref().is_some_and(StoreLocation::has_password)
        {
            return Err(CliError::usage(format!(
                "{flag}: a password on the command line is visible to other users (ps); give the \
                 URL in {} instead",
                if id == "token_store" {
                    "STORE_ADMIN_TOKEN_STORE"
                } else {
                    "STORE_ADMIN_RATE_LIMIT_STORE"
                }
            )));
        }
    }
    global.token_origin = match matches.value_source("token") {
        Some(ValueSource::CommandLine)
            if global
                .token
                .as_ref()
                .is_some_and(|t| t.expose_secret() == "-") =>
        {
            Some(TokenOrigin::StandardInput)
        }
        Some(ValueSource::CommandLine) => Some(TokenOrigin::Flag),
        Some(ValueSource::EnvVariable) => Some(TokenOrigin::Variable),
        _ => global.token_file.clone().map(TokenOrigin::File),
    };
    let Some(profile) = profile(global)? else {
        return Ok(());
    };
    apply_oauth(global, &profile)?;
    if let Some(url) = &profile.base_url
        && !given(matches, "base_url")
    {
        global.base_url = crate::global::parse_base_url(url)
            .map_err(|e| CliError::usage(format!("profile base_url: {e}")))?;
    }
    if let Some(output) = profile.output
        && global.output.is_none()
    {
        global.output = Some(output);
    }
    if let Some(retries) = profile.retries
        && !given(matches, "retries")
    {
        global.retries = retries;
    }
    if profile.rate_limit.is_some() && global.rate_limit.is_none() {
        global.rate_limit = profile.rate_limit;
    }
    if let Some(language) = &profile.language
        && global.language.is_none()
    {
        global.language = Some(
            Language::parse(language)
                .map_err(|e| CliError::usage(format!("profile language: {e}")))?,
        );
    }
    if let Some(concurrency) = profile.concurrency
        && !given(matches, "concurrency")
    {
        if !(1..=32).contains(&concurrency) {
            return Err(CliError::usage("profile concurrency: 1 to 32"));
        }
        global.concurrency = concurrency;
    }
    for (value, id, slot) in [
        (profile.timeout, "timeout", &mut global.timeout),
        (
            profile.operation_timeout,
            "operation_timeout",
            &mut global.operation_timeout,
        ),
    ] {
        if let Some(seconds) = value
            && !given(matches, id)
        {
            if !(seconds > 0.0 && seconds.is_finite() && seconds < 1e9) {
                return Err(CliError::usage(format!(
                    "profile {id}: a positive number of seconds"
                )));
            }
            *slot = seconds;
        }
    }
    if profile.sandbox == Some(true) {
        global.sandbox = true;
    }
    if global.token.is_none() && global.token_file.is_none() {
        if let Some(file) = &profile.token_file {
            global.token_origin = Some(TokenOrigin::ProfileFile(file.clone()));
            global.token_file = Some(file.clone());
        } else if let Some(name) = &profile.token_env {
            global.token_origin = Some(TokenOrigin::ProfileVariable(name.clone()));
            global.token = std::env::var(name)
                .ok()
                .filter(|t| !t.trim().is_empty())
                .map(|t| SecretString::from(t.trim().to_string()));
            if global.token.is_none() {
                // Told when a command needs the token (see `token`): the offline ones do not.
                global.token_env_unset = Some(name.clone());
            }
        }
    }
    Ok(())
}

/// The profile's keys of stores and OAuth, under what the user did not give.
fn apply_oauth(global: &mut Global, profile: &Profile) -> Result<(), CliError> {
    if global.store.is_none()
        && let Some(store) = &profile.store
    {
        global.store = Some(
            crate::global::parse_store_id(store)
                .map_err(|e| CliError::usage(format!("profile store: {e}")))?,
        );
    }
    for (key, text, slot, parse) in [
        (
            "token_store",
            &profile.token_store,
            &mut global.token_store,
            crate::global::parse_store_location as fn(&str) -> Result<StoreLocation, String>,
        ),
        (
            "rate_limit_store",
            &profile.rate_limit_store,
            &mut global.rate_limit_store,
            crate::global::parse_redis_location,
        ),
    ] {
        if let Some(text) = text
            && slot.is_none()
        {
            let location =
                parse(text).map_err(|e| CliError::usage(format!("profile {key}: {e}")))?;
            if location.has_password() {
                return Err(CliError::usage(format!(
                    "profile {key}: a profile holds no password; give the URL with its password \
                     in the environment (STORE_ADMIN_{})",
                    key.to_ascii_uppercase()
                )));
            }
            *slot = Some(location);
        }
    }
    if global.client_id.is_none() {
        global.client_id.clone_from(&profile.client_id);
    }
    // The secret's sources, first first: --client-secret-file, STORE_ADMIN_CLIENT_SECRET, the
    // profile's file, the profile's variable.
    if global.client_secret_file.is_none() && !client_secret_in_env() {
        if let Some(file) = &profile.client_secret_file {
            global.client_secret_file = Some(file.clone());
        } else {
            global
                .client_secret_env
                .clone_from(&profile.client_secret_env);
        }
    }
    // The token keys' sources, first first: --token-keys-file (or STORE_ADMIN_TOKEN_KEYS_FILE),
    // STORE_ADMIN_TOKEN_KEYS, the profile's file, the profile's variable.
    if global.token_keys_file.is_none() && !token_keys_in_env() {
        if let Some(file) = &profile.token_keys_file {
            global.token_keys_file = Some(file.clone());
        } else {
            global.token_keys_env.clone_from(&profile.token_keys_env);
        }
    }
    if global.token_url.is_none()
        && let Some(url) = &profile.token_url
    {
        global.token_url = Some(
            crate::global::parse_oauth_url(url)
                .map_err(|e| CliError::usage(format!("profile token_url: {e}")))?,
        );
    }
    Ok(())
}

/// The environment variable holding the client secret itself.
pub const CLIENT_SECRET_ENV: &str = "STORE_ADMIN_CLIENT_SECRET";

fn client_secret_in_env() -> bool {
    std::env::var_os(CLIENT_SECRET_ENV).is_some_and(|v| !v.is_empty())
}

/// The app's client secret: `--client-secret-file`, else `STORE_ADMIN_CLIENT_SECRET`, else the
/// profile's `client_secret_file` or `client_secret_env`; `None` when none is given.
pub fn client_secret(global: &Global) -> Result<Option<SecretString>, CliError> {
    if let Some(path) = &global.client_secret_file {
        let text = std::fs::read_to_string(path).map_err(|e| {
            CliError::usage(format!("--client-secret-file {}: {e}", path.display()))
        })?;
        warn_if_readable_by_others(path);
        return first_line(&text, &format!("--client-secret-file {}", path.display())).map(Some);
    }
    if let Ok(secret) = std::env::var(CLIENT_SECRET_ENV)
        && !secret.trim().is_empty()
    {
        return Ok(Some(SecretString::from(secret.trim().to_string())));
    }
    if let Some(name) = &global.client_secret_env {
        return match std::env::var(name) {
            Ok(secret) if !secret.trim().is_empty() => {
                Ok(Some(SecretString::from(secret.trim().to_string())))
            }
            _ => Err(CliError::usage(format!(
                "the profile reads the client secret from ${name}, which is not set"
            ))),
        };
    }
    Ok(None)
}

fn token_keys_in_env() -> bool {
    std::env::var_os(store_admin::credentials::TOKEN_KEYS_ENV).is_some_and(|v| !v.is_empty())
}

/// The keys that encrypt the stored tokens (see `store_admin::credentials::TokenKeys`):
/// `--token-keys-file` (or `STORE_ADMIN_TOKEN_KEYS_FILE`), else `STORE_ADMIN_TOKEN_KEYS` (the
/// keys themselves), else the profile's `token_keys_file` or `token_keys_env`; `None` when none
/// is given (the tokens are kept in plain JSON). Errors name the source, never a key.
pub fn token_keys(
    global: &Global,
) -> Result<Option<std::sync::Arc<store_admin::credentials::TokenKeys>>, CliError> {
    use store_admin::credentials::{TOKEN_KEYS_ENV, TokenKeys};
    let keys = if let Some(path) = &global.token_keys_file {
        if token_keys_in_env() {
            return Err(CliError::usage(format!(
                "the token keys are given twice: --token-keys-file (or                  STORE_ADMIN_TOKEN_KEYS_FILE) and {TOKEN_KEYS_ENV}; give one"
            )));
        }
        let keys = TokenKeys::from_file(path).map_err(|e| CliError::usage(e.to_string()))?;
        warn_if_readable_by_others(path);
        keys
    } else if token_keys_in_env() {
        let text = secrecy::zeroize::Zeroizing::new(
            std::env::var(TOKEN_KEYS_ENV)
                .map_err(|_| CliError::usage(format!("{TOKEN_KEYS_ENV} is not UTF-8")))?,
        );
        TokenKeys::parse(&text)
            .map_err(|e| CliError::usage(format!("{e} (in {TOKEN_KEYS_ENV})")))?
    } else if let Some(name) = &global.token_keys_env {
        let text = secrecy::zeroize::Zeroizing::new(std::env::var(name).map_err(|_| {
            CliError::usage(format!(
                "the profile reads the token keys from ${name}, which is not set"
            ))
        })?);
        TokenKeys::parse(&text).map_err(|e| CliError::usage(format!("{e} (in ${name})")))?
    } else {
        return Ok(None);
    };
    Ok(Some(std::sync::Arc::new(keys)))
}

/// The profile's `authorize_url`, if any.
pub fn profile_authorize_url(global: &Global) -> Result<Option<url::Url>, CliError> {
    let Some(profile) = profile(global)? else {
        return Ok(None);
    };
    profile
        .authorize_url
        .as_deref()
        .map(|url| {
            crate::global::parse_oauth_url(url)
                .map_err(|e| CliError::usage(format!("profile authorize_url: {e}")))
        })
        .transpose()
}

/// An access token and where it came from (told with a 401; never the token).
pub struct Token {
    /// The token.
    pub secret: SecretString,
    /// Where it came from.
    pub origin: TokenOrigin,
}

/// The access token, from `--token` (`-`: standard input) or `--token-file` (or the profile's
/// that [`apply`] laid there), with its origin; `None` when neither is given.
pub fn token(global: &Global) -> Result<Option<Token>, CliError> {
    if let Some(token) = &global.token {
        if token.expose_secret() != "-" {
            return Ok(Some(Token {
                secret: token.clone(),
                origin: global.token_origin.clone().unwrap_or(TokenOrigin::Flag),
            }));
        }
        crate::body::claim_stdin("--token")?;
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| CliError::usage(format!("--token -: cannot read standard input: {e}")))?;
        let origin = TokenOrigin::StandardInput;
        let secret = first_line(&text, &origin.to_string())?;
        return Ok(Some(Token { secret, origin }));
    }
    if let Some(path) = &global.token_file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::usage(format!("--token-file {}: {e}", path.display())))?;
        warn_if_readable_by_others(path);
        let secret = first_line(&text, &format!("--token-file {}", path.display()))?;
        let origin = match &global.token_origin {
            Some(origin @ TokenOrigin::ProfileFile(_)) => origin.clone(),
            _ => TokenOrigin::File(path.clone()),
        };
        return Ok(Some(Token { secret, origin }));
    }
    if let Some(name) = &global.token_env_unset {
        return Err(CliError::usage(format!(
            "the profile reads the token from ${name}, which is not set"
        )));
    }
    Ok(None)
}

pub(crate) fn first_line(text: &str, source: &str) -> Result<SecretString, CliError> {
    match text.lines().next().map(str::trim).filter(|t| !t.is_empty()) {
        Some(token) => Ok(SecretString::from(token.to_string())),
        None => Err(CliError::usage(format!("{source} is empty"))),
    }
}

/// Warns on standard error when the file at `path` (a token or a secret) can be read by other
/// users.
#[cfg(unix)]
pub(crate) fn warn_if_readable_by_others(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = std::fs::metadata(path)
        && meta.permissions().mode() & 0o077 != 0
    {
        crate::note!(
            "warning: {} can be read by other users (chmod 600 it)",
            crate::output::terminal_safe(&path.display().to_string(), false)
        );
    }
}

/// See the Unix version.
#[cfg(not(unix))]
pub(crate) fn warn_if_readable_by_others(_path: &Path) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_parses_and_refuses_unknown_keys() {
        let config: Config = toml::from_str(
            "default_profile = \"a\"\n[profiles.a]\nbase_url = \"http://x/admin/v2\"\noutput = \"csv\"\nsandbox = true\n",
        )
        .unwrap();
        assert_eq!(config.default_profile.as_deref(), Some("a"));
        let path = Path::new("config.toml");
        let a = config.profile("a", path).unwrap().expect("profile a");
        assert_eq!(a.output, Some(Format::Csv));
        let bad: Config =
            toml::from_str("[profiles.a]\ntoken = \"secret\"\n[profiles.b]\n").unwrap();
        let error = bad.profile("a", path).unwrap_err().to_string();
        assert!(
            error.contains("profile \"a\"") && !error.contains("secret\""),
            "{error}"
        );
        assert!(
            bad.profile("b", path).unwrap().is_some(),
            "another profile still works"
        );
        assert!(bad.profile("c", path).unwrap().is_none());
    }

    /// Environment variables, and the language expected of them.
    type LocaleCase<'a> = (&'a [(&'a str, &'a str)], Option<&'a str>);

    #[test]
    fn the_locale_gives_english_only_when_it_is_english() {
        let cases: &[LocaleCase<'_>] = &[
            (&[], None),
            (&[("LANG", "en_US.UTF-8")], Some("en")),
            (&[("LANG", "en_GB")], Some("en")),
            (&[("LANG", "en")], Some("en")),
            (&[("LANG", "C")], None),
            (&[("LANG", "C.UTF-8")], None),
            (&[("LANG", "POSIX")], None),
            (&[("LANG", "ar_SA.UTF-8")], None),
            (&[("LANG", "fr_FR.UTF-8")], None),
            (&[("LANG", "eng")], None),
            (&[("LANG", "")], None),
            // LC_ALL first, then LC_MESSAGES, then LANG; an empty one is not set.
            (&[("LC_ALL", "ar_SA.UTF-8"), ("LANG", "en_US.UTF-8")], None),
            (
                &[("LC_ALL", "en_US.UTF-8"), ("LANG", "ar_SA.UTF-8")],
                Some("en"),
            ),
            (&[("LC_MESSAGES", "en_US.UTF-8"), ("LANG", "C")], Some("en")),
            (&[("LC_MESSAGES", "C"), ("LANG", "en_US.UTF-8")], None),
            (&[("LC_ALL", ""), ("LANG", "en_US.UTF-8")], Some("en")),
            (&[("LC_ALL", "en_US@euro")], Some("en")),
        ];
        for (vars, expected) in cases {
            let got = locale_language(|name| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| (*v).to_string())
            });
            assert_eq!(got.as_ref().map(Language::as_str), *expected, "{vars:?}");
        }
    }

    #[test]
    fn the_token_is_the_first_line_trimmed() {
        assert_eq!(
            first_line("  abc \nrest", "x").unwrap().expose_secret(),
            "abc"
        );
        assert!(first_line("\n", "x").is_err());
    }
}

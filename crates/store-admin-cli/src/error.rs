//! What can go wrong, how it is told to a person, and the exit code it gives.

use std::process::ExitCode;

/// The exit codes of `store-admin`.
pub mod exit {
    /// Success.
    pub const SUCCESS: u8 = 0;
    /// Anything not covered below (a response that does not match the document, a rejected
    /// webhook delivery in `webhooks verify`, a local I/O failure).
    pub const FAILURE: u8 = 1;
    /// The command line or its input is wrong (clap uses 2 for usage errors too).
    pub const USAGE: u8 = 2;
    /// The service refused the request (4xx).
    pub const REFUSED: u8 = 3;
    /// The service was unreachable, timed out or failed (5xx), after retries.
    pub const UNAVAILABLE: u8 = 4;
    /// `--all` skipped records that do not match the document: every other record was written,
    /// the skipped ones are listed on standard error.
    pub const INCOMPLETE: u8 = 5;
    /// `--wait`: the background job did not finish within `--wait-timeout` (it may still).
    pub const TIMED_OUT: u8 = 6;
}

/// A failed command. `Display` is the message printed on standard error; no variant carries a
/// secret.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// Wrong usage or input: a bad flag combination, a body that does not parse, a missing file.
    #[error("{0}")]
    Usage(String),
    /// The service (or the sandbox) answered with an error, or could not be reached.
    #[error("{}", describe_service_error(.0))]
    Service(store_admin::Error),
    /// The service refused the access token (401): the error, and where the token came from,
    /// which the message tells so that the right token gets fixed (see [`CliError::with_token`]).
    #[error("{}\nthe token came from {token}", describe_service_error(.error))]
    Unauthorized {
        /// The service's answer.
        error: store_admin::Error,
        /// Where the token came from (never the token).
        token: Box<crate::global::TokenOrigin>,
    },
    /// A webhook delivery is not authentic or not readable (`webhooks verify`).
    #[error("{0}")]
    Rejected(String),
    /// A refusal that is not an API answer: the authorization was denied, the token endpoint
    /// refused a code or a refresh token, the stored tokens were revoked (exit 3).
    #[error("{0}")]
    Refused(String),
    /// Something needed could not be reached: the token endpoint, a Redis token or rate-limit
    /// store (exit 4).
    #[error("{0}")]
    Unavailable(String),
    /// Already told on standard output (`auth status` of a store that is not logged in): exit
    /// with this code and print nothing more.
    #[error("exit {0}")]
    Quiet(u8),
    /// `--wait` gave up: the job did not finish in time (exit 6).
    #[error("{0}")]
    TimedOut(String),
    /// Anything else.
    #[error("{0}")]
    Other(String),
    /// An `--all` export stopped by a failure after it wrote records: the failure (whose exit
    /// code it keeps), how many records were written, and how to continue.
    #[error("{source}\n{written} record(s) were written before the export stopped; {hint}")]
    Stopped {
        /// Why it stopped.
        source: Box<CliError>,
        /// Records on standard output (with those of earlier runs of a resumed export).
        written: u64,
        /// How to continue.
        hint: String,
    },
    /// Standard output was closed by the reader (`store-admin ... | head`): not a failure.
    #[error("standard output was closed")]
    Closed,
}

impl CliError {
    /// A usage error.
    pub fn usage(message: impl Into<String>) -> Self {
        CliError::Usage(message.into())
    }

    /// Another failure.
    pub fn other(message: impl Into<String>) -> Self {
        CliError::Other(message.into())
    }

    /// The process exit code of this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => exit::USAGE,
            CliError::Rejected(_) | CliError::Other(_) => exit::FAILURE,
            CliError::Refused(_) => exit::REFUSED,
            CliError::Unavailable(_) => exit::UNAVAILABLE,
            CliError::TimedOut(_) => exit::TIMED_OUT,
            CliError::Quiet(code) => *code,
            CliError::Stopped { source, .. } => source.exit_code(),
            CliError::Closed => exit::SUCCESS,
            CliError::Service(e) | CliError::Unauthorized { error: e, .. } => service_exit_code(e),
        }
    }

    /// The exit code as the process's.
    pub fn exit(&self) -> ExitCode {
        ExitCode::from(self.exit_code())
    }

    /// This error, told with where the token came from when the service refused the token
    /// (a 401, also one that stopped an export): the origin travels with the command's
    /// connection, and is told here, where the command ends.
    #[must_use]
    pub fn with_token(self, token: &crate::global::TokenOrigin) -> CliError {
        match self {
            CliError::Service(error)
                if error.api().is_some_and(|api| api.status.as_u16() == 401) =>
            {
                CliError::Unauthorized {
                    error,
                    token: Box::new(token.clone()),
                }
            }
            CliError::Stopped {
                source,
                written,
                hint,
            } => CliError::Stopped {
                source: Box::new(source.with_token(token)),
                written,
                hint,
            },
            other => other,
        }
    }
}

impl CliError {
    /// The message printed on standard error: [`Display`](std::fmt::Display), then each cause of
    /// a service error that the text does not already say, once (`: cause: its cause`).
    pub fn message(&self) -> String {
        let mut text = self.to_string();
        if let CliError::Service(error) | CliError::Unauthorized { error, .. } = self {
            let mut cause = std::error::Error::source(error);
            while let Some(current) = cause {
                let said = current.to_string();
                if !said.is_empty() && !text.contains(&said) {
                    text.push_str(": ");
                    text.push_str(&said);
                }
                cause = current.source();
            }
        }
        text
    }
}

impl From<store_admin::Error> for CliError {
    fn from(error: store_admin::Error) -> Self {
        CliError::Service(error)
    }
}

impl From<progenitor_client::Error<store_admin::types::ErrorResponse>> for CliError {
    fn from(error: progenitor_client::Error<store_admin::types::ErrorResponse>) -> Self {
        CliError::Service(store_admin::Error::from(error))
    }
}

impl From<std::io::Error> for CliError {
    fn from(error: std::io::Error) -> Self {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            return CliError::Closed;
        }
        CliError::Other(format!("writing the output failed: {error}"))
    }
}

fn service_exit_code(error: &store_admin::Error) -> u8 {
    use store_admin::Error as E;
    if upload_cut_off(error).is_some() {
        return exit::REFUSED;
    }
    match error {
        E::Api(api) if api.status.is_client_error() => exit::REFUSED,
        // Not the service being away: its answer is larger than the user allowed.
        E::Transport {
            kind: store_admin::error::TransportKind::TooLarge,
            ..
        } => exit::FAILURE,
        // A redirect elsewhere was refused: not the service being away.
        E::Transport { source, .. }
            if source.failure() == store_admin::retry::TransportFailure::Redirected =>
        {
            exit::FAILURE
        }
        E::Api(_) | E::Transport { .. } => exit::UNAVAILABLE,
        E::InvalidRequest(_) => exit::USAGE,
        E::Auth(auth) => auth_exit_code(auth),
        _ => exit::FAILURE,
    }
}

/// A token that could not be had: the token endpoint or a Redis token store unreachable, or the
/// endpoint failing (5xx), is 4, another failing token store 1, a refusal (revoked tokens, a
/// refused client) 3.
fn auth_exit_code(error: &store_admin::credentials::AuthError) -> u8 {
    use store_admin::credentials::{AuthError as A, OAuthError as O};
    match error {
        // A redirect or an oversized answer of the token endpoint: refused here, not by it.
        A::TokenEndpoint {
            error: O::Redirected { .. } | O::TooLarge { .. },
            ..
        } => exit::FAILURE,
        A::TokenEndpoint { status: None, .. } => exit::UNAVAILABLE,
        A::TokenEndpoint {
            status: Some(status),
            ..
        } if *status >= 500 => exit::UNAVAILABLE,
        // A Redis token store that cannot be reached (during a refresh, say) is unreachable.
        A::Store(store) if store.to_string().contains("Redis") => exit::UNAVAILABLE,
        A::Store(_) | A::Aborted(_) => exit::FAILURE,
        _ => exit::REFUSED,
    }
}

/// Whether `operation` sends a file (a `multipart/form-data` body).
fn is_upload(operation: &str) -> bool {
    store_admin::HAND_WRITTEN
        .iter()
        .any(|h| h.operation_id == operation && h.reason.starts_with("multipart"))
}

/// The upload whose connection the server closed while it was being sent (what a server does
/// with a body over its limit instead of answering 413): its operation.
fn upload_cut_off(error: &store_admin::Error) -> Option<&'static str> {
    use store_admin::error::TransportKind;
    match error {
        store_admin::Error::Transport {
            operation: Some(operation),
            kind,
            ..
        } if is_upload(operation)
            && !matches!(
                kind,
                TransportKind::Connect | TransportKind::Timeout | TransportKind::TooLarge
            ) =>
        {
            Some(*operation)
        }
        _ => None,
    }
}

/// What an oversized upload is told, whether the server answered 413 or cut the connection.
const TOO_LARGE: &str = "the upload is too large for the service: send a smaller file";

/// The ergonomics crate's message (status, code, message, field errors and its hint), laid out for
/// a terminal: field errors on their own lines.
fn describe_service_error(error: &store_admin::Error) -> String {
    if let Some(operation) = upload_cut_off(error) {
        return format!(
            "{operation}: the service closed the connection while the file was being sent: {TOO_LARGE} \
             ({error})"
        );
    }
    let Some(api) = error.api() else {
        use store_admin::credentials::AuthError as A;
        let mut text = error.to_string();
        if let store_admin::Error::Auth(
            A::ReinstallRequired { .. } | A::NoRefreshToken | A::NoTokens,
        ) = error
        {
            text.push_str(
                "\nhint: log in again with `store-admin auth login` (or `auth import --refresh-token -`)",
            );
        }
        return text;
    };
    let operation = api.operation.unwrap_or("request");
    let mut text = format!("{operation}: the service answered HTTP {}", api.status);
    // The code only when it says more than the status, the message only when it says more than
    // the field errors below (`[404]` on a 404, `alert.invalid_fields` beside the fields).
    if let Some(code) = api.informative_code() {
        text.push_str(&format!(" [{code}]"));
    }
    if let Some(message) = api.informative_message() {
        text.push_str(&format!(": {message}"));
    }
    if let Some(raw) = &api.raw_body {
        text.push_str(&format!(": the body was not the error envelope: {raw:?}"));
    }
    for (field, messages) in &api.fields {
        text.push_str(&format!("\n  {field}: {}", messages.join(" / ")));
    }
    if let Some(hint) = api.hint() {
        text.push_str(&format!("\nhint: {hint}"));
    }
    if api.status.as_u16() == 413 {
        text.push_str(&format!("\n{TOO_LARGE}"));
    }
    text
}

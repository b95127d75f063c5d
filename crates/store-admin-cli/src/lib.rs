#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod auth;
pub mod cli;
pub mod commands;
pub mod completions;
pub mod config;
pub mod decode;
pub mod error;
pub mod extras;
#[rustfmt::skip]
#[allow(missing_docs, unused_mut, unused_variables, clippy::all, clippy::pedantic)]
pub mod generated_cli;
pub mod legacy;
pub mod output;
pub mod webhook;

mod api;
mod body;

use std::process::ExitCode;
use std::time::Duration;

use clap::FromArgMatches;
use store_admin::ratelimit::RateLimit;
use store_admin::retry::RetryPolicy;
use store_admin::{OperationMeta, StoreAdmin};
use store_admin_mock::MockServer;

use crate::cli::{Cli, Command, Global, StoreLocation};
use crate::commands::Ctx;
use crate::error::CliError;
use crate::output::{Printer, default_format, stderr_is_terminal};

/// The token the sandbox accepts, and the one the CLI sends it (whatever `--token` says).
pub const SANDBOX_TOKEN: &str = store_admin_mock::DEFAULT_TOKEN;

/// Parses the command line, runs the command and returns the exit code (see [`error::exit`]).
pub fn main() -> ExitCode {
    // `COMPLETE=bash store-admin -- store-admin orders l`: a shell asking for completions (the
    // script `store-admin completions SHELL` prints); answered and exited here.
    clap_complete::CompleteEnv::with_factory(cli::command).complete();
    let root = cli::command();
    let args = legacy::rewrite(std::env::args_os().collect(), &root);
    let matches = match root.clone().try_get_matches_from(args) {
        Ok(matches) => matches,
        Err(error) => {
            let error = commands::relevant_suggestion(error, &root);
            // Help and version go to standard output with 0; usage errors to standard error with 2.
            let _ = error.print();
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(error::exit::USAGE));
        }
    };
    let mut cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(error::exit::USAGE);
        }
    };
    if let Err(error) = config::apply(&mut cli.global, &matches) {
        eprintln!("error: {}", output::terminal_safe(&error.to_string(), true));
        return error.exit();
    }
    init_tracing(cli.global.verbose);
    warn_if_deprecated(&matches);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(error::exit::FAILURE);
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            if !matches!(
                error,
                CliError::Rejected(_) | CliError::Closed | CliError::Quiet(_)
            ) {
                // Messages quote the service (and its data): never let them drive the terminal.
                eprintln!("error: {}", output::terminal_safe(&error.to_string(), true));
            }
            error.exit()
        }
    }
}

/// Logs on standard error: `RUST_LOG` when it is set (the usual `EnvFilter` syntax), else `-v`
/// (one line per attempt of every call) or `-vv` (and the retry decisions).
fn init_tracing(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    let from_env = std::env::var_os("RUST_LOG")
        .is_some()
        .then(|| EnvFilter::try_from_default_env().ok())
        .flatten();
    let filter = match (from_env, verbose) {
        (Some(filter), _) => filter,
        (None, 0) => return,
        (None, 1) => EnvFilter::new("store_admin=info,store_admin_cli=info"),
        (None, _) => {
            EnvFilter::new("store_admin=debug,store_admin_cli=debug,store_admin_mock=info")
        }
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(stderr_is_terminal())
        .with_target(false)
        .try_init();
}

/// Runs a parsed command line.
pub async fn run(cli: Cli) -> Result<(), CliError> {
    let Cli { global, command } = cli;
    let format = global.output.unwrap_or_else(default_format);
    // The tools that need no client, token or sandbox.
    let operations = match command {
        Command::Operations(operations) => operations,
        Command::Decode(args) => return decode::run(args),
        Command::Completions(args) => return completions::print(args.shell),
        Command::Auth(args) => return auth::run(&global, format, args).await,
        Command::Api(args) => {
            let (admin, _sandbox) = connect(&global).await?;
            let printer = Printer::new(format, stderr_is_terminal());
            return api::run(&admin, &printer, args).await;
        }
    };
    let operations = match generated_cli::without_client(operations) {
        Ok(receiver) => return webhook::run(format, receiver).await,
        Err(operations) => operations,
    };
    let (admin, _sandbox) = connect(&global).await?;
    let printer = Printer::new(format, stderr_is_terminal());
    let ctx = Ctx {
        admin,
        printer,
        concurrency: usize::from(global.concurrency),
    };
    generated_cli::run(&ctx, operations).await
}

/// Builds the client: to the sandbox (started here, kept alive by the returned server), or to
/// `--base-url` with `--token`, else with the tokens stored for `--store` (see [`auth`]).
async fn connect(global: &Global) -> Result<(StoreAdmin, Option<MockServer>), CliError> {
    let attempt_timeout = Duration::try_from_secs_f64(global.timeout)
        .map_err(|e| CliError::usage(format!("--timeout: {e}")))?;
    let operation_timeout = Duration::try_from_secs_f64(global.operation_timeout)
        .map_err(|e| CliError::usage(format!("--operation-timeout: {e}")))?;
    let builder = StoreAdmin::builder()
        .with_user_agent(concat!("store-admin-cli/", env!("CARGO_PKG_VERSION")))
        .with_retry_policy(
            RetryPolicy::default().with_max_attempts(global.retries.saturating_add(1)),
        )
        .with_attempt_timeout(attempt_timeout)
        .with_operation_timeout(operation_timeout);
    // The sandbox has its own token (or the tokens `auth login --sandbox` saved). The user's
    // --token / STORE_ADMIN_TOKEN belongs to the service: it is neither needed there nor sent.
    let (mut builder, server) = if auth::is_sandbox(global) {
        let (builder, server) = auth::sandbox_client(global, builder).await?;
        (builder, Some(server))
    } else {
        (auth::service_client(global, builder).await?, None)
    };
    match &global.rate_limit_store {
        Some(StoreLocation::Redis(url)) => {
            builder = builder.with_rate_limiter(auth::shared_rate_limiter(global, url).await?);
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
    Ok((admin, server))
}

/// Warns on standard error when the command calls an operation the service replaced.
fn warn_if_deprecated(matches: &clap::ArgMatches) {
    let mut words = Vec::new();
    let mut current = matches;
    while let Some((name, sub)) = current.subcommand() {
        words.push(name);
        current = sub;
    }
    let path = words.join(" ");
    let Some((_, operation)) = cli::OPERATION_COMMANDS.iter().find(|(p, _)| *p == path) else {
        return;
    };
    if let Some(meta) = OperationMeta::find(operation)
        && meta.deprecated
        && let Some(new) = meta.replaced_by
    {
        let instead = cli::command_for(new).unwrap_or(new);
        eprintln!(
            "warning: {operation} is deprecated: the service replaced it with {new} \
             (`store-admin {instead}`)"
        );
    }
}

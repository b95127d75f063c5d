#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

pub mod auth;
pub mod checks;
pub mod cli;
pub mod commands;
pub mod completions;
pub mod config;
pub mod connect;
pub mod decode;
pub mod drift;
pub mod error;
pub mod extras;
#[rustfmt::skip]
// The help texts mark required flags `[required]`, which rustdoc would take for links.
#[allow(missing_docs, unused_mut, unused_variables, clippy::all, clippy::pedantic, rustdoc::broken_intra_doc_links)]
pub mod generated_cli;
#[rustfmt::skip]
#[allow(dead_code)]
mod generated_sets;
pub mod global;
pub mod legacy;
pub mod output;
pub mod resume;
pub mod safe;
pub mod sandbox_store;
pub mod webhook;

mod api;
mod body;
mod modify;

use std::process::ExitCode;

use clap::FromArgMatches;
use store_admin::OperationMeta;

use crate::cli::{Cli, Command};
use crate::commands::Ctx;
use crate::error::CliError;
use crate::output::{Printer, default_format, stderr_is_terminal};

pub use connect::SANDBOX_TOKEN;

/// Parses the command line, runs the command and returns the exit code (see [`error::exit`]).
pub fn main() -> ExitCode {
    if let Some(stream) = output::closed_standard_stream() {
        // Nothing can be told (or nothing read back): stop before anything is done.
        crate::note!("error: {stream} is closed");
        return ExitCode::from(error::exit::FAILURE);
    }
    let code = run_main();
    if output::stderr_failed() && code == ExitCode::SUCCESS {
        return ExitCode::from(error::exit::FAILURE);
    }
    code
}

/// Prints a clap error (help and version on standard output, usage errors on standard error)
/// and returns its exit code: 0 for help and version, 2 for usage errors; a closed pipe is 0,
/// a failed write (a full disk) 1.
fn clap_exit(error: &clap::Error, code: u8) -> ExitCode {
    match error.print() {
        Ok(()) => ExitCode::from(code),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(code),
        Err(e) => {
            if error.use_stderr() {
                return ExitCode::from(error::exit::FAILURE);
            }
            crate::note!("error: writing the output failed: {e}");
            ExitCode::from(error::exit::FAILURE)
        }
    }
}

fn run_main() -> ExitCode {
    // `COMPLETE=bash store-admin -- store-admin orders l`: a shell asking for completions (the
    // script `store-admin completions SHELL` prints); answered and exited here.
    clap_complete::CompleteEnv::with_factory(cli::command).complete();
    let mut root = cli::command();
    let args = legacy::rewrite(std::env::args_os().collect(), &root);
    let args = tidy_lists(args, &root);
    let matches = match root.try_get_matches_from_mut(args) {
        Ok(matches) => matches,
        Err(error) => {
            let error = commands::relevant_suggestion(error, &root);
            // Help and version go to standard output with 0; usage errors to standard error with 2.
            let code = u8::try_from(error.exit_code()).unwrap_or(error::exit::USAGE);
            return clap_exit(&error, code);
        }
    };
    if let Err(error) = one_standard_input(&matches, &root) {
        crate::note!("error: {error}");
        return error.exit();
    }
    let mut cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => return clap_exit(&error, error::exit::USAGE),
    };
    if let Err(error) = config::apply(&mut cli.global, &matches) {
        crate::note!("error: {}", output::terminal_safe(&error.to_string(), true));
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
            crate::note!("error: cannot start the async runtime: {e}");
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
                crate::note!("error: {}", output::terminal_safe(&error.message(), true));
            }
            error.exit()
        }
    }
}

/// The values of list options (`--status 1,2`) written with spaces after the commas, as people
/// do, read as they meant: `--status "1, 2"` and `--status 1, 2` (the shell splits it) are
/// `--status 1,2`. Other arguments are left alone.
fn tidy_lists(args: Vec<std::ffi::OsString>, root: &clap::Command) -> Vec<std::ffi::OsString> {
    use std::ffi::OsString;
    let is_list = |command: &clap::Command, long: &str| {
        command
            .get_arguments()
            .chain(root.get_arguments())
            .any(|a| a.get_long() == Some(long) && a.get_value_delimiter() == Some(','))
    };
    let tidy = |value: &str| -> String {
        value
            .split(',')
            .map(str::trim)
            .filter(|piece| !piece.is_empty())
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut out: Vec<OsString> = Vec::with_capacity(args.len());
    let mut command = root;
    let mut iter = args.into_iter().peekable();
    if let Some(program) = iter.next() {
        out.push(program);
    }
    while let Some(arg) = iter.next() {
        let Some(text) = arg.to_str().map(str::to_owned) else {
            out.push(arg);
            continue;
        };
        if text == "--" {
            out.push(arg);
            out.extend(iter);
            break;
        }
        if let Some(sub) = command.find_subcommand(&text) {
            command = sub;
            out.push(arg);
            continue;
        }
        let Some(flag) = text.strip_prefix("--") else {
            out.push(arg);
            continue;
        };
        let (long, inline) = match flag.split_once('=') {
            Some((long, value)) => (long.to_string(), Some(value.to_string())),
            None => (flag.to_string(), None),
        };
        if !is_list(command, &long) {
            out.push(arg);
            continue;
        }
        let mut value = match inline {
            Some(value) => value,
            None => match iter.next() {
                Some(next) => match next.to_str() {
                    Some(next) => next.to_string(),
                    None => {
                        out.push(arg);
                        out.push(next);
                        continue;
                    }
                },
                None => {
                    out.push(arg);
                    continue;
                }
            },
        };
        // `--status 1, 2`: the shell made "1," and "2" of it.
        while value.trim_end().ends_with(',')
            && let Some(next) = iter.peek().and_then(|n| n.to_str())
            && !next.starts_with('-')
        {
            value.push_str(next);
            iter.next();
        }
        out.push(OsString::from(format!("--{long}={}", tidy(&value))));
    }
    out
}

/// Refuses a command line where two options read standard input (`--logo - --banner -`,
/// `--body - --token -`): it holds one input. Each is named.
fn one_standard_input(matches: &clap::ArgMatches, root: &clap::Command) -> Result<(), CliError> {
    let mut readers = Vec::new();
    let mut current = (matches, root);
    loop {
        let (matches, command) = current;
        for id in matches.ids() {
            let id = id.as_str();
            if matches!(
                matches.value_source(id),
                None | Some(clap::parser::ValueSource::DefaultValue)
            ) {
                continue;
            }
            let Ok(Some(values)) = matches.try_get_raw(id) else {
                continue;
            };
            if values.into_iter().any(|v| v == "-") {
                let name = command
                    .get_arguments()
                    .find(|a| a.get_id() == id)
                    .map(|a| match a.get_long() {
                        Some(long) => format!("--{long}"),
                        None => a
                            .get_value_names()
                            .and_then(|n| n.first())
                            .map_or_else(|| id.to_string(), std::string::ToString::to_string),
                    })
                    .unwrap_or_else(|| id.to_string());
                if !readers.contains(&name) {
                    readers.push(name);
                }
            }
        }
        match matches.subcommand() {
            Some((name, sub)) => match command.find_subcommand(name) {
                Some(next) => current = (sub, next),
                None => break,
            },
            None => break,
        }
    }
    if readers.len() > 1 {
        let named: Vec<String> = readers.iter().map(|r| format!("{r} -")).collect();
        return Err(CliError::usage(format!(
            "{} all read standard input, which holds one input: give the others a file",
            named.join(" and ")
        )));
    }
    Ok(())
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
        Command::Drift(args) => return drift::run(args),
        Command::Completions(args) => return completions::print(args.shell),
        Command::Auth(args) => return auth::run(&global, format, args).await,
        Command::Sandbox(args) => match args.command {
            cli::SandboxCommand::Reset => return sandbox_store::reset(&global).await,
        },
        Command::Api(args) => {
            let connection = connect::connect(&global).await?;
            let printer = Printer::new(format, stderr_is_terminal());
            let result = api::run(&connection.admin, &printer, args).await;
            return connection.finish(result);
        }
    };
    let operations = match generated_cli::without_client(operations) {
        Ok(receiver) => return webhook::run(format, receiver).await,
        Err(operations) => operations,
    };
    let connection = connect::connect(&global).await?;
    let printer = Printer::new(format, stderr_is_terminal());
    let ctx = Ctx {
        admin: connection.admin.clone(),
        printer,
        concurrency: usize::from(global.concurrency),
        store: Some(connect::store_id(&global)),
    };
    let result = generated_cli::run(&ctx, operations).await;
    connection.finish(result)
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
        crate::note!(
            "warning: {operation} is deprecated: the service replaced it with {new} \
             (`store-admin {instead}`)"
        );
    }
}

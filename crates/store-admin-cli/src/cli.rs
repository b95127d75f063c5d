//! The command tree: global options, the generated operation commands (one group per tag of the
//! document, one command per operation: `generated_cli.rs`, written by `cargo xtask generate`),
//! plus the hand-written `api`, `decode`, `completions` and webhook receiver tools.
//!
//! What the document already says is not repeated: [`command`] sets each operation command's
//! `about` from the document's summary and adds its `operationId`, method, path, scopes and
//! deprecation from [`store_admin::OPERATIONS`], through the generated [`OPERATION_COMMANDS`]
//! table. Tests check that every operation of the document has a command and that every parameter
//! and body field of the document has a flag.

use clap::{CommandFactory, Parser, Subcommand};
use store_admin::OperationMeta;

pub use crate::generated_cli::OPERATION_COMMANDS;
// Where 0.1.0 had them: each command's arguments now live beside the command, and the options
// every command takes in `global.rs`.
pub use crate::api::ApiArgs;
pub use crate::body::BodyArg;
pub use crate::commands::{PageArgs, WaitArgs};
pub use crate::completions::CompletionsArgs;
pub use crate::global::{Format, Global, StoreLocation, enum_values};
pub use crate::webhook::{ListenArgs, VerifyArgs};

/// The command path of an operation, e.g. `shipments list` for `list_shipments`.
pub fn command_for(operation_id: &str) -> Option<&'static str> {
    OPERATION_COMMANDS
        .iter()
        .find(|(_, id)| *id == operation_id)
        .map(|(path, _)| *path)
}

/// The clap command of the whole tree, each operation command decorated from the document.
///
/// The global options are listed once, by `store-admin --help`: every other command's help
/// leaves them out (they are still accepted and completed there) and ends with a line saying
/// where they are.
pub fn command() -> clap::Command {
    let mut root = Cli::command();
    for (path, operation_id) in OPERATION_COMMANDS {
        let Some(meta) = OperationMeta::find(operation_id) else {
            continue;
        };
        let words: Vec<&str> = path.split(' ').collect();
        root = decorate(root, &words, meta);
    }
    // Each command gets its own copy of the global options, hidden from its help (clap then
    // copies none of its own: a command that has an option keeps it).
    let globals: Vec<clap::Arg> = root
        .get_arguments()
        .filter(|a| a.is_global_set())
        .map(|a| a.clone().hide_short_help(true).hide_long_help(true))
        .collect();
    let names: Vec<String> = root
        .get_arguments()
        .filter(|a| a.is_global_set() && !a.is_hide_set())
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .take(6)
        .collect();
    let pointer = format!(
        "Global options ({}, ...): see `store-admin --help`.",
        names.join(", ")
    );
    let subcommands: Vec<String> = root
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in subcommands {
        // One display order for all: clap then lists the commands by name (the document's
        // groups came in its order, `products` 32nd).
        root = root.mut_subcommand(name, |sub| {
            without_globals(sub, &globals, &pointer).display_order(0)
        });
    }
    root
}

/// `cmd` and the commands below it with the global options left out of their help, and a
/// pointer to them at the end.
fn without_globals(cmd: clap::Command, globals: &[clap::Arg], pointer: &str) -> clap::Command {
    let mut cmd = cmd;
    for arg in globals {
        if !cmd.get_arguments().any(|a| a.get_id() == arg.get_id()) {
            cmd = cmd.arg(arg.clone());
        }
    }
    let after = match cmd.get_after_help() {
        Some(text) => format!("{text}\n\n{pointer}"),
        None => pointer.to_string(),
    };
    cmd = cmd.after_help(after);
    let subcommands: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in subcommands {
        cmd = cmd.mut_subcommand(name, |sub| without_globals(sub, globals, pointer));
    }
    cmd
}

fn decorate(cmd: clap::Command, words: &[&str], meta: &'static OperationMeta) -> clap::Command {
    match words {
        [] => {
            let mut about = meta.summary.to_string();
            if meta.deprecated && !about.contains("replaced") {
                about.push_str(" [deprecated]");
            }
            let mut details = format!(
                "Operation: {} ({} {})\nScopes (any one): {}",
                meta.operation_id,
                meta.method,
                meta.path,
                meta.scopes.join(", ")
            );
            if let Some(new) = meta.replaced_by {
                let instead = command_for(new).unwrap_or(new);
                details.push_str(&format!(
                    "\nDeprecated: the service replaced it; use `store-admin {instead}`."
                ));
            }
            // What it does, then its operation and scopes, then its own flags.
            cmd.about(about)
                .before_help(details)
                .help_template(OPERATION_HELP)
        }
        [first, rest @ ..] => {
            let first = first.to_string();
            cmd.mut_subcommand(first, |sub| decorate(sub, rest, meta))
        }
    }
}

/// The help of an operation command: what it does, its operation and scopes (`before_help`),
/// usage, its own arguments, then `after_help`.
const OPERATION_HELP: &str =
    "{about-with-newline}\n{before-help}{usage-heading} {usage}\n\n{all-args}{after-help}";

/// `store-admin`: the store administration API from the command line.
#[derive(Parser)]
#[command(
    name = "store-admin",
    version,
    about = "The store administration API (/admin/v2) from the command line.",
    long_about = "The store administration API (/admin/v2) from the command line.\n\n\
        Try it with no credentials against the embedded sandbox store:\n  \
        store-admin --sandbox orders list",
    after_help = "Exit codes: 0 success, 1 other failure (or an invalid webhook delivery), \
        2 usage, 3 the service refused the request (4xx), 4 the service was unreachable or \
        failed (5xx) after retries, 5 an export skipped records or ended short of the list's \
        total, 6 a time limit ran out (--wait-timeout, --job-timeout).",
    max_term_width = 100
)]
pub struct Cli {
    /// Options shared by every command.
    #[command(flatten)]
    pub global: Global,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}
/// The commands: the operations of the document, and the hand-written tools. Non-exhaustive: a
/// new command is a new variant, which must not break a program that matches on these.
#[derive(Subcommand)]
#[non_exhaustive]
pub enum Command {
    /// The operations of the document, one group per tag.
    #[command(flatten)]
    Operations(crate::generated_cli::Operations),
    /// Send a request to any path of the API, like `gh api`.
    Api(ApiArgs),
    /// Check a body against the document's type of an operation (when the service drifts).
    Decode(crate::decode::DecodeArgs),
    /// The drift of many captured answers, as one report (habits and undeclared fields by path).
    Drift(crate::drift::DriftArgs),
    /// Print a shell completion script: `source <(store-admin completions bash)`.
    Completions(CompletionsArgs),
    /// Log in to a merchant store with OAuth, and manage the stored tokens.
    Auth(crate::auth::AuthArgs),
    /// Manage the sandbox's store (kept between --sandbox commands).
    Sandbox(SandboxArgs),
}

/// `store-admin sandbox ...`.
#[derive(clap::Args)]
#[command(
    long_about = "Manage the sandbox's store. `--sandbox` commands keep it between them, in \
        $XDG_STATE_HOME/store-admin/sandbox/<store>.json (else ~/.local/state/...): a product \
        created by one is found by the next. STORE_ADMIN_SANDBOX_STATE names another file, or is \
        `none` for a fresh store every command; a command waits up to STORE_ADMIN_SANDBOX_WAIT \
        seconds (10) for another to release the store, then says it is busy."
)]
pub struct SandboxArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: SandboxCommand,
}

/// The `sandbox` commands.
#[derive(Subcommand)]
pub enum SandboxCommand {
    /// Start over: delete the kept store, so that the next `--sandbox` command starts from the
    /// seeded one.
    Reset,
}

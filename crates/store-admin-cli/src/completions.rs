//! Shell completion: `store-admin completions SHELL` prints a small script that registers the
//! binary itself as the shell's completer. On each TAB the shell runs `store-admin` with
//! `COMPLETE=SHELL` and the words typed so far, and clap_complete's engine answers from the
//! command tree ([`crate::cli::command`]): command words at any depth, flags, the possible and
//! known values of a flag, paths. The script stays small whatever the size of the tree, and never
//! goes stale against the binary.

use std::io::Write;

use clap::Args;
use clap_complete::env::{EnvCompleter, Shells};

use crate::error::CliError;

/// The environment variable that turns a run into a completion request (clap_complete's
/// default, which [`clap_complete::CompleteEnv`] in [`crate::main`] reads).
pub const VAR: &str = "COMPLETE";

/// Prints the registration script of `shell` on standard output.
pub fn print(shell: clap_complete::Shell) -> Result<(), CliError> {
    let mut out = Vec::new();
    write(shell, &completer(), &mut out)?;
    crate::output::write_stdout(&out)
}

/// The registration script of `shell`, running `completer` to complete `store-admin`.
pub fn write(
    shell: clap_complete::Shell,
    completer: &str,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let name = shell.to_string();
    let shells = Shells::builtins();
    let engine: &dyn EnvCompleter = shells
        .completer(&name)
        .ok_or_else(|| CliError::usage(format!("no completion for the shell {name}")))?;
    engine.write_registration(VAR, "store-admin", "store-admin", completer, out)?;
    Ok(())
}

/// How the script runs this binary: as it was run (found on `PATH` by its name), or by its
/// absolute path when it was run by a path (`./target/debug/store-admin`).
fn completer() -> String {
    let Some(arg0) = std::env::args_os().next() else {
        return "store-admin".to_string();
    };
    let path = std::path::PathBuf::from(arg0);
    let path = if path.components().count() > 1 {
        std::env::current_dir()
            .map(|dir| dir.join(&path))
            .unwrap_or(path)
    } else {
        path
    };
    path.to_string_lossy().into_owned()
}

/// `completions SHELL`
#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

//! `cargo xtask`: project automation for the store-admin workspace.
//!
//! - `cargo xtask generate [--check]`: lint the OpenAPI document, run progenitor on it and on
//!   every fixture, and write (or, with `--check`, compare) the generated files.
//! - `cargo xtask lint`: only the lint.
//! - `cargo xtask summary`: one line per operation, read back from the generated client code.
//! - `cargo xtask openapi bundle|diff <ref>`: publish the document to other teams (see `openapi.rs`).

#![forbid(unsafe_code)]

mod areas;
mod cli_gen;
mod generate;
mod hand_written;
mod lint;
mod openapi;
mod rewrite;
mod split;
mod summary;
mod values;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};

/// The OpenAPI document, relative to the workspace root.
pub const SPEC: &str = "openapi/store-admin.yaml";

#[derive(Parser)]
#[command(
    name = "xtask",
    bin_name = "cargo xtask",
    about = "Project automation for the store-admin workspace"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Lint the document, then generate the client and the fixture clients.
    Generate {
        /// Write nothing; fail with a diff if a generated file is stale.
        #[arg(long)]
        check: bool,
    },
    /// Lint openapi/store-admin.yaml and the fixtures.
    Lint,
    /// Print one line per operation, derived from the generated client code.
    Summary,
    /// Publish the document: `bundle` (YAML, JSON, offline HTML) or `diff <git-ref>`.
    Openapi {
        #[command(subcommand)]
        command: openapi::Command,
    },
}

fn main() -> std::process::ExitCode {
    match run(Cli::parse().command) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> Result<()> {
    let root = workspace_root();
    match command {
        Command::Generate { check } => generate::run(&root, check),
        Command::Lint => {
            let mut failures = Vec::new();
            match Document::load(&root, SPEC).and_then(|d| generate::lint_client(&d)) {
                Ok(()) => println!("ok        {SPEC}"),
                Err(e) => failures.push(format!("{e:#}")),
            }
            for rel_path in &generate::fixtures(&root)? {
                match Document::load(&root, rel_path).and_then(|d| d.lint()) {
                    Ok(()) => println!("ok        {rel_path}"),
                    Err(e) => failures.push(format!("{e:#}")),
                }
            }
            if !failures.is_empty() {
                bail!("{}", failures.join("\n"));
            }
            Ok(())
        }
        Command::Openapi { command } => openapi::run(&root, command),
        Command::Summary => {
            print!("{}", summary::summarize_client(&root)?);
            Ok(())
        }
    }
}

/// The workspace root: the parent of this crate's directory, whatever the current directory.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// An OpenAPI document as text, as a parsed [`openapiv3::OpenAPI`] and as a raw JSON value.
pub struct Document {
    /// Path relative to the workspace root, with `/` separators (used in messages and headers).
    pub rel_path: String,
    /// The file's exact bytes (hashed into the generated headers).
    pub text: String,
    /// The typed document.
    pub spec: openapiv3::OpenAPI,
    /// The same document as a JSON value, for rules that walk every node.
    pub raw: serde_json::Value,
}

impl Document {
    /// Reads and parses `rel_path` (relative to `root`).
    pub fn load(root: &Path, rel_path: &str) -> Result<Self> {
        let text = std::fs::read_to_string(root.join(rel_path))
            .with_context(|| format!("reading {rel_path}"))?;
        Self::parse(rel_path, text)
    }

    /// Parses a document held in memory; `rel_path` only names it in messages.
    pub fn parse(rel_path: &str, text: String) -> Result<Self> {
        let raw =
            serde_yaml::from_str(&text).with_context(|| format!("{rel_path}: not valid YAML"))?;
        let spec = serde_yaml::from_str(&text)
            .with_context(|| format!("{rel_path}: not a valid OpenAPI 3.0 document"))?;
        Ok(Self {
            rel_path: rel_path.to_owned(),
            text,
            spec,
            raw,
        })
    }

    /// Runs the lint; an error lists every problem as `<file>: <pointer>: <message>`.
    pub fn lint(&self) -> Result<()> {
        let problems = lint::lint(&self.spec, &self.raw);
        if problems.is_empty() {
            return Ok(());
        }
        let lines: Vec<String> = problems
            .iter()
            .map(|p| format!("{}: {p}", self.rel_path))
            .collect();
        bail!(
            "{} lint problem(s) in {}:\n{}",
            problems.len(),
            self.rel_path,
            lines.join("\n")
        )
    }
}

//! `cargo xtask`: project automation for the store-admin workspace.
//!
//! - `cargo xtask generate [--check]`: lint the OpenAPI document, run progenitor on it and on
//!   every fixture, and write (or, with `--check`, compare) the generated files.
//! - `cargo xtask lint`: only the lint.
//! - `cargo xtask summary`: one line per operation, read back from the generated client code.
//! - `cargo xtask bench-build`: build times of the generated client against document 2.0.0.
//! - `cargo xtask openapi bundle|diff <ref>`: publish the document to other teams (see `openapi.rs`).
//! - `cargo xtask drift apply REPORT.json...`: drift reports become a proposed document change (see
//!   `drift.rs`).

#![forbid(unsafe_code)]

mod additive;
mod areas;
mod bench_build;
mod cli_gen;
mod conventions;
mod document;
mod drift;
mod generate;
mod hand_written;
mod lint;
mod model;
mod modify;
mod names;
mod openapi;
mod operation_impls;
mod readmes;
mod render;
mod rewrite;
mod schema;
mod setters;
mod split;
mod summary;
mod unions;
mod uploads;
mod values;
mod yaml;

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::{Parser, Subcommand};

use document::{Document, SPEC, workspace_root};

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
    /// Time the client's builds (clean, one-line change of a schema) and `generate`, as ratios
    /// against the baseline revision measured in the same run.
    BenchBuild {
        /// The git revision to compare with (default: main with document 2.0.0).
        #[arg(long, default_value = bench_build::BASELINE_2_0_0)]
        baseline: String,
        /// The target directory both copies share (default: target/bench-build; kept, so that
        /// dependencies are built once across runs).
        #[arg(long)]
        target_dir: Option<PathBuf>,
    },
    /// Publish the document: `bundle` (YAML, JSON, offline HTML) or `diff <git-ref>`.
    Openapi {
        #[command(subcommand)]
        command: openapi::Command,
    },
    /// Drift reports of live answers: `apply` turns them into a proposed document change.
    Drift {
        #[command(subcommand)]
        command: drift::Command,
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
            match Document::load(&root, SPEC).and_then(|d| generate::lint_main(&root, &d)) {
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
        Command::Drift { command } => drift::run(&root, command),
        Command::BenchBuild {
            baseline,
            target_dir,
        } => bench_build::run(
            &root,
            &bench_build::Options {
                baseline,
                target_dir,
            },
        ),
        Command::Summary => {
            print!("{}", summary::summarize_client(&root)?);
            Ok(())
        }
    }
}

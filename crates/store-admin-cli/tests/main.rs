//! The CLI's integration tests: one test binary, each file below a module of it.
//!
//! One binary per crate, not one per file: each binary links the whole workspace (about 160 MB
//! in a debug build), so one per file filled CI's disk (`ld` killed by SIGBUS, with 40-odd
//! binaries linking side by side); one is linked once. nextest still runs each test in a process
//! of its own.

mod common;

mod auth;
mod bad_hour;
mod completion;
mod config;
mod documented_examples;
mod exports;
mod flags;
mod generated_tables;
mod hardening;
mod help;
mod help_leaks;
mod inputs;
mod jobs;
mod journal;
mod kept_sandbox;
mod language;
mod new_user;
mod paging;
mod rate_limit;
mod sandbox;
mod scripts;
mod sealed_tokens;
mod tables;
mod token_redirects;
mod updates;
mod uploads;
mod webhooks;

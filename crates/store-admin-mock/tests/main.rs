//! The mock store's integration tests: one test binary, each file below a module of it.
//!
//! One binary per crate, not one per file: each binary links the whole workspace (about 160 MB
//! in a debug build), so one per file filled CI's disk (`ld` killed by SIGBUS, with 40-odd
//! binaries linking side by side); one is linked once. nextest still runs each test in a process
//! of its own.

mod common;

mod abuse;
mod auth;
mod concurrency;
mod conformance;
mod consistency;
mod crud;
mod drift;
mod examples;
mod faults;
mod forms;
mod language;
mod oauth;
mod orders;
mod paging;
mod proxy_bounds;
mod sandbox;
mod state;
mod tool;
mod walk;
mod webhooks;
mod workflows;
mod writes;

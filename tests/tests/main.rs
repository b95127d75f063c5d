//! The end-to-end tests across the workspace's crates: one test binary, each file below a module of it.
//!
//! One binary per crate, not one per file: each binary links the whole workspace (about 160 MB
//! in a debug build), so one per file filled CI's disk (`ld` killed by SIGBUS, with 40-odd
//! binaries linking side by side); one is linked once. nextest still runs each test in a process
//! of its own.

mod client_e2e;
mod drift_e2e;
mod fairness;
mod fleet;
mod inbox;
mod install;
mod merchants;
mod oauth_e2e;
mod observability;
mod observability_spans;
mod redis_stores;
mod sealed_stores;

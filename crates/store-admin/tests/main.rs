//! The ergonomics crate's integration tests: one test binary, each file below a module of it.
//!
//! One binary per crate, not one per file: each binary links the whole workspace (about 160 MB
//! in a debug build), so one per file filled CI's disk (`ld` killed by SIGBUS, with 40-odd
//! binaries linking side by side); one is linked once. nextest still runs each test in a process
//! of its own.

mod corpus;
mod decode_errors;
mod deep_answers;
mod drift;
mod error_classes;
mod hand_written;
mod inbox;
mod language;
mod modify;
mod new_service;
mod no_secrets;
mod oauth_refresh;
mod pagination;
mod threads;
mod token_redirects;
mod typed_errors;
mod values_samples;
mod waiters;
mod webhooks;

//! The `customers` area of the generated client of the store administration API: customers,
//! customer groups, wallets, loyalty points and reviews.
//!
//! `src/generated.rs` is written by `cargo xtask generate` (the area's operations, as the trait
//! [`CustomersApi`] of the core crate's `Client`, their builders, and the schemas only this area uses;
//! shared schemas are `store_admin_client_core::types`). Use it through `store-admin-client` or
//! `store-admin` with the feature `customers` (on by default).

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[rustfmt::skip]
#[allow(missing_docs, unused_imports, unreachable_patterns, clippy::all, clippy::pedantic, rustdoc::all)]
mod generated;
pub use generated::*;

//! The `shipping` area of the generated client of the store administration API: shipments, shipping
//! companies, routes and zones, branches, their allocations and delivery zones.
//!
//! `src/generated.rs` is written by `cargo xtask generate` (the area's operations, as the trait
//! [`ShippingApi`] of the core crate's `Client`, their builders, and the schemas only this area uses;
//! shared schemas are `store_admin_client_core::types`). Use it through `store-admin-client` or
//! `store-admin` with the feature `shipping` (on by default).

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[rustfmt::skip]
#[allow(missing_docs, unused_imports, unreachable_patterns, clippy::all, clippy::pedantic, rustdoc::all)]
mod generated;
pub use generated::*;

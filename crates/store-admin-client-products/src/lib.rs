//! The `products` area of the generated client of the store administration API: products, their
//! images, options, values, quantities, tags and variants, digital products, brands and categories.
//!
//! `src/generated.rs` is written by `cargo xtask generate` (the area's operations, as the trait
//! [`ProductsApi`] of the core crate's `Client`, their builders, and the schemas only this area uses;
//! shared schemas are `store_admin_client_core::types`). Use it through `store-admin-client` or
//! `store-admin` with the feature `products` (on by default).

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[rustfmt::skip]
#[allow(missing_docs, unused_imports, unreachable_patterns, clippy::all, clippy::pedantic, rustdoc::all)]
mod generated;
pub use generated::*;

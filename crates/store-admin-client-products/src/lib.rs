#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[rustfmt::skip]
#[allow(missing_docs, unused_imports, unreachable_patterns, clippy::all, clippy::pedantic, rustdoc::all)]
mod generated;
pub use generated::*;

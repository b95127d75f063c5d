#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

#[macro_use]
mod open_enum;

#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod generated_values;

pub mod call;
mod client;
pub mod credentials;
pub mod error;
pub mod fair;
pub mod hand_written;
pub mod inbox;
pub mod language;
pub mod merchants;
#[cfg(feature = "metrics")]
pub mod metrics;
pub mod multipart;
pub mod pagination;
pub mod ratelimit;
pub mod redirect;
pub mod retry;
mod runtime;
pub mod service;
pub mod values;
/// The extension traits of [`values`]; also `store_admin::values::ext`.
pub use values::ext;
#[cfg(feature = "store")]
pub mod waiters;
pub mod webhooks;

pub use call::{Call, CallFull};
pub use client::{
    DEFAULT_MAX_RESPONSE_BYTES, LIVE_ACCOUNTS_URL, LIVE_BASE_URL, StoreAdmin, StoreAdminBuilder,
};
pub use credentials::{AuthError, Credentials};
pub use error::{ApiError, Error, TransportError, TransportKind};
pub use language::{Language, LanguageError};
pub use merchants::{Merchants, OAuthApp};
pub use pagination::{
    Checkpoint, Consistency, ConsistencyReport, Page, PageOptions, Paginate, Skipped, Undecodable,
    UndecodableRecord,
};
pub use runtime::{RawResponse, Runtime};
pub use store_admin_client::{
    Client, HAND_WRITTEN, HandWritten, OPERATIONS, OperationMeta, ResponseValue, builder, types,
};

/// The `Client` and the traits of the enabled areas (`OrdersApi`, `ProductsApi`, ...) that make
/// every operation of the document a method, with [`Call`] and [`Paginate`]:
/// `use store_admin::prelude::*;` then `admin.list_orders().call().await`.
pub mod prelude {
    pub use crate::{Call, CallFull, Paginate, StoreAdmin};
    pub use store_admin_client::prelude::*;
}

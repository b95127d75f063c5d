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
pub mod drift;
pub mod error;
pub mod fair;
pub mod hand_written;
pub mod inbox;
pub mod language;
pub mod merchants;
#[cfg(feature = "metrics")]
pub mod metrics;
pub mod modify;
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
pub use modify::Modified;
pub use pagination::{
    Checkpoint, Consistency, ConsistencyReport, Page, PageOptions, Paginate, Skipped, Undecodable,
    UndecodableRecord,
};
pub use runtime::{RawResponse, Runtime};
pub use store_admin_client::{
    Client, HAND_WRITTEN, HandWritten, OPERATIONS, OperationMeta, ResponseValue, builder, types,
};
/// What the generated setters take: `IntoOptional<X>` (an optional field), `IntoList<X>` (a list
/// field or filter: one value or many), `IntoValue<X>` (a date, or its text).
pub use store_admin_client::{IntoList, IntoOptional, IntoValue};

// The crates whose types appear in this crate's signatures, at the versions it was built with: a
// service names `store_admin::http::HeaderMap` or `store_admin::SecretString` and needs no
// version of its own to match (two versions of `secrecy` give two `SecretString`s that do not mix).
pub use chrono;
pub use http;
pub use reqwest;
pub use rust_decimal;
/// An exact decimal (`rust_decimal`'s): what [`values::Money`] holds, and what an amount field of
/// a request takes.
pub use rust_decimal::Decimal;
pub use secrecy;
/// Secrets (webhook secrets, tokens) are held as `secrecy`'s `SecretString`; `ExposeSecret` reads one.
pub use secrecy::{ExposeSecret, SecretString};
pub use serde_json;
pub use url;

/// The `Client` and the traits of the enabled areas (`OrdersApi`, `ProductsApi`, ...) that make
/// every operation of the document a method, with [`Call`] and [`Paginate`]:
/// `use store_admin::prelude::*;` then `admin.list_orders().call().await`.
///
/// The extension traits of [`ext`] (`order.status_slug()`, `money.decimal()`, ...) are in it too,
/// and `ExposeSecret` (to read a [`SecretString`]).
pub mod prelude {
    #[cfg(feature = "orders")]
    pub use crate::values::ext::OrderExt;
    pub use crate::values::ext::{DecimalExt, MoneyExt, PaginationExt, ServiceDateTimeExt};
    #[cfg(feature = "shipping")]
    pub use crate::values::ext::{ShipmentExt, ShipmentLabelExt};
    pub use crate::{Call, CallFull, Paginate, StoreAdmin};
    pub use secrecy::ExposeSecret;
    pub use store_admin_client::prelude::*;
}

#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[macro_use]
mod open_enum;

mod client;
pub mod credentials;
pub mod error;
pub mod ext;
pub mod pagination;
pub mod ratelimit;
pub mod retry;
pub mod values;
pub mod webhooks;

pub use client::{LIVE_BASE_URL, RawResponse, Runtime, StoreAdmin, StoreAdminBuilder};
pub use credentials::Credentials;
pub use error::{ApiError, Error, TransportKind};
pub use pagination::{Page, PageOptions, Paginate};
pub use store_admin_client::{
    Client, HAND_WRITTEN, HandWritten, OPERATIONS, OperationMeta, ResponseValue, builder, types,
};

/// The operations of [`HAND_WRITTEN`] (those progenitor cannot generate: multipart uploads, a path
/// on another host) that this crate reaches by a hand-written method going through the same
/// interceptor, by `operationId`. `tests/hand_written.rs` fails while one of them has none.
pub const HAND_WRITTEN_METHODS: &[&str] = &[];

/// The `Client` and the traits of the enabled areas (`OrdersApi`, `ProductsApi`, ...) that make
/// every operation of the document a method: `use store_admin::prelude::*;` then
/// `admin.list_orders().send().await`.
pub mod prelude {
    pub use crate::{Paginate, StoreAdmin};
    pub use store_admin_client::prelude::*;
}

#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[macro_use]
mod open_enum;

mod client;
pub mod credentials;
pub mod error;
pub mod ext;
pub mod merchants;
pub mod pagination;
pub mod ratelimit;
pub mod retry;
pub mod values;
pub mod webhooks;

pub use client::{LIVE_BASE_URL, RawResponse, Runtime, StoreAdmin, StoreAdminBuilder};
pub use credentials::{AuthError, Credentials};
pub use error::{ApiError, Error, TransportKind};
pub use merchants::{Merchants, OAuthApp};
pub use pagination::{Page, PageOptions, Paginate};
pub use store_admin_client::{Client, OPERATIONS, OperationMeta, ResponseValue, builder, types};

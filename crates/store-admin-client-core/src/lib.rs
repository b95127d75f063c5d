#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

#[rustfmt::skip]
#[allow(missing_docs, unused_imports, unreachable_patterns, clippy::all, clippy::pedantic, rustdoc::all)]
mod generated;
pub use generated::*;

mod decode;
mod depth;
pub mod drift;
pub mod lenient;

pub use decode::{BodyError, DecodeError, decode_slice, read_body};
pub use depth::{MAX_DEPTH, TooDeep, check_depth, check_depth_within};

/// A boxed future, as returned by [`Interceptor`] methods.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The one interception point every request of the generated [`Client`] passes through.
///
/// The generated client calls [`progenitor_client::ClientHooks`], which the orphan rule only lets
/// this crate implement; the implementation below delegates to the `Interceptor` held by the
/// client's [`Inner`]. `crates/store-admin` implements it (authentication, rate limiting, retries,
/// tracing), so that even a call made through the raw generated builder gets the same behaviour.
pub trait Interceptor: Send + Sync + 'static {
    /// Authenticates and sends the request (possibly several times), and returns the response
    /// to decode, or why the call ended without one.
    ///
    /// A [`Refusal`] reaches the generated builder's caller as progenitor's
    /// [`Error::Custom`], with the refusal's message (progenitor's hooks can return no other
    /// error of their own); an interceptor that has a typed error to give keeps it for its caller
    /// itself (`store-admin`'s `call()` takes it back whole).
    fn execute<'a>(
        &'a self,
        client: &'a reqwest::Client,
        request: reqwest::Request,
        operation: &'a progenitor_client::OperationInfo,
    ) -> BoxFuture<'a, Result<reqwest::Response, Refusal>>;
}

/// Why an [`Interceptor`] ended a call without a response: the generated builder fails with
/// progenitor's [`Error::Custom`] carrying [`Refusal::message`]. This crate holds only what the
/// hooks below need (they must be implemented here, beside [`Client`]); `store-admin`'s
/// `runtime/handoff.rs` owns the rest of the hand-off and says why it is made so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    message: String,
}

impl Refusal {
    /// A refusal that the caller reads as `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// What the caller reads.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Refusal {}

/// The state the generated [`Client`] carries for its hooks: an optional [`Interceptor`].
#[derive(Clone, Default)]
pub struct Inner {
    interceptor: Option<Arc<dyn Interceptor>>,
}

impl Inner {
    /// No interception: requests go straight to `reqwest`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every request passes through `interceptor`.
    pub fn with_interceptor(interceptor: Arc<dyn Interceptor>) -> Self {
        Self {
            interceptor: Some(interceptor),
        }
    }
}

impl fmt::Debug for Inner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inner")
            .field("interceptor", &self.interceptor.as_ref().map(|_| ".."))
            .finish()
    }
}

/// The header progenitor adds to every request, which the service does not read.
const API_VERSION: http::HeaderName = http::HeaderName::from_static("api-version");

/// progenitor's hooks, as the generated code calls them for every request: `pre`, `exec`, then
/// `post` with what `exec` answered, before the status is looked at.
///
/// `exec` can only answer a response or a `reqwest::Error`: an interceptor's [`Refusal`] is
/// answered as a response that carries it (status 500, no body, the refusal in its extensions),
/// which `post` turns into [`Error::Custom`] before anything reads it.
impl progenitor_client::ClientHooks<Inner> for Client {
    /// Takes progenitor's `api-version` header off: progenitor sends the document's
    /// `info.version` on every request, and the service versions its API by the path only
    /// (`/admin/v2`) and reads no such header.
    async fn pre<E>(
        &self,
        request: &mut reqwest::Request,
        _info: &progenitor_client::OperationInfo,
    ) -> Result<(), Error<E>> {
        request.headers_mut().remove(API_VERSION);
        Ok(())
    }

    async fn exec(
        &self,
        request: reqwest::Request,
        info: &progenitor_client::OperationInfo,
    ) -> reqwest::Result<reqwest::Response> {
        match &self.inner.interceptor {
            Some(interceptor) => match interceptor.execute(&self.client, request, info).await {
                Ok(response) => Ok(response),
                Err(refusal) => {
                    let mut response = http::Response::new(reqwest::Body::from(""));
                    *response.status_mut() = http::StatusCode::INTERNAL_SERVER_ERROR;
                    response.extensions_mut().insert(refusal);
                    Ok(reqwest::Response::from(response))
                }
            },
            None => self.client.execute(request).await,
        }
    }

    async fn post<E>(
        &self,
        result: &reqwest::Result<reqwest::Response>,
        _info: &progenitor_client::OperationInfo,
    ) -> Result<(), Error<E>> {
        match result
            .as_ref()
            .ok()
            .and_then(|response| response.extensions().get::<Refusal>())
        {
            Some(refusal) => Err(Error::Custom(refusal.message.clone())),
            None => Ok(()),
        }
    }
}

/// One operation of the document, ready to send: `cargo xtask generate` implements it for the
/// builder of every operation (in its area's crate), from the builder's own `send`, as it
/// implements [`PagedRequest`] for the lists. `store-admin`'s `call()` sends any of them and
/// answers its typed body or one error type.
pub trait Operation<'a>: Send + Sized + 'a {
    /// The body of a success (`()` for an operation that answers none).
    type Output: Send + 'static;
    /// The body of the error answers the document declares.
    type ErrorBody: Send + 'static;
    /// The operation's `operationId`.
    const OPERATION_ID: &'static str;
    /// The one status whose body the builder's `send` decodes as [`Operation::Output`] from JSON
    /// (read off progenitor's status arms by `cargo xtask generate`): code that holds the body's
    /// bytes decodes an answer of this status itself, as `send` would. `None` (the default) for
    /// an operation with several such statuses, none (an empty success), or a file.
    const JSON_SUCCESS: Option<u16> = None;
    /// Sends the request: the builder's `send`.
    fn send_operation(self) -> Sent<'a, Self::Output, Self::ErrorBody>;

    /// Hands `visitor` the type a success body decodes as, for code that holds the body's bytes
    /// beside [`Operation::Output`] without a `DeserializeOwned` bound on it (the client's drift
    /// count of `call_full()`): [`SuccessBody::json`] with the type for a JSON body, or
    /// [`SuccessBody::not_json`] (the default) for a body that is a file (a `ByteStream`).
    fn success_body<V: SuccessBody>(visitor: V) -> V::Answer {
        visitor.not_json()
    }
}

/// What [`Operation::success_body`] calls: one method for a body the document declares as JSON,
/// generic over the type it decodes as, one for a body that is not JSON.
pub trait SuccessBody {
    /// What the visitor answers.
    type Answer;
    /// The success body is a JSON document of type `T`.
    fn json<T: serde::de::DeserializeOwned + 'static>(self) -> Self::Answer;
    /// The success body is not a JSON document (a file the operation streams).
    fn not_json(self) -> Self::Answer;
}

/// `impl Operation for builder::$builder<'a>`: what `cargo xtask generate` writes for every
/// builder of an area, one line each (the builder's success and error types, its `operationId`,
/// and the status its JSON success is decoded for, when there is one).
#[doc(hidden)]
#[macro_export]
macro_rules! operation {
    // A download that streams: its body is a file, not a JSON document.
    ($builder:ident, ByteStream, $err:ty, $id:literal) => {
        impl<'a> $crate::Operation<'a> for builder::$builder<'a> {
            type Output = ByteStream;
            type ErrorBody = $err;
            const OPERATION_ID: &'static str = $id;
            fn send_operation(self) -> $crate::Sent<'a, ByteStream, $err> {
                Box::pin(self.send())
            }
        }
    };
    ($builder:ident, $ok:ty, $err:ty, $id:literal) => {
        impl<'a> $crate::Operation<'a> for builder::$builder<'a> {
            type Output = $ok;
            type ErrorBody = $err;
            const OPERATION_ID: &'static str = $id;
            fn send_operation(self) -> $crate::Sent<'a, $ok, $err> {
                Box::pin(self.send())
            }
            fn success_body<V: $crate::SuccessBody>(visitor: V) -> V::Answer {
                visitor.json::<$ok>()
            }
        }
    };
    // A JSON body decoded for one status only: that status.
    ($builder:ident, $ok:ty, $err:ty, $id:literal, $status:literal) => {
        impl<'a> $crate::Operation<'a> for builder::$builder<'a> {
            type Output = $ok;
            type ErrorBody = $err;
            const OPERATION_ID: &'static str = $id;
            const JSON_SUCCESS: Option<u16> = Some($status);
            fn send_operation(self) -> $crate::Sent<'a, $ok, $err> {
                Box::pin(self.send())
            }
            fn success_body<V: $crate::SuccessBody>(visitor: V) -> V::Answer {
                visitor.json::<$ok>()
            }
        }
    };
}

/// What an [`Operation`]'s `send_operation` answers: progenitor's `ResponseValue<T>` or its
/// `Error<E>`.
pub type Sent<'a, T, E> = BoxFuture<'a, Result<ResponseValue<T>, Error<E>>>;

/// What a paged list response carries: its items and the pagination object.
pub struct PageParts<T> {
    /// The items of the page, in order.
    pub items: Vec<T>,
    /// The pagination object, when the response had one.
    pub pagination: Option<types::Pagination>,
}

/// A list operation paged by number (`page`, `per_page`), whose response carries `data` and
/// `pagination`. `cargo xtask generate` implements it for the builder of every such operation of
/// the document (in its area's crate), so that one pagination stream serves them all.
pub trait PagedRequest<'a>: Clone + Send + Sized + 'a {
    /// One item of the list (decodable on its own: a page whose body does not decode whole is
    /// read again record by record).
    type Item: serde::de::DeserializeOwned + serde::Serialize + Send + 'static;
    /// The response envelope.
    type Response: serde::de::DeserializeOwned + Send + 'static;
    /// The operation's `operationId`.
    const OPERATION_ID: &'static str;
    /// The fields of an item that tell its records apart (the item schema's `x-record-key` in
    /// the document): `id` unless the document says otherwise (a product quantity is a row per
    /// variant, told apart by `id` and `sku_id`).
    const RECORD_KEY: &'static [&'static str] = &["id"];
    /// The same request for page `page` (from 1).
    fn with_page(self, page: std::num::NonZeroU64) -> Self;
    /// The same request with `per_page` items a page.
    fn with_per_page(self, per_page: std::num::NonZeroU64) -> Self;
    /// Sends the request.
    fn send_page(
        self,
    ) -> BoxFuture<'a, Result<ResponseValue<Self::Response>, Error<types::ErrorResponse>>>;
    /// Splits a response into its items and pagination object.
    fn into_parts(response: Self::Response) -> PageParts<Self::Item>;
}

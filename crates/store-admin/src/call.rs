//! `call()`: any operation sent, answered with its typed body or one [`Error`].
//!
//! `cargo xtask generate` implements [`Operation`] for the builder of every operation of the
//! document; [`Call`] is implemented once for all of them, and by hand for the hand-written
//! operations (uploads, the accounts host), so that every call reads the same:
//!
//! ```rust,no_run
//! use store_admin::prelude::*; // the operations, Call and Paginate
//! # async fn run(admin: store_admin::StoreAdmin) -> Result<(), store_admin::Error> {
//! let shipment = admin.get_shipment().shipment_id(42_i64).call().await?; // the typed body
//! println!("{:?}", shipment.data.status);
//! match admin.cancel_shipment().shipment_id(42_i64).call().await {
//!     Err(e) if e.is_not_found() => println!("no such shipment"),
//!     other => { other?; }
//! }
//! # Ok(()) }
//! ```
//!
//! The builders' own `send()` stays, for the status and headers of a success
//! (`ResponseValue`) and for the one download that streams (`export_custom_urls`, whose body is
//! a `ByteStream`, not a document: it has no `call()`).

use futures::future::BoxFuture;
use serde::de::DeserializeOwned;
use store_admin_client::Operation;

use crate::{Error, types};

/// Sends an operation and answers its typed body, or an [`Error`] naming the operation, with the
/// status and the service's envelope of an error answer, or the JSON path where a body does not
/// match the document. See the [module](crate::call).
pub trait Call<'a>: Sized {
    /// The body of a success.
    type Output;
    /// Sends the request (with the client's authentication, rate limiting, retries, timeouts and
    /// tracing) and reads the answer.
    fn call(self) -> BoxFuture<'a, Result<Self::Output, Error>>;
}

impl<'a, O> Call<'a> for O
where
    O: Operation<'a, ErrorBody = types::ErrorResponse>,
    O::Output: DeserializeOwned,
{
    type Output = O::Output;

    fn call(self) -> BoxFuture<'a, Result<O::Output, Error>> {
        Box::pin(async move {
            match self.send_operation().await {
                Ok(answer) => Ok(answer.into_inner()),
                Err(error) => Err(Error::from_progenitor::<O::Output>(
                    error,
                    Some(O::OPERATION_ID),
                )),
            }
        })
    }
}

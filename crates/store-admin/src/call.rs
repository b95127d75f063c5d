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
//! [`CallFull::call_full`] answers the same with the status and headers of a success
//! (progenitor's `ResponseValue`); it also sends the one download that streams
//! (`export_custom_urls`, whose body is a `ByteStream`, not a document: it has no `call()`). The
//! builders' own `send()` stays, with progenitor's error type: an error the runtime raises (an
//! error answer, a transport failure, no token) reaches it as `Error::Custom` with the message
//! only.

use std::future::Future;

use futures::future::BoxFuture;
use serde::de::DeserializeOwned;
use store_admin_client::{Operation, ResponseValue, SuccessBody};

use crate::drift::Sample;
use crate::runtime::handoff::{Kept, keeping_answer, keeping_failure};
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
        let count = |sample: Sample| sample.observe::<O::Output>(O::OPERATION_ID);
        let status = O::JSON_SUCCESS.and_then(|status| reqwest::StatusCode::from_u16(status).ok());
        Box::pin(async move {
            match status {
                Some(status) => {
                    decoded::<O::Output>(O::OPERATION_ID, status, self.send_operation(), count)
                        .await
                }
                None => sent::<O::Output, _>(O::OPERATION_ID, self.send_operation(), count)
                    .await
                    .map(ResponseValue::into_inner),
            }
        })
    }
}

/// Awaits `send` (a generated builder's `send`) and decodes an answer of `status` (the one the
/// operation's `send` decodes, [`Operation::JSON_SUCCESS`]) itself, from the bytes the runtime
/// read: the runtime keeps them for this caller ([`keeping_answer`]) instead of rebuilding a
/// response for the generated code to read again and decode (the same `serde_json::from_slice`
/// progenitor's `ResponseValue::from_response` makes). Any other answer goes through the
/// generated code, as [`sent`] takes it.
async fn decoded<T: DeserializeOwned + 'static>(
    operation: &'static str,
    status: reqwest::StatusCode,
    send: impl Future<Output = Result<ResponseValue<T>, progenitor_client::Error<types::ErrorResponse>>>,
    count: impl FnOnce(Sample),
) -> Result<T, Error> {
    let (sent, kept) = keeping_answer(status, send).await;
    if let Some(failure) = kept.failure {
        return Err(failure);
    }
    let result = match (kept.answer, sent) {
        (Some(body), _) => serde_json::from_slice::<T>(&body).map_err(|error| {
            Error::from_progenitor::<T>(
                progenitor_client::Error::InvalidResponsePayload(body, error),
                Some(operation),
            )
        }),
        (None, Ok(answer)) => Ok(answer.into_inner()),
        (None, Err(error)) => Err(Error::from_progenitor::<T>(error, Some(operation))),
    };
    if let (Ok(_), Some(sample)) = (&result, kept.sample) {
        count(sample);
    }
    result
}

/// Sends an operation as [`Call::call`] does, and answers its typed body with the status and
/// headers of the success (progenitor's `ResponseValue`), or the same [`Error`]; the way to send
/// an operation whose body is a file that streams (`export_custom_urls`).
pub trait CallFull<'a>: Sized {
    /// The body of a success.
    type Output;
    /// Sends the request and reads the answer, as [`Call::call`].
    fn call_full(self) -> BoxFuture<'a, Result<ResponseValue<Self::Output>, Error>>;
}

impl<'a, O> CallFull<'a> for O
where
    O: Operation<'a, ErrorBody = types::ErrorResponse>,
{
    type Output = O::Output;

    fn call_full(self) -> BoxFuture<'a, Result<ResponseValue<O::Output>, Error>> {
        // A body that does not decode is located in it as JSON (its type may not decode, a file).
        // The drift count reads it as the type the operation names for a JSON body, and skips a
        // file (`Operation::success_body`).
        Box::pin(sent::<serde_json::Value, _>(
            O::OPERATION_ID,
            self.send_operation(),
            |sample| O::success_body(Counting(sample, O::OPERATION_ID)),
        ))
    }
}

/// Counts a success body for the drift count as the type [`Operation::success_body`] names.
struct Counting(Sample, &'static str);

impl SuccessBody for Counting {
    type Answer = ();

    fn json<T: DeserializeOwned + 'static>(self) {
        self.0.observe::<T>(self.1);
    }

    fn not_json(self) {}
}

/// Awaits `send` (a generated builder's `send`) and answers its success, or this crate's [`Error`]:
/// the one the interceptor ended the call with, or progenitor's converted (a body that does not
/// decode located by reading it again as `T`). A success's body is handed to `count` when the
/// client's drift count is on.
async fn sent<T: DeserializeOwned + 'static, O>(
    operation: &'static str,
    send: impl Future<Output = Result<ResponseValue<O>, progenitor_client::Error<types::ErrorResponse>>>,
    count: impl FnOnce(Sample),
) -> Result<ResponseValue<O>, Error> {
    match keeping_failure(send).await {
        (Ok(answer), kept) => {
            if let Some(sample) = kept.sample {
                count(sample);
            }
            Ok(answer)
        }
        (
            Err(_),
            Kept {
                failure: Some(failure),
                ..
            },
        ) => Err(failure),
        (Err(error), _) => Err(Error::from_progenitor::<T>(error, Some(operation))),
    }
}

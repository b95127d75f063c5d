//! The hand-off between the runtime and progenitor's generated code: what a call answers the
//! generated builder, and how this crate's typed [`Error`] still reaches the caller whole.
//!
//! The generated builder's `send` hands its request to progenitor's `exec` hook, which the core
//! crate implements by calling the client's [`Interceptor`]: [`Runtime`]'s, or a language view's
//! ([`StoreAdmin::in_language`](crate::StoreAdmin::in_language)), both here. What the runtime
//! answers the generated code:
//!
//! - a success (a status below 400): reqwest's response with the body the runtime read in its place
//!   (`answer.rs`), which the generated code decodes; or, when the caller reads the answer itself
//!   ([`keeping_answer`]: `call()` and the pagination streams), the body kept for it and a
//!   refusal;
//! - anything else (an error answer, a transport failure, no token, a refused origin): this
//!   crate's [`Error`], ended as a [`Refusal`].
//!
//! Why a [`Refusal`], and why it becomes progenitor's `Error::Custom`: progenitor's hooks return
//! its own `Error<E>` or a `reqwest::Result`, and neither can carry a type of this crate. The core
//! crate answers `exec` with a stand-in response (status 500, no body, the refusal in its
//! extensions) and its `post` hook, which sees the response before anything reads its status,
//! turns it into `Error::Custom` with the refusal's message. That is the one error of
//! progenitor's that carries text of ours, and nothing but our refusals produces it.
//!
//! Why a task-local slot: the typed error must get past progenitor's code, which only passes on
//! the message. [`keeping_failure`] opens a slot in the task that sends (what
//! [`Call::call`](crate::Call::call), [`CallFull::call_full`](crate::CallFull::call_full) and the
//! pagination streams do); the interceptor, which runs in that task (progenitor awaits it in
//! place, no spawn), puts the error there as it ends the call, and the caller takes it back as it
//! was raised, instead of progenitor's `Error::Custom`. A task-local, not a field of the client:
//! one client serves many calls at once, and each call's error must reach its own caller.
//!
//! What a builder's own `send()` sees: no slot is open around it, so the error is not kept, and it
//! gets progenitor's `Error::Custom` with the message only (`From<progenitor_client::Error>` for
//! [`Error`] makes it an [`Error::InvalidRequest`]). `call()` is the way to the typed error.

use std::cell::RefCell;
use std::future::Future;

use futures::FutureExt;
use store_admin_client::{BoxFuture, Interceptor, Refusal};

use super::answer::{Answered, with_body};
use super::{InLanguage, Runtime};
use crate::drift::Sample;
use crate::error::{ApiError, Error};
use crate::language::Language;

impl Interceptor for Runtime {
    /// A success goes to the generated code to decode; an error answer, a transport failure or
    /// an authentication failure ends the call with this crate's [`Error`], kept for the caller
    /// (see the module).
    fn execute<'a>(
        &'a self,
        client: &'a reqwest::Client,
        request: reqwest::Request,
        operation: &'a progenitor_client::OperationInfo,
    ) -> BoxFuture<'a, Result<reqwest::Response, Refusal>> {
        intercept(self, client, request, operation, self.language.as_ref())
    }
}

/// One call through `runtime` in `language`, as the generated code expects it back.
fn intercept<'a>(
    runtime: &'a Runtime,
    client: &'a reqwest::Client,
    request: reqwest::Request,
    operation: &'a progenitor_client::OperationInfo,
    language: Option<&'a Language>,
) -> BoxFuture<'a, Result<reqwest::Response, Refusal>> {
    let operation_id = operation.operation_id;
    // `map`, not an `async` block: a block awaiting the moved-in call would hold it twice.
    Box::pin(
        runtime
            .call(client, request, operation_id, language)
            .map(move |result| answer(runtime, result, operation_id)),
    )
}

impl Interceptor for InLanguage {
    /// As [`Runtime`]'s, with the view's language.
    fn execute<'a>(
        &'a self,
        client: &'a reqwest::Client,
        request: reqwest::Request,
        operation: &'a progenitor_client::OperationInfo,
    ) -> BoxFuture<'a, Result<reqwest::Response, Refusal>> {
        intercept(
            &self.runtime,
            client,
            request,
            operation,
            Some(&self.language),
        )
    }
}

/// What the generated code gets back from a call: a success, to decode (reqwest's response, with
/// the body the runtime has read in place of the one it read); or a refusal, with this crate's
/// [`Error`] (an error answer, a transport failure, no token) kept for the caller; or, when the
/// caller reads the answer itself ([`keeping_answer`]), a refusal with the answer kept for it.
fn answer(
    runtime: &Runtime,
    result: Result<Answered, Error>,
    operation_id: &'static str,
) -> Result<reqwest::Response, Refusal> {
    let Answered {
        response,
        body,
        attempts,
        maybe_applied,
    } = result.map_err(keep_failure)?;
    let status = response.status();
    if status.is_client_error() || status.is_server_error() {
        let mut error =
            ApiError::from_response(status, response.headers(), &body, Some(operation_id));
        error.attempts = attempts;
        error.maybe_applied = maybe_applied;
        return Err(keep_failure(Error::Api(Box::new(error))));
    }
    crate::error::check_depth(&body, Some(operation_id)).map_err(keep_failure)?;
    // One visit to the caller's slot (only `call()`, `call_full()` and the streams, which know
    // the type the body decodes as, open one): the body for the drift count, when it is on (shared,
    // not copied); and the body itself when the caller reads an answer of this status itself (the
    // generated code is then refused: it neither rebuilds the response nor decodes it).
    let mut body = Some(body);
    let _outside = SLOT.try_with(|slot| {
        let mut slot = slot.borrow_mut();
        if let (Some(counter), Some(shared)) = (&runtime.drift, &body) {
            slot.sample = Some(Sample {
                body: shared.clone(),
                counter: counter.clone(),
                store: runtime.store.clone(),
            });
        }
        if slot.keep == Some(status) {
            slot.answer = body.take();
        }
    });
    match body {
        Some(body) => Ok(with_body(response, body)),
        None => Err(Refusal::new(KEPT.to_owned())),
    }
}

/// The refusal's message when the caller keeps the answer ([`keeping_answer`]): never shown, the
/// caller reads the answer instead.
const KEPT: &str = "the answer is read by the caller";

/// What a call leaves its caller beside the generated code's result.
#[derive(Default)]
struct Slot {
    /// The error the interceptor ended the call with.
    failure: Option<Error>,
    /// The answer's body, for the drift count (when it is on).
    sample: Option<Sample>,
    /// The status of a success the caller reads itself ([`keeping_answer`]).
    keep: Option<reqwest::StatusCode>,
    /// The body of that success.
    answer: Option<bytes::Bytes>,
}

/// What [`keeping_failure`] and [`keeping_answer`] answer beside the result: the typed error,
/// the answer for the drift count, and the body of a success kept for the caller.
pub(crate) struct Kept {
    pub(crate) failure: Option<Error>,
    pub(crate) sample: Option<Sample>,
    pub(crate) answer: Option<bytes::Bytes>,
}

tokio::task_local! {
    /// What the interceptor leaves the caller of the call being sent, kept for [`keeping_failure`].
    static SLOT: RefCell<Slot>;
}

/// Runs `send` (a generated builder's `send`), and answers its result with the error the
/// interceptor ended it with, if it did.
///
/// progenitor's hooks can give the generated code no error of ours (only its `Error::Custom`, a
/// message): the interceptor keeps the typed error here ([`keep_failure`]), in the task that
/// sends, and the caller takes it back as it was raised.
pub(crate) async fn keeping_failure<F: Future>(send: F) -> (F::Output, Kept) {
    in_slot(Slot::default(), send).await
}

/// As [`keeping_failure`], and a success of status `status` is not handed to the generated code:
/// its body is kept for the caller ([`Kept::answer`]), which reads it itself, and `send` ends
/// with a refusal. What `call()` does (it decodes the bytes as the generated code would, without
/// a response rebuilt for the generated code to read again), and the pagination streams: they
/// read a page's records one by one as they decode, so that a record that does not decode costs
/// that record, not its page (the generated code would decode the page whole, and lose every
/// record of it on the first that fails). A success of another status goes to the generated
/// code, which answers it as it always did.
pub(crate) async fn keeping_answer<F: Future>(
    status: reqwest::StatusCode,
    send: F,
) -> (F::Output, Kept) {
    let slot = Slot {
        keep: Some(status),
        ..Slot::default()
    };
    in_slot(slot, send).await
}

/// Runs `send` with `slot` open in its task, and answers what the interceptor left there.
async fn in_slot<F: Future>(slot: Slot, send: F) -> (F::Output, Kept) {
    SLOT.scope(RefCell::new(slot), async {
        let output = send.await;
        let Slot {
            failure,
            sample,
            answer,
            ..
        } = SLOT.with(RefCell::take);
        (
            output,
            Kept {
                failure,
                sample,
                answer,
            },
        )
    })
    .await
}

/// Ends a call with `error`: kept for the [`keeping_failure`] around the call, if there is one,
/// and its message handed to the generated code (which fails with it as `Error::Custom`).
fn keep_failure(error: Error) -> Refusal {
    let refusal = Refusal::new(error.to_string());
    // Outside `keeping_failure` (a builder's own `send`), the message is all the caller gets.
    let _outside = SLOT.try_with(|slot| slot.borrow_mut().failure = Some(error));
    refusal
}

//! [`Runtime`]: what every call of a [`StoreAdmin`](crate::StoreAdmin) passes through, this
//! crate's implementation of [`store_admin_client::Interceptor`]: the call (its deadline, its
//! attempts, the retry budget) here, and a file for each thing an attempt does.
//!
//! Per attempt, it waits for the client-side rate limiter (every client has one: by default
//! [`RateLimit::learning`](crate::ratelimit::RateLimit::learning) at the Plus plan's 120 a minute,
//! which learns the store's own rate from its answers), gets an access token (refreshing it if it
//! expired; a failure ends the call with [`Error::Auth`]) and sets the `Authorization` header
//! (built once per token), sends and reads the whole body within the attempt timeout (a timeout is
//! [`TransportError::TimedOut`](crate::TransportError::TimedOut)), lets the rate limiter read
//! `X-RateLimit-*`, waits out a 429 that says how long to wait (`Retry-After`) without counting an
//! attempt while the operation's deadline allows (a rate limit is never fatal: see
//! [`retry`](crate::retry)), refreshes the token and replays the request once on 401 `The access
//! token is invalid` (a refresh that fails there ends the call with [`Error::Auth`], unless the
//! token is a static one), and asks the pure [`retry::decide`](crate::retry::decide) (under the
//! shared [`RetryBudget`]) whether to try again.
//!
//! A success goes back to the generated code to decode. Everything else (an error answer, a
//! transport failure, no token) ends the call with this crate's typed [`Error`]: `call()`,
//! `call_full()` and the pagination streams get it as it was raised, a builder's own `send()` its
//! message only (`handoff.rs` says how and why).
//!
//! - `auth.rs`: authorising (the token's origins, the `Authorization` header, the 401 replay);
//! - `transport.rs`: sending (the copy sent, the answer read within the bound and the timeout);
//! - `observe.rs`: observing (the call's span, the rate-limit headers, the retry budget's
//!   successes, the metrics);
//! - `wait.rs`: between two attempts (the wait a 429 asks for, whether to try again);
//! - `handoff.rs`: the hand-off to progenitor's generated code (the interceptor, the refusal,
//!   the slot that keeps the typed error for the caller);
//! - `answer.rs`: the answer (to `send_raw`, and rebuilt for the generated code to decode).

mod answer;
mod auth;
pub(crate) mod handoff;
mod observe;
mod transport;
mod wait;

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::Either;
use tracing::Instrument;

use crate::credentials::{Authenticator, Bearer};
use crate::error::Error;
use crate::language::Language;
use crate::ratelimit::RateLimiter;
use crate::retry::{RetryBudget, RetryDecision, RetryPolicy};

pub(crate) use answer::Answered;
pub use answer::RawResponse;
pub(crate) use auth::TokenOrigin;
use auth::authorise;
use transport::{Attempt, take_copy};
use wait::rate_limited;

/// What every call passes through (see the module documentation).
pub struct Runtime {
    pub(crate) base_url: String,
    pub(crate) accounts_url: String,
    /// The origins that may receive the access token: the base URL's and the accounts host's.
    pub(crate) token_origins: [TokenOrigin; 2],
    pub(crate) auth: Authenticator,
    pub(crate) rate_limit: Option<Arc<dyn RateLimiter>>,
    pub(crate) retry: RetryPolicy,
    pub(crate) budget: Arc<RetryBudget>,
    pub(crate) attempt_timeout: Duration,
    pub(crate) operation_timeout: Duration,
    pub(crate) max_response_bytes: u64,
    /// The client's language
    /// ([`StoreAdminBuilder::with_language`](crate::StoreAdminBuilder::with_language)), for the
    /// calls made through the client itself (a view of it, [`InLanguage`], has its own).
    pub(crate) language: Option<Language>,
    /// The store the client calls, as spans and metrics name it
    /// ([`StoreAdminBuilder::with_store_label`](crate::StoreAdminBuilder::with_store_label)).
    pub(crate) store: Option<Arc<str>>,
    /// The bound on calls in flight this client shares fairly with other stores' clients, and
    /// the store it queues as
    /// ([`StoreAdminBuilder::with_fair_share`](crate::StoreAdminBuilder::with_fair_share)).
    pub(crate) fair: Option<(Arc<crate::fair::FairShare>, Arc<str>)>,
    /// The drift count, when on
    /// ([`StoreAdminBuilder::with_drift_counting`](crate::StoreAdminBuilder::with_drift_counting)).
    pub(crate) drift: Option<Arc<crate::drift::DriftCounter>>,
}

/// The interception point of a view of the client in another language
/// ([`StoreAdmin::in_language`](crate::StoreAdmin::in_language)): the client's runtime, with the
/// view's language.
pub(crate) struct InLanguage {
    pub(crate) runtime: Arc<Runtime>,
    pub(crate) language: Language,
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("auth", &self.auth)
            .field("rate_limit", &self.rate_limit.is_some())
            .field("retry", &self.retry)
            .field("attempt_timeout", &self.attempt_timeout)
            .field("operation_timeout", &self.operation_timeout)
            .field("language", &self.language)
            .field("store", &self.store)
            .field("fair", &self.fair.as_ref().map(|(share, _)| share))
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// One call, in its `store_admin.call` span: the last response whatever its status, or why
    /// there was none. A request to an origin that may not receive the access token fails with
    /// [`Error::InvalidRequest`] before anything is sent. `language` sets the request's language
    /// headers where it has none of its own ([`Language::apply`]).
    ///
    /// The checks are made before the future is: the future holds the request once, in `run`
    /// (an `async` block around `run` would hold it twice). A call's future is allocated on
    /// every call, and past 1 KiB an allocation costs much more (glibc's large bins).
    pub(crate) fn call<'a>(
        &'a self,
        client: &'a reqwest::Client,
        mut request: reqwest::Request,
        operation_id: &'static str,
        language: Option<&Language>,
    ) -> impl Future<Output = Result<Answered, Error>> + Send + 'a {
        if let Some(language) = language {
            let has_body = request.body().is_some();
            language.apply(request.headers_mut(), has_body);
        }
        if let Err(refused) = self.check_origin(request.url()) {
            return Either::Left(std::future::ready(Err(Error::InvalidRequest(refused))));
        }
        let span = self.call_span(&request, operation_id);
        // A span no subscriber records, and no `log` logger either (through tracing's `log`
        // feature, which logs a span's entering and leaving at TRACE), is not entered and left
        // at every poll of the call.
        if span.is_disabled() && log::max_level() < log::LevelFilter::Trace {
            return Either::Right(Either::Left(self.run(
                client,
                request,
                operation_id,
                tracing::Span::none(),
            )));
        }
        Either::Right(Either::Right(
            self.run(client, request, operation_id, span.clone())
                .instrument(span),
        ))
    }

    /// The call itself: the deadline, the retry loop and its budget over [`Runtime::attempt`]
    /// and [`Runtime::replay_after_401`]. An `async` block, not an `async fn`: an `async fn`'s
    /// future keeps its arguments twice, as they came and as its locals (rust-lang/rust#62958),
    /// and the request is most of it. `span` is the call's own ([`CallContext::span`]).
    #[expect(
        clippy::manual_async_fn,
        reason = "an `async fn` would hold its arguments twice"
    )]
    fn run<'a>(
        &'a self,
        client: &'a reqwest::Client,
        mut request: reqwest::Request,
        operation_id: &'static str,
        span: tracing::Span,
    ) -> impl Future<Output = Result<Answered, Error>> + Send + 'a {
        async move {
            let mut call = CallContext::new(operation_id, self.operation_timeout, span);
            // The token for the next attempt when a refresh after a 401 already gave one.
            let mut refreshed = None;
            let mut replayed_after_refresh = false;
            loop {
                call.attempt += 1;
                let tried = self
                    .attempt(client, &mut request, refreshed.take(), &call)
                    .await?;
                if !replayed_after_refresh && tried.is_invalid_token() {
                    replayed_after_refresh = true;
                    if let Some(fresh) = self.replay_after_401(&tried.bearer).await? {
                        refreshed = Some(fresh);
                        // The replay is the same attempt, with the new token.
                        call.attempt -= 1;
                        continue;
                    }
                }
                if let Some(wait) = rate_limited(&tried, call.deadline) {
                    // Not an attempt: the same one again once the store has room.
                    call.attempt -= 1;
                    #[cfg(feature = "metrics")]
                    crate::metrics::rate_limited(operation_id, self.store.as_deref());
                    self.wait_out_429(wait, &tried).await;
                    continue;
                }
                match self.retry_decision(&tried, request.method(), &call) {
                    RetryDecision::RetryAfter(wait) if Instant::now() + wait < call.deadline => {
                        tracing::info!(
                            attempt = call.attempt,
                            wait_ms = wait.as_millis() as u64,
                            "retrying"
                        );
                        #[cfg(feature = "metrics")]
                        crate::metrics::retried(operation_id, self.store.as_deref());
                        // Boxed, as every path that waits for more than the service: a call's
                        // future stays small (it is allocated once per call).
                        Box::pin(tokio::time::sleep(wait)).await;
                    }
                    stop => return call.finish(tried.outcome, stop, self.store.as_deref()),
                }
            }
        }
    }

    /// One attempt: waits for the rate limiter, authorises (once per attempt: a retry after a
    /// long wait gets a token still valid), sends and reads the whole answer within the attempt
    /// timeout (capped by the call's deadline), and lets the tracing, the rate limiter and the
    /// retry budget observe it. `refreshed` is the token a refresh after a 401 already gave.
    async fn attempt(
        &self,
        client: &reqwest::Client,
        request: &mut reqwest::Request,
        refreshed: Option<Arc<Bearer>>,
        call: &CallContext,
    ) -> Result<Tried, Error> {
        if let Some(limit) = &self.rate_limit {
            #[cfg(feature = "metrics")]
            let waiting = Instant::now();
            if !limit.try_acquire() {
                self.wait_for_limiter(limit.as_ref(), call).await?;
            }
            #[cfg(feature = "metrics")]
            {
                let waited = waiting.elapsed();
                if waited > Duration::from_millis(1) {
                    crate::metrics::limiter_waited(self.store.as_deref(), waited);
                }
            }
        }
        let bearer = match refreshed {
            Some(bearer) => bearer,
            None => self.auth.bearer().await.map_err(Error::Auth)?,
        };
        authorise(request, &bearer)?;
        let remaining = call.deadline.saturating_duration_since(Instant::now());
        let timeout = self
            .attempt_timeout
            .min(remaining)
            .max(Duration::from_millis(1));
        // The store's turn for a permit of the shared bound, held until the answer is read.
        let _turn = match &self.fair {
            // Boxed, as every path that waits for more than the service.
            Some((share, store)) => Some(Box::pin(share.acquire(store)).await),
            None => None,
        };
        let (to_send, replayable) = take_copy(request);
        let sent = client.execute(to_send);
        let attempt_started = Instant::now();
        // Boxed: awaited in place, the attempt's future would be counted twice in this one.
        let outcome = Box::pin(Self::send(sent, timeout, self.max_response_bytes)).await;
        self.observe(&outcome, call.attempt, attempt_started.elapsed());
        Ok(Tried {
            outcome,
            bearer,
            replayable,
        })
    }
}

/// One call as its loop runs it: what it is (its operation, its span), when it started and must
/// end, and which attempt it is on. One value the loop's steps read, in place of the half dozen
/// arguments each took.
pub(super) struct CallContext {
    /// The operation called, for the trace lines, the metrics and the errors.
    pub(super) operation_id: &'static str,
    /// When the call started: the retry policy's elapsed time and the metrics' duration.
    pub(super) started: Instant,
    /// When the call must end ([`Runtime`]'s operation timeout after `started`): no attempt, 429
    /// wait or retry wait runs past it.
    pub(super) deadline: Instant,
    /// The attempt being made, from 1; a replay after a 401 and a 429's wait are not attempts.
    pub(super) attempt: u32,
    /// The call's own span, to record its status in: not the current span, which is the
    /// caller's when the call's own is not entered.
    pub(super) span: tracing::Span,
}

impl CallContext {
    /// A call to `operation_id` starting now, that must end within `timeout`, recorded in `span`.
    fn new(operation_id: &'static str, timeout: Duration, span: tracing::Span) -> Self {
        let started = Instant::now();
        CallContext {
            operation_id,
            started,
            deadline: started + timeout,
            attempt: 0,
            span,
        }
    }
}

/// One attempt's answer, the token it was sent with, and whether the request can be sent again.
struct Tried {
    outcome: Attempt,
    bearer: Arc<Bearer>,
    replayable: bool,
}

//! Observing a call: its `store_admin.call` span, what every attempt's answer tells (the trace
//! line, the rate-limit headers, the retry budget's successes) and what the call's end records
//! (the span's status, the metrics).

use std::fmt;
use std::time::Duration;

use store_admin_client::OperationMeta;

use super::transport::Attempt;
use super::{Answered, CallContext, Runtime};
use crate::error::Error;
use crate::retry::{self, RetryDecision};

/// The documented path of an operation, for the call's span: looked up only when a subscriber
/// (or a `log` logger) records it, not on every call.
struct PathOf(&'static str);

impl fmt::Display for PathOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(OperationMeta::find(self.0).map_or("", |meta| meta.path))
    }
}

/// A call span's name as OpenTelemetry names an HTTP client span: the method and the path's
/// template (`GET /orders/{order_id}`).
struct SpanName<'a>(&'a reqwest::Method, &'static str);

impl fmt::Display for SpanName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.0, PathOf(self.1))
    }
}

impl Runtime {
    /// The call's `store_admin.call` span, for `request` to `operation_id`.
    pub(super) fn call_span(
        &self,
        request: &reqwest::Request,
        operation_id: &'static str,
    ) -> tracing::Span {
        // OpenTelemetry's HTTP client conventions (the field values are computed only when a
        // subscriber records the span): never the URL itself, whose query may hold a secret.
        tracing::info_span!(
            "store_admin.call",
            otel.kind = "client",
            otel.name = %SpanName(request.method(), operation_id),
            operation_id,
            "http.request.method" = %request.method(),
            "url.template" = %PathOf(operation_id),
            "server.address" = request.url().host_str(),
            "server.port" = request.url().port_or_known_default(),
            "store_admin.store" = self.store.as_deref(),
            "http.response.status_code" = tracing::field::Empty,
            "http.request.resend_count" = tracing::field::Empty,
            "error.type" = tracing::field::Empty,
        )
    }

    /// What every attempt's answer tells: one trace line per attempt (the span carries the
    /// operation, once), the rate limiter's `X-RateLimit-*`, the retry budget's successes.
    pub(super) fn observe(&self, outcome: &Attempt, attempt: u32, elapsed: Duration) {
        let elapsed_ms = elapsed.as_millis() as u64;
        match outcome {
            Attempt::Response(response, _) => {
                tracing::info!(
                    attempt,
                    status = response.status().as_u16(),
                    elapsed_ms,
                    "attempt"
                );
                if let Some(limit) = &self.rate_limit {
                    let own_bucket = has_own_bucket(response.url());
                    limit.observe_answer(response.status(), response.headers(), own_bucket);
                }
                if response.status().is_success() {
                    self.budget.record_success();
                }
            }
            Attempt::Failed(e, class) => {
                tracing::info!(attempt, error = %e, failure = ?class, elapsed_ms, "attempt failed");
            }
        }
    }
}

/// Whether `url` is one of the customers endpoints, which have a rate limit of their own (500
/// requests per 10 minutes) besides the store's: their `X-RateLimit-*` describe that bucket.
pub(super) fn has_own_bucket(url: &reqwest::Url) -> bool {
    let path = url.path();
    // Asked of every answer: most paths do not hold the word, and one search says so.
    path.contains("customers") && path.split('/').any(|segment| segment == "customers")
}

impl CallContext {
    /// The call's answer once the loop stops: the last response (its status recorded in the
    /// call's span), or the transport failure that ended it. `store` is the client's label, for
    /// the metrics.
    pub(super) fn finish(
        self,
        outcome: Attempt,
        stop: RetryDecision,
        store: Option<&str>,
    ) -> Result<Answered, Error> {
        let CallContext {
            operation_id,
            started,
            attempt,
            span,
            ..
        } = self;
        if let RetryDecision::Stop(reason) = stop
            && reason != retry::StopReason::Success
        {
            tracing::debug!(?reason, attempt, "not retrying");
        }
        if !span.is_disabled() && attempt > 1 {
            span.record("http.request.resend_count", attempt - 1);
        }
        #[cfg(not(feature = "metrics"))]
        let _ = (store, started);
        match outcome {
            Attempt::Response(response, body) => {
                let status = response.status();
                if !span.is_disabled() {
                    span.record("http.response.status_code", status.as_u16());
                    if status.is_client_error() || status.is_server_error() {
                        span.record("error.type", status.as_str());
                    }
                }
                #[cfg(feature = "metrics")]
                crate::metrics::call_finished(
                    operation_id,
                    store,
                    started.elapsed(),
                    Some(status),
                    None,
                );
                Ok(Answered {
                    response,
                    body,
                    attempts: attempt,
                    maybe_applied: stop == RetryDecision::Stop(retry::StopReason::NotIdempotent),
                })
            }
            Attempt::Failed(source, class) => {
                let kind = crate::TransportKind::from(class);
                if !span.is_disabled() {
                    span.record("error.type", kind.name());
                }
                #[cfg(feature = "metrics")]
                crate::metrics::call_finished(
                    operation_id,
                    store,
                    started.elapsed(),
                    None,
                    Some(kind),
                );
                Err(Error::Transport {
                    operation: Some(operation_id),
                    kind,
                    source,
                })
            }
        }
    }
}

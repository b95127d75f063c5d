//! What comes between two attempts: the wait a 429 asks for (not counted as an attempt), and
//! whether to try again (the retry policy under the shared budget).

use std::time::{Duration, Instant, SystemTime};

use super::observe::has_own_bucket;
use super::transport::Attempt;
use super::{CallContext, Runtime, Tried};
use crate::error::{Error, TransportError, TransportKind};
use crate::ratelimit::RateLimiter;
use crate::retry::{self, Outcome, RetryDecision, RetryInput};

impl Runtime {
    /// Waits for the rate limiter when it refused the attempt at once, saying so (at INFO, the
    /// CLI's `-v`) with how long when the limiter can tell. A wait that would end past the call's
    /// deadline is not begun: the call ends with [`TransportError::RateLimitWait`], which says
    /// that the store's announced rate is the cause (a store announcing 1 a minute once made a
    /// call wait a minute, then time out "within 1 ms" as if the service were slow).
    pub(super) async fn wait_for_limiter(
        &self,
        limit: &dyn RateLimiter,
        call: &CallContext,
    ) -> Result<(), Error> {
        let wait = limit.next_wait();
        if let Some(wait) = wait {
            let left = call.deadline.saturating_duration_since(Instant::now());
            if wait >= left {
                tracing::warn!(
                    wait_ms = wait.as_millis() as u64,
                    left_ms = left.as_millis() as u64,
                    "the store's rate limit would make this request wait past the call's deadline"
                );
                return Err(Error::Transport {
                    operation: Some(call.operation_id),
                    kind: TransportKind::Timeout,
                    source: TransportError::RateLimitWait {
                        wait,
                        left,
                        per_minute: limit.per_minute(),
                    },
                });
            }
        }
        tracing::info!(
            wait_ms = wait.map(|wait| wait.as_millis() as u64),
            "waiting for the store's rate limit"
        );
        // Boxed, as every path that waits for more than the service.
        Box::pin(limit.acquire()).await;
        Ok(())
    }

    /// Waits out a 429's `Retry-After`. The store's rate limiter was told (in
    /// [`Runtime::observe`]): its next `acquire` waits, and lets concurrent requests go one
    /// interval apart, not together. Without one, or for an endpoint with a bucket of its own
    /// (which the limiter does not follow), this waits itself, and up to half as long again (at
    /// least a second) at random, so that concurrent requests spread over the wait.
    pub(super) async fn wait_out_429(&self, wait: Duration, tried: &Tried) {
        tracing::info!(
            wait_ms = wait.as_millis() as u64,
            "rate limited: waiting, not counted as an attempt"
        );
        let own_bucket = matches!(&tried.outcome, Attempt::Response(response, _)
            if has_own_bucket(response.url()));
        if self.rate_limit.is_some() && !own_bucket {
            return;
        }
        let spread = wait
            .max(Duration::from_secs(1))
            .mul_f64(rand::random::<f64>() * 0.5);
        // Boxed, as every path that waits for more than the service.
        Box::pin(tokio::time::sleep(wait + spread)).await;
    }

    /// Whether to try again after `tried`: never after a final status or with a body that cannot
    /// be replayed; otherwise the pure [`retry::decide`] under the shared budget.
    pub(super) fn retry_decision(
        &self,
        tried: &Tried,
        method: &reqwest::Method,
        call: &CallContext,
    ) -> RetryDecision {
        let outcome = match &tried.outcome {
            Attempt::Response(response, _) if retry::is_final_status(response.status()) => {
                return RetryDecision::Stop(retry::StopReason::Success);
            }
            _ if !tried.replayable => {
                return RetryDecision::Stop(retry::StopReason::NotReplayable);
            }
            Attempt::Response(response, _) => Outcome::Response {
                status: response.status(),
                headers: response.headers(),
            },
            Attempt::Failed(_, class) => Outcome::Transport(*class),
        };
        retry::decide_with_budget(
            &self.retry,
            &RetryInput {
                method,
                outcome,
                attempt: call.attempt,
                elapsed: call.started.elapsed(),
                jitter: rand::random::<f64>(),
                now: SystemTime::now(),
            },
            &self.budget,
        )
    }
}

/// The wait a 429 of `tried` asks for ([`retry::rate_limit_wait`]), if the request can be sent
/// again and the wait ends before the call's `deadline`.
pub(super) fn rate_limited(tried: &Tried, deadline: Instant) -> Option<Duration> {
    let Attempt::Response(response, _) = &tried.outcome else {
        return None;
    };
    if !tried.replayable {
        return None;
    }
    let wait = retry::rate_limit_wait(response.status(), response.headers(), SystemTime::now())?;
    (Instant::now() + wait < deadline).then_some(wait)
}

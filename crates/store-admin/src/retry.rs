//! When to try a request again, and after how long.
//!
//! [`decide`] is a pure function of a [`RetryPolicy`] and a [`RetryInput`] (method, what happened,
//! attempt number, time spent, a jitter sample and the current time): no clock, no randomness, no
//! shared state, so every row of its behaviour is pinned by a table test. The caller draws the
//! jitter sample, sleeps, and consults the process-wide [`RetryBudget`] (through
//! [`decide_with_budget`] or by hand) so that a dead service is not hammered by every caller at once.
//!
//! # What is retried
//!
//! | outcome | idempotent methods (GET, HEAD, OPTIONS, TRACE, PUT, DELETE) | POST, PATCH and any other method |
//! |---|---|---|
//! | 408, 500, 502, 503, 504 | retried | **not** retried |
//! | 429 | retried | retried |
//! | [`TransportFailure::ConnectFailed`] | retried | retried |
//! | other transport failures | retried | **not** retried |
//! | a body larger than the client reads ([`TransportFailure::TooLarge`]) | not retried | not retried |
//! | a refused redirect ([`TransportFailure::Redirected`]) | not retried | not retried |
//! | any other status | not retried | not retried |
//!
//! A non-idempotent request is repeated only when it surely had no effect: the connection was
//! never established ([`TransportFailure::ConnectFailed`]), or the server answered 429, which the
//! service's rate limiter gives *before* processing the request. A 5xx, a time-out or a reset
//! connection may come after the server acted (an order created twice is worse than an error), so
//! those are handed to the caller, who knows whether the operation can be checked or repeated.
//!
//! # How long to wait
//!
//! Full-jitter exponential backoff: `jitter × min(max_delay, base_delay × 2^(attempt−1))`, with
//! `jitter` in `[0, 1)`. When the response says how long to wait, the larger of the two is used:
//! `Retry-After` (seconds or an HTTP date) on any retryable status, and `X-RateLimit-Reset` (UTC
//! epoch seconds) on a 429; when `X-RateLimit-Remaining` is `0` on another answer, the bucket's
//! next free slot (one leak interval, 60 s / `X-RateLimit-Limit`, never past the reset; the reset
//! when the rate is not announced). On other responses the reset merely describes the rate-limit
//! window and is ignored. A server hint is not capped by `max_delay`,
//! since retrying earlier than told only earns another 429; instead, if the wait would end past
//! the total budget (`max_elapsed` since the first attempt), the decision is to stop.
//!
//! # A rate limit is never fatal
//!
//! A 429 that says how long to wait (`Retry-After`) is not a failure but a schedule:
//! [`rate_limit_wait`] gives the wait, and the client waits it out (its rate limiter spreading
//! concurrent requests over the wait) without counting an attempt or drawing on the budget, for
//! as long as the operation's deadline allows. Only past the deadline, or for a 429 without
//! `Retry-After`, does [`decide`] apply as above.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime};

use http::{HeaderMap, Method, StatusCode};

use crate::ratelimit::RateLimitHeaders;

/// Limits for retrying one logical request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Attempts in total, the first one included (default 3). `1` disables retries.
    pub max_attempts: u32,
    /// The backoff cap before the first retry (default 200 ms); it doubles with each attempt.
    pub base_delay: Duration,
    /// The largest backoff cap (default 20 s). Server hints may exceed it.
    pub max_delay: Duration,
    /// The longest time from the first attempt to the start of the last retry (default 60 s).
    pub max_elapsed: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(20),
            max_elapsed: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// A policy that never retries.
    pub fn no_retries() -> Self {
        RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::default()
        }
    }

    /// Sets [`RetryPolicy::max_attempts`].
    pub fn with_max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts;
        self
    }

    /// Sets [`RetryPolicy::base_delay`].
    pub fn with_base_delay(mut self, delay: Duration) -> Self {
        self.base_delay = delay;
        self
    }

    /// Sets [`RetryPolicy::max_delay`].
    pub fn with_max_delay(mut self, delay: Duration) -> Self {
        self.max_delay = delay;
        self
    }

    /// Sets [`RetryPolicy::max_elapsed`].
    pub fn with_max_elapsed(mut self, elapsed: Duration) -> Self {
        self.max_elapsed = elapsed;
        self
    }

    /// The backoff cap after `attempt` (1-based): `min(max_delay, base_delay × 2^(attempt−1))`.
    pub fn backoff_cap(&self, attempt: u32) -> Duration {
        let exponent = attempt.saturating_sub(1).min(63);
        let factor = 1u64 << exponent;
        let nanos = self
            .base_delay
            .as_nanos()
            .saturating_mul(u128::from(factor));
        let capped = nanos.min(self.max_delay.as_nanos());
        // `capped` <= max_delay, which is a valid Duration.
        Duration::from_nanos(u64::try_from(capped).unwrap_or(u64::MAX))
    }
}

/// A request that failed without a usable HTTP response, classified by what it implies about the
/// server having seen the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransportFailure {
    /// The connection could not be established (DNS, refused, TLS handshake): the request surely
    /// never reached the server. Safe to repeat for any method.
    ConnectFailed,
    /// No response in time: the server may or may not have acted.
    TimedOut,
    /// The connection broke after the request was (perhaps partly) sent.
    ConnectionReset,
    /// The response started but its body was cut short.
    BodyTruncated,
    /// The response's body is larger than the client reads: never retried (it would be as large
    /// again).
    TooLarge,
    /// A redirect was refused (see [`redirect`](crate::redirect)): never retried (it would be
    /// refused again).
    Redirected,
    /// Any other failure.
    Other,
}

impl TransportFailure {
    /// Classifies a `reqwest` failure: the one reading of a transport error, for the retry
    /// decision and for [`Error::Transport`](crate::Error::Transport)'s kind. A connection that
    /// timed out while connecting counts as [`TransportFailure::ConnectFailed`]: the request
    /// surely never left.
    pub fn classify(error: &reqwest::Error) -> Self {
        if error.is_redirect() {
            TransportFailure::Redirected
        } else if error.is_connect() {
            TransportFailure::ConnectFailed
        } else if error.is_timeout() {
            TransportFailure::TimedOut
        } else if error.is_body() || error.is_decode() {
            TransportFailure::BodyTruncated
        } else if error.is_request() {
            TransportFailure::ConnectionReset
        } else {
            TransportFailure::Other
        }
    }
}

/// What one attempt produced.
#[derive(Debug, Clone, Copy)]
pub enum Outcome<'a> {
    /// The server answered with this status and these headers.
    Response {
        /// The HTTP status.
        status: StatusCode,
        /// The response headers (`Retry-After`, `X-RateLimit-*` are read).
        headers: &'a HeaderMap,
    },
    /// No response: the failure, classified.
    Transport(TransportFailure),
}

/// Everything [`decide`] needs; it reads nothing else.
#[derive(Debug, Clone, Copy)]
pub struct RetryInput<'a> {
    /// The request's method.
    pub method: &'a Method,
    /// What the attempt produced.
    pub outcome: Outcome<'a>,
    /// The number of the attempt that just finished, 1-based.
    pub attempt: u32,
    /// Time since the first attempt started.
    pub elapsed: Duration,
    /// A uniform sample in `[0, 1)` for full jitter (values outside are clamped, NaN counts as 0).
    pub jitter: f64,
    /// The current wall-clock time, to read `Retry-After` dates and `X-RateLimit-Reset`.
    pub now: SystemTime,
}

/// Why no further attempt will be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The response is a success or a redirect: nothing to retry.
    Success,
    /// The status is not one that is retried (e.g. 400, 401, 404, 422).
    NotRetryable(StatusCode),
    /// The method is not idempotent and the request may have been processed.
    NotIdempotent,
    /// `max_attempts` attempts have been made.
    AttemptsExhausted,
    /// Waiting `wait` would end past `max_elapsed` since the first attempt.
    DeadlineExceeded {
        /// The wait that was needed.
        wait: Duration,
    },
    /// The shared [`RetryBudget`] is empty: the service has been failing for many callers.
    BudgetExhausted,
    /// The body was a stream, consumed by the attempt: it cannot be sent again.
    NotReplayable,
    /// The response's body was larger than the client reads: it would be as large again.
    TooLarge,
    /// A redirect was refused: it would be refused again.
    Redirected,
}

/// The verdict for one finished attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryDecision {
    /// Sleep this long, then try again.
    RetryAfter(Duration),
    /// Give up and return the last outcome to the caller.
    Stop(StopReason),
}

/// Whether repeating the method has the same effect as sending it once (RFC 9110, section
/// 9.2.2): [`store_admin_client::is_idempotent_method`], the one definition.
pub fn is_idempotent(method: &Method) -> bool {
    store_admin_client::is_idempotent_method(method.as_str())
}

/// The statuses that are retried: 408, 429, 500, 502, 503, 504.
pub fn is_retryable_status(status: StatusCode) -> bool {
    matches!(status.as_u16(), 408 | 429 | 500 | 502 | 503 | 504)
}

/// Decides whether to retry after one attempt, and after how long. Pure: see the module
/// documentation for the rules.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use http::{HeaderMap, Method, StatusCode};
/// use store_admin::retry::{decide, Outcome, RetryDecision, RetryInput, RetryPolicy};
///
/// let mut headers = HeaderMap::new();
/// headers.insert("retry-after", "3".parse().unwrap());
/// let decision = decide(
///     &RetryPolicy::default(),
///     &RetryInput {
///         method: &Method::GET,
///         outcome: Outcome::Response { status: StatusCode::TOO_MANY_REQUESTS, headers: &headers },
///         attempt: 1,
///         elapsed: Duration::ZERO,
///         jitter: 0.5,
///         now: SystemTime::UNIX_EPOCH,
///     },
/// );
/// assert_eq!(decision, RetryDecision::RetryAfter(Duration::from_secs(3)));
/// ```
pub fn decide(policy: &RetryPolicy, input: &RetryInput<'_>) -> RetryDecision {
    let idempotent = is_idempotent(input.method);
    let hint = match input.outcome {
        Outcome::Response { status, headers } => {
            if is_final_status(status) {
                return RetryDecision::Stop(StopReason::Success);
            }
            if !is_retryable_status(status) {
                return RetryDecision::Stop(StopReason::NotRetryable(status));
            }
            if !idempotent && status != StatusCode::TOO_MANY_REQUESTS {
                return RetryDecision::Stop(StopReason::NotIdempotent);
            }
            server_hint(status, headers, input.now)
        }
        Outcome::Transport(TransportFailure::TooLarge) => {
            return RetryDecision::Stop(StopReason::TooLarge);
        }
        Outcome::Transport(TransportFailure::Redirected) => {
            return RetryDecision::Stop(StopReason::Redirected);
        }
        Outcome::Transport(failure) => {
            if !idempotent && failure != TransportFailure::ConnectFailed {
                return RetryDecision::Stop(StopReason::NotIdempotent);
            }
            None
        }
    };
    if input.attempt >= policy.max_attempts {
        return RetryDecision::Stop(StopReason::AttemptsExhausted);
    }
    let backoff = jittered(policy.backoff_cap(input.attempt), input.jitter);
    let wait = match hint {
        Some(hint) => hint.max(backoff),
        None => backoff,
    };
    match input.elapsed.checked_add(wait) {
        Some(end) if end <= policy.max_elapsed => RetryDecision::RetryAfter(wait),
        _ => RetryDecision::Stop(StopReason::DeadlineExceeded { wait }),
    }
}

/// The wait a 429 asks for when it says (`Retry-After`, seconds or an HTTP date): the client
/// waits it out without counting an attempt (see the module documentation). `None` for any other
/// answer, a 429 without `Retry-After` included.
pub fn rate_limit_wait(
    status: StatusCode,
    headers: &HeaderMap,
    now: SystemTime,
) -> Option<Duration> {
    if status != StatusCode::TOO_MANY_REQUESTS {
        return None;
    }
    RateLimitHeaders::parse(headers, now).retry_after
}

/// A status no policy retries, whatever the method or the attempt: a success, a redirection or an
/// informational answer ([`StopReason::Success`]). The client checks it first, so that an answer
/// costs no jitter or clock reading.
pub fn is_final_status(status: StatusCode) -> bool {
    status.is_success() || status.is_redirection() || status.is_informational()
}

/// `cap × jitter`, with the jitter clamped into `[0, 1)`.
fn jittered(cap: Duration, jitter: f64) -> Duration {
    let j = if jitter.is_nan() {
        0.0
    } else {
        jitter.clamp(0.0, 1.0)
    };
    // j in [0, 1], so the product is at most `cap` and never overflows or goes negative.
    let nanos = (cap.as_nanos() as f64 * j).floor();
    let nanos = if nanos >= cap.as_nanos() as f64 && cap > Duration::ZERO {
        cap.as_nanos().saturating_sub(1) as f64
    } else {
        nanos
    };
    Duration::from_nanos(nanos as u64)
}

/// The wait the server asks for, if any: the larger of `Retry-After` and (on a 429 or when nothing
/// remains) the bucket's next free slot.
///
/// On a 429 that slot is `X-RateLimit-Reset`. On another answer with nothing remaining it is one
/// leak interval (60 s / `X-RateLimit-Limit`, never past the reset): the store's bucket is a
/// leaky one, which frees a request every interval, and its reset is when it is empty again (a
/// minute at 120 a minute). Waiting for the reset put a 5xx that met an empty bucket past the
/// call's budget, and the call gave up at its first attempt. Without `X-RateLimit-Limit`, the
/// reset.
fn server_hint(status: StatusCode, headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let read = RateLimitHeaders::parse(headers, now);
    let reset = if status == StatusCode::TOO_MANY_REQUESTS {
        read.reset_in
    } else if read.exhausted() {
        match (read.limit.filter(|limit| *limit > 0), read.reset_in) {
            (Some(limit), Some(reset)) => Some((Duration::from_secs(60) / limit).min(reset)),
            (Some(limit), None) => Some(Duration::from_secs(60) / limit),
            (None, reset) => reset,
        }
    } else {
        None
    };
    match (read.retry_after, reset) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// A process-wide token bucket limiting retries, after the AWS SDK's standard retry quota: when
/// the service fails for everyone, callers stop retrying instead of multiplying the load.
///
/// It starts full (500 tokens by default). Each retry withdraws 5 tokens, a retry after a
/// time-out 10; each success deposits 1, up to the capacity. A retry that cannot withdraw its cost
/// is not made. Share one budget (behind an `Arc`) between all clients of one service. Lock-free.
#[derive(Debug)]
pub struct RetryBudget {
    tokens: AtomicU32,
    capacity: u32,
    retry_cost: u32,
    timeout_cost: u32,
    success_refund: u32,
}

impl Default for RetryBudget {
    fn default() -> Self {
        RetryBudget::new(500)
    }
}

impl RetryBudget {
    /// The cost of an ordinary retry.
    pub const RETRY_COST: u32 = 5;
    /// The cost of a retry after a time-out.
    pub const TIMEOUT_COST: u32 = 10;
    /// What a success gives back.
    pub const SUCCESS_REFUND: u32 = 1;

    /// A full budget of `capacity` tokens with the default costs.
    pub fn new(capacity: u32) -> Self {
        RetryBudget {
            tokens: AtomicU32::new(capacity),
            capacity,
            retry_cost: Self::RETRY_COST,
            timeout_cost: Self::TIMEOUT_COST,
            success_refund: Self::SUCCESS_REFUND,
        }
    }

    /// The tokens left.
    pub fn available(&self) -> u32 {
        self.tokens.load(Ordering::Acquire)
    }

    /// The capacity.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// What retrying after `outcome` costs: 10 after a time-out, 5 otherwise.
    pub fn cost_of(&self, outcome: &Outcome<'_>) -> u32 {
        match outcome {
            Outcome::Transport(TransportFailure::TimedOut) => self.timeout_cost,
            _ => self.retry_cost,
        }
    }

    /// Withdraws the cost of retrying after `outcome`; `false` (and nothing withdrawn) when too few
    /// tokens are left.
    pub fn try_withdraw(&self, outcome: &Outcome<'_>) -> bool {
        let cost = self.cost_of(outcome);
        self.tokens
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| t.checked_sub(cost))
            .is_ok()
    }

    /// Records a successful attempt: deposits one token, up to the capacity.
    pub fn record_success(&self) {
        let refund = self.success_refund;
        let capacity = self.capacity;
        // A full budget (the usual case) is not written to: the many clients sharing it do not
        // contend for its cache line on every success.
        if self.tokens.load(Ordering::Acquire) >= capacity {
            return;
        }
        // The closure always returns Some, so this cannot fail.
        let _ = self
            .tokens
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| {
                Some(t.saturating_add(refund).min(capacity))
            });
    }
}

/// [`decide`], then, if the verdict is to retry, withdraws the retry's cost from `budget`; stops
/// with [`StopReason::BudgetExhausted`] when it cannot. Successes are not recorded here: call
/// [`RetryBudget::record_success`] when an attempt succeeds.
pub fn decide_with_budget(
    policy: &RetryPolicy,
    input: &RetryInput<'_>,
    budget: &RetryBudget,
) -> RetryDecision {
    match decide(policy, input) {
        RetryDecision::RetryAfter(wait) => {
            if budget.try_withdraw(&input.outcome) {
                RetryDecision::RetryAfter(wait)
            } else {
                RetryDecision::Stop(StopReason::BudgetExhausted)
            }
        }
        stop => stop,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::UNIX_EPOCH;

    const MS: fn(u64) -> Duration = Duration::from_millis;
    const S: fn(u64) -> Duration = Duration::from_secs;

    /// 2023-11-14T22:13:20Z.
    fn now() -> SystemTime {
        UNIX_EPOCH + S(1_700_000_000)
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().unwrap());
        }
        h
    }

    fn hs(pairs: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
        pairs.iter().map(|(k, v)| (*k, (*v).to_owned())).collect()
    }

    enum Got {
        Status(u16, Vec<(&'static str, String)>),
        Net(TransportFailure),
    }

    struct Row<'a> {
        name: &'a str,
        method: Method,
        got: Got,
        attempt: u32,
        elapsed: Duration,
        jitter: f64,
        want: RetryDecision,
    }

    fn row<'a>(
        name: &'a str,
        method: Method,
        got: Got,
        attempt: u32,
        want: RetryDecision,
    ) -> Row<'a> {
        Row {
            name,
            method,
            got,
            attempt,
            elapsed: Duration::ZERO,
            jitter: 0.5,
            want,
        }
    }

    fn run(policy: &RetryPolicy, r: &Row<'_>) -> RetryDecision {
        match &r.got {
            Got::Status(code, pairs) => {
                let pairs: Vec<(&'static str, &str)> =
                    pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
                let h = headers(&pairs);
                decide(
                    policy,
                    &RetryInput {
                        method: &r.method,
                        outcome: Outcome::Response {
                            status: StatusCode::from_u16(*code).unwrap(),
                            headers: &h,
                        },
                        attempt: r.attempt,
                        elapsed: r.elapsed,
                        jitter: r.jitter,
                        now: now(),
                    },
                )
            }
            Got::Net(f) => decide(
                policy,
                &RetryInput {
                    method: &r.method,
                    outcome: Outcome::Transport(*f),
                    attempt: r.attempt,
                    elapsed: r.elapsed,
                    jitter: r.jitter,
                    now: now(),
                },
            ),
        }
    }

    use RetryDecision::{RetryAfter, Stop};
    use TransportFailure::*;

    /// A row of `rate_limit_wait_table`: its name, the status, the headers, the wait expected.
    type WaitRow<'a> = (&'a str, u16, Vec<(&'static str, &'a str)>, Option<Duration>);

    #[test]
    fn rate_limit_wait_table() {
        let in_7s = httpdate::fmt_http_date(now() + S(7));
        let rows: Vec<WaitRow> = vec![
            (
                "429 Retry-After seconds",
                429,
                vec![("retry-after", "3")],
                Some(S(3)),
            ),
            (
                "429 Retry-After date",
                429,
                vec![("retry-after", &in_7s)],
                Some(S(7)),
            ),
            (
                "429 Retry-After 0",
                429,
                vec![("retry-after", "0")],
                Some(S(0)),
            ),
            (
                "429 with the reset alone: retried, counted",
                429,
                vec![("x-ratelimit-reset", "1700000010")],
                None,
            ),
            (
                "429 unreadable Retry-After",
                429,
                vec![("retry-after", "soon")],
                None,
            ),
            (
                "503 Retry-After: not a rate limit",
                503,
                vec![("retry-after", "3")],
                None,
            ),
            ("200", 200, vec![("retry-after", "3")], None),
        ];
        for (name, status, pairs, want) in rows {
            let got = rate_limit_wait(
                StatusCode::from_u16(status).unwrap(),
                &headers(&pairs),
                now(),
            );
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn decision_table() {
        let p = RetryPolicy::default();
        let http_date_in_7s = httpdate::fmt_http_date(now() + S(7));
        let http_date_past = httpdate::fmt_http_date(now() - S(30));
        let reset_in_12s = (1_700_000_000u64 + 12).to_string();
        let reset_in_60s = (1_700_000_000u64 + 60).to_string();
        let reset_past = (1_700_000_000u64 - 5).to_string();
        let rows = vec![
            // Successes and non-retryable statuses.
            row(
                "200 stops",
                Method::GET,
                Got::Status(200, vec![]),
                1,
                Stop(StopReason::Success),
            ),
            row(
                "204 stops",
                Method::DELETE,
                Got::Status(204, vec![]),
                1,
                Stop(StopReason::Success),
            ),
            row(
                "304 stops",
                Method::GET,
                Got::Status(304, vec![]),
                1,
                Stop(StopReason::Success),
            ),
            row(
                "400 stops",
                Method::GET,
                Got::Status(400, vec![]),
                1,
                Stop(StopReason::NotRetryable(StatusCode::BAD_REQUEST)),
            ),
            row(
                "401 stops",
                Method::GET,
                Got::Status(401, vec![]),
                1,
                Stop(StopReason::NotRetryable(StatusCode::UNAUTHORIZED)),
            ),
            row(
                "403 stops even with retry-after",
                Method::GET,
                Got::Status(403, hs(&[("retry-after", "1")])),
                1,
                Stop(StopReason::NotRetryable(StatusCode::FORBIDDEN)),
            ),
            row(
                "404 stops",
                Method::GET,
                Got::Status(404, vec![]),
                1,
                Stop(StopReason::NotRetryable(StatusCode::NOT_FOUND)),
            ),
            row(
                "422 stops",
                Method::POST,
                Got::Status(422, vec![]),
                1,
                Stop(StopReason::NotRetryable(StatusCode::UNPROCESSABLE_ENTITY)),
            ),
            row(
                "501 stops",
                Method::GET,
                Got::Status(501, vec![]),
                1,
                Stop(StopReason::NotRetryable(StatusCode::NOT_IMPLEMENTED)),
            ),
            // Retryable statuses on idempotent methods: jitter 0.5 of the 200 ms cap.
            row(
                "GET 408 retries",
                Method::GET,
                Got::Status(408, vec![]),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "GET 429 retries",
                Method::GET,
                Got::Status(429, vec![]),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "GET 500 retries",
                Method::GET,
                Got::Status(500, vec![]),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "GET 502 retries",
                Method::GET,
                Got::Status(502, vec![]),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "PUT 503 retries",
                Method::PUT,
                Got::Status(503, vec![]),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "DELETE 504 retries",
                Method::DELETE,
                Got::Status(504, vec![]),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "HEAD 500 retries",
                Method::HEAD,
                Got::Status(500, vec![]),
                1,
                RetryAfter(MS(100)),
            ),
            // Backoff doubles with the attempt.
            row(
                "GET 500 attempt 2 doubles",
                Method::GET,
                Got::Status(500, vec![]),
                2,
                RetryAfter(MS(200)),
            ),
            // Non-idempotent methods: only 429 and ConnectFailed.
            row(
                "POST 429 retries",
                Method::POST,
                Got::Status(429, vec![]),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "PATCH 429 retries",
                Method::PATCH,
                Got::Status(429, vec![]),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "POST 500 stops",
                Method::POST,
                Got::Status(500, vec![]),
                1,
                Stop(StopReason::NotIdempotent),
            ),
            row(
                "POST 502 stops",
                Method::POST,
                Got::Status(502, vec![]),
                1,
                Stop(StopReason::NotIdempotent),
            ),
            row(
                "POST 503 with retry-after stops",
                Method::POST,
                Got::Status(503, hs(&[("retry-after", "1")])),
                1,
                Stop(StopReason::NotIdempotent),
            ),
            row(
                "POST 504 stops",
                Method::POST,
                Got::Status(504, vec![]),
                1,
                Stop(StopReason::NotIdempotent),
            ),
            row(
                "PATCH 408 stops",
                Method::PATCH,
                Got::Status(408, vec![]),
                1,
                Stop(StopReason::NotIdempotent),
            ),
            row(
                "POST connect failed retries",
                Method::POST,
                Got::Net(ConnectFailed),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "PATCH connect failed retries",
                Method::PATCH,
                Got::Net(ConnectFailed),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "POST timeout stops",
                Method::POST,
                Got::Net(TimedOut),
                1,
                Stop(StopReason::NotIdempotent),
            ),
            row(
                "POST reset stops",
                Method::POST,
                Got::Net(ConnectionReset),
                1,
                Stop(StopReason::NotIdempotent),
            ),
            row(
                "POST truncated stops",
                Method::POST,
                Got::Net(BodyTruncated),
                1,
                Stop(StopReason::NotIdempotent),
            ),
            row(
                "POST other stops",
                Method::POST,
                Got::Net(Other),
                1,
                Stop(StopReason::NotIdempotent),
            ),
            row(
                "CONNECT treated as non-idempotent",
                Method::CONNECT,
                Got::Net(TimedOut),
                1,
                Stop(StopReason::NotIdempotent),
            ),
            // Transport failures on idempotent methods.
            row(
                "GET connect failed retries",
                Method::GET,
                Got::Net(ConnectFailed),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "GET timeout retries",
                Method::GET,
                Got::Net(TimedOut),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "GET reset retries",
                Method::GET,
                Got::Net(ConnectionReset),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "GET truncated retries",
                Method::GET,
                Got::Net(BodyTruncated),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "GET refused redirect stops",
                Method::GET,
                Got::Net(Redirected),
                1,
                Stop(StopReason::Redirected),
            ),
            row(
                "POST refused redirect stops",
                Method::POST,
                Got::Net(Redirected),
                1,
                Stop(StopReason::Redirected),
            ),
            row(
                "DELETE other retries",
                Method::DELETE,
                Got::Net(Other),
                1,
                RetryAfter(MS(100)),
            ),
            // Attempts.
            row(
                "attempt 3 of 3 stops",
                Method::GET,
                Got::Status(503, vec![]),
                3,
                Stop(StopReason::AttemptsExhausted),
            ),
            row(
                "attempt 9 of 3 stops",
                Method::GET,
                Got::Net(TimedOut),
                9,
                Stop(StopReason::AttemptsExhausted),
            ),
            row(
                "non-idempotent reason wins over attempts",
                Method::POST,
                Got::Status(500, vec![]),
                3,
                Stop(StopReason::NotIdempotent),
            ),
            row(
                "success wins over attempts",
                Method::GET,
                Got::Status(200, vec![]),
                3,
                Stop(StopReason::Success),
            ),
            // Retry-After.
            row(
                "retry-after seconds larger than backoff",
                Method::GET,
                Got::Status(429, hs(&[("retry-after", "3")])),
                1,
                RetryAfter(S(3)),
            ),
            row(
                "retry-after seconds smaller than backoff",
                Method::GET,
                Got::Status(503, hs(&[("retry-after", "0")])),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "retry-after on 503",
                Method::GET,
                Got::Status(503, hs(&[("retry-after", "2")])),
                1,
                RetryAfter(S(2)),
            ),
            row(
                "retry-after with spaces",
                Method::GET,
                Got::Status(503, hs(&[("retry-after", " 4 ")])),
                1,
                RetryAfter(S(4)),
            ),
            row(
                "retry-after decimal",
                Method::GET,
                Got::Status(429, hs(&[("retry-after", "1.5")])),
                1,
                RetryAfter(MS(1500)),
            ),
            row(
                "retry-after http date",
                Method::GET,
                Got::Status(429, hs(&[("retry-after", &http_date_in_7s)])),
                1,
                RetryAfter(S(7)),
            ),
            row(
                "retry-after date in the past",
                Method::GET,
                Got::Status(429, hs(&[("retry-after", &http_date_past)])),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "retry-after garbage ignored",
                Method::GET,
                Got::Status(429, hs(&[("retry-after", "soon")])),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "retry-after negative ignored",
                Method::GET,
                Got::Status(429, hs(&[("retry-after", "-5")])),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "POST 429 honours retry-after",
                Method::POST,
                Got::Status(429, hs(&[("retry-after", "5")])),
                1,
                RetryAfter(S(5)),
            ),
            row(
                "retry-after beyond budget stops",
                Method::GET,
                Got::Status(429, hs(&[("retry-after", "61")])),
                1,
                Stop(StopReason::DeadlineExceeded { wait: S(61) }),
            ),
            row(
                "retry-after exceeds max_delay but fits budget",
                Method::GET,
                Got::Status(429, hs(&[("retry-after", "45")])),
                1,
                RetryAfter(S(45)),
            ),
            // X-RateLimit-Reset.
            row(
                "429 reset epoch",
                Method::GET,
                Got::Status(429, hs(&[("x-ratelimit-reset", &reset_in_12s)])),
                1,
                RetryAfter(S(12)),
            ),
            row(
                "429 reset larger than retry-after",
                Method::GET,
                Got::Status(
                    429,
                    hs(&[("retry-after", "3"), ("x-ratelimit-reset", &reset_in_12s)]),
                ),
                1,
                RetryAfter(S(12)),
            ),
            row(
                "429 retry-after larger than reset",
                Method::GET,
                Got::Status(
                    429,
                    hs(&[("retry-after", "20"), ("x-ratelimit-reset", &reset_in_12s)]),
                ),
                1,
                RetryAfter(S(20)),
            ),
            row(
                "429 reset in the past",
                Method::GET,
                Got::Status(429, hs(&[("x-ratelimit-reset", &reset_past)])),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "429 reset garbage ignored",
                Method::GET,
                Got::Status(429, hs(&[("x-ratelimit-reset", "tomorrow")])),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "503 reset ignored while requests remain",
                Method::GET,
                Got::Status(
                    503,
                    hs(&[
                        ("x-ratelimit-reset", &reset_in_12s),
                        ("x-ratelimit-remaining", "40"),
                    ]),
                ),
                1,
                RetryAfter(MS(100)),
            ),
            row(
                "503 reset honoured when none remain",
                Method::GET,
                Got::Status(
                    503,
                    hs(&[
                        ("x-ratelimit-reset", &reset_in_12s),
                        ("x-ratelimit-remaining", "0"),
                    ]),
                ),
                1,
                RetryAfter(S(12)),
            ),
            row(
                "503 with none remaining waits one leak interval of the announced rate, not the reset",
                Method::GET,
                Got::Status(
                    503,
                    hs(&[
                        ("x-ratelimit-limit", "120"),
                        ("x-ratelimit-reset", &reset_in_60s),
                        ("x-ratelimit-remaining", "0"),
                    ]),
                ),
                1,
                RetryAfter(MS(500)),
            ),
            row(
                "503 with none remaining never waits past the reset",
                Method::GET,
                Got::Status(
                    503,
                    hs(&[
                        ("x-ratelimit-limit", "1"),
                        ("x-ratelimit-reset", &reset_in_12s),
                        ("x-ratelimit-remaining", "0"),
                    ]),
                ),
                1,
                RetryAfter(S(12)),
            ),
            row(
                "500 reset ignored without remaining",
                Method::GET,
                Got::Status(500, hs(&[("x-ratelimit-reset", &reset_in_12s)])),
                1,
                RetryAfter(MS(100)),
            ),
            // Header names are case-insensitive (HeaderMap lowercases them).
            row(
                "Retry-After capitalised",
                Method::GET,
                Got::Status(429, hs(&[("Retry-After", "2")])),
                1,
                RetryAfter(S(2)),
            ),
        ];
        let mut failures = Vec::new();
        for r in &rows {
            let got = run(&p, r);
            if got != r.want {
                failures.push(format!("{}: got {:?}, want {:?}", r.name, got, r.want));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn backoff_doubles_until_max_delay() {
        let p = RetryPolicy::default().with_max_attempts(100);
        let caps: Vec<_> = (1..=10).map(|a| p.backoff_cap(a)).collect();
        assert_eq!(
            caps,
            vec![
                MS(200),
                MS(400),
                MS(800),
                MS(1600),
                MS(3200),
                MS(6400),
                MS(12800),
                S(20),
                S(20),
                S(20)
            ]
        );
        assert_eq!(p.backoff_cap(0), MS(200));
        assert_eq!(p.backoff_cap(u32::MAX), S(20));
    }

    #[test]
    fn full_jitter_spans_zero_to_just_below_the_cap() {
        let p = RetryPolicy::default().with_max_attempts(10);
        let at = |jitter: f64, attempt: u32| {
            let mut r = row(
                "",
                Method::GET,
                Got::Net(TimedOut),
                attempt,
                Stop(StopReason::Success),
            );
            r.jitter = jitter;
            run(&p, &r)
        };
        assert_eq!(at(0.0, 1), RetryAfter(Duration::ZERO));
        assert_eq!(at(0.25, 3), RetryAfter(MS(200)));
        let RetryAfter(top) = at(0.999_999_999_9, 1) else {
            panic!("expected a retry")
        };
        assert!(top < MS(200) && top > MS(199));
    }

    #[test]
    fn out_of_range_jitter_is_clamped_not_a_panic() {
        let p = RetryPolicy::default();
        for (jitter, want) in [
            (f64::NAN, Duration::ZERO),
            (-3.0, Duration::ZERO),
            (f64::NEG_INFINITY, Duration::ZERO),
            (7.0, MS(200) - Duration::from_nanos(1)),
            (f64::INFINITY, MS(200) - Duration::from_nanos(1)),
        ] {
            let mut r = row(
                "",
                Method::GET,
                Got::Status(500, vec![]),
                1,
                Stop(StopReason::Success),
            );
            r.jitter = jitter;
            assert_eq!(run(&p, &r), RetryAfter(want), "jitter {jitter}");
        }
    }

    #[test]
    fn stops_when_the_wait_would_pass_the_total_budget() {
        let p = RetryPolicy::default();
        let mut r = row(
            "",
            Method::GET,
            Got::Status(503, hs(&[("retry-after", "10")])),
            1,
            Stop(StopReason::Success),
        );
        r.elapsed = S(50);
        assert_eq!(run(&p, &r), RetryAfter(S(10)), "ends exactly at 60 s");
        r.elapsed = S(51);
        assert_eq!(
            run(&p, &r),
            Stop(StopReason::DeadlineExceeded { wait: S(10) })
        );
        r.elapsed = Duration::MAX;
        assert_eq!(
            run(&p, &r),
            Stop(StopReason::DeadlineExceeded { wait: S(10) }),
            "overflow is a stop, not a panic"
        );
    }

    #[test]
    fn huge_retry_after_is_a_stop_not_a_panic() {
        let p = RetryPolicy::default();
        let big = u64::MAX.to_string();
        let r = row(
            "",
            Method::GET,
            Got::Status(
                429,
                hs(&[("retry-after", &big), ("x-ratelimit-reset", &big)]),
            ),
            1,
            Stop(StopReason::Success),
        );
        assert!(matches!(
            run(&p, &r),
            Stop(StopReason::DeadlineExceeded { .. })
        ));
        let r = row(
            "",
            Method::GET,
            Got::Status(429, hs(&[("retry-after", "1e308")])),
            1,
            Stop(StopReason::Success),
        );
        assert!(matches!(
            run(&p, &r),
            RetryAfter(_) | Stop(StopReason::DeadlineExceeded { .. })
        ));
    }

    #[test]
    fn no_retries_policy_never_retries() {
        let p = RetryPolicy::no_retries();
        let r = row(
            "",
            Method::GET,
            Got::Status(503, vec![]),
            1,
            Stop(StopReason::Success),
        );
        assert_eq!(run(&p, &r), Stop(StopReason::AttemptsExhausted));
    }

    #[test]
    fn budget_starts_full_and_charges_five_per_retry_and_ten_per_timeout() {
        let b = RetryBudget::default();
        assert_eq!(b.available(), 500);
        let h = HeaderMap::new();
        let status = Outcome::Response {
            status: StatusCode::SERVICE_UNAVAILABLE,
            headers: &h,
        };
        assert!(b.try_withdraw(&status));
        assert_eq!(b.available(), 495);
        assert!(b.try_withdraw(&Outcome::Transport(TimedOut)));
        assert_eq!(b.available(), 485);
        assert!(b.try_withdraw(&Outcome::Transport(ConnectionReset)));
        assert_eq!(b.available(), 480);
    }

    #[test]
    fn budget_refuses_when_empty_and_refills_on_success_up_to_capacity() {
        let b = RetryBudget::new(12);
        let o = Outcome::Transport(TimedOut);
        assert!(b.try_withdraw(&o));
        assert_eq!(b.available(), 2);
        assert!(!b.try_withdraw(&o), "10 needed, 2 left");
        assert_eq!(b.available(), 2, "a refused withdrawal takes nothing");
        for _ in 0..8 {
            b.record_success();
        }
        assert_eq!(b.available(), 10);
        assert!(b.try_withdraw(&o));
        for _ in 0..100 {
            b.record_success();
        }
        assert_eq!(b.available(), 12, "never above capacity");
    }

    #[test]
    fn decide_with_budget_stops_when_the_budget_is_spent() {
        let p = RetryPolicy::default();
        let budget = RetryBudget::new(7);
        let h = HeaderMap::new();
        let input = RetryInput {
            method: &Method::GET,
            outcome: Outcome::Response {
                status: StatusCode::BAD_GATEWAY,
                headers: &h,
            },
            attempt: 1,
            elapsed: Duration::ZERO,
            jitter: 0.5,
            now: now(),
        };
        assert_eq!(decide_with_budget(&p, &input, &budget), RetryAfter(MS(100)));
        assert_eq!(
            decide_with_budget(&p, &input, &budget),
            Stop(StopReason::BudgetExhausted)
        );
        // A stop from `decide` itself spends nothing.
        let stop = RetryInput {
            attempt: 3,
            ..input
        };
        assert_eq!(
            decide_with_budget(&p, &stop, &budget),
            Stop(StopReason::AttemptsExhausted)
        );
        assert_eq!(budget.available(), 2);
    }

    #[test]
    fn budget_is_exact_under_concurrent_use() {
        let budget = Arc::new(RetryBudget::new(500));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let b = Arc::clone(&budget);
                std::thread::spawn(move || {
                    let mut granted = 0;
                    for _ in 0..50 {
                        if b.try_withdraw(&Outcome::Transport(ConnectionReset)) {
                            granted += 1;
                        }
                    }
                    granted
                })
            })
            .collect();
        let granted: u32 = threads.into_iter().map(|t| t.join().unwrap()).sum();
        assert_eq!(granted, 100, "500 tokens / 5 per retry");
        assert_eq!(budget.available(), 0);
    }
}

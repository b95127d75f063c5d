//! A client-side rate limiter per store, so bulk jobs never meet a 429.
//!
//! The service limits each store with a leaky bucket sized by plan (120, 360 or 720 requests a
//! minute). [`RateLimit`] mirrors it with a [`governor`] limiter (GCRA, the leaky bucket's
//! equivalent) and stays in step with the server through [`RateLimit::observe`]: when a response
//! says fewer requests remain than the local bucket allows, at most that many more are sent
//! before `X-RateLimit-Reset`; when none remain, or `Retry-After` is given, sending pauses until
//! then. One `RateLimit` per store; share it (it is `Sync`) between everything calling that store.
//!
//! Time comes from Tokio's clock, so tests can run with paused time.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use store_admin::ratelimit::{Plan, RateLimit};
//!
//! let limit = RateLimit::plan(Plan::Plus);
//! limit.acquire().await; // waits when the minute's budget is spent
//! // ... send the request, then:
//! // limit.observe(response.headers());
//! # }
//! ```

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::ops::Add;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;

use governor::clock::{Clock, Reference};
use governor::nanos::Nanos;
use http::{HeaderMap, StatusCode};
use tokio::time::Instant;

mod headers;
pub mod learn;
#[cfg(feature = "redis")]
mod redis;

pub use headers::RateLimitHeaders;
use learn::{Answer, Bounds, Known, Rate};
#[cfg(feature = "redis")]
pub use redis::{RedisRateLimiter, RedisRateLimiters};

/// What the client asks of a rate limiter, wherever its bucket lives: [`RateLimit`] in this
/// process, `RedisRateLimiter` (feature `redis`) shared by every process calling one store.
#[async_trait]
pub trait RateLimiter: Send + Sync + std::fmt::Debug {
    /// Waits until one more request may be sent, and counts it.
    async fn acquire(&self);

    /// Counts one more request if it may be sent now, without waiting; `false` when it must wait,
    /// and then [`RateLimiter::acquire`] waits. The client asks this first, so that a call the
    /// limiter lets through at once allocates no future for the wait. By default `false`: every
    /// request goes through [`RateLimiter::acquire`] (as with a limiter whose count is remote).
    fn try_acquire(&self) -> bool {
        false
    }

    /// How long the next request would wait now, if the limiter can tell without counting it
    /// (by default it cannot: `None`). The client logs it before it waits, and ends a call whose
    /// wait would pass its deadline at once, saying that the store's rate is the cause.
    fn next_wait(&self) -> Option<Duration> {
        None
    }

    /// The rate kept to, in requests a minute, if the limiter knows it (by default `None`).
    fn per_minute(&self) -> Option<f64> {
        None
    }

    /// Reads a response's `X-RateLimit-*` and `Retry-After` to stay in step with the server.
    fn observe(&self, headers: &HeaderMap);

    /// Reads one answer: its status (a 429 teaches more than a success), its headers, and
    /// whether its endpoint has a bucket of its own (`own_bucket`: the customers endpoints, whose
    /// headers describe that bucket, not the store's). The client calls this one; by default,
    /// [`RateLimiter::observe`] of an answer of the store's bucket.
    fn observe_answer(&self, status: StatusCode, headers: &HeaderMap, own_bucket: bool) {
        let _ = status;
        if !own_bucket {
            self.observe(headers);
        }
    }
}

#[async_trait]
impl RateLimiter for RateLimit {
    async fn acquire(&self) {
        RateLimit::acquire(self).await;
    }

    fn try_acquire(&self) -> bool {
        self.try_acquire_at(Instant::now()).is_ok()
    }

    fn next_wait(&self) -> Option<Duration> {
        RateLimit::next_wait(self)
    }

    fn per_minute(&self) -> Option<f64> {
        let rate = self.known().rate()?;
        Some(60.0 / rate.interval.as_secs_f64().max(f64::MIN_POSITIVE))
    }

    fn observe(&self, headers: &HeaderMap) {
        RateLimit::observe(self, headers);
    }

    fn observe_answer(&self, status: StatusCode, headers: &HeaderMap, own_bucket: bool) {
        if own_bucket {
            return;
        }
        self.observe_answer_parsed(&Answer {
            too_many: status == StatusCode::TOO_MANY_REQUESTS,
            own_bucket,
            headers: RateLimitHeaders::parse(headers, SystemTime::now()),
        });
    }
}

/// The rate limiters of many merchant stores, one each, keyed by the merchant's id.
pub trait RateLimiters: Send + Sync {
    /// The limiter of `merchant`.
    fn for_merchant(&self, merchant: &str) -> Arc<dyn RateLimiter>;
}

/// A [`RateLimit`] per merchant store in this process, every one sized to the same plan.
#[derive(Debug)]
pub struct LocalRateLimits {
    per_minute: NonZeroU32,
    limits: Mutex<HashMap<String, Arc<RateLimit>>>,
}

impl LocalRateLimits {
    /// One bucket of `plan` per merchant store.
    pub fn plan(plan: Plan) -> Self {
        LocalRateLimits::per_minute(plan.per_minute())
    }

    /// One bucket of `n` requests a minute per merchant store.
    pub fn per_minute(n: NonZeroU32) -> Self {
        LocalRateLimits {
            per_minute: n,
            limits: Mutex::new(HashMap::new()),
        }
    }
}

impl RateLimiters for LocalRateLimits {
    fn for_merchant(&self, merchant: &str) -> Arc<dyn RateLimiter> {
        let mut limits = self.limits.lock().unwrap_or_else(PoisonError::into_inner);
        limits
            .entry(merchant.to_owned())
            .or_insert_with(|| Arc::new(RateLimit::per_minute(self.per_minute)))
            .clone()
    }
}

/// The store's subscription plan, which sets its request rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Plan {
    /// 120 requests per minute.
    Plus,
    /// 360 requests per minute.
    Pro,
    /// 720 requests per minute.
    Special,
}

impl Plan {
    /// Requests per minute allowed on this plan.
    pub fn per_minute(self) -> NonZeroU32 {
        match self {
            Plan::Plus => NonZeroU32::new(120),
            Plan::Pro => NonZeroU32::new(360),
            Plan::Special => NonZeroU32::new(720),
        }
        .unwrap_or(NonZeroU32::MIN)
    }
}

/// A rate-limit configuration was invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RateLimitError {
    /// Zero requests per period.
    #[error("a rate limit must allow at least one request per period")]
    ZeroRate,
    /// A zero-length period.
    #[error("a rate-limit period must be longer than zero")]
    ZeroPeriod,
}

/// An instant of Tokio's clock, for governor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct TokioInstant(Instant);

impl Add<Nanos> for TokioInstant {
    type Output = TokioInstant;

    fn add(self, other: Nanos) -> TokioInstant {
        let d: Duration = other.into();
        TokioInstant(self.0.checked_add(d).unwrap_or(self.0))
    }
}

impl Reference for TokioInstant {
    fn duration_since(&self, earlier: Self) -> Nanos {
        self.0.saturating_duration_since(earlier.0).into()
    }

    fn saturating_sub(&self, duration: Nanos) -> Self {
        TokioInstant(self.0.checked_sub(duration.into()).unwrap_or(self.0))
    }
}

/// Tokio's clock (`tokio::time::Instant::now`), which follows `tokio::time::pause`.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioClock;

impl Clock for TokioClock {
    type Instant = TokioInstant;

    fn now(&self) -> TokioInstant {
        TokioInstant(Instant::now())
    }
}

/// What the server last said about its bucket, and the limiter's own bucket.
#[derive(Debug)]
struct ServerState {
    /// Requests the server still allows before `window_end`.
    remaining: Option<u32>,
    /// When the server's window resets (`X-RateLimit-Reset`).
    window_end: Option<Instant>,
    /// The raw `X-RateLimit-Reset` value, which identifies the window.
    window_id: Option<u64>,
    /// No request before this instant (nothing remains, or `Retry-After`).
    paused_until: Option<Instant>,
    /// How often the server's bucket frees a slot (60 s / `X-RateLimit-Limit`).
    leak_interval: Option<Duration>,
    /// The rate kept to: the starting one, or what the store taught ([`learn::learn`]).
    known: Known,
    /// The limiter's own leaky bucket (GCRA): the instant it would be empty, `None` when it is.
    tat: Option<Instant>,
}

impl ServerState {
    /// The store's rate is now `known`: the bucket keeps its level (in requests) at the new rate.
    fn relearn(&mut self, known: Known, now: Instant) {
        if let (Some(old), Some(new), Some(tat)) = (self.known.rate(), known.rate(), self.tat)
            && old != new
        {
            let level = tat.saturating_duration_since(now).as_secs_f64()
                / old.interval.as_secs_f64().max(f64::MIN_POSITIVE);
            self.tat = Some(now + new.interval.mul_f64(level.min(f64::from(new.burst.get()))));
        }
        self.known = known;
    }

    /// When the next request may go by the limiter's own bucket (`Err`), or `Ok` with the
    /// bucket's new empty instant once it is counted.
    fn gcra(&self, now: Instant) -> Result<Option<Instant>, Instant> {
        let Some(rate) = self.known.rate() else {
            return Ok(None);
        };
        let tat = self.tat.map_or(now, |tat| tat.max(now));
        let room = rate.interval * (rate.burst.get() - 1);
        match tat.checked_sub(room) {
            Some(allow_at) if allow_at > now => Err(allow_at),
            _ => Ok(Some(tat + rate.interval)),
        }
    }
}

/// A per-store request rate limiter. See the module documentation.
pub struct RateLimit {
    bounds: Bounds,
    per_period: NonZeroU32,
    period: Duration,
    max_pause: Duration,
    server: Mutex<ServerState>,
}

impl std::fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimit")
            .field("per_period", &self.per_period)
            .field("period", &self.period)
            .field("ceiling", &self.bounds.ceiling.is_some())
            .field("max_pause", &self.max_pause)
            .field(
                "server",
                &*self.server.lock().unwrap_or_else(PoisonError::into_inner),
            )
            .finish()
    }
}

impl RateLimit {
    /// The limit of a plan, as a ceiling (see [`RateLimit::per_minute`]).
    pub fn plan(plan: Plan) -> Self {
        RateLimit::per_minute(plan.per_minute())
    }

    /// `n` requests a minute, the whole minute's worth usable at once (as the server's bucket).
    /// A configured rate is a ceiling: the store's headers can lower it, never raise it.
    pub fn per_minute(n: NonZeroU32) -> Self {
        RateLimit::build(n, Duration::from_secs(60), true)
    }

    /// `n` requests per `period` (the customers endpoints: 500 per 10 minutes), as a ceiling.
    pub fn per_period(n: u32, period: Duration) -> Result<Self, RateLimitError> {
        let n = NonZeroU32::new(n).ok_or(RateLimitError::ZeroRate)?;
        if period.is_zero() {
            return Err(RateLimitError::ZeroPeriod);
        }
        Ok(RateLimit::build(n, period, true))
    }

    /// What every client gets unless told otherwise: `plan`'s rate until the store announces its
    /// own (`X-RateLimit-Limit`), which is then kept to, up or down; not limited while the store
    /// sends no rate-limit header at all (see [`learn`]).
    pub fn learning(plan: Plan) -> Self {
        RateLimit::build(plan.per_minute(), Duration::from_secs(60), false)
    }

    fn build(n: NonZeroU32, period: Duration, ceiling: bool) -> Self {
        let start = Rate::per_period(n, period);
        RateLimit {
            bounds: Bounds {
                start,
                ceiling: ceiling.then_some(start),
            },
            per_period: n,
            period,
            max_pause: Duration::from_secs(60),
            server: Mutex::new(ServerState {
                remaining: None,
                window_end: None,
                window_id: None,
                paused_until: None,
                leak_interval: None,
                known: Known::Assumed(start),
                tat: None,
            }),
        }
    }

    /// Caps how long one server hint may pause sending (default 60 s), so a wrong header cannot
    /// stall the client for hours.
    pub fn with_max_pause(mut self, max_pause: Duration) -> Self {
        self.max_pause = max_pause;
        self
    }

    /// Requests allowed per period, as configured (or the plan a learning limiter starts at).
    pub fn capacity(&self) -> NonZeroU32 {
        self.per_period
    }

    /// What the limiter knows of the store's rate now.
    pub fn known(&self) -> Known {
        self.server
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .known
    }

    /// Waits until one more request may be sent, and counts it.
    pub async fn acquire(&self) {
        while let Err(until) = self.try_acquire_at(Instant::now()) {
            tokio::time::sleep_until(until).await;
        }
    }

    /// Counts one request now if the server's state and the limiter's bucket allow it, else says
    /// until when to wait. One lock: this is on every call's path.
    fn try_acquire_at(&self, now: Instant) -> Result<(), Instant> {
        let mut state = self.server.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(until) = self.server_wait(&mut state, now) {
            return Err(until);
        }
        // Never past the store's reset (and its second): its bucket is empty then, and so is
        // the limiter's.
        let tat = state.gcra(now).map_err(|allow_at| {
            state
                .window_end
                .filter(|end| *end > now)
                .map_or(allow_at, |end| allow_at.min(end + learn::RESET_GRAIN))
        })?;
        if !self.take_server_slot(&mut state, now) {
            return Err(state.paused_until.unwrap_or(now));
        }
        if tat.is_some() {
            state.tat = tat;
        }
        Ok(())
    }

    /// Sends nothing before this instant, if the server asked for a pause.
    pub fn paused_until(&self) -> Option<Instant> {
        let state = self.server.lock().unwrap_or_else(PoisonError::into_inner);
        state.paused_until.filter(|t| *t > Instant::now())
    }

    /// When the next request must wait for the server (paused, or its window spent).
    fn server_wait(&self, state: &mut ServerState, now: Instant) -> Option<Instant> {
        if let Some(until) = state.paused_until {
            if until > now {
                return Some(until);
            }
            state.paused_until = None;
        }
        if let Some(end) = state.window_end
            && end <= now
        {
            // The server's window has reset: forget its count until the next response, and
            // resume: the store said its bucket is empty by now, so the limiter's own is too (a
            // store announcing 1 a minute with its reset 3 s away answers again in 3 s, not 63).
            state.window_end = None;
            state.window_id = None;
            state.remaining = None;
            // (The header is in whole seconds: the bucket may drain up to a second after it.)
            state.tat = state.tat.map(|tat| tat.min(end + learn::RESET_GRAIN));
        }
        None
    }

    /// How long the next request would wait now, without counting it: `None` when it may go at
    /// once. What the client logs before it waits, and checks against the call's deadline.
    pub fn next_wait(&self) -> Option<Duration> {
        let now = Instant::now();
        let state = self.server.lock().unwrap_or_else(PoisonError::into_inner);
        let paused = state.paused_until.filter(|until| *until > now);
        // After the window's reset the limiter's own bucket resumes (see `server_wait`).
        let reset = state.window_end.filter(|end| *end > now);
        let own = match state.gcra(now) {
            Err(allow_at) => {
                Some(reset.map_or(allow_at, |end| allow_at.min(end + learn::RESET_GRAIN)))
            }
            Ok(_) => None,
        };
        let until = match (paused, own) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        until.map(|until| until.saturating_duration_since(now))
    }

    /// Counts a request against the server's reported remainder; `false` (and a pause until the
    /// reset) when it is spent.
    fn take_server_slot(&self, state: &mut ServerState, now: Instant) -> bool {
        match state.remaining {
            Some(0) => {
                // A leaky bucket frees one slot per leak interval: wait for that, not for the
                // whole window, then ask again (the next response says what is left).
                let leak = now
                    + state
                        .leak_interval
                        .unwrap_or(self.period / self.per_period.get());
                let until = state.window_end.map_or(leak, |end| end.min(leak)).max(now);
                state.paused_until = Some(until);
                state.remaining = None;
                false
            }
            Some(n) => {
                state.remaining = Some(n - 1);
                true
            }
            None => true,
        }
    }

    /// Reads a response's `X-RateLimit-Remaining`, `X-RateLimit-Reset` and `Retry-After` to stay
    /// in step with the server. Unreadable headers are ignored.
    pub fn observe(&self, headers: &HeaderMap) {
        self.observe_at(headers, SystemTime::now());
    }

    /// [`RateLimit::observe`] with the wall-clock time given (the headers' times are wall-clock;
    /// the pauses they cause run on Tokio's clock).
    pub fn observe_at(&self, headers: &HeaderMap, now: SystemTime) {
        self.observe_parsed(&RateLimitHeaders::parse(headers, now));
    }

    /// [`RateLimit::observe`] with the headers already read.
    pub fn observe_parsed(&self, read: &RateLimitHeaders) {
        self.observe_answer_parsed(&Answer {
            headers: *read,
            ..Answer::default()
        });
    }

    /// Reads one answer: learns the store's rate from it ([`learn::learn`]), keeps the bucket at
    /// least as full as the store's ([`learn::backlog`]), and follows `X-RateLimit-Remaining`,
    /// `X-RateLimit-Reset` and `Retry-After`. An answer of an endpoint with a bucket of its own
    /// changes nothing.
    pub fn observe_answer_parsed(&self, answer: &Answer) {
        if answer.own_bucket {
            return;
        }
        let read = &answer.headers;
        let instant_now = Instant::now();
        let in_window = |d: Duration| instant_now + d.min(self.max_pause);
        let remaining = read.remaining;
        let reset = read.reset_in.map(in_window);
        let window_id = read.reset_epoch;
        let retry = read.retry_after.map(in_window);

        let mut state = self.server.lock().unwrap_or_else(PoisonError::into_inner);
        let known = learn::learn(state.known, &self.bounds, answer);
        state.relearn(known, instant_now);
        if let Some(rate) = known.rate()
            && let Some(backlog) = learn::backlog(rate, answer)
        {
            // Never more than a full bucket: a longer wait is a pause, below.
            let floor = instant_now + backlog.min(rate.interval * rate.burst.get());
            state.tat = Some(state.tat.map_or(floor, |tat| tat.max(floor)));
        }
        if let Some(remaining) = remaining {
            let same_window = window_id.is_none() || window_id == state.window_id;
            state.remaining = Some(match state.remaining {
                // Responses to concurrent requests arrive out of order: keep the lowest count.
                Some(known) if same_window => known.min(remaining),
                _ => remaining,
            });
            if reset.is_some() {
                state.window_end = reset;
                state.window_id = window_id;
            } else if state.window_end.is_none() {
                // A count without a reset time: assume the bucket's own period.
                state.window_end = Some(instant_now + self.period.min(self.max_pause));
            }
            if let Some(limit) = read.limit.filter(|l| *l > 0) {
                // X-RateLimit-Limit is per minute; the bucket leaks one request per 60 s / limit.
                state.leak_interval = Some(Duration::from_secs(60) / limit);
            }
            if remaining == 0 {
                // Spent: wait one leak interval (never past the reset), then try one request.
                let leak = instant_now
                    + state
                        .leak_interval
                        .unwrap_or(self.period / self.per_period.get());
                let until = state.window_end.map_or(leak, |end| end.min(leak));
                state.paused_until = Some(state.paused_until.map_or(until, |p| p.max(until)));
                // After the pause one request may go; its response tells what is left.
                state.remaining = None;
            }
        }
        if let Some(until) = retry {
            state.paused_until = Some(state.paused_until.map_or(until, |p| p.max(until)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::UNIX_EPOCH;

    fn headers(pairs: &[(&'static str, String)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().unwrap());
        }
        h
    }

    /// A fixed wall-clock time for the headers, independent of the machine's clock.
    fn wall() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_700_000_000)
    }

    async fn acquire_n(limit: &RateLimit, n: u32) {
        for _ in 0..n {
            limit.acquire().await;
        }
    }

    #[test]
    fn plans_have_the_documented_rates() {
        assert_eq!(Plan::Plus.per_minute().get(), 120);
        assert_eq!(Plan::Pro.per_minute().get(), 360);
        assert_eq!(Plan::Special.per_minute().get(), 720);
        assert_eq!(RateLimit::plan(Plan::Pro).capacity().get(), 360);
    }

    #[test]
    fn zero_rate_or_period_is_an_error() {
        assert_eq!(
            RateLimit::per_period(0, Duration::from_secs(1)).unwrap_err(),
            RateLimitError::ZeroRate
        );
        assert_eq!(
            RateLimit::per_period(5, Duration::ZERO).unwrap_err(),
            RateLimitError::ZeroPeriod
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_bucket_lets_a_minutes_worth_through_at_once() {
        let limit = RateLimit::plan(Plan::Plus);
        let start = Instant::now();
        acquire_n(&limit, 120).await;
        assert_eq!(Instant::now(), start, "no waiting within the burst");
    }

    #[tokio::test(start_paused = true)]
    async fn try_acquire_counts_what_it_lets_through_and_refuses_without_waiting() {
        let limit = RateLimit::per_minute(NonZeroU32::new(3).unwrap());
        let limiter: &dyn RateLimiter = &limit;
        let start = Instant::now();
        assert!((0..3).all(|_| limiter.try_acquire()), "the full bucket");
        assert!(!limiter.try_acquire(), "spent: refused at once");
        assert_eq!(Instant::now(), start, "nothing waited");
        // A refusal counts nothing: the next request goes one leak interval (20 s) later.
        limiter.acquire().await;
        assert_eq!(Instant::now() - start, Duration::from_secs(20));
        tokio::time::advance(Duration::from_secs(20)).await;
        assert!(limiter.try_acquire(), "one leak interval later");
        assert!(!limiter.try_acquire());
    }

    #[tokio::test(start_paused = true)]
    async fn beyond_the_burst_requests_leak_at_the_plan_rate() {
        let limit = RateLimit::plan(Plan::Plus);
        let start = Instant::now();
        acquire_n(&limit, 120).await;
        limit.acquire().await;
        // 120 a minute is one every 500 ms.
        assert_eq!(Instant::now() - start, Duration::from_millis(500));
        acquire_n(&limit, 10).await;
        assert_eq!(Instant::now() - start, Duration::from_millis(500 * 11));
    }

    #[tokio::test(start_paused = true)]
    async fn per_period_spreads_over_the_period() {
        let limit = RateLimit::per_period(2, Duration::from_secs(10)).unwrap();
        let start = Instant::now();
        acquire_n(&limit, 3).await;
        assert_eq!(Instant::now() - start, Duration::from_secs(5));
    }

    #[tokio::test(start_paused = true)]
    async fn a_store_announcing_one_a_minute_is_called_again_at_its_reset_not_a_minute_later() {
        // X-RateLimit-Limit: 1 alone is one request every 63 s (the margin included); the store
        // also says its bucket is empty in 3 s: the next request goes then (and the second the
        // header's whole seconds may hide).
        let limit = RateLimit::learning(Plan::Plus);
        let start = Instant::now();
        limit.acquire().await;
        let reset = (1_700_000_000u64 + 3).to_string();
        limit.observe_at(
            &headers(&[
                ("x-ratelimit-limit", "1".into()),
                ("x-ratelimit-remaining", "0".into()),
                ("x-ratelimit-reset", reset),
            ]),
            wall(),
        );
        assert_eq!(
            limit.next_wait(),
            Some(Duration::from_secs(4)),
            "told before"
        );
        limit.acquire().await;
        assert_eq!(Instant::now() - start, Duration::from_secs(4));
        let limiter: &dyn RateLimiter = &limit;
        let per_minute = limiter.per_minute().expect("learned");
        assert!((per_minute - 60.0 / 63.0).abs() < 1e-9, "{per_minute}");
        // Without a new answer the learned rate holds: the next one waits its interval.
        assert_eq!(limit.next_wait(), Some(Duration::from_secs(63)));
    }

    #[tokio::test(start_paused = true)]
    async fn zero_remaining_pauses_one_leak_interval_not_the_whole_window() {
        // The server's bucket (60 a minute) leaks one request a second: waiting for that is
        // enough; waiting for the 20 s reset would waste 19 s.
        let limit = RateLimit::plan(Plan::Special);
        limit.acquire().await;
        let reset = (1_700_000_000u64 + 20).to_string();
        limit.observe_at(
            &headers(&[
                ("x-ratelimit-limit", "60".into()),
                ("x-ratelimit-remaining", "0".into()),
                ("x-ratelimit-reset", reset),
            ]),
            wall(),
        );
        let start = Instant::now();
        assert_eq!(limit.paused_until(), Some(start + Duration::from_secs(1)));
        limit.acquire().await;
        assert_eq!(Instant::now() - start, Duration::from_secs(1));
        assert_eq!(limit.paused_until(), None);
    }

    #[tokio::test(start_paused = true)]
    async fn zero_remaining_never_waits_past_the_reset_and_its_second() {
        let limit = RateLimit::plan(Plan::Plus);
        limit.observe_at(
            &headers(&[
                ("x-ratelimit-limit", "1".into()),
                ("x-ratelimit-remaining", "0".into()),
                ("x-ratelimit-reset", (1_700_000_000u64 + 3).to_string()),
            ]),
            wall(),
        );
        let start = Instant::now();
        limit.acquire().await;
        // The reset comes before the leak interval (60 s at 1 a minute); the header is in whole
        // seconds, so the bucket may drain up to a second after it.
        assert_eq!(Instant::now() - start, Duration::from_secs(4));
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_limit_header_the_leak_interval_is_the_plans() {
        let limit = RateLimit::plan(Plan::Plus);
        limit.observe_at(&headers(&[("x-ratelimit-remaining", "0".into())]), wall());
        let start = Instant::now();
        limit.acquire().await;
        assert_eq!(
            Instant::now() - start,
            Duration::from_millis(500),
            "60 s / 120"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn fewer_remaining_than_the_local_bucket_allows_caps_requests() {
        let limit = RateLimit::plan(Plan::Special);
        limit.acquire().await;
        let reset = (1_700_000_000u64 + 30).to_string();
        limit.observe_at(
            &headers(&[
                ("x-ratelimit-limit", "60".into()),
                ("x-ratelimit-remaining", "3".into()),
                ("x-ratelimit-reset", reset),
            ]),
            wall(),
        );
        let start = Instant::now();
        acquire_n(&limit, 3).await;
        assert_eq!(Instant::now(), start, "the three remaining go at once");
        limit.acquire().await;
        assert_eq!(
            Instant::now() - start,
            Duration::from_secs(1),
            "the fourth waits for the server's bucket to leak one slot"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn out_of_order_responses_keep_the_lowest_remaining() {
        let limit = RateLimit::plan(Plan::Special);
        let reset = (1_700_000_000u64 + 10).to_string();
        for remaining in ["5", "1", "4"] {
            limit.observe_at(
                &headers(&[
                    ("x-ratelimit-limit", "120".into()),
                    ("x-ratelimit-remaining", remaining.into()),
                    ("x-ratelimit-reset", reset.clone()),
                ]),
                wall(),
            );
        }
        let start = Instant::now();
        acquire_n(&limit, 2).await;
        assert_eq!(
            Instant::now() - start,
            Duration::from_millis(500),
            "one goes (1 remaining), the next waits a leak interval of 60 s / 120"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_new_window_replaces_the_old_count() {
        let limit = RateLimit::plan(Plan::Special);
        limit.observe_at(
            &headers(&[
                ("x-ratelimit-remaining", "1".into()),
                ("x-ratelimit-reset", (1_700_000_000u64 + 10).to_string()),
            ]),
            wall(),
        );
        limit.observe_at(
            &headers(&[
                ("x-ratelimit-remaining", "50".into()),
                ("x-ratelimit-reset", (1_700_000_000u64 + 70).to_string()),
            ]),
            wall(),
        );
        let start = Instant::now();
        acquire_n(&limit, 40).await;
        assert_eq!(Instant::now(), start);
    }

    #[tokio::test(start_paused = true)]
    async fn retry_after_pauses_sending() {
        let limit = RateLimit::plan(Plan::Plus);
        limit.observe_at(&headers(&[("retry-after", "7".into())]), wall());
        let start = Instant::now();
        limit.acquire().await;
        assert_eq!(Instant::now() - start, Duration::from_secs(7));
    }

    #[tokio::test(start_paused = true)]
    async fn an_absurd_retry_after_is_capped_by_max_pause() {
        let limit = RateLimit::plan(Plan::Plus).with_max_pause(Duration::from_secs(5));
        limit.observe_at(&headers(&[("retry-after", "99999999".into())]), wall());
        let start = Instant::now();
        limit.acquire().await;
        assert_eq!(Instant::now() - start, Duration::from_secs(5));
    }

    #[tokio::test(start_paused = true)]
    async fn unreadable_headers_are_ignored() {
        let limit = RateLimit::plan(Plan::Plus);
        limit.observe_at(
            &headers(&[
                ("x-ratelimit-remaining", "lots".into()),
                ("x-ratelimit-reset", "soon".into()),
                ("retry-after", "later".into()),
            ]),
            wall(),
        );
        assert_eq!(limit.paused_until(), None);
        let start = Instant::now();
        acquire_n(&limit, 120).await;
        assert_eq!(Instant::now(), start);
    }

    #[tokio::test(start_paused = true)]
    async fn concurrent_callers_share_one_bucket() {
        let limit = Arc::new(RateLimit::per_period(10, Duration::from_secs(10)).unwrap());
        let start = Instant::now();
        let tasks: Vec<_> = (0..20)
            .map(|_| {
                let limit = Arc::clone(&limit);
                tokio::spawn(async move { limit.acquire().await })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
        // 10 at once, then one a second for the other 10.
        assert_eq!(Instant::now() - start, Duration::from_secs(10));
    }
}

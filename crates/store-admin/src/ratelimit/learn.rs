//! What the store's answers teach a rate limiter: the rate the store really allows, and how full
//! its bucket is.
//!
//! [`learn`] and [`backlog`] are pure functions of what the limiter knew and one [`Answer`] (its
//! status class and rate-limit headers, read once): no clock, no shared state, so every row below
//! is pinned by a table test. Both limiters call them on every answer: [`RateLimit`] in this
//! process, and `RedisRateLimiter` (feature `redis`), which writes what it learned to Redis so
//! that a fleet of processes converges on the store's rate without being told it.
//!
//! # Defaults
//!
//! A limiter nobody configured ([`RateLimit::learning`], what every `StoreAdmin` gets) starts at
//! the Plus plan's 120 a minute, the whole minute's worth usable at once, and follows the store
//! up or down. A configured rate ([`RateLimit::per_minute`], the CLI's `--rate-limit`) is a
//! ceiling: the store can lower it, never raise it. A learned rate keeps [`MARGIN`] (5 %) under
//! the announced one, so that latency jitter between the client's bucket and the server's does
//! not earn a 429 when the bucket runs full.
//!
//! # What is learned
//!
//! | the answer | the rate becomes |
//! |---|---|
//! | `X-RateLimit-Limit: n` | `n` a minute, a bucket of `n` (at most the ceiling) |
//! | 429 without `X-RateLimit-Limit`, `Retry-After: s` | at most one request per `s` |
//! | 429 without either | unchanged (not limited: the starting rate) |
//! | no rate-limit header at all, nothing announced so far, no ceiling | not limited |
//! | an endpoint with a bucket of its own (the customers endpoints: 500 per 10 minutes) | unchanged |
//! | anything else | unchanged |
//!
//! Once a store has announced its rate, an answer without headers (another host, a proxy's
//! error) changes nothing.
//!
//! # How full the store's bucket is ([`backlog`])
//!
//! | the answer | the bucket drains in |
//! |---|---|
//! | 429 | the longest of `Retry-After`, `X-RateLimit-Reset` and a whole bucket at the rate |
//! | `X-RateLimit-Limit: n`, `X-RateLimit-Remaining: r` | `(n − r)` intervals, never past `X-RateLimit-Reset` (a second after it: the header is in whole seconds) |
//! | `X-RateLimit-Remaining: r` alone | `(burst − r)` intervals of the known rate, never past the reset |
//! | otherwise, or an endpoint with a bucket of its own | nothing known |
//!
//! The limiter never lets its own bucket be emptier than that: requests in flight from other
//! processes, or sent before the rate was learned, are counted as the store counts them.
//!
//! [`RateLimit`]: super::RateLimit
//! [`RateLimit::learning`]: super::RateLimit::learning
//! [`RateLimit::per_minute`]: super::RateLimit::per_minute

use std::num::NonZeroU32;
use std::time::Duration;

use super::RateLimitHeaders;

/// How far under the announced rate a learned rate keeps: 5 %.
pub const MARGIN: f64 = 0.05;

/// A leaky bucket: up to `burst` requests at once, then one per `interval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    /// Requests the bucket holds.
    pub burst: NonZeroU32,
    /// How often the bucket frees one request.
    pub interval: Duration,
}

impl Rate {
    /// `n` requests per `period`, the whole period's worth at once.
    pub fn per_period(n: NonZeroU32, period: Duration) -> Rate {
        Rate {
            burst: n,
            interval: (period / n.get()).max(Duration::from_nanos(1)),
        }
    }

    /// `n` requests a minute.
    pub fn per_minute(n: NonZeroU32) -> Rate {
        Rate::per_period(n, Duration::from_secs(60))
    }

    /// What `X-RateLimit-Limit: n` allows, less [`MARGIN`].
    pub fn announced(n: NonZeroU32) -> Rate {
        let rate = Rate::per_minute(n);
        Rate {
            interval: rate.interval.mul_f64(1.0 + MARGIN),
            ..rate
        }
    }

    /// The stricter of the two in each dimension: the smaller bucket, the longer interval.
    pub fn at_most(self, ceiling: Rate) -> Rate {
        Rate {
            burst: self.burst.min(ceiling.burst),
            interval: self.interval.max(ceiling.interval),
        }
    }
}

/// What a limiter knows of the store's rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// Nothing heard yet: the starting rate.
    Assumed(Rate),
    /// Announced by the store (`X-RateLimit-Limit`) or revealed by a 429.
    Learned(Rate),
    /// The store answers without rate-limit headers and has refused nothing: no limit to keep to.
    Unlimited,
}

impl Known {
    /// The rate to keep to, `None` when not limited.
    pub fn rate(self) -> Option<Rate> {
        match self {
            Known::Assumed(rate) | Known::Learned(rate) => Some(rate),
            Known::Unlimited => None,
        }
    }
}

/// Where a limiter starts, and the ceiling it was configured with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// The rate before the store says anything.
    pub start: Rate,
    /// A configured rate: the store may lower it, never raise it. `None`: the store's is kept.
    pub ceiling: Option<Rate>,
}

impl Bounds {
    fn cap(&self, rate: Rate) -> Rate {
        self.ceiling.map_or(rate, |ceiling| rate.at_most(ceiling))
    }
}

/// One answer, as the limiter reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Answer {
    /// The answer is a 429.
    pub too_many: bool,
    /// The endpoint has a bucket of its own (the customers endpoints): its headers describe that
    /// bucket, not the store's.
    pub own_bucket: bool,
    /// The rate-limit headers.
    pub headers: RateLimitHeaders,
}

/// What the limiter knows after `answer`. Pure: see the module documentation for the rules.
pub fn learn(known: Known, bounds: &Bounds, answer: &Answer) -> Known {
    if answer.own_bucket {
        return known;
    }
    let headers = &answer.headers;
    if let Some(n) = headers.limit.and_then(NonZeroU32::new) {
        return Known::Learned(bounds.cap(Rate::announced(n)));
    }
    if answer.too_many {
        let base = known.rate().unwrap_or(bounds.start);
        return match headers.retry_after {
            Some(wait) if wait > base.interval => Known::Learned(bounds.cap(Rate {
                interval: wait,
                ..base
            })),
            _ => Known::Learned(base),
        };
    }
    let silent = *headers == RateLimitHeaders::default();
    if silent && bounds.ceiling.is_none() && matches!(known, Known::Assumed(_)) {
        return Known::Unlimited;
    }
    known
}

/// The resolution of `X-RateLimit-Reset` (epoch seconds).
pub(crate) const RESET_GRAIN: Duration = Duration::from_secs(1);

/// How long the store's bucket takes to drain after `answer`, at `rate` (what [`learn`] gave
/// for it), if the answer says: the limiter's own bucket is kept at least that full. Pure: see
/// the module documentation for the rules.
pub fn backlog(rate: Rate, answer: &Answer) -> Option<Duration> {
    if answer.own_bucket {
        return None;
    }
    let headers = &answer.headers;
    if answer.too_many {
        let full = rate.interval * rate.burst.get();
        let told = headers
            .retry_after
            .max(headers.reset_in)
            .unwrap_or_default();
        return Some(full.max(told));
    }
    let remaining = headers.remaining?;
    let size = headers.limit.filter(|n| *n > 0).unwrap_or(rate.burst.get());
    let queued = rate.interval * size.saturating_sub(remaining);
    // `X-RateLimit-Reset` is in whole seconds: the bucket may drain up to a second after it.
    Some(
        headers
            .reset_in
            .map_or(queued, |reset| queued.min(reset + RESET_GRAIN)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;
    const MS: fn(u64) -> Duration = Duration::from_millis;

    fn n(v: u32) -> NonZeroU32 {
        NonZeroU32::new(v).unwrap()
    }

    fn headers(
        limit: Option<u32>,
        remaining: Option<u32>,
        reset_in: Option<u64>,
        retry_after: Option<u64>,
    ) -> RateLimitHeaders {
        RateLimitHeaders {
            limit,
            remaining,
            reset_epoch: reset_in.map(|s| 1_700_000_000 + s),
            reset_in: reset_in.map(S),
            retry_after: retry_after.map(S),
        }
    }

    fn ok(headers: RateLimitHeaders) -> Answer {
        Answer {
            headers,
            ..Answer::default()
        }
    }

    fn too_many(headers: RateLimitHeaders) -> Answer {
        Answer {
            too_many: true,
            headers,
            ..Answer::default()
        }
    }

    fn customers(headers: RateLimitHeaders) -> Answer {
        Answer {
            own_bucket: true,
            headers,
            ..Answer::default()
        }
    }

    #[test]
    fn announced_rates_keep_the_margin() {
        assert_eq!(Rate::announced(n(60)).interval, MS(1050));
        assert_eq!(Rate::announced(n(120)).interval, MS(525));
        assert_eq!(Rate::announced(n(60)).burst, n(60));
        assert_eq!(Rate::per_minute(n(120)).interval, MS(500));
    }

    #[test]
    fn learning_table() {
        let plus = Rate::per_minute(n(120));
        let learning = Bounds {
            start: plus,
            ceiling: None,
        };
        let capped = Bounds {
            start: Rate::per_minute(n(100)),
            ceiling: Some(Rate::per_minute(n(100))),
        };
        let none = headers(None, None, None, None);
        let rows: Vec<(&str, Known, Bounds, Answer, Known)> = vec![
            (
                "a limit header sets the rate (down: a store at 60)",
                Known::Assumed(plus),
                learning,
                ok(headers(Some(60), Some(59), Some(1), None)),
                Known::Learned(Rate::announced(n(60))),
            ),
            (
                "a limit header sets the rate (up: the Special plan)",
                Known::Assumed(plus),
                learning,
                ok(headers(Some(720), Some(700), Some(2), None)),
                Known::Learned(Rate::announced(n(720))),
            ),
            (
                "a limit header follows a plan change",
                Known::Learned(Rate::announced(n(720))),
                learning,
                ok(headers(Some(360), None, None, None)),
                Known::Learned(Rate::announced(n(360))),
            ),
            (
                "a configured ceiling is never raised",
                Known::Assumed(Rate::per_minute(n(100))),
                capped,
                ok(headers(Some(720), Some(700), Some(2), None)),
                Known::Learned(Rate {
                    burst: n(100),
                    interval: MS(600),
                }),
            ),
            (
                "a configured ceiling is lowered",
                Known::Assumed(Rate::per_minute(n(100))),
                capped,
                ok(headers(Some(60), None, None, None)),
                Known::Learned(Rate::announced(n(60))),
            ),
            (
                "a 429 with the limit header: the limit",
                Known::Assumed(plus),
                learning,
                too_many(headers(Some(60), Some(0), Some(1), Some(1))),
                Known::Learned(Rate::announced(n(60))),
            ),
            (
                "a 429 with Retry-After alone: at most one per Retry-After",
                Known::Assumed(plus),
                learning,
                too_many(headers(None, None, None, Some(2))),
                Known::Learned(Rate {
                    burst: n(120),
                    interval: S(2),
                }),
            ),
            (
                "a 429 with a Retry-After shorter than the interval keeps the rate",
                Known::Learned(Rate::per_minute(n(30))),
                learning,
                too_many(headers(None, None, None, Some(1))),
                Known::Learned(Rate::per_minute(n(30))),
            ),
            (
                "a 429 ends 'not limited': back to the starting rate",
                Known::Unlimited,
                learning,
                too_many(none),
                Known::Learned(plus),
            ),
            (
                "no header before anything was announced: not limited",
                Known::Assumed(plus),
                learning,
                ok(none),
                Known::Unlimited,
            ),
            (
                "no header after the store announced its rate: unchanged",
                Known::Learned(Rate::announced(n(60))),
                learning,
                ok(none),
                Known::Learned(Rate::announced(n(60))),
            ),
            (
                "no header under a configured rate: unchanged",
                Known::Assumed(Rate::per_minute(n(100))),
                capped,
                ok(none),
                Known::Assumed(Rate::per_minute(n(100))),
            ),
            (
                "a store not limited that starts announcing is limited again",
                Known::Unlimited,
                learning,
                ok(headers(Some(120), Some(119), Some(1), None)),
                Known::Learned(Rate::announced(n(120))),
            ),
            (
                "remaining alone teaches no rate",
                Known::Assumed(plus),
                learning,
                ok(headers(None, Some(3), Some(10), None)),
                Known::Assumed(plus),
            ),
            (
                "the customers endpoints' own bucket teaches nothing",
                Known::Learned(Rate::announced(n(120))),
                learning,
                customers(headers(Some(500), Some(499), Some(2), None)),
                Known::Learned(Rate::announced(n(120))),
            ),
            (
                "nor does their 429",
                Known::Assumed(plus),
                learning,
                Answer {
                    too_many: true,
                    own_bucket: true,
                    headers: headers(Some(500), Some(0), Some(600), Some(600)),
                },
                Known::Assumed(plus),
            ),
        ];
        for (name, known, bounds, answer, expected) in rows {
            assert_eq!(learn(known, &bounds, &answer), expected, "{name}");
        }
    }

    #[test]
    fn backlog_table() {
        let at_60 = Rate::per_minute(n(60));
        let rows: Vec<(&str, Rate, Answer, Option<Duration>)> = vec![
            (
                "limit and remaining: the requests queued, one interval each",
                at_60,
                ok(headers(Some(60), Some(50), Some(30), None)),
                Some(S(10)),
            ),
            (
                "never past the reset, give or take its whole seconds",
                at_60,
                ok(headers(Some(60), Some(0), Some(20), None)),
                Some(S(21)),
            ),
            (
                "remaining alone: the known bucket's size",
                Rate::per_minute(n(120)),
                ok(headers(None, Some(100), None, None)),
                Some(S(10)),
            ),
            (
                "a full remaining: empty",
                at_60,
                ok(headers(Some(60), Some(60), Some(0), None)),
                Some(Duration::ZERO),
            ),
            (
                "a 429: a whole bucket at the rate",
                at_60,
                too_many(headers(Some(60), Some(0), Some(1), Some(1))),
                Some(S(60)),
            ),
            (
                "a 429 asking for longer than a bucket: what it asks",
                at_60,
                too_many(headers(None, None, Some(90), Some(75))),
                Some(S(90)),
            ),
            (
                "no remaining: nothing known",
                at_60,
                ok(headers(Some(60), None, Some(5), None)),
                None,
            ),
            (
                "the customers endpoints' bucket is not the store's",
                at_60,
                customers(headers(Some(500), Some(0), Some(600), None)),
                None,
            ),
        ];
        for (name, rate, answer, expected) in rows {
            assert_eq!(backlog(rate, &answer), expected, "{name}");
        }
    }
}

//! The one reader of the service's rate-limit headers, for the retry decision, the limiters and
//! the errors alike.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http::HeaderMap;
use http::header::{HeaderName, RETRY_AFTER};

// The names, made once: a name given as `&str` is checked and hashed again at every lookup, and
// every answer is read (a tenth of what the runtime adds to a call, measured with the overhead
// benchmark's profile mode).
static X_RATELIMIT_LIMIT: HeaderName = HeaderName::from_static("x-ratelimit-limit");
static X_RATELIMIT_REMAINING: HeaderName = HeaderName::from_static("x-ratelimit-remaining");
static X_RATELIMIT_RESET: HeaderName = HeaderName::from_static("x-ratelimit-reset");

/// What a response says about the store's rate limit, read once.
///
/// The service sends `X-RateLimit-Limit` (requests a minute), `X-RateLimit-Remaining`,
/// `X-RateLimit-Reset` (UTC epoch seconds) and, over the limit, `Retry-After` (seconds; an HTTP
/// date is accepted too). Values that are absent or unreadable (not ASCII, not a number) are
/// `None`: a bad header never fails a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RateLimitHeaders {
    /// `X-RateLimit-Limit`: requests a minute.
    pub limit: Option<u32>,
    /// `X-RateLimit-Remaining`: requests left in the window.
    pub remaining: Option<u32>,
    /// `X-RateLimit-Reset` as sent (UTC epoch seconds); it also names the window.
    pub reset_epoch: Option<u64>,
    /// Time left until `X-RateLimit-Reset`, from the `now` given to [`RateLimitHeaders::parse`]
    /// (zero when the reset is past).
    pub reset_in: Option<Duration>,
    /// `Retry-After` as a delay from `now` (zero when its date is past).
    pub retry_after: Option<Duration>,
}

impl RateLimitHeaders {
    /// Reads the headers; times are relative to `now` (wall-clock).
    pub fn parse(headers: &HeaderMap, now: SystemTime) -> Self {
        let reset_epoch = header_str(headers, &X_RATELIMIT_RESET).and_then(|v| v.parse().ok());
        RateLimitHeaders {
            limit: header_str(headers, &X_RATELIMIT_LIMIT).and_then(|v| v.parse().ok()),
            remaining: header_str(headers, &X_RATELIMIT_REMAINING).and_then(|v| v.parse().ok()),
            reset_epoch,
            reset_in: reset_epoch.and_then(|epoch| {
                let at = UNIX_EPOCH.checked_add(Duration::from_secs(epoch))?;
                Some(at.duration_since(now).unwrap_or(Duration::ZERO))
            }),
            retry_after: header_str(headers, &RETRY_AFTER).and_then(|v| parse_retry_after(v, now)),
        }
    }

    /// How long the service asks a caller to wait before the next request: `Retry-After`, else
    /// the time to `X-RateLimit-Reset`.
    pub fn wait(&self) -> Option<Duration> {
        self.retry_after.or(self.reset_in)
    }

    /// Whether the window is spent (`X-RateLimit-Remaining: 0`).
    pub fn exhausted(&self) -> bool {
        self.remaining == Some(0)
    }
}

fn header_str<'h>(headers: &'h HeaderMap, name: &HeaderName) -> Option<&'h str> {
    headers.get(name)?.to_str().ok().map(str::trim)
}

/// `Retry-After` as delay-seconds (a non-negative integer, or leniently a decimal) or an HTTP date.
fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0)
            .then(|| Duration::try_from_secs_f64(secs).ok())
            .flatten();
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_700_000_000)
    }

    fn parse(pairs: &[(&'static str, &str)]) -> RateLimitHeaders {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(*name, value.parse().expect("header value"));
        }
        RateLimitHeaders::parse(&headers, now())
    }

    #[test]
    fn reads_every_header_once() {
        let h = parse(&[
            ("x-ratelimit-limit", "120"),
            ("x-ratelimit-remaining", " 7 "),
            ("x-ratelimit-reset", "1700000012"),
            ("retry-after", "3"),
        ]);
        assert_eq!(h.limit, Some(120));
        assert_eq!(h.remaining, Some(7));
        assert_eq!(h.reset_epoch, Some(1_700_000_012));
        assert_eq!(h.reset_in, Some(Duration::from_secs(12)));
        assert_eq!(h.retry_after, Some(Duration::from_secs(3)));
        assert_eq!(h.wait(), Some(Duration::from_secs(3)));
        assert!(!h.exhausted());
    }

    #[test]
    fn retry_after_takes_seconds_decimals_and_dates() {
        assert_eq!(
            parse(&[("retry-after", "1.5")]).retry_after,
            Some(Duration::from_millis(1500))
        );
        let date = httpdate::fmt_http_date(now() + Duration::from_secs(7));
        assert_eq!(
            parse(&[("retry-after", &date)]).retry_after,
            Some(Duration::from_secs(7))
        );
        let past = httpdate::fmt_http_date(now() - Duration::from_secs(30));
        assert_eq!(
            parse(&[("retry-after", &past)]).retry_after,
            Some(Duration::ZERO)
        );
        assert_eq!(parse(&[("retry-after", "-1")]).retry_after, None);
        assert_eq!(parse(&[("retry-after", "soon")]).retry_after, None);
    }

    #[test]
    fn a_past_reset_is_zero_and_garbage_is_ignored() {
        let h = parse(&[
            ("x-ratelimit-reset", "1699999990"),
            ("x-ratelimit-remaining", "-3"),
            ("x-ratelimit-limit", "many"),
        ]);
        assert_eq!(h.reset_in, Some(Duration::ZERO));
        assert_eq!(h.wait(), Some(Duration::ZERO));
        assert_eq!((h.remaining, h.limit), (None, None));
    }

    #[test]
    fn non_ascii_values_are_ignored() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "retry-after",
            http::HeaderValue::from_bytes(b"\xff\xfe").expect("opaque bytes"),
        );
        assert_eq!(
            RateLimitHeaders::parse(&headers, now()),
            RateLimitHeaders::default()
        );
    }
}

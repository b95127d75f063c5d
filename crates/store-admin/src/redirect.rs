//! Which redirects a client follows: [`policy`], the one rule of the client and the CLI.
//!
//! A request carries the store's bearer token, and the token may go only where the base URL
//! says (`https://api.salla.dev/admin/v2` for the live service). A redirect is followed only when
//! the request it answers and its target are both on the base URL's origin (scheme, host and
//! port) and under its path, segment by segment (`/admin/v2/...`; no dot segment, even
//! percent-encoded), [`MAX_REDIRECTS`] at most. Any other redirect fails the request with
//! [`RedirectRefused`] (in the source chain of reqwest's error, whose
//! [`is_redirect`](reqwest::Error::is_redirect) is true), which names where it pointed; it is
//! never retried ([`TransportFailure::Redirected`](crate::retry::TransportFailure::Redirected)).
//! A request that is not under the base URL (the token endpoint's, the accounts host's) follows
//! no redirect at all.
//!
//! The client built by [`StoreAdminBuilder`](crate::StoreAdminBuilder) uses this policy; a
//! `reqwest::Client` given with
//! [`with_http_client`](crate::StoreAdminBuilder::with_http_client) keeps its own (give it
//! `.redirect(store_admin::redirect::policy(&base))`). Token requests never resend their body
//! to a redirect, whatever the client's policy (see [`credentials`](crate::credentials)).

use std::fmt;

use url::Url;

/// The most redirects one request follows.
pub const MAX_REDIRECTS: usize = 5;

/// Why a redirect was not followed. Names where the redirect pointed (origin and path, never its
/// query) and the base URL; never a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedirectRefused {
    from: String,
    target: String,
    base: String,
    reason: Reason,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reason {
    /// The target is on another origin.
    OtherHost,
    /// The target is on the base URL's origin, outside its path.
    OutsidePath,
    /// The redirected request itself was not under the base URL (a token request, say).
    RequestOutside,
    /// More than [`MAX_REDIRECTS`].
    TooMany,
}

impl RedirectRefused {
    /// Where the redirect pointed: its origin and path (`http://host:port/path`).
    pub fn target(&self) -> &str {
        &self.target
    }

    /// The URL that answered with the redirect (origin and path).
    pub fn from(&self) -> &str {
        &self.from
    }
}

impl fmt::Display for RedirectRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (from, target, base) = (&self.from, &self.target, &self.base);
        match self.reason {
            Reason::OtherHost => write!(
                f,
                "the service at {from} redirected to another host, {target}: refused (the \
                 request and its token are only sent under the base URL {base})"
            ),
            Reason::OutsidePath => write!(
                f,
                "the service at {from} redirected outside the base URL {base}, to {target}: \
                 refused (the request and its token are only sent under the base URL)"
            ),
            Reason::RequestOutside => write!(
                f,
                "{from} redirected to {target}: refused (only a request under the base URL \
                 {base} follows a redirect)"
            ),
            Reason::TooMany => write!(
                f,
                "more than {MAX_REDIRECTS} redirects, the last from {from} to {target}: refused"
            ),
        }
    }
}

impl std::error::Error for RedirectRefused {}

/// The redirect policy of a client whose base URL is `base` (see the module documentation).
///
/// ```
/// let base = url::Url::parse("https://api.salla.dev/admin/v2").unwrap();
/// let http = reqwest::Client::builder()
///     .redirect(store_admin::redirect::policy(&base))
///     .build()
///     .unwrap();
/// # drop(http);
/// ```
pub fn policy(base: &Url) -> reqwest::redirect::Policy {
    let base = base.clone();
    reqwest::redirect::Policy::custom(move |attempt| {
        let previous = attempt.previous();
        let (Some(first), Some(last)) = (previous.first(), previous.last()) else {
            return attempt.follow();
        };
        let reason = if !is_under(&base, first) {
            Some(Reason::RequestOutside)
        } else if !same_origin(&base, attempt.url()) {
            Some(Reason::OtherHost)
        } else if !is_under(&base, attempt.url()) {
            Some(Reason::OutsidePath)
        } else if previous.len() > MAX_REDIRECTS {
            Some(Reason::TooMany)
        } else {
            None
        };
        match reason {
            None => attempt.follow(),
            Some(reason) => {
                let refused = RedirectRefused {
                    from: shown(last),
                    target: shown(attempt.url()),
                    base: shown(&base),
                    reason,
                };
                tracing::warn!(%refused, "a redirect was refused");
                attempt.error(refused)
            }
        }
    })
}

/// The [`policy`] of the base URL `base`, given as text; a base that is not a URL follows no
/// redirect.
pub(crate) fn policy_for(base: &str) -> reqwest::redirect::Policy {
    match Url::parse(base) {
        Ok(base) => policy(&base),
        Err(_) => reqwest::redirect::Policy::none(),
    }
}

/// The refusal in the source chain of `error`, if a redirect was refused by [`policy`].
pub fn refusal<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a RedirectRefused> {
    let mut source = Some(error);
    while let Some(cause) = source {
        if let Some(refused) = cause.downcast_ref::<RedirectRefused>() {
            return Some(refused);
        }
        source = cause.source();
    }
    None
}

/// Origin and path of `url`: no user information, query or fragment.
fn shown(url: &Url) -> String {
    format!("{}{}", url.origin().ascii_serialization(), url.path())
}

fn same_origin(base: &Url, url: &Url) -> bool {
    url.scheme() == base.scheme()
        && url.host() == base.host()
        && url.port_or_known_default() == base.port_or_known_default()
        && url.username().is_empty()
        && url.password().is_none()
}

/// Whether `url` is on `base`'s origin and under its path, segment by segment, with no segment
/// that a server would read as a dot segment or a slash once percent-decoded.
pub fn is_under(base: &Url, url: &Url) -> bool {
    let segments = |u: &Url| -> Vec<String> {
        u.path_segments()
            .map(|s| s.filter(|s| !s.is_empty()).map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let (prefix, path) = (segments(base), segments(url));
    let hidden = path.iter().any(|segment| {
        let decoded = percent_decoded(segment).to_ascii_lowercase();
        decoded == "." || decoded == ".." || decoded.contains(['/', '\\'])
    });
    same_origin(base, url) && !hidden && path.starts_with(&prefix)
}

/// A path segment with its percent escapes decoded (lossily), to see what a server reads.
fn percent_decoded(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escape = bytes
            .get(i + 1..i + 3)
            .filter(|_| bytes[i] == b'%')
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escape {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn under_the_base_is_its_origin_and_its_path_segment_by_segment() {
        let base = url("http://127.0.0.1:4010/admin/v2");
        let cases = [
            ("http://127.0.0.1:4010/admin/v2", true),
            ("http://127.0.0.1:4010/admin/v2/", true),
            ("http://127.0.0.1:4010/admin/v2/orders?page=2", true),
            ("http://127.0.0.1:4010/admin/v20/orders", false),
            ("http://127.0.0.1:4010/admin/v2/../../__admin/x", false),
            (
                "http://127.0.0.1:4010/admin/v2/%2e%2e/%2E%2E/__admin/x",
                false,
            ),
            ("http://127.0.0.1:4010/admin/v2/a%2fb", false),
            ("http://127.0.0.1:4010/admin/v2/a%5Cb", false),
            ("http://127.0.0.1:4010/__admin/x", false),
            ("http://localhost:4010/admin/v2/orders", false),
            ("http://127.0.0.1:4011/admin/v2/orders", false),
            ("https://127.0.0.1:4010/admin/v2/orders", false),
            ("http://u:p@127.0.0.1:4010/admin/v2/orders", false),
            ("http://127.0.0.1:4010/admin/v2/50%25-off%", true),
        ];
        for (target, under) in cases {
            assert_eq!(is_under(&base, &url(target)), under, "{target}");
        }
        let root = url("https://store.example");
        assert!(is_under(&root, &url("https://store.example/anything")));
        assert!(!is_under(
            &root,
            &url("https://store.example.evil.com/anything")
        ));
    }

    #[test]
    fn a_refusal_names_the_target_without_its_query() {
        let refused = RedirectRefused {
            from: shown(&url("http://127.0.0.1:1/admin/v2/orders")),
            target: shown(&url("http://u:pw@localhost:2/stolen?token=x#f")),
            base: "http://127.0.0.1:1/admin/v2".into(),
            reason: Reason::OtherHost,
        };
        let text = refused.to_string();
        assert!(text.contains("redirected to another host, http://localhost:2/stolen"));
        assert!(!text.contains("token=x") && !text.contains("pw"), "{text}");
        let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(refused.clone());
        assert_eq!(refusal(boxed.as_ref()), Some(&refused));
    }
}

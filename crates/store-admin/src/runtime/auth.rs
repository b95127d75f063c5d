//! Authorising an attempt: the origins that may receive the access token, the `Authorization`
//! header, and the replay after a 401 that says the token is invalid.

use std::sync::Arc;

use super::transport::Attempt;
use super::{Runtime, Tried};
use crate::credentials::{Bearer, Unauthorized, classify_unauthorized};
use crate::error::Error;

/// An origin that may receive the access token: scheme, host and port, compared with a request's
/// URL without building its [`url::Origin`] (which allocates) on every call.
#[derive(Debug)]
pub(crate) struct TokenOrigin {
    scheme: String,
    host: String,
    port: Option<u16>,
}

impl TokenOrigin {
    /// `url`'s origin (`build` admits only http(s) URLs with a host).
    pub(crate) fn of(url: &reqwest::Url) -> Self {
        TokenOrigin {
            scheme: url.scheme().to_owned(),
            host: url.host_str().unwrap_or_default().to_owned(),
            port: url.port_or_known_default(),
        }
    }

    /// Whether `url` has this origin: the tuple origin of the URL standard, which `url` parses to
    /// its canonical form (host lower-cased, IDNA applied, default port elided), as
    /// [`url::Url::origin`] compares it.
    fn is_origin_of(&self, url: &reqwest::Url) -> bool {
        url.scheme() == self.scheme
            && url.host_str() == Some(self.host.as_str())
            && url.port_or_known_default() == self.port
    }
}

impl Runtime {
    /// Refuses a URL whose origin may not receive the access token (the message names the origin
    /// only: a path or query may carry data that must not reach logs).
    pub(super) fn check_origin(&self, url: &reqwest::Url) -> Result<(), String> {
        if self
            .token_origins
            .iter()
            .any(|origin| origin.is_origin_of(url))
        {
            Ok(())
        } else {
            Err(format!(
                "refusing to send the access token to {}: only the API's origin and the accounts \
                 host's receive it (with_base_url, with_accounts_url)",
                url.origin().ascii_serialization()
            ))
        }
    }

    /// After a 401 `The access token is invalid`: the refreshed token to replay the request with
    /// once, or `None` when the token is a static one (the 401 and its hint say more than a
    /// refresh could). A refresh that fails ends the call with [`Error::Auth`]: why no token can
    /// be had (the merchant must reinstall, the token endpoint failed...) is the answer, not the
    /// 401.
    pub(super) async fn replay_after_401(
        &self,
        rejected: &Bearer,
    ) -> Result<Option<Arc<Bearer>>, Error> {
        // Boxed, as every path that waits for more than the service: a call's future stays small.
        match Box::pin(self.auth.rejected_bearer(&rejected.lease)).await {
            Ok(fresh) => {
                tracing::info!("access token rejected; refreshed it, replaying once");
                #[cfg(feature = "metrics")]
                crate::metrics::refreshed(self.store.as_deref());
                Ok(Some(fresh))
            }
            Err(crate::credentials::AuthError::StaticTokenRejected) => Ok(None),
            Err(e) => {
                tracing::warn!(error = %e, "access token rejected and could not be refreshed");
                Err(Error::Auth(e))
            }
        }
    }
}

impl Tried {
    /// A 401 that says the token itself is invalid, to a request that can be replayed.
    pub(super) fn is_invalid_token(&self) -> bool {
        matches!(&self.outcome, Attempt::Response(response, body)
            if response.status() == reqwest::StatusCode::UNAUTHORIZED
                && self.replayable
                && is_invalid_token(body))
    }
}

/// Sets `request`'s `Authorization` header: `bearer`'s, built once per token.
pub(super) fn authorise(request: &mut reqwest::Request, bearer: &Bearer) -> Result<(), Error> {
    let value = bearer.authorization.clone().map_err(Error::Auth)?;
    request
        .headers_mut()
        .insert(reqwest::header::AUTHORIZATION, value);
    Ok(())
}

/// Whether a 401 body says the token itself is invalid (refreshing may help), not a missing scope.
fn is_invalid_token(body: &[u8]) -> bool {
    let Ok(envelope) = serde_json::from_slice::<serde_json::Value>(body) else {
        return false;
    };
    let message = envelope
        .pointer("/error/message")
        .and_then(|m| m.as_str())
        .unwrap_or_default();
    classify_unauthorized(message) == Unauthorized::InvalidToken
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_origin_matches_what_url_origin_compares() {
        let origins = [
            "http://127.0.0.1:8080/admin/v2",
            "https://api.salla.dev/admin/v2",
            "https://accounts.salla.sa",
            "http://[::1]:9000/x",
        ];
        let requests = [
            "http://127.0.0.1:8080/admin/v2/orders?page=2",
            "http://127.0.0.1:8081/admin/v2/orders",
            "https://127.0.0.1:8080/admin/v2/orders",
            "http://localhost:8080/admin/v2/orders",
            "https://API.Salla.dev:443/admin/v2/products",
            "https://api.salla.dev:8443/admin/v2/products",
            "http://api.salla.dev/admin/v2/products",
            "https://api.salla.dev.evil.example/admin/v2",
            "https://accounts.salla.sa/oauth2/user/info",
            "https://user@accounts.salla.sa/oauth2/user/info",
            "http://[0:0:0:0:0:0:0:1]:9000/y",
            "data:text/plain,hello",
            "file:///etc/passwd",
        ];
        for origin in origins {
            let origin = reqwest::Url::parse(origin).unwrap();
            let token_origin = TokenOrigin::of(&origin);
            for request in requests {
                let request = reqwest::Url::parse(request).unwrap();
                assert_eq!(
                    token_origin.is_origin_of(&request),
                    origin.origin() == request.origin(),
                    "{origin} vs {request}"
                );
            }
        }
    }
}

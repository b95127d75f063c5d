//! The answer to a call: to [`StoreAdmin::send_raw`](crate::StoreAdmin::send_raw) a
//! [`RawResponse`], and to the generated code a success rebuilt with the body the runtime read.

use store_admin_client::OperationMeta;

use crate::error::{ApiError, Error};

/// A response to [`StoreAdmin::send_raw`](crate::StoreAdmin::send_raw), body read in full.
#[derive(Debug, Clone)]
pub struct RawResponse {
    pub(crate) operation: &'static str,
    /// The HTTP status.
    pub status: reqwest::StatusCode,
    /// The response headers.
    pub headers: reqwest::header::HeaderMap,
    /// The body.
    pub body: bytes::Bytes,
}

impl RawResponse {
    /// The response itself for a success, [`Error::Api`] (the service's envelope, or the raw
    /// body) for a 4xx or 5xx.
    pub fn error_for_status(self) -> Result<Self, Error> {
        if self.status.is_client_error() || self.status.is_server_error() {
            let operation = OperationMeta::find(self.operation).map(|op| op.operation_id);
            return Err(Error::Api(Box::new(ApiError::from_response(
                self.status,
                &self.headers,
                &self.body,
                operation,
            ))));
        }
        Ok(self)
    }
}

/// The last answer to a call, whatever its status: reqwest's response (its status, headers, URL
/// and extensions; its body read) and the whole body.
pub(crate) struct Answered {
    pub(crate) response: reqwest::Response,
    pub(crate) body: bytes::Bytes,
    /// The attempts made, this answer's included.
    pub(crate) attempts: u32,
    /// The request was not retried because it is not idempotent (it may have been applied).
    pub(crate) maybe_applied: bool,
}

/// `response`, whose body the runtime has read, with `body` in its place: the same status,
/// version, headers, extensions and URL.
pub(super) fn with_body(response: reqwest::Response, body: bytes::Bytes) -> reqwest::Response {
    use reqwest::ResponseBuilderExt;
    let url = response.url().clone();
    let (mut parts, _spent) = http::Response::from(response).into_parts();
    // reqwest keeps a response's URL in an extension only its builder extension can write: the
    // answer's extensions lent to a builder for it (one map, not a second one merged in).
    let mut carrier = http::Response::builder();
    if let Some(extensions) = carrier.extensions_mut() {
        std::mem::swap(extensions, &mut parts.extensions);
    }
    if let Ok(carrier) = carrier.url(url).body(()) {
        parts.extensions = carrier.into_parts().0.extensions;
    }
    reqwest::Response::from(http::Response::from_parts(parts, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_answer_handed_back_keeps_its_url_status_headers_and_extensions_with_the_body_read()
    {
        use reqwest::ResponseBuilderExt;
        #[derive(Clone, Debug, PartialEq)]
        struct Marker(u8);
        let url: reqwest::Url = "http://127.0.0.1:9/admin/v2/orders?page=2".parse().unwrap();
        let answer = http::Response::builder()
            .status(201)
            .version(http::Version::HTTP_11)
            .header("x-ratelimit-remaining", "7")
            .extension(Marker(3))
            .url(url.clone())
            .body("spent")
            .unwrap();
        let rebuilt = with_body(
            reqwest::Response::from(answer),
            bytes::Bytes::from_static(b"{\"id\":1}"),
        );
        assert_eq!(rebuilt.url(), &url);
        assert_eq!(rebuilt.status(), reqwest::StatusCode::CREATED);
        assert_eq!(rebuilt.version(), http::Version::HTTP_11);
        assert_eq!(rebuilt.headers()["x-ratelimit-remaining"], "7");
        assert_eq!(rebuilt.extensions().get::<Marker>(), Some(&Marker(3)));
        assert_eq!(rebuilt.bytes().await.unwrap(), &b"{\"id\":1}"[..]);
    }
}

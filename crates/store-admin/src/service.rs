//! The client as a [`tower::Service`](tower_service::Service), for teams whose middleware is tower
//! layers (their own tracing, metrics, circuit breakers, concurrency limits, timeouts).
//!
//! [`StoreAdmin`] is a `Service<http::Request<Bytes>>`: wrap it with your layers, and every request
//! still goes through the client's own authentication, rate limiting, retries, timeouts and
//! tracing ([`StoreAdmin::send_raw`]), under your layers. A request's URI may be a path below the
//! base URL (`/orders?per_page=5`) or an absolute URL of the API's origin (another origin is
//! refused, as by `send_raw`). Name the operation with an [`OperationName`] extension, so that
//! errors, traces and the 401 hint's scopes name it. Every status is a response (a 404 is an
//! `Ok`), as a middleware stack expects; [`Error`] is for what got no answer.
//!
//! ```rust,no_run
//! # async fn run(admin: store_admin::StoreAdmin) -> Result<(), store_admin::Error> {
//! use store_admin::service::OperationName;
//! use tower::{Service, ServiceBuilder, ServiceExt};
//!
//! let mut service = ServiceBuilder::new()
//!     .concurrency_limit(8) // any tower layer of yours
//!     .service(admin);
//! let mut request = http::Request::get("/orders/statuses").body(bytes::Bytes::new()).unwrap();
//! request.extensions_mut().insert(OperationName("list_order_statuses"));
//! let response = service.ready().await?.call(request).await?;
//! println!("{} {}", response.status(), response.body().len());
//! # Ok(()) }
//! ```

use std::task::{Context, Poll};

use bytes::Bytes;
use futures::future::BoxFuture;

use crate::{Error, StoreAdmin};

/// The operation a request of the [`Service`](tower_service::Service) stands for (the document's
/// `operationId`, or any name of yours): set it as an extension of the `http::Request`. Without
/// it, the request is named `request`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperationName(pub &'static str);

impl tower_service::Service<http::Request<Bytes>> for StoreAdmin {
    type Response = http::Response<Bytes>;
    type Error = Error;
    type Future = BoxFuture<'static, Result<Self::Response, Error>>;

    /// Always ready: the client waits for its rate limiter inside each call.
    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Bytes>) -> Self::Future {
        let admin = self.clone();
        Box::pin(async move {
            let operation = request
                .extensions()
                .get::<OperationName>()
                .map_or("request", |name| name.0);
            let request = to_reqwest(admin.base_url(), request)?;
            let raw = admin.send_raw(request, operation).await?;
            let mut response = http::Response::new(raw.body);
            *response.status_mut() = raw.status;
            *response.headers_mut() = raw.headers;
            Ok(response)
        })
    }
}

/// The `reqwest::Request` of an `http::Request` whose URI is absolute, or a path below `base_url`.
fn to_reqwest(base_url: &str, request: http::Request<Bytes>) -> Result<reqwest::Request, Error> {
    let (mut parts, body) = request.into_parts();
    if parts.uri.scheme().is_none() {
        let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
        if !path.starts_with('/') {
            return Err(Error::InvalidRequest(format!(
                "the request's URI `{}` is neither absolute nor a path below the base URL",
                parts.uri
            )));
        }
        let absolute = format!("{}{path}", base_url.trim_end_matches('/'));
        parts.uri = absolute.parse().map_err(|e| {
            Error::InvalidRequest(format!("the request's URI `{absolute}` is invalid: {e}"))
        })?;
    }
    reqwest::Request::try_from(http::Request::from_parts(parts, reqwest::Body::from(body)))
        .map_err(|e| Error::InvalidRequest(format!("the request cannot be sent: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(uri: &str) -> http::Request<Bytes> {
        http::Request::post(uri)
            .header("x-trace", "1")
            .body(Bytes::from_static(b"{}"))
            .expect("request")
    }

    #[test]
    fn a_path_goes_below_the_base_url_and_keeps_method_headers_and_body() {
        let sent = to_reqwest("http://127.0.0.1:9/admin/v2/", request("/orders?page=2")).unwrap();
        assert_eq!(
            sent.url().as_str(),
            "http://127.0.0.1:9/admin/v2/orders?page=2"
        );
        assert_eq!(sent.method(), reqwest::Method::POST);
        assert_eq!(sent.headers()["x-trace"], "1");
        assert_eq!(sent.body().and_then(|b| b.as_bytes()), Some(&b"{}"[..]));
    }

    #[test]
    fn an_absolute_uri_is_kept_and_a_relative_one_refused() {
        let sent = to_reqwest("http://127.0.0.1:9/admin/v2", request("http://h:1/x")).unwrap();
        assert_eq!(sent.url().as_str(), "http://h:1/x");
        let refused = to_reqwest("http://127.0.0.1:9/admin/v2", request("*")).unwrap_err();
        assert!(
            refused.to_string().contains("neither absolute nor a path"),
            "{refused}"
        );
    }
}

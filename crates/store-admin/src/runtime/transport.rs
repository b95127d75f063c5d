//! Sending an attempt: the copy of the request handed to reqwest, and the answer read whole within
//! the response bound and the attempt timeout.

use std::future::Future;
use std::time::Duration;

use store_admin_client::BodyError;

use super::Runtime;
use crate::error::TransportError;
use crate::retry::TransportFailure;

/// One attempt's result, body read in full.
pub(super) enum Attempt {
    Response(reqwest::Response, bytes::Bytes),
    Failed(TransportError, TransportFailure),
}

impl Runtime {
    /// Reads the answer to one attempt, `sent` (what `reqwest::Client::execute` returned for it),
    /// body in full, within `timeout`: connecting, sending and reading the whole body, so that a
    /// trickling body times out too. One timer per attempt (reqwest's own per-request timeout
    /// arms two). The request was handed to reqwest before: this future holds no copy of it.
    pub(super) async fn send(
        sent: impl Future<Output = reqwest::Result<reqwest::Response>>,
        timeout: Duration,
        limit: u64,
    ) -> Attempt {
        let read = async {
            let mut response = sent.await.map_err(BodyError::Http)?;
            let body = store_admin_client::read_body(&mut response, limit).await?;
            Ok::<_, BodyError>((response, body))
        };
        let error = match tokio::time::timeout(timeout, read).await {
            Ok(Ok((response, body))) => return Attempt::Response(response, body),
            Ok(Err(BodyError::Http(error))) => TransportError::Http(error),
            Ok(Err(BodyError::TooLarge { limit })) => TransportError::TooLarge { limit },
            Err(_) => TransportError::TimedOut(timeout),
        };
        let class = error.failure();
        Attempt::Failed(error, class)
    }
}

/// The request to hand reqwest for one attempt, and whether `request` is kept to send again. A
/// streaming body cannot be replayed: it is sent once (`request` is left spent), and neither
/// replayed after a token refresh nor retried. The copy is handed to reqwest at once: the call's
/// future does not hold it across the wait.
pub(super) fn take_copy(request: &mut reqwest::Request) -> (reqwest::Request, bool) {
    match copy_to_send(request) {
        Some(copy) => (copy, true),
        None => {
            let spent = reqwest::Request::new(request.method().clone(), request.url().clone());
            (std::mem::replace(request, spent), false)
        }
    }
}

/// A copy of `request` to send, the original kept for a replay; `None` when its body is a stream
/// (it cannot be sent twice). What `reqwest::Request::try_clone` makes (method, URL, headers,
/// version, timeout), with fewer allocations on every attempt: `try_clone` sets the copy's
/// timeout through its extensions, which allocates them even when the request has none, and
/// gives the copy's headers no room for those reqwest adds to every request (`User-Agent`), so
/// that adding them grows the map again. A request with a body (bytes, shared, not copied) goes
/// through `try_clone`.
fn copy_to_send(request: &reqwest::Request) -> Option<reqwest::Request> {
    /// Room for the headers the `reqwest::Client` adds (its default headers).
    const ADDED_BY_REQWEST: usize = 2;
    if request.body().is_some() {
        return request.try_clone();
    }
    let mut copy = reqwest::Request::new(request.method().clone(), request.url().clone());
    let headers = copy.headers_mut();
    headers.reserve(request.headers().len() + ADDED_BY_REQWEST);
    // `extend` appends: a header sent several times keeps every value, in order.
    headers.extend(
        request
            .headers()
            .iter()
            .map(|(name, value)| (name.clone(), value.clone())),
    );
    *copy.version_mut() = request.version();
    // The one setting reqwest reads from a request's extensions: set only when there is one.
    if let Some(timeout) = request.timeout() {
        *copy.timeout_mut() = Some(*timeout);
    }
    Some(copy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_sent_is_the_request_header_for_header() {
        let mut request = reqwest::Request::new(
            reqwest::Method::DELETE,
            "http://127.0.0.1:8080/admin/v2/orders/1?x=1&x=2"
                .parse()
                .unwrap(),
        );
        let headers = request.headers_mut();
        headers.insert(reqwest::header::ACCEPT, "application/json".parse().unwrap());
        headers.append("x-multi", "one".parse().unwrap());
        headers.append("x-multi", "two".parse().unwrap());
        *request.version_mut() = reqwest::Version::HTTP_11;
        *request.timeout_mut() = Some(Duration::from_secs(7));
        let copy = copy_to_send(&request).expect("no body: copied");
        assert_eq!(copy.method(), request.method());
        assert_eq!(copy.url(), request.url());
        assert_eq!(copy.version(), reqwest::Version::HTTP_11);
        assert_eq!(copy.timeout(), Some(&Duration::from_secs(7)));
        assert_eq!(copy.headers(), request.headers());
        let multi: Vec<_> = copy.headers().get_all("x-multi").iter().collect();
        assert_eq!(multi, ["one", "two"], "every value, in order");
        assert!(
            copy.headers().capacity() > copy.headers().len(),
            "room for User-Agent"
        );

        let mut with_body = reqwest::Request::new(reqwest::Method::POST, request.url().clone());
        *with_body.body_mut() = Some(reqwest::Body::from("{\"name\":\"x\"}"));
        let copy = copy_to_send(&with_body).expect("bytes: copied");
        assert_eq!(
            copy.body().and_then(reqwest::Body::as_bytes),
            Some(&b"{\"name\":\"x\"}"[..])
        );

        let stream = futures::stream::iter([Ok::<_, std::io::Error>(bytes::Bytes::from("x"))]);
        *with_body.body_mut() = Some(reqwest::Body::wrap_stream(stream));
        assert!(copy_to_send(&with_body).is_none(), "a stream is sent once");
    }
}

//! Decoding response bodies, with errors that name the operation and the JSON path.
//!
//! `cargo xtask generate` makes every generated builder decode its response through [`decode`]
//! (in place of progenitor's `ResponseValue::from_response`). A well-formed body costs what it
//! always did: one `serde_json::from_slice`. A body that does not match is decoded a second time
//! through `serde_path_to_error` to find where, and the call fails with progenitor's
//! [`Error::InvalidResponsePayload`] as before, the body and a `serde_json::Error` whose source is a
//! typed [`DecodeError`]: the operation, the JSON path (`data[0].headers`; `.` for the body as a
//! whole) and serde's message. [`DecodeError::from_payload_error`] takes it back out.
//!
//! ```
//! use store_admin_client_core::DecodeError;
//!
//! let error = DecodeError::locate::<Vec<u32>>("list_ids", br#"[1, "two"]"#);
//! assert_eq!(error.operation(), "list_ids");
//! assert_eq!(error.path(), "[1]");
//! assert_eq!(
//!     error.to_string(),
//!     "list_ids: the response body does not match the API document at `[1]`: \
//!      invalid type: string \"two\", expected u32 at line 1 column 9"
//! );
//! ```

use std::fmt;
use std::io;

use progenitor_client::{ByteStream, Error, OperationInfo, ResponseValue};
use serde::de::DeserializeOwned;

/// A response body that does not match the operation's type.
#[derive(Debug)]
pub struct DecodeError {
    operation: &'static str,
    path: String,
    source: serde_json::Error,
}

impl DecodeError {
    /// Decodes `body` as `T` again, following the JSON path, and says where it fails. (If it
    /// does not fail, the error names the whole body.)
    pub fn locate<T: DeserializeOwned>(operation: &'static str, body: &[u8]) -> Self {
        let de = &mut serde_json::Deserializer::from_slice(body);
        match serde_path_to_error::deserialize::<_, T>(de) {
            Err(e) => Self {
                operation,
                path: e.path().to_string(),
                source: e.into_inner(),
            },
            Ok(_) => Self {
                operation,
                path: ".".to_owned(),
                source: serde::de::Error::custom("the body decodes when read again"),
            },
        }
    }

    /// The operation (`operationId`) whose response this was.
    pub fn operation(&self) -> &'static str {
        self.operation
    }

    /// The JSON path that failed, e.g. `data[3].price`; `.` when the body as a whole did (not
    /// JSON, empty, cut short before anything decoded).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// serde's error: what was expected, and where in the text.
    pub fn inner(&self) -> &serde_json::Error {
        &self.source
    }

    /// Wraps this error as progenitor carries it: a `serde_json::Error` (of the I/O category)
    /// whose source this is.
    pub fn into_serde(self) -> serde_json::Error {
        serde_json::Error::io(io::Error::new(io::ErrorKind::InvalidData, self))
    }

    /// The `DecodeError` inside the `serde_json::Error` of progenitor's
    /// [`Error::InvalidResponsePayload`], or that error unchanged when it is not one of ours.
    pub fn from_payload_error(error: serde_json::Error) -> Result<Self, serde_json::Error> {
        if !error.is_io() {
            return Err(error);
        }
        let io: io::Error = error.into();
        if !io.get_ref().is_some_and(|e| e.is::<DecodeError>()) {
            return Err(serde_json::Error::io(io));
        }
        match io.into_inner().map(|inner| inner.downcast::<DecodeError>()) {
            Some(Ok(decode)) => Ok(*decode),
            // Unreachable: checked above.
            Some(Err(other)) => Err(serde_json::Error::io(io::Error::new(
                io::ErrorKind::InvalidData,
                other,
            ))),
            None => Err(serde::de::Error::custom("an I/O error without its source")),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: the response body does not match the API document at `{}`: {}",
            self.operation, self.path, self.source
        )
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Decodes `body` as `T`, or says which operation's body failed where.
pub fn decode_slice<T: DeserializeOwned>(
    operation: &'static str,
    body: &[u8],
) -> Result<T, DecodeError> {
    serde_json::from_slice(body).map_err(|_| DecodeError::locate::<T>(operation, body))
}

/// Why [`read_body`] returned no body.
#[derive(Debug)]
pub enum BodyError {
    /// Reading failed (the connection broke, the body was cut short).
    Http(reqwest::Error),
    /// The body is larger than the bound given (announced by `content-length`, or read so far):
    /// reading stopped there.
    TooLarge {
        /// The bound, in bytes.
        limit: u64,
    },
}

impl From<reqwest::Error> for BodyError {
    fn from(error: reqwest::Error) -> Self {
        BodyError::Http(error)
    }
}

/// Reads the whole body of `response` in place, at most `limit` bytes: the response keeps its
/// status, headers, URL and extensions, and can be handed on (the runtime reads every answer in
/// full, then passes the same response to [`decode`] with its [`WholeBody`]). A body in one piece
/// is returned as it came; one in several is joined once. A `content-length` past `limit` fails
/// before reading; a body that grows past it fails as soon as it does, with no more read or kept.
pub async fn read_body(
    response: &mut reqwest::Response,
    limit: u64,
) -> Result<bytes::Bytes, BodyError> {
    let too_large = |length: u64| (length > limit).then_some(BodyError::TooLarge { limit });
    if let Some(error) = response.content_length().and_then(too_large) {
        return Err(error);
    }
    let size = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
    let Some(first) = response.chunk().await? else {
        return Ok(bytes::Bytes::new());
    };
    if let Some(error) = too_large(size(first.len())) {
        return Err(error);
    }
    let Some(second) = response.chunk().await? else {
        return Ok(first);
    };
    let mut whole = bytes::BytesMut::with_capacity(
        response
            .content_length()
            .and_then(|length| usize::try_from(length).ok())
            .unwrap_or(0)
            .max(first.len() + second.len())
            // A length announced by the service is a hint, not a promise to allocate.
            .min(MAX_PREALLOCATION),
    );
    whole.extend_from_slice(&first);
    whole.extend_from_slice(&second);
    if let Some(error) = too_large(size(whole.len())) {
        return Err(error);
    }
    while let Some(chunk) = response.chunk().await? {
        if let Some(error) = too_large(size(whole.len() + chunk.len())) {
            return Err(error);
        }
        whole.extend_from_slice(&chunk);
    }
    Ok(whole.freeze())
}

/// The most [`read_body`] reserves up front from a `content-length` (it grows past it if the body
/// does).
const MAX_PREALLOCATION: usize = 16 << 20;

/// The whole body of a response an [`Interceptor`](crate::Interceptor) has read already (its body
/// itself is then spent), in the response's extensions: [`decode`] and [`stream`] take it from
/// there. The `store-admin` runtime reads every answer in full, to retry a body cut short, and
/// hands reqwest's response on with its bytes here; a response the generated code passes on as
/// it is (progenitor's `Error::UnexpectedResponse`, a status the document does not list) carries
/// its body here too, with the operation it answers, so that the error can name it.
#[derive(Clone, Debug)]
pub struct WholeBody {
    /// The body, as it came.
    pub body: bytes::Bytes,
    /// The `operationId` of the call it answers.
    pub operation: &'static str,
}

/// A response's body as a stream (what a generated builder whose success is a file returns, in
/// place of progenitor's `ResponseValue::stream`): its [`WholeBody`] when an interceptor has read
/// it, else the body as it arrives.
pub fn stream(mut response: reqwest::Response) -> ResponseValue<ByteStream> {
    match response.extensions_mut().remove::<WholeBody>() {
        Some(WholeBody { body, .. }) => {
            let chunks = (!body.is_empty()).then_some(Ok(body));
            ResponseValue::new(
                ByteStream::new(Box::pin(futures::stream::iter(chunks))),
                response.status(),
                std::mem::take(response.headers_mut()),
            )
        }
        None => ResponseValue::stream(response),
    }
}

/// Reads a response and decodes its body as `T` (what every generated builder's `send` does):
/// [`Error::ResponseBodyError`] when the body cannot be read, [`Error::InvalidResponsePayload`]
/// carrying a [`DecodeError`] when it does not decode. A response carrying its [`WholeBody`] is
/// decoded from it.
pub async fn decode<T: DeserializeOwned, E>(
    mut response: reqwest::Response,
    info: &OperationInfo,
) -> Result<ResponseValue<T>, Error<E>> {
    let body = match response.extensions_mut().remove::<WholeBody>() {
        Some(WholeBody { body, .. }) => body,
        // Without the runtime (no interceptor), nothing bounds the body: read it as it comes.
        None => {
            let mut whole = bytes::BytesMut::new();
            while let Some(chunk) = response.chunk().await.map_err(Error::ResponseBodyError)? {
                whole.extend_from_slice(&chunk);
            }
            whole.freeze()
        }
    };
    match decode_slice::<T>(info.operation_id, &body) {
        Ok(inner) => Ok(ResponseValue::new(
            inner,
            response.status(),
            std::mem::take(response.headers_mut()),
        )),
        Err(error) => Err(Error::InvalidResponsePayload(body, error.into_serde())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Page {
        data: Vec<Item>,
    }

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Item {
        id: u64,
        headers: std::collections::BTreeMap<String, String>,
    }

    #[test]
    fn the_error_names_the_operation_and_the_path_and_survives_the_round_trip_through_serde() {
        let body = br#"{"data": [{"id": 1, "headers": [1]}]}"#;
        let error = decode_slice::<Page>("list_webhooks", body).expect_err("bad headers");
        assert_eq!(error.path(), "data[0].headers");
        let carried = error.into_serde();
        let message = carried.to_string();
        assert!(
            message.starts_with(
                "list_webhooks: the response body does not match the API document at `data[0].headers`: invalid type: sequence, expected a map"
            ),
            "{message}"
        );
        let back = DecodeError::from_payload_error(carried).expect("ours");
        assert_eq!(
            (back.operation(), back.path()),
            ("list_webhooks", "data[0].headers")
        );
    }

    /// A response to `decode`: `body` on the wire, and `whole` as the interceptor's [`WholeBody`].
    fn response(body: &'static str, whole: Option<&'static str>) -> reqwest::Response {
        let mut response = http::Response::new(body);
        if let Some(whole) = whole {
            response.extensions_mut().insert(WholeBody {
                body: bytes::Bytes::from_static(whole.as_bytes()),
                operation: "list_ids",
            });
        }
        reqwest::Response::from(response)
    }

    fn decoded(response: reqwest::Response) -> Result<Vec<u32>, String> {
        let info = OperationInfo {
            operation_id: "list_ids",
        };
        futures::executor::block_on(decode::<Vec<u32>, ()>(response, &info))
            .map(ResponseValue::into_inner)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_whole_body_read_by_the_interceptor_is_decoded_and_the_body_is_not_read_again() {
        // The body on the wire would not decode: the one in the extensions is what is read.
        assert_eq!(
            decoded(response("not JSON", Some("[1, 2]"))),
            Ok(vec![1, 2])
        );
        assert_eq!(decoded(response("[3]", None)), Ok(vec![3]));
        let error = decoded(response("[1]", Some("[\"x\"]"))).expect_err("bad item");
        assert!(
            error.contains("list_ids: the response body does not match the API document at `[0]`"),
            "{error}"
        );
    }

    /// A response whose body arrives in `chunks`.
    fn chunked(chunks: &[&'static str]) -> reqwest::Response {
        let frames: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                Ok::<_, std::convert::Infallible>(http_body::Frame::data(
                    bytes::Bytes::from_static(chunk.as_bytes()),
                ))
            })
            .collect();
        let body = http_body_util::StreamBody::new(futures::stream::iter(frames));
        reqwest::Response::from(http::Response::new(reqwest::Body::wrap(body)))
    }

    #[test]
    fn a_body_in_pieces_is_joined_and_one_in_one_piece_is_not_copied() {
        let read = |mut response: reqwest::Response| {
            let body =
                futures::executor::block_on(read_body(&mut response, u64::MAX)).expect("reads");
            (response, body)
        };
        let (_, body) = read(chunked(&["[1,", " 2", ", 3", "]"]));
        assert_eq!(&body[..], b"[1, 2, 3]");
        const ONE: &str = "[4]";
        let (response, body) = read(chunked(&[ONE]));
        assert_eq!(
            body.as_ptr(),
            ONE.as_ptr(),
            "one piece is handed on as it came"
        );
        assert_eq!(response.status().as_u16(), 200, "the response is kept");
        let (_, body) = read(chunked(&[]));
        assert!(body.is_empty());
    }

    #[test]
    fn a_body_past_the_bound_fails_as_soon_as_it_passes_it() {
        let read = |mut response: reqwest::Response, limit| {
            futures::executor::block_on(read_body(&mut response, limit))
        };
        let too_large = |result: Result<bytes::Bytes, BodyError>| {
            matches!(result, Err(BodyError::TooLarge { limit: 8 }))
        };
        // No content-length: found while reading, in the first piece, the second, or later.
        assert!(too_large(read(chunked(&["0123456789"]), 8)));
        assert!(too_large(read(chunked(&["0123", "45678"]), 8)));
        assert!(too_large(read(chunked(&["012", "345", "678"]), 8)));
        // Announced by content-length: refused before a byte is read.
        let announced = reqwest::Response::from(
            http::Response::builder()
                .header("content-length", "9")
                .body(reqwest::Body::from("012345678"))
                .unwrap(),
        );
        assert!(too_large(read(announced, 8)));
        // Exactly the bound is read.
        let body = read(chunked(&["0123", "4567"]), 8).expect("at the bound");
        assert_eq!(&body[..], b"01234567");
    }

    #[test]
    fn a_read_body_is_streamed_from_where_the_interceptor_keeps_it() {
        let stream_of = |response| {
            let chunks: Vec<bytes::Bytes> = futures::executor::block_on(
                futures::TryStreamExt::try_collect(stream(response).into_inner().into_inner()),
            )
            .expect("streams");
            chunks.concat()
        };
        assert_eq!(stream_of(response("", Some("the file"))), b"the file");
        assert_eq!(stream_of(response("on the wire", None)), b"on the wire");
        assert!(stream_of(response("", Some(""))).is_empty());
    }

    #[test]
    fn a_foreign_serde_error_is_given_back() {
        let foreign = serde_json::from_str::<u8>("x").expect_err("not JSON");
        let back = DecodeError::from_payload_error(foreign).expect_err("not ours");
        assert_eq!(back.to_string(), "expected value at line 1 column 1");
        let io = serde_json::Error::io(io::Error::other("disk"));
        let back = DecodeError::from_payload_error(io).expect_err("not ours");
        assert_eq!(back.to_string(), "disk");
    }

    #[test]
    fn bodies_that_fail_as_a_whole_name_the_root() {
        for body in [&b""[..], b"<html>", b"{\"data\": ["] {
            let error = decode_slice::<Page>("op", body).expect_err("fails");
            assert!(error.path() == "." || error.path() == "data", "{error}");
        }
    }
}

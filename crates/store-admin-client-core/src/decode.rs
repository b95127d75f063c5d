//! Reading and decoding response bodies, with errors that name the operation and the JSON path.
//!
//! The generated builders decode a success with progenitor's own `ResponseValue::from_response`
//! (one `serde_json::from_slice`); when a body does not match, progenitor hands back the bytes
//! with serde's error, and `store-admin` reads them again through [`DecodeError::locate`] to say
//! where: the happy path pays nothing for it.
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
    /// A body nested deeper than [`MAX_DEPTH`](crate::MAX_DEPTH) is not read again: the error
    /// says so, at the root.
    pub fn locate<T: DeserializeOwned>(operation: &'static str, body: &[u8]) -> Self {
        if let Err(too_deep) = crate::check_depth(body) {
            return Self::too_deep(operation, &too_deep);
        }
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

    /// The error of a body nested deeper than the bound ([`check_depth`](crate::check_depth)),
    /// which serde never reads: at the root, naming the depth and the bound.
    pub fn too_deep(operation: &'static str, too_deep: &crate::TooDeep) -> Self {
        Self {
            operation,
            path: ".".to_owned(),
            source: serde::de::Error::custom(too_deep),
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

/// Decodes `body` as `T`, or says which operation's body failed where. A body nested deeper than
/// [`MAX_DEPTH`](crate::MAX_DEPTH) is refused before serde reads it.
pub fn decode_slice<T: DeserializeOwned>(
    operation: &'static str,
    body: &[u8],
) -> Result<T, DecodeError> {
    crate::check_depth(body).map_err(|too_deep| DecodeError::too_deep(operation, &too_deep))?;
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
/// status, headers, URL and extensions (the runtime reads every answer in full, to retry a body cut
/// short, then hands the generated code a response of the same parts and this body). A body in one piece
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
    fn the_error_names_the_operation_and_the_path() {
        let body = br#"{"data": [{"id": 1, "headers": [1]}]}"#;
        let error = decode_slice::<Page>("list_webhooks", body).expect_err("bad headers");
        assert_eq!(
            (error.operation(), error.path()),
            ("list_webhooks", "data[0].headers")
        );
        let message = error.to_string();
        assert!(
            message.starts_with(
                "list_webhooks: the response body does not match the API document at `data[0].headers`: invalid type: sequence, expected a map"
            ),
            "{message}"
        );
        let empty = decode_slice::<Page>("list_webhooks", br#"{"data": []}"#).expect("decodes");
        assert!(empty.data.is_empty());
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
    fn a_body_nested_past_the_bound_is_refused_naming_the_depth_and_the_bound() {
        let depth = crate::MAX_DEPTH + 1;
        let body = format!("{{\"data\": {}{}}}", "[".repeat(depth), "]".repeat(depth));
        let error = decode_slice::<Page>("list_webhooks", body.as_bytes()).expect_err("too deep");
        assert_eq!(error.path(), ".");
        let message = error.to_string();
        assert!(
            message.contains(&format!("nested deeper than {} levels", crate::MAX_DEPTH)),
            "{message}"
        );
        let located = DecodeError::locate::<Page>("list_webhooks", body.as_bytes());
        assert_eq!(located.to_string(), message);
    }

    #[test]
    fn bodies_that_fail_as_a_whole_name_the_root() {
        for body in [&b""[..], b"<html>", b"{\"data\": ["] {
            let error = decode_slice::<Page>("op", body).expect_err("fails");
            assert!(error.path() == "." || error.path() == "data", "{error}");
        }
    }
}

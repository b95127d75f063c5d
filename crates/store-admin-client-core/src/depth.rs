//! The nesting bound of every answer decoded: a body nested deeper than [`MAX_DEPTH`] is refused
//! before serde reads it.
//!
//! serde's buffering (an untagged enum, a flattened struct, the lenient adapters) reads a value
//! through several large stack frames per level of nesting, in a debug build above all: an answer
//! of 200 bytes nested 70 deep overflowed a tokio worker's 2 MiB stack and aborted the process.
//! [`check_depth`] counts the nesting of the bytes without recursing (one pass; the inside of a
//! string is skipped with `memchr`), so a hostile or broken answer is a decode error, never a
//! crash. The client's runtime, the decoders of the facade (`store-admin decode`, the mock's drift
//! check), [`decode_slice`](crate::decode_slice) and the webhook deliveries all call it.
//!
//! ```
//! use store_admin_client_core::{MAX_DEPTH, check_depth};
//!
//! assert!(check_depth(br#"{"data": [{"id": 1, "tags": ["[[[["]}]}"#).is_ok());
//! let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
//! let error = check_depth(deep.as_bytes()).expect_err("too deep");
//! assert_eq!(error.limit(), MAX_DEPTH);
//! assert_eq!(
//!     error.to_string(),
//!     format!("the body is nested deeper than {MAX_DEPTH} levels (level {} at byte {MAX_DEPTH})", MAX_DEPTH + 1)
//! );
//! ```

use std::fmt;

/// The deepest nesting of arrays and objects an answer may have: 32 levels.
///
/// The deepest answer of the document's examples and the recorded samples is 11 levels (an order
/// with its items, their options and their values); a webhook delivery wraps such a record in two
/// more. 32 leaves room for that to grow threefold, and stays far from what a 2 MiB stack holds:
/// every operation's decoders read every answer nested 32 deep (the nesting shapes, and every
/// sample with nesting filling the bound at each of its paths) on a 512 KiB stack in a debug
/// build, a quarter of a tokio worker's (`tests/depth.rs` of `store-admin-client`, its ignored
/// measure).
pub const MAX_DEPTH: usize = 32;

/// A body nested deeper than the bound: where, and the bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooDeep {
    limit: usize,
    offset: usize,
}

impl TooDeep {
    /// The bound passed.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The byte offset of the `[` or `{` that opened the level past the bound.
    pub fn offset(&self) -> usize {
        self.offset
    }
}

impl fmt::Display for TooDeep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the body is nested deeper than {} levels (level {} at byte {})",
            self.limit,
            self.limit + 1,
            self.offset
        )
    }
}

impl std::error::Error for TooDeep {}

/// Checks that `body` is nested at most [`MAX_DEPTH`] levels deep (see [`check_depth_within`]).
pub fn check_depth(body: &[u8]) -> Result<(), TooDeep> {
    check_depth_within(body, MAX_DEPTH)
}

/// Checks that `body`, read as JSON, opens at most `limit` arrays and objects inside one another.
///
/// A `[` or `{` inside a string (escapes honoured) does not count. One pass over the bytes, no
/// recursion, nothing allocated. A body that does not begin (after white space) with `[` or `{`
/// is not JSON that nests (serde reads a scalar, or fails at once), and any bytes pass: a file
/// answered by a download (a workbook) is never read as nesting. The check is about depth only:
/// a body that passes may still be invalid JSON, which serde then says.
pub fn check_depth_within(body: &[u8], limit: usize) -> Result<(), TooDeep> {
    let start = body
        .iter()
        .position(|byte| !byte.is_ascii_whitespace())
        .unwrap_or(body.len());
    if !matches!(body.get(start), Some(b'[' | b'{')) {
        return Ok(());
    }
    let mut depth = 0usize;
    let mut at = start;
    while at < body.len() {
        match body[at] {
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return Err(TooDeep { limit, offset: at });
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'"' => {
                // Skip the string: to its closing quote, past every escaped character.
                at += 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &body[at.min(body.len())..]) {
                        None => return Ok(()),
                        Some(found) if body[at + found] == b'\\' => at += found + 2,
                        Some(found) => {
                            at += found;
                            break;
                        }
                    }
                }
            }
            _ => {}
        }
        at += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> String {
        format!("{}{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn the_bound_is_inclusive() {
        assert!(check_depth_within(nested(3).as_bytes(), 3).is_ok());
        let error = check_depth_within(nested(4).as_bytes(), 3).expect_err("4 > 3");
        assert_eq!((error.limit(), error.offset()), (3, 3));
        assert!(check_depth_within(br#"{"a":{"b":[1]}}"#, 3).is_ok());
        assert!(check_depth_within(br#"{"a":{"b":[{}]}}"#, 3).is_err());
    }

    #[test]
    fn brackets_in_strings_do_not_count_and_escapes_are_honoured() {
        assert!(check_depth_within(br#"["[[[[{{{{"]"#, 1).is_ok());
        // An escaped quote does not end the string; an escaped backslash does not escape it.
        assert!(check_depth_within(br#"["\"[[[[", "\\", ["x"]]"#, 2).is_ok());
        assert!(check_depth_within(br#"["\\", [["x"]]]"#, 2).is_err());
        assert!(check_depth_within(br#"["\\\"[[[", [1]]"#, 2).is_ok());
        // A string cut short, or an escape at the very end, ends the scan without a panic.
        assert!(check_depth_within(br#"["abc"#, 1).is_ok());
        assert!(check_depth_within(b"[\"abc\\", 1).is_ok());
        assert!(check_depth_within(b"[\"\\", 1).is_ok());
    }

    #[test]
    fn bodies_that_do_not_open_with_a_bracket_pass() {
        for body in [
            &b""[..],
            b"   ",
            b"42",
            b"\"[[[[[\"",
            b"PK\x03\x04[[[[[[[[",
            b"null",
        ] {
            assert!(check_depth_within(body, 1).is_ok());
        }
        assert!(check_depth_within(b" \n [[[]]]", 2).is_err());
    }

    #[test]
    fn a_hundred_thousand_levels_are_refused_at_the_bound() {
        let error = check_depth(nested(100_000).as_bytes()).expect_err("deep");
        assert_eq!(error.offset(), MAX_DEPTH);
        assert!(check_depth(nested(MAX_DEPTH).as_bytes()).is_ok());
        // Closing more than was opened does not lend depth.
        let unbalanced = format!("[]]]]]{}", nested(MAX_DEPTH));
        assert!(check_depth(unbalanced.as_bytes()).is_ok());
    }
}

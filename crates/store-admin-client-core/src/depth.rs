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
///
/// Every answer a client decodes passes through here, so the scan reads the bytes 64 at a time
/// (a `Block`): one bit per byte for each of the four characters that matter, the insides of the
/// strings found for the whole block at once, and only the brackets outside them visited, one by
/// one (a page has one or two in a block; a block without any costs nothing more). On a page of
/// 60 product quantities (13.8 KB) it takes 0.9 us, where the scan a byte at a time (the form the
/// tests compare it with, a `memchr` per string) took 7 us, most of what a client's call cost
/// beyond the request itself (a release build, the scan alone over that page, x86-64 with SSE2).
pub fn check_depth_within(body: &[u8], limit: usize) -> Result<(), TooDeep> {
    if nesting_start(body).is_none() {
        return Ok(());
    }
    let mut scan = Scan::default();
    let mut blocks = body.chunks_exact(64);
    for (index, block) in blocks.by_ref().enumerate() {
        let block: &[u8; 64] = block.try_into().unwrap_or(&[b' '; 64]);
        scan.block(&Block::of(block), index * 64, limit)?;
    }
    let rest = blocks.remainder();
    if !rest.is_empty() {
        // The last bytes, padded with spaces (which mean nothing to the scan).
        let mut last = [b' '; 64];
        last[..rest.len()].copy_from_slice(rest);
        scan.block(&Block::of(&last), body.len() - rest.len(), limit)?;
    }
    Ok(())
}

/// Where `body` opens its first array or object: its first byte after white space, when that is
/// `[` or `{`; `None` when the body is not JSON that nests.
fn nesting_start(body: &[u8]) -> Option<usize> {
    let start = body.iter().position(|byte| !byte.is_ascii_whitespace())?;
    matches!(body[start], b'[' | b'{').then_some(start)
}

/// The four characters of 64 bytes that the depth depends on, one bit per byte (bit `i` is byte
/// `i`).
#[derive(Default, Debug, PartialEq, Eq)]
struct Block {
    quotes: u64,
    backslashes: u64,
    opens: u64,
    closes: u64,
}

impl Block {
    /// The masks of `bytes` with SSE2 (which every x86-64 processor has): 16 bytes compared at
    /// once, each comparison's top bits gathered into 16 bits (`pmovmskb`).
    #[cfg(all(
        any(target_arch = "x86", target_arch = "x86_64"),
        target_feature = "sse2"
    ))]
    fn of(bytes: &[u8; 64]) -> Self {
        use safe_arch::{
            bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i,
            set_splat_i8_m128i,
        };
        let [quote, backslash, open, close, fold] =
            [b'"', b'\\', b'{', b'}', 0x20].map(|byte| set_splat_i8_m128i(byte as i8));
        let mut block = Block::default();
        for (lane, sixteen) in bytes.chunks_exact(16).enumerate() {
            let Ok(sixteen) = <&[u8; 16]>::try_from(sixteen) else {
                continue;
            };
            let bytes = load_unaligned_m128i(sixteen);
            // `[` and `{` differ in one bit (0x20), as do `]` and `}`.
            let folded = bitor_m128i(bytes, fold);
            let bits = |equal| u64::from(move_mask_i8_m128i(equal) as u16) << (16 * lane);
            block.quotes |= bits(cmp_eq_mask_i8_m128i(bytes, quote));
            block.backslashes |= bits(cmp_eq_mask_i8_m128i(bytes, backslash));
            block.opens |= bits(cmp_eq_mask_i8_m128i(folded, open));
            block.closes |= bits(cmp_eq_mask_i8_m128i(folded, close));
        }
        block
    }

    /// The masks of `bytes`, built 16 bytes at a time: a loop over 16 bytes into a `u16` is one
    /// the compiler turns into vector compares (over 64 bytes into a `u64` it does not, and the
    /// scan cost three times the byte-at-a-time one). Half as fast as the SSE2 form.
    #[cfg(not(all(
        any(target_arch = "x86", target_arch = "x86_64"),
        target_feature = "sse2"
    )))]
    fn of(bytes: &[u8; 64]) -> Self {
        portable(bytes)
    }
}

/// [`Block::of`] without SSE2 (and the tests' reference for it).
#[cfg_attr(
    all(
        any(target_arch = "x86", target_arch = "x86_64"),
        target_feature = "sse2"
    ),
    allow(dead_code)
)]
fn portable(bytes: &[u8; 64]) -> Block {
    let mut block = Block::default();
    for (lane, sixteen) in bytes.chunks_exact(16).enumerate() {
        let (mut q, mut b, mut o, mut c) = (0u16, 0u16, 0u16, 0u16);
        for (i, &byte) in sixteen.iter().enumerate() {
            let folded = byte | 0x20;
            q |= u16::from(byte == b'"') << i;
            b |= u16::from(byte == b'\\') << i;
            o |= u16::from(folded == b'{') << i;
            c |= u16::from(folded == b'}') << i;
        }
        let at = 16 * lane;
        block.quotes |= u64::from(q) << at;
        block.backslashes |= u64::from(b) << at;
        block.opens |= u64::from(o) << at;
        block.closes |= u64::from(c) << at;
    }
    block
}

/// What the scan carries from one block to the next.
#[derive(Default)]
struct Scan {
    /// Arrays and objects open.
    depth: usize,
    /// The block ended inside a string.
    in_string: bool,
    /// The block's last byte was a backslash that escapes the next block's first byte.
    escapes_next: bool,
}

impl Scan {
    /// Reads `block`, which starts at byte `offset` of the body.
    fn block(&mut self, block: &Block, offset: usize, limit: usize) -> Result<(), TooDeep> {
        let escaped = self.escaped(block.backslashes);
        let quotes = block.quotes & !escaped;
        // A bit for every byte from an opening quote up to (not including) its closing one.
        let mut strings = prefix_xor(quotes);
        if self.in_string {
            strings = !strings;
        }
        self.in_string = strings >> 63 == 1;
        let (opens, closes) = (block.opens & !strings, block.closes & !strings);
        let mut brackets = opens | closes;
        while brackets != 0 {
            let at = brackets.trailing_zeros();
            brackets &= brackets - 1;
            if opens >> at & 1 == 1 {
                self.depth += 1;
                if self.depth > limit {
                    return Err(TooDeep {
                        limit,
                        offset: offset + at as usize,
                    });
                }
            } else {
                // Closing more than was opened does not lend depth.
                self.depth = self.depth.saturating_sub(1);
            }
        }
        Ok(())
    }

    /// The bytes of the block that a backslash escapes (a backslash escaped by another one
    /// escapes nothing). Backslashes are rare in answers: they are followed one by one.
    fn escaped(&mut self, backslashes: u64) -> u64 {
        if backslashes == 0 && !self.escapes_next {
            return 0;
        }
        let mut escaped = u64::from(self.escapes_next);
        self.escapes_next = false;
        let mut rest = backslashes & !escaped;
        while rest != 0 {
            let at = rest.trailing_zeros();
            if at == 63 {
                self.escapes_next = true;
                break;
            }
            escaped |= 1 << (at + 1);
            // The escaped byte, a backslash or not, escapes nothing itself.
            rest &= u64::MAX.checked_shl(at + 2).unwrap_or(0);
        }
        escaped
    }
}

/// Bit `i` of the answer is the parity of bits `0..=i` of `bits`: set from each quote that opens
/// a string up to the quote that closes it.
fn prefix_xor(mut bits: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        bits ^= bits << shift;
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan a byte at a time, as it was first written: what the block scan must answer.
    fn byte_at_a_time(body: &[u8], limit: usize) -> Result<(), TooDeep> {
        let Some(start) = nesting_start(body) else {
            return Ok(());
        };
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
                    at += 1;
                    loop {
                        match body[at.min(body.len())..]
                            .iter()
                            .position(|&byte| byte == b'"' || byte == b'\\')
                        {
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

    #[test]
    fn the_block_scan_answers_what_the_byte_scan_answers() {
        // JSON-like bodies of every length across a few blocks: brackets, and strings holding
        // brackets, quotes, escaped quotes and runs of backslashes (so that escapes and strings
        // cross block boundaries), closing more than was opened at times; each body whole and
        // cut short at a random byte, checked against every bound up to 12. (A backslash outside
        // a string is not JSON: the two scans may count differently after it, and serde refuses
        // the body there, before it reads any nesting that follows.)
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below as u64) as usize
        };
        let mut disagreements = Vec::new();
        for case in 0..20_000 {
            let len = next(300);
            let mut body = b"[".to_vec();
            while body.len() < len {
                match next(6) {
                    0 => body.extend(std::iter::repeat_n(b'[', 1 + next(4))),
                    1 => body.extend(std::iter::repeat_n(b'{', 1 + next(4))),
                    2 => body.extend(std::iter::repeat_n(b']', 1 + next(4))),
                    3 => body.extend(std::iter::repeat_n(b'}', 1 + next(4))),
                    4 => body.extend_from_slice(b", 12 :"),
                    _ => {
                        body.push(b'"');
                        for _ in 0..next(90) {
                            match next(8) {
                                0 => body.extend(std::iter::repeat_n(b'\\', 2 * (1 + next(3)))),
                                1 => body.extend_from_slice(b"\\\""),
                                2 => body.push(b'['),
                                3 => body.push(b'{'),
                                4 => body.push(b'}'),
                                _ => body.push(b'x'),
                            }
                        }
                        body.push(b'"');
                    }
                }
            }
            let cut = next(body.len() + 1);
            for body in [&body[..], &body[..cut]] {
                for limit in 0..12 {
                    let (block, byte) =
                        (check_depth_within(body, limit), byte_at_a_time(body, limit));
                    if block != byte && disagreements.len() < 3 {
                        let text = String::from_utf8_lossy(body).into_owned();
                        disagreements.push((case, limit, text, block, byte));
                    }
                }
            }
        }
        assert!(disagreements.is_empty(), "{disagreements:#?}");
    }

    #[test]
    fn the_masks_are_the_same_with_and_without_sse2() {
        let mut bytes = [0u8; 64];
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = b"[]{}\"\\x Y_y;{\x7f\xff\x00\x80"[i % 17];
        }
        for rotate in 0..64 {
            bytes.rotate_left(1);
            let block = Block::of(&bytes);
            assert_eq!(block, portable(&bytes), "rotated {rotate}");
            assert_eq!(block.quotes.count_ones(), 4, "rotated {rotate}");
        }
    }

    #[test]
    fn a_backslash_at_the_end_of_a_block_escapes_the_next_blocks_first_byte() {
        // `["` then padding to byte 63, a backslash there: the quote at byte 64 is escaped, the
        // string goes on, and the brackets after it are inside it.
        let mut body = b"[\"".to_vec();
        body.resize(63, b'a');
        body.extend_from_slice(b"\\\"[[[[\"]");
        assert_eq!(body[63], b'\\');
        assert!(check_depth_within(&body, 1).is_ok());
        assert_eq!(check_depth_within(&body, 1), byte_at_a_time(&body, 1));
        // Two backslashes across the boundary escape each other: the quote ends the string.
        let mut body = b"[\"".to_vec();
        body.resize(63, b'a');
        body.extend_from_slice(b"\\\\\"[[[[\"]");
        let error = check_depth_within(&body, 1).expect_err("the brackets are outside the string");
        assert_eq!(error.offset(), 66);
        assert_eq!(check_depth_within(&body, 1), byte_at_a_time(&body, 1));
    }

    #[test]
    fn a_page_of_records_is_scanned_to_its_end() {
        let record = r#"{"id":1,"name":"a \"quoted\" [name]","tags":[{"id":2}],"path":"C:\\x\\"}"#;
        let page = format!(
            "{{\"data\":[{}],\"meta\":{{\"total\":60}}}}",
            vec![record; 60].join(",")
        );
        // The page, its data, a record, its tags, a tag: five levels.
        assert!(check_depth_within(page.as_bytes(), 5).is_ok());
        assert!(check_depth_within(page.as_bytes(), 4).is_err());
        let deep_last = format!(
            "{}{}{}",
            &page[..page.len() - 2],
            r#","x":[[[["x"]]]]"#,
            "}}"
        );
        let error = check_depth_within(deep_last.as_bytes(), 5).expect_err("six deep at the end");
        assert_eq!(
            error,
            byte_at_a_time(deep_last.as_bytes(), 5).expect_err("same")
        );
        assert!(error.offset() > page.len() - 20);
    }

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

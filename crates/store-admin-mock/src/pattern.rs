//! A string that matches a `pattern` of the document, for generated values: the regular
//! expression is parsed with `regex-syntax` and walked (a random branch of each alternation, a
//! repetition count within its bounds, a character of each class), then checked with `regex`.

use rand::Rng;
use rand::rngs::StdRng;
use regex_syntax::hir::{Class, Hir, HirKind};

/// Most repetitions generated for an unbounded `*` or `+`.
const UNBOUNDED: u32 = 4;

/// A string matching `pattern` (ECMA-style as the document writes it), or `None` when the
/// pattern is beyond this walker (look-arounds, back references) or nothing was found in a few
/// tries.
pub(crate) fn sample(pattern: &str, rng: &mut StdRng) -> Option<String> {
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(pattern)
        .ok()?;
    let checker = regex::Regex::new(pattern).ok()?;
    for _ in 0..8 {
        let mut out = String::new();
        walk(&hir, rng, &mut out);
        if checker.is_match(&out) {
            return Some(out);
        }
    }
    None
}

fn walk(hir: &Hir, rng: &mut StdRng, out: &mut String) {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(literal) => out.push_str(&String::from_utf8_lossy(&literal.0)),
        HirKind::Class(Class::Unicode(class)) => {
            let ranges = class.ranges();
            if !ranges.is_empty() {
                let range = ranges[rng.random_range(0..ranges.len())];
                let (start, end) = (u32::from(range.start()), u32::from(range.end()));
                let start = start.max(0x20).min(end);
                let end = end.min(start + 25).min(0x7e).max(start);
                if let Some(c) = char::from_u32(rng.random_range(start..=end)) {
                    out.push(c);
                }
            }
        }
        HirKind::Class(Class::Bytes(class)) => {
            let ranges = class.ranges();
            if !ranges.is_empty() {
                let range = ranges[rng.random_range(0..ranges.len())];
                let (start, end) = (range.start().max(0x20), range.end().min(0x7e));
                if start <= end {
                    out.push(char::from(rng.random_range(start..=end)));
                }
            }
        }
        HirKind::Repetition(repetition) => {
            let max = repetition
                .max
                .unwrap_or(repetition.min + UNBOUNDED)
                .min(repetition.min + UNBOUNDED);
            let count = rng.random_range(repetition.min..=max.max(repetition.min));
            for _ in 0..count {
                walk(&repetition.sub, rng, out);
            }
        }
        HirKind::Capture(capture) => walk(&capture.sub, rng, out),
        HirKind::Concat(items) => {
            for item in items {
                walk(item, rng, out);
            }
        }
        HirKind::Alternation(branches) => {
            if !branches.is_empty() {
                walk(&branches[rng.random_range(0..branches.len())], rng, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn samples_match_their_pattern() {
        let mut rng = StdRng::seed_from_u64(3);
        for pattern in [
            "^[a-z_]+-(asc|desc)$",
            r"^\d{4}-\d{2}-\d{2}$",
            "^#[0-9a-fA-F]{6}$",
            "^(https?)://[a-z]+\\.example$",
        ] {
            let text = sample(pattern, &mut rng).expect(pattern);
            assert!(
                regex::Regex::new(pattern).unwrap().is_match(&text),
                "{pattern}: {text}"
            );
        }
    }
}

//! Text from the service is data: made safe for a terminal ([`terminal_safe`]) and a spreadsheet
//! (`csv_text`), and with its secrets redacted ([`redact`]) before any format prints it.

use serde_json::Value;

/// Property names whose values are secrets: printed as [`REDACTED`].
pub const SECRET_KEYS: &[&str] = &[
    "secret",
    "access_token",
    "refresh_token",
    "client_secret",
    "password",
];

/// What a redacted secret is printed as.
pub const REDACTED: &str = "[redacted]";

/// Replaces the value of every [`SECRET_KEYS`] property, at any depth, by [`REDACTED`], and the
/// values of custom HTTP headers (a `headers` property: `[{"key", "value"}]` or a map), which
/// carry credentials as often as not.
pub fn redact(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                if SECRET_KEYS.contains(&key.as_str()) && !inner.is_null() {
                    *inner = Value::String(REDACTED.into());
                } else if key == "headers" {
                    redact_header_values(inner);
                } else {
                    redact(inner);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        _ => {}
    }
}

/// `headers` as the service sends them: a list of `{"key", "value"}` or a map of name to value.
fn redact_header_values(headers: &mut Value) {
    let hide = |v: &mut Value| {
        if !v.is_null() {
            *v = Value::String(REDACTED.into());
        }
    };
    match headers {
        Value::Array(items) => {
            for item in items {
                match item {
                    Value::Object(header) => header.get_mut("value").into_iter().for_each(hide),
                    other => hide(other),
                }
            }
        }
        Value::Object(map) => map.values_mut().for_each(hide),
        _ => {}
    }
}

/// Text from the service made safe for a terminal: every control character (C0, DEL, C1) and
/// every bidirectional override is written as a visible escape (`\u{1b}`), so that data cannot
/// move the cursor, recolour the screen, retitle the window or reorder what is shown. Newlines are
/// kept when `keep_newlines` (messages), escaped otherwise (cells).
pub fn terminal_safe(text: &str, keep_newlines: bool) -> String {
    let unsafe_char = |c: char| {
        (c.is_control() && !(keep_newlines && c == '\n'))
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// The first characters that make a spreadsheet read a cell as a formula (OWASP's list).
const FORMULA_TRIGGERS: &[char] = &['=', '+', '-', '@', '\t', '\r'];

/// A CSV text cell that a spreadsheet shows as text and a terminal shows as it is: a cell
/// beginning with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'` (OWASP's
/// advice against CSV injection), and every control character but the newline (ESC, BEL, the
/// other C0 and C1 controls, DEL) and every bidirectional override is written as a visible escape
/// (`\u{1b}`), as in tables: `cat export.csv` cannot drive the terminal.
pub(crate) fn csv_text(text: &str) -> String {
    let safe = terminal_safe(text, true);
    if text.starts_with(FORMULA_TRIGGERS) {
        format!("'{safe}")
    } else {
        safe
    }
}

//! How the document's names become Rust names, one rule each: an operationId or a tag as a type
//! name ([`pascal`]: progenitor's builders, the command line's enums), a schema as typify names
//! its type ([`type_name`], [`type_path`]), a parameter or property as progenitor's setter ([`snake`]) and as a
//! field ([`field_ident`]). A leaf: it imports nothing of the crate.

use quote::format_ident;

/// Rust keywords that cannot be field names.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "box", "break", "const", "continue", "crate", "dyn", "else", "enum",
    "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod",
    "move", "mut", "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true",
    "try", "type", "unsafe", "use", "where", "while", "yield",
];

/// Lower-case words of an identifier or a tag.
pub(crate) fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

/// `list_order_statuses` / `order-statuses` -> `ListOrderStatuses`.
pub fn pascal(text: &str) -> String {
    words(text)
        .iter()
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// progenitor's setter name of a parameter: snake case, non-alphanumerics as `_`.
pub(crate) fn snake(text: &str) -> String {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if c.is_ascii_uppercase() {
            if previous_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            previous_lower = false;
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !out.ends_with('_') {
                out.push('_');
            }
            previous_lower = false;
        }
    }
    out.trim_matches('_').to_owned()
}

pub(crate) fn field_ident(id: &str) -> syn::Ident {
    if KEYWORDS.contains(&id) || id.starts_with(|c: char| c.is_ascii_digit()) {
        format_ident!("{id}_")
    } else {
        format_ident!("{id}")
    }
}

/// A schema name as typify names its type (`DNSRecord` -> `DnsRecord`).
pub fn type_name(schema: &str) -> String {
    use heck::ToPascalCase;
    let cleaned: String = schema
        .replace('\'', "")
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let name = cleaned.to_pascal_case();
    match name.chars().next() {
        Some(c) if c.is_alphabetic() => name,
        _ => format!("X{name}"),
    }
}

/// The path of a schema's type in the client's `types` module (`types::DnsRecord`).
pub fn type_path(schema: &str) -> String {
    format!("types::{}", type_name(schema))
}

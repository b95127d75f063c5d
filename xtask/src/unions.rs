//! A union of the document (`oneOf`/`anyOf`, typify's `#[serde(untagged)]` enum) that a value of
//! the service fits no branch of: the whole answer used to fail to decode. Every such enum gets a
//! last variant, `Other(serde_json::Value)`, that keeps the value as its JSON (and serializes it
//! back as it came), decoded through the core's `lenient::unmatched` (the `types` module's `use` of
//! `lenient`, which the lenient pass adds), which notes the habit in the
//! drift report. typify's `Display` of the enum (a `match` over its variants) gets the arm of the
//! new variant. A pass of its own items, run after `rewrite::bodies_unchanged` (the `Display` arm
//! is the only body it touches, and only of the enums it extends).

use anyhow::{Result, bail};
use quote::ToTokens;
use syn::{Expr, ImplItem, Item, Stmt, parse_quote};

use crate::rewrite::{Shapes, last_ident};

/// The name of the variant that keeps a value no branch fits.
pub const FALLBACK: &str = "Other";

/// Every JSON type (the bits of `lenient::unmatched`: null, boolean, number, string, array,
/// object).
const ALL: u8 = 63;

/// The JSON types a branch of type `ty` takes, as `lenient::unmatched`'s bits: a number 4, a text
/// 8 (a string, a string newtype or enum), a boolean 2, a list 16, a record 32; anything else
/// (a JSON value, a map) every type, so that no value falls back past it.
fn json_types(ty: &syn::Type, shapes: &Shapes) -> u8 {
    let Some(name) = last_ident(ty) else {
        return ALL;
    };
    match name.as_str() {
        "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "f32" | "f64" => 4,
        "String" => 8,
        "bool" => 2,
        "Vec" => 16,
        _ if shapes.strings.contains(&name) => 8,
        _ if shapes.records.contains_key(&name) => 32,
        _ => ALL,
    }
}

/// Adds the fallback variant to every untagged enum of `file`'s `types` module (and its arm to
/// the enum's `Display`); answers the enums it extended.
pub fn fall_back(file: &mut syn::File, shapes: &Shapes) -> Result<Vec<String>> {
    let Some(types) = file.items.iter_mut().find_map(|item| match item {
        Item::Mod(m) if m.ident == "types" => m.content.as_mut().map(|(_, items)| items),
        _ => None,
    }) else {
        return Ok(Vec::new());
    };
    let mut extended = Vec::new();
    for item in types.iter_mut() {
        let Item::Enum(e) = item else { continue };
        let untagged = e.attrs.iter().any(|a| {
            a.path().is_ident("serde") && a.meta.to_token_stream().to_string().contains("untagged")
        });
        if !untagged {
            continue;
        }
        if e.variants.iter().any(|v| v.ident == FALLBACK) {
            bail!(
                "types::{}: a union with a branch named `{FALLBACK}` (the fallback's name)",
                e.ident
            );
        }
        let derives = e
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("derive"))
            .map(|a| a.meta.to_token_stream().to_string())
            .collect::<String>();
        if ["Ord", "Hash"]
            .iter()
            .any(|t| derives.split([',', '(', ')', ':', ' ']).any(|w| w == *t))
        {
            bail!(
                "types::{}: a union deriving Ord or Hash, which serde_json::Value does not \
                 implement (the fallback variant would not compile)",
                e.ident
            );
        }
        let taken = e
            .variants
            .iter()
            .map(|v| match &v.fields {
                syn::Fields::Unnamed(f) if f.unnamed.len() == 1 => {
                    json_types(&f.unnamed[0].ty, shapes)
                }
                _ => ALL,
            })
            .fold(0, |acc, bits| acc | bits);
        let with = format!("lenient::unmatched::<_, {taken}>");
        e.variants.push(parse_quote! {
            /// A value of a JSON type no branch of the union takes, kept as its JSON (and sent
            /// back as it came): a form of the service the document does not show, noted in the
            /// drift report.
            #[serde(deserialize_with = #with)]
            Other(::serde_json::Value)
        });
        extended.push(e.ident.to_string());
    }
    for item in types.iter_mut() {
        let Item::Impl(block) = item else { continue };
        let (Some((path, _)), Some(name)) = (&block.trait_, last_ident(&block.self_ty)) else {
            continue;
        };
        if !extended.contains(&name) || path.segments.last().is_none_or(|s| s.ident != "Display") {
            continue;
        }
        let Some(ImplItem::Fn(fmt)) = block.items.first_mut() else {
            bail!("types::{name}: typify's Display has no `fmt`");
        };
        let Some(Stmt::Expr(Expr::Match(body), _)) = fmt.block.stmts.last_mut() else {
            bail!("types::{name}: typify's Display is not one `match` (its output changed shape)");
        };
        body.arms.push(parse_quote!(Self::Other(x) => x.fmt(f),));
    }
    Ok(extended)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_untagged_enum_gets_a_variant_that_keeps_the_json_and_its_display_arm() {
        let mut file: syn::File = parse_quote! {
            pub mod types {
                #[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
                #[serde(untagged)]
                pub enum IntegerOrString {
                    Int64(i64),
                    String(::std::string::String),
                }
                impl ::std::fmt::Display for IntegerOrString {
                    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        match self {
                            Self::Int64(x) => x.fmt(f),
                            Self::String(x) => x.fmt(f),
                        }
                    }
                }
                #[derive(::serde::Deserialize, Clone, Debug)]
                pub enum Status { #[serde(rename = "a")] A }
            }
        };
        let extended = fall_back(&mut file, &Shapes::default()).expect("extended");
        assert_eq!(extended, ["IntegerOrString"]);
        let text = file.to_token_stream().to_string();
        assert!(
            text.contains("\"lenient::unmatched::<_, 12>\")] Other (:: serde_json :: Value)"),
            "{text}"
        );
        assert!(
            text.contains("Self :: Other (x) => x . fmt (f) ,"),
            "{text}"
        );
        assert_eq!(
            text.matches("Other (").count(),
            2,
            "a string enum is left alone"
        );
    }

    #[test]
    fn a_union_with_a_branch_named_like_the_fallback_is_refused() {
        let mut file: syn::File = parse_quote! {
            pub mod types {
                #[derive(::serde::Deserialize)]
                #[serde(untagged)]
                pub enum U { Other(i64) }
            }
        };
        let error = fall_back(&mut file, &Shapes::default())
            .unwrap_err()
            .to_string();
        assert!(error.contains("a branch named `Other`"), "{error}");
    }
}

//! `crates/store-admin/src/generated_values.rs`: the open value sets of the document as open enums.
//!
//! A named string schema of the document with `x-known-values: [...]` (webhook event names, order
//! status slugs, shipment statuses, ...) is an open set: the wire type stays a string, so that the
//! generated client never rejects a value the service adds, and the known values are listed once,
//! in the document. This module emits, for each such schema, an `open_enum!` of the same name for
//! `crates/store-admin` (an `Other(String)` arm keeps unknown values). The CLI reads the same lists
//! from the document into `--status`/`--event` hints (`cli_gen.rs`), and the mock store reads
//! them from the document itself: there is no other copy.

use anyhow::{Context, Result, bail};
use quote::{format_ident, quote};
use serde_json::Value;

use crate::document::{Document, code_file};
use crate::model::Output;

/// The generated open enums, relative to the workspace root.
pub const VALUES_OUT: &str = "crates/store-admin/src/generated_values.rs";

/// One open value set of the document.
#[derive(Debug, PartialEq, Eq)]
pub struct ValueSet {
    /// The schema's name, also the enum's.
    pub name: String,
    /// The first sentence of the schema's description.
    pub description: String,
    /// `(variant, wire value)` in the document's order.
    pub values: Vec<(String, String)>,
}

/// Every named string schema with `x-known-values`, in document order.
pub fn value_sets(doc: &Document) -> Result<Vec<ValueSet>> {
    let Some(components) = doc.spec.components.as_ref() else {
        return Ok(Vec::new());
    };
    let mut sets = Vec::new();
    for name in components.schemas.keys() {
        let Some(schema) = doc.raw.pointer(&format!("/components/schemas/{name}")) else {
            continue;
        };
        let Some(known) = schema.get("x-known-values") else {
            continue;
        };
        if schema.get("type").and_then(Value::as_str) != Some("string") {
            continue;
        }
        let Some(list) = known.as_array() else {
            bail!("/components/schemas/{name}/x-known-values: not a list");
        };
        let mut values: Vec<(String, String)> = Vec::new();
        for item in list {
            let Some(wire) = item.as_str() else {
                bail!("/components/schemas/{name}/x-known-values: {item} is not a string");
            };
            if values.iter().any(|(_, w)| w == wire) {
                bail!("/components/schemas/{name}/x-known-values: {wire:?} twice");
            }
            let base = variant_name(wire);
            let mut variant = base.clone();
            let mut n = 2;
            while values.iter().any(|(v, _)| *v == variant) {
                variant = format!("{base}{n}");
                n += 1;
            }
            values.push((variant, wire.to_owned()));
        }
        if values.is_empty() {
            continue;
        }
        let description = schema
            .get("description")
            .and_then(Value::as_str)
            .map(first_sentence)
            .unwrap_or_else(|| format!("The `{name}` values of the document."));
        sets.push(ValueSet {
            name: name.clone(),
            description,
            values,
        });
    }
    Ok(sets)
}

/// A Rust variant name for a wire value: its words in PascalCase (`app.store.authorize` ->
/// `AppStoreAuthorize`), operators by name (`>=` -> `GtEq`), a leading digit prefixed (`V2`).
pub fn variant_name(wire: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in wire.chars() {
        let word = match c {
            '=' => Some("Eq"),
            '!' => Some("Not"),
            '>' => Some("Gt"),
            '<' => Some("Lt"),
            '+' => Some("Plus"),
            '*' => Some("Star"),
            '%' => Some("Percent"),
            '&' => Some("And"),
            '|' => Some("Or"),
            _ => None,
        };
        if let Some(word) = word {
            out.push_str(word);
            upper = true;
        } else if c.is_ascii_alphanumeric() {
            if upper {
                out.push(c.to_ascii_uppercase());
            } else {
                out.push(c);
            }
            upper = false;
        } else {
            upper = true;
        }
    }
    if out.is_empty() {
        out.push_str("Empty");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    out
}

fn first_sentence(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match text.find(". ") {
        Some(at) => text[..=at].to_owned(),
        None => text,
    }
}

/// The generated file: one `open_enum!` per value set, and its conversions into the generated
/// client's type of the same name (the wire string), so that a request's setter takes a known
/// value (`.payment_method(OrderPaymentMethod::Cod)`) as it takes its text.
pub fn outputs(doc: &Document) -> Result<Vec<Output>> {
    let sets = value_sets(doc)?;
    let hand = crate::hand_written::hand_written(&doc.spec);
    let split = crate::split::split(&doc.spec, &doc.raw, &hand);
    let conversions = sets
        .iter()
        .map(|set| {
            // The area feature that compiles the client's type; none for the core's.
            let feature = match split.core.contains(&set.name) {
                true => None,
                false => Some(
                    split
                        .areas
                        .iter()
                        .find(|area| area.schemas.contains(&set.name))
                        .map(|area| area.name)
                        .with_context(|| {
                            format!("the value set {} is in no part of the client", set.name)
                        })?,
                ),
            };
            Ok(conversions(&set.name, feature))
        })
        .collect::<Result<Vec<_>>>()?;
    let enums = sets.iter().map(|set| {
        let name = format_ident!("{}", set.name);
        let doc_line = format!(
            " {} (`{}` in the document; values it does not list are kept in `Other`.)",
            set.description, set.name
        );
        let variants = set.values.iter().map(|(variant, wire)| {
            let variant = format_ident!("{variant}");
            let doc = format!(" `{wire}`");
            quote! {
                #[doc = #doc]
                #variant => #wire
            }
        });
        quote! {
            open_enum! {
                #[doc = #doc_line]
                pub enum #name {
                    #(#variants),*
                }
            }
        }
    });
    let names = sets.iter().map(|s| &s.name);
    let event_data = webhook_event_data(doc)?;
    let (events, schemas): (Vec<&String>, Vec<&String>) =
        event_data.iter().map(|(e, s)| (e, s)).unzip();
    let list_doc = format!(
        " The open value sets of `{}` (named string schemas with `x-known-values`).",
        doc.rel_path
    );
    let tokens = quote! {
        #[doc = #list_doc]
        pub const VALUE_SETS: &[&str] = &[#(#names),*];
        /// Each webhook event whose `data` the document types, with the schema that types it
        /// (the schemas' `x-webhook-events`), sorted by event.
        pub(crate) const WEBHOOK_EVENT_DATA: &[(&str, &str)] = &[#((#events, #schemas)),*];
        #(#enums)*
        #(#conversions)*
    };
    // `open_enum! { ... }` items are macro calls: render them through a file of items.
    let file: syn::File = syn::parse2(tokens).context("the generated value sets do not parse")?;
    Ok(vec![Output {
        rel_path: VALUES_OUT.to_owned(),
        content: code_file(
            doc,
            "The open value sets of the document, as `open_enum!` types of `store-admin`.",
            &prettyplease::unparse(&file),
        )?,
    }])
}

/// `(event, schema)` for each event named in a schema's `x-webhook-events` (the schema types that
/// event's `data`), sorted by event. An event named twice, or one that `WebhookEventName` does not
/// list (when the document has that schema), is an error.
pub fn webhook_event_data(doc: &Document) -> Result<Vec<(String, String)>> {
    let Some(schemas) = doc
        .raw
        .pointer("/components/schemas")
        .and_then(Value::as_object)
    else {
        return Ok(Vec::new());
    };
    let known: Option<Vec<&str>> = schemas
        .get("WebhookEventName")
        .and_then(|s| s.get("x-known-values"))
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).collect());
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (name, schema) in schemas {
        let Some(events) = schema.get("x-webhook-events") else {
            continue;
        };
        let Some(events) = events.as_array() else {
            bail!("/components/schemas/{name}/x-webhook-events: not a list");
        };
        for event in events {
            let Some(event) = event.as_str() else {
                bail!("/components/schemas/{name}/x-webhook-events: {event} is not a string");
            };
            if let Some((_, other)) = pairs.iter().find(|(e, _)| e == event) {
                bail!(
                    "/components/schemas/{name}/x-webhook-events: {event:?} is typed by {other} already"
                );
            }
            if known.as_ref().is_some_and(|known| !known.contains(&event)) {
                bail!(
                    "/components/schemas/{name}/x-webhook-events: {event:?} is not among WebhookEventName's x-known-values"
                );
            }
            pairs.push((event.to_owned(), name.clone()));
        }
    }
    pairs.sort();
    Ok(pairs)
}

/// A value set's conversions into the client's type of its name, behind the area's feature. A
/// list of them is not one of these (`Vec<OrderPaymentMethod>` is a foreign type, and so is the
/// trait): a list takes each converted, `[OrderPaymentMethod::Cod.into(), ..]`.
fn conversions(name: &str, feature: Option<&str>) -> proc_macro2::TokenStream {
    let ty = format_ident!("{name}");
    let cfg = feature.map(|f| quote!(#[cfg(feature = #f)]));
    let doc = format!(
        " The wire value of a known or other `{name}`, as the generated client's type takes it."
    );
    quote! {
        #cfg
        #[doc = #doc]
        impl ::std::convert::From<#ty> for crate::types::#ty {
            fn from(value: #ty) -> Self {
                crate::types::#ty::from(value.as_str())
            }
        }
        #cfg
        impl ::std::convert::From<crate::types::#ty> for #ty {
            fn from(value: crate::types::#ty) -> Self {
                #ty::from(::std::string::String::from(value))
            }
        }
        #cfg
        impl crate::IntoValue<crate::types::#ty> for #ty {
            fn into_value(self) -> ::std::result::Result<crate::types::#ty, ::std::string::String> {
                Ok(self.into())
            }
        }
        #cfg
        impl crate::IntoOptional<crate::types::#ty> for #ty {
            fn into_optional(
                self,
            ) -> ::std::result::Result<::std::option::Option<crate::types::#ty>, ::std::string::String> {
                Ok(Some(self.into()))
            }
        }
        #cfg
        impl crate::IntoList<crate::types::#ty> for #ty {
            fn into_list(
                self,
            ) -> ::std::result::Result<::std::vec::Vec<crate::types::#ty>, ::std::string::String> {
                Ok(::std::vec![self.into()])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_names_read_like_the_values() {
        for (wire, variant) in [
            ("payment_pending", "PaymentPending"),
            ("app.store.authorize", "AppStoreAuthorize"),
            ("abandoned-cart", "AbandonedCart"),
            (">=", "GtEq"),
            ("!=", "NotEq"),
            ("==", "EqEq"),
            ("2fa", "V2fa"),
        ] {
            assert_eq!(variant_name(wire), variant, "{wire}");
        }
    }

    const DOC: &str = r##"
openapi: 3.0.3
info: { title: T, version: "1" }
paths: {}
components:
  schemas:
    EventName:
      type: string
      description: The name of an event. More text.
      x-known-values: [order.created, order.updated]
    Operator:
      type: string
      x-known-values: ['>', '>=', 'gt']
    Plain:
      type: string
"##;

    #[test]
    fn named_string_schemas_with_known_values_become_open_enums() {
        let doc = Document::parse("values.yaml", DOC.to_owned()).expect("parses");
        let sets = value_sets(&doc).expect("value sets");
        assert_eq!(sets.len(), 2);
        assert_eq!(sets[0].name, "EventName");
        assert_eq!(sets[0].description, "The name of an event.");
        assert_eq!(
            sets[1].values,
            [
                ("Gt".to_owned(), ">".to_owned()),
                ("GtEq".to_owned(), ">=".to_owned()),
                ("Gt2".to_owned(), "gt".to_owned())
            ]
        );
        let code = &outputs(&doc).expect("renders")[0].content;
        assert!(code.contains("OrderCreated => \"order.created\""), "{code}");
        assert!(code.contains("pub const VALUE_SETS: &[&str] = &[\"EventName\", \"Operator\"];"));
    }

    #[test]
    fn the_schemas_of_webhook_events_are_listed_by_event() {
        let doc = format!(
            "{DOC}    Ping:\n      type: object\n      x-webhook-events: [order.updated, order.created]\n"
        );
        let parsed = Document::parse("values.yaml", doc.clone()).expect("parses");
        assert_eq!(
            webhook_event_data(&parsed).expect("pairs"),
            [
                ("order.created".to_owned(), "Ping".to_owned()),
                ("order.updated".to_owned(), "Ping".to_owned())
            ]
        );
        let code = &outputs(&parsed).expect("renders")[0].content;
        assert!(code.contains("(\"order.created\", \"Ping\")"), "{code}");
        let twice = format!(
            "{doc}    Pong:\n      type: object\n      x-webhook-events: [order.created]\n"
        );
        let err = webhook_event_data(&Document::parse("values.yaml", twice).expect("parses"))
            .expect_err("an event typed twice");
        assert!(err.to_string().contains("typed by Ping already"), "{err}");
    }
}

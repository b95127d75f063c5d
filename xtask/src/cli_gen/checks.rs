//! The input checks of the command line (`store_admin_cli::checks`), from the document: a rule
//! for each scalar flag (its kind, its `minimum`/`maximum`/`minLength`/`maxLength` and a text's
//! `pattern`), emitted as
//! clap's value parser, and for each request body a tree of what its values must be (the required
//! properties of nested objects, bounds and closed sets at every depth), emitted as `static`
//! `Schema`s, one per component schema (a component that refers to itself refers to its static).
//!
//! Kinds: `integer` and `number` are numbers; a union of `number` and `string` is a decimal
//! (a number, or a decimal as text, as the service also sends it); a union of `integer` and
//! `string` is an identifier (an id or a code: any text); anything else is text or left to the
//! typed body.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use crate::document::Raw;

/// The kind of a scalar, as `store_admin_cli::checks::Kind` has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Any,
    Integer,
    Number,
    Decimal,
}

/// What the document says of one scalar value.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Rule {
    pub(super) kind: Kind,
    pub(super) minimum: Option<f64>,
    pub(super) maximum: Option<f64>,
    pub(super) min_length: Option<u64>,
    pub(super) max_length: Option<u64>,
    /// The regular expression a text must match (`pattern`).
    pub(super) pattern: Option<String>,
}

impl Rule {
    /// Whether the rule bounds anything (a kind alone is the typed body's to check).
    pub(super) fn bounds(&self) -> bool {
        self.minimum.is_some()
            || self.maximum.is_some()
            || self.min_length.is_some()
            || self.max_length.is_some()
            || self.pattern.is_some()
    }

    /// `crate::checks::Rule { .. }`, with only what differs from `Rule::ANY`.
    pub(super) fn tokens(&self) -> TokenStream {
        let mut fields = Vec::new();
        let base = match self.kind {
            Kind::Any => quote!(crate::checks::Rule::ANY),
            Kind::Integer => quote!(crate::checks::Rule::INTEGER),
            Kind::Number => quote!(crate::checks::Rule::NUMBER),
            Kind::Decimal => quote!(crate::checks::Rule::DECIMAL),
        };
        for (name, value) in [("minimum", self.minimum), ("maximum", self.maximum)] {
            if let Some(value) = value {
                let name = format_ident!("{name}");
                fields.push(quote!(#name: Some(#value)));
            }
        }
        for (name, value) in [
            ("min_length", self.min_length),
            ("max_length", self.max_length),
        ] {
            if let Some(value) = value {
                let name = format_ident!("{name}");
                fields.push(quote!(#name: Some(#value)));
            }
        }
        if let Some(pattern) = &self.pattern {
            fields.push(quote!(pattern: Some(#pattern)));
        }
        if fields.is_empty() {
            base
        } else {
            quote!(crate::checks::Rule { #(#fields,)* ..#base })
        }
    }
}

/// The scalar kind of a resolved schema's `type`.
fn kind_of(schema: &Value) -> Option<&str> {
    schema.get("type").and_then(Value::as_str)
}

/// The rule of `schema` (a property, with the keywords beside its `$ref` first).
pub(super) fn rule(raw: &Raw<'_>, schema: &Value) -> Rule {
    let resolved = raw.resolve(schema);
    let members: Vec<&Value> = resolved
        .get("anyOf")
        .or_else(|| resolved.get("oneOf"))
        .and_then(Value::as_array)
        .map(|m| m.iter().map(|m| raw.resolve(m)).collect())
        .unwrap_or_default();
    let types: Vec<&str> = if members.is_empty() {
        kind_of(resolved).into_iter().collect()
    } else {
        members.iter().filter_map(|m| kind_of(m)).collect()
    };
    let has = |t: &str| types.contains(&t);
    let kind = match (has("integer"), has("number"), has("string")) {
        (_, true, true) => Kind::Decimal,
        (true, false, true) => Kind::Any,
        (_, true, false) => Kind::Number,
        (true, false, false) => Kind::Integer,
        _ => Kind::Any,
    };
    // A keyword beside the `$ref`, else the schema's own, else its numeric member's.
    let numeric = members
        .iter()
        .find(|m| matches!(kind_of(m), Some("integer" | "number")));
    let keyword = |name: &str| {
        schema
            .get(name)
            .or_else(|| resolved.get(name))
            .or_else(|| numeric.and_then(|m| m.get(name)))
    };
    let text = has("string") && kind == Kind::Any;
    Rule {
        kind,
        minimum: keyword("minimum").and_then(Value::as_f64),
        maximum: keyword("maximum").and_then(Value::as_f64),
        min_length: text
            .then(|| keyword("minLength").and_then(Value::as_u64))
            .flatten(),
        max_length: text
            .then(|| keyword("maxLength").and_then(Value::as_u64))
            .flatten(),
        pattern: text
            .then(|| {
                keyword("pattern")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .flatten(),
    }
}

/// The checks of the request bodies: one `static` per component schema that has something to
/// check, and the expression of each body's root.
#[derive(Default)]
pub(super) struct Tree {
    /// Component name -> whether it has something to check (its static is emitted).
    done: BTreeMap<String, bool>,
    /// Components being built (a reference to one of them is a reference to its static).
    visiting: BTreeSet<String>,
    /// Components referred to while being built: their static is emitted even when it checks
    /// nothing, as the reference is already written.
    cyclic: BTreeSet<String>,
    /// The emitted statics, by component name.
    statics: BTreeMap<String, TokenStream>,
}

/// The static of a component's checks.
pub(super) fn static_ident(name: &str) -> syn::Ident {
    format_ident!("CHECK_{}", crate::names::snake(name).to_uppercase())
}

impl Tree {
    /// `&'static crate::checks::Schema` of a request body's schema (`&crate::checks::Schema::ANY`
    /// when nothing is checked).
    pub(super) fn root(&mut self, raw: &Raw<'_>, schema: &Value) -> TokenStream {
        self.node(raw, schema, 0)
            .unwrap_or_else(|| quote!(&crate::checks::Schema::ANY))
    }

    /// Every static, in name order.
    pub(super) fn statics(&self) -> impl Iterator<Item = &TokenStream> {
        self.statics.values()
    }

    /// A `&'static Schema` expression, or `None` when the schema has nothing to check.
    fn node(&mut self, raw: &Raw<'_>, schema: &Value, depth: usize) -> Option<TokenStream> {
        // A component: its static. Keywords beside the `$ref` other than text are not read here
        // (the rule of a property reads them, `rule`).
        if let Some(name) = Raw::ref_name(schema) {
            let ident = static_ident(&name);
            if self.visiting.contains(&name) {
                self.cyclic.insert(name);
                return Some(quote!(&#ident));
            }
            if let Some(&checks) = self.done.get(&name) {
                return checks.then(|| quote!(&#ident));
            }
            self.visiting.insert(name.clone());
            let built = self.build(raw, raw.resolve(schema), depth);
            self.visiting.remove(&name);
            let checks = built.is_some() || self.cyclic.contains(&name);
            if checks {
                let body = built.unwrap_or_else(|| quote!(crate::checks::Schema::ANY));
                self.statics.insert(
                    name.clone(),
                    quote!(static #ident: crate::checks::Schema = #body;),
                );
            }
            self.done.insert(name, checks);
            return checks.then(|| quote!(&#ident));
        }
        self.build(raw, schema, depth).map(|body| quote!(&#body))
    }

    /// A `Schema` expression of `schema` (inline, or a component's resolved body), or `None`.
    fn build(&mut self, raw: &Raw<'_>, schema: &Value, depth: usize) -> Option<TokenStream> {
        if depth > 24 {
            return None;
        }
        let resolved = raw.resolve(schema);
        let required: Vec<&str> = crate::schema::required(resolved).collect();
        let mut properties = Vec::new();
        let mut nullable = Vec::new();
        if let Some(map) = resolved.get("properties").and_then(Value::as_object) {
            for (name, property) in map {
                let admits_null = property.get("nullable") == Some(&Value::Bool(true))
                    || raw.resolve(property).get("nullable") == Some(&Value::Bool(true));
                if admits_null && required.contains(&name.as_str()) {
                    nullable.push(name.as_str());
                }
                if let Some(node) = self.property(raw, property, depth) {
                    properties.push(quote!((#name, #node)));
                }
            }
        }
        let values = match resolved.get("additionalProperties") {
            Some(inner) if inner.is_object() => self.node(raw, inner, depth + 1),
            _ => None,
        };
        let items = match resolved.get("items") {
            Some(inner) if kind_of(resolved) == Some("array") => self.node(raw, inner, depth + 1),
            _ => None,
        };
        let rule = rule(raw, schema);
        let one_of: Vec<String> = resolved
            .get("enum")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| match v {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .collect();
        // An enum that lists `null` or a boolean is not a closed set of texts: left to the type.
        let closed = resolved
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|all| all.len() == one_of.len());
        let one_of = if closed { one_of } else { Vec::new() };
        if required.is_empty()
            && properties.is_empty()
            && values.is_none()
            && items.is_none()
            && !rule.bounds()
            && one_of.is_empty()
        {
            return None;
        }
        // Only what differs from `Schema::ANY`.
        let mut fields = Vec::new();
        if !required.is_empty() {
            fields.push(quote!(required: &[#(#required),*]));
        }
        if !nullable.is_empty() {
            fields.push(quote!(nullable: &[#(#nullable),*]));
        }
        if !properties.is_empty() {
            fields.push(quote!(properties: &[#(#properties),*]));
        }
        if let Some(values) = values {
            fields.push(quote!(values: Some(#values)));
        }
        if let Some(items) = items {
            fields.push(quote!(items: Some(#items)));
        }
        if rule.bounds() {
            let rule = rule.tokens();
            fields.push(quote!(rule: #rule));
        }
        if !one_of.is_empty() {
            fields.push(quote!(one_of: &[#(#one_of),*]));
        }
        Some(quote! {
            crate::checks::Schema { #(#fields,)* ..crate::checks::Schema::ANY }
        })
    }

    /// A property's node: its component's or its own, with the bounds beside a `$ref` read too.
    fn property(&mut self, raw: &Raw<'_>, property: &Value, depth: usize) -> Option<TokenStream> {
        let beside = ["minimum", "maximum", "minLength", "maxLength"]
            .iter()
            .any(|k| property.get(*k).is_some());
        if Raw::ref_name(property).is_some() && beside {
            // Bounds beside a reference: a node of their own over the resolved schema.
            return self
                .build(raw, property, depth + 1)
                .map(|body| quote!(&#body));
        }
        self.node(raw, property, depth + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;

    /// A document of the schemas the tests read.
    fn doc() -> Document {
        let text = r#"
openapi: 3.0.3
info: {title: t, version: "1"}
paths: {}
components:
  schemas:
    NumberOrString:
      anyOf: [{type: number}, {type: string}]
    IntegerOrString:
      anyOf: [{type: integer, format: int64}, {type: string}]
    Body:
      type: object
      required: [name, node]
      properties:
        name: {type: string, minLength: 1, maxLength: 3}
        price: {$ref: '#/components/schemas/NumberOrString'}
        note: {type: string, description: nothing to check}
        kind: {type: string, enum: [a, b]}
        node: {$ref: '#/components/schemas/Node'}
        maybe:
          type: string
          nullable: true
    Node:
      type: object
      required: [id, maybe]
      properties:
        id: {type: integer, minimum: 1}
        maybe: {type: string, nullable: true}
        children:
          type: array
          items: {$ref: '#/components/schemas/Node'}
    Plain:
      type: object
      properties:
        text: {type: string}
"#;
        Document::parse("test.yaml", text.to_owned()).expect("the test document parses")
    }

    fn schema<'a>(doc: &'a Document, name: &str) -> &'a Value {
        doc.raw
            .pointer(&format!("/components/schemas/{name}"))
            .expect("a schema")
    }

    #[test]
    fn a_texts_pattern_is_part_of_its_rule_and_a_numbers_is_not() {
        let doc = doc();
        let raw = Raw(&doc.raw);
        let sort = rule(
            &raw,
            &serde_json::json!({"type": "string", "pattern": "^(id|total)-(asc|desc)$"}),
        );
        assert_eq!(sort.pattern.as_deref(), Some("^(id|total)-(asc|desc)$"));
        assert!(sort.bounds());
        assert_eq!(
            sort.tokens().to_string(),
            quote!(crate::checks::Rule {
                pattern: Some("^(id|total)-(asc|desc)$"),
                ..crate::checks::Rule::ANY
            })
            .to_string()
        );
        let number = rule(
            &raw,
            &serde_json::json!({"type": "integer", "pattern": "^1$"}),
        );
        assert_eq!(number.pattern, None);
    }

    #[test]
    fn a_number_or_a_string_is_a_decimal_and_an_integer_or_a_string_any_text() {
        let doc = doc();
        let raw = Raw(&doc.raw);
        let reference =
            |name: &str| serde_json::json!({"$ref": format!("#/components/schemas/{name}")});
        assert_eq!(rule(&raw, &reference("NumberOrString")).kind, Kind::Decimal);
        assert_eq!(rule(&raw, &reference("IntegerOrString")).kind, Kind::Any);
        let body = schema(&doc, "Body");
        let name = rule(&raw, &body["properties"]["name"]);
        assert_eq!(
            (name.kind, name.min_length, name.max_length),
            (Kind::Any, Some(1), Some(3))
        );
        let id = rule(&raw, &schema(&doc, "Node")["properties"]["id"]);
        assert_eq!(
            (id.kind, id.minimum, id.maximum),
            (Kind::Integer, Some(1.0), None)
        );
        assert!(!rule(&raw, &body["properties"]["note"]).bounds());
        // Bounds beside a `$ref` are the property's.
        let beside =
            serde_json::json!({"$ref": "#/components/schemas/NumberOrString", "minimum": 0});
        let price = rule(&raw, &beside);
        assert_eq!((price.kind, price.minimum), (Kind::Decimal, Some(0.0)));
        // The tokens name only what differs from the kind's base rule.
        assert_eq!(
            price.tokens().to_string(),
            quote!(crate::checks::Rule {
                minimum: Some(0f64),
                ..crate::checks::Rule::DECIMAL
            })
            .to_string()
        );
    }

    #[test]
    fn the_tree_holds_what_has_something_to_check_and_a_schema_that_refers_to_itself_once() {
        let doc = doc();
        let raw = Raw(&doc.raw);
        let mut tree = Tree::default();
        let root = tree.root(
            &raw,
            &serde_json::json!({"$ref": "#/components/schemas/Body"}),
        );
        assert_eq!(root.to_string(), quote!(&CHECK_BODY).to_string());
        let statics: Vec<String> = tree.statics().map(ToString::to_string).collect();
        assert_eq!(statics.len(), 2, "Body and Node: {statics:#?}");
        let body = &statics[0];
        assert!(body.contains("static CHECK_BODY"), "{body}");
        assert!(body.contains(r#"required : & ["name" , "node"]"#), "{body}");
        assert!(body.contains(r#"one_of : & ["a" , "b"]"#), "{body}");
        assert!(body.contains("min_length : Some (1u64)"), "{body}");
        // Nothing to check: not in the tree.
        assert!(!body.contains("\"note\""), "{body}");
        assert!(!body.contains("\"price\""), "{body}");
        let node = &statics[1];
        assert!(node.contains("static CHECK_NODE"), "{node}");
        assert!(node.contains(r#"nullable : & ["maybe"]"#), "{node}");
        assert!(node.contains("items : Some (& CHECK_NODE)"), "{node}");
        // A body with nothing to check is the empty schema.
        let plain = tree.root(
            &raw,
            &serde_json::json!({"$ref": "#/components/schemas/Plain"}),
        );
        assert_eq!(
            plain.to_string(),
            quote!(&crate::checks::Schema::ANY).to_string()
        );
        assert_eq!(tree.statics().count(), 2);
    }
}

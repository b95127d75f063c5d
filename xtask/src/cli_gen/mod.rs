//! `crates/store-admin-cli/src/generated_cli.rs`: the `store-admin` command tree, from the document
//! and from progenitor's builders.
//!
//! The document says which operations exist, their group (tag), summary, parameters, body fields
//! and descriptions; progenitor's output says the Rust type each builder method takes and what
//! `send()` returns. Both are read here, so that the command line follows the document without a
//! hand-written line. Naming rules (also in the CLI's README):
//!
//! - group ([`group_name`]): the tag in kebab case, the words before the last singular as English
//!   compounds are (`Customer Groups` -> `customer-groups`, `Digitals Product` ->
//!   `digital-products`);
//! - command ([`command_name`]): the operationId without the group's words, wherever they are
//!   (singular and plural alike), nor a preposition they leave dangling at the end: `list_brands`
//!   in `Brands` -> `list`, `export_orders` in `Exports` -> `orders`, `add_customers_to_group` in
//!   `Customer Groups` -> `add`. Two operations of one group that would get one name keep their
//!   whole kebab-cased operationId. The names of earlier versions ([`earlier_command_name`], the
//!   tag's words for a group) stay as hidden aliases;
//! - path parameters are positional; query parameters are flags; every body field is a flag
//!   ([`FieldKind`]): a scalar or a number-or-string union takes one value, an array of scalars
//!   is a repeated flag, anything else (an object, an array of objects) is `--FIELD-json JSON`
//!   with an example of its shape in the help and in errors. Required body fields are marked in
//!   the help and all named by one error when missing. Help is the document's description for
//!   users ([`user_text`]: notes about the document left out), with the known values of an open
//!   set (`x-known-values`) and "\[required\]"; numbers take `-5` without `=`. `--body FILE|-`
//!   takes the whole body; a paged list takes `--page`, `--per-page` and `--all`;
//! - table columns of a record type ([`columns`]): `id`, the first of `name`, `title`, `label`,
//!   `event`, `slug`, `iso_code`, `code` that is a scalar, then `status`, a scalar `type`, then the
//!   other properties in document order that a table cell shows compactly (scalars, money
//!   `{amount, currency}`, dates `{date}`), at most [`MAX_COLUMNS`].
//!
//! The few things the document cannot say (a repeatable `--value NAME=PRICE` that builds an array
//! of objects, a secret read from the environment, "one of --id or --url") are hand-written types
//! of the CLI crate, named here in [`EXTRAS`] and flattened into the generated command.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, Result, anyhow, bail};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;
use syn::visit_mut::VisitMut;

use crate::model::{Output, paged_operations};
use crate::{Document, lint};

/// The generated command tree, relative to the workspace root.
mod naming;

use naming::{
    command_name, earlier_command_name, earlier_group_name, field_ident, flag, group_name, pascal,
    snake,
};

pub const CLI_OUT: &str = "crates/store-admin-cli/src/generated_cli.rs";
/// The facade's decoder table, generated from the same model.
pub const DECODERS_OUT: &str = "crates/store-admin-client/src/decoders/generated.rs";

/// What the generated CLI imports so that every operation is a method of the client: the prelude
/// that brings each area's extension trait of the core `Client` into scope.
pub const CLIENT_IMPORTS: &[&str] = &["store_admin::prelude::*"];

/// Where the generated client code lives: every output whose path starts with this and whose
/// file name starts with `generated` is read for its builders (one crate or several).
const CLIENT_SOURCES: &str = "crates/store-admin-client";

/// Most columns a table shows.
pub const MAX_COLUMNS: usize = 6;

/// Hand-written additions to a generated command, for what the document cannot say: the
/// operationId, the CLI type flattened into its arguments (it implements
/// `store_admin_cli::extras::Extra` for the operation's builder), and the parameters and body
/// fields that type takes over (the generator makes no flag of its own for them).
pub const EXTRAS: &[(&str, &str, &[&str])] = &[
    (
        "create_product_option",
        "crate::extras::OptionValues",
        &["values"],
    ),
    ("add_languages", "crate::extras::Locales", &["locales"]),
    (
        "create_shipment",
        "crate::extras::ServiceTypes",
        &["service_types"],
    ),
    ("create_category", "crate::extras::ShowIn", &["show_in"]),
    (
        "subscribe_webhook",
        "crate::extras::WebhookSecurity",
        &["secret", "headers", "security_strategy"],
    ),
    (
        "update_webhook",
        "crate::extras::WebhookSecurity",
        &["secret", "headers", "security_strategy"],
    ),
    (
        "unsubscribe_webhooks",
        "crate::extras::UnsubscribeTarget",
        &["id", "url"],
    ),
    (
        "list_reservations",
        "crate::extras::Period",
        &["start", "end"],
    ),
];

/// Hand-written subcommands that join a generated group: (group, type, dispatch function). They
/// run without a client (`webhooks verify|listen`).
pub const GROUP_EXTRAS: &[(&str, &str)] = &[("webhooks", "crate::webhook::ReceiverCommand")];

/// Flags of the root command (global) and of every command: a parameter or body field of the same
/// name gets a `body-`/`param-` prefix instead.
const RESERVED: &[&str] = &[
    "base_url",
    "token",
    "token_file",
    "profile",
    "output",
    "retries",
    "rate_limit",
    "concurrency",
    "timeout",
    "operation_timeout",
    "sandbox",
    "sandbox_faults",
    "sandbox_seed",
    "sandbox_scopes",
    "verbose",
    "help",
    "body",
    "allow_unknown_fields",
    "all",
    "page",
    "per_page",
];

/// The generated file of the command line, from the document and the client outputs generated
/// before it.
pub fn outputs(doc: &Document, client: &[Output]) -> Result<Vec<Output>> {
    let sources: Vec<&str> = client
        .iter()
        .filter(|o| {
            o.rel_path.starts_with(CLIENT_SOURCES)
                && o.rel_path
                    .rsplit('/')
                    .next()
                    .is_some_and(|name| name.starts_with("generated"))
        })
        .map(|o| o.content.as_str())
        .collect();
    let builders = builders(&sources)?;
    let model = Model::build(doc, &builders)?;
    let tokens = model.render();
    let file: syn::File =
        syn::parse2(tokens).context("the generated command tree does not parse")?;
    let decoders: syn::File = syn::parse2(model.render_decoders())
        .context("the generated decoder table does not parse")?;
    Ok(vec![
        Output {
            rel_path: CLI_OUT.to_owned(),
            content: format!(
                "{}// The `store-admin` command tree: one group per tag, one command per operation.\n\n{}",
                header(doc),
                prettyplease::unparse(&file)
            ),
        },
        Output {
            rel_path: DECODERS_OUT.to_owned(),
            content: format!(
                "{}// Per operation, the generated types of its bodies (`decoders::DECODERS`).\n\n{}",
                header(doc),
                prettyplease::unparse(&decoders)
            ),
        },
    ])
}

/// The first line of every generated file, as `generate.rs` writes it.
pub(crate) fn header(doc: &Document) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(doc.text.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "// Generated by `cargo xtask generate` from {} (sha256 {hex}). Do not edit.\n",
        doc.rel_path
    )
}

// ------------------------------------------------------------------------------------------------
// progenitor's builders

/// What progenitor's builder of one operation takes and returns.
#[derive(Default, Debug)]
pub struct Builder {
    /// Setter name -> the type its `V: TryInto<T>` bound names (paths into `types` shortened).
    pub setters: BTreeMap<String, syn::Type>,
    /// `send()`'s success type (`ResponseValue<T>`).
    pub success: Option<syn::Type>,
    /// `send()`'s error type (`Error<E>`).
    pub error: Option<syn::Type>,
}

/// Every builder of the generated client sources, by type name.
pub fn builders(sources: &[&str]) -> Result<BTreeMap<String, Builder>> {
    let mut out = BTreeMap::new();
    for source in sources {
        let file = syn::parse_file(source).context("generated client code does not parse")?;
        collect_builders(&file.items, &mut out);
    }
    Ok(out)
}

fn collect_builders(items: &[syn::Item], out: &mut BTreeMap<String, Builder>) {
    for item in items {
        match item {
            syn::Item::Mod(module) => {
                if let Some((_, items)) = &module.content {
                    collect_builders(items, out);
                }
            }
            syn::Item::Impl(block) if block.trait_.is_none() => {
                let syn::Type::Path(path) = &*block.self_ty else {
                    continue;
                };
                let Some(last) = path.path.segments.last() else {
                    continue;
                };
                // Builders carry a lifetime: `impl<'a> ListOrders<'a>`.
                if block.generics.lifetimes().next().is_none() {
                    continue;
                }
                let builder = out.entry(last.ident.to_string()).or_default();
                for member in &block.items {
                    let syn::ImplItem::Fn(method) = member else {
                        continue;
                    };
                    let name = method.sig.ident.to_string();
                    if name == "send" {
                        if let syn::ReturnType::Type(_, ty) = &method.sig.output
                            && let Some([ok, err]) = generic_args(ty, "Result").as_deref()
                        {
                            builder.success = generic_args(ok, "ResponseValue")
                                .and_then(|a| a.into_iter().next())
                                .map(shorten);
                            builder.error = generic_args(err, "Error")
                                .and_then(|a| a.into_iter().next())
                                .map(shorten);
                        }
                        continue;
                    }
                    if let Some(ty) = try_into_bound(&method.sig) {
                        builder.setters.insert(name, shorten(ty));
                    }
                }
            }
            _ => {}
        }
    }
}

/// `T` of a `where V: std::convert::TryInto<T>` bound.
fn try_into_bound(sig: &syn::Signature) -> Option<syn::Type> {
    let clause = sig.generics.where_clause.as_ref()?;
    for predicate in &clause.predicates {
        let syn::WherePredicate::Type(pred) = predicate else {
            continue;
        };
        let syn::Type::Path(bounded) = &pred.bounded_ty else {
            continue;
        };
        if !bounded.path.is_ident("V") {
            continue;
        }
        for bound in &pred.bounds {
            let syn::TypeParamBound::Trait(tr) = bound else {
                continue;
            };
            let Some(last) = tr.path.segments.last() else {
                continue;
            };
            if last.ident != "TryInto" {
                continue;
            }
            if let syn::PathArguments::AngleBracketed(args) = &last.arguments
                && let Some(syn::GenericArgument::Type(ty)) = args.args.first()
            {
                return Some(ty.clone());
            }
        }
    }
    None
}

/// The type arguments of `ty` when its last path segment is `name`.
fn generic_args(ty: &syn::Type, name: &str) -> Option<Vec<syn::Type>> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != name {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    Some(
        args.args
            .iter()
            .filter_map(|a| match a {
                syn::GenericArgument::Type(t) => Some(t.clone()),
                _ => None,
            })
            .collect(),
    )
}

/// Paths into a `types` module (`types::X`, `super::types::X`,
/// `::store_admin_client_core::types::X`) become `types::X`: the CLI imports the client's one
/// `types` module, whichever crate defines the type.
struct Shorten;

impl VisitMut for Shorten {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if let Some(at) = path.segments.iter().position(|s| s.ident == "types")
            && at + 1 < path.segments.len()
        {
            path.leading_colon = None;
            path.segments = path.segments.iter().skip(at).cloned().collect();
        }
        syn::visit_mut::visit_path_mut(self, path);
    }
}

fn shorten(mut ty: syn::Type) -> syn::Type {
    Shorten.visit_type_mut(&mut ty);
    ty
}

// ------------------------------------------------------------------------------------------------
// the model

/// How a value's flag parses, beside its Rust type.
#[derive(Debug, Clone)]
enum Values {
    /// Whatever the type's parser accepts.
    Any,
    /// Only these (a closed `enum` of the document).
    Closed(Vec<String>),
    /// Any value, these shown as known (`x-known-values`).
    Known(Vec<String>),
}

#[derive(Debug)]
struct Param {
    /// The flag or argument id (`categories`), also the long flag in kebab case.
    id: String,
    /// The builder's setter.
    setter: String,
    field: syn::Ident,
    ty: syn::Type,
    required: bool,
    help: String,
    values: Values,
}

#[derive(Debug)]
struct BodyField {
    wire: String,
    id: String,
    field: syn::Ident,
    kind: FieldKind,
    required: bool,
    help: String,
    values: Values,
}

/// How a body field is given on the command line.
#[derive(Debug, Clone)]
enum FieldKind {
    /// One scalar: `--price 10`.
    One(ScalarKind),
    /// An array of scalars: the flag repeated (`--tags a --tags b`; numbers also `--ids 1,2`).
    Many(ScalarKind),
    /// Anything else (an object, an array of objects, a value of no documented type): JSON text
    /// of the shown shape, `--packages-json '[...]'`.
    Json {
        /// What the JSON must be: `object`, `array` or `any`.
        expect: &'static str,
        /// An example of the expected shape, built from the schema.
        shape: String,
    },
}

/// A field of a `multipart/form-data` upload: a file (`kind` `None`, a path on the command line)
/// or a scalar sent as text.
#[derive(Debug)]
struct FormField {
    wire: String,
    id: String,
    field: syn::Ident,
    kind: Option<ScalarKind>,
    required: bool,
    help: String,
    values: Values,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScalarKind {
    Integer,
    Number,
    Boolean,
    String,
    /// A union of a number (or integer) and a string (`NumberOrString`, `IntegerOrString`): sent
    /// as a JSON number when the text is one as written (`10`, `12.5`), else as the string
    /// (`"007"`, `"10.50"`).
    NumberOrString,
}

#[derive(Debug)]
enum Print {
    /// `data` holds one record of a type with columns.
    One { optional: bool },
    /// `data` holds an array of records of a type with columns.
    List,
    /// Anything else: print the JSON as it is.
    Document,
    /// No body.
    Nothing,
    /// Bytes (a file).
    Bytes,
}

#[derive(Debug)]
struct Op {
    id: String,
    group: String,
    name: String,
    variant: syn::Ident,
    args: syn::Ident,
    fields_struct: syn::Ident,
    summary: String,
    description: String,
    path_params: Vec<Param>,
    query_params: Vec<Param>,
    body: Option<(syn::Type, Vec<BodyField>)>,
    paged: bool,
    deprecated: bool,
    print: Print,
    success: Option<syn::Type>,
    error: Option<syn::Type>,
    /// The record type of `data`, for `Print::One`/`List`.
    record: Option<String>,
    extra: Option<syn::Type>,
    /// No progenitor builder: the command is served by hand-written code.
    hand_written: bool,
    /// The fields of a `multipart/form-data` upload (sent through `StoreAdmin::multipart`).
    form: Option<Vec<FormField>>,
    /// The type of an upload's form schema: `decode --request` reads the form's fields as JSON
    /// (a file as its name), as the documentation shows them.
    form_type: Option<syn::Type>,
    /// The success body's type of a hand-written operation (its response schema's name).
    hand_written_success: Option<syn::Type>,
    /// Required body fields whose flags are hand-written ([`EXTRAS`]).
    owned_required: Vec<String>,
    /// The name of this command in earlier versions, when it differs (a hidden alias).
    old_name: Option<String>,
    /// What a background job exports (the document's `x-background-job.kind`): the command
    /// takes `--wait`, and waits for the file in the export logs.
    job: Option<String>,
    /// Whether the background job is an import (`x-background-job.import`): its result is the
    /// records of the uploaded file's rows, waited for by the keys the file holds.
    import_job: bool,
}

struct Group {
    name: String,
    /// The group's name in versions before 0.3, when it differs (a hidden alias).
    old_name: Option<String>,
    variant: syn::Ident,
    enum_name: syn::Ident,
    about: String,
    ops: Vec<usize>,
}

struct Model {
    ops: Vec<Op>,
    groups: Vec<Group>,
    /// Record type -> table columns (header, JSON pointer).
    records: BTreeMap<String, Vec<(String, String)>>,
}

/// The document as JSON, with `$ref` resolution.
struct Raw<'a>(&'a Value);

impl<'a> Raw<'a> {
    fn resolve(&self, value: &'a Value) -> &'a Value {
        let mut current = value;
        for _ in 0..16 {
            if let Some(reference) = current.get("$ref").and_then(Value::as_str) {
                match self.0.pointer(reference.trim_start_matches('#')) {
                    Some(target) => current = target,
                    None => return current,
                }
            } else if let Some([only]) = current
                .get("allOf")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
            {
                current = only;
            } else {
                return current;
            }
        }
        current
    }

    fn ref_name(value: &Value) -> Option<String> {
        let value = match value
            .get("allOf")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            Some([only]) => only,
            _ => value,
        };
        value
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.rsplit('/').next())
            .map(str::to_owned)
    }

    fn scalar_kind(&self, schema: &'a Value) -> Option<ScalarKind> {
        let schema = self.resolve(schema);
        match schema.get("type").and_then(Value::as_str)? {
            "integer" => Some(ScalarKind::Integer),
            "number" => Some(ScalarKind::Number),
            "boolean" => Some(ScalarKind::Boolean),
            "string" if schema.get("format").and_then(Value::as_str) != Some("binary") => {
                Some(ScalarKind::String)
            }
            _ => None,
        }
    }

    /// The value set of a string schema (or of an array's items).
    fn values(&self, schema: &'a Value) -> Values {
        let mut schema = self.resolve(schema);
        if schema.get("type").and_then(Value::as_str) == Some("array")
            && let Some(items) = schema.get("items")
        {
            schema = self.resolve(items);
        }
        let strings = |v: &Value| -> Vec<String> {
            v.as_array()
                .into_iter()
                .flatten()
                .filter_map(|x| match x {
                    Value::String(s) => Some(s.clone()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                })
                .collect()
        };
        if let Some(values) = schema.get("enum") {
            return Values::Closed(strings(values));
        }
        if let Some(values) = schema.get("x-known-values") {
            return Values::Known(strings(values));
        }
        Values::Any
    }

    /// The members of a union (`anyOf`, `oneOf`), resolved.
    fn union_members(&self, schema: &'a Value) -> Option<Vec<&'a Value>> {
        let schema = self.resolve(schema);
        let members = schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array)?;
        Some(members.iter().map(|m| self.resolve(m)).collect())
    }

    /// The scalar a flag takes for `schema`: a scalar type, or a union with scalar members (a
    /// number and a string: [`ScalarKind::NumberOrString`]; members that are objects are given
    /// through `--body`).
    fn flag_scalar(&self, schema: &'a Value) -> Option<ScalarKind> {
        if let Some(kind) = self.scalar_kind(schema) {
            return Some(kind);
        }
        let kinds: Vec<ScalarKind> = self
            .union_members(schema)?
            .into_iter()
            .filter_map(|m| self.scalar_kind(m))
            .collect();
        let numeric = kinds
            .iter()
            .any(|k| matches!(k, ScalarKind::Integer | ScalarKind::Number));
        let text = kinds.contains(&ScalarKind::String);
        match kinds.first() {
            None => None,
            Some(_) if numeric && text => Some(ScalarKind::NumberOrString),
            Some(first) if kinds.iter().all(|k| k == first) => Some(*first),
            Some(_) if numeric => Some(ScalarKind::Number),
            Some(_) => Some(ScalarKind::String),
        }
    }

    /// How a body field is given as a flag (see [`FieldKind`]).
    fn field_kind(&self, schema: &'a Value) -> FieldKind {
        if let Some(kind) = self.flag_scalar(schema) {
            return FieldKind::One(kind);
        }
        let resolved = self.resolve(schema);
        let is_array = resolved.get("type").and_then(Value::as_str) == Some("array");
        if is_array
            && let Some(items) = resolved.get("items")
            && let Some(kind) = self.flag_scalar(items)
        {
            return FieldKind::Many(kind);
        }
        let expect = match resolved.get("type").and_then(Value::as_str) {
            Some("array") => "array",
            Some("object") => "object",
            _ if resolved.get("properties").is_some() => "object",
            _ => "any",
        };
        FieldKind::Json {
            expect,
            shape: self.shape(schema, 0),
        }
    }

    /// An example of the JSON a schema takes, for help and errors: `[{"id": 1, "name": "text"}]`.
    /// Objects show their required properties first, at most [`SHAPE_PROPERTIES`] of them, two
    /// levels deep.
    fn shape(&self, schema: &'a Value, depth: usize) -> String {
        let schema = self.resolve(schema);
        let first_value = |values: &Values| match values {
            Values::Closed(v) | Values::Known(v) => v.first().cloned(),
            Values::Any => None,
        };
        if let Some(kind) = self.scalar_kind(schema) {
            return match kind {
                ScalarKind::Integer => "1".to_owned(),
                ScalarKind::Number => "1.5".to_owned(),
                ScalarKind::Boolean => "true".to_owned(),
                ScalarKind::NumberOrString => "\"10.00\"".to_owned(),
                ScalarKind::String => {
                    let example = first_value(&self.values(schema))
                        .or_else(|| match schema.get("format").and_then(Value::as_str) {
                            Some("date") => Some("2024-01-31".to_owned()),
                            Some("date-time") => Some("2024-01-31T12:00:00Z".to_owned()),
                            Some("uri" | "url") => Some("https://...".to_owned()),
                            Some("email") => Some("name@example.com".to_owned()),
                            _ => None,
                        })
                        .unwrap_or_else(|| "text".to_owned());
                    format!("{example:?}")
                }
            };
        }
        if let Some(kind) = self.flag_scalar(schema) {
            return match kind {
                ScalarKind::Integer => "1",
                ScalarKind::Number => "1.5",
                ScalarKind::Boolean => "true",
                ScalarKind::String => "\"text\"",
                ScalarKind::NumberOrString => "\"10.00\"",
            }
            .to_owned();
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("array") => {
                let items = schema.get("items").unwrap_or(&NULL);
                if depth >= 2 {
                    "[...]".to_owned()
                } else {
                    format!("[{}]", self.shape(items, depth + 1))
                }
            }
            _ => {
                let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                    return match self.union_members(schema) {
                        Some(members) if !members.is_empty() => self.shape(members[0], depth),
                        _ if schema.get("additionalProperties").is_some() => {
                            "{\"key\": \"value\"}".to_owned()
                        }
                        _ => "...".to_owned(),
                    };
                };
                if depth >= 2 {
                    return "{...}".to_owned();
                }
                let required: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                let mut names: Vec<&String> = properties
                    .keys()
                    .filter(|k| required.contains(&k.as_str()))
                    .collect();
                names.extend(
                    properties
                        .keys()
                        .filter(|k| !required.contains(&k.as_str())),
                );
                let mut parts: Vec<String> = names
                    .iter()
                    .take(SHAPE_PROPERTIES)
                    .map(|name| format!("{name:?}: {}", self.shape(&properties[*name], depth + 1)))
                    .collect();
                if names.len() > SHAPE_PROPERTIES {
                    parts.push("...".to_owned());
                }
                format!("{{{}}}", parts.join(", "))
            }
        }
    }
}

static NULL: Value = Value::Null;

/// Most properties of an object a shape example shows.
const SHAPE_PROPERTIES: usize = 6;

impl Model {
    fn build(doc: &Document, builders: &BTreeMap<String, Builder>) -> Result<Self> {
        let raw = Raw(&doc.raw);
        let paged: BTreeSet<String> = paged_operations(&doc.spec)
            .into_iter()
            .map(|p| p.operation_id)
            .collect();
        let tag_descriptions: BTreeMap<String, String> = doc
            .spec
            .tags
            .iter()
            .map(|t| (t.name.clone(), t.description.clone().unwrap_or_default()))
            .collect();
        let mut ops = Vec::new();
        let mut problems = Vec::new();
        for (pointer, path, method, op) in lint::operations(&doc.spec) {
            let id = op.operation_id.clone().unwrap_or_default();
            let tag = op.tags.first().cloned().unwrap_or_default();
            let raw_op = doc.raw.pointer(&pointer).cloned().unwrap_or(Value::Null);
            let shared = doc
                .raw
                .pointer(&format!("/paths/{}/parameters", lint::escape(path)))
                .cloned()
                .unwrap_or(Value::Null);
            match build_op(
                doc,
                &raw,
                builders,
                &id,
                &tag,
                method,
                &raw_op,
                &shared,
                paged.contains(&id),
            ) {
                Ok(built) => ops.push(built),
                Err(e) => problems.push(format!("{id}: {e:#}")),
            }
        }
        if !problems.is_empty() {
            bail!(
                "the command line cannot be generated:\n{}",
                problems.join("\n")
            );
        }
        // Names: one per operation within its group.
        let mut groups: Vec<Group> = Vec::new();
        for (index, op) in ops.iter().enumerate() {
            match groups.iter_mut().find(|g| g.name == op.group) {
                Some(group) => group.ops.push(index),
                None => {
                    let tag = op_tag(doc, &op.id);
                    let about = tag_descriptions
                        .get(&tag)
                        .filter(|d| !d.trim().is_empty())
                        .map(|d| first_sentence(d))
                        .unwrap_or_else(|| format!("{tag}."));
                    groups.push(Group {
                        old_name: None,
                        name: op.group.clone(),
                        variant: format_ident!("{}", pascal(&op.group)),
                        enum_name: format_ident!("{}Command", pascal(&op.group)),
                        about,
                        ops: vec![index],
                    })
                }
            }
        }
        for group in &mut groups {
            // Two operations of one group that get one name keep their whole operationId.
            let mut seen: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            let mut earlier: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for &i in &group.ops {
                seen.entry(ops[i].name.clone()).or_default().push(i);
                let tag = op_tag(doc, &ops[i].id);
                earlier
                    .entry(earlier_command_name(&ops[i].id, &tag))
                    .or_default()
                    .push(i);
            }
            for (_, clashing) in seen.into_iter().filter(|(_, v)| v.len() > 1) {
                for i in clashing {
                    ops[i].name = ops[i].id.replace('_', "-");
                }
            }
            // The earlier name stays as a hidden alias, unless another command now has it.
            let names: BTreeSet<String> = group.ops.iter().map(|&i| ops[i].name.clone()).collect();
            for (name, users) in earlier {
                for &i in &users {
                    let old = if users.len() > 1 {
                        ops[i].id.replace('_', "-")
                    } else {
                        name.clone()
                    };
                    if old != ops[i].name && !names.contains(&old) {
                        ops[i].old_name = Some(old);
                    }
                }
            }
            let tag = op_tag(doc, &ops[group.ops[0]].id);
            let old_group = earlier_group_name(&tag);
            if old_group != group.name {
                group.old_name = Some(old_group);
            }
        }
        for op in &mut ops {
            op.variant = format_ident!("{}", pascal(&op.name));
        }
        for (name, reserved) in [
            ("api", true),
            ("decode", true),
            ("completions", true),
            ("auth", true),
        ] {
            if reserved && groups.iter().any(|g| g.name == name) {
                bail!("a tag gives the group `{name}`, which the CLI keeps for itself");
            }
        }
        for (group, _) in GROUP_EXTRAS {
            if !groups.iter().any(|g| g.name == *group) {
                bail!("no tag gives the group `{group}` that hand-written commands join");
            }
        }
        // Records and their columns.
        let mut records = BTreeMap::new();
        for op in &ops {
            if let Some(record) = &op.record
                && !records.contains_key(record)
            {
                let schema = doc
                    .raw
                    .pointer(&format!("/components/schemas/{record}"))
                    .unwrap_or(&Value::Null);
                records.insert(
                    record.clone(),
                    columns(&raw, schema, &property_order(doc, record)),
                );
            }
        }
        Ok(Model {
            ops,
            groups,
            records,
        })
    }
}

/// The property names of a component schema in the document's order (serde_json sorts them).
fn property_order(doc: &Document, name: &str) -> Vec<String> {
    use openapiv3::{ReferenceOr, SchemaKind, Type};
    let Some(ReferenceOr::Item(schema)) = doc
        .spec
        .components
        .as_ref()
        .and_then(|c| c.schemas.get(name))
    else {
        return Vec::new();
    };
    match &schema.schema_kind {
        SchemaKind::Type(Type::Object(object)) => object.properties.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// The keys of `properties`, those of `order` first in its order, then the rest sorted.
fn ordered<'m>(
    properties: &'m serde_json::Map<String, Value>,
    order: &[String],
) -> Vec<&'m String> {
    let mut names: Vec<&String> = order
        .iter()
        .filter_map(|n| properties.get_key_value(n).map(|(k, _)| k))
        .collect();
    for key in properties.keys() {
        if !names.contains(&key) {
            names.push(key);
        }
    }
    names
}

fn op_tag(doc: &Document, id: &str) -> String {
    lint::operations(&doc.spec)
        .find(|(_, _, _, op)| op.operation_id.as_deref() == Some(id))
        .and_then(|(_, _, _, op)| op.tags.first().cloned())
        .unwrap_or_default()
}

/// The first whole sentence of a description (its first paragraph joined into one line), for a
/// group's one-line help.
fn first_sentence(text: &str) -> String {
    let text = user_text(text);
    let first = sentences(&text)
        .first()
        .copied()
        .unwrap_or_default()
        .to_owned();
    if first.ends_with(['.', '?', '!']) {
        first
    } else {
        format!("{first}.")
    }
}

#[allow(clippy::too_many_arguments)]
fn build_op(
    doc: &Document,
    raw: &Raw<'_>,
    builders: &BTreeMap<String, Builder>,
    id: &str,
    tag: &str,
    method: &str,
    op: &Value,
    shared: &Value,
    paged: bool,
) -> Result<Op> {
    let builder = builders.get(&pascal(id));
    let extra = EXTRAS.iter().find(|(op_id, _, _)| *op_id == id);
    let owned: &[&str] = extra.map(|(_, _, owned)| *owned).unwrap_or(&[]);
    let group = group_name(tag);
    let name = command_name(id, tag);
    let mut path_params = Vec::new();
    let mut query_params = Vec::new();
    let params = shared.as_array().into_iter().flatten().chain(
        op.get("parameters")
            .and_then(Value::as_array)
            .into_iter()
            .flatten(),
    );
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for param in params {
        let param = raw.resolve(param);
        let wire = param["name"].as_str().unwrap_or_default().to_owned();
        let location = param["in"].as_str().unwrap_or_default();
        if !matches!(location, "path" | "query") {
            continue;
        }
        let base = snake(wire.trim_end_matches("[]"));
        if paged && location == "query" && matches!(base.as_str(), "page" | "per_page") {
            continue;
        }
        if owned.contains(&base.as_str()) {
            continue;
        }
        let id_name = if RESERVED.contains(&base.as_str()) {
            format!("param_{base}")
        } else {
            base.clone()
        };
        // progenitor's setter: the snake-case name, with `_` after a keyword (`type_`).
        let setter = match builder {
            Some(b) => [base.clone(), format!("{base}_")]
                .into_iter()
                .find(|name| b.setters.contains_key(name))
                .ok_or_else(|| {
                    anyhow!("progenitor's builder has no setter `{base}` for `{wire}`")
                })?,
            None => base.clone(),
        };
        let schema = param.get("schema").unwrap_or(&Value::Null);
        let ty = match builder {
            Some(b) => b.setters[&setter].clone(),
            None => match raw.scalar_kind(schema) {
                Some(ScalarKind::Integer) => syn::parse_quote!(i64),
                _ => syn::parse_quote!(::std::string::String),
            },
        };
        let help = param
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| {
                raw.resolve(schema)
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| format!("The `{wire}` parameter."));
        taken.insert(id_name.clone());
        let built = Param {
            field: field_ident(&id_name),
            setter,
            id: id_name,
            ty,
            required: param["required"].as_bool().unwrap_or(location == "path"),
            help,
            values: raw.values(schema),
        };
        if location == "path" {
            path_params.push(built);
        } else {
            query_params.push(built);
        }
    }
    // The body.
    let mut body = None;
    let mut owned_required: Vec<String> = Vec::new();
    let body_schema = op.pointer("/requestBody/content/application~1json/schema");
    if let Some(schema) = body_schema {
        let ty = match builder {
            Some(b) => b
                .setters
                .get("body")
                .cloned()
                .ok_or_else(|| anyhow!("progenitor's builder has no `body` setter"))?,
            None => syn::parse_quote!(::serde_json::Value),
        };
        let resolved = raw.resolve(schema);
        let mut fields = Vec::new();
        let properties = resolved.get("properties").and_then(Value::as_object);
        let order = Raw::ref_name(schema)
            .map(|name| property_order(doc, &name))
            .unwrap_or_default();
        let required: BTreeSet<&str> = resolved
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        for wire in properties.map(|p| ordered(p, &order)).unwrap_or_default() {
            let property = &properties.expect("listed from it")[wire];
            if owned.contains(&wire.as_str()) {
                continue;
            }
            let kind = raw.field_kind(property);
            let id_name = match kind {
                FieldKind::Json { .. } => unique_id(&format!("{wire}_json"), "body", &mut taken),
                _ => unique_id(wire, "body", &mut taken),
            };
            let help = property_help(raw, property, &format!("The body field `{wire}`."));
            fields.push(BodyField {
                field: field_ident(&id_name),
                id: id_name,
                wire: wire.clone(),
                kind,
                required: required.contains(wire.as_str()),
                help,
                values: raw.values(property),
            });
        }
        // Required fields that hand-written flags own are still named by a missing-field error.
        owned_required = owned
            .iter()
            .filter(|name| required.contains(**name))
            .map(|name| (*name).to_owned())
            .collect();
        body = Some((ty, fields));
    }
    let form_schema = op.pointer("/requestBody/content/multipart~1form-data/schema");
    let form = match form_schema {
        Some(schema) => Some(form_fields(doc, raw, schema, &taken)?),
        None => None,
    };
    let form_type = form_schema
        .and_then(Raw::ref_name)
        .map(|name| syn::parse_str::<syn::Type>(&format!("types::{name}")))
        .transpose()
        .context("a form's type")?;
    let hand_written_success = if builder.is_none() {
        success_schema_name(raw, op)
            .map(|name| syn::parse_str::<syn::Type>(&format!("types::{name}")))
            .transpose()
            .context("a response type")?
    } else {
        None
    };
    let (print, record) = print_kind(raw, op);
    Ok(Op {
        id: id.to_owned(),
        group,
        name,
        variant: format_ident!("X"),
        args: format_ident!("{}Args", pascal(id)),
        fields_struct: format_ident!("{}Fields", pascal(id)),
        summary: op["summary"].as_str().unwrap_or_default().to_owned(),
        description: op["description"].as_str().unwrap_or_default().to_owned(),
        path_params,
        query_params,
        body,
        paged: paged && builder.is_some(),
        deprecated: op["deprecated"].as_bool().unwrap_or(false),
        print,
        success: builder.and_then(|b| b.success.clone()),
        error: builder.and_then(|b| b.error.clone()),
        record,
        extra: extra
            .map(|(_, ty, _)| syn::parse_str(ty))
            .transpose()
            .context("an EXTRAS type")?,
        hand_written: builder.is_none() || method.is_empty(),
        form,
        form_type,
        hand_written_success,
        owned_required,
        old_name: None,
        job: op["x-background-job"]["kind"].as_str().map(str::to_owned),
        import_job: op["x-background-job"]["import"].as_bool() == Some(true),
    })
}

/// The fields of an upload's form: files and scalars, in the schema's order. Anything else (an
/// array, an object) cannot be a flag, and fails the generation.
fn form_fields(
    doc: &Document,
    raw: &Raw<'_>,
    schema: &Value,
    taken: &BTreeSet<String>,
) -> Result<Vec<FormField>> {
    let resolved = raw.resolve(schema);
    let required: BTreeSet<&str> = resolved
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let Some(properties) = resolved.get("properties").and_then(Value::as_object) else {
        return Ok(Vec::new());
    };
    let order = Raw::ref_name(schema)
        .map(|name| property_order(doc, &name))
        .unwrap_or_default();
    let mut fields = Vec::new();
    let mut names: BTreeSet<String> = taken.clone();
    for wire in ordered(properties, &order) {
        let property = &properties[wire];
        let target = raw.resolve(property);
        let is_file = target.get("type").and_then(Value::as_str) == Some("string")
            && target.get("format").and_then(Value::as_str) == Some("binary");
        let kind =
            if is_file {
                None
            } else {
                Some(raw.flag_scalar(property).ok_or_else(|| {
                    anyhow!("the form field `{wire}` is neither a file nor a scalar")
                })?)
            };
        let id = unique_id(wire, "form", &mut names);
        let help = property_help(raw, property, &format!("The form field `{wire}`."));
        fields.push(FormField {
            field: field_ident(&id),
            id,
            wire: wire.clone(),
            kind,
            required: required.contains(wire.as_str()),
            help,
            values: raw.values(property),
        });
    }
    Ok(fields)
}

/// The snake-case flag id of the property `wire`, prefixed (`body_type`) when it is reserved or
/// already taken by another flag of the command; recorded in `taken`.
fn unique_id(wire: &str, prefix: &str, taken: &mut BTreeSet<String>) -> String {
    let base = snake(wire);
    let id = if RESERVED.contains(&base.as_str()) || taken.contains(&base) {
        format!("{prefix}_{base}")
    } else {
        base
    };
    taken.insert(id.clone());
    id
}

/// A property's description (its own, else its schema's through `$ref`), else `fallback`.
fn property_help(raw: &Raw<'_>, property: &Value, fallback: &str) -> String {
    property
        .get("description")
        .and_then(Value::as_str)
        .or_else(|| {
            raw.resolve(property)
                .get("description")
                .and_then(Value::as_str)
        })
        .map_or_else(|| fallback.to_owned(), str::to_owned)
}

/// The component name of the first success response's JSON schema.
fn success_schema_name(raw: &Raw<'_>, op: &Value) -> Option<String> {
    let responses = op.get("responses").and_then(Value::as_object)?;
    let (_, response) = responses.iter().find(|(code, _)| code.starts_with('2'))?;
    let schema = raw
        .resolve(response)
        .pointer("/content/application~1json/schema")?;
    Raw::ref_name(schema)
}

/// How the success response is printed, and the record type of its `data`.
fn print_kind(raw: &Raw<'_>, op: &Value) -> (Print, Option<String>) {
    let Some(responses) = op.get("responses").and_then(Value::as_object) else {
        return (Print::Nothing, None);
    };
    let Some((_, response)) = responses.iter().find(|(code, _)| code.starts_with('2')) else {
        return (Print::Nothing, None);
    };
    let response = raw.resolve(response);
    let Some(content) = response.get("content").and_then(Value::as_object) else {
        return (Print::Nothing, None);
    };
    let Some(schema) = content
        .get("application/json")
        .and_then(|m| m.get("schema"))
    else {
        return if content.is_empty() {
            (Print::Nothing, None)
        } else {
            (Print::Bytes, None)
        };
    };
    let envelope = raw.resolve(schema);
    let Some(data) = envelope.get("properties").and_then(|p| p.get("data")) else {
        return (Print::Document, None);
    };
    let required = envelope
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|r| r.iter().any(|x| x == "data"));
    let optional = !required || raw.resolve(data).get("nullable") == Some(&Value::Bool(true));
    let is_record = |name: &str| {
        raw.0
            .pointer(&format!("/components/schemas/{name}/properties"))
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty())
    };
    if let Some(name) = Raw::ref_name(data) {
        if is_record(&name) {
            return (Print::One { optional }, Some(name));
        }
        return (Print::Document, None);
    }
    if data.get("type").and_then(Value::as_str) == Some("array")
        && let Some(name) = data.get("items").and_then(Raw::ref_name)
        && is_record(&name)
    {
        return (Print::List, Some(name));
    }
    (Print::Document, None)
}

/// The table columns of a record schema (see the module documentation for the rule).
fn columns(raw: &Raw<'_>, schema: &Value, order: &[String]) -> Vec<(String, String)> {
    let schema = raw.resolve(schema);
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let names = ordered(properties, order);
    let mut chosen: Vec<String> = Vec::new();
    let take = |name: &str, chosen: &mut Vec<String>| {
        if properties.contains_key(name) && !chosen.iter().any(|c| c == name) {
            chosen.push(name.to_owned());
        }
    };
    let scalar = |name: &str| {
        properties
            .get(name)
            .is_some_and(|p| raw.scalar_kind(p).is_some())
    };
    take("id", &mut chosen);
    if let Some(title) = [
        "name", "title", "label", "event", "slug", "iso_code", "code",
    ]
    .into_iter()
    .find(|n| scalar(n))
    {
        take(title, &mut chosen);
    }
    take("status", &mut chosen);
    if scalar("type") {
        take("type", &mut chosen);
    }
    for name in names {
        if chosen.len() >= MAX_COLUMNS {
            break;
        }
        let property = raw.resolve(&properties[name]);
        let compact = raw.scalar_kind(property).is_some() || {
            let inner = property.get("properties").and_then(Value::as_object);
            inner.is_some_and(|p| {
                (p.contains_key("amount") && p.contains_key("currency")) || p.contains_key("date")
            })
        };
        if compact {
            take(name, &mut chosen);
        }
    }
    chosen
        .into_iter()
        .map(|name| (name.replace('_', " ").to_uppercase(), format!("/{name}")))
        .collect()
}

// ------------------------------------------------------------------------------------------------
// names

/// Help text for clap: the first paragraph, with trailing whitespace trimmed.
fn doc_text(text: &str) -> String {
    let text = text.trim();
    let paragraph = text.split("\n\n").next().unwrap_or_default();
    paragraph.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn values_parser(values: &Values, element: &syn::Type) -> TokenStream {
    match values {
        Values::Any => quote!(),
        Values::Closed(v) => {
            quote!(, value_parser = crate::commands::choice::<#element>(&[#(#v),*]))
        }
        // The help says "known values: ... (others accepted)"; clap's "possible values" would
        // say the set is closed. Shells still complete them.
        Values::Known(v) => quote! {
            , value_parser = crate::commands::known::<#element>(&[#(#v),*]), hide_possible_values = true
        },
    }
}

/// The value parser of a scalar flag of `kind` (Rust type `ty`), and `allow_negative_numbers`
/// for numbers (`--sort-order -5` without `=`).
fn scalar_parser(kind: ScalarKind, values: &Values, ty: &TokenStream) -> TokenStream {
    let negative = is_numeric(kind).then(|| quote!(, allow_negative_numbers = true));
    let parser = match kind {
        ScalarKind::NumberOrString => quote!(, value_parser = crate::commands::number_or_string),
        _ => {
            let element: syn::Type = syn::parse2(ty.clone()).expect("a type");
            values_parser(values, &element)
        }
    };
    quote!(#parser #negative)
}

fn is_numeric(kind: ScalarKind) -> bool {
    matches!(
        kind,
        ScalarKind::Integer | ScalarKind::Number | ScalarKind::NumberOrString
    )
}

/// The Rust type of a scalar flag and its `value_name` argument.
fn scalar_tokens(kind: ScalarKind) -> (TokenStream, TokenStream) {
    match kind {
        ScalarKind::Integer => (quote!(i64), quote!(, value_name = "N")),
        ScalarKind::Number => (quote!(f64), quote!(, value_name = "NUMBER")),
        ScalarKind::Boolean => (quote!(bool), quote!(, value_name = "BOOL")),
        ScalarKind::String => (quote!(::std::string::String), quote!()),
        ScalarKind::NumberOrString => {
            (quote!(::serde_json::Value), quote!(, value_name = "NUMBER"))
        }
    }
}

/// A flag's help: the description for users ([`user_text`]), what the command line adds
/// (`more`), the known values of an open set, and whether the body needs it.
fn flag_help(text: &str, values: &Values, required: bool, more: &str) -> String {
    let mut help = user_text(text);
    if !help.is_empty() && !help.ends_with(['.', '?', '!', ')']) {
        help.push('.');
    }
    help.push_str(more);
    if let Values::Known(known) = values
        && !known.is_empty()
    {
        help.push_str(&format!(
            " [known values: {} (others accepted)]",
            known.join(", ")
        ));
    }
    if required {
        help.push_str(" [required]");
    }
    help.trim().to_owned()
}

/// Words that mark a note about the API document or its sources, not about the value: help for
/// users leaves out the sentences and parentheses that hold one.
const DOCUMENT_NOTES: &[&str] = &[
    "documentation",
    "documented",
    "the document",
    "this document",
    "document's",
    "taken here",
    "mock store",
    "progenitor",
    "typify",
    "generated code",
];

/// The first paragraph of a description as help for a user: one line, without the notes about
/// the document ([`DOCUMENT_NOTES`]): a parenthesis that holds one is dropped, then a sentence.
fn user_text(text: &str) -> String {
    let paragraph = doc_text(text);
    let is_note = |t: &str| {
        let lower = t.to_ascii_lowercase();
        DOCUMENT_NOTES.iter().any(|n| lower.contains(n))
    };
    // Parentheses (nested ones included) that hold a note.
    let mut out = String::new();
    let mut stack: Vec<String> = Vec::new();
    for c in paragraph.chars() {
        match c {
            '(' => stack.push(String::from("(")),
            ')' if !stack.is_empty() => {
                let mut inner = stack.pop().expect("not empty");
                inner.push(')');
                let keep = !is_note(&inner);
                let target = stack.last_mut().unwrap_or(&mut out);
                if keep {
                    target.push_str(&inner);
                } else {
                    while target.ends_with(' ') {
                        target.pop();
                    }
                }
            }
            _ => stack.last_mut().unwrap_or(&mut out).push(c),
        }
    }
    for rest in stack {
        out.push_str(&rest);
    }
    let sentences: Vec<&str> = sentences(&out);
    let kept: Vec<&str> = sentences.iter().copied().filter(|s| !is_note(s)).collect();
    let text = if kept.is_empty() {
        sentences.first().copied().unwrap_or_default().to_owned()
    } else {
        kept.join(" ")
    };
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The sentences of a one-line text: each ends at `. `, `? ` or `! ` followed by a capital
/// letter, a digit or a backtick (so `e.g. a` and `2.5` do not end one).
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for i in 0..bytes.len() {
        if matches!(bytes[i], b'.' | b'?' | b'!')
            && bytes.get(i + 1) == Some(&b' ')
            && bytes
                .get(i + 2)
                .is_some_and(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'`')
        {
            out.push(text[start..=i].trim());
            start = i + 2;
        }
    }
    if start < text.len() && !text[start..].trim().is_empty() {
        out.push(text[start..].trim());
    }
    out
}

/// Whether a parameter's Rust type is a signed number (its flag takes `-5` without `=`).
fn numeric_type(ty: &syn::Type) -> bool {
    ["i64", "i32", "f64", "f32"].iter().any(|n| is_type(ty, n))
}

fn is_type(ty: &syn::Type, name: &str) -> bool {
    matches!(ty, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == name))
}

fn value_name(ty: &syn::Type) -> Option<&'static str> {
    let inner = generic_args(ty, "Vec")
        .and_then(|a| a.into_iter().next())
        .unwrap_or_else(|| ty.clone());
    if ["i64", "i32", "u64", "u32", "NonZeroU64", "NonZeroU32"]
        .iter()
        .any(|n| is_type(&inner, n))
    {
        Some("N")
    } else if is_type(&inner, "NaiveDate") {
        Some("YYYY-MM-DD")
    } else if is_type(&inner, "bool") {
        Some("BOOL")
    } else {
        None
    }
}

impl Model {
    fn render(&self) -> TokenStream {
        let imports = CLIENT_IMPORTS.iter().map(|path| {
            let item: syn::ItemUse =
                syn::parse_str(&format!("use {path};")).expect("CLIENT_IMPORTS holds use paths");
            quote!(#[allow(unused_imports)] #item)
        });
        let command_table = self.ops.iter().map(|op| {
            let path = format!("{} {}", op.group, op.name);
            let id = &op.id;
            quote!((#path, #id))
        });
        let paged_ops = self.ops.iter().filter(|op| op.paged).map(|op| &op.id);
        let group_variants = self.groups.iter().map(|g| {
            let about = &g.about;
            let name = &g.name;
            let variant = &g.variant;
            let enum_name = &g.enum_name;
            let alias = g.old_name.as_ref().map(|old| quote!(, alias = #old));
            quote! {
                #[doc = #about]
                #[command(subcommand, name = #name #alias)]
                #variant(#enum_name)
            }
        });
        let group_enums = self.groups.iter().map(|g| {
            let enum_name = &g.enum_name;
            let doc = format!(" `{} ...`", g.name);
            let variants = g.ops.iter().map(|&i| {
                let op = &self.ops[i];
                let variant = &op.variant;
                let args = &op.args;
                let name = &op.name;
                let about = doc_text(&op.summary);
                let alias = op.old_name.as_ref().map(|old| quote!(, alias = #old));
                quote! {
                    #[doc = #about]
                    #[command(name = #name #alias)]
                    #variant(Box<#args>)
                }
            });
            let extra = GROUP_EXTRAS
                .iter()
                .filter(|(group, _)| *group == g.name)
                .map(|(_, ty)| {
                    let ty: syn::Type = syn::parse_str(ty).expect("a type");
                    quote! {
                        #[command(flatten)]
                        Receiver(#ty)
                    }
                });
            quote! {
                #[doc = #doc]
                #[derive(clap::Subcommand)]
                pub enum #enum_name {
                    #(#variants,)*
                    #(#extra,)*
                }
            }
        });
        let args_structs = self.ops.iter().map(|op| self.render_args(op));
        let dispatch_groups = self.groups.iter().map(|g| {
            let variant = &g.variant;
            let enum_name = &g.enum_name;
            let arms = g.ops.iter().map(|&i| {
                let op = &self.ops[i];
                let variant = &op.variant;
                let function = format_ident!("{}", op.id);
                quote!(#enum_name::#variant(a) => #function(ctx, *a).await)
            });
            let extra = GROUP_EXTRAS
                .iter()
                .filter(|(group, _)| *group == g.name)
                .map(|_| {
                    quote!(#enum_name::Receiver(_) => Err(CliError::other("internal: this command runs without a client")))
                });
            quote! {
                Operations::#variant(command) => match command {
                    #(#arms,)*
                    #(#extra,)*
                }
            }
        });
        let receiver_fn = GROUP_EXTRAS.first().map(|(group, ty)| {
            let g = self
                .groups
                .iter()
                .find(|g| g.name == *group)
                .expect("checked in build");
            let variant = &g.variant;
            let enum_name = &g.enum_name;
            let ty: syn::Type = syn::parse_str(ty).expect("a type");
            quote! {
                /// The hand-written commands that run without a client, taken out of the tree.
                pub fn without_client(command: Operations) -> Result<#ty, Operations> {
                    match command {
                        Operations::#variant(#enum_name::Receiver(command)) => Ok(command),
                        other => Err(other),
                    }
                }
            }
        });
        let functions = self.ops.iter().map(|op| self.render_function(op));
        let records = self.records.iter().map(|(name, columns)| {
            let ty = format_ident!("{}", name);
            let columns = columns.iter().map(|(h, p)| quote!((#h, #p)));
            quote! {
                impl Record for types::#ty {
                    const COLUMNS: &'static [(&'static str, &'static str)] = &[#(#columns),*];
                }
            }
        });
        quote! {
            #[allow(unused_imports)]
            use store_admin::types;
            #(#imports)*
            use crate::cli::{BodyArg, PageArgs, WaitArgs};
            use crate::commands::{Ctx, paged};
            use crate::error::CliError;
            use crate::output::Record;

            /// Every operation command: its path (the words after `store-admin`) and the
            /// document's `operationId`, in document order.
            pub const OPERATION_COMMANDS: &[(&str, &str)] = &[#(#command_table),*];

            /// The paged list operations (their commands take `--page`, `--per-page` and `--all`).
            pub const PAGED_OPERATIONS: &[&str] = &[#(#paged_ops),*];

            /// One group of commands per tag of the document.
            #[derive(clap::Subcommand)]
            pub enum Operations {
                #(#group_variants,)*
            }

            #(#group_enums)*

            #(#args_structs)*

            /// Runs an operation command.
            pub async fn run(ctx: &Ctx, command: Operations) -> Result<(), CliError> {
                match command {
                    #(#dispatch_groups,)*
                }
            }

            #receiver_fn

            #(#functions)*

            #(#records)*
        }
    }

    /// The facade's decoder table (`store_admin_client::decoders::DECODERS`): per operation, the
    /// generated types of its success, error and request bodies.
    fn render_decoders(&self) -> TokenStream {
        let decoders = self.ops.iter().map(|op| {
            let id = &op.id;
            let success = match &op.success {
                Some(ty) if is_unit(ty) => quote!(empty),
                Some(ty) if is_type(ty, "ByteStream") => quote!(bytes),
                Some(ty) => quote!(json::<#ty>),
                None => quote!(json::<::serde_json::Value>),
            };
            let error = match &op.error {
                Some(ty) if !is_unit(ty) && !is_type(ty, "ByteStream") => quote!(json::<#ty>),
                _ => quote!(json::<types::ErrorResponse>),
            };
            let request = match (&op.body, &op.form_type) {
                (Some((ty, _)), _) | (None, Some(ty)) => quote!(Some(json::<#ty>)),
                (None, None) => quote!(None),
            };
            quote! {
                Decoder { operation_id: #id, success: #success, error: #error, request: #request }
            }
        });
        quote! {
            #[allow(unused_imports)]
            use super::{Decoder, bytes, empty, json};
            use crate::types;

            /// How to decode each operation's bodies, in document order.
            pub const DECODERS: &[Decoder] = &[#(#decoders),*];
        }
    }

    fn render_args(&self, op: &Op) -> TokenStream {
        let args = &op.args;
        let mut details = format!(" `{} {}`", op.group, op.name);
        if !op.description.trim().is_empty() && doc_text(&op.description) != doc_text(&op.summary) {
            details = format!(" {}", user_text(&op.description));
        }
        let path_fields = op.path_params.iter().map(|p| {
            let field = &p.field;
            let ty = &p.ty;
            let id = &p.id;
            let help = flag_help(&p.help, &p.values, false, "");
            let value_name = p.id.to_uppercase();
            let parser = values_parser(&p.values, ty);
            let negative = numeric_type(ty).then(|| quote!(, allow_negative_numbers = true));
            quote! {
                #[doc = #help]
                #[arg(id = #id, value_name = #value_name #parser #negative)]
                pub #field: #ty
            }
        });
        let query_fields = op.query_params.iter().map(|p| {
            let field = &p.field;
            let id = &p.id;
            let long = flag(&p.id);
            let help = flag_help(&p.help, &p.values, false, "");
            let vec_inner = generic_args(&p.ty, "Vec").and_then(|a| a.into_iter().next());
            let element = vec_inner.clone().unwrap_or_else(|| p.ty.clone());
            let mut parser = values_parser(&p.values, &element);
            if numeric_type(&element) {
                parser = quote!(#parser, allow_negative_numbers = true);
            }
            if matches!(p.values, Values::Any) && is_type(&element, "NonZeroU64") {
                parser = quote!(, value_parser = crate::commands::positive);
            }
            let value_name = value_name(&p.ty)
                .map(|v| quote!(, value_name = #v))
                .unwrap_or_default();
            let ty = &p.ty;
            // clap's derive knows a list by the bare name `Vec`.
            let (field_ty, multiple) = match (&vec_inner, p.required) {
                (Some(inner), true) => (
                    quote!(Vec<#inner>),
                    quote!(, value_delimiter = ',', required = true),
                ),
                (Some(inner), false) => {
                    (quote!(Option<Vec<#inner>>), quote!(, value_delimiter = ','))
                }
                (None, true) => (quote!(#ty), quote!(, required = true)),
                (None, false) => (quote!(Option<#ty>), quote!()),
            };
            quote! {
                #[doc = #help]
                #[arg(id = #id, long = #long #value_name #multiple #parser)]
                pub #field: #field_ty
            }
        });
        let pages = op.paged.then(|| {
            quote! {
                /// Page selection.
                #[command(flatten)]
                pub pages: PageArgs,
            }
        });
        let (fields, body_arg, fields_struct) = match &op.body {
            Some((_, body_fields)) => {
                let fields_struct = &op.fields_struct;
                let members = body_fields.iter().map(|f| {
                    let field = &f.field;
                    let id = &f.id;
                    let long = flag(&f.id);
                    let wire = &f.wire;
                    let serde =
                        quote!(#[serde(rename = #wire, skip_serializing_if = "Option::is_none")]);
                    match &f.kind {
                        FieldKind::One(kind) => {
                            let help = flag_help(&f.help, &f.values, f.required, "");
                            let (ty, value_name) = scalar_tokens(*kind);
                            let parser = scalar_parser(*kind, &f.values, &ty);
                            quote! {
                                #[doc = #help]
                                #[arg(id = #id, long = #long #value_name #parser)]
                                #serde
                                pub #field: Option<#ty>
                            }
                        }
                        FieldKind::Many(kind) => {
                            let numeric = is_numeric(*kind);
                            let more = if numeric {
                                " Repeat the flag, or separate the values with commas."
                            } else {
                                " Repeat the flag for each value."
                            };
                            let help = flag_help(&f.help, &f.values, f.required, more);
                            let (ty, value_name) = scalar_tokens(*kind);
                            let parser = scalar_parser(*kind, &f.values, &ty);
                            let delimiter = numeric.then(|| quote!(, value_delimiter = ','));
                            quote! {
                                #[doc = #help]
                                #[arg(id = #id, long = #long #value_name #delimiter #parser)]
                                #serde
                                pub #field: Option<Vec<#ty>>
                            }
                        }
                        FieldKind::Json { expect, shape } => {
                            let more = format!(" As JSON (or @FILE), e.g. {shape}");
                            let help = flag_help(&f.help, &f.values, f.required, &more);
                            quote! {
                                #[doc = #help]
                                #[arg(id = #id, long = #long, value_name = "JSON",
                                      value_parser = crate::commands::json_flag(#expect, #shape))]
                                #serde
                                pub #field: Option<::serde_json::Value>
                            }
                        }
                    }
                });
                let doc = format!(" Body fields of `{}` as flags.", op.id);
                (
                    Some(quote! {
                        /// Body fields as flags.
                        #[command(flatten)]
                        pub fields: #fields_struct,
                    }),
                    Some(quote! {
                        /// The body as a JSON file.
                        #[command(flatten)]
                        pub body: BodyArg,
                    }),
                    Some(quote! {
                        #[doc = #doc]
                        #[derive(clap::Args, serde::Serialize)]
                        pub struct #fields_struct {
                            #(#members,)*
                        }
                    }),
                )
            }
            None => (None, None, None),
        };
        let extra = op.extra.as_ref().map(|ty| {
            quote! {
                /// What the document cannot say as flags of its own.
                #[command(flatten)]
                pub extra: #ty,
            }
        });
        let form_fields = op.form.iter().flatten().map(|f| {
            let field = &f.field;
            let id = &f.id;
            let long = flag(&f.id);
            let more = match f.kind {
                None => " A path, or `-` for standard input.",
                Some(_) => "",
            };
            let help = flag_help(&f.help, &f.values, false, more);
            let (ty, value_name, parser) = match f.kind {
                None => (
                    quote!(::std::path::PathBuf),
                    quote!(, value_name = "FILE"),
                    quote!(),
                ),
                Some(kind) => {
                    let (ty, value_name) = scalar_tokens(kind);
                    let parser = scalar_parser(kind, &f.values, &ty);
                    (ty, value_name, parser)
                }
            };
            if f.required {
                quote! {
                    #[doc = #help]
                    #[arg(id = #id, long = #long, required = true #value_name #parser)]
                    pub #field: #ty
                }
            } else {
                quote! {
                    #[doc = #help]
                    #[arg(id = #id, long = #long #value_name #parser)]
                    pub #field: Option<#ty>
                }
            }
        });
        let wait = op.job.is_some().then(|| {
            quote! {
                /// Waiting for the background job.
                #[command(flatten)]
                pub wait: WaitArgs,
            }
        });
        quote! {
            #[doc = #details]
            #[derive(clap::Args)]
            pub struct #args {
                #(#path_fields,)*
                #(#query_fields,)*
                #pages
                #wait
                #fields
                #extra
                #body_arg
                #(#form_fields,)*
            }
            #fields_struct
        }
    }

    fn render_function(&self, op: &Op) -> TokenStream {
        let function = format_ident!("{}", op.id);
        let args = &op.args;
        if op.hand_written {
            return self.render_hand_written(op);
        }
        let method = format_ident!("{}", op.id);
        let allow = op.deprecated.then(|| quote!(#[allow(deprecated)]));
        let path_sets = op.path_params.iter().map(|p| {
            let setter = format_ident!("{}", p.setter);
            let field = &p.field;
            quote!(request = request.#setter(a.#field);)
        });
        let query_sets = op.query_params.iter().map(|p| {
            let setter = format_ident!("{}", p.setter);
            let field = &p.field;
            if p.required {
                quote!(request = request.#setter(a.#field);)
            } else {
                quote! {
                    if let Some(value) = a.#field {
                        request = request.#setter(value);
                    }
                }
            }
        });
        let extra = match (&op.extra, &op.body) {
            (Some(_), Some(_)) => {
                quote!(let (mut request, extra) = crate::extras::Extra::apply(a.extra, request)?;)
            }
            (Some(_), None) => {
                quote!(let (mut request, _) = crate::extras::Extra::apply(a.extra, request)?;)
            }
            (None, Some(_)) => quote!(let extra = ::serde_json::Map::new();),
            (None, None) => quote!(),
        };
        // A background job's body, read for what it exports before it is sent.
        let job_body = op
            .job
            .as_ref()
            .map(|_| quote!(let job_body = ::serde_json::to_value(&body).ok();));
        let body = op.body.as_ref().map(|(ty, fields)| {
            let required = fields
                .iter()
                .filter(|f| f.required)
                .map(|f| {
                    let wire = &f.wire;
                    let flag = format!("--{}", flag(&f.id));
                    quote!((#wire, #flag))
                })
                .chain(op.owned_required.iter().map(|wire| quote!((#wire, ""))));
            let shapes = fields.iter().filter_map(|f| match &f.kind {
                FieldKind::Json { shape, .. } => {
                    let wire = &f.wire;
                    Some(quote!((#wire, #shape)))
                }
                _ => None,
            });
            quote! {
                const SPEC: crate::body::BodySpec = crate::body::BodySpec {
                    required: &[#(#required),*],
                    shapes: &[#(#shapes),*],
                };
                let body: #ty = crate::body::build(&a.body, &a.fields, extra, &SPEC)?;
                #job_body
                request = request.body(body);
            }
        });
        let send = if op.paged {
            quote!(paged(ctx, request, a.pages).await)
        } else if let Some(kind) = &op.job {
            let print = print_response(op);
            let body = if op.body.is_some() {
                quote!(job_body)
            } else {
                quote!(None)
            };
            quote! {
                let job = crate::commands::Job::before(ctx, &a.wait, #kind, #body).await?;
                let response = request.send().await?;
                if let Some(job) = job {
                    return job.finish(ctx).await;
                }
                #print
            }
        } else {
            let print = print_response(op);
            quote! {
                let response = request.send().await?;
                #print
            }
        };
        quote! {
            #allow
            async fn #function(ctx: &Ctx, a: #args) -> Result<(), CliError> {
                let mut request = ctx.admin.#method();
                #(#path_sets)*
                #(#query_sets)*
                #extra
                #body
                #send
            }
        }
    }

    /// The command of an operation progenitor does not generate: an upload through
    /// `StoreAdmin::multipart` (path parameters, then each form field: files read from their
    /// paths), or the hand-written method of the same name when it takes no arguments.
    fn render_hand_written(&self, op: &Op) -> TokenStream {
        let function = format_ident!("{}", op.id);
        let args = &op.args;
        let id = &op.id;
        let print = print_response(op);
        let Some(form) = &op.form else {
            assert!(
                op.path_params.is_empty() && op.query_params.is_empty() && op.body.is_none(),
                "{id}: a hand-written operation with arguments and no form has no command yet"
            );
            let method = format_ident!("{}", op.id);
            return quote! {
                async fn #function(ctx: &Ctx, a: #args) -> Result<(), CliError> {
                    let _ = a;
                    let response = ctx.admin.#method().send().await?;
                    #print
                }
            };
        };
        let success = op
            .hand_written_success
            .clone()
            .unwrap_or_else(|| syn::parse_quote!(::serde_json::Value));
        let path_sets = op.path_params.iter().map(|p| {
            let field = &p.field;
            let wire = &p.id;
            quote!(request = request.path_param(#wire, &a.#field);)
        });
        let query_sets = op.query_params.iter().map(|p| {
            let wire = &p.id;
            quote!(compile_error!(concat!("a query parameter of an upload: ", #wire));)
        });
        let form_sets = form.iter().map(|f| {
            let field = &f.field;
            let wire = &f.wire;
            let value = match f.kind {
                None => quote!(crate::commands::form_file(&value)?),
                Some(_) => quote!(crate::commands::form_text(value)),
            };
            if f.required {
                quote! {
                    let value = a.#field;
                    request = request.field(#wire, #value);
                }
            } else {
                quote! {
                    if let Some(value) = a.#field {
                        request = request.field(#wire, #value);
                    }
                }
            }
        });
        let (job, finish) = match &op.job {
            Some(kind) => {
                assert!(
                    op.import_job && form.iter().any(|f| f.wire == "file" && f.required),
                    "{id}: a background job by upload is an import of a required `file`"
                );
                (
                    quote! {
                        let job = crate::commands::ImportJob::before(ctx, &a.wait, #kind, &a.file)
                            .await?;
                    },
                    quote! {
                        if let Some(job) = job {
                            return job.finish(ctx).await;
                        }
                    },
                )
            }
            None => (quote!(), quote!()),
        };
        quote! {
            async fn #function(ctx: &Ctx, a: #args) -> Result<(), CliError> {
                let mut request = ctx.admin.multipart(#id)?;
                #(#path_sets)*
                #(#query_sets)*
                #job
                #(#form_sets)*
                let response = request.send::<#success>().await?;
                #finish
                #print
            }
        }
    }
}

/// Prints `response` (a `ResponseValue` of the operation's success type) as its kind says.
fn print_response(op: &Op) -> TokenStream {
    match op.success.as_ref() {
        Some(ty) if is_unit(ty) => {
            return quote! {
                let _ = response;
                Ok(())
            };
        }
        Some(ty) if is_type(ty, "ByteStream") => {
            return quote!(crate::commands::print_bytes(response.into_inner()).await);
        }
        _ => {}
    }
    match &op.print {
        Print::One { optional: false } => quote!(ctx.printer.one(&response.into_inner().data)),
        Print::One { optional: true } => quote! {
            match response.into_inner().data {
                Some(data) => ctx.printer.one(&data),
                None => Ok(()),
            }
        },
        // progenitor makes an optional array a `Vec` with `#[serde(default)]`.
        Print::List => quote!(ctx.printer.list(&response.into_inner().data)),
        Print::Document => {
            quote!(crate::commands::print_document(ctx, &response.into_inner()))
        }
        Print::Nothing => quote! {
            let _ = response;
            Ok(())
        },
        Print::Bytes => quote!(crate::commands::print_bytes(response.into_inner()).await),
    }
}

fn is_unit(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Tuple(t) if t.elems.is_empty())
}

#[cfg(test)]
impl Model {
    /// One line per command: its path, operationId, arguments and flags (snapshotted).
    fn summary(&self) -> String {
        let mut out = String::new();
        for op in &self.ops {
            let mut parts = vec![format!("{} {}", op.group, op.name), op.id.clone()];
            if let Some(old) = &op.old_name {
                parts.push(format!("(was {old})"));
            }
            for p in &op.path_params {
                parts.push(format!("<{}>", p.id));
            }
            for p in &op.query_params {
                let required = if p.required { "!" } else { "" };
                parts.push(format!("--{}{required}", flag(&p.id)));
            }
            if op.paged {
                parts.push("[--page --per-page --all]".to_owned());
            }
            if op.job.is_some() {
                parts.push("[--wait]".to_owned());
            }
            for f in op.body.iter().flat_map(|(_, fields)| fields) {
                let required = if f.required { "!" } else { "" };
                parts.push(format!("--{}{required}", flag(&f.id)));
            }
            if op.body.is_some() {
                parts.push("[--body]".to_owned());
            }
            for f in op.form.iter().flatten() {
                let required = if f.required { "!" } else { "" };
                let file = if f.kind.is_none() { " FILE" } else { "" };
                parts.push(format!("--{}{required}{file}", flag(&f.id)));
            }
            if let Some((_, ty, _)) = EXTRAS.iter().find(|(id, _, _)| *id == op.id) {
                parts.push(format!("+{}", ty.rsplit("::").next().unwrap_or(ty)));
            }
            out.push_str(&parts.join(" "));
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The command tree of the document, one line per command, so that a change of the
    /// document or of the naming rules shows as a reviewable diff.
    #[test]
    fn cli_summary() {
        let root = crate::workspace_root();
        let doc = Document::load(&root, crate::SPEC).expect("the document loads");
        // Every generated file of the client crates (one crate or several).
        let mut sources = Vec::new();
        for entry in std::fs::read_dir(root.join("crates")).expect("crates/") {
            let dir = entry.expect("an entry").path();
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
            if !name.is_some_and(|n| n.starts_with("store-admin-client")) {
                continue;
            }
            for file in std::fs::read_dir(dir.join("src")).expect("src/") {
                let file = file.expect("an entry").path();
                if file
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("generated"))
                {
                    sources.push(std::fs::read_to_string(&file).expect("readable"));
                }
            }
        }
        let sources: Vec<&str> = sources.iter().map(String::as_str).collect();
        let builders = builders(&sources).expect("builders");
        let model = Model::build(&doc, &builders).expect("the model builds");
        insta::assert_snapshot!(model.summary());
    }

    #[test]
    fn command_names_drop_the_group_s_words() {
        let cases = [
            ("list_brands", "Brands", "list"),
            ("get_brand", "Brands", "get"),
            ("list_product_quantities", "Products", "list-quantities"),
            ("list_product_quantities", "Product Quantity", "list"),
            ("get_shipment_tracking", "Shipments", "get-tracking"),
            ("cancel_shipment", "Shipments", "cancel"),
            ("list_order_shipments", "Shipments", "list-order"),
            ("list_reservations", "Order Reservations", "list"),
            ("list_reservations", "Orders", "list-reservations"),
            ("list_customer_groups", "Customer Groups", "list"),
            ("list_order_statuses", "Order Status", "list"),
            ("change_bulk_order_statuses", "Order Status", "change-bulk"),
            ("export_orders", "Exports", "orders"),
            ("add_customers_to_group", "Customer Groups", "add"),
            (
                "list_customer_loyalty_points",
                "Loyalty Points",
                "list-customer",
            ),
            ("create_digital_codes", "Digitals Product", "create-codes"),
            ("list_categories", "Categories", "list"),
            ("list_shipping_companies", "Shipping Companies", "list"),
            ("get_shipping_rule", "Shipping Routes", "get-rule"),
            ("unsubscribe_webhooks", "Webhooks", "unsubscribe"),
            ("list_webhook_events", "Webhooks", "list-events"),
            ("add_languages", "Languages", "add"),
            (
                "update_product_variant_quantity",
                "Product Variants",
                "update-quantity",
            ),
            ("list_branch_allocations", "Branches Allocations", "list"),
            ("list_addresses", "Addresses", "list"),
            ("export", "Exports", "export"),
        ];
        for (id, tag, expected) in cases {
            assert_eq!(command_name(id, tag), expected, "{id} in {tag}");
        }
        // The names of earlier versions, kept as hidden aliases.
        assert_eq!(
            earlier_command_name("add_customers_to_group", "Customer Groups"),
            "add-customers-to-group"
        );
        assert_eq!(
            earlier_command_name("export_orders", "Exports"),
            "export-orders"
        );
    }

    #[test]
    fn group_names_are_english_compounds() {
        assert_eq!(group_name("Digitals Product"), "digital-products");
        assert_eq!(group_name("Branches Allocations"), "branch-allocations");
        assert_eq!(group_name("Customer Groups"), "customer-groups");
        assert_eq!(group_name("Order Status"), "order-status");
        assert_eq!(group_name("DNS Records"), "dns-records");
        assert_eq!(group_name("Custom URLs"), "custom-urls");
        assert_eq!(group_name("Shipping Companies"), "shipping-companies");
        assert_eq!(
            group_name("Product Option Templates"),
            "product-option-templates"
        );
    }

    #[test]
    fn help_for_users_leaves_out_notes_about_the_document() {
        assert_eq!(
            user_text(
                "Free text search. It matches the name or a tag (the service's documentation \
                 lists these fields; they are taken here as the fields searched, not as values)."
            ),
            "Free text search. It matches the name or a tag."
        );
        assert_eq!(
            user_text("How many items. The documentation's example sends it as a string."),
            "How many items."
        );
        assert_eq!(
            first_sentence(
                "The store's orders: creating an order (also as a\ndraft), and more. Second one."
            ),
            "The store's orders: creating an order (also as a draft), and more."
        );
    }

    #[test]
    fn identifiers() {
        assert_eq!(pascal("customer-groups"), "CustomerGroups");
        assert_eq!(snake("categories[]"), "categories");
        assert_eq!(snake("sortBy"), "sort_by");
    }
}

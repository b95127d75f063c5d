//! `crates/store-admin-cli/src/generated_cli.rs`: the `store-admin` command tree, from the document
//! and from progenitor's builders.
//!
//! The document says which operations exist, their group (tag), summary, parameters, body fields
//! and descriptions; progenitor's output says the Rust type each builder method takes and what
//! `send()` returns. Both are read here, so that the command line follows the document without a
//! hand-written line. Naming rules (also in the CLI's README):
//!
//! - group: the tag in kebab case (`Customer Groups` -> `customer-groups`);
//! - command: the operationId without the group's noun right after its first word (singular and
//!   plural alike): `list_brands` in `Brands` -> `list`, `get_shipment_tracking` in `Shipments` ->
//!   `get-tracking`, `cancel_shipment` -> `cancel`, `list_reservations` in `Order Reservations` ->
//!   `list` (a trailing part of the tag counts too). Two operations of one group that would get one
//!   name keep their whole kebab-cased operationId;
//! - path parameters are positional; query parameters and scalar body fields are flags with the
//!   document's description as help; `--body FILE|-` takes the whole body; a paged list takes
//!   `--page`, `--per-page` and `--all`;
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

use crate::generate::{Output, paged_operations};
use crate::{Document, lint};

/// The generated command tree, relative to the workspace root.
pub const CLI_OUT: &str = "crates/store-admin-cli/src/generated_cli.rs";

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

/// Rust keywords that cannot be field names.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "box", "break", "const", "continue", "crate", "dyn", "else", "enum",
    "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod",
    "move", "mut", "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true",
    "try", "type", "unsafe", "use", "where", "while", "yield",
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
    Ok(vec![Output {
        rel_path: CLI_OUT.to_owned(),
        content: format!(
            "{}// The `store-admin` command tree: one group per tag, one command per operation.\n\n{}",
            header(doc),
            prettyplease::unparse(&file)
        ),
    }])
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
    kind: ScalarKind,
    help: String,
    values: Values,
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

#[derive(Debug, Clone, Copy)]
enum ScalarKind {
    Integer,
    Number,
    Boolean,
    String,
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
}

struct Group {
    name: String,
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
}

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
                        name: op.group.clone(),
                        variant: format_ident!("{}", pascal(&op.group)),
                        enum_name: format_ident!("{}Command", pascal(&op.group)),
                        about,
                        ops: vec![index],
                    })
                }
            }
        }
        for group in &groups {
            let mut seen: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for &i in &group.ops {
                seen.entry(ops[i].name.clone()).or_default().push(i);
            }
            for (_, clashing) in seen.into_iter().filter(|(_, v)| v.len() > 1) {
                for i in clashing {
                    ops[i].name = ops[i].id.replace('_', "-");
                }
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

fn first_sentence(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or_default().trim();
    match line.find(". ") {
        Some(at) => line[..=at].to_owned(),
        None if line.ends_with('.') => line.to_owned(),
        None => format!("{line}."),
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
    let group = kebab_words(&words(tag));
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
        for wire in properties.map(|p| ordered(p, &order)).unwrap_or_default() {
            let property = &properties.expect("listed from it")[wire];
            if owned.contains(&wire.as_str()) {
                continue;
            }
            let Some(kind) = raw.scalar_kind(property) else {
                continue;
            };
            let id_name = unique_id(wire, "body", &mut taken);
            let help = property_help(raw, property, &format!("The body field `{wire}`."));
            fields.push(BodyField {
                field: field_ident(&id_name),
                id: id_name,
                wire: wire.clone(),
                kind,
                help,
                values: raw.values(property),
            });
        }
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
                Some(raw.scalar_kind(property).ok_or_else(|| {
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

/// Lower-case words of an identifier or a tag.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

fn kebab_words(words: &[String]) -> String {
    words.join("-")
}

fn singular(word: &str) -> String {
    if ["us", "ss", "is"].iter().any(|end| word.ends_with(end)) {
        return word.to_owned();
    }
    if let Some(stem) = word.strip_suffix("ies") {
        return format!("{stem}y");
    }
    for suffix in ["sses", "shes", "ches", "xes", "uses"] {
        if word.ends_with(suffix) {
            return word[..word.len() - 2].to_owned();
        }
    }
    match word.strip_suffix('s') {
        Some(stem) if !stem.ends_with('s') && !stem.is_empty() => stem.to_owned(),
        _ => word.to_owned(),
    }
}

/// The command name of an operation in its group (see the module documentation).
pub fn command_name(operation_id: &str, tag: &str) -> String {
    let op: Vec<String> = words(operation_id);
    let tag: Vec<String> = words(tag).iter().map(|w| singular(w)).collect();
    let Some((first, rest)) = op.split_first() else {
        return operation_id.to_owned();
    };
    // The longest run right after the first word that is the tag or a trailing part of it.
    let mut drop = 0;
    for start in 0..tag.len() {
        let suffix = &tag[start..];
        if rest.len() >= suffix.len()
            && rest[..suffix.len()]
                .iter()
                .zip(suffix)
                .all(|(a, b)| singular(a) == *b)
        {
            drop = suffix.len();
            break;
        }
    }
    let mut name = vec![first.clone()];
    name.extend(rest[drop..].iter().cloned());
    kebab_words(&name)
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
fn snake(text: &str) -> String {
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

fn field_ident(id: &str) -> syn::Ident {
    if KEYWORDS.contains(&id) || id.starts_with(|c: char| c.is_ascii_digit()) {
        format_ident!("{id}_")
    } else {
        format_ident!("{id}")
    }
}

fn flag(id: &str) -> String {
    id.replace('_', "-")
}

// ------------------------------------------------------------------------------------------------
// rendering

/// Help text for clap: the first paragraph, with trailing whitespace trimmed.
fn doc_text(text: &str) -> String {
    let text = text.trim();
    let paragraph = text.split("\n\n").next().unwrap_or_default();
    paragraph.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn values_parser(values: &Values, element: &syn::Type, kind_is_string: bool) -> TokenStream {
    match values {
        Values::Any => quote!(),
        Values::Closed(v) if kind_is_string => {
            quote!(, value_parser = crate::commands::choice::<#element>(&[#(#v),*]))
        }
        Values::Closed(v) => {
            quote!(, value_parser = crate::commands::choice::<#element>(&[#(#v),*]))
        }
        Values::Known(v) => quote!(, value_parser = crate::commands::known::<#element>(&[#(#v),*])),
    }
}

/// The Rust type of a scalar flag and its `value_name` argument.
fn scalar_tokens(kind: ScalarKind) -> (TokenStream, TokenStream) {
    match kind {
        ScalarKind::Integer => (quote!(i64), quote!(, value_name = "N")),
        ScalarKind::Number => (quote!(f64), quote!(, value_name = "NUMBER")),
        ScalarKind::Boolean => (quote!(bool), quote!(, value_name = "BOOL")),
        ScalarKind::String => (quote!(::std::string::String), quote!()),
    }
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
            quote! {
                #[doc = #about]
                #[command(subcommand, name = #name)]
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
                quote! {
                    #[doc = #about]
                    #[command(name = #name)]
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
        let decoders = self.ops.iter().map(|op| {
            let id = &op.id;
            let success = match &op.success {
                Some(ty) if is_unit(ty) => quote!(crate::decode::empty),
                Some(ty) if is_type(ty, "ByteStream") => quote!(crate::decode::bytes),
                Some(ty) => quote!(crate::decode::json::<#ty>),
                None => quote!(crate::decode::json::<::serde_json::Value>),
            };
            let error = match &op.error {
                Some(ty) if !is_unit(ty) && !is_type(ty, "ByteStream") => {
                    quote!(crate::decode::json::<#ty>)
                }
                _ => quote!(crate::decode::json::<types::ErrorResponse>),
            };
            let request = match (&op.body, &op.form_type) {
                (Some((ty, _)), _) | (None, Some(ty)) => quote!(Some(crate::decode::json::<#ty>)),
                (None, None) => quote!(None),
            };
            quote! {
                Decoder { operation_id: #id, success: #success, error: #error, request: #request }
            }
        });
        quote! {
            #[allow(unused_imports)]
            use store_admin::types;
            #(#imports)*
            use crate::cli::{BodyArg, PageArgs};
            use crate::commands::{Ctx, paged};
            use crate::decode::Decoder;
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

            /// How to decode each operation's bodies (`store-admin decode`), in document order.
            pub const DECODERS: &[Decoder] = &[#(#decoders),*];
        }
    }

    fn render_args(&self, op: &Op) -> TokenStream {
        let args = &op.args;
        let mut details = format!(" `{} {}`", op.group, op.name);
        if !op.description.trim().is_empty() && doc_text(&op.description) != doc_text(&op.summary) {
            details = format!(" {}", doc_text(&op.description));
        }
        let path_fields = op.path_params.iter().map(|p| {
            let field = &p.field;
            let ty = &p.ty;
            let id = &p.id;
            let help = doc_text(&p.help);
            let value_name = p.id.to_uppercase();
            let parser = values_parser(&p.values, ty, true);
            quote! {
                #[doc = #help]
                #[arg(id = #id, value_name = #value_name #parser)]
                pub #field: #ty
            }
        });
        let query_fields = op.query_params.iter().map(|p| {
            let field = &p.field;
            let id = &p.id;
            let long = flag(&p.id);
            let help = doc_text(&p.help);
            let vec_inner = generic_args(&p.ty, "Vec").and_then(|a| a.into_iter().next());
            let element = vec_inner.clone().unwrap_or_else(|| p.ty.clone());
            let mut parser = values_parser(&p.values, &element, true);
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
                    let help = doc_text(&f.help);
                    let (ty, value_name) = scalar_tokens(f.kind);
                    let element: syn::Type = syn::parse2(ty.clone()).expect("a type");
                    let parser = values_parser(&f.values, &element, true);
                    quote! {
                        #[doc = #help]
                        #[arg(id = #id, long = #long #value_name #parser)]
                        #[serde(rename = #wire, skip_serializing_if = "Option::is_none")]
                        pub #field: Option<#ty>
                    }
                });
                let doc = format!(" Scalar body fields of `{}`.", op.id);
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
            let help = match f.kind {
                None => format!("{} A path, or `-` for standard input.", doc_text(&f.help)),
                Some(_) => doc_text(&f.help),
            };
            let (ty, value_name, parser) = match f.kind {
                None => (
                    quote!(::std::path::PathBuf),
                    quote!(, value_name = "FILE"),
                    quote!(),
                ),
                Some(kind) => {
                    let (ty, value_name) = scalar_tokens(kind);
                    let element: syn::Type = syn::parse2(ty.clone()).expect("a type");
                    let parser = values_parser(&f.values, &element, true);
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
        quote! {
            #[doc = #details]
            #[derive(clap::Args)]
            pub struct #args {
                #(#path_fields,)*
                #(#query_fields,)*
                #pages
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
        let body = op.body.as_ref().map(|(ty, _)| {
            quote! {
                let body: #ty = crate::body::build(&a.body, &a.fields, extra)?;
                request = request.body(body);
            }
        });
        let send = if op.paged {
            quote!(paged(ctx, request, a.pages).await)
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
        quote! {
            async fn #function(ctx: &Ctx, a: #args) -> Result<(), CliError> {
                let mut request = ctx.admin.multipart(#id)?;
                #(#path_sets)*
                #(#query_sets)*
                #(#form_sets)*
                let response = request.send::<#success>().await?;
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
            for f in op.body.iter().flat_map(|(_, fields)| fields) {
                parts.push(format!("--{}", flag(&f.id)));
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
    fn command_names_drop_the_group_noun_after_the_verb() {
        let cases = [
            ("list_brands", "Brands", "list"),
            ("get_brand", "Brands", "get"),
            ("list_product_quantities", "Products", "list-quantities"),
            ("list_product_quantities", "Product Quantity", "list"),
            ("get_shipment_tracking", "Shipments", "get-tracking"),
            ("cancel_shipment", "Shipments", "cancel"),
            ("list_order_shipments", "Shipments", "list-order-shipments"),
            ("list_reservations", "Order Reservations", "list"),
            ("list_reservations", "Orders", "list-reservations"),
            ("list_customer_groups", "Customer Groups", "list"),
            ("list_order_statuses", "Order Status", "list"),
            ("list_categories", "Categories", "list"),
            ("list_shipping_companies", "Shipping Companies", "list"),
            ("get_shipping_rule", "Shipping Routes", "get-shipping-rule"),
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
        ];
        for (id, tag, expected) in cases {
            assert_eq!(command_name(id, tag), expected, "{id} in {tag}");
        }
        assert_eq!(pascal("customer-groups"), "CustomerGroups");
        assert_eq!(snake("categories[]"), "categories");
        assert_eq!(snake("sortBy"), "sort_by");
    }
}

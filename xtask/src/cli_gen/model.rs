//! The model of the command tree, read from the document and from progenitor's builders: groups,
//! operations with their parameters, body and form fields, what a response prints, and table
//! columns.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, Result, anyhow, bail};
use quote::format_ident;
use serde_json::Value;
use syn::visit_mut::VisitMut;

use super::checks::{Rule, Tree, rule};
use super::columns::{Columns, columns, record_properties};
#[cfg(test)]
use super::naming::flag;
use super::naming::{command_name, earlier_command_name, earlier_group_name, group_name};
use super::text::{Words, named_field, sentences, user_text};
use crate::document::Document;
use crate::document::{Raw, component_schema, ordered, property_order};
use crate::lint;
use crate::model::paged_operations;
use crate::names::{field_ident, pascal, snake, type_path};

/// Hand-written additions to a generated command, for what the document cannot say: the
/// operationId, the CLI type flattened into its arguments (it implements
/// `store_admin_cli::extras::Extra` for the operation's builder), and the parameters and body
/// fields that type takes over (the generator makes no flag of its own for them), each with the
/// flag that gives it, which a missing-field error names.
pub const EXTRAS: &[(&str, &str, &[OwnedField])] = &[
    (
        "create_product_option",
        "crate::extras::OptionValues",
        &[("values", "--value")],
    ),
    (
        "add_languages",
        "crate::extras::Locales",
        &[("locales", "--locale")],
    ),
    (
        "create_shipment",
        "crate::extras::ServiceTypes",
        &[("service_types", "--service-type")],
    ),
    (
        "create_category",
        "crate::extras::ShowIn",
        &[("show_in", "--show-in-app")],
    ),
    (
        "subscribe_webhook",
        "crate::extras::WebhookSecurity",
        WEBHOOK_SECURITY,
    ),
    (
        "update_webhook",
        "crate::extras::WebhookSecurity",
        WEBHOOK_SECURITY,
    ),
    (
        "unsubscribe_webhooks",
        "crate::extras::UnsubscribeTarget",
        &[("id", "--id"), ("url", "--url")],
    ),
    (
        "list_reservations",
        "crate::extras::Period",
        &[("start", "--start"), ("end", "--end")],
    ),
];

/// A body field or parameter that an [`EXTRAS`] type gives, and the flag that gives it.
pub type OwnedField = (&'static str, &'static str);

/// The fields `crate::extras::WebhookSecurity` gives, and how.
const WEBHOOK_SECURITY: &[OwnedField] = &[
    ("secret", "--secret-file or STORE_ADMIN_WEBHOOK_SECRET"),
    ("headers", "--header"),
    ("security_strategy", "--security-strategy"),
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

/// The generated client sources, parsed (once: the builders and the decoder table read them).
pub fn parse_sources(sources: &[&str]) -> Result<Vec<syn::File>> {
    sources
        .iter()
        .map(|source| syn::parse_file(source).context("generated client code does not parse"))
        .collect()
}

/// Every builder of the generated client sources (parsed by [`parse_sources`]), by type name.
pub fn builders(files: &[syn::File]) -> BTreeMap<String, Builder> {
    let mut out = BTreeMap::new();
    for file in files {
        collect_builders(&file.items, &mut out);
    }
    out
}

pub(super) fn collect_builders(items: &[syn::Item], out: &mut BTreeMap<String, Builder>) {
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

/// `T` of a `where V: std::convert::TryInto<T>` bound, or the field type of the setters that
/// take what a developer has (`xtask/src/setters.rs`): `Vec<X>` for `V: IntoList<X>`, `X` for
/// `V: IntoValue<X>`, `Option<X>` for `V: IntoOptional<X>`.
pub(super) fn try_into_bound(sig: &syn::Signature) -> Option<syn::Type> {
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
            let wrap = match last.ident.to_string().as_str() {
                "TryInto" | "IntoValue" => None,
                "IntoList" => Some("Vec"),
                "IntoOptional" => Some("Option"),
                _ => continue,
            };
            if let syn::PathArguments::AngleBracketed(args) = &last.arguments
                && let Some(syn::GenericArgument::Type(ty)) = args.args.first()
            {
                return Some(match wrap {
                    None => ty.clone(),
                    Some("Vec") => syn::parse_quote!(::std::vec::Vec<#ty>),
                    Some(_) => syn::parse_quote!(::std::option::Option<#ty>),
                });
            }
        }
    }
    None
}

/// The type arguments of `ty` when its last path segment is `name`.
pub(super) fn generic_args(ty: &syn::Type, name: &str) -> Option<Vec<syn::Type>> {
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
pub(super) struct Shorten;

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

pub(super) fn shorten(mut ty: syn::Type) -> syn::Type {
    Shorten.visit_type_mut(&mut ty);
    ty
}

// ------------------------------------------------------------------------------------------------
// the model

/// How a value's flag parses, beside its Rust type.
#[derive(Debug, Clone)]
pub(super) enum Values {
    /// Whatever the type's parser accepts.
    Any,
    /// Only these (a closed `enum` of the document).
    Closed(Vec<String>),
    /// Any value, these shown as known (`x-known-values`).
    Known(Vec<String>),
}

#[derive(Debug)]
pub(super) struct Param {
    /// The flag or argument id (`categories`), also the long flag in kebab case.
    pub(super) id: String,
    /// The builder's setter.
    pub(super) setter: String,
    pub(super) field: syn::Ident,
    pub(super) ty: syn::Type,
    pub(super) required: bool,
    pub(super) help: String,
    pub(super) values: Values,
    /// What the document says of the value (kind, bounds), checked by the flag's parser.
    pub(super) rule: Rule,
}

#[derive(Debug)]
pub(super) struct BodyField {
    pub(super) wire: String,
    pub(super) id: String,
    pub(super) field: syn::Ident,
    pub(super) kind: FieldKind,
    pub(super) required: bool,
    pub(super) help: String,
    pub(super) values: Values,
    /// What the document says of the value (of each item of an array), checked by the flag's
    /// parser.
    pub(super) rule: Rule,
    /// Given as the command's argument, not a flag (see [`positional_ids`]).
    pub(super) positional: bool,
}

/// How a body field is given on the command line.
#[derive(Debug, Clone)]
pub(super) enum FieldKind {
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
pub(super) struct FormField {
    pub(super) wire: String,
    pub(super) id: String,
    pub(super) field: syn::Ident,
    pub(super) kind: Option<ScalarKind>,
    pub(super) required: bool,
    pub(super) help: String,
    pub(super) values: Values,
    /// What the document says of a scalar's value, checked by the flag's parser.
    pub(super) rule: Rule,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ScalarKind {
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
pub(super) enum Print {
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
pub(super) struct Op {
    pub(super) id: String,
    pub(super) group: String,
    pub(super) name: String,
    pub(super) variant: syn::Ident,
    pub(super) args: syn::Ident,
    pub(super) fields_struct: syn::Ident,
    pub(super) summary: String,
    pub(super) description: String,
    pub(super) path_params: Vec<Param>,
    pub(super) query_params: Vec<Param>,
    pub(super) body: Option<(syn::Type, Vec<BodyField>)>,
    pub(super) paged: bool,
    pub(super) deprecated: bool,
    pub(super) print: Print,
    pub(super) success: Option<syn::Type>,
    pub(super) error: Option<syn::Type>,
    /// The record type of `data`, for `Print::One`/`List`.
    pub(super) record: Option<String>,
    pub(super) extra: Option<syn::Type>,
    /// No progenitor builder: the command is served by hand-written code.
    pub(super) hand_written: bool,
    /// The fields of a `multipart/form-data` upload (sent through `StoreAdmin::multipart`).
    pub(super) form: Option<Vec<FormField>>,
    /// The type of an upload's form schema: `decode --request` reads the form's fields as JSON
    /// (a file as its name), as the documentation shows them.
    pub(super) form_type: Option<syn::Type>,
    /// The success body's type of a hand-written operation (its response schema's name).
    pub(super) hand_written_success: Option<syn::Type>,
    /// Required body fields whose flags are hand-written ([`EXTRAS`]).
    pub(super) owned_required: Vec<(String, String)>,
    /// The name of this command in earlier versions, when it differs (a hidden alias).
    pub(super) old_name: Option<String>,
    /// What a background job exports (the document's `x-background-job.kind`): the command
    /// takes `--wait`, and waits for the file in the export logs.
    pub(super) job: Option<String>,
    /// The read-modify-write of an update whose body requires fields (`crate::modify`): the
    /// command reads the record when a required field is not given.
    pub(super) modify: Option<crate::modify::Pairing>,
    /// Whether the background job is an import (`x-background-job.import`): its result is the
    /// records of the uploaded file's rows, waited for by the keys the file holds.
    pub(super) import_job: bool,
    /// The checks of the JSON body (`&'static crate::checks::Schema`), before it is sent.
    pub(super) body_check: Option<proc_macro2::TokenStream>,
    /// Examples of the JSON body's shape, one per variant of a union body: what the help of a
    /// command whose body has no flags shows for `--body`.
    pub(super) body_shapes: Vec<String>,
    /// Every top-level property of the JSON body, alphabetical (those the flags give and the
    /// others): a key of `--body` outside them is unknown to the document. Empty for a union
    /// (each variant has its own) and for no body.
    pub(super) body_fields: Vec<String>,
}

pub(super) struct Group {
    pub(super) name: String,
    /// The group's name in versions before 0.3, when it differs (a hidden alias).
    pub(super) old_name: Option<String>,
    pub(super) variant: syn::Ident,
    pub(super) enum_name: syn::Ident,
    pub(super) about: String,
    pub(super) ops: Vec<usize>,
}

pub(super) struct Model {
    pub(super) ops: Vec<Op>,
    pub(super) groups: Vec<Group>,
    /// Record type -> its table columns.
    pub(super) records: BTreeMap<String, Columns>,
    /// The statics of the bodies' checks.
    pub(super) checks: Tree,
    /// What help says instead of operationIds and type names.
    pub(super) words: Words,
}

/// What the command line reads of the document's schemas.
impl<'a> Raw<'a> {
    pub(super) fn scalar_kind(&self, schema: &'a Value) -> Option<ScalarKind> {
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
    pub(super) fn values(&self, schema: &'a Value) -> Values {
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
    pub(super) fn union_members(&self, schema: &'a Value) -> Option<Vec<&'a Value>> {
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
    pub(super) fn flag_scalar(&self, schema: &'a Value) -> Option<ScalarKind> {
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
    pub(super) fn field_kind(&self, schema: &'a Value) -> FieldKind {
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
    pub(super) fn shape(&self, schema: &'a Value, depth: usize) -> String {
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
                let required: Vec<&str> = crate::schema::required(schema).collect();
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

pub(super) static NULL: Value = Value::Null;

/// Most properties of an object a shape example shows.
pub(super) const SHAPE_PROPERTIES: usize = 6;

impl Model {
    pub(super) fn build(doc: &Document, builders: &BTreeMap<String, Builder>) -> Result<Self> {
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
        let mut checks = Tree::default();
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
                Ok(mut built) => {
                    if built.body.is_some()
                        && let Some(schema) =
                            raw_op.pointer("/requestBody/content/application~1json/schema")
                    {
                        built.body_check = Some(checks.root(&raw, schema));
                    }
                    ops.push(built)
                }
                Err(e) => problems.push(format!("{id}: {e:#}")),
            }
        }
        positional_ids(&mut ops);
        let (pairings, _) = crate::modify::pairings(doc)?;
        for op in &mut ops {
            op.modify = pairings.iter().find(|p| p.update == op.id).cloned();
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
                    columns(&raw, schema, &record_order(doc, record)),
                );
            }
        }
        let words = Words {
            commands: ops
                .iter()
                .map(|op| (op.id.clone(), format!("{} {}", op.group, op.name)))
                .collect(),
            types: doc
                .raw
                .pointer("/components/schemas")
                .and_then(Value::as_object)
                .map(|schemas| schemas.keys().cloned().collect())
                .unwrap_or_default(),
        };
        // A group's line in the user's words too.
        for group in &mut groups {
            let about = words.text(&group.about);
            if !about.is_empty() {
                group.about = about;
            }
        }
        Ok(Model {
            ops,
            groups,
            records,
            checks,
            words,
        })
    }
}

/// The id of a record given in the body where its group's other commands take it in the path
/// (`POST /orders/duplicate {"order_id": ..}` beside `GET /orders/{order_id}`) is the command's
/// argument as theirs is: `orders duplicate ORDER_ID` as `orders get ORDER_ID`. That is a
/// required scalar body field of an operation without path parameters, named as a path
/// parameter of another operation of its group, and the only such field. Its flag stays, hidden,
/// for the command lines of earlier versions.
fn positional_ids(ops: &mut [Op]) {
    let mut in_paths: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for op in ops.iter() {
        for p in &op.path_params {
            in_paths
                .entry(op.group.clone())
                .or_default()
                .insert(p.id.clone());
        }
    }
    for op in ops.iter_mut() {
        if !op.path_params.is_empty() || op.form.is_some() {
            continue;
        }
        let Some(names) = in_paths.get(&op.group) else {
            continue;
        };
        let Some((_, fields)) = &mut op.body else {
            continue;
        };
        let candidates: Vec<usize> = fields
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                f.required
                    && names.contains(&f.wire)
                    && matches!(
                        f.kind,
                        FieldKind::One(ScalarKind::Integer | ScalarKind::String)
                    )
            })
            .map(|(i, _)| i)
            .collect();
        if let [only] = candidates[..] {
            fields[only].positional = true;
        }
    }
}

/// [`property_order`], and for an `allOf` the properties of its members in turn (a record's
/// details: the record's, then those the details add).
pub(crate) fn record_order(doc: &Document, name: &str) -> Vec<String> {
    use openapiv3::{ReferenceOr, SchemaKind, Type};
    let Some(schema) = component_schema(doc, name) else {
        return Vec::new();
    };
    match &schema.schema_kind {
        SchemaKind::AllOf { all_of } => {
            let mut names: Vec<String> = Vec::new();
            for member in all_of {
                let more = match member {
                    ReferenceOr::Reference { reference } => reference
                        .rsplit('/')
                        .next()
                        .map(|inner| record_order(doc, inner))
                        .unwrap_or_default(),
                    ReferenceOr::Item(item) => match &item.schema_kind {
                        SchemaKind::Type(Type::Object(object)) => {
                            object.properties.keys().cloned().collect()
                        }
                        _ => Vec::new(),
                    },
                };
                for name in more {
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
            }
            names
        }
        _ => property_order(doc, name),
    }
}

pub(super) fn op_tag(doc: &Document, id: &str) -> String {
    lint::operations(&doc.spec)
        .find(|(_, _, _, op)| op.operation_id.as_deref() == Some(id))
        .and_then(|(_, _, _, op)| op.tags.first().cloned())
        .unwrap_or_default()
}

/// The first whole sentence of a description (its first paragraph joined into one line), for a
/// group's one-line help.
pub(super) fn first_sentence(text: &str) -> String {
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
pub(super) fn build_op(
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
    let owned_flags: &[OwnedField] = extra.map(|(_, _, owned)| *owned).unwrap_or(&[]);
    let owned: Vec<&str> = owned_flags.iter().map(|(field, _)| *field).collect();
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
            rule: rule(raw, schema),
        };
        if location == "path" {
            path_params.push(built);
        } else {
            query_params.push(built);
        }
    }
    let (print, record) = print_kind(raw, op);
    // The fields of the record the operation answers, whose descriptions say what a body field
    // of the same name is when the body's own says only its type.
    let record_fields = record
        .as_ref()
        .and_then(|name| raw.0.pointer(&format!("/components/schemas/{name}")))
        .and_then(|schema| record_properties(raw, schema, &[]))
        .unwrap_or_default();
    // The body.
    let mut body = None;
    let mut body_shapes = Vec::new();
    let mut body_fields = Vec::new();
    let mut owned_required: Vec<(String, String)> = Vec::new();
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
        let required: BTreeSet<&str> = crate::schema::required(resolved).collect();
        let subject = Raw::ref_name(schema).and_then(|name| subject(&name));
        for wire in properties.map(|p| ordered(p, &order)).unwrap_or_default() {
            let property = &properties.expect("listed from it")[wire];
            if owned.contains(&wire.as_str()) {
                continue;
            }
            let kind = raw.field_kind(property);
            // An array's flag checks each item.
            let field_rule = match raw.resolve(property).get("items") {
                Some(items) if matches!(kind, FieldKind::Many(_)) => rule(raw, items),
                _ => rule(raw, property),
            };
            let id_name = match kind {
                FieldKind::Json { .. } => unique_id(&format!("{wire}_json"), "body", &mut taken),
                _ => unique_id(wire, "body", &mut taken),
            };
            let help = field_help(raw, property, wire, &record_fields, subject.as_deref())
                .unwrap_or_else(|| {
                    property_help(raw, property, &format!("The body field `{wire}`."))
                });
            fields.push(BodyField {
                field: field_ident(&id_name),
                id: id_name,
                wire: wire.clone(),
                kind,
                required: required.contains(wire.as_str()),
                help,
                values: raw.values(property),
                rule: field_rule,
                positional: false,
            });
        }
        // Required fields that hand-written flags own are still named by a missing-field error.
        owned_required = owned_flags
            .iter()
            .filter(|(name, _)| required.contains(*name))
            .map(|(name, flag)| ((*name).to_owned(), (*flag).to_owned()))
            .collect();
        body_shapes = match raw.union_members(schema) {
            Some(members) => members.into_iter().map(|m| raw.shape(m, 0)).collect(),
            None => vec![raw.shape(schema, 0)],
        };
        if raw.union_members(schema).is_none() {
            body_fields = record_properties(raw, schema, &[])
                .unwrap_or_default()
                .into_iter()
                .map(|(name, _)| name)
                .collect();
            body_fields.sort();
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
        .map(|name| syn::parse_str::<syn::Type>(&type_path(&name)))
        .transpose()
        .context("a form's type")?;
    let hand_written_success = if builder.is_none() {
        success_schema_name(raw, op)
            .map(|name| syn::parse_str::<syn::Type>(&type_path(&name)))
            .transpose()
            .context("a response type")?
    } else {
        None
    };
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
        modify: None,
        body_check: None,
        body_shapes,
        body_fields,
    })
}

/// The fields of an upload's form: files and scalars, in the schema's order. Anything else (an
/// array, an object) cannot be a flag, and fails the generation.
pub(super) fn form_fields(
    doc: &Document,
    raw: &Raw<'_>,
    schema: &Value,
    taken: &BTreeSet<String>,
) -> Result<Vec<FormField>> {
    let resolved = raw.resolve(schema);
    let required: BTreeSet<&str> = crate::schema::required(resolved).collect();
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
            rule: rule(raw, property),
        });
    }
    Ok(fields)
}

/// The snake-case flag id of the property `wire`, prefixed (`body_type`) when it is reserved or
/// already taken by another flag of the command; recorded in `taken`.
pub(super) fn unique_id(wire: &str, prefix: &str, taken: &mut BTreeSet<String>) -> String {
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
pub(super) fn property_help(raw: &Raw<'_>, property: &Value, fallback: &str) -> String {
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

/// The help of a body field that gives only a shared scalar type by `$ref` (`NumberOrString`,
/// whose description says what the type is, not what the field is): the description of the
/// field of the same name in the record the operation answers, else the field's name in words
/// ([`named_field`]), with the type's rule as a short suffix
/// ("The product's sale price (a decimal, e.g. 149.50).").
/// `subject` is what the body is about ([`subject`]). `None` for any other field.
pub(super) fn field_help(
    raw: &Raw<'_>,
    property: &Value,
    wire: &str,
    record_fields: &[(String, &Value)],
    subject: Option<&str>,
) -> Option<String> {
    if property.get("description").is_some() || property.get("$ref").is_none() {
        return None;
    }
    let members = raw.union_members(property)?;
    raw.flag_scalar(property)?;
    let types: Vec<&str> = members
        .iter()
        .filter_map(|m| m.get("type").and_then(Value::as_str))
        .collect();
    let rule = if types.contains(&"number") {
        "a decimal, e.g. 149.50"
    } else if types.contains(&"integer") && types.contains(&"string") {
        "a number or a text, e.g. 1024 or A-12"
    } else {
        return None;
    };
    let what = record_fields
        .iter()
        .find(|(name, _)| name == wire)
        .and_then(|(_, field)| field.get("description"))
        .and_then(Value::as_str)
        .map(user_text)
        .filter(|text| !text.is_empty())
        .unwrap_or_else(|| named_field(wire, subject));
    let what = what.trim_end_matches('.');
    // A description that says "decimal" already needs only the example.
    let rule = match rule.split_once(", ") {
        Some((_, example)) if what.contains("decimal") => example,
        _ => rule,
    };
    Some(format!("{what} ({rule})."))
}

/// What a request body is about, from its schema's name: the words between the verb and
/// `Request` (`CreateOrderItemRequest` -> `order item`); `None` for another name.
pub(super) fn subject(schema: &str) -> Option<String> {
    let stem = schema.strip_suffix("Request")?;
    let mut words: Vec<String> = Vec::new();
    for c in stem.chars() {
        if c.is_ascii_uppercase() || words.is_empty() {
            words.push(String::new());
        }
        words
            .last_mut()
            .expect("pushed")
            .push(c.to_ascii_lowercase());
    }
    (words.len() >= 2).then(|| words[1..].join(" "))
}

/// The component name of the first success response's JSON schema.
pub(super) fn success_schema_name(raw: &Raw<'_>, op: &Value) -> Option<String> {
    let responses = op.get("responses").and_then(Value::as_object)?;
    let (_, response) = responses.iter().find(|(code, _)| code.starts_with('2'))?;
    let schema = raw
        .resolve(response)
        .pointer("/content/application~1json/schema")?;
    Raw::ref_name(schema)
}

/// How the success response is printed, and the record type of its `data`.
pub(super) fn print_kind(raw: &Raw<'_>, op: &Value) -> (Print, Option<String>) {
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
            .pointer(&format!("/components/schemas/{name}"))
            .and_then(|schema| record_properties(raw, schema, &[]))
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

// ------------------------------------------------------------------------------------------------
// names

#[cfg(test)]
impl Model {
    /// One line per command: its path, operationId, arguments and flags (snapshotted).
    pub(super) fn summary(&self) -> String {
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
                match f.positional {
                    true => parts.push(format!("<{}>{required}", f.id)),
                    false => parts.push(format!("--{}{required}", flag(&f.id))),
                }
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

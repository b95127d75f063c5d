//! Emitting the command tree: the clap argument structs, one async function per operation, the
//! dispatch, the table columns of each record type and the help texts, as tokens of
//! `generated_cli.rs`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::checks::{Kind, Rule};
use super::model::*;
use super::naming::*;
use super::text::*;
use crate::names::pascal;

/// What the generated CLI imports so that every operation is a method of the client: the prelude
/// that brings each area's extension trait of the core `Client` into scope.
const CLIENT_IMPORTS: &[&str] = &["store_admin::prelude::*"];

/// The help line of an update that reads the record first (`crate::modify`).
pub(super) const KEPT: &str = "Fields you do not give are kept: the record is read first.";

pub(super) fn values_parser(values: &Values, element: &syn::Type) -> TokenStream {
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

/// The value parser of a scalar flag of `kind` (Rust type `ty`), checked by the document's
/// `rule` ([`checked_parser`]), and `allow_negative_numbers` for numbers (`--sort-order -5`
/// without `=`).
pub(super) fn scalar_parser(
    kind: ScalarKind,
    values: &Values,
    ty: &TokenStream,
    rule: &Rule,
) -> TokenStream {
    let negative = is_numeric(kind).then(|| quote!(, allow_negative_numbers = true));
    let element: syn::Type = syn::parse2(ty.clone()).expect("a type");
    let parser = match kind {
        ScalarKind::NumberOrString if rule.kind == Kind::Decimal => {
            let rule = rule.tokens();
            quote!(, value_parser = crate::checks::flag::<::serde_json::Value>(#rule))
        }
        ScalarKind::NumberOrString => quote!(, value_parser = crate::commands::number_or_string),
        ScalarKind::Boolean => values_parser(values, &element),
        _ => checked_parser(values, &element, rule)
            .unwrap_or_else(|| values_parser(values, &element)),
    };
    quote!(#parser #negative)
}

/// The value parser that checks a flag of Rust type `element` by the document's `rule`: a number
/// (`i64`, `f64`) always (a value that is not one is refused in words, and its bounds checked),
/// a text when the document bounds its length; `None` for a value set (its own parser) or
/// another type.
pub(super) fn checked_parser(
    values: &Values,
    element: &syn::Type,
    rule: &Rule,
) -> Option<TokenStream> {
    if !matches!(values, Values::Any) {
        return None;
    }
    let kind = if is_type(element, "i64") {
        Kind::Integer
    } else if is_type(element, "f64") {
        Kind::Number
    } else if is_type(element, "String") && rule.bounds() {
        Kind::Any
    } else {
        return None;
    };
    let rule = Rule {
        kind,
        ..rule.clone()
    }
    .tokens();
    Some(quote!(, value_parser = crate::checks::flag::<#element>(#rule)))
}

pub(super) fn is_numeric(kind: ScalarKind) -> bool {
    matches!(
        kind,
        ScalarKind::Integer | ScalarKind::Number | ScalarKind::NumberOrString
    )
}

/// The Rust type of a scalar flag and its `value_name` argument.
pub(super) fn scalar_tokens(kind: ScalarKind) -> (TokenStream, TokenStream) {
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

/// The name of the constant that lists an operation's body properties (`BODY_CREATE_ORDER`).
fn body_fields_const(op: &Op) -> syn::Ident {
    format_ident!("BODY_{}", op.id.to_uppercase())
}

/// How a body field is given on the command line, as errors name it: `--name`, or the
/// argument's `ORDER_ID` when it is positional.
pub(super) fn given_by(field: &BodyField) -> String {
    match field.positional {
        true => field.id.to_uppercase(),
        false => format!("--{}", flag(&field.id)),
    }
}

/// A flag's help: the description for users ([`Words::text`]), what the command line adds
/// (`more`), the values of a set unless the description lists them already ([`listed`]: then
/// only those it leaves out), and whether the body needs it.
pub(super) fn flag_help(
    words: &Words,
    text: &str,
    values: &Values,
    required: bool,
    more: &str,
) -> String {
    let mut help = words.text(text);
    if !help.is_empty() && !help.ends_with(['.', '?', '!', ')']) {
        help.push('.');
    }
    match values {
        Values::Known(set) | Values::Closed(set) if listed(&help, values) => {
            let missing: Vec<String> = set
                .iter()
                .filter(|v| !help.contains(&format!("`{v}`")))
                .map(|v| format!("`{v}`"))
                .collect();
            if !missing.is_empty() {
                help.push_str(&format!(" Also {}.", missing.join(", ")));
            }
        }
        Values::Known(known) if !known.is_empty() => {
            help.push_str(&format!(
                " [known values: {} (others accepted)]",
                known.join(", ")
            ));
        }
        _ => {}
    }
    help.push_str(more);
    if required {
        help.push_str(" [required]");
    }
    help.trim().to_owned()
}

/// Whether a description (for users) lists the values of a set already, each in backticks:
/// all of them, or three or more (a list of its own would say them twice).
pub(super) fn listed(help: &str, values: &Values) -> bool {
    let set = match values {
        Values::Known(set) | Values::Closed(set) if !set.is_empty() => set,
        _ => return false,
    };
    let named = set
        .iter()
        .filter(|v| help.contains(&format!("`{v}`")))
        .count();
    named == set.len() || named >= 3
}

/// `hide_possible_values` for a closed set that the flag's description lists already
/// ([`listed`]): clap would list it a second time.
pub(super) fn hide_listed(words: &Words, text: &str, values: &Values) -> TokenStream {
    match values {
        Values::Closed(_) if listed(&words.text(text), values) => {
            quote!(, hide_possible_values = true)
        }
        _ => quote!(),
    }
}

/// Whether a parameter's Rust type is a signed number (its flag takes `-5` without `=`).
pub(super) fn numeric_type(ty: &syn::Type) -> bool {
    ["i64", "i32", "f64", "f32"].iter().any(|n| is_type(ty, n))
}

pub(super) fn is_type(ty: &syn::Type, name: &str) -> bool {
    matches!(ty, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == name))
}

pub(super) fn value_name(ty: &syn::Type) -> Option<&'static str> {
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
    pub(super) fn render(&self) -> TokenStream {
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
                // `--help` shows the operation's description, how to write a body that has no
                // flags, and that an update that reads first keeps what is not given (the
                // variant's doc replaces the long help of its arguments' struct).
                let long = self
                    .long_about(op, &about)
                    .map(|text| quote!(, long_about = #text));
                quote! {
                    #[doc = #about]
                    #[command(name = #name #alias #long)]
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
                #[non_exhaustive]
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
        let statics = self.checks.statics();
        let records = self.records.iter().map(|(name, chosen)| {
            let ty = format_ident!("{}", name);
            let columns = chosen.columns.iter().map(|(h, p)| quote!((#h, #p)));
            let key = chosen
                .key
                .iter()
                .map(|key| quote!(const KEY_COLUMN: Option<&'static str> = Some(#key);));
            let fields = &chosen.fields;
            let csv = &chosen.csv;
            quote! {
                impl Record for types::#ty {
                    const COLUMNS: &'static [(&'static str, &'static str)] = &[#(#columns),*];
                    #(#key)*
                    const FIELDS: &'static [&'static str] = &[#(#fields),*];
                    const CSV_COLUMNS: &'static [&'static str] = &[#(#csv),*];
                }
            }
        });
        let record_table = self.records.keys().map(|name| {
            let ty = format_ident!("{}", name);
            quote!((#name, <types::#ty as Record>::CSV_COLUMNS))
        });
        let body_consts = self.ops.iter().filter(|op| op.body.is_some()).map(|op| {
            let name = body_fields_const(op);
            let fields = &op.body_fields;
            quote!(const #name: &[&str] = &[#(#fields),*];)
        });
        let body_table = self.ops.iter().filter(|op| op.body.is_some()).map(|op| {
            let id = &op.id;
            let name = body_fields_const(op);
            quote!((#id, #name))
        });
        quote! {
            #[allow(unused_imports)]
            use store_admin::types;
            #(#imports)*
            use crate::body::BodyArg;
            use crate::commands::{Ctx, PageArgs, WaitArgs, paged};
            use crate::error::CliError;
            use crate::output::Record;

            /// Every operation command: its path (the words after `store-admin`) and the
            /// document's `operationId`, in document order.
            pub const OPERATION_COMMANDS: &[(&str, &str)] = &[#(#command_table),*];

            /// The paged list operations (their commands take `--page`, `--per-page` and `--all`).
            pub const PAGED_OPERATIONS: &[&str] = &[#(#paged_ops),*];

            /// One group of commands per tag of the document.
            #[derive(clap::Subcommand)]
            #[non_exhaustive]
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

            /// The CSV columns of each record type (`Record::CSV_COLUMNS`), by the document's
            /// schema name: read from the document by the generator, not from the types at run
            /// time.
            pub const RECORD_CSV_COLUMNS: &[(&str, &[&str])] = &[#(#record_table),*];

            /// Every top-level property of each operation's JSON body (`BodySpec::fields`), by
            /// `operationId`, alphabetical; empty for a union body.
            pub const BODY_FIELDS: &[(&str, &[&str])] = &[#(#body_table),*];

            #(#body_consts)*

            #(#statics)*
        }
    }

    /// The facade's decoder table (`store_admin_client::decoders::DECODERS`): per operation, the
    /// generated types of its success, error and request bodies.
    ///
    /// And `store_admin_client::decoders::REBUILDS`: for each operation whose request
    /// body is a type with a struct builder (`type_builders`), that type through its builder.
    pub(super) fn render_decoders(
        &self,
        type_builders: &std::collections::BTreeSet<String>,
    ) -> TokenStream {
        let rebuilds = self.ops.iter().filter_map(|op| {
            let id = &op.id;
            let (ty, _) = op.body.as_ref()?;
            let name = crate::rewrite::last_ident(ty)?;
            if !type_builders.contains(&name) {
                return None;
            }
            let builder = quote::format_ident!("{name}");
            Some(quote!((#id, rebuilt::<#ty, types::builder::#builder>)))
        });
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
        // The drift of a success body: its generated type decoded with the path kept (a file or
        // no body has none).
        let drifts = self.ops.iter().filter_map(|op| {
            let id = &op.id;
            match &op.success {
                Some(ty) if !is_unit(ty) && !is_type(ty, "ByteStream") => {
                    Some(quote!((#id, observe_partly::<#ty>)))
                }
                _ => None,
            }
        });
        quote! {
            #[allow(unused_imports)]
            use super::{Decoder, DriftFn, RebuildFn, bytes, empty, json, rebuilt};
            use crate::drift::observe_partly;
            use crate::types;

            /// How to decode each operation's bodies, in document order.
            pub const DECODERS: &[Decoder] = &[#(#decoders),*];

            /// The drift of each operation's success body (those that are JSON), in document order.
            pub const DRIFTS: &[(&str, DriftFn)] = &[#(#drifts),*];

            /// What each typed request builder sends for a body (see `decoders::rebuild`), in
            /// document order.
            pub const REBUILDS: &[(&str, RebuildFn)] = &[#(#rebuilds),*];
        }
    }

    /// The long help of an operation's command (`--help`), when it says more than the summary:
    /// the summary, the operation's description for users ([`Words::paragraphs`]), how to give a
    /// body that has no flags (the JSON shape of each variant), and [`KEPT`] for an update that
    /// reads the record first.
    pub(super) fn long_about(&self, op: &Op, about: &str) -> Option<String> {
        let about = about.trim();
        let mut parts = vec![about.to_owned()];
        let description = self.words.paragraphs(&op.description);
        if !description.is_empty()
            && description.trim_end_matches('.') != about.trim_end_matches('.')
        {
            parts.push(description);
        }
        let flags = op
            .body
            .as_ref()
            .is_some_and(|(_, fields)| !fields.is_empty());
        if op.body.is_some() && !flags && op.extra.is_none() && !op.body_shapes.is_empty() {
            let text = match &op.body_shapes[..] {
                [one] => format!(
                    "The body has no flags: give it as JSON with `--body FILE` (`-` for standard \
                     input), of this shape:\n  {one}"
                ),
                many => format!(
                    "The body has no flags: give it as JSON with `--body FILE` (`-` for standard \
                     input), in one of these shapes:\n{}",
                    many.iter()
                        .map(|shape| format!("  {shape}"))
                        .collect::<Vec<_>>()
                        .join("\n")
                ),
            };
            parts.push(text);
        }
        if op.modify.is_some() {
            parts.push(KEPT.to_owned());
        }
        (parts.len() > 1).then(|| parts.join("\n\n"))
    }

    pub(super) fn render_args(&self, op: &Op) -> TokenStream {
        let args = &op.args;
        let mut details = format!(" `{} {}`", op.group, op.name);
        if !op.description.trim().is_empty() && doc_text(&op.description) != doc_text(&op.summary) {
            details = format!(" {}", self.words.text(&op.description));
        }
        if op.modify.is_some() {
            details.push_str(&format!("\n\n{KEPT}"));
        }
        let path_fields = op.path_params.iter().map(|p| {
            let field = &p.field;
            let ty = &p.ty;
            let id = &p.id;
            let help = flag_help(&self.words, &p.help, &p.values, false, "");
            let value_name = p.id.to_uppercase();
            let parser = checked_parser(&p.values, ty, &p.rule)
                .unwrap_or_else(|| values_parser(&p.values, ty));
            let negative = numeric_type(ty).then(|| quote!(, allow_negative_numbers = true));
            let hide = hide_listed(&self.words, &p.help, &p.values);
            quote! {
                #[doc = #help]
                #[arg(id = #id, value_name = #value_name #parser #negative #hide)]
                pub #field: #ty
            }
        });
        let query_fields = op.query_params.iter().map(|p| {
            let field = &p.field;
            let id = &p.id;
            let long = flag(&p.id);
            let help = flag_help(&self.words, &p.help, &p.values, false, "");
            let vec_inner = generic_args(&p.ty, "Vec").and_then(|a| a.into_iter().next());
            let element = vec_inner.clone().unwrap_or_else(|| p.ty.clone());
            let mut parser = checked_parser(&p.values, &element, &p.rule)
                .unwrap_or_else(|| values_parser(&p.values, &element));
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
            let hide = hide_listed(&self.words, &p.help, &p.values);
            quote! {
                #[doc = #help]
                #[arg(id = #id, long = #long #value_name #multiple #parser #hide)]
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
        // An update that reads the record first: its fields are not required of the user.
        let keep = op.modify.as_ref();
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
                        FieldKind::One(kind) if f.positional => {
                            // The argument, as the group's other commands take this id; the
                            // flag of earlier versions stays, hidden, and says the same.
                            let help = flag_help(
                                &self.words,
                                &f.help,
                                &f.values,
                                f.required && keep.is_none(),
                                "",
                            );
                            let (ty, _) = scalar_tokens(*kind);
                            let parser = scalar_parser(*kind, &f.values, &ty, &f.rule);
                            let value_name = f.id.to_uppercase();
                            let hidden = format_ident!("{}_flag", f.id);
                            let hidden_id = format!("{id}_flag");
                            let hide = hide_listed(&self.words, &f.help, &f.values);
                            quote! {
                                #[doc = #help]
                                #[arg(id = #id, value_name = #value_name #parser #hide)]
                                #serde
                                pub #field: Option<#ty>,
                                #[doc = " The argument, as a flag (earlier versions took it so)."]
                                #[arg(id = #hidden_id, long = #long, hide = true,
                                      conflicts_with = #id #parser)]
                                #serde
                                pub #hidden: Option<#ty>
                            }
                        }
                        FieldKind::One(kind) => {
                            let help = flag_help(
                                &self.words,
                                &f.help,
                                &f.values,
                                f.required && keep.is_none(),
                                "",
                            );
                            let (ty, value_name) = scalar_tokens(*kind);
                            let parser = scalar_parser(*kind, &f.values, &ty, &f.rule);
                            let hide = hide_listed(&self.words, &f.help, &f.values);
                            quote! {
                                #[doc = #help]
                                #[arg(id = #id, long = #long #value_name #parser #hide)]
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
                            let help = flag_help(
                                &self.words,
                                &f.help,
                                &f.values,
                                f.required && keep.is_none(),
                                more,
                            );
                            let (ty, value_name) = scalar_tokens(*kind);
                            let parser = scalar_parser(*kind, &f.values, &ty, &f.rule);
                            let delimiter = numeric.then(|| quote!(, value_delimiter = ','));
                            let hide = hide_listed(&self.words, &f.help, &f.values);
                            quote! {
                                #[doc = #help]
                                #[arg(id = #id, long = #long #value_name #delimiter #parser #hide)]
                                #serde
                                pub #field: Option<Vec<#ty>>
                            }
                        }
                        FieldKind::Json { expect, shape } => {
                            let more = format!(" As JSON (or @FILE), e.g. {shape}");
                            let help = flag_help(
                                &self.words,
                                &f.help,
                                &f.values,
                                f.required && keep.is_none(),
                                &more,
                            );
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
                        #[non_exhaustive]
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
            let help = flag_help(&self.words, &f.help, &f.values, false, more);
            let (ty, value_name, parser) = match f.kind {
                None => (
                    quote!(::std::path::PathBuf),
                    quote!(, value_name = "FILE"),
                    quote!(),
                ),
                Some(kind) => {
                    let (ty, value_name) = scalar_tokens(kind);
                    let parser = scalar_parser(kind, &f.values, &ty, &f.rule);
                    let hide = hide_listed(&self.words, &f.help, &f.values);
                    (ty, value_name, quote!(#parser #hide))
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
            #[non_exhaustive]
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

    pub(super) fn render_function(&self, op: &Op) -> TokenStream {
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
            // An update that reads first uses the path parameters again for the read.
            match op.modify.is_some() && !is_type(&p.ty, "i64") {
                true => quote!(request = request.#setter(a.#field.clone());),
                false => quote!(request = request.#setter(a.#field);),
            }
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
                    let flag = given_by(f);
                    quote!((#wire, #flag))
                })
                .chain(
                    op.owned_required
                        .iter()
                        .map(|(wire, flag)| quote!((#wire, #flag))),
                );
            let shapes = fields.iter().filter_map(|f| match &f.kind {
                FieldKind::Json { shape, .. } => {
                    let wire = &f.wire;
                    Some(quote!((#wire, #shape)))
                }
                _ => None,
            });
            let build = match &op.modify {
                None => {
                    quote!(let body: #ty = crate::body::build(&a.body, &a.fields, extra, &SPEC)?;)
                }
                Some(pairing) => {
                    let get = format_ident!("{}", pairing.get);
                    let table = format_ident!("{}", pairing.update.to_uppercase());
                    let params = op.path_params.iter().map(|p| {
                        let setter = format_ident!("{}", p.setter);
                        let field = &p.field;
                        match is_type(&p.ty, "i64") {
                            true => quote!(.#setter(a.#field)),
                            false => quote!(.#setter(a.#field.clone())),
                        }
                    });
                    let with = pairing.with.iter().flat_map(|(ty, values)| {
                        values.iter().map(move |v| {
                            let ty: syn::Type = syn::parse_str(ty).expect("a type name");
                            let variant = format_ident!("{}", pascal(v));
                            quote!(.with(#ty::#variant))
                        })
                    });
                    quote! {
                        let read = ctx.admin.#get() #(#params)* #(#with)*;
                        let read = async move {
                            store_admin::Call::call(read)
                                .await
                                .map(|r| ::serde_json::to_value(&r.data))
                        };
                        let body: #ty = crate::modify::build(
                            &a.body,
                            &a.fields,
                            extra,
                            &SPEC,
                            &store_admin::modify::#table,
                            read,
                        )
                        .await?;
                    }
                }
            };
            let flags = fields
                .iter()
                .map(|f| {
                    let wire = &f.wire;
                    let flag = given_by(f);
                    quote!((#wire, #flag))
                })
                .chain(
                    EXTRAS
                        .iter()
                        .filter(|(id, _, _)| *id == op.id)
                        .flat_map(|(_, _, owned)| owned.iter())
                        .map(|(wire, flag)| quote!((#wire, #flag))),
                );
            let schema = op
                .body_check
                .clone()
                .unwrap_or_else(|| quote!(&crate::checks::Schema::ANY));
            let fields_const = body_fields_const(op);
            quote! {
                const SPEC: crate::body::BodySpec = crate::body::BodySpec {
                    fields: #fields_const,
                    required: &[#(#required),*],
                    shapes: &[#(#shapes),*],
                    flags: &[#(#flags),*],
                    schema: #schema,
                };
                #build
                #job_body
                request = request.body(body);
            }
        });
        let send = if op.paged {
            quote!(paged(ctx, request, a.pages).await)
        } else if let Some(kind) = &op.job {
            let print = print_response(op);
            let sent = sent(op, quote!(request));
            let body = if op.body.is_some() {
                quote!(job_body)
            } else {
                quote!(None)
            };
            quote! {
                let job = crate::commands::Job::before(ctx, &a.wait, #kind, #body).await?;
                let response = #sent;
                if let Some(job) = job {
                    return job.finish(ctx).await;
                }
                #print
            }
        } else {
            let print = print_response(op);
            let sent = sent(op, quote!(request));
            quote! {
                let response = #sent;
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
    pub(super) fn render_hand_written(&self, op: &Op) -> TokenStream {
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
            let sent = sent(op, quote!(ctx.admin.#method()));
            return quote! {
                async fn #function(ctx: &Ctx, a: #args) -> Result<(), CliError> {
                    let _ = a;
                    let response = #sent;
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
                let response = request.send::<#success>().await?.into_inner();
                #finish
                #print
            }
        }
    }
}

/// Prints `response` (a `ResponseValue` of the operation's success type) as its kind says.
/// The typed body of `request` sent: `call()` (the `store_admin::Call` trait), or `call_full()` for a
/// body that streams, which has no `call()`.
fn sent(op: &Op, request: TokenStream) -> TokenStream {
    let streams = matches!(op.print, Print::Bytes)
        || op
            .success
            .as_ref()
            .is_some_and(|ty| is_type(ty, "ByteStream"));
    if streams {
        quote!(store_admin::CallFull::call_full(#request).await?.into_inner())
    } else {
        quote!(store_admin::Call::call(#request).await?)
    }
}

/// Prints `response`, the typed body of a success.
pub(super) fn print_response(op: &Op) -> TokenStream {
    match op.success.as_ref() {
        Some(ty) if is_unit(ty) => {
            return quote! {
                let _ = response;
                Ok(())
            };
        }
        Some(ty) if is_type(ty, "ByteStream") => {
            return quote!(crate::commands::print_bytes(response).await);
        }
        _ => {}
    }
    match &op.print {
        Print::One { optional: false } => quote!(ctx.printer.one(&response.data)),
        Print::One { optional: true } => quote! {
            match response.data {
                Some(data) => ctx.printer.one(&data),
                None => Ok(()),
            }
        },
        // progenitor makes an optional array a `Vec` with `#[serde(default)]`.
        Print::List => quote!(ctx.printer.list(&response.data)),
        Print::Document => {
            quote!(crate::commands::print_document(ctx, &response))
        }
        Print::Nothing => quote! {
            let _ = response;
            Ok(())
        },
        Print::Bytes => quote!(crate::commands::print_bytes(response).await),
    }
}

pub(super) fn is_unit(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Tuple(t) if t.elems.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_get_the_parser_of_their_rule() {
        let decimal = Rule {
            kind: Kind::Decimal,
            minimum: None,
            maximum: None,
            min_length: None,
            max_length: None,
            pattern: None,
        };
        let parser = |kind, values: &Values, ty, rule: &Rule| {
            scalar_parser(kind, values, &ty, rule).to_string()
        };
        // `number | string`: a number, or a decimal as text; `integer | string`: any text.
        let price = parser(
            ScalarKind::NumberOrString,
            &Values::Any,
            quote!(::serde_json::Value),
            &decimal,
        );
        assert!(price.contains("crate :: checks :: flag :: < :: serde_json :: Value > (crate :: checks :: Rule :: DECIMAL)"), "{price}");
        let id = Rule {
            kind: Kind::Any,
            ..decimal.clone()
        };
        let identifier = parser(
            ScalarKind::NumberOrString,
            &Values::Any,
            quote!(::serde_json::Value),
            &id,
        );
        assert!(
            identifier.contains("crate :: commands :: number_or_string"),
            "{identifier}"
        );
        // A whole number with a bound.
        let sort = Rule {
            kind: Kind::Integer,
            minimum: Some(0.0),
            ..decimal.clone()
        };
        let sort = parser(ScalarKind::Integer, &Values::Any, quote!(i64), &sort);
        assert!(sort.contains("flag :: < i64 >"), "{sort}");
        assert!(sort.contains("minimum : Some (0f64)"), "{sort}");
        assert!(sort.contains("allow_negative_numbers = true"), "{sort}");
        // A closed set keeps its own parser; a text without bounds has none.
        let closed = Values::Closed(vec!["1".into(), "2".into()]);
        let status = parser(
            ScalarKind::Integer,
            &closed,
            quote!(i64),
            &Rule {
                kind: Kind::Integer,
                ..decimal.clone()
            },
        );
        assert!(status.contains("choice"), "{status}");
        assert!(!status.contains("checks"), "{status}");
        let text = parser(
            ScalarKind::String,
            &Values::Any,
            quote!(::std::string::String),
            &id,
        );
        assert!(!text.contains("value_parser"), "{text}");
        let code = Rule {
            min_length: Some(1),
            max_length: Some(3),
            ..id.clone()
        };
        let code = parser(
            ScalarKind::String,
            &Values::Any,
            quote!(::std::string::String),
            &code,
        );
        assert!(code.contains("max_length : Some (3u64)"), "{code}");
    }
}

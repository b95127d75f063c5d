//! Post-processing of progenitor's output with `syn`: everything the xtask changes in the
//! generated code, one function per change.
//!
//! - [`into_area`]: an area's output without its own `Client`: the operations become an extension
//!   trait (`OrdersApi`) implemented for the core crate's `Client`, the builders point at it.
//! - [`prune_struct_builders`]: typify's per-type builders (`types::builder::*`) are kept only for
//!   the types a request body reaches, the only ones anyone builds.
//! - [`lenient_fields`]: every field whose type holds a number or an object decodes through the core
//!   crate's `lenient` adapters (`[]` for an empty object, numbers as strings).
//! - [`gate_json_schema`]: the `schemars::JsonSchema` derives behind a `schemars` feature.
//! - [`mark_deprecated`]: `#[deprecated]` on the methods of deprecated operations.
//! - [`expose_client_fields`]: the core `Client`'s `baseurl` and `client` fields, which the area
//!   crates' builders read, public (and hidden from the documentation).

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Result, bail};
use proc_macro2::TokenStream;
use progenitor::TypeImpl;
use quote::{ToTokens, format_ident, quote};
use syn::punctuated::Punctuated;
use syn::visit_mut::VisitMut;
use syn::{Attribute, Fields, ImplItem, Item, Meta, Type, parse_quote};

use crate::model::OperationMeta;

/// The core crate's name in paths.
pub const CORE: &str = "store_admin_client_core";

/// The items of the top-level module `name` (`types`, `builder`), if any.
fn module_items<'a>(items: &'a mut [Item], name: &str) -> Option<&'a mut Vec<Item>> {
    items.iter_mut().find_map(|item| match item {
        Item::Mod(m) if m.ident == name => m.content.as_mut().map(|(_, items)| items),
        _ => None,
    })
}

/// The identifier of a type's last path segment (`super::Foo` -> `Foo`).
pub fn last_ident(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

fn derives(attrs: &[Attribute], name: &str) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("derive") && {
            let text = attr.meta.to_token_stream().to_string();
            text.split([',', '(', ')', ':', ' '])
                .any(|word| word.trim() == name)
        }
    })
}

/// What the lenient pass needs to know of the types a generated file reaches: which are records
/// (structs with named fields, with their primary field if any) and which are text (string
/// newtypes and string enums). An area's shapes are the core's and its own.
#[derive(Clone, Debug, Default)]
pub struct Shapes {
    /// Each record, with the wire name of its primary field: the field a single value stands for
    /// (`lenient::Primary`).
    pub records: BTreeMap<String, Option<String>>,
    /// The string newtypes and string enums.
    pub strings: BTreeSet<String>,
    /// The types a request body reaches (what a caller sends): they read what the service
    /// accepts, see [`lenient_fields`].
    pub inputs: BTreeSet<String>,
    /// The types that implement `Default` (besides the standard ones).
    pub defaults: BTreeSet<String>,
    /// The types an answer or a parameter reaches: a type in `inputs` and not here is what only
    /// requests send, see [`optional_without_default`].
    pub answers: BTreeSet<String>,
    /// The envelopes of create answers (a `POST`'s 2xx) whose `data` record requires its `id`
    /// alone: their `data` reads a record without its `id` (`lenient::Created`), see
    /// [`lenient_fields`].
    pub created: BTreeSet<String>,
}

impl Shapes {
    /// The shapes of both.
    pub fn union(&self, other: &Shapes) -> Shapes {
        let mut out = self.clone();
        out.records
            .extend(other.records.iter().map(|(k, v)| (k.clone(), v.clone())));
        out.strings.extend(other.strings.iter().cloned());
        out.inputs.extend(other.inputs.iter().cloned());
        out.defaults.extend(other.defaults.iter().cloned());
        out.answers.extend(other.answers.iter().cloned());
        out.created.extend(other.created.iter().cloned());
        out
    }

    /// The records that requests reach and that have an `id`, whose other required fields all
    /// have a default: their primary field is `id` (a documented request sends the id alone
    /// where the record goes, the service reading it as that record), see [`lenient_fields`].
    pub fn with_input_primaries(mut self, file: &syn::File) -> Shapes {
        let Some(items) = file.items.iter().find_map(|item| match item {
            Item::Mod(m) if m.ident == "types" => m.content.as_ref().map(|(_, items)| items),
            _ => None,
        }) else {
            return self;
        };
        for item in items {
            let Item::Struct(s) = item else { continue };
            let name = s.ident.to_string();
            let Fields::Named(fields) = &s.fields else {
                continue;
            };
            if !self.inputs.contains(&name) || !matches!(self.records.get(&name), Some(None)) {
                continue;
            }
            let id = fields
                .named
                .iter()
                .find(|f| wire_name(f).as_deref() == Some("id"));
            let others_default = fields
                .named
                .iter()
                .filter(|f| is_required(f) && wire_name(f).as_deref() != Some("id"))
                .all(|f| self.has_default(&f.ty));
            if id.is_some_and(|id| self.scalar(&id.ty)) && others_default {
                self.records.insert(name, Some("id".to_owned()));
            }
        }
        self
    }

    /// Whether a field of type `ty` can be left out of a request that requires it (its type has
    /// a default: a number, a text, a boolean, a list, a map, a record that may be empty).
    fn has_default(&self, ty: &Type) -> bool {
        last_ident(ty).is_some_and(|name| {
            matches!(
                name.as_str(),
                "bool"
                    | "String"
                    | "i8"
                    | "i16"
                    | "i32"
                    | "i64"
                    | "u8"
                    | "u16"
                    | "u32"
                    | "u64"
                    | "f32"
                    | "f64"
                    | "Vec"
                    | "BTreeMap"
                    | "Map"
                    | "Value"
                    | "Option"
            ) || self.defaults.contains(&name)
        })
    }

    /// A number, a text or an id union: what a single value can stand for.
    fn scalar(&self, ty: &Type) -> bool {
        !matches!(
            last_ident(ty).as_deref(),
            Some("Vec" | "BTreeMap" | "Map" | "HashMap" | "Value")
        ) && !last_ident(ty).is_some_and(|n| self.records.contains_key(&n))
    }
}

/// A field's name on the wire (its `#[serde(rename)]`, else its identifier).
fn wire_name(field: &syn::Field) -> Option<String> {
    for attr in &field.attrs {
        for meta in serde_items(attr).into_iter().flatten() {
            if let Meta::NameValue(nv) = &meta
                && nv.path.is_ident("rename")
                && let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = &nv.value
            {
                return Some(s.value());
            }
        }
    }
    field
        .ident
        .as_ref()
        .map(|i| i.to_string().trim_start_matches("r#").to_owned())
}

/// Whether typify made a field required: not an `Option` (or a nullable one, decoded with
/// `Option::deserialize`), and without `#[serde(default)]`.
fn is_required(field: &syn::Field) -> bool {
    let mut default = false;
    let mut nullable = false;
    for attr in &field.attrs {
        for meta in serde_items(attr).into_iter().flatten() {
            match &meta {
                Meta::Path(p) if p.is_ident("default") => default = true,
                Meta::NameValue(nv) if nv.path.is_ident("default") => default = true,
                Meta::NameValue(nv) if nv.path.is_ident("deserialize_with") => nullable = true,
                _ => {}
            }
        }
    }
    !default && (nullable || last_ident(&field.ty).as_deref() != Some("Option"))
}

/// The primary field of a record, the one a single value stands for: `id` when every other
/// field is optional, else the record's one required field; a list or a map is no primary
/// field.
fn primary_field(fields: &syn::FieldsNamed) -> Option<String> {
    let scalar = |f: &syn::Field| {
        let mut ty = &f.ty;
        // `Option<T>`: look at `T`.
        if let Type::Path(p) = ty
            && let Some(last) = p.path.segments.last()
            && last.ident == "Option"
            && let syn::PathArguments::AngleBracketed(args) = &last.arguments
            && let Some(syn::GenericArgument::Type(inner)) = args.args.first()
        {
            ty = inner;
        }
        !matches!(
            last_ident(ty).as_deref(),
            Some("Vec" | "BTreeMap" | "Map" | "HashMap" | "Value")
        )
    };
    let required: Vec<&syn::Field> = fields.named.iter().filter(|f| is_required(f)).collect();
    let id = fields
        .named
        .iter()
        .find(|f| wire_name(f).as_deref() == Some("id"));
    let primary = match (id, required.as_slice()) {
        (Some(id), []) => id,
        (Some(id), [only]) if wire_name(only).as_deref() == Some("id") => id,
        (_, [only]) => only,
        _ => return None,
    };
    scalar(primary).then(|| wire_name(primary)).flatten()
}

/// Whether a record's `id` reads as absent when an answer leaves it out (`lenient::absent_id`):
/// the record requires it, it is an integer or a text, and the record requires another field too
/// (so that an empty object is still no record, and a record whose `id` is its primary field
/// keeps reading a single value as its id).
fn id_may_be_absent(fields: &Fields) -> bool {
    let Fields::Named(fields) = fields else {
        return false;
    };
    let required: Vec<&syn::Field> = fields.named.iter().filter(|f| is_required(f)).collect();
    let id = required
        .iter()
        .find(|f| wire_name(f).as_deref() == Some("id"));
    id.is_some_and(|id| {
        matches!(
            last_ident(&id.ty).as_deref(),
            Some("i32" | "i64" | "u32" | "u64" | "String")
        )
    }) && required.len() > 1
}

/// The shapes of the `types` module (what the lenient pass reads), and the traits each type
/// implements (for progenitor's type replacement in the areas that use them). Run it on
/// typify's output, before [`lenient_fields`].
pub fn type_facts(file: &syn::File) -> (Shapes, BTreeMap<String, Vec<TypeImpl>>) {
    let mut shapes = Shapes::default();
    let mut impls: BTreeMap<String, Vec<TypeImpl>> = BTreeMap::new();
    let Some(items) = file.items.iter().find_map(|item| match item {
        Item::Mod(m) if m.ident == "types" => m.content.as_ref().map(|(_, items)| items),
        _ => None,
    }) else {
        return (shapes, impls);
    };
    for item in items {
        match item {
            Item::Struct(s) => {
                let name = s.ident.to_string();
                let entry = impls.entry(name.clone()).or_default();
                if derives(&s.attrs, "Default") {
                    entry.push(TypeImpl::Default);
                }
                match &s.fields {
                    Fields::Named(fields) => {
                        shapes.records.insert(name, primary_field(fields));
                    }
                    Fields::Unnamed(fields) => {
                        let is_string = fields.unnamed.len() == 1
                            && fields
                                .unnamed
                                .first()
                                .and_then(|f| last_ident(&f.ty))
                                .as_deref()
                                == Some("String");
                        if is_string {
                            entry.push(TypeImpl::FromStringIrrefutable);
                            shapes.strings.insert(name);
                        }
                    }
                    Fields::Unit => {}
                }
            }
            Item::Enum(e) => {
                let entry = impls.entry(e.ident.to_string()).or_default();
                if derives(&e.attrs, "Default") {
                    entry.push(TypeImpl::Default);
                }
                if !e.variants.is_empty()
                    && e.variants.iter().all(|v| matches!(v.fields, Fields::Unit))
                {
                    shapes.strings.insert(e.ident.to_string());
                }
            }
            Item::Impl(i) => {
                let (Some((path, _)), Some(name)) = (&i.trait_, last_ident(&i.self_ty)) else {
                    continue;
                };
                let entry = impls.entry(name).or_default();
                match path.segments.last().map(|s| s.ident.to_string()).as_deref() {
                    Some("Default") => entry.push(TypeImpl::Default),
                    Some("FromStr") => entry.push(TypeImpl::FromStr),
                    Some("Display") => entry.push(TypeImpl::Display),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    for list in impls.values_mut() {
        list.sort_by_key(|i| format!("{i:?}"));
        list.dedup();
    }
    shapes.defaults = impls
        .iter()
        .filter(|(_, list)| list.iter().any(|i| matches!(i, TypeImpl::Default)))
        .map(|(name, _)| name.clone())
        .collect();
    (shapes, impls)
}

/// Removes typify's struct builders (`types::builder::X`, `X::builder()` and the conversions) of
/// every type not in `keep`; drops `types::builder` when nothing is left in it.
pub fn prune_struct_builders(file: &mut syn::File, keep: &BTreeSet<String>) {
    let Some(types) = module_items(&mut file.items, "types") else {
        return;
    };
    let kept = |ty: &Type| last_ident(ty).is_some_and(|name| keep.contains(&name));
    types.retain(|item| match item {
        // `impl X { pub fn builder() -> builder::X }`: the only inherent impl typify writes.
        Item::Impl(i) if i.trait_.is_none() => {
            let only_builder = i
                .items
                .iter()
                .all(|item| matches!(item, ImplItem::Fn(f) if f.sig.ident == "builder"));
            !only_builder || kept(&i.self_ty)
        }
        _ => true,
    });
    let mut empty = false;
    if let Some(builders) = module_items(types, "builder") {
        builders.retain(|item| match item {
            Item::Struct(s) => keep.contains(&s.ident.to_string()),
            Item::Impl(i) => kept(&i.self_ty),
            _ => true,
        });
        empty = builders.is_empty();
    }
    if empty {
        types.retain(|item| !matches!(item, Item::Mod(m) if m.ident == "builder"));
    }
}

/// The adapter of the core crate's `lenient` module that decodes a field of type `ty`, or `None`
/// when plain serde does (strings, booleans, enums, JSON values...).
pub fn adapter(ty: &Type, shapes: &Shapes) -> Result<Option<TokenStream>> {
    let Type::Path(path) = ty else {
        return Ok(None);
    };
    let Some(last) = path.path.segments.last() else {
        return Ok(None);
    };
    let args: Vec<&Type> = match &last.arguments {
        syn::PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|a| match a {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let name = last.ident.to_string();
    let inner = |i: usize| -> Result<Option<TokenStream>> {
        match args.get(i) {
            Some(t) => adapter(t, shapes),
            None => bail!("`{}` has no type argument {i}", ty.to_token_stream()),
        }
    };
    let same = || quote!(lenient::Same);
    Ok(match name.as_str() {
        "Option" => inner(0)?.map(|a| quote!(lenient::Opt<#a>)),
        // Every list reads PHP's forms of a list (one value, an object keyed by index, null),
        // whatever its items.
        "Vec" => Some(inner(0)?.map_or_else(
            || quote!(lenient::Seq<lenient::Same>),
            |a| quote!(lenient::Seq<#a>),
        )),
        "Box" => inner(0)?.map(|a| quote!(lenient::Boxed<#a>)),
        "BTreeMap" => {
            let value = inner(1)?.unwrap_or_else(same);
            Some(quote!(lenient::Map<#value>))
        }
        "Map" if path.path.segments.iter().any(|s| s.ident == "serde_json") => {
            Some(quote!(lenient::Map<lenient::Same>))
        }
        "i8" | "i16" | "i32" | "i64" | "i128" | "u8" | "u16" | "u32" | "u64" | "u128" | "f32"
        | "f64" | "NonZeroU8" | "NonZeroU16" | "NonZeroU32" | "NonZeroU64" | "NonZeroI8"
        | "NonZeroI16" | "NonZeroI32" | "NonZeroI64" => Some(quote!(lenient::Num)),
        "String" | "str" => Some(quote!(lenient::Str)),
        "bool" => Some(quote!(lenient::Bool)),
        _ if shapes.strings.contains(&name) => Some(quote!(lenient::Str)),
        "HashMap" | "HashSet" | "BTreeSet" => bail!(
            "`{}`: a container the lenient decoder does not cover (add it to the core crate's \
             `lenient` module and to xtask/src/rewrite.rs)",
            ty.to_token_stream()
        ),
        _ => match shapes.records.get(&name) {
            Some(Some(_)) => Some(quote!(lenient::Ref)),
            Some(None) => Some(quote!(lenient::Obj)),
            None => None,
        },
    })
}

/// The items of a `#[serde(...)]` attribute.
fn serde_items(attr: &Attribute) -> Option<Punctuated<Meta, syn::Token![,]>> {
    if !attr.path().is_ident("serde") {
        return None;
    }
    attr.parse_args_with(Punctuated::<Meta, syn::Token![,]>::parse_terminated)
        .ok()
}

/// Gives every field of every serde-derived struct of the `types` module whose type holds a
/// number, a string, a boolean or an object (`shapes` says which types are records and which are
/// text) `#[serde(deserialize_with = "lenient::As::<adapter>::deserialize")]`, and
/// `#[serde(default)]` to such an optional field (serde only defaults a missing `Option` when it
/// decodes it itself); an optional list or map (`#[serde(default)]`) reads `null` as empty
/// (`lenient::Defaulted`). A required nullable field (typify's
/// `deserialize_with = "Option::deserialize"`) stays required. Each record of the file with a
/// primary field implements `lenient::Primary`. A record's required `id`, when the record
/// requires other fields too, reads as absent when left out (`lenient::absent_id`). The types a
/// request reaches (`shapes.inputs`) read text through `lenient::InputStr`, and a required field
/// whose type has a default as that default when left out (their builders still ask for it).
/// Serialization is unchanged. `lenient_path` is how the generated file names the core's
/// `lenient` module.
pub fn lenient_fields(
    file: &mut syn::File,
    shapes: &Shapes,
    lenient_path: &TokenStream,
) -> Result<()> {
    let Some(types) = module_items(&mut file.items, "types") else {
        return Ok(());
    };
    let mut touched = false;
    let mut primaries: Vec<Item> = Vec::new();
    for item in types.iter_mut() {
        let Item::Struct(s) = item else { continue };
        if !derives(&s.attrs, "Deserialize") {
            continue;
        }
        if let Some(Some(field)) = shapes.records.get(&s.ident.to_string()) {
            let ident = &s.ident;
            primaries.push(parse_quote! {
                impl lenient::Primary for #ident {
                    const FIELD: &'static str = #field;
                }
            });
        }
        // A newtype's field (`#[serde(transparent)]`) takes no `default`.
        let tuple = matches!(s.fields, Fields::Unnamed(_));
        let absent_id = id_may_be_absent(&s.fields);
        let input = shapes.inputs.contains(&s.ident.to_string());
        let created = shapes.created.contains(&s.ident.to_string());
        let fields: Vec<&mut syn::Field> = match &mut s.fields {
            Fields::Named(f) => f.named.iter_mut().collect(),
            Fields::Unnamed(f) => f.unnamed.iter_mut().collect(),
            Fields::Unit => Vec::new(),
        };
        for field in fields {
            let Some(adapter) = adapter(&field.ty, shapes).map_err(|e| {
                anyhow::anyhow!(
                    "types::{}::{}: {e}",
                    s.ident,
                    field
                        .ident
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default()
                )
            })?
            else {
                continue;
            };
            let mut has_default = false;
            let mut plain_default = false;
            let mut required = false;
            let mut attrs = Vec::new();
            for attr in field.attrs.drain(..) {
                let Some(items) = serde_items(&attr) else {
                    attrs.push(attr);
                    continue;
                };
                let mut keep: Punctuated<Meta, syn::Token![,]> = Punctuated::new();
                for meta in items {
                    match &meta {
                        Meta::Path(p) if p.is_ident("default") => {
                            has_default = true;
                            plain_default = true;
                            keep.push(meta);
                        }
                        Meta::NameValue(nv) if nv.path.is_ident("default") => {
                            has_default = true;
                            keep.push(meta);
                        }
                        Meta::NameValue(nv) if nv.path.is_ident("deserialize_with") => {
                            required = true;
                        }
                        _ => keep.push(meta),
                    }
                }
                if !keep.is_empty() {
                    attrs.push(parse_quote!(#[serde(#keep)]));
                }
            }
            let is_option = last_ident(&field.ty).as_deref() == Some("Option");
            // A create answer's record that requires its `id` alone, documented without it.
            let adapter = if created && wire_name(field).as_deref() == Some("data") && !is_option {
                syn::parse_str::<TokenStream>(
                    &adapter
                        .to_string()
                        .replace("lenient :: Ref", "lenient :: Created"),
                )?
            } else {
                adapter
            };
            // What a request's documented examples send that the declared type does not say: a
            // boolean or a text's translations as text, and no value for a required field that
            // has a default (the builders still ask for it; decoding reads what the service
            // accepts).
            let adapter = if input {
                syn::parse_str::<TokenStream>(
                    &adapter
                        .to_string()
                        .replace("lenient :: Str", "lenient :: InputStr"),
                )?
            } else {
                adapter
            };
            let left_out = input
                && !tuple
                && !has_default
                && (required || !is_option)
                && shapes.has_default(&field.ty);
            let absent_id = absent_id && wire_name(field).as_deref() == Some("id");
            // A field that may be left out reads `null` as left out too.
            let adapter = if (plain_default || left_out || absent_id) && !is_option {
                quote!(lenient::Defaulted<#adapter>)
            } else {
                adapter
            };
            let with = format!(
                "lenient::As::<{}>::deserialize",
                adapter.to_string().replace(' ', "")
            );
            // An optional field, or a required one a request may leave out: its default.
            if (is_option && !has_default && !required && !tuple) || left_out {
                attrs.push(parse_quote!(#[serde(default, deserialize_with = #with)]));
            } else if absent_id {
                let ty = &field.ty;
                let default = format!(
                    "lenient::absent_id::<{}>",
                    quote!(#ty).to_string().replace(' ', "")
                );
                attrs.push(parse_quote!(
                    #[serde(default = #default, deserialize_with = #with)]
                ));
            } else {
                attrs.push(parse_quote!(#[serde(deserialize_with = #with)]));
            }
            field.attrs = attrs;
            touched = true;
        }
    }
    touched |= !primaries.is_empty();
    types.extend(primaries);
    if touched {
        types.insert(0, parse_quote!(use #lenient_path;));
    }
    Ok(())
}

/// The required fields without a default of the records only requests reach (`shapes.inputs`
/// and not `shapes.answers`), made optional in the Rust types: `T` becomes `Option<T>`, left out
/// of the JSON when `None`. Returns the fields, as `Record.field`.
///
/// Why: the service (PHP, Laravel) accepts what its own documentation sends, and its documented
/// requests leave out fields that the document's request schemas call required: a value set
/// (`payment_method`), a checked text (`name`, at least one character), a record, a union. A
/// required field whose type has a default (a text, a number, a list) left out already reads as
/// that default ([`lenient_fields`]); one without a default has no value to read it as, so the
/// type must say "left out" itself, or the documented request neither decodes nor can be built.
/// The document keeps its `required` list (the mock and the command line still ask for the
/// field, as the service's schema does); only the Rust request types follow the documented
/// requests. A record an answer also reaches keeps its fields as they are (an answer's record
/// is read by every caller), and so does a branch of a union (its required fields are what tells
/// a branch from the others: with none, the first branch would take every object).
///
/// The builders still ask for the field: typify's builder starts it as "no value supplied", and
/// this pass changes only the builder field's type (`Result<Option<T>, String>`) and its setter's
/// bound (`TryInto<Option<T>>`, which [`crate::setters`] then widens to `IntoOptional<T>`): a
/// caller sets the value, or `None` to leave it out as the documentation does, and a body decoded
/// from a documented request converts into its builder as it is. No function body changes.
pub fn optional_without_default(file: &mut syn::File, shapes: &Shapes) -> Vec<String> {
    let Some(types) = module_items(&mut file.items, "types") else {
        return Vec::new();
    };
    // The records that are a branch of a union (`oneOf`): their required fields tell the
    // branches apart, so they stay as they are.
    let branches: BTreeSet<String> = types
        .iter()
        .filter_map(|item| match item {
            Item::Enum(e) => Some(e),
            _ => None,
        })
        .flat_map(|e| e.variants.iter())
        .filter_map(|v| match &v.fields {
            Fields::Unnamed(f) => f.unnamed.first().and_then(|f| last_ident(&f.ty)),
            _ => None,
        })
        .collect();
    // (record, field) made optional.
    let mut relaxed: BTreeSet<(String, String)> = BTreeSet::new();
    for item in types.iter_mut() {
        let Item::Struct(s) = item else { continue };
        let name = s.ident.to_string();
        if !shapes.inputs.contains(&name)
            || shapes.answers.contains(&name)
            || branches.contains(&name)
        {
            continue;
        }
        let Fields::Named(fields) = &mut s.fields else {
            continue;
        };
        for field in &mut fields.named {
            let is_option = last_ident(&field.ty).as_deref() == Some("Option");
            if is_option || !is_required(field) || shapes.has_default(&field.ty) {
                continue;
            }
            let Some(ident) = &field.ident else { continue };
            let ty = &field.ty;
            field.ty = parse_quote!(::std::option::Option<#ty>);
            // As typify writes an optional field (the lenient pass adds its `default`).
            field.attrs.push(parse_quote!(
                #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            ));
            relaxed.insert((name.clone(), ident.to_string()));
        }
    }
    let Some(builder) = module_items(types, "builder") else {
        return relaxed.iter().map(|(r, f)| format!("{r}.{f}")).collect();
    };
    for item in builder.iter_mut() {
        match item {
            // The builder's field: `Result<T, String>` becomes `Result<Option<T>, String>`.
            Item::Struct(s) => {
                let name = s.ident.to_string();
                let Fields::Named(fields) = &mut s.fields else {
                    continue;
                };
                for field in &mut fields.named {
                    let Some(ident) = &field.ident else { continue };
                    if !relaxed.contains(&(name.clone(), ident.to_string())) {
                        continue;
                    }
                    wrap_first_argument(&mut field.ty);
                }
            }
            // Its setter: `T: TryInto<X>` becomes `T: TryInto<Option<X>>`.
            Item::Impl(imp) if imp.trait_.is_none() => {
                let Some(name) = last_ident(&imp.self_ty) else {
                    continue;
                };
                for member in &mut imp.items {
                    let syn::ImplItem::Fn(f) = member else {
                        continue;
                    };
                    let field = f.sig.ident.to_string();
                    let field = field.trim_start_matches("r#");
                    if !relaxed.contains(&(name.clone(), field.to_owned())) {
                        continue;
                    }
                    for predicate in f
                        .sig
                        .generics
                        .where_clause
                        .iter_mut()
                        .flat_map(|w| w.predicates.iter_mut())
                    {
                        let syn::WherePredicate::Type(p) = predicate else {
                            continue;
                        };
                        for bound in &mut p.bounds {
                            let syn::TypeParamBound::Trait(t) = bound else {
                                continue;
                            };
                            if let Some(last) = t.path.segments.last_mut()
                                && last.ident == "TryInto"
                                && let syn::PathArguments::AngleBracketed(args) =
                                    &mut last.arguments
                                && let Some(syn::GenericArgument::Type(target)) =
                                    args.args.first_mut()
                            {
                                *target = parse_quote!(::std::option::Option<#target>);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    relaxed.iter().map(|(r, f)| format!("{r}.{f}")).collect()
}

/// `Wrapper<T, ..>` becomes `Wrapper<Option<T>, ..>`.
fn wrap_first_argument(ty: &mut Type) {
    if let Type::Path(p) = ty
        && let Some(last) = p.path.segments.last_mut()
        && let syn::PathArguments::AngleBracketed(args) = &mut last.arguments
        && let Some(syn::GenericArgument::Type(inner)) = args.args.first_mut()
    {
        *inner = parse_quote!(::std::option::Option<#inner>);
    }
}

/// Puts the `schemars::JsonSchema` derive of every type behind the crate's `schemars` feature
/// (`#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]`): only the CLI reads the
/// types' JSON schemas, and a service should not compile them.
pub fn gate_json_schema(file: &mut syn::File) {
    let Some(types) = module_items(&mut file.items, "types") else {
        return;
    };
    for item in types.iter_mut() {
        let attrs = match item {
            Item::Struct(s) => &mut s.attrs,
            Item::Enum(e) => &mut e.attrs,
            _ => continue,
        };
        let Some(at) = attrs.iter().position(|a| a.path().is_ident("derive")) else {
            continue;
        };
        let Ok(paths) =
            attrs[at].parse_args_with(Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
        else {
            continue;
        };
        let is_schema = |p: &syn::Path| p.segments.last().is_some_and(|s| s.ident == "JsonSchema");
        if !paths.iter().any(is_schema) {
            continue;
        }
        let kept = paths.iter().filter(|p| !is_schema(p));
        attrs[at] = parse_quote!(#[derive(#(#kept),*)]);
        attrs.insert(
            at + 1,
            parse_quote!(#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]),
        );
    }
}

/// The body of every function of `file` (`fn` items and methods), as text, with how many times
/// each occurs.
pub fn function_bodies(file: &syn::File) -> BTreeMap<String, usize> {
    struct Bodies(BTreeMap<String, usize>);
    impl Bodies {
        fn add(&mut self, block: &syn::Block) {
            *self
                .0
                .entry(block.to_token_stream().to_string())
                .or_default() += 1;
        }
    }
    impl<'ast> syn::visit::Visit<'ast> for Bodies {
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            self.add(&f.block);
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            self.add(&f.block);
        }
    }
    let mut bodies = Bodies(BTreeMap::new());
    syn::visit::Visit::visit_file(&mut bodies, file);
    bodies.0
}

/// Fails unless every function body of `after` is one of `before` (progenitor's output, before
/// the passes): the passes add attributes and items, move functions whole and drop some, and
/// never edit a body.
pub fn bodies_unchanged(before: &BTreeMap<String, usize>, after: &syn::File) -> Result<()> {
    for (body, count) in function_bodies(after) {
        if before.get(&body).copied().unwrap_or(0) < count {
            bail!(
                "a pass edited a function body of progenitor's output: {}",
                body.chars().take(300).collect::<String>()
            );
        }
    }
    Ok(())
}

/// Makes the fields of the core's `Client` that progenitor's builders read (`client.baseurl`,
/// `client.client`) visible to the area crates, whose builders take the core's `Client`: public
/// and hidden from the documentation (`inner` stays private, so no one builds a `Client` by its
/// fields). An item's visibility, not a function body: the builders' code is left as progenitor
/// writes it.
pub fn expose_client_fields(file: &mut syn::File) -> Result<()> {
    let Some(Fields::Named(fields)) = file.items.iter_mut().find_map(|item| match item {
        Item::Struct(s) if s.ident == "Client" => Some(&mut s.fields),
        _ => None,
    }) else {
        bail!("no `struct Client` with named fields in progenitor's output");
    };
    let mut exposed = 0;
    for field in &mut fields.named {
        if field
            .ident
            .as_ref()
            .is_some_and(|name| name == "baseurl" || name == "client")
        {
            field.vis = parse_quote!(pub);
            field.attrs.push(parse_quote!(#[doc(hidden)]));
            exposed += 1;
        }
    }
    if exposed != 2 {
        bail!(
            "progenitor's `Client` has no `baseurl` and `client` fields (its output changed shape)"
        );
    }
    Ok(())
}

/// Turns progenitor's output for an area into an area crate's code: the generated `Client` and
/// its impls go (the core crate's `Client` is used), the `impl Client` of the operations becomes
/// the trait `trait_name` implemented for the core `Client`, builders name the core `Client` and
/// reach its fields through `ClientInfo`, and the area's `types::error` is the core's.
pub fn into_area(file: &mut syn::File, trait_name: &str, area: &str) -> Result<()> {
    let core = format_ident!("{CORE}");
    let trait_ident = format_ident!("{trait_name}");
    let mut methods: Vec<syn::ImplItemFn> = Vec::new();
    let mut items = Vec::new();
    for item in file.items.drain(..) {
        match item {
            Item::Struct(s) if s.ident == "Client" => {}
            Item::Const(c) if c.ident == "_" => {}
            Item::Mod(m) if m.ident == "prelude" => {}
            Item::Use(mut u) if matches!(u.vis, syn::Visibility::Public(_)) => {
                // `pub use progenitor_client::{..}`: private here (the facade re-exports them).
                u.vis = syn::Visibility::Inherited;
                items.push(Item::Use(u));
            }
            Item::Impl(i) if last_ident(&i.self_ty).as_deref() == Some("Client") => {
                if i.trait_.is_some() {
                    continue;
                }
                for member in i.items {
                    match member {
                        ImplItem::Fn(f) if f.sig.receiver().is_some() => methods.push(f),
                        _ => {} // `new`, `new_with_client`: the core's
                    }
                }
            }
            other => items.push(other),
        }
    }
    file.items = items;
    if let Some(types) = module_items(&mut file.items, "types") {
        types.retain(|item| !matches!(item, Item::Mod(m) if m.ident == "error"));
        types.push(parse_quote!(pub use ::#core::types::error;));
    }
    let declarations = methods.iter().map(|f| {
        let attrs = &f.attrs;
        let sig = &f.sig;
        quote!(#(#attrs)* #sig;)
    });
    let doc = format!(
        " The operations of the `{area}` area, as methods of the core [`Client`](::{CORE}::Client).\n\n \
         Bring it into scope with `use store_admin_client::prelude::*;` (or \
         `store_admin::prelude::*`)."
    );
    let definitions = methods.iter().map(|f| {
        let mut f = f.clone();
        f.attrs
            .retain(|a| !a.path().is_ident("doc") && !a.path().is_ident("deprecated"));
        f.vis = syn::Visibility::Inherited;
        f
    });
    file.items.push(parse_quote! {
        #[doc = #doc]
        pub trait #trait_ident {
            #(#declarations)*
        }
    });
    // `super::Client` in the builders (progenitor's path, in their fields, signatures and bodies)
    // names the core's, through an import: nothing in a body is rewritten.
    file.items.push(parse_quote! {
        use ::#core::Client;
    });
    file.items.push(parse_quote! {
        impl #trait_ident for Client {
            #(#definitions)*
        }
    });
    DocLinks {
        trait_ident: &trait_ident,
    }
    .visit_file_mut(file);
    Ok(())
}

/// Doc links to `Client::op` (an operation, now a method of the area's trait) -> the trait's.
struct DocLinks<'a> {
    trait_ident: &'a proc_macro2::Ident,
}

impl VisitMut for DocLinks<'_> {
    fn visit_attribute_mut(&mut self, attr: &mut Attribute) {
        if let Meta::NameValue(nv) = &mut attr.meta
            && nv.path.is_ident("doc")
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) = &nv.value
        {
            let value = text.value();
            if value.contains("Client::") {
                let fixed = value
                    .replace("super::Client::", &format!("super::{}::", self.trait_ident))
                    .replace("`Client::", &format!("`{}::", self.trait_ident));
                nv.value = parse_quote!(#fixed);
            }
        }
    }

    /// Attributes of items only: a function body is not visited.
    fn visit_block_mut(&mut self, _: &mut syn::Block) {}
}

/// progenitor ignores `deprecated`: give the method of every deprecated operation (an
/// `impl Client` method or an area trait's declaration) a `#[deprecated]` naming its replacement,
/// so that callers get a compiler warning.
pub fn mark_deprecated(file: &mut syn::File, operations: &[OperationMeta]) {
    let note = |name: &str| -> Option<String> {
        let op = operations
            .iter()
            .find(|op| op.deprecated && op.operation_id == name)?;
        Some(
            match op
                .replaced_by
                .as_deref()
                .and_then(|id| operations.iter().find(|o| o.operation_id == id))
            {
                Some(by) => format!(
                    "replaced by `{}` ({} {}); migrate to it",
                    by.operation_id, by.method, by.path
                ),
                None => "deprecated by the API document".to_owned(),
            },
        )
    };
    for item in &mut file.items {
        match item {
            Item::Impl(block)
                if block.trait_.is_none()
                    && last_ident(&block.self_ty).as_deref() == Some("Client") =>
            {
                for member in &mut block.items {
                    if let ImplItem::Fn(method) = member
                        && let Some(note) = note(&method.sig.ident.to_string())
                    {
                        method.attrs.push(parse_quote!(#[deprecated(note = #note)]));
                    }
                }
            }
            Item::Trait(t) => {
                for member in &mut t.items {
                    if let syn::TraitItem::Fn(method) = member
                        && let Some(note) = note(&method.sig.ident.to_string())
                    {
                        method.attrs.push(parse_quote!(#[deprecated(note = #note)]));
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Money` a record with a primary field, `Options` one without, `Status` a string enum.
    fn shapes() -> Shapes {
        Shapes {
            records: [
                ("Money".to_owned(), Some("amount".to_owned())),
                ("Options".to_owned(), None),
            ]
            .into(),
            strings: ["Status".to_owned()].into(),
            ..Shapes::default()
        }
    }

    fn adapter_of(ty: &str) -> String {
        let ty: Type = syn::parse_str(ty).expect("a type");
        adapter(&ty, &shapes())
            .expect("covered")
            .map(|a| a.to_string().replace(' ', ""))
            .unwrap_or_else(|| "-".to_owned())
    }

    #[test]
    fn adapters_follow_the_shape_of_the_field_type() {
        assert_eq!(adapter_of("i64"), "lenient::Num");
        assert_eq!(adapter_of("::std::num::NonZeroU64"), "lenient::Num");
        assert_eq!(
            adapter_of("::std::option::Option<f64>"),
            "lenient::Opt<lenient::Num>"
        );
        assert_eq!(adapter_of("::std::string::String"), "lenient::Str");
        assert_eq!(adapter_of("bool"), "lenient::Bool");
        assert_eq!(adapter_of("Status"), "lenient::Str");
        assert_eq!(
            adapter_of("::std::option::Option<::std::string::String>"),
            "lenient::Opt<lenient::Str>"
        );
        assert_eq!(
            adapter_of("::std::vec::Vec<Money>"),
            "lenient::Seq<lenient::Ref>"
        );
        assert_eq!(
            adapter_of("::std::vec::Vec<Options>"),
            "lenient::Seq<lenient::Obj>"
        );
        assert_eq!(
            adapter_of("::std::option::Option<::std::boxed::Box<super::types::Money>>"),
            "lenient::Opt<lenient::Boxed<lenient::Ref>>"
        );
        assert_eq!(
            adapter_of(
                "::std::collections::BTreeMap<::std::string::String, ::std::string::String>"
            ),
            "lenient::Map<lenient::Str>"
        );
        assert_eq!(
            adapter_of("::std::collections::BTreeMap<::std::string::String, ::std::vec::Vec<i64>>"),
            "lenient::Map<lenient::Seq<lenient::Num>>"
        );
        assert_eq!(
            adapter_of("::serde_json::Map<::std::string::String, ::serde_json::Value>"),
            "lenient::Map<lenient::Same>"
        );
        assert_eq!(adapter_of("::serde_json::Value"), "-");
        assert_eq!(adapter_of("IntegerOrString"), "-");
        let set: Type = syn::parse_str("::std::collections::BTreeSet<i64>").expect("a type");
        assert!(adapter(&set, &Shapes::default()).is_err());
    }

    #[test]
    fn a_record_s_primary_field_is_its_id_or_its_one_required_field() {
        let file: syn::File = parse_quote! {
            pub mod types {
                #[derive(::serde::Deserialize)]
                pub struct Customer {
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    pub id: ::std::option::Option<i64>,
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    pub name: ::std::option::Option<::std::string::String>,
                }
                #[derive(::serde::Deserialize)]
                pub struct Money {
                    pub amount: NumberOrString,
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    pub currency: ::std::option::Option<::std::string::String>,
                }
                #[derive(::serde::Deserialize)]
                pub struct Pair {
                    pub id: i64,
                    pub name: ::std::string::String,
                }
                #[derive(::serde::Deserialize)]
                pub struct Tags {
                    pub tags: ::std::vec::Vec<::std::string::String>,
                }
                #[derive(::serde::Deserialize)]
                pub struct Renamed {
                    #[serde(rename = "type")]
                    pub type_: ::std::string::String,
                    #[serde(deserialize_with = "::std::option::Option::deserialize")]
                    pub note: ::std::option::Option<::std::string::String>,
                }
                #[derive(::serde::Deserialize)]
                pub struct Code(::std::string::String);
                #[derive(::serde::Deserialize)]
                pub enum Status { Active, Hidden }
            }
        };
        let (shapes, _) = type_facts(&file);
        let primary = |name: &str| shapes.records[name].clone();
        assert_eq!(
            primary("Customer").as_deref(),
            Some("id"),
            "id, all else optional"
        );
        assert_eq!(
            primary("Money").as_deref(),
            Some("amount"),
            "the one required field"
        );
        assert_eq!(primary("Pair"), None, "two required fields");
        assert_eq!(primary("Tags"), None, "a list is no primary field");
        assert_eq!(
            primary("Renamed"),
            None,
            "a required nullable field is required"
        );
        assert_eq!(
            shapes.strings,
            ["Code".to_owned(), "Status".to_owned()].into()
        );
    }

    #[test]
    fn request_types_read_text_as_booleans_or_objects_ids_as_records_and_leave_out_defaults() {
        let mut file: syn::File = parse_quote! {
            pub mod types {
                #[derive(::serde::Deserialize, ::serde::Serialize)]
                pub struct CreateThing {
                    pub name: ::std::string::String,
                    pub active: bool,
                    pub status: Status,
                    pub categories: ::std::vec::Vec<CategoryInput>,
                }
                #[derive(::serde::Deserialize, ::serde::Serialize)]
                pub struct CategoryInput {
                    pub id: i64,
                    pub name: ::std::string::String,
                }
                #[derive(::serde::Deserialize, ::serde::Serialize)]
                pub struct Answer {
                    pub name: ::std::string::String,
                }
            }
        };
        let mut shapes = shapes();
        shapes.inputs = ["CreateThing".to_owned(), "CategoryInput".to_owned()].into();
        for name in ["CreateThing", "CategoryInput", "Answer"] {
            shapes.records.insert(name.to_owned(), None);
        }
        let shapes = shapes.with_input_primaries(&file);
        assert_eq!(shapes.records["CategoryInput"].as_deref(), Some("id"));
        assert_eq!(shapes.records["CreateThing"], None, "no id");
        lenient_fields(&mut file, &shapes, &quote!(crate::lenient)).expect("rewrites");
        let text = prettyplease::unparse(&file);
        let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for want in [
            "#[serde( default, deserialize_with = \"lenient::As::<lenient::Defaulted<lenient::InputStr>>::deserialize\" )] pub name: ::std::string::String, #[serde( default, deserialize_with = \"lenient::As::<lenient::Defaulted<lenient::Bool>>::deserialize\" )] pub active: bool,",
            // A value set has no default: still required.
            "#[serde(deserialize_with = \"lenient::As::<lenient::InputStr>::deserialize\")] pub status: Status,",
            "lenient::As::<lenient::Defaulted<lenient::Seq<lenient::Ref>>>::deserialize",
            "impl lenient::Primary for CategoryInput { const FIELD: &'static str = \"id\"; }",
            // An answer's text stays text.
            "#[serde(deserialize_with = \"lenient::As::<lenient::Str>::deserialize\")] pub name: ::std::string::String, }",
        ] {
            assert!(flat.contains(want), "{want}\n{text}");
        }
    }

    #[test]
    fn request_only_fields_without_a_default_become_optional_and_their_builders_still_ask() {
        let mut file: syn::File = parse_quote! {
            pub mod types {
                #[derive(::serde::Deserialize, ::serde::Serialize)]
                pub struct CreateThing {
                    pub name: ThingName,
                    pub count: i64,
                    pub money: Money,
                    #[serde(skip_serializing_if = "::std::option::Option::is_none")]
                    pub note: ::std::option::Option<ThingName>,
                }
                #[derive(::serde::Deserialize, ::serde::Serialize)]
                pub struct Money {
                    pub amount: Amount,
                }
                #[derive(::serde::Deserialize, ::serde::Serialize)]
                pub struct Branch {
                    pub kind: ThingName,
                }
                #[derive(::serde::Deserialize, ::serde::Serialize)]
                #[serde(untagged)]
                pub enum Either {
                    Branch(Branch),
                    Money(Money),
                }
                pub mod builder {
                    pub struct CreateThing {
                        name: ::std::result::Result<super::ThingName, ::std::string::String>,
                        count: ::std::result::Result<i64, ::std::string::String>,
                    }
                    impl ::std::default::Default for CreateThing {
                        fn default() -> Self {
                            Self {
                                name: Err("no value supplied for name".to_string()),
                                count: Err("no value supplied for count".to_string()),
                            }
                        }
                    }
                    impl CreateThing {
                        pub fn name<T>(mut self, value: T) -> Self
                        where
                            T: ::std::convert::TryInto<super::ThingName>,
                            T::Error: ::std::fmt::Display,
                        {
                            self.name = value.try_into().map_err(|e| format!("{e}"));
                            self
                        }
                    }
                }
            }
        };
        let mut shapes = shapes();
        // `Money` is read in answers too; `Branch` is a union's branch.
        shapes.inputs = ["CreateThing", "Money", "Branch", "Either"]
            .map(str::to_owned)
            .into();
        shapes.answers = ["Money".to_owned()].into();
        let before = function_bodies(&file);
        let relaxed = optional_without_default(&mut file, &shapes);
        assert_eq!(relaxed, ["CreateThing.money", "CreateThing.name"]);
        bodies_unchanged(&before, &file).expect("no body edited");
        let text = prettyplease::unparse(&file);
        let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for want in [
            "#[serde(skip_serializing_if = \"::std::option::Option::is_none\")] pub name: ::std::option::Option<ThingName>,",
            // A number has a default: it stays (the lenient pass reads it as 0 when left out).
            "pub count: i64,",
            "pub money: ::std::option::Option<Money>,",
            // An answer's record and a union's branch stay as they are.
            "pub struct Money { pub amount: Amount, }",
            "pub struct Branch { pub kind: ThingName, }",
            // The builder's field and setter take the option; its default still asks.
            "name: ::std::result::Result< ::std::option::Option<super::ThingName>, ::std::string::String, >,",
            "T: ::std::convert::TryInto<::std::option::Option<super::ThingName>>,",
            "name: Err(\"no value supplied for name\".to_string()),",
        ] {
            assert!(flat.contains(want), "{want}\n{text}");
        }
    }

    #[test]
    fn a_create_answer_s_data_reads_a_record_without_its_id() {
        let mut file: syn::File = parse_quote! {
            pub mod types {
                #[derive(::serde::Deserialize, ::serde::Serialize)]
                pub struct ThingResponse {
                    pub data: Thing,
                    pub status: i64,
                }
                #[derive(::serde::Deserialize, ::serde::Serialize)]
                pub struct Thing {
                    pub id: i64,
                    #[serde(skip_serializing_if = "::std::option::Option::is_none")]
                    pub name: ::std::option::Option<::std::string::String>,
                }
                #[derive(::serde::Deserialize, ::serde::Serialize)]
                pub struct ThingList {
                    pub data: Thing,
                }
            }
        };
        let mut shapes = shapes();
        shapes.records.insert("ThingResponse".to_owned(), None);
        shapes.records.insert("ThingList".to_owned(), None);
        shapes
            .records
            .insert("Thing".to_owned(), Some("id".to_owned()));
        shapes.created = ["ThingResponse".to_owned()].into();
        lenient_fields(&mut file, &shapes, &quote!(crate::lenient)).expect("rewrites");
        let text = prettyplease::unparse(&file);
        let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("pub struct ThingResponse { #[serde(deserialize_with = \"lenient::As::<lenient::Created>::deserialize\")] pub data: Thing,"),
            "{text}"
        );
        // Elsewhere the record still needs its id.
        assert!(
            flat.contains("pub struct ThingList { #[serde(deserialize_with = \"lenient::As::<lenient::Ref>::deserialize\")] pub data: Thing,"),
            "{text}"
        );
    }

    #[test]
    fn lenient_fields_keep_optional_fields_optional_and_required_ones_required() {
        let mut file: syn::File = parse_quote! {
            pub mod types {
                #[derive(::serde::Deserialize, ::serde::Serialize)]
                pub struct Order {
                    pub id: i64,
                    #[serde(skip_serializing_if = "::std::option::Option::is_none")]
                    pub total: ::std::option::Option<Money>,
                    #[serde(deserialize_with = "::std::option::Option::deserialize")]
                    pub paid: ::std::option::Option<f64>,
                    pub name: ::std::string::String,
                    #[serde(default, skip_serializing_if = "::std::vec::Vec::is_empty")]
                    pub tags: ::std::vec::Vec<::std::string::String>,
                    pub note: ::serde_json::Value,
                }
                #[derive(::serde::Deserialize, ::serde::Serialize)]
                pub struct Money {
                    pub amount: f64,
                }
            }
        };
        lenient_fields(&mut file, &shapes(), &quote!(crate::lenient)).expect("rewrites");
        let text = prettyplease::unparse(&file);
        let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains("use crate::lenient;"), "{text}");
        // The record requires more than its id: an answer that leaves the id out (a create
        // answer echoing the record) reads it as absent (`lenient::absent_id`), the others stay
        // required.
        assert!(
            flat.contains("#[serde( default = \"lenient::absent_id::<i64>\", deserialize_with = \"lenient::As::<lenient::Defaulted<lenient::Num>>::deserialize\" )] pub id: i64,"),
            "{text}"
        );
        assert!(
            flat.contains("#[serde(skip_serializing_if = \"::std::option::Option::is_none\")] #[serde( default, deserialize_with = \"lenient::As::<lenient::Opt<lenient::Ref>>::deserialize\" )] pub total"),
            "{text}"
        );
        // Required and nullable: no default, so a missing field stays an error.
        assert!(
            flat.contains("#[serde( deserialize_with = \"lenient::As::<lenient::Opt<lenient::Num>>::deserialize\" )] pub paid"),
            "{text}"
        );
        assert!(
            flat.contains("#[serde(deserialize_with = \"lenient::As::<lenient::Str>::deserialize\")] pub name: ::std::string::String,"),
            "{text}"
        );
        // An optional list: `null` is the empty list.
        assert!(
            flat.contains("lenient::As::<lenient::Defaulted<lenient::Seq<lenient::Str>>>::deserialize\" )] pub tags"),
            "{text}"
        );
        assert_eq!(text.matches("deserialize_with").count(), 6, "{text}");
        assert!(
            flat.contains(
                "impl lenient::Primary for Money { const FIELD: &'static str = \"amount\"; }"
            ),
            "{text}"
        );
    }

    #[test]
    fn the_json_schema_derive_is_behind_the_schemars_feature() {
        let mut file: syn::File = parse_quote! {
            pub mod types {
                #[derive(::serde::Deserialize, Clone, schemars::JsonSchema)]
                #[serde(transparent)]
                pub struct Id(pub i64);
                #[derive(Clone)]
                pub enum Plain { A }
            }
        };
        gate_json_schema(&mut file);
        let flat: String = prettyplease::unparse(&file)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            flat.contains("#[derive(::serde::Deserialize, Clone)] #[cfg_attr(feature = \"schemars\", derive(schemars::JsonSchema))] #[serde(transparent)] pub struct Id"),
            "{flat}"
        );
        assert!(flat.contains("#[derive(Clone)] pub enum Plain"), "{flat}");
    }

    #[test]
    fn a_body_edited_by_a_pass_is_found_and_moved_or_dropped_ones_are_not() {
        let original: syn::File = parse_quote! {
            impl Client {
                pub fn get_order(&self) -> u8 { self.send(1) }
                pub fn new() -> Self { Self }
            }
            fn helper() -> u8 { 2 }
        };
        let before = function_bodies(&original);
        // Moved whole into a trait impl, `new` and `helper` dropped: nothing edited.
        let moved: syn::File = parse_quote! {
            #[deprecated]
            impl OrdersApi for Client {
                fn get_order(&self) -> u8 { self.send(1) }
            }
        };
        bodies_unchanged(&before, &moved).expect("moved, not edited");
        let edited: syn::File = parse_quote! {
            impl OrdersApi for Client {
                fn get_order(&self) -> u8 { self.send(2) }
            }
        };
        let error = bodies_unchanged(&before, &edited).expect_err("edited");
        assert!(error.to_string().contains("self . send (2)"), "{error}");
        let twice: syn::File = parse_quote! {
            fn helper() -> u8 { 2 }
            fn other() -> u8 { 2 }
        };
        assert!(
            bodies_unchanged(&before, &twice).is_err(),
            "one body, written twice"
        );
    }

    #[test]
    fn the_core_client_s_fields_the_builders_read_are_public_and_hidden() {
        let mut file: syn::File = parse_quote! {
            pub struct Client {
                pub(crate) baseurl: String,
                pub(crate) client: reqwest::Client,
                pub(crate) inner: crate::Inner,
            }
        };
        expose_client_fields(&mut file).expect("exposed");
        let text = prettyplease::unparse(&file);
        assert!(
            text.contains("#[doc(hidden)]\n    pub baseurl: String,"),
            "{text}"
        );
        assert!(
            text.contains("#[doc(hidden)]\n    pub client: reqwest::Client,"),
            "{text}"
        );
        assert!(text.contains("pub(crate) inner: crate::Inner,"), "{text}");
        let mut renamed: syn::File = parse_quote! {
            pub struct Client { pub(crate) base_url: String, pub(crate) client: reqwest::Client }
        };
        let error = expose_client_fields(&mut renamed).expect_err("a field is missing");
        assert!(error.to_string().contains("changed shape"), "{error}");
        let mut none: syn::File = parse_quote!(
            pub struct Other;
        );
        assert!(expose_client_fields(&mut none).is_err());
    }

    #[test]
    fn an_area_uses_the_core_client_through_its_trait() {
        let mut file: syn::File = parse_quote! {
            pub use progenitor_client::{ClientInfo, Error};
            pub mod types {
                pub mod error { pub struct ConversionError; }
                pub struct Order;
            }
            pub struct Client { pub(crate) baseurl: String }
            impl Client {
                pub fn new(baseurl: &str) -> Self { todo!() }
            }
            impl ClientInfo<Inner> for Client {}
            impl Client {
                #[doc = "Get an order"]
                pub fn get_order(&self) -> builder::GetOrder<'_> { builder::GetOrder::new(self) }
            }
            pub mod builder {
                #[doc = "Builder for [`Client::get_order`]\n\n[`Client::get_order`]: super::Client::get_order"]
                pub struct GetOrder<'a> { client: &'a super::Client }
                impl<'a> GetOrder<'a> {
                    pub fn new(client: &'a super::Client) -> Self { Self { client } }
                    pub async fn send(self) {
                        let url = format!("{}/orders", client.baseurl,);
                        let version = super::Client::api_version();
                    }
                }
            }
        };
        into_area(&mut file, "OrdersApi", "orders").expect("rewrites");
        let text = prettyplease::unparse(&file);
        assert!(!text.contains("pub struct Client"), "{text}");
        assert!(
            text.contains("use ::store_admin_client_core::Client;"),
            "{text}"
        );
        assert!(!text.contains("pub mod error"), "{text}");
        assert!(
            text.contains("pub use ::store_admin_client_core::types::error;"),
            "{text}"
        );
        assert!(
            text.contains("use progenitor_client::{ClientInfo, Error};"),
            "{text}"
        );
        assert!(!text.contains("pub use progenitor_client"), "{text}");
        assert!(text.contains("pub trait OrdersApi {\n    ///Get an order\n    fn get_order(&self) -> builder::GetOrder<'_>;\n}"), "{text}");
        assert!(
            text.contains("impl OrdersApi for Client {\n    fn get_order(&self)"),
            "{text}"
        );
        // The builders are as progenitor wrote them: `super::Client` is the core's, imported.
        assert!(text.contains("client: &'a super::Client"), "{text}");
        assert!(
            text.contains("format!(\"{}/orders\", client.baseurl,)"),
            "{text}"
        );
        assert!(text.contains("super::Client::api_version()"), "{text}");
        assert!(text.contains("super::OrdersApi::get_order"), "{text}");
    }
}

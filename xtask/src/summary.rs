//! `cargo xtask summary`: the API as the generated code exposes it, one line per operation.
//!
//! Read back from the generated source with `syn` (not from the document), so the summary shows
//! what callers actually get: the operation methods (of each area's trait, or of a fixture's
//! `impl Client`) with the method and path from their doc comments, each `builder::X` struct's
//! fields, and each `send`'s success and error types. Types of the core crate show as `types::X`,
//! like the area's own: the facade re-exports both there.
//!
//! ```text
//! GET /orders  list_orders()  page: Option<NonZeroU64>, per_page: ...  -> types::OrderList / types::ErrorResponse
//! ```

use std::collections::HashMap;

use anyhow::{Context, Result, bail};
use quote::ToTokens;
use syn::visit_mut::VisitMut;
use syn::{
    Attribute, Expr, Fields, GenericArgument, ImplItem, Item, Lit, Meta, PathArguments, ReturnType,
    Type,
};

/// One line per operation of the split client: each area's file in turn (see
/// [`crate::model::client_files`]).
pub fn summarize_client(root: &std::path::Path) -> Result<String> {
    let mut out = String::new();
    for rel_path in crate::model::client_files().iter().skip(1) {
        let source = std::fs::read_to_string(root.join(rel_path))
            .with_context(|| format!("reading {rel_path} (run `cargo xtask generate`)"))?;
        out.push_str(&summarize(&source).with_context(|| format!("summarizing {rel_path}"))?);
    }
    Ok(out)
}

/// One line per operation of one generated file, in the order of its operation methods.
pub fn summarize(source: &str) -> Result<String> {
    let file = syn::parse_file(source).context("the generated code does not parse")?;
    let builder = file
        .items
        .iter()
        .find_map(|item| match item {
            Item::Mod(m) if m.ident == "builder" => m.content.as_ref().map(|(_, items)| items),
            _ => None,
        })
        .context("no `pub mod builder` in the generated code")?;
    let fields = builder_fields(builder);
    let sends = builder_sends(builder)?;

    let mut out = String::new();
    for (attrs, sig) in client_methods(&file) {
        let name = sig.ident.to_string();
        let (http_method, path) = sends_line(attrs).with_context(|| {
            format!("`Client::{name}` has no \"Sends a ... request to ...\" doc line")
        })?;
        let ReturnType::Type(_, ty) = &sig.output else {
            bail!("`Client::{name}` returns nothing");
        };
        let builder_name =
            last_ident(ty).with_context(|| format!("`Client::{name}` return type"))?;
        let params = fields
            .get(&builder_name)
            .with_context(|| format!("no `builder::{builder_name}` struct"))?;
        let (ok, err) = sends
            .get(&builder_name)
            .with_context(|| format!("no `builder::{builder_name}::send`"))?;
        let params = match params.is_empty() {
            true => String::new(),
            false => format!("{}  ", params.join(", ")),
        };
        out.push_str(&format!(
            "{http_method} {path}  {name}()  {params}-> {ok} / {err}\n"
        ));
    }
    Ok(out)
}

/// Methods whose doc says which request they send: of every inherent `impl Client` (a fixture)
/// and every trait (an area's operations).
fn client_methods(file: &syn::File) -> Vec<(&[Attribute], &syn::Signature)> {
    let mut out = Vec::new();
    for item in &file.items {
        match item {
            Item::Impl(i)
                if i.trait_.is_none() && last_ident(&i.self_ty).as_deref() == Some("Client") =>
            {
                for member in &i.items {
                    if let ImplItem::Fn(f) = member {
                        out.push((f.attrs.as_slice(), &f.sig));
                    }
                }
            }
            Item::Trait(t) => {
                for member in &t.items {
                    if let syn::TraitItem::Fn(f) = member {
                        out.push((f.attrs.as_slice(), &f.sig));
                    }
                }
            }
            _ => {}
        }
    }
    out.retain(|(attrs, _)| sends_line(attrs).is_some());
    out
}

/// The doc comment as one string.
fn doc(attrs: &[Attribute]) -> String {
    attrs
        .iter()
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                Expr::Lit(lit) => match &lit.lit {
                    Lit::Str(s) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `("GET", "/orders")` from the doc line "Sends a `GET` request to `/orders`".
fn sends_line(attrs: &[Attribute]) -> Option<(String, String)> {
    let doc = doc(attrs);
    let line = doc
        .lines()
        .find_map(|l| l.trim().strip_prefix("Sends a `"))?;
    let (method, rest) = line.split_once("` request to `")?;
    let path = rest.split('`').next()?;
    Some((method.to_owned(), path.to_owned()))
}

/// The last path segment's identifier of a type (`builder::ListOrders<'_>` -> `ListOrders`).
fn last_ident(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// The generic type arguments of a path type's last segment.
fn type_args(ty: &Type) -> Vec<&Type> {
    let Type::Path(p) = ty else { return Vec::new() };
    let Some(PathArguments::AngleBracketed(args)) = p.path.segments.last().map(|s| &s.arguments)
    else {
        return Vec::new();
    };
    args.args
        .iter()
        .filter_map(|a| match a {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect()
}

/// Each builder struct's parameters (`name: Type`), without the `client` field; the
/// `Result<T, String>` that builders keep for deferred conversion errors is shown as `T`.
fn builder_fields(items: &[Item]) -> HashMap<String, Vec<String>> {
    items
        .iter()
        .filter_map(|item| match item {
            Item::Struct(s) => Some(s),
            _ => None,
        })
        .map(|s| {
            let params = match &s.fields {
                Fields::Named(named) => named
                    .named
                    .iter()
                    .filter(|f| f.ident.as_ref().is_some_and(|i| i != "client"))
                    .map(|f| {
                        let ty = match last_ident(&f.ty).as_deref() {
                            Some("Result") => type_args(&f.ty).first().copied().unwrap_or(&f.ty),
                            _ => &f.ty,
                        };
                        let name = f
                            .ident
                            .as_ref()
                            .map(ToString::to_string)
                            .unwrap_or_default();
                        format!("{name}: {}", render(ty))
                    })
                    .collect(),
                _ => Vec::new(),
            };
            (s.ident.to_string(), params)
        })
        .collect()
}

/// Each builder's `send` result: (success type, error type), from
/// `Result<ResponseValue<T>, Error<E>>`.
fn builder_sends(items: &[Item]) -> Result<HashMap<String, (String, String)>> {
    let mut sends = HashMap::new();
    for item in items {
        let Item::Impl(i) = item else { continue };
        let Some(name) = last_ident(&i.self_ty) else {
            continue;
        };
        for item in &i.items {
            let ImplItem::Fn(f) = item else { continue };
            if f.sig.ident != "send" {
                continue;
            }
            let ReturnType::Type(_, ty) = &f.sig.output else {
                bail!("`builder::{name}::send` returns nothing");
            };
            let inner = |ty: &Type| {
                type_args(ty)
                    .first()
                    .map(|t| render(t))
                    .unwrap_or_else(|| render(ty))
            };
            match type_args(ty).as_slice() {
                [ok, err] => sends.insert(name.clone(), (inner(ok), inner(err))),
                _ => bail!(
                    "`builder::{name}::send` does not return `Result<ResponseValue<T>, Error<E>>`"
                ),
            };
        }
    }
    Ok(sends)
}

/// Shortens paths outside `types::` to their last segment (`::std::num::NonZeroU64` -> `NonZeroU64`),
/// and paths into a crate's `types` to `types::..` (`::store_admin_client_core::types::Money`).
struct Shorten;

impl VisitMut for Shorten {
    fn visit_type_path_mut(&mut self, p: &mut syn::TypePath) {
        if p.qself.is_none()
            && let Some(at) = p.path.segments.iter().position(|s| s.ident == "types")
            && at > 0
        {
            let rest: Vec<syn::PathSegment> = p.path.segments.iter().skip(at).cloned().collect();
            p.path.segments = rest.into_iter().collect();
            p.path.leading_colon = None;
        }
        let keep = p.path.segments.first().is_some_and(|s| s.ident == "types");
        if p.qself.is_none()
            && !keep
            && p.path.segments.len() > 1
            && let Some(last) = p.path.segments.pop()
        {
            p.path.segments.clear();
            p.path.segments.push(last);
            p.path.leading_colon = None;
        }
        syn::visit_mut::visit_type_path_mut(self, p);
    }
}

/// A type as compact text: `Option<Vec<String>>`, `types::OrderList`, `()`.
fn render(ty: &Type) -> String {
    let mut ty = ty.clone();
    Shorten.visit_type_mut(&mut ty);
    let text = ty.to_token_stream().to_string();
    [
        (" < ", "<"),
        ("< ", "<"),
        (" <", "<"),
        (" >", ">"),
        (" :: ", "::"),
        (" ,", ","),
        ("( )", "()"),
    ]
    .iter()
    .fold(text, |t, (from, to)| t.replace(from, to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;
    use crate::generate::progenitor_version;
    use crate::render::{Flavor, render_client};

    fn fixture_summary(name: &str) -> String {
        let root = crate::document::workspace_root();
        let doc = Document::load(&root, &format!("openapi/fixtures/{name}.yaml")).expect("loads");
        let version = progenitor_version(&root).expect("Cargo.lock names progenitor");
        let code = render_client(&doc, Flavor::Fixture, &version).expect("generates");
        summarize(&code).expect("summarizes")
    }

    #[test]
    fn summary_shows_method_path_parameters_and_result_types() {
        assert_eq!(
            fixture_summary("shared_error"),
            "GET /widgets/{widget_id}  get_widget()  widget_id: i64  -> types::Widget / types::ErrorResponse\n"
        );
        assert_eq!(
            fixture_summary("array_query"),
            "GET /items  list_items()  tags: Option<Vec<String>>  -> types::ItemList / ()\n"
        );
        assert_eq!(
            fixture_summary("created_201"),
            "POST /categories  create_category()  body: types::builder::CategoryCreate  -> types::Category / ()\n"
        );
    }

    #[test]
    fn summary_of_code_without_builders_is_an_error() {
        let error = summarize("pub struct Client;").expect_err("no builder module");
        assert_eq!(
            error.to_string(),
            "no `pub mod builder` in the generated code"
        );
    }

    #[test]
    fn api_summary() {
        let summary = summarize_client(&crate::document::workspace_root()).expect("summarizes");
        insta::assert_snapshot!("api_summary", summary);
    }
}

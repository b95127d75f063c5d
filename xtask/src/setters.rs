//! Setters that take what a developer has: an amount as `"149.50"`, a `Decimal` or an integer, an
//! open value set as its text (`"cod"`), one value where a list goes, a date as its text.
//!
//! typify's struct setters are `fn f<T: TryInto<Field>>`, and progenitor's query setters
//! `fn f<V: TryInto<Field>>`. For a field that is an `Option<X>`, a `Vec<X>` or a `NaiveDate`, no
//! crate but `std` may implement `TryFrom<&str>` for the field's type (the orphan rule: `Option`,
//! `Vec` and `&str` are all foreign), so `.price("149.50")` or `.payment_method("cod")` can never
//! compile against those signatures. This pass drops exactly those setters (whole: no body of
//! progenitor's output is edited) and adds setters of the same name and shape bounded by the
//! core's `IntoOptional<X>`, `IntoList<X>` and `IntoValue<X>`, traits generated into the core
//! with the conversions `X` accepts: every setter that took a value still takes it (`X`,
//! `Option<X>`, `Vec<X>`), and more. The conversions themselves are `From`/`TryFrom` impls on the
//! generated types (an amount from text, a `Decimal` or an integer, sent as the exact decimal
//! text; an open value set from `&str`), written beside the types.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};
use syn::{Fields, GenericArgument, ImplItem, Item, PathArguments, Type, WherePredicate};

use crate::rewrite::last_ident;

/// The value kinds of a generated file's types that setters convert into.
#[derive(Clone, Debug, Default)]
pub struct Kinds {
    /// "Number or string" decimals: untagged enums `Number(f64)` / `String(String)`.
    pub amounts: BTreeSet<String>,
    /// Records whose one required field is an amount (`Money {amount, currency?}`), with that
    /// field, its amount type and the other fields.
    pub amount_records: BTreeMap<String, (String, String, Vec<String>)>,
    /// Open value sets: string newtypes that take any `String` (`From<String>`).
    pub open_strings: BTreeSet<String>,
    /// Checked strings (a length, a pattern): string newtypes with `TryFrom<&str>`.
    pub checked_strings: BTreeSet<String>,
}

fn types_items(file: &syn::File) -> &[Item] {
    file.items
        .iter()
        .find_map(|item| match item {
            Item::Mod(m) if m.ident == "types" => m.content.as_ref().map(|(_, i)| i.as_slice()),
            _ => None,
        })
        .unwrap_or(&[])
}

/// The inner type of `Wrapper<T>` when `ty`'s last segment is `wrapper`.
fn inner_of<'a>(ty: &'a Type, wrapper: &str) -> Option<&'a Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != wrapper {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        GenericArgument::Type(inner) => Some(inner),
        _ => None,
    }
}

/// The kinds of `file`'s types, run on typify's output (before the lenient pass); `core` is the
/// core's kinds, which an area's records may reach.
pub fn kinds(file: &syn::File, core: &Kinds) -> Kinds {
    let items = types_items(file);
    let mut kinds = Kinds::default();
    let mut from_string = BTreeSet::new();
    let mut try_from_str = BTreeSet::new();
    for item in items {
        match item {
            Item::Enum(e) => {
                let untagged = e
                    .attrs
                    .iter()
                    .any(|a| a.to_token_stream().to_string().contains("untagged"));
                let shape: Vec<(String, Option<String>)> = e
                    .variants
                    .iter()
                    .map(|v| {
                        let ty = match &v.fields {
                            Fields::Unnamed(f) if f.unnamed.len() == 1 => {
                                f.unnamed.first().and_then(|f| last_ident(&f.ty))
                            }
                            _ => None,
                        };
                        (v.ident.to_string(), ty)
                    })
                    .collect();
                let amount = [
                    ("Number".to_owned(), Some("f64".to_owned())),
                    ("String".to_owned(), Some("String".to_owned())),
                ];
                if untagged && shape == amount {
                    kinds.amounts.insert(e.ident.to_string());
                }
            }
            Item::Impl(i) => {
                let (Some((path, _)), Some(name)) = (&i.trait_, last_ident(&i.self_ty)) else {
                    continue;
                };
                let Some(last) = path.segments.last() else {
                    continue;
                };
                let arg = match &last.arguments {
                    PathArguments::AngleBracketed(a) => a.args.first(),
                    _ => None,
                };
                let Some(GenericArgument::Type(arg)) = arg else {
                    continue;
                };
                match last.ident.to_string().as_str() {
                    "From" if last_ident(arg).as_deref() == Some("String") => {
                        from_string.insert(name);
                    }
                    "TryFrom" | "From" if matches!(arg, Type::Reference(_)) => {
                        try_from_str.insert(name);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    let amounts: BTreeSet<String> = kinds.amounts.union(&core.amounts).cloned().collect();
    for item in items {
        // A closed value set (`enum { Sale, Out, Hidden }`) from its text, checked.
        if let Item::Enum(e) = item
            && !e.variants.is_empty()
            && e.variants.iter().all(|v| matches!(v.fields, Fields::Unit))
            && try_from_str.contains(&e.ident.to_string())
        {
            kinds.checked_strings.insert(e.ident.to_string());
        }
        let Item::Struct(s) = item else { continue };
        let name = s.ident.to_string();
        match &s.fields {
            Fields::Unnamed(f) => {
                let is_string = f.unnamed.len() == 1
                    && f.unnamed.first().and_then(|f| last_ident(&f.ty)).as_deref()
                        == Some("String");
                if is_string && from_string.contains(&name) && !try_from_str.contains(&name) {
                    kinds.open_strings.insert(name);
                } else if is_string && try_from_str.contains(&name) && !from_string.contains(&name)
                {
                    kinds.checked_strings.insert(name);
                }
            }
            Fields::Named(f) => {
                let required: Vec<&syn::Field> = f
                    .named
                    .iter()
                    .filter(|f| inner_of(&f.ty, "Option").is_none())
                    .collect();
                if let [only] = required.as_slice()
                    && let Some(amount) = last_ident(&only.ty).filter(|t| amounts.contains(t))
                    && let Some(field) = &only.ident
                {
                    let others = f
                        .named
                        .iter()
                        .filter_map(|f| f.ident.as_ref())
                        .filter(|i| *i != field)
                        .map(ToString::to_string)
                        .collect();
                    kinds
                        .amount_records
                        .insert(name, (field.to_string(), amount, others));
                }
            }
            Fields::Unit => {}
        }
    }
    kinds
}

/// The traits the setters are bounded by, with their conversions of std's and chrono's types:
/// generated into the core's `generated.rs`, at its root.
pub fn core_traits() -> Vec<Item> {
    let file: syn::File = syn::parse2(quote! {
        /// The exact decimal (`rust_decimal`'s) that an amount field of a request takes, sent as
        /// its exact text.
        pub use ::rust_decimal::Decimal;
        /// What a generated setter of an optional field of type `T` takes: a `T`, an
        /// `Option<T>` (`None` unsets it), and what converts into `T` (an amount from
        /// `"149.50"`, a `Decimal` or an integer; an open value set from its text; a
        /// `NaiveDate` from `"2025-01-31"`).
        pub trait IntoOptional<T> {
            /// The field's value, or why this value cannot be one.
            fn into_optional(self) -> ::std::result::Result<::std::option::Option<T>, ::std::string::String>;
        }
        impl<T> IntoOptional<T> for T {
            fn into_optional(self) -> ::std::result::Result<::std::option::Option<T>, ::std::string::String> {
                Ok(Some(self))
            }
        }
        impl<T> IntoOptional<T> for ::std::option::Option<T> {
            fn into_optional(self) -> ::std::result::Result<::std::option::Option<T>, ::std::string::String> {
                Ok(self)
            }
        }
        impl IntoOptional<::std::string::String> for &str {
            fn into_optional(self) -> ::std::result::Result<::std::option::Option<::std::string::String>, ::std::string::String> {
                Ok(Some(self.to_owned()))
            }
        }
        impl IntoOptional<::chrono::naive::NaiveDate> for &str {
            fn into_optional(self) -> ::std::result::Result<::std::option::Option<::chrono::naive::NaiveDate>, ::std::string::String> {
                <&str as IntoValue<::chrono::naive::NaiveDate>>::into_value(self).map(Some)
            }
        }
        impl IntoOptional<::chrono::naive::NaiveDate> for ::std::string::String {
            fn into_optional(self) -> ::std::result::Result<::std::option::Option<::chrono::naive::NaiveDate>, ::std::string::String> {
                <&str as IntoValue<::chrono::naive::NaiveDate>>::into_value(self.as_str()).map(Some)
            }
        }
        /// What a generated setter of a list field of `T` takes: one `T` as well as many (a
        /// `Vec<T>`, an array, a slice), and for a list of text or of an open value set, `&str`s.
        pub trait IntoList<T> {
            /// The list, or why this value cannot be one.
            fn into_list(self) -> ::std::result::Result<::std::vec::Vec<T>, ::std::string::String>;
        }
        impl<T> IntoList<T> for T {
            fn into_list(self) -> ::std::result::Result<::std::vec::Vec<T>, ::std::string::String> {
                Ok(::std::vec![self])
            }
        }
        impl<T> IntoList<T> for ::std::vec::Vec<T> {
            fn into_list(self) -> ::std::result::Result<::std::vec::Vec<T>, ::std::string::String> {
                Ok(self)
            }
        }
        impl<T, const N: usize> IntoList<T> for [T; N] {
            fn into_list(self) -> ::std::result::Result<::std::vec::Vec<T>, ::std::string::String> {
                Ok(self.into())
            }
        }
        impl<T: ::std::clone::Clone> IntoList<T> for &[T] {
            fn into_list(self) -> ::std::result::Result<::std::vec::Vec<T>, ::std::string::String> {
                Ok(self.to_vec())
            }
        }
        impl IntoList<::std::string::String> for &str {
            fn into_list(self) -> ::std::result::Result<::std::vec::Vec<::std::string::String>, ::std::string::String> {
                Ok(::std::vec![self.to_owned()])
            }
        }
        impl IntoList<::std::string::String> for ::std::vec::Vec<&str> {
            fn into_list(self) -> ::std::result::Result<::std::vec::Vec<::std::string::String>, ::std::string::String> {
                Ok(self.into_iter().map(str::to_owned).collect())
            }
        }
        /// What a generated setter of a required date field takes: a `NaiveDate`, or its text
        /// (`"2025-01-31"`, checked before anything is sent).
        pub trait IntoValue<T> {
            /// The field's value, or why this value cannot be one.
            fn into_value(self) -> ::std::result::Result<T, ::std::string::String>;
        }
        impl<T> IntoValue<T> for T {
            fn into_value(self) -> ::std::result::Result<T, ::std::string::String> {
                Ok(self)
            }
        }
        impl IntoValue<::chrono::naive::NaiveDate> for &str {
            fn into_value(self) -> ::std::result::Result<::chrono::naive::NaiveDate, ::std::string::String> {
                ::chrono::naive::NaiveDate::parse_from_str(self.trim(), "%Y-%m-%d")
                    .map_err(|_| ::std::format!("expected a date as YYYY-MM-DD, got {self:?}"))
            }
        }
        impl IntoValue<::chrono::naive::NaiveDate> for ::std::string::String {
            fn into_value(self) -> ::std::result::Result<::chrono::naive::NaiveDate, ::std::string::String> {
                <&str as IntoValue<::chrono::naive::NaiveDate>>::into_value(self.as_str())
            }
        }
        /// The exact decimal text of an amount given as text: `"149.50"` stays `"149.50"`
        /// (surrounding spaces dropped); anything that is not a decimal number is refused.
        #[doc(hidden)]
        pub fn amount_text(text: &str) -> ::std::result::Result<::std::string::String, ::std::string::String> {
            let trimmed = text.trim();
            match trimmed.parse::<Decimal>() {
                Ok(_) => Ok(trimmed.to_owned()),
                Err(_) => match Decimal::from_scientific(trimmed) {
                    Ok(_) => Ok(trimmed.to_owned()),
                    Err(_) => Err(::std::format!("expected a decimal amount such as \"149.50\", got {text:?}")),
                },
            }
        }
    })
    .expect("the core's setter traits parse");
    file.items
}

/// The sources an amount converts from without fail (its text is checked: `TryFrom`).
const EXACT: [&str; 5] = ["i64", "i32", "u32", "u64", "Decimal"];

fn ty(text: &str) -> Type {
    syn::parse_str(text).expect("a type")
}

/// The conversions of `kinds`' types (`types::X` of the file), for the setters: `core` names the
/// core crate in the file's paths (`crate` or `::store_admin_client_core`).
pub fn conversions(kinds: &Kinds, core: &TokenStream) -> Vec<Item> {
    let mut items: Vec<TokenStream> = Vec::new();
    // `Decimal` is the core's re-export of `rust_decimal`'s, which the areas do not depend on.
    let ty = |text: &str| -> Type {
        if text == "Decimal" {
            syn::parse2(quote!(#core::Decimal)).expect("a type")
        } else {
            ty(text)
        }
    };
    let optional = |target: &TokenStream, source: &Type| {
        quote! {
            impl #core::IntoOptional<#target> for #source {
                fn into_optional(self) -> ::std::result::Result<::std::option::Option<#target>, ::std::string::String> {
                    <#target as ::std::convert::TryFrom<#source>>::try_from(self)
                        .map(Some)
                        .map_err(|e| e.to_string())
                }
            }
        }
    };
    {
        for name in &kinds.amounts {
            let target = format_ident!("{name}");
            let t = quote!(types::#target);
            for source in EXACT {
                let source = ty(source);
                items.push(quote! {
                    /// The exact decimal text of the value (no detour through `f64`).
                    impl ::std::convert::From<#source> for #t {
                        fn from(value: #source) -> Self {
                            Self::String(value.to_string())
                        }
                    }
                });
            }
            items.push(quote! {
                /// A decimal amount given as text, sent as written (`"149.50"`); anything else is
                /// refused.
                impl ::std::convert::TryFrom<&str> for #t {
                    type Error = ::std::string::String;
                    fn try_from(value: &str) -> ::std::result::Result<Self, Self::Error> {
                        #core::amount_text(value).map(Self::String)
                    }
                }
                impl ::std::convert::TryFrom<::std::string::String> for #t {
                    type Error = ::std::string::String;
                    fn try_from(value: ::std::string::String) -> ::std::result::Result<Self, Self::Error> {
                        Self::try_from(value.as_str())
                    }
                }
            });
            for source in EXACT
                .iter()
                .chain(&["&str", "::std::string::String", "f64"])
            {
                items.push(optional(&t, &ty(source)));
            }
        }
    }
    for (name, (field, amount_name, others)) in &kinds.amount_records {
        let amount_ident = format_ident!("{amount_name}");
        let amount_ty = if kinds.amounts.contains(amount_name) {
            quote!(types::#amount_ident)
        } else {
            quote!(#core::types::#amount_ident)
        };
        let target = format_ident!("{name}");
        let t = quote!(types::#target);
        let field = format_ident!("{field}");
        let others: Vec<_> = others.iter().map(|o| format_ident!("{o}")).collect();
        let build = quote! {
            Self { #field: amount, #( #others: ::std::default::Default::default(), )* }
        };
        let mut sources: Vec<String> = EXACT.iter().map(|s| (*s).to_owned()).collect();
        sources.push("f64".to_owned());
        for source in &sources {
            let source = ty(source);
            items.push(quote! {
                /// The amount alone (no currency): exact.
                impl ::std::convert::From<#source> for #t {
                    fn from(value: #source) -> Self {
                        let amount = <#amount_ty as ::std::convert::From<#source>>::from(value);
                        #build
                    }
                }
            });
        }
        items.push(quote! {
            /// The amount alone (no currency), given as decimal text.
            impl ::std::convert::TryFrom<&str> for #t {
                type Error = ::std::string::String;
                fn try_from(value: &str) -> ::std::result::Result<Self, Self::Error> {
                    let amount = <#amount_ty as ::std::convert::TryFrom<&str>>::try_from(value)?;
                    Ok(#build)
                }
            }
            impl ::std::convert::TryFrom<::std::string::String> for #t {
                type Error = ::std::string::String;
                fn try_from(value: ::std::string::String) -> ::std::result::Result<Self, Self::Error> {
                    Self::try_from(value.as_str())
                }
            }
        });
        let amount_types: Vec<Type> = vec![syn::parse2(amount_ty.clone()).expect("a type")];
        for amount in &amount_types {
            items.push(quote! {
                impl ::std::convert::From<#amount> for #t {
                    fn from(amount: #amount) -> Self {
                        #build
                    }
                }
            });
            items.push(optional(&t, amount));
        }
        for source in sources
            .iter()
            .map(String::as_str)
            .chain(["&str", "::std::string::String"])
        {
            items.push(optional(&t, &ty(source)));
        }
    }
    for name in &kinds.open_strings {
        let target = format_ident!("{name}");
        let t = quote!(types::#target);
        items.push(quote! {
            impl ::std::convert::From<&str> for #t {
                fn from(value: &str) -> Self {
                    Self(value.to_owned())
                }
            }
        });
        for source in ["&str", "::std::string::String"] {
            let source = ty(source);
            items.push(optional(&t, &source));
            items.push(quote! {
                impl #core::IntoList<#t> for #source {
                    fn into_list(self) -> ::std::result::Result<::std::vec::Vec<#t>, ::std::string::String> {
                        Ok(::std::vec![#t::from(self)])
                    }
                }
                impl #core::IntoList<#t> for ::std::vec::Vec<#source> {
                    fn into_list(self) -> ::std::result::Result<::std::vec::Vec<#t>, ::std::string::String> {
                        Ok(self.into_iter().map(#t::from).collect())
                    }
                }
            });
        }
    }
    for name in &kinds.checked_strings {
        let target = format_ident!("{name}");
        let t = quote!(types::#target);
        for source in ["&str", "::std::string::String"] {
            items.push(optional(&t, &ty(source)));
        }
    }
    let file: syn::File = syn::parse2(quote!(#(#items)*)).expect("the conversions parse");
    file.items
}

/// The target of a setter `fn f<T>(mut self, value: T) -> Self where T: TryInto<Target>`.
fn setter_target(f: &syn::ImplItemFn) -> Option<Type> {
    let param = match f.sig.generics.params.first()? {
        syn::GenericParam::Type(t) if f.sig.generics.params.len() == 1 => t.ident.clone(),
        _ => return None,
    };
    for predicate in &f.sig.generics.where_clause.as_ref()?.predicates {
        let WherePredicate::Type(p) = predicate else {
            continue;
        };
        if param != p.bounded_ty.to_token_stream().to_string() {
            continue;
        }
        for bound in &p.bounds {
            let syn::TypeParamBound::Trait(t) = bound else {
                continue;
            };
            let last = t.path.segments.last()?;
            if last.ident != "TryInto" {
                continue;
            }
            if let PathArguments::AngleBracketed(args) = &last.arguments
                && let Some(GenericArgument::Type(target)) = args.args.first()
            {
                return Some(target.clone());
            }
        }
    }
    None
}

/// How a setter's target is taken: by which trait and method.
fn owned(target: &Type, core: &TokenStream) -> Option<(TokenStream, TokenStream)> {
    if let Some(inner) = inner_of(target, "Option") {
        return Some((quote!(#core::IntoOptional<#inner>), quote!(into_optional)));
    }
    if let Some(inner) = inner_of(target, "Vec") {
        return Some((quote!(#core::IntoList<#inner>), quote!(into_list)));
    }
    if last_ident(target).as_deref() == Some("NaiveDate") {
        return Some((quote!(#core::IntoValue<#target>), quote!(into_value)));
    }
    None
}

/// The field names of a builder struct whose type is `Result<Option<_>, String>` (progenitor's
/// optional parameters: its setter stores `Some`).
fn optional_fields(items: &[Item], name: &str) -> BTreeSet<String> {
    items
        .iter()
        .find_map(|item| match item {
            Item::Struct(s) if s.ident == name => Some(s),
            _ => None,
        })
        .map(|s| {
            s.fields
                .iter()
                .filter(|f| {
                    inner_of(&f.ty, "Result")
                        .and_then(|ok| inner_of(ok, "Option"))
                        .is_some()
                })
                .filter_map(|f| f.ident.as_ref().map(ToString::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Replaces the setters of a builder module (`items`) whose field is an `Option<X>`, a `Vec<X>`
/// or a `NaiveDate` by setters bounded by the core's traits. `wraps_some`: progenitor's operation
/// builders keep an optional parameter as `Result<Option<Field>, String>` and their setter's
/// target is the `Field`.
fn own_setters(items: &mut Vec<Item>, core: &TokenStream, wraps_some: bool) -> usize {
    let mut added = Vec::new();
    let mut count = 0;
    let snapshot = items.clone();
    for item in items.iter_mut() {
        let Item::Impl(imp) = item else { continue };
        if imp.trait_.is_some() {
            continue;
        }
        let Some(builder) = last_ident(&imp.self_ty) else {
            continue;
        };
        let optional = optional_fields(&snapshot, &builder);
        let mut new_fns: Vec<TokenStream> = Vec::new();
        imp.items.retain(|member| {
            let ImplItem::Fn(f) = member else { return true };
            let Some(target) = setter_target(f) else {
                return true;
            };
            let Some((bound, method)) = owned(&target, core) else {
                return true;
            };
            let name = &f.sig.ident;
            let field_name = name.to_string().trim_start_matches("r#").to_owned();
            let attrs = &f.attrs;
            let some =
                (wraps_some && optional.contains(&name.to_string())).then(|| quote!(.map(Some)));
            new_fns.push(quote! {
                #(#attrs)*
                pub fn #name<V>(mut self, value: V) -> Self
                where
                    V: #bound,
                {
                    self.#name = value
                        .#method()
                        #some
                        .map_err(|e| ::std::format!("{}: {e}", #field_name));
                    self
                }
            });
            false
        });
        if !new_fns.is_empty() {
            count += new_fns.len();
            let generics = &imp.generics;
            let self_ty = &imp.self_ty;
            added.push(quote! {
                impl #generics #self_ty {
                    #(#new_fns)*
                }
            });
        }
    }
    let file: syn::File = syn::parse2(quote!(#(#added)*)).expect("the owned setters parse");
    items.extend(file.items);
    count
}

/// The setters of a rendered file (its struct builders, `types::builder`, and its operation
/// builders, `builder`) that take what a developer has; run after
/// [`crate::rewrite::bodies_unchanged`]: the setters added are this pass's own.
pub fn setters(file: &mut syn::File, core: &TokenStream) -> usize {
    let mut count = 0;
    for item in &mut file.items {
        let Item::Mod(m) = item else { continue };
        let Some((_, items)) = m.content.as_mut() else {
            continue;
        };
        if m.ident == "types" {
            for inner in items.iter_mut() {
                if let Item::Mod(b) = inner
                    && b.ident == "builder"
                    && let Some((_, builders)) = b.content.as_mut()
                {
                    count += own_setters(builders, core, false);
                }
            }
        } else if m.ident == "builder" {
            count += own_setters(items, core, true);
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    const TYPIFY: &str = r#"
        pub mod types {
            #[serde(untagged)]
            pub enum NumberOrString { Number(f64), String(::std::string::String) }
            pub struct Method(pub ::std::string::String);
            impl ::std::convert::From<::std::string::String> for Method {
                fn from(value: ::std::string::String) -> Self { Self(value) }
            }
            pub struct Body { pub price: ::std::option::Option<NumberOrString>, pub name: ::std::string::String }
            pub mod builder {
                pub struct Body {
                    price: ::std::result::Result<::std::option::Option<super::NumberOrString>, ::std::string::String>,
                    name: ::std::result::Result<::std::string::String, ::std::string::String>,
                }
                impl Body {
                    pub fn price<T>(mut self, value: T) -> Self
                    where
                        T: ::std::convert::TryInto<::std::option::Option<super::NumberOrString>>,
                        T::Error: ::std::fmt::Display,
                    {
                        self.price = value.try_into().map_err(|e| format!("{e}"));
                        self
                    }
                    pub fn name<T>(mut self, value: T) -> Self
                    where
                        T: ::std::convert::TryInto<::std::string::String>,
                        T::Error: ::std::fmt::Display,
                    {
                        self.name = value.try_into().map_err(|e| format!("{e}"));
                        self
                    }
                }
            }
        }
    "#;

    #[test]
    fn an_optional_setter_is_owned_and_a_required_one_is_left_to_typify() {
        let mut file: syn::File = syn::parse_str(TYPIFY).unwrap();
        let kinds = kinds(&file, &Kinds::default());
        assert_eq!(kinds.amounts, BTreeSet::from(["NumberOrString".to_owned()]));
        assert_eq!(kinds.open_strings, BTreeSet::from(["Method".to_owned()]));
        assert_eq!(setters(&mut file, &quote!(crate)), 1);
        let text = file.to_token_stream().to_string();
        assert!(
            text.contains("V : crate :: IntoOptional < super :: NumberOrString >"),
            "{text}"
        );
        assert!(
            text.contains("pub fn name < T >"),
            "typify's setter stays: {text}"
        );
        assert_eq!(text.matches("pub fn price").count(), 1, "{text}");
        let conversions = conversions(&kinds, &quote!(crate));
        let text = quote!(#(#conversions)*).to_string();
        for wanted in [
            "impl :: std :: convert :: From < crate :: Decimal > for types :: NumberOrString",
            "impl :: std :: convert :: TryFrom < & str > for types :: NumberOrString",
            "impl crate :: IntoList < types :: Method > for & str",
            "impl :: std :: convert :: From < & str > for types :: Method",
        ] {
            assert!(text.contains(wanted), "no `{wanted}` in {text}");
        }
    }
}

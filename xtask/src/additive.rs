//! What keeps an additive change of the document an additive (minor) change of the Rust crates.
//!
//! progenitor and typify write records whose fields are all `pub` and area traits that anyone may
//! implement, so a new optional field of the document is a new field of a struct that callers can
//! build with a struct literal (cargo-semver-checks' `constructible_struct_adds_field`), and a new
//! operation is a new method of a trait that callers can implement (`trait_method_added`): both
//! breaking. Two item-level passes (no function body is edited) make them additive:
//!
//! - [`non_exhaustive_records`]: every record of the `types` module is `#[non_exhaustive]`. Its
//!   fields stay public for reading and matching (with `..`); a caller builds a request body with
//!   its typify builder (`types::X::builder()`, or `builder::X::default()` handed to an
//!   operation's `body`/`body_map`), which every type a request body reaches keeps (see
//!   [`crate::render::request_types`]), and a response from its JSON (serde), as the service does.
//! - [`seal_area_trait`]: an area's trait has a supertrait no one outside the crate can name, so
//!   the core's `Client` is its only implementation and a new method breaks no one.

use quote::format_ident;
use syn::{Attribute, Fields, Item, parse_quote};

/// The module of the sealing supertrait in an area's generated file.
pub const SEALED_MODULE: &str = "sealed";

fn is_non_exhaustive(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("non_exhaustive"))
}

/// Marks `#[non_exhaustive]` every struct with named fields of the top-level `types` module (not
/// typify's `types::builder` structs, whose fields are private already). Returns how many it
/// marked.
pub fn non_exhaustive_records(file: &mut syn::File) -> usize {
    let Some(types) = file.items.iter_mut().find_map(|item| match item {
        Item::Mod(m) if m.ident == "types" => m.content.as_mut().map(|(_, items)| items),
        _ => None,
    }) else {
        return 0;
    };
    let mut marked = 0;
    for item in types.iter_mut() {
        if let Item::Struct(s) = item
            && matches!(s.fields, Fields::Named(_))
            && !is_non_exhaustive(&s.attrs)
        {
            s.attrs.push(parse_quote!(#[non_exhaustive]));
            marked += 1;
        }
    }
    marked
}

/// Seals the area trait `trait_name` (written by [`crate::rewrite::into_area`]): a supertrait
/// `sealed::Sealed`, public in a private module and implemented for the core's `Client` only, and
/// a line of its documentation that says so. Fails if the file has no such trait.
pub fn seal_area_trait(file: &mut syn::File, trait_name: &str) -> anyhow::Result<()> {
    let module = format_ident!("{SEALED_MODULE}");
    let core = format_ident!("{}", crate::rewrite::CORE);
    let Some(area_trait) = file.items.iter_mut().find_map(|item| match item {
        Item::Trait(t) if t.ident == trait_name => Some(t),
        _ => None,
    }) else {
        anyhow::bail!("no trait `{trait_name}` to seal in the area's file");
    };
    area_trait.supertraits.push(parse_quote!(#module::Sealed));
    let note = " This trait is sealed: the core `Client` is its only implementation, so that a new \
                operation of the document is a new method here and breaks no one.";
    area_trait.attrs.push(parse_quote!(#[doc = ""]));
    area_trait.attrs.push(parse_quote!(#[doc = #note]));
    file.items.push(parse_quote! {
        mod #module {
            /// The supertrait that seals the area's trait: public, in a module no other crate
            /// can reach.
            pub trait Sealed {}
            impl Sealed for ::#core::Client {}
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_of_the_types_module_are_non_exhaustive_and_builders_untouched() {
        let mut file: syn::File = parse_quote! {
            pub mod types {
                pub struct Order { pub id: i64, pub note: Option<String> }
                #[non_exhaustive]
                pub struct Already { pub id: i64 }
                pub struct Id(pub String);
                pub enum Status { Open, Closed }
                pub mod builder {
                    pub struct Order { id: Result<i64, String> }
                }
            }
            pub struct Outside { pub x: u8 }
        };
        assert_eq!(non_exhaustive_records(&mut file), 1);
        let text = prettyplease::unparse(&file);
        assert!(
            text.contains("#[non_exhaustive]\n    pub struct Order {"),
            "{text}"
        );
        assert_eq!(text.matches("#[non_exhaustive]").count(), 2, "{text}");
        assert!(
            text.contains("        pub struct Order {\n            id:"),
            "{text}"
        );
        assert!(text.contains("\npub struct Outside"), "{text}");
        // A second run marks nothing more.
        assert_eq!(non_exhaustive_records(&mut file), 0);
    }

    #[test]
    fn the_area_trait_is_sealed_by_a_private_supertrait() {
        let mut file: syn::File = parse_quote! {
            pub trait OrdersApi {
                fn get_order(&self) -> u8;
            }
        };
        seal_area_trait(&mut file, "OrdersApi").expect("sealed");
        let text = prettyplease::unparse(&file);
        assert!(
            text.contains("pub trait OrdersApi: sealed::Sealed {"),
            "{text}"
        );
        assert!(text.contains("mod sealed {\n    /// "), "{text}");
        assert!(
            text.contains("impl Sealed for ::store_admin_client_core::Client {}"),
            "{text}"
        );
        let err = seal_area_trait(&mut file, "ShippingApi").expect_err("no such trait");
        assert!(err.to_string().contains("ShippingApi"), "{err}");
    }
}

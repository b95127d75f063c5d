//! A pass that adds items, never edits them: `Operation` for every builder of an area (one line
//! each, through the core's `operation!` macro), read off
//! the builder's own `send` (its success and error types) and the `operationId` its body hands to
//! progenitor's hooks, so that one hand-written `call()` in `store-admin` serves every operation.

use anyhow::{Result, bail};
use quote::{ToTokens, format_ident, quote};
use syn::{ImplItem, Item, ReturnType, Type};

use crate::rewrite::{CORE, last_ident};

/// `impl Operation<'a> for builder::X<'a>` for each builder of `file`'s `mod builder` that has a
/// `send`, in the builders' order.
pub fn operation_impls(file: &syn::File) -> Result<Vec<Item>> {
    let core = format_ident!("{CORE}");
    let Some(builders) = file.items.iter().find_map(|item| match item {
        Item::Mod(m) if m.ident == "builder" => m.content.as_ref().map(|(_, items)| items),
        _ => None,
    }) else {
        return Ok(Vec::new());
    };
    let mut impls = Vec::new();
    for item in builders {
        let Item::Impl(block) = item else { continue };
        let Some(name) = last_ident(&block.self_ty) else {
            continue;
        };
        let Some(send) = block.items.iter().find_map(|i| match i {
            ImplItem::Fn(f) if f.sig.ident == "send" => Some(f),
            _ => None,
        }) else {
            continue;
        };
        let ReturnType::Type(_, ty) = &send.sig.output else {
            bail!("`builder::{name}::send` returns nothing");
        };
        let (Some(ok), Some(err)) = (first_arg_of_arg(ty, 0), first_arg_of_arg(ty, 1)) else {
            bail!("`builder::{name}::send` does not return `Result<ResponseValue<T>, Error<E>>`");
        };
        let Some(operation_id) = operation_id(&send.block) else {
            bail!("`builder::{name}::send` names no operation_id for the hooks");
        };
        let builder = format_ident!("{name}");
        impls.push(match json_success(&send.block) {
            Some(status) => {
                let status = proc_macro2::Literal::u16_unsuffixed(status);
                syn::parse_quote! {
                    ::#core::operation!(#builder, #ok, #err, #operation_id, #status);
                }
            }
            None => syn::parse_quote! {
                ::#core::operation!(#builder, #ok, #err, #operation_id);
            },
        });
    }
    Ok(impls)
}

/// `T` of the `at`-th generic argument of `ty`, itself generic over `T`:
/// `Result<ResponseValue<T>, Error<E>>` gives `T` at 0 and `E` at 1.
fn first_arg_of_arg(ty: &Type, at: usize) -> Option<Type> {
    let outer = generic_args(ty);
    let inner = generic_args(outer.get(at)?);
    inner.into_iter().next()
}

fn generic_args(ty: &Type) -> Vec<Type> {
    let Type::Path(path) = ty else {
        return Vec::new();
    };
    let Some(last) = path.path.segments.last() else {
        return Vec::new();
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return Vec::new();
    };
    args.args
        .iter()
        .filter_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

/// The status whose arm decodes the body (`200u16 => ResponseValue::from_response(response)`),
/// when exactly one arm of `send`'s status match does, for one status (not a range): the status
/// whose answer `call()` may decode itself, as `send` would.
fn json_success(block: &syn::Block) -> Option<u16> {
    const DECODES: &str = "=> ResponseValue :: from_response";
    // progenitor writes the arm's body in a block (`=> { ResponseValue::from_response(..) }`),
    // prettyplease without one.
    let text = block
        .to_token_stream()
        .to_string()
        .replace("=> { ResponseValue :: from_response", DECODES);
    let arms: Vec<&str> = text.split(DECODES).collect();
    let [before, _after] = arms.as_slice() else {
        return None;
    };
    let mut words = before.split_whitespace().rev();
    let status = words.next()?.strip_suffix("u16")?.parse().ok()?;
    (words.next() != Some("..=")).then_some(status)
}

/// The string given as `operation_id` in the body (progenitor's `OperationInfo`).
fn operation_id(block: &syn::Block) -> Option<String> {
    let mut tokens = block.to_token_stream().into_iter().peekable();
    find_operation_id(&mut tokens)
}

fn find_operation_id(
    tokens: &mut std::iter::Peekable<impl Iterator<Item = proc_macro2::TokenTree>>,
) -> Option<String> {
    use proc_macro2::TokenTree;
    while let Some(token) = tokens.next() {
        match token {
            TokenTree::Ident(ident) if ident == "operation_id" => {
                if matches!(tokens.peek(), Some(TokenTree::Punct(p)) if p.as_char() == ':') {
                    tokens.next();
                    if let Some(TokenTree::Literal(lit)) = tokens.next()
                        && let Ok(syn::Lit::Str(s)) = syn::parse2::<syn::Lit>(quote!(#lit))
                    {
                        return Some(s.value());
                    }
                }
            }
            TokenTree::Group(group) => {
                let mut inner = group.stream().into_iter().peekable();
                if let Some(found) = find_operation_id(&mut inner) {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_builder_gets_its_send_types_and_operation_id() {
        let file: syn::File = syn::parse_quote! {
            pub mod builder {
                pub struct ListCoupons<'a> { client: &'a super::Client }
                impl<'a> ListCoupons<'a> {
                    pub fn page(self) -> Self { self }
                    pub async fn send(self) -> Result<ResponseValue<types::CouponList>, Error<::c::types::ErrorResponse>> {
                        let info = OperationInfo { operation_id: "list_coupons" };
                        todo!()
                    }
                }
                impl<'a> NoSend<'a> { pub fn new() -> Self { todo!() } }
            }
        };
        let impls = operation_impls(&file).expect("impls");
        assert_eq!(impls.len(), 1);
        let text = impls[0].to_token_stream().to_string();
        assert_eq!(
            text,
            ":: store_admin_client_core :: operation ! (ListCoupons , types :: CouponList , :: c :: types :: ErrorResponse , \"list_coupons\") ;",
        );
    }

    #[test]
    fn the_one_status_a_send_decodes_is_named_and_no_other() {
        let status = |arms: proc_macro2::TokenStream| {
            let block: syn::Block = syn::parse_quote! {{
                let info = OperationInfo { operation_id: "x" };
                match response.status().as_u16() { #arms }
            }};
            json_success(&block)
        };
        let error_arms = quote! {
            400u16..=499u16 => Err(Error::ErrorResponse(ResponseValue::from_response(response).await?)),
            _ => Err(Error::UnexpectedResponse(response)),
        };
        assert_eq!(
            status(quote! { 201u16 => ResponseValue::from_response(response).await, #error_arms }),
            Some(201)
        );
        assert_eq!(
            status(
                quote! { 200u16 => { ResponseValue::from_response(response).await } #error_arms }
            ),
            Some(200)
        );
        // Two statuses decode, a range decodes, or none does (an empty success, a file).
        assert_eq!(
            status(quote! {
                200u16 => ResponseValue::from_response(response).await,
                201u16 => ResponseValue::from_response(response).await,
                #error_arms
            }),
            None
        );
        assert_eq!(
            status(
                quote! { 200u16..=299u16 => ResponseValue::from_response(response).await, #error_arms }
            ),
            None
        );
        assert_eq!(
            status(quote! { 204u16 => Ok(ResponseValue::empty(response)), #error_arms }),
            None
        );
        assert_eq!(
            status(quote! { 200u16 => Ok(ResponseValue::stream(response)), #error_arms }),
            None
        );
    }

    #[test]
    fn a_send_without_an_operation_id_is_an_error() {
        let file: syn::File = syn::parse_quote! {
            pub mod builder {
                impl<'a> X<'a> {
                    pub async fn send(self) -> Result<ResponseValue<T>, Error<E>> { todo!() }
                }
            }
        };
        let error = operation_impls(&file).unwrap_err().to_string();
        assert!(error.contains("names no operation_id"), "{error}");
    }
}

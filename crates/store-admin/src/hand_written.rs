//! The operations progenitor cannot generate ([`HAND_WRITTEN`](crate::HAND_WRITTEN)), as methods
//! of [`StoreAdmin`] in the generated builders' idiom, and [`METHODS`], the table naming the
//! method of each (a test fails when an operation of `HAND_WRITTEN` has none).
//!
//! - The nine `multipart/form-data` uploads: one builder each, a setter per field of the
//!   document's request schema (files take a [`Part`], the rest their type), over the one generic
//!   [`MultipartRequest`]; method and path come from [`OPERATIONS`](crate::OPERATIONS). The table
//!   of builders and fields is generated from the document (`generated_uploads.rs`, written by
//!   `cargo xtask generate`), so a field the document adds or renames changes its setter.
//! - `get_user_info`, served by the accounts host
//!   ([`StoreAdminBuilder::with_accounts_url`](crate::StoreAdminBuilder::with_accounts_url)).
//!
//! ```no_run
//! # async fn run(admin: store_admin::StoreAdmin) -> Result<(), store_admin::Error> {
//! use store_admin::Call;
//! use store_admin::multipart::Part;
//! let png = std::fs::read("logo.png").unwrap_or_default();
//! let brand = admin
//!     .create_brand()
//!     .name("Acme")
//!     .logo(Part::bytes(png).file_name("logo.png").mime("image/png"))
//!     .call()
//!     .await?;
//! println!("brand {}", brand.data.id);
//! # Ok(()) }
//! ```

#[allow(unused_imports)] // an area's feature may be off
use store_admin_client::{OperationMeta, ResponseValue};

#[allow(unused_imports)]
use crate::multipart::{FieldSpec, IntoFieldValue, MultipartRequest, Part};
#[allow(unused_imports)]
use crate::{Error, StoreAdmin, types};

/// The hand-written method of one operation of [`HAND_WRITTEN`](crate::HAND_WRITTEN).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandWrittenMethod {
    /// The document's `operationId`.
    pub operation_id: &'static str,
    /// The method that reaches it, e.g. `StoreAdmin::create_brand`.
    pub method: &'static str,
    /// Whether it is a `multipart/form-data` upload (reachable through [`StoreAdmin::multipart`]).
    pub multipart: bool,
    /// Its path parameters, by the document's names.
    pub path_params: &'static [&'static str],
    /// Its request's form fields, by the document's names.
    pub fields: &'static [FieldSpec],
}

/// Declares each upload: its builder, the `StoreAdmin` method (named as the `operationId`), its
/// path parameters and fields, and its row of [`METHODS`].
macro_rules! uploads {
    (
        $(
            $(#[$doc:meta])*
            $area:literal $operation:ident -> $builder:ident, $success:ty {
                path { $($param:ident: $pty:ty),* $(,)? }
                $( $(#[$fdoc:meta])* $setter:ident = $wire:literal: $fty:ty, $required:literal; )*
            }
        )*
        others { $(#[cfg($ocfg:meta)] $other:expr),* $(,)? }
    ) => {
        $(
            $(#[$doc])*
            ///
            /// Built by the [`StoreAdmin`] method of the same name; a required field left unset,
            /// or a bad media type, fails [`send`](Self::send) with [`Error::InvalidRequest`]
            /// before anything is sent.
            #[cfg(feature = $area)]
            #[derive(Debug, Clone)]
            pub struct $builder<'a>(MultipartRequest<'a>);

            #[cfg(feature = $area)]
            impl<'a> $builder<'a> {
                const PATH_PARAMS: &'static [&'static str] = &[$(stringify!($param)),*];
                const FIELDS: &'static [FieldSpec] = &[$(FieldSpec {
                    name: $wire,
                    kind: <$fty as IntoFieldValue>::KIND,
                    required: $required,
                }),*];

                $(
                    #[doc = concat!("The path parameter `", stringify!($param), "` (required).")]
                    pub fn $param(self, value: impl Into<$pty>) -> Self {
                        Self(self.0.path_param(stringify!($param), value.into()))
                    }
                )*

                $(
                    $(#[$fdoc])*
                    #[doc = concat!("\n\nThe form field `", $wire, "`.")]
                    pub fn $setter(self, value: impl Into<$fty>) -> Self {
                        Self(self.0.field($wire, IntoFieldValue::into_field_value(value.into())))
                    }
                )*

                /// Sends the upload once (see [`crate::multipart`] on retries) and decodes the
                /// documented success body.
                pub async fn send(self) -> Result<ResponseValue<$success>, Error> {
                    self.0.send().await
                }
            }

            #[cfg(feature = $area)]
            impl<'a> crate::Call<'a> for $builder<'a> {
                type Output = $success;

                fn call(self) -> futures::future::BoxFuture<'a, Result<$success, Error>> {
                    Box::pin(async move { self.send().await.map(ResponseValue::into_inner) })
                }
            }

            #[cfg(feature = $area)]
            impl<'a> crate::CallFull<'a> for $builder<'a> {
                type Output = $success;

                fn call_full(
                    self,
                ) -> futures::future::BoxFuture<'a, Result<ResponseValue<$success>, Error>> {
                    Box::pin(self.send())
                }
            }

            #[cfg(feature = $area)]
            impl StoreAdmin {
                $(#[$doc])*
                pub fn $operation(&self) -> $builder<'_> {
                    $builder(MultipartRequest::new(
                        self,
                        stringify!($operation),
                        $builder::PATH_PARAMS,
                        $builder::FIELDS,
                    ))
                }
            }
        )*

        /// The hand-written method of every operation of [`HAND_WRITTEN`](crate::HAND_WRITTEN)
        /// whose area is enabled.
        pub const METHODS: &[HandWrittenMethod] = &[
            $(
                #[cfg(feature = $area)]
                HandWrittenMethod {
                    operation_id: stringify!($operation),
                    method: concat!("StoreAdmin::", stringify!($operation)),
                    multipart: true,
                    path_params: $builder::PATH_PARAMS,
                    fields: $builder::FIELDS,
                },
            )*
            $(#[cfg($ocfg)] $other),*
        ];
    };
}

// The uploads and the rows of `METHODS`, generated from the document's form schemas by
// `cargo xtask generate` (`xtask/src/uploads.rs`).
include!("generated_uploads.rs");

/// The setters of `CreateBrand`'s English translation as 0.1.0 named them.
#[cfg(feature = "products")]
impl CreateBrand<'_> {
    /// The form field `translations[en][name]`.
    #[deprecated(
        since = "0.2.0",
        note = "use `translations_en_name`, named after the form field"
    )]
    pub fn translation_en_name(self, value: impl Into<String>) -> Self {
        self.translations_en_name(value)
    }

    /// The form field `translations[en][metadata][title]`.
    #[deprecated(
        since = "0.2.0",
        note = "use `translations_en_metadata_title`, named after the form field"
    )]
    pub fn translation_en_metadata_title(self, value: impl Into<String>) -> Self {
        self.translations_en_metadata_title(value)
    }

    /// The form field `translations[en][metadata][description]`.
    #[deprecated(
        since = "0.2.0",
        note = "use `translations_en_metadata_description`, named after the form field"
    )]
    pub fn translation_en_metadata_description(self, value: impl Into<String>) -> Self {
        self.translations_en_metadata_description(value)
    }

    /// The form field `translations[en][metadata][url]`.
    #[deprecated(
        since = "0.2.0",
        note = "use `translations_en_metadata_url`, named after the form field"
    )]
    pub fn translation_en_metadata_url(self, value: impl Into<String>) -> Self {
        self.translations_en_metadata_url(value)
    }
}

/// The user the access token belongs to and their store (`get_user_info`), from the accounts
/// host. Built by [`StoreAdmin::get_user_info`].
#[cfg(feature = "store")]
#[derive(Debug, Clone)]
pub struct GetUserInfo<'a> {
    admin: &'a StoreAdmin,
}

#[cfg(feature = "store")]
impl StoreAdmin {
    /// The user the access token belongs to and their store (`GET /oauth2/user/info` on the
    /// accounts host, not below the API's base URL: see
    /// [`StoreAdminBuilder::with_accounts_url`](crate::StoreAdminBuilder::with_accounts_url)).
    pub fn get_user_info(&self) -> GetUserInfo<'_> {
        GetUserInfo { admin: self }
    }
}

#[cfg(feature = "store")]
impl<'a> crate::Call<'a> for GetUserInfo<'a> {
    type Output = types::UserInfoResponse;

    fn call(self) -> futures::future::BoxFuture<'a, Result<types::UserInfoResponse, Error>> {
        Box::pin(async move { self.send().await.map(ResponseValue::into_inner) })
    }
}

#[cfg(feature = "store")]
impl<'a> crate::CallFull<'a> for GetUserInfo<'a> {
    type Output = types::UserInfoResponse;

    fn call_full(
        self,
    ) -> futures::future::BoxFuture<'a, Result<ResponseValue<types::UserInfoResponse>, Error>> {
        Box::pin(self.send())
    }
}

#[cfg(feature = "store")]
impl GetUserInfo<'_> {
    /// Sends the request (an idempotent `GET`, retried as any other) and decodes the answer.
    pub async fn send(self) -> Result<ResponseValue<types::UserInfoResponse>, Error> {
        const OPERATION: &str = "get_user_info";
        let meta = OperationMeta::find(OPERATION).ok_or_else(|| {
            Error::InvalidRequest(format!("{OPERATION}: not an operation of the document"))
        })?;
        let url = format!("{}{}", self.admin.accounts_url(), meta.path);
        let url = reqwest::Url::parse(&url)
            .map_err(|e| Error::InvalidRequest(format!("{OPERATION}: URL {url:?}: {e}")))?;
        let method = reqwest::Method::from_bytes(meta.method.as_bytes())
            .map_err(|_| Error::InvalidRequest(format!("{OPERATION}: method {:?}", meta.method)))?;
        let request =
            <crate::Client as store_admin_client::ClientInfo<_>>::client(self.admin.client())
                .request(method, url)
                .header(reqwest::header::ACCEPT, "application/json")
                .build()
                .map_err(|e| Error::InvalidRequest(format!("{OPERATION}: {e}")))?;
        let response = self
            .admin
            .send_raw(request, meta.operation_id)
            .await?
            .error_for_status()?;
        let value = crate::error::decode_body(&response.body, Some(meta.operation_id))?;
        Ok(ResponseValue::new(value, response.status, response.headers))
    }
}

impl StoreAdmin {
    /// The upload `operation_id` (one of the `multipart/form-data` operations of
    /// [`HAND_WRITTEN`](crate::HAND_WRITTEN)), to fill by field name; the typed methods
    /// (`create_brand()`, ...) are the same with a setter per field.
    pub fn multipart(&self, operation_id: &str) -> Result<MultipartRequest<'_>, Error> {
        let method = METHODS
            .iter()
            .find(|m| m.operation_id == operation_id && m.multipart)
            .ok_or_else(|| {
                Error::InvalidRequest(format!(
                    "{operation_id:?} is not a multipart upload of the document (see HAND_WRITTEN)"
                ))
            })?;
        Ok(MultipartRequest::new(
            self,
            method.operation_id,
            method.path_params,
            method.fields,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the cargo feature of an area of the API is on.
    #[allow(clippy::match_like_matches_macro)] // which arms are `true` depends on the features
    fn area_enabled(area: &str) -> bool {
        match area {
            "orders" => cfg!(feature = "orders"),
            "products" => cfg!(feature = "products"),
            "customers" => cfg!(feature = "customers"),
            "marketing" => cfg!(feature = "marketing"),
            "shipping" => cfg!(feature = "shipping"),
            "store" => cfg!(feature = "store"),
            _ => false,
        }
    }

    #[test]
    fn every_hand_written_operation_of_an_enabled_area_has_a_method() {
        for op in crate::HAND_WRITTEN {
            let meta = OperationMeta::find(op.operation_id).expect("in OPERATIONS");
            let methods: Vec<_> = METHODS
                .iter()
                .filter(|m| m.operation_id == op.operation_id)
                .collect();
            if area_enabled(meta.area) {
                assert_eq!(
                    methods.len(),
                    1,
                    "{} ({}) needs exactly one hand-written method in METHODS",
                    op.operation_id,
                    op.reason
                );
                assert_eq!(
                    methods[0].multipart,
                    op.reason.contains("multipart/form-data"),
                    "{}: multipart flag disagrees with HAND_WRITTEN's reason",
                    op.operation_id
                );
            } else {
                assert!(methods.is_empty(), "{} is cfg-gated", op.operation_id);
            }
        }
    }

    #[test]
    fn every_method_names_a_hand_written_operation() {
        for method in METHODS {
            assert!(
                crate::HAND_WRITTEN
                    .iter()
                    .any(|h| h.operation_id == method.operation_id),
                "{} is not in HAND_WRITTEN (generated now? then delete its method)",
                method.operation_id
            );
        }
    }
}

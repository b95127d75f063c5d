//! The `multipart/form-data` uploads progenitor cannot generate, as one generic request.
//!
//! Each upload of [`HAND_WRITTEN`](crate::HAND_WRITTEN) is a typed builder in
//! [`crate::hand_written`] (`admin.create_brand().name("Acme").logo(part).send()`), a thin shell
//! over the one [`MultipartRequest`] here: the method and path template come from
//! [`OPERATIONS`](crate::OPERATIONS), the fields from the operation's [`FieldSpec`]s, and the
//! request goes through [`StoreAdmin::send_raw`], so it gets the same authentication, rate
//! limiting, timeouts, tracing (a span naming the `operationId`) and errors as every generated
//! call.
//!
//! The body is encoded in memory before the first attempt. An upload is a `POST`: like every
//! non-idempotent request it is sent once, and retried only when it surely never reached the
//! service (the connection could not be made); once it may have left it is never sent again.

use std::fmt;

use bytes::{Bytes, BytesMut};
use futures::TryStreamExt;
use serde::de::DeserializeOwned;
use store_admin_client::{ClientInfo, OperationMeta, ResponseValue};

use crate::{Client, Error, StoreAdmin};

/// A file sent in an upload: its bytes, and optionally its file name and media type.
///
/// ```
/// use store_admin::multipart::Part;
/// let logo = Part::bytes(&b"\x89PNG..."[..]).file_name("logo.png").mime("image/png");
/// assert_eq!(logo.len(), 7);
/// ```
#[derive(Clone)]
pub struct Part {
    data: Bytes,
    file_name: Option<String>,
    mime: Option<String>,
}

impl Part {
    /// A file of these bytes.
    pub fn bytes(data: impl Into<Bytes>) -> Self {
        Self {
            data: data.into(),
            file_name: None,
            mime: None,
        }
    }

    /// The file name the service sees (`filename` of the part).
    pub fn file_name(mut self, file_name: impl Into<String>) -> Self {
        self.file_name = Some(file_name.into());
        self
    }

    /// The media type (`image/png`); an invalid one fails the call with
    /// [`Error::InvalidRequest`] before anything is sent.
    pub fn mime(mut self, mime: impl Into<String>) -> Self {
        self.mime = Some(mime.into());
        self
    }

    /// The size in bytes.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}

/// Shows the size, name and media type, never the content.
impl fmt::Debug for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Part")
            .field("len", &self.data.len())
            .field("file_name", &self.file_name)
            .field("mime", &self.mime)
            .finish()
    }
}

/// What a field of an upload's request schema holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// A file (`type: string, format: binary`), sent as a [`Part`].
    File,
    /// A text field: strings, numbers, enums, and booleans as `1`/`0` (how the service's form
    /// validation reads them).
    Text,
}

/// One field of an upload's request schema, named as the document names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSpec {
    /// The form field's name (`logo`, `translations[en][name]`).
    pub name: &'static str,
    /// File or text.
    pub kind: FieldKind,
    /// Whether the schema requires it.
    pub required: bool,
}

/// A field's value.
#[derive(Debug, Clone)]
pub enum FieldValue {
    /// A text field.
    Text(String),
    /// A file.
    File(Part),
}

/// A value a typed upload builder accepts for a field.
pub trait IntoFieldValue {
    /// File or text.
    const KIND: FieldKind;
    /// The value on the form.
    fn into_field_value(self) -> FieldValue;
}

impl IntoFieldValue for Part {
    const KIND: FieldKind = FieldKind::File;
    fn into_field_value(self) -> FieldValue {
        FieldValue::File(self)
    }
}

impl IntoFieldValue for String {
    const KIND: FieldKind = FieldKind::Text;
    fn into_field_value(self) -> FieldValue {
        FieldValue::Text(self)
    }
}

impl IntoFieldValue for i64 {
    const KIND: FieldKind = FieldKind::Text;
    fn into_field_value(self) -> FieldValue {
        FieldValue::Text(self.to_string())
    }
}

impl IntoFieldValue for bool {
    const KIND: FieldKind = FieldKind::Text;
    fn into_field_value(self) -> FieldValue {
        FieldValue::Text(if self { "1" } else { "0" }.to_string())
    }
}

#[cfg(feature = "products")]
impl IntoFieldValue for crate::types::ImportProductsRequestType {
    const KIND: FieldKind = FieldKind::Text;
    fn into_field_value(self) -> FieldValue {
        FieldValue::Text(self.to_string())
    }
}

/// One upload being built: the operation, its path parameters and fields. The typed builders
/// wrap it; [`StoreAdmin::multipart`] gives it for an operation named at run time (a CLI, a job
/// queue).
#[derive(Debug, Clone)]
pub struct MultipartRequest<'a> {
    admin: &'a StoreAdmin,
    operation_id: &'static str,
    path_params: &'static [&'static str],
    fields: &'static [FieldSpec],
    path: Vec<(&'static str, String)>,
    values: Vec<(&'static str, FieldValue)>,
    invalid: Option<String>,
}

impl<'a> MultipartRequest<'a> {
    pub(crate) fn new(
        admin: &'a StoreAdmin,
        operation_id: &'static str,
        path_params: &'static [&'static str],
        fields: &'static [FieldSpec],
    ) -> Self {
        Self {
            admin,
            operation_id,
            path_params,
            fields,
            path: Vec::new(),
            values: Vec::new(),
            invalid: None,
        }
    }

    /// The operation's `operationId`.
    pub fn operation_id(&self) -> &'static str {
        self.operation_id
    }

    /// The fields the document gives the operation's request.
    pub fn field_specs(&self) -> &'static [FieldSpec] {
        self.fields
    }

    /// Sets a path parameter (`product_id`); the value is percent-encoded as one path segment.
    pub fn path_param(mut self, name: &str, value: impl ToString) -> Self {
        match self.path_params.iter().find(|p| **p == name) {
            Some(known) => {
                self.path.retain(|(n, _)| n != known);
                self.path.push((known, value.to_string()));
            }
            None => self.refuse(format!("no path parameter `{name}`")),
        }
        self
    }

    /// Sets a text field.
    pub fn text(self, name: &str, value: impl Into<String>) -> Self {
        self.field(name, FieldValue::Text(value.into()))
    }

    /// Sets a file field.
    pub fn file(self, name: &str, part: Part) -> Self {
        self.field(name, FieldValue::File(part))
    }

    /// Sets a field; a file where the document says text (or the reverse), or a field the
    /// document does not give the operation, fails the call at [`Self::send`].
    pub fn field(mut self, name: &str, value: FieldValue) -> Self {
        let Some(spec) = self.fields.iter().find(|f| f.name == name) else {
            self.refuse(format!("no field `{name}`"));
            return self;
        };
        let kind = match value {
            FieldValue::Text(_) => FieldKind::Text,
            FieldValue::File(_) => FieldKind::File,
        };
        if kind != spec.kind {
            self.refuse(format!(
                "field `{name}` takes a {:?}, not a {kind:?}",
                spec.kind
            ));
            return self;
        }
        self.values.retain(|(n, _)| *n != spec.name);
        self.values.push((spec.name, value));
        self
    }

    fn refuse(&mut self, message: String) {
        if self.invalid.is_none() {
            self.invalid = Some(message);
        }
    }

    fn invalid(&self, message: impl fmt::Display) -> Error {
        Error::InvalidRequest(format!("{}: {message}", self.operation_id))
    }

    /// The URL: the path template of [`OPERATIONS`](crate::OPERATIONS) with the path parameters
    /// filled in, below the base URL.
    fn url(&self, meta: &OperationMeta) -> Result<reqwest::Url, Error> {
        let mut path = meta.path.to_string();
        for name in self.path_params {
            let value = self
                .path
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v)
                .ok_or_else(|| self.invalid(format!("path parameter `{name}` was not set")))?;
            if value.is_empty() {
                return Err(self.invalid(format!("path parameter `{name}` is empty")));
            }
            let encoded = progenitor_client::encode_path(value);
            path = path.replace(&format!("{{{name}}}"), &encoded);
        }
        if path.contains('{') {
            return Err(self.invalid(format!("path {:?} has an unknown parameter", meta.path)));
        }
        let url = format!("{}{path}", self.admin.base_url());
        reqwest::Url::parse(&url).map_err(|e| self.invalid(format!("URL {url:?}: {e}")))
    }

    /// The form, encoded in memory (so that a connect failure can be retried), with its boundary.
    async fn body(&mut self) -> Result<(String, Bytes), Error> {
        let mut form = reqwest::multipart::Form::new();
        for (name, value) in std::mem::take(&mut self.values) {
            form = match value {
                FieldValue::Text(text) => form.text(name, text),
                FieldValue::File(part) => {
                    let len = part.data.len() as u64;
                    let mut wire = reqwest::multipart::Part::stream_with_length(part.data, len)
                        .file_name(part.file_name.unwrap_or_else(|| name.to_string()));
                    if let Some(mime) = part.mime {
                        wire = wire.mime_str(&mime).map_err(|_| {
                            self.invalid(format!("field `{name}`: {mime:?} is not a media type"))
                        })?;
                    }
                    form.part(name, wire)
                }
            };
        }
        let boundary = form.boundary().to_string();
        let body = form
            .into_stream()
            .try_fold(BytesMut::new(), |mut body, chunk| async move {
                body.extend_from_slice(&chunk);
                Ok(body)
            })
            .await
            .map_err(|e| self.invalid(format!("encoding the form: {e}")))?;
        Ok((boundary, body.freeze()))
    }

    /// Sends the upload and decodes the documented success body as `T` (the typed builders
    /// choose it; `serde_json::Value` reads any). An error status is [`Error::Api`], with the
    /// operation's scopes in the hint of a 401.
    pub async fn send<T: DeserializeOwned>(mut self) -> Result<ResponseValue<T>, Error> {
        if let Some(message) = self.invalid.take() {
            return Err(self.invalid(message));
        }
        for spec in self.fields.iter().filter(|f| f.required) {
            if !self.values.iter().any(|(n, _)| *n == spec.name) {
                return Err(self.invalid(format!("field `{}` is required", spec.name)));
            }
        }
        let meta = OperationMeta::find(self.operation_id)
            .ok_or_else(|| self.invalid("not an operation of the document"))?;
        let method = reqwest::Method::from_bytes(meta.method.as_bytes())
            .map_err(|_| self.invalid(format!("method {:?}", meta.method)))?;
        let url = self.url(meta)?;
        let (boundary, body) = self.body().await?;
        let request = <Client as ClientInfo<_>>::client(self.admin.client())
            .request(method, url)
            .header(reqwest::header::ACCEPT, "application/json")
            .header(
                reqwest::header::CONTENT_TYPE,
                format!("multipart/form-data; boundary={boundary}"),
            )
            .body(body)
            .build()
            .map_err(|e| self.invalid(format!("building the request: {e}")))?;
        let response = self
            .admin
            .send_raw(request, meta.operation_id)
            .await?
            .error_for_status()?;
        let value = crate::error::decode_body::<T>(&response.body, Some(meta.operation_id))?;
        Ok(ResponseValue::new(value, response.status, response.headers))
    }
}

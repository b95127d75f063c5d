//! The OpenAPI document the mock serves, read once: its operations (method, path, scopes,
//! parameters, request body, documented success), its schemas, and what a schema says about a
//! value (type, properties, known values). Everything the engine does comes from here; the
//! embedded document is `openapi/store-admin.yaml`, and [`MockConfig::document`](crate::MockConfig::document)
//! serves another one.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use axum::http::Method;
use serde_json::{Map, Value, json};

/// The path prefix of every API operation.
pub const API_PREFIX: &str = "/admin/v2";

/// The document embedded in the mock (the same file the client is generated from:
/// `store-admin.yaml` in the crate is a link to `openapi/store-admin.yaml`, so that the published
/// package carries it), as JSON: the build script reads the YAML once (`build.rs`), so that a
/// start parses JSON, not YAML (the CLI's `--sandbox` starts a mock for every command).
pub(crate) const EMBEDDED: &str = include_str!(concat!(env!("OUT_DIR"), "/store-admin.json"));

/// A YAML (or JSON) text read as the mock reads a document, into JSON: only YAML 1.2's `true`
/// and `false` are booleans (`yes`, `no`, `on` and `off` stay text).
pub fn read_yaml(text: &str) -> Result<Value, DocumentError> {
    crate::yaml::to_json(text).map_err(DocumentError::Parse)
}

/// Why a document cannot be served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DocumentError {
    /// The file cannot be read.
    #[error("cannot read the OpenAPI document {path}: {source}")]
    Read {
        /// The path given.
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The text is not YAML (or JSON).
    #[error("the OpenAPI document does not parse: {0}")]
    Parse(String),
    /// The document has no operation at all.
    #[error("the OpenAPI document has no operation under `paths`")]
    Empty,
}

/// Documents read from files, by path, with the text they were parsed from.
type Loaded = HashMap<String, (String, Arc<Document>)>;

/// One segment of a path template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Segment {
    Static(String),
    Param(String),
}

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Location {
    Path,
    Query,
    Other,
}

/// A parameter of an operation.
#[derive(Debug, Clone)]
pub(crate) struct Param {
    /// The name as the document writes it (`categories[]`).
    pub name: String,
    /// The name without a trailing `[]`, as the query parser reports it.
    pub key: String,
    pub location: Location,
    pub required: bool,
    /// The parameter's schema, `$ref`s left in place.
    pub schema: Value,
}

/// The request body of an operation.
#[derive(Debug, Clone)]
pub(crate) struct Body {
    /// Whether the document marks the body `required` (an empty one is then a 400).
    pub required: bool,
    /// Whether the body is `application/json`.
    pub json: bool,
    /// Whether the body is `multipart/form-data` (its fields are checked like a JSON object's).
    pub multipart: bool,
    /// The body's schema (`$ref`s left in place), when it has one.
    pub schema: Option<Value>,
}

/// One operation of the document.
#[derive(Debug, Clone)]
pub(crate) struct Operation {
    pub id: String,
    pub method: Method,
    /// The path template as the document writes it (`/orders/{order_id}`).
    pub path: String,
    pub segments: Vec<Segment>,
    /// The scopes of which a token needs one (empty: no scope needed).
    pub scopes: Vec<String>,
    /// Whether the operation needs a bearer token at all (`security: []` says no).
    pub secured: bool,
    pub params: Vec<Param>,
    pub body: Option<Body>,
    /// The documented success status and its body schema.
    pub success_status: u16,
    pub success_schema: Option<Value>,
    /// The success answer's media type when it is not JSON (an `.xlsx` export, say).
    pub success_media: Option<String>,
    pub tag: Option<String>,
    /// Whether the path item or operation names servers of its own (the accounts host's
    /// `/oauth2/user/info`): served at the mock's root as well as below `/admin/v2`.
    pub other_host: bool,
}

impl Operation {
    /// The query parameter `key` (without `[]`), if declared.
    pub fn query_param(&self, key: &str) -> Option<&Param> {
        self.params
            .iter()
            .find(|p| p.location == Location::Query && p.key == key)
    }

    /// The path parameters in the order they appear in the path.
    pub fn path_params(&self) -> impl Iterator<Item = &str> {
        self.segments.iter().filter_map(|s| match s {
            Segment::Param(name) => Some(name.as_str()),
            Segment::Static(_) => None,
        })
    }

    /// Whether the operation is paged (declares a `page` query parameter).
    pub fn paged(&self) -> bool {
        self.query_param("page").is_some()
    }
}

/// The parsed document.
pub(crate) struct Document {
    pub root: Value,
    pub operations: Vec<Operation>,
    /// Every scope of the `oauth2` scheme.
    pub scopes: Vec<String>,
    /// `{"schemas": {...}}`: the components as JSON Schema, for validators.
    pub validator_components: Value,
}

/// An OpenAPI 3.0 schema as JSON Schema (what validators such as `jsonschema` read): `nullable: true`
/// becomes `anyOf [schema, null]`; `example` and `x-` extensions are dropped. `$ref`s are kept as
/// they are, so give the validator the document's components under the same pointer.
pub fn openapi_to_json_schema(schema: &Value) -> Value {
    let convert = openapi_to_json_schema;
    match schema {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, value) in map {
                if key == "nullable" || key == "example" || key.starts_with("x-") {
                    continue;
                }
                let converted = match key.as_str() {
                    "properties" | "patternProperties" => Value::Object(
                        value
                            .as_object()
                            .into_iter()
                            .flatten()
                            .map(|(k, v)| (k.clone(), convert(v)))
                            .collect(),
                    ),
                    "items" | "additionalProperties" | "not" => convert(value),
                    "allOf" | "oneOf" | "anyOf" => Value::Array(
                        value
                            .as_array()
                            .into_iter()
                            .flatten()
                            .map(convert)
                            .collect(),
                    ),
                    _ => value.clone(),
                };
                out.insert(key.clone(), converted);
            }
            // `format: int64` / `int32` are bounds (as schemathesis and every generated client
            // read them); JSON Schema leaves formats of numbers unchecked, so state them.
            if map.get("type").and_then(Value::as_str) == Some("integer") {
                let bounds = match map.get("format").and_then(Value::as_str) {
                    Some("int64") => Some((json!(i64::MIN), json!(i64::MAX))),
                    Some("int32") => Some((json!(i32::MIN), json!(i32::MAX))),
                    _ => None,
                };
                if let Some((low, high)) = bounds {
                    out.entry("minimum").or_insert(low);
                    out.entry("maximum").or_insert(high);
                }
            }
            if map.get("nullable") == Some(&Value::Bool(true)) {
                json!({ "anyOf": [Value::Object(out), { "type": "null" }] })
            } else {
                Value::Object(out)
            }
        }
        other => other.clone(),
    }
}

const METHODS: &[&str] = &["get", "put", "post", "delete", "patch", "head", "options"];

fn split_path(path: &str) -> Vec<Segment> {
    path.trim_end_matches('/')
        .split('/')
        .filter(|s| !s.is_empty())
        .map(
            |s| match s.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(name) => Segment::Param(name.to_owned()),
                None => Segment::Static(s.to_owned()),
            },
        )
        .collect()
}

impl Document {
    /// The embedded document, parsed once per process.
    pub fn embedded() -> Result<Arc<Document>, DocumentError> {
        static EMBEDDED_DOC: OnceLock<Result<Arc<Document>, String>> = OnceLock::new();
        EMBEDDED_DOC
            .get_or_init(|| {
                Document::parse(EMBEDDED)
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .clone()
            .map_err(DocumentError::Parse)
    }

    /// The document at `path`, parsed once per process and path (tests start many servers).
    pub fn load(path: &Path) -> Result<Arc<Document>, DocumentError> {
        static LOADED: OnceLock<Mutex<Loaded>> = OnceLock::new();
        let text = std::fs::read_to_string(path).map_err(|source| DocumentError::Read {
            path: path.display().to_string(),
            source,
        })?;
        let key = path.display().to_string();
        let cache = LOADED.get_or_init(Default::default);
        if let Some((cached_text, doc)) = cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            && *cached_text == text
        {
            return Ok(doc.clone());
        }
        let doc = Arc::new(Document::parse(&text)?);
        cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, (text, doc.clone()));
        Ok(doc)
    }

    /// Parses a document's text (YAML or JSON; JSON, a subset of YAML, is read by the faster
    /// JSON parser when the text is an object).
    pub fn parse(text: &str) -> Result<Document, DocumentError> {
        let root: Value = match text.trim_start().starts_with('{') {
            true => serde_json::from_str(text).map_err(|e| DocumentError::Parse(e.to_string()))?,
            false => crate::yaml::to_json(text).map_err(DocumentError::Parse)?,
        };
        let scopes: Vec<String> = root
            .pointer("/components/securitySchemes")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|schemes| schemes.values())
            .filter_map(|scheme| scheme.get("flows").and_then(Value::as_object))
            .flat_map(|flows| flows.values())
            .filter_map(|flow| flow.get("scopes").and_then(Value::as_object))
            .flat_map(|scopes| scopes.keys().cloned())
            .fold(Vec::new(), |mut all, scope| {
                if !all.contains(&scope) {
                    all.push(scope);
                }
                all
            });
        let schemas: Map<String, Value> = root
            .pointer("/components/schemas")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(name, schema)| (name.clone(), openapi_to_json_schema(schema)))
            .collect();
        let mut doc = Document {
            operations: Vec::new(),
            scopes,
            validator_components: json!({ "schemas": schemas }),
            root,
        };
        doc.operations = doc.read_operations();
        if doc.operations.is_empty() {
            return Err(DocumentError::Empty);
        }
        Ok(doc)
    }

    fn read_operations(&self) -> Vec<Operation> {
        let mut operations = Vec::new();
        let global_security = self.root.get("security");
        let Some(paths) = self.root.get("paths").and_then(Value::as_object) else {
            return operations;
        };
        for (path, item) in paths {
            let item = self.resolve(item);
            let shared: Vec<&Value> = item
                .get("parameters")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .collect();
            for method in METHODS {
                let Some(op) = item.get(*method) else {
                    continue;
                };
                let Ok(http_method) = Method::from_bytes(method.to_ascii_uppercase().as_bytes())
                else {
                    continue;
                };
                let id = op
                    .get("operationId")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("{method} {path}"), str::to_owned);
                let security = op.get("security").or(global_security);
                let (secured, scopes) = match security.and_then(Value::as_array) {
                    None => (false, Vec::new()),
                    Some(alternatives) if alternatives.is_empty() => (false, Vec::new()),
                    Some(alternatives) => {
                        let mut scopes = Vec::new();
                        let mut anonymous = false;
                        for alternative in alternatives {
                            let Some(map) = alternative.as_object() else {
                                continue;
                            };
                            if map.is_empty() {
                                anonymous = true;
                            }
                            for needed in map.values().filter_map(Value::as_array).flatten() {
                                if let Some(scope) = needed.as_str()
                                    && !scopes.iter().any(|s| s == scope)
                                {
                                    scopes.push(scope.to_owned());
                                }
                            }
                        }
                        (!anonymous, scopes)
                    }
                };
                // Operation parameters override path-level ones of the same name and place.
                let mut params: Vec<Param> = Vec::new();
                let own: Vec<&Value> = op
                    .get("parameters")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .collect();
                for raw in shared.iter().chain(own.iter()) {
                    let raw = self.resolve(raw);
                    let Some(name) = raw.get("name").and_then(Value::as_str) else {
                        continue;
                    };
                    let location = match raw.get("in").and_then(Value::as_str) {
                        Some("path") => Location::Path,
                        Some("query") => Location::Query,
                        _ => Location::Other,
                    };
                    let param = Param {
                        name: name.to_owned(),
                        key: match name.rfind('[') {
                            Some(at)
                                if name.ends_with(']')
                                    && name[at + 1..name.len() - 1]
                                        .chars()
                                        .all(|c| c.is_ascii_digit()) =>
                            {
                                name[..at].to_owned()
                            }
                            _ => name.to_owned(),
                        },
                        location,
                        required: raw.get("required").and_then(Value::as_bool) == Some(true)
                            || location == Location::Path,
                        schema: raw.get("schema").cloned().unwrap_or(Value::Null),
                    };
                    params.retain(|p| !(p.name == param.name && p.location == param.location));
                    params.push(param);
                }
                let body = op.get("requestBody").map(|body| {
                    let body = self.resolve(body);
                    let content = body.get("content").and_then(Value::as_object);
                    let json_schema = content
                        .and_then(|c| c.get("application/json"))
                        .and_then(|m| m.get("schema"))
                        .cloned();
                    let other_schema = content
                        .and_then(|c| c.values().next())
                        .and_then(|m| m.get("schema"))
                        .cloned();
                    Body {
                        required: body.get("required").and_then(Value::as_bool) == Some(true),
                        multipart: json_schema.is_none()
                            && content.is_some_and(|c| c.contains_key("multipart/form-data")),
                        json: json_schema.is_some(),
                        schema: json_schema.or(other_schema),
                    }
                });
                let responses = op.get("responses").and_then(Value::as_object);
                let mut success: Option<(u16, Option<Value>)> = None;
                let mut success_media: Option<String> = None;
                for (key, response) in responses.into_iter().flatten() {
                    let Ok(status) = key.parse::<u16>() else {
                        continue;
                    };
                    if (200..300).contains(&status) && success.is_none() {
                        let response = self.resolve(response);
                        let schema = response
                            .pointer("/content/application~1json/schema")
                            .cloned();
                        if schema.is_none() {
                            success_media = response
                                .get("content")
                                .and_then(Value::as_object)
                                .and_then(|c| c.keys().next().cloned());
                        }
                        success = Some((status, schema));
                    }
                }
                let (success_status, success_schema) = success.unwrap_or((200, None));
                operations.push(Operation {
                    id,
                    method: http_method,
                    segments: split_path(path),
                    path: path.clone(),
                    scopes,
                    secured,
                    params,
                    body,
                    success_status,
                    success_schema,
                    success_media,
                    tag: op
                        .get("tags")
                        .and_then(|t| t.get(0))
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    other_host: [item.get("servers"), op.get("servers")]
                        .into_iter()
                        .flatten()
                        .any(|s| s.as_array().is_some_and(|a| !a.is_empty())),
                });
            }
        }
        operations
    }

    /// Follows `$ref`s (internal JSON pointers) to the value they name; anything else as it is.
    pub fn resolve<'a>(&'a self, mut value: &'a Value) -> &'a Value {
        for _ in 0..32 {
            let Some(reference) = value.get("$ref").and_then(Value::as_str) else {
                return value;
            };
            let Some(pointer) = reference.strip_prefix('#') else {
                return value;
            };
            match self.root.pointer(pointer) {
                Some(target) => value = target,
                None => return &Value::Null,
            }
        }
        value
    }

    /// The component name a schema refers to (`#/components/schemas/Order` gives `Order`).
    pub fn ref_name(schema: &Value) -> Option<&str> {
        schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.rsplit('/').next())
    }

    /// A validator of `schema` against the document's components (only those it reaches, so
    /// that it compiles quickly on a large document).
    pub fn validator(&self, schema: &Value) -> Option<jsonschema::Validator> {
        let mut reached: Vec<String> = Vec::new();
        let mut pending: Vec<&Value> = vec![schema];
        while let Some(value) = pending.pop() {
            match value {
                Value::Object(map) => {
                    if let Some(name) = map
                        .get("$ref")
                        .and_then(Value::as_str)
                        .and_then(|r| r.strip_prefix("#/components/schemas/"))
                        && !reached.iter().any(|n| n == name)
                    {
                        reached.push(name.to_owned());
                        if let Some(target) =
                            self.root.pointer(&format!("/components/schemas/{name}"))
                        {
                            pending.push(target);
                        }
                    }
                    pending.extend(map.values());
                }
                Value::Array(items) => pending.extend(items.iter()),
                _ => {}
            }
        }
        let schemas: Map<String, Value> = reached
            .iter()
            .filter_map(|name| {
                self.validator_components
                    .pointer(&format!("/schemas/{name}"))
                    .map(|s| (name.clone(), s.clone()))
            })
            .collect();
        let root = json!({
            "allOf": [openapi_to_json_schema(schema)],
            "components": { "schemas": schemas },
        });
        match jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&root)
        {
            Ok(validator) => Some(validator),
            Err(error) => {
                tracing::warn!(%error, "a schema of the document does not compile");
                None
            }
        }
    }

    /// The schema with `$ref`s followed and `allOf` merged into one object view.
    pub fn view<'a>(&'a self, schema: &'a Value) -> View<'a> {
        let mut view = View::default();
        self.collect_view(schema, &mut view, 0);
        view
    }

    fn collect_view<'a>(&'a self, schema: &'a Value, view: &mut View<'a>, depth: usize) {
        if depth > 16 {
            return;
        }
        let schema = self.resolve(schema);
        if view.name.is_none() {
            view.name = None;
        }
        if schema.get("nullable").and_then(Value::as_bool) == Some(true) {
            view.nullable = true;
        }
        if let Some(kind) = schema.get("type").and_then(Value::as_str) {
            view.kind = Some(kind);
        }
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                if !view.properties.iter().any(|(n, _)| n == name) {
                    view.properties.push((name.as_str(), property));
                }
            }
        }
        for required in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !view.required.contains(&required) {
                view.required.push(required);
            }
        }
        if let Some(additional) = schema.get("additionalProperties") {
            view.additional = Some(additional);
        }
        if let Some(items) = schema.get("items") {
            view.items = Some(items);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = schema.get(key).and_then(Value::as_array) {
                view.any_of.extend(branches.iter());
            }
        }
        if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
            for member in all {
                self.collect_view(member, view, depth + 1);
            }
        }
        for key in [
            "enum",
            "x-known-values",
            "format",
            "pattern",
            "minLength",
            "maxLength",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "minItems",
            "maxItems",
            "example",
            "default",
            "uniqueItems",
            "description",
        ] {
            if let Some(value) = schema.get(key) {
                view.keywords.entry(key).or_insert(value);
            }
        }
    }

    /// The values a string schema knows: its `enum`, else its `x-known-values`.
    pub fn known_values(&self, schema: &Value) -> Vec<String> {
        let view = self.view(schema);
        let mut values: Vec<String> = Vec::new();
        for key in ["enum", "x-known-values"] {
            for value in view
                .keywords
                .get(key)
                .and_then(|v| v.as_array())
                .into_iter()
                .flatten()
            {
                if let Some(text) = value.as_str()
                    && !values.iter().any(|v| v == text)
                {
                    values.push(text.to_owned());
                }
            }
            if !values.is_empty() {
                return values;
            }
        }
        for branch in &view.any_of {
            values.extend(self.known_values(branch));
        }
        values
    }

    /// The schema of the property at `path` (dot separated; `[]` steps into array items) below
    /// `schema`, if the document declares it.
    pub fn property<'a>(&'a self, schema: &'a Value, path: &str) -> Option<&'a Value> {
        let mut current = schema;
        for step in path.split('.') {
            if step == "[]" {
                current = self.view(current).items?;
                continue;
            }
            let view = self.view(current);
            current = view
                .properties
                .iter()
                .find(|(name, _)| *name == step)
                .map(|(_, s)| *s)?;
        }
        Some(current)
    }
}

/// A schema seen through `$ref`s and `allOf`.
#[derive(Debug, Default)]
pub(crate) struct View<'a> {
    pub name: Option<&'a str>,
    pub kind: Option<&'a str>,
    pub nullable: bool,
    pub properties: Vec<(&'a str, &'a Value)>,
    pub required: Vec<&'a str>,
    pub additional: Option<&'a Value>,
    pub items: Option<&'a Value>,
    pub any_of: Vec<&'a Value>,
    pub keywords: BTreeMap<&'static str, &'a Value>,
}

impl<'a> View<'a> {
    /// The declared type, or the one the keywords imply (`properties`: object, `items`: array).
    pub fn kind(&self) -> Option<&'a str> {
        self.kind.or(
            if !self.properties.is_empty() || self.additional.is_some() {
                Some("object")
            } else if self.items.is_some() {
                Some("array")
            } else {
                None
            },
        )
    }

    /// The schema of property `name`.
    pub fn property(&self, name: &str) -> Option<&'a Value> {
        self.properties
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
    }

    pub fn keyword(&self, name: &str) -> Option<&'a Value> {
        self.keywords.get(name).copied()
    }

    /// A number's bounds: the one place `minimum`, `maximum` and the exclusive bounds are read
    /// (query and path checks, fake values, the examples the shaper keeps).
    pub fn range(&self) -> Range {
        let bound = |name| self.keyword(name).and_then(Value::as_f64);
        Range {
            min: bound("minimum"),
            max: bound("maximum"),
            exclusive_min: bound("exclusiveMinimum"),
            exclusive_max: bound("exclusiveMaximum"),
        }
    }

    /// Whether a text of `len` characters keeps to `minLength` and `maxLength`.
    pub fn length_admits(&self, len: u64) -> bool {
        self.keyword("minLength")
            .and_then(Value::as_u64)
            .is_none_or(|min| len >= min)
            && self
                .keyword("maxLength")
                .and_then(Value::as_u64)
                .is_none_or(|max| len <= max)
    }
}

/// A number schema's bounds (see [`View::range`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Range {
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub exclusive_min: Option<f64>,
    pub exclusive_max: Option<f64>,
}

/// The bound a number breaks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Breach {
    /// Below `minimum`.
    Below(f64),
    /// Above `maximum`.
    Above(f64),
    /// At or below `exclusiveMinimum`.
    NotAbove(f64),
    /// At or above `exclusiveMaximum`.
    NotBelow(f64),
}

impl Range {
    /// Whether `x` keeps to every bound.
    pub fn admits(&self, x: f64) -> bool {
        self.breach(x).is_none()
    }

    /// The first bound `x` breaks, if any.
    pub fn breach(&self, x: f64) -> Option<Breach> {
        if let Some(min) = self.min.filter(|&min| x < min) {
            return Some(Breach::Below(min));
        }
        if let Some(max) = self.max.filter(|&max| x > max) {
            return Some(Breach::Above(max));
        }
        if let Some(min) = self.exclusive_min.filter(|&min| x <= min) {
            return Some(Breach::NotAbove(min));
        }
        if let Some(max) = self.exclusive_max.filter(|&max| x >= max) {
            return Some(Breach::NotBelow(max));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_admits_what_keeps_to_every_bound_and_names_the_first_it_breaks() {
        let doc = Document::embedded().unwrap();
        let schema = serde_json::json!({
            "type": "number", "minimum": 1, "maximum": 10, "exclusiveMaximum": 10
        });
        let range = doc.view(&schema).range();
        assert!(range.admits(1.0));
        assert!(range.admits(9.5));
        assert_eq!(range.breach(0.5), Some(Breach::Below(1.0)));
        assert_eq!(range.breach(11.0), Some(Breach::Above(10.0)));
        assert_eq!(range.breach(10.0), Some(Breach::NotBelow(10.0)));
        let open = serde_json::json!({ "type": "integer", "exclusiveMinimum": 0 });
        assert_eq!(
            doc.view(&open).range().breach(0.0),
            Some(Breach::NotAbove(0.0))
        );
        assert!(doc.view(&open).range().admits(1.0));
        assert!(Range::default().admits(f64::MAX));
        let text = serde_json::json!({ "type": "string", "minLength": 2, "maxLength": 3 });
        let view = doc.view(&text);
        assert!(!view.length_admits(1));
        assert!(view.length_admits(2) && view.length_admits(3));
        assert!(!view.length_admits(4));
    }

    #[test]
    fn the_embedded_document_has_operations_with_scopes_and_bodies() {
        let doc = Document::embedded().unwrap();
        let op = doc
            .operations
            .iter()
            .find(|o| o.id == "list_orders")
            .unwrap();
        assert_eq!(op.method, Method::GET);
        assert_eq!(op.scopes, ["orders.read", "orders.read_write"]);
        assert!(op.paged());
        let create = doc
            .operations
            .iter()
            .find(|o| o.id == "create_shipment")
            .unwrap();
        assert!(create.body.as_ref().is_some_and(|b| b.json));
        assert!(doc.scopes.iter().any(|s| s == "offline_access"));
    }
}

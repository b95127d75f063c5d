//! Lint rules for an OpenAPI document.
//!
//! Every rule is a pure function over the parsed document ([`OpenAPI`]) and/or its raw JSON
//! value, and reports [`Problem`]s located by JSON pointer. The rules encode what progenitor
//! needs (unique operation ids, one shared error schema, named object types) and what the
//! hand-written crates rely on (tags, summaries, per-operation scopes).

use std::collections::{HashMap, HashSet};
use std::fmt;

use openapiv3::{OpenAPI, Operation, ReferenceOr, Response, StatusCode};
use serde_json::Value;

/// The one schema every 4xx/5xx/default response must use.
pub const ERROR_SCHEMA_REF: &str = "#/components/schemas/ErrorResponse";

/// Component kinds whose members must be reachable from `paths`.
const COMPONENT_KINDS: [&str; 5] = [
    "schemas",
    "responses",
    "parameters",
    "requestBodies",
    "headers",
];

/// HTTP methods that name operations inside a path item.
const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// One lint finding: where (JSON pointer into the document) and what.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Problem {
    /// JSON pointer (RFC 6901) of the offending node, e.g. `/paths/~1orders/get`.
    pub pointer: String,
    /// What is wrong and what to do instead.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pointer, self.message)
    }
}

/// Runs every rule; problems come back sorted by pointer, without duplicates.
pub fn lint(spec: &OpenAPI, raw: &Value) -> Vec<Problem> {
    let mut out = Vec::new();
    operation_fields(spec, &mut out);
    duplicate_operation_ids(spec, &mut out);
    replaced_by_targets(spec, &mut out);
    error_responses(spec, &mut out);
    unresolved_refs(raw, &mut out);
    unreachable_components(raw, &mut out);
    inline_objects(raw, &mut out);
    integer_enums(raw, &mut out);
    envelope_parts_optional(raw, &mut out);
    out.sort();
    out.dedup();
    out
}

/// Escapes one JSON pointer segment (`~` -> `~0`, `/` -> `~1`).
pub fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

fn problem(pointer: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem {
        pointer: pointer.into(),
        message: message.into(),
    }
}

/// Every operation with its pointer, path and lowercase method, in document order.
pub fn operations(spec: &OpenAPI) -> impl Iterator<Item = (String, &str, &str, &Operation)> {
    spec.paths.iter().flat_map(|(path, item)| {
        item.as_item().into_iter().flat_map(move |item| {
            item.iter().map(move |(method, op)| {
                let pointer = format!("/paths/{}/{method}", escape(path));
                (pointer, path.as_str(), method, op)
            })
        })
    })
}

/// Rule: every operation has an operationId, a summary, tags and its own non-empty security.
pub fn operation_fields(spec: &OpenAPI, out: &mut Vec<Problem>) {
    let schemes: HashSet<&str> = spec
        .components
        .iter()
        .flat_map(|c| c.security_schemes.keys())
        .map(String::as_str)
        .collect();
    for (pointer, _, _, op) in operations(spec) {
        if op
            .operation_id
            .as_deref()
            .is_none_or(|s| s.trim().is_empty())
        {
            out.push(problem(&pointer, "operation has no operationId"));
        }
        if op.summary.as_deref().is_none_or(|s| s.trim().is_empty()) {
            out.push(problem(&pointer, "operation has no summary"));
        }
        if op.tags.is_empty() {
            out.push(problem(&pointer, "operation has no tags"));
        }
        match &op.security {
            None => out.push(problem(
                &pointer,
                "operation has no `security` of its own (a document-level default does not count)",
            )),
            Some(alternatives) if alternatives.is_empty() => {
                out.push(problem(&pointer, "operation has an empty `security` list"))
            }
            Some(alternatives) => {
                for (i, requirement) in alternatives.iter().enumerate() {
                    if requirement.is_empty() {
                        out.push(problem(
                            format!("{pointer}/security/{i}"),
                            "empty security requirement (allows anonymous access)",
                        ));
                    }
                    for scheme in requirement.keys() {
                        if !schemes.contains(scheme.as_str()) {
                            out.push(problem(
                                format!("{pointer}/security/{i}"),
                                format!(
                                    "security scheme `{scheme}` is not defined in #/components/securitySchemes"
                                ),
                            ));
                        }
                    }
                }
            }
        }
    }
}

/// Rule: operationIds are unique.
pub fn duplicate_operation_ids(spec: &OpenAPI, out: &mut Vec<Problem>) {
    let mut first: HashMap<&str, String> = HashMap::new();
    for (pointer, _, _, op) in operations(spec) {
        let Some(id) = op.operation_id.as_deref() else {
            continue;
        };
        match first.get(id) {
            Some(at) => out.push(problem(
                format!("{pointer}/operationId"),
                format!("duplicate operationId `{id}` (first used at {at})"),
            )),
            None => {
                first.insert(id, pointer);
            }
        }
    }
}

/// Rule: `x-replaced-by` names an existing operationId.
pub fn replaced_by_targets(spec: &OpenAPI, out: &mut Vec<Problem>) {
    let ids: HashSet<&str> = operations(spec)
        .filter_map(|(_, _, _, op)| op.operation_id.as_deref())
        .collect();
    for (pointer, _, _, op) in operations(spec) {
        let Some(value) = op.extensions.get("x-replaced-by") else {
            continue;
        };
        let pointer = format!("{pointer}/x-replaced-by");
        match value.as_str() {
            Some(target) if ids.contains(target) => {}
            Some(target) => out.push(problem(
                pointer,
                format!("x-replaced-by names `{target}`, which is no operationId of this document"),
            )),
            None => out.push(problem(
                pointer,
                "x-replaced-by must be an operationId string",
            )),
        }
    }
}

/// Pointer segment of a response key (`404`, `4XX`).
fn status_key(code: &StatusCode) -> String {
    match code {
        StatusCode::Code(n) => n.to_string(),
        StatusCode::Range(n) => format!("{n}XX"),
    }
}

fn is_error_status(code: &StatusCode) -> bool {
    match code {
        StatusCode::Code(n) => *n >= 400,
        StatusCode::Range(n) => *n >= 4,
    }
}

/// Rule: every 4xx/5xx/default response has an `application/json` body whose schema is
/// `$ref: '#/components/schemas/ErrorResponse'`, directly or through a response component.
pub fn error_responses(spec: &OpenAPI, out: &mut Vec<Problem>) {
    for (pointer, _, _, op) in operations(spec) {
        let errors = op
            .responses
            .responses
            .iter()
            .filter(|(code, _)| is_error_status(code))
            .map(|(code, r)| (status_key(code), r))
            .chain(
                op.responses
                    .default
                    .iter()
                    .map(|r| ("default".to_owned(), r)),
            );
        for (key, response) in errors {
            let at = format!("{pointer}/responses/{key}");
            // Unresolvable references are reported by `unresolved_refs`.
            if let Some((response, via)) = resolve_response(spec, response)
                && let Some(message) = error_body_problem(response)
            {
                out.push(problem(at, format!("{message}{via}")));
            }
        }
    }
}

/// Follows `#/components/responses/*` references; returns the response and a " (via ...)" note.
fn resolve_response<'a>(
    spec: &'a OpenAPI,
    mut response: &'a ReferenceOr<Response>,
) -> Option<(&'a Response, String)> {
    let mut via = Vec::new();
    for _ in 0..16 {
        match response {
            ReferenceOr::Item(item) => {
                let note = match via.is_empty() {
                    true => String::new(),
                    false => format!(" (via {})", via.join(" -> ")),
                };
                return Some((item, note));
            }
            ReferenceOr::Reference { reference } => {
                let name = reference.strip_prefix("#/components/responses/")?;
                response = spec.components.as_ref()?.responses.get(name)?;
                via.push(reference.as_str());
            }
        }
    }
    None
}

fn error_body_problem(response: &Response) -> Option<String> {
    let expected = format!("use `$ref: '{ERROR_SCHEMA_REF}'`");
    let Some(media) = response.content.get("application/json") else {
        return Some(format!(
            "error response has no application/json body; {expected}"
        ));
    };
    match &media.schema {
        Some(ReferenceOr::Reference { reference }) if reference == ERROR_SCHEMA_REF => None,
        Some(ReferenceOr::Reference { reference }) => Some(format!(
            "error response schema is `$ref: '{reference}'`; {expected}"
        )),
        Some(ReferenceOr::Item(_)) => Some(format!(
            "error response schema is an inline schema; {expected}"
        )),
        None => Some(format!("error response has no schema; {expected}")),
    }
}

/// Calls `f(pointer, object)` for every JSON object in `value`, depth first.
fn walk_objects<'a>(
    value: &'a Value,
    pointer: &mut String,
    f: &mut dyn FnMut(&str, &'a serde_json::Map<String, Value>),
) {
    let len = pointer.len();
    match value {
        Value::Object(map) => {
            f(pointer, map);
            for (key, child) in map {
                pointer.push('/');
                pointer.push_str(&escape(key));
                walk_objects(child, pointer, f);
                pointer.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                pointer.push('/');
                pointer.push_str(&i.to_string());
                walk_objects(child, pointer, f);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// Rule: every `$ref` in the document resolves to a node of the same document.
pub fn unresolved_refs(raw: &Value, out: &mut Vec<Problem>) {
    walk_objects(raw, &mut String::new(), &mut |pointer, map| {
        let Some(reference) = map.get("$ref") else {
            return;
        };
        let at = if pointer.is_empty() { "/" } else { pointer };
        match reference.as_str() {
            None => out.push(problem(at, "`$ref` is not a string")),
            Some(r) => match r.strip_prefix('#') {
                None => out.push(problem(
                    at,
                    format!("$ref `{r}` points outside the document (external references are not supported)"),
                )),
                Some(target) if raw.pointer(target).is_none() => {
                    out.push(problem(at, format!("$ref `{r}` does not resolve")))
                }
                Some(_) => {}
            },
        }
    });
}

/// The pointer a reference marks as reached: a component's root, or the target itself.
fn reached_key(target: &str) -> String {
    let segments: Vec<&str> = target.split('/').collect();
    match segments.as_slice() {
        ["", "components", kind, name, ..] => format!("/components/{kind}/{name}"),
        _ => target.to_owned(),
    }
}

/// Rule: every component (schemas, responses, parameters, requestBodies, headers) is reached,
/// transitively, by a `$ref` starting from `paths` or from a schema that types a webhook event's
/// `data` (`x-webhook-events`: a delivery is reached by its event, as an answer by its path).
pub fn unreachable_components(raw: &Value, out: &mut Vec<Problem>) {
    let mut reached: HashSet<String> = HashSet::new();
    let mut queue: Vec<&Value> = raw.pointer("/paths").into_iter().collect();
    if let Some(schemas) = raw
        .pointer("/components/schemas")
        .and_then(Value::as_object)
    {
        for (name, schema) in schemas {
            if schema.get("x-webhook-events").is_some() {
                reached.insert(format!("/components/schemas/{}", escape(name)));
                queue.push(schema);
            }
        }
    }
    while let Some(value) = queue.pop() {
        let mut found = Vec::new();
        walk_objects(value, &mut String::new(), &mut |_, map| {
            if let Some(target) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
            {
                found.push(reached_key(target));
            }
        });
        for key in found {
            if let Some(target) = raw.pointer(&key)
                && reached.insert(key)
            {
                queue.push(target);
            }
        }
    }
    for kind in COMPONENT_KINDS {
        let Some(members) = raw
            .pointer(&format!("/components/{kind}"))
            .and_then(Value::as_object)
        else {
            continue;
        };
        for name in members.keys() {
            let pointer = format!("/components/{kind}/{}", escape(name));
            if !reached.contains(&pointer) {
                out.push(problem(
                    pointer,
                    "component is not reached by any `$ref` from `paths`; remove it or use it",
                ));
            }
        }
    }
}

/// Rule: an object schema with `properties` appears only as a component schema; everywhere
/// else (property schemas, array items, bodies, parameters, compositions) objects are `$ref`s.
pub fn inline_objects(raw: &Value, out: &mut Vec<Problem>) {
    let mut walker = SchemaWalker { out };
    if let Some(paths) = raw.get("paths").and_then(Value::as_object) {
        for (path, item) in paths {
            let at = format!("/paths/{}", escape(path));
            walker.parameters(item.get("parameters"), &format!("{at}/parameters"));
            for method in METHODS {
                let Some(op) = item.get(method) else { continue };
                let at = format!("{at}/{method}");
                walker.parameters(op.get("parameters"), &format!("{at}/parameters"));
                if let Some(body) = op.get("requestBody") {
                    walker.content(body, &format!("{at}/requestBody"));
                }
                if let Some(responses) = op.get("responses").and_then(Value::as_object) {
                    for (code, response) in responses {
                        walker.response(response, &format!("{at}/responses/{}", escape(code)));
                    }
                }
            }
        }
    }
    let Some(components) = raw.get("components") else {
        return;
    };
    let members = |kind: &'static str| {
        components
            .get(kind)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(move |(name, v)| (format!("/components/{kind}/{}", escape(name)), v))
    };
    for (at, schema) in members("schemas") {
        walker.schema(schema, &at, true);
    }
    for (at, response) in members("responses") {
        walker.response(response, &at);
    }
    for (at, parameter) in members("parameters") {
        walker.parameter(parameter, &at);
    }
    for (at, body) in members("requestBodies") {
        walker.content(body, &at);
    }
    for (at, header) in members("headers") {
        walker.parameter(header, &at);
    }
}

struct SchemaWalker<'o> {
    out: &'o mut Vec<Problem>,
}

impl SchemaWalker<'_> {
    fn parameters(&mut self, list: Option<&Value>, at: &str) {
        for (i, parameter) in list
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            self.parameter(parameter, &format!("{at}/{i}"));
        }
    }

    /// A parameter or header object: `schema` or `content`.
    fn parameter(&mut self, parameter: &Value, at: &str) {
        if let Some(schema) = parameter.get("schema") {
            self.schema(schema, &format!("{at}/schema"), false);
        }
        self.content(parameter, at);
    }

    fn response(&mut self, response: &Value, at: &str) {
        self.content(response, at);
        if let Some(headers) = response.get("headers").and_then(Value::as_object) {
            for (name, header) in headers {
                self.parameter(header, &format!("{at}/headers/{}", escape(name)));
            }
        }
    }

    /// Any object with a `content` map of media types (request bodies, responses, parameters).
    fn content(&mut self, holder: &Value, at: &str) {
        if let Some(content) = holder.get("content").and_then(Value::as_object) {
            for (media, media_type) in content {
                if let Some(schema) = media_type.get("schema") {
                    let at = format!("{at}/content/{}/schema", escape(media));
                    self.schema(schema, &at, false);
                }
            }
        }
    }

    fn schema(&mut self, schema: &Value, at: &str, is_component: bool) {
        let Some(map) = schema.as_object() else {
            return;
        };
        if map.contains_key("$ref") {
            return;
        }
        if map.contains_key("properties") && !is_component {
            self.out.push(problem(
                at,
                "inline object schema (it has `properties`); make it a component under #/components/schemas and `$ref` it",
            ));
        }
        if let Some(properties) = map.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                self.schema(
                    property,
                    &format!("{at}/properties/{}", escape(name)),
                    false,
                );
            }
        }
        for key in ["items", "additionalProperties", "not"] {
            if let Some(child) = map.get(key) {
                self.schema(child, &format!("{at}/{key}"), false);
            }
        }
        for key in ["allOf", "oneOf", "anyOf"] {
            for (i, child) in map
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                self.schema(child, &format!("{at}/{key}/{i}"), false);
            }
        }
    }
}

/// An `enum` on an integer schema. typify 0.8 generates a `JsonSchema` impl for it whose parameter
/// is named `gen`, a reserved keyword in edition 2024, so the client stops compiling; state the
/// range with `minimum`/`maximum` (or a string enum) instead.
pub fn integer_enums(raw: &Value, out: &mut Vec<Problem>) {
    fn walk(value: &Value, pointer: &str, out: &mut Vec<Problem>) {
        match value {
            Value::Object(map) => {
                let integer = map.get("type").and_then(Value::as_str) == Some("integer");
                if integer && map.contains_key("enum") {
                    out.push(problem(
                        pointer,
                        "integer `enum`: the generated code does not compile in edition 2024 \
                         (typify names a parameter `gen`); use `minimum`/`maximum` and say the \
                         allowed values in the description",
                    ));
                }
                for (key, child) in map {
                    walk(child, &format!("{pointer}/{}", escape(key)), out);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(child, &format!("{pointer}/{i}"), out);
                }
            }
            _ => {}
        }
    }
    walk(raw, "", out);
}

/// The parts of an envelope that the service's documented answers leave out, required: a paged
/// list (`data` and `pagination`) documented without `pagination`, an error answer without its
/// `error` object. The client must read those answers (a list is then one page; an error's message
/// is read from the top), so neither is `required` in any schema of the document.
pub fn envelope_parts_optional(raw: &Value, out: &mut Vec<Problem>) {
    let Some(schemas) = raw
        .pointer("/components/schemas")
        .and_then(Value::as_object)
    else {
        return;
    };
    for (name, schema) in schemas {
        let required: Vec<&str> = crate::schema::required(schema).collect();
        let properties = schema.get("properties").and_then(Value::as_object);
        let has = |key: &str| properties.is_some_and(|p| p.contains_key(key));
        let pointer = format!("/components/schemas/{}/required", escape(name));
        if required.contains(&"pagination") && has("data") {
            out.push(problem(
                &pointer,
                "`pagination` required in a list envelope: the service documents paged lists \
                 without it; make it optional (the list is then one page)",
            ));
        }
        if required.contains(&"error") && has("success") {
            out.push(problem(
                &pointer,
                "`error` required in an error envelope: the service documents error answers \
                 without it (the message at the top, as Laravel writes it); make it optional",
            ));
        }
    }
}

/// Lints a YAML document and renders each problem as `pointer: message`.
#[cfg(test)]
fn lint_yaml(yaml: &str) -> Vec<String> {
    let spec: OpenAPI = crate::yaml::from_str(yaml).expect("test document parses as OpenAPI");
    let raw: Value = crate::yaml::from_str(yaml).expect("test document parses as YAML");
    lint(&spec, &raw).iter().map(ToString::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A document that passes every rule; the tests below break one rule each.
    const VALID: &str = r##"
openapi: 3.0.3
info: { title: T, version: "1" }
paths:
  /orders/{id}:
    get:
      operationId: get_order
      summary: Order details
      tags: [Orders]
      security: [{ oauth2: [orders.read] }, { oauth2: [orders.read_write] }]
      parameters:
        - { name: id, in: path, required: true, schema: { type: integer } }
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Order" }
        "404": { $ref: "#/components/responses/NotFound" }
        "422":
          description: invalid
          content:
            application/json:
              schema: { $ref: "#/components/schemas/ErrorResponse" }
components:
  securitySchemes:
    oauth2:
      type: oauth2
      flows:
        clientCredentials: { tokenUrl: "https://example.test/token", scopes: { orders.read: r, orders.read_write: rw } }
  responses:
    NotFound:
      description: not found
      content:
        application/json:
          schema: { $ref: "#/components/schemas/ErrorResponse" }
  schemas:
    Order:
      type: object
      properties:
        id: { type: integer }
        total: { $ref: "#/components/schemas/Amount" }
        tags: { type: array, items: { type: string } }
    Amount:
      type: object
      properties: { amount: { type: number } }
    ErrorResponse:
      type: object
      properties: { message: { type: string } }
"##;

    fn with(from: &str, to: &str) -> String {
        assert!(VALID.contains(from), "test edit `{from}` not found");
        VALID.replacen(from, to, 1)
    }

    #[test]
    fn integer_enum_is_reported() {
        let doc = with(
            "id: { type: integer }",
            "id: { type: integer, enum: [1, 2] }",
        );
        assert_eq!(
            lint_yaml(&doc),
            vec![
                "/components/schemas/Order/properties/id: integer `enum`: the generated code does not \
                 compile in edition 2024 (typify names a parameter `gen`); use `minimum`/`maximum` \
                 and say the allowed values in the description"
                    .to_string()
            ]
        );
    }

    #[test]
    fn required_envelope_parts_the_service_leaves_out_are_reported() {
        let doc = with(
            "    ErrorResponse:\n      type: object\n      properties: { message: { type: string } }",
            "    ErrorResponse:\n      type: object\n      required: [success, error]\n      properties: { success: { type: boolean }, error: { type: object } }\n    OrderList:\n      type: object\n      required: [data, pagination]\n      properties: { data: { type: array, items: { $ref: \"#/components/schemas/Order\" } }, pagination: { type: object } }",
        );
        let problems = lint_yaml(&doc);
        assert!(
            problems.iter().any(|p| p.starts_with(
                "/components/schemas/ErrorResponse/required: `error` required in an error envelope"
            )),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.starts_with(
                "/components/schemas/OrderList/required: `pagination` required in a list envelope"
            )),
            "{problems:?}"
        );
    }

    #[test]
    fn valid_document_has_no_problems() {
        assert_eq!(lint_yaml(VALID), Vec::<String>::new());
    }

    #[test]
    fn unquoted_status_codes_are_read_like_quoted_ones() {
        let doc = VALID
            .replace("\"200\":", "200:")
            .replace("\"404\":", "404:")
            .replace(
                "\"422\":\n          description: invalid",
                "422:\n          description: invalid",
            );
        assert!(doc.contains("\n        422:\n"));
        assert_eq!(lint_yaml(&doc), Vec::<String>::new());
        let inline = doc.replace(
            r##"              schema: { $ref: "#/components/schemas/ErrorResponse" }
components:"##,
            "              schema: { type: string }\ncomponents:",
        );
        assert_eq!(
            lint_yaml(&inline),
            [
                "/paths/~1orders~1{id}/get/responses/422: error response schema is an inline schema; use `$ref: '#/components/schemas/ErrorResponse'`"
            ]
        );
    }

    #[test]
    fn operation_without_operation_id_summary_or_tags_is_reported() {
        let doc = with(
            "      operationId: get_order\n      summary: Order details\n      tags: [Orders]\n",
            "",
        );
        assert_eq!(
            lint_yaml(&doc),
            [
                "/paths/~1orders~1{id}/get: operation has no operationId",
                "/paths/~1orders~1{id}/get: operation has no summary",
                "/paths/~1orders~1{id}/get: operation has no tags",
            ]
        );
    }

    #[test]
    fn operation_without_its_own_nonempty_security_is_reported() {
        let missing = with(
            "      security: [{ oauth2: [orders.read] }, { oauth2: [orders.read_write] }]\n",
            "",
        );
        assert_eq!(
            lint_yaml(&missing),
            [
                "/paths/~1orders~1{id}/get: operation has no `security` of its own (a document-level default does not count)"
            ]
        );
        let empty = with(
            "security: [{ oauth2: [orders.read] }, { oauth2: [orders.read_write] }]",
            "security: []",
        );
        assert_eq!(
            lint_yaml(&empty),
            ["/paths/~1orders~1{id}/get: operation has an empty `security` list"]
        );
        let anonymous = with("{ oauth2: [orders.read_write] }", "{}");
        assert_eq!(
            lint_yaml(&anonymous),
            [
                "/paths/~1orders~1{id}/get/security/1: empty security requirement (allows anonymous access)"
            ]
        );
        let unknown = with("{ oauth2: [orders.read_write] }", "{ apikey: [] }");
        assert_eq!(
            lint_yaml(&unknown),
            [
                "/paths/~1orders~1{id}/get/security/1: security scheme `apikey` is not defined in #/components/securitySchemes"
            ]
        );
    }

    #[test]
    fn duplicate_operation_id_is_reported_at_the_second_use() {
        let doc = with(
            "components:",
            r#"  /orders:
    get:
      operationId: get_order
      summary: List
      tags: [Orders]
      security: [{ oauth2: [orders.read] }]
      responses:
        "200": { description: ok }
components:"#,
        );
        assert_eq!(
            lint_yaml(&doc),
            [
                "/paths/~1orders/get/operationId: duplicate operationId `get_order` (first used at /paths/~1orders~1{id}/get)"
            ]
        );
    }

    #[test]
    fn replaced_by_naming_no_operation_is_reported() {
        let doc = with(
            "      tags: [Orders]\n",
            "      tags: [Orders]\n      x-replaced-by: get_order_v3\n",
        );
        assert_eq!(
            lint_yaml(&doc),
            [
                "/paths/~1orders~1{id}/get/x-replaced-by: x-replaced-by names `get_order_v3`, which is no operationId of this document"
            ]
        );
        let ok = with(
            "      tags: [Orders]\n",
            "      tags: [Orders]\n      x-replaced-by: get_order\n",
        );
        assert_eq!(lint_yaml(&ok), Vec::<String>::new());
    }

    #[test]
    fn unresolved_ref_is_reported_where_it_is_written() {
        let doc = with(
            r##"total: { $ref: "#/components/schemas/Amount" }"##,
            r##"total: { $ref: "#/components/schemas/Money" }"##,
        );
        let problems = lint_yaml(&doc);
        assert!(
            problems.contains(
                &"/components/schemas/Order/properties/total: $ref `#/components/schemas/Money` does not resolve"
                    .to_owned()
            ),
            "{problems:#?}"
        );
        let external = with(
            r##"total: { $ref: "#/components/schemas/Amount" }"##,
            r##"total: { $ref: "money.yaml#/Money" }"##,
        );
        assert!(lint_yaml(&external).contains(
            &"/components/schemas/Order/properties/total: $ref `money.yaml#/Money` points outside the document (external references are not supported)"
                .to_owned()
        ));
    }

    #[test]
    fn component_not_reached_from_paths_is_reported() {
        // `Legacy` refers to `Amount`, but nothing in `paths` refers to `Legacy`.
        let doc = with(
            "    Amount:\n",
            "    Legacy:\n      type: object\n      properties: { total: { $ref: \"#/components/schemas/Amount\" } }\n    Amount:\n",
        );
        assert_eq!(
            lint_yaml(&doc),
            [
                "/components/schemas/Legacy: component is not reached by any `$ref` from `paths`; remove it or use it"
            ]
        );
        let response = with(
            "  schemas:\n",
            "    Gone: { description: gone }\n  schemas:\n",
        );
        assert_eq!(
            lint_yaml(&response),
            [
                "/components/responses/Gone: component is not reached by any `$ref` from `paths`; remove it or use it"
            ]
        );
    }

    #[test]
    fn a_webhook_events_data_reaches_what_it_refers_to() {
        // `PingData` types an event's `data`: it and what it refers to are reached.
        let doc = with(
            "    Amount:\n",
            "    PingData:\n      type: object\n      x-webhook-events: [ping]\n      properties: { nested: { $ref: \"#/components/schemas/PingNested\" } }\n    PingNested:\n      type: object\n      properties: { id: { type: integer } }\n    Amount:\n",
        );
        assert_eq!(lint_yaml(&doc), Vec::<String>::new());
    }

    #[test]
    fn error_response_without_the_shared_error_schema_is_reported() {
        let inline = with(
            r##"              schema: { $ref: "#/components/schemas/ErrorResponse" }
components:"##,
            "              schema: { type: string }\ncomponents:",
        );
        assert_eq!(
            lint_yaml(&inline),
            [
                "/paths/~1orders~1{id}/get/responses/422: error response schema is an inline schema; use `$ref: '#/components/schemas/ErrorResponse'`"
            ]
        );
        let via_component = with(
            r##"          schema: { $ref: "#/components/schemas/ErrorResponse" }
  schemas:"##,
            "          schema: { $ref: \"#/components/schemas/Amount\" }\n  schemas:",
        );
        assert_eq!(
            lint_yaml(&via_component),
            [
                "/paths/~1orders~1{id}/get/responses/404: error response schema is `$ref: '#/components/schemas/Amount'`; use `$ref: '#/components/schemas/ErrorResponse'` (via #/components/responses/NotFound)"
            ]
        );
        let no_body = with(
            "        \"200\":\n",
            "        \"401\": { description: unauthorized }\n        default: { description: other }\n        \"200\":\n",
        );
        assert_eq!(
            lint_yaml(&no_body),
            [
                "/paths/~1orders~1{id}/get/responses/401: error response has no application/json body; use `$ref: '#/components/schemas/ErrorResponse'`",
                "/paths/~1orders~1{id}/get/responses/default: error response has no application/json body; use `$ref: '#/components/schemas/ErrorResponse'`",
            ]
        );
    }

    #[test]
    fn inline_object_schema_is_reported_with_its_location() {
        let property = with(
            r##"total: { $ref: "#/components/schemas/Amount" }"##,
            "total: { type: object, properties: { amount: { type: number } } }",
        );
        let expected_message = "inline object schema (it has `properties`); make it a component under #/components/schemas and `$ref` it";
        assert_eq!(
            lint_yaml(&property),
            [
                "/components/schemas/Amount: component is not reached by any `$ref` from `paths`; remove it or use it".to_owned(),
                format!("/components/schemas/Order/properties/total: {expected_message}"),
            ]
        );
        let items = with(
            "tags: { type: array, items: { type: string } }",
            "tags: { type: array, items: { type: object, properties: { name: { type: string } } } }",
        );
        assert_eq!(
            lint_yaml(&items),
            [format!(
                "/components/schemas/Order/properties/tags/items: {expected_message}"
            )]
        );
        let body = with(
            r##"              schema: { $ref: "#/components/schemas/Order" }"##,
            "              schema: { type: object, properties: { data: { $ref: \"#/components/schemas/Order\" } } }",
        );
        assert_eq!(
            lint_yaml(&body),
            [format!(
                "/paths/~1orders~1{{id}}/get/responses/200/content/application~1json/schema: {expected_message}"
            )]
        );
    }
}

//! The main document's own conventions, checked by `cargo xtask generate` before it generates, so
//! that what CI's validators and the mock reject minutes later is refused in seconds:
//!
//! - [`shared_error_answers`]: every operation declares the error answers that the document's
//!   operations share (`401`, `429`, `4XX`, `5XX` today: each status that at least
//!   [`SHARED_SHARE`] of the operations declare), and `404` when it has a path parameter and the
//!   document's other operations with one declare it (Spectral's `operation-error-responses`, the
//!   generated clients' error decoding).
//! - [`path_parameter_names`]: a path parameter is named as the paths beside it name the same
//!   place (`/orders/{order}/notes` beside `/orders/{order_id}`): the mock routes by the document,
//!   and a router refuses two names at one place. A parameter whose name is the service's own and
//!   must stay says so with `x-path-name-kept: <why>`.
//! - [`read_write_scopes`]: an operation that a group's `read` scope allows is also allowed by the
//!   group's `read_write` scope when the document declares one (the service grants the `read`
//!   operations to `read_write` tokens, and the client checks a token's scopes by this list).
//!
//! - [`event_schema_exemptions`]: a schema that types a webhook event's `data`
//!   (`x-webhook-events`) and that no `$ref` names is exempted from Spectral's
//!   `oas3-unused-component` (`openapi/.spectral.yaml`'s `overrides`) and Redocly's
//!   `no-unused-components` (`openapi/.redocly.lint-ignore.yaml`), and nothing else is: both run
//!   with warnings as failures in CI's publishing step, half an hour after a commit.
//!
//! These rules read the document's habits, so they apply to the main document, not to the
//! fixtures (each a minimal document for one generator feature).

use std::collections::{BTreeMap, BTreeSet};

use openapiv3::{OpenAPI, StatusCode};
use serde_json::Value;

use crate::lint::{Problem, escape, operations};

/// The share of the operations that must declare an error status for it to be shared.
pub const SHARED_SHARE: f64 = 0.9;

/// The fewest operations from which the shared answers are read (fewer: no rule).
const FEWEST: usize = 5;

/// The extension that keeps a path parameter's differing name.
pub const NAME_KEPT: &str = "x-path-name-kept";

/// Runs the three rules; problems sorted by pointer.
pub fn lint(spec: &OpenAPI, raw: &Value) -> Vec<Problem> {
    let mut out = Vec::new();
    shared_error_answers(spec, &mut out);
    path_parameter_names(raw, &mut out);
    read_write_scopes(spec, raw, &mut out);
    out.sort();
    out.dedup();
    out
}

fn problem(pointer: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem {
        pointer: pointer.into(),
        message: message.into(),
    }
}

/// The error statuses (`429`, `4XX`, `default`) an operation declares.
fn error_keys(op: &openapiv3::Operation) -> BTreeSet<String> {
    let mut keys: BTreeSet<String> = op
        .responses
        .responses
        .keys()
        .filter_map(|code| match code {
            StatusCode::Code(n) if *n >= 400 => Some(n.to_string()),
            StatusCode::Range(n) if *n >= 4 => Some(format!("{n}XX")),
            _ => None,
        })
        .collect();
    if op.responses.default.is_some() {
        keys.insert("default".to_owned());
    }
    keys
}

/// The statuses that at least [`SHARED_SHARE`] of `sets` hold (none for fewer than [`FEWEST`]).
fn shared<'a>(sets: impl Iterator<Item = &'a BTreeSet<String>> + Clone) -> BTreeSet<String> {
    let total = sets.clone().count();
    if total < FEWEST {
        return BTreeSet::new();
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for set in sets {
        for key in set {
            *counts.entry(key).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .filter(|(_, n)| *n as f64 >= SHARED_SHARE * total as f64)
        .map(|(k, _)| k.to_owned())
        .collect()
}

/// Rule: every operation declares the error answers the document's operations share, and `404`
/// with a path parameter when the others with one declare it.
pub fn shared_error_answers(spec: &OpenAPI, out: &mut Vec<Problem>) {
    let ops: Vec<(String, bool, BTreeSet<String>)> = operations(spec)
        .map(|(pointer, path, _, op)| (pointer, path.contains('{'), error_keys(op)))
        .collect();
    // `404` is a record that may not exist: asked only of an operation with a path parameter.
    let mut everyone = shared(ops.iter().map(|(_, _, keys)| keys));
    everyone.remove("404");
    let with_path = shared(
        ops.iter()
            .filter(|(_, has, _)| *has)
            .map(|(_, _, keys)| keys),
    );
    for (pointer, has_path_parameter, keys) in &ops {
        let mut wanted: BTreeSet<&String> = everyone.iter().collect();
        if *has_path_parameter && with_path.contains("404") {
            wanted.insert(with_path.get("404").expect("contains"));
        }
        let missing: Vec<&str> = wanted
            .into_iter()
            .filter(|k| !keys.contains(*k))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            out.push(problem(
                format!("{pointer}/responses"),
                format!(
                    "the operation lacks the error answer(s) {} that the document's other operations \
                     declare (each as `$ref: '#/components/responses/...'` or with the ErrorResponse \
                     body); CI's Spectral rules and the generated clients' error decoding need them",
                    missing.join(", ")
                ),
            ));
        }
    }
}

/// A parameter object, following one `#/components/parameters/` reference.
fn resolve<'a>(raw: &'a Value, parameter: &'a Value) -> &'a Value {
    match parameter.get("$ref").and_then(Value::as_str) {
        Some(target) => target
            .strip_prefix('#')
            .and_then(|p| raw.pointer(p))
            .unwrap_or(parameter),
        None => parameter,
    }
}

/// Whether a path parameter of `path` (at path level or in any of its operations) keeps its name
/// by [`NAME_KEPT`].
fn name_kept(raw: &Value, path: &str, name: &str) -> bool {
    let Some(item) = raw.get("paths").and_then(|p| p.get(path)) else {
        return false;
    };
    let lists = std::iter::once(item.get("parameters"))
        .chain(
            item.as_object()
                .into_iter()
                .flat_map(|o| o.values())
                .map(|op| op.get("parameters")),
        )
        .flatten()
        .filter_map(Value::as_array)
        .flatten();
    lists.map(|p| resolve(raw, p)).any(|p| {
        p.get("in").and_then(Value::as_str) == Some("path")
            && p.get("name").and_then(Value::as_str) == Some(name)
            && p.get(NAME_KEPT)
                .and_then(Value::as_str)
                .is_some_and(|why| !why.trim().is_empty())
    })
}

/// Rule: paths that share their segments up to a parameter name it alike.
pub fn path_parameter_names(raw: &Value, out: &mut Vec<Problem>) {
    let Some(paths) = raw.get("paths").and_then(Value::as_object) else {
        return;
    };
    // The prefix before a parameter segment -> the parameter's name -> the paths that use it.
    let mut places: BTreeMap<String, BTreeMap<String, Vec<&str>>> = BTreeMap::new();
    for path in paths.keys() {
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        for (i, segment) in segments.iter().enumerate() {
            if let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                // Earlier parameters count as one place whatever their name.
                let prefix: Vec<&str> = segments[..i]
                    .iter()
                    .map(|s| if s.starts_with('{') { "{}" } else { s })
                    .collect();
                places
                    .entry(prefix.join("/"))
                    .or_default()
                    .entry(name.to_owned())
                    .or_default()
                    .push(path);
            }
        }
    }
    for (prefix, names) in places {
        if names.len() < 2 {
            continue;
        }
        // The name most paths use is the record's; every other is reported where it is used.
        let (usual, usual_paths) = names
            .iter()
            .max_by_key(|(name, paths)| (paths.len(), std::cmp::Reverse(name.as_str())))
            .expect("two names");
        for (name, used) in &names {
            if name == usual {
                continue;
            }
            for path in used {
                if name_kept(raw, path, name) {
                    continue;
                }
                out.push(problem(
                    format!("/paths/{}", escape(path)),
                    format!(
                        "the path parameter `{{{name}}}` stands where {} other path(s) under `/{prefix}/` \
                         (such as `{}`) have `{{{usual}}}`: name it `{usual}` (a router, the mock's \
                         included, refuses two names at one place), or give the parameter \
                         `{NAME_KEPT}: <why>` if the service's own name must stay",
                        usual_paths.len(),
                        usual_paths[0]
                    ),
                ));
            }
        }
    }
}

/// The OAuth 2 scopes the document declares, over every scheme and flow.
fn declared_scopes(raw: &Value) -> BTreeSet<String> {
    let mut scopes = BTreeSet::new();
    let schemes = raw
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object);
    for scheme in schemes.into_iter().flat_map(|s| s.values()) {
        let flows = scheme.get("flows").and_then(Value::as_object);
        for flow in flows.into_iter().flat_map(|f| f.values()) {
            if let Some(s) = flow.get("scopes").and_then(Value::as_object) {
                scopes.extend(s.keys().cloned());
            }
        }
    }
    scopes
}

/// Rule: an operation a group's `.read` scope allows lists the group's `.read_write` too.
pub fn read_write_scopes(spec: &OpenAPI, raw: &Value, out: &mut Vec<Problem>) {
    let declared = declared_scopes(raw);
    for (pointer, _, _, op) in operations(spec) {
        let listed: BTreeSet<&str> = op
            .security
            .iter()
            .flatten()
            .flat_map(|requirement| requirement.values())
            .flatten()
            .map(String::as_str)
            .collect();
        for scope in &listed {
            let Some(group) = scope.strip_suffix(".read") else {
                continue;
            };
            let read_write = format!("{group}.read_write");
            if declared.contains(&read_write) && !listed.contains(read_write.as_str()) {
                out.push(problem(
                    format!("{pointer}/security"),
                    format!(
                        "the operation allows `{scope}` but not `{read_write}`, which the service \
                         grants every `{group}` read operation: add `- oauth2: [{read_write}]` \
                         beside it"
                    ),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    /// A document of `n` operations that passes the three rules: each `GET /orders/{order_id}/k`
    /// with 401, 404, 429, 4XX, 5XX, and `orders.read` beside `orders.read_write`; `extra` is
    /// appended under `paths`.
    fn document(n: usize, extra: &str) -> String {
        let mut yaml = String::from("openapi: 3.0.3\ninfo: { title: T, version: \"1\" }\npaths:\n");
        for k in 0..n {
            let _ = write!(
                yaml,
                r##"  /orders/{{order_id}}/k{k}:
    get:
      operationId: op_{k}
      summary: s
      tags: [Orders]
      security: [{{ oauth2: [orders.read] }}, {{ oauth2: [orders.read_write] }}]
      parameters:
        - {{ name: order_id, in: path, required: true, schema: {{ type: integer }} }}
      responses:
        "200": {{ description: ok }}
        "401": {{ $ref: "#/components/responses/Error" }}
        "404": {{ $ref: "#/components/responses/Error" }}
        "429": {{ $ref: "#/components/responses/Error" }}
        "4XX": {{ $ref: "#/components/responses/Error" }}
        "5XX": {{ $ref: "#/components/responses/Error" }}
"##
            );
        }
        yaml.push_str(extra);
        yaml.push_str(
            r##"components:
  securitySchemes:
    oauth2:
      type: oauth2
      flows:
        clientCredentials: { tokenUrl: "https://example.test/token", scopes: { orders.read: r, orders.read_write: rw } }
  responses:
    Error:
      description: error
      content:
        application/json:
          schema: { type: object }
"##,
        );
        yaml
    }

    fn lint_yaml(yaml: &str) -> Vec<String> {
        let spec: OpenAPI = crate::yaml::from_str(yaml).expect("test document parses as OpenAPI");
        let raw: Value = crate::yaml::from_str(yaml).expect("test document parses as YAML");
        lint(&spec, &raw).iter().map(ToString::to_string).collect()
    }

    /// An operation appended to [`document`]'s paths.
    fn operation(path: &str, parameter: &str, scopes: &str, statuses: &[&str]) -> String {
        let mut yaml = format!(
            "  {path}:\n    get:\n      operationId: extra\n      summary: s\n      tags: [Orders]\n      \
             security: {scopes}\n"
        );
        if !parameter.is_empty() {
            let _ = write!(yaml, "      parameters:\n        - {{ {parameter} }}\n");
        }
        yaml.push_str("      responses:\n        \"200\": { description: ok }\n");
        for status in statuses {
            let _ = writeln!(
                yaml,
                "        \"{status}\": {{ $ref: \"#/components/responses/Error\" }}"
            );
        }
        yaml
    }

    const ALL: [&str; 5] = ["401", "404", "429", "4XX", "5XX"];
    const BOTH: &str = "[{ oauth2: [orders.read] }, { oauth2: [orders.read_write] }]";

    #[test]
    fn a_document_that_keeps_the_conventions_passes() {
        let extra = operation(
            "/orders/{order_id}/notes",
            "name: order_id, in: path, required: true, schema: { type: integer }",
            BOTH,
            &ALL,
        );
        assert_eq!(lint_yaml(&document(10, &extra)), Vec::<String>::new());
        // A path without a parameter needs no 404.
        let extra = operation("/notes", "", BOTH, &["401", "429", "4XX", "5XX"]);
        assert_eq!(lint_yaml(&document(10, &extra)), Vec::<String>::new());
    }

    #[test]
    fn an_operation_without_the_shared_error_answers_is_named_with_what_it_lacks() {
        let extra = operation(
            "/orders/{order_id}/notes",
            "name: order_id, in: path, required: true, schema: { type: integer }",
            BOTH,
            &["401", "4XX"],
        );
        let problems = lint_yaml(&document(10, &extra));
        assert_eq!(problems.len(), 1, "{problems:#?}");
        assert!(
            problems[0].starts_with("/paths/~1orders~1{order_id}~1notes/get/responses: the operation lacks the error answer(s) 404, 429, 5XX"),
            "{}",
            problems[0]
        );
    }

    #[test]
    fn a_path_parameter_named_unlike_its_place_elsewhere_is_refused_unless_kept() {
        let extra = operation(
            "/orders/{order}/notes",
            "name: order, in: path, required: true, schema: { type: integer }",
            BOTH,
            &ALL,
        );
        let problems = lint_yaml(&document(10, &extra));
        assert_eq!(problems.len(), 1, "{problems:#?}");
        assert!(
            problems[0].starts_with("/paths/~1orders~1{order}~1notes: the path parameter `{order}` stands where 10 other path(s) under `/orders/` (such as `/orders/{order_id}/k0`) have `{order_id}`: name it `order_id`"),
            "{}",
            problems[0]
        );
        let kept = operation(
            "/orders/{order}/notes",
            "name: order, in: path, required: true, schema: { type: integer }, x-path-name-kept: the service's own",
            BOTH,
            &ALL,
        );
        assert_eq!(lint_yaml(&document(10, &kept)), Vec::<String>::new());
    }

    #[test]
    fn a_read_scope_without_its_read_write_scope_is_refused() {
        let extra = operation(
            "/notes",
            "",
            "[{ oauth2: [orders.read] }]",
            &["401", "429", "4XX", "5XX"],
        );
        let problems = lint_yaml(&document(10, &extra));
        assert_eq!(
            problems,
            vec![
                "/paths/~1notes/get/security: the operation allows `orders.read` but not \
                 `orders.read_write`, which the service grants every `orders` read operation: add \
                 `- oauth2: [orders.read_write]` beside it"
                    .to_owned()
            ]
        );
    }

    #[test]
    fn a_small_document_has_no_shared_answers_to_require() {
        let extra = operation("/notes", "", BOTH, &[]);
        assert_eq!(lint_yaml(&document(3, &extra)), Vec::<String>::new());
    }
}

/// The Spectral ruleset beside the main document.
pub const SPECTRAL_RULESET: &str = "openapi/.spectral.yaml";
/// Redocly's list of ignored problems beside the main document.
pub const REDOCLY_IGNORE: &str = "openapi/.redocly.lint-ignore.yaml";

/// The schemas that type a webhook event's `data` (`x-webhook-events`) and that no `$ref` of the
/// document names: the unused-component rules of Spectral and Redocly see nothing that uses them.
pub fn unreferenced_event_schemas(raw: &Value) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    collect_refs(raw, &mut named);
    raw.pointer("/components/schemas")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(name, schema)| {
            schema.get("x-webhook-events").is_some()
                && !named.contains(&format!("#/components/schemas/{}", escape(name)))
        })
        .map(|(name, _)| name.clone())
        .collect()
}

fn collect_refs(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let Some(target) = map.get("$ref").and_then(Value::as_str) {
                out.insert(target.to_owned());
            }
            map.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

/// The component schemas that Spectral's `overrides` switch `oas3-unused-component` off for
/// (`files: ["store-admin.yaml#/components/schemas/X"]`).
fn spectral_exempted(ruleset: &Value) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for entry in ruleset
        .get("overrides")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let off = entry
            .pointer("/rules/oas3-unused-component")
            .and_then(Value::as_str)
            == Some("off");
        if !off {
            continue;
        }
        for file in entry
            .get("files")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if let Some(name) = file.strip_prefix("store-admin.yaml#/components/schemas/") {
                names.insert(name.to_owned());
            }
        }
    }
    names
}

/// The component schemas that Redocly's ignore file lists under `no-unused-components`.
fn redocly_exempted(ignore: &Value) -> BTreeSet<String> {
    ignore
        .pointer("/store-admin.yaml/no-unused-components")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter_map(|pointer| pointer.strip_prefix("#/components/schemas/"))
        .map(str::to_owned)
        .collect()
}

/// Rule: the schemas exempted from the unused-component rules of Spectral (`ruleset`, the parsed
/// [`SPECTRAL_RULESET`]) and Redocly (`ignore`, the parsed [`REDOCLY_IGNORE`]) are exactly
/// [`unreferenced_event_schemas`]: a new event schema is listed in both, and a schema that is
/// used or gone is listed in neither (an exemption would hide a real unused component).
pub fn event_schema_exemptions(
    raw: &Value,
    ruleset: &Value,
    ignore: &Value,
    out: &mut Vec<Problem>,
) {
    let wanted = unreferenced_event_schemas(raw);
    for (file, listed) in [
        (SPECTRAL_RULESET, spectral_exempted(ruleset)),
        (REDOCLY_IGNORE, redocly_exempted(ignore)),
    ] {
        for name in wanted.difference(&listed) {
            out.push(problem(
                format!("/components/schemas/{}", escape(name)),
                format!(
                    "types a webhook event's data (x-webhook-events) and no $ref names it: exempt it \
                     from the unused-component rule in {file}, or CI's publishing step fails"
                ),
            ));
        }
        for name in listed.difference(&wanted) {
            out.push(problem(
                format!("/components/schemas/{}", escape(name)),
                format!(
                    "exempted from the unused-component rule in {file}, but it is not an \
                     unreferenced webhook event schema (used, renamed or gone): remove it there"
                ),
            ));
        }
    }
    out.sort();
    out.dedup();
}

#[cfg(test)]
mod exemption_tests {
    use serde_json::json;

    use super::*;

    fn document() -> Value {
        json!({
            "paths": {"/a": {"get": {"responses": {"200": {"content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Used"}}}}}}}},
            "components": {"schemas": {
                "Used": {"type": "object", "x-webhook-events": ["order.created"]},
                "Delivery": {"type": "object", "x-webhook-events": ["app.installed"]},
                "Plain": {"type": "object"}
            }}
        })
    }

    fn spectral(names: &[&str]) -> Value {
        let files: Vec<String> = names
            .iter()
            .map(|n| format!("store-admin.yaml#/components/schemas/{n}"))
            .collect();
        json!({"overrides": [{"files": files, "rules": {"oas3-unused-component": "off"}}]})
    }

    fn redocly(names: &[&str]) -> Value {
        let pointers: Vec<String> = names
            .iter()
            .map(|n| format!("#/components/schemas/{n}"))
            .collect();
        json!({"store-admin.yaml": {"no-unused-components": pointers}})
    }

    fn problems(spectral_names: &[&str], redocly_names: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        event_schema_exemptions(
            &document(),
            &spectral(spectral_names),
            &redocly(redocly_names),
            &mut out,
        );
        out.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn an_unreferenced_event_schema_is_the_one_to_exempt() {
        assert_eq!(
            unreferenced_event_schemas(&document()),
            BTreeSet::from(["Delivery".to_owned()])
        );
        assert!(problems(&["Delivery"], &["Delivery"]).is_empty());
    }

    #[test]
    fn a_missing_exemption_is_named_with_its_file() {
        let found = problems(&[], &["Delivery"]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("/components/schemas/Delivery: ")
                && found[0].contains(SPECTRAL_RULESET),
            "{found:?}"
        );
        let found = problems(&["Delivery"], &[]);
        assert!(
            found.len() == 1 && found[0].contains(REDOCLY_IGNORE),
            "{found:?}"
        );
    }

    #[test]
    fn an_exemption_of_a_used_or_plain_schema_is_refused() {
        let found = problems(&["Delivery", "Used"], &["Delivery", "Plain"]);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found
                .iter()
                .any(|p| p.starts_with("/components/schemas/Used: "))
        );
        assert!(
            found
                .iter()
                .any(|p| p.starts_with("/components/schemas/Plain: "))
        );
    }

    #[test]
    fn the_workspace_files_exempt_exactly_the_event_schemas() {
        let root = crate::document::workspace_root();
        let read = |rel: &str| -> Value {
            crate::yaml::from_str(&std::fs::read_to_string(root.join(rel)).expect("reads"))
                .expect("parses")
        };
        let mut out = Vec::new();
        event_schema_exemptions(
            &read(crate::SPEC),
            &read(SPECTRAL_RULESET),
            &read(REDOCLY_IGNORE),
            &mut out,
        );
        assert!(out.is_empty(), "{out:?}");
    }
}

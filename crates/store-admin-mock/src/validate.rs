//! Request bodies checked against the document's own JSON schemas, as a strict server does: a
//! field of the wrong type (`null` where the document does not allow it, a number where it wants a
//! string...) is a 422 naming the field, before the handler runs. Missing required fields are left
//! to the handlers, which answer them with the service's own messages, and so are the rules no
//! schema states (a known courier, a delivered shipment...).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use store_admin_client::OPERATIONS;

use crate::error::ApiError;

/// The document the mock serves (the same file the client is generated from).
const DOCUMENT: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../openapi/store-admin.yaml"
));

/// A validator of the JSON request body of each operation, indexed like [`OPERATIONS`].
pub(crate) struct BodySchemas {
    by_operation: Vec<Option<jsonschema::Validator>>,
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
            if map.get("nullable") == Some(&Value::Bool(true)) {
                json!({ "anyOf": [Value::Object(out), { "type": "null" }] })
            } else {
                Value::Object(out)
            }
        }
        other => other.clone(),
    }
}

impl BodySchemas {
    /// Compiles the request body schema of every operation of the embedded document. An operation
    /// whose schema cannot be found or compiled is not checked (and says so in the log).
    pub fn from_document() -> Self {
        let document: Value = match serde_yaml::from_str(DOCUMENT) {
            Ok(document) => document,
            Err(error) => {
                tracing::warn!(%error, "the embedded document does not parse; request bodies are not checked");
                return Self {
                    by_operation: OPERATIONS.iter().map(|_| None).collect(),
                };
            }
        };
        let schemas: Map<String, Value> = document
            .pointer("/components/schemas")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(name, schema)| (name.clone(), openapi_to_json_schema(schema)))
            .collect();
        let components = json!({ "schemas": schemas });
        let by_operation = OPERATIONS
            .iter()
            .map(|op| {
                let mut body = document
                    .get("paths")?
                    .get(op.path)?
                    .get(op.method.to_ascii_lowercase())?
                    .get("requestBody")?
                    .clone();
                if let Some(reference) = body.get("$ref").and_then(Value::as_str) {
                    let name = reference.rsplit('/').next().unwrap_or_default();
                    body = document.pointer(&format!("/components/requestBodies/{name}"))?.clone();
                }
                let schema = body.pointer("/content/application~1json/schema")?;
                let root = json!({ "allOf": [openapi_to_json_schema(schema)], "components": components });
                match jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .build(&root)
                {
                    Ok(validator) => Some(validator),
                    Err(error) => {
                        tracing::warn!(operation = op.operation_id, %error, "request body schema does not compile");
                        None
                    }
                }
            })
            .collect();
        Self { by_operation }
    }

    /// Whether operation `index` has a body schema.
    pub fn has(&self, index: usize) -> bool {
        matches!(self.by_operation.get(index), Some(Some(_)))
    }

    /// Checks `body` (raw bytes) for operation `index`. A body that is empty or not JSON is left
    /// to the handler (which answers 400); so are missing required fields.
    pub fn check(&self, index: usize, body: &[u8]) -> Result<(), ApiError> {
        let Some(Some(validator)) = self.by_operation.get(index) else {
            return Ok(());
        };
        let Ok(instance) = serde_json::from_slice::<Value>(body) else {
            return Ok(());
        };
        let mut fields: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for error in validator.iter_errors(&instance) {
            if matches!(
                error.kind(),
                jsonschema::error::ValidationErrorKind::Required { .. }
            ) {
                continue;
            }
            let pointer = error.instance_path().as_str().to_owned();
            let field = pointer.trim_start_matches('/').replace('/', ".");
            let field = if field.is_empty() {
                "body".to_owned()
            } else {
                field
            };
            let message = format!("The {field} field does not match the document: {error}");
            let messages = fields.entry(field).or_default();
            if !messages.contains(&message) {
                messages.push(message);
            }
        }
        if fields.is_empty() {
            Ok(())
        } else {
            Err(ApiError::validation(fields))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(operation_id: &str) -> usize {
        OPERATIONS
            .iter()
            .position(|op| op.operation_id == operation_id)
            .unwrap()
    }

    #[test]
    fn every_operation_with_a_json_body_has_a_schema() {
        let schemas = BodySchemas::from_document();
        for id in ["create_category", "create_shipment", "update_webhook"] {
            assert!(schemas.has(index(id)), "{id}");
        }
        assert!(!schemas.has(index("list_orders")));
    }

    #[test]
    fn wrong_types_and_nulls_are_422_on_their_field_and_missing_fields_are_left_to_handlers() {
        let schemas = BodySchemas::from_document();
        let category = index("create_category");
        let error = schemas
            .check(category, br#"{"name": "x", "image": null}"#)
            .unwrap_err();
        assert_eq!(error.status.as_u16(), 422);
        assert!(error.fields.unwrap().contains_key("image"));
        let error = schemas.check(category, br#"{"name": 5}"#).unwrap_err();
        assert!(error.fields.unwrap().contains_key("name"));
        assert!(schemas.check(category, br#"{}"#).is_ok());
        assert!(schemas.check(category, b"not json").is_ok());
        assert!(schemas.check(category, br#"{"name": "Shoes"}"#).is_ok());
    }
}

//! Request bodies: `--body FILE|-` as the base, flags laid over it, checked against the
//! document's type before anything is sent.

use std::io::Read;
use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::cli::BodyArg;
use crate::error::CliError;

/// Reads a file, or standard input for `-`.
pub fn read_input(path: &Path) -> Result<Vec<u8>, CliError> {
    if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| CliError::usage(format!("cannot read standard input: {e}")))?;
        Ok(bytes)
    } else {
        std::fs::read(path)
            .map_err(|e| CliError::usage(format!("cannot read {}: {e}", path.display())))
    }
}

/// The `--body` JSON object, or an empty one.
pub fn base_object(arg: &BodyArg) -> Result<Map<String, Value>, CliError> {
    let Some(path) = &arg.body else {
        return Ok(Map::new());
    };
    let bytes = read_input(path)?;
    let name = if path.as_os_str() == "-" {
        "standard input".to_string()
    } else {
        path.display().to_string()
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(CliError::usage(format!(
            "--body {name}: expected a JSON object, got {}",
            kind(&other)
        ))),
        Err(e) => Err(CliError::usage(format!("--body {name} is not JSON: {e}"))),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Builds the typed body of an operation: `--body`, then the scalar `fields` (a struct of
/// `Option`s serialized with the document's names), then `extra` fields, each overriding the
/// previous. Properties the document does not know are reported on standard error; a body the
/// document's type rejects is a usage error naming the field and its flag.
pub fn build<T: DeserializeOwned + schemars::JsonSchema>(
    arg: &BodyArg,
    fields: &impl Serialize,
    extra: Map<String, Value>,
) -> Result<T, CliError> {
    let mut body = base_object(arg)?;
    match serde_json::to_value(fields) {
        Ok(Value::Object(flags)) => body.extend(flags),
        Ok(_) | Err(_) => return Err(CliError::other("internal: flags are not an object")),
    }
    body.extend(extra);
    let known = properties::<T>();
    let unknown: Vec<&String> = body.keys().filter(|key| !known.contains(*key)).collect();
    if !known.is_empty() && !unknown.is_empty() {
        if arg.allow_unknown_fields {
            for key in &unknown {
                eprintln!(
                    "warning: the body field `{key}` is not in the API document; it is dropped \
                     (send arbitrary JSON with `store-admin api`)"
                );
            }
        } else {
            let names: Vec<String> = unknown.iter().map(|k| format!("`{k}`")).collect();
            return Err(CliError::usage(format!(
                "the body field{} {} {} not in the API document (a typo?); known fields: {}. \
                 Pass --allow-unknown-fields to go on without {}",
                if unknown.len() == 1 { "" } else { "s" },
                names.join(", "),
                if unknown.len() == 1 { "is" } else { "are" },
                known.join(", "),
                if unknown.len() == 1 { "it" } else { "them" },
            )));
        }
    }
    let value = Value::Object(body);
    serde_path_to_error::deserialize::<_, T>(value).map_err(|e| {
        let path = e.path().to_string();
        let message = e.inner().to_string();
        let flag_hint = missing_field(&message)
            .map(|field| {
                format!(
                    " (pass --{} or put `{field}` in --body)",
                    field.replace('_', "-")
                )
            })
            .unwrap_or_default();
        CliError::usage(format!(
            "the request body is not valid at `{path}`: {message}{flag_hint}"
        ))
    })
}

fn missing_field(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("missing field `")?;
    rest.split('`').next()
}

/// The top-level property names of `T`'s schema.
pub fn properties<T: schemars::JsonSchema>() -> Vec<String> {
    schemars::schema_for!(T)
        .schema
        .object
        .map(|object| object.properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// Splits `key=value`.
pub fn key_value(text: &str, flag: &str) -> Result<(String, String), CliError> {
    match text.split_once('=') {
        Some((key, value)) if !key.trim().is_empty() => {
            Ok((key.trim().to_string(), value.to_string()))
        }
        _ => Err(CliError::usage(format!(
            "{flag} {text:?}: expected KEY=VALUE"
        ))),
    }
}

/// Splits `Name: value`.
pub fn header_line(text: &str, flag: &str) -> Result<(String, String), CliError> {
    match text.split_once(':') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_string(), value.trim().to_string()))
        }
        _ => Err(CliError::usage(format!(
            "{flag} {text:?}: expected `Name: value`"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use store_admin::types;

    #[derive(Serialize)]
    struct Flags {
        #[serde(skip_serializing_if = "Option::is_none")]
        shipment_number: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        status: Option<String>,
    }

    #[test]
    fn flags_override_the_body_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("body.json");
        std::fs::write(&path, r#"{"shipment_number":"A1","status":"created"}"#).unwrap();
        let arg = BodyArg {
            body: Some(path),
            allow_unknown_fields: false,
        };
        let flags = Flags {
            shipment_number: None,
            status: Some("delivered".into()),
        };
        let body: types::UpdateShipmentRequest = build(&arg, &flags, Map::new()).unwrap();
        assert_eq!(body.shipment_number.as_str(), "A1");
        assert_eq!(body.status.to_string(), "delivered");
    }

    #[test]
    fn missing_required_field_names_its_flag() {
        let arg = BodyArg {
            body: None,
            allow_unknown_fields: false,
        };
        let flags = Flags {
            shipment_number: None,
            status: Some("delivered".into()),
        };
        let error = build::<types::UpdateShipmentRequest>(&arg, &flags, Map::new()).unwrap_err();
        assert_eq!(error.exit_code(), crate::error::exit::USAGE);
        let text = error.to_string();
        assert!(text.contains("missing field `shipment_number`"), "{text}");
        assert!(text.contains("--shipment-number"), "{text}");
    }

    #[test]
    fn a_body_that_is_not_an_object_is_a_usage_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("body.json");
        std::fs::write(&path, "[1, 2]").unwrap();
        let error = base_object(&BodyArg {
            body: Some(path),
            allow_unknown_fields: false,
        })
        .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("expected a JSON object, got an array")
        );
    }
}

//! Request bodies: `--body FILE|-` as the base, flags laid over it, checked against the
//! document's type before anything is sent.

use std::io::Read;
use std::path::{Path, PathBuf};

use clap::Args;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::CliError;

/// Who read standard input first (a flag given `-`): it can be read once.
static STDIN_TAKEN: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Claims standard input for `flag` (`--body -`, `--token -`, `--logo -`...): a second claim is
/// a usage error naming both flags, as standard input holds one input only.
pub fn claim_stdin(flag: &str) -> Result<(), CliError> {
    let mut taken = STDIN_TAKEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match taken.as_deref() {
        Some(first) => Err(CliError::usage(format!(
            "{flag} - and {first} - both read standard input, which holds one input: give one of              them a file"
        ))),
        None => {
            *taken = Some(flag.to_string());
            Ok(())
        }
    }
}

/// Reads a file, or standard input for `-` (claimed for `flag`, see [`claim_stdin`]).
pub fn read_input_for(path: &Path, flag: &str) -> Result<Vec<u8>, CliError> {
    if path.as_os_str() == "-" {
        claim_stdin(flag)?;
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
    body_object(arg.body.as_deref())
}

/// The JSON object of a `--body FILE|-`, or an empty one without it. A UTF-8 byte-order mark
/// (as some editors write) is skipped; an empty input and text that is not JSON are told in a
/// sentence, with the line and column of the fault.
pub fn body_object(path: Option<&Path>) -> Result<Map<String, Value>, CliError> {
    let Some(path) = path else {
        return Ok(Map::new());
    };
    let bytes = read_input_for(path, "--body")?;
    let name = if path.as_os_str() == "-" {
        "standard input".to_string()
    } else {
        crate::output::terminal_safe(&path.display().to_string(), false)
    };
    json_object(&bytes, &format!("--body {name}"))
}

/// `bytes` as a JSON object, for `what` (`--body body.json`) in messages.
pub fn json_object(bytes: &[u8], what: &str) -> Result<Map<String, Value>, CliError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(CliError::usage(format!(
            "{what} is empty: expected a JSON object such as {{\"name\": \"...\"}}"
        )));
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(CliError::usage(format!(
            "{what}: expected a JSON object, got {}",
            kind(&other)
        ))),
        Err(e) => Err(CliError::usage(format!(
            "{what} is not JSON: {} at line {}, column {}",
            json_fault(&e),
            e.line(),
            e.column()
        ))),
    }
}

/// What is wrong in a JSON text, in words (serde_json's message without its position).
pub fn json_fault(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let text = match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    };
    match error.classify() {
        serde_json::error::Category::Eof => "it ends before the JSON value does".to_string(),
        _ if text.starts_with("expected value") => {
            "a value was expected (a string in quotes, a number, true, false, null, an object or \
             an array)"
                .to_string()
        }
        _ if text.starts_with("trailing characters") => {
            "there is more after the JSON value".to_string()
        }
        _ if text.starts_with("key must be a string") => {
            "an object's key must be a string in double quotes".to_string()
        }
        _ => text,
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

/// What a generated command knows of its body beside the type: the required fields with the
/// flag that gives each (empty when only `--body` or a hand-written flag does), and the JSON
/// shape of each field given as JSON (`--packages-json`).
#[derive(Debug, Clone, Copy)]
pub struct BodySpec {
    /// Every top-level property of the body (alphabetical): a key of the body outside them is
    /// not in the document (a typo?). Empty when any key may be (a union body: each variant has
    /// its own). Read from the document by the generator, as the rest of the spec is.
    pub fields: &'static [&'static str],
    /// `(field, flag)` of each required field, in the document's order.
    pub required: &'static [(&'static str, &'static str)],
    /// `(field, example)` of each field given as JSON.
    pub shapes: &'static [(&'static str, &'static str)],
    /// `(field, flag)` of every field a flag of the command gives (a nested field's problem
    /// names the flag of its top field).
    pub flags: &'static [(&'static str, &'static str)],
    /// What the document says of the body's values (nested required fields, bounds, closed
    /// sets), checked before it is sent.
    pub schema: &'static crate::checks::Schema,
}

impl BodySpec {
    /// A spec that knows nothing (no required field, no shape).
    #[cfg(test)]
    pub const NONE: BodySpec = BodySpec {
        fields: &[],
        required: &[],
        shapes: &[],
        flags: &[],
        schema: &crate::checks::Schema::ANY,
    };
}

/// Builds the typed body of an operation: `--body`, then the `fields` flags (a struct of
/// `Option`s serialized with the document's names), then `extra` fields, each overriding the
/// previous. Properties the document does not know are reported on standard error; missing
/// required fields are all named at once, with their flags; a body the document's type rejects
/// is a usage error naming the field, its flag and, for a JSON field, the shape it takes.
pub fn build<T: DeserializeOwned>(
    arg: &BodyArg,
    fields: &impl Serialize,
    extra: Map<String, Value>,
    spec: &BodySpec,
) -> Result<T, CliError> {
    let mut body = base_object(arg)?;
    body.extend(flags_object(fields)?);
    body.extend(extra);
    check_and_build(body, arg, spec)
}

/// The flags (a struct of `Option`s serialized with the document's names) as a JSON object.
pub fn flags_object(fields: &impl Serialize) -> Result<Map<String, Value>, CliError> {
    match serde_json::to_value(fields) {
        Ok(Value::Object(flags)) => Ok(flags),
        Ok(_) | Err(_) => Err(CliError::other("internal: flags are not an object")),
    }
}

/// The checks and the typed body of [`build`], over a body already laid together.
pub fn check_and_build<T: DeserializeOwned>(
    body: Map<String, Value>,
    arg: &BodyArg,
    spec: &BodySpec,
) -> Result<T, CliError> {
    let known = spec.fields;
    let unknown: Vec<&String> = body
        .keys()
        .filter(|key| !known.contains(&key.as_str()))
        .collect();
    if !known.is_empty() && !unknown.is_empty() {
        if arg.allow_unknown_fields {
            for key in &unknown {
                crate::note!(
                    "warning: the body field `{key}` is not in the API document; it is dropped \
                     (send arbitrary JSON with `store-admin api`)"
                );
            }
        } else {
            let names: Vec<String> = unknown.iter().map(|k| format!("`{k}`")).collect();
            return Err(CliError::usage(format!(
                "the body field{} {} {} not in the API document (a typo?); known fields: {}. \
                 Pass --allow-unknown-fields to go on without {} (or send any JSON with `store-admin api`)",
                if unknown.len() == 1 { "" } else { "s" },
                names.join(", "),
                if unknown.len() == 1 { "is" } else { "are" },
                known.join(", "),
                if unknown.len() == 1 { "it" } else { "them" },
            )));
        }
    }
    let mut nested = 0;
    let mut missing: Vec<String> = spec
        .required
        .iter()
        .filter(|(field, _)| body.get(*field).is_none_or(Value::is_null))
        .map(|(field, flag)| {
            let shape = shape_of(spec, field)
                .map(|s| format!(", e.g. {s}"))
                .unwrap_or_default();
            if flag.is_empty() {
                format!("`{field}` (in --body{shape})")
            } else {
                format!("`{field}` ({flag}{shape})")
            }
        })
        .collect();
    // Nested required fields and values the document's rules refuse, all at once.
    let body = Value::Object(body);
    let mut invalid = Vec::new();
    for problem in crate::checks::problems(&body, spec.schema, "") {
        match problem {
            crate::checks::Problem::Missing(path) => {
                nested += 1;
                missing.push(format!("`{path}` ({})", where_given(spec, &path)));
            }
            crate::checks::Problem::Invalid(path, rule) => {
                invalid.push(format!("`{path}` {rule} ({})", where_given(spec, &path)));
            }
        }
    }
    let mut faults = Vec::new();
    if !missing.is_empty() {
        let them = if missing.len() == 1 { "it" } else { "them" };
        // Fields of a JSON value are added to that JSON; the body's own are flags.
        let how = if nested == missing.len() {
            format!("add {them} to the JSON given")
        } else {
            format!("pass {them} as flags or in --body")
        };
        faults.push(format!(
            "the request body lacks {} required field{}: {}; {how}",
            missing.len(),
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", "),
        ));
    }
    if !invalid.is_empty() {
        faults.push(format!(
            "the request body has {} invalid value{}: {}",
            invalid.len(),
            if invalid.len() == 1 { "" } else { "s" },
            invalid.join(", "),
        ));
    }
    if !faults.is_empty() {
        return Err(CliError::usage(faults.join("\n")));
    }
    let value = body;
    serde_path_to_error::deserialize::<_, T>(value).map_err(|e| {
        let path = e.path().to_string();
        let message = e.inner().to_string();
        let top = path
            .split(['.', '['])
            .next()
            .unwrap_or_default()
            .to_string();
        let hint = match (missing_field(&message), shape_of(spec, &top)) {
            (_, Some(shape)) => format!(" (`{top}` takes JSON like {shape})"),
            (Some(field), None) if path == "." || path.is_empty() => format!(
                " (pass --{} or put `{field}` in --body)",
                field.replace('_', "-")
            ),
            _ => String::new(),
        };
        CliError::usage(format!(
            "the request body is not valid at `{path}`: {message}{hint}"
        ))
    })
}

/// The flag that gives the top field of `path` (`details.name` -> `in --details-json`), or
/// `in --body`.
fn where_given(spec: &BodySpec, path: &str) -> String {
    let top = path.split(['.', '[']).next().unwrap_or_default();
    match spec.flags.iter().find(|(field, _)| *field == top) {
        Some((_, flag)) if !flag.is_empty() && top != path => format!("in {flag}"),
        Some((_, flag)) if !flag.is_empty() => format!("{flag} or --body"),
        _ => "in --body".to_owned(),
    }
}

fn shape_of(spec: &BodySpec, field: &str) -> Option<&'static str> {
    spec.shapes
        .iter()
        .find(|(name, _)| *name == field)
        .map(|(_, shape)| *shape)
}

fn missing_field(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("missing field `")?;
    rest.split('`').next()
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

/// `--body FILE|-`: the request body as JSON; flags override its fields.
#[derive(Args, Debug, Clone)]
pub struct BodyArg {
    /// The request body as a JSON file (`-` for standard input); flags override its fields.
    #[arg(long, value_name = "FILE|-")]
    pub body: Option<PathBuf>,
    /// Go on when the body has fields the API document does not know (they are dropped with a
    /// warning); without it such a body is refused, as the field is usually a typo.
    #[arg(long)]
    pub allow_unknown_fields: bool,
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
        let body: types::UpdateShipmentRequest =
            build(&arg, &flags, Map::new(), &BodySpec::NONE).unwrap();
        assert_eq!(
            body.shipment_number.as_ref().map(|number| number.as_str()),
            Some("A1")
        );
        assert_eq!(
            body.status.as_ref().map(ToString::to_string).as_deref(),
            Some("delivered")
        );
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
        // The document requires the shipment number; the typed body no longer does (a request's
        // field without a default is optional there, as the service's examples leave such fields
        // out), so the command's spec asks for it.
        let spec = BodySpec {
            required: &[
                ("shipment_number", "--shipment-number"),
                ("status", "--status"),
            ],
            ..BodySpec::NONE
        };
        let error =
            build::<types::UpdateShipmentRequest>(&arg, &flags, Map::new(), &spec).unwrap_err();
        assert_eq!(error.exit_code(), crate::error::exit::USAGE);
        let text = error.to_string();
        assert!(
            text.contains("`shipment_number` (--shipment-number)"),
            "{text}"
        );
        assert!(!text.contains("--status"), "{text}");
    }

    #[test]
    fn every_missing_required_field_is_named_in_one_error() {
        let arg = BodyArg {
            body: None,
            allow_unknown_fields: false,
        };
        let flags = Flags {
            shipment_number: None,
            status: None,
        };
        let spec = BodySpec {
            required: &[
                ("shipment_number", "--shipment-number"),
                ("status", "--status"),
                ("packages", "--packages-json"),
            ],
            shapes: &[("packages", r#"[{"weight": 1.5}]"#)],
            ..BodySpec::NONE
        };
        let error =
            build::<types::UpdateShipmentRequest>(&arg, &flags, Map::new(), &spec).unwrap_err();
        assert_eq!(error.exit_code(), crate::error::exit::USAGE);
        let text = error.to_string();
        assert!(text.contains("lacks 3 required fields"), "{text}");
        for name in [
            "--shipment-number",
            "--status",
            "--packages-json",
            r#"[{"weight": 1.5}]"#,
        ] {
            assert!(text.contains(name), "{name} in {text}");
        }
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

//! Request bodies checked against the document's own schemas, as a strict server does: each
//! failing field is named in `error.fields` (a missing required field, a wrong type, a value
//! outside a closed `enum`, a field the schema forbids with `additionalProperties: false`, a
//! bound or `pattern` not met). Strings longer than the field limit are refused on their field.

use serde_json::Value;

use crate::error::FieldErrors;

/// The dotted path of a JSON pointer (`/packages/0/name` gives `packages.0.name`).
fn dotted(pointer: &str) -> String {
    pointer.trim_start_matches('/').replace('/', ".")
}

fn join(base: &str, name: &str) -> String {
    if base.is_empty() {
        name.to_owned()
    } else {
        format!("{base}.{name}")
    }
}

/// The failures of `body` against `validator`, by field.
pub(crate) fn check(validator: &jsonschema::Validator, body: &Value) -> FieldErrors {
    use jsonschema::error::ValidationErrorKind as Kind;
    let mut errors = FieldErrors::new();
    for error in validator.iter_errors(body) {
        let base = dotted(error.instance_path().as_str());
        match error.kind() {
            Kind::Required { property } => {
                let name = property
                    .as_str()
                    .map_or_else(|| property.to_string(), str::to_owned);
                let field = join(&base, &name);
                errors.add(&field, format!("The {field} field is required."));
            }
            Kind::AdditionalProperties { unexpected } => {
                for name in unexpected {
                    let field = join(&base, name);
                    errors.add(&field, format!("The {field} field is not allowed."));
                }
            }
            _ => {
                let field = if base.is_empty() {
                    "body".to_owned()
                } else {
                    base
                };
                let message = format!("The {field} field is invalid: {error}");
                errors.add(&field, message);
            }
        }
    }
    errors
}

/// Every string of `body` longer than `limit` bytes, by field.
pub(crate) fn long_strings(body: &Value, limit: usize, errors: &mut FieldErrors) {
    fn walk(value: &Value, path: &str, limit: usize, errors: &mut FieldErrors) {
        match value {
            Value::String(s) if s.len() > limit => {
                let field = if path.is_empty() { "body" } else { path };
                errors.add(
                    field,
                    format!("The {field} may not be greater than {limit} characters."),
                );
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(item, &join(path, &i.to_string()), limit, errors);
                }
            }
            Value::Object(map) => {
                for (key, item) in map {
                    if key.len() > limit {
                        errors.add(path.to_owned(), "A field name is too long.");
                    }
                    walk(item, &join(path, key), limit, errors);
                }
            }
            _ => {}
        }
    }
    walk(body, "", limit, errors);
}

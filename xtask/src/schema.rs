//! Reading one schema of the document as JSON: the leaf the generator's passes share (the lint,
//! the command line's model, the uploads), below `document.rs` and `lint.rs` alike.

use serde_json::Value;

/// The names a schema's `required` lists (none when it has no list; not followed into `allOf`).
pub(crate) fn required(schema: &Value) -> impl Iterator<Item = &str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

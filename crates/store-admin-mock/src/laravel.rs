//! How the service (a PHP/Laravel application) reads a scalar that a request sends: its
//! `boolean`, `integer` and `numeric` rules. Below both the engine's validation (which reads a
//! body against its schema with these) and the shaping of records (`shape.rs`), which each use
//! them.

use serde_json::Value;

/// A boolean as Laravel's `boolean` rule (and a form's checkbox) accepts one: `true`/`false`,
/// `1`/`0`, and their strings, `"on"`/`"off"` and `"yes"`/`"no"`.
pub(crate) fn laravel_bool(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => match n.as_f64() {
            Some(1.0) => Some(true),
            Some(0.0) => Some(false),
            _ => None,
        },
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "on" | "yes" => Some(true),
            "0" | "false" | "off" | "no" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// A number as Laravel's `integer`/`numeric` rules read one: a JSON number, or a string holding
/// one (`"123"`, `" 10.50 "`); `integer` takes whole numbers only.
pub(crate) fn laravel_number(value: &Value, integer: bool) -> Option<Value> {
    let text = match value {
        Value::Number(_) => return Some(value.clone()),
        Value::String(s) => s.trim(),
        _ => return None,
    };
    if text.is_empty() {
        return None;
    }
    if integer {
        if let Ok(n) = text.parse::<i64>() {
            return Some(Value::from(n));
        }
        return text.parse::<u64>().ok().map(Value::from);
    }
    if let Ok(n) = text.parse::<i64>() {
        return Some(Value::from(n));
    }
    text.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .and_then(serde_json::Number::from_f64)
        .map(Value::Number)
}

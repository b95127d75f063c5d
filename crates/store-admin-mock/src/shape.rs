//! Every response is shaped by its schema: a stored record is projected onto the schema of the
//! operation that returns it. Declared properties are kept (each shaped by its own schema),
//! undeclared ones dropped (and the store's own `__` keys always), missing required ones generated,
//! and a value of the wrong type replaced: a number where a string is declared becomes its text, a
//! string of digits where an integer is declared becomes the integer, an object where a scalar is
//! declared gives its `type`, `slug`, `name` or `id`, and anything else is generated from the
//! schema. So one record serves a list's summary and a details answer of another shape, and an
//! answer is valid against the document by construction.

use std::cell::RefCell;
use std::collections::HashMap;

use serde_json::{Map, Value};

use std::rc::Rc;

use crate::document::{Document, View};
use crate::generate::Generator;

/// The views of the schemas one answer is shaped by, each seen once: a page of 60 records asks
/// for the same few dozen schemas thousands of times. Keyed by the schema's address, so every
/// schema given here must live in the document (or be a `static`) for the whole answer.
struct Views<'a> {
    doc: &'a Document,
    memo: RefCell<HashMap<usize, Rc<View<'a>>>>,
}

impl<'a> Views<'a> {
    fn new(doc: &'a Document) -> Self {
        Self {
            doc,
            memo: RefCell::new(HashMap::new()),
        }
    }

    fn get(&self, schema: &'a Value) -> Rc<View<'a>> {
        let key = std::ptr::from_ref(schema) as usize;
        if let Some(view) = self.memo.borrow().get(&key) {
            return view.clone();
        }
        let view = Rc::new(self.doc.view(schema));
        self.memo.borrow_mut().insert(key, view.clone());
        view
    }
}

/// The schema of an array without `items`.
static ANY: Value = Value::Null;

/// Keys of a stored record that never leave the mock (the store's own bookkeeping).
pub(crate) fn is_hidden(key: &str) -> bool {
    key.starts_with("__")
}

thread_local! {
    static PATTERNS: RefCell<HashMap<String, Option<regex::Regex>>> = RefCell::new(HashMap::new());
}

/// Whether `text` matches the document's `pattern` (a pattern that does not compile matches).
pub(crate) fn pattern_matches(pattern: &str, text: &str) -> bool {
    PATTERNS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() > 512 {
            cache.clear();
        }
        cache
            .entry(pattern.to_owned())
            .or_insert_with(|| regex::Regex::new(pattern).ok())
            .as_ref()
            .is_none_or(|re| re.is_match(text))
    })
}

/// Shapes `value` by `schema` (see the module documentation); `field` names the value for
/// realistic generated parts.
pub(crate) fn shape<'a>(
    doc: &'a Document,
    value: &Value,
    schema: &'a Value,
    generator: &mut Generator<'_>,
    field: &str,
) -> Value {
    shape_at(&Views::new(doc), value, schema, generator, field, 0)
}

fn fits_kind<'a>(views: &Views<'a>, value: &Value, schema: &'a Value) -> bool {
    let view = views.get(schema);
    match (view.kind(), value) {
        (_, Value::Null) => view.nullable,
        (Some("object"), Value::Object(_)) => true,
        (Some("array"), Value::Array(_)) => true,
        (Some("string"), Value::String(_)) => true,
        (Some("integer"), Value::Number(n)) => n.is_i64() || n.is_u64(),
        (Some("number"), Value::Number(_)) => true,
        (Some("boolean"), Value::Bool(_)) => true,
        (None, _) if view.any_of.is_empty() => true,
        (None, value) => view.any_of.iter().any(|b| fits_kind(views, value, b)),
        _ => false,
    }
}

fn shape_at<'a>(
    views: &Views<'a>,
    value: &Value,
    schema: &'a Value,
    generator: &mut Generator<'_>,
    field: &str,
    depth: usize,
) -> Value {
    if depth > 24 {
        return value.clone();
    }
    let view = views.get(schema);
    if value.is_null() && view.nullable {
        return Value::Null;
    }
    match view.kind() {
        Some("object") => {
            let Value::Object(map) = value else {
                if let Value::Array(items) = value
                    && items.is_empty()
                    && view.required.is_empty()
                {
                    return Value::Object(Map::new());
                }
                return generator.value(schema, field);
            };
            let mut out = Map::new();
            if view.properties.is_empty() {
                match view.additional {
                    Some(Value::Bool(false)) => {}
                    Some(additional) if additional.is_object() => {
                        for (key, item) in map.iter().filter(|(k, _)| !is_hidden(k)) {
                            out.insert(
                                key.clone(),
                                shape_at(views, item, additional, generator, key, depth + 1),
                            );
                        }
                    }
                    _ => {
                        for (key, item) in map.iter().filter(|(k, _)| !is_hidden(k)) {
                            out.insert(key.clone(), strip_hidden(item));
                        }
                    }
                }
                return Value::Object(out);
            }
            for (name, property) in &view.properties {
                match map.get(*name) {
                    Some(item) => {
                        out.insert(
                            (*name).to_owned(),
                            shape_at(views, item, property, generator, name, depth + 1),
                        );
                    }
                    None if view.required.contains(name) => {
                        out.insert(
                            (*name).to_owned(),
                            generator.property(name, property, depth + 1),
                        );
                    }
                    None => {}
                }
            }
            Value::Object(out)
        }
        Some("array") => {
            let Value::Array(items) = value else {
                return generator.value(schema, field);
            };
            let item_schema: &'a Value = view.items.unwrap_or(&ANY);
            let max = view
                .keyword("maxItems")
                .and_then(Value::as_u64)
                .map_or(usize::MAX, |m| m as usize);
            let shaped: Vec<Value> = items
                .iter()
                .take(max)
                .map(|item| shape_at(views, item, item_schema, generator, field, depth + 1))
                .collect();
            let min = view
                .keyword("minItems")
                .and_then(Value::as_u64)
                .unwrap_or(0) as usize;
            if shaped.len() < min {
                return generator.value(schema, field);
            }
            Value::Array(shaped)
        }
        Some(kind @ ("string" | "integer" | "number" | "boolean")) => {
            let scalar = match value {
                Value::Object(map) => ["type", "slug", "name", "value", "id", "code"]
                    .iter()
                    .find_map(|key| map.get(*key).filter(|v| !v.is_object() && !v.is_null()))
                    .cloned()
                    .unwrap_or(Value::Null),
                other => other.clone(),
            };
            let converted = match (kind, &scalar) {
                ("string", Value::String(_)) => Some(scalar.clone()),
                ("string", Value::Number(n)) => Some(Value::from(n.to_string())),
                ("string", Value::Bool(b)) => Some(Value::from(b.to_string())),
                ("integer", Value::Number(n)) if n.is_i64() || n.is_u64() => Some(scalar.clone()),
                ("integer", Value::Number(n)) => n
                    .as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
                    .map(|f| Value::from(f as i64)),
                ("integer", Value::String(s)) => s.trim().parse::<i64>().ok().map(Value::from),
                ("number", Value::Number(_)) => Some(scalar.clone()),
                ("number", Value::String(s)) => s
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite())
                    .and_then(serde_json::Number::from_f64)
                    .map(Value::Number),
                ("boolean", Value::Bool(_)) => Some(scalar.clone()),
                ("boolean", Value::Number(n)) if n.as_i64() == Some(0) || n.as_i64() == Some(1) => {
                    Some(Value::Bool(n.as_i64() == Some(1)))
                }
                _ => None,
            };
            match converted {
                Some(converted) if scalar_fits(&view, &converted) => converted,
                _ => generator.value(schema, field),
            }
        }
        _ => {
            if view.any_of.is_empty() {
                return strip_hidden(value);
            }
            match view.any_of.iter().find(|b| fits_kind(views, value, b)) {
                Some(branch) => shape_at(views, value, branch, generator, field, depth + 1),
                None => {
                    // No branch takes the value as it is: try converting through each in turn.
                    for branch in &view.any_of {
                        let shaped = shape_at(views, value, branch, generator, field, depth + 1);
                        if shaped == *value {
                            return shaped;
                        }
                    }
                    generator.value(schema, field)
                }
            }
        }
    }
}

/// Whether a scalar satisfies the schema's value rules (closed `enum`, bounds, `pattern`).
fn scalar_fits(view: &View<'_>, value: &Value) -> bool {
    if let Some(allowed) = view.keyword("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        return false;
    }
    match value {
        Value::String(text) => {
            let len = text.chars().count() as u64;
            view.keyword("minLength")
                .and_then(Value::as_u64)
                .is_none_or(|min| len >= min)
                && view
                    .keyword("maxLength")
                    .and_then(Value::as_u64)
                    .is_none_or(|max| len <= max)
                && view
                    .keyword("pattern")
                    .and_then(Value::as_str)
                    .is_none_or(|p| pattern_matches(p, text))
        }
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(0.0);
            view.keyword("minimum")
                .and_then(Value::as_f64)
                .is_none_or(|m| x >= m)
                && view
                    .keyword("maximum")
                    .and_then(Value::as_f64)
                    .is_none_or(|m| x <= m)
                && view
                    .keyword("exclusiveMinimum")
                    .and_then(Value::as_f64)
                    .is_none_or(|m| x > m)
                && view
                    .keyword("exclusiveMaximum")
                    .and_then(Value::as_f64)
                    .is_none_or(|m| x < m)
        }
        _ => true,
    }
}

/// `value` without the store's `__` keys, at any depth.
pub(crate) fn strip_hidden(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !is_hidden(k))
                .map(|(k, v)| (k.clone(), strip_hidden(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(strip_hidden).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_record_is_projected_onto_its_schema_and_made_valid() {
        let doc = Document::embedded().unwrap();
        let schema = json!({ "$ref": "#/components/schemas/ProductQuantity" });
        let record = json!({
            "id": "12", "name": 5, "price": "10.50", "extra": true, "__search": "x",
            "sku": null, "image": null, "sku_id": null, "unlimited_quantity": 1, "variant": null,
        });
        let mut generator = Generator::new(&doc, 1, 1);
        let shaped = shape(&doc, &record, &schema, &mut generator, "row");
        assert_eq!(shaped["id"], 12);
        assert_eq!(shaped["name"], "5");
        assert_eq!(shaped["price"], "10.50");
        assert_eq!(shaped["unlimited_quantity"], true);
        assert!(shaped.get("extra").is_none() && shaped.get("__search").is_none());
        assert!(
            shaped["quantity"].is_i64(),
            "a required field is generated: {shaped}"
        );
        let validator = doc.validator(&schema).unwrap();
        assert!(validator.is_valid(&shaped), "{shaped}");
    }
}

//! Request bodies checked against the document's own schemas, as a strict server does: each
//! failing field is named in `error.fields` (a missing required field, a wrong type, a value
//! outside a closed `enum`, a field the schema forbids with `additionalProperties: false`, a
//! bound or `pattern` not met). Strings longer than the field limit are refused on their field.

use serde_json::Value;

use crate::error::{FieldErrors, Text, required};

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
                errors.add(&field, required(&field));
            }
            Kind::AdditionalProperties { unexpected } => {
                for name in unexpected {
                    let field = join(&base, name);
                    errors.add(
                        &field,
                        Text::new(
                            format!("The {field} field is not allowed."),
                            format!("حقل {field} غير مسموح به."),
                        ),
                    );
                }
            }
            _ => {
                let field = if base.is_empty() {
                    "body".to_owned()
                } else {
                    base
                };
                // The validator's reason, in English in both languages.
                let message = Text::new(
                    format!("The {field} field is invalid: {error}"),
                    format!("حقل {field} غير صالح: {error}"),
                );
                errors.add(&field, message);
            }
        }
    }
    errors
}

/// Integers of a `format: int64` (or `int32`) field that do not fit it, by field. JSON gives
/// such a number as floating point or as an unsigned 64-bit one, which the bounds of the schema
/// check (`minimum`/`maximum`) miss where floating point rounds it onto the bound itself. An
/// integer without a format has no bound, as the document says.
pub(crate) fn out_of_range_integers(
    doc: &crate::document::Document,
    schema: &Value,
    body: &Value,
    path: &str,
    errors: &mut FieldErrors,
    depth: usize,
) {
    if depth > 16 {
        return;
    }
    let view = doc.view(schema);
    match body {
        Value::Number(n) if view.kind() == Some("integer") => {
            let bits = match view.keyword("format").and_then(Value::as_str) {
                Some("int64") => 64,
                Some("int32") => 32,
                _ => return,
            };
            let fits = n
                .as_i64()
                .is_some_and(|v| bits == 64 || i32::try_from(v).is_ok());
            if !fits {
                let field = if path.is_empty() { "body" } else { path };
                errors.add(
                    field,
                    Text::new(
                        format!("The {field} must be an integer of at most {bits} bits."),
                        format!("يجب أن يكون {field} عددًا صحيحًا من {bits} بت على الأكثر."),
                    ),
                );
            }
        }
        Value::Object(map) => {
            for (name, value) in map {
                if let Some(property) = view.property(name) {
                    out_of_range_integers(
                        doc,
                        property,
                        value,
                        &join(path, name),
                        errors,
                        depth + 1,
                    );
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = view.items {
                for (i, value) in items.iter().enumerate() {
                    out_of_range_integers(
                        doc,
                        item,
                        value,
                        &join(path, &i.to_string()),
                        errors,
                        depth + 1,
                    );
                }
            }
        }
        _ => {}
    }
}

/// With `--strict-fields`: a field of an object whose schema lists its properties and says
/// nothing of others (no `additionalProperties`, no `anyOf`/`oneOf` alternatives) is refused when
/// the schema does not declare it, at any depth ("The body field `x` is not known.").
pub(crate) fn unknown_fields(
    doc: &crate::document::Document,
    schema: &Value,
    body: &Value,
    path: &str,
    errors: &mut FieldErrors,
    depth: usize,
) {
    if depth > 16 {
        return;
    }
    let view = doc.view(schema);
    match body {
        Value::Object(map) => {
            let closed =
                !view.properties.is_empty() && view.additional.is_none() && view.any_of.is_empty();
            for (name, value) in map {
                let field = join(path, name);
                match view.property(name) {
                    Some(property) => {
                        unknown_fields(doc, property, value, &field, errors, depth + 1);
                    }
                    None if closed => {
                        errors.add(
                            &field,
                            Text::new(
                                format!("The field `{field}` is not known."),
                                format!("الحقل `{field}` غير معروف."),
                            ),
                        );
                    }
                    None => {}
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = view.items {
                for (i, value) in items.iter().enumerate() {
                    unknown_fields(
                        doc,
                        item,
                        value,
                        &join(path, &i.to_string()),
                        errors,
                        depth + 1,
                    );
                }
            }
        }
        _ => {}
    }
}

/// `body` for the schema check, with every whole number JSON could only give as floating point
/// (at or beyond 2^63 either way: a smaller one, or one up to 2^64, is read exactly) moved away
/// from the 64-bit range. Floating point rounds -2^63 - 1 onto -2^63 itself, which the `int64`
/// bounds of the schema then take for a valid value; doubled, it is refused wherever a bound
/// applies, and stays a whole number where none does.
pub(crate) fn widened(body: &Value) -> std::borrow::Cow<'_, Value> {
    const EDGE: f64 = 9_223_372_036_854_775_808.0; // 2^63
    fn needs(value: &Value) -> bool {
        match value {
            Value::Number(n) => n
                .as_f64()
                .is_some_and(|f| !n.is_i64() && !n.is_u64() && f.fract() == 0.0 && f.abs() >= EDGE),
            Value::Array(items) => items.iter().any(needs),
            Value::Object(map) => map.values().any(needs),
            _ => false,
        }
    }
    fn widen(value: &mut Value) {
        match value {
            Value::Number(n)
                if !n.is_i64() && !n.is_u64() && n.as_f64().is_some_and(|f| f.fract() == 0.0) =>
            {
                if let Some(f) = n.as_f64().filter(|f| f.abs() >= EDGE)
                    && let Some(wider) = serde_json::Number::from_f64(f * 2.0)
                {
                    *n = wider;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(widen),
            Value::Object(map) => map.values_mut().for_each(widen),
            _ => {}
        }
    }
    if !needs(body) {
        return std::borrow::Cow::Borrowed(body);
    }
    let mut copy = body.clone();
    widen(&mut copy);
    std::borrow::Cow::Owned(copy)
}

/// Every string of `body` longer than `limit` bytes, by field.
pub(crate) fn long_strings(body: &Value, limit: usize, errors: &mut FieldErrors) {
    fn walk(value: &Value, path: &str, limit: usize, errors: &mut FieldErrors) {
        match value {
            Value::String(s) if s.len() > limit => {
                let field = if path.is_empty() { "body" } else { path };
                errors.add(
                    field,
                    Text::new(
                        format!("The {field} may not be greater than {limit} characters."),
                        format!("يجب أن لا يتجاوز طول نص {field} {limit} حروفٍ/حرفًا."),
                    ),
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
                        errors.add(
                            path.to_owned(),
                            Text::new("A field name is too long.", "اسم حقل طويل جدًا."),
                        );
                    }
                    walk(item, &join(path, key), limit, errors);
                }
            }
            _ => {}
        }
    }
    walk(body, "", limit, errors);
}

/// `body` as the service's validation reads it against `schema`: a string of digits where an
/// integer or a number is declared is that number, `0`/`1`/`"0"`/`"1"`/`"on"`/`"true"`... where
/// a boolean is declared is that boolean (Laravel's `integer`, `numeric` and `boolean` rules),
/// at any depth. Only the check reads this copy: the record keeps what was sent.
pub(crate) fn laravel<'v>(
    doc: &crate::document::Document,
    schema: &Value,
    body: &'v Value,
) -> std::borrow::Cow<'v, Value> {
    fn walk(
        doc: &crate::document::Document,
        schema: &Value,
        value: &Value,
        depth: usize,
    ) -> Option<Value> {
        if depth > 16 {
            return None;
        }
        let view = doc.view(schema);
        match (view.kind(), value) {
            (Some("integer"), Value::String(_)) => crate::laravel::laravel_number(value, true),
            (Some("number"), Value::String(_)) => crate::laravel::laravel_number(value, false),
            (Some("boolean"), Value::Number(_) | Value::String(_)) => {
                crate::laravel::laravel_bool(value).map(Value::Bool)
            }
            (_, Value::Object(map)) if !view.properties.is_empty() || view.additional.is_some() => {
                let mut changed: Option<serde_json::Map<String, Value>> = None;
                for (name, item) in map {
                    let property = view
                        .property(name)
                        .or_else(|| view.additional.filter(|a| a.is_object()));
                    if let Some(property) = property
                        && let Some(read) = walk(doc, property, item, depth + 1)
                    {
                        changed
                            .get_or_insert_with(|| map.clone())
                            .insert(name.clone(), read);
                    }
                }
                changed.map(Value::Object)
            }
            (_, Value::Array(items)) if view.items.is_some() => {
                let item_schema = view.items?;
                let mut changed: Option<Vec<Value>> = None;
                for (i, item) in items.iter().enumerate() {
                    if let Some(read) = walk(doc, item_schema, item, depth + 1) {
                        changed.get_or_insert_with(|| items.clone())[i] = read;
                    }
                }
                changed.map(Value::Array)
            }
            (None, _) if !view.any_of.is_empty() => {
                // A value no branch takes as it is, read by the first branch that reads it.
                let fits = |branch: &Value| {
                    let kind = doc.view(branch).kind();
                    matches!(
                        (kind, value),
                        (None, _)
                            | (Some("string"), Value::String(_))
                            | (Some("integer" | "number"), Value::Number(_))
                            | (Some("boolean"), Value::Bool(_))
                            | (Some("object"), Value::Object(_))
                            | (Some("array"), Value::Array(_))
                    )
                };
                if let Some(branch) = view.any_of.iter().find(|b| fits(b)) {
                    return walk(doc, branch, value, depth + 1);
                }
                view.any_of
                    .iter()
                    .find_map(|branch| walk(doc, branch, value, depth + 1))
            }
            _ => None,
        }
    }
    match walk(doc, schema, body, 0) {
        Some(read) => std::borrow::Cow::Owned(read),
        None => std::borrow::Cow::Borrowed(body),
    }
}

#[cfg(test)]
mod widened_tests {
    use serde_json::json;

    #[test]
    fn only_whole_numbers_beyond_64_bits_move() {
        let body: serde_json::Value =
            serde_json::from_str(r#"{"a": -9223372036854775809, "b": [18446744073709551615, -9223372036854775808, 1.5]}"#)
                .expect("JSON");
        let widened = super::widened(&body);
        assert!(
            widened["a"].as_f64().is_some_and(|f| f < -1.8e19),
            "{widened}"
        );
        assert_eq!(
            widened["b"],
            json!([18446744073709551615_u64, i64::MIN, 1.5])
        );
        let plain = json!({"a": 1});
        assert!(matches!(
            super::widened(&plain),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}

//! A record made whole once, when it is stored: what a create or an update sent is kept as it
//! was sent, and what every view of the collection (its list's summary, its details, the answer
//! of a create) needs and was not sent is generated then, once, from the record's own seed. Reads
//! then only project the stored record (see [`crate::shape`]): nothing is generated per read, so
//! the create's answer, the list and the details show the same values.
//!
//! For each record schema of the collection, the record is shaped by it ([`crate::shape::shape`]:
//! declared properties kept, a value of another type converted, a scalar where an object is
//! declared held by the object's `amount`/`value`/`date`/... property, a missing required
//! property generated), and what shaping had to add or replace is merged into the record: a
//! value the shaping only converted (`"10"` read as `10`) is kept as it was sent. Money is kept in
//! the service's own form, with the store's currency (`"price": 20` as `{"amount": 20, "currency":
//! "SAR"}`).

use serde_json::{Value, json};

use crate::document::Document;
use crate::fake::Generator;
use crate::formats::CURRENCY;
use crate::shape::shape;

/// Completes `record` against every schema of `schemas`, generating with `seed`.
pub(crate) fn complete(
    doc: &Document,
    schemas: &[Value],
    record: &mut Value,
    seed: u64,
    serial: u64,
) {
    let sent_sale_price = record.get("sale_price").is_some();
    let mut generator = Generator::new(doc, seed, serial);
    for schema in schemas {
        let shaped = shape(doc, record, schema, &mut generator, "data");
        fill(record, shaped, 0);
    }
    if !sent_sale_price {
        below_price(record);
    }
    money_with_currency(doc, schemas, record);
}

/// Keeps the money of `record` in the service's form for each of its record `schemas` (see
/// [`with_currency`]): for writes that do not complete a record (an import's rows).
pub(crate) fn money_with_currency(doc: &Document, schemas: &[Value], record: &mut Value) {
    for schema in schemas {
        with_currency(doc, schema, record, 0);
    }
}

/// Money in the service's own form: a write that sent an amount where a record declares money
/// (`"price": 20` for a product's `Money` price), or money without its currency, is kept as
/// `{"amount": 20, "currency": "SAR"}` in the store's currency, as the seeded records and the
/// service's answers write it (the amount as it was sent). Money is an object schema declaring
/// both `amount` and `currency`; its properties are followed through objects and arrays.
fn with_currency(doc: &Document, schema: &Value, value: &mut Value, depth: usize) {
    if depth > 12 {
        return;
    }
    let view = doc.view(schema);
    let is_money = view.property("amount").is_some()
        && view
            .property("currency")
            .is_some_and(|c| doc.view(c).kind() == Some("string"));
    if is_money {
        match value {
            Value::Number(_) => {
                *value = json!({ "amount": value.clone(), "currency": CURRENCY });
            }
            Value::String(text)
                if crate::store::value_as_f64(&Value::from(text.as_str())).is_some() =>
            {
                *value = json!({ "amount": value.clone(), "currency": CURRENCY });
            }
            Value::Object(map) if map.contains_key("amount") => {
                map.entry("currency")
                    .or_insert_with(|| Value::from(CURRENCY));
            }
            _ => {}
        }
        return;
    }
    match value {
        Value::Object(map) => {
            for (name, property) in &view.properties {
                if let Some(inner) = map.get_mut(*name) {
                    with_currency(doc, property, inner, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = view.items {
                for inner in items {
                    with_currency(doc, item, inner, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// A generated `sale_price` is below the record's `price` (80% of it), in the same form (a
/// number, a string or a `Money` object's `amount`).
fn below_price(record: &mut Value) {
    let amount = |v: &Value| match v {
        Value::Object(map) => map.get("amount").and_then(crate::store::value_as_f64),
        other => crate::store::value_as_f64(other),
    };
    let Some(price) = record.get("price").and_then(amount) else {
        return;
    };
    let Some(sale) = record.get_mut("sale_price") else {
        return;
    };
    if amount(sale).is_none_or(|s| s < price) {
        return;
    }
    let lower = (price * 80.0).round() / 100.0;
    let slot = match sale {
        Value::Object(map) => map.get_mut("amount"),
        other => Some(other),
    };
    if let Some(slot) = slot {
        *slot = match slot {
            Value::String(_) => Value::from(format!("{lower:.2}")),
            _ => serde_json::Number::from_f64(lower).map_or(Value::from(0), Value::Number),
        };
    }
}

/// Merges into `record` what `shaped` (the record shaped by a schema) added or replaced.
fn fill(record: &mut Value, shaped: Value, depth: usize) {
    if depth > 24 {
        return;
    }
    match (record, shaped) {
        (Value::Object(kept), Value::Object(shaped)) => {
            for (name, value) in shaped {
                match kept.get_mut(&name) {
                    Some(old) => fill(old, value, depth + 1),
                    None => {
                        kept.insert(name, value);
                    }
                }
            }
        }
        (Value::Array(kept), Value::Array(shaped)) => {
            if kept.len() == shaped.len() {
                for (old, value) in kept.iter_mut().zip(shaped) {
                    fill(old, value, depth + 1);
                }
            } else if kept.len() < shaped.len() {
                *kept = shaped;
            }
        }
        // A view that shows an object as one of its fields (a route's `strategy` listed as its
        // `type`) reads it from the record each time: the record keeps the object.
        (record @ Value::Object(_), shaped) if read_from(record, &shaped) => {}
        (record, shaped) => {
            if !same_value(record, &shaped) {
                *record = shaped;
            }
        }
    }
}

/// Whether the scalar `shaped` is one of the fields `object` is shown by where a scalar is
/// declared (see [`crate::shape`]'s conversions).
fn read_from(object: &Value, shaped: &Value) -> bool {
    !shaped.is_object()
        && !shaped.is_array()
        && crate::shape::SHOWN_BY
            .iter()
            .filter_map(|key| object.get(*key))
            .any(|field| same_value(field, shaped))
}

/// Whether `shaped` is `sent` read as another type (the same number, text or boolean), so that
/// the record keeps what was sent.
fn same_value(sent: &Value, shaped: &Value) -> bool {
    if sent == shaped {
        return true;
    }
    let number = |v: &Value| match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    match (sent, shaped) {
        (_, Value::Bool(b)) => crate::laravel::laravel_bool(sent) == Some(*b),
        (_, Value::Number(_)) => number(sent).is_some() && number(sent) == number(shaped),
        (Value::Number(n), Value::String(s)) => n.to_string() == *s,
        (Value::Bool(b), Value::String(s)) => b.to_string() == *s,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn what_was_sent_is_kept_and_the_rest_filled_once() {
        let doc = Document::embedded().unwrap();
        let schema = json!({ "$ref": "#/components/schemas/Coupon" });
        let mut record = json!({"id": 5, "code": "X1", "amount": 10, "free_shipping": "1"});
        complete(&doc, std::slice::from_ref(&schema), &mut record, 1, 1);
        assert_eq!(record["code"], "X1");
        assert_eq!(record["amount"]["amount"], 10, "{record}");
        assert_eq!(
            record["amount"]["currency"], "SAR",
            "money in the store's currency: {record}"
        );
        assert_eq!(
            record["free_shipping"], "1",
            "a converted value is kept as sent"
        );
        let again = record.clone();
        complete(&doc, std::slice::from_ref(&schema), &mut record, 2, 2);
        assert_eq!(record, again, "a complete record is not changed");
    }

    /// One record, several views: a view that shows an object as its `type` (a route's
    /// `strategy` in the list) does not replace the object the details show.
    #[test]
    fn an_object_a_view_shows_as_a_scalar_is_kept() {
        let doc = Document::embedded().unwrap();
        let schemas = [
            json!({ "$ref": "#/components/schemas/ShippingRouteSummary" }),
            json!({ "$ref": "#/components/schemas/ShippingRoute" }),
        ];
        let strategy = json!({"alternative_companies": ["12", "13"], "capacity_level": "route", "type": "quota"});
        let mut record = json!({"id": 5, "name": "R", "strategy": strategy});
        complete(&doc, &schemas, &mut record, 1, 1);
        assert_eq!(record["strategy"], strategy, "{record}");
        let again = record.clone();
        complete(&doc, &schemas, &mut record, 2, 2);
        assert_eq!(record, again, "a complete record is not changed");
    }
}

//! The table columns of a record type, chosen by a rule over the document (field names, formats
//! and schema shapes), once per schema.
//!
//! Columns come in order of importance, which is also the order a table shows them in; a table
//! narrower than them all drops or cuts the last ones first, never the key column. The rule:
//!
//! 1. `id`, then `reference_id` (an order's reference);
//! 2. what names the record: the first scalar of `name`, `title`, `label`, `slug`, `iso_code`,
//!    `code`, else `first_name` and `last_name`, else the first scalar named `*_name`; then
//!    `event`;
//! 3. `customer` when it is an object with a name;
//! 4. the price: the first money object (`{amount, currency}`) named `price`, else `total`, else
//!    the first money object;
//! 5. the stock (`quantity`, `stock_quantity`, `stock`), then `sku`;
//! 6. `status` (a scalar or an object that has a name);
//! 7. the date: `date`, else `created_at`;
//! 8. the first link (a string of format `uri`, or named `url`, `*_url`, `link`, `*_link`,
//!    `download*`) that the schema requires (a webhook's target); or, in a record that has no `id`
//!    and that nothing of 2. names, the first link, which is then its **key column** (the one value
//!    a list of such records is for, never dropped nor cut: an export's download link);
//! 9. a scalar `type`;
//! 10. then the other properties in document order that a cell shows compactly (scalars, money,
//!     dates, objects with a name), but not flags (booleans), pictures (`image`, `thumbnail`,
//!     `avatar`, `logo`, `banner`, `icon`, `flag`), other links, nor deprecated fields, up to
//!     [`MAX_COLUMNS`] in all.
//!
//! A schema where the rule is not enough names its columns itself: `x-table-columns: [names]`
//! (and `x-table-key: name` for its key column).
//!
//! CSV has columns of its own ([`csv_columns`]): every property, `id` first, so that the header
//! is known before the first record arrives and a get and a list of one schema agree. They are
//! read here from the document, as the table's are, and emitted as `Record::CSV_COLUMNS`: the
//! CLI does not read the types' JSON schemas at run time (one reader of the document's facts).

use serde_json::{Map, Value};

use crate::document::Raw;

/// Most columns a record type has (a table shows those that fit; `-o wide` all of them).
pub const MAX_COLUMNS: usize = 8;

/// What a table shows of a record type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Columns {
    /// Header and JSON pointer, most important first.
    pub(crate) columns: Vec<(String, String)>,
    /// The pointer of the key column, if the type has one.
    pub(crate) key: Option<String>,
    /// The top-level properties in document order (a record's view follows it).
    pub(crate) fields: Vec<String>,
    /// The CSV columns ([`csv_columns`]).
    pub(crate) csv: Vec<String>,
}

/// How deep nested objects are expanded into dotted CSV columns.
const CSV_DEPTH: usize = 3;

/// The CSV columns of a record schema: every property, `id` first then alphabetical; a
/// property that is always an object (its own, through `$ref`/`allOf`, or the one member of a
/// union besides `null`) is expanded into dotted columns (`total.amount`, `total.currency`), up
/// to [`CSV_DEPTH`] levels, but a date (`{date, timezone}`) is one cell; arrays, free-form
/// objects and values of several shapes are one column (of compact JSON).
pub(crate) fn csv_columns(raw: &Raw<'_>, schema: &Value) -> Vec<String> {
    let mut columns = Vec::new();
    expand(raw, schema, "", 0, &mut columns);
    if let Some(at) = columns.iter().position(|c| c == "id") {
        let id = columns.remove(at);
        columns.insert(0, id);
    }
    columns
}

fn expand(raw: &Raw<'_>, schema: &Value, prefix: &str, depth: usize, out: &mut Vec<String>) {
    let properties = object_properties(raw, schema, 0);
    let is_date = properties.as_ref().is_some_and(|p| {
        p.iter().any(|(n, _)| n == "date") && p.iter().any(|(n, _)| n == "timezone")
    });
    match properties {
        Some(mut properties) if !is_date && depth < CSV_DEPTH && !properties.is_empty() => {
            properties.sort_by(|a, b| a.0.cmp(&b.0));
            for (name, value) in properties {
                let path = match prefix {
                    "" => name,
                    _ => format!("{prefix}.{name}"),
                };
                expand(raw, value, &path, depth + 1, out);
            }
        }
        _ if !prefix.is_empty() => out.push(prefix.to_owned()),
        _ => {}
    }
}

/// The properties of the object `schema` always is, `None` when it may be something else.
fn object_properties<'a>(
    raw: &Raw<'a>,
    schema: &'a Value,
    hops: usize,
) -> Option<Vec<(String, &'a Value)>> {
    if hops > 8 {
        return None;
    }
    let schema = raw.resolve(schema);
    if let Some(members) = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
    {
        let mut others = members
            .iter()
            .filter(|m| raw.resolve(m).get("type").and_then(Value::as_str) != Some("null"));
        let only = others.next()?;
        return match others.next() {
            None => object_properties(raw, only, hops + 1),
            Some(_) => None,
        };
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") | None => record_properties(raw, schema, &[]),
        Some(_) => None,
    }
}

/// The shape of a property, as far as a table cell is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// A string, number or integer.
    Scalar,
    /// A boolean.
    Flag,
    /// `{amount, currency}`.
    Money,
    /// `{date, timezone}` or a string of format `date-time`/`date`.
    Date,
    /// An object with a `name`, `label`, `title`, `slug` or `first_name` (a cell shows it).
    Named,
    /// A union whose alternatives are all scalars or named objects.
    Compact,
    /// Anything else (arrays, other objects): never a column.
    Other,
}

/// The properties of a record schema in document order, those of each member of an `allOf`
/// merged; `None` when it has none.
pub(crate) fn record_properties<'a>(
    raw: &Raw<'a>,
    schema: &'a Value,
    order: &[String],
) -> Option<Vec<(String, &'a Value)>> {
    let mut merged: Map<String, Value> = Map::new();
    let mut refs: Vec<(String, &'a Value)> = Vec::new();
    collect(raw, schema, &mut refs, 0);
    for (name, value) in &refs {
        merged.insert(name.clone(), (*value).clone());
    }
    if refs.is_empty() {
        return None;
    }
    let mut names: Vec<String> = order
        .iter()
        .filter(|n| merged.contains_key(*n))
        .cloned()
        .collect();
    for (name, _) in &refs {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    Some(
        names
            .into_iter()
            .filter_map(|n| {
                let value = refs.iter().find(|(k, _)| *k == n).map(|(_, v)| *v)?;
                Some((n, value))
            })
            .collect(),
    )
}

fn collect<'a>(raw: &Raw<'a>, schema: &'a Value, out: &mut Vec<(String, &'a Value)>, depth: usize) {
    if depth > 8 {
        return;
    }
    let schema = raw.resolve(schema);
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, value) in properties {
            if !out.iter().any(|(k, _)| k == name) {
                out.push((name.clone(), value));
            }
        }
    }
    if let Some(members) = schema.get("allOf").and_then(Value::as_array) {
        for member in members {
            collect(raw, member, out, depth + 1);
        }
    }
}

/// The required properties of a schema and of the members of its `allOf`.
fn required_names(raw: &Raw<'_>, schema: &Value, depth: usize) -> Vec<String> {
    let schema = raw.resolve(schema);
    let mut names: Vec<String> = crate::schema::required(schema).map(str::to_owned).collect();
    if depth < 8
        && let Some(members) = schema.get("allOf").and_then(Value::as_array)
    {
        for member in members {
            names.extend(required_names(raw, member, depth + 1));
        }
    }
    names
}

fn shape(raw: &Raw<'_>, schema: &Value) -> Shape {
    let schema = raw.resolve(schema);
    let inner = schema.get("properties").and_then(Value::as_object);
    if let Some(p) = inner {
        if p.contains_key("amount") && p.contains_key("currency") {
            return Shape::Money;
        }
        if p.contains_key("date") && p.contains_key("timezone") {
            return Shape::Date;
        }
        if ["name", "label", "title", "slug", "first_name"]
            .iter()
            .any(|k| p.get(*k).is_some_and(|v| raw.scalar_kind(v).is_some()))
        {
            return Shape::Named;
        }
        return Shape::Other;
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("boolean") => return Shape::Flag,
        Some("string")
            if matches!(
                schema.get("format").and_then(Value::as_str),
                Some("date-time" | "date")
            ) =>
        {
            return Shape::Date;
        }
        _ => {}
    }
    if raw.scalar_kind(schema).is_some() {
        return Shape::Scalar;
    }
    let alternatives = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array);
    if let Some(alternatives) = alternatives
        && !alternatives.is_empty()
        && alternatives.iter().all(|alt| {
            let alt = raw.resolve(alt);
            alt.get("type").and_then(Value::as_str) == Some("null")
                || matches!(
                    shape(raw, alt),
                    Shape::Scalar | Shape::Named | Shape::Money | Shape::Date
                )
        })
    {
        return Shape::Compact;
    }
    Shape::Other
}

fn is_link(raw: &Raw<'_>, name: &str, schema: &Value) -> bool {
    let schema = raw.resolve(schema);
    if schema.get("type").and_then(Value::as_str) != Some("string") {
        return false;
    }
    schema.get("format").and_then(Value::as_str) == Some("uri")
        || name == "url"
        || name == "link"
        || name.ends_with("_url")
        || name.ends_with("_link")
        || name.starts_with("download")
}

fn is_picture(name: &str) -> bool {
    [
        "image",
        "thumbnail",
        "avatar",
        "logo",
        "banner",
        "icon",
        "flag",
    ]
    .iter()
    .any(|word| name.split('_').any(|part| part == *word))
}

/// The table columns of a record schema (see the module documentation for the rule). `order`:
/// the property names in document order.
pub(crate) fn columns(raw: &Raw<'_>, schema: &Value, order: &[String]) -> Columns {
    let record = raw.resolve(schema);
    let Some(properties) = record_properties(raw, record, order) else {
        return Columns {
            columns: Vec::new(),
            key: None,
            fields: Vec::new(),
            csv: csv_columns(raw, schema),
        };
    };
    let fields: Vec<String> = properties.iter().map(|(n, _)| n.clone()).collect();
    let get = |name: &str| properties.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
    let shape_of = |name: &str| get(name).map(|v| shape(raw, v));
    let scalar = |name: &str| shape_of(name) == Some(Shape::Scalar);
    let compact = |name: &str| {
        matches!(
            shape_of(name),
            Some(Shape::Scalar | Shape::Money | Shape::Date | Shape::Named | Shape::Compact)
        )
    };

    let mut chosen: Vec<String> = Vec::new();
    let take = |name: &str, chosen: &mut Vec<String>| {
        if get(name).is_some() && !chosen.iter().any(|c| c == name) {
            chosen.push(name.to_owned());
        }
    };
    let explicit = record
        .get("x-table-columns")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        });
    let mut key: Option<String> = record
        .get("x-table-key")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if let Some(names) = explicit {
        for name in &names {
            take(name, &mut chosen);
        }
    } else {
        if scalar("id") {
            take("id", &mut chosen);
        }
        if scalar("reference_id") {
            take("reference_id", &mut chosen);
        }
        let mut named = false;
        if let Some(title) = ["name", "title", "label", "slug", "iso_code", "code"]
            .into_iter()
            .find(|n| scalar(n))
        {
            take(title, &mut chosen);
            named = true;
        } else if scalar("first_name") {
            take("first_name", &mut chosen);
            if scalar("last_name") {
                take("last_name", &mut chosen);
            }
            named = true;
        } else if let Some((name, _)) = properties
            .iter()
            .find(|(n, _)| n.ends_with("_name") && scalar(n))
        {
            take(name, &mut chosen);
            named = true;
        }
        if scalar("event") {
            take("event", &mut chosen);
            named = true;
        }
        if shape_of("customer") == Some(Shape::Named) {
            take("customer", &mut chosen);
        }
        let money = |name: &str| shape_of(name) == Some(Shape::Money);
        if let Some(price) = ["price", "total"]
            .into_iter()
            .find(|n| money(n))
            .map(str::to_owned)
            .or_else(|| {
                properties
                    .iter()
                    .find(|(n, _)| money(n))
                    .map(|(n, _)| n.clone())
            })
        {
            take(&price, &mut chosen);
        }
        for stock in ["quantity", "stock_quantity", "stock"] {
            if scalar(stock) {
                take(stock, &mut chosen);
                break;
            }
        }
        if scalar("sku") {
            take("sku", &mut chosen);
        }
        if compact("status") {
            take("status", &mut chosen);
        }
        if let Some(when) = ["date", "created_at"]
            .into_iter()
            .find(|n| matches!(shape_of(n), Some(Shape::Date | Shape::Scalar)))
        {
            take(when, &mut chosen);
        }
        let required = required_names(raw, record, 0);
        let keyed = !named && get("id").is_none();
        if let Some((link, _)) = properties
            .iter()
            .find(|(n, v)| is_link(raw, n, v) && (keyed || required.contains(n)))
        {
            take(link, &mut chosen);
            if keyed && key.is_none() {
                key = Some(link.clone());
            }
        }
        if scalar("type") {
            take("type", &mut chosen);
        }
        for (name, _) in &properties {
            if chosen.len() >= MAX_COLUMNS {
                break;
            }
            let value = properties.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
            let deprecated = value.is_some_and(|v| {
                v.get("deprecated") == Some(&Value::Bool(true))
                    || v.get("description")
                        .and_then(Value::as_str)
                        .is_some_and(|d| d.starts_with("Deprecated"))
            });
            let link = value.is_some_and(|v| is_link(raw, name, v));
            if compact(name) && !is_picture(name) && !link && !deprecated {
                take(name, &mut chosen);
            }
        }
        while chosen.len() > MAX_COLUMNS {
            let Some(at) = chosen.iter().rposition(|c| Some(c) != key.as_ref()) else {
                break;
            };
            chosen.remove(at);
        }
    }
    let pointer = |name: &str| format!("/{}", name.replace('~', "~0").replace('/', "~1"));
    Columns {
        columns: chosen
            .iter()
            .map(|name| (name.replace('_', " ").to_uppercase(), pointer(name)))
            .collect(),
        key: key
            .filter(|k| chosen.iter().any(|c| c == k))
            .map(|k| pointer(&k)),
        fields,
        csv: csv_columns(raw, schema),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn document() -> Value {
        json!({"components": {"schemas": {
            "Money": {"type": "object", "properties": {
                "amount": {"type": "number"}, "currency": {"type": "string"}}},
            "ServiceDateTime": {"type": "object", "properties": {
                "date": {"type": "string"}, "timezone_type": {"type": "integer"},
                "timezone": {"type": "string"}}},
            "Status": {"type": "object", "properties": {
                "id": {"type": "integer"}, "name": {"type": "string"}, "slug": {"type": "string"}}},
            "Person": {"type": "object", "properties": {
                "id": {"type": "integer"}, "first_name": {"type": "string"},
                "last_name": {"type": "string"}}},
            "Product": {"type": "object", "properties": {
                "id": {"type": "integer"}, "promotion": {"type": "object", "properties": {
                    "title": {"type": "string"}}},
                "sku": {"type": "string"}, "thumbnail": {"type": "string"},
                "type": {"type": "string"}, "name": {"type": "string"},
                "urls": {"type": "object", "properties": {"admin": {"type": "string"}}},
                "price": {"$ref": "#/components/schemas/Money"},
                "taxed_price": {"$ref": "#/components/schemas/Money"},
                "quantity": {"type": "integer"}, "status": {"type": "string"},
                "is_available": {"type": "boolean"}, "url": {"type": "string"}}},
            "ProductDetails": {"allOf": [
                {"$ref": "#/components/schemas/Product"},
                {"type": "object", "properties": {"scoped_prices": {"type": "array"}}}]},
            "Order": {"type": "object", "properties": {
                "id": {"type": "integer"}, "reference_id": {"type": "integer"},
                "total": {"$ref": "#/components/schemas/Money"},
                "date": {"$ref": "#/components/schemas/ServiceDateTime"},
                "status": {"$ref": "#/components/schemas/Status"},
                "draft": {"type": "boolean"}, "read": {"type": "boolean"},
                "items": {"type": "array", "items": {"type": "object"}},
                "customer": {"$ref": "#/components/schemas/Person"}}},
            "ExportLog": {"type": "object", "properties": {
                "type": {"type": "string"}, "user": {"allOf": [
                    {"$ref": "#/components/schemas/Status"}]},
                "created_at": {"type": "string"}, "url": {"type": "string"}}},
            "Webhook": {"type": "object", "required": ["id", "event", "url"], "properties": {
                "id": {"type": "integer"}, "name": {"type": "string"},
                "event": {"type": "string"}, "version": {"type": "integer"},
                "rule": {"type": "string"}, "url": {"type": "string"},
                "headers": {"type": "object"}, "type": {"type": "string"}}},
            "Variant": {"type": "object", "properties": {
                "id": {"type": "integer"}, "price": {"$ref": "#/components/schemas/Money"},
                "regular_price": {"$ref": "#/components/schemas/Money"},
                "has_special_price": {"type": "boolean"},
                "stock_quantity": {"type": "integer"}, "barcode": {"type": "string"},
                "sku": {"type": "string"}}},
            "Chosen": {"type": "object", "x-table-columns": ["b", "a"], "x-table-key": "a",
                "properties": {"a": {"type": "string"}, "b": {"type": "string"},
                    "c": {"type": "string"}}}
        }}})
    }

    fn headers(name: &str, order: &[&str]) -> (Vec<String>, Option<String>) {
        let doc = document();
        let raw = Raw(&doc);
        let schema = &doc["components"]["schemas"][name];
        let order: Vec<String> = order.iter().map(|s| s.to_string()).collect();
        let chosen = columns(&raw, schema, &order);
        (
            chosen.columns.into_iter().map(|(h, _)| h).collect(),
            chosen.key,
        )
    }

    #[test]
    fn a_product_shows_name_price_stock_sku_and_status_but_no_pictures_or_flags() {
        let order = [
            "id",
            "promotion",
            "sku",
            "thumbnail",
            "type",
            "name",
            "urls",
            "price",
            "taxed_price",
            "quantity",
            "status",
            "is_available",
            "url",
        ];
        let (columns, key) = headers("Product", &order);
        assert_eq!(
            columns,
            [
                "ID",
                "NAME",
                "PRICE",
                "QUANTITY",
                "SKU",
                "STATUS",
                "TYPE",
                "PROMOTION"
            ]
        );
        assert_eq!(key, None, "a product is named: its link is not its key");
        // The details (an allOf of the product and more) show the same columns.
        let (details, _) = headers("ProductDetails", &order);
        assert_eq!(details, columns);
    }

    #[test]
    fn an_order_shows_its_reference_customer_total_status_and_date_not_its_flags() {
        let (columns, _) = headers(
            "Order",
            &[
                "id",
                "reference_id",
                "total",
                "date",
                "status",
                "draft",
                "read",
                "items",
                "customer",
            ],
        );
        assert_eq!(
            columns,
            ["ID", "REFERENCE ID", "CUSTOMER", "TOTAL", "STATUS", "DATE"]
        );
    }

    #[test]
    fn a_link_is_the_key_column_of_a_record_that_nothing_names() {
        let (columns, key) = headers("ExportLog", &["type", "user", "created_at", "url"]);
        assert_eq!(columns, ["CREATED AT", "URL", "TYPE", "USER"]);
        assert_eq!(key.as_deref(), Some("/url"));
    }

    #[test]
    fn a_webhook_shows_its_event_and_url() {
        let (columns, key) = headers(
            "Webhook",
            &[
                "id", "name", "event", "version", "rule", "url", "headers", "type",
            ],
        );
        assert_eq!(
            columns,
            ["ID", "NAME", "EVENT", "URL", "TYPE", "VERSION", "RULE"]
        );
        assert_eq!(key, None);
    }

    #[test]
    fn a_variant_shows_its_price_stock_and_sku() {
        let (columns, _) = headers(
            "Variant",
            &[
                "id",
                "price",
                "regular_price",
                "has_special_price",
                "stock_quantity",
                "barcode",
                "sku",
            ],
        );
        assert_eq!(
            columns,
            [
                "ID",
                "PRICE",
                "STOCK QUANTITY",
                "SKU",
                "REGULAR PRICE",
                "BARCODE"
            ]
        );
    }

    #[test]
    fn a_schema_may_name_its_columns_and_key() {
        let (columns, key) = headers("Chosen", &["a", "b", "c"]);
        assert_eq!(columns, ["B", "A"]);
        assert_eq!(key.as_deref(), Some("/a"));
    }
}

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
use crate::formats::{CURRENCY, TIMEZONE};
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
    let sent = record.clone();
    let subject: Vec<&str> = schemas.iter().filter_map(Document::ref_name).collect();
    let mut generator = Generator::new(doc, seed, serial).about(&subject.join(" "));
    for schema in schemas {
        let shaped = shape(doc, record, schema, &mut generator, "data");
        fill(record, shaped, 0);
    }
    harmonize(record, &sent, seed);
    if !sent_sale_price {
        below_price(record);
    }
    in_service_form(doc, schemas, record);
}

/// Keeps the money and the dates of `record` in the service's form for each of its record
/// `schemas` (see [`money_with_currency`] and [`in_store_zone`]): for writes that do not
/// complete a record (an import's rows, a change of a record held in another's array).
pub(crate) fn in_service_form(doc: &Document, schemas: &[Value], record: &mut Value) {
    money_with_currency(doc, schemas, record);
    for schema in schemas {
        in_store_zone(doc, schema, record, 0);
    }
}

/// Dates in the store's time zone, as the service writes them, at every depth of `value` (a
/// record, as `schema` declares it): a date object the schema declares (`{date, timezone_type,
/// timezone}`, a PHP `DateTime`) holds its `date` with `timezone_type` 3 and the store's
/// `timezone` (a text sent for it becomes such an object), and a timestamp sent with an offset
/// (`2024-05-01T07:00:00Z`), in a date object or a text, is the store's local time (`2024-05-01
/// 10:00:00`). A local text is kept as it was sent.
fn in_store_zone(doc: &Document, schema: &Value, value: &mut Value, depth: usize) {
    if depth > 12 {
        return;
    }
    let view = doc.view(schema);
    let local = |text: &str| crate::formats::in_store_zone(text).unwrap_or_else(|| text.to_owned());
    if view.property("date").is_some() && view.property("timezone").is_some() {
        match value {
            Value::String(text) if !text.trim().is_empty() => {
                *value = json!({ "date": local(text), "timezone_type": 3, "timezone": TIMEZONE });
            }
            Value::Object(map) => {
                let Some(Value::String(date)) = map.get("date") else {
                    return;
                };
                let converted = crate::formats::in_store_zone(date);
                let zone = map.get("timezone").and_then(Value::as_str);
                if converted.is_some() || zone.is_none_or(|z| z == "UTC" || z == "Z") {
                    let date = match (converted, zone) {
                        (Some(local), _) => local,
                        (None, Some(_)) => utc_to_store(date),
                        (None, None) => date.clone(),
                    };
                    map.insert("date".into(), Value::from(date));
                    map.insert("timezone_type".into(), Value::from(3));
                    map.insert("timezone".into(), Value::from(TIMEZONE));
                }
            }
            _ => {}
        }
        return;
    }
    match value {
        Value::Object(map) => {
            for (name, property) in &view.properties {
                if let Some(inner) = map.get_mut(*name) {
                    in_store_zone(doc, property, inner, depth + 1);
                }
            }
        }
        Value::String(text) => {
            if let Some(local) = crate::formats::in_store_zone(text) {
                *text = local;
            }
        }
        Value::Array(items) => {
            if let Some(item) = view.items {
                for inner in items {
                    in_store_zone(doc, item, inner, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// A UTC local text (`2024-05-01 07:00:00.000000`) in the store's time zone, its fraction kept.
fn utc_to_store(date: &str) -> String {
    let (base, fraction) = match date.split_once('.') {
        Some((base, fraction)) => (base, format!(".{fraction}")),
        None => (date, String::new()),
    };
    chrono::NaiveDateTime::parse_from_str(base.trim(), "%Y-%m-%d %H:%M:%S")
        .map(|t| {
            let t = t + chrono::Duration::hours(crate::formats::TIMEZONE_HOURS.into());
            format!("{}{fraction}", t.format("%Y-%m-%d %H:%M:%S"))
        })
        .unwrap_or_else(|_| date.to_owned())
}

/// Keeps the money of `record` in the service's form for each of its record `schemas` (see
/// [`with_currency`]).
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
            let percentages = percentage_fields(map);
            for (name, property) in &view.properties {
                if percentages.iter().any(|p| p == name) {
                    // A percentage is not money (a coupon's `amount` of type `percentage`).
                    continue;
                }
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

/// Whether a value names a percentage (a coupon's or a discount's `type`).
fn is_percentage(value: &Value) -> bool {
    matches!(
        value.as_str().map(str::to_ascii_lowercase).as_deref(),
        Some("percentage" | "percent" | "p")
    )
}

/// The fields of `map` that hold a percentage: the `amount`, `value` or `discount` beside a
/// `type` (or `<prefix>_type` beside `<prefix>_amount`) that says `percentage`.
fn percentage_fields(map: &serde_json::Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    for (key, value) in map {
        if (key == "type" || key.ends_with("_type")) && is_percentage(value) {
            let prefix = key.trim_end_matches("type");
            for target in ["amount", "value", "discount"] {
                let name = format!("{prefix}{target}");
                if map.contains_key(&name) {
                    out.push(name);
                }
            }
        }
    }
    out
}

/// Makes what was generated in `record` agree with the rest of it, in every object it holds
/// (what `sent` holds, at the same place, is kept as it is): a percentage under 100 and without
/// a currency, an end after its start (an expiry after the creation), a discount not above its
/// subtotal and a total that adds up (subtotal + shipping + cash on delivery + tax - discount),
/// two subtotals alike, an email that goes with the person's first name. Seeded by `seed`.
pub(crate) fn harmonize(record: &mut Value, sent: &Value, seed: u64) {
    harmonize_at(record, Some(sent), seed, 0);
}

fn harmonize_at(value: &mut Value, sent: Option<&Value>, seed: u64, depth: usize) {
    if depth > 16 {
        return;
    }
    match value {
        Value::Object(map) => {
            let sent = sent.and_then(Value::as_object);
            for (name, inner) in map.iter_mut() {
                let sent_inner = sent.and_then(|s| s.get(name));
                harmonize_at(inner, sent_inner, seed, depth + 1);
                // Generated money has an amount (an invoice's `total` of a currency alone).
                if sent_inner.is_none()
                    && let Value::Object(money) = inner
                    && money.contains_key("currency")
                    && !money.contains_key("amount")
                    && money.keys().all(|k| k == "currency" || k == "taxable")
                {
                    let hash = crate::fake::stable_hash(&[&seed.to_string(), name]);
                    let amount = if name.contains("shipping") || name.contains("cod") {
                        10.0 + (hash % 5_000) as f64 / 100.0
                    } else {
                        5.0 + (hash % 199_500) as f64 / 100.0
                    };
                    money.insert("amount".into(), json!(amount));
                }
            }
            let generated = |name: &str| sent.is_none_or(|s| !s.contains_key(name));
            percentages(map, &generated, seed);
            ranges(map, &generated, seed);
            lines(map, &generated, depth == 0);
            amounts(map, &generated);
            email(map, &generated);
        }
        Value::Array(items) => {
            let sent = sent.and_then(Value::as_array);
            for (i, item) in items.iter_mut().enumerate() {
                harmonize_at(item, sent.and_then(|s| s.get(i)), seed, depth + 1);
            }
        }
        _ => {}
    }
}

type Map = serde_json::Map<String, Value>;

/// An amount: a number, a decimal string, or money's `amount`.
fn amount_of(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        Value::Object(map) => map.get("amount").and_then(amount_of),
        _ => None,
    }
}

/// Sets the amount `value` holds, in its own form (a number, a decimal string, money's
/// `amount`).
fn set_amount(value: &mut Value, amount: f64) {
    let amount = (amount * 100.0).round() / 100.0;
    match value {
        Value::Object(map) => match map.get_mut("amount") {
            Some(inner) => set_amount(inner, amount),
            None => {
                map.insert("amount".into(), json!(amount));
            }
        },
        Value::String(text) => *text = format!("{amount:.2}"),
        other => {
            *other = serde_json::Number::from_f64(amount).map_or(Value::from(0), Value::Number);
        }
    }
}

/// A generated percentage is under 100 (5 to 50) and has no currency; a generated `percentage`
/// type whose amount was sent becomes the fixed type of the same spelling.
fn percentages(map: &mut Map, generated: &dyn Fn(&str) -> bool, seed: u64) {
    let types: Vec<String> = map
        .iter()
        .filter(|(k, v)| (*k == "type" || k.ends_with("_type")) && is_percentage(v))
        .map(|(k, _)| k.clone())
        .collect();
    for key in types {
        let prefix = key.trim_end_matches("type").to_owned();
        let targets: Vec<String> = ["amount", "value", "discount"]
            .iter()
            .map(|t| format!("{prefix}{t}"))
            .filter(|name| map.contains_key(name))
            .collect();
        if targets.is_empty() {
            continue;
        }
        if generated(&key) && targets.iter().any(|t| !generated(t)) {
            let fixed = match map.get(&key).and_then(Value::as_str) {
                Some("Percentage") => "Fixed",
                Some("p") => "f",
                _ => "fixed",
            };
            map.insert(key.clone(), Value::from(fixed));
            continue;
        }
        for target in targets {
            if !generated(&target) {
                continue;
            }
            let percent =
                5.0 * (1 + crate::fake::stable_hash(&[&seed.to_string(), &target]) % 10) as f64;
            let Some(slot) = map.get_mut(&target) else {
                continue;
            };
            match slot {
                Value::Object(money) => {
                    money.remove("currency");
                    money.insert("amount".into(), json!(percent));
                }
                Value::String(text) => *text = format!("{percent}"),
                other => *other = json!(percent),
            }
        }
    }
}

/// The start and end fields of a time range (the first of each list that a record has), and an
/// expiry or a change after the creation.
const RANGES: &[(&[&str], &[&str])] = &[
    (
        &[
            "start_date",
            "starts_at",
            "start_at",
            "start",
            "from_date",
            "date_from",
            "valid_from",
        ],
        &[
            "end_date",
            "ends_at",
            "end_at",
            "end",
            "expiry_date",
            "expires_at",
            "expire_at",
            "expired_at",
            "to_date",
            "date_to",
            "valid_to",
            "expiry",
        ],
    ),
    (
        &["created_at"],
        &[
            "updated_at",
            "expiry_date",
            "expires_at",
            "expired_at",
            "deleted_at",
        ],
    ),
];

/// The date a value starts with (`2024-03-01...`, or a service timestamp's `date`).
fn date_in(value: &Value) -> Option<(chrono::NaiveDate, String)> {
    let text = match value {
        Value::String(s) => s.as_str(),
        Value::Object(map) => map.get("date").and_then(Value::as_str)?,
        _ => return None,
    };
    let date = chrono::NaiveDate::parse_from_str(text.get(0..10)?, "%Y-%m-%d").ok()?;
    Some((date, text.get(10..).unwrap_or("").to_owned()))
}

/// Writes `date` in place of the date a value starts with (its time and form kept).
fn set_date(value: &mut Value, date: chrono::NaiveDate) {
    let slot = match value {
        Value::Object(map) => map.get_mut("date"),
        other => Some(other),
    };
    if let Some(Value::String(text)) = slot
        && text.len() >= 10
        && text.is_char_boundary(10)
    {
        *text = format!("{}{}", date.format("%Y-%m-%d"), &text[10..]);
    }
}

/// A generated end is after its start (a generated start before its end).
fn ranges(map: &mut Map, generated: &dyn Fn(&str) -> bool, seed: u64) {
    for (starts, ends) in RANGES {
        for start in *starts {
            for end in *ends {
                let (Some((a, a_time)), Some((b, b_time))) = (
                    map.get(*start).and_then(date_in),
                    map.get(*end).and_then(date_in),
                ) else {
                    continue;
                };
                if (b, &b_time) >= (a, &a_time) {
                    continue;
                }
                let days = 1 + (crate::fake::stable_hash(&[&seed.to_string(), end]) % 60) as i64;
                if generated(end) {
                    if let (Some(value), Some(date)) = (
                        map.get_mut(*end),
                        a.checked_add_signed(chrono::Duration::days(days)),
                    ) {
                        set_date(value, date);
                    }
                } else if generated(start)
                    && let (Some(value), Some(date)) = (
                        map.get_mut(*start),
                        b.checked_sub_signed(chrono::Duration::days(days)),
                    )
                {
                    set_date(value, date);
                }
            }
        }
    }
}

/// The subtotals a record may name.
const SUBTOTALS: &[&str] = &["sub_total", "subtotal", "items_total"];

/// Generated lines add up: a record with a subtotal (an invoice) has lines (`items`), each with
/// a quantity, a price and a total that is its price times its quantity less its discount (a
/// discount not above them), and its subtotal is the sum of its lines' totals: a generated
/// subtotal is that sum, and a sent one (an invoice created with its `sub_total`), or one the
/// lines had no price for, has the lines priced to add up to it. A `record` (the outermost
/// object) made without lines gets one.
fn lines(map: &mut Map, generated: &dyn Fn(&str) -> bool, record: bool) {
    if !generated("items") {
        return;
    }
    let Some((sub_name, subtotal)) = first_amount(map, SUBTOTALS) else {
        return;
    };
    if record && !map.contains_key("items") {
        // A record (not an amounts object inside one) made without its lines gets them.
        map.insert("items".into(), Value::Array(Vec::new()));
    }
    let sent = SUBTOTALS
        .iter()
        .filter(|n| !generated(n))
        .find_map(|n| map.get(*n).and_then(amount_of));
    let form = map.get(sub_name).cloned().unwrap_or(Value::Null);
    let Some(Value::Array(items)) = map.get_mut("items") else {
        return;
    };
    // A record with a subtotal has lines: each an object with a quantity, a price and a total
    // (each of the other's form where it lacks one, of the subtotal's where it lacks both, then
    // priced to add up to the subtotal).
    items.retain(Value::is_object);
    if items.is_empty() {
        items.push(json!({ "quantity": 1 }));
    }
    let count = items.len() as f64;
    let mut unpriced = false;
    for line in items.iter_mut().filter_map(Value::as_object_mut) {
        let quantity = match line.get("quantity").and_then(amount_of) {
            Some(q) if q > 0.0 => q,
            _ => {
                line.insert("quantity".into(), json!(1));
                1.0
            }
        };
        let price = line
            .get("price")
            .filter(|p| amount_of(p).is_some())
            .cloned();
        let total = line
            .get("total")
            .filter(|t| amount_of(t).is_some())
            .cloned();
        match (price, total) {
            (Some(price), None) => {
                line.insert("total".into(), price);
            }
            (None, Some(mut total)) => {
                let each = amount_of(&total).unwrap_or(0.0) / quantity;
                set_amount(&mut total, each);
                line.insert("price".into(), total);
            }
            (None, None) => {
                let mut money = form.clone();
                set_amount(&mut money, subtotal / count / quantity);
                line.insert("price".into(), money.clone());
                line.insert("total".into(), money);
                unpriced = true;
            }
            (Some(_), Some(_)) => {}
        }
    }
    let sent = sent.or(unpriced.then_some(subtotal));
    let round = |a: f64| (a * 100.0).round() / 100.0;
    let line_total = |line: &mut Map| -> Option<f64> {
        let price = line.get("price").and_then(amount_of)?;
        let quantity = line.get("quantity").and_then(amount_of).unwrap_or(1.0);
        let gross = round(price * quantity.max(0.0));
        let mut discount = line.get("discount").and_then(amount_of).unwrap_or(0.0);
        if discount > gross {
            discount = round(gross / 10.0);
            if let Some(value) = line.get_mut("discount") {
                set_amount(value, discount);
            }
        }
        let total = round(gross - discount);
        if let Some(value) = line.get_mut("total") {
            set_amount(value, total);
        }
        Some(total)
    };
    let mut priced: Vec<&mut Map> = items
        .iter_mut()
        .filter_map(Value::as_object_mut)
        .filter(|line| line.get("price").and_then(amount_of).is_some())
        .collect();
    if priced.is_empty() {
        return;
    }
    let mut sum: f64 = priced.iter_mut().filter_map(|l| line_total(l)).sum();
    if let Some(target) = sent.filter(|t| (t - sum).abs() >= 0.005 && *t >= 0.0) {
        // Priced to the sent subtotal: each line in proportion, the last one taking what
        // rounding left (one unit of it, so that its price times its quantity is its total).
        let factor = if sum > 0.0 { target / sum } else { 0.0 };
        let count = priced.len();
        let mut so_far = 0.0;
        for (at, line) in priced.iter_mut().enumerate() {
            let price = line.get("price").and_then(amount_of).unwrap_or(0.0);
            if at + 1 < count {
                if let Some(value) = line.get_mut("price") {
                    set_amount(value, round(price * factor));
                }
                so_far += line_total(line).unwrap_or(0.0);
            } else {
                let rest = round(target - so_far).max(0.0);
                line.insert("quantity".into(), json!(1));
                if let Some(value) = line.get_mut("discount") {
                    set_amount(value, 0.0);
                }
                if let Some(value) = line.get_mut("price") {
                    set_amount(value, rest);
                }
                so_far += line_total(line).unwrap_or(0.0);
            }
        }
        sum = so_far;
    }
    let sum = round(sum);
    for name in SUBTOTALS {
        if generated(name)
            && let Some(value) = map.get_mut(*name)
        {
            set_amount(value, sum);
        }
    }
}

/// The first of `names` that `map` holds an amount in.
fn first_amount(map: &Map, names: &[&'static str]) -> Option<(&'static str, f64)> {
    names
        .iter()
        .find_map(|n| map.get(*n).and_then(amount_of).map(|a| (*n, a)))
}

/// Generated amounts agree with the record's others: a discount not above the subtotal, two
/// subtotals alike, a total of the subtotal, shipping, cash on delivery and tax less the
/// discount.
fn amounts(map: &mut Map, generated: &dyn Fn(&str) -> bool) {
    let Some((sub_name, mut subtotal)) = first_amount(map, SUBTOTALS) else {
        return;
    };
    for other in ["sub_total", "subtotal"] {
        if other != sub_name
            && map.contains_key(other)
            && let Some(value) = map.get_mut(other)
        {
            if generated(other) {
                set_amount(value, subtotal);
            } else if generated(sub_name) {
                subtotal = amount_of(value).unwrap_or(subtotal);
                if let Some(first) = map.get_mut(sub_name) {
                    set_amount(first, subtotal);
                }
            }
        }
    }
    let mut discount = 0.0;
    if let Some((name, amount)) =
        first_amount(map, &["discount", "discount_amount", "total_discount"])
    {
        discount = amount;
        if amount > subtotal && generated(name) {
            discount = (subtotal * 10.0).round() / 100.0;
            if let Some(value) = map.get_mut(name) {
                set_amount(value, discount);
            }
        }
    }
    // A generated tax is the store's VAT of the subtotal.
    if generated("tax")
        && let Some(Value::Object(tax)) = map.get_mut("tax")
        && let Some(percent) = tax.get("percent").and_then(amount_of)
        && let Some(amount) = tax.get_mut("amount")
    {
        set_amount(amount, subtotal * percent / 100.0);
    }
    let shipping =
        first_amount(map, &["shipping_cost", "shipping", "shipping_fee"]).map_or(0.0, |a| a.1);
    let cod = first_amount(map, &["cod_cost", "cash_on_delivery_fee"]).map_or(0.0, |a| a.1);
    let tax = map
        .get("tax")
        .and_then(|t| t.get("amount").and_then(amount_of).or_else(|| amount_of(t)))
        .or_else(|| first_amount(map, &["tax_amount", "vat"]).map(|a| a.1))
        .unwrap_or(0.0);
    if let Some((name, _)) = first_amount(map, &["total", "grand_total"])
        && generated(name)
        && let Some(value) = map.get_mut(name)
    {
        set_amount(value, subtotal + shipping + cod + tax - discount);
    }
}

/// A generated email goes with the person's first and last name in the same object.
fn email(map: &mut Map, generated: &dyn Fn(&str) -> bool) {
    let Some(first) = map.get("first_name").and_then(Value::as_str) else {
        return;
    };
    let first = first.trim().to_ascii_lowercase().replace(' ', ".");
    let Some(Value::String(email)) = map.get("email") else {
        return;
    };
    if first.is_empty() || !generated("email") || email.to_ascii_lowercase().contains(&first) {
        return;
    }
    let last = map
        .get("last_name")
        .and_then(Value::as_str)
        .map(|l| format!(".{}", l.trim().to_ascii_lowercase().replace(' ', ".")))
        .unwrap_or_default();
    let number = map
        .get("id")
        .and_then(crate::store::id_text_value)
        .map(|id| id.chars().rev().take(3).collect::<String>())
        .unwrap_or_default();
    let email = format!("{first}{last}{number}@example.com");
    map.insert("email".into(), Value::from(email));
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

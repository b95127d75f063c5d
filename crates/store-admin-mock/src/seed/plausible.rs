//! The plausibility test of the seeded store (issue 40): every field of every record of every
//! collection, as its views answer it (the record shaped by each of its collection's schemas),
//! checked against its schema (the document's validator: type, format, `enum`, bounds; and the
//! `x-known-values`) and against what the field's name, its description and the record's other
//! fields say it holds. The rules are written apart from the generator's, from what the service
//! sends (the documented examples): a failure names the collection, the record's id, the JSON
//! path and the rule broken.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::document::Document;
use crate::engine::Engine;
use crate::fake::Generator;
use crate::store::{Store, id_text};

/// One value that breaks a rule.
#[derive(Debug, Clone)]
pub(crate) struct Violation {
    pub group: String,
    pub id: String,
    pub path: String,
    pub rule: String,
    pub value: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} {}: {} ({})",
            self.group, self.id, self.path, self.rule, self.value
        )
    }
}

/// Words that say an object (by its schema's name, or its field's) is a person.
const PERSON: &[&str] = &[
    "customer",
    "employee",
    "user",
    "receiver",
    "sender",
    "author",
    "marketer",
    "recipient",
    "assignee",
    "created_by",
    "shipper",
    "member",
    "buyer",
    "admin",
];

/// The date at the start of a text (`2024-03-01`, `2024-03-01 10:00:00.000000`), as a number
/// `YYYYMMDD` and the rest of the timestamp (seconds of the day), if it is one.
fn date_of(value: &Value) -> Option<(u32, u32)> {
    let text = match value {
        Value::String(s) => s.as_str(),
        Value::Object(map) => map.get("date").and_then(Value::as_str)?,
        _ => return None,
    };
    let bytes = text.as_bytes();
    if bytes.len() < 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return None;
    }
    let year: u32 = text.get(0..4)?.parse().ok()?;
    let month: u32 = text.get(5..7)?.parse().ok()?;
    let day: u32 = text.get(8..10)?.parse().ok()?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let time = text
        .get(11..19)
        .map(|t| {
            t.split(':')
                .filter_map(|p| p.parse::<u32>().ok())
                .fold(0, |acc, p| acc * 60 + p)
        })
        .unwrap_or(0);
    Some((year * 10_000 + month * 100 + day, time))
}

/// An amount: a number, a decimal string, or money's `amount`.
fn amount_of(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        Value::Object(map) => map.get("amount").and_then(amount_of),
        _ => None,
    }
}

fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn is_percentage(value: &Value) -> bool {
    matches!(
        value.as_str().map(str::to_ascii_lowercase).as_deref(),
        Some("percentage" | "percent" | "p")
    )
}

/// The checker of one record's answer.
struct Checker<'d> {
    doc: &'d Document,
    group: String,
    id: String,
    out: Vec<Violation>,
}

impl Checker<'_> {
    fn flag(&mut self, path: &str, rule: &str, value: &Value) {
        let mut text = value.to_string();
        if text.len() > 80 {
            text = format!("{}...", text.chars().take(80).collect::<String>());
        }
        self.out.push(Violation {
            group: self.group.clone(),
            id: self.id.clone(),
            path: path.to_owned(),
            rule: rule.to_owned(),
            value: text,
        });
    }

    /// Walks `value` of `schema`, the field `field` of an object of kind `owner` (what it is, by
    /// its schema's or field's name, lower case).
    fn walk(&mut self, schema: &Value, value: &Value, field: &str, owner: &str, path: &str) {
        let view = self.doc.view(schema);
        let known = self.doc.known_values(schema);
        if let Value::String(s) = value
            && !known.is_empty()
            && view.keyword("enum").is_none()
            && !known.contains(s)
            && !s.is_empty()
        {
            self.flag(path, "a value outside the field's known values", value);
        }
        match value {
            Value::Object(map) => {
                let name = Document::ref_name(schema)
                    .or_else(|| {
                        schema
                            .get("allOf")
                            .and_then(Value::as_array)
                            .and_then(|a| a.first())
                            .and_then(Document::ref_name)
                    })
                    .unwrap_or("")
                    .to_ascii_lowercase();
                let kind = format!("{name} {}", field.to_ascii_lowercase());
                self.object(map, &kind, path);
                for (name, property) in &view.properties {
                    if let Some(inner) = map.get(*name) {
                        self.walk(property, inner, name, &kind, &format!("{path}.{name}"));
                    }
                }
            }
            Value::Array(items) => {
                let item = view.items.unwrap_or(&Value::Null);
                let singular = field.trim_end_matches('s');
                for (i, inner) in items.iter().enumerate() {
                    self.walk(item, inner, singular, owner, &format!("{path}[{i}]"));
                }
            }
            _ => self.scalar(&view, value, field, owner, path),
        }
    }

    /// Rules over one scalar, by its field's name (and its description and type).
    fn scalar(
        &mut self,
        view: &crate::document::View<'_>,
        value: &Value,
        field: &str,
        owner: &str,
        path: &str,
    ) {
        if value.is_null() {
            return;
        }
        let f = field.to_ascii_lowercase();
        let description = view
            .keyword("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_ascii_lowercase();
        let text = text_of(value);
        // A placeholder made of the field's own name ("Golden is blocked" for `is_blocked`).
        if let Value::String(s) = value {
            let words = f.replace('_', " ");
            if words.len() > 2 && s.to_ascii_lowercase().ends_with(&format!(" {words}")) {
                self.flag(path, "a placeholder made of the field's name", value);
                return;
            }
        }
        let flag_word = ["is_", "has_", "can_", "should_", "allow_"]
            .iter()
            .any(|p| f.starts_with(p));
        if flag_word {
            let ok = match value {
                Value::Bool(_) => true,
                Value::Number(n) => matches!(n.as_i64(), Some(0 | 1)),
                Value::String(s) => {
                    view.kind() == Some("string")
                        && matches!(s.as_str(), "0" | "1" | "true" | "false")
                }
                _ => false,
            };
            if !ok {
                self.flag(path, "a yes/no field that is not a boolean (or 0/1)", value);
            }
            return;
        }
        let count_word = f == "count"
            || f.ends_with("_count")
            || f.ends_with("_points")
            || f == "points"
            || f.starts_with("count_")
            || f.starts_with("number_of_");
        if count_word {
            let ok = match value {
                Value::Number(n) => {
                    n.as_u64().is_some() || n.as_f64().is_some_and(|x| x >= 0.0 && x.fract() == 0.0)
                }
                Value::String(s) => s.chars().all(|c| c.is_ascii_digit()) && !s.is_empty(),
                _ => false,
            };
            if !ok {
                self.flag(path, "a count that is not a whole number", value);
            }
            return;
        }
        if view.kind().is_none()
            && (f.ends_with("ratio")
                || [
                    "amount", "average", "price", "total", "cost", "balance", "fee",
                ]
                .iter()
                .any(|w| f == *w || f.ends_with(&format!("_{w}"))))
        {
            if amount_of(value).is_none() {
                self.flag(path, "an amount or a ratio that is not a number", value);
            }
            return;
        }
        if (f == "id" || f.ends_with("_id")) && view.kind().is_none() {
            if !text.as_deref().is_some_and(|t| {
                !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            }) {
                self.flag(path, "an id that is not a number or a code", value);
            }
            return;
        }
        if f.ends_with("_code")
            && (f.contains("mobile")
                || f.contains("phone")
                || f.contains("calling")
                || f.contains("dial"))
        {
            if !text.as_deref().is_some_and(|t| {
                let digits = t.trim_start_matches('+');
                (1..=4).contains(&digits.len()) && digits.chars().all(|c| c.is_ascii_digit())
            }) {
                self.flag(
                    path,
                    "a calling code that is not `+` and 1 to 4 digits",
                    value,
                );
            }
            return;
        }
        let phone_word = [
            "mobile",
            "phone",
            "telephone",
            "whatsapp",
            "phone_number",
            "mobile_number",
        ]
        .iter()
        .any(|w| f == *w || f.ends_with(&format!("_{w}")));
        if phone_word {
            let ok = text.as_deref().is_some_and(|t| {
                let digits = t.trim_start_matches('+');
                (8..=15).contains(&digits.len()) && digits.chars().all(|c| c.is_ascii_digit())
            });
            if !ok {
                self.flag(path, "a phone number that is not 8 to 15 digits", value);
            } else if (description.contains("without") || f == "mobile")
                && owner.contains("customer")
            {
                let digits = text.unwrap_or_default();
                if !(digits.len() == 9 && digits.starts_with('5')) {
                    self.flag(
                        path,
                        "a Saudi mobile without its country code is 5 and 8 digits",
                        value,
                    );
                }
            }
            return;
        }
        if f == "timezone" || f == "time_zone" || f.ends_with("_timezone") {
            let ok = text.as_deref().is_some_and(|t| {
                t == "UTC"
                    || t.split_once('/').is_some_and(|(a, b)| {
                        a.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                            && a.chars().all(|c| c.is_ascii_alphabetic())
                            && !b.is_empty()
                            && b.chars()
                                .all(|c| c.is_ascii_alphabetic() || c == '_' || c == '/')
                    })
            });
            if !ok {
                self.flag(path, "a time zone that is not a zone name", value);
            }
            return;
        }
        if f == "timezone_type" {
            if !matches!(value.as_i64(), Some(1..=3)) {
                self.flag(path, "a timezone_type that is not 1, 2 or 3", value);
            }
            return;
        }
        if f == "email" || f.ends_with("_email") {
            // Empty: not given (a branch's address has none).
            let ok = text.as_deref().is_some_and(|t| {
                t.is_empty()
                    || t.split_once('@').is_some_and(|(local, domain)| {
                        !local.is_empty() && domain.contains('.') && !t.contains(' ')
                    })
            });
            if !ok {
                self.flag(path, "an email that is not an address", value);
            }
            return;
        }
        if f == "currency" || f.ends_with("_currency") || f == "currency_code" {
            if view.kind() == Some("string")
                && !text
                    .as_deref()
                    .is_some_and(|t| t.len() == 3 && t.chars().all(|c| c.is_ascii_uppercase()))
            {
                self.flag(path, "a currency that is not an ISO 4217 code", value);
            }
            return;
        }
        if f == "country_code" || f == "iso_code" {
            if !text
                .as_deref()
                .is_some_and(|t| t.len() == 2 && t.chars().all(|c| c.is_ascii_alphabetic()))
            {
                self.flag(path, "a country code that is not two letters", value);
            }
            return;
        }
        let person = owner.split_whitespace().any(|word| {
            let word = word.trim_end_matches('s');
            PERSON.iter().any(|p| word.ends_with(p))
        });
        let org = ["bank", "company", "companies", "courier"]
            .iter()
            .any(|p| owner.contains(p));
        let name_field = f == "first_name"
            || f == "last_name"
            || f == "full_name"
            || f.ends_with("customer_name")
            || f == "bank_name"
            || f == "account_name"
            || f == "company_name"
            || f == "courier_name"
            || (f == "name" && (person || org));
        if name_field {
            if let Value::String(s) = value
                && (s.chars().any(|c| c.is_ascii_digit()) || s.trim().is_empty())
            {
                self.flag(path, "a person's or organisation's name with digits", value);
            }
            if f == "name"
                && person
                && view.kind() == Some("string")
                && let Value::String(s) = value
                && s.split_whitespace().count() < 2
            {
                self.flag(
                    path,
                    "a person's name that is not a first and last name",
                    value,
                );
            }
            return;
        }
        if f.contains("birth") || (f == "date" && owner.contains("birth")) {
            match date_of(value) {
                Some((date, _)) if (19_200_101..=20_101_231).contains(&date) => {}
                _ => self.flag(path, "a date of birth that is not an adult's", value),
            }
            return;
        }
        if value.is_string()
            && view.kind() == Some("string")
            && (f == "date" || f.ends_with("_date") || f.ends_with("_at"))
            && !matches!(view.keyword("format").and_then(Value::as_str), Some("time"))
        {
            if date_of(value).is_none() && !value.as_str().is_some_and(str::is_empty) {
                self.flag(path, "a date that is not a date", value);
            }
            return;
        }
        if view.kind() == Some("string")
            && (f == "url" || f.ends_with("_url") || f == "link" || f.ends_with("_link"))
            && !description.contains("slug")
            && let Some(t) = &text
            && !t.is_empty()
            && !(t.starts_with("https://") || t.starts_with("http://"))
        {
            self.flag(path, "an address that is not a URL", value);
        }
        if f.contains("percent")
            && let Some(x) = amount_of(value)
            && !(0.0..=100.0).contains(&x)
        {
            self.flag(path, "a percentage outside 0 to 100", value);
        }
    }

    /// Rules over an object's fields together.
    fn object(&mut self, map: &Map<String, Value>, kind: &str, path: &str) {
        // A percentage is under 100 and not money.
        for (key, value) in map {
            if !(key == "type" || key.ends_with("_type")) || !is_percentage(value) {
                continue;
            }
            let prefix = key.trim_end_matches("type");
            for target in ["amount", "value", "discount"] {
                let name = format!("{prefix}{target}");
                let Some(amount) = map.get(&name) else {
                    continue;
                };
                if amount_of(amount).is_some_and(|x| !(0.0..100.0).contains(&x)) {
                    self.flag(
                        &format!("{path}.{name}"),
                        "a percentage of 100 or more",
                        amount,
                    );
                }
                let currency = match amount {
                    Value::Object(m) => m.get("currency").is_some_and(|c| !c.is_null()),
                    Value::String(s) => s.chars().any(|c| c.is_ascii_alphabetic()),
                    _ => false,
                };
                if currency {
                    self.flag(
                        &format!("{path}.{name}"),
                        "a percentage with a currency",
                        amount,
                    );
                }
            }
        }
        // Time ranges are ordered.
        let pairs: &[(&[&str], &[&str])] = &[
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
        for (starts, ends) in pairs {
            for start in *starts {
                let Some(a) = map.get(*start).and_then(date_of) else {
                    continue;
                };
                for end in *ends {
                    let Some(b) = map.get(*end).and_then(date_of) else {
                        continue;
                    };
                    if b < a {
                        self.flag(
                            &format!("{path}.{end}"),
                            &format!("an end before its start (`{start}`)"),
                            &map[*end],
                        );
                    }
                }
            }
        }
        // Money has an amount.
        if map.contains_key("currency")
            && !map.contains_key("amount")
            && map.len() > 1
            && map.keys().all(|k| k == "currency" || k == "taxable")
        {
            self.flag(path, "money without an amount", &Value::Object(map.clone()));
        }
        // Amounts add up.
        let find = |names: &[&str]| names.iter().find_map(|n| map.get(*n).and_then(amount_of));
        let subtotal = find(&["sub_total", "subtotal", "items_total"]);
        let discount = find(&["discount", "discount_amount", "total_discount"]);
        let shipping = find(&["shipping_cost", "shipping", "shipping_fee"]);
        let cod = find(&["cod_cost", "cash_on_delivery_fee"]);
        let tax = map
            .get("tax")
            .and_then(|t| t.get("amount").and_then(amount_of).or_else(|| amount_of(t)))
            .or_else(|| find(&["tax_amount", "vat"]));
        let total = find(&["total", "grand_total"]);
        if let (Some(s), Some(d)) = (subtotal, discount)
            && d > s + 0.005
        {
            self.flag(
                &format!("{path}.discount"),
                "a discount above the subtotal",
                &Value::from(d),
            );
        }
        if let (Some(s), Some(t)) = (subtotal, total)
            && !kind.contains("item")
        {
            let expected = s + shipping.unwrap_or(0.0) + cod.unwrap_or(0.0) + tax.unwrap_or(0.0)
                - discount.unwrap_or(0.0);
            if (expected - t).abs() > 0.015 {
                self.flag(
                    &format!("{path}.total"),
                    &format!(
                        "a total that is not subtotal + shipping + tax - discount ({expected:.2})"
                    ),
                    &Value::from(t),
                );
            }
        }
        if let (Some(s), Some(Value::Object(tax))) = (subtotal, map.get("tax"))
            && let (Some(percent), Some(amount)) = (
                tax.get("percent").and_then(amount_of),
                tax.get("amount").and_then(amount_of),
            )
            && ((s * percent / 100.0) - amount).abs() > 0.015
        {
            self.flag(
                &format!("{path}.tax.amount"),
                "a tax that is not its percent of the subtotal",
                &Value::from(amount),
            );
        }
        if let (Some(a), Some(b)) = (map.get("subtotal"), map.get("sub_total"))
            && amount_of(a) != amount_of(b)
        {
            self.flag(&format!("{path}.sub_total"), "two subtotals that differ", b);
        }
        // An email that a person's name goes with.
        let first = map
            .get("first_name")
            .and_then(Value::as_str)
            .map(str::to_ascii_lowercase);
        if let (Some(first), Some(Value::String(email))) = (first, map.get("email"))
            && !first.is_empty()
            && !email.to_ascii_lowercase().contains(&first)
        {
            self.flag(
                &format!("{path}.email"),
                "an email that does not match the person's name",
                &map["email"],
            );
        }
    }
}

/// Every violation in `store`: each record of each collection, shaped by each of its schemas.
pub(crate) fn violations(engine: &Engine, store: &Store) -> Vec<Violation> {
    let mut out = Vec::new();
    let validators: BTreeMap<String, Option<jsonschema::Validator>> = BTreeMap::new();
    let mut validators = validators;
    for (key, info) in &engine.collections {
        if info.alias_of.is_some() || info.embedded.is_some() {
            continue;
        }
        for record in store.records(key).iter() {
            let id = id_text(record).unwrap_or_else(|| "(singleton)".into());
            for schema in &info.record_schemas {
                let schema_name = Document::ref_name(schema)
                    .or_else(|| {
                        schema
                            .get("allOf")
                            .and_then(Value::as_array)
                            .and_then(|all| all.first())
                            .and_then(Document::ref_name)
                    })
                    .unwrap_or("record")
                    .to_owned();
                let mut generator = Generator::new(&engine.doc, 1, 1);
                let answered =
                    crate::shape::shape(&engine.doc, record, schema, &mut generator, "data");
                let mut checker = Checker {
                    doc: &engine.doc,
                    group: format!("{key} ({schema_name})"),
                    id: id.clone(),
                    out: Vec::new(),
                };
                let validator = validators
                    .entry(schema.to_string())
                    .or_insert_with(|| engine.doc.validator(schema));
                if let Some(validator) = validator {
                    for error in validator.iter_errors(&answered) {
                        let at = error.instance_path().to_string();
                        let value = error.instance().clone().into_owned();
                        checker.flag(
                            &format!("data{}", at.replace('/', ".")),
                            &format!("schema: {error}"),
                            &value,
                        );
                    }
                }
                let field = info.name.clone();
                checker.walk(schema, &answered, &field, &field, "data");
                // A record that names a `<thing>_id` shows that thing where its view declares
                // it (an order its customer).
                let view = engine.doc.view(schema);
                for (name, value) in record.as_object().into_iter().flatten() {
                    let Some(thing) = name.strip_suffix("_id") else {
                        continue;
                    };
                    let declared = view
                        .property(thing)
                        .is_some_and(|p| engine.doc.view(p).kind() == Some("object"));
                    if !declared || value.is_null() || engine.collection_for_field(name).is_none() {
                        continue;
                    }
                    let shown = answered.get(thing).and_then(|t| t.get("id"));
                    if shown.and_then(crate::store::id_text_value)
                        != crate::store::id_text_value(value)
                    {
                        checker.flag(
                            &format!("data.{thing}"),
                            &format!("a record that does not show the {thing} its `{name}` names"),
                            answered.get(thing).unwrap_or(&Value::Null),
                        );
                    }
                }
                if std::env::var("PLAUSIBLE_DUMP").is_ok_and(|d| d.split(',').any(|k| k == key)) {
                    println!("{key} {schema_name}: {answered}");
                }
                out.extend(checker.out);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;

    fn engine() -> std::sync::Arc<Engine> {
        Engine::for_document(Document::embedded().unwrap(), crate::overrides::registry())
    }

    /// Every generated field of every record of every collection is plausible: valid against its
    /// schema and against what its name and its record say it holds. Run with `--nocapture` for
    /// the count by rule and the list; `PLAUSIBLE_DUMP=/customers,/orders` also prints those
    /// collections' records as their views answer them.
    #[test]
    fn every_seeded_value_is_plausible() {
        let engine = engine();
        let mut total = 0;
        let mut report = Vec::new();
        for seed in [42, 7] {
            let store = super::super::store(&engine, seed, 40, None);
            let found = violations(&engine, &store);
            total += found.len();
            let mut by_rule: BTreeMap<String, usize> = BTreeMap::new();
            for v in &found {
                *by_rule
                    .entry(v.rule.split(" (").next().unwrap_or("").to_owned())
                    .or_default() += 1;
            }
            println!("seed {seed}: {} violations", found.len());
            for (rule, count) in &by_rule {
                println!("  {count:5}  {rule}");
            }
            report.extend(found.into_iter().map(|v| format!("seed {seed}: {v}")));
        }
        for line in report.iter().take(400) {
            println!("{line}");
        }
        println!("plausibility violations: {total}");
        assert!(
            total == 0,
            "{total} implausible values, the first: {:#?}",
            &report[..report.len().min(40)]
        );
    }
}

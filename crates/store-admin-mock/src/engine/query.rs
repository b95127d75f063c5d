//! Query parameters: checked against their declared schemas, then applied to a list's records.
//!
//! - Typed values must parse (`integer`, `number`, `boolean`, `date`), an empty one included;
//!   closed `enum`s, `pattern`s and bounds hold; a required parameter must be there. An empty
//!   string filter (`keyword=`) is no filter.
//! - A parameter filters the records when they have a field of its name (or `<name>_id`):
//!   equality as text, case-insensitive; an array field matches when one element does; an object
//!   field by its `id`, `slug` or `name` (or a nested object's `id`, as an order's
//!   `status.customized.id`). Parameters no record field answers are accepted and ignored.
//! - `keyword` (also `search`, `q`, `query`) matches records having the text in any of their
//!   string or number fields, two levels deep.
//! - `date` parameters bound a date: `from`/`start`/`since`... give the lowest day, `to`/`end`/
//!   `until`... the highest, of the field of their own name or else `created_at`/`date`/
//!   `updated_at`; an upper bound before the lower one is a 422 on the upper one.
//! - `sort_by=<field>-asc|desc` sorts by a field the records have (else 422); without it a list
//!   is newest first.

use std::cmp::Ordering;

use serde_json::Value;

use crate::document::{Document, Location, Operation};
use crate::error::{FieldErrors, Text, selected_invalid};
use crate::paging::QueryPairs;
use crate::shape::pattern_matches;

const FREE_TEXT: &[&str] = &["keyword", "search", "q", "query"];
/// Parameters the list machinery reads itself.
const RESERVED: &[&str] = &["page", "per_page", "sort_by", "expanded"];

/// A date bound of a list.
#[derive(Debug, Clone)]
struct DateBound {
    param: String,
    /// The record field to read, if the records have one of the parameter's name.
    field: String,
    day: String,
    lower: bool,
}

/// The filters of one list request, parsed.
#[derive(Debug, Default)]
pub(crate) struct Filters {
    equal: Vec<(String, Vec<String>)>,
    keyword: Option<String>,
    dates: Vec<DateBound>,
    pub sort: Option<(String, bool)>,
}

fn is_lower_bound(name: &str) -> Option<bool> {
    let name = name.to_ascii_lowercase();
    let lower = ["from", "start", "since", "after", "min", "begin"];
    let upper = ["to", "end", "until", "before", "max"];
    let words: Vec<&str> = name.split(['_', '-']).collect();
    if words.iter().any(|w| lower.contains(w)) {
        Some(true)
    } else if words.iter().any(|w| upper.contains(w)) {
        Some(false)
    } else {
        None
    }
}

/// Checks every declared query parameter of `op` against its schema.
pub(crate) fn check(doc: &Document, op: &Operation, query: &QueryPairs) -> Result<(), FieldErrors> {
    let mut errors = FieldErrors::new();
    for param in op.params.iter().filter(|p| p.location == Location::Query) {
        let key = param.key.as_str();
        if matches!(key, "page" | "per_page") {
            continue;
        }
        let values = query.raw_values(key);
        if values.is_empty() {
            if param.required {
                errors.required(key);
            }
            continue;
        }
        let view = doc.view(&param.schema);
        let (item_schema, values): (&Value, Vec<&str>) = match view.kind() {
            Some("array") => (
                view.items.unwrap_or(&Value::Null),
                values
                    .iter()
                    .flat_map(|v| v.split(','))
                    .map(str::trim)
                    .collect(),
            ),
            _ => (&param.schema, values.last().copied().into_iter().collect()),
        };
        let item = doc.view(item_schema);
        for value in values {
            let field = key.to_owned();
            match item.kind() {
                Some("integer") => match value.trim().parse::<i64>() {
                    Ok(n) => check_range(&item, n as f64, &field, &mut errors),
                    Err(_) => errors.add(
                        &field,
                        Text::new(
                            format!("The {key} must be an integer."),
                            format!("يجب أن يكون {key} عددًا صحيحًا."),
                        ),
                    ),
                },
                Some("number") => {
                    match value.trim().parse::<f64>().ok().filter(|f| f.is_finite()) {
                        Some(n) => check_range(&item, n, &field, &mut errors),
                        None => errors.add(
                            &field,
                            Text::new(
                                format!("The {key} must be a number."),
                                format!("يجب على {key} أن يكون رقمًا."),
                            ),
                        ),
                    }
                }
                Some("boolean") => {
                    if !matches!(value, "true" | "false" | "1" | "0") {
                        errors.add(
                            &field,
                            Text::new(
                                format!("The {key} field must be true or false."),
                                format!("يجب أن تكون قيمة حقل {key} إما true أو false."),
                            ),
                        );
                    }
                }
                _ => {
                    let format = item.keyword("format").and_then(Value::as_str);
                    if value.is_empty()
                        && format.is_none()
                        && item.keyword("enum").is_none()
                        && item.keyword("pattern").is_none()
                        && item.keyword("minLength").is_none()
                    {
                        continue;
                    }
                    if let Some(allowed) = item.keyword("enum").and_then(Value::as_array)
                        && !allowed.iter().any(|a| a.as_str() == Some(value))
                    {
                        errors.add(&field, selected_invalid(key));
                    }
                    if format == Some("date")
                        && chrono::NaiveDate::parse_from_str(value.trim(), "%Y-%m-%d").is_err()
                    {
                        errors.add(
                            &field,
                            Text::new(
                                format!("The {key} does not match the format Y-m-d."),
                                format!("لا يتوافق {key} مع الشكل Y-m-d."),
                            ),
                        );
                    }
                    if format == Some("date-time")
                        && chrono::DateTime::parse_from_rfc3339(value.trim()).is_err()
                    {
                        errors.add(
                            &field,
                            Text::new(
                                format!("The {key} is not a valid date and time."),
                                format!("{key} ليس تاريخًا ووقتًا صحيحين."),
                            ),
                        );
                    }
                    if let Some(pattern) = item.keyword("pattern").and_then(Value::as_str)
                        && !pattern_matches(pattern, value)
                    {
                        errors.add(
                            &field,
                            Text::new(
                                format!("The {key} format is invalid."),
                                format!("صيغة {key} غير صحيحة."),
                            ),
                        );
                    }
                    let len = value.chars().count() as u64;
                    if item
                        .keyword("minLength")
                        .and_then(Value::as_u64)
                        .is_some_and(|min| len < min)
                    {
                        errors.add(
                            &field,
                            Text::new(
                                format!("The {key} is too short."),
                                format!("{key} قصير جدًا."),
                            ),
                        );
                    }
                    if item
                        .keyword("maxLength")
                        .and_then(Value::as_u64)
                        .is_some_and(|max| len > max)
                    {
                        errors.add(
                            &field,
                            Text::new(
                                format!("The {key} is too long."),
                                format!("{key} طويل جدًا."),
                            ),
                        );
                    }
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn check_range(view: &crate::document::View<'_>, n: f64, field: &str, errors: &mut FieldErrors) {
    use crate::document::Breach;
    let message = match view.range().breach(n) {
        None => return,
        Some(Breach::Below(min)) => Text::new(
            format!("The {field} must be at least {min}."),
            format!("يجب أن تكون قيمة {field} مساوية أو أكبر من {min}."),
        ),
        Some(Breach::Above(max)) => Text::new(
            format!("The {field} may not be greater than {max}."),
            format!("يجب أن تكون قيمة {field} مساوية أو أصغر من {max}."),
        ),
        Some(Breach::NotAbove(min)) => Text::new(
            format!("The {field} must be greater than {min}."),
            format!("يجب أن تكون قيمة {field} أكبر من {min}."),
        ),
        Some(Breach::NotBelow(max)) => Text::new(
            format!("The {field} must be less than {max}."),
            format!("يجب أن تكون قيمة {field} أصغر من {max}."),
        ),
    };
    errors.add(field, message);
}

/// Text of a scalar, for comparisons.
fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The day (`YYYY-MM-DD`) a date-like value holds: a string, or `{date: ...}`.
fn day_of(value: &Value) -> Option<String> {
    let raw = match value {
        Value::String(s) => s.as_str(),
        Value::Object(map) => map.get("date").and_then(Value::as_str)?,
        _ => return None,
    };
    raw.get(..10).map(str::to_owned)
}

/// Whether `field_value` matches one of `wanted` (see the module documentation).
fn matches_value(field_value: &Value, wanted: &[String], depth: usize) -> bool {
    match field_value {
        Value::Array(items) => items.iter().any(|i| matches_value(i, wanted, depth + 1)),
        Value::Object(map) => {
            ["id", "slug", "name", "code", "value"].iter().any(|key| {
                map.get(*key)
                    .and_then(text)
                    .is_some_and(|t| wanted.iter().any(|w| w.eq_ignore_ascii_case(&t)))
            }) || (depth < 2
                && map
                    .values()
                    .filter(|v| v.is_object())
                    .any(|v| matches_value(v, wanted, depth + 1)))
        }
        Value::Bool(b) => wanted.iter().any(|w| match w.as_str() {
            "1" | "true" => *b,
            "0" | "false" => !*b,
            _ => false,
        }),
        other => text(other).is_some_and(|t| wanted.iter().any(|w| w.eq_ignore_ascii_case(&t))),
    }
}

fn contains_text(value: &Value, needle: &str, depth: usize) -> bool {
    match value {
        Value::String(s) => s.to_lowercase().contains(needle),
        Value::Number(n) => n.to_string().contains(needle),
        Value::Array(items) if depth < 3 => {
            items.iter().any(|i| contains_text(i, needle, depth + 1))
        }
        Value::Object(map) if depth < 3 => {
            map.values().any(|v| contains_text(v, needle, depth + 1))
        }
        _ => false,
    }
}

impl Filters {
    /// The filters `query` asks of the records of `op` (a sample record tells which fields exist).
    pub fn parse(
        doc: &Document,
        op: &Operation,
        query: &QueryPairs,
        fields: &dyn Fn(&str) -> bool,
    ) -> Result<Self, FieldErrors> {
        let mut errors = FieldErrors::new();
        let mut filters = Filters::default();
        for param in op.params.iter().filter(|p| p.location == Location::Query) {
            let key = param.key.as_str();
            if RESERVED.contains(&key) {
                continue;
            }
            let values: Vec<String> = query.all(key).into_iter().map(str::to_owned).collect();
            if values.is_empty() {
                continue;
            }
            if FREE_TEXT.contains(&key) && !fields(key) {
                filters.keyword = values.last().map(|v| v.to_lowercase());
                continue;
            }
            let view = doc.view(&param.schema);
            let is_date = view.keyword("format").and_then(Value::as_str) == Some("date");
            if is_date && let Some(lower) = is_lower_bound(key) {
                filters.dates.push(DateBound {
                    param: key.to_owned(),
                    field: key.to_owned(),
                    day: values.last().cloned().unwrap_or_default(),
                    lower,
                });
                continue;
            }
            let plural = key
                .strip_suffix('y')
                .map_or_else(|| format!("{key}s"), |stem| format!("{stem}ies"));
            let field = [key.to_owned(), format!("{key}_id"), plural]
                .into_iter()
                .find(|f| fields(f));
            if let Some(field) = field {
                filters.equal.push((field, values));
            }
        }
        let lowest = filters
            .dates
            .iter()
            .filter(|d| d.lower)
            .map(|d| &d.day)
            .max();
        for bound in filters.dates.iter().filter(|d| !d.lower) {
            if let Some(lowest) = lowest
                && bound.day < *lowest
            {
                let from = filters
                    .dates
                    .iter()
                    .find(|d| d.lower)
                    .map_or("start", |d| d.param.as_str());
                let param = &bound.param;
                errors.add(
                    param,
                    Text::new(
                        format!("The {param} must be a date after or equal to {from}."),
                        format!("يجب أن يكون {param} تاريخًا لاحقًا أو مطابقًا لـ {from}."),
                    ),
                );
            }
        }
        if let Some(raw) = query.one("sort_by") {
            match raw.rsplit_once('-') {
                Some((attribute, direction @ ("asc" | "desc"))) if fields(attribute) => {
                    filters.sort = Some((attribute.to_owned(), direction == "asc"));
                }
                _ => errors.add(
                    "sort_by",
                    Text::new(
                        "The sort by must be <attribute>-asc or <attribute>-desc, of an attribute of the records.",
                        "يجب أن يكون الترتيب <attribute>-asc أو <attribute>-desc، لإحدى خصائص السجلات.",
                    ),
                ),
            }
        }
        if errors.is_empty() {
            Ok(filters)
        } else {
            Err(errors)
        }
    }

    /// Whether no filter is asked for (every record passes).
    pub fn is_empty(&self) -> bool {
        self.equal.is_empty() && self.keyword.is_none() && self.dates.is_empty()
    }

    /// Whether `record` passes every filter.
    pub fn accepts(&self, record: &Value) -> bool {
        self.equal.iter().all(|(field, wanted)| {
            record
                .get(field)
                .is_some_and(|value| matches_value(value, wanted, 0))
        }) && self
            .keyword
            .as_ref()
            .is_none_or(|k| contains_text(record, k, 0))
            && self.dates.iter().all(|bound| {
                let day = record.get(&bound.field).and_then(day_of).or_else(|| {
                    ["created_at", "date", "updated_at"]
                        .iter()
                        .find_map(|f| record.get(*f).and_then(day_of))
                });
                day.is_some_and(|day| {
                    if bound.lower {
                        day >= bound.day
                    } else {
                        day <= bound.day
                    }
                })
            })
    }

    /// Sorts `records` by the `sort_by` field, if any.
    pub fn sort(&self, records: &mut [&Value]) {
        let Some((field, ascending)) = &self.sort else {
            return;
        };
        records.sort_by(|a, b| {
            let ordering = compare(a.get(field), b.get(field));
            if *ascending {
                ordering
            } else {
                ordering.reverse()
            }
        });
    }
}

/// A sort key: numbers (and numeric strings, amounts, dates) in order, then text.
fn sort_key(value: Option<&Value>) -> (Option<f64>, String) {
    match value {
        Some(Value::Number(n)) => (n.as_f64(), String::new()),
        Some(Value::String(s)) => (s.trim().parse().ok(), s.clone()),
        Some(Value::Object(map)) => {
            for key in ["amount", "date", "value", "id", "name"] {
                if let Some(inner) = map.get(key) {
                    return sort_key(Some(inner));
                }
            }
            (None, String::new())
        }
        Some(Value::Bool(b)) => (Some(f64::from(u8::from(*b))), String::new()),
        _ => (None, String::new()),
    }
}

fn compare(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    let (a, b) = (sort_key(a), sort_key(b));
    match (a.0, b.0) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        _ => a.1.cmp(&b.1),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn objects_match_by_id_slug_name_or_a_nested_id() {
        let status = json!({"id": 1, "slug": "shipped", "customized": {"id": 7}});
        assert!(matches_value(&status, &["7".into()], 0));
        assert!(matches_value(&status, &["SHIPPED".into()], 0));
        assert!(!matches_value(&status, &["8".into()], 0));
        assert!(matches_value(&json!([1, 2]), &["2".into()], 0));
    }

    #[test]
    fn bounds_read_their_direction_from_the_name() {
        assert_eq!(is_lower_bound("from_date"), Some(true));
        assert_eq!(is_lower_bound("end"), Some(false));
        assert_eq!(is_lower_bound("keyword"), None);
    }
}

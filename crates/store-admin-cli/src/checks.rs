//! Input checks before anything is sent: what the document says a value must be (a number, a
//! whole number, within bounds, of a length, of a pattern, one of a closed set), as the generator writes it
//! (`xtask/src/cli_gen/`): a [`Rule`] for each scalar flag (clap's value parser, so a bad value is
//! a usage error naming the flag, exit 2), and a [`Schema`] for each request body, checked after
//! `--body` and the flags are laid together, so that every missing required field, nested ones
//! included, and every value out of bounds are named at once with their paths.
//!
//! The checks are no stricter than the document: a type the check does not know (a union of
//! objects, a value of no documented type) is left to the typed body, and the service's own
//! forms stay accepted where the document admits them (a decimal as text, `"149.50"`, is a
//! number of a `number | string` field).

use serde_json::Value;

/// What kind of value a scalar takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// Anything (text, or a type the checks leave to the typed body).
    Any,
    /// A whole number (`type: integer`).
    Integer,
    /// A number (`type: number`).
    Number,
    /// A number, or a decimal written as text (`number | string`: `10`, `12.5`, `"149.50"`).
    Decimal,
}

/// What the document says of one scalar value: its kind and bounds (`minimum`/`maximum`,
/// `minLength`/`maxLength`), and the `pattern` of a text.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Rule {
    /// The kind of value.
    pub kind: Kind,
    /// The least value admitted (`minimum`).
    pub minimum: Option<f64>,
    /// The greatest value admitted (`maximum`).
    pub maximum: Option<f64>,
    /// The fewest characters of a text (`minLength`).
    pub min_length: Option<u64>,
    /// The most characters of a text (`maxLength`).
    pub max_length: Option<u64>,
    /// The regular expression a text must match (`pattern`). One that the `regex` crate cannot
    /// read (a look-around of ECMA-262) checks nothing: the checks are no stricter than the
    /// document, and the service still says.
    pub pattern: Option<&'static str>,
}

impl Rule {
    /// A rule that admits anything.
    pub const ANY: Rule = Rule {
        kind: Kind::Any,
        minimum: None,
        maximum: None,
        min_length: None,
        max_length: None,
        pattern: None,
    };

    /// A whole number, unbounded.
    pub const INTEGER: Rule = Rule {
        kind: Kind::Integer,
        ..Rule::ANY
    };

    /// A number, unbounded.
    pub const NUMBER: Rule = Rule {
        kind: Kind::Number,
        ..Rule::ANY
    };

    /// A number or a decimal as text, unbounded.
    pub const DECIMAL: Rule = Rule {
        kind: Kind::Decimal,
        ..Rule::ANY
    };

    /// A flag's text as the JSON value it sends, or what is wrong with it, in words (clap adds
    /// the flag and the value).
    pub fn parse(&self, text: &str) -> Result<Value, String> {
        let value = match self.kind {
            Kind::Any => Value::String(text.to_owned()),
            Kind::Integer => match text.trim().parse::<i64>() {
                Ok(n) => Value::from(n),
                Err(_) if decimal_text(text.trim()) => {
                    return Err("a whole number is expected (for example 5)".to_owned());
                }
                Err(_) => {
                    return Err(
                        "not a number: a whole number is expected (for example 5)".to_owned()
                    );
                }
            },
            Kind::Number => match text.trim().parse::<f64>() {
                Ok(n) if n.is_finite() && decimal_text(text.trim()) => {
                    serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
                }
                _ => return Err("not a number (for example 12.5)".to_owned()),
            },
            Kind::Decimal => {
                let trimmed = text.trim();
                if !decimal_text(trimmed) {
                    return Err("not a number (for example 149.50)".to_owned());
                }
                let trimmed = trimmed.strip_prefix('+').unwrap_or(trimmed);
                match trimmed.parse::<serde_json::Number>() {
                    // Sent as typed: a number as written stays a number, a decimal that JSON
                    // would rewrite (`10.50`, `007`) stays the text the service also takes.
                    Ok(number) if number.to_string() == trimmed => Value::Number(number),
                    _ => Value::String(trimmed.to_owned()),
                }
            }
        };
        match self.problem(&value) {
            Some(problem) => Err(problem),
            None => Ok(value),
        }
    }

    /// What is wrong with `value` by this rule's bounds, in words; `None` when it fits, or when
    /// it is not of a kind the bounds speak of (the typed body says that).
    pub fn problem(&self, value: &Value) -> Option<String> {
        let number = match value {
            Value::Number(n) => n.as_f64(),
            Value::String(text) if self.kind == Kind::Decimal && decimal_text(text.trim()) => {
                text.trim().parse::<f64>().ok()
            }
            _ => None,
        };
        if let Some(n) = number {
            match (self.minimum, self.maximum) {
                (Some(min), Some(max)) if n < min || n > max => {
                    return Some(format!("must be from {} to {}", shown(min), shown(max)));
                }
                (Some(min), None) if n < min => {
                    return Some(format!("must be {} or more", shown(min)));
                }
                (None, Some(max)) if n > max => {
                    return Some(format!("must be {} or less", shown(max)));
                }
                _ => {}
            }
        }
        if let Value::String(text) = value
            && matches!(self.kind, Kind::Any)
        {
            let length = text.chars().count() as u64;
            let characters = |n: u64| {
                if n == 1 {
                    "1 character".to_owned()
                } else {
                    format!("{n} characters")
                }
            };
            match (self.min_length, self.max_length) {
                (Some(min), Some(max)) if min == max && length != min => {
                    return Some(format!("must be exactly {} long", characters(min)));
                }
                (_, Some(max)) if length > max => {
                    return Some(format!("is longer than {}", characters(max)));
                }
                (Some(_), _) if length == 0 => return Some("must not be empty".to_owned()),
                (Some(min), _) if length < min => {
                    return Some(format!("is shorter than {}", characters(min)));
                }
                _ => {}
            }
            if let Some(pattern) = self.pattern
                && let Ok(expression) = regex::Regex::new(pattern)
                && !expression.is_match(text)
            {
                return Some(format!("must match the pattern {pattern}"));
            }
        }
        None
    }
}

/// Whether `text` is a decimal as people and the service write it: an optional sign, digits,
/// and an optional fraction (`10`, `-5`, `149.50`, `.5`).
fn decimal_text(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    !(whole.is_empty() && fraction.is_empty())
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
}

/// A bound as people write it: `0`, `1.5`.
fn shown(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

/// A flag's value parser: its text checked by `rule` and converted to the flag's Rust type.
pub fn flag<T: FromChecked>(
    rule: Rule,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
    move |text: &str| rule.parse(text).and_then(T::from_checked)
}

/// The Rust types of checked flags.
pub trait FromChecked: Sized {
    /// The value a [`Rule`] admitted, as this type.
    fn from_checked(value: Value) -> Result<Self, String>;
}

impl FromChecked for Value {
    fn from_checked(value: Value) -> Result<Self, String> {
        Ok(value)
    }
}

impl FromChecked for i64 {
    fn from_checked(value: Value) -> Result<Self, String> {
        value
            .as_i64()
            .ok_or_else(|| "a whole number is expected (for example 5)".to_owned())
    }
}

impl FromChecked for f64 {
    fn from_checked(value: Value) -> Result<Self, String> {
        match &value {
            Value::Number(n) => n.as_f64(),
            Value::String(text) => text.parse().ok(),
            _ => None,
        }
        .ok_or_else(|| "not a number (for example 12.5)".to_owned())
    }
}

impl FromChecked for String {
    fn from_checked(value: Value) -> Result<Self, String> {
        match value {
            Value::String(text) => Ok(text),
            other => Ok(other.to_string()),
        }
    }
}

/// What the document says of a JSON value, as far as the checks go: its required properties, the
/// schema of each property, of the values of a map and of an array's items, and the rule and
/// closed value set of a scalar.
#[derive(Debug)]
#[non_exhaustive]
pub struct Schema {
    /// The properties an object must have.
    pub required: &'static [&'static str],
    /// The schema of each property that has something to check.
    pub properties: &'static [(&'static str, &'static Schema)],
    /// The schema of a map's values (`additionalProperties`).
    pub values: Option<&'static Schema>,
    /// The schema of an array's items.
    pub items: Option<&'static Schema>,
    /// The rule of a scalar.
    pub rule: Rule,
    /// The values of a closed set (`enum`); empty when any is admitted.
    pub one_of: &'static [&'static str],
    /// The required properties that admit `null` (`nullable: true`): present as `null`, they
    /// are not missing.
    pub nullable: &'static [&'static str],
}

impl Schema {
    /// A schema that checks nothing.
    pub const ANY: Schema = Schema {
        required: &[],
        properties: &[],
        values: None,
        items: None,
        rule: Rule::ANY,
        one_of: &[],
        nullable: &[],
    };
}

/// What a check found wrong in a body: the path of the value (`details.name`,
/// `packages[0].weight`), and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// A required property is missing (or `null`).
    Missing(String),
    /// A value breaks the document's rule: the path, and the rule in words.
    Invalid(String, String),
}

/// Every problem of `value` by `schema`, in document order, below `path` (`""` for the body
/// itself). The required properties of the body itself are not reported (the body's own check
/// names them with their flags).
pub fn problems(value: &Value, schema: &Schema, path: &str) -> Vec<Problem> {
    let mut found = Vec::new();
    walk(value, schema, path, &mut found, 0);
    found
}

/// Deeper than this, a value is left to the typed body (a schema may refer to itself).
const MAX_DEPTH: usize = 32;

fn walk(value: &Value, schema: &Schema, path: &str, found: &mut Vec<Problem>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let join = |name: &str| {
        if path.is_empty() {
            name.to_owned()
        } else {
            format!("{path}.{name}")
        }
    };
    match value {
        Value::Object(map) => {
            if !path.is_empty() {
                for name in schema.required {
                    let nullable = schema.nullable.contains(name);
                    match map.get(*name) {
                        None => found.push(Problem::Missing(join(name))),
                        Some(Value::Null) if !nullable => found.push(Problem::Missing(join(name))),
                        _ => {}
                    }
                }
            }
            for (name, inner) in map {
                let property = schema
                    .properties
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, s)| *s)
                    .or(schema.values);
                if let Some(property) = property {
                    walk(inner, property, &join(name), found, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            if let Some(schema) = schema.items {
                for (index, item) in items.iter().enumerate() {
                    walk(item, schema, &format!("{path}[{index}]"), found, depth + 1);
                }
            }
        }
        Value::Null => {}
        scalar => {
            if !schema.one_of.is_empty() {
                let text = match scalar {
                    Value::String(text) => Some(text.clone()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                };
                if let Some(text) = text
                    && !schema.one_of.contains(&text.as_str())
                {
                    found.push(Problem::Invalid(
                        path.to_owned(),
                        format!("must be one of {}", schema.one_of.join(", ")),
                    ));
                    return;
                }
            }
            if let Some(problem) = schema.rule.problem(scalar) {
                found.push(Problem::Invalid(path.to_owned(), problem));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const fn rule(kind: Kind) -> Rule {
        Rule {
            kind,
            minimum: None,
            maximum: None,
            min_length: None,
            max_length: None,
            pattern: None,
        }
    }

    #[test]
    fn a_decimal_takes_numbers_and_decimal_text_only() {
        let decimal = rule(Kind::Decimal);
        assert_eq!(decimal.parse("10").unwrap(), json!(10));
        assert_eq!(decimal.parse("12.5").unwrap(), json!(12.5));
        assert_eq!(decimal.parse("149.50").unwrap(), json!("149.50"));
        assert_eq!(decimal.parse("-5").unwrap(), json!(-5));
        for bad in ["abc", "", "1,5", "12.5.1", "nan", "inf", "1e3", "."] {
            let error = decimal.parse(bad).unwrap_err();
            assert!(error.starts_with("not a number"), "{bad}: {error}");
        }
    }

    #[test]
    fn integers_and_numbers_refuse_what_they_are_not() {
        let integer = rule(Kind::Integer);
        assert_eq!(integer.parse("-5").unwrap(), json!(-5));
        assert!(
            integer
                .parse("abc")
                .unwrap_err()
                .starts_with("not a number")
        );
        assert!(integer.parse("2.5").unwrap_err().contains("whole number"));
        let number = rule(Kind::Number);
        assert_eq!(number.parse("2.5").unwrap(), json!(2.5));
        for bad in ["NaN", "inf", "abc", "1e999"] {
            assert!(number.parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_text_must_match_its_pattern_and_an_unreadable_pattern_checks_nothing() {
        let sort = Rule {
            pattern: Some("^(id|total)-(asc|desc)$"),
            ..Rule::ANY
        };
        assert_eq!(sort.parse("id-desc").unwrap(), json!("id-desc"));
        assert_eq!(
            sort.parse("name-up").unwrap_err(),
            "must match the pattern ^(id|total)-(asc|desc)$"
        );
        // In a body too, at its path.
        static SCHEMA: Schema = Schema {
            properties: &[("sort", &SORT)],
            ..Schema::ANY
        };
        let schema = &SCHEMA;
        static SORT: Schema = Schema {
            rule: Rule {
                pattern: Some("^(id|total)-(asc|desc)$"),
                ..Rule::ANY
            },
            ..Schema::ANY
        };
        assert_eq!(
            problems(&json!({"sort": "up"}), schema, ""),
            [Problem::Invalid(
                "sort".to_owned(),
                "must match the pattern ^(id|total)-(asc|desc)$".to_owned()
            )]
        );
        // A look-ahead (ECMA-262) the regex crate does not read: left to the service.
        let ahead = Rule {
            pattern: Some("^(?=x).*$"),
            ..Rule::ANY
        };
        assert_eq!(ahead.parse("y").unwrap(), json!("y"));
    }

    #[test]
    fn bounds_are_said_in_words() {
        let sort = Rule {
            minimum: Some(0.0),
            ..rule(Kind::Integer)
        };
        assert_eq!(sort.parse("-1").unwrap_err(), "must be 0 or more");
        assert_eq!(sort.parse("0").unwrap(), json!(0));
        let version = Rule {
            minimum: Some(1.0),
            maximum: Some(2.0),
            ..rule(Kind::Integer)
        };
        assert_eq!(version.parse("3").unwrap_err(), "must be from 1 to 2");
        let price = Rule {
            minimum: Some(0.0),
            ..rule(Kind::Decimal)
        };
        assert_eq!(price.parse("-0.50").unwrap_err(), "must be 0 or more");
        let code = Rule {
            min_length: Some(1),
            max_length: Some(3),
            ..Rule::ANY
        };
        assert_eq!(
            code.parse("abcd").unwrap_err(),
            "is longer than 3 characters"
        );
        assert_eq!(code.parse("").unwrap_err(), "must not be empty");
        assert_eq!(code.parse("ar").unwrap(), json!("ar"));
        let digits = Rule {
            min_length: Some(4),
            max_length: Some(4),
            ..Rule::ANY
        };
        assert_eq!(
            digits.parse("123").unwrap_err(),
            "must be exactly 4 characters long"
        );
        let name = Rule {
            min_length: Some(1),
            ..Rule::ANY
        };
        assert_eq!(name.parse("").unwrap_err(), "must not be empty");
    }

    static NAME: Schema = Schema {
        rule: Rule {
            min_length: Some(1),
            ..Rule::ANY
        },
        ..Schema::ANY
    };
    static KIND: Schema = Schema {
        one_of: &["text", "image"],
        ..Schema::ANY
    };
    static VALUE: Schema = Schema {
        required: &["id", "name", "kind"],
        properties: &[("name", &NAME), ("kind", &KIND)],
        ..Schema::ANY
    };
    static BODY: Schema = Schema {
        required: &["values"],
        properties: &[(
            "values",
            &Schema {
                items: Some(&VALUE),
                ..Schema::ANY
            },
        )],
        ..Schema::ANY
    };

    #[test]
    fn every_nested_problem_is_found_with_its_path() {
        let body = json!({"values": [{"name": ""}, {"id": 1, "name": "a", "kind": "video"}]});
        assert_eq!(
            problems(&body, &BODY, ""),
            vec![
                Problem::Missing("values[0].id".into()),
                Problem::Missing("values[0].kind".into()),
                Problem::Invalid("values[0].name".into(), "must not be empty".into()),
                Problem::Invalid("values[1].kind".into(), "must be one of text, image".into()),
            ]
        );
        // The body's own required fields are named by the body's check, with their flags.
        assert!(problems(&json!({}), &BODY, "").is_empty());
    }
}
